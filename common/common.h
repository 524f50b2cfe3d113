/* common.h — the bottom layer of symprof: errors, memory, hashing, output
 * sinks and whole-file input.  Nothing here knows about profiles or ELF.
 *
 * Conventions used by every symprof header:
 *   - Functions that can fail return `sp_error *`: NULL on success, else a
 *     newly allocated error the caller owns (free with sp_error_free).
 *   - `X_new` / `X_free` pairs; every `X_free(NULL)` is a no-op.
 *   - "borrowed until Y" means the pointer stays valid until Y happens and
 *     must not be freed by the caller; "consumes" means ownership moves in.
 *   - Running out of memory is not an error path: sp_xmalloc and friends
 *     keep the process within its memory budget (sp_mem_set_limit) and,
 *     when it would be passed or malloc fails, print a message naming the
 *     input being worked on and the limit, remove temporary outputs and
 *     exit with status 1, like git's xmalloc but without the abort.
 */
#ifndef SYMPROF_COMMON_H
#define SYMPROF_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SP_PRINTF(f, a) __attribute__((format(printf, f, a)))
/* A type written by one thread while others write its neighbours in an
 * array: each element on cache lines of its own, so that no thread's
 * writes take the line from under another's (false sharing).  Arrays of
 * it come from sp_xcalloc_lines. */
#define SP_OWN_LINES __attribute__((aligned(64)))
#define SP_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------------ */
/* Errors.  One list makes both the enum and the messages.                  */

#define SP_ERRORS(X)                                                        \
	X(OK, "success")                                                    \
	X(IO, "input/output error")                                         \
	X(UNRECOGNIZED, "unrecognized format")                              \
	X(MALFORMED, "malformed input")                                     \
	X(INVALID_PROFILE, "invalid profile")                               \
	X(USAGE, "usage error")                                             \
	X(NOT_FOUND, "not found")                                           \
	X(BUILD_ID_MISMATCH, "build id mismatch")                           \
	X(UNSUPPORTED, "unsupported")                                       \
	X(LIBELF, "libelf error")                                           \
	X(LIBDW, "libdw error")                                             \
	X(ZLIB, "zlib error")                                               \
	X(GRAPHVIZ, "graphviz error")                                       \
	X(LIMIT, "size limit exceeded")                                     \
	X(NOT_REGULAR, "not a regular file")

typedef enum {
#define SP_ERR_ENUM(name, msg) SP_E_##name,
	SP_ERRORS(SP_ERR_ENUM)
#undef SP_ERR_ENUM
	SP_E_COUNT_
} sp_errcode;

/* An error: a code, a message with context (file, line or offset, what was
 * expected) and the lower-layer error it wraps, if any. */
typedef struct sp_error {
	sp_errcode code;
	char *msg;
	struct sp_error *cause;
} sp_error;

const char *sp_errcode_str(sp_errcode code);
sp_error *sp_error_new(sp_errcode code, const char *fmt, ...) SP_PRINTF(2, 3);
sp_error *sp_error_newv(sp_errcode code, const char *fmt, va_list ap) SP_PRINTF(2, 0);
/* Adds context around CAUSE (consumed).  The new error takes CODE; pass the
 * cause's own code to keep it (see sp_error_prefix). */
sp_error *sp_error_wrap(sp_error *cause, sp_errcode code, const char *fmt, ...)
	SP_PRINTF(3, 4);
/* Wraps CAUSE keeping its code; typical use: sp_error_prefix(e, "%s", path). */
sp_error *sp_error_prefix(sp_error *cause, const char *fmt, ...) SP_PRINTF(2, 3);
void sp_error_free(sp_error *err);
/* A deep copy of ERR with its whole cause chain, each link with its own
 * code and message (caller frees); NULL for NULL.  For a cached failure
 * that is returned again to callers who each free what they get. */
sp_error *sp_error_dup(const sp_error *err);
/* The innermost error's code (the reason), e.g. UNRECOGNIZED. */
sp_errcode sp_error_root_code(const sp_error *err);
/* "ctx: inner ctx: message" — newly allocated. */
char *sp_error_string(const sp_error *err);

/* ------------------------------------------------------------------------ */
/* Numbers (number.c).                                                      */

/* Parses an unsigned integer in BASE (10 or 16; "0x" accepted for 16) from
 * [s, end); returns false on empty input, junk or overflow. */
bool sp_parse_u64(const char *s, const char *end, int base, uint64_t *out);
bool sp_parse_i64(const char *s, const char *end, int64_t *out);
/* "4G", "512M", "65536K", "1048576" (binary units, optional B). */
bool sp_mem_parse_size(const char *s, size_t *out);
/* "4 GiB", "256 MiB" or "1000 bytes" into BUF. */
void sp_format_size(char *buf, size_t n, size_t bytes);

/* ------------------------------------------------------------------------ */
/* The process's end (fatal.c): what its last message names, and the       */
/* temporary outputs it removes.  Calls nothing else of common/.            */

/* NAME (borrowed until the next call) is what messages about memory name:
 * the input being read or written. NULL for none. */
void sp_mem_set_input(const char *name);
const char *sp_mem_input(void); /* the name set last, or NULL */
/* A temporary output file that an end of the process removes. */
typedef struct sp_pending_output {
	struct sp_pending_output *prev, *next;
	const char *path; /* NULL when not on the list */
} sp_pending_output;
/* mkstemp(PATH_TEMPLATE), and the file made put on the list (T borrowed,
 * PATH_TEMPLATE too, until sp_pending_remove), with the signals that
 * remove it blocked in between: no signal leaves it behind.  Returns the
 * descriptor, or -1 with errno set (T then stays off the list). */
int sp_pending_create(sp_pending_output *t, char *path_template);
/* Takes T off the list (renamed into place, or removed by its owner);
 * nothing when it is not on it. */
void sp_pending_remove(sp_pending_output *t);
/* Unlinks every temporary output not yet renamed into place; for paths that
 * end the process without unwinding (allocation failure).  Async-signal-
 * safe: every signal that ends the process does the same (fatal.c), then
 * ends it with the signal's default action. */
void sp_sink_remove_pending(void);
/* The paths of the temporary outputs not yet renamed into place, as a copy
 * in memory another process can read (a mapping shared with a parent that
 * outlives this process: the --each workers' parent removes a killed
 * worker's).  Two halves, SEQ saying which one is whole: a process killed
 * while it writes one leaves the other. */
typedef struct {
	_Atomic unsigned seq;
	char paths[2][4096]; /* NUL-terminated paths, an empty one after the last */
} sp_pending_mirror;
/* From now on, keeps *M (NULL: none) up to date with this process's list. */
void sp_sink_mirror_pending(sp_pending_mirror *m);
/* The path after *AT in M's whole half (*AT starts at 0 and is advanced),
 * NULL after the last. */
const char *sp_pending_mirror_next(const sp_pending_mirror *m, size_t *at);
/* SIGBUS, which a file mapped for reading (a perf.data file, an ELF file
 * through libelf) raises when it shrinks under the program, becomes an
 * error naming the input being read (sp_mem_input): the message, the
 * temporary outputs removed, exit status 1. */
void sp_catch_bus_error(void);
/* For a helper thread (the gzip sink's): blocks, in the calling thread, the
 * signals that end the process, so that they run their handler (which
 * removes the temporary outputs) on a thread that blocks them while the
 * list of those changes; its own faults still end the process. */
void sp_signals_block_in_thread(void);

/* ------------------------------------------------------------------------ */
/* CPUs (cpus.c).                                                           */

/* The CPUs this process may keep busy: its affinity mask's, capped by the
 * CPU quota of its cgroup and the cgroups above it, rounded up; 1 to
 * 1024.  What -j defaults to. */
int sp_cpus_available(void);
/* The smallest CPU quota, rounded up, of the cgroups PROC_CGROUP (a
 * /proc/PID/cgroup) names under SYS_CGROUP (a /sys/fs/cgroup): v2 cpu.max,
 * v1 cpu.cfs_quota_us / cpu.cfs_period_us; 0 when none limits. */
int sp_cpu_quota(const char *proc_cgroup, const char *sys_cgroup);

/* ------------------------------------------------------------------------ */
/* Memory.  A budget for the whole process; exhaustion ends the run.        */

/* The smallest budget accepted, and the default's ceiling in GiB. */
#define SP_MEM_MIN_LIMIT ((size_t)64 << 20)
#define SP_MEM_DEFAULT_MAX_GIB 8
/* Limits the process to BYTES (raised to SP_MEM_MIN_LIMIT; 0 = no limit):
 * the heap in use, plus a fixed 16 MiB for code and stacks.  Inputs are
 * read and decompressed only up to this size too. */
void sp_mem_set_limit(size_t bytes);
size_t sp_mem_limit(void); /* 0 = none */
/* Half of physical memory, at most SP_MEM_DEFAULT_MAX_GIB GiB. */
size_t sp_mem_default_limit(void);
/* Memory the budget counts besides the heap: memory files and anonymous
 * mappings (decompressed data, copies of files), charged by their owner
 * while they live.  Charged N more bytes, later requests see them as used;
 * uncharged when they are given back. */
void sp_mem_charge(size_t n);
void sp_mem_uncharge(size_t n);
/* What the budget counts as used: the heap in use and what is charged (a
 * long-running process frees its caches before this nears the limit). */
size_t sp_mem_in_use(void);
/* The bytes the budget has left: the limit less the reserve for code and
 * stacks and what is used (0 when past it); SIZE_MAX without a limit. */
size_t sp_mem_room(void);
/* A cache that gives memory back when the budget runs short (the session's
 * objects, the last file decompressed): frees what it can, the least
 * recently used first, towards WANT bytes, and says whether it freed
 * anything.  Called only from sp_mem_make_room, whose callers hold nothing
 * of the caches, and (unless ANY_THREAD: it locks what it frees) only on
 * the thread that registered it. */
typedef bool (*sp_mem_evictor)(void *ctx, size_t want);
void sp_mem_add_evictor(sp_mem_evictor fn, void *ctx, bool any_thread);
void sp_mem_remove_evictor(sp_mem_evictor fn, void *ctx);
/* Room for N more bytes before they are taken (a file decompressed into
 * memory, an inflated section, a copy of a file): the caches are asked to
 * give memory back until the budget has N bytes left.  SP_E_LIMIT when
 * they cannot: "WHAT: needs N bytes, more than the memory limit of LIMIT
 * leaves (--max-memory): M are used". */
sp_error *sp_mem_make_room(size_t n, const char *what);
/* Between two inputs (nothing of the caches held): the caches give back
 * what they hold until half the budget is free, so that what the caches
 * keep from one input does not leave the next one's reader short. */
void sp_mem_relieve(void);
/* Reports exhaustion (naming the input and the limit), removes temporary
 * outputs and exits with status 1. */
__attribute__((noreturn)) void sp_oom(void);

void *sp_xmalloc(size_t n);
void *sp_xcalloc(size_t n, size_t size);
/* Zeroed like sp_xcalloc, but every page written: a fresh page that is
 * read first maps the kernel's shared zero page, and the write after it
 * must replace that mapping on every CPU running a thread of the process
 * (an interrupt to each).  For tables that are read before written while
 * other threads run. */
void *sp_xcalloc_written(size_t n, size_t size);
/* N zeroed elements of SIZE bytes at an address aligned for SP_OWN_LINES
 * (64); freed with free. */
void *sp_xcalloc_lines(size_t n, size_t size);
void *sp_xrealloc(void *p, size_t n);
/* realloc to n * size elements, aborting on overflow. */
void *sp_xreallocarray(void *p, size_t n, size_t size);
char *sp_xstrdup(const char *s);
char *sp_xstrndup(const char *s, size_t n);
char *sp_xasprintf(const char *fmt, ...) SP_PRINTF(1, 2);
/* N bytes as 2N lowercase hex digits (build ids). */
char *sp_hex_string(const uint8_t *p, size_t n);

/* Grow *ARR (element size ELSZ, capacity *CAP) so it holds at least NEED. */
void sp_grow(void *arrp, size_t *cap, size_t need, size_t elsz);
#define SP_PUSH(arr, n, cap, value)                                         \
	do {                                                                \
		sp_grow(&(arr), &(cap), (n) + 1, sizeof(*(arr)));           \
		(arr)[(n)++] = (value);                                     \
	} while (0)

/* A growable byte string. */
typedef struct {
	char *data;  /* NUL-terminated when len > 0 or after sp_buf_str */
	size_t len, cap;
} sp_buf;
void sp_buf_append(sp_buf *b, const void *data, size_t n);
void sp_buf_puts(sp_buf *b, const char *s);
void sp_buf_printf(sp_buf *b, const char *fmt, ...) SP_PRINTF(2, 3);
const char *sp_buf_str(sp_buf *b);   /* borrowed until the next change */
char *sp_buf_take(sp_buf *b);        /* caller owns; b is reset */
void sp_buf_reset(sp_buf *b);
void sp_buf_free(sp_buf *b);

/* ------------------------------------------------------------------------ */
/* Hashing.                                                                 */

uint64_t sp_hash_bytes(const void *data, size_t n, uint64_t seed);
uint64_t sp_hash_u64(uint64_t x);
static inline uint64_t sp_hash_combine(uint64_t h, uint64_t v)
{
	return sp_hash_u64(h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)));
}

/* u64 -> u64 map, open addressing.  Zero-initialise to start. */
typedef struct {
	uint64_t *keys, *vals;
	uint8_t *used;
	size_t cap, n;
} sp_u64map;
bool sp_u64map_get(const sp_u64map *m, uint64_t key, uint64_t *val);
void sp_u64map_put(sp_u64map *m, uint64_t key, uint64_t val);
void sp_u64map_free(sp_u64map *m);

/* A set of indices into a caller's array, found by hash + caller equality.
 * The caller keeps the elements; the set stores (hash, index).  Use for
 * find-or-add tables: sp_idxset_find, then append and sp_idxset_add. */
typedef struct {
	uint64_t *hashes;
	size_t *idx1;   /* index + 1; 0 = empty slot */
	size_t cap, n;
} sp_idxset;
typedef bool (*sp_idxset_eq)(void *ctx, size_t idx);
/* Returns the index, or SIZE_MAX. */
size_t sp_idxset_find(const sp_idxset *s, uint64_t hash, sp_idxset_eq eq, void *ctx);
void sp_idxset_add(sp_idxset *s, uint64_t hash, size_t idx);
void sp_idxset_free(sp_idxset *s);

/* A table of strings, each found by its bytes (strtab.c): interning returns
 * the index of the first equal string, appending a copy when there is
 * none.  Zero-initialise to start.  strs[i] holds lens[i] bytes plus a NUL
 * (a string may contain NULs; compare with its length); both arrays are
 * borrowed until the next change.  The bytes lie in blocks the table owns
 * (a malloc per string would cost 32 bytes for an empty one), so strs[i]
 * is never freed or reallocated on its own: sp_strtab_free frees them. */
typedef struct {
	char **strs;
	size_t *lens;
	size_t n, cap;
	sp_idxset set;
	char **blocks;
	size_t n_blocks, cap_blocks;
	size_t block_bytes;  /* bytes in all blocks */
	char *fill;          /* the next free byte of the block being filled */
	size_t fill_left;    /* bytes free there */
} sp_strtab;
/* The index of the first string equal to S (N bytes), or SIZE_MAX. */
size_t sp_strtab_find(const sp_strtab *t, const char *s, size_t n);
/* Appends a copy of S even when an equal string is present (the earlier
 * one stays the one found); returns its index. */
size_t sp_strtab_append(sp_strtab *t, const char *s, size_t n);
/* Find-or-append; returns the index. */
size_t sp_strtab_intern(sp_strtab *t, const char *s, size_t n);
/* sp_strtab_intern of a NUL-terminated S. */
size_t sp_strtab_intern_str(sp_strtab *t, const char *s);
void sp_strtab_free(sp_strtab *t);

/* ------------------------------------------------------------------------ */
/* Interval tables: which range holds an address.                           */

/* A half-open range [start, end) of addresses and the caller's value for it
 * (an index into the caller's own array). */
typedef struct {
	uint64_t start, end;
	size_t value;
} sp_interval;

/* Ranges may nest and overlap in any way; the caller decides which one an
 * address belongs to by the order it gives them in: best first.  The table
 * is the flattened answer, one entry per run of addresses with the same
 * best range, so a lookup is one binary search however deep the nesting.
 * It holds at most 2n - 1 entries. */
typedef struct {
	uint64_t *start; /* start[i]: first address of run i, increasing */
	size_t *value;   /* value of run i, SIZE_MAX where no range holds it */
	size_t n;
} sp_interval_table;

/* Builds T (zero-initialised or cleared) from V[0..n), best first; empty
 * ranges (end <= start) hold nothing.  V is not kept.  O(n log n). */
void sp_interval_table_build(sp_interval_table *t, const sp_interval *v, size_t n);
/* The value of the first range of V that holds ADDR, or SIZE_MAX.  O(log n). */
size_t sp_interval_table_find(const sp_interval_table *t, uint64_t addr);
void sp_interval_table_clear(sp_interval_table *t);

/* Ranges that belong to processes: one table per pid, and one of them all.
 * Pid 0 means "every process" for a range, "unknown" for a lookup. */
typedef struct {
	uint32_t *pids;           /* ascending, distinct */
	sp_interval_table *by_pid; /* by_pid[i]: the ranges of pids[i] */
	size_t n_pids;
	sp_interval_table all;    /* every range */
} sp_pid_tables;

/* Builds T (zeroed or cleared) from V[0..n), best first, the range V[i]
 * belonging to PIDS[i].  V and PIDS are not kept. */
void sp_pid_tables_build(sp_pid_tables *t, const sp_interval *v, const uint32_t *pids,
			 size_t n);
/* The value of the first range holding ADDR among PID's own, else among
 * those of every process (pid 0); with PID 0, among them all.  SIZE_MAX
 * when none holds it. */
size_t sp_pid_tables_find(const sp_pid_tables *t, uint32_t pid, uint64_t addr);
void sp_pid_tables_clear(sp_pid_tables *t);

/* ------------------------------------------------------------------------ */
/* Output sinks.  Writers write to a sink and never open files.  Errors are
 * sticky: the first failure is kept and returned by sp_sink_finish.        */

typedef struct sp_sink sp_sink;
struct sp_sink {
	/* implementation hooks */
	void (*write)(sp_sink *s, const void *data, size_t n);
	sp_error *(*finish)(sp_sink *s);  /* flush; for files, rename into place */
	void (*destroy)(sp_sink *s);      /* release; for unfinished files, unlink */
	sp_error *err;                    /* sticky first error */
	uint64_t written;
};

void sp_sink_write(sp_sink *s, const void *data, size_t n);
void sp_sink_puts(sp_sink *s, const char *str);
void sp_sink_printf(sp_sink *s, const char *fmt, ...) SP_PRINTF(2, 3);
void sp_sink_putc(sp_sink *s, char c);
/* Records ERR (consumed) as the sink's error unless one is already set. */
void sp_sink_fail(sp_sink *s, sp_error *err);
/* Completes the output; returns the sticky error, if any.  After finish
 * the sink must still be freed. */
sp_error *sp_sink_finish(sp_sink *s);
/* Frees; a file sink that was not finished successfully removes its
 * temporary file, so no half-written output is ever left behind. */
void sp_sink_free(sp_sink *s);

/* Memory sink; the data is borrowed until sp_sink_free. */
sp_sink *sp_sink_memory_new(void);
const uint8_t *sp_sink_memory_data(const sp_sink *s, size_t *len);
/* Writes to an already open descriptor (not closed by the sink). */
sp_sink *sp_sink_fd_new(int fd, const char *name);
/* The one way symprof opens an output file.  PATH is first followed
 * through symbolic links (the links stay; their target is written).  A
 * character or block device or a FIFO is opened and written to directly.
 * A regular file, or a name that does not exist yet, is written as
 * TARGET.tmp.XXXXXX beside the target and renamed over it on finish, so
 * it appears whole or not at all; a replaced file keeps its permission
 * bits, a new one gets 0666 minus the umask.  Anything else (a directory,
 * a socket) is refused. */
sp_error *sp_sink_file_new(const char *path, sp_sink **out);
/* S (N bytes) as a JSON string literal: quotes, backslashes and control
 * characters escaped, '<', '>' and '&' as \u escapes (the text may sit in an
 * HTML <script>), bytes that are not UTF-8 as '?' (json.c). */
void sp_json_string(sp_sink *out, const char *s, size_t n);
/* The same for a NUL-terminated S (NULL: ""). */
void sp_json_cstr(sp_sink *out, const char *s);
/* gzip-compresses into INNER (borrowed; finish/free it after this one). */
sp_sink *sp_sink_gzip_new(sp_sink *inner);
/* How many threads a gzip sink made after this deflates its blocks on
 * (its output's bytes never depend on it); 0, the default: the CPUs this
 * process may use. */
void sp_sink_gzip_threads(int n);

/* ------------------------------------------------------------------------ */
/* Input.                                                                   */

/* Reads a whole file, or standard input when PATH is "-" (errors then name
 * it SP_STDIN_NAME).  *data is NUL-terminated (not counted in *len).  A
 * file larger than the memory limit (sp_mem_limit), or a pipe or device
 * that gives more, is refused with SP_E_LIMIT. */
#define SP_STDIN_NAME "standard input"
sp_error *sp_read_file(const char *path, uint8_t **data, size_t *len);
/* sp_read_file for a file that must be a regular one (a name found in a
 * directory, or one another file names): opened without blocking, so that
 * a FIFO put in its place does not wait for a writer, and checked on the
 * descriptor; anything else is SP_E_NOT_REGULAR ("PATH: not a regular
 * file: a FIFO"), a file larger than the memory limit SP_E_LIMIT, both
 * before anything is read. */
sp_error *sp_read_regular_file(const char *path, uint8_t **data, size_t *len);
/* Opens PATH for reading without blocking (O_NONBLOCK, cleared once open)
 * and checks on the descriptor that it is a regular file: the descriptor,
 * its status into *ST (may be NULL); -1 with *ERR (SP_E_NOT_FOUND,
 * SP_E_IO, SP_E_NOT_REGULAR, naming PATH) otherwise. */
struct stat;
int sp_open_regular(const char *path, struct stat *st, sp_error **err);
/* What a file of mode MODE is, for messages: "a FIFO", "a character
 * device", "a directory", ... ("a regular file" for one). */
const char *sp_file_type_name(unsigned mode);
/* The names (not paths) in directory DIR that begin with PREFIX and end
 * with SUFFIX, longer than both together, sorted bytewise (so that what is
 * made of them does not depend on readdir's order).  *NAMES gets *N of
 * them (caller frees each and the array).  SP_E_IO naming DIR when it
 * cannot be read. */
sp_error *sp_dir_names(const char *dir, const char *prefix, const char *suffix, char ***names,
		       size_t *n);
/* ------------------------------------------------------------------------ */
/* Decompression (decompress.c, and one file per codec: decompress_zlib.c,  */
/* decompress_xz.c, decompress_zstd.c — the only files that include zlib.h, */
/* lzma.h and zstd.h).  Three ways: whole (sp_gunzip, sp_decompress_sized),  */
/* streamed (sp_decompress_stream pushes output to the caller;              */
/* sp_decoder is pulled a step at a time) and lazy (sp_lazy: only as far as */
/* it is read).                                                             */
/*                                                                          */
/* One bomb rule for all: the output is bounded by a limit the caller       */
/* passes (what its format allows) and by the memory limit, whichever is    */
/* less; output beyond it is the SP_E_LIMIT error                           */
/*   "NAME: offset AT: WHAT decompresses to more than LIMIT (WHY)"          */
/* with AT the byte of the input where decoding stopped.  A decoder's       */
/* window is at most a quarter of the memory limit (and 128 MiB), and       */
/* decoders allocate through the budget (sp_xmalloc).                       */

typedef enum {
	SP_CODEC_NONE,
	SP_CODEC_GZIP, /* gzip members, one after another (RFC 1952) */
	SP_CODEC_ZLIB, /* one zlib stream (RFC 1950; ELF's ELFCOMPRESS_ZLIB), its
			  Adler-32 not checked (the readers check what they read) */
	SP_CODEC_XZ,   /* xz streams, one after another, with stream padding */
	SP_CODEC_ZSTD, /* zstd frames, one after another (RFC 8878) */
} sp_codec;

/* The codec whose magic number DATA starts with (gzip, xz or zstd); NONE. */
sp_codec sp_codec_sniff(const uint8_t *data, size_t len);
/* "gzip", "zlib", "xz", "zstd" ("" for NONE). */
const char *sp_codec_name(sp_codec c);
/* True when DATA starts with the gzip magic 1f 8b. */
bool sp_is_gzip(const uint8_t *data, size_t len);

/* What is decompressed, for the bomb rule and its error.  Strings are
 * borrowed for as long as the decompression that uses them. */
typedef struct {
	const char *name; /* the input, first in every error */
	const char *what; /* what decompresses ("COMPRESSED record"); NULL: "<codec> data" */
	uint64_t base;    /* offset in NAME of the first compressed byte */
	uint64_t limit;   /* the most output the caller allows; 0: only the memory limit */
	const char *why;  /* what LIMIT is, for the error */
} sp_decompress_limit;

/* How data decompressed whole came to its end. */
typedef enum {
	SP_DZ_END,      /* every stream whole, and nothing after the last */
	SP_DZ_CORRUPT,  /* damaged data at byte AT (zstd: in the frame that starts
			   there, as it says nothing finer); MSG says what */
	SP_DZ_CUT,      /* the input ends at byte AT, inside a stream */
	SP_DZ_TRAILING, /* a stream ends at byte AT, and what follows is not
			   another (nor xz's padding); MSG says so */
} sp_decompress_status;

typedef struct {
	sp_decompress_status status;
	size_t at;       /* of the input */
	const char *msg; /* the codec's words for CORRUPT and TRAILING (static) */
} sp_decompress_end;

/* Takes N bytes of output, or refuses them with an error. */
typedef sp_error *sp_decompress_put(void *ctx, const uint8_t *data, size_t n);

/* Decompresses IN[0..len) (CODEC: GZIP, XZ or ZSTD) through BUF (BUF_SIZE
 * bytes, at most UINT32_MAX), handing each piece of output to PUT.
 * Returns PUT's error (which stops it), the bomb rule's, or an error when
 * the decoder cannot start; else NULL with *END saying how the data ended
 * (the caller words that for its input). */
sp_error *sp_decompress_stream(sp_codec codec, const sp_decompress_limit *lim,
			       const uint8_t *in, size_t len, uint8_t *buf, size_t buf_size,
			       sp_decompress_put *put, void *ctx, sp_decompress_end *end);

/* Decompresses gzip data whole: its members (gzip -c a b > c makes two),
 * and nothing after them.  Refuses to produce more than MAX bytes, or more
 * than the memory limit (the bomb rule).  *out is NUL-terminated.  NAME is
 * used in error messages, which give the offset of what is wrong. */
sp_error *sp_gunzip(const char *name, const uint8_t *in, size_t len, size_t max,
		    uint8_t **out, size_t *outlen);

/* For data whose header says it decompresses to SIZE bytes (a compressed
 * ELF section), before anything is allocated: an error (LIM->name first)
 * when a zstd frame says another size, when SIZE is more than N
 * compressed bytes of CODEC can hold (deflate gives at most 1032 bytes
 * per byte, RFC 1951 3.2.5; zstd 32768, RFC 8878 3.1.1.2), or when it
 * passes the bound of the bomb rule. */
sp_error *sp_decompress_check_size(sp_codec codec, const sp_decompress_limit *lim,
				   const uint8_t *src, size_t n, uint64_t size);
/* Decompresses SRC[0..n) (ZLIB or ZSTD) into BUF, which it must fill
 * exactly (SIZE bytes).  NULL, or the codec's words for what is wrong
 * ("less data than the header says", ...; static). */
const char *sp_decompress_sized(sp_codec codec, const uint8_t *src, size_t n, void *buf,
				size_t size);

/* A pull decoder: the caller hands it input and room a step at a time and
 * keeps both between steps (perf.data's COMPRESSED records, whose one
 * zstd stream runs through many records). */
typedef struct sp_decoder sp_decoder;
typedef enum {
	SP_DECODE_MORE, /* went on, or could not (no input left, or no room) */
	SP_DECODE_END,  /* the stream (zstd: a frame) ended */
	SP_DECODE_BAD,  /* damaged data: sp_decoder_error says how */
} sp_decode_status;
/* A decoder of CODEC (ZLIB or ZSTD) whose output is bounded as LIM says
 * (copied; its strings borrowed until the decoder is freed or given
 * another limit).  An error when it cannot start. */
sp_error *sp_decoder_new(sp_codec codec, const sp_decompress_limit *lim, sp_decoder **out);
/* Counts the output against LIM from here on (perf: one limit per record). */
void sp_decoder_limit(sp_decoder *d, const sp_decompress_limit *lim);
/* One step: decodes from *IN (*N bytes; both advanced past what it used)
 * into OUT (CAP bytes), *GOT bytes made, *ST how it went.  Returns an
 * error only for the bomb rule. */
sp_error *sp_decoder_run(sp_decoder *d, const uint8_t **in, size_t *n, uint8_t *out,
			 size_t cap, size_t *got, sp_decode_status *st);
/* The codec's words for SP_DECODE_BAD (NULL when it gave none; static or
 * borrowed until the next step). */
const char *sp_decoder_error(const sp_decoder *d);
/* True when the data decoded so far may end here: at the end of a stream,
 * or (zstd) between two blocks, where a flushed stream stops. */
bool sp_decoder_may_end(const sp_decoder *d);
/* A good size of OUT for one step. */
size_t sp_decoder_out_size(const sp_decoder *d);
void sp_decoder_free(sp_decoder *d);

/* Data decompressed lazily: a buffer of its full size (anonymous memory,
 * whose untouched pages cost nothing and read as zeros) filled only as far
 * as its readers ask.  Made for compressed .debug_info and .debug_line,
 * megabytes of which one address needs one unit.  Inflated bytes count
 * against the memory budget while the buffer lives. */
typedef struct sp_lazy sp_lazy;
/* SIZE bytes from SRC[0..n) (CODEC ZLIB; borrowed until sp_lazy_free),
 * nothing decompressed yet: NULL when SRC is no such stream, SIZE is 0 or
 * the buffer cannot be mapped. */
sp_lazy *sp_lazy_new(sp_codec codec, const uint8_t *src, size_t n, size_t size);
/* Its SIZE bytes (stable until sp_lazy_free); only the first
 * sp_lazy_valid(Z) are decompressed, the rest reads as zeros. */
void *sp_lazy_data(const sp_lazy *z);
size_t sp_lazy_valid(const sp_lazy *z);
size_t sp_lazy_size(const sp_lazy *z);
/* Makes bytes [0, END) valid (END past the size: all of them).  False when
 * the stream is damaged or cut short before there (sp_lazy_error says
 * how); what was decompressed stays valid.  Z NULL: true. */
bool sp_lazy_need(sp_lazy *z, size_t end);
/* Why sp_lazy_need failed, or NULL. */
const char *sp_lazy_error(const sp_lazy *z);
void sp_lazy_free(sp_lazy *z);

#endif
