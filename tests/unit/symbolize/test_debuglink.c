/* test_debuglink.c — where a .gnu_debuglink file is looked for, in order
 * (symbolize/find/debuginfo.c, sp_find_debuglink_paths): gdb's documented
 * order (the binary's directory, its .debug/, each global debug directory
 * + the binary's directory), then elfutils' trailing directories under each
 * debug directory (libdwfl/find-debuginfo.c), each place once.
 */
#include "symbolize/find/findp.h"

#include "tests/helpers/tap.h"

#include <stdlib.h>

static void row(const char *what, const char *bdir, const char *real, const char *const *dirs,
		size_t n_dirs, const char *const *want, size_t n_want)
{
	char **got;
	size_t n = sp_find_debuglink_paths(bdir, real, "prog.debug", dirs, n_dirs, &got);
	TAP_EQ_U64(n, n_want, "%s: %zu places", what, n_want);
	for (size_t i = 0; i < n || i < n_want; i++) {
		if (i < n && i < n_want)
			TAP_EQ_STR(got[i], want[i], "%s: place %zu", what, i + 1);
		if (i < n)
			free(got[i]);
	}
	free(got);
}

int main(void)
{
	static const char *const one[] = {"/usr/lib/debug"};
	static const char *const usr_bin[] = {
		"/usr/bin/prog.debug",
		"/usr/bin/.debug/prog.debug",
		"/usr/lib/debug/usr/bin/prog.debug",
		"/usr/lib/debug/bin/prog.debug",
		"/usr/lib/debug/prog.debug",
	};
	row("/usr/bin/prog, the default debug dir", "/usr/bin", "/usr/bin", one, 1, usr_bin, 5);

	static const char *const two[] = {"/d1", "/d2"};
	static const char *const root_bin[] = {
		"/srv/root/bin/prog.debug",
		"/srv/root/bin/.debug/prog.debug",
		"/d1/srv/root/bin/prog.debug",
		"/d1/root/bin/prog.debug",
		"/d1/bin/prog.debug",
		"/d1/prog.debug",
		"/d2/srv/root/bin/prog.debug",
		"/d2/root/bin/prog.debug",
		"/d2/bin/prog.debug",
		"/d2/prog.debug",
	};
	row("a binary under another root, two debug dirs", "/srv/root/bin", NULL, two, 2, root_bin,
	    10);

	static const char *const linked[] = {
		"/opt/app/bin/prog.debug",
		"/opt/app/bin/.debug/prog.debug",
		"/d1/opt/app/bin/prog.debug",
		"/d1/app/bin/prog.debug",
		"/d1/bin/prog.debug",
		"/d1/prog.debug",
		"/d1/data/app-1.2/bin/prog.debug",
		"/d1/app-1.2/bin/prog.debug",
	};
	row("a directory behind a symbolic link: its real path too", "/opt/app/bin",
	    "/data/app-1.2/bin", two, 1, linked, 8);

	static const char *const rel[] = {"bin/prog.debug", "bin/.debug/prog.debug"};
	row("a relative directory: no debug-dir places", "bin", NULL, one, 1, rel, 2);
	return tap_done();
}
