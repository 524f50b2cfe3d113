/* api_convert.c — symprof.h: converting profiles (files, memory, --each),
 * `info`, `jit dump`.  Each call is a run of pipeline.c through the
 * session's symbolizer; what the run reports (per-mapping reports, notes,
 * errors of inputs) is copied into a symprof_report the caller frees.
 */
#include "pipeline/api.h"

#include <stdlib.h>
#include <string.h>

/* -- reports ---------------------------------------------------------------------- */

/* A report and everything it points to. */
typedef struct {
	symprof_report pub; /* first: the caller's pointer */
	symprof_input_report *inputs;
	size_t n_inputs;
	sp_strtab strs;
} report_box;

static report_box *report_new(size_t n)
{
	report_box *b = sp_xcalloc(1, sizeof(*b));
	b->inputs = sp_xcalloc(n ? n : 1, sizeof(*b->inputs));
	b->n_inputs = n;
	b->pub.inputs = b->inputs;
	b->pub.n_inputs = n;
	b->pub.resolved_percent = -1;
	for (size_t i = 0; i < n; i++)
		b->inputs[i].resolved_percent = -1;
	return b;
}

static void input_report_free(symprof_input_report *in)
{
	for (size_t i = 0; i < in->n_mappings; i++)
		sp_api_mapping_report_free((symprof_mapping_report *)&in->mappings[i]);
	free((void *)in->mappings);
	for (size_t i = 0; i < in->n_notes; i++)
		free((void *)in->notes[i].details);
	free((void *)in->notes);
	symprof_error_free((symprof_error *)in->error);
}

void symprof_report_free(symprof_report *r)
{
	if (!r)
		return;
	report_box *b = (report_box *)r;
	for (size_t i = 0; i < b->n_inputs; i++)
		input_report_free(&b->inputs[i]);
	free(b->inputs);
	sp_strtab_free(&b->strs);
	free(b);
}

/* -- the options of a conversion ---------------------------------------------------- */

/* A conversion's run, output and report. */
typedef struct {
	sp_pipeline pl;
	sp_output_options w;
	const char *output;    /* the file (NULL, "-": standard output) */
	const char *dir;       /* each: the directory */
	sp_sink *memory;       /* memory: the output's sink */
	sp_buf *text;          /* info: the text */
	const sp_load_input *inputs;
	report_box *report;
} conversion;

/* The report options of O into RO (checked). */
static symprof_error *report_options(const symprof_convert_options *o, sp_report_options *ro)
{
	sp_report_options_init(ro);
	/* a bad filter is said before any input is read */
	sp_error *fe = sp_filters_check("focus", o->focus, NULL, NULL);
	if (!fe)
		fe = sp_filters_check("ignore", o->ignore, NULL, NULL);
	if (!fe)
		fe = sp_filters_check(NULL, NULL, o->tagfocus, o->tagignore);
	if (fe)
		return sp_api_error(fe);
	ro->focus = o->focus;
	ro->ignore = o->ignore;
	ro->tagfocus = o->tagfocus;
	ro->tagignore = o->tagignore;
	if ((unsigned)o->granularity > SYMPROF_GRANULARITY_FILES)
		return sp_api_usage("symprof_convert_options: granularity %d is none of "
				    "symprof_granularity", (int)o->granularity);
	ro->granularity = (sp_granularity)o->granularity;
	ro->nodecount = o->nodecount < 0 ? -1 : o->nodecount;
	if (o->nodefraction > 1 || o->edgefraction > 1)
		return sp_api_usage("symprof_convert_options: a fraction is at most 1");
	if (o->nodefraction)
		ro->nodefraction = o->nodefraction < 0 ? 0 : o->nodefraction;
	if (o->edgefraction)
		ro->edgefraction = o->edgefraction < 0 ? 0 : o->edgefraction;
	ro->unit = o->unit;
	ro->title = o->title;
	sp_flame_options *fo = &ro->flame;
	fo->subtitle = o->subtitle;
	fo->width = o->width;
	fo->frame_height = o->height;
	fo->reverse = o->reverse != 0;
	fo->inverted = o->inverted != 0;
	fo->countname = o->countname;
	fo->search_color = o->search_color;
	if ((o->width && (o->width < 200 || o->width > 100000)) ||
	    (o->height && (o->height < 4 || o->height > 200)))
		return sp_api_usage("symprof_convert_options: width is 200 to 100000 px, height 4 "
				    "to 200");
	if (o->minwidth && !sp_flame_minwidth_parse(o->minwidth, fo))
		return sp_api_usage("symprof_convert_options: minwidth '%s': pixels (0.1) or a "
				    "percentage of the total (0.5%%)", o->minwidth);
	if (o->colors && !sp_flame_colors_by_name(o->colors, &fo->colors))
		return sp_api_usage("symprof_convert_options: colors '%s': java, hot, mem or io",
				    o->colors);
	if (o->search_color && !sp_flame_color_ok(o->search_color))
		return sp_api_usage("symprof_convert_options: search_color '%s' is not a colour",
				    o->search_color);
	return NULL;
}

/* The output format of O (to OUTPUT, or each). */
static symprof_error *output_format(const symprof_convert_options *o, const char *output,
				    bool each, sp_out_format *f)
{
	*f = o->format ? sp_out_format_by_name(o->format)
	     : output && !each ? sp_out_format_by_path(output) : SP_OUT_NONE;
	if (o->format && *f == SP_OUT_NONE)
		return sp_api_usage("symprof_convert_options: unknown format '%s'", o->format);
	if (*f == SP_OUT_NONE && output && strcmp(output, "-") && !each)
		return sp_api_usage("cannot tell the output format from '%s'; set format", output);
	if (*f == SP_OUT_NONE)
		*f = each ? SP_OUT_PPROF : SP_OUT_FOLDED;
	if (*f == SP_OUT_FOLDED_DIFF && !o->base)
		return sp_api_usage("format folded-diff needs a base");
	return NULL;
}

/* C's run and output from the options O (NULL: defaults). */
static symprof_error *setup(symprof_session *S, const symprof_convert_options *op,
			    const char *output, bool each, conversion *c)
{
	symprof_convert_options o;
	sp_out_format f;
	symprof_error *e = sp_api_options(op, &o, sizeof(o), "symprof_convert_options");
	if (!e && !sp_api_zero(o.reserved, sizeof(o.reserved)))
		e = sp_api_usage("symprof_convert_options: reserved fields are set");
	if (!e && !S)
		e = sp_api_usage("the session is NULL");
	if (!e)
		e = output_format(&o, output, each, &f);
	if (!e)
		e = report_options(&o, &c->w.report);
	if (e)
		return e;
	c->w.size = sizeof(c->w);
	c->w.format = f;
	c->w.sample_index = o.sample_index;
	c->w.annotate = o.annotate != 0;
	c->w.all_frames = o.all_frames != 0;
	c->w.jobs = o.jobs;
	c->w.source_paths = o.source_paths;
	c->w.n_source_paths = o.n_source_paths;
	c->w.path_maps = sp_symbolizer_options(S->s)->path_maps;
	c->w.n_path_maps = sp_symbolizer_options(S->s)->n_path_maps;
	c->pl.size = sizeof(c->pl);
	c->pl.load = (sp_load_options){.size = sizeof(c->pl.load), .maps_file = o.maps,
				       .jobs = o.jobs,
				       /* the viewers' timelines: each sample at its time */
				       .sample_times = f == SP_OUT_SPEEDSCOPE ||
						       f == SP_OUT_FIREFOX};
	c->pl.session = S->s;
	c->pl.no_symbolize = o.no_symbolize != 0;
	c->pl.name_errors = true;
	c->pl.base = o.base;
	c->pl.keep_base = o.diff_base || f == SP_OUT_FOLDED_DIFF || f == SP_OUT_FLAMEGRAPH ||
			  f == SP_OUT_HTML;
	c->output = output;
	return NULL;
}

/* -- the run's callbacks ------------------------------------------------------------ */

static void on_loaded(void *ctx, int input, const char *name, const sp_notes *notes)
{
	conversion *c = ctx;
	report_box *b = c->report;
	if (input < 0 || (size_t)input >= b->n_inputs)
		return;
	symprof_input_report *in = &b->inputs[input];
	symprof_note *v = sp_xcalloc(notes->n ? notes->n : 1, sizeof(*v));
	for (size_t i = 0; i < notes->n; i++) {
		const sp_note *n = &notes->v[i];
		const char **d = sp_xcalloc(n->n_details ? n->n_details : 1, sizeof(*d));
		for (size_t k = 0; k < n->n_details; k++)
			d[k] = sp_api_str(&b->strs, n->details[k]);
		v[i] = (symprof_note){.warning = n->level == SP_NOTE_WARNING,
				      .topic = sp_api_str(&b->strs, n->topic),
				      .text = sp_api_str(&b->strs, n->text),
				      .details = d,
				      .n_details = n->n_details};
	}
	in->notes = v;
	in->n_notes = notes->n;
}

static void on_symbolized(void *ctx, int input, const char *name, const sp_symbolize_report *r)
{
	conversion *c = ctx;
	report_box *b = c->report;
	if (input < 0 || (size_t)input >= b->n_inputs)
		return; /* the base's */
	symprof_input_report *in = &b->inputs[input];
	symprof_mapping_report *m = sp_xcalloc(r->n_mappings ? r->n_mappings : 1, sizeof(*m));
	for (size_t i = 0; i < r->n_mappings; i++)
		sp_api_mapping_report(&b->strs, &r->mappings[i], &m[i]);
	in->mappings = m;
	in->n_mappings = r->n_mappings;
}

/* OUT's share of resolved frames in the column the output shows. */
static double resolved(const conversion *c, const sp_pipeline_output *out)
{
	size_t col;
	sp_error *e = sp_profile_sample_index(out->profile, c->w.sample_index, &col);
	if (e) {
		sp_error_free(e); /* the writer says so */
		return -1;
	}
	return sp_profile_resolved_percent(out->profile, col);
}

static sp_error *on_output(void *ctx, const sp_pipeline_output *out)
{
	conversion *c = ctx;
	report_box *b = c->report;
	double pct = resolved(c, out);
	if (out->input >= 0 && (size_t)out->input < b->n_inputs) {
		b->inputs[out->input].format = sp_api_str(&b->strs, sp_input_format_name(out->format));
		b->inputs[out->input].resolved_percent = pct;
	}
	b->pub.resolved_percent = pct;
	sp_output_options w = c->w;
	w.session = out->session; /* html, list, disasm: the files of the symbols */
	w.input_format = out->format;
	if (c->text) {
		sp_info_text(out, c->text);
		return NULL;
	}
	if (c->memory) {
		sp_error *e = sp_pipeline_write_sink(&w, out->profile, out->name, c->memory);
		return e ? sp_error_prefix(e, "%s", out->name) : sp_sink_finish(c->memory);
	}
	if (!c->dir)
		return sp_pipeline_write(&w, out->profile, out->name, c->output);
	char *path = sp_each_output_path(c->dir, c->inputs[out->input].path, c->w.format);
	sp_error *e = sp_pipeline_write(&w, out->profile, out->name, path);
	free(path);
	return e;
}

/* Runs C over IN[0..n) (merged, or each on its own without workers). */
static symprof_error *run(conversion *c, const sp_load_input *in, size_t n)
{
	c->report = report_new(n);
	for (size_t i = 0; i < n; i++)
		c->report->inputs[i].name =
			sp_api_str(&c->report->strs, in[i].data ? in[i].name : sp_input_name(in[i].path));
	c->inputs = in;
	c->pl.loaded = on_loaded;
	c->pl.symbolized = on_symbolized;
	c->pl.output = on_output;
	c->pl.ctx = c;
	return sp_api_error(sp_pipeline_run(&c->pl, in, (int)n, NULL));
}

/* Hands C's report to *REPORT (may be NULL: freed). */
static void give_report(conversion *c, symprof_report **report)
{
	if (report)
		*report = &c->report->pub;
	else
		symprof_report_free(&c->report->pub);
}

/* -- conversions -------------------------------------------------------------------- */

symprof_error *symprof_convert(symprof_session *S, const symprof_convert_options *o,
			       const char *const *inputs, size_t n, const char *output,
			       symprof_report **report)
{
	conversion c = {0};
	if (report)
		*report = NULL;
	symprof_error *e = setup(S, o, output, false, &c);
	if (e)
		return e;
	if (!n || !inputs || n > INT32_MAX)
		return sp_api_usage("symprof_convert: no input profile");
	sp_load_input *in = sp_xcalloc(n, sizeof(*in));
	for (size_t i = 0; i < n; i++)
		in[i].path = inputs[i];
	e = run(&c, in, n);
	free(in);
	give_report(&c, report);
	return e;
}

symprof_error *symprof_convert_memory(symprof_session *S, const symprof_convert_options *o,
				      const void *data, size_t len, const char *name,
				      void **out, size_t *out_len, symprof_report **report)
{
	conversion c = {0};
	*out = NULL;
	*out_len = 0;
	if (report)
		*report = NULL;
	symprof_error *e = setup(S, o, NULL, false, &c);
	if (e)
		return e;
	if (!data && len)
		return sp_api_usage("symprof_convert_memory: no data");
	sp_load_input in = {.data = data ? data : (const uint8_t *)"", .len = len,
			    .name = name ? name : "profile"};
	c.memory = sp_sink_memory_new();
	e = run(&c, &in, 1);
	if (!e) {
		size_t n;
		const uint8_t *bytes = sp_sink_memory_data(c.memory, &n);
		*out = sp_xmalloc(n ? n : 1);
		memcpy(*out, bytes, n);
		*out_len = n;
	}
	sp_sink_free(c.memory);
	give_report(&c, report);
	return e;
}

symprof_error *symprof_info(symprof_session *S, const symprof_convert_options *o,
			    const char *input, char **text, symprof_report **report)
{
	conversion c = {0};
	sp_buf b = {0};
	*text = NULL;
	if (report)
		*report = NULL;
	symprof_error *e = setup(S, o, NULL, true, &c);
	if (e)
		return e;
	if (!input)
		return sp_api_usage("symprof_info: no input profile");
	sp_load_input in = {.path = input};
	c.pl.each = true;
	c.text = &b;
	e = run(&c, &in, 1);
	if (!e)
		*text = b.data ? sp_buf_take(&b) : sp_xstrdup("");
	sp_buf_free(&b);
	give_report(&c, report);
	return e;
}

/* -- each ----------------------------------------------------------------------------- */

static void each_done(void *ctx, int input, const sp_error *err, unsigned flags)
{
	conversion *c = ctx;
	report_box *b = c->report;
	symprof_input_report *in = &b->inputs[input];
	if (err) {
		in->error = sp_api_error(sp_error_dup(err));
		return;
	}
	char *path = sp_each_output_path(c->dir, c->inputs[input].path, c->w.format);
	in->output = sp_api_str(&b->strs, path);
	free(path);
}

symprof_error *symprof_convert_each(symprof_session *S, const symprof_convert_options *o,
				    const char *const *inputs, size_t n, const char *dir,
				    int jobs, symprof_report **report)
{
	conversion c = {0};
	*report = NULL;
	symprof_error *e = setup(S, o, NULL, true, &c);
	if (!e && (!dir || !n || !inputs || n > INT32_MAX || jobs < 0))
		e = sp_api_usage("symprof_convert_each: %s", !dir ? "no directory"
							 : jobs < 0 ? "jobs is negative"
								    : "no input profile");
	if (!e) {
		int first, clash = sp_each_outputs_clash(dir, (char *const *)inputs, (int)n,
							 c.w.format, &first);
		if (clash >= 0)
			e = sp_api_usage("%s and %s would both be written to the same file",
					 inputs[first], inputs[clash]);
	}
	if (!e)
		e = sp_api_error(sp_each_dir(dir));
	if (e)
		return e;
	sp_load_input *in = sp_xcalloc(n, sizeof(*in));
	for (size_t i = 0; i < n; i++)
		in[i].path = inputs[i];
	c.dir = dir;
	c.report = report_new(n);
	for (size_t i = 0; i < n; i++)
		c.report->inputs[i].name = sp_api_str(&c.report->strs, sp_input_name(inputs[i]));
	c.inputs = in;
	c.pl.loaded = on_loaded;
	c.pl.symbolized = on_symbolized;
	c.pl.output = on_output;
	c.pl.ctx = &c;
	sp_each_options eo = {.size = sizeof(eo), .jobs = jobs, .done = each_done, .ctx = &c};
	e = sp_api_error(sp_each_run(&c.pl, &eo, in, (int)n, NULL));
	free(in);
	*report = &c.report->pub;
	return e;
}

/* -- JIT objects ------------------------------------------------------------------------ */

symprof_error *symprof_jit_dump(int pid, const char *core, const char *exe, const char *dir,
				size_t *n_objects)
{
	size_t n = 0;
	uint64_t descriptor;
	if (!dir || (pid <= 0 && (!core || !exe)) || (pid > 0 && core))
		return sp_api_usage("symprof_jit_dump: a directory, and a pid or a core file with "
				    "its executable");
	symprof_error *e = sp_api_error(sp_jit_dump_dir(pid > 0 ? pid : 0, core, exe, dir, &n,
							 &descriptor));
	if (n_objects)
		*n_objects = e ? 0 : n;
	return e;
}
