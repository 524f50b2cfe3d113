/* debuginfo.c — separate debug info: build-id trees
 * (/usr/lib/debug/.build-id/1a/2b....debug), .gnu_debuglink (CRC checked),
 * debuginfod; the .dwo files of split units and the .dwp package.
 */
#include "symbolize/find/findp.h"

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

sp_error *sp_finder_debuginfo(sp_finder *f, const char *binary, const sp_elf_info *info,
			      char **found, sp_find_log *log)
{
	const sp_symbolize_options *o = f->o;
	size_t n_dirs;
	const char **dirs = sp_find_debug_dirs(o, &n_dirs);
	const char *bid = info->build_id && *info->build_id ? info->build_id : NULL;
	sp_find_want w = { .build_id = bid, .need_dwarf = true, .self = info };
	sp_find_log own;
	sp_find_search s;
	bool done = false;

	*found = NULL;
	sp_find_begin(&s, log, &own);

	/* (1) build-id trees: <debugdir>/.build-id/xx/rest.debug */
	if (sp_find_is_hex(bid) && strlen(bid) > 2)
		for (size_t i = 0; !done && i < n_dirs; i++)
			done = sp_find_try_path(&s,
					sp_xasprintf("%s/.build-id/%.2s/%s.debug", dirs[i], bid,
						     bid + 2),
					&w);

	/* (2) .gnu_debuglink: the places of sp_find_debuglink_paths */
	if (!done && info->debuglink && *info->debuglink && binary) {
		sp_find_want lw = w;
		lw.check_crc = true;
		lw.crc = info->debuglink_crc;
		char *bdir = sp_find_dir_name(binary);
		char *real = realpath(bdir, NULL);
		char **paths;
		size_t n = sp_find_debuglink_paths(bdir, real, info->debuglink, dirs, n_dirs, &paths);
		for (size_t i = 0; i < n; i++) {
			if (!done)
				done = sp_find_try_path(&s, paths[i], &lw);
			else
				free(paths[i]);
		}
		free(paths);
		free(real);
		free(bdir);
	}

	/* (3) perf's build-id cache; (4) debuginfod. */
	if (!done && bid)
		done = sp_find_try_perf_cache(&s, o, bid, true, &w);
	if (!done && bid)
		done = sp_find_debuginfod(f, &s, bid, true, &w);

	free(dirs);
	sp_error *err = NULL;
	if (done)
		*found = s.found;
	else
		err = sp_error_new(SP_E_NOT_FOUND, "%s: no separate debug info found (%zu places tried)",
				   binary ? binary : "(binary)", s.log->n - s.first);
	sp_find_end(&s, &own);
	return err;
}

/* Appends PATH (consumed) to *V unless it is there already. */
static void add_unique(char ***v, size_t *n, size_t *cap, char *path)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i], path)) {
			free(path);
			return;
		}
	SP_PUSH(*v, *n, *cap, path);
}

/* Under debug dir D: the absolute directory ABS (gdb's rule), then ABS
 * without its leading components one at a time, down to D itself
 * (elfutils' rule, for a binary whose place differs from where its debug
 * file was installed: the debug tree of another root). */
static void under_debug_dir(const char *d, const char *abs, const char *link, char ***v,
			    size_t *n, size_t *cap)
{
	for (const char *sub = abs; sub; sub = strchr(sub + 1, '/')) {
		char *dir = sp_find_join(d, sub);
		add_unique(v, n, cap, sp_find_join(dir, link));
		free(dir);
	}
	add_unique(v, n, cap, sp_find_join(d, link));
}

size_t sp_find_debuglink_paths(const char *bdir, const char *real_bdir, const char *link,
			       const char *const *dirs, size_t n_dirs, char ***out)
{
	char **v = NULL;
	size_t n = 0, cap = 0;
	char *dotdebug = sp_find_join(bdir, ".debug");
	add_unique(&v, &n, &cap, sp_find_join(bdir, link));
	add_unique(&v, &n, &cap, sp_find_join(dotdebug, link));
	free(dotdebug);
	for (size_t i = 0; i < n_dirs; i++) {
		if (bdir[0] == '/')
			under_debug_dir(dirs[i], bdir, link, &v, &n, &cap);
		if (real_bdir && real_bdir[0] == '/')
			under_debug_dir(dirs[i], real_bdir, link, &v, &n, &cap);
	}
	*out = v;
	return n;
}

sp_error *sp_finder_dwo(sp_finder *f, const char *binary, const char *dwo_name,
			const char *comp_dir, sp_try_status (*check)(const char *path, void *arg),
			void *check_arg, char **found, sp_find_log *log)
{
	const sp_symbolize_options *o = f->o;
	size_t n_dirs;
	const char **dirs = sp_find_debug_dirs(o, &n_dirs);
	sp_find_want w = { .check = check, .check_arg = check_arg };
	sp_find_log own;
	sp_find_search s;
	bool done;

	*found = NULL;
	sp_find_begin(&s, log, &own);
	char *recorded = dwo_name[0] != '/' && comp_dir && *comp_dir ? sp_find_join(comp_dir, dwo_name)
								      : sp_xstrdup(dwo_name);
	const char *base = sp_find_base_name(dwo_name);
	/* (1) where the compiler wrote it, through path maps and sysroot */
	done = sp_find_try_recorded(&s, o, recorded, &w);
	/* (2) beside the binary: the build directory is usually gone */
	if (!done && binary) {
		char *bdir = sp_find_dir_name(binary);
		done = sp_find_try_path(&s, sp_find_join(bdir, base), &w);
		free(bdir);
	}
	/* (3) under each debug dir: the recorded path, then the base name */
	for (size_t i = 0; !done && i < n_dirs; i++)
		done = sp_find_try_path(&s, sp_find_join(dirs[i], recorded), &w) ||
		       sp_find_try_path(&s, sp_find_join(dirs[i], base), &w);
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
	free(dirs);
	sp_find_end(&s, &own);
	return err;
}

sp_error *sp_finder_dwp(sp_finder *f, const char *binary, char **found, sp_find_log *log)
{
	const sp_symbolize_options *o = f->o;
	size_t n_dirs;
	const char **dirs = sp_find_debug_dirs(o, &n_dirs);
	sp_find_want w = {0};
	sp_find_log own;
	sp_find_search s;

	*found = NULL;
	sp_find_begin(&s, log, &own);
	char *name = sp_xasprintf("%s.dwp", sp_find_base_name(binary));
	char *abs = realpath(binary, NULL);
	bool done = sp_find_try_path(&s, sp_xasprintf("%s.dwp", binary), &w);
	for (size_t i = 0; !done && i < n_dirs; i++) {
		done = sp_find_try_path(&s, sp_find_join(dirs[i], name), &w);
		if (!done && abs) {
			char *sub = sp_find_join(dirs[i], abs);
			done = sp_find_try_path(&s, sp_xasprintf("%s.dwp", sub), &w);
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
	free(dirs);
	sp_find_end(&s, &own);
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
