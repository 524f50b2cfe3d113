/* binary.c — where the binary of a recorded mapping is on this machine.
 * For a mapping recorded as /usr/lib/libfoo.so with build id 1a2b..., the
 * binary is looked for in every --binary-path dir (pprof's candidate list,
 * spec/FORMATS.md §6.5: D/1a2b.../libfoo.so, D/1a2b.../\*, ...), then at the
 * recorded path rewritten by --path-map and --sysroot, then at the recorded
 * path itself, then in perf's build-id cache (perfcache.c), then through
 * debuginfod.
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

sp_error *sp_finder_binary(sp_finder *f, const char *recorded, const char *build_id,
			   char **found, sp_find_log *log)
{
	return sp_finder_binary_check(f, recorded, build_id, NULL, NULL, found, log);
}

sp_error *sp_finder_binary_check(sp_finder *f, const char *recorded, const char *build_id,
				 sp_try_status (*check)(const char *path, void *arg), void *arg,
				 char **found, sp_find_log *log)
{
	const sp_symbolize_options *o = f->o;
	sp_find_log own;
	sp_find_search s;
	sp_find_want w = { .build_id = build_id && *build_id ? build_id : NULL, .check = check,
			   .check_arg = arg };
	const char *file = recorded && *recorded ? recorded : NULL;
	const char *bid = w.build_id;
	const char *base = file ? sp_find_base_name(file) : NULL;
	char *fdir = file ? sp_find_dir_name(file) : NULL;
	bool done = false;

	*found = NULL;
	sp_find_begin(&s, log, &own);

	/* (1) pprof's candidates in every search dir. */
	for (size_t i = 0; !done && i < o->n_binary_paths; i++) {
		const char *d = o->binary_paths[i];
		if (bid) {
			char *bdir = sp_find_join(d, bid);
			if (base)
				done = sp_find_try_path(&s, sp_find_join(bdir, base), &w);
			if (!done)
				done = sp_find_try_dir(&s, bdir, &w);
			free(bdir);
			if (!done && file) {
				char *dfile = sp_find_join(d, file);
				done = sp_find_try_path(&s, sp_find_join(dfile, bid), &w);
				free(dfile);
			}
			if (!done && strlen(bid) >= 2)
				done = sp_find_try_path(&s, sp_xasprintf("%s/%.2s/%s.debug", d, bid, bid + 2),
						&w);
		}
		if (!done && file) {
			char *df = sp_find_join(d, file);
			char *ddir = sp_find_join(d, fdir);
			char *dbg = sp_find_join(d, "usr/lib/debug");
			char *dbgdir = sp_find_join(dbg, fdir);
			done = sp_find_try_path(&s, sp_find_join(d, base), &w) ||
			       sp_find_try_path(&s, sp_xstrdup(df), &w) ||
			       sp_find_try_path(&s, sp_xasprintf("%s.debug", df), &w) ||
			       sp_find_try_path(&s, sp_xasprintf("%s/.debug/%s.debug", ddir, base), &w) ||
			       sp_find_try_path(&s, sp_xasprintf("%s/%s.debug", dbgdir, base), &w);
			free(df);
			free(ddir);
			free(dbg);
			free(dbgdir);
		}
	}

	/* (2) path maps, then the sysroot; (3) the recorded path itself,
	 * unless a sysroot says the files live elsewhere. */
	if (!done && file)
		done = sp_find_try_recorded(&s, o, file, &w);

	/* (4) perf's build-id cache (what `perf record` kept, or an unpacked
	 * `perf archive` under a --debug-dir); (5) debuginfod. */
	if (!done && bid)
		done = sp_find_try_perf_cache(&s, o, bid, false, &w);
	if (!done && bid)
		done = sp_find_debuginfod(f, &s, bid, false, &w);

	free(fdir);
	sp_error *err = NULL;
	if (done)
		*found = s.found;
	else
		err = sp_find_failed(&s, file, bid);
	sp_find_end(&s, &own);
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
