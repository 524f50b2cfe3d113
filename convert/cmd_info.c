/* cmd_info.c — `symprof info`: what a profile holds and how each of its
 * mappings symbolizes: the file used (or every place tried and why it was
 * rejected), the build id, and how many addresses resolved. */
#include "convert/convert.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: symprof info [OPTIONS] PROFILE...\n\n" SP_CLI_SYM_HELP);
}

static const sp_mapping_report *report_for(const sp_symbolize_report *r, uint64_t id)
{
	for (size_t i = 0; i < r->n_mappings; i++)
		if (r->mappings[i].mapping_id == id)
			return &r->mappings[i];
	return NULL;
}

static void print_mapping_report(const sp_mapping_report *mr, FILE *f)
{
	if (mr->used_path)
		fprintf(f, "    file: %s\n", mr->used_path);
	else if (mr->mapping_id)
		fprintf(f, "    file: none\n");
	if (mr->debug_path)
		fprintf(f, "    debug info: %s\n", mr->debug_path);
	if (mr->build_id && *mr->build_id)
		fprintf(f, "    build id: %s\n", mr->build_id);
	if (mr->go_build_id)
		fprintf(f, "    go build id: %s\n", mr->go_build_id);
	if (mr->htlhash)
		fprintf(f, "    file id (htlhash): %s\n", mr->htlhash);
	if (mr->matched_by)
		fprintf(f, "    found by: %s\n", mr->matched_by);
	if (mr->rule == SP_RULE_ELF_VA)
		fprintf(f, "    addresses: %s\n", sp_address_rule_str(mr->rule));
	else if (mr->rule == SP_RULE_RUNTIME)
		fprintf(f, "    addresses: %s, load base %#" PRIx64 "\n", sp_address_rule_str(mr->rule),
			mr->base);
	fprintf(f, "    resolved %zu of %zu addresses\n", mr->n_resolved, mr->n_addresses);
	for (int k = 1; k <= SP_UNRES_ERROR; k++)
		if (mr->n_reason[k])
			fprintf(f, "    unresolved %zu: %s\n", mr->n_reason[k],
				sp_unresolved_reason_str((sp_unresolved_reason)k));
	if (mr->detail)
		fprintf(f, "    detail: %s\n", mr->detail);
	for (size_t i = 0; i < mr->tried.n; i++)
		fprintf(f, "    tried: %s (%s)\n", mr->tried.v[i].path,
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
static void print_totals(const sp_profile *p, int64_t *dflt_total, size_t dflt, FILE *f)
{
	fprintf(f, "  totals:");
	for (size_t c = 0; c < p->n_sample_types; c++) {
		int64_t t = 0;
		bool over = false;
		for (size_t i = 0; i < p->n_samples && !over; i++)
			over = __builtin_add_overflow(t, p->samples[i].values[c], &t);
		fprintf(f, "%s %s/%s ", c ? "," : "", sp_profile_str(p, p->sample_types[c].type),
			sp_profile_str(p, p->sample_types[c].unit));
		if (over)
			fprintf(f, "(more than an int64 holds)");
		else
			fprintf(f, "%" PRId64, t);
		if (c == dflt)
			*dflt_total = over ? 0 : t;
	}
	fprintf(f, "\n");
}

static void print_info(const char *path, sp_input_format fmt, const sp_profile *p,
		       const sp_symbolize_report *r, FILE *f)
{
	fprintf(f, "%s\n", path);
	fprintf(f, "  format: %s\n", sp_input_format_name(fmt));
	fprintf(f, "  sample types:");
	size_t dflt = 0;
	bool have_dflt = p->n_sample_types &&
			 !sp_profile_sample_index(p, NULL, &dflt);
	for (size_t i = 0; i < p->n_sample_types; i++)
		fprintf(f, " %s/%s%s", sp_profile_str(p, p->sample_types[i].type),
			sp_profile_str(p, p->sample_types[i].unit),
			have_dflt && i == dflt ? " (default)" : "");
	fprintf(f, "\n");
	if (p->period_type.type || p->period)
		fprintf(f, "  period: %" PRId64 " %s/%s\n", p->period,
			sp_profile_str(p, p->period_type.type),
			sp_profile_str(p, p->period_type.unit));
	for (size_t i = 0; i < p->n_comments; i++)
		fprintf(f, "  comment: %s\n", sp_profile_str(p, p->comments[i]));
	fprintf(f, "  samples: %zu  locations: %zu  functions: %zu  mappings: %zu\n",
		p->n_samples, p->n_locations, p->n_functions, p->n_mappings);
	int64_t total = 0;
	if (p->n_sample_types)
		print_totals(p, &total, have_dflt ? dflt : SIZE_MAX, f);
	mapping_weight *w = weigh_mappings(p, have_dflt ? dflt : SIZE_MAX);
	for (size_t i = 0; i < p->n_mappings; i++) {
		const sp_mapping *m = &p->mappings[i];
		const char *name = sp_profile_str(p, m->filename);
		fprintf(f, "  mapping %" PRIu64 ": %#" PRIx64 "-%#" PRIx64 " offset %#" PRIx64
			   " %s\n",
			m->id, m->memory_start, m->memory_limit, m->file_offset,
			*name ? name : "(anonymous)");
		fprintf(f, "    samples: %zu of %zu", w[i].n, p->n_samples);
		if (have_dflt && !w[i].overflow) {
			fprintf(f, ", %s %" PRId64, sp_profile_str(p, p->sample_types[dflt].type),
				w[i].value);
			if (total > 0)
				fprintf(f, " (%.2f%%)", 100.0 * (double)w[i].value / (double)total);
		}
		fprintf(f, "\n");
		const sp_mapping_report *mr = r ? report_for(r, m->id) : NULL;
		if (mr) {
			print_mapping_report(mr, f);
		} else {
			const char *bid = sp_profile_str(p, m->build_id);
			if (*bid)
				fprintf(f, "    build id: %s\n", bid);
			fprintf(f, "    %s\n", r ? "no addresses" : "not symbolized");
		}
	}
	free(w);
	const sp_mapping_report *none = r ? report_for(r, 0) : NULL;
	if (none && none->n_addresses) {
		fprintf(f, "  addresses outside every mapping:\n");
		print_mapping_report(none, f);
	}
}

/* How the samples with stack copies unwound: how many reached the end of
 * the stack, and where (process, mapping of the last frame) and why the
 * others stopped. */
static void print_unwind(const sp_unwind_report *u, FILE *f)
{
	fprintf(f, "  unwound: %zu of %zu samples with a stack copy to the end of the stack\n",
		u->n_complete, u->n_samples);
	if (u->n_reused)
		fprintf(f, "    reused: %zu unwinds of earlier samples (same registers and stack words)\n",
			u->n_reused);
	for (size_t i = 0; i < u->n_stops; i++) {
		const sp_unwind_stop *s = &u->stops[i];
		fprintf(f, "    stopped: %zu in pid %" PRId64 " at %s: %s\n", s->count, s->pid,
			*s->path ? s->path : "(no mapping)", s->reason);
	}
}

static sp_error *print_output(void *ctx, const sp_pipeline_output *out)
{
	(void)ctx;
	print_info(out->name, out->format, out->profile, out->report, stdout);
	if (out->unwind)
		print_unwind(out->unwind, stdout);
	if (out->kallsyms_note)
		printf("  kallsyms: %s\n", out->kallsyms_note);
	if (out->jitdump_note)
		printf("  jitdump: %s\n", out->jitdump_note);
	return NULL;
}

/* `symprof info --events FILE` (for shell completion, not in --help): the
 * names --sample-index takes, one a line: a perf.data's events from its
 * header and first round (each also without its modifiers), else the
 * profile's sample types. */
static int print_events(const sp_cli_sym *o, const char *path)
{
	sp_perf_reader *r;
	sp_capture *c = NULL;
	sp_error *err = sp_perf_open(path, &r);
	if (!err && r) {
		err = sp_perf_next_round(r, &c);
		for (size_t i = 0; !err && c && i < c->n_events; i++) {
			const char *n = c->events[i].name;
			size_t len = strcspn(n, ":");
			printf("%s\n", n);
			if (n[len])
				printf("%.*s\n", (int)len, n);
		}
		sp_perf_close(r);
		return err ? sp_cli_fail(err) : 0;
	}
	if (err)
		return sp_cli_fail(err);
	sp_profile *p;
	sp_input_format fmt;
	if ((err = sp_cli_load(o, path, &p, &fmt)))
		return sp_cli_fail(err);
	for (size_t i = 0; i < p->n_sample_types; i++)
		printf("%s\n", sp_profile_str(p, p->sample_types[i].type));
	sp_profile_free(p);
	return 0;
}

int cmd_info(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},
		{"events", no_argument, NULL, 3000},
		SP_CLI_SYM_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	bool events = false;
	sp_cli_sym o;
	sp_cli_sym_init(&o);
	o.cmd = "info";
	int c, rc = 0;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
		if (c == 3000) {
			events = true;
			continue;
		}
		int r = sp_cli_sym_option(&o, c, optarg);
		if (r == 0)
			continue;
		if (r == 2 || c != 'h') {
			rc = r == 2 ? 2 : sp_cli_bad_option("info", c, argv);
			goto out;
		}
		usage(stdout);
		goto out;
	}
	if (optind >= argc) {
		rc = sp_cli_usage("info", "no input profile");
		goto out;
	}
	sp_cli_sym_finish(&o);
	if (events) {
		rc = print_events(&o, argv[optind]);
		goto out;
	}
	sp_pipeline pl = {.sym = &o, .each = true, .keep_going = true, .output = print_output};
	rc = sp_pipeline_run(&pl, argv + optind, argc - optind);
out:
	sp_cli_sym_clear(&o);
	return rc;
}
