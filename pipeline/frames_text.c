/* frames_text.c — the text forms of an address's frames, as `symprof
 * symbolize` writes them through symbolize/batch.c:
 *
 *   GNU    addr2line -f -i: a function line, then FILE:LINE, for every frame
 *          innermost first; unknown parts ?? and ??:0; -p puts a frame on
 *          one line (FUNC at FILE:LINE) and the frames it was inlined into
 *          after " (inlined by) "; -a echoes the address first
 *          (0x + 16 digits)
 *   LLVM   llvm-symbolizer's: FILE:LINE:COLUMN, a blank line after each
 *          address; a line that is no address is echoed
 *   JSON   llvm-symbolizer --output-style=JSON: an object per input line
 *          ({"Address","ModuleName","Symbol":[...]}, an Error object for a
 *          line that is no address), one array of them for arguments
 *   --json symprof's own: {"address":..,"frames":[{"function","raw","file",
 *          "line","column","start_line","inlined"}]}
 *
 * The answer to an address (its frames) is made once and kept by the
 * batch; what goes around it per input line (the echoed address, the JSON
 * object's start and end) is queued by decorate.
 */
#include "pipeline/pipeline.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct sp_frames_text {
	sp_text_options o;
	sp_buf module;    /* JSON: ,"ModuleName":"FILE" as JSON text */
	size_t n_objects; /* objects written into the JSON array */
};

/* Length of the UTF-8 sequence at S, of N > 0 bytes (1 to 4), or 0 when
 * S does not start a well-formed one (overlong forms, surrogates and code
 * points past U+10FFFF included). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
	unsigned lo = 0x80, hi = 0xbf; /* allowed range of the second byte */
	if (c < 0xc2 || c > 0xf4 || n < len)
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

/* Appends the N bytes at S escaped for a JSON string (no quotes).  With
 * UTF8 (llvm-symbolizer's form), a byte that is not part of well-formed
 * UTF-8 becomes U+FFFD (in UTF-8), so the output is valid JSON whatever the
 * names hold, and tab, newline and return get their short escapes; without
 * (the --json form), bytes from 0x80 up are copied as they are. */
static void json_chars(sp_buf *b, const char *s, size_t n, bool utf8)
{
	const char *run = s, *end = s + n;
	while (s < end) {
		unsigned char ch = (unsigned char)*s;
		size_t ulen = 1;
		if (ch >= 0x80 && utf8) {
			ulen = utf8_len((const unsigned char *)s, (size_t)(end - s));
			if (ulen) {
				s += ulen;
				continue;
			}
		} else if (ch != '"' && ch != '\\' && ch >= 0x20) {
			s++;
			continue;
		}
		sp_buf_append(b, run, (size_t)(s - run));
		if (!ulen)
			sp_buf_puts(b, "\xef\xbf\xbd"); /* U+FFFD, as llvm-symbolizer */
		else if (ch == '"' || ch == '\\')
			sp_buf_printf(b, "\\%c", ch);
		else if (utf8 && (ch == '\t' || ch == '\n' || ch == '\r')) /* as llvm-symbolizer */
			sp_buf_printf(b, "\\%c", ch == '\t' ? 't' : ch == '\n' ? 'n' : 'r');
		else
			sp_buf_printf(b, "\\u%04x", ch);
		run = ++s;
	}
	sp_buf_append(b, run, (size_t)(s - run));
}

/* Appends S as a JSON string: NULL as null, or with EMPTY_NULL as "". */
static void json_put(sp_buf *b, const char *s, bool empty_null, bool utf8)
{
	if (!s) {
		sp_buf_puts(b, empty_null ? "\"\"" : "null");
		return;
	}
	sp_buf_append(b, "\"", 1);
	json_chars(b, s, strlen(s), utf8);
	sp_buf_append(b, "\"", 1);
}

static void json_str(sp_buf *b, const char *s)
{
	json_put(b, s, false, false);
}

/* A string of llvm-symbolizer's JSON: unknown is "". */
static void json_text(sp_buf *b, const char *s)
{
	json_put(b, s, true, true);
}

/* FILE as printed: without its directories with -s. */
static const char *file_name(const sp_frames_text *t, const char *file)
{
	const char *slash = t->o.basenames && file ? strrchr(file, '/') : NULL;
	return slash ? slash + 1 : file;
}

/* llvm-symbolizer's "Symbol" array: every frame innermost first, or one
 * frame of unknowns when nothing is known.  The function's start address
 * and the file of its declaration are not looked up: they print as
 * llvm-symbolizer prints them when unknown. */
static void format_llvm_json(const sp_frames_text *t, const sp_frame *fr, size_t n, sp_buf *b)
{
	static const sp_frame none = {0};
	sp_buf_puts(b, "[");
	for (size_t i = 0; i < (n ? n : 1); i++) {
		const sp_frame *f = n ? &fr[i] : &none;
		sp_buf_printf(b, "%s{\"Column\":%" PRId64 ",\"Discriminator\":%" PRIu32 ",\"FileName\":",
			      i ? "," : "", f->column, f->discriminator);
		json_text(b, file_name(t, f->file));
		sp_buf_puts(b, ",\"FunctionName\":");
		json_text(b, f->name);
		sp_buf_printf(b,
			      ",\"Line\":%" PRId64 ",\"StartAddress\":\"\",\"StartFileName\":\"\""
			      ",\"StartLine\":%" PRId64 "}",
			      f->line, f->start_line);
	}
	sp_buf_puts(b, "]");
}

/* symprof's --json "frames" array. */
static void format_symprof_json(const sp_frames_text *t, const sp_frame *fr, size_t n,
				sp_buf *b)
{
	sp_buf_puts(b, "[");
	for (size_t i = 0; i < n; i++) {
		sp_buf_puts(b, i ? ",{\"function\":" : "{\"function\":");
		json_str(b, fr[i].name);
		sp_buf_puts(b, ",\"raw\":");
		json_str(b, fr[i].system_name);
		sp_buf_puts(b, ",\"file\":");
		json_str(b, file_name(t, fr[i].file));
		sp_buf_printf(b,
			      ",\"line\":%" PRId64 ",\"column\":%" PRId64 ",\"start_line\":%" PRId64
			      ",\"inlined\":%s}",
			      fr[i].line, fr[i].column, fr[i].start_line,
			      fr[i].inlined ? "true" : "false");
	}
	sp_buf_puts(b, "]");
}

/* The text forms other than the default: -p (FUNC at FILE:LINE, then
 * " (inlined by) " frames), -s, and the LLVM style (FILE:LINE:COLUMN, a
 * blank line after each address). */
static void format_text(const sp_frames_text *t, const sp_frame *fr, size_t n, sp_buf *b)
{
	bool llvm = t->o.style == SP_TEXT_LLVM, pretty = t->o.pretty;
	if (n == 0)
		sp_buf_puts(b, llvm ? (pretty ? "?? at ??:0:0\n" : "??\n??:0:0\n")
				    : (pretty ? "?? ??:0\n" : "??\n??:0\n"));
	for (size_t i = 0; i < n; i++) {
		const char *file = file_name(t, fr[i].file);
		if (pretty && i)
			sp_buf_puts(b, " (inlined by) ");
		sp_buf_puts(b, fr[i].name ? fr[i].name : "??");
		sp_buf_puts(b, pretty ? " at " : "\n");
		sp_buf_printf(b, "%s:%" PRId64, file ? file : "??", fr[i].line > 0 ? fr[i].line : 0);
		if (llvm)
			sp_buf_printf(b, ":%" PRId64, fr[i].column > 0 ? fr[i].column : 0);
		sp_buf_puts(b, "\n");
	}
	if (llvm)
		sp_buf_puts(b, "\n");
}

/* addr2line's form, NAME\nFILE:LINE\n a frame: the lengths first, then
 * one growth and straight copies (the common case of a million lines). */
static void format_gnu(const sp_frame *fr, size_t n, sp_buf *b)
{
	if (n == 0) {
		sp_buf_puts(b, "??\n??:0\n");
		return;
	}
	size_t total = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t line = fr[i].line > 0 ? (uint64_t)fr[i].line : 0;
		size_t digits = 1;
		while (line >= 10) {
			line /= 10;
			digits++;
		}
		total += strlen(fr[i].name ? fr[i].name : "??") +
			 strlen(fr[i].file ? fr[i].file : "??") + digits + 3;
	}
	sp_grow(&b->data, &b->cap, b->len + total + 1, 1);
	char *o = b->data + b->len;
	for (size_t i = 0; i < n; i++) {
		const char *name = fr[i].name ? fr[i].name : "??";
		const char *file = fr[i].file ? fr[i].file : "??";
		size_t nl = strlen(name), fl = strlen(file);
		memcpy(o, name, nl);
		o += nl;
		*o++ = '\n';
		memcpy(o, file, fl);
		o += fl;
		*o++ = ':';
		char num[24], *e = num + sizeof(num), *q = e;
		uint64_t line = fr[i].line > 0 ? (uint64_t)fr[i].line : 0;
		do
			*--q = (char)('0' + line % 10);
		while (line /= 10);
		memcpy(o, q, (size_t)(e - q));
		o += e - q;
		*o++ = '\n';
	}
	b->len = (size_t)(o - b->data);
	b->data[b->len] = '\0';
}

void sp_frames_text_append(const sp_frames_text *t, const sp_frame *fr, size_t n, sp_buf *b)
{
	switch (t->o.style) {
	case SP_TEXT_JSON:
		format_llvm_json(t, fr, n, b);
		return;
	case SP_TEXT_SYMPROF_JSON:
		format_symprof_json(t, fr, n, b);
		return;
	case SP_TEXT_LLVM:
		format_text(t, fr, n, b);
		return;
	case SP_TEXT_GNU:
		break;
	}
	if (t->o.pretty || t->o.basenames)
		format_text(t, fr, n, b);
	else
		format_gnu(fr, n, b);
}

static void answer(void *ctx, const sp_frame *fr, size_t n, sp_buf *b)
{
	sp_frames_text_append(ctx, fr, n, b);
}

/* llvm-symbolizer's answer to a line that is no address. */
static void bad_line_json(void *ctx, const char *line, size_t len, sp_buf *b)
{
	const sp_frames_text *t = ctx;
	sp_buf_puts(b, "{\"Error\":{\"Message\":\"unable to parse arguments: ");
	json_chars(b, line, len, true);
	sp_buf_puts(b, "\"}");
	sp_buf_append(b, t->module.data, t->module.len);
	sp_buf_puts(b, "}");
}

/* "0x", 16 hex digits and a newline, as addr2line -a prints an address,
 * at B (19 bytes). */
static void put_addr16(char *b, uint64_t a)
{
	b[0] = '0';
	b[1] = 'x';
	for (int i = 17; i >= 2; i--, a >>= 4)
		b[i] = "0123456789abcdef"[a & 15];
	b[18] = '\n';
}

/* What goes before the answer of L in the text forms: the address with
 * -a, or a line that is no address echoed.  False when the answer is not
 * written (LLVM echoes such a line alone). */
static bool text_prefix(const sp_frames_text *t, const sp_batch_line *l, sp_batch_emit *em)
{
	char pre[SP_BATCH_PREFIX_MAX];
	if (t->o.style == SP_TEXT_LLVM && !l->ok) {
		sp_batch_put(em, l->line, l->line_len);
		sp_batch_put(em, "\n", 1);
		return false;
	}
	if (!t->o.print_addr)
		return true;
	if (t->o.style == SP_TEXT_LLVM) {
		int k = snprintf(pre, sizeof(pre), "0x%" PRIx64 "%s", l->vaddr,
				 t->o.pretty ? ": " : "\n");
		sp_batch_put_copy(em, pre, (size_t)k);
	} else if (l->ok) {
		put_addr16(pre, l->vaddr);
		if (t->o.pretty)
			memcpy(pre + 18, ": ", 2);
		sp_batch_put_copy(em, pre, t->o.pretty ? 20 : 19);
	} else {
		sp_batch_put(em, l->line, l->line_len);
		sp_batch_put(em, t->o.pretty ? ": " : "\n", t->o.pretty ? 2 : 1);
	}
	return true;
}

static void decorate(void *ctx, const sp_batch_line *l, sp_batch_emit *em)
{
	sp_frames_text *t = ctx;
	char pre[SP_BATCH_PREFIX_MAX];
	bool json = t->o.style == SP_TEXT_JSON || t->o.style == SP_TEXT_SYMPROF_JSON;
	if (t->o.json_array)
		sp_batch_put(em, t->n_objects++ ? "," : "[", 1);
	if (t->o.style == SP_TEXT_JSON && !l->ok) { /* bad_line_json's object */
		sp_batch_put_answer(em);
		if (!t->o.json_array)
			sp_batch_put(em, "\n", 1);
		return;
	}
	if (t->o.style == SP_TEXT_JSON) {
		int k = snprintf(pre, sizeof(pre), "{\"Address\":\"0x%" PRIx64 "\"", l->vaddr);
		sp_batch_put_copy(em, pre, (size_t)k);
		sp_batch_put(em, t->module.data, t->module.len);
		sp_batch_put(em, ",\"Symbol\":", 10);
	} else if (t->o.style == SP_TEXT_SYMPROF_JSON) {
		if (l->ok) {
			int k = snprintf(pre, sizeof(pre), "{\"address\":\"0x%" PRIx64 "\",\"frames\":",
					 l->vaddr);
			sp_batch_put_copy(em, pre, (size_t)k);
		} else {
			sp_batch_put(em, "{\"address\":\"\",\"frames\":", 23);
		}
	} else if (!text_prefix(t, l, em)) {
		return;
	}
	sp_batch_put_answer(em);
	if (t->o.json_array)
		sp_batch_put(em, "}", 1);
	else if (json)
		sp_batch_put(em, "}\n", 2);
}

sp_frames_text *sp_frames_text_new(const sp_text_options *o)
{
	sp_frames_text *t = sp_xcalloc(1, sizeof(*t));
	t->o = *o;
	sp_buf_puts(&t->module, ",\"ModuleName\":");
	json_text(&t->module, o->module ? o->module : "");
	return t;
}

void sp_frames_text_free(sp_frames_text *t)
{
	if (!t)
		return;
	sp_buf_free(&t->module);
	free(t);
}

void sp_frames_text_format(sp_frames_text *t, sp_batch_format *f)
{
	sp_text_style st = t->o.style;
	*f = (sp_batch_format){.answer = answer, .ctx = t};
	if (st == SP_TEXT_JSON)
		f->bad_line = bad_line_json;
	if (t->o.print_addr || st != SP_TEXT_GNU || t->o.json_array)
		f->decorate = decorate;
}

const char *sp_frames_text_end(const sp_frames_text *t)
{
	return t->o.json_array ? "]\n" : "";
}
