/* pipeline.h — the library's top: a run over input profiles, and what it
 * hands back.
 *
 *   load (read, --maps, check; perf.data rounds unwound and checked as they
 *     are read: load.c) → symbolize (one session for the whole run) →
 *     merge → diff → output (write.c), sequenced by pipeline.c
 *   each.c        `--each -j N`: the run over many inputs in worker processes
 *   frames_text.c the text forms of an address's frames (GNU addr2line's,
 *                 LLVM's, JSON) for symbolize/batch.c
 *   info.c        what `info` says of a profile, as text
 *
 * Everything here takes options as zero-initialised structs that begin with
 * their size, and gives results back as data: profiles, per-mapping reports
 * (sp_symbolize_report) and notes (sp_notes).  Nothing here prints, exits,
 * parses argv or knows a command's option types: convert/ turns flags into
 * these calls and results into stderr lines and exit statuses; symprof.h
 * (api*.c) is the stable face other programs link against.  The fork of
 * each.c's workers is the one exception to "no process-wide effects": a
 * worker is a process of the pool's, and ends with _exit.
 */
#ifndef SYMPROF_PIPELINE_H
#define SYMPROF_PIPELINE_H

#include "formats/formats.h"
#include "report/report.h"
#include "symbolize/symbolize.h"

/* -- notes ------------------------------------------------------------------------
 * What a run learned of an input besides its profile and its per-mapping
 * report, for the caller to show or not: how perf.data's stack copies
 * unwound, how a --kallsyms copy compares with the recording, why sample
 * times could not choose JIT code.  A WARNING note is one the command
 * prints even when not asked (on stderr); an INFO note is for `info`. */

typedef enum {
	SP_NOTE_INFO = 0,
	SP_NOTE_WARNING,
} sp_note_level;

typedef struct {
	sp_note_level level;
	const char *topic; /* static: "unwound", "kallsyms", "jitdump" */
	char *text;        /* one line, no newline */
	char **details;    /* lines that belong under it, in order */
	size_t n_details, cap_details;
} sp_note;

/* Zero-initialise; sp_notes_clear frees. */
typedef struct {
	sp_note *v;
	size_t n, cap;
} sp_notes;

/* Adds a note; consumes TEXT.  Returns it (borrowed until the next add or
 * the clear), for sp_note_add_detail. */
sp_note *sp_notes_add(sp_notes *ns, sp_note_level level, const char *topic, char *text);
/* Adds a line under N; consumes LINE. */
void sp_note_add_detail(sp_note *n, char *line);
/* Moves every note of FROM to the end of TO; FROM is left empty. */
void sp_notes_move(sp_notes *to, sp_notes *from);
void sp_notes_clear(sp_notes *ns);

/* -- loading (load.c) ------------------------------------------------------------- */

/* How inputs are read.  Zero-initialise, set size = sizeof; pointers are
 * borrowed for the call. */
typedef struct {
	size_t size;
	const char *maps_file; /* memory map for raw address stacks (--maps), or NULL */
	int jobs;              /* threads reading one input (sp_read_options) and
				  symbolizing it (sp_symbolize_profile_jobs) may use */
	bool sample_times;     /* perf.data: every sample keeps its time (the viewers'
				  timelines; sp_capture.sample_times) */
} sp_load_options;

/* An input to load: a file (PATH, "-" for standard input), or bytes in
 * memory (DATA, LEN bytes, named NAME in errors) when DATA is set. */
typedef struct {
	const char *path;
	const uint8_t *data;
	size_t len;
	const char *name;
} sp_load_input;

/* The size of IN in bytes: LEN, or a regular file's size (0 when not known:
 * standard input, a pipe, a file that cannot be stat'ed). */
uint64_t sp_load_input_bytes(const sp_load_input *in);

/* Reads input IN into *OUT: detects its format (*FMT), attaches --maps,
 * checks the profile.  A perf.data's samples with stack copies are unwound
 * round by round through US (the session that finds files for the
 * unwinder); with S (NULL: names are not wanted) JIT code from jitdump
 * files is chosen by sample time when the clocks allow, and S learns the
 * recording's kernel release.  NOTES (may be NULL) gets what was learned:
 * the unwinding ("unwound"), the --kallsyms copy against the recording
 * ("kallsyms", a WARNING when they differ), the jitdump clocks ("jitdump",
 * a WARNING when addresses held several codes).  Prints nothing. */
sp_error *sp_load(const sp_load_options *o, const sp_load_input *in, sp_symbolizer *s,
		  sp_symbolizer *us, sp_profile **out, sp_input_format *fmt, sp_notes *notes);

/* -- writing (write.c) ------------------------------------------------------------ */

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

/* The format called NAME ("pprof", "folded", "raw", ...), SP_OUT_NONE when
 * none is. */
sp_out_format sp_out_format_by_name(const char *name);
/* The format PATH's extension names (".pb.gz", ".folded", ...), or NONE. */
sp_out_format sp_out_format_by_path(const char *path);
/* F's name, and the extension of its files ("--each" outputs). */
const char *sp_out_format_name(sp_out_format f);
const char *sp_out_format_ext(sp_out_format f);
/* The format names in order ("pprof", ...), *N of them; static. */
const char *const *sp_out_format_names(size_t *n);
/* F as written to PATH: otlp takes its encoding from PATH's extension
 * (.gz: gzip-compressed protobuf, .json: OTLP/JSON), as the path alone
 * names them. */
sp_out_format sp_out_format_encoding(sp_out_format f, const char *path);
/* Whether F is a binary format (pprof, pdf, png, otlp protobuf). */
bool sp_out_format_binary(sp_out_format f);

/* How a profile is written.  Zero-initialise, set size = sizeof, and
 * initialise report with sp_report_options_init. */
typedef struct {
	size_t size;
	sp_out_format format;
	const char *sample_index; /* value column by name or number; NULL: the default */
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
	bool addresses;           /* unresolved frames per address, not per mapping */
	bool no_symbolize;        /* names are addresses (per address too) */
	/* the profile's input format (sp_pipeline_output's): with
	 * report.flat_to DEFAULT, perf.data's flat goes to the symbol, as
	 * perf report's Self, any other's to the innermost frame */
	sp_input_format input_format;
} sp_output_options;

/* A perf.data of several events written without a sample index: which
 * event O's output shows and which others there are (caller frees; NULL
 * for one event, an index given, or formats that keep every column). */
char *sp_pipeline_events_note(const sp_output_options *o, sp_profile *p);

/* Writes P (report formats may prune its frames, filters drop samples) in
 * O's format to SINK (borrowed; not finished); NAME (the input) names the
 * profile in the viewers' files.  Errors name nothing: the caller prefixes
 * the input. */
sp_error *sp_pipeline_write_sink(const sp_output_options *o, sp_profile *p, const char *name,
				 sp_sink *sink);
/* Writes P to PATH (through a temporary file renamed into place) or to
 * standard output when PATH is NULL or "-"; NAME (the input) names P in
 * errors. */
sp_error *sp_pipeline_write(const sp_output_options *o, sp_profile *p, const char *name,
			    const char *path);
/* The share of P's frames that resolved (have a line), each frame weighted
 * by its sample's value in column COL (absolute), in percent; 100 without
 * frames. */
double sp_profile_resolved_percent(const sp_profile *p, size_t col);

/* Whether the filters compile: the regular expression SRC of filter WHAT
 * ("focus", "ignore"; may be NULL), the tag filters TAGFOCUS and TAGIGNORE
 * (may be NULL); the error says what is wrong, before any input is read. */
sp_error *sp_filters_check(const char *what, const char *src, const char *tagfocus,
			   const char *tagignore);
/* The flame graph's options given as text: flamegraph.pl's palette names
 * (java, hot, mem, io); --minwidth as pixels ("0.1") or a percentage of the
 * total ("0.5%") into FO; whether S is a colour that can sit as it is in an
 * attribute and a script (a name, #RGB, #RRGGBB, rgb(R,G,B)).  False when
 * S is none of these. */
bool sp_flame_colors_by_name(const char *name, sp_flame_colors *out);
bool sp_flame_minwidth_parse(const char *s, sp_flame_options *fo);
bool sp_flame_color_ok(const char *s);

/* Where `--each -o DIR` writes input INPUT ("-": "stdin") in format F:
 * DIR/BASENAME.EXT (caller frees). */
char *sp_each_output_path(const char *dir, const char *input, sp_out_format f);
/* -1 when the N inputs' output paths differ, else the index of an input
 * whose path an earlier one has (*FIRST gets that one). */
int sp_each_outputs_clash(const char *dir, char *const *inputs, int n, sp_out_format f,
			  int *first);
/* Makes DIR when it does not exist; SP_E_USAGE when it is not a directory,
 * SP_E_IO when it cannot be made. */
sp_error *sp_each_dir(const char *dir);

/* `jit dump`: the objects registered through the GDB JIT interface in the
 * live process PID, or (PID 0) in the core file CORE of executable EXE,
 * written into DIR (made when missing; removed again when nothing could be
 * written) as jit-N.elf + jit-N.meta.  *N_OBJECTS gets how many, and
 * *DESCRIPTOR the run-time address of __jit_debug_descriptor. */
sp_error *sp_jit_dump_dir(int pid, const char *core, const char *exe, const char *dir,
			  size_t *n_objects, uint64_t *descriptor);

/* -- the run (pipeline.c) --------------------------------------------------------- */

/* What the run hands to its output. */
typedef struct {
	sp_profile *profile;               /* borrowed for the call; may be changed */
	const char *name;                  /* the input's name, or "merged profile" */
	int input;                         /* index of the input, -1 when merged */
	sp_input_format format;            /* the input's format (merged: the inputs'
					      when all are of one, else UNKNOWN) */
	const sp_symbolize_report *report; /* NULL when not symbolized, or merged */
	const sp_notes *notes;             /* what loading learned (never NULL; empty
					      when merged from several) */
	sp_symbolizer *session;            /* the run's session (borrowed for the call):
					      the files the profile was symbolized with */
} sp_pipeline_output;

/* A run.  Zero-initialise, set size = sizeof; pointers are borrowed for the
 * run. */
typedef struct {
	size_t size;
	sp_load_options load;
	/* The session that finds and names; NULL: the run makes one from sym
	 * and frees it at its end.  A session given here keeps what it learned
	 * (opened files, caches) for the next run. */
	sp_symbolizer *session;
	sp_symbolize_options sym; /* without a session */
	bool no_symbolize;        /* addresses stay as they are */
	bool each;                /* each input on its own, else all merged into one */
	bool keep_going;          /* with each: after a failed input (handed to
				     input_done) go on with the next */
	bool name_errors;         /* symbolization errors prefixed with the input */
	const char *base;         /* subtracted from the merged profile (from each
				     input with each); NULL: none */
	bool keep_base;           /* the base's samples stay, labelled pprof::base */
	/* Each input I (not the base) once read, with its notes.  May be NULL. */
	void (*loaded)(void *ctx, int input, const char *name, const sp_notes *notes);
	/* Each input I, and the base (I = -1), once symbolized.  May be NULL. */
	void (*symbolized)(void *ctx, int input, const char *name, const sp_symbolize_report *r);
	/* Called once per input with each, else once with the merged profile. */
	sp_error *(*output)(void *ctx, const sp_pipeline_output *out);
	/* With each: called after every input that was handed to output (ERR
	 * NULL) or failed (ERR, borrowed).  May be NULL. */
	void (*input_done)(void *ctx, int input, const sp_error *err);
	/* With each, when set: the input to convert after input I (-1 at the
	 * start), or -1 to stop; NULL: every input, in order.  It may fork
	 * (each.c): a child goes on with the session as it is (opened
	 * objects, filled caches), shared copy-on-write. */
	int (*next)(void *ctx, int i);
	void *ctx;
	/* perf report's --pid/--tid/--comm/--cpu/--time, applied to every input
	 * as it is read; NULL: none */
	const sp_profile_selection *select;
} sp_pipeline;

/* Runs PL over INPUTS[0..n).  Returns NULL, or the error that stopped the
 * run (the base's, a merge's or its output's; with each and keep_going an
 * input's error goes to input_done instead, without input_done it stops
 * the run).  *FAILED (may be NULL) gets the number of inputs that failed
 * without stopping it. */
sp_error *sp_pipeline_run(const sp_pipeline *pl, const sp_load_input *inputs, int n,
			  int *failed);
/* How input PATH is named in messages ("-" is standard input). */
const char *sp_input_name(const char *path);

/* -- many inputs in worker processes (each.c) ------------------------------------ */

/* How `--each` spreads inputs over processes.  Zero-initialise, set size. */
typedef struct {
	size_t size;
	int jobs;    /* workers; 0: the CPUs this process may use, started only when
			the inputs left are worth it */
	/* In the calling process, in the inputs' order: input I converted (ERR
	 * NULL) or failed (ERR, borrowed; a worker's error keeps its code and
	 * message); FLAGS is what flags() said of it. */
	void (*done)(void *ctx, int input, const sp_error *err, unsigned flags);
	/* In the process that converted input I, right after it: small facts of
	 * the caller's own about it (e.g. that too little resolved), handed to
	 * done().  May be NULL (0). */
	unsigned (*flags)(void *ctx, int input);
	/* In the calling process, when workers could not be started (TEXT says
	 * why; the run goes on there).  May be NULL. */
	void (*warning)(void *ctx, const char *text);
	void *ctx;
} sp_each_options;

/* Runs PL (each, keep_going; its input_done and next are the pool's) over
 * INPUTS[0..n): the calling process converts inputs in order until one has
 * converted (its session is then warm), then forks up to JOBS workers that
 * inherit the session copy-on-write (when the first input is of 4 MiB or
 * more, forks them before it, each warming its own session: the work is
 * shared from the start), and they take the next untaken input each
 * from a shared counter; every input's result comes back to done() in the
 * inputs' order, an input whose worker stopped (a signal) as failed.
 * Workers end with _exit; stdio is flushed before the fork.  Returns the
 * error that stopped the run before any input (the base's), else NULL;
 * *FAILED (may be NULL) gets the inputs that failed, and the workers that
 * ended otherwise than with status 0. */
sp_error *sp_each_run(const sp_pipeline *pl, const sp_each_options *eo, const sp_load_input *inputs,
		      int n, int *failed);

/* -- the text of frames (frames_text.c) ------------------------------------------- */

/* The forms of `symbolize` output. */
typedef enum {
	SP_TEXT_GNU = 0, /* addr2line's: a function line, then FILE:LINE */
	SP_TEXT_LLVM,    /* llvm-symbolizer's: FILE:LINE:COLUMN, a blank line after each */
	SP_TEXT_JSON,    /* llvm-symbolizer's JSON: an object per input line */
	SP_TEXT_SYMPROF_JSON, /* symprof's --json: {"address":..,"frames":[...]} */
} sp_text_style;

/* How answers are written.  Zero-initialise, set size. */
typedef struct {
	size_t size;
	sp_text_style style;
	bool print_addr;     /* -a: each address before its frames */
	bool functions;      /* GNU -f: a function line before each FILE:LINE */
	bool inlines;        /* -i: every frame of the inline chain, else the
				innermost alone (LLVM, JSON: the function the
				code is in, at the innermost row's line) */
	bool pretty;         /* -p: a frame per line, callers " (inlined by) " */
	bool basenames;      /* -s: file names without their directories */
	bool symbols;        /* GNU -S: the symbol holding the address,
				SYMBOL+0xOFF (the batch's symbols option too) */
	bool symbol_sections; /* GNU -x: -S and the symbol's section */
	bool section_offsets; /* GNU -a prints the address as given, not as
				 the file's (--section: an offset in it) */
	int addr_digits;     /* GNU -a: 8 (ELFCLASS32) or 16 digits; 0: 16 */
	bool json_array;     /* JSON on arguments: one array of the objects */
	const char *module;  /* JSON: the ModuleName ("" when NULL) */
} sp_text_options;

/* The formatting callbacks of symbolize/batch.c for O's form (copied).
 * Free with sp_frames_text_free after the batch. */
typedef struct sp_frames_text sp_frames_text;
sp_frames_text *sp_frames_text_new(const sp_text_options *o);
void sp_frames_text_free(sp_frames_text *t);
/* Fills F with T's callbacks (T borrowed until the batch is freed). */
void sp_frames_text_format(sp_frames_text *t, sp_batch_format *f);
/* Appends the answer to the address VADDR (symbol-file address), its
 * frames FR[0..n) (none: unknown) and with -S the symbol SYM holding it
 * (may be NULL), in T's form, to B. */
void sp_frames_text_append(const sp_frames_text *t, const sp_frame *fr, size_t n,
			   const sp_symbol *sym, uint64_t vaddr, sp_buf *b);
/* What ends the output (JSON arrays: "]\n"), or "". */
const char *sp_frames_text_end(const sp_frames_text *t);

/* -- `info` (info.c) --------------------------------------------------------------- */

/* What `symprof info` says of OUT (an output of an each run): format,
 * sample types, totals, every mapping with its share of the samples and
 * how it symbolized, then the notes; appended to B. */
void sp_info_text(const sp_pipeline_output *out, sp_buf *b);

#endif
