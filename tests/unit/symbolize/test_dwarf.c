/* test_dwarf.c — the libdw resolver against the fixture program
 * testdata/src/symbolize/fixture.cc, built -O2 -g at test time.
 *
 *  - expected chains from the fixture source: an address of
 *    Widget::compute whose innermost frame is leaf() has the chain
 *    leaf <- middle <- top <- compute, with call lines at the MARK lines;
 *  - every byte of every function agrees with llvm-symbolizer --inlines
 *    (innermost function and file:line for >= 99%, whole chains too);
 *  - the same code compiled -c -ffunction-sections, with every allocated
 *    section given a run-time address with libelf (an ET_REL object as a
 *    JIT leaves it), resolves at those addresses exactly like the linked
 *    executable does at its own.
 */
#include "symbolize/internal.h"
#include "tests/helpers/tap.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[256];

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

typedef struct {
	char *name;
	uint64_t addr, size;
} sym;

static size_t read_syms(const char *path, sym **out)
{
	char *cmd = sp_xasprintf("nm -S --defined-only '%s'", path);
	FILE *f = popen(cmd, "r");
	free(cmd);
	size_t n = 0, cap = 0;
	char line[4096];
	*out = NULL;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long a, s;
		char t, name[3000];
		if (sscanf(line, "%llx %llx %c %2999s", &a, &s, &t, name) != 4)
			continue;
		if (t != 'T' && t != 't' && t != 'W' && t != 'w')
			continue;
		sym y = {sp_xstrdup(name), a, s};
		SP_PUSH(*out, n, cap, y);
	}
	if (f)
		pclose(f);
	return n;
}

static const sym *find_sym(const sym *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

/* Line of the comment "MARK:what" in the fixture. */
static int64_t mark_line(const char *src, const char *what)
{
	FILE *f = fopen(src, "r");
	char line[1024], tag[128];
	int64_t n = 0;
	snprintf(tag, sizeof(tag), "MARK:%s", what);
	while (f && fgets(line, sizeof(line), f)) {
		n++;
		char *p = strstr(line, tag);
		if (p && (p[strlen(tag)] == '\n' || p[strlen(tag)] == 0)) {
			fclose(f);
			return n;
		}
	}
	if (f)
		fclose(f);
	return -1;
}

static sp_symbolize_options raw_opts = {.demangle = SP_DEMANGLE_NONE};

static void test_source_chain(const char *exe, const char *src, const sym *syms, size_t ns)
{
	const sym *c = find_sym(syms, ns, "_ZN5outer5inner6Widget7computeEi");
	TAP_OK(c != NULL, "fixture has Widget::compute");
	if (!c)
		return;
	sp_resolver *d = sp_resolver_new(exe, &raw_opts, NULL, NULL);
	const sp_frame *f;
	size_t n;
	sp_error *e = sp_resolver_resolve(d, c->addr, &f, &n);
	TAP_OK(!e && n >= 1, "compute entry resolves");
	if (!e && n) {
		TAP_EQ_STR(f[n - 1].system_name, c->name, "outermost frame is compute");
		TAP_EQ_U64(f[n - 1].start_line, mark_line(src, "compute_decl"),
			   "start_line is compute's declaration line");
		TAP_OK(!f[n - 1].inlined, "outermost frame is not inlined");
	}
	sp_error_free(e);

	/* Some address inside compute has the full leaf chain. */
	bool found = false;
	for (uint64_t a = c->addr; a < c->addr + c->size && !found; a++) {
		if ((e = sp_resolver_resolve(d, a, &f, &n)) != NULL) {
			sp_error_free(e);
			break;
		}
		if (n != 4 || !f[0].system_name || !strstr(f[0].system_name, "leaf"))
			continue;
		found = true;
		TAP_OK(strstr(f[1].system_name, "middle") != NULL, "frame 1 is middle: %s",
		       f[1].system_name);
		TAP_OK(strstr(f[2].system_name, "top") != NULL, "frame 2 is top: %s",
		       f[2].system_name);
		TAP_EQ_STR(f[3].system_name, c->name, "frame 3 is compute");
		int64_t ls = mark_line(src, "leaf_store");
		TAP_OK(f[0].line == ls || f[0].line == ls + 1, "leaf line %" PRId64, f[0].line);
		TAP_EQ_U64(f[1].line, mark_line(src, "middle_call"), "middle calls leaf there");
		TAP_EQ_U64(f[2].line, mark_line(src, "top_call"), "top calls middle there");
		TAP_EQ_U64(f[3].line, mark_line(src, "compute_call"), "compute calls top there");
		TAP_OK(f[0].inlined && f[1].inlined && f[2].inlined && !f[3].inlined,
		       "inlined flags");
		TAP_OK(f[0].file && strstr(f[0].file, "fixture.cc"), "file of leaf");
		TAP_OK(f[3].file && strstr(f[3].file, "fixture.cc"), "call file of top");
	}
	TAP_OK(found, "a leaf <- middle <- top <- compute chain exists");

	/* Outside every function: nothing. */
	e = sp_resolver_resolve(d, 0x7fffffff0000ULL, &f, &n);
	TAP_OK(!e && n == 0, "address outside the file has no frames");
	sp_error_free(e);
	sp_resolver_free(d);
}

typedef struct {
	char *func[16], *loc[16];
	int64_t col[16];
	size_t n;
} llvm_answer;

static void compare_llvm(const char *exe, const sym *syms, size_t ns)
{
	char *addrs = sp_xasprintf("%s/addrs", tmpdir), *outp = sp_xasprintf("%s/llvm", tmpdir);
	FILE *f = fopen(addrs, "w");
	size_t total = 0;
	for (size_t i = 0; i < ns; i++)
		for (uint64_t a = syms[i].addr; a < syms[i].addr + syms[i].size; a++, total++)
			fprintf(f, "0x%" PRIx64 "\n", a);
	fclose(f);
	int rc = sh("llvm-symbolizer --inlines --no-demangle --obj='%s' <'%s' >'%s'", exe, addrs,
		    outp);
	TAP_OK(rc == 0 && total > 1000, "llvm-symbolizer ran over %zu addresses", total);

	FILE *in = fopen(outp, "r");
	sp_resolver *d = sp_resolver_new(exe, &raw_opts, NULL, NULL);
	size_t inner_ok = 0, chain_ok = 0, col_ok = 0, seen = 0;
	char line[4096];
	for (size_t i = 0; i < ns && in; i++) {
		for (uint64_t a = syms[i].addr; a < syms[i].addr + syms[i].size; a++) {
			llvm_answer ans = {0};
			while (fgets(line, sizeof(line), in)) {
				line[strcspn(line, "\n")] = 0;
				if (!*line)
					break;
				char loc[4096];
				if (!fgets(loc, sizeof(loc), in))
					break;
				loc[strcspn(loc, "\n")] = 0;
				/* the column apart: file:line:col */
				char *c = strrchr(loc, ':');
				if (c)
					*c = 0;
				if (ans.n < 16) {
					ans.col[ans.n] = c ? strtoll(c + 1, NULL, 10) : -1;
					ans.func[ans.n] = sp_xstrdup(line);
					ans.loc[ans.n] = sp_xstrdup(loc);
					ans.n++;
				}
			}
			const sp_frame *fr;
			size_t n;
			sp_error *e = sp_resolver_resolve(d, a, &fr, &n);
			seen++;
			bool in_ok = false, ch_ok = !e && n == ans.n, cols = ch_ok;
			for (size_t k = 0; !e && k < n && k < ans.n; k++) {
				char *mine = sp_xasprintf("%s:%" PRId64,
							  fr[k].file ? fr[k].file : "??", fr[k].line);
				const char *fn = fr[k].system_name ? fr[k].system_name : "??";
				bool same = !strcmp(fn, ans.func[k]) && !strcmp(mine, ans.loc[k]);
				if (k == 0)
					in_ok = same;
				cols = cols && fr[k].column == ans.col[k];
				if (!same) {
					ch_ok = false;
					if (seen - inner_ok < 5)
						printf("# 0x%" PRIx64 " frame %zu: %s %s vs llvm %s %s\n",
						       a, k, fn, mine, ans.func[k], ans.loc[k]);
				}
				free(mine);
			}
			sp_error_free(e);
			inner_ok += in_ok;
			chain_ok += ch_ok;
			col_ok += ch_ok && cols;
			for (size_t k = 0; k < ans.n; k++) {
				free(ans.func[k]);
				free(ans.loc[k]);
			}
		}
	}
	if (in)
		fclose(in);
	sp_resolver_free(d);
	printf("# %zu addresses: innermost agrees %zu, whole chain agrees %zu, with columns %zu\n",
	       seen, inner_ok, chain_ok, col_ok);
	TAP_OK(seen == total, "every address compared");
	TAP_OK(inner_ok * 100 >= seen * 99, "innermost function and file:line agree >= 99%%");
	TAP_OK(chain_ok * 100 >= seen * 99, "inline chains agree >= 99%%");
	TAP_OK(col_ok * 100 >= seen * 99, "inline chains agree column for column >= 99%%");
	free(addrs);
	free(outp);
}

/* Gives every allocated section of the ET_REL at PATH a distinct run-time
 * address; returns the address given to section NAME. */
static uint64_t place_sections(const char *path, const char *name)
{
	uint64_t want = 0, next = 0x7f1200000000ULL;
	int fd = open(path, O_RDWR);
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_RDWR, NULL);
	size_t shstrndx;
	elf_flagelf(elf, ELF_C_SET, ELF_F_LAYOUT);
	elf_getshdrstrndx(elf, &shstrndx);
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		gelf_getshdr(scn, &sh);
		if (!(sh.sh_flags & SHF_ALLOC))
			continue;
		sh.sh_addr = next;
		next += ((sh.sh_size + 0xfff) & ~0xfffULL) + 0x3000; /* not contiguous */
		const char *sn = elf_strptr(elf, shstrndx, sh.sh_name);
		if (sn && !strcmp(sn, name))
			want = sh.sh_addr;
		gelf_update_shdr(scn, &sh);
		elf_flagscn(scn, ELF_C_SET, ELF_F_DIRTY);
	}
	if (elf_update(elf, ELF_C_WRITE) < 0)
		want = 0;
	elf_end(elf);
	close(fd);
	return want;
}

static void test_et_rel(const char *exe, const char *src, const sym *syms, size_t ns)
{
	char *obj = sp_xasprintf("%s/fixture.o", tmpdir);
	int rc = sh("g++ -O2 -g -ffunction-sections -c -o '%s' '%s'", obj, src);
	TAP_OK(rc == 0, "compiled the ET_REL fixture");
	const char *fn = "_ZN5outer5inner6Widget7computeEi";
	char *sec = sp_xasprintf(".text.%s", fn);
	uint64_t sec_addr = place_sections(obj, sec);
	TAP_OK(sec_addr != 0, "placed sections at run-time addresses");
	const sym *c = find_sym(syms, ns, fn);
	if (!c || !sec_addr)
		goto out;

	/* In the object the function starts its section (st_value 0). */
	sp_resolver *rel = sp_resolver_new(obj, &raw_opts, NULL, NULL);
	sp_resolver *ex = sp_resolver_new(exe, &raw_opts, NULL, NULL);
	size_t same = 0, nonempty = 0;
	for (uint64_t k = 0; k < c->size; k++) {
		const sp_frame *a, *b;
		size_t na, nb;
		sp_error *e1 = sp_resolver_resolve(rel, sec_addr + k, &a, &na);
		sp_error *e2 = sp_resolver_resolve(ex, c->addr + k, &b, &nb);
		bool eq = !e1 && !e2 && na == nb;
		for (size_t i = 0; eq && i < na; i++)
			eq = a[i].system_name && b[i].system_name &&
			     !strcmp(a[i].system_name, b[i].system_name) && a[i].line == b[i].line &&
			     a[i].column == b[i].column;
		if (!eq && k - same < 3)
			printf("# offset %" PRIu64 ": rel %zu frames (%s:%" PRId64 "), exe %zu\n", k,
			       na, na && a[0].system_name ? a[0].system_name : "-",
			       na ? a[0].line : 0, nb);
		same += eq;
		nonempty += na > 0;
		sp_error_free(e1);
		sp_error_free(e2);
	}
	TAP_EQ_U64(same, c->size, "ET_REL frames equal the executable's at every offset");
	TAP_EQ_U64(nonempty, c->size, "every offset resolves in the ET_REL object");
	const sp_frame *f;
	size_t n;
	sp_error *e = sp_resolver_resolve(rel, 0x1000 + (sec_addr & 0xfff), &f, &n);
	TAP_OK(!e && n == 0, "a low (laid-out) address is not the function");
	sp_error_free(e);
	sp_resolver_free(rel);
	sp_resolver_free(ex);
out:
	free(sec);
	free(obj);
}

/* Counts the addresses of every function in SYMS that resolve to the same
 * frames (names, files, lines) in the executables A and B. */
static size_t same_frames(const char *a_path, const char *b_path, const sym *syms, size_t ns,
			  size_t *total)
{
	sp_resolver *a = sp_resolver_new(a_path, &raw_opts, NULL, NULL);
	sp_resolver *b = sp_resolver_new(b_path, &raw_opts, NULL, NULL);
	size_t same = 0;
	*total = 0;
	for (size_t i = 0; i < ns; i++) {
		for (uint64_t x = syms[i].addr; x < syms[i].addr + syms[i].size; x++, (*total)++) {
			const sp_frame *fa, *fb;
			size_t na, nb;
			sp_error *e1 = sp_resolver_resolve(a, x, &fa, &na);
			sp_error *e2 = sp_resolver_resolve(b, x, &fb, &nb);
			bool eq = !e1 && !e2 && na == nb && na > 0;
			for (size_t k = 0; eq && k < na; k++)
				eq = fa[k].line == fb[k].line &&
				     (fa[k].file && fb[k].file ? !strcmp(fa[k].file, fb[k].file)
							       : fa[k].file == fb[k].file) &&
				     !strcmp(fa[k].system_name, fb[k].system_name);
			same += eq;
			sp_error_free(e1);
			sp_error_free(e2);
		}
	}
	sp_resolver_free(a);
	sp_resolver_free(b);
	return same;
}

/* Debug sections compressed with zlib (SHF_COMPRESSED) resolve exactly
 * like plain ones. */
static void test_compressed(const char *exe, const char *src, const sym *syms, size_t ns)
{
	char *gz = sp_xasprintf("%s/fixture-gz", tmpdir);
	int rc = sh("g++ -O2 -g -gz=zlib -o '%s' '%s' && readelf -S -W '%s' | "
		    "grep -q 'debug_info.* [A-Z]*C[A-Z]* '",
		    gz, src, gz);
	TAP_OK(rc == 0, "built with SHF_COMPRESSED debug sections");
	size_t total;
	size_t same = same_frames(exe, gz, syms, ns, &total);
	TAP_EQ_U64(same, total, "compressed: every address as uncompressed");
	free(gz);
}

/* Go binaries and JIT objects have partial or no .debug_aranges: the
 * compile units' own ranges are indexed, so the same executable without
 * .debug_aranges resolves every address as it does with them. */
static void test_no_aranges(const char *exe, const sym *syms, size_t ns)
{
	char *na = sp_xasprintf("%s/fixture-noaranges", tmpdir);
	int rc = sh("readelf -S -W '%s' | grep -q '\\.debug_aranges' && "
		    "objcopy --remove-section .debug_aranges '%s' '%s' && "
		    "! readelf -S -W '%s' | grep -q '\\.debug_aranges'",
		    exe, exe, na, na);
	TAP_OK(rc == 0, "the fixture has .debug_aranges, the copy has none");
	size_t total;
	size_t same = same_frames(exe, na, syms, ns, &total);
	TAP_EQ_U64(same, total, "without .debug_aranges: every address as with them");
	free(na);
}

/* A shared library built with a version script has "vfun@VER_1" and
 * "vfun@@VER_2" in its symbol table; without DWARF both functions are
 * named vfun, as the source calls them. */
static void test_symbol_versions(void)
{
	char *src = sp_xasprintf("%s/ver.c", tmpdir);
	char *map = sp_xasprintf("%s/ver.map", tmpdir);
	char *so = sp_xasprintf("%s/libver.so", tmpdir);
	FILE *f = fopen(src, "w");
	fputs("__asm__(\".symver vold, vfun@VER_1\");\n"
	      "__asm__(\".symver vnew, vfun@@VER_2\");\n"
	      "int vold(int x) { return x + 1; }\n"
	      "int vnew(int x) { return x * 3; }\n",
	      f);
	fclose(f);
	f = fopen(map, "w");
	fputs("VER_1 { global: vfun; local: *; };\nVER_2 { global: vfun; } VER_1;\n", f);
	fclose(f);
	int rc = sh("gcc -O2 -g0 -fPIC -shared -Wl,--version-script='%s' -o '%s' '%s' && "
		    "nm '%s' | grep -q ' vfun@VER_1$' && nm '%s' | grep -q ' vfun@@VER_2$'",
		    map, so, src, so, so);
	TAP_OK(rc == 0, "built a library with versioned symbols vfun@VER_1 and vfun@@VER_2");
	sym *vs = NULL;
	size_t nvs = rc == 0 ? read_syms(so, &vs) : 0;
	sp_resolver *d = sp_resolver_new(so, &raw_opts, NULL, NULL);
	const char *fns[] = {"vold", "vnew"};
	for (size_t i = 0; i < SP_ARRAY_LEN(fns); i++) {
		const sym *y = find_sym(vs, nvs, fns[i]);
		uint64_t a = y ? y->addr : 0;
		const sp_frame *fr = NULL;
		size_t n = 0;
		sp_error *e = a ? sp_resolver_resolve(d, a, &fr, &n) : NULL;
		TAP_OK(a && !e && n == 1 && fr[0].name && !strcmp(fr[0].name, "vfun") &&
			       !strcmp(fr[0].system_name, "vfun"),
		       "%s, exported as a version of vfun, is named vfun (got %s)", fns[i],
		       n ? fr[0].name : "nothing");
		sp_error_free(e);
	}
	sp_resolver_free(d);
	for (size_t i = 0; i < nvs; i++)
		free(vs[i].name);
	free(vs);
	free(src);
	free(map);
	free(so);
}

static void test_errors(void)
{
	sp_resolver *d = sp_resolver_new("/nonexistent/file", NULL, NULL, NULL);
	const sp_frame *f;
	size_t n;
	sp_error *e = sp_resolver_resolve(d, 0x1000, &f, &n);
	TAP_OK(e && sp_error_root_code(e) == SP_E_IO, "missing file is an I/O error");
	sp_error_free(e);
	e = sp_resolver_resolve(d, 0x1000, &f, &n);
	TAP_OK(e && strstr(e->msg, "/nonexistent/file"), "the failure is remembered with the path");
	sp_error_free(e);
	sp_resolver_free(d);

	char *txt = sp_xasprintf("%s/not-elf", tmpdir);
	FILE *t = fopen(txt, "w");
	fputs("hello\n", t);
	fclose(t);
	d = sp_resolver_new(txt, NULL, NULL, NULL);
	e = sp_resolver_resolve(d, 0x1000, &f, &n);
	TAP_OK(e && sp_error_root_code(e) == SP_E_UNRECOGNIZED, "a text file is not ELF");
	sp_error_free(e);
	sp_resolver_free(d);
	free(txt);
}

int main(void)
{
	const char *srcdir = getenv("SP_SRCDIR");
	char *src = sp_xasprintf("%s/testdata/src/symbolize/fixture.cc", srcdir ? srcdir : "..");
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/sp-dwarf-XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	char *exe = sp_xasprintf("%s/fixture", tmpdir);
	int rc = sh("g++ -O2 -g -o '%s' '%s'", exe, src);
	TAP_OK(rc == 0, "compiled the fixture");
	sym *syms = NULL;
	size_t ns = read_syms(exe, &syms);
	TAP_OK(ns > 10, "fixture has %zu functions", ns);

	test_source_chain(exe, src, syms, ns);
	bool llvm = sh("command -v llvm-symbolizer >/dev/null") == 0;
	if (llvm)
		compare_llvm(exe, syms, ns);
	else
		TAP_OK(1, "llvm-symbolizer comparison # SKIP not installed");
	/* DWARF 4 and 3: .debug_ranges instead of .debug_rnglists, older
	 * line-table headers; the same code, so the same symbols */
	for (int v = 4; v >= 3; v--) {
		char *old = sp_xasprintf("%s/fixture-dwarf%d", tmpdir, v);
		rc = sh("g++ -O2 -g -gdwarf-%d -o '%s' '%s' && readelf -S -W '%s' | "
			"grep -q '\\.debug_ranges'",
			v, old, src, old);
		TAP_OK(rc == 0, "compiled the fixture as DWARF %d, with .debug_ranges", v);
		sym *osyms = NULL;
		size_t ons = read_syms(old, &osyms);
		printf("# the fixture as DWARF %d:\n", v);
		test_source_chain(old, src, osyms, ons);
		if (llvm)
			compare_llvm(old, osyms, ons);
		for (size_t i = 0; i < ons; i++)
			free(osyms[i].name);
		free(osyms);
		free(old);
	}
	test_et_rel(exe, src, syms, ns);
	test_compressed(exe, src, syms, ns);
	test_no_aranges(exe, syms, ns);
	test_symbol_versions();
	test_errors();

	for (size_t i = 0; i < ns; i++)
		free(syms[i].name);
	free(syms);
	sh("rm -rf '%s'", tmpdir);
	free(exe);
	free(src);
	return tap_done();
}
