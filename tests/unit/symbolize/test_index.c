/* test_index.c — the symbol index (symbolize/index/) against the resolver it
 * is built from, and its checks.
 *
 *  - fixtures built at test time from testdata/src/symbolize/fixture.cc
 *    (g++ DWARF 5 and 4, clang++, zlib-compressed sections, split DWARF, a
 *    copy with its symbol table alone) and a C program with discriminators:
 *    every address of every executable segment (and a margin around it)
 *    resolves from the index exactly as from the resolver, frame by frame
 *    and field by field, in each demangling style, from one index;
 *  - the chain of the fixture's Widget::compute, read from the index, has
 *    the call lines the source marks;
 *  - the same file gives the same bytes twice;
 *  - refused: another build id (foreign), another version or revision
 *    (stale), a size or header checksum that does not hold (damaged); a
 *    damaged page of the body is found when read, by sp_index_verify too;
 *  - through a session with --index-dir: written after the first answer,
 *    used by the next session; a foreign, stale, damaged index, or one of
 *    a symbol table where the file has DWARF, is not used and is written
 *    again; a file without debug info gets none; four processes writing
 *    one index at once leave it whole and no temporary file;
 *  - an index of made-up answers (tests/helpers/index_util.h: every kind
 *    of frame and row, several blocks and pages) gives back each answer at
 *    each address it holds;
 *  - the malformed indexes of tests/malformed/index/ (made here from the
 *    made-up one, each with one defect and its checksums made again, and
 *    as committed): each gives the error its .expect names.
 *
 *   test_index --write-seeds DIR       writes the fuzz seeds (made-up indexes)
 *   test_index --write-malformed DIR   writes the malformed ones (NAME.spx,
 *                                      NAME.expect)
 */
#include "symbolize/internal.h"
#include "tests/helpers/index_util.h"
#include "tests/helpers/tap.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

static const sp_demangle_style styles[] = {SP_DEMANGLE_SIMPLE, SP_DEMANGLE_TEMPLATES,
					   SP_DEMANGLE_FULL, SP_DEMANGLE_NONE};

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Whether the answers (frames or an error) agree; *WHY says where not. */
static bool same_answer(const sp_frame *a, size_t na, const sp_error *ea, const sp_frame *b,
			size_t nb, const sp_error *eb, const char **why)
{
	*why = NULL;
	if (!ea != !eb) {
		*why = "one is an error";
		return false;
	}
	if (ea) {
		char *x = sp_error_string(ea), *y = sp_error_string(eb);
		bool same = !strcmp(x, y) && ea->code == eb->code;
		free(x);
		free(y);
		*why = same ? NULL : "other errors";
		return same;
	}
	if (na != nb) {
		*why = "other depths";
		return false;
	}
	for (size_t i = 0; i < na; i++) {
		const sp_frame *x = &a[i], *y = &b[i];
		if (!same_str(x->name, y->name))
			*why = "name";
		else if (!same_str(x->system_name, y->system_name))
			*why = "system name";
		else if (!same_str(x->gnu_name, y->gnu_name))
			*why = "binutils' name";
		else if (!same_str(x->file, y->file))
			*why = "file";
		else if (x->line != y->line || x->column != y->column)
			*why = "line or column";
		else if (x->start_line != y->start_line)
			*why = "start line";
		else if (x->discriminator != y->discriminator)
			*why = "discriminator";
		else if (x->inlined != y->inlined)
			*why = "inlined";
		if (*why)
			return false;
	}
	return true;
}

/* The index of PATH built with OPTS, in memory (*BYTES; caller frees). */
static sp_error *build(const char *path, const sp_elf_info *info, sp_demangle_style style,
		       sp_buf *bytes, sp_index_stats *st)
{
	sp_symbolize_options o = {.demangle = style, .no_debuginfod = true};
	*bytes = (sp_buf){0};
	return sp_index_build(path, info, &o, NULL, bytes, st);
}

/* Every address of the executable PT_LOADs of INFO, 64 bytes either side. */
static size_t addresses(const sp_elf_info *info, uint64_t **out)
{
	size_t n = 0, cap = 0;
	*out = NULL;
	for (size_t i = 0; i < info->n_loads; i++) {
		const sp_phdr *p = &info->loads[i];
		if (!(p->flags & PF_X))
			continue;
		uint64_t lo = p->vaddr > 64 ? p->vaddr - 64 : 0;
		for (uint64_t a = lo; a < p->vaddr + p->memsz + 64; a++)
			SP_PUSH(*out, n, cap, a);
	}
	return n;
}

/* Every address of PATH from its index and from the resolver, in every
 * style (one index for them all): how many differ, the first told. */
static void compare_all(const char *label, const char *path, bool want_dwarf)
{
	sp_elf_info info;
	sp_error *e = sp_elf_info_read(path, &info);
	TAP_OK(!e && info.build_id, "%s: read, with a build id", label);
	if (e) {
		sp_error_free(e);
		return;
	}
	sp_buf bytes;
	sp_index_stats st;
	e = build(path, &info, SP_DEMANGLE_SIMPLE, &bytes, &st);
	TAP_OK(!e, "%s: index built: %zu bytes, %zu rows, %zu nodes", label, st.size, st.n_rows,
	       st.n_nodes);
	TAP_OK(st.dwarf == want_dwarf, "%s: made %s DWARF", label, want_dwarf ? "from" : "without");
	uint64_t *addrs;
	size_t n_addrs = addresses(&info, &addrs);
	for (size_t s = 0; !e && s < SP_ARRAY_LEN(styles); s++) {
		sp_index *ix = NULL;
		e = sp_index_open_memory(bytes.data, bytes.len, label, info.build_id, styles[s], &ix);
		sp_symbolize_options o = {.demangle = styles[s], .no_debuginfod = true};
		sp_resolver *r = sp_resolver_new(path, &o, &info, NULL);
		size_t differ = 0;
		for (size_t i = 0; !e && i < n_addrs; i++) {
			const sp_frame *fa, *fb;
			size_t na, nb;
			sp_error *ea = sp_resolver_resolve_once(r, addrs[i], &fa, &na);
			sp_error *eb = sp_index_resolve_once(ix, addrs[i], &fb, &nb);
			const char *why;
			if (!same_answer(fa, na, ea, fb, nb, eb, &why) && differ++ == 0)
				printf("# %s, style %d: %#" PRIx64 " differs: %s (%zu and %zu frames)\n",
				       label, (int)styles[s], addrs[i], why, na, nb);
			sp_error_free(ea);
			sp_error_free(eb);
		}
		TAP_OK(!e && differ == 0, "%s, style %d: %zu addresses, %zu differ", label,
		       (int)styles[s], n_addrs, differ);
		sp_resolver_free(r);
		sp_index_free(ix);
	}
	sp_error_free(e);
	free(addrs);
	sp_buf_free(&bytes);
	sp_elf_info_clear(&info);
}

/* Line of the comment "MARK:what" in SRC. */
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

/* The address of symbol NAME in PATH (nm), 0 when none. */
static uint64_t symbol(const char *path, const char *name)
{
	char *cmd = sp_xasprintf("nm --defined-only '%s'", path);
	FILE *f = popen(cmd, "r");
	free(cmd);
	char line[4096], s[3000], t;
	unsigned long long a, found = 0;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %2999s", &a, &t, s) == 3 && !strcmp(s, name))
			found = a;
	if (f)
		pclose(f);
	return found;
}

/* From the index alone: an address of Widget::compute whose innermost
 * frame is leaf() has the chain leaf <- middle <- top <- compute, with
 * the call lines the source marks. */
static void test_marks(const char *exe, const char *src)
{
	sp_elf_info info;
	sp_buf bytes;
	sp_index *ix = NULL;
	sp_error *e = sp_elf_info_read(exe, &info);
	if (!e)
		e = build(exe, &info, SP_DEMANGLE_NONE, &bytes, NULL);
	if (!e)
		e = sp_index_open_memory(bytes.data, bytes.len, "fixture", info.build_id,
					 SP_DEMANGLE_SIMPLE, &ix);
	TAP_OK(!e, "the fixture's index opens");
	uint64_t c = symbol(exe, "_ZN5outer5inner6Widget7computeEi");
	bool found = false;
	for (uint64_t a = c; !e && c && a < c + 4096 && !found; a++) {
		const sp_frame *f;
		size_t n;
		sp_error *le = sp_index_resolve_once(ix, a, &f, &n);
		sp_error_free(le);
		if (le || n != 4 || !strstr(f[0].system_name, "leaf"))
			continue;
		found = true;
		TAP_EQ_STR(f[3].name, "outer::inner::Widget::compute", "outermost: compute, demangled");
		TAP_EQ_U64(f[3].start_line, mark_line(src, "compute_decl"), "compute's declaration");
		TAP_EQ_U64(f[1].line, mark_line(src, "middle_call"), "middle calls leaf there");
		TAP_EQ_U64(f[2].line, mark_line(src, "top_call"), "top calls middle there");
		TAP_EQ_U64(f[3].line, mark_line(src, "compute_call"), "compute calls top there");
		int64_t ls = mark_line(src, "leaf_store");
		TAP_OK(f[0].line == ls || f[0].line == ls + 1, "leaf's line %" PRId64, f[0].line);
		TAP_OK(f[0].inlined && f[1].inlined && f[2].inlined && !f[3].inlined, "inlined flags");
	}
	TAP_OK(found, "an address of compute in leaf, found in the index");
	sp_index_free(ix);
	if (!e)
		sp_buf_free(&bytes);
	sp_error_free(e);
	sp_elf_info_clear(&info);
}

static sp_errcode open_code(const unsigned char *d, size_t n, const char *bid, char **msg)
{
	sp_index *ix = NULL;
	sp_error *e = sp_index_open_memory(d, n, "copy", bid, SP_DEMANGLE_SIMPLE, &ix);
	sp_errcode c = e ? e->code : SP_E_OK;
	*msg = e ? sp_error_string(e) : sp_xstrdup("");
	sp_error_free(e);
	sp_index_free(ix);
	return c;
}

/* What is refused when opening, and a damaged page found when read. */
static void test_checks(const char *exe)
{
	sp_elf_info info;
	sp_buf a, b;
	sp_error *e = sp_elf_info_read(exe, &info);
	TAP_OK(!e && !build(exe, &info, SP_DEMANGLE_SIMPLE, &a, NULL) &&
		       !build(exe, &info, SP_DEMANGLE_FULL, &b, NULL),
	       "built twice (the resolver's style does not matter)");
	TAP_OK(a.len == b.len && !memcmp(a.data, b.data, a.len), "the same bytes twice");
	unsigned char *d = (unsigned char *)a.data;
	char *msg;
	TAP_EQ_U64(open_code(d, a.len, info.build_id, &msg), SP_E_OK, "opens: %s", msg);
	free(msg);
	TAP_EQ_U64(open_code(d, a.len, "0123456789abcdef0123456789abcdef01234567", &msg),
		   SP_E_BUILD_ID_MISMATCH, "another build id: foreign (%s)", msg);
	free(msg);
	d[12]++; /* the revision, its checksum made again */
	spx_test_rechecksum(d, a.len);
	TAP_EQ_U64(open_code(d, a.len, info.build_id, &msg), SP_E_UNSUPPORTED,
		   "another revision: stale (%s)", msg);
	TAP_OK(strstr(msg, "stale") != NULL, "the message says stale");
	free(msg);
	d[12]--;
	d[8]++;
	spx_test_rechecksum(d, a.len);
	TAP_EQ_U64(open_code(d, a.len, info.build_id, &msg), SP_E_UNSUPPORTED,
		   "another version (%s)", msg);
	free(msg);
	d[8]--;
	spx_test_rechecksum(d, a.len);
	TAP_EQ_U64(open_code(d, a.len - 1, info.build_id, &msg), SP_E_MALFORMED,
		   "cut short by a byte (%s)", msg);
	free(msg);
	d[41] ^= 1; /* the section count, checksum not made again */
	TAP_EQ_U64(open_code(d, a.len, info.build_id, &msg), SP_E_MALFORMED,
		   "a header byte changed (%s)", msg);
	TAP_OK(strstr(msg, "checksum") != NULL, "the message names the checksum");
	free(msg);
	d[41] ^= 1;
	TAP_EQ_U64(open_code(d, 10, NULL, &msg), SP_E_UNRECOGNIZED, "ten bytes (%s)", msg);
	free(msg);

	sp_buf_free(&a);
	sp_buf_free(&b);
	sp_elf_info_clear(&info);
}

/* A byte in the middle of the rows of a larger index (this program's own,
 * many pages) changed: the file opens, and a look-up that reads that page
 * says it is damaged, as sp_index_verify does. */
static void test_damaged_page(void)
{
	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[len > 0 ? len : 0] = 0;
	sp_elf_info info;
	sp_buf a = {0};
	sp_index_stats st;
	sp_error *e = sp_elf_info_read(self, &info);
	if (!e)
		e = build(self, &info, SP_DEMANGLE_SIMPLE, &a, &st);
	TAP_OK(!e && st.size > 8 * SPX_PAGE, "this program's index: %zu bytes", st.size);
	if (e) {
		sp_error_free(e);
		return;
	}
	unsigned char *d = (unsigned char *)a.data;
	sp_index *ix = NULL;
	const unsigned char *rows = d + SPX_FIXED + (spx_le(d + 44, 2) + 7) / 8 * 8 +
				    SPX_SECTION_ENTRY * (SPX_SEC_ROWS - 1);
	d[spx_le(rows + 8, 8) + spx_le(rows + 16, 8) / 2] ^= 0x40;
	e = sp_index_open_memory(d, a.len, "damaged", info.build_id, SP_DEMANGLE_SIMPLE, &ix);
	TAP_OK(!e, "a damaged page of rows: the file still opens");
	uint64_t *addrs;
	size_t n = addresses(&info, &addrs), bad = 0;
	for (size_t i = 0; ix && i < n; i += 7) {
		const sp_frame *f;
		size_t nf;
		sp_error *le = sp_index_resolve_once(ix, addrs[i], &f, &nf);
		bad += le && le->code == SP_E_MALFORMED && strstr(le->msg, "checksum");
		sp_error_free(le);
	}
	TAP_OK(ix && bad > 0 && sp_index_damaged(ix), "look-ups say it is damaged (%zu)", bad);
	sp_index_free(ix);
	ix = NULL;
	sp_error_free(sp_index_open_memory(d, a.len, "damaged", NULL, SP_DEMANGLE_SIMPLE, &ix));
	e = ix ? sp_index_verify(ix, NULL) : NULL;
	TAP_OK(e && e->code == SP_E_MALFORMED, "sp_index_verify finds it: %s", e ? e->msg : "no");
	sp_error_free(e);
	sp_index_free(ix);
	free(addrs);
	sp_buf_free(&a);
	sp_elf_info_clear(&info);
}

/* One session with --index-dir DIR resolving every address of PATH:
 * whether every answer agreed with the resolver's, and the index the
 * object answered from (caller frees; NULL: none). */
static bool session_run(const char *dir, const char *path, char **used)
{
	sp_symbolize_options o = {.index_dir = dir, .no_debuginfod = true};
	sp_symbolizer *s = sp_symbolizer_new(&o);
	sp_object *obj;
	sp_error *e = sp_symbolizer_object(s, path, NULL, &obj);
	sp_resolver *r = e ? NULL : sp_resolver_new(path, &o, sp_object_info(obj), NULL);
	uint64_t *addrs = NULL;
	size_t n = e ? 0 : addresses(sp_object_info(obj), &addrs), differ = 0;
	for (size_t i = 0; i < n; i++) {
		const sp_frame *fa, *fb;
		size_t na, nb;
		sp_error *ea = sp_resolver_resolve_once(r, addrs[i], &fa, &na);
		sp_error *eb = sp_object_resolve(obj, addrs[i], &fb, &nb);
		const char *why;
		differ += !same_answer(fa, na, ea, fb, nb, eb, &why);
		sp_error_free(ea);
		sp_error_free(eb);
	}
	const char *ip = e ? NULL : sp_object_index_path(obj);
	*used = ip ? sp_xstrdup(ip) : NULL;
	sp_error *we = sp_symbolizer_index_error(s);
	if (we)
		printf("# writing the index: %s\n", we->msg);
	sp_error_free(we);
	sp_error_free(e);
	free(addrs);
	sp_resolver_free(r);
	sp_symbolizer_free(s);
	return n > 0 && differ == 0;
}

/* Whether FILE is an index of BUILD_ID that verifies whole. */
static bool index_ok(const char *file, const char *build_id)
{
	sp_index *ix;
	sp_error *e = sp_index_open(file, build_id, SP_DEMANGLE_SIMPLE, &ix);
	if (!e)
		e = sp_index_verify(ix, NULL);
	bool ok = !e;
	sp_error_free(e);
	sp_index_free(ix);
	return ok;
}

static size_t temporaries(const char *dir)
{
	size_t n = 0;
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d)) != NULL)
		n += strstr(de->d_name, ".tmp.") != NULL;
	if (d)
		closedir(d);
	return n;
}

static bool copy_file(const char *from, const char *to)
{
	return sh("cp '%s' '%s'", from, to) == 0;
}

/* Damages FILE: byte AT from the end XORed with 0x5a (AT 0: cut in half). */
static void damage_file(const char *file, size_t at)
{
	uint8_t *d;
	size_t n;
	sp_error *e = sp_read_file(file, &d, &n);
	if (!e) {
		if (at)
			d[n - at] ^= 0x5a;
		FILE *f = fopen(file, "wb");
		fwrite(d, 1, at ? n : n / 2, f);
		fclose(f);
		free(d);
	}
	sp_error_free(e);
}

/* --index-dir through sessions: filled, used, and written again when the
 * one there does not hold.  OTHER is another build (for a foreign index),
 * BARE the file without DWARF (its symbol table alone). */
static void test_sessions(const char *exe, const char *other, const char *bare)
{
	char *dir = sp_xasprintf("%s/ix", tmpdir), *used;
	sp_elf_info info, oinfo;
	sp_error_free(sp_elf_info_read(exe, &info));
	sp_error_free(sp_elf_info_read(other, &oinfo));
	char *file = sp_index_path(dir, info.build_id), *ofile = sp_index_path(dir, oinfo.build_id);
	struct stat st;
	TAP_OK(session_run(dir, exe, &used) && !used, "first session: the resolver answers");
	TAP_OK(index_ok(file, info.build_id), "... and the index is written: %s", file);
	free(used);
	TAP_OK(session_run(dir, exe, &used) && used && !strcmp(used, file),
	       "second session: the index answers, every address as the resolver");
	free(used);
	TAP_OK(session_run(dir, other, &used) && index_ok(ofile, oinfo.build_id),
	       "the other build's index written");
	free(used);

	const char *cases[] = {"foreign: another build's index under its name",
			       "damaged: cut in half", "damaged: a byte of its body changed",
			       "stale: another revision"};
	for (int k = 0; k < 4; k++) {
		if (k == 0)
			copy_file(ofile, file);
		if (k == 1 || k == 2)
			damage_file(file, k == 1 ? 0 : 200);
		if (k == 3) {
			uint8_t *d;
			size_t n;
			sp_error_free(sp_read_file(file, &d, &n));
			d[12]++;
			spx_test_rechecksum(d, n);
			FILE *f = fopen(file, "wb");
			fwrite(d, 1, n, f);
			fclose(f);
			free(d);
		}
		bool same = session_run(dir, exe, &used);
		TAP_OK(same && !used, "%s: not used, every answer the resolver's", cases[k]);
		TAP_OK(index_ok(file, info.build_id), "%s: written again", cases[k]);
		free(used);
	}

	/* an index of the symbol table alone (from the copy without DWARF,
	 * which has the same build id) is not used for the file with DWARF */
	sp_elf_info binfo;
	sp_error_free(sp_elf_info_read(bare, &binfo));
	TAP_OK(binfo.build_id && !strcmp(binfo.build_id, info.build_id),
	       "the copy without DWARF has the same build id");
	sp_buf bytes;
	sp_index_stats bst;
	sp_error *e = build(bare, &binfo, SP_DEMANGLE_SIMPLE, &bytes, &bst);
	if (!e)
		e = sp_index_store(file, bytes.data, bytes.len);
	TAP_OK(!e && !bst.dwarf && bst.symbols, "an index of the symbol table alone stored");
	sp_error_free(e);
	sp_buf_free(&bytes);
	TAP_OK(session_run(dir, exe, &used) && !used, "not used for the file that has DWARF");
	free(used);
	sp_index *ix = NULL;
	sp_error_free(sp_index_open(file, info.build_id, SP_DEMANGLE_SIMPLE, &ix));
	sp_index_stats_of(ix, &bst);
	TAP_OK(ix && bst.dwarf, "written again, from DWARF");
	sp_index_free(ix);

	/* without debug info, no index is written (debug info found later
	 * would answer better) */
	char *bdir = sp_xasprintf("%s/ix-bare", tmpdir), *bfile = sp_index_path(bdir, info.build_id);
	TAP_OK(session_run(bdir, bare, &used) && !used && stat(bfile, &st) != 0,
	       "the copy without DWARF: no index written");
	free(used);
	TAP_EQ_U64(temporaries(dir), 0, "no temporary file left");
	free(bfile);
	free(bdir);
	sp_elf_info_clear(&binfo);
	free(file);
	free(ofile);
	free(dir);
	sp_elf_info_clear(&info);
	sp_elf_info_clear(&oinfo);
}

/* Four processes writing the same index at once, five times each: the
 * file is whole and the same as one written alone; no temporary file. */
static const char *volatile concurrent_exe; /* reachable from the children (valgrind) */

static void test_concurrent(const char *exe)
{
	concurrent_exe = exe;
	char *dir = sp_xasprintf("%s/ix-race", tmpdir);
	sp_elf_info info;
	sp_error_free(sp_elf_info_read(exe, &info));
	char *file = sp_index_path(dir, info.build_id);
	pid_t pids[4];
	for (int k = 0; k < 4; k++) {
		pids[k] = fork();
		if (pids[k] == 0) {
			int bad = 0;
			for (int i = 0; i < 5; i++) {
				sp_buf bytes;
				sp_error *e = build(exe, &info, SP_DEMANGLE_SIMPLE, &bytes, NULL);
				if (!e)
					e = sp_index_store(file, bytes.data, bytes.len);
				bad |= e != NULL || !index_ok(file, info.build_id);
				sp_error_free(e);
				sp_buf_free(&bytes);
			}
			free(file);
			free(dir);
			sp_elf_info_clear(&info);
			_exit(bad);
		}
	}
	int failed = 0;
	for (int k = 0; k < 4; k++) {
		int status;
		failed += pids[k] < 0 || waitpid(pids[k], &status, 0) != pids[k] ||
			  !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	}
	TAP_EQ_U64(failed, 0, "four writers at once: each wrote, and read a whole index, each time");
	sp_buf want;
	uint8_t *got;
	size_t n;
	sp_error *e = build(exe, &info, SP_DEMANGLE_SIMPLE, &want, NULL);
	if (!e)
		e = sp_read_file(file, &got, &n);
	TAP_OK(!e && n == want.len && !memcmp(got, want.data, n),
	       "the file is the one a single writer makes");
	if (!e)
		free(got);
	sp_error_free(e);
	sp_buf_free(&want);
	TAP_EQ_U64(temporaries(dir), 0, "no temporary file left");
	free(file);
	free(dir);
	sp_elf_info_clear(&info);
}

/* The made-up index of N answers gives back each answer at each address
 * it holds.  A large one has several pages of blocks (the top table's
 * entries, the last block of a page) and a header of several pages (the
 * body pages' checksums past its first page): those, changed, are found
 * damaged when a look-up needs them. */
static void test_synthetic(size_t N)
{
	sp_buf bytes = {0};
	sp_index *ix = NULL;
	sp_error *e = spx_test_synthetic(N, &bytes);
	char id[32];
	snprintf(id, sizeof(id), "5eed%zx", N);
	if (!e)
		e = sp_index_open_memory(bytes.data, bytes.len, "synthetic", id,
					 SP_DEMANGLE_SIMPLE, &ix);
	sp_index_stats st = {0};
	if (!e)
		e = sp_index_verify(ix, &st);
	uint64_t h = bytes.len >= SPX_PAGE ? spx_le((unsigned char *)bytes.data + SPX_H_HSIZE, 4) : 0;
	TAP_OK(!e && st.n_blocks > 2 && st.size > 3 * SPX_PAGE &&
		       (N < 100000 || (st.n_blocks > 2 * SPX_BLOCKS_PER_PAGE && h > SPX_PAGE)),
	       "the made-up index of %zu answers: %zu bytes (a header of %llu), %zu rows in %zu "
	       "blocks", N, st.size, (unsigned long long)h, st.n_rows, st.n_blocks);
	size_t differ = 0;
	char name_buf[64];
	for (size_t i = 0; !e && i < N; i++) {
		sp_frame f[4], want[4];
		char *keep[8];
		size_t n_keep;
		sp_answer a;
		sp_error *err;
		spx_test_answer(i, &a, f, name_buf, &err);
		spx_test_styled_answer(&a, SP_DEMANGLE_SIMPLE, want, keep, &n_keep);
		for (uint64_t d = 0; d < 4; d++) {
			const sp_frame *g;
			size_t ng;
			sp_error *ge = sp_index_resolve_once(ix, a.start + d, &g, &ng);
			const char *why;
			if (!same_answer(want, a.n, err, g, ng, ge, &why) && differ++ == 0)
				printf("# answer %zu at +%" PRIu64 ": %s\n", i, d, why);
			sp_error_free(ge);
		}
		sp_error_free(err);
		while (n_keep)
			free(keep[--n_keep]);
	}
	TAP_OK(!e && differ == 0, "every address of every made-up answer: %zu differ", differ);
	const sp_frame *g;
	size_t ng;
	sp_error *ge = ix ? sp_index_resolve_once(ix, 0x401000 + 4 * N, &g, &ng) : NULL;
	TAP_OK(ix && !ge && ng == 0, "past the last answer: nothing known");
	sp_error_free(ge);
	TAP_EQ_STR(ix ? sp_index_debug_path(ix) : NULL, "/usr/lib/debug/synthetic.debug",
		   "the debug file it records");
	sp_index_free(ix);
	ix = NULL;
	if (!e && h > SPX_PAGE) {
		/* a checksum in the header's second page changed: the file opens,
		 * the last answer's page of rows (its checksum there) is damaged */
		unsigned char *d = (unsigned char *)bytes.data;
		d[SPX_PAGE + 8] ^= 1;
		e = sp_index_open_memory(d, bytes.len, "synthetic", id, SP_DEMANGLE_SIMPLE, &ix);
		TAP_OK(!e, "a header page after the first changed: it still opens");
		ge = ix ? sp_index_resolve_once(ix, 0x401000 + 4 * (N - 1), &g, &ng) : NULL;
		char *msg = ge ? sp_error_string(ge) : sp_xstrdup("(no error)");
		TAP_OK(ge && strstr(msg, "header page 1 (4096 bytes, the body pages' checksums) does "
				    "not match its checksum"),
		       "the last answer: %s", msg);
		free(msg);
		sp_error_free(ge);
		sp_index_free(ix);
		d[SPX_PAGE + 8] ^= 1;
		/* the top table's second entry one past its block's address */
		unsigned char *top = d + spx_parts(spx_le(d + SPX_H_ID_LEN, 2), SPX_N_SECTIONS,
						   spx_le(d + SPX_H_TOP, 4), h).top;
		spx_put_le(top + 4, spx_le(top + 4, 4) + 1, 4);
		spx_test_rechecksum(d, bytes.len);
		e = sp_index_open_memory(d, bytes.len, "synthetic", id, SP_DEMANGLE_SIMPLE, &ix);
		ge = ix ? sp_index_resolve_once(ix, spx_le(d + SPX_H_BASE, 8) + spx_le(top + 4, 4),
						&g, &ng)
			: NULL;
		msg = ge ? sp_error_string(ge) : sp_xstrdup("(no error)");
		TAP_OK(!e && ge && strstr(msg, "the top table says"),
		       "the top table disagrees with a page of blocks: %s", msg);
		free(msg);
		sp_error_free(ge);
		sp_index_free(ix);
	}
	sp_error_free(e);
	sp_buf_free(&bytes);
}

/* Malformed indexes: the made-up one of 300 answers with one defect, its
 * checksums made again unless the defect is in them. */
typedef struct {
	const char *name, *expect;
	void (*make)(unsigned char *d, size_t *n);
	bool keep_checksums;
} bad_case;

static unsigned char *sec_at(unsigned char *d, unsigned kind, uint64_t *size)
{
	return d + spx_test_section(d, kind, size);
}

static void m_magic(unsigned char *d, size_t *n) { (void)n; d[1] = 'Q'; }
static void m_version(unsigned char *d, size_t *n) { (void)n; spx_put_le(d + 8, 99, 4); }
static void m_revision(unsigned char *d, size_t *n) { (void)n; d[12]++; }
static void m_cut(unsigned char *d, size_t *n) { (void)d; *n /= 2; }
static void m_header(unsigned char *d, size_t *n) { (void)n; d[49] ^= 0x10; }
static void m_page(unsigned char *d, size_t *n)
{
	uint64_t size;
	unsigned char *rows = sec_at(d, SPX_SEC_ROWS, &size);
	(void)n;
	rows[size / 2] ^= 0x21;
}
static void m_order(unsigned char *d, size_t *n)
{
	(void)n;
	unsigned char *e = d + SPX_FIXED + (spx_le(d + 44, 2) + 7) / 8 * 8;
	spx_put_le(e + SPX_SECTION_ENTRY, SPX_SEC_NODE_INDEX, 4); /* FILES's entry says NODE_INDEX */
}
static void m_past_end(unsigned char *d, size_t *n)
{
	unsigned char *e = d + SPX_FIXED + (spx_le(d + 44, 2) + 7) / 8 * 8 +
			   SPX_SECTION_ENTRY * (SPX_SEC_ROWS - 1);
	spx_put_le(e + 16, *n, 8);
}
static void m_count(unsigned char *d, size_t *n)
{
	(void)n;
	spx_put_le(d + SPX_H_NODES, 1000000, 4);
}
static void m_unterminated(unsigned char *d, size_t *n)
{
	uint64_t size;
	(void)n;
	sec_at(d, SPX_SEC_STRINGS, &size)[size - 1] = 'x';
}
static void m_blocks_back(unsigned char *d, size_t *n)
{
	uint64_t size;
	(void)n;
	/* block 2 starts at 1: block 1 ends there */
	spx_put_le(sec_at(d, SPX_SEC_BLOCKS, &size) + 2 * SPX_BLOCK_ENTRY + 4, 1, 4);
}
static void m_base(unsigned char *d, size_t *n)
{
	uint64_t size, bsize;
	(void)n;
	unsigned char *blocks = sec_at(d, SPX_SEC_BLOCKS, &bsize);
	unsigned char *rows = sec_at(d, SPX_SEC_ROWS, &size);
	/* the last block's node before its first row (after its count):
	 * made 127 more (its uleb keeps its length), past every node */
	unsigned char *p = rows + spx_le(blocks + bsize - 4, 4) + 1;
	if (p[0] & 0x80)
		p[1] = 0x7f;
	else
		p[0] = 0x7f;
}
static void m_parent(unsigned char *d, size_t *n)
{
	uint64_t size;
	unsigned char *p = sec_at(d, SPX_SEC_NODES, &size);
	spx_cur c = {p, p + size, false};
	(void)n;
	/* the first node with a parent: its distance to it made 127 */
	while (!c.bad && c.p < c.end) {
		unsigned flags = spx_byte(&c);
		spx_uleb(&c);
		if ((flags & SPX_NODE_KIND) == SPX_NODE_ERROR) {
			spx_uleb(&c);
			continue;
		}
		if (flags & SPX_NODE_FUNC) { /* the rest of its function's record */
			spx_uleb(&c);
			spx_uleb(&c);
			spx_sleb(&c);
		}
		if (flags & SPX_NODE_PARENT) {
			if (*c.p < 0x80) {
				*(unsigned char *)c.p = 0x7f;
				return;
			}
			spx_uleb(&c);
			spx_uleb(&c);
			spx_sleb(&c);
			spx_sleb(&c);
			spx_uleb(&c);
		}
	}
}
static void m_name(unsigned char *d, size_t *n)
{
	uint64_t size;
	unsigned char *p = sec_at(d, SPX_SEC_NODES, &size);
	(void)n;
	/* the first function's name (in the first node, after its flags): an
	 * offset of 2^21 - 1 (its uleb made three bytes long over the name and
	 * binutils' name) */
	p[1] = 0xff;
	p[2] = 0xff;
	p[3] = 0x7f;
}
static void m_blocks_same(unsigned char *d, size_t *n)
{
	uint64_t size;
	(void)n;
	spx_put_le(sec_at(d, SPX_SEC_BLOCKS, &size) + SPX_BLOCK_ENTRY, 0, 4);
}
static void m_top(unsigned char *d, size_t *n)
{
	(void)n;
	/* the first page of blocks said to start 4 bytes later */
	spx_put_le(spx_parts(spx_le(d + SPX_H_ID_LEN, 2), SPX_N_SECTIONS, 1, SPX_PAGE).top + d,
		   4, 4);
}
static void m_count_short(unsigned char *d, size_t *n)
{
	uint64_t size;
	(void)n;
	sec_at(d, SPX_SEC_ROWS, &size)[0] = 0; /* block 0: one row said */
}
static void m_func_inside(unsigned char *d, size_t *n)
{
	uint64_t size;
	(void)n;
	/* the first node that names a function held by a node before it: at
	 * offset 2, inside the first function's record (node 0's, from 1) */
	unsigned char *p = sec_at(d, SPX_SEC_NODES, &size);
	spx_cur c = {p, p + size, false};
	while (!c.bad && c.p < c.end) {
		unsigned flags = spx_byte(&c);
		if ((flags & SPX_NODE_KIND) != SPX_NODE_ERROR && !(flags & SPX_NODE_FUNC) &&
		    *c.p < 0x80) {
			*(unsigned char *)c.p = 2;
			return;
		}
		spx_uleb(&c);
		if ((flags & SPX_NODE_KIND) == SPX_NODE_ERROR) {
			spx_uleb(&c);
			continue;
		}
		if (flags & SPX_NODE_FUNC) {
			spx_uleb(&c);
			spx_uleb(&c);
			spx_sleb(&c);
		}
		if (flags & SPX_NODE_PARENT) {
			spx_uleb(&c);
			spx_uleb(&c);
			spx_sleb(&c);
			spx_sleb(&c);
			spx_uleb(&c);
		}
	}
}

static const bad_case bad_cases[] = {
	{"bad_magic", "not a symbol index", m_magic, false},
	{"other_version", "index format version 99, this symprof reads version 2", m_version, false},
	{"stale", "stale: made by a symprof whose answers were revision 2", m_revision, false},
	{"cut_short", "offset 16: its size field says", m_cut, true},
	{"header_changed", "offset 28: the header", m_header, true},
	{"page_changed", "does not match its checksum: the file is damaged", m_page, true},
	{"sections_out_of_order", "section entry 1: kind 3", m_order, false},
	{"section_past_end", "section entry 5: kind 6", m_past_end, false},
	{"more_nodes_than_indexed", "1000000 nodes, an index of", m_count, false},
	{"names_unterminated", "the names do not begin and end with a NUL byte", m_unterminated,
	 false},
	{"block_backwards", "block 1 ends before it starts", m_blocks_back, false},
	{"row_past_nodes", "a node that does not exist", m_base, false},
	{"parent_after_node", "whose parent does not come before it", m_parent, false},
	{"name_past_strings", "past the names", m_name, false},
	{"blocks_same_address", "a row at or past the next block's first address", m_blocks_same,
	 false},
	{"top_disagrees", "the top table says 0x4", m_top, false},
	{"rows_after_count", "block 0: bytes after its last row", m_count_short, false},
	{"function_inside_another", "function at 2, not where a function starts",
	 m_func_inside, false},
};

/* The bytes of malformed case C (caller frees *OUT). */
static void make_bad(const bad_case *c, unsigned char **out, size_t *n)
{
	sp_buf b = {0};
	sp_error_free(spx_test_synthetic(300, &b));
	*n = b.len;
	c->make((unsigned char *)b.data, n);
	if (!c->keep_checksums)
		spx_test_rechecksum((unsigned char *)b.data, *n);
	*out = (unsigned char *)b.data;
}

/* The first error D (N bytes) gives: opening, checking it whole, looking
 * up its addresses (caller frees; NULL: none). */
static sp_error *first_error(const unsigned char *d, size_t n)
{
	sp_index *ix;
	sp_error *e = sp_index_open_memory(d, n, "bad.spx", NULL, SP_DEMANGLE_SIMPLE, &ix);
	if (!e)
		e = sp_index_verify(ix, NULL);
	for (uint64_t a = 0x401000; !e && a < 0x401000 + 4 * 300; a++) {
		const sp_frame *f;
		size_t nf;
		e = sp_index_resolve_once(ix, a, &f, &nf);
		if (e && !sp_index_damaged(ix)) { /* the made-up error answer */
			sp_error_free(e);
			e = NULL;
		}
	}
	sp_index_free(ix);
	return e;
}

static void test_malformed(const char *srcdir)
{
	for (size_t i = 0; i < SP_ARRAY_LEN(bad_cases); i++) {
		const bad_case *c = &bad_cases[i];
		unsigned char *d;
		size_t n;
		make_bad(c, &d, &n);
		sp_error *e = first_error(d, n);
		char *msg = e ? sp_error_string(e) : sp_xstrdup("(no error)");
		TAP_OK(e && strstr(msg, c->expect), "%s: %s", c->name, msg);
		char *path = sp_xasprintf("%s/tests/malformed/index/%s.spx", srcdir, c->name);
		uint8_t *committed;
		size_t cn;
		sp_error *re = sp_read_file(path, &committed, &cn);
		TAP_OK(!re && cn == n && !memcmp(committed, d, n),
		       "%s: the committed case is the one made here", c->name);
		if (!re)
			free(committed);
		sp_error_free(re);
		free(path);
		free(msg);
		sp_error_free(e);
		free(d);
	}
}

static int write_file(const char *dir, const char *name, const void *d, size_t n)
{
	char *path = sp_xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	int rc = !f || fwrite(d, 1, n, f) != n;
	if (f && fclose(f) != 0)
		rc = 1;
	free(path);
	return rc;
}

static int write_seeds(const char *dir)
{
	static const size_t sizes[] = {40, 300, 1500};
	int rc = 0;
	for (size_t i = 0; i < SP_ARRAY_LEN(sizes); i++) {
		sp_buf b = {0};
		sp_error *e = spx_test_synthetic(sizes[i], &b);
		char name[32];
		snprintf(name, sizeof(name), "synthetic-%zu.spx", sizes[i]);
		rc |= e != NULL || write_file(dir, name, b.data, b.len);
		sp_error_free(e);
		sp_buf_free(&b);
	}
	return rc;
}

static int write_malformed(const char *dir)
{
	int rc = 0;
	for (size_t i = 0; i < SP_ARRAY_LEN(bad_cases); i++) {
		unsigned char *d;
		size_t n;
		make_bad(&bad_cases[i], &d, &n);
		char *spx = sp_xasprintf("%s.spx", bad_cases[i].name),
		     *exp = sp_xasprintf("%s.expect", bad_cases[i].name);
		rc |= write_file(dir, spx, d, n) ||
		      write_file(dir, exp, bad_cases[i].expect, strlen(bad_cases[i].expect));
		free(spx);
		free(exp);
		free(d);
	}
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--write-seeds"))
		return write_seeds(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "--write-malformed"))
		return write_malformed(argv[2]);
	const char *srcdir = getenv("SP_SRCDIR");
	/* absolute: the fixtures are built in TMPDIR */
	char *top = realpath(srcdir ? srcdir : "..", NULL);
	test_synthetic(1500);
	test_synthetic(240000);
	test_malformed(top ? top : ".");
	char *src = sp_xasprintf("%s/testdata/src/symbolize/fixture.cc", top ? top : ".");
	char *srcb = sp_xasprintf("%s/testdata/src/symbolize/fixture_b.cc", top ? top : ".");
	free(top);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/sp-index-XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	/* name, compiler and flags (NULL: the symbol table alone, stripped
	 * from the first), sources (1: fixture.cc, 2: fixture_b.cc too) */
	struct {
		const char *name, *cc;
		int srcs;
	} fx[] = {
		{"fixture", "g++ -O2 -g", 1},
		{"fixture-dwarf4", "g++ -O2 -g -gdwarf-4", 1},
		{"fixture-zlib", "g++ -O2 -g -gz=zlib", 1},
		{"fixture-clang", "clang++ -O2 -g", 1},
		{"fixture-split", "g++ -O2 -g -gsplit-dwarf", 1},
		{"fixture-b", "g++ -O1 -g", 2},
		{"fixture-symtab", NULL, 0},
	};
	for (size_t i = 0; i < SP_ARRAY_LEN(fx); i++) {
		int rc;
		if (!fx[i].cc)
			rc = sh("strip --strip-debug -o '%s/%s' '%s/fixture'", tmpdir, fx[i].name, tmpdir);
		else if (!strncmp(fx[i].cc, "clang", 5) && sh("command -v clang++ >/dev/null") != 0)
			rc = -1;
		else /* in TMPDIR: the .dwo files of split DWARF are written there */
			rc = sh("cd '%s' && %s -o '%s' '%s'%s%s%s", tmpdir, fx[i].cc, fx[i].name, src,
				fx[i].srcs == 2 ? " '" : "", fx[i].srcs == 2 ? srcb : "",
				fx[i].srcs == 2 ? "'" : "");
		if (rc == -1) {
			TAP_OK(1, "%s # SKIP clang++ not installed", fx[i].name);
			continue;
		}
		TAP_OK(rc == 0, "built %s", fx[i].name);
		char *path = sp_xasprintf("%s/%s", tmpdir, fx[i].name);
		if (rc == 0)
			compare_all(fx[i].name, path, fx[i].cc != NULL);
		free(path);
	}
	char *exe = sp_xasprintf("%s/fixture", tmpdir), *other = sp_xasprintf("%s/fixture-b", tmpdir),
	     *bare = sp_xasprintf("%s/fixture-symtab", tmpdir);
	test_marks(exe, src);
	test_checks(exe);
	test_damaged_page();
	test_sessions(exe, other, bare);
	/* (freed before the writers fork: under valgrind each child's leak
	 * check at its exit would count what only the parent still holds) */
	free(other);
	free(bare);
	test_concurrent(exe);
	if (!getenv("SP_KEEP_TMP"))
		sh("rm -rf '%s'", tmpdir);
	free(exe);
	free(src);
	free(srcb);
	return tap_done();
}
