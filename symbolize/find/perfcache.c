/* perfcache.c — perf's build-id cache.  `perf record` copies every object it
 * saw into a tree (by default ~/.debug, else $PERF_BUILDID_DIR, else the
 * `buildid.dir` of perf's config files), and `perf archive` packs the same
 * tree for another machine:
 *
 *   ROOT/.build-id/NN/REST -> ../../PATH/OF/OBJECT/NNREST   (a directory)
 *   ROOT/PATH/OF/OBJECT/NNREST/elf       the object as it was recorded
 *   ROOT/PATH/OF/OBJECT/NNREST/debug     its debug file, when perf had one
 *   ROOT/[kernel.kallsyms]/NNREST/kallsyms   the kernel's /proc/kallsyms
 *
 * (perf before 4.x linked ROOT/.build-id/NN/REST to the object itself.)
 * The roots looked in are every --debug-dir (a perf tree, or an unpacked
 * `perf archive`, may be given as one), then perf's own.  A cached object
 * is known by its build id: it is tried only where a build id is recorded,
 * and must match it.
 */
#include "symbolize/find/findp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* The value of `dir` in the [buildid] section of perf config file PATH,
 * NULL when not set (caller frees). */
static char *config_buildid_dir(const char *path)
{
	FILE *f = path ? fopen(path, "r") : NULL;
	if (!f)
		return NULL;
	char line[4096], *found = NULL;
	bool in_section = false;
	while (fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " \t");
		p[strcspn(p, "\r\n")] = '\0';
		if (*p == '#' || *p == ';' || !*p)
			continue;
		if (*p == '[') {
			size_t n = strcspn(p + 1, "] \t");
			in_section = n == 7 && !strncasecmp(p + 1, "buildid", 7);
			continue;
		}
		if (!in_section || strncasecmp(p, "dir", 3) || !strchr(" \t=", p[3]))
			continue;
		p += 3 + strspn(p + 3, " \t");
		if (*p != '=')
			continue;
		p++;
		p += strspn(p, " \t");
		size_t n = strlen(p);
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if (n >= 2 && p[0] == '"' && p[n - 1] == '"') {
			p++;
			n -= 2;
		}
		free(found);
		found = n ? sp_xasprintf("%.*s", (int)n, p) : NULL;
	}
	fclose(f);
	return found;
}

char *sp_find_perf_cache_root(void)
{
	const char *env = getenv("PERF_BUILDID_DIR");
	if (env && *env)
		return sp_xstrdup(env);
	const char *home = getenv("HOME");
	/* perf reads /etc/perfconfig, then the user's file, which wins;
	 * $PERF_CONFIG names the only file read instead */
	const char *only = getenv("PERF_CONFIG");
	char *dir = NULL;
	if (only && *only) {
		dir = config_buildid_dir(only);
	} else {
		char *user = home && *home ? sp_xasprintf("%s/.perfconfig", home) : NULL;
		dir = config_buildid_dir(user);
		free(user);
		if (!dir)
			dir = config_buildid_dir("/etc/perfconfig");
	}
	if (dir && dir[0] == '~' && (dir[1] == '/' || !dir[1]) && home && *home) {
		char *full = sp_xasprintf("%s%s", home, dir + 1);
		free(dir);
		dir = full;
	}
	if (dir)
		return dir;
	return home && *home ? sp_xasprintf("%s/.debug", home) : NULL;
}

/* The roots of O to look in: the debug dirs (defaults too), then perf's
 * own; *N of them, the array and its strings malloc'd. */
static char **roots(const sp_symbolize_options *o, size_t *n)
{
	size_t n_dirs, cap = 0;
	const char **dirs = sp_find_debug_dirs(o, &n_dirs);
	char **v = NULL;
	*n = 0;
	for (size_t i = 0; i < n_dirs; i++)
		SP_PUSH(v, *n, cap, sp_xstrdup(dirs[i]));
	free(dirs);
	char *own = sp_find_perf_cache_root();
	if (own)
		SP_PUSH(v, *n, cap, own);
	return v;
}

static void free_roots(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static bool is_dir(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

bool sp_find_try_perf_cache(sp_find_search *s, const sp_symbolize_options *o, const char *bid,
			    bool debuginfo, const sp_find_want *w)
{
	if (!sp_find_is_hex(bid) || strlen(bid) <= 2)
		return false;
	size_t n;
	char **v = roots(o, &n);
	bool done = false;
	for (size_t i = 0; !done && i < n; i++) {
		char *link = sp_xasprintf("%s/.build-id/%.2s/%s", v[i], bid, bid + 2);
		if (is_dir(link)) {
			/* the debug file first when debug info is wanted */
			if (debuginfo)
				done = sp_find_try_path(s, sp_xasprintf("%s/debug", link), w);
			if (!done)
				done = sp_find_try_path(s, sp_xasprintf("%s/elf", link), w);
			if (!done && !debuginfo)
				done = sp_find_try_path(s, sp_xasprintf("%s/debug", link), w);
			free(link);
		} else {
			struct stat st;
			if (!stat(link, &st)) /* (perf before 4.x) */
				done = sp_find_try_path(s, link, w);
			else
				free(link);
		}
	}
	free_roots(v, n);
	return done;
}

char *sp_find_perf_kallsyms(const sp_symbolize_options *o, const char *bid)
{
	if (!sp_find_is_hex(bid) || strlen(bid) <= 2)
		return NULL;
	size_t n;
	char **v = roots(o, &n);
	char *found = NULL;
	for (size_t i = 0; !found && i < n; i++) {
		char *c[2] = {sp_xasprintf("%s/.build-id/%.2s/%s/kallsyms", v[i], bid, bid + 2),
			      sp_xasprintf("%s/[kernel.kallsyms]/%s/kallsyms", v[i], bid)};
		for (int k = 0; k < 2; k++) {
			struct stat st;
			if (!found && !stat(c[k], &st) && S_ISREG(st.st_mode))
				found = c[k];
			else
				free(c[k]);
		}
	}
	free_roots(v, n);
	return found;
}
