/* kernel.c — the vmlinux or kernel module (.ko, compressed or not) of a
 * perf.data kernel mapping, by build id and kernel release.
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
	const char *base = sp_find_base_name(recorded);
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
static bool try_module_tree(sp_find_search *s, const char *dir, const char *name,
			    const sp_find_want *w, int depth)
{
	char **names;
	size_t n;
	sp_error *e = sp_dir_names(dir, "", "", &names, &n);
	sp_error_free(e);
	bool done = false;
	for (size_t i = 0; i < n; i++) {
		char *path = sp_find_join(dir, names[i]);
		struct stat st;
		if (!done && names[i][0] != '.' && stat(path, &st) == 0) {
			if (S_ISDIR(st.st_mode) && depth > 0)
				done = try_module_tree(s, path, name, w, depth - 1);
			else if (S_ISREG(st.st_mode) && module_file(names[i], name))
				done = sp_find_try_path(s, sp_xstrdup(path), w);
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
	return root && *root ? sp_find_join(root, path) : sp_xstrdup(path);
}

sp_error *sp_finder_kernel(sp_finder *f, const char *recorded, const char *build_id,
			   const char *release, char **found, sp_find_log *log)
{
	const sp_symbolize_options *o = f->o;
	size_t n_dirs;
	const char **dirs = sp_find_debug_dirs(o, &n_dirs);
	const char *bid = build_id && *build_id ? build_id : NULL;
	const char *rel = release && *release && !strchr(release, '/') ? release : NULL;
	char *module = sp_kernel_module_name(recorded);
	bool image = sp_kernel_image_name(recorded);
	sp_find_want w = {.build_id = bid};
	sp_find_log own;
	sp_find_search s;
	bool done = false;

	*found = NULL;
	sp_find_begin(&s, log, &own);
	/* (1) every debug dir: its build-id tree, then the release's places */
	for (size_t i = 0; !done && i < n_dirs; i++) {
		const char *d = dirs[i];
		if (sp_find_is_hex(bid) && strlen(bid) > 2)
			done = sp_find_try_path(&s, sp_xasprintf("%s/.build-id/%.2s/%s.debug", d, bid, bid + 2),
					&w);
		if (!done && image && rel)
			done = sp_find_try_path(&s, sp_xasprintf("%s/boot/vmlinux-%s", d, rel), &w) ||
			       sp_find_try_path(&s, sp_xasprintf("%s/lib/modules/%s/vmlinux", d, rel), &w);
		if (!done && module && recorded[0] == '/') {
			char *in = sp_find_join(d, recorded);
			/* a compressed module's debug file is NAME.ko.debug */
			size_t n = strlen(in) - module_end(sp_find_base_name(in));
			done = sp_find_try_path(&s, sp_xasprintf("%.*s.ko.debug", (int)n, in), &w) ||
			       sp_find_try_path(&s, sp_xstrdup(in), &w);
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
		done = sp_find_try_path(&s, rooted(root, boot), &w) ||
		       sp_find_try_path(&s, rooted(root, build), &w);
		free(boot);
		free(build);
	}
	if (!done && module && recorded[0] == '/')
		done = sp_find_try_recorded(&s, o, recorded, &w);
	if (!done && module && rel) {
		char *mods = sp_xasprintf("/lib/modules/%s/kernel", rel);
		char *tree = rooted(root, mods);
		done = try_module_tree(&s, tree, module, &w, 8);
		free(tree);
		free(mods);
	}
	/* (3) perf's build-id cache; (4) debuginfod: a kernel's or module's
	 * debug file is the whole ELF */
	if (!done && bid)
		done = sp_find_try_perf_cache(&s, o, bid, true, &w);
	if (!done && bid)
		done = sp_find_debuginfod(f, &s, bid, true, &w);

	sp_error *err = NULL;
	if (done)
		*found = s.found;
	else
		err = sp_find_failed(&s, recorded, bid);
	free(module);
	free(dirs);
	sp_find_end(&s, &own);
	return err;
}
