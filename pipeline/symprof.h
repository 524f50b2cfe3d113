/* symprof.h — libsymprof: symprof's engine in-process.
 *
 * Symbolize addresses of ELF objects into frames with their inline chains
 * (DWARF, Go's pc-line table, symbol tables, JIT objects, perf maps,
 * jitdump files, kallsyms), and read, symbolize, merge and write profiles
 * (pprof, gperftools heap/CPU/contention, jemalloc, raw address stacks,
 * folded stacks, perf.data) as the `symprof` command does; everything the
 * command does is reachable here.  Build with
 *
 *     cc prog.c $(pkg-config --cflags --libs symprof)
 *
 * Conventions (the same words mean the same thing in every comment):
 *   - A function that can fail returns `symprof_error *`: NULL on success,
 *     else an error the caller owns (symprof_error_free).  Errors are data:
 *     a code and a message naming the file, the offset or line, and what
 *     was expected.  Nothing in the library prints, and nothing exits the
 *     process, with one exception inherited from the command: running out
 *     of memory, or past the memory budget (symprof_options.max_memory),
 *     prints one line on stderr, removes unfinished output files and ends
 *     the process with status 1.
 *   - X_new / X_free pairs; every X_free(NULL) is a no-op.
 *   - "borrowed until Y": the pointer stays valid until Y happens and is
 *     not freed by the caller; "consumes": ownership moves into the call.
 *     Pointers in options are borrowed for the call only.
 *   - Options are structs the caller zero-initialises, then sets `size` to
 *     sizeof the struct (0 also means this version's layout); a zero field
 *     means the default; reserved fields stay zero.  A NULL options pointer
 *     means every default.
 *   - Results are structs the library allocates and the caller only reads;
 *     later versions may add fields at their end.
 *   - Thread safety is said per function.  The process-wide state the
 *     library keeps is the memory budget (atomic) and, while an output file
 *     is written, the list of unfinished outputs with handlers of SIGINT,
 *     SIGTERM, SIGHUP and SIGABRT that remove them before the signal's
 *     default action (installed at the first output file).
 */
#ifndef SYMPROF_H
#define SYMPROF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SYMPROF_VERSION_MAJOR 0
#define SYMPROF_VERSION_MINOR 1

/* The library's version, "MAJOR.MINOR.PATCH" (static). */
const char *symprof_version(void);

/* -- errors ------------------------------------------------------------------------ */

typedef enum {
	SYMPROF_OK = 0,
	SYMPROF_E_IO,                /* a file could not be read or written */
	SYMPROF_E_UNRECOGNIZED,      /* not a format symprof reads */
	SYMPROF_E_MALFORMED,         /* a known format, broken where the message says */
	SYMPROF_E_INVALID_PROFILE,   /* a profile that breaks the model's rules */
	SYMPROF_E_USAGE,             /* bad options or arguments */
	SYMPROF_E_NOT_FOUND,         /* a file (object, debug info) not found */
	SYMPROF_E_BUILD_ID_MISMATCH, /* found, but with another build id */
	SYMPROF_E_UNSUPPORTED,
	SYMPROF_E_LIBELF,
	SYMPROF_E_LIBDW,
	SYMPROF_E_ZLIB,              /* compressed data (gzip, zstd, xz) */
	SYMPROF_E_GRAPHVIZ,
	SYMPROF_E_LIMIT,             /* past a size limit (the memory budget included) */
	SYMPROF_E_NOT_REGULAR,       /* a device, a FIFO, ... where a file was expected */
} symprof_errcode;

typedef struct symprof_error symprof_error;

/* The reason: the code of the innermost cause. */
symprof_errcode symprof_error_code(const symprof_error *e);
/* "context: inner context: message"; borrowed until symprof_error_free. */
const char *symprof_error_message(const symprof_error *e);
void symprof_error_free(symprof_error *e);

/* Frees what the library allocated for the caller with "caller frees with
 * symprof_free" (output bytes, texts).  symprof_free(NULL) is a no-op. */
void symprof_free(void *p);

/* -- sessions ---------------------------------------------------------------------- */

typedef enum {
	SYMPROF_DEMANGLE_SIMPLE = 0, /* no parameter lists, no template arguments (pprof's) */
	SYMPROF_DEMANGLE_TEMPLATES,  /* no parameter lists, template arguments kept */
	SYMPROF_DEMANGLE_FULL,       /* everything (symprof symbolize -C) */
	SYMPROF_DEMANGLE_NONE,       /* linkage names as they are */
} symprof_demangle;

typedef struct {
	const char *from, *to; /* a recorded path beginning with FROM is read under TO */
} symprof_path_map;

/* Where files and names come from, and how names are written.  The fields
 * are those of the command's options of the same names. */
typedef struct {
	size_t size;
	const char *const *binary_paths; /* --binary-path: dirs searched for binaries
					    (pprof's candidates); PPROF_BINARY_PATH is not
					    read here */
	size_t n_binary_paths;
	const char *const *debug_dirs;   /* --debug-dir; none: /usr/lib/debug */
	size_t n_debug_dirs;
	const char *sysroot;             /* --sysroot: prefix of recorded paths */
	const symprof_path_map *path_maps; /* --path-map, applied before the sysroot */
	size_t n_path_maps;
	const char *const *jit_dirs;     /* --jit-dir: NAME.elf + NAME.meta JIT objects */
	size_t n_jit_dirs;
	const char *const *perf_maps;    /* --perf-map: perf-PID.map files or dirs of them */
	size_t n_perf_maps;
	const char *const *jitdumps;     /* --jitdump: jit-PID.dump files or dirs of them */
	size_t n_jitdumps;
	const char *kallsyms;            /* --kallsyms: a copy of /proc/kallsyms */
	int no_debuginfod;               /* nonzero: never ask debuginfod servers; else
					    they are asked by build id when
					    DEBUGINFOD_URLS is set and not empty */
	int debuginfod_progress;         /* nonzero: a line on stderr while a server is
					    asked (the command's habit) */
	symprof_demangle demangle;
	int no_inline;                   /* nonzero: keep only the outermost frame */
	int force_mismatch;              /* nonzero: use a file whose segments do not
					    match its recorded mapping */
	int resymbolize;                 /* nonzero: name again frames that have names
					    already (an OTLP profiler's Go frames, a
					    symbolized pprof) */
	size_t max_memory;               /* the process's memory budget in bytes
					    (--max-memory; one per process, set by the
					    last session that gives one); 0: as it is
					    (none unless set before) */
	const char *index_dir;           /* --index-dir: symbol indexes by build id,
					    answered from and written (symprof-index(1)) */
	void *reserved[7];
} symprof_options;

/* A session: every cache (opened objects and their indexes, answers of the
 * search for files, failures included, name sources, the debuginfod
 * client) hangs off it and lives until symprof_session_free.  Reuse one
 * session for many calls: an object is opened and indexed once. */
typedef struct symprof_session symprof_session;

/* Opens a session with O (may be NULL; copied deeply) and loads its name
 * sources (JIT objects, perf maps, jitdump files, kallsyms): an error there
 * is returned and no session made.  Thread safety: any thread. */
symprof_error *symprof_session_new(const symprof_options *o, symprof_session **out);
/* Thread safety: no call on S may run at the same time. */
void symprof_session_free(symprof_session *s);

/* -- symbolizing addresses ----------------------------------------------------------- */

/* What the addresses of a call are. */
typedef enum {
	SYMPROF_ADDR_VADDR = 0,   /* ELF virtual addresses of the object, as addr2line
				     takes them (symprof symbolize -e FILE) */
	SYMPROF_ADDR_RUNTIME,     /* run-time addresses of a process, the object mapped
				     at [map_start, map_limit) from file offset
				     map_offset (what a profiler records) */
	SYMPROF_ADDR_FILE_OFFSET, /* offsets in the object's file */
	SYMPROF_ADDR_RELATIVE,    /* offsets from where the object's file offset 0 is
				     loaded (symprof symbolize --relative) */
} symprof_addr_kind;

/* The object a call's addresses belong to, and what kind they are. */
typedef struct {
	size_t size;
	const char *path;     /* the object as recorded: found as a mapping's file
				 (binary paths, path maps and sysroot, then PATH
				 itself); NULL: by build id, or (VADDR and RUNTIME
				 only) no file: the session's name sources alone */
	const char *build_id; /* hex: the object's build id; with PATH the file
				 found must have it; without, the object is found
				 by it (binary paths, debuginfod, then each debug
				 dir's .build-id tree) */
	symprof_addr_kind kind;
	uint64_t map_start, map_limit, map_offset; /* RUNTIME: the mapping */
	uint32_t pid;         /* RUNTIME: the process (perf maps and jitdump files
				 of one pid); 0: unknown */
	uint32_t reserved32;
	void *reserved[4];
} symprof_target;

/* One frame of an address, innermost first in a location's list. */
typedef struct {
	const char *function;     /* demangled per the session; NULL: unknown */
	const char *linkage_name; /* as in the object; NULL: unknown */
	const char *file;         /* NULL: unknown */
	int64_t line, column;     /* 0: unknown */
	int64_t start_line;       /* the function's declaration, 0: unknown */
	int inlined;              /* nonzero for every frame but the outermost */
} symprof_frame;

/* Why an address did not resolve. */
typedef enum {
	SYMPROF_RESOLVED = 0,
	SYMPROF_NO_MAPPING,        /* no object, and no name source knew it */
	SYMPROF_UNSYMBOLIZABLE,    /* [vdso], //anon, memfd, ... */
	SYMPROF_ANONYMOUS,         /* file-less region (JIT code without its objects) */
	SYMPROF_FILE_NOT_FOUND,
	SYMPROF_BUILD_ID_MISMATCH,
	SYMPROF_FILE_MISMATCH,     /* the file is not the recorded mapping's (rebuilt) */
	SYMPROF_NOT_ELF,
	SYMPROF_NO_SYMBOLS,        /* no DWARF and no symbol for the address */
	SYMPROF_OUTSIDE_FILE,      /* no loadable segment holds the address */
	SYMPROF_ALREADY,           /* the profile's mapping was symbolized already */
	SYMPROF_NOT_REGULAR,       /* the path names a device, a FIFO, ...: see the detail */
	SYMPROF_ERROR,             /* libdw / libelf error: see the report's detail */
} symprof_reason;

/* "resolved", "file not found", ... (static). */
const char *symprof_reason_string(symprof_reason r);

typedef struct {
	uint64_t address;            /* as given */
	const symprof_frame *frames; /* innermost first */
	size_t n_frames;             /* 0: unresolved */
	symprof_reason reason;       /* RESOLVED when n_frames > 0 */
	/* The object's symbol holding the address and the address's offset
	 * from the symbol's start: symprof-symbolize(1) -S's NAME+0xOFF (the
	 * name demangled per the session).  For code, the symbol of the
	 * function the outermost frame names, so ADDRESS - SYMBOL_OFFSET is
	 * where that function starts.  NULL and 0: no object, or none of its
	 * symbols holds the address. */
	const char *symbol;
	uint64_t symbol_offset;
} symprof_location;

/* A place looked for a file, and what was found there. */
typedef struct {
	const char *path;
	const char *outcome; /* "ok", "missing", "build-id mismatch", ... */
} symprof_attempt;

typedef struct {
	symprof_reason reason;
	size_t count;
} symprof_reason_count;

/* How one mapping (or a call's object) symbolized. */
typedef struct {
	uint64_t mapping_id;         /* the profile's mapping; 0: addresses outside
					every mapping, or a call's object */
	const char *recorded_path;   /* as recorded (NULL: none) */
	const char *used_path;       /* the file symbolized against, or NULL */
	const char *debug_path;      /* its separate debug file, or NULL */
	const char *build_id;        /* NULL: none known */
	size_t n_addresses;          /* distinct addresses */
	size_t n_resolved;
	const symprof_reason_count *unresolved; /* per reason, in reason order */
	size_t n_unresolved;
	const char *detail;          /* the first error's message, or NULL */
	const symprof_attempt *tried; /* every place looked, in order */
	size_t n_tried;
} symprof_mapping_report;

/* What a symbolize call found: one location per address given, in order,
 * and how its object symbolized. */
typedef struct {
	const symprof_location *locations;
	size_t n_locations;
	symprof_mapping_report report;
} symprof_symbols;

/* Symbolizes ADDRS[0..n) of the object T names (T may be NULL: VADDR
 * addresses and the session's name sources alone).  The name sources are
 * asked as symprof-symbolize(1) and symprof-convert(1) ask them: for VADDR
 * and RELATIVE addresses JIT objects, jitdump files, the object, perf maps,
 * kallsyms (an address taken as a run-time address too); for RUNTIME
 * addresses as for a profile's mapping (JIT objects, jitdump, perf maps,
 * kallsyms, then the file); FILE_OFFSET addresses are the object's alone.
 * An object that cannot be found or opened is not an error: its addresses
 * stay unresolved and the report says why and where it was looked for.
 * *OUT (caller frees with symprof_symbols_free) is set on success; its
 * strings live as long as it.  Thread safety: one call on S at a time;
 * calls on different sessions may run at once when their options set
 * no_debuginfod (a debuginfod query changes the process's environment). */
symprof_error *symprof_symbolize(symprof_session *s, const symprof_target *t,
				 const uint64_t *addrs, size_t n, symprof_symbols **out);
void symprof_symbols_free(symprof_symbols *r);

/* -- symbolizing as text ------------------------------------------------------------- */

typedef enum {
	SYMPROF_TEXT_GNU = 0,     /* addr2line: FILE:LINE (functions: FUNCTION before it) */
	SYMPROF_TEXT_LLVM,        /* llvm-symbolizer: FILE:LINE:COLUMN, a blank line after */
	SYMPROF_TEXT_JSON,        /* llvm-symbolizer --output-style=JSON */
	SYMPROF_TEXT_SYMPROF_JSON /* symprof symbolize --json */
} symprof_text_style;

/* The text forms of symprof-symbolize(1). */
typedef struct {
	size_t size;
	symprof_text_style style;
	int print_address;  /* -a */
	int functions;      /* -f: GNU: a function line before each FILE:LINE (LLVM
			       always has it) */
	int inlines;        /* > 0 -i: every frame the address is inlined into;
			       < 0 --no-inlines: the innermost alone; 0: the
			       style's default (GNU: the innermost alone; LLVM
			       and JSON: every frame) */
	int pretty;         /* -p */
	int basenames;      /* -s */
	int symbols;        /* -S: GNU: the symbol holding the address as
			       SYMBOL+0xOFF */
	int symbol_sections; /* -x: -S, and the symbol's section */
	const char *section; /* --section=NAME: the addresses are offsets in
				section NAME (the target's kind VADDR) */
	size_t cache_max;   /* bytes of answers kept for repeated addresses; 0: 64 MiB */
	int no_cache;       /* nonzero: keep none */
	int jobs;           /* threads (-j); 0 or 1: the calling thread alone */
	void *reserved[4];
} symprof_text_options;

/* `symprof symbolize`: answers lines (an address in hex each, "0x"
 * optional, or a symbol or section of the object standing for its address:
 * NAME, NAME+OFF, NAME-OFF, (SECTION)+OFF; one that names nothing is
 * answered as unknown) with text in O's form, written to OUT_FD: the
 * lines LINES[0..n) when N > 0 (as arguments; JSON: one array), else every
 * line read from IN_FD until its end, answered as they come (a co-process
 * writing a line at a time gets each answer at once).  T (may be NULL)
 * names the object as for symprof_symbolize; its kind is VADDR or
 * RELATIVE.  The bytes written are those of the command, whatever O's
 * jobs.  Thread safety: as
 * symprof_symbolize; it starts and joins O->jobs - 1 threads of its own. */
symprof_error *symprof_symbolize_text(symprof_session *s, const symprof_target *t,
				      const symprof_text_options *o, const char *const *lines,
				      size_t n, int in_fd, int out_fd);

/* -- converting profiles --------------------------------------------------------------- */

typedef enum {
	SYMPROF_GRANULARITY_FUNCTIONS = 0,
	SYMPROF_GRANULARITY_LINES,
	SYMPROF_GRANULARITY_FILES,
} symprof_granularity;

/* How profiles are read and written: the options of symprof-convert(1) of
 * the same names. */
typedef struct {
	size_t size;
	const char *format;       /* "pprof", "folded", "raw", "dot", "pdf", "svg",
				     "png", "top", "flamegraph", "folded-diff", "html",
				     "list", "disasm", "speedscope", "firefox",
				     "otlp", "otlp-gz", "otlp-json"; NULL:
				     the output path's extension, else folded (pprof
				     for symprof_convert_each) */
	const char *sample_index; /* value column by name or number; NULL: default */
	int annotate;             /* folded: _[k] _[j] _[i] marks */
	int all_frames;           /* keep frames drop_frames would remove */
	int no_symbolize;         /* keep addresses as they are */
	const char *maps;         /* memory map for raw address stacks (--maps) */
	const char *base;         /* profile subtracted from the inputs (--base) */
	int diff_base;            /* keep the base's samples as negative ones */
	const char *focus, *ignore;        /* regular expressions */
	const char *tagfocus, *tagignore;  /* [KEY=]RANGE or RE,RE,... */
	symprof_granularity granularity; /* top and graphs: flat goes to the symbol
					    holding the address for perf.data
					    inputs (perf report's Self), to the
					    innermost frame for the others */
	int nodecount;            /* 0: 80 (html, list, disasm: 50 functions); < 0: all */
	double nodefraction;      /* 0: 0.005; < 0: none dropped */
	double edgefraction;      /* 0: 0.001; < 0: none dropped */
	const char *unit;
	const char *title;
	const char *subtitle;     /* flame graph */
	int width, height;        /* flame graph: image width, frame height (px) */
	const char *minwidth;     /* flame graph: "0.1" (px) or "0.5%" */
	const char *colors;       /* flame graph: "java", "hot", "mem", "io" */
	int reverse, inverted;    /* flame graph */
	const char *countname;    /* flame graph */
	const char *search_color; /* flame graph */
	const char *const *source_paths; /* html, list, disasm: where sources are
					    looked for too (--source-path; the
					    session's path maps rewrite them) */
	size_t n_source_paths;
	int jobs;                 /* threads one conversion may use (-j) */
	void *reserved[8];
} symprof_convert_options;

/* A note of a run besides profiles and reports: how perf.data's stack
 * copies unwound ("unwound"), how a --kallsyms copy compares with the
 * recording ("kallsyms"), why sample times could not choose JIT code
 * ("jitdump").  WARNING notes are the ones the command prints on stderr. */
typedef struct {
	int warning;
	const char *topic;
	const char *text;
	const char *const *details; /* lines under it */
	size_t n_details;
} symprof_note;

/* What became of one input. */
typedef struct {
	const char *name;                        /* as given ("standard input" for "-") */
	const char *format;                      /* "pprof", "heap", "perf", ...; NULL:
						    not read */
	const symprof_mapping_report *mappings;  /* how each mapping symbolized */
	size_t n_mappings;
	const symprof_note *notes;
	size_t n_notes;
	const char *output;                      /* symprof_convert_each: the file
						    written, NULL when it failed */
	const symprof_error *error;              /* symprof_convert_each: why it
						    failed, else NULL */
	double resolved_percent;                 /* symprof_convert_each: the share of
						    its output's frames that resolved,
						    weighted by their samples' values in
						    the chosen column (--min-resolved);
						    -1: not known */
} symprof_input_report;

typedef struct {
	const symprof_input_report *inputs;
	size_t n_inputs;
	double resolved_percent; /* the output's, as above; -1: not known */
} symprof_report;

void symprof_report_free(symprof_report *r);

/* Reads the profiles INPUTS[0..n) (files; "-" is standard input; a
 * perf.data's stack copies are unwound), symbolizes them through S, merges
 * them (they must be of one kind), subtracts O's base, and writes the
 * result to OUTPUT, a file written whole through a temporary name (NULL or
 * "-": standard output).  REPORT (may be NULL) gets what became of each
 * input (caller frees with symprof_report_free; set when the inputs were
 * read, even if writing failed).  Thread safety: one convert, info or each
 * call at a time in the process (the input named in out-of-memory messages
 * and the list of unfinished outputs are the process's). */
symprof_error *symprof_convert(symprof_session *s, const symprof_convert_options *o,
			       const char *const *inputs, size_t n, const char *output,
			       symprof_report **report);

/* The same for one profile in memory, DATA[0..len) (named NAME in errors;
 * borrowed for the call): *OUT gets the output's bytes, *OUT_LEN their
 * number (caller frees with symprof_free). */
symprof_error *symprof_convert_memory(symprof_session *s, const symprof_convert_options *o,
				      const void *data, size_t len, const char *name,
				      void **out, size_t *out_len, symprof_report **report);

/* Converts each of INPUTS[0..n) on its own into the directory DIR (made
 * when missing) as DIR/BASENAME.EXT (".pb.gz", ".folded", ...), going on
 * past inputs that fail.  With JOBS > 1 (0: the CPUs, when the inputs left
 * are worth it) the calling process converts until one input has
 * converted, then forks up to JOBS worker processes that share its warm
 * session copy-on-write (stdio is flushed before; the workers end with
 * _exit); their inputs' reports then hold only name, output and error.
 * *REPORT (required; caller frees) has every input in order; the call
 * fails only when it could not start (bad options, DIR, the base).
 * Thread safety: as symprof_convert, and no other thread may run while
 * it forks. */
symprof_error *symprof_convert_each(symprof_session *s, const symprof_convert_options *o,
				    const char *const *inputs, size_t n, const char *dir,
				    int jobs, symprof_report **report);

/* `symprof info`: what the profile INPUT holds and how each of its
 * mappings symbolizes, as text (*TEXT, caller frees with symprof_free).
 * Thread safety: as symprof_convert. */
symprof_error *symprof_info(symprof_session *s, const symprof_convert_options *o,
			    const char *input, char **text, symprof_report **report);

/* -- JIT objects --------------------------------------------------------------------- */

/* `symprof jit dump`: the objects a process registered through the GDB JIT
 * interface (__jit_debug_descriptor), from the live process PID, or (PID 0)
 * from the core file CORE of the executable EXE, written into DIR (made
 * when missing) as jit-N.elf + jit-N.meta, the pairs
 * symprof_options.jit_dirs reads.  *N_OBJECTS (may be NULL) gets how many.
 * Thread safety: any thread. */
symprof_error *symprof_jit_dump(int pid, const char *core, const char *exe, const char *dir,
				size_t *n_objects);

#ifdef __cplusplus
}
#endif

#endif
