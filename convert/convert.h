/* convert.h — the symprof command: subcommands and the option handling
 * they share.  The commands turn flags into calls of the library's top
 * (pipeline/pipeline.h) and its results into stderr lines and exit
 * statuses; no engine lives here. */
#ifndef SYMPROF_CONVERT_H
#define SYMPROF_CONVERT_H

#include "pipeline/pipeline.h"

#include <getopt.h>
#include <stdio.h>

int cmd_convert(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_symbolize(int argc, char **argv);
int cmd_jit(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_index(int argc, char **argv);

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
 * from; `symbolize` takes only those, the other commands all of them;
 * `index` only SP_CLI_FILE_OPTIONS, where files and debug info are found. */
#define SP_CLI_FILE_OPTIONS                                             \
	{"binary-path", required_argument, NULL, 1000},                 \
	{"debug-dir", required_argument, NULL, 1001},                   \
	{"sysroot", required_argument, NULL, 1002},                     \
	{"path-map", required_argument, NULL, 1003},                    \
	{"no-debuginfod", no_argument, NULL, 1004},                     \
	{"no-default-debug-dir", no_argument, NULL, 1017}

#define SP_CLI_FIND_OPTIONS                                             \
	SP_CLI_FILE_OPTIONS,                                            \
	{"jit-dir", required_argument, NULL, 1005},                     \
	{"perf-map", required_argument, NULL, 1006},                    \
	{"jitdump", required_argument, NULL, 1014},                     \
	{"kallsyms", required_argument, NULL, 1007},                    \
	{"index-dir", required_argument, NULL, 1016}

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

#define SP_CLI_FILE_HELP                                                                 \
	"  --binary-path DIR     search DIR for binaries (repeatable; also $PPROF_BINARY_PATH)\n" \
	"  --debug-dir DIR       separate debug info root, or a perf build-id cache or\n"   \
	"                        unpacked perf archive (repeatable; before /usr/lib/debug)\n" \
	"  --no-default-debug-dir  not /usr/lib/debug\n"                               \
	"  --sysroot DIR         prefix every recorded path with DIR\n"                  \
	"  --path-map OLD=NEW    rewrite a recorded path prefix (repeatable)\n"          \
	"  --no-debuginfod       do not query DEBUGINFOD_URLS servers\n"

#define SP_CLI_FIND_HELP                                                                 \
	SP_CLI_FILE_HELP                                                                 \
	"  --jit-dir DIR         NAME.elf + NAME.meta JIT objects (repeatable)\n"       \
	"  --perf-map FILE|DIR   /tmp/perf-PID.map names for JIT code (repeatable; a DIR\n" \
	"                        gives its perf-PID.map files)\n"                        \
	"  --jitdump FILE|DIR    jit-PID.dump names and lines for JIT code (repeatable;\n" \
	"                        a DIR gives its jit-PID.dump files)\n"                  \
	"  --kallsyms FILE       copy of /proc/kallsyms for kernel addresses\n"          \
	"  --index-dir DIR       symbol indexes by build id: answer from them without\n" \
	"                        reading DWARF, write the missing ones (symprof index)\n"

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

/* The run's options from C's: what to read and how to find and name. */
void sp_cli_pipeline(const sp_cli_sym *c, sp_pipeline *pl);
/* The inputs ARGV[0..n) as a run takes them (caller frees the array). */
sp_load_input *sp_cli_inputs(char **argv, int n);
/* A run's loaded callback: the WARNING notes of input NAME on stderr,
 * "symprof: warning: NAME: TEXT". */
void sp_cli_print_warnings(void *ctx, int input, const char *name, const sp_notes *notes);
/* A run's symbolized callback: sp_cli_print_summary on stderr. */
void sp_cli_summary(void *ctx, int input, const char *name, const sp_symbolize_report *r);
/* Prints "symprof CMD: warning: ..." when S could not write a symbol
 * index (--index-dir), unless QUIET. */
void sp_cli_index_warning(const char *cmd, const sp_symbolizer *s, bool quiet);
/* With --index-dir, the run's session made here (PL->session), so that
 * after the run sp_cli_index_done can say whether a symbol index could not
 * be written, then free it; else NULL, and the run makes its own. */
sp_symbolizer *sp_cli_index_session(const sp_cli_sym *c, sp_pipeline *pl);
void sp_cli_index_done(const sp_cli_sym *c, sp_symbolizer *s);
/* Prints one line per mapping that did not fully resolve. */
void sp_cli_print_summary(const char *name, const sp_symbolize_report *r, FILE *f);
/* Prints the session's new notes on stderr ("symprof: note: ..."), or
 * only drops them when QUIET. */
void sp_cli_print_notes(sp_symbolizer *s, bool quiet);
/* Prints a usage error as one line "symprof CMD: <message>" and a pointer
 * to --help (CMD NULL: "symprof: ..."); returns 2 (the exit status of
 * usage errors). */
int sp_cli_usage(const char *cmd, const char *fmt, ...) SP_PRINTF(2, 3);
/* For getopt_long run with opterr = 0 and an option string beginning with
 * ':': reports what its result C ('?' or ':') means, as sp_cli_usage. */
int sp_cli_bad_option(const char *cmd, int c, char **argv);
/* A number S (strtod's, nothing after it) into *OUT; false when S is none. */
bool sp_cli_parse_double(const char *s, double *out);
/* An integer S in [MIN, MAX] for option NAME of command CMD; false after a
 * usage error. */
bool sp_cli_parse_int(const char *cmd, const char *name, const char *s, int min, int max,
		      int *out);
/* convert_help.c: `symprof convert --help` on F. */
void sp_convert_usage(FILE *f);

/* -- perf_options.c: convert's options for perf users ------------------------------ */

typedef struct {
	bool addresses;              /* --addresses: an unresolved frame per address */
	sp_profile_selection select; /* --pid --tid --comm --cpu --time */
	double percent_limit;        /* --percent-limit; 0: not given */
} sp_cli_perf;

#define SP_CLI_PERF_OPTIONS                                             \
	{"addresses", no_argument, NULL, 2200},                         \
	{"pid", required_argument, NULL, 2201},                         \
	{"tid", required_argument, NULL, 2202},                         \
	{"comm", required_argument, NULL, 2203},                        \
	{"cpu", required_argument, NULL, 2204},                         \
	{"time", required_argument, NULL, 2205},                        \
	{"percent-limit", required_argument, NULL, 2206}

#define SP_CLI_ADDRESSES_HELP                                                            \
	"  --addresses           a frame per unresolved address (lib.so+0x1a2b), not one\n" \
	"                        per mapping ([lib.so]); pprof and OTLP keep addresses\n"

#define SP_CLI_PERF_HELP                                                                 \
	"  --pid L, --tid L, --comm L, --cpu L  perf report's: samples of the listed\n"    \
	"                        pids, tids, command names, CPUs (0-3,6) only\n"          \
	"  --time T              perf report's: START,STOP in seconds (perf script's\n"   \
	"                        times; either may be empty), or slices: 10%%/2 (the\n"   \
	"                        second tenth), 0%%-25%%,75%%-100%%\n"                    \
	"  --percent-limit P     top, graphs: leave out nodes under P%% (--nodefraction);\n" \
	"                        flamegraph: frames under P%% (--minwidth P%%)\n"

/* The first lines of `convert --help`: the perf recipes. */
#define SP_CLI_PERF_RECIPES                                                              \
	"  perf record with call graphs (frame pointers, or dwarf: unwound here), then\n" \
	"  symprof convert perf.data > prog.folded        (--format top, -o x.flame.svg)\n" \
	"  symprof convert perf.data --sample-index page-faults   (one of several events)\n" \
	"  elsewhere: perf archive there, then --debug-dir UNPACKED, or --binary-path DIR,\n" \
	"  or DEBUGINFOD_URLS; kernel frames: --kallsyms COPY; JIT code: --jitdump DIR\n" \
	"  symprof convert prog.0001.heap -o prog.pb.gz   (heap, CPU, pprof, OTLP, ...)\n" \

/* A loaded input's notes: its warnings, and unless QUIET the hint that
 * frame-pointer chains were cut ("chains"); an output of one event of
 * several (sp_pipeline_events_note) says which, unless QUIET. */
void sp_cli_perf_notes(const char *name, const sp_notes *notes, bool quiet);
void sp_cli_events_note(const sp_output_options *w, const sp_pipeline_output *out, bool quiet);

/* Option C (2200..2206) with ARG into P: 0, or 2 after a usage error. */
int sp_cli_perf_option(sp_cli_perf *p, int c, const char *arg);
/* --percent-limit in format F's own terms, into R: 0, or 2 after a usage
 * error (a format it does not apply to). */
int sp_cli_percent_limit(const sp_cli_perf *p, sp_out_format f, sp_report_options *r);

/* Prints an error as "symprof: <message>" and frees it; returns 1. */
int sp_cli_fail(sp_error *err);

#endif
