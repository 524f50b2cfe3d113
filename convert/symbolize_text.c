/* symbolize_text.c — the text forms of an address's frames for `symprof
 * symbolize`: binutils addr2line's (the GNU style) and llvm-symbolizer's
 * (LLVM), byte for byte as those tools write them:
 *
 *   GNU, addr2line 2.40 (binutils/addr2line.c, translate_addresses):
 *     - a function line per frame with -f only; the innermost frame alone
 *       without -i, every frame with it;
 *     - the names binutils chooses (sp_frame.gnu_name): a frame's DWARF
 *       linkage name, else for the innermost frame the symbol holding the
 *       address, else its DWARF name;
 *     - FILE:LINE, and " (discriminator N)" after the line when the line
 *       table gives the innermost row one: on every frame of the chain, as
 *       addr2line keeps it from the first look-up; a line 0 (a function
 *       without a line) is FILE:? and an unknown file ??; an address nothing
 *       is known of is "??" and "??:0";
 *     - -p: "FUNC at FILE:LINE", the callers after " (inlined by) ";
 *   LLVM, llvm-symbolizer 14: FUNC, FILE:LINE:COLUMN per frame (the
 *     innermost alone with --no-inlines), unknown parts ?? and 0, a blank
 *     line after each address; -p: "FUNC at FILE:LINE:COLUMN".
 *
 * With -S (elfutils' --symbols) the symbol holding the address follows the
 * innermost frame's function line (replaces it without -f) as SYMBOL+0xOFF,
 * or (SECTION)+0xOFF where no symbol names it, with -x the section's name
 * after it, as eu-addr2line prints them.
 */
#include "convert/convert.h"

#include <inttypes.h>
#include <string.h>

/* FILE as printed: without its directories with -s. */
static const char *file_of(const sp_text_form *t, const char *file)
{
	const char *slash = t->basenames && file ? strrchr(file, '/') : NULL;
	return slash ? slash + 1 : file;
}

/* elfutils' symbol line: SYMBOL, SYMBOL+0xOFF, (SECTION)+0xOFF or ??, with
 * -x " (SECTION)" after a symbol. */
static void symbol_text(const sp_text_form *t, const sp_symbol *sym, uint64_t vaddr, sp_buf *b)
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
static const char *frame_name(const sp_text_form *t, const sp_frame *f)
{
	const char *n = !t->llvm && f->gnu_name ? f->gnu_name : f->name;
	return n ? n : "??";
}

static void gnu_line(const sp_text_form *t, const sp_frame *f, uint32_t discr, sp_buf *b)
{
	const char *file = file_of(t, f->file);
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

static void gnu(const sp_text_form *t, const sp_frame *fr, size_t n, const sp_symbol *sym,
		uint64_t vaddr, sp_buf *b)
{
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
		gnu_line(t, &fr[i], fr[0].discriminator, b);
	}
}

static void llvm(const sp_text_form *t, const sp_frame *fr, size_t n, sp_buf *b)
{
	static const sp_frame none = {0};
	sp_frame one;
	if (n > 1 && !t->inlines) {
		/* llvm-symbolizer --no-inlines: the function the code is in, at
		 * the line the line table gives */
		one = fr[0];
		one.name = fr[n - 1].name;
		fr = &one;
		n = 1;
	}
	size_t k = n ? n : 1;
	for (size_t i = 0; i < k; i++) {
		const sp_frame *f = n ? &fr[i] : &none;
		const char *file = file_of(t, f->file);
		if (t->pretty && i)
			sp_buf_puts(b, " (inlined by) ");
		sp_buf_puts(b, frame_name(t, f));
		sp_buf_puts(b, t->pretty ? " at " : "\n");
		sp_buf_printf(b, "%s:%" PRId64 ":%" PRId32 "\n", file ? file : "??",
			      f->line > 0 ? f->line : 0, f->column > 0 ? f->column : 0);
	}
	sp_buf_puts(b, "\n");
}

void sp_text_frames(const sp_text_form *t, const sp_frame *fr, size_t n, const sp_symbol *sym,
		    uint64_t vaddr, sp_buf *b)
{
	if (t->llvm)
		llvm(t, fr, n, b);
	else
		gnu(t, fr, n, sym, vaddr, b);
}
