/* dump.c — a canonical, deterministic text form of the model, in the
 * spirit of `pprof -raw` (spec/FORMATS.md §1.5), used by golden tests and
 * `symprof convert --format raw`.  Unlike pprof's it prints no local time
 * and lists labels sorted by key, then value.  A profile read from OTLP
 * ends with its extras (otel.c). */
#include "profile/profile.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int cmp_label(const void *a, const void *b, void *ctx)
{
	const sp_profile *p = ctx;
	const sp_label *x = a, *y = b;
	int c = strcmp(sp_profile_str(p, x->key), sp_profile_str(p, y->key));
	if (c)
		return c;
	if ((x->str != 0) != (y->str != 0))
		return x->str ? -1 : 1;
	if (x->str)
		return strcmp(sp_profile_str(p, x->str), sp_profile_str(p, y->str));
	if (x->num != y->num)
		return x->num < y->num ? -1 : 1;
	return strcmp(sp_profile_str(p, x->num_unit), sp_profile_str(p, y->num_unit));
}

static void dump_labels(const sp_profile *p, const sp_sample *s, sp_sink *out)
{
	if (!s->n_labels)
		return;
	sp_label *ls = sp_xreallocarray(NULL, s->n_labels, sizeof(*ls));
	memcpy(ls, s->labels, s->n_labels * sizeof(*ls));
	qsort_r(ls, s->n_labels, sizeof(*ls), cmp_label, (void *)p);
	sp_sink_puts(out, "                ");
	for (size_t i = 0; i < s->n_labels; i++) {
		const sp_label *l = &ls[i];
		sp_sink_printf(out, "%s%s:[", i ? " " : "", sp_profile_str(p, l->key));
		if (l->str)
			sp_sink_puts(out, sp_profile_str(p, l->str));
		else if (l->num_unit)
			sp_sink_printf(out, "%" PRId64 " %s", l->num, sp_profile_str(p, l->num_unit));
		else
			sp_sink_printf(out, "%" PRId64, l->num);
		sp_sink_puts(out, "]");
	}
	sp_sink_puts(out, "\n");
	free(ls);
}

static void dump_line(const sp_profile *p, const sp_line *ln, sp_sink *out)
{
	const sp_function *f = sp_profile_function(p, ln->function_id);
	if (!f) {
		sp_sink_printf(out, "<function %" PRIu64 "?>", ln->function_id);
		return;
	}
	const char *name = sp_profile_str(p, f->name);
	const char *sys = sp_profile_str(p, f->system_name);
	sp_sink_printf(out, "%s %s:%" PRId64 ":%" PRId64 " s=%" PRId64, name,
		       sp_profile_str(p, f->filename), ln->line, ln->column, f->start_line);
	if (strcmp(name, sys) != 0)
		sp_sink_printf(out, "(%s)", sys);
}

void sp_profile_dump(const sp_profile *p, sp_sink *out)
{
	for (size_t i = 0; i < p->n_comments; i++)
		sp_sink_printf(out, "Comment: %s\n", sp_profile_str(p, p->comments[i]));
	if (p->doc_url)
		sp_sink_printf(out, "Doc: %s\n", sp_profile_str(p, p->doc_url));
	if (p->drop_frames)
		sp_sink_printf(out, "DropFrames: %s\n", sp_profile_str(p, p->drop_frames));
	if (p->keep_frames)
		sp_sink_printf(out, "KeepFrames: %s\n", sp_profile_str(p, p->keep_frames));
	if (p->period_type.type || p->period_type.unit)
		sp_sink_printf(out, "PeriodType: %s %s\n", sp_profile_str(p, p->period_type.type),
			       sp_profile_str(p, p->period_type.unit));
	sp_sink_printf(out, "Period: %" PRId64 "\n", p->period);
	if (p->time_nanos)
		sp_sink_printf(out, "TimeNanos: %" PRId64 "\n", p->time_nanos);
	if (p->duration_nanos)
		sp_sink_printf(out, "DurationNanos: %" PRId64 "\n", p->duration_nanos);
	sp_sink_puts(out, "Samples:\n");
	const char *dflt = sp_profile_str(p, p->default_sample_type);
	for (size_t i = 0; i < p->n_sample_types; i++) {
		const char *t = sp_profile_str(p, p->sample_types[i].type);
		sp_sink_printf(out, "%s%s/%s%s", i ? " " : "", t,
			       sp_profile_str(p, p->sample_types[i].unit),
			       *dflt && !strcmp(t, dflt) ? "[dflt]" : "");
	}
	sp_sink_puts(out, "\n");
	for (size_t i = 0; i < p->n_samples; i++) {
		const sp_sample *s = &p->samples[i];
		for (size_t j = 0; j < p->n_sample_types; j++)
			sp_sink_printf(out, " %10" PRId64, s->values[j]);
		sp_sink_puts(out, ": ");
		for (size_t j = 0; j < s->n_locations; j++)
			sp_sink_printf(out, "%" PRIu64 " ", s->location_ids[j]);
		sp_sink_puts(out, "\n");
		dump_labels(p, s, out);
	}
	sp_sink_puts(out, "Locations\n");
	for (size_t i = 0; i < p->n_locations; i++) {
		const sp_location *l = &p->locations[i];
		sp_sink_printf(out, "%6" PRIu64 ": 0x%" PRIx64 " ", l->id, l->address);
		if (l->mapping_id)
			sp_sink_printf(out, "M=%" PRIu64 " ", l->mapping_id);
		if (l->is_folded)
			sp_sink_puts(out, "[F] ");
		if (!l->n_lines) {
			sp_sink_puts(out, "\n");
			continue;
		}
		for (size_t j = 0; j < l->n_lines; j++) {
			if (j)
				sp_sink_puts(out, "             ");
			dump_line(p, &l->lines[j], out);
			sp_sink_puts(out, "\n");
		}
	}
	sp_sink_puts(out, "Mappings\n");
	for (size_t i = 0; i < p->n_mappings; i++) {
		const sp_mapping *m = &p->mappings[i];
		sp_sink_printf(out, "%" PRIu64 ": 0x%" PRIx64 "/0x%" PRIx64 "/0x%" PRIx64 " %s %s%s%s%s%s\n",
			       m->id, m->memory_start, m->memory_limit, m->file_offset,
			       sp_profile_str(p, m->filename), sp_profile_str(p, m->build_id),
			       m->has_functions ? "[FN]" : "", m->has_filenames ? "[FL]" : "",
			       m->has_line_numbers ? "[LN]" : "",
			       m->has_inline_frames ? "[IN]" : "");
	}
	sp_otel_dump(p, out);
}
