/* list.c — `--format list`, pprof's -list: each chosen function's source
 * with every line's flat and cum values, and under a line the lines of
 * the callees inlined there (report/annotation.h says how values are
 * attributed), e.g.
 *
 *   Total: 1000
 *   ROUTINE ======================== hot_outer in /src/annfix.c
 *          600        700 (flat, cum) 70.00% of Total
 *            .          .     40:static void hot_outer(long n)
 *          400        400     42:	a = leaf_a(n);
 *          400        400        | 21 leaf_a: 	for (long i = 0; i < n; i++)
 *
 * An inline row shows its depth as '|' marks, the callee's line, its name,
 * and that line's source when the callee's file was read.  Lines without
 * samples are printed between the first and last line with samples (and
 * two around them) when the source is known; without it only the lines
 * with samples, and a note says why.
 */
#include "report/reportp.h"

#include <stdlib.h>
#include <string.h>

#define CONTEXT 2

char *sp_ann_value(const sp_annotation *a, const char *unit, int64_t v)
{
	if (v == 0)
		return sp_xstrdup(".");
	const char *u = a->sample_unit ? a->sample_unit : "";
	return sp_report_scaled_label(v, u, unit && *unit ? unit : u);
}

void sp_ann_write_total(const sp_annotation *a, const char *unit, sp_sink *out)
{
	char *t = sp_ann_value(a, unit, a->total);
	sp_sink_printf(out, "Total: %s\n", !strcmp(t, ".") ? "0" : t);
	free(t);
}

void sp_ann_write_values(const sp_annotation *a, const char *unit, int64_t flat, int64_t cum,
			 sp_sink *out)
{
	char *f = sp_ann_value(a, unit, flat), *c = sp_ann_value(a, unit, cum);
	sp_sink_printf(out, "%10s %10s ", f, c);
	free(f);
	free(c);
}

static void write_source_text(const sp_ann_source *s, int64_t line, sp_sink *out)
{
	size_t len;
	const char *t = sp_ann_source_line(s, line, &len);
	if (t)
		sp_sink_write(out, t, len);
}

static void write_line(const sp_annotation *a, const sp_ann_function *f, const sp_ann_source *src,
		       const sp_ann_line *ln, int64_t line, const char *unit, sp_sink *out)
{
	sp_ann_write_values(a, unit, ln ? ln->flat : 0, ln ? ln->cum : 0, out);
	sp_sink_printf(out, "%6lld:", (long long)line);
	write_source_text(src, line, out);
	sp_sink_puts(out, "\n");
	for (size_t k = 0; ln && k < ln->n_inline; k++) {
		const sp_ann_inline *in = &f->inlines[ln->first_inline + k];
		sp_ann_write_values(a, unit, in->flat, in->cum, out);
		sp_sink_puts(out, "       ");
		for (uint32_t d = 0; d < in->depth; d++)
			sp_sink_puts(out, "| ");
		const char *file = sp_ann_str(a, in->frame.file);
		sp_sink_printf(out, "%s:%lld %s: ", sp_report_base_name(file),
			       (long long)in->frame.line, sp_ann_str(a, in->frame.function));
		write_source_text(sp_ann_source_of(a, in->frame.file), in->frame.line, out);
		sp_sink_puts(out, "\n");
	}
}

sp_error *sp_list_write(const sp_annotation *a, const char *unit, sp_sink *out)
{
	sp_ann_write_total(a, unit, out);
	if (!a->n_functions)
		sp_sink_puts(out, "no function matched\n");
	for (size_t i = 0; i < a->n_functions; i++) {
		const sp_ann_function *f = &a->functions[i];
		const sp_ann_source *src = sp_ann_source_of(a, f->file);
		char pct[16];
		sp_sink_printf(out, "ROUTINE ======================== %s in %s\n",
			       sp_ann_str(a, f->name),
			       f->file ? sp_ann_str(a, f->file) : "(unknown file)");
		sp_ann_write_values(a, unit, f->flat, f->cum, out);
		sp_sink_printf(out, "(flat, cum) %s of Total\n",
			       sp_report_pct(f->cum, a->total, pct));
		if (src && src->missing)
			sp_sink_printf(out, "  (source not shown: %s)\n", src->missing);
		if (!f->n_lines)
			continue;
		bool text = src && src->text;
		int64_t lo = f->lines[0].line, hi = f->lines[f->n_lines - 1].line;
		if (text) {
			if (f->start_line > 0 && f->start_line < lo && lo - f->start_line < 200)
				lo = f->start_line;
			lo = lo > CONTEXT ? lo - CONTEXT : 1;
			hi = hi + CONTEXT;
			if (hi > (int64_t)src->n_lines)
				hi = (int64_t)src->n_lines;
		}
		size_t k = 0;
		for (; k < f->n_lines && f->lines[k].line < lo; k++)
			write_line(a, f, src, &f->lines[k], f->lines[k].line, unit, out);
		for (int64_t line = lo; text && line <= hi; line++) {
			const sp_ann_line *ln = k < f->n_lines && f->lines[k].line == line
							? &f->lines[k++]
							: NULL;
			write_line(a, f, src, ln, line, unit, out);
		}
		for (; k < f->n_lines; k++)
			write_line(a, f, src, &f->lines[k], f->lines[k].line, unit, out);
	}
	return NULL;
}
