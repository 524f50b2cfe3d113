/* test_rules.c — rules of the resolver (symbolize/dwarf/) that other symbolizers' own
 * tests check, one table per rule: a row is a fixture made at test time from a source
 * of testdata/src/ (yaml2obj, the assembler), an address, and the frames expected there,
 * as the fixture is written.  tests/cli/ checks the same against the tool that is right
 * there.
 */
#include "symbolize/dwarf/dwarfp.h"

#include "tests/helpers/tap.h"

#include <gelf.h>
#include <stdlib.h>

static char tmpdir[256];
static const char *srcdir;

static int sh(const char *fmt, ...) SP_PRINTF(1, 2);
static int sh(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *cmd = NULL;
	if (vasprintf(&cmd, fmt, ap) < 0)
		abort();
	va_end(ap);
	int rc = system(cmd);
	free(cmd);
	return rc;
}

/* The first of the tools named that is installed, or NULL. */
static const char *tool(const char *a, const char *b)
{
	if (sh("command -v %s >/dev/null 2>&1", a) == 0)
		return a;
	if (sh("command -v %s >/dev/null 2>&1", b) == 0)
		return b;
	return NULL;
}

typedef struct {
	const char *name; /* innermost first; NULL: no frame at all */
	const char *file; /* NULL: none */
	int64_t line;
} want_frame;

/* Resolves ADDR in PATH and compares its frames with W (N of them). */
static void check_frames(const char *what, const char *path, uint64_t addr, const want_frame *w,
			 size_t n)
{
	sp_symbolize_options o = {0};
	o.demangle = SP_DEMANGLE_NONE;
	sp_resolver *d = sp_resolver_new(path, &o, NULL, NULL);
	const sp_frame *f = NULL;
	size_t nf = 0;
	sp_error *e = sp_resolver_resolve(d, addr, &f, &nf);
	TAP_OK(!e, "%s: %#" PRIx64 " resolves", what, addr);
	sp_error_free(e);
	TAP_EQ_U64(nf, n, "%s: %#" PRIx64 ": %zu frames", what, addr, n);
	for (size_t i = 0; i < n && i < nf; i++) {
		TAP_EQ_STR(f[i].name, w[i].name, "%s: %#" PRIx64 " frame %zu function", what, addr, i);
		if (w[i].file)
			TAP_EQ_STR(f[i].file, w[i].file, "%s: %#" PRIx64 " frame %zu file", what, addr,
				   i);
		else
			TAP_OK(!f[i].file, "%s: %#" PRIx64 " frame %zu has no file (got %s)", what,
			       addr, i, f[i].file ? f[i].file : "");
		TAP_EQ_U64(f[i].line, w[i].line, "%s: %#" PRIx64 " frame %zu line", what, addr, i);
	}
	sp_resolver_free(d);
}

/* Discarded code: the bound below which ranges are dropped. */
static void rule_low_bound(void)
{
	static const struct {
		const char *what;
		int etype;
		sp_alloc_section secs[3];
		size_t n;
		uint64_t want;
	} rows[] = {
		{"executable: its lowest section", ET_EXEC, {{0x1000, 0x10}, {0x3000, 8}}, 2, 0x1000},
		{"shared object", ET_DYN, {{0x2000, 0x10}, {0x1200, 8}}, 2, 0x1200},
		{"empty .bss at 0 does not count", ET_EXEC, {{0x1000, 0x10}, {0, 0}}, 2, 0x1000},
		{"a .bss at 0 with a size does", ET_EXEC, {{0x1000, 0x10}, {0, 4}}, 2, 0},
		{"text at 0", ET_EXEC, {{0, 0x10}}, 1, 0},
		{"no allocated section", ET_EXEC, {{0, 0}}, 0, 0},
		{"only empty sections", ET_EXEC, {{0x1000, 0}}, 1, 0},
		{"relocatable: addresses start at 0", ET_REL, {{0x1000, 0x10}}, 1, 0},
	};
	for (size_t i = 0; i < SP_ARRAY_LEN(rows); i++)
		TAP_EQ_U64(sp_code_low_bound(rows[i].etype, rows[i].secs, rows[i].n), rows[i].want,
			   "low bound: %s", rows[i].what);
}

/* Discarded code and units without a line table (testdata/src/discarded/). */
static void rule_discarded(void)
{
	const char *y2o = tool("yaml2obj", "yaml2obj-14");
	if (!y2o) {
		TAP_OK(1, "# SKIP yaml2obj not installed");
		return;
	}
	static const struct {
		const char *name, *opts;
	} variants[] = {
		{"exec", ""},
		{"dyn", "-DTYPE=ET_DYN"},
		{"addend", "-DLOW=4"},
		{"elf32", "-DCLASS=ELFCLASS32 -DMACHINE=EM_386 -DASZ=4 -DCU2=0x33"},
		{"rnglists", "--docnum=2"},
		{"text0", "-DTEXT=0"},
	};
	static const want_frame kept[] = {{"kept_fn", NULL, 0}};
	static const want_frame dropped[] = {{"dropped_fn", NULL, 0}};
	for (size_t i = 0; i < SP_ARRAY_LEN(variants); i++) {
		char *out = sp_xasprintf("%s/%s", tmpdir, variants[i].name);
		int rc = sh("%s %s %s/testdata/src/discarded/discarded.yaml -o %s", y2o,
			    variants[i].opts, srcdir, out);
		TAP_OK(rc == 0, "discarded: made %s", variants[i].name);
		if (!strcmp(variants[i].name, "text0")) {
			check_frames("text at 0: the range at 0 is code", out, 0x4, dropped, 1);
		} else {
			check_frames(variants[i].name, out, 0x1004, kept, 1);
			check_frames(variants[i].name, out, 0x1800, NULL, 0);
		}
		free(out);
	}
}

/* A split unit in the object itself, its inlined call's range through
 * DW_FORM_rnglistx from a non-zero base (testdata/src/splitinline/). */
static void rule_split_inline(void)
{
	const char *mc = tool("llvm-mc", "llvm-mc-14");
	if (!mc) {
		TAP_OK(1, "# SKIP llvm-mc not installed");
		return;
	}
	char *out = sp_xasprintf("%s/splitinline.o", tmpdir);
	int rc = sh("%s --dwarf-version=5 -filetype=obj -triple x86_64-pc-linux "
		    "%s/testdata/src/splitinline/splitinline.s -o %s",
		    mc, srcdir, out);
	TAP_OK(rc == 0, "split inline: assembled");
	static const want_frame inl[] = {
		{"_ZL4tickv", "././splitinline.cpp", 3},
		{"main", "././splitinline.cpp", 5},
	};
	static const want_frame plain[] = {{"main", "././splitinline.cpp", 6}};
	check_frames("split inline: the inlined call", out, 0x30, inl, 2);
	check_frames("split inline: past it", out, 0x37, plain, 1);
	free(out);
}

/* Relative file names: the compilation directory once, no doubled "/". */
static void rule_relative_names(void)
{
	static const struct {
		const char *what, *flags;
		const char *want;
	} rows[] = {
		{"DWARF 4: directory 0 is the compilation directory", "-gdwarf-4", "./rel.c"},
		{"DWARF 5: directory 0 under the compilation directory", "-gdwarf-5", "././rel.c"},
	};
	char *src = sp_xasprintf("%s/rel.c", tmpdir);
	FILE *f = fopen(src, "w");
	if (f) {
		fputs("int rel(int x) { return x * 3; }\n", f);
		fclose(f);
	}
	for (size_t i = 0; i < SP_ARRAY_LEN(rows); i++) {
		char *out = sp_xasprintf("%s/rel%zu.o", tmpdir, i);
		int rc = sh("cd %s && gcc -O1 -g %s -fdebug-prefix-map=%s=. -c rel.c -o %s", tmpdir,
			    rows[i].flags, tmpdir, out);
		TAP_OK(rc == 0, "relative names: compiled %s", rows[i].flags);
		want_frame w[] = {{"rel", rows[i].want, 1}};
		check_frames(rows[i].what, out, 0x0, w, 1);
		free(out);
	}
	free(src);
}

/* Go units: an ABI wrapper's suffix left out of the name (kept as the
 * system name), relative file names of -trimpath as Go prints them. */
static void rule_go_names(void)
{
	if (sh("command -v go >/dev/null 2>&1") != 0) {
		TAP_OK(1, "# SKIP go not installed");
		return;
	}
	int rc = sh("cp -R %s/testdata/src/gofix %s/gofix && chmod -R u+w %s/gofix && cd %s/gofix && "
		    "HOME=%s GOCACHE=%s/gocache GOPATH=%s/gopath GOFLAGS= GOPROXY=off "
		    "GOTOOLCHAIN=local CGO_ENABLED=0 go build -trimpath -o %s/trim . >/dev/null 2>&1",
		    srcdir, tmpdir, tmpdir, tmpdir, tmpdir, tmpdir, tmpdir, tmpdir);
	TAP_OK(rc == 0, "go names: built the fixture with -trimpath");
	char *cmd = sp_xasprintf("nm %s/trim | awk '$3 == \"internal/bytealg.IndexByteString.abi0\" "
				 "{ print $1 }'",
				 tmpdir);
	FILE *f = popen(cmd, "r");
	free(cmd);
	unsigned long long a = 0;
	bool found = f && fscanf(f, "%llx", &a) == 1;
	if (f)
		pclose(f);
	TAP_OK(found, "go names: the fixture has IndexByteString.abi0");
	if (!found)
		return;
	char *path = sp_xasprintf("%s/trim", tmpdir);
	sp_symbolize_options o = {0};
	sp_resolver *d = sp_resolver_new(path, &o, NULL, NULL);
	const sp_frame *fr = NULL;
	size_t n = 0;
	sp_error *e = sp_resolver_resolve(d, a, &fr, &n);
	TAP_OK(!e && n == 1, "go names: one frame at IndexByteString");
	if (!e && n == 1) {
		TAP_EQ_STR(fr[0].name, "internal/bytealg.IndexByteString",
			   "go names: the name without .abi0");
		TAP_EQ_STR(fr[0].system_name, "internal/bytealg.IndexByteString.abi0",
			   "go names: the symbol as the system name");
		TAP_EQ_STR(fr[0].file, "internal/bytealg/indexbyte_amd64.s",
			   "go names: -trimpath's relative name as it is");
	}
	sp_error_free(e);
	sp_resolver_free(d);
	free(path);
}

int main(void)
{
	srcdir = getenv("SP_SRCDIR");
	if (!srcdir)
		srcdir = "..";
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/sp-rules-XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	rule_low_bound();
	rule_discarded();
	rule_split_inline();
	rule_relative_names();
	rule_go_names();
	sh("rm -rf %s", tmpdir);
	return tap_done();
}
