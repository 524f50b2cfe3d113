/* pipeline.c — the one place that sequences a run over input profiles:
 *
 *   load (read, --maps, check; perf.data pulled a round at a time, its
 *     samples with stack copies unwound as they come) → symbolize (one
 *     session for the whole run)
 *     → merge → diff → output
 *
 * `convert` writes the output, `info` describes it.  With `each` every
 * input is symbolized and handed to the output on its own; otherwise the
 * inputs, which must be of one kind, are merged into one profile first
 * (a single input is handed over as it is).  With a base (--base,
 * --diff-base) the base is loaded and symbolized first, through the same
 * session, so a function has one name on both sides; every input must be
 * of its kind, and the base is subtracted from what goes to the output
 * (sp_profile_diff).  `convert` writes with
 * sp_pipeline_write: report formats first drop frames as the profile's
 * drop_frames says and choose the value column, then the writer runs.
 */
#include "convert/convert.h"
#include "pipeline/annotate.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* -- output ------------------------------------------------------------------ */

/* A raw name demangled for drop_frames (NULL when it is not mangled). */
static char *demangle_for_pruning(const char *raw, void *ctx)
{
	(void)ctx;
	return sp_demangle(raw, SP_DEMANGLE_TEMPLATES);
}

/* The value column asked for; for folded stacks of a profile with a
 * samples/count column (CPU profiles, perf.data), that one by default:
 * flamegraph.pl's stackcollapse scripts write sample counts. */
static const char *folded_column(const sp_output_options *o, const sp_profile *p, char **own)
{
	bool folded = o->format == SP_OUT_FOLDED || o->format == SP_OUT_FOLDED_DIFF;
	*own = NULL;
	if (!folded)
		return o->sample_index;
	/* a perf recording of several events: the samples of the event asked
	 * for (by default the first) */
	size_t idx;
	sp_error *e = sp_profile_sample_index(p, o->sample_index, &idx);
	const char *t = e ? NULL : sp_profile_str(p, p->sample_types[idx].type);
	sp_error_free(e);
	if (t && strncmp(t, "samples", 7)) {
		char *want = sp_xasprintf("samples:%s", t);
		for (size_t i = 0; i < p->n_sample_types && !*own; i++)
			if (!strcmp(sp_profile_str(p, p->sample_types[i].type), want))
				*own = want;
		if (*own)
			return *own;
		free(want);
	}
	if (o->sample_index)
		return o->sample_index;
	for (size_t i = 0; i < p->n_sample_types; i++)
		if (!strcmp(sp_profile_str(p, p->sample_types[i].type), "samples") &&
		    !strcmp(sp_profile_str(p, p->sample_types[i].unit), "count"))
			return "samples";
	return NULL;
}

/* A perf recording of several events, shown without --sample-index: which
 * event the output shows, and the others (on stderr: the output holds one). */
static void say_events(const sp_output_options *o, const sp_profile *p, size_t idx,
		       const char *name)
{
	bool pprof = o->format == SP_OUT_PPROF || o->format == SP_OUT_OTLP ||
		     o->format == SP_OUT_OTLP_GZ || o->format == SP_OUT_OTLP_JSON ||
		     o->format == SP_OUT_DUMP;
	if (o->sample_index || pprof || o->quiet)
		return;
	size_t n = 0;
	for (size_t i = 0; i < p->n_sample_types; i++)
		n += !strncmp(sp_profile_str(p, p->sample_types[i].type), "samples:", 8);
	if (n < 2)
		return;
	const char *shown = sp_profile_str(p, p->sample_types[idx].type);
	const char *ev = !strncmp(shown, "samples:", 8) ? shown + 8 : shown;
	sp_buf b = {0};
	for (size_t i = 0; i < p->n_sample_types; i++) {
		const char *t = sp_profile_str(p, p->sample_types[i].type);
		if (!strncmp(t, "samples:", 8) && strcmp(t + 8, ev))
			sp_buf_printf(&b, "%s%s", b.len ? ", " : "", t + 8);
	}
	fprintf(stderr, "symprof: %s: %zu events: the output shows %s (%s); the others: %s "
		"(--sample-index EVENT)\n", name, n, ev, shown == ev ? sp_profile_str(p,
		p->sample_types[idx].unit) : "samples", sp_buf_str(&b));
	sp_buf_free(&b);
}

/* html, list and disasm: the annotation of P (its machine code through the
 * run's session), then the view. */
static sp_error *write_annotated(const sp_output_options *o, const sp_profile *p,
				 const sp_report_options *ro, sp_sink *sink)
{
	sp_out_format f = o->format;
	sp_annotate_options ao = {
		.max_functions = ro->nodecount > 0 ? (size_t)ro->nodecount
				 : ro->nodecount < 0 ? SIZE_MAX : 0,
		.select_by_focus = f != SP_OUT_HTML,
		.code = f != SP_OUT_LIST,
		.source_paths = o->source_paths,
		.n_source_paths = o->n_source_paths,
		.path_maps = o->path_maps,
		.n_path_maps = o->n_path_maps,
	};
	sp_annotation *a;
	sp_error *err = sp_annotate(p, ro->sample_index, ro, o->session, &ao, &a);
	if (err)
		return err;
	if (f == SP_OUT_LIST)
		err = sp_list_write(a, ro->unit, sink);
	else if (f == SP_OUT_DISASM)
		err = sp_disasm_write(a, ro->unit, sink);
	else
		err = sp_html_write(p, ro, a, sink);
	sp_annotation_free(a);
	return err;
}

static sp_error *write_output(const sp_output_options *o, sp_profile *p, const char *name,
				sp_sink *sink)
{
	sp_error *err = NULL;
	sp_out_format f = o->format;
	sp_report_options ro = o->report;
	bool otlp = f == SP_OUT_OTLP || f == SP_OUT_OTLP_GZ || f == SP_OUT_OTLP_JSON;
	bool report = f != SP_OUT_PPROF && f != SP_OUT_DUMP && !otlp;
	p->group_unresolved = !o->addresses && !o->no_symbolize;
	/* Graphs, top and the flame graph filter as they draw (their totals
	 * are taken before the filters, as pprof's); the others are written
	 * from the samples the filters keep. */
	if (f == SP_OUT_PPROF || f == SP_OUT_DUMP || f == SP_OUT_FOLDED || f == SP_OUT_FOLDED_DIFF ||
	    f == SP_OUT_SPEEDSCOPE || f == SP_OUT_FIREFOX || otlp) {
		sp_sample_filter *sf;
		if ((err = sp_report_filter_new(p, &ro, &sf)))
			return err;
		sp_sample_filter_apply(sf, p);
		sp_sample_filter_free(sf);
	}
	if (report && !o->all_frames)
		sp_profile_prune_frames(p, demangle_for_pruning, NULL);
	if (report || o->sample_index) {
		size_t idx;
		char *own;
		err = sp_profile_sample_index(p, folded_column(o, p, &own), &idx);
		free(own);
		if (err)
			return err;
		say_events(o, p, idx, name);
		ro.sample_index = idx;
		/* pprof output keeps every column and opens on the chosen one */
		if (f == SP_OUT_PPROF || otlp)
			p->default_sample_type = p->sample_types[idx].type;
	}
	switch (f) {
	case SP_OUT_PPROF:
		return sp_pprof_write(p, true, sink);
	case SP_OUT_DUMP:
		sp_profile_dump(p, sink);
		return NULL;
	case SP_OUT_FOLDED:
	case SP_OUT_FOLDED_DIFF: {
		sp_folded_options fo = {.sample_index = ro.sample_index,
					.annotate = o->annotate,
					.two_sides = f == SP_OUT_FOLDED_DIFF,
					.jobs = o->jobs};
		return sp_folded_write(p, &fo, sink);
	}
	case SP_OUT_DOT:
		return sp_dot_write(p, &ro, sink);
	case SP_OUT_PDF:
		return sp_graph_render(p, &ro, "pdf", sink);
	case SP_OUT_SVG:
		return sp_graph_render(p, &ro, "svg", sink);
	case SP_OUT_PNG:
		return sp_graph_render(p, &ro, "png", sink);
	case SP_OUT_TOP:
		return sp_top_write(p, &ro, sink);
	case SP_OUT_FLAMEGRAPH:
		return sp_flamegraph_write(p, &ro, sink);
	case SP_OUT_HTML:
	case SP_OUT_LIST:
	case SP_OUT_DISASM:
		return write_annotated(o, p, &ro, sink);
	case SP_OUT_SPEEDSCOPE:
	case SP_OUT_FIREFOX: {
		sp_viewer_options vo = {.sample_index = ro.sample_index,
					.name = name};
		return f == SP_OUT_SPEEDSCOPE ? sp_speedscope_write(p, &vo, sink)
					      : sp_firefox_write(p, &vo, sink);
	}
	case SP_OUT_OTLP:
		return sp_otlp_write(p, SP_OTLP_PROTO, sink);
	case SP_OUT_OTLP_GZ:
		return sp_otlp_write(p, SP_OTLP_PROTO_GZ, sink);
	case SP_OUT_OTLP_JSON:
		return sp_otlp_write(p, SP_OTLP_JSON, sink);
	case SP_OUT_NONE:
		break;
	}
	return sp_error_new(SP_E_USAGE, "no output format");
}

sp_error *sp_pipeline_write(const sp_output_options *o, sp_profile *p, const char *name,
			    const char *path)
{
	sp_sink *sink;
	sp_error *err = NULL;
	bool to_stdout = !path || !strcmp(path, "-");
	if (to_stdout)
		sink = sp_sink_fd_new(STDOUT_FILENO, "standard output");
	else if ((err = sp_sink_file_new(path, &sink)))
		return err;
	err = write_output(o, p, name, sink);
	if (err)
		err = sp_error_prefix(err, "%s", name); /* the input the writer refused */
	else
		err = sp_sink_finish(sink);
	sp_sink_free(sink); /* an unfinished file is removed */
	return err;
}

/* -- merge -------------------------------------------------------------------- */

/* Inputs to merge must be of one kind (spec 1.3: same sample types and period
 * type).  Checked as each input is read, before the work of symbolizing it, and
 * the error names both files; sp_profile_merge checks again. */
static sp_error *check_same_kind(const sp_profile *first, const char *first_name,
				 const sp_profile *p, const char *name, bool base)
{
	if (sp_profile_same_kind(first, p))
		return NULL;
	if (base) { /* types matched by name and unit: one in common is enough */
		sp_error *err = sp_profile_base_check(p, first);
		return err ? sp_error_prefix(err, "%s: base %s", name, first_name) : NULL;
	}
	char *a = sp_profile_kind_string(first), *b = sp_profile_kind_string(p);
	sp_error *err = sp_error_new(SP_E_USAGE,
				     base ? "%s: cannot subtract base %s: profile kinds differ: %s vs %s"
					  : "%s: cannot merge with %s: profile kinds differ: %s vs "
					    "%s; convert them separately or with --each",
				     name, first_name, b, a);
	free(a);
	free(b);
	return err;
}

/* Symbolizes P (input NAME) through S, unless symbolization is off (S NULL). */
static sp_error *symbolize(const sp_pipeline *pl, sp_symbolizer *s, sp_profile *p,
			   const char *name, sp_symbolize_report *r)
{
	if (!s)
		return NULL;
	sp_error *err = sp_symbolize_profile(s, p, r);
	if (!err && pl->print_summary && !pl->sym->quiet)
		sp_cli_print_summary(name, r, stderr);
	if (err && pl->name_errors)
		err = sp_error_prefix(err, "%s", name);
	return err;
}

/* How input PATH is named in messages ("-" is standard input). */
static const char *input_name(const char *path)
{
	return strcmp(path, "-") ? path : SP_STDIN_NAME;
}

/* What the perf reader's rounds pass on: the unwinder, the session that
 * names (NULL when names are not wanted), and what the recording says of
 * its kernel and its clock. */
typedef struct {
	sp_unwinder *u;
	sp_symbolizer *s;
	char *osrelease;     /* NULL when not recorded */
	char *kernel_build_id; /* [kernel.kallsyms]'s, NULL when not recorded */
	bool clock_checked;
	char *jitdump_note;  /* why sample times cannot choose JIT code */
	bool jitdump_reused; /* and some addresses held several codes */
	bool sample_times;   /* every sample keeps its time (sp_capture.sample_times) */
} round_ctx;

static uint64_t jit_code_version(void *arg, int64_t pid, uint64_t addr, uint64_t time)
{
	if (pid <= 0 || pid > UINT32_MAX)
		return 0;
	return sp_jitdump_code_version(arg, (uint32_t)pid, addr, time);
}

/* With jitdump files in S: whether the recording C's sample times and the
 * jitdump records' times are on one clock, as `perf inject --jit` requires
 * (every event samples its time from CLOCK_MONOTONIC: `perf record -k
 * mono`; the records' times not the CPU's counter).  NULL when they are (or
 * there is no jitdump), else why not (caller frees); *REUSED says whether
 * that matters: some address held several codes. */
static char *jitdump_clock_problem(sp_symbolizer *s, const sp_capture *c, bool *reused)
{
	const sp_jit_index *jit;
	const sp_perf_map *perf;
	const sp_kallsyms *ksyms;
	/* (a source that fails to load is reported when symbolizing) */
	sp_error_free(sp_symbolizer_sources(s, &jit, &perf, &ksyms));
	const sp_jitdump *pj = sp_symbolizer_jitdump(s);
	if (!sp_jitdump_count(pj))
		return NULL;
	const char *why = NULL;
	for (size_t i = 0; i < c->n_events && !why; i++)
		if (!(c->events[i].sample_type & PERF_SAMPLE_TIME))
			why = "the samples carry no time (PERF_SAMPLE_TIME)";
		else if (c->events[i].clockid != CLOCK_MONOTONIC)
			why = "the samples' times are not CLOCK_MONOTONIC (record with "
			      "perf record -k mono)";
	if (!why && sp_jitdump_arch_timestamp(pj))
		why = "the jitdump times are the CPU's counter (JITDUMP_FLAGS_ARCH_TIMESTAMP), "
		      "not CLOCK_MONOTONIC";
	if (!why)
		return NULL;
	*reused = sp_jitdump_reused(pj) != 0;
	return sp_xasprintf("sample times cannot be compared with the jitdump records': %s; "
			    "each JIT address is named after the last code loaded there (%zu of "
			    "%zu code ranges reuse addresses)",
			    why, sp_jitdump_reused(pj), sp_jitdump_count(pj));
}

/* Lets C's samples see the JIT code of their time when the clocks allow
 * (checked at the first round; R keeps why not). */
static void jitdump_clock(round_ctx *r, sp_capture *c)
{
	if (!r->s)
		return;
	if (!r->clock_checked) {
		r->clock_checked = true;
		r->jitdump_note = jitdump_clock_problem(r->s, c, &r->jitdump_reused);
	}
	const sp_jitdump *pj = sp_symbolizer_jitdump(r->s);
	if (!r->jitdump_note && sp_jitdump_count(pj)) {
		c->code_version = jit_code_version;
		c->code_version_arg = (void *)pj;
	}
}

/* A perf round's samples with stack copies unwound before they become the
 * profile's (the capture is read by formats/, unwound by symbolize/). */
static void unwind_round(round_ctx *r, sp_capture *c)
{
	if (c->osrelease && !r->osrelease)
		r->osrelease = sp_xstrdup(c->osrelease);
	for (size_t i = 0; i < c->n_build_ids && !r->kernel_build_id; i++)
		if (!strcmp(c->build_ids[i].path, "[kernel.kallsyms]"))
			r->kernel_build_id = sp_xstrdup(c->build_ids[i].build_id);
	jitdump_clock(r, c);
	c->sample_times = r->sample_times;
	sp_unwinder_run(r->u, c);
}

/* Reads input PATH into *P: perf.data pulled a round at a time, each
 * round's samples unwound before they become the profile's; any other
 * format through sp_cli_load. */
static sp_error *load(const sp_pipeline *pl, const char *path, round_ctx *rc, sp_profile **p,
		      sp_input_format *fmt)
{
	sp_perf_reader *r;
	sp_capture *c;
	sp_profile *q = NULL;
	*fmt = SP_FMT_UNKNOWN;
	sp_mem_set_input(path); /* what running out of memory names */
	sp_error *err = sp_perf_open(path, &r);
	if (!err && !r)
		return sp_cli_load(pl->sym, path, p, fmt);
	sp_capture *last = NULL;
	while (!err && !(err = sp_perf_next_round(r, &c)) && c) {
		unwind_round(rc, c);
		sp_perf_round_to_profile(r);
		last = c;
	}
	if (!err && (err = sp_profile_check(q = sp_perf_profile(r), path)))
		sp_profile_free(q);
	if (!err && last && last->cut_chains && !pl->sym->quiet)
		fprintf(stderr, "symprof: %s: %llu samples' frame-pointer chains ran into code "
			"built without frame pointers and were cut there at [unknown]; perf record "
			"--call-graph dwarf would give real stacks\n", input_name(path),
			(unsigned long long)last->cut_chains);
	char *warning = err ? NULL : sp_perf_warning(r);
	if (warning) /* killed or cut short: what was there is the recording */
		fprintf(stderr, "symprof: warning: %s: %s\n", input_name(path), warning);
	free(warning);
	sp_perf_close(r);
	if (err)
		return err;
	*fmt = SP_FMT_PERF;
	return sp_cli_load_maps(pl->sym, path, q, p);
}

/* A perf.data input converted with --kallsyms: what its OSRELEASE and the
 * copy's release say together, for `info` (OUT) and, when they differ, as
 * a warning on stderr. */
static void check_kallsyms(const sp_pipeline *pl, const round_ctx *rc, const char *name,
			   sp_pipeline_output *out)
{
	const char *k = pl->sym->sym.kallsyms;
	if (out->format != SP_FMT_PERF)
		return;
	bool warn = false;
	char *note = NULL;
	if (k && *k) {
		note = sp_kallsyms_check(k, rc->osrelease, rc->kernel_build_id, &warn);
		const sp_jit_index *jit;
		const sp_perf_map *perf;
		const sp_kallsyms *ks = NULL;
		if (rc->s)
			sp_error_free(sp_symbolizer_sources(rc->s, &jit, &perf, &ks));
		if (sp_kallsyms_restricted(ks)) {
			char *both = sp_xasprintf("%s%s--kallsyms %s: every address is 0 (copied "
						  "without the right to see them, kptr_restrict): "
						  "kernel frames stay addresses", note ? note : "",
						  note ? "; " : "", k);
			free(note);
			note = both;
			warn = true;
		}
	} else if (rc->s && rc->kernel_build_id) {
		/* (a recording without kernel samples has no kernel build id) */
		note = sp_symbolizer_kernel_names(rc->s, rc->osrelease, rc->kernel_build_id, &warn);
	}
	if (!note)
		return;
	free(out->kallsyms_note);
	out->kallsyms_note = note;
	if (warn)
		fprintf(stderr, "symprof: warning: %s: %s\n", name, out->kallsyms_note);
}

/* Loads and symbolizes input I into *P; checks its kind against the
 * base's, and for a merge against the first input's.  U unwinds (its
 * report goes to OUT). */
static sp_error *prepare(const sp_pipeline *pl, sp_symbolizer *s, char **inputs, int i,
			 sp_profile **profiles, sp_profile *base, sp_pipeline_output *out,
			 sp_symbolize_report *r, sp_unwinder *u)
{
	round_ctx rc = {.u = u, .s = s, .sample_times = pl->sym->sample_times};
	sp_error *err = load(pl, inputs[i], &rc, &profiles[i], &out->format);
	if (!err)
		check_kallsyms(pl, &rc, input_name(inputs[i]), out);
	if (!err && rc.jitdump_note && rc.jitdump_reused)
		fprintf(stderr, "symprof: warning: %s: %s\n", input_name(inputs[i]),
			rc.jitdump_note);
	free(out->jitdump_note);
	out->jitdump_note = rc.jitdump_note;
	if (sp_unwinder_report(u)->n_samples)
		out->unwind = sp_unwinder_report(u);
	if (!err && pl->select) {
		err = sp_profile_select(profiles[i], pl->select);
		if (err)
			err = sp_error_prefix(err, "%s", input_name(inputs[i]));
	}
	if (!err && base)
		err = check_same_kind(base, pl->base, profiles[i], input_name(inputs[i]),
				      true);
	if (!err && !pl->each && i > 0)
		err = check_same_kind(profiles[0], input_name(inputs[0]), profiles[i],
				      input_name(inputs[i]), false);
	if (!err && s)
		sp_symbolizer_set_kernel_release(s, rc.osrelease);
	if (!err)
		err = symbolize(pl, s, profiles[i], input_name(inputs[i]), r);
	free(rc.osrelease);
	free(rc.kernel_build_id);
	return err;
}

/* Loads and symbolizes the base (NULL without one). */
static sp_error *load_base(const sp_pipeline *pl, sp_symbolizer *s, sp_symbolizer *us,
			   sp_profile **base)
{
	*base = NULL;
	if (!pl->base)
		return NULL;
	sp_input_format fmt;
	sp_symbolize_report r = {0};
	round_ctx rc = {.u = sp_unwinder_new(us), .s = s, .sample_times = pl->sym->sample_times};
	sp_error *err = load(pl, pl->base, &rc, base, &fmt);
	sp_unwinder_free(rc.u);
	free(rc.jitdump_note);
	free(rc.kernel_build_id);
	if (!err && s)
		sp_symbolizer_set_kernel_release(s, rc.osrelease);
	free(rc.osrelease);
	if (!err)
		err = symbolize(pl, s, *base, pl->base, &r);
	sp_symbolize_report_clear(&r);
	return err;
}

/* Replaces *P by *P − BASE (when there is a base). */
static sp_error *subtract_base(const sp_pipeline *pl, sp_profile *base, sp_profile **p)
{
	if (!base)
		return NULL;
	sp_profile *d = NULL;
	sp_error *err = sp_profile_diff(*p, base, pl->keep_base, &d);
	if (err)
		return sp_error_prefix(err, "%s", pl->base);
	sp_profile_free(*p);
	*p = d;
	return NULL;
}

static sp_error *merge_and_output(const sp_pipeline *pl, sp_profile **profiles, char **inputs,
				  int n, sp_profile *base, const sp_pipeline_output *last)
{
	sp_pipeline_output out = {.input = -1, .format = SP_FMT_UNKNOWN};
	sp_error *err = NULL;
	sp_symbolizer *session = last->session;
	if (n == 1) {
		out = *last;
		out.report = NULL; /* cleared with its input */
		out.unwind = NULL;
		out.profile = profiles[0];
		profiles[0] = NULL;
	} else {
		sp_mem_set_input("merged profile");
		err = sp_profile_merge_named(profiles, (const char *const *)inputs, (size_t)n,
					     &out.profile);
		out.name = "merged profile";
		out.session = session;
	}
	if (!err)
		err = subtract_base(pl, base, &out.profile);
	if (!err)
		err = pl->output(pl->ctx, &out);
	sp_profile_free(out.profile);
	return err;
}

/* Input I (-1: the merged profile, or with each the base before any
 * input) failed with ERR: reported through input_done with each, else
 * printed.  Returns 1. */
static int input_failed(const sp_pipeline *pl, int i, sp_error *err)
{
	if (!pl->each || !pl->input_done || i < 0)
		return sp_cli_fail(err);
	pl->input_done(pl->ctx, i, err);
	sp_error_free(err);
	return 1;
}

/* The input after input I (-1 at the start), -1 when none is left. */
static int next_input(const sp_pipeline *pl, int i, int n)
{
	if (pl->each && pl->next)
		return pl->next(pl->ctx, i);
	return i + 1 < n ? i + 1 : -1;
}

int sp_pipeline_run(const sp_pipeline *pl, char **inputs, int n)
{
	sp_symbolizer *s = pl->sym->no_symbolize ? NULL : sp_symbolizer_new(&pl->sym->sym);
	/* unwinding finds files even when names are not wanted */
	sp_symbolizer *us = s ? s : sp_symbolizer_new(&pl->sym->sym);
	sp_profile **profiles = sp_xcalloc((size_t)n, sizeof(*profiles));
	sp_profile *base = NULL;
	sp_pipeline_output out = {0};
	sp_error *err = load_base(pl, s, us, &base);
	int rc = 0, i, last = -1;
	/* an error before the first input is the base's: nothing to go on with */
	for (i = err ? -1 : next_input(pl, -1, n); i >= 0; i = next_input(pl, i, n)) {
		last = i;
		sp_symbolize_report r = {0};
		out = (sp_pipeline_output){.name = input_name(inputs[i]), .input = i, .session = us};
		sp_unwinder *u = sp_unwinder_new(us);
		err = prepare(pl, s, inputs, i, profiles, base, &out, &r, u);
		if (!err && pl->each)
			err = subtract_base(pl, base, &profiles[i]);
		out.report = s ? &r : NULL;
		if (!err && pl->each) {
			out.profile = profiles[i];
			err = pl->output(pl->ctx, &out);
			sp_profile_free(profiles[i]);
			profiles[i] = NULL;
			if (!err && pl->input_done)
				pl->input_done(pl->ctx, i, NULL);
		}
		sp_symbolize_report_clear(&r);
		sp_unwinder_free(u);
		out.unwind = NULL;
		if (pl->each || i + 1 < n) { /* the last input's note goes to the merged output */
			free(out.kallsyms_note);
			out.kallsyms_note = NULL;
			free(out.jitdump_note);
			out.jitdump_note = NULL;
		}
		if (err && !pl->keep_going)
			break;
		if (err) {
			rc = input_failed(pl, i, err);
			err = NULL;
		}
	}
	if (!err && !pl->each)
		err = merge_and_output(pl, profiles, inputs, n, base, &out);
	free(out.kallsyms_note);
	free(out.jitdump_note);
	if (err)
		rc = input_failed(pl, pl->each ? last : -1, err);
	for (i = 0; i < n; i++)
		sp_profile_free(profiles[i]);
	free(profiles);
	sp_profile_free(base);
	if (us != s)
		sp_symbolizer_free(us);
	sp_symbolizer_free(s);
	return rc;
}
