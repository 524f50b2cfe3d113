/* pipeline.c — the one place that sequences a run over input profiles:
 *
 *   load (read, --maps, check; perf.data samples with stack copies are
 *     unwound as they are read) → symbolize (one session for the whole run) → merge → output
 *
 * `convert` writes the output, `info` describes it.  With `each` every
 * input is symbolized and handed to the output on its own; otherwise the
 * inputs, which must be of one kind, are merged into one profile first
 * (a single input is handed over as it is).  `convert` writes with
 * sp_pipeline_write: report formats first drop frames as the profile's
 * drop_frames says and choose the value column, then the writer runs.
 */
#include "convert/convert.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* -- output ------------------------------------------------------------------ */

static sp_error *write_output(const sp_output_options *o, sp_profile *p, sp_sink *sink)
{
	sp_error *err = NULL;
	sp_out_format f = o->format;
	sp_report_options ro = o->report;
	if (f != SP_OUT_PPROF && f != SP_OUT_RAW && !o->all_frames)
		sp_profile_prune_frames(p);
	if (f != SP_OUT_PPROF && f != SP_OUT_RAW) {
		size_t idx;
		err = sp_profile_sample_index(p, o->sample_index, &idx);
		if (err)
			return err;
		ro.sample_index = idx;
	}
	switch (f) {
	case SP_OUT_PPROF:
		return sp_pprof_write(p, true, sink);
	case SP_OUT_RAW:
		sp_profile_dump(p, sink);
		return NULL;
	case SP_OUT_FOLDED: {
		sp_folded_options fo = {.sample_index = ro.sample_index, .annotate = o->annotate};
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
	err = write_output(o, p, sink);
	if (err)
		err = sp_error_prefix(err, "%s", name); /* the input the writer refused */
	else
		err = sp_sink_finish(sink);
	sp_sink_free(sink); /* an unfinished file is removed */
	return err;
}

/* -- merge -------------------------------------------------------------------- */

/* "[samples/count cpu/nanoseconds], period type cpu/nanoseconds" */
static char *kind_string(const sp_profile *p)
{
	sp_buf b = {0};
	char *types = sp_profile_types_string(p);
	sp_buf_puts(&b, types);
	free(types);
	const char *pt = sp_profile_str(p, p->period_type.type);
	if (*pt)
		sp_buf_printf(&b, ", period type %s/%s", pt, sp_profile_str(p, p->period_type.unit));
	else
		sp_buf_puts(&b, ", no period type");
	return sp_buf_take(&b);
}

/* Inputs to merge must be of one kind (spec 1.3: same sample types and period
 * type).  Checked as each input is read, before the work of symbolizing it, and
 * the error names both files; sp_profile_merge checks again. */
static sp_error *check_same_kind(const sp_profile *first, const char *first_name,
				 const sp_profile *p, const char *name)
{
	if (sp_profile_same_kind(first, p))
		return NULL;
	char *a = kind_string(first), *b = kind_string(p);
	sp_error *err = sp_error_new(SP_E_USAGE,
				     "%s: cannot merge with %s: profile kinds differ: %s vs %s; "
				     "convert them separately or with --each",
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

/* A perf round's samples with stack copies unwound before they become the
 * profile's (the capture is read by formats/, unwound by symbolize/). */
static sp_error *unwind_round(sp_capture *c, void *arg)
{
	sp_unwinder_run(arg, c);
	return NULL;
}

/* Loads and symbolizes input I into *P; for a merge, checks its kind
 * against the first input's.  U unwinds (its report goes to OUT). */
static sp_error *prepare(const sp_pipeline *pl, sp_symbolizer *s, char **inputs, int i,
			 sp_profile **profiles, sp_pipeline_output *out, sp_symbolize_report *r,
			 sp_unwinder *u)
{
	sp_error *err = sp_cli_load_with(pl->sym, inputs[i], unwind_round, u, &profiles[i],
					 &out->format);
	if (sp_unwinder_report(u)->n_samples)
		out->unwind = sp_unwinder_report(u);
	if (!err && !pl->each && i > 0)
		err = check_same_kind(profiles[0], inputs[0], profiles[i], inputs[i]);
	if (!err)
		err = symbolize(pl, s, profiles[i], inputs[i], r);
	return err;
}

static sp_error *merge_and_output(const sp_pipeline *pl, sp_profile **profiles, char **inputs,
				  int n, const sp_pipeline_output *last)
{
	sp_pipeline_output out = {.input = -1, .format = SP_FMT_UNKNOWN};
	sp_error *err = NULL;
	if (n == 1) {
		out = *last;
		out.report = NULL; /* cleared with its input */
		out.unwind = NULL;
		out.profile = profiles[0];
		profiles[0] = NULL;
	} else {
		err = sp_profile_merge(profiles, (size_t)n, &out.profile);
		out.name = "merged profile";
	}
	if (!err)
		err = pl->output(pl->ctx, &out);
	sp_profile_free(out.profile);
	return err;
}

int sp_pipeline_run(const sp_pipeline *pl, char **inputs, int n)
{
	sp_symbolizer *s = pl->sym->no_symbolize ? NULL : sp_symbolizer_new(&pl->sym->sym);
	/* unwinding finds files even when names are not wanted */
	sp_symbolizer *us = s ? s : sp_symbolizer_new(&pl->sym->sym);
	sp_profile **profiles = sp_xcalloc((size_t)n, sizeof(*profiles));
	sp_pipeline_output out = {0};
	sp_error *err = NULL;
	int rc = 0;
	for (int i = 0; i < n && (!err || pl->keep_going); i++) {
		if (err)
			rc = sp_cli_fail(err);
		sp_symbolize_report r = {0};
		out = (sp_pipeline_output){.name = inputs[i], .input = i};
		sp_unwinder *u = sp_unwinder_new(us);
		err = prepare(pl, s, inputs, i, profiles, &out, &r, u);
		out.report = s ? &r : NULL;
		if (!err && pl->each) {
			out.profile = profiles[i];
			err = pl->output(pl->ctx, &out);
			sp_profile_free(profiles[i]);
			profiles[i] = NULL;
		}
		sp_symbolize_report_clear(&r);
		sp_unwinder_free(u);
		out.unwind = NULL;
	}
	if (!err && !pl->each)
		err = merge_and_output(pl, profiles, inputs, n, &out);
	if (err)
		rc = sp_cli_fail(err);
	for (int i = 0; i < n; i++)
		sp_profile_free(profiles[i]);
	free(profiles);
	if (us != s)
		sp_symbolizer_free(us);
	sp_symbolizer_free(s);
	return rc;
}
