/* formats.h — format detection, one reader and one writer per format.
 *
 * Readers are pure: bytes in, sp_profile out.  Each answers in one of three
 * ways:
 *   - NULL and *out set: the input was this format and parsed;
 *   - an error whose root code is SP_E_UNRECOGNIZED: "not mine" (the caller
 *     tries the next reader);
 *   - any other error: "mine but broken", naming NAME, the line or byte
 *     offset, and what was expected.
 * Readers never symbolize and never touch the file system.  Every count
 * read from input is checked against the bytes left before allocating.
 *
 * Writers write to an sp_sink and never open files.
 */
#ifndef SYMPROF_FORMATS_H
#define SYMPROF_FORMATS_H

#include "profile/capture.h"
#include "profile/profile.h"

#include <stdio.h>

typedef enum {
	SP_FMT_UNKNOWN = 0,
	SP_FMT_PPROF,      /* profile.proto, gzip or not */
	SP_FMT_HEAP,       /* gperftools heap / growth / fragmentation text */
	SP_FMT_CPU,        /* gperftools CPU profile (binary) */
	SP_FMT_CONTENTION, /* --- contentionz / mutex / contention */
	SP_FMT_THREAD,     /* --- threadz */
	SP_FMT_GOCOUNT,    /* goroutine / threadcreate count profiles */
	SP_FMT_RAW,        /* symprof raw address stacks */
	SP_FMT_FOLDED,     /* folded stacks "a;b;c 12" */
	SP_FMT_JEMALLOC,   /* jemalloc heap_v2 dump (prof.dump, prof_final, ...) */
	SP_FMT_PERF,       /* perf.data (perf record), file or pipe mode */
} sp_input_format;

const char *sp_input_format_name(sp_input_format f);

typedef sp_error *(*sp_reader_fn)(const char *name, const uint8_t *data, size_t len,
				  sp_profile **out);

/* Detects and parses: gunzip when the gzip magic is present, then the
 * protobuf reader, then the legacy readers in pprof's order.  Runs
 * sp_profile_check on the result.  *FMT (may be NULL) gets the format. */
sp_error *sp_read_profile(const char *name, const uint8_t *data, size_t len, sp_profile **out,
			  sp_input_format *fmt);
sp_error *sp_read_profile_file(const char *path, sp_profile **out, sp_input_format *fmt);
/* How one input is read.  Zero-initialise; NULL means the defaults. */
typedef struct {
	/* Threads the reading of one input may use, the caller's included (0
	 * or 1: the caller's alone).  A heap profile file uses two: one turns
	 * its lines into records, the caller's makes the profile of them.  The
	 * profile, and every error, is the same whatever the number. */
	int jobs;
} sp_read_options;

/* The same; a perf.data's samples go through PREPARE (see
 * sp_perf_read_file_with); RO may be NULL. */
sp_error *sp_read_profile_file_with(const char *path, sp_profile **out, sp_input_format *fmt,
				    sp_error *(*prepare)(sp_capture *c, void *arg), void *arg,
				    const sp_read_options *ro);

/* Individual readers (see each .c file for an example of its input). */
sp_error *sp_pprof_read(const char *name, const uint8_t *data, size_t len, sp_profile **out);
sp_error *sp_heap_read(const char *name, const uint8_t *data, size_t len, sp_profile **out);
sp_error *sp_cpu_read(const char *name, const uint8_t *data, size_t len, sp_profile **out);
sp_error *sp_contention_read(const char *name, const uint8_t *data, size_t len,
			     sp_profile **out);
sp_error *sp_thread_read(const char *name, const uint8_t *data, size_t len, sp_profile **out);
sp_error *sp_gocount_read(const char *name, const uint8_t *data, size_t len, sp_profile **out);
sp_error *sp_raw_read(const char *name, const uint8_t *data, size_t len, sp_profile **out);
sp_error *sp_folded_read(const char *name, const uint8_t *data, size_t len, sp_profile **out);
/* The heap and raw readers also read a file a piece at a time from F
 * (borrowed; from its current position), so that its size does not count
 * in memory: what they make of it does (the raw reader sums identical
 * stacks as it reads them; a heap profile's records stay samples of their
 * own, as pprof keeps them).  A read error is an SP_E_IO error naming
 * NAME. */
sp_error *sp_heap_read_file(const char *name, FILE *f, sp_profile **out);
/* sp_heap_read_file with RO's threads (NULL: one). */
sp_error *sp_heap_read_file_with(const char *name, FILE *f, const sp_read_options *ro,
				 sp_profile **out);
sp_error *sp_raw_read_file(const char *name, FILE *f, sp_profile **out);
sp_error *sp_jemalloc_read(const char *name, const uint8_t *data, size_t len, sp_profile **out);
sp_error *sp_perf_read(const char *name, const uint8_t *data, size_t len, sp_profile **out);

/* -- perf.data (formats/perf.c) ---------------------------------------------- */

/* True when DATA starts with perf.data's magic, in either byte order. */
bool sp_perf_is_perf_data(const uint8_t *data, size_t len);
/* sp_perf_read from a stream F (not closed): a regular file is mapped (its
 * pages dropped as rounds are done; read with seeks when it cannot be), a
 * pipe read in one pass; only one record at a time is held in memory.
 * HEAD (may be NULL) holds the N_HEAD bytes already read from F, which is
 * positioned after them (the magic, read to detect the format: a pipe
 * cannot go back); without HEAD, F is at the start.  PATH names F in
 * errors. */
sp_error *sp_perf_read_file(const char *path, FILE *f, const uint8_t *head, size_t n_head,
			    sp_profile **out);

/* Called at every FINISHED_ROUND and at the end with the capture holding
 * the samples read since the last call; it may consume them
 * (sp_capture_clear_samples).  A returned error stops the reading. */
typedef sp_error *(*sp_perf_round_fn)(sp_capture *c, void *arg);
/* Reads perf.data into a capture (caller frees with sp_capture_free):
 * events, processes and maps, thread names, build ids, the header's host
 * facts, and the samples ON_ROUND (may be NULL) left in it. */
sp_error *sp_perf_read_capture(const char *name, const uint8_t *data, size_t len,
			       sp_perf_round_fn on_round, void *arg, sp_capture **out);
sp_error *sp_perf_read_capture_file(const char *path, FILE *f, const uint8_t *head,
				    size_t n_head, sp_perf_round_fn on_round, void *arg,
				    sp_capture **out);
/* sp_perf_read_file where PREPARE (may be NULL) sees each round's samples
 * before they become the profile's: an unwinder replaces their callchains
 * (sp_capture_set_chain). */
sp_error *sp_perf_read_file_with(const char *path, FILE *f, const uint8_t *head, size_t n_head,
				 sp_perf_round_fn prepare, void *arg, sp_profile **out);

/* -- writers ---------------------------------------------------------------- */

/* Serializes P as profile.proto; gzip-compressed when GZIP. */
sp_error *sp_pprof_write(const sp_profile *p, bool gzip, sp_sink *out);

typedef struct {
	size_t sample_index; /* column to print; see sp_profile_sample_index */
	bool annotate;       /* append _[k] / _[j] / _[i] to kernel, JIT, inlined frames */
	bool two_sides;      /* "stack before after" (difffolded's form) */
	int jobs;            /* > 1: a large profile's samples are matched to their
				stacks on two threads (the same output) */
} sp_folded_options;

/* Folded stacks: root first, ';'-joined, inline frames expanded, one line
 * per distinct stack, sorted, summed (signed: a difference prints
 * negative values); zero-valued stacks omitted.  With two_sides, the
 * profile is a difference whose base samples are labelled (sp_profile_diff
 * with keep_base): each line is "stack before after", before the base's
 * value (its samples negated back), after the rest; stacks whose two sides
 * are both zero are omitted. */
sp_error *sp_folded_write(const sp_profile *p, const sp_folded_options *opts, sp_sink *out);
/* The annotation of line LINE_IDX of L (index 0 the innermost; any index
 * for a location without lines), as flamegraph.pl's collapse scripts mark
 * frames: 'i' for every inlined frame (all but the outermost), else 'k' for
 * kernel code, 'j' for JIT code (sp_code_kind_of), else 0.  The folded
 * output and the flame graph both use it. */
char sp_folded_annotation(const sp_profile *p, const sp_location *l, size_t line_idx);

/* -- reports (graphs, top, flame graph) ------------------------------------ */

typedef enum {
	SP_GRAN_FUNCTIONS = 0,
	SP_GRAN_LINES,
	SP_GRAN_FILES,
} sp_granularity;

/* Flame graph palettes, as flamegraph.pl's --colors names them. */
typedef enum {
	SP_FLAME_JAVA = 0, /* by kind: inline aqua, JIT green, kernel orange,
			      unresolved grey, other frames warm */
	SP_FLAME_HOT,      /* every frame warm (red to yellow) */
	SP_FLAME_MEM,      /* every frame green to blue */
	SP_FLAME_IO,       /* every frame blue */
} sp_flame_colors;

/* How --minwidth is meant. */
typedef enum {
	SP_MINWIDTH_DEFAULT = 0, /* frames under 0.1% of the total are left out */
	SP_MINWIDTH_PX,          /* frames narrower than minwidth pixels */
	SP_MINWIDTH_PERCENT,     /* frames under minwidth percent of the total */
} sp_minwidth_kind;

/* The flame graph's options, named after flamegraph.pl's; zero means the
 * default of each. */
typedef struct {
	const char *subtitle;     /* NULL => none */
	int width;                /* image width in px; 0 => 1200 */
	int frame_height;         /* frame height in px; 0 => 16 */
	double minwidth;          /* see minwidth_kind */
	sp_minwidth_kind minwidth_kind;
	sp_flame_colors colors;
	bool reverse;             /* stacks leaf first: frames merged by leaf */
	bool inverted;            /* icicle graph: the root at the top */
	const char *countname;    /* word after values; NULL => from the unit */
	const char *search_color; /* CSS colour; NULL => rgb(230,0,230) */
} sp_flame_options;

typedef struct {
	size_t sample_index;
	const char *focus;  /* regex or NULL */
	const char *ignore; /* regex or NULL */
	const char *tagfocus;  /* [KEY=]RANGE|REGEX,... or NULL (sp_sample_filter_tags) */
	const char *tagignore; /* likewise */
	sp_granularity granularity;
	int nodecount;        /* 0 => default 80 (top: all, like pprof -top); < 0 => all */
	double nodefraction;  /* < 0 => default 0.005 */
	double edgefraction;  /* < 0 => default 0.001 */
	const char *unit;     /* NULL => as recorded */
	const char *title;    /* NULL => derived */
	sp_flame_options flame; /* the flame graph's own; zero => defaults */
} sp_report_options;

/* Default-initialised report options (nodefraction etc. set to defaults). */
void sp_report_options_init(sp_report_options *o);
/* The sample filter of O's focus, ignore, tagfocus and tagignore over P
 * (sp_sample_filter_new, then sp_sample_filter_tags); errors as theirs. */
sp_error *sp_report_filter_new(const sp_profile *p, const sp_report_options *o,
			       sp_sample_filter **out);

sp_error *sp_top_write(const sp_profile *p, const sp_report_options *o, sp_sink *out);
sp_error *sp_dot_write(const sp_profile *p, const sp_report_options *o, sp_sink *out);
/* Renders the call graph through graphviz: FORMAT is "pdf", "svg" or "png". */
sp_error *sp_graph_render(const sp_profile *p, const sp_report_options *o, const char *format,
			  sp_sink *out);
/* -- viewer formats (speedscope.c, firefox.c) --------------------------------
 * Files other profilers' viewers open: stacks root first with every inline
 * frame (names as the folded output gives them), one profile or thread per
 * process and thread (the samples' pid/tid labels, when there are any),
 * each sample at its time when it carries one (the SP_TIME_LABEL label:
 * perf.data read for these formats), else the samples in the profile's
 * order, each weighted by its value. */
#define SP_TIME_LABEL "end_timestamp_ns" /* nanoseconds; also Datadog's pprof label */
typedef struct {
	size_t sample_index; /* the value column */
	const char *name;    /* the input, named in the file (NULL: "profile") */
} sp_viewer_options;
/* speedscope's file format (https://www.speedscope.app/file-format-schema.json):
 * one "sampled" profile per thread (or one for the whole profile). */
sp_error *sp_speedscope_write(const sp_profile *p, const sp_viewer_options *o, sp_sink *out);
/* The Firefox Profiler's processed profile format (meta.preprocessedProfileVersion
 * in firefox.c): one thread per thread of the input, presymbolized. */
sp_error *sp_firefox_write(const sp_profile *p, const sp_viewer_options *o, sp_sink *out);

/* The interactive flame graph; differential (colours by change, before and
 * after in the tooltips, a legend) when P has base samples
 * (sp_profile_has_base). */
sp_error *sp_flamegraph_write(const sp_profile *p, const sp_report_options *o, sp_sink *out);

#endif
