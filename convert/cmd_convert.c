/* cmd_convert.c — `symprof convert`: read one or more profiles, symbolize
 * them through one shared session, merge (or convert each), write. */
#include "convert/convert.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef enum {
	OUT_NONE = 0,
	OUT_PPROF,
	OUT_FOLDED,
	OUT_RAW,
	OUT_DOT,
	OUT_PDF,
	OUT_SVG,
	OUT_PNG,
	OUT_TOP,
	OUT_FLAMEGRAPH,
} out_format;

static const struct {
	const char *name;
	out_format f;
	const char *ext; /* for --each output names */
} formats[] = {
	{"pprof", OUT_PPROF, ".pb.gz"},    {"folded", OUT_FOLDED, ".folded"},
	{"raw", OUT_RAW, ".raw"},          {"dot", OUT_DOT, ".dot"},
	{"pdf", OUT_PDF, ".pdf"},          {"svg", OUT_SVG, ".svg"},
	{"png", OUT_PNG, ".png"},          {"top", OUT_TOP, ".txt"},
	{"flamegraph", OUT_FLAMEGRAPH, ".flame.svg"},
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

static out_format format_by_name(const char *name)
{
	for (size_t i = 0; i < SP_ARRAY_LEN(formats); i++)
		if (!strcmp(formats[i].name, name))
			return formats[i].f;
	return OUT_NONE;
}

static out_format format_by_extension(const char *path)
{
	static const struct {
		const char *ext;
		out_format f;
	} exts[] = {
		{".pb.gz", OUT_PPROF}, {".pb", OUT_PPROF},     {".pprof", OUT_PPROF},
		{".folded", OUT_FOLDED}, {".collapsed", OUT_FOLDED}, {".raw", OUT_RAW},
		{".dot", OUT_DOT},     {".pdf", OUT_PDF},      {".flame.svg", OUT_FLAMEGRAPH},
		{".svg", OUT_SVG},     {".png", OUT_PNG},      {".txt", OUT_TOP},
		{".top", OUT_TOP},
	};
	for (size_t i = 0; i < SP_ARRAY_LEN(exts); i++)
		if (ends_with(path, exts[i].ext))
			return exts[i].f;
	return OUT_NONE;
}

static const char *format_ext(out_format f)
{
	for (size_t i = 0; i < SP_ARRAY_LEN(formats); i++)
		if (formats[i].f == f)
			return formats[i].ext;
	return "";
}

typedef struct {
	sp_cli_sym sym;
	const char *out;
	out_format format;
	const char *sample_index;
	bool annotate;
	bool each;
	bool all_frames;
	sp_report_options report;
} convert_opts;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: symprof convert [OPTIONS] PROFILE... [-o OUT]\n"
		"\n"
		"Reads pprof protobuf (gzip or not), gperftools heap/CPU/contention/thread\n"
		"profiles, Go count profiles, raw address stacks and folded stacks;\n"
		"symbolizes them; writes one output (several inputs are merged).\n"
		"\n"
		"output:\n"
		"  -o, --output OUT      output file ('-' = stdout; a device or FIFO is written\n"
		"                        directly, a file replaced whole); the format follows its\n"
		"                        extension (.pb.gz .folded .raw .dot .pdf .svg .png .txt\n"
		"                        .flame.svg); without -o folded stacks go to stdout\n"
		"  --format F            pprof, folded, raw, dot, pdf, svg, png, top, flamegraph\n"
		"  --each                convert every input on its own; -o names a directory\n"
		"  --sample-index I      value column: a type name or a number (default: the\n"
		"                        default sample type, else the last column)\n"
		"  --annotate            folded: mark kernel _[k], JIT _[j], inlined _[i] frames\n"
		"  --all-frames          keep frames that drop_frames would remove\n"
		"reports (dot, pdf, svg, png, top, flamegraph):\n"
		"  --focus RE  --ignore RE  --functions | --lines | --files  --unit UNIT\n"
		"  --nodecount N (80, 0 = all)  --nodefraction F (0.005)  --edgefraction F (0.001)\n"
		"  --title TEXT\n" SP_CLI_SYM_HELP);
}

static sp_error *write_output(const convert_opts *o, out_format f, sp_profile *p,
			      const char *name, sp_sink *sink)
{
	sp_error *err = NULL;
	sp_report_options ro = o->report;
	if (f != OUT_PPROF && f != OUT_RAW && !o->all_frames)
		sp_profile_prune_frames(p);
	if (f != OUT_PPROF && f != OUT_RAW) {
		size_t idx;
		err = sp_profile_sample_index(p, o->sample_index, &idx);
		if (err)
			return sp_error_prefix(err, "%s", name);
		ro.sample_index = idx;
	}
	switch (f) {
	case OUT_PPROF:
		return sp_pprof_write(p, true, sink);
	case OUT_RAW:
		sp_profile_dump(p, sink);
		return NULL;
	case OUT_FOLDED: {
		sp_folded_options fo = {.sample_index = ro.sample_index, .annotate = o->annotate};
		return sp_folded_write(p, &fo, sink);
	}
	case OUT_DOT:
		return sp_dot_write(p, &ro, sink);
	case OUT_PDF:
		return sp_graph_render(p, &ro, "pdf", sink);
	case OUT_SVG:
		return sp_graph_render(p, &ro, "svg", sink);
	case OUT_PNG:
		return sp_graph_render(p, &ro, "png", sink);
	case OUT_TOP:
		return sp_top_write(p, &ro, sink);
	case OUT_FLAMEGRAPH:
		return sp_flamegraph_write(p, &ro, sink);
	case OUT_NONE:
		break;
	}
	return sp_error_new(SP_E_USAGE, "no output format");
}

/* Writes P to PATH (atomically) or to stdout when PATH is NULL or "-". */
static sp_error *emit(const convert_opts *o, out_format f, sp_profile *p, const char *name,
		      const char *path)
{
	sp_sink *sink;
	sp_error *err = NULL;
	bool to_stdout = !path || !strcmp(path, "-");
	if (to_stdout)
		sink = sp_sink_fd_new(STDOUT_FILENO, "standard output");
	else if ((err = sp_sink_file_new(path, &sink)))
		return err;
	err = write_output(o, f, p, name, sink);
	if (!err)
		err = sp_sink_finish(sink);
	sp_sink_free(sink); /* an unfinished file is removed */
	return err;
}

static sp_error *symbolize_one(const convert_opts *o, sp_symbolizer *s, sp_profile *p,
			       const char *name)
{
	if (o->sym.no_symbolize)
		return NULL;
	sp_symbolize_report r = {0};
	sp_error *err = sp_symbolize_profile(s, p, &r);
	if (!err && !o->sym.quiet)
		sp_cli_print_summary(name, &r, stderr);
	sp_symbolize_report_clear(&r);
	if (err)
		err = sp_error_prefix(err, "%s", name);
	return err;
}

static char *each_output_path(const char *dir, const char *input, out_format f)
{
	const char *base = strrchr(input, '/');
	base = base ? base + 1 : input;
	return sp_xasprintf("%s/%s%s", dir, base, format_ext(f));
}

/* Two inputs of --each whose output paths coincide (same base name in two
 * directories) would overwrite each other: refuse before doing any work. */
static bool each_outputs_distinct(const char *dir, char **inputs, int n_inputs, out_format f)
{
	char **paths = sp_xcalloc((size_t)n_inputs, sizeof(*paths));
	bool ok = true;
	for (int i = 0; i < n_inputs && ok; i++) {
		paths[i] = each_output_path(dir, inputs[i], f);
		for (int j = 0; j < i && ok; j++) {
			if (strcmp(paths[i], paths[j]) != 0)
				continue;
			fprintf(stderr,
				"symprof convert: --each: %s and %s would both be written to "
				"%s\n",
				inputs[j], inputs[i], paths[i]);
			ok = false;
		}
	}
	for (int i = 0; i < n_inputs; i++)
		free(paths[i]);
	free(paths);
	return ok;
}

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

static int run(convert_opts *o, char **inputs, int n_inputs)
{
	out_format f = o->format;
	if (f == OUT_NONE && o->out && !o->each)
		f = format_by_extension(o->out);
	if (f == OUT_NONE) {
		if (o->out && strcmp(o->out, "-") != 0 && !o->each) {
			fprintf(stderr,
				"symprof convert: cannot tell the output format from '%s'; use "
				"--format\n",
				o->out);
			return 2;
		}
		f = o->each ? OUT_PPROF : OUT_FOLDED;
	}
	if ((f == OUT_PDF || f == OUT_PNG || f == OUT_PPROF) && !o->out && !o->each &&
	    isatty(STDOUT_FILENO)) {
		fprintf(stderr, "symprof convert: refusing to write binary output to a terminal; "
				"use -o FILE\n");
		return 2;
	}
	if (o->each) {
		struct stat st;
		if (!o->out || stat(o->out, &st) != 0 || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "symprof convert: --each needs -o DIR naming a directory\n");
			return 2;
		}
		if (!each_outputs_distinct(o->out, inputs, n_inputs, f))
			return 2;
	}

	sp_symbolizer *s = o->sym.no_symbolize ? NULL : sp_symbolizer_new(&o->sym.sym);
	sp_profile **profiles = sp_xcalloc((size_t)n_inputs, sizeof(*profiles));
	sp_error *err = NULL;
	int rc = 0;
	for (int i = 0; i < n_inputs && !err; i++) {
		err = sp_cli_load(&o->sym, inputs[i], &profiles[i], NULL);
		if (!err && !o->each && i > 0)
			err = check_same_kind(profiles[0], inputs[0], profiles[i], inputs[i]);
		if (!err)
			err = symbolize_one(o, s, profiles[i], inputs[i]);
		if (!err && o->each) {
			char *path = each_output_path(o->out, inputs[i], f);
			err = emit(o, f, profiles[i], inputs[i], path);
			free(path);
			sp_profile_free(profiles[i]);
			profiles[i] = NULL;
		}
	}
	if (!err && !o->each) {
		sp_profile *merged = NULL;
		if (n_inputs == 1) {
			merged = profiles[0];
			profiles[0] = NULL;
		} else {
			sp_mem_set_input("merged profile");
			err = sp_profile_merge_named(profiles, (const char *const *)inputs,
						     (size_t)n_inputs, &merged);
		}
		if (!err)
			err = emit(o, f, merged, n_inputs == 1 ? inputs[0] : "merged profile",
				   o->out);
		sp_profile_free(merged);
	}
	if (err)
		rc = sp_cli_fail(err);
	for (int i = 0; i < n_inputs; i++)
		sp_profile_free(profiles[i]);
	free(profiles);
	sp_symbolizer_free(s);
	return rc;
}

static bool parse_double(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end)
		return false;
	*out = v;
	return true;
}

int cmd_convert(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"format", required_argument, NULL, 'f'},
		{"sample-index", required_argument, NULL, 2000},
		{"annotate", no_argument, NULL, 2001},
		{"each", no_argument, NULL, 2002},
		{"focus", required_argument, NULL, 2003},
		{"ignore", required_argument, NULL, 2004},
		{"functions", no_argument, NULL, 2005},
		{"lines", no_argument, NULL, 2006},
		{"files", no_argument, NULL, 2007},
		{"nodecount", required_argument, NULL, 2008},
		{"nodefraction", required_argument, NULL, 2009},
		{"edgefraction", required_argument, NULL, 2010},
		{"unit", required_argument, NULL, 2011},
		{"title", required_argument, NULL, 2012},
		{"all-frames", no_argument, NULL, 2013},
		{"help", no_argument, NULL, 'h'},
		SP_CLI_SYM_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	convert_opts o;
	memset(&o, 0, sizeof(o));
	sp_cli_sym_init(&o.sym);
	sp_report_options_init(&o.report);
	int c, rc = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:f:qh", longopts, NULL)) != -1) {
		int r = sp_cli_sym_option(&o.sym, c, optarg);
		if (r == 0)
			continue;
		if (r == 2) {
			rc = 2;
			goto out;
		}
		double d;
		switch (c) {
		case 'o':
			o.out = optarg;
			break;
		case 'f':
			o.format = format_by_name(optarg);
			if (o.format == OUT_NONE) {
				fprintf(stderr, "symprof convert: unknown format '%s'\n", optarg);
				rc = 2;
				goto out;
			}
			break;
		case 2000:
			o.sample_index = optarg;
			break;
		case 2001:
			o.annotate = true;
			break;
		case 2002:
			o.each = true;
			break;
		case 2003:
			o.report.focus = optarg;
			break;
		case 2004:
			o.report.ignore = optarg;
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
				fprintf(stderr, "symprof convert: --nodecount expects a number\n");
				rc = 2;
				goto out;
			}
			/* 0 means "no limit" to users, as in pprof; the report
			 * options reserve 0 for "the default" */
			o.report.nodecount = n ? (int)n : -1;
			break;
		}
		case 2009:
		case 2010:
			if (!parse_double(optarg, &d) || d < 0 || d > 1) {
				fprintf(stderr,
					"symprof convert: --%s expects a fraction in [0, 1]\n",
					c == 2009 ? "nodefraction" : "edgefraction");
				rc = 2;
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
		case 2012:
			o.report.title = optarg;
			break;
		case 2013:
			o.all_frames = true;
			break;
		case 'h':
			usage(stdout);
			goto out;
		default:
			usage(stderr);
			rc = 2;
			goto out;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "symprof convert: no input profile\n");
		usage(stderr);
		rc = 2;
		goto out;
	}
	sp_cli_sym_finish(&o.sym);
	rc = run(&o, argv + optind, argc - optind);
out:
	sp_cli_sym_clear(&o.sym);
	return rc;
}
