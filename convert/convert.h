/* convert.h — the symprof command: subcommands, shared option handling and
 * the one place that sequences the pipeline (pipeline.c: read → maps →
 * symbolize → merge → write). */
#ifndef SYMPROF_CONVERT_H
#define SYMPROF_CONVERT_H

#include "formats/formats.h"
#include "report/report.h"
#include "symbolize/symbolize.h"

#include <getopt.h>
#include <stdio.h>

int cmd_convert(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_symbolize(int argc, char **argv);
int cmd_jit(int argc, char **argv);

/* Options every command that symbolizes shares.  Vectors are owned. */
typedef struct {
	sp_symbolize_options sym; /* points into the vectors below */
	char **binary_paths;
	size_t n_binary_paths, cap_binary_paths;
	char **debug_dirs;
	size_t n_debug_dirs, cap_debug_dirs;
	sp_path_map *path_maps;
	size_t n_path_maps, cap_path_maps;
	char **jit_dirs;
	size_t n_jit_dirs, cap_jit_dirs;
	char **perf_maps;
	size_t n_perf_maps, cap_perf_maps;
	char **jitdumps;
	size_t n_jitdumps, cap_jitdumps;
	bool no_symbolize;
	const char *maps_file; /* --maps: memory map for raw stacks */
	bool quiet;
	int jobs;        /* threads one input's reading may use (sp_read_options) */
	bool sample_times; /* perf.data: keep each sample's time (viewer formats) */
	const char *cmd; /* "convert", ...: names the command in usage errors */
} sp_cli_sym;

/* getopt_long entries for the shared options; their values are >= 1000.
 * SP_CLI_FIND_OPTIONS are the ones that say where files and names come
 * from; `symbolize` takes only those, the other commands all of them. */
#define SP_CLI_FIND_OPTIONS                                             \
	{"binary-path", required_argument, NULL, 1000},                 \
	{"debug-dir", required_argument, NULL, 1001},                   \
	{"sysroot", required_argument, NULL, 1002},                     \
	{"path-map", required_argument, NULL, 1003},                    \
	{"no-debuginfod", no_argument, NULL, 1004},                     \
	{"jit-dir", required_argument, NULL, 1005},                     \
	{"perf-map", required_argument, NULL, 1006},                    \
	{"jitdump", required_argument, NULL, 1014},                     \
	{"kallsyms", required_argument, NULL, 1007},                    \
	{"no-default-debug-dir", no_argument, NULL, 1016}

#define SP_CLI_SYM_OPTIONS                                              \
	SP_CLI_FIND_OPTIONS,                                            \
	{"demangle", required_argument, NULL, 1008},                    \
	{"no-inline", no_argument, NULL, 1009},                         \
	{"no-symbolize", no_argument, NULL, 1010},                      \
	{"maps", required_argument, NULL, 1011},                        \
	{"force-mismatch", no_argument, NULL, 1012},                    \
	{"resymbolize", no_argument, NULL, 1015},                       \
	{"max-memory", required_argument, NULL, 1013},                  \
	{"quiet", no_argument, NULL, 'q'}

#define SP_CLI_FIND_HELP                                                                 \
	"  --binary-path DIR     search DIR for binaries (repeatable; also $PPROF_BINARY_PATH)\n" \
	"  --debug-dir DIR       separate debug info root, or a perf build-id cache or\n"   \
	"                        unpacked perf archive (repeatable; before /usr/lib/debug)\n" \
	"  --no-default-debug-dir  not /usr/lib/debug\n"                               \
	"  --sysroot DIR         prefix every recorded path with DIR\n"                  \
	"  --path-map OLD=NEW    rewrite a recorded path prefix (repeatable)\n"          \
	"  --no-debuginfod       do not query DEBUGINFOD_URLS servers\n"                 \
	"  --jit-dir DIR         NAME.elf + NAME.meta JIT objects (repeatable)\n"       \
	"  --perf-map FILE|DIR   /tmp/perf-PID.map names for JIT code (repeatable; a DIR\n" \
	"                        gives its perf-PID.map files)\n"                        \
	"  --jitdump FILE|DIR    jit-PID.dump names and lines for JIT code (repeatable;\n" \
	"                        a DIR gives its jit-PID.dump files)\n"                  \
	"  --kallsyms FILE       copy of /proc/kallsyms for kernel addresses\n"

#define SP_CLI_SYM_HELP                                                                  \
	"symbolization:\n"                                                               \
	SP_CLI_FIND_HELP                                                                 \
	"  --demangle STYLE      simple (default), templates, full or none\n"                    \
	"  --no-inline           keep only the outermost frame of inlined code\n"        \
	"  --no-symbolize        keep addresses as they are\n"                           \
	"  --maps FILE           memory map for raw address stacks\n"                    \
	"  --force-mismatch      use a file whose segments do not match its mapping\n"  \
	"  --resymbolize         name again frames that have names already (an OTLP\n"  \
	"                        profiler's Go frames, a symbolized pprof)\n"          \
	"  --max-memory SIZE     memory budget (e.g. 512M, 4G; default: half of physical\n" \
	"                        memory, at most 8G; 0 = none): a profile that needs more\n" \
	"                        is refused\n"                                           \
	"  -q, --quiet           no per-mapping summary on stderr\n"

void sp_cli_sym_init(sp_cli_sym *c);
/* Handles option C (a shared one); returns 0 when handled, 2 on a usage
 * error (message printed), -1 when C is not a shared option. */
int sp_cli_sym_option(sp_cli_sym *c, int opt, const char *arg);
/* Completes sym from the vectors and the environment (PPROF_BINARY_PATH). */
void sp_cli_sym_finish(sp_cli_sym *c);
void sp_cli_sym_clear(sp_cli_sym *c);

/* Reads PATH (perf.data's rounds as they are), attaches --maps, validates.
 * Prints nothing. */
sp_error *sp_cli_load(const sp_cli_sym *c, const char *path, sp_profile **out,
		      sp_input_format *fmt);
/* What sp_cli_load does once PATH is read into P (consumed): --maps
 * attached when P has no mappings, then P checked again; *OUT. */
sp_error *sp_cli_load_maps(const sp_cli_sym *c, const char *path, sp_profile *p, sp_profile **out);
/* Prints one line per mapping that did not fully resolve. */
void sp_cli_print_summary(const char *name, const sp_symbolize_report *r, FILE *f);
/* Prints a usage error as one line "symprof CMD: <message>" and a pointer
 * to --help (CMD NULL: "symprof: ..."); returns 2 (the exit status of
 * usage errors). */
int sp_cli_usage(const char *cmd, const char *fmt, ...) SP_PRINTF(2, 3);
/* For getopt_long run with opterr = 0 and an option string beginning with
 * ':': reports what its result C ('?' or ':') means, as sp_cli_usage. */
int sp_cli_bad_option(const char *cmd, int c, char **argv);
/* Prints an error as "symprof: <message>" and frees it; returns 1. */
int sp_cli_fail(sp_error *err);

/* -- the pipeline (pipeline.c) ------------------------------------------------
 * load → (unwind) → symbolize → merge → diff → output, over the inputs of one
 * command (and the base), with one symbolizer session for the whole run. */

typedef enum {
	SP_OUT_NONE = 0,
	SP_OUT_PPROF,
	SP_OUT_FOLDED,
	SP_OUT_DUMP,
	SP_OUT_DOT,
	SP_OUT_PDF,
	SP_OUT_SVG,
	SP_OUT_PNG,
	SP_OUT_TOP,
	SP_OUT_FLAMEGRAPH,
	SP_OUT_FOLDED_DIFF,
	SP_OUT_HTML,       /* the self-contained HTML report (report/html.c) */
	SP_OUT_LIST,       /* pprof's -list (report/list.c) */
	SP_OUT_DISASM,     /* pprof's -disasm (report/disasm_view.c) */
	SP_OUT_SPEEDSCOPE, /* speedscope's file format (formats/speedscope.c) */
	SP_OUT_FIREFOX,    /* the Firefox Profiler's processed format (formats/firefox.c) */
	SP_OUT_OTLP,       /* OpenTelemetry profiles: protobuf (formats/otlp.c) */
	SP_OUT_OTLP_GZ,    /* ... gzip-compressed */
	SP_OUT_OTLP_JSON,  /* ... OTLP/JSON */
} sp_out_format;

/* How `convert` writes its output. */
typedef struct {
	sp_out_format format;
	const char *sample_index; /* --sample-index, NULL: the default */
	bool quiet;               /* --quiet: no note of which event is shown */
	bool addresses;           /* --addresses: unresolved frames per address */
	bool no_symbolize;        /* --no-symbolize: names are addresses (per address) */
	bool annotate;            /* folded: _[k] _[j] _[i] */
	bool all_frames;          /* keep frames drop_frames would remove */
	int jobs;                 /* threads the writer may use (folded: > 1, two) */
	sp_report_options report;
	/* html, list, disasm: where machine code and sources come from */
	sp_symbolizer *session;   /* the run's session (NULL: no machine code) */
	const char *const *source_paths; /* --source-path */
	size_t n_source_paths;
	const sp_path_map *path_maps;    /* --path-map, for sources too */
	size_t n_path_maps;
} sp_output_options;

/* Writes P (report formats may prune its frames) in O's format to PATH
 * (through a temporary file renamed into place) or to stdout when PATH is
 * NULL or "-"; NAME (the input) names P in errors. */
sp_error *sp_pipeline_write(const sp_output_options *o, sp_profile *p, const char *name,
			    const char *path);

/* What the pipeline hands to its output. */
typedef struct {
	sp_profile *profile;               /* borrowed for the call; may be changed */
	const char *name;                  /* the input's path, or "merged profile" */
	int input;                         /* index of the input, -1 when merged */
	sp_input_format format;            /* the input's format (UNKNOWN when merged) */
	const sp_symbolize_report *report; /* NULL when not symbolized or merged */
	const sp_unwind_report *unwind;    /* NULL when nothing was unwound, or merged */
	sp_symbolizer *session;            /* the run's session (borrowed for the call):
					      the files the profile was symbolized with */
	char *kallsyms_note;               /* perf.data with --kallsyms: how the copy's
					      kernel release and the recording's
					      compare, NULL when they agree */
	char *jitdump_note;                /* perf.data with --jitdump: why sample
					      times did not choose the JIT code,
					      NULL when they did */
} sp_pipeline_output;

typedef struct {
	const sp_cli_sym *sym; /* reading and symbolizing (borrowed) */
	bool each;             /* each input on its own, else all merged into one */
	bool keep_going;       /* with each: after a failed input (error printed)
				  go on with the next; the run still fails */
	bool print_summary;    /* per-mapping summary on stderr unless sym->quiet */
	bool name_errors;      /* symbolization errors prefixed with the input */
	const char *base;      /* --base / --diff-base: subtracted from the
				  merged profile (from each input with each) */
	bool keep_base;        /* the base's samples stay, labelled pprof::base */
	/* perf report's --pid/--tid/--comm/--cpu/--time, applied to every input
	 * as it is read (NULL: none) */
	const sp_profile_selection *select;
	/* Called once per input with each, else once with the merged profile. */
	sp_error *(*output)(void *ctx, const sp_pipeline_output *out);
	/* With each, when set: called after every input that was handed to
	 * output (ERR NULL) or failed (ERR, borrowed; not printed). */
	void (*input_done)(void *ctx, int input, const sp_error *err);
	/* With each, when set: the input to convert after input I (-1 at the
	 * start), or -1 to stop; NULL: every input, in order.  It may fork: a
	 * child goes on with the session as it is (opened objects, filled
	 * caches), shared copy-on-write (convert --each -j). */
	int (*next)(void *ctx, int i);
	void *ctx;
} sp_pipeline;

/* Runs PL over the N INPUTS; prints the first error that stops it (every
 * error with keep_going) as sp_cli_fail does.  Returns 0, or 1 after an
 * error. */
int sp_pipeline_run(const sp_pipeline *pl, char **inputs, int n);

/* -- symbolize_text.c: addr2line's and llvm-symbolizer's text of frames ----------- */

typedef struct {
	bool llvm;            /* llvm-symbolizer's text, else addr2line's */
	bool functions;       /* -f (always with llvm) */
	bool inlines;         /* -i: every frame, else the innermost alone */
	bool pretty;          /* -p */
	bool basenames;       /* -s */
	bool symbols;         /* -S: the symbol holding the address, SYMBOL+0xOFF */
	bool symbol_sections; /* -x: and its section */
} sp_text_form;

/* Appends to B the answer to the address VADDR: its frames FR[0..n),
 * innermost first (none: nothing is known), and with -S the symbol SYM
 * holding it (may be NULL), in form T (see symbolize_text.c). */
void sp_text_frames(const sp_text_form *t, const sp_frame *fr, size_t n, const sp_symbol *sym,
		    uint64_t vaddr, sp_buf *b);

#endif
