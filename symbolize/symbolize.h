/* symbolize.h — turning addresses into frames.
 *
 *   load base      pure arithmetic of spec/FORMATS.md §6.2–6.3 and of
 *                  `symbolize --relative` (loadbase.c, table-tested)
 *   ELF identity   build id, ELF type, PT_LOADs, debuglink (libelf)
 *   finding files  binary search path, sysroot, path maps, debug dirs,
 *                  build-id trees, debuglink with CRC, debuginfod
 *   session        sp_symbolizer: owns one cached object per ELF (keyed by
 *                  build id, else dev+inode+size+mtime, else path), each with
 *                  one lazily opened Dwfl, and the finder's answer per
 *                  recorded path + build id; failures are cached too
 *   resolving      address -> frames with the inline chain, innermost first
 *   batches        the address order a batch is resolved in, and the engine
 *                  that answers address lists with text (batch.c)
 *   name sources   which source names an address, in one order (sources.c)
 *   demangling     libbfd, three styles
 *   profiles       sp_symbolize_profile: per mapping, de-duplicated, with a
 *                  report of what resolved and why the rest did not
 *
 * Nothing here is global: every cache hangs off an sp_symbolizer.
 *
 * Address kinds.  Three kinds of address meet here, and parameter names
 * say which one a function takes:
 *   addr        run-time address, as the profiler recorded it (a location's
 *               address; for callers already "return address - 1", the rule
 *               of spec/FORMATS.md §2.7 applied once by the reader);
 *   file_offset offset in the mapped file (a mapping's `offset`);
 *   vaddr       symbol-file address: what DWARF, .symtab and the ELF's
 *               p_vaddr speak (the `file_addr` of sp_name_query is one).
 * The one rule: vaddr = addr - base, base 0 for a mapping that holds ELF
 * virtual addresses already (sp_mapping_address_rule: OTLP from the eBPF
 * profiler), else base from sp_mapping_base() (ET_EXEC,
 * ET_DYN and kernels), sp_kernel_module_base() for kernel modules, or 0
 * for ET_REL objects a JIT placed at run-time addresses; `symbolize --relative` input is shifted by
 * sp_relative_adjust().  Every conversion is a pure function of loadbase.c
 * (and elf/addrrule.c) with rows in tests/unit/symbolize/test_loadbase.c
 * (and test_addrrule.c); nothing else does this arithmetic.
 */
#ifndef SYMPROF_SYMBOLIZE_H
#define SYMPROF_SYMBOLIZE_H

#include "symbolize/types.h"
#include "symbolize/elf/elf.h"
#include "symbolize/find/find.h"
#include "symbolize/sources/sources.h"
#include "symbolize/unwind/unwind.h"
#include "symbolize/index/index.h"

/* ------------------------------------------------------------------------ */
/* Demangling (libbfd).                                                     */

/* Returns a newly allocated demangled name, or NULL when NAME is not a
 * mangled name (or STYLE is NONE). */
char *sp_demangle(const char *name, sp_demangle_style style);

/* ------------------------------------------------------------------------ */
/* Sessions and resolving.                                                  */

/* OPTS (may be NULL) is copied deeply. */
sp_symbolizer *sp_symbolizer_new(const sp_symbolize_options *opts);
void sp_symbolizer_free(sp_symbolizer *s);
/* A session is the memory budget's evictor from its creation: on the
 * thread that made it, a request for room may free the resolvers of its
 * objects not in use.  A session that other threads use in turn (the
 * library's sessions, a server's) must not be: it gives nothing back, and
 * its owner frees it whole instead. */
void sp_symbolizer_not_evicted(sp_symbolizer *s);
const sp_symbolize_options *sp_symbolizer_options(const sp_symbolizer *s);
/* The kernel release (`uname -r`) of the profiles symbolized next (a
 * perf.data file's OSRELEASE; NULL: unknown): where the kernel's vmlinux
 * and modules are looked for (sp_finder_kernel).  RELEASE is copied. */
void sp_symbolizer_set_kernel_release(sp_symbolizer *s, const char *release);

/* A session for another thread.  libdw handles are not to be shared between
 * threads (elfutils 0.188 is built without its thread-safety option), so
 * every object is opened again in the new session, which owns its own
 * caches; what PARENT has loaded that is read-only after loading -- its
 * options and its name sources (sp_symbolizer_sources, to be called on
 * PARENT first) -- is borrowed, until PARENT is freed, which must come
 * after.  Only the new session's own calls may then run on its thread;
 * calls on PARENT that only look up (sp_name_address without JIT objects)
 * may run at the same time on another. */
sp_symbolizer *sp_symbolizer_new_worker(const sp_symbolizer *parent);

/* Opens (once per session; failures cached) the object at PATH.  When
 * EXPECTED_BUILD_ID is given and differs, fails with
 * SP_E_BUILD_ID_MISMATCH.  *OUT is borrowed until sp_symbolizer_free. */
sp_error *sp_symbolizer_object(sp_symbolizer *s, const char *path,
			       const char *expected_build_id, sp_object **out);
const sp_elf_info *sp_object_info(const sp_object *o);
/* The file of a mapping recorded as RECORDED with BUILD_ID (each may be
 * NULL): sp_finder_binary's answer, asked once per session for each
 * distinct pair and kept, failures included.  *FOUND (NULL on failure) and
 * *LOG (every candidate tried) are borrowed until sp_symbolizer_free; the
 * error returned is a copy of the finder's (caller frees). */
sp_error *sp_symbolizer_locate(sp_symbolizer *s, const char *recorded, const char *build_id,
			       const char **found, const sp_find_log **log);
/* Frames for the symbol-file address VADDR, innermost first; *N == 0 when
 * nothing is known.  Borrowed until the next call that opens or resolves
 * in an object of the session (which may give another object's resolver
 * back to the memory budget: see session.c), or sp_symbolizer_free. */
sp_error *sp_object_resolve(sp_object *o, uint64_t vaddr, const sp_frame **frames, size_t *n);
/* The same for a caller that keeps its own result per address: nothing is
 * cached, and the frames are borrowed only until the next resolve on O
 * (their strings as sp_object_resolve's frames). */
sp_error *sp_object_resolve_once(sp_object *o, uint64_t vaddr, const sp_frame **frames,
				 size_t *n);
/* Builds O's symbol index as sp_index_build does, with the session's
 * options and finder (the debug file it finds), into *OUT (appended).
 * STATS may be NULL. */
sp_error *sp_object_index_build(sp_object *o, sp_buf *out, sp_index_stats *stats);
/* Why the first symbol index the session was to write (--index-dir) could
 * not be written, or NULL (caller frees). */
sp_error *sp_symbolizer_index_error(const sp_symbolizer *s);
/* Where O's allocated section NAME starts, as a symbol-file address:
 * SP_E_NOT_FOUND naming it when O has none. */
sp_error *sp_object_section_address(sp_object *o, const char *name, uint64_t *vaddr);
/* The symbol naming the symbol-file address VADDR of O, and the section
 * holding it, into *OUT (its fields NULL when none). */
sp_error *sp_object_symbol_at(sp_object *o, uint64_t vaddr, sp_symbol *out);
/* The first symbol of O's tables named NAME (without a version) into *OUT:
 * SP_E_NOT_FOUND when there is none. */
sp_error *sp_object_symbol_named(sp_object *o, const char *name, sp_symbol *out);
/* Opens O's resolver now (the debug file search included, debuginfod
 * too when the options allow it) instead of at its first address; its
 * failure is cached and returned (caller frees), as resolving would. */
sp_error *sp_object_open(sp_object *o);

/* ------------------------------------------------------------------------ */
/* The name sources of a session (their readers: sources/sources.h).     */

/* The session's name sources without a mapping file (JIT objects, perf
 * maps, kallsyms; each NULL when its option is not given), loaded at the
 * first call and kept for the session: later calls, and later profiles,
 * reuse them.  A load failure is remembered too; every call then returns a
 * new copy of it (caller frees).  *JIT, *PERF and *KSYMS are borrowed until
 * sp_symbolizer_free. */
sp_error *sp_symbolizer_sources(sp_symbolizer *s, const sp_jit_index **jit,
				const sp_perf_map **perf, const sp_kallsyms **ksyms);

/* Makes the copy of /proc/kallsyms at PATH the session's kallsyms when it
 * has none yet (no --kallsyms, no earlier call); *KSYMS gets the one it
 * has (borrowed).  kernel_names.c chooses PATH for a perf recording. */
sp_error *sp_symbolizer_use_kallsyms(sp_symbolizer *s, const char *path,
				     const sp_kallsyms **ksyms);

/* Kernel names for a perf recording of kernel OSRELEASE and build id BID
 * (each NULL when not recorded) when --kallsyms was not given
 * (kernel_names.c): the kallsyms `perf record` kept in perf's build-id cache
 * for BID, else /proc/kallsyms when the running kernel is the recording's
 * (same release, and same build id when both are known).  Returns what was
 * chosen and why, for `info` (caller frees; NULL when --kallsyms was given
 * or kernel names were chosen for an earlier input); *WARN says whether
 * the user must act for kernel frames to be named (a kallsyms whose
 * addresses are hidden). */
char *sp_symbolizer_kernel_names(sp_symbolizer *s, const char *osrelease, const char *bid,
				 bool *warn);

/* The session's jitdump files (--jitdump), NULL when none were given or
 * before sp_symbolizer_sources loaded them; borrowed until
 * sp_symbolizer_free. */
const sp_jitdump *sp_symbolizer_jitdump(const sp_symbolizer *s);

/* What the session has to tell its caller that is not an error, each
 * once, oldest first (an entry of a --perf-map or --jitdump directory
 * left out: "DIR/perf-1.map: not a regular file: a FIFO: skipped"); NULL
 * when there is nothing new.  The caller frees it. */
char *sp_symbolizer_next_note(sp_symbolizer *s);

/* ------------------------------------------------------------------------ */
/* Batches of addresses (batch.c).                                          */

/* An address to resolve and what it is for (an index of the caller's). */
typedef struct {
	uint64_t addr;
	size_t tag;
} sp_addr_item;

/* Sorts ITEMS[0..n) by address, items of equal address in their order
 * (stable), so that a batch is resolved in address order, each distinct
 * address once (sp_addr_items_run).  TMP is room for N items. */
void sp_addr_items_sort(sp_addr_item *items, sp_addr_item *tmp, size_t n);
/* The end of the run of sorted ITEMS[i..n) that share ITEMS[i]'s address. */
static inline size_t sp_addr_items_run(const sp_addr_item *items, size_t n, size_t i)
{
	size_t e = i + 1;
	while (e < n && items[e].addr == items[i].addr)
		e++;
	return e;
}

/* The engine that answers lists of addresses with text (`symprof
 * symbolize`): lines of input, each an address in hex ("0x" optional) or
 * anything else, are answered in input order on one descriptor.  A block
 * of input is parsed in one pass, looked up in a cache of answer texts
 * per address (64 MiB by default, dropped when fewer than 1% of 65536
 * look-ups find their text there), its misses sorted and resolved once
 * each in address order, and the answers written with writev from where
 * they lie.  With jobs N > 1 a large block (128 KiB to 16 MiB of input
 * ready at once) is parsed, looked up, sorted, resolved and formatted on N
 * threads, each thread resolving in a session of its own
 * (sp_symbolizer_new_worker), and misses are resolved on N threads once
 * at least 2048 distinct ones come in a batch after 16384 were resolved;
 * with JIT objects in the session (--jit-dir) resolution stays on the
 * caller's thread.  The bytes written never depend on N.  The form of an
 * answer is the caller's, through these callbacks: */

/* One input line as the callbacks see it.  A line that is no number but
 * names a symbol or a section of the object (eu-addr2line's NAME,
 * NAME+OFF, NAME-OFF, (SECTION)+OFF, OFF in C's notations) stands for its
 * address. */
typedef struct {
	uint64_t addr;    /* the address as given, or as a name gives it (when ok) */
	uint64_t vaddr;   /* addr + the batch's addr_adjust (when ok) */
	const char *line; /* the line without surrounding blanks (when not ok) */
	size_t line_len;
	bool ok;          /* the line is an address */
} sp_batch_line;

/* Most bytes a decorate callback copies for one line (sp_batch_put_copy). */
#define SP_BATCH_PREFIX_MAX 48
/* Most threads of a batch. */
#define SP_BATCH_JOBS_MAX 64

typedef struct sp_batch_emit sp_batch_emit;

typedef struct {
	/* Appends the answer to the address VADDR (symbol-file address), its
	 * frames FR[0..n) (n == 0: nothing known; FR may be NULL) and, with
	 * the batch's symbols, SYM, the symbol holding it (else NULL or
	 * zeroed), to B.  Called once per distinct address (the text is kept
	 * and reused), from any of the batch's threads at once: it must only
	 * read CTX.  Required. */
	void (*answer)(void *ctx, const sp_frame *fr, size_t n, const sp_symbol *sym,
		       uint64_t vaddr, sp_buf *b);
	/* Appends the answer to LINE (LEN bytes), which is no address, to B;
	 * from any thread, as answer.  NULL: the answer to no frames. */
	void (*bad_line)(void *ctx, const char *line, size_t len, sp_buf *b);
	/* Queues what is written for L: around its answer (sp_batch_put_answer)
	 * text that stays put (sp_batch_put: static text, L->line) or copies
	 * of at most SP_BATCH_PREFIX_MAX bytes in all (sp_batch_put_copy).
	 * From any thread, for lines in any order, but for the lines given by
	 * sp_batch_add_line: on the caller's thread, in input order.  NULL:
	 * each line's answer alone. */
	void (*decorate)(void *ctx, const sp_batch_line *l, sp_batch_emit *em);
	/* TEXT says why a line that looks like a name names nothing of the
	 * object ("cannot find symbol 'x'"); on the caller's thread, in input
	 * order.  May be NULL. */
	void (*message)(void *ctx, const char *text);
	void *ctx;
} sp_batch_format;

void sp_batch_put(sp_batch_emit *em, const char *p, size_t n);
void sp_batch_put_copy(sp_batch_emit *em, const char *p, size_t n);
void sp_batch_put_answer(sp_batch_emit *em);

/* Zero-initialise, set size = sizeof. */
typedef struct {
	size_t size;
	sp_symbolizer *session;  /* borrowed until sp_batch_free; its name sources
				    loaded (sp_symbolizer_sources) without error */
	sp_object *object;       /* the file asked after the JIT objects, or NULL;
				    borrowed until sp_batch_free */
	const char *object_path; /* where OBJECT was opened from (the threads'
				    sessions open it again) */
	uint64_t addr_adjust;    /* symbol-file address = address + this (modulo
				    2^64; `--relative`'s sp_relative_adjust) */
	size_t cache_max;        /* bytes of answers kept for repeated addresses;
				    0: 64 MiB */
	bool no_cache;           /* keep none */
	bool symbols;            /* look up the symbol holding each address for the
				    answer (symprof symbolize -S) */
	int jobs;                /* threads, the caller's included; 0 or 1: the
				    caller's alone; at most SP_BATCH_JOBS_MAX */
	bool paced;              /* jobs is a default, not asked for: the other
				    threads' sessions are opened only when the
				    work left, at the cost per address measured
				    on the caller's thread, would pay for them */
	int fd;                  /* where answers are written (not closed) */
	sp_batch_format format;
} sp_batch_options;

typedef struct sp_batch sp_batch;
/* O is copied; what it points to is borrowed as said there.  One thread
 * uses a batch (its own threads are its business). */
sp_batch *sp_batch_new(const sp_batch_options *o);
void sp_batch_free(sp_batch *b);
/* Adds the line TEXT (LEN bytes, no newline; borrowed until the batch is
 * answered); a full batch (16384 lines) is answered and written. */
void sp_batch_add_line(sp_batch *b, const char *text, size_t len);
/* Answers and writes the lines added so far. */
void sp_batch_flush(sp_batch *b);
/* Reads lines from FD until its end and answers them, a block at a time:
 * as much as is ready at once (up to 1 MiB), so that a co-process writing a
 * line at a time gets each answer at once; a block with lines that may be
 * names is answered on the caller's thread (names are looked up there).
 * With threads, slow output is written on a thread of the batch's own;
 * everything is written when this returns.  Returns 0, or the errno of a
 * failed read. */
int sp_batch_read_fd(sp_batch *b, int fd);
/* Writes N bytes at P after the answers written so far. */
void sp_batch_write(sp_batch *b, const char *p, size_t n);
/* The errno of the first write that failed (output stopped there), or 0. */
int sp_batch_write_error(const sp_batch *b);

/* ------------------------------------------------------------------------ */
/* Which source names an address (sources.c).                               */

/* The sources, in the one order they are asked (sp_name_address):
 *   1. JIT objects (--jit-dir): frames with lines, base 0;
 *   2. jitdump files (--jitdump): one frame, with file:line when the file
 *      has debug info;
 *   3. the mapped file, when the caller passes it (`symbolize -e FILE`);
 *   4. perf maps (--perf-map): one name;
 *   5. kallsyms (--kallsyms): one name, for kernel code only.
 * `convert` resolves a mapping's file itself, per mapping and in batches
 * (symbolize.c), after every address of the mapping was offered to 1, 2, 4, 5:
 * there perf maps and kallsyms name an address before its file does, while
 * for `symbolize -e FILE` the file comes first.  Both orders are those
 * symprof has always had.
 * Sources are keyed by process: a jitdump file belongs to its header's
 * pid, a perf map named perf-PID.map to PID; each and names only addresses of that process (a mapping's pid, known
 * for perf.data); pid 0 ("unknown": other inputs, `symbolize`, addresses
 * outside every recorded map) is asked of every source. */
typedef enum {
	SP_SOURCE_NONE = 0,
	SP_SOURCE_JIT_OBJECT,
	SP_SOURCE_FILE,
	SP_SOURCE_PERF_MAP,
	SP_SOURCE_KALLSYMS,
	SP_SOURCE_JITDUMP,
} sp_name_source;

typedef struct {
	uint32_t pid;          /* the process, 0 when unknown */
	uint64_t addr;         /* run-time address */
	sp_code_kind kind;     /* sp_code_kind_of the address: kallsyms only for KERNEL */
	uint64_t code_version; /* the location's (sp_location.code_version), or 0 */
	sp_object *file;       /* the mapped file to ask at step 2, or NULL */
	uint64_t file_addr;    /* ADDR as a symbol-file address of FILE */
	bool once;             /* objects resolve without caching (sp_object_resolve_once) */
} sp_name_query;

typedef struct {
	const sp_frame *frames; /* innermost first; see sp_name_address for lifetime */
	size_t n_frames;
	sp_name_source source;  /* NONE when no source knew the address */
	sp_frame one;           /* storage of a name-only answer */
	char *demangled;
} sp_named;

/* Asks the session's sources about Q->addr in the order above; fills *OUT
 * with the first answer and returns its source.  The session's sources
 * must have been loaded without error (sp_symbolizer_sources).  Frames of
 * an object are borrowed as sp_object_resolve's, or with Q->once until the
 * next resolve on the object; a name-only frame lives in *OUT, cleared
 * by sp_named_clear (also before *OUT is reused). */
sp_name_source sp_name_address(sp_symbolizer *s, const sp_name_query *q, sp_named *out);
void sp_named_clear(sp_named *n);

/* ------------------------------------------------------------------------ */
/* Symbolizing a profile.                                                   */

typedef enum {
	SP_UNRES_NONE = 0,         /* everything resolved */
	SP_UNRES_NO_MAPPING,       /* address outside every mapping */
	SP_UNRES_UNSYMBOLIZABLE,   /* [vdso], //anon, memfd, ... */
	SP_UNRES_ANONYMOUS,        /* file-less region (e.g. JIT code without objects) */
	SP_UNRES_FILE_NOT_FOUND,
	SP_UNRES_BUILD_ID_MISMATCH,
	SP_UNRES_FILE_MISMATCH,    /* the file's segments (or size, mtime) are not
				      those of the recorded mapping: rebuilt since */
	SP_UNRES_NOT_ELF,
	SP_UNRES_NO_SYMBOLS,       /* no DWARF and no symbol for the address */
	SP_UNRES_OUTSIDE_FILE,     /* no PT_LOAD covers the address */
	SP_UNRES_ALREADY,          /* mapping was already symbolized: left alone */
	SP_UNRES_NOT_REGULAR,      /* the path names a device, a FIFO, ...: see detail */
	SP_UNRES_ERROR,            /* libdw / libelf error; see detail */
} sp_unresolved_reason;

const char *sp_unresolved_reason_str(sp_unresolved_reason r);

typedef struct {
	uint64_t mapping_id;        /* 0 for addresses without a mapping */
	char *recorded_path;        /* as in the profile */
	char *used_path;            /* file symbolized against, or NULL */
	char *debug_path;           /* separate debug file, or NULL */
	char *index_path;           /* the symbol index that answered, or NULL */
	char *build_id;
	char *go_build_id;          /* OTLP: the Go build id, when recorded apart */
	char *htlhash;              /* OTLP: the eBPF profiler's file id, when recorded */
	const char *matched_by;     /* which id found the file ("GNU build id", "Go
				       build id", "file id (htlhash)", "build id"),
				       NULL when none was compared */
	sp_address_rule rule;       /* which addresses the mapping holds */
	uint64_t base;              /* ... and the load base used for them */
	size_t n_addresses;         /* distinct addresses */
	size_t n_resolved;
	size_t n_reason[SP_UNRES_ERROR + 1]; /* unresolved counts per reason */
	char *detail;               /* first error message, or NULL */
	sp_find_log tried;          /* every place looked */
	bool forced;                /* used_path has another build id, used
				       anyway (--force-mismatch) */
} sp_mapping_report;

typedef struct {
	sp_mapping_report *mappings;
	size_t n_mappings;
} sp_symbolize_report;

void sp_symbolize_report_clear(sp_symbolize_report *r);

/* Symbolizes every location of P that has no lines, per mapping, through
 * the session's cached objects; already symbolized mappings are left alone
 * (with the resymbolize option, locations with lines are named again, and
 * keep theirs when nothing names them).  A location of an OTLP profile is
 * named only when its profile.frame.type is native, go or absent.
 * Partial symbolization is not an error; REPORT (may be NULL) says what
 * happened. */
sp_error *sp_symbolize_profile(sp_symbolizer *s, sp_profile *p, sp_symbolize_report *report);
/* The same on JOBS threads (-j; 0 or 1: the caller's alone): a mapping
 * with many addresses to resolve in its file is resolved by the caller's
 * thread and JOBS - 1 others, each in a session of its own
 * (sp_symbolizer_new_worker), started only when the work measured on the
 * caller's thread pays for their sessions and the memory budget has room
 * for them (jobs.c).  P and REPORT get the bytes JOBS 1 gives them.
 * S's name sources are loaded here, before any thread starts. */
sp_error *sp_symbolize_profile_jobs(sp_symbolizer *s, sp_profile *p, int jobs,
				    sp_symbolize_report *report);


/* ------------------------------------------------------------------------ */
/* The machine code of a profile's functions (code.c; elf/codefile.c reads it, */
/* elf/disasm.c decodes it).                                                */

/* The object of mapping M of P (its file found as symbolizing finds it,
 * through the session's cached answer) and the mapping's load base, from
 * ADDR, an address of M: symbol-file address = run-time address - *BASE.
 * Files of user space only (ET_EXEC, ET_DYN, and ET_REL with section
 * addresses: base 0).  Errors: the file is not found, or ADDR is outside
 * it.  *OBJ is borrowed until sp_symbolizer_free. */
sp_error *sp_symbolizer_mapping_object(sp_symbolizer *s, const sp_profile *p,
				       const sp_mapping *m, uint64_t addr, sp_object **obj,
				       uint64_t *base);
/* The code of object O: its file, and for its symbols when the file has
 * none its separate debug file (looked for as resolving does).  *OUT is
 * freed with sp_code_file_free, before sp_symbolizer_free. */
sp_error *sp_object_code_file(sp_object *o, sp_code_file **out);

#endif
