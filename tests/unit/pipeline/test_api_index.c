/* test_api_index.c — libsymprof's sessions with symprof_options.index_dir
 * (symbol indexes by build id), through symprof.h alone.
 *
 * The fixture testdata/src/symbolize/fixture.cc is built as a PIE at test
 * time, and a copy of it without its debug info (strip --strip-debug: the
 * same build id, the symbol table alone).  A session with index_dir asked
 * for the file with its debug info answers as a session without, and
 * leaves DIR/BUILDID.spx (the build id from readelf); a second session
 * asked for the copy answers from that index exactly as the first did,
 * which a session without the index cannot (checked), at every 8th byte of
 * the fixture's own functions (nm), inline chains included.
 */
#include "pipeline/symprof.h"
#include "tests/helpers/tap.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DIAG(...) (fputs("# ", stdout), printf(__VA_ARGS__), fputc('\n', stdout))

/* snprintf into the array BUF, which must hold it all */
#define FMT(buf, ...)                                                            \
	(snprintf(buf, sizeof(buf), __VA_ARGS__) < (int)sizeof(buf) ? (buf) : (abort(), (buf)))

/* Every 8th byte of the sized C++ functions and main of EXE (nm -S). */
static uint64_t *addresses(const char *exe, size_t *n)
{
	char cmd[4096];
	FILE *f = popen(FMT(cmd,
			    "nm -S --defined-only '%s' | awk 'NF == 4 && $3 ~ /^[tT]$/ && "
			    "($4 ~ /^_Z/ || $4 == \"main\") { print $1, $2 }'",
			    exe),
			"r");
	uint64_t *v = NULL;
	size_t cap = 0;
	*n = 0;
	unsigned long long a, size;
	while (f && fscanf(f, "%llx %llx", &a, &size) == 2)
		for (unsigned long long o = 0; o < size; o += 8) {
			if (*n == cap) {
				cap = cap ? 2 * cap : 256;
				v = realloc(v, cap * sizeof(*v));
				if (!v)
					abort();
			}
			v[(*n)++] = a + o;
		}
	if (f)
		pclose(f);
	return v;
}

static char *build_id(const char *exe)
{
	char cmd[4096];
	FILE *f = popen(FMT(cmd, "readelf -n '%s' | awk '/Build ID:/ { print $3 }'", exe), "r");
	char buf[128] = "";
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		pclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
	return strdup(buf);
}

/* The answers for ADDRS[0..n) of PATH from a new session (INDEX_DIR may
 * be NULL); NULL when the session or the call failed. */
static symprof_symbols *answers(const char *index_dir, const char *path, const uint64_t *addrs,
				size_t n)
{
	symprof_options o = {.size = sizeof(o), .no_debuginfod = 1, .index_dir = index_dir};
	symprof_session *s = NULL;
	symprof_error *e = symprof_session_new(&o, &s);
	symprof_symbols *r = NULL;
	if (!e) {
		symprof_target t = {.size = sizeof(t), .path = path};
		e = symprof_symbolize(s, &t, addrs, n, &r);
	}
	if (e)
		DIAG("%s: %s", path, symprof_error_message(e));
	symprof_error_free(e);
	symprof_session_free(s);
	return r;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Where A and B differ first (index into their locations), or -1;
 * *INLINED counts the frames of A's chains that are inlined. */
static long first_difference(const symprof_symbols *a, const symprof_symbols *b, size_t *inlined)
{
	*inlined = 0;
	if (a->n_locations != b->n_locations)
		return 0;
	for (size_t i = 0; i < a->n_locations; i++) {
		const symprof_location *x = &a->locations[i], *y = &b->locations[i];
		if (x->n_frames != y->n_frames || x->reason != y->reason)
			return (long)i;
		for (size_t k = 0; k < x->n_frames; k++) {
			const symprof_frame *f = &x->frames[k], *g = &y->frames[k];
			*inlined += f->inlined != 0;
			if (!same_str(f->function, g->function) ||
			    !same_str(f->linkage_name, g->linkage_name) ||
			    !same_str(f->file, g->file) || f->line != g->line ||
			    f->column != g->column || f->start_line != g->start_line ||
			    f->inlined != g->inlined)
				return (long)i;
		}
	}
	return -1;
}

int main(void)
{
	const char *srcdir = getenv("SP_SRCDIR");
	char src[4096], exe[256], bare[256], dir[256], spx[512], cmd[8192];
	FMT(src, "%s/testdata/src/symbolize/fixture.cc", srcdir ? srcdir : "..");
	char tmpdir[] = "/tmp/sp-api-index-XXXXXX";
	if (!mkdtemp(tmpdir))
		return 1;
	FMT(exe, "%s/fixture", tmpdir);
	FMT(bare, "%s/bare", tmpdir);
	FMT(dir, "%s/ix", tmpdir);
	FMT(cmd, "g++ -O2 -g -fPIE -pie -Wl,--build-id -o '%s' '%s' && strip --strip-debug -o '%s' '%s'",
	    exe, src, bare, exe);
	TAP_OK(system(cmd) == 0, "compiled the PIE fixture and a copy without debug info");
	char *id = build_id(exe), *id_bare = build_id(bare);
	TAP_OK(*id && !strcmp(id, id_bare), "the same build id (readelf): %s", id);
	size_t n;
	uint64_t *addrs = addresses(exe, &n);
	TAP_OK(n > 100, "%zu addresses in the fixture's functions", n);

	symprof_symbols *ref = answers(NULL, exe, addrs, n);
	symprof_symbols *filled = answers(dir, exe, addrs, n);
	FMT(spx, "%s/%s.spx", dir, id);
	struct stat st;
	size_t inlined = 0;
	TAP_OK(ref && filled && first_difference(ref, filled, &inlined) < 0 &&
		       filled->report.n_resolved == n,
	       "index_dir, no index yet: the answers of a session without it");
	TAP_OK(inlined > 0, "(%zu inlined frames among them)", inlined);
	TAP_OK(stat(spx, &st) == 0 && st.st_size > 0, "... and it wrote %s", spx);

	symprof_symbols *from_index = answers(dir, bare, addrs, n);
	long d = from_index && ref ? first_difference(ref, from_index, &inlined) : 0;
	TAP_OK(d < 0, "the copy without debug info, from the index: the same answers");
	if (d >= 0 && from_index && ref)
		DIAG("first differs at %#llx", (unsigned long long)addrs[d]);
	symprof_symbols *without = answers(NULL, bare, addrs, n);
	TAP_OK(without && ref && first_difference(ref, without, &inlined) >= 0,
	       "(the copy without the index answers otherwise: the index answered)");

	symprof_symbols_free(ref);
	symprof_symbols_free(filled);
	symprof_symbols_free(from_index);
	symprof_symbols_free(without);
	if (system(FMT(cmd, "rm -rf '%s'", tmpdir)) != 0)
		DIAG("could not remove %s", tmpdir);
	free(addrs);
	free(id);
	free(id_bare);
	return tap_done();
}
