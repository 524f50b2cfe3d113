/* find.c — where the files of a profile's mappings are on this machine.
 * For a mapping recorded as /usr/lib/libfoo.so with build id 1a2b..., the
 * binary is looked for in every --binary-path dir (pprof's candidate list,
 * spec/FORMATS.md §6.5: D/1a2b.../libfoo.so, D/1a2b.../\*, ...), then at the
 * recorded path rewritten by --path-map and --sysroot, then at the recorded
 * path itself, then through debuginfod.  Separate debug info is looked for
 * in build-id trees (/usr/lib/debug/.build-id/1a/2b....debug), through
 * .gnu_debuglink (CRC checked) and through debuginfod.  Every candidate is
 * checked (ELF, build id, CRC, DWARF) and logged with what was wrong with
 * it, so a report can say where we looked.
 */
#include "symbolize/symbolize.h"
#include "symbolize/find/debuginfod.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
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

static const char *const default_debug_dirs[] = { "/usr/lib/debug" };

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
	/* the limits above: */
	double deadline;          /* seconds per build id */
	uint64_t max_file;        /* bytes per file */
	uint64_t run_left;        /* bytes the run may still fetch */
	uint64_t query_max;       /* bytes the current query may fetch */
	char *bid;                /* the build id the deadline runs for */
	struct timespec bid_start;
	uint64_t fetched;         /* bytes the current query has received */
	uint64_t retries;         /* DEBUGINFOD_RETRY_LIMIT: attempts after the first */
};

const char *sp_try_status_str(sp_try_status s)
{
	switch (s) {
	case SP_TRY_OK:
		return "ok";
	case SP_TRY_MISSING:
		return "missing";
	case SP_TRY_BUILD_ID_MISMATCH:
		return "build-id mismatch";
	case SP_TRY_BAD_CRC:
		return "bad CRC";
	case SP_TRY_NOT_ELF:
		return "not ELF";
	case SP_TRY_NO_DEBUG_INFO:
		return "no debug info";
	case SP_TRY_FAILED:
		return "failed";
	case SP_TRY_DWO_ID_MISMATCH:
		return "dwo id mismatch";
	}
	return "unknown";
}

void sp_find_log_add(sp_find_log *log, const char *path, sp_try_status status)
{
	sp_find_attempt a = { sp_xstrdup(path), status, NULL };
	SP_PUSH(log->v, log->n, log->cap, a);
}

void sp_find_log_append(sp_find_log *log, const sp_find_log *from)
{
	for (size_t i = 0; i < from->n; i++) {
		sp_find_log_add(log, from->v[i].path, from->v[i].status);
		if (from->v[i].detail)
			log->v[log->n - 1].detail = sp_xstrdup(from->v[i].detail);
	}
}

const char *sp_find_attempt_str(const sp_find_attempt *a)
{
	return a->detail ? a->detail : sp_try_status_str(a->status);
}

void sp_find_log_clear(sp_find_log *log)
{
	if (!log)
		return;
	for (size_t i = 0; i < log->n; i++) {
		free(log->v[i].path);
		free(log->v[i].detail);
	}
	free(log->v);
	memset(log, 0, sizeof(*log));
}

/* ------------------------------------------------------------------------ */

sp_finder *sp_finder_new(const sp_symbolize_options *opts)
{
	sp_finder *f = sp_xcalloc(1, sizeof(*f));
	f->o = opts ? opts : &f->defaults;
	return f;
}

void sp_finder_free(sp_finder *f)
{
	if (!f)
		return;
	if (f->dfd)
		sp_debuginfod_end(f->dfd);
	free(f->bid);
	free(f);
}

void sp_finder_allow_debuginfod(sp_finder *f, bool allowed)
{
	f->dfd_denied = !allowed;
}

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

static bool is_hex(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') ||
		      (*s >= 'A' && *s <= 'F')))
			return false;
	return true;
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

/* ------------------------------------------------------------------------ */

/* DIR/NAME without doubled slashes; NAME's leading slashes are dropped. */
static char *join(const char *dir, const char *name)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	while (*name == '/')
		name++;
	return sp_xasprintf("%.*s/%s", (int)n, dir, name);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* Directory part of PATH ("." when there is none, "/" for "/x"). */
static char *dir_name(const char *path)
{
	const char *s = strrchr(path, '/');
	if (!s)
		return sp_xstrdup(".");
	if (s == path)
		return sp_xstrdup("/");
	return sp_xstrndup(path, (size_t)(s - path));
}

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
} want;

/* One lookup's state: the log (the caller's or our own) and where this
 * lookup's entries begin, to try each path once. */
typedef struct {
	sp_find_log *log;
	size_t first;
	char *found;
	bool saw_mismatch, saw_not_elf;
} search;

static bool already_tried(const search *s, const char *path)
{
	for (size_t i = s->first; i < s->log->n; i++)
		if (strcmp(s->log->v[i].path, path) == 0)
			return true;
	return false;
}

static sp_try_status crc_status(const char *path, uint32_t want_crc)
{
	uint32_t crc = 0;
	sp_error *err = sp_file_crc32(path, &crc);
	if (err) {
		sp_error_free(err);
		return SP_TRY_FAILED;
	}
	return crc == want_crc ? SP_TRY_OK : SP_TRY_BAD_CRC;
}

/* Checks PATH (consumed) against W; on success s->found takes it.
 * Returns true when the search is over. */
static bool try_path(search *s, char *path, const want *w)
{
	struct stat st;
	sp_elf_info info;
	sp_try_status status;

	if (s->found || already_tried(s, path)) {
		free(path);
		return s->found != NULL;
	}
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
		sp_find_log_add(s->log, path, SP_TRY_MISSING);
		free(path);
		return false;
	}
	if (w->self && st.st_dev == w->self->dev && st.st_ino == w->self->ino) {
		free(path);
		return false;
	}
	char *why = NULL; /* what failed */
	sp_error *err = sp_elf_info_read(path, &info);
	if (err) {
		sp_errcode c = sp_error_root_code(err);
		status = c == SP_E_UNRECOGNIZED ? SP_TRY_NOT_ELF :
			 c == SP_E_NOT_FOUND    ? SP_TRY_MISSING :
						  SP_TRY_FAILED;
		if (status == SP_TRY_FAILED) {
			char *msg = sp_error_string(err);
			size_t n = strlen(path);
			bool named = !strncmp(msg, path, n) && !strncmp(msg + n, ": ", 2);
			why = sp_xasprintf("failed: %s", named ? msg + n + 2 : msg);
			free(msg);
		}
		sp_error_free(err);
	} else {
		if (w->build_id && (info.build_id ? strcasecmp(w->build_id, info.build_id) != 0
						  : w->need_build_id))
			status = SP_TRY_BUILD_ID_MISMATCH;
		else if (w->check_crc)
			status = crc_status(path, w->crc);
		else
			status = SP_TRY_OK;
		if (status == SP_TRY_OK && w->need_dwarf && !info.has_dwarf)
			status = SP_TRY_NO_DEBUG_INFO;
		if (status == SP_TRY_OK && w->check)
			status = w->check(path, w->check_arg);
		sp_elf_info_clear(&info);
	}
	if (status == SP_TRY_BUILD_ID_MISMATCH)
		s->saw_mismatch = true;
	if (status == SP_TRY_NOT_ELF)
		s->saw_not_elf = true;
	sp_find_log_add(s->log, path, status);
	s->log->v[s->log->n - 1].detail = why;
	if (status == SP_TRY_OK) {
		s->found = path;
		return true;
	}
	free(path);
	return false;
}

/* Every entry of DIR (no dot files) in strcmp order, tried in turn: the
 * glob D/<build id>/\* of pprof's list. */
static bool try_dir_entries(search *s, const char *dir, const want *w)
{
	DIR *d = opendir(dir);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;

	if (!d)
		return false;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			SP_PUSH(names, n, cap, sp_xstrdup(e->d_name));
	closedir(d);
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *t = names[j];
			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	bool done = false;
	for (size_t i = 0; i < n; i++) {
		if (!done)
			done = try_path(s, join(dir, names[i]), w);
		free(names[i]);
	}
	free(names);
	return done;
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

/* One query of BUILD_ID, without libdebuginfod's retries, LEFT seconds
 * before the deadline; the bytes that arrive count against the run's. */
static int ask(sp_finder *f, debuginfod_client *c, const char *build_id, bool debuginfo,
	       double left, char **got)
{
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
	return fd;
}

/* A file the cache got from a server that is not what was asked for: it
 * goes, and so does its build id's directory when that is left empty. */
static void uncache(const char *path)
{
	if (unlink(path) != 0)
		return;
	char *dir = dir_name(path);
	rmdir(dir);
	free(dir);
}

/* Asks debuginfod for the executable or the debug info of BUILD_ID and
 * checks what it returns like any other candidate (a build id is required
 * of it); a file that fails the check is removed from the cache. */
static bool try_debuginfod(sp_finder *f, search *s, const char *build_id, bool debuginfo,
			   const want *w)
{
	if (!is_hex(build_id))
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
	want strict = *w;
	strict.need_build_id = true;
	size_t at = s->log->n;
	bool done = try_path(s, sp_xstrdup(got), &strict);
	if (!done && s->log->n > at && s->log->v[s->log->n - 1].status != SP_TRY_MISSING)
		uncache(got);
	free(got);
	return done;
}

static void search_begin(search *s, sp_find_log *log, sp_find_log *own)
{
	memset(own, 0, sizeof(*own));
	s->log = log ? log : own;
	s->first = s->log->n;
	s->found = NULL;
	s->saw_mismatch = s->saw_not_elf = false;
}

/* The recorded path FILE through the first --path-map whose prefix it
 * has, under the sysroot when there is one; without a sysroot FILE itself
 * after the mapped path.  True when the search is over. */
static bool try_recorded(search *s, const sp_symbolize_options *o, const char *file, const want *w)
{
	const char *rest = NULL, *to = NULL;
	bool done;
	for (size_t i = 0; i < o->n_path_maps; i++) {
		const sp_path_map *m = &o->path_maps[i];
		size_t n = m->from ? strlen(m->from) : 0;
		if (n == 0 || strncmp(file, m->from, n) != 0)
			continue;
		if (file[n] != '\0' && file[n] != '/' && m->from[n - 1] != '/')
			continue;
		rest = file + n;
		to = m->to ? m->to : "";
		break;
	}
	char *mapped = to ? sp_xasprintf("%s%s", to, rest) : sp_xstrdup(file);
	if (o->sysroot && *o->sysroot)
		done = try_path(s, join(o->sysroot, mapped), w);
	else
		done = (to && try_path(s, sp_xstrdup(mapped), w)) ||
		       try_path(s, sp_xstrdup(file), w);
	free(mapped);
	return done;
}

/* Why search S for FILE (may be NULL) with build id BID (may be NULL)
 * found nothing. */
static sp_error *search_failed(const search *s, const char *file, const char *bid)
{
	size_t tried = s->log->n - s->first;
	const char *what = file ? file : "(no path)";
	const char *id = bid ? bid : "none";
	if (s->saw_mismatch)
		return sp_error_new(SP_E_BUILD_ID_MISMATCH,
				    "%s: build id %s: every candidate has another build id "
				    "(%zu places tried)",
				    what, id, tried);
	if (s->saw_not_elf)
		return sp_error_new(SP_E_UNRECOGNIZED,
				    "%s: build id %s: no ELF file found (%zu places tried)", what, id,
				    tried);
	return sp_error_new(SP_E_NOT_FOUND, "%s: build id %s: file not found (%zu places tried)",
			    what, id, tried);
}

sp_error *sp_finder_binary(sp_finder *f, const char *recorded, const char *build_id,
			   char **found, sp_find_log *log)
{
	const sp_symbolize_options *o = f->o;
	sp_find_log own;
	search s;
	want w = { .build_id = build_id && *build_id ? build_id : NULL };
	const char *file = recorded && *recorded ? recorded : NULL;
	const char *bid = w.build_id;
	const char *base = file ? base_name(file) : NULL;
	char *fdir = file ? dir_name(file) : NULL;
	bool done = false;

	*found = NULL;
	search_begin(&s, log, &own);

	/* (1) pprof's candidates in every search dir. */
	for (size_t i = 0; !done && i < o->n_binary_paths; i++) {
		const char *d = o->binary_paths[i];
		if (bid) {
			char *bdir = join(d, bid);
			if (base)
				done = try_path(&s, join(bdir, base), &w);
			if (!done)
				done = try_dir_entries(&s, bdir, &w);
			free(bdir);
			if (!done && file) {
				char *dfile = join(d, file);
				done = try_path(&s, join(dfile, bid), &w);
				free(dfile);
			}
			if (!done && strlen(bid) >= 2)
				done = try_path(&s, sp_xasprintf("%s/%.2s/%s.debug", d, bid, bid + 2),
						&w);
		}
		if (!done && file) {
			char *df = join(d, file);
			char *ddir = join(d, fdir);
			char *dbg = join(d, "usr/lib/debug");
			char *dbgdir = join(dbg, fdir);
			done = try_path(&s, join(d, base), &w) ||
			       try_path(&s, sp_xstrdup(df), &w) ||
			       try_path(&s, sp_xasprintf("%s.debug", df), &w) ||
			       try_path(&s, sp_xasprintf("%s/.debug/%s.debug", ddir, base), &w) ||
			       try_path(&s, sp_xasprintf("%s/%s.debug", dbgdir, base), &w);
			free(df);
			free(ddir);
			free(dbg);
			free(dbgdir);
		}
	}

	/* (2) path maps, then the sysroot; (3) the recorded path itself,
	 * unless a sysroot says the files live elsewhere. */
	if (!done && file)
		done = try_recorded(&s, o, file, &w);

	/* (4) debuginfod. */
	if (!done && bid)
		done = try_debuginfod(f, &s, bid, false, &w);

	free(fdir);
	sp_error *err = NULL;
	if (done)
		*found = s.found;
	else
		err = search_failed(&s, file, bid);
	sp_find_log_clear(&own);
	return err;
}


/* -- kernel images and modules --------------------------------------------- */

/* How a module's file name ends: NAME.ko, compressed as distributions
 * install them, or its separate debug file. */
static const char *const module_ends[] = {".ko", ".ko.xz", ".ko.zst", ".ko.gz", ".ko.debug"};

/* The length of the module_ends entry S ends with after at least one
 * character, 0 when none. */
static size_t module_end(const char *s)
{
	size_t n = strlen(s);
	for (size_t i = 0; i < SP_ARRAY_LEN(module_ends); i++) {
		size_t e = strlen(module_ends[i]);
		if (n > e && !strcmp(s + n - e, module_ends[i]))
			return e;
	}
	return 0;
}

bool sp_kernel_image_name(const char *recorded)
{
	return recorded && !strncmp(recorded, "[kernel.", 8);
}

char *sp_kernel_module_name(const char *recorded)
{
	if (!recorded || !*recorded || sp_kernel_image_name(recorded))
		return NULL;
	size_t n = strlen(recorded);
	if (recorded[0] == '[') /* perf's [name] when it found no file */
		return recorded[n - 1] == ']' && n > 2 ? sp_xstrndup(recorded + 1, n - 2) : NULL;
	const char *base = base_name(recorded);
	size_t e = module_end(base);
	return e ? sp_xstrndup(base, strlen(base) - e) : NULL;
}

/* Whether file name FILE is module NAME's: NAME.ko, compressed as
 * NAME.ko.xz, .ko.zst or .ko.gz, or NAME.ko.debug, the kernel's '-' and '_'
 * being one character in module names. */
static bool module_file(const char *file, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < n; i++) {
		char a = file[i] == '-' ? '_' : file[i], b = name[i] == '-' ? '_' : name[i];
		if (a != b || !file[i])
			return false;
	}
	for (size_t i = 0; i < SP_ARRAY_LEN(module_ends); i++)
		if (!strcmp(file + n, module_ends[i]))
			return true;
	return false;
}

/* Module NAME's files under DIR and its subdirectories (DEPTH levels
 * more), each tried in turn (directory entries in name order).  True when
 * the search is over. */
static bool try_module_tree(search *s, const char *dir, const char *name, const want *w,
			    int depth)
{
	char **names;
	size_t n;
	sp_error *e = sp_dir_names(dir, "", "", &names, &n);
	sp_error_free(e);
	bool done = false;
	for (size_t i = 0; i < n; i++) {
		char *path = join(dir, names[i]);
		struct stat st;
		if (!done && names[i][0] != '.' && stat(path, &st) == 0) {
			if (S_ISDIR(st.st_mode) && depth > 0)
				done = try_module_tree(s, path, name, w, depth - 1);
			else if (S_ISREG(st.st_mode) && module_file(names[i], name))
				done = try_path(s, sp_xstrdup(path), w);
		}
		free(path);
		free(names[i]);
	}
	free(names);
	return done;
}

/* ROOT (may be NULL: "/") joined with the absolute PATH. */
static char *rooted(const char *root, const char *path)
{
	return root && *root ? join(root, path) : sp_xstrdup(path);
}

sp_error *sp_finder_kernel(sp_finder *f, const char *recorded, const char *build_id,
			   const char *release, char **found, sp_find_log *log)
{
	const sp_symbolize_options *o = f->o;
	const char *const *dirs = o->n_debug_dirs ? o->debug_dirs : default_debug_dirs;
	size_t n_dirs = o->n_debug_dirs ? o->n_debug_dirs : SP_ARRAY_LEN(default_debug_dirs);
	const char *bid = build_id && *build_id ? build_id : NULL;
	const char *rel = release && *release && !strchr(release, '/') ? release : NULL;
	char *module = sp_kernel_module_name(recorded);
	bool image = sp_kernel_image_name(recorded);
	want w = {.build_id = bid};
	sp_find_log own;
	search s;
	bool done = false;

	*found = NULL;
	search_begin(&s, log, &own);
	/* (1) every debug dir: its build-id tree, then the release's places */
	for (size_t i = 0; !done && i < n_dirs; i++) {
		const char *d = dirs[i];
		if (is_hex(bid) && strlen(bid) > 2)
			done = try_path(&s, sp_xasprintf("%s/.build-id/%.2s/%s.debug", d, bid, bid + 2),
					&w);
		if (!done && image && rel)
			done = try_path(&s, sp_xasprintf("%s/boot/vmlinux-%s", d, rel), &w) ||
			       try_path(&s, sp_xasprintf("%s/lib/modules/%s/vmlinux", d, rel), &w);
		if (!done && module && recorded[0] == '/') {
			char *in = join(d, recorded);
			/* a compressed module's debug file is NAME.ko.debug */
			size_t n = strlen(in) - module_end(base_name(in));
			done = try_path(&s, sp_xasprintf("%.*s.ko.debug", (int)n, in), &w) ||
			       try_path(&s, sp_xstrdup(in), &w);
			free(in);
		}
		if (!done && module && rel) {
			char *tree = sp_xasprintf("%s/lib/modules/%s", d, rel);
			done = try_module_tree(&s, tree, module, &w, 8);
			free(tree);
		}
	}
	/* (2) the installed kernel's places, under the sysroot if any */
	const char *root = o->sysroot;
	if (!done && image && rel) {
		char *boot = sp_xasprintf("/boot/vmlinux-%s", rel);
		char *build = sp_xasprintf("/lib/modules/%s/build/vmlinux", rel);
		done = try_path(&s, rooted(root, boot), &w) || try_path(&s, rooted(root, build), &w);
		free(boot);
		free(build);
	}
	if (!done && module && recorded[0] == '/')
		done = try_recorded(&s, o, recorded, &w);
	if (!done && module && rel) {
		char *mods = sp_xasprintf("/lib/modules/%s/kernel", rel);
		char *tree = rooted(root, mods);
		done = try_module_tree(&s, tree, module, &w, 8);
		free(tree);
		free(mods);
	}
	/* (3) debuginfod: a kernel's or module's debug file is the whole ELF */
	if (!done && bid)
		done = try_debuginfod(f, &s, bid, true, &w);

	sp_error *err = NULL;
	if (done)
		*found = s.found;
	else
		err = search_failed(&s, recorded, bid);
	free(module);
	sp_find_log_clear(&own);
	return err;
}

sp_error *sp_finder_debuginfo(sp_finder *f, const char *binary, const sp_elf_info *info,
			      char **found, sp_find_log *log)
{
	const sp_symbolize_options *o = f->o;
	const char *const *dirs = o->n_debug_dirs ? o->debug_dirs : default_debug_dirs;
	size_t n_dirs = o->n_debug_dirs ? o->n_debug_dirs : SP_ARRAY_LEN(default_debug_dirs);
	const char *bid = info->build_id && *info->build_id ? info->build_id : NULL;
	want w = { .build_id = bid, .need_dwarf = true, .self = info };
	sp_find_log own;
	search s;
	bool done = false;

	*found = NULL;
	search_begin(&s, log, &own);

	/* (1) build-id trees: <debugdir>/.build-id/xx/rest.debug */
	if (is_hex(bid) && strlen(bid) > 2)
		for (size_t i = 0; !done && i < n_dirs; i++)
			done = try_path(&s,
					sp_xasprintf("%s/.build-id/%.2s/%s.debug", dirs[i], bid,
						     bid + 2),
					&w);

	/* (2) .gnu_debuglink next to the binary, in .debug/ and under each
	 * debug dir + the binary's absolute directory. */
	if (!done && info->debuglink && *info->debuglink && binary) {
		want lw = w;
		lw.check_crc = true;
		lw.crc = info->debuglink_crc;
		char *bdir = dir_name(binary);
		char *dotdebug = join(bdir, ".debug");
		done = try_path(&s, join(bdir, info->debuglink), &lw) ||
		       try_path(&s, join(dotdebug, info->debuglink), &lw);
		free(dotdebug);
		char *abs = realpath(bdir, NULL);
		if (!abs && bdir[0] == '/')
			abs = strdup(bdir);
		for (size_t i = 0; abs && !done && i < n_dirs; i++) {
			char *sub = join(dirs[i], abs);
			done = try_path(&s, join(sub, info->debuglink), &lw);
			free(sub);
		}
		free(abs);
		free(bdir);
	}

	/* (3) debuginfod. */
	if (!done && bid)
		done = try_debuginfod(f, &s, bid, true, &w);

	sp_error *err = NULL;
	if (done)
		*found = s.found;
	else
		err = sp_error_new(SP_E_NOT_FOUND, "%s: no separate debug info found (%zu places tried)",
				   binary ? binary : "(binary)", s.log->n - s.first);
	sp_find_log_clear(&own);
	return err;
}

sp_error *sp_finder_dwo(sp_finder *f, const char *binary, const char *dwo_name,
			const char *comp_dir, sp_try_status (*check)(const char *path, void *arg),
			void *check_arg, char **found, sp_find_log *log)
{
	const sp_symbolize_options *o = f->o;
	const char *const *dirs = o->n_debug_dirs ? o->debug_dirs : default_debug_dirs;
	size_t n_dirs = o->n_debug_dirs ? o->n_debug_dirs : SP_ARRAY_LEN(default_debug_dirs);
	want w = { .check = check, .check_arg = check_arg };
	sp_find_log own;
	search s;
	bool done;

	*found = NULL;
	search_begin(&s, log, &own);
	char *recorded = dwo_name[0] != '/' && comp_dir && *comp_dir ? join(comp_dir, dwo_name)
								      : sp_xstrdup(dwo_name);
	const char *base = base_name(dwo_name);
	/* (1) where the compiler wrote it, through path maps and sysroot */
	done = try_recorded(&s, o, recorded, &w);
	/* (2) beside the binary: the build directory is usually gone */
	if (!done && binary) {
		char *bdir = dir_name(binary);
		done = try_path(&s, join(bdir, base), &w);
		free(bdir);
	}
	/* (3) under each debug dir: the recorded path, then the base name */
	for (size_t i = 0; !done && i < n_dirs; i++)
		done = try_path(&s, join(dirs[i], recorded), &w) ||
		       try_path(&s, join(dirs[i], base), &w);
	free(recorded);

	sp_error *err = NULL;
	if (done)
		*found = s.found;
	else {
		size_t len = 0;
		for (size_t i = s.first; i < s.log->n; i++)
			len += strlen(s.log->v[i].path) +
			       strlen(sp_find_attempt_str(&s.log->v[i])) + 6;
		char *places = sp_xcalloc(1, len + 1), *p = places;
		for (size_t i = s.first; i < s.log->n; i++)
			p += sprintf(p, "%s%s (%s)", i > s.first ? ", " : "", s.log->v[i].path,
				     sp_find_attempt_str(&s.log->v[i]));
		err = sp_error_new(SP_E_NOT_FOUND, "split unit %s not found: looked in %s",
				   dwo_name, places);
		free(places);
	}
	sp_find_log_clear(&own);
	return err;
}

sp_error *sp_finder_dwp(sp_finder *f, const char *binary, char **found, sp_find_log *log)
{
	const sp_symbolize_options *o = f->o;
	const char *const *dirs = o->n_debug_dirs ? o->debug_dirs : default_debug_dirs;
	size_t n_dirs = o->n_debug_dirs ? o->n_debug_dirs : SP_ARRAY_LEN(default_debug_dirs);
	want w = {0};
	sp_find_log own;
	search s;

	*found = NULL;
	search_begin(&s, log, &own);
	char *name = sp_xasprintf("%s.dwp", base_name(binary));
	char *abs = realpath(binary, NULL);
	bool done = try_path(&s, sp_xasprintf("%s.dwp", binary), &w);
	for (size_t i = 0; !done && i < n_dirs; i++) {
		done = try_path(&s, join(dirs[i], name), &w);
		if (!done && abs) {
			char *sub = join(dirs[i], abs);
			done = try_path(&s, sp_xasprintf("%s.dwp", sub), &w);
			free(sub);
		}
	}
	free(abs);
	free(name);
	sp_error *err = NULL;
	if (done)
		*found = s.found;
	else
		err = sp_error_new(SP_E_NOT_FOUND, "%s: no .dwp package found (%zu places tried)",
				   binary, s.log->n - s.first);
	sp_find_log_clear(&own);
	return err;
}

sp_error *sp_find_binary(const sp_symbolize_options *o, const char *recorded,
			 const char *build_id, char **found, sp_find_log *log)
{
	sp_finder *f = sp_finder_new(o);
	sp_error *err = sp_finder_binary(f, recorded, build_id, found, log);
	sp_finder_free(f);
	return err;
}

sp_error *sp_find_debuginfo(const sp_symbolize_options *o, const char *binary,
			    const sp_elf_info *info, char **found, sp_find_log *log)
{
	sp_finder *f = sp_finder_new(o);
	sp_error *err = sp_finder_debuginfo(f, binary, info, found, log);
	sp_finder_free(f);
	return err;
}
