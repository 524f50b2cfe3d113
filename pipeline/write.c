/* write.c — choosing and calling the writers.
 *
 * An output format is named (--format NAME) or told by a file's extension;
 * report formats (graphs, top, flame graph, folded) first drop frames as
 * the profile's drop_frames says and choose the value column; filters
 * (focus, ignore, tag filters) drop samples before pprof, raw and folded
 * output, while graphs, top and the flame graph filter as they draw,
 * keeping the unfiltered total as pprof does.  Then the writer of formats/
 * or report/ writes to a sink: a file written whole through a temporary
 * name, or standard output.
 */
#include "pipeline/annotate.h"
#include "pipeline/pipeline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct {
	const char *name;
	sp_out_format f;
	const char *ext; /* for --each output names */
} formats[] = {
	{"pprof", SP_OUT_PPROF, ".pb.gz"},    {"folded", SP_OUT_FOLDED, ".folded"},
	{"raw", SP_OUT_DUMP, ".raw"},          {"dot", SP_OUT_DOT, ".dot"},
	{"pdf", SP_OUT_PDF, ".pdf"},          {"svg", SP_OUT_SVG, ".svg"},
	{"png", SP_OUT_PNG, ".png"},          {"top", SP_OUT_TOP, ".txt"},
	{"flamegraph", SP_OUT_FLAMEGRAPH, ".flame.svg"},
	{"folded-diff", SP_OUT_FOLDED_DIFF, ".diff.folded"},
	{"html", SP_OUT_HTML, ".html"},       {"list", SP_OUT_LIST, ".list.txt"},
	{"disasm", SP_OUT_DISASM, ".disasm.txt"},
	{"speedscope", SP_OUT_SPEEDSCOPE, ".speedscope.json"},
	{"firefox", SP_OUT_FIREFOX, ".firefox.json"},
	{"otlp", SP_OUT_OTLP, ".otlp"},       {"otlp-gz", SP_OUT_OTLP_GZ, ".otlp.gz"},
	{"otlp-json", SP_OUT_OTLP_JSON, ".otlp.json"},
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

sp_out_format sp_out_format_by_name(const char *name)
{
	for (size_t i = 0; i < SP_ARRAY_LEN(formats); i++)
		if (!strcmp(formats[i].name, name))
			return formats[i].f;
	return SP_OUT_NONE;
}

sp_out_format sp_out_format_by_path(const char *path)
{
	static const struct {
		const char *ext;
		sp_out_format f;
	} exts[] = {
		{".diff.folded", SP_OUT_FOLDED_DIFF},
		{".list.txt", SP_OUT_LIST}, {".disasm.txt", SP_OUT_DISASM},
		{".speedscope.json", SP_OUT_SPEEDSCOPE}, {".firefox.json", SP_OUT_FIREFOX},
		{".html", SP_OUT_HTML}, {".htm", SP_OUT_HTML},
		{".pb.gz", SP_OUT_PPROF}, {".pb", SP_OUT_PPROF},     {".pprof", SP_OUT_PPROF},
		{".folded", SP_OUT_FOLDED}, {".collapsed", SP_OUT_FOLDED}, {".raw", SP_OUT_DUMP},
		{".dot", SP_OUT_DOT},     {".pdf", SP_OUT_PDF},      {".flame.svg", SP_OUT_FLAMEGRAPH},
		{".svg", SP_OUT_SVG},     {".png", SP_OUT_PNG},      {".txt", SP_OUT_TOP},
		{".top", SP_OUT_TOP},     {".otlp", SP_OUT_OTLP},    {".otlp.gz", SP_OUT_OTLP_GZ},
		{".otlp.json", SP_OUT_OTLP_JSON},
	};
	for (size_t i = 0; i < SP_ARRAY_LEN(exts); i++)
		if (ends_with(path, exts[i].ext))
			return exts[i].f;
	return SP_OUT_NONE;
}

/* The index of F in formats (F is one of them). */
static size_t format_index(sp_out_format f)
{
	size_t i = 0;
	while (i + 1 < SP_ARRAY_LEN(formats) && formats[i].f != f)
		i++;
	return i;
}

const char *sp_out_format_name(sp_out_format f)
{
	return formats[format_index(f)].name;
}

const char *sp_out_format_ext(sp_out_format f)
{
	return formats[format_index(f)].ext;
}

const char *const *sp_out_format_names(size_t *n)
{
	static const char *names[SP_ARRAY_LEN(formats) + 1];
	for (size_t i = 0; i < SP_ARRAY_LEN(formats); i++)
		names[i] = formats[i].name;
	*n = SP_ARRAY_LEN(formats);
	return names;
}

sp_out_format sp_out_format_encoding(sp_out_format f, const char *path)
{
	/* --format otlp takes its encoding from the extension, as the path alone does */
	if (f == SP_OUT_OTLP && (ends_with(path, ".gz") || ends_with(path, ".json")))
		return ends_with(path, ".gz") ? SP_OUT_OTLP_GZ : SP_OUT_OTLP_JSON;
	return f;
}

bool sp_out_format_binary(sp_out_format f)
{
	return f == SP_OUT_PDF || f == SP_OUT_PNG || f == SP_OUT_PPROF || f == SP_OUT_OTLP ||
	       f == SP_OUT_OTLP_GZ;
}

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

char *sp_pipeline_events_note(const sp_output_options *o, sp_profile *p)
{
	sp_out_format f = o->format;
	if (o->sample_index || f == SP_OUT_PPROF || f == SP_OUT_OTLP || f == SP_OUT_OTLP_GZ ||
	    f == SP_OUT_OTLP_JSON || f == SP_OUT_DUMP)
		return NULL;
	size_t n = 0;
	for (size_t i = 0; i < p->n_sample_types; i++)
		n += !strncmp(sp_profile_str(p, p->sample_types[i].type), "samples:", 8);
	if (n < 2)
		return NULL;
	char *own;
	size_t idx;
	sp_error *e = sp_profile_sample_index(p, folded_column(o, p, &own), &idx);
	free(own);
	if (e) {
		sp_error_free(e);
		return NULL;
	}
	const char *shown = sp_profile_str(p, p->sample_types[idx].type);
	const char *ev = !strncmp(shown, "samples:", 8) ? shown + 8 : shown;
	sp_buf b = {0};
	for (size_t i = 0; i < p->n_sample_types; i++) {
		const char *t = sp_profile_str(p, p->sample_types[i].type);
		if (!strncmp(t, "samples:", 8) && strcmp(t + 8, ev))
			sp_buf_printf(&b, "%s%s", b.len ? ", " : "", t + 8);
	}
	char *note = sp_xasprintf("%zu events: the output shows %s (%s); the others: %s "
				  "(--sample-index EVENT)", n, ev,
				  shown == ev ? sp_profile_str(p, p->sample_types[idx].unit)
					      : "samples", sp_buf_str(&b));
	sp_buf_free(&b);
	return note;
}

/* What every format but the writer's own work needs: filters, frames
 * pruned, the value column (into RO->sample_index). */
static sp_error *prepare_output(const sp_output_options *o, sp_profile *p, sp_report_options *ro)
{
	sp_error *err = NULL;
	sp_out_format f = o->format;
	bool otlp = f == SP_OUT_OTLP || f == SP_OUT_OTLP_GZ || f == SP_OUT_OTLP_JSON;
	bool report = f != SP_OUT_PPROF && f != SP_OUT_DUMP && !otlp;
	/* one frame per mapping for unresolved code at function granularity,
	 * as pprof names them; the locations keep their addresses */
	p->group_unresolved = !o->addresses && !o->no_symbolize;
	/* Graphs, top and the flame graph filter as they draw (their totals
	 * are taken before the filters, as pprof's); the others are written
	 * from the samples the filters keep. */
	if (f == SP_OUT_PPROF || f == SP_OUT_DUMP || f == SP_OUT_FOLDED || f == SP_OUT_FOLDED_DIFF ||
	    f == SP_OUT_SPEEDSCOPE || f == SP_OUT_FIREFOX || otlp) {
		sp_sample_filter *sf;
		if ((err = sp_report_filter_new(p, ro, &sf)))
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
		ro->sample_index = idx;
		/* pprof output keeps every column and opens on the chosen one */
		if (f == SP_OUT_PPROF || otlp)
			p->default_sample_type = p->sample_types[idx].type;
	}
	return NULL;
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

sp_error *sp_pipeline_write_sink(const sp_output_options *o, sp_profile *p, const char *name,
				 sp_sink *sink)
{
	sp_report_options ro = o->report;
	if (ro.flat_to == SP_FLAT_DEFAULT)
		ro.flat_to = o->input_format == SP_FMT_PERF ? SP_FLAT_SYMBOL : SP_FLAT_FRAME;
	sp_error *err = prepare_output(o, p, &ro);
	if (err)
		return err;
	switch (o->format) {
	case SP_OUT_PPROF:
		return sp_pprof_write(p, true, sink);
	case SP_OUT_DUMP:
		sp_profile_dump(p, sink);
		return NULL;
	case SP_OUT_FOLDED:
	case SP_OUT_FOLDED_DIFF: {
		sp_folded_options fo = {.sample_index = ro.sample_index,
					.annotate = o->annotate,
					.two_sides = o->format == SP_OUT_FOLDED_DIFF,
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
		sp_viewer_options vo = {.sample_index = ro.sample_index, .name = name};
		return o->format == SP_OUT_SPEEDSCOPE ? sp_speedscope_write(p, &vo, sink)
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
	err = sp_pipeline_write_sink(o, p, name, sink);
	if (err)
		err = sp_error_prefix(err, "%s", name); /* the input the writer refused */
	else
		err = sp_sink_finish(sink);
	sp_sink_free(sink); /* an unfinished file is removed */
	return err;
}

double sp_profile_resolved_percent(const sp_profile *p, size_t col)
{
	double all = 0, resolved = 0;
	for (size_t i = 0; i < p->n_samples; i++) {
		const sp_sample *s = &p->samples[i];
		double w = s->values[col] < 0 ? -(double)s->values[col] : (double)s->values[col];
		for (size_t j = 0; j < s->n_locations; j++) {
			const sp_location *l = sp_profile_location(p, s->location_ids[j]);
			all += w;
			if (l && l->n_lines)
				resolved += w;
		}
	}
	return all > 0 ? 100.0 * resolved / all : 100.0;
}

sp_error *sp_filters_check(const char *what, const char *src, const char *tagfocus,
			   const char *tagignore)
{
	sp_sample_filter *f = NULL;
	sp_error *err = NULL;
	regex_t re;
	if (src && !(err = sp_regex_compile(what, src, &re)))
		regfree(&re);
	if (!err)
		err = sp_sample_filter_new(NULL, NULL, NULL, &f);
	if (!err)
		err = sp_sample_filter_tags(f, tagfocus, tagignore);
	sp_sample_filter_free(f);
	return err;
}

/* -- flame graph options by name ---------------------------------------------------- */

bool sp_flame_colors_by_name(const char *name, sp_flame_colors *out)
{
	static const char *const palettes[] = {"java", "hot", "mem", "io"};
	for (size_t i = 0; i < SP_ARRAY_LEN(palettes); i++) {
		if (!strcmp(name, palettes[i])) {
			*out = (sp_flame_colors)i;
			return true;
		}
	}
	return false;
}

bool sp_flame_minwidth_parse(const char *s, sp_flame_options *fo)
{
	/* pixels as flamegraph.pl's --minwidth, or a share of the total */
	size_t n = strlen(s);
	bool pct = n > 1 && s[n - 1] == '%';
	char *num = sp_xstrndup(s, pct ? n - 1 : n), *end;
	errno = 0;
	double d = strtod(num, &end);
	bool ok = !errno && end != num && !*end && d >= 0 && (!pct || d <= 100);
	free(num);
	if (!ok)
		return false;
	fo->minwidth = d;
	fo->minwidth_kind = pct ? SP_MINWIDTH_PERCENT : SP_MINWIDTH_PX;
	return true;
}

bool sp_flame_color_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 32)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789#(),. ") == n;
}

/* -- --each ----------------------------------------------------------------------- */

char *sp_each_output_path(const char *dir, const char *input, sp_out_format f)
{
	const char *base = strrchr(input, '/');
	base = base ? base + 1 : input;
	if (!strcmp(input, "-"))
		base = "stdin";
	return sp_xasprintf("%s/%s%s", dir, base, sp_out_format_ext(f));
}

int sp_each_outputs_clash(const char *dir, char *const *inputs, int n, sp_out_format f,
			  int *first)
{
	char **paths = sp_xcalloc(n > 0 ? (size_t)n : 1, sizeof(*paths));
	int clash = -1;
	for (int i = 0; i < n && clash < 0; i++) {
		paths[i] = sp_each_output_path(dir, inputs[i], f);
		for (int j = 0; j < i && clash < 0; j++) {
			if (strcmp(paths[i], paths[j]) != 0)
				continue;
			*first = j;
			clash = i;
		}
	}
	for (int i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	return clash;
}

sp_error *sp_each_dir(const char *dir)
{
	struct stat st;
	/* its missing parents first, as mkdir -p makes them */
	char *path = sp_xstrdup(dir);
	for (char *q = path + 1; *q; q++) {
		if (*q != '/')
			continue;
		*q = '\0';
		if (mkdir(path, 0777) != 0 && errno != EEXIST) {
			sp_error *e = sp_error_new(SP_E_IO, "--each: cannot create directory %s: %s",
						   path, strerror(errno));
			free(path);
			return e;
		}
		*q = '/';
	}
	free(path);
	if (mkdir(dir, 0777) == 0 || (errno == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode)))
		return NULL;
	if (errno == EEXIST)
		return sp_error_new(SP_E_USAGE, "--each: -o %s is not a directory", dir);
	return sp_error_new(SP_E_IO, "--each: cannot create directory %s: %s", dir,
			    strerror(errno));
}

/* -- JIT objects ------------------------------------------------------------------ */

sp_error *sp_jit_dump_dir(int pid, const char *core, const char *exe, const char *dir,
			  size_t *n_objects, uint64_t *descriptor)
{
	/* Read first: a process or core that cannot be read leaves no directory behind. */
	sp_jit_objects objs = {0};
	sp_error *err = pid ? sp_jit_read_process((pid_t)pid, &objs) : sp_jit_read_core(core, exe, &objs);
	bool made = false;
	if (!err) {
		if (mkdir(dir, 0777) == 0) {
			made = true;
		} else {
			int e = errno;
			struct stat st;
			if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
				err = sp_error_new(SP_E_IO, "%s: cannot create directory: %s", dir,
						   strerror(e));
		}
	}
	if (!err)
		err = sp_jit_objects_write(&objs, dir);
	if (err && made)
		rmdir(dir); /* only if nothing was written into it */
	if (!err) {
		*n_objects = objs.n;
		*descriptor = objs.descriptor_addr;
	}
	sp_jit_objects_clear(&objs);
	return err;
}
