/* internal.h — private interfaces between the files of the symbolize layer.
 * Nothing outside symbolize/ (except unit tests) includes this header.
 */
#ifndef SYMPROF_SYMBOLIZE_INTERNAL_H
#define SYMPROF_SYMBOLIZE_INTERNAL_H

#include "symbolize/symbolize.h"
#include "symbolize/dwarf/dwarf.h"

/* ------------------------------------------------------------------------ */
/* session.c                                                                */

/* The path the object was opened from (borrowed until sp_symbolizer_free). */
const char *sp_object_path(const sp_object *o);
/* The separate debug file in use, or NULL (borrowed). */
const char *sp_object_debug_path(const sp_object *o);
/* Where separate debug info was looked for, or NULL (borrowed). */
const sp_find_log *sp_object_debug_log(const sp_object *o);
/* sp_resolver_split_error of the object's resolver, or NULL (caller frees). */
sp_error *sp_object_split_error(const sp_object *o);
/* True when resolving VADDR in O would read and decode nothing first: its
 * symbol index answers, or its resolver is open with the compile unit
 * holding VADDR loaded (sp_resolver_warm).  Opens nothing. */
bool sp_object_warm(const sp_object *o, uint64_t vaddr);
/* The symbol index the object answers from (--index-dir), or NULL
 * (borrowed). */
const char *sp_object_index_path(const sp_object *o);
/* Hands NOTE (the caller's, now S's) to S's caller, unless S holds the
 * same text not yet taken: what a worker session found to say, said once. */
void sp_symbolizer_add_note(sp_symbolizer *s, char *note);
/* Moves what FROM (a worker session of TO's) has to say to TO
 * (sp_symbolizer_add_note). */
void sp_symbolizer_pass_notes(sp_symbolizer *to, sp_symbolizer *from);
/* The session's finder, created at first use (borrowed until
 * sp_symbolizer_free): one debuginfod client per session. */
sp_finder *sp_symbolizer_finder(sp_symbolizer *s);
/* sp_symbolizer_locate for a kernel mapping (KERNEL: sp_finder_kernel, with the
 * release sp_symbolizer_set_kernel_release gave). */
sp_error *sp_symbolizer_locate_as(sp_symbolizer *s, bool kernel, const char *recorded,
				  const char *build_id, const char **found,
				  const sp_find_log **log);
/* sp_symbolizer_locate_as, each candidate accepted only when its file id is
 * HTLHASH as well (NULL: not checked), computed once per file in the
 * session (sp_filehash_cache). */
sp_error *sp_symbolizer_locate_file(sp_symbolizer *s, bool kernel, const char *recorded,
				    const char *build_id, const char *htlhash, const char **found,
				    const sp_find_log **log);
/* find/fileid.c: the file of mapping M of P (KERNEL: a kernel's), looked
 * for by each of its ids in turn: GNU build id, Go build id, then the eBPF
 * profiler's file id (htlhash) when the profile's OpenTelemetry extras
 * carry them, else its build id; a file id not found under the recorded
 * name is looked for among every file of each --binary-path directory (a
 * binary renamed since).  Appends every place tried to R's log and
 * sets R's ids and matched_by.  *FOUND as sp_symbolizer_locate; the error
 * (caller frees) is the most telling of the lookups' when none found it. */
sp_error *sp_locate_mapping(sp_symbolizer *s, const sp_profile *p, const sp_mapping *m,
			    bool kernel, const char **found, sp_mapping_report *r);
/* How many times the session has asked its finder for a binary (tests). */
size_t sp_symbolizer_finder_calls(const sp_symbolizer *s);
/* The name sources loaded by sp_symbolizer_sources (each NULL when not
 * given, or not loaded yet); borrowed until sp_symbolizer_free. */
void sp_symbolizer_loaded_sources(const sp_symbolizer *s, const sp_jit_index **jit,
				  const sp_perf_map **perf, const sp_kallsyms **ksyms);

/* The calling thread's CPU time in ns: what the pacing of -j (batch.c,
 * jobs.c) measures an address's cost with. */
double sp_thread_cpu_ns(void);

/* ------------------------------------------------------------------------ */
/* jobs.c: one mapping's addresses resolved on -j threads.                  */

typedef struct sp_par sp_par;
/* The threads of a profile's symbolization in session S, JOBS of them
 * with the caller's; NULL when JOBS < 2.  Freed (with the sessions it
 * made) before S. */
sp_par *sp_par_new(sp_symbolizer *s, int jobs);
void sp_par_free(sp_par *p);
/* Begins a mapping whose file is O (S's, open): its distinct symbol-file
 * addresses VADDRS[0..n), ascending, borrowed until sp_par_end, are
 * answered in that order by sp_par_next, resolved by the threads when the
 * work pays for them (their finders asking debuginfod when DEBUGINFOD).
 * False (P NULL, or too few addresses): resolve them on this thread. */
bool sp_par_begin(sp_par *p, sp_object *o, bool debuginfod, const uint64_t *vaddrs, size_t n);
/* The answer to the next address, as sp_object_resolve's: the frames
 * borrowed until the next call; the error the caller's. */
sp_error *sp_par_next(sp_par *p, const sp_frame **frames, size_t *n);
/* Ends the mapping: its threads joined (their sessions kept for the next
 * mapping of the same object). */
void sp_par_end(sp_par *p);

/* ------------------------------------------------------------------------ */
/* find/filehash.c: the OpenTelemetry eBPF profiler's file id ("htlhash").  */

typedef struct {
	uint32_t h[8];
	uint64_t len;
	uint8_t buf[64];
	size_t n;
} sp_sha256;
void sp_sha256_init(sp_sha256 *s);
void sp_sha256_update(sp_sha256 *s, const void *data, size_t n);
void sp_sha256_final(sp_sha256 *s, uint8_t out[32]);

/* 32 hex digits and a NUL. */
#define SP_HTLHASH_HEX 33
/* The file id of the open regular file FD of SIZE bytes (NAME in errors). */
sp_error *sp_htlhash_fd(int fd, uint64_t size, const char *name, char hex[SP_HTLHASH_HEX]);
/* The same of the file at PATH (SP_E_NOT_FOUND, SP_E_UNRECOGNIZED when it
 * is not a regular file, SP_E_IO). */
sp_error *sp_htlhash_file(const char *path, char hex[SP_HTLHASH_HEX]);

/* File ids a session computed, by device, inode, size and modification
 * time: each file is read once however often it is a candidate. */
typedef struct sp_filehash_cache sp_filehash_cache;
sp_filehash_cache *sp_filehash_cache_new(void);
void sp_filehash_cache_free(sp_filehash_cache *c);
sp_error *sp_filehash_cache_get(sp_filehash_cache *c, const char *path,
				char hex[SP_HTLHASH_HEX]);
/* How many files were read and hashed (the others came from the cache). */
size_t sp_filehash_cache_hashed(const sp_filehash_cache *c);
/* The finder's check (sp_finder_binary_check) that a candidate's file id is
 * HTLHASH: ARG is an sp_filehash_want. */
typedef struct {
	sp_filehash_cache *cache;
	const char *htlhash;
} sp_filehash_want;
sp_try_status sp_filehash_check(const char *path, void *arg);
/* The session's cache of file ids, made at first use (borrowed until
 * sp_symbolizer_free). */
sp_filehash_cache *sp_symbolizer_filehash(sp_symbolizer *s);

#endif
