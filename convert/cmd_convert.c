/* cmd_convert.c — `symprof convert`: its options, and the lines it prints
 * of what the run reports.  The run itself (read one or more profiles,
 * symbolize them through one shared session, merge or convert each,
 * write; --each -j's worker processes) is the library's (pipeline/). */
#include "convert/convert.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
	sp_cli_sym sym;
	const char *out;
	sp_out_format format;
	const char *sample_index;
	bool annotate;
	bool each;
	bool all_frames;
	const char *base;
	bool diff_base;
	double min_resolved; /* --min-resolved PERCENT; < 0: not given */
	int jobs;            /* -j N; 0: not given (the CPUs, when worth it) */
	sp_report_options report;
	char **source_paths; /* --source-path (borrowed from argv) */
	size_t n_source_paths, cap_source_paths;
	unsigned long given; /* bit i: format_options[i] was given */
	sp_cli_perf perf;    /* --addresses, perf report's selections, --percent-limit */
} convert_opts;

#define FMT(f) (1u << (f))
#define FMT_GRAPH (FMT(SP_OUT_DOT) | FMT(SP_OUT_PDF) | FMT(SP_OUT_SVG) | FMT(SP_OUT_PNG))
#define FMT_ANNOTATED (FMT(SP_OUT_HTML) | FMT(SP_OUT_LIST) | FMT(SP_OUT_DISASM))

/* Options that only some output formats use: given with another format
 * they are refused rather than silently ignored. */
static const struct {
	int opt; /* getopt_long's value */
	const char *name;
	unsigned formats; /* FMT bits */
} format_options[] = {
	{2001, "--annotate", FMT(SP_OUT_FOLDED) | FMT(SP_OUT_FOLDED_DIFF)},
	{2005, "--functions", FMT_GRAPH | FMT(SP_OUT_TOP)},
	{2006, "--lines", FMT_GRAPH | FMT(SP_OUT_TOP)},
	{2007, "--files", FMT_GRAPH | FMT(SP_OUT_TOP)},
	{2008, "--nodecount", FMT_GRAPH | FMT(SP_OUT_TOP) | FMT_ANNOTATED},
	{2009, "--nodefraction", FMT_GRAPH | FMT(SP_OUT_TOP)},
	{2010, "--edgefraction", FMT_GRAPH | FMT(SP_OUT_TOP)},
	{2011, "--unit", FMT_GRAPH | FMT(SP_OUT_TOP) | FMT(SP_OUT_FLAMEGRAPH) | FMT_ANNOTATED},
	{2012, "--title", FMT_GRAPH | FMT(SP_OUT_FLAMEGRAPH) | FMT(SP_OUT_HTML)},
	{2017, "--source-path", FMT_ANNOTATED},
	{2018, "--flat-to", FMT_GRAPH | FMT(SP_OUT_TOP)},
	{2100, "--subtitle", FMT(SP_OUT_FLAMEGRAPH)},
	{2101, "--width", FMT(SP_OUT_FLAMEGRAPH)},
	{2102, "--height", FMT(SP_OUT_FLAMEGRAPH)},
	{2103, "--minwidth", FMT(SP_OUT_FLAMEGRAPH)},
	{2104, "--colors", FMT(SP_OUT_FLAMEGRAPH)},
	{2105, "--reverse", FMT(SP_OUT_FLAMEGRAPH)},
	{2106, "--inverted", FMT(SP_OUT_FLAMEGRAPH)},
	{2107, "--countname", FMT(SP_OUT_FLAMEGRAPH)},
	{2108, "--search-color", FMT(SP_OUT_FLAMEGRAPH)},
};

static void mark_given(convert_opts *o, int opt)
{
	for (size_t i = 0; i < SP_ARRAY_LEN(format_options); i++)
		if (format_options[i].opt == opt)
			o->given |= 1ul << i;
}

/* 0, or 2 after a usage error naming the first given option that format F
 * does not use and the formats that do. */
static int check_format_options(const convert_opts *o, sp_out_format f)
{
	for (size_t i = 0; i < SP_ARRAY_LEN(format_options); i++) {
		if (!(o->given & (1ul << i)) || (format_options[i].formats & FMT(f)))
			continue;
		char list[256] = "";
		size_t n = 0, n_names;
		const char *const *names = sp_out_format_names(&n_names);
		for (size_t k = 0; k < n_names; k++)
			if (format_options[i].formats & FMT(sp_out_format_by_name(names[k])))
				n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s",
						      n ? ", " : "", names[k]);
		return sp_cli_usage("convert", "%s applies only to --format %s, not %s",
				    format_options[i].name, list, sp_out_format_name(f));
	}
	return 0;
}


/* The run's output: written to -o, or with --each into -o DIR. */
typedef struct {
	const convert_opts *o;
	sp_output_options w;
	char **inputs;
	int n_ok, n_failed; /* with --each */
	bool below_min;     /* an output had fewer frames resolved than --min-resolved */
	bool below_now;     /* ... the last one (each_flags) */
} emit_ctx;

/* --min-resolved: says so when OUT resolved too little (the output is
 * written all the same; the run then exits 3). */
static void check_resolved(emit_ctx *e, const sp_pipeline_output *out)
{
	size_t col;
	sp_error *err = sp_profile_sample_index(out->profile, e->o->sample_index, &col);
	if (err) {
		sp_error_free(err); /* the writer reports it */
		return;
	}
	double pct = sp_profile_resolved_percent(out->profile, col);
	if (pct >= e->o->min_resolved)
		return;
	fprintf(stderr,
		"symprof convert: %s: %.1f%% of frames resolved (by sample weight), fewer than "
		"--min-resolved %g\n",
		out->name, pct, e->o->min_resolved);
	e->below_min = e->below_now = true;
}

static void convert_loaded(void *ctx, int input, const char *name, const sp_notes *notes)
{
	sp_cli_perf_notes(name, notes, ((emit_ctx *)ctx)->o->sym.quiet);
	(void)input;
}

static sp_error *emit_output(void *ctx, const sp_pipeline_output *out)
{
	emit_ctx *e = ctx;
	if (out->session) /* what symbolizing found to say (a split unit refused, ...) */
		sp_cli_print_notes(out->session, e->o->sym.quiet);
	if (e->o->min_resolved >= 0)
		check_resolved(e, out);
	sp_output_options w = e->w;
	w.session = out->session;
	w.input_format = out->format;
	sp_cli_events_note(&w, out, e->o->sym.quiet);
	if (!e->o->each)
		return sp_pipeline_write(&w, out->profile, out->name, e->o->out);
	char *path = sp_each_output_path(e->o->out, e->inputs[out->input], e->w.format);
	sp_error *err = sp_pipeline_write(&w, out->profile, out->name, path);
	free(path);
	return err;
}

/* What --each hands back of an input besides its error: whether it
 * resolved too little (bit 0). */
static unsigned each_flags(void *ctx, int input)
{
	emit_ctx *e = ctx;
	unsigned f = e->below_now;
	e->below_now = false;
	return f;
}

/* --each: one line per input, in the inputs' order, "IN: ok -> OUT" or
 * "IN: failed: REASON". */
static void each_done(void *ctx, int input, const sp_error *err, unsigned flags)
{
	emit_ctx *e = ctx;
	const char *in = e->inputs[input];
	if (flags & 1)
		e->below_min = true;
	if (!err) {
		char *path = sp_each_output_path(e->o->out, in, e->w.format);
		fprintf(stderr, "symprof convert: %s: ok -> %s\n", in, path);
		free(path);
		e->n_ok++;
		return;
	}
	char *msg = sp_error_string(err);
	const char *reason = msg;
	size_t len = strlen(in);
	if (!strncmp(reason, in, len) && !strncmp(reason + len, ": ", 2))
		reason += len + 2; /* the line names the input already */
	fprintf(stderr, "symprof convert: %s: failed: %s\n", in, reason);
	free(msg);
	e->n_failed++;
}

static void each_warning(void *ctx, const char *text)
{
	(void)ctx;
	fprintf(stderr, "symprof convert: -j: %s\n", text);
}

/* The output format: --format, else -o's extension, else the default.
 * Returns SP_OUT_NONE after a usage error. */
static sp_out_format output_format(const convert_opts *o)
{
	sp_out_format f = o->format;
	if (f == SP_OUT_NONE && o->out && !o->each)
		f = sp_out_format_by_path(o->out);
	if (o->out && !o->each)
		f = sp_out_format_encoding(f, o->out);
	if (f != SP_OUT_NONE)
		return f;
	if (o->out && strcmp(o->out, "-") != 0 && !o->each) {
		sp_cli_usage("convert", "cannot tell the output format from '%s'; use --format",
			     o->out);
		return SP_OUT_NONE;
	}
	return o->each ? SP_OUT_PPROF : SP_OUT_FOLDED;
}

/* What --each needs before any work: -o DIR, distinct outputs (two inputs
 * of the same base name in two directories would overwrite each other),
 * DIR made.  Returns 0 or the exit status. */
static int each_ready(const convert_opts *o, char **inputs, int n_inputs, sp_out_format f)
{
	int first, clash;
	if (!o->out)
		return sp_cli_usage("convert", "--each needs -o DIR naming a directory");
	if ((clash = sp_each_outputs_clash(o->out, inputs, n_inputs, f, &first)) >= 0) {
		char *path = sp_each_output_path(o->out, inputs[clash], f);
		sp_cli_usage("convert", "--each: %s and %s would both be written to %s",
			     inputs[first], inputs[clash], path);
		free(path);
		return 2;
	}
	sp_error *err = sp_each_dir(o->out);
	if (!err)
		return 0;
	int rc = 1;
	char *msg = sp_error_string(err);
	if (err->code == SP_E_USAGE)
		rc = sp_cli_usage("convert", "%s", msg);
	else
		fprintf(stderr, "symprof convert: %s\n", msg);
	free(msg);
	sp_error_free(err);
	return rc;
}

/* --each: the run over the inputs, through worker processes; its lines,
 * then the count.  Returns the exit status before --min-resolved. */
static int run_each(const convert_opts *o, sp_pipeline *pl, emit_ctx *ctx,
		    const sp_load_input *in, int n_inputs)
{
	sp_each_options eo = {
		.size = sizeof(eo),
		.jobs = o->jobs,
		.done = each_done,
		.flags = each_flags,
		.warning = each_warning,
		.ctx = ctx,
	};
	int failed = 0;
	sp_error *err = sp_each_run(pl, &eo, in, n_inputs, &failed);
	int rc = err ? sp_cli_fail(err) : failed ? 1 : 0;
	/* (an error before the first input, e.g. the --base profile's, leaves
	 * inputs not attempted) */
	int untried = n_inputs - ctx->n_ok - ctx->n_failed;
	fprintf(stderr, "symprof convert: %d of %d inputs converted into %s, %d failed",
		ctx->n_ok, n_inputs, o->out, ctx->n_failed);
	if (untried > 0)
		fprintf(stderr, ", %d not attempted", untried);
	fputc('\n', stderr);
	return rc;
}

static int run(convert_opts *o, char **inputs, int n_inputs)
{
	sp_out_format f = output_format(o);
	if (f == SP_OUT_NONE)
		return 2;
	int bad = check_format_options(o, f);
	if (bad)
		return bad;
	if ((bad = sp_cli_percent_limit(&o->perf, f, &o->report)))
		return bad;
	/* the viewers' timelines, --time: each perf.data sample at its time */
	o->sym.sample_times = f == SP_OUT_SPEEDSCOPE || f == SP_OUT_FIREFOX || o->perf.select.time;
	if (sp_out_format_binary(f) && !o->out && !o->each && isatty(STDOUT_FILENO))
		return sp_cli_usage("convert",
				    "refusing to write binary output to a terminal; use -o FILE");
	if (o->each && (bad = each_ready(o, inputs, n_inputs, f)))
		return bad;
	emit_ctx ctx = {
		.o = o,
		.w = {.size = sizeof(ctx.w),
		      .format = f,
		      .sample_index = o->sample_index,
		      .annotate = o->annotate,
		      .all_frames = o->all_frames,
		      .jobs = o->sym.jobs,
		      .report = o->report,
		      .source_paths = (const char *const *)o->source_paths,
		      .n_source_paths = o->n_source_paths,
		      .path_maps = o->sym.sym.path_maps,
		      .n_path_maps = o->sym.sym.n_path_maps,
		      .addresses = o->perf.addresses,
		      .no_symbolize = o->sym.no_symbolize},
		.inputs = inputs,
	};
	if (f == SP_OUT_FOLDED_DIFF && !o->base)
		return sp_cli_usage("convert", "--format folded-diff needs --base or --diff-base");
	sp_pipeline pl = {
		.each = o->each,
		.keep_going = o->each,
		.name_errors = true,
		.base = o->base,
		/* writers that draw both sides tell them apart by the label */
		.keep_base = o->diff_base || f == SP_OUT_FOLDED_DIFF || f == SP_OUT_FLAMEGRAPH ||
			     f == SP_OUT_HTML,
		.loaded = convert_loaded,
		.symbolized = o->sym.quiet ? NULL : sp_cli_summary,
		.select = &o->perf.select,
		.output = emit_output,
		.ctx = &ctx,
	};
	sp_cli_pipeline(&o->sym, &pl);
	sp_symbolizer *ixs = sp_cli_index_session(&o->sym, &pl);
	sp_load_input *in = sp_cli_inputs(inputs, n_inputs);
	sp_error *err = NULL;
	int rc = o->each ? run_each(o, &pl, &ctx, in, n_inputs)
		 : (err = sp_pipeline_run(&pl, in, n_inputs, NULL)) ? sp_cli_fail(err) : 0;
	free(in);
	sp_cli_index_done(&o->sym, ixs);
	return rc == 0 && ctx.below_min ? 3 : rc;
}

/* Only a regular file is looked at: reading the magic of a pipe such as
 * /dev/stdin would take it from the profile. */
static bool is_elf_file(const char *path)
{
	char magic[4];
	struct stat st;
	FILE *f = strcmp(path, "-") && stat(path, &st) == 0 && S_ISREG(st.st_mode)
			  ? fopen(path, "rb")
			  : NULL;
	bool elf = f && fread(magic, 1, 4, f) == 4 && !memcmp(magic, "\177ELF", 4);
	if (f)
		fclose(f);
	return elf;
}

/* pprof's habit, `symprof convert ./prog prog.0001.heap`: an ELF file among
 * the inputs is the main binary, not a profile.  It is taken out of INPUTS
 * (*N shrinks) and its directory searched first, as with --binary-path;
 * a build id, when recorded, still has to match.  Returns 0 or 2. */
static int take_binary(convert_opts *o, char **inputs, int *n)
{
	int kept = 0;
	const char *binary = NULL;
	for (int i = 0; i < *n; i++) {
		if (!is_elf_file(inputs[i])) {
			inputs[kept++] = inputs[i];
			continue;
		}
		if (binary)
			return sp_cli_usage("convert", "two ELF files among the inputs: %s and %s",
					    binary, inputs[i]);
		binary = inputs[i];
	}
	if (!binary)
		return 0;
	const char *slash = strrchr(binary, '/');
	char *dir = slash ? sp_xstrndup(binary, (size_t)(slash - binary) + !!(slash == binary))
			  : sp_xstrdup(".");
	fprintf(stderr,
		"symprof convert: %s is an ELF file, taken as the main binary (its "
		"directory %s is searched first, as with --binary-path)\n",
		binary, dir);
	sp_cli_sym_option(&o->sym, 1000, dir);
	free(dir);
	*n = kept;
	return kept ? 0 : sp_cli_usage("convert", "no input profile, only the binary %s", binary);
}

/* The filters are compiled here so that a bad one is a usage error
 * before any input is read: --focus and --ignore (WHAT, SRC), or
 * --tagfocus and --tagignore (TAGFOCUS, TAGIGNORE). */
static bool filters_ok(const char *what, const char *src, const char *tagfocus,
		       const char *tagignore)
{
	sp_error *err = sp_filters_check(what, src, tagfocus, tagignore);
	if (!err)
		return true;
	char *msg = sp_error_string(err);
	sp_cli_usage("convert", "--%s", msg);
	free(msg);
	sp_error_free(err);
	return false;
}

/* The flame graph's options (2100...); returns 0, or 2 after a usage
 * error. */
static int flame_option(sp_flame_options *fo, int c, const char *arg)
{
	switch (c) {
	case 2100:
		fo->subtitle = arg;
		return 0;
	case 2101:
		return sp_cli_parse_int("convert", "--width", arg, 200, 100000, &fo->width) ? 0 : 2;
	case 2102:
		return sp_cli_parse_int("convert", "--height", arg, 4, 200, &fo->frame_height) ? 0 : 2;
	case 2103:
		if (!sp_flame_minwidth_parse(arg, fo))
			return sp_cli_usage("convert",
					    "--minwidth expects pixels (0.1) or a percentage of the "
					    "total (0.5%%), got '%s'",
					    arg);
		return 0;
	case 2104:
		if (sp_flame_colors_by_name(arg, &fo->colors))
			return 0;
		return sp_cli_usage("convert", "--colors expects java, hot, mem or io, got '%s'",
				    arg);
	case 2105:
		fo->reverse = true;
		return 0;
	case 2106:
		fo->inverted = true;
		return 0;
	case 2107:
		fo->countname = arg;
		return 0;
	case 2108:
		if (!sp_flame_color_ok(arg))
			return sp_cli_usage("convert",
					    "--search-color expects a colour such as 'rgb(230,0,230)', "
					    "'#e600e6' or 'magenta', got '%s'",
					    arg);
		fo->search_color = arg;
		return 0;
	}
	return 0;
}

/* Inputs of fewer bytes than this are read and written on one thread
 * when -j is not given: a thread's start costs more than it saves there
 * (the heap reader's second thread, the folded writer's). */
#define SINGLE_JOBS_MIN_BYTES ((uint64_t)4 << 20)

/* -j's default for one conversion of the N inputs PATHS: the CPUs this
 * process may use when the inputs are large enough to gain, else 1. */
static int default_jobs(char **paths, int n)
{
	uint64_t total = 0;
	for (int i = 0; i < n; i++)
		total += sp_load_input_bytes(&(sp_load_input){.path = paths[i]});
	return total >= SINGLE_JOBS_MIN_BYTES ? sp_cpus_available() : 1;
}

int cmd_convert(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"format", required_argument, NULL, 'f'},
		{"sample-index", required_argument, NULL, 2000},
		{"annotate", no_argument, NULL, 2001},
		{"each", no_argument, NULL, 2002},
		{"jobs", required_argument, NULL, 'j'},
		{"focus", required_argument, NULL, 2003},
		{"ignore", required_argument, NULL, 2004},
		SP_CLI_PERF_OPTIONS,
		{"functions", no_argument, NULL, 2005},
		{"lines", no_argument, NULL, 2006},
		{"files", no_argument, NULL, 2007},
		{"nodecount", required_argument, NULL, 2008},
		{"nodefraction", required_argument, NULL, 2009},
		{"edgefraction", required_argument, NULL, 2010},
		{"unit", required_argument, NULL, 2011},
		{"title", required_argument, NULL, 2012},
		{"all-frames", no_argument, NULL, 2013},
		{"base", required_argument, NULL, 2014},
		{"diff-base", required_argument, NULL, 2015},
		{"min-resolved", required_argument, NULL, 2016},
		{"source-path", required_argument, NULL, 2017},
		{"flat-to", required_argument, NULL, 2018},
		{"subtitle", required_argument, NULL, 2100},
		{"width", required_argument, NULL, 2101},
		{"height", required_argument, NULL, 2102},
		{"minwidth", required_argument, NULL, 2103},
		{"colors", required_argument, NULL, 2104},
		{"reverse", no_argument, NULL, 2105},
		{"inverted", no_argument, NULL, 2106},
		{"countname", required_argument, NULL, 2107},
		{"search-color", required_argument, NULL, 2108},
		{"tagfocus", required_argument, NULL, 2110},
		{"tagignore", required_argument, NULL, 2111},
		{"help", no_argument, NULL, 'h'},
		SP_CLI_SYM_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	convert_opts o;
	memset(&o, 0, sizeof(o));
	sp_cli_sym_init(&o.sym);
	o.sym.cmd = "convert";
	sp_report_options_init(&o.report);
	o.min_resolved = -1;
	int c, rc = 0;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:f:j:qh", longopts, NULL)) != -1) {
		int r = sp_cli_sym_option(&o.sym, c, optarg);
		if (r == 0)
			continue;
		if (r == 2) {
			rc = 2;
			goto out;
		}
		double d;
		mark_given(&o, c);
		if (c >= 2100 && c <= 2108) {
			if ((rc = flame_option(&o.report.flame, c, optarg)))
				goto out;
			continue;
		}
		switch (c) {
		case 'o':
			o.out = optarg;
			break;
		case 'f':
			o.format = sp_out_format_by_name(optarg);
			if (o.format == SP_OUT_NONE) {
				rc = sp_cli_usage("convert", "unknown format '%s'", optarg);
				goto out;
			}
			break;
		case 2000:
			o.sample_index = optarg;
			break;
		case 2001:
			o.annotate = true;
			break;
		case 'j':
			if (!sp_cli_parse_int("convert", "-j", optarg, 1, 1024, &o.jobs)) {
				rc = 2;
				goto out;
			}
			break;
		case 2002:
			o.each = true;
			break;
		case 2003:
		case 2004:
			if (!filters_ok(c == 2003 ? "focus" : "ignore", optarg, NULL, NULL)) {
				rc = 2;
				goto out;
			}
			*(c == 2003 ? &o.report.focus : &o.report.ignore) = optarg;
			break;
		case 2110:
		case 2111:
			if (!filters_ok(NULL, NULL, c == 2110 ? optarg : NULL,
					 c == 2111 ? optarg : NULL)) {
				rc = 2;
				goto out;
			}
			*(c == 2110 ? &o.report.tagfocus : &o.report.tagignore) = optarg;
			break;
		case 2200 ... 2206:
			if ((rc = sp_cli_perf_option(&o.perf, c, optarg)))
				goto out;
			break;
		case 2005:
			o.report.granularity = SP_GRAN_FUNCTIONS;
			break;
		case 2006:
			o.report.granularity = SP_GRAN_LINES;
			break;
		case 2007:
			o.report.granularity = SP_GRAN_FILES;
			break;
		case 2008: {
			uint64_t n;
			if (!sp_parse_u64(optarg, optarg + strlen(optarg), 10, &n) ||
			    n > 1000000) {
				rc = sp_cli_usage("convert", "--nodecount expects a number");
				goto out;
			}
			/* 0 means "no limit" to users, as in pprof; the report
			 * options reserve 0 for "the default" */
			o.report.nodecount = n ? (int)n : -1;
			break;
		}
		case 2009:
		case 2010:
			if (!sp_cli_parse_double(optarg, &d) || d < 0 || d > 1) {
				rc = sp_cli_usage("convert", "--%s expects a fraction in [0, 1]",
						  c == 2009 ? "nodefraction" : "edgefraction");
				goto out;
			}
			if (c == 2009)
				o.report.nodefraction = d;
			else
				o.report.edgefraction = d;
			break;
		case 2011:
			o.report.unit = optarg;
			break;
		case 2018:
			if (!strcmp(optarg, "frame") || !strcmp(optarg, "symbol")) {
				o.report.flat_to = *optarg == 'f' ? SP_FLAT_FRAME : SP_FLAT_SYMBOL;
				break;
			}
			rc = sp_cli_usage("convert", "--flat-to expects frame or symbol, got '%s'",
					  optarg);
			goto out;
		case 2012:
			o.report.title = optarg;
			break;
		case 2013:
			o.all_frames = true;
			break;
		case 2014:
		case 2015:
			if (o.base) {
				rc = sp_cli_usage("convert", "one --base or --diff-base");
				goto out;
			}
			o.base = optarg;
			o.diff_base = c == 2015;
			break;
		case 2016:
			if (!sp_cli_parse_double(optarg, &d) || d < 0 || d > 100) {
				rc = sp_cli_usage("convert", "--min-resolved expects a percentage "
							     "in [0, 100]");
				goto out;
			}
			o.min_resolved = d;
			break;
		case 2017:
			SP_PUSH(o.source_paths, o.n_source_paths, o.cap_source_paths, optarg);
			break;
		case 'h':
			sp_convert_usage(stdout);
			goto out;
		default:
			rc = sp_cli_bad_option("convert", c, argv);
			goto out;
		}
	}
	if (optind >= argc) {
		rc = sp_cli_usage("convert", "no input profile");
		goto out;
	}
	int n_inputs = argc - optind;
	if ((rc = take_binary(&o, argv + optind, &n_inputs)))
		goto out;
	int n_stdin = 0;
	for (int i = optind; i < optind + n_inputs; i++)
		n_stdin += !strcmp(argv[i], "-");
	if (n_stdin > 1) {
		rc = sp_cli_usage("convert", "standard input ('-') can be read only once");
		goto out;
	}
	if (!o.each) /* one conversion: its reader and writer may use the threads */
		o.sym.jobs = o.jobs ? o.jobs : default_jobs(argv + optind, n_inputs);
	/* a .gz output's deflate: on -j threads for one conversion; with --each
	 * the processes are what runs in parallel */
	sp_sink_gzip_threads(o.each ? 1 : o.jobs ? o.jobs : 0);
	sp_cli_sym_finish(&o.sym);
	rc = run(&o, argv + optind, n_inputs);
out:
	free(o.source_paths);
	sp_cli_sym_clear(&o.sym);
	return rc;
}
