/* dwarf_fixtures.h — the fixture programs the DWARF tests (test_lines,
 * test_dwwalk) build from source at test time, each as DWARF 2 to 5 with
 * gcc, and as DWARF 4 and 5 with clang.
 */
#ifndef SYMPROF_TESTS_DWARF_FIXTURES_H
#define SYMPROF_TESTS_DWARF_FIXTURES_H

#include "common/common.h"

#include <stdlib.h>

typedef struct {
	const char *src, *cc, *opt;
} dwarf_fixture;

/* The gcc builds first: DWARF_FIXTURES_GCC of them. */
static const dwarf_fixture dwarf_fixtures[] = {
	{"testdata/src/symbolize/fixture.cc", "g++", "-O2"},
	{"testdata/src/symbolize/fixture.cc", "g++", "-O0"},
	{"testdata/src/symbolize/heap_fixture.cc", "g++", "-O2 -c"},
	{"tests/helpers/jitfix.c", "gcc", "-O2 -c"},
	{"tests/helpers/jitfix.c", "gcc", "-O0 -c"},
	{"testdata/src/symbolize/fixture.cc", "clang++", "-O2"},
	{"tests/helpers/jitfix.c", "clang", "-O2 -c"},
};
#define DWARF_FIXTURES_GCC 5

static const char *const dwarf_versions[] = {"2", "3", "4", "5"};

/* Builds F from SRCDIR as DWARF VERSION into OUT: whether it built. */
__attribute__((unused)) static bool dwarf_fixture_build(const dwarf_fixture *f,
							 const char *version, const char *srcdir,
							 const char *out)
{
	char *cmd = sp_xasprintf("%s %s -g -gdwarf-%s -I'%s' -o '%s' '%s/%s' 2>/dev/null", f->cc,
				 f->opt, version, srcdir, out, srcdir, f->src);
	int rc = system(cmd);
	free(cmd);
	return rc == 0;
}

#endif
