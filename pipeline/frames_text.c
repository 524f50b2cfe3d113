/* frames_text.c — the text forms of an address's frames, as `symprof
 * symbolize` writes them through symbolize/batch.c:
 *
 *   GNU    binutils addr2line 2.40's bytes (binutils/addr2line.c,
 *          translate_addresses):
 *          - FILE:LINE per frame, a function line before it with -f only;
 *            the innermost frame alone without -i, every frame with it;
 *          - the names binutils chooses (sp_frame.gnu_name): a frame's
 *            DWARF linkage name, else for the innermost frame the symbol
 *            holding the address, else its DWARF name;
 *          - " (discriminator N)" after the line when the line table gives
 *            the innermost row one: on every frame of the chain, as
 *            addr2line keeps it from the first look-up; a line 0 (a
 *            function without a line) is FILE:? and an unknown file ??; an
 *            address nothing is known of is "??" and "??:0";
 *          - -p: "FUNC at FILE:LINE", the callers after " (inlined by) ";
 *          - -a: the address first, 0x and as many digits as the ELF class
 *            has (more when the address needs them); with --section the
 *            offset as given
 *   LLVM   llvm-symbolizer 14's: FUNC, FILE:LINE:COLUMN per frame (the
 *          innermost alone with --no-inlines), unknown parts ?? and 0, a
 *          blank line after each address; -p: "FUNC at FILE:LINE:COLUMN";
 *          a line that is no address is echoed
 *   JSON   llvm-symbolizer --output-style=JSON: an object per input line
 *          ({"Address","ModuleName","Symbol":[...]}, an Error object for a
 *          line that is no address), one array of them for arguments
 *   --json symprof's own: {"address":..,"frames":[{"function","raw","file",
 *          "line","column","start_line","inlined"}]}
 *
 * With -S (elfutils' --symbols) the symbol holding the address follows the
 * innermost frame's function line (replaces it without -f) as SYMBOL+0xOFF,
 * or (SECTION)+0xOFF where no symbol names it, with -x the section's name
 * after it, as eu-addr2line prints them.
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
		sp_buf_printf(b, "%s{\"Column\":%" PRId32 ",\"Discriminator\":%" PRIu32 ",\"FileName\":",
			      i ? "," : "", f->column, f->discriminator);
		json_text(b, file_name(t, f->file));
		sp_buf_puts(b, ",\"FunctionName\":");
		json_text(b, f->name);
		sp_buf_printf(b,
			      ",\"Line\":%" PRId64 ",\"StartAddress\":\"\",\"StartFileName\":\"\""
			      ",\"StartLine\":%" PRId32 "}",
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
			      ",\"line\":%" PRId64 ",\"column\":%" PRId32 ",\"start_line\":%" PRId32
			      ",\"inlined\":%s}",
			      fr[i].line, fr[i].column, fr[i].start_line,
			      fr[i].inlined ? "true" : "false");
	}
	sp_buf_puts(b, "]");
}

/* elfutils' symbol line: SYMBOL, SYMBOL+0xOFF, (SECTION)+0xOFF or ??, with
 * -x " (SECTION)" after a symbol. */
static void symbol_text(const sp_text_options *t, const sp_symbol *sym, uint64_t vaddr,
			sp_buf *b)
{
	if (sym && sym->name) {
		const char *name = sym->demangled ? sym->demangled : sym->name;
		if (vaddr == sym->value)
			sp_buf_puts(b, name);
		else
			sp_buf_printf(b, "%s+%#" PRIx64, name, vaddr - sym->value);
		if (t->symbol_sections && sym->section)
			sp_buf_printf(b, " (%s)", sym->section);
	} else if (sym && sym->section) {
		sp_buf_printf(b, "(%s)+%#" PRIx64, sym->section, vaddr - sym->section_start);
	} else {
		sp_buf_puts(b, "??");
	}
	sp_buf_puts(b, t->pretty ? " " : "\n");
}

/* The function's name as the style prints it. */
static const char *frame_name(const sp_text_options *t, const sp_frame *f)
{
	const char *n = t->style != SP_TEXT_LLVM && f->gnu_name ? f->gnu_name : f->name;
	return n ? n : "??";
}

static void gnu_line(const sp_frames_text *t, const sp_frame *f, uint32_t discr, sp_buf *b)
{
	const char *file = file_name(t, f->file);
	sp_buf_puts(b, file ? file : "??");
	if (f->line <= 0)
		sp_buf_puts(b, ":?\n");
	else if (discr)
		sp_buf_printf(b, ":%" PRId64 " (discriminator %" PRIu32 ")\n", f->line, discr);
	else
		sp_buf_printf(b, ":%" PRId64 "\n", f->line);
}

/* Appends the decimal digits of V at O: returns the end. */
static char *put_u64(char *o, uint64_t v)
{
	char num[24], *e = num + sizeof(num), *q = e;
	do
		*--q = (char)('0' + v % 10);
	while (v /= 10);
	memcpy(o, q, (size_t)(e - q));
	return o + (e - q);
}

static size_t digits_of(uint64_t v)
{
	size_t d = 1;
	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

/* addr2line -f -i's common form, FUNC\nFILE:LINE per frame (the innermost
 * row's discriminator after each line): the lengths first, then one
 * growth and straight copies (a million lines of it). */
static void gnu_fast(const sp_frame *fr, size_t n, sp_buf *b)
{
	static const char discr_text[] = " (discriminator ";
	uint32_t discr = fr[0].discriminator;
	size_t total = 0, dl = discr ? sizeof(discr_text) - 1 + digits_of(discr) + 1 : 0;
	for (size_t i = 0; i < n; i++) {
		const char *name = fr[i].gnu_name ? fr[i].gnu_name : fr[i].name;
		total += strlen(name ? name : "??") + strlen(fr[i].file ? fr[i].file : "??") +
			 (fr[i].line > 0 ? digits_of((uint64_t)fr[i].line) + dl : 1) + 3;
	}
	sp_grow(&b->data, &b->cap, b->len + total + 1, 1);
	char *o = b->data + b->len;
	for (size_t i = 0; i < n; i++) {
		const char *name = fr[i].gnu_name ? fr[i].gnu_name : fr[i].name;
		const char *file = fr[i].file ? fr[i].file : "??";
		name = name ? name : "??";
		size_t nl = strlen(name), fl = strlen(file);
		memcpy(o, name, nl);
		o += nl;
		*o++ = '\n';
		memcpy(o, file, fl);
		o += fl;
		*o++ = ':';
		if (fr[i].line > 0) {
			o = put_u64(o, (uint64_t)fr[i].line);
			if (discr) {
				memcpy(o, discr_text, sizeof(discr_text) - 1);
				o = put_u64(o + sizeof(discr_text) - 1, discr);
				*o++ = ')';
			}
		} else {
			*o++ = '?';
		}
		*o++ = '\n';
	}
	b->len = (size_t)(o - b->data);
	b->data[b->len] = '\0';
}

/* addr2line's forms; SYM is the symbol holding VADDR (-S), or NULL. */
static void format_gnu(const sp_frames_text *ft, const sp_frame *fr, size_t n,
		       const sp_symbol *sym, uint64_t vaddr, sp_buf *b)
{
	const sp_text_options *t = &ft->o;
	if (n == 0) {
		if (t->functions)
			sp_buf_puts(b, t->pretty ? "?? " : "??\n");
		if (t->symbols)
			symbol_text(t, sym, vaddr, b);
		if (t->pretty && t->symbols)
			sp_buf_puts(b, "at ");
		sp_buf_puts(b, "??:0\n");
		return;
	}
	size_t k = t->inlines ? n : 1;
	if (t->functions && !t->pretty && !t->basenames && !t->symbols) {
		gnu_fast(fr, k, b);
		return;
	}
	for (size_t i = 0; i < k; i++) {
		if (i && t->pretty)
			sp_buf_puts(b, " (inlined by) ");
		/* with -S, as eu-addr2line, the function of the debug info only:
		 * the symbol line names the rest */
		bool func = t->functions && !(i == 0 && t->symbols && !fr[0].file);
		if (func) {
			sp_buf_puts(b, frame_name(t, &fr[i]));
			sp_buf_puts(b, t->pretty ? " " : "\n");
		}
		if (i == 0 && t->symbols)
			symbol_text(t, sym, vaddr, b);
		if (t->pretty && (func || (i == 0 && t->symbols)))
			sp_buf_puts(b, "at ");
		gnu_line(ft, &fr[i], fr[0].discriminator, b);
	}
}

/* llvm-symbolizer's text form. */
static void format_llvm(const sp_frames_text *ft, const sp_frame *fr, size_t n, sp_buf *b)
{
	static const sp_frame none = {0};
	const sp_text_options *t = &ft->o;
	size_t k = n ? n : 1;
	for (size_t i = 0; i < k; i++) {
		const sp_frame *f = n ? &fr[i] : &none;
		const char *file = file_name(ft, f->file);
		if (t->pretty && i)
			sp_buf_puts(b, " (inlined by) ");
		sp_buf_puts(b, frame_name(t, f));
		sp_buf_puts(b, t->pretty ? " at " : "\n");
		sp_buf_printf(b, "%s:%" PRId64 ":%" PRId32 "\n", file ? file : "??",
			      f->line > 0 ? f->line : 0, f->column > 0 ? f->column : 0);
	}
	sp_buf_puts(b, "\n");
}

void sp_frames_text_append(const sp_frames_text *t, const sp_frame *fr, size_t n,
			   const sp_symbol *sym, uint64_t vaddr, sp_buf *b)
{
	sp_frame one;
	if (n > 1 && !t->o.inlines &&
	    (t->o.style == SP_TEXT_LLVM || t->o.style == SP_TEXT_JSON)) {
		/* llvm-symbolizer --no-inlines: the function the code is in, at
		 * the line the line table gives */
		one = fr[0];
		one.name = fr[n - 1].name;
		fr = &one;
		n = 1;
	}
	switch (t->o.style) {
	case SP_TEXT_JSON:
		format_llvm_json(t, fr, n, b);
		return;
	case SP_TEXT_SYMPROF_JSON:
		format_symprof_json(t, fr, n, b);
		return;
	case SP_TEXT_LLVM:
		format_llvm(t, fr, n, b);
		return;
	case SP_TEXT_GNU:
		break;
	}
	format_gnu(t, fr, n, sym, vaddr, b);
}

static void answer(void *ctx, const sp_frame *fr, size_t n, const sp_symbol *sym,
		   uint64_t vaddr, sp_buf *b)
{
	sp_frames_text_append(ctx, fr, n, sym, vaddr, b);
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

/* "0x", DIGITS hex digits (8 or 16: addr2line prints as many as the ELF
 * class of the file has, more when the address needs them) and a newline,
 * as addr2line -a prints an address, at B (at most 19 bytes): returns the
 * length without the newline. */
static size_t put_addr(char *b, uint64_t a, int digits)
{
	int n = 1;
	while (n < 16 && a >> (4 * n))
		n++;
	if (n < digits)
		n = digits;
	b[0] = '0';
	b[1] = 'x';
	for (int i = n + 1; i >= 2; i--, a >>= 4)
		b[i] = "0123456789abcdef"[a & 15];
	b[n + 2] = '\n';
	return (size_t)n + 2;
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
		/* addr2line -j prints the offset it was given */
		size_t k = put_addr(pre, t->o.section_offsets ? l->addr : l->vaddr,
				    t->o.addr_digits ? t->o.addr_digits : 16);
		if (t->o.pretty)
			memcpy(pre + k, ": ", 2);
		sp_batch_put_copy(em, pre, t->o.pretty ? k + 2 : k + 1);
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
