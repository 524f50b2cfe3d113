/* finder.c — the finder and its log, and how one candidate is tried: every
 * path a lookup considers is checked (ELF, build id, CRC, DWARF, the caller's
 * own test) and logged with what was wrong with it, so a report can say
 * where symprof looked.  What is looked for where is in binary.c,
 * debuginfo.c, kernel.c and debuginfod.c.
 */
#include "symbolize/find/findp.h"
#include "symbolize/find/libdebuginfod.h"

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

static const char *const default_debug_dirs[] = { "/usr/lib/debug" };

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
	case SP_TRY_FILE_ID_MISMATCH:
		return "file id (htlhash) mismatch";
	case SP_TRY_NOT_REGULAR:
		return "not a regular file";
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

bool sp_find_is_hex(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') ||
		      (*s >= 'A' && *s <= 'F')))
			return false;
	return true;
}

/* DIR/NAME without doubled slashes; NAME's leading slashes are dropped. */
char *sp_find_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	while (*name == '/')
		name++;
	return sp_xasprintf("%.*s/%s", (int)n, dir, name);
}

const char *sp_find_base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* Directory part of PATH ("." when there is none, "/" for "/x"). */
char *sp_find_dir_name(const char *path)
{
	const char *s = strrchr(path, '/');
	if (!s)
		return sp_xstrdup(".");
	if (s == path)
		return sp_xstrdup("/");
	return sp_xstrndup(path, (size_t)(s - path));
}

static bool already_tried(const sp_find_search *s, const char *path)
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
bool sp_find_try_path(sp_find_search *s, char *path, const sp_find_want *w)
{
	struct stat st;
	sp_elf_info info;
	sp_try_status status;

	if (s->found || already_tried(s, path)) {
		free(path);
		return s->found != NULL;
	}
	int serr = stat(path, &st) != 0 ? errno : 0;
	if (serr == ENOENT || serr == ENOTDIR) {
		sp_find_log_add(s->log, path, SP_TRY_MISSING);
		free(path);
		return false;
	}
	if (serr || !S_ISREG(st.st_mode)) {
		/* there, but nothing to read (a device, a FIFO), or unreadable */
		char *why = serr ? sp_xasprintf("failed: %s", strerror(serr))
				 : sp_xasprintf("not a regular file: %s",
						sp_file_type_name(st.st_mode));
		char **first = serr ? &s->failed : &s->not_regular;
		if (!*first)
			*first = serr ? sp_xasprintf("%s: %s", path, strerror(serr))
				      : sp_xasprintf("%s is %s", path, sp_file_type_name(st.st_mode));
		sp_find_log_add(s->log, path, serr ? SP_TRY_FAILED : SP_TRY_NOT_REGULAR);
		s->log->v[s->log->n - 1].detail = why;
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
			if (!s->failed)
				s->failed = named ? sp_xstrdup(msg)
						  : sp_xasprintf("%s: %s", path, msg);
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
	if (status == SP_TRY_BUILD_ID_MISMATCH || status == SP_TRY_FILE_ID_MISMATCH)
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
bool sp_find_try_dir(sp_find_search *s, const char *dir, const sp_find_want *w)
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
			done = sp_find_try_path(s, sp_find_join(dir, names[i]), w);
		free(names[i]);
	}
	free(names);
	return done;
}

void sp_find_begin(sp_find_search *s, sp_find_log *log, sp_find_log *own)
{
	memset(own, 0, sizeof(*own));
	s->log = log ? log : own;
	s->first = s->log->n;
	s->found = NULL;
	s->saw_mismatch = s->saw_not_elf = false;
	s->not_regular = s->failed = NULL;
}

void sp_find_end(sp_find_search *s, sp_find_log *own)
{
	free(s->not_regular);
	free(s->failed);
	s->not_regular = s->failed = NULL;
	sp_find_log_clear(own);
}

/* The recorded path FILE through the first --path-map whose prefix it
 * has, under the sysroot when there is one; without a sysroot FILE itself
 * after the mapped path.  True when the search is over. */
bool sp_find_try_recorded(sp_find_search *s, const sp_symbolize_options *o, const char *file,
			  const sp_find_want *w)
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
		done = sp_find_try_path(s, sp_find_join(o->sysroot, mapped), w);
	else
		done = (to && sp_find_try_path(s, sp_xstrdup(mapped), w)) ||
		       sp_find_try_path(s, sp_xstrdup(file), w);
	free(mapped);
	return done;
}

/* Why search S for FILE (may be NULL) with build id BID (may be NULL)
 * found nothing. */
sp_error *sp_find_failed(const sp_find_search *s, const char *file, const char *bid)
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
	/* a candidate that is there but cannot be used is not "not found" */
	if (s->failed)
		return sp_error_new(SP_E_IO, "%s: build id %s: %s (%zu places tried)", what, id,
				    s->failed, tried);
	if (s->not_regular)
		return sp_error_new(SP_E_NOT_REGULAR,
				    "%s: build id %s: %s (%zu places tried)", what, id,
				    s->not_regular, tried);
	return sp_error_new(SP_E_NOT_FOUND, "%s: build id %s: file not found (%zu places tried)",
			    what, id, tried);
}

const char **sp_find_debug_dirs(const sp_symbolize_options *o, size_t *n)
{
	size_t k = 0, extra = o->no_default_debug_dirs ? 0 : SP_ARRAY_LEN(default_debug_dirs);
	const char **v = sp_xreallocarray(NULL, o->n_debug_dirs + extra + 1, sizeof(*v));
	for (size_t i = 0; i < o->n_debug_dirs; i++)
		v[k++] = o->debug_dirs[i];
	for (size_t i = 0; i < extra; i++) {
		bool given = false;
		for (size_t j = 0; j < o->n_debug_dirs && !given; j++)
			given = !strcmp(o->debug_dirs[j], default_debug_dirs[i]);
		if (!given)
			v[k++] = default_debug_dirs[i];
	}
	*n = k;
	return v;
}
