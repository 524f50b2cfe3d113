/* info.c — what `symprof info` says of a profile: its format, sample
 * types and totals, and for every mapping its share of the samples and how
 * it symbolized (the file used, or every place tried and why it was
 * rejected, the build id, how many addresses resolved), then the notes of
 * its loading (unwinding, kallsyms, jitdump).  Text into a buffer: the
 * caller decides where it goes.
 */
#include "pipeline/pipeline.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const sp_mapping_report *report_for(const sp_symbolize_report *r, uint64_t id)
{
	for (size_t i = 0; i < r->n_mappings; i++)
		if (r->mappings[i].mapping_id == id)
			return &r->mappings[i];
	return NULL;
}

static void print_mapping_report(const sp_mapping_report *mr, sp_buf *f)
{
	if (mr->used_path)
		sp_buf_printf(f, "    file: %s\n", mr->used_path);
	else if (mr->mapping_id)
		sp_buf_printf(f, "    file: none\n");
	if (mr->debug_path)
		sp_buf_printf(f, "    debug info: %s\n", mr->debug_path);
	if (mr->build_id && *mr->build_id)
		sp_buf_printf(f, "    build id: %s\n", mr->build_id);
	if (mr->go_build_id)
		sp_buf_printf(f, "    go build id: %s\n", mr->go_build_id);
	if (mr->htlhash)
		sp_buf_printf(f, "    file id (htlhash): %s\n", mr->htlhash);
	if (mr->matched_by)
		sp_buf_printf(f, "    found by: %s\n", mr->matched_by);
	if (mr->rule == SP_RULE_ELF_VA)
		sp_buf_printf(f, "    addresses: %s\n", sp_address_rule_str(mr->rule));
	else if (mr->rule == SP_RULE_RUNTIME)
		sp_buf_printf(f, "    addresses: %s, load base %#" PRIx64 "\n",
			      sp_address_rule_str(mr->rule), mr->base);
	sp_buf_printf(f, "    resolved %zu of %zu addresses\n", mr->n_resolved, mr->n_addresses);
	for (int k = 1; k <= SP_UNRES_ERROR; k++)
		if (mr->n_reason[k])
			sp_buf_printf(f, "    unresolved %zu: %s\n", mr->n_reason[k],
				sp_unresolved_reason_str((sp_unresolved_reason)k));
	if (mr->detail)
		sp_buf_printf(f, "    detail: %s\n", mr->detail);
	for (size_t i = 0; i < mr->tried.n; i++)
		sp_buf_printf(f, "    tried: %s (%s)\n", mr->tried.v[i].path,
			sp_find_attempt_str(&mr->tried.v[i]));
}

/* Per mapping (index in P's mappings): how many samples have a frame in it
 * and their weight in column COL; each sample counts once per mapping. */
typedef struct {
	size_t n;
	int64_t value;
	bool overflow;
	size_t last; /* 1 + the last sample counted */
} mapping_weight;

static mapping_weight *weigh_mappings(const sp_profile *p, size_t col)
{
	mapping_weight *w = sp_xcalloc(p->n_mappings ? p->n_mappings : 1, sizeof(*w));
	for (size_t i = 0; i < p->n_samples; i++) {
		const sp_sample *s = &p->samples[i];
		for (size_t k = 0; k < s->n_locations; k++) {
			const sp_location *l = sp_profile_location(p, s->location_ids[k]);
			const sp_mapping *m = l && l->mapping_id ? sp_profile_mapping(p, l->mapping_id)
								 : NULL;
			if (!m)
				continue;
			mapping_weight *x = &w[m - p->mappings];
			if (x->last == i + 1)
				continue;
			x->last = i + 1;
			x->n++;
			if (col < p->n_sample_types &&
			    __builtin_add_overflow(x->value, s->values[col], &x->value))
				x->overflow = true;
		}
	}
	return w;
}

/* "  totals: TYPE/UNIT N ..." for every column. */
static void print_totals(const sp_profile *p, int64_t *dflt_total, size_t dflt, sp_buf *f)
{
	sp_buf_printf(f, "  totals:");
	for (size_t c = 0; c < p->n_sample_types; c++) {
		int64_t t = 0;
		bool over = false;
		for (size_t i = 0; i < p->n_samples && !over; i++)
			over = __builtin_add_overflow(t, p->samples[i].values[c], &t);
		sp_buf_printf(f, "%s %s/%s ", c ? "," : "", sp_profile_str(p, p->sample_types[c].type),
			sp_profile_str(p, p->sample_types[c].unit));
		if (over)
			sp_buf_printf(f, "(more than an int64 holds)");
		else
			sp_buf_printf(f, "%" PRId64, t);
		if (c == dflt)
			*dflt_total = over ? 0 : t;
	}
	sp_buf_printf(f, "\n");
}

static void print_info(const char *path, sp_input_format fmt, const sp_profile *p,
		       const sp_symbolize_report *r, sp_buf *f)
{
	sp_buf_printf(f, "%s\n", path);
	sp_buf_printf(f, "  format: %s\n", sp_input_format_name(fmt));
	sp_buf_printf(f, "  sample types:");
	size_t dflt = 0;
	bool have_dflt = p->n_sample_types &&
			 !sp_profile_sample_index(p, NULL, &dflt);
	for (size_t i = 0; i < p->n_sample_types; i++)
		sp_buf_printf(f, " %s/%s%s", sp_profile_str(p, p->sample_types[i].type),
			sp_profile_str(p, p->sample_types[i].unit),
			have_dflt && i == dflt ? " (default)" : "");
	sp_buf_printf(f, "\n");
	if (p->period_type.type || p->period)
		sp_buf_printf(f, "  period: %" PRId64 " %s/%s\n", p->period,
			sp_profile_str(p, p->period_type.type),
			sp_profile_str(p, p->period_type.unit));
	for (size_t i = 0; i < p->n_comments; i++)
		sp_buf_printf(f, "  comment: %s\n", sp_profile_str(p, p->comments[i]));
	sp_buf_printf(f, "  samples: %zu  locations: %zu  functions: %zu  mappings: %zu\n",
		p->n_samples, p->n_locations, p->n_functions, p->n_mappings);
	int64_t total = 0;
	if (p->n_sample_types)
		print_totals(p, &total, have_dflt ? dflt : SIZE_MAX, f);
	mapping_weight *w = weigh_mappings(p, have_dflt ? dflt : SIZE_MAX);
	for (size_t i = 0; i < p->n_mappings; i++) {
		const sp_mapping *m = &p->mappings[i];
		const char *name = sp_profile_str(p, m->filename);
		sp_buf_printf(f, "  mapping %" PRIu64 ": %#" PRIx64 "-%#" PRIx64 " offset %#" PRIx64
			   " %s\n",
			m->id, m->memory_start, m->memory_limit, m->file_offset,
			*name ? name : "(anonymous)");
		sp_buf_printf(f, "    samples: %zu of %zu", w[i].n, p->n_samples);
		if (have_dflt && !w[i].overflow) {
			sp_buf_printf(f, ", %s %" PRId64, sp_profile_str(p, p->sample_types[dflt].type),
				w[i].value);
			if (total > 0)
				sp_buf_printf(f, " (%.2f%%)", 100.0 * (double)w[i].value / (double)total);
		}
		sp_buf_printf(f, "\n");
		const sp_mapping_report *mr = r ? report_for(r, m->id) : NULL;
		if (mr) {
			print_mapping_report(mr, f);
		} else {
			const char *bid = sp_profile_str(p, m->build_id);
			if (*bid)
				sp_buf_printf(f, "    build id: %s\n", bid);
			sp_buf_printf(f, "    %s\n", r ? "no addresses" : "not symbolized");
		}
	}
	free(w);
	const sp_mapping_report *none = r ? report_for(r, 0) : NULL;
	if (none && none->n_addresses) {
		sp_buf_printf(f, "  addresses outside every mapping:\n");
		print_mapping_report(none, f);
	}
}

void sp_info_text(const sp_pipeline_output *out, sp_buf *b)
{
	print_info(out->name, out->format, out->profile, out->report, b);
	for (size_t i = 0; out->notes && i < out->notes->n; i++) {
		const sp_note *n = &out->notes->v[i];
		sp_buf_printf(b, "  %s: %s\n", n->topic, n->text);
		for (size_t k = 0; k < n->n_details; k++)
			sp_buf_printf(b, "    %s\n", n->details[k]);
	}
}
