/* debuginfod.c — asking debuginfod servers (DEBUGINFOD_URLS) by build id,
 * within one bounded wait per build id and bounded sizes per file and run.
 * The library itself is loaded on demand by libdebuginfod.c.
 */
#include "symbolize/find/findp.h"
#include "symbolize/find/libdebuginfod.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Without DEBUGINFOD_TIMEOUT, a query that has not reached any server
 * after this long is abandoned. */
#define DEBUGINFOD_CONNECT_SECONDS 5.0

/* Our own limits on what debuginfod may cost a run.  One build id gets one
 * wall-clock deadline, its executable and debug-info queries, transfers and
 * libdebuginfod's retries included (DEBUGINFOD_MAXTIME, when a positive
 * number of seconds, lowers it).  One file may have DEBUGINFOD_MAX_FILE
 * bytes (DEBUGINFOD_MAXSIZE lowers it), and a run fetches at most
 * DEBUGINFOD_MAX_RUN bytes in all.  libdebuginfod is told the time left
 * through DEBUGINFOD_MAXTIME (it bounds each transfer with it); the
 * progress callback enforces the deadline and the sizes, on the announced
 * length and on the bytes as they arrive (a body without a length is not
 * checked by the library).  DEBUGINFOD_MAXSIZE is read from the user and
 * hidden from the library during a query: given one, libdebuginfod 0.188
 * logs "using max size" with dprintf to its verbose descriptor even when
 * there is none (-1), and glibc leaks that call's buffer.  DEBUGINFOD_TIMEOUT keeps its
 * meaning (a server that does not send 100 kB within that many seconds is
 * given up), but once per build id: the DEBUGINFOD_RETRY_LIMIT retries
 * (2 by default) are ours, within the deadline, and only after failures
 * other than a timeout or an oversized file. */
#define DEBUGINFOD_DEADLINE_SECONDS 60.0

#define DEBUGINFOD_MAX_FILE (1ULL << 30)

#define DEBUGINFOD_MAX_RUN (4ULL << 30)

/* A - B in seconds. */
static double elapsed(const struct timespec *a, const struct timespec *b)
{
	return (double)(a->tv_sec - b->tv_sec) + (double)(a->tv_nsec - b->tv_nsec) / 1e9;
}

/* Called by libdebuginfod while a query runs.  Until a server has
 * answered (no download URL yet), give up after the connect bound; once one
 * has, A counts the bytes received and B the announced length (or -1).
 * Give up, too, past the build id's deadline or the query's bytes. */
static int debuginfod_progress(debuginfod_client *c, long a, long b)
{
	sp_finder *f = sp_debuginfod_get_user_data(c);
	struct timespec now;

	if (!f)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!sp_debuginfod_get_url(c)) {
		if (elapsed(&now, &f->query_start) > f->bound) {
			f->cancelled = true;
			f->timed_out = f->bound;
		}
	} else {
		if (a > 0 && (uint64_t)a > f->fetched)
			f->fetched = (uint64_t)a;
		if (f->fetched > f->query_max || (b > 0 && (uint64_t)b > f->query_max)) {
			f->cancelled = true;
			f->too_large = true;
		}
	}
	if (elapsed(&now, &f->bid_start) > f->deadline) {
		f->cancelled = true;
		f->timed_out = f->deadline;
	}
	return f->cancelled;
}

/* A positive whole number from the environment variable NAME, else 0. */
static uint64_t env_positive(const char *name)
{
	const char *t = getenv(name);
	char *end = NULL;
	unsigned long long v = t && *t >= '0' && *t <= '9' ? strtoull(t, &end, 10) : 0;
	return end && *end == '\0' ? (uint64_t)v : 0;
}

/* The debuginfod client, created at first use; NULL when debuginfod is not
 * to be asked (disabled, no URLs, or a server failed before). */
static debuginfod_client *finder_debuginfod(sp_finder *f)
{
	if (f->o->no_debuginfod || f->dfd_dead || f->dfd_denied)
		return NULL;
	if (f->dfd_started && f->dfd_pid != getpid()) {
		/* a process forked with the session (convert --each -j): the
		 * client's connections are its parent's too, and are never
		 * used again; this process asks through a client of its own */
		if (f->dfd)
			sp_debuginfod_end(f->dfd);
		f->dfd = NULL;
		f->dfd_started = false;
	}
	if (!f->dfd_started) {
		const char *urls = getenv("DEBUGINFOD_URLS");
		f->dfd_started = true;
		f->dfd_pid = getpid();
		if (!urls || !*urls)
			return NULL;
		f->dfd = sp_debuginfod_begin();
		if (!f->dfd) {
			f->dfd_dead = true;
			return NULL;
		}
		sp_debuginfod_set_user_data(f->dfd, f);
		/* libdebuginfod applies DEBUGINFOD_TIMEOUT to each attempt
		 * and retries (DEBUGINFOD_RETRY_LIMIT, 2 by default), so a
		 * server that accepts connections and never answers would
		 * cost three timeouts.  Our own bound covers the whole query,
		 * retries included: DEBUGINFOD_TIMEOUT when it is a positive
		 * number, else the connect bound. */
		const char *t = getenv("DEBUGINFOD_TIMEOUT");
		char *end = NULL;
		long secs = t && *t ? strtol(t, &end, 10) : 0;
		f->bound = secs > 0 && end && *end == '\0' ? (double)secs : DEBUGINFOD_CONNECT_SECONDS;
		uint64_t maxtime = env_positive("DEBUGINFOD_MAXTIME");
		uint64_t maxsize = env_positive("DEBUGINFOD_MAXSIZE");
		f->deadline = maxtime && (double)maxtime < DEBUGINFOD_DEADLINE_SECONDS
				      ? (double)maxtime
				      : DEBUGINFOD_DEADLINE_SECONDS;
		f->max_file = maxsize && maxsize < DEBUGINFOD_MAX_FILE ? maxsize : DEBUGINFOD_MAX_FILE;
		f->run_left = DEBUGINFOD_MAX_RUN;
		const char *r = getenv("DEBUGINFOD_RETRY_LIMIT");
		f->retries = r && *r >= '0' && *r <= '9' ? env_positive("DEBUGINFOD_RETRY_LIMIT") : 2;
		sp_debuginfod_set_progressfn(f->dfd, debuginfod_progress);
	}
	return f->dfd;
}

/* Sets libdebuginfod's own limits for one query, NAME=VALUE, the user's
 * setting saved in *OLD (NULL: none) for put_back. */
static void set_limit(const char *name, uint64_t value, char **old)
{
	const char *cur = getenv(name);
	*old = cur ? sp_xstrdup(cur) : NULL;
	char num[32];
	snprintf(num, sizeof(num), "%llu", (unsigned long long)value);
	setenv(name, num, 1);
}

static void put_back(const char *name, char *old)
{
	if (old)
		setenv(name, old, 1);
	else
		unsetenv(name);
	free(old);
}

/* Held by a query: its limits are environment variables of the process,
 * and the client library is not to be used from two threads at once
 * (sessions of two threads may open files at the same time). */
static pthread_mutex_t asking = PTHREAD_MUTEX_INITIALIZER;

/* One query of BUILD_ID, without libdebuginfod's retries, LEFT seconds
 * before the deadline; the bytes that arrive count against the run's. */
static int ask(sp_finder *f, debuginfod_client *c, const char *build_id, bool debuginfo,
	       double left, char **got)
{
	pthread_mutex_lock(&asking);
	clock_gettime(CLOCK_MONOTONIC, &f->query_start);
	f->cancelled = false;
	f->timed_out = 0;
	f->too_large = false;
	f->fetched = 0;
	f->query_max = f->max_file < f->run_left ? f->max_file : f->run_left;
	char *old_time, *old_retry, *old_size;
	set_limit("DEBUGINFOD_MAXTIME", (uint64_t)left + 1, &old_time);
	set_limit("DEBUGINFOD_RETRY_LIMIT", 0, &old_retry);
	const char *user_size = getenv("DEBUGINFOD_MAXSIZE");
	old_size = user_size ? sp_xstrdup(user_size) : NULL;
	unsetenv("DEBUGINFOD_MAXSIZE");
	int fd = debuginfo ? sp_debuginfod_find_debuginfo(c, (const unsigned char *)build_id, 0, got) :
			     sp_debuginfod_find_executable(c, (const unsigned char *)build_id, 0, got);
	put_back("DEBUGINFOD_MAXTIME", old_time);
	put_back("DEBUGINFOD_RETRY_LIMIT", old_retry);
	put_back("DEBUGINFOD_MAXSIZE", old_size);
	struct stat st;
	uint64_t size = fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0 ? (uint64_t)st.st_size : 0;
	/* what arrived counts, even when the query failed */
	uint64_t spent = f->fetched > size ? f->fetched : size;
	f->run_left -= spent < f->run_left ? spent : f->run_left;
	pthread_mutex_unlock(&asking);
	return fd;
}

/* A file the cache got from a server that is not what was asked for: it
 * goes, and so does its build id's directory when that is left empty. */
static void uncache(const char *path)
{
	if (unlink(path) != 0)
		return;
	char *dir = sp_find_dir_name(path);
	rmdir(dir);
	free(dir);
}

/* Asks debuginfod for the executable or the debug info of BUILD_ID and
 * checks what it returns like any other candidate (a build id is required
 * of it); a file that fails the check is removed from the cache. */
bool sp_find_debuginfod(sp_finder *f, sp_find_search *s, const char *build_id, bool debuginfo,
			   const sp_find_want *w)
{
	if (!sp_find_is_hex(build_id))
		return false;
	debuginfod_client *c = finder_debuginfod(f);
	if (!c)
		return false;
	const char *urls = getenv("DEBUGINFOD_URLS");
	char *where = sp_xasprintf("debuginfod:%s/%s from %s", build_id,
				   debuginfo ? "debuginfo" : "executable", urls ? urls : "");
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!f->bid || strcasecmp(f->bid, build_id) != 0) {
		free(f->bid);
		f->bid = sp_xstrdup(build_id);
		f->bid_start = now;
	}
	double left = f->deadline - elapsed(&now, &f->bid_start);
	if (left <= 0 || f->run_left == 0) {
		/* this build id's time or the run's bytes are used up */
		if (f->run_left == 0)
			f->dfd_dead = true;
		sp_find_log_add(s->log, where, SP_TRY_FAILED);
		free(where);
		return false;
	}
	/* libdebuginfod's retries are made here, so that they share the
	 * deadline, and a server that answered too slowly or sent too much is
	 * not asked again. */
	if (!f->o->debuginfod_quiet)
		fprintf(stderr, "symprof: asking debuginfod (%s) for the %s of %s\n", urls ? urls : "",
			debuginfo ? "debug info" : "executable", build_id);
	struct timespec asked = now;
	char *got = NULL;
	int fd;
	for (uint64_t attempt = 0;; attempt++) {
		fd = ask(f, c, build_id, debuginfo, left, &got);
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = f->deadline - elapsed(&now, &f->bid_start);
		if (fd >= 0 || fd == -ENOENT || fd == -ETIME || fd == -ETIMEDOUT || fd == -EFBIG ||
		    f->cancelled || attempt >= f->retries || left <= 0 || f->run_left == 0)
			break;
		free(got);
		got = NULL;
	}
	if (fd < 0) {
		/* "Not found" is an answer; anything else (including our
		 * abandoning the query, which libdebuginfod reports as
		 * ENOENT) means the servers cannot be relied on for the rest
		 * of the run. */
		bool failed = fd != -ENOENT || f->cancelled;
		if (failed)
			f->dfd_dead = true;
		sp_find_log_add(s->log, where, failed ? SP_TRY_FAILED : SP_TRY_MISSING);
		sp_find_attempt *a = &s->log->v[s->log->n - 1];
		if (f->timed_out > 0)
			a->detail = sp_xasprintf("timed out after %.0f s", f->timed_out);
		else if (fd == -ETIME || fd == -ETIMEDOUT)
			a->detail = sp_xasprintf("timed out after %.0f s", elapsed(&now, &asked));
		else if (f->too_large || fd == -EFBIG)
			a->detail = sp_xasprintf("too large: over %llu bytes",
						 (unsigned long long)f->query_max);
		else if (failed)
			a->detail = sp_xasprintf("failed: %s", strerror(-fd));
		free(where);
		free(got);
		return false;
	}
	close(fd);
	free(where);
	if (!got)
		return false;
	sp_find_want strict = *w;
	strict.need_build_id = true;
	size_t at = s->log->n;
	bool done = sp_find_try_path(s, sp_xstrdup(got), &strict);
	if (!done && s->log->n > at && s->log->v[s->log->n - 1].status != SP_TRY_MISSING)
		uncache(got);
	free(got);
	return done;
}
