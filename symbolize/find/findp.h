/* findp.h — private to the files of symbolize/find/ (its face is find.h):
 * the finder's state, what a candidate must satisfy, one lookup's state, and
 * the steps every lookup shares.
 */
#ifndef SYMPROF_SYMBOLIZE_FINDP_H
#define SYMPROF_SYMBOLIZE_FINDP_H

#include "symbolize/find/find.h"
#include "symbolize/find/libdebuginfod.h"

#include <time.h>

struct sp_finder {
	const sp_symbolize_options *o;
	sp_symbolize_options defaults; /* used when o is NULL */
	debuginfod_client *dfd;
	bool dfd_started;  /* debuginfod_begin was called */
	pid_t dfd_pid;     /* ... by this process */
	bool dfd_dead;     /* a server failed: do not ask again */
	bool dfd_denied;   /* the caller said not to ask now */
	bool cancelled;    /* the current query was abandoned by us */
	double timed_out;  /* ... after this many seconds without an answer, else 0 */
	bool too_large;    /* ... because it passed the byte limits */
	double bound;      /* seconds a query may wait for a first answer */
	struct timespec query_start;
	/* debuginfod's limits (debuginfod.c): */
	double deadline;          /* seconds per build id */
	uint64_t max_file;        /* bytes per file */
	uint64_t run_left;        /* bytes the run may still fetch */
	uint64_t query_max;       /* bytes the current query may fetch */
	char *bid;                /* the build id the deadline runs for */
	struct timespec bid_start;
	uint64_t fetched;         /* bytes the current query has received */
	uint64_t retries;         /* DEBUGINFOD_RETRY_LIMIT: attempts after the first */
};

/* What a candidate has to satisfy. */
typedef struct {
	const char *build_id;   /* must match when both known; may be NULL */
	bool need_build_id;     /* ... and the candidate must have one */
	bool need_dwarf;
	bool check_crc;
	uint32_t crc;
	const sp_elf_info *self; /* a candidate that is this file is skipped */
	/* a last check of a candidate that passed the others, or NULL */
	sp_try_status (*check)(const char *path, void *arg);
	void *check_arg;
} sp_find_want;

/* One lookup's state: the log (the caller's or our own) and where this
 * lookup's entries begin, to try each path once. */
typedef struct {
	sp_find_log *log;
	size_t first;
	char *found;
	bool saw_mismatch, saw_not_elf;
	/* the first candidate that is not a regular file, and the first that
	 * is one but could not be read: what they were (NULL: none) */
	char *not_regular, *failed;
} sp_find_search;

/* Whether S is a non-empty string of hex digits. */
bool sp_find_is_hex(const char *s);

/* DIR/NAME without doubled slashes; NAME's leading slashes are dropped. */
char *sp_find_join(const char *dir, const char *name);

/* The last component of PATH. */
const char *sp_find_base_name(const char *path);

/* Directory part of PATH ("." when there is none, "/" for "/x"). */
char *sp_find_dir_name(const char *path);

/* Checks PATH (consumed) against W; on success s->found takes it.
 * Returns true when the search is over. */
bool sp_find_try_path(sp_find_search *s, char *path, const sp_find_want *w);

/* Every entry of DIR (no dot files) in strcmp order, tried in turn: the
 * glob D/<build id>/\* of pprof's list. */
bool sp_find_try_dir(sp_find_search *s, const char *dir, const sp_find_want *w);

/* Starts lookup S, logging into LOG, else into OWN. */
void sp_find_begin(sp_find_search *s, sp_find_log *log, sp_find_log *own);
/* Ends lookup S (after its answer is taken): frees what it kept and OWN. */
void sp_find_end(sp_find_search *s, sp_find_log *own);

/* The recorded path FILE through the first --path-map whose prefix it
 * has, under the sysroot when there is one; without a sysroot FILE itself
 * after the mapped path.  True when the search is over. */
bool sp_find_try_recorded(sp_find_search *s, const sp_symbolize_options *o, const char *file,
			  const sp_find_want *w);

/* Why search S for FILE (may be NULL) with build id BID (may be NULL)
 * found nothing. */
sp_error *sp_find_failed(const sp_find_search *s, const char *file, const char *bid);

/* Asks debuginfod for the executable or the debug info of BUILD_ID and
 * checks what it returns like any other candidate (a build id is required
 * of it); a file that fails the check is removed from the cache. */
bool sp_find_debuginfod(sp_finder *f, sp_find_search *s, const char *build_id, bool debuginfo,
			const sp_find_want *w);

/* Where the .gnu_debuglink file LINK of a binary in directory BDIR
 * (REAL_BDIR: its real path, may be NULL) is looked for, in order, each
 * once, into *OUT (malloc'd strings and array; returns how many):
 *   BDIR/LINK, BDIR/.debug/LINK              (gdb, elfutils)
 *   for each debug dir D of DIRS:
 *     D/BDIR/LINK                            (gdb: the global debug directory)
 *     D/<BDIR without its first component, then without the next, ...>/LINK,
 *     D/LINK                                 (elfutils: the trailing directories)
 *     the same for REAL_BDIR when it differs.
 * BDIR relative: no debug-dir candidates from it (there is no absolute
 * directory to look under), as in both tools. */
size_t sp_find_debuglink_paths(const char *bdir, const char *real_bdir, const char *link,
			       const char *const *dirs, size_t n_dirs, char ***out);

/* The debug dirs of O: --debug-dir's first, then the default
 * /usr/lib/debug (unless O says not to, or it was given); the array is
 * malloc'd (free it), its strings are O's or static. */
const char **sp_find_debug_dirs(const sp_symbolize_options *o, size_t *n);

/* perfcache.c: perf's build-id cache.  Tries the object of build id BID
 * (its debug file first when DEBUGINFO) under every debug dir and perf's
 * cache root; true when the search is over. */
bool sp_find_try_perf_cache(sp_find_search *s, const sp_symbolize_options *o, const char *bid,
			    bool debuginfo, const sp_find_want *w);

#endif
