/* pipeline.c — the one place that sequences a run over input profiles:
 *
 *   load (read, --maps, check; perf.data pulled a round at a time, its
 *     samples with stack copies unwound as they come: load.c) → symbolize
 *     (one session for the whole run) → merge → diff → output
 *
 * `convert` writes the output (write.c), `info` describes it (info.c).
 * With `each` every input is symbolized and handed to the output on its
 * own; otherwise the inputs, which must be of one kind, are merged into one
 * profile first (a single input is handed over as it is).  With a base
 * (--base, --diff-base) the base is loaded and symbolized first, through
 * the same session, so a function has one name on both sides; every input
 * must be of its kind, and the base is subtracted from what goes to the
 * output (sp_profile_diff).  What the run learns besides profiles goes to
 * the caller as data, through the callbacks of sp_pipeline: the notes of
 * each input once loaded, its per-mapping report once symbolized, the
 * errors of inputs that do not stop the run.
 */
#include "pipeline/pipeline.h"

#include <stdlib.h>
#include <string.h>

/* -- the run ---------------------------------------------------------------------- */

const char *sp_input_name(const char *path)
{
	return strcmp(path, "-") ? path : SP_STDIN_NAME;
}

/* An input as given (what merged profiles name their parts by), and as
 * messages name it. */
static const char *given_name(const sp_load_input *in)
{
	return in->data ? in->name : in->path;
}

static const char *shown_name(const sp_load_input *in)
{
	return in->data ? in->name : sp_input_name(in->path);
}

/* One run's state. */
typedef struct {
	const sp_pipeline *pl;
	const sp_load_input *inputs;
	int n;
	sp_symbolizer *s;  /* names; NULL when symbolization is off */
	sp_symbolizer *us; /* finds files for the unwinder */
	sp_profile **profiles;
	sp_profile *base;
	int failed;
	sp_input_format format; /* the inputs' format, UNKNOWN once two differ */
} run_state;

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

/* Symbolizes P (input NAME) through the session, unless symbolization is
 * off. */
static sp_error *symbolize(const run_state *r, int i, sp_profile *p, const char *name,
			   sp_symbolize_report *rep)
{
	const sp_pipeline *pl = r->pl;
	if (!r->s)
		return NULL;
	sp_error *err = sp_symbolize_profile_jobs(r->s, p, pl->load.jobs, rep);
	if (!err && pl->symbolized)
		pl->symbolized(pl->ctx, i, name, rep);
	if (err && pl->name_errors)
		err = sp_error_prefix(err, "%s", name);
	return err;
}

/* Loads and symbolizes input I into r->profiles[i]; checks its kind against
 * the base's, and for a merge against the first input's.  OUT gets its
 * format and NOTES. */
static sp_error *prepare(run_state *r, int i, sp_pipeline_output *out, sp_notes *notes,
			 sp_symbolize_report *rep)
{
	const sp_pipeline *pl = r->pl;
	const char *name = shown_name(&r->inputs[i]);
	sp_error *err = sp_load(&pl->load, &r->inputs[i], r->s, r->us, &r->profiles[i],
				&out->format, notes);
	if (!err && pl->loaded)
		pl->loaded(pl->ctx, i, name, notes);
	if (!err && pl->select && (err = sp_profile_select(r->profiles[i], pl->select)))
		err = sp_error_prefix(err, "%s", name);
	if (!err && r->base)
		err = check_same_kind(r->base, pl->base, r->profiles[i], name, true);
	if (!err && !pl->each && i > 0)
		err = check_same_kind(r->profiles[0], shown_name(&r->inputs[0]), r->profiles[i],
				      name, false);
	if (!err)
		err = symbolize(r, i, r->profiles[i], name, rep);
	return err;
}

/* Loads and symbolizes the base (none without one). */
static sp_error *load_base(run_state *r)
{
	const sp_pipeline *pl = r->pl;
	if (!pl->base)
		return NULL;
	sp_symbolize_report rep = {0};
	sp_load_input in = {.path = pl->base};
	sp_error *err = sp_load(&pl->load, &in, r->s, r->us, &r->base, NULL, NULL);
	if (!err)
		err = symbolize(r, -1, r->base, pl->base, &rep);
	sp_symbolize_report_clear(&rep);
	return err;
}

/* Replaces *P by *P − the base (when there is one). */
static sp_error *subtract_base(const run_state *r, sp_profile **p)
{
	if (!r->base)
		return NULL;
	sp_profile *d = NULL;
	sp_error *err = sp_profile_diff(*p, r->base, r->pl->keep_base, &d);
	if (err)
		return sp_error_prefix(err, "%s", r->pl->base);
	sp_profile_free(*p);
	*p = d;
	return NULL;
}

/* Merges the inputs (one is handed over as it is, LAST its output) and
 * hands the result to the output. */
static sp_error *merge_and_output(run_state *r, const sp_pipeline_output *last)
{
	static const sp_notes none;
	sp_pipeline_output out = {.input = -1, .format = SP_FMT_UNKNOWN, .notes = &none,
				  .session = r->us};
	sp_error *err = NULL;
	if (r->n == 1) {
		out = *last;
		out.report = NULL; /* cleared with its input */
		out.profile = r->profiles[0];
		r->profiles[0] = NULL;
	} else {
		const char **names = sp_xcalloc((size_t)r->n, sizeof(*names));
		for (int i = 0; i < r->n; i++)
			names[i] = given_name(&r->inputs[i]);
		sp_mem_set_input("merged profile");
		err = sp_profile_merge_named(r->profiles, names, (size_t)r->n, &out.profile);
		free(names);
		out.name = "merged profile";
		out.format = r->format;
	}
	if (!err)
		err = subtract_base(r, &out.profile);
	if (!err)
		err = r->pl->output(r->pl->ctx, &out);
	sp_profile_free(out.profile);
	return err;
}

/* The input after input I (-1 at the start), -1 when none is left. */
static int next_input(const sp_pipeline *pl, int i, int n)
{
	if (pl->each && pl->next)
		return pl->next(pl->ctx, i);
	return i + 1 < n ? i + 1 : -1;
}

/* Input I of an each run, loaded and symbolized: on to the output. */
static sp_error *output_one(run_state *r, int i, sp_pipeline_output *out)
{
	const sp_pipeline *pl = r->pl;
	sp_error *err = subtract_base(r, &r->profiles[i]);
	if (!err) {
		out->profile = r->profiles[i];
		err = pl->output(pl->ctx, out);
	}
	sp_profile_free(r->profiles[i]);
	r->profiles[i] = NULL;
	if (!err && pl->input_done)
		pl->input_done(pl->ctx, i, NULL);
	return err;
}

/* The inputs, one after the other; NOTES keeps the last one's (for the
 * merged output).  Returns the error that stops the run. */
static sp_error *run_inputs(run_state *r, sp_pipeline_output *out, sp_notes *notes)
{
	const sp_pipeline *pl = r->pl;
	sp_error *err = NULL;
	for (int i = next_input(pl, -1, r->n); i >= 0; i = next_input(pl, i, r->n)) {
		sp_symbolize_report rep = {0};
		sp_notes_clear(notes);
		sp_mem_relieve(); /* what the last input's objects hold, given back */
		*out = (sp_pipeline_output){.name = shown_name(&r->inputs[i]), .input = i,
					    .notes = notes, .session = r->us};
		err = prepare(r, i, out, notes, &rep);
		if (!err)
			r->format = i == 0 || r->format == out->format ? out->format
									: SP_FMT_UNKNOWN;
		out->report = r->s ? &rep : NULL;
		if (!err && pl->each)
			err = output_one(r, i, out);
		sp_symbolize_report_clear(&rep);
		out->report = NULL;
		if (err && (!pl->keep_going || !pl->each || !pl->input_done))
			return err;
		if (err) {
			r->failed++;
			pl->input_done(pl->ctx, i, err);
			sp_error_free(err);
			err = NULL;
		}
	}
	return NULL;
}

sp_error *sp_pipeline_run(const sp_pipeline *pl, const sp_load_input *inputs, int n,
			  int *failed)
{
	sp_symbolizer *own = pl->session ? NULL : sp_symbolizer_new(&pl->sym);
	sp_symbolizer *session = pl->session ? pl->session : own;
	run_state r = {
		.pl = pl,
		.inputs = inputs,
		.n = n,
		.s = pl->no_symbolize ? NULL : session,
		/* unwinding finds files even when names are not wanted */
		.us = session,
		.profiles = sp_xcalloc(n > 0 ? (size_t)n : 1, sizeof(*r.profiles)),
	};
	sp_notes notes = {0};
	sp_pipeline_output out = {0};
	/* an error before the first input is the base's: nothing to go on with */
	sp_error *err = load_base(&r);
	if (!err)
		err = run_inputs(&r, &out, &notes);
	if (!err && !pl->each && n > 0)
		err = merge_and_output(&r, &out);
	sp_notes_clear(&notes);
	for (int i = 0; i < n; i++)
		sp_profile_free(r.profiles[i]);
	free(r.profiles);
	sp_profile_free(r.base);
	sp_symbolizer_free(own);
	if (failed)
		*failed = r.failed;
	return err;
}
