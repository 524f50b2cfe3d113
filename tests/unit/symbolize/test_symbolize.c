/* test_symbolize.c — sessions and sp_symbolize_profile.
 *
 * The fixture testdata/src/symbolize/fixture.cc is built as a PIE at test time and
 * "loaded" at 0x555555554000 in a hand-made profile whose mappings cover
 * every case of the report: resolved, no mapping, anonymous, missing file,
 * build-id mismatch, not ELF, already symbolized.  Expected frames come from
 * the fixture's source (MARK lines) and from nm's symbol addresses.
 */
#include "symbolize/internal.h"
#include "tests/helpers/tap.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define LOAD 0x555555554000ULL

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

static uint64_t nm_addr(const char *path, const char *name)
{
	char *cmd = sp_xasprintf("nm --defined-only '%s'", path);
	FILE *f = popen(cmd, "r");
	free(cmd);
	char line[4096], sym[3000];
	unsigned long long a;
	char t;
	uint64_t r = 0;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %2999s", &a, &t, sym) == 3 && !strcmp(sym, name))
			r = a;
	if (f)
		pclose(f);
	return r;
}

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

static void test_session(const char *exe)
{
	const char *dirs[] = {"/some/debug/dir"};
	char from[] = "/old", to[] = "/new";
	sp_path_map pm = {from, to};
	sp_symbolize_options o = {.debug_dirs = dirs, .n_debug_dirs = 1, .path_maps = &pm,
				  .n_path_maps = 1, .no_inline = true};
	sp_symbolizer *s = sp_symbolizer_new(&o);
	from[1] = 'X';
	dirs[0] = "changed";
	const sp_symbolize_options *so = sp_symbolizer_options(s);
	TAP_EQ_STR(so->path_maps[0].from, "/old", "options are copied deeply (path maps)");
	TAP_EQ_STR(so->debug_dirs[0], "/some/debug/dir", "options are copied deeply (dirs)");
	TAP_OK(so->no_inline, "flags copied");

	sp_object *a, *b, *c;
	sp_error *e = sp_symbolizer_object(s, exe, NULL, &a);
	TAP_OK(!e && a, "object opens");
	sp_error_free(e);
	e = sp_symbolizer_object(s, exe, NULL, &b);
	TAP_OK(!e && a == b, "same path, same object");
	sp_error_free(e);
	char *copy = sp_xasprintf("%s/copy-of-fixture", tmpdir);
	sh("cp '%s' '%s'", exe, copy);
	e = sp_symbolizer_object(s, copy, NULL, &c);
	TAP_OK(!e && c == a, "a copy with the same build id shares the object");
	sp_error_free(e);
	const sp_elf_info *info = a ? sp_object_info(a) : NULL;
	TAP_OK(info && info->build_id && strlen(info->build_id) >= 16, "build id known");

	e = sp_symbolizer_object(s, exe, "0123456789abcdef", &b);
	TAP_OK(e && sp_error_root_code(e) == SP_E_BUILD_ID_MISMATCH && !b,
	       "expected build id differs: mismatch");
	sp_error_free(e);
	if (info && info->build_id) {
		char *upper = sp_xstrdup(info->build_id);
		for (char *p = upper; *p; p++)
			if (*p >= 'a' && *p <= 'f')
				*p -= 32;
		e = sp_symbolizer_object(s, exe, upper, &b);
		TAP_OK(!e && b == a, "build id compared without case");
		sp_error_free(e);
		free(upper);
	}

	char *later = sp_xasprintf("%s/appears-later", tmpdir);
	e = sp_symbolizer_object(s, later, NULL, &b);
	TAP_OK(e && !b, "missing file fails");
	sp_error_free(e);
	sh("cp '%s' '%s'", exe, later);
	e = sp_symbolizer_object(s, later, NULL, &b);
	TAP_OK(e && !b, "the failure is cached for the session");
	sp_error_free(e);
	sp_symbolizer_free(s);

	s = sp_symbolizer_new(NULL);
	e = sp_symbolizer_object(s, later, NULL, &b);
	TAP_OK(!e && b, "a new session looks again");
	sp_error_free(e);
	sp_symbolizer_free(s);
	sp_symbolizer_free(NULL);
	free(copy);
	free(later);
}

static const sp_mapping_report *report_for(const sp_symbolize_report *r, uint64_t id)
{
	for (size_t i = 0; i < r->n_mappings; i++)
		if (r->mappings[i].mapping_id == id)
			return &r->mappings[i];
	return NULL;
}

static const char *fn_name(const sp_profile *p, uint64_t fid)
{
	const sp_function *f = sp_profile_function(p, fid);
	return f ? sp_profile_str(p, f->name) : "(none)";
}

static void test_profile(const char *exe, const char *src, bool no_inline)
{
	sp_elf_info info;
	sp_error *e = sp_elf_info_read(exe, &info);
	if (!TAP_OK(!e, "fixture identity")) {
		sp_error_free(e);
		return;
	}
	const sp_phdr *text = NULL;
	for (size_t i = 0; i < info.n_loads; i++)
		if (info.loads[i].flags & PF_X)
			text = &info.loads[i];
	uint64_t compute = nm_addr(exe, "_ZN5outer5inner6Widget7computeEi");
	uint64_t helper = nm_addr(exe, "_ZL6helperi");
	TAP_OK(text && compute && helper, "text segment and symbols found");
	if (!text || !compute || !helper) {
		sp_elf_info_clear(&info);
		return;
	}

	/* Find, with the resolver, an address of compute with a 4-deep chain. */
	sp_symbolizer *s = sp_symbolizer_new(&(sp_symbolize_options){.no_inline = no_inline});
	sp_object *obj;
	uint64_t deep = 0;
	const sp_frame *fr;
	size_t nfr = 0;
	e = sp_symbolizer_object(s, exe, NULL, &obj);
	for (uint64_t a = compute; !e && a < compute + 0x60 && !deep; a++) {
		sp_error *e2 = sp_object_resolve(obj, a, &fr, &nfr);
		if (!e2 && nfr == 4)
			deep = a;
		sp_error_free(e2);
	}
	sp_error_free(e);
	TAP_OK(deep != 0, "an inlined address in compute");
	if (deep) {
		/* uncached: the same frames; a later call leaves the cached ones */
		const sp_frame *f1, *f2, *f3;
		size_t n1 = 0, n2 = 0, n3 = 0;
		sp_error *e1 = sp_object_resolve(obj, deep, &f1, &n1);
		sp_error *e2 = sp_object_resolve_once(obj, deep, &f2, &n2);
		bool same = !e1 && !e2 && n1 == 4 && n2 == 4 && f1 != f2;
		for (size_t i = 0; same && i < n1; i++)
			same = !strcmp(f1[i].name, f2[i].name) && f1[i].line == f2[i].line &&
			       f1[i].inlined == f2[i].inlined && !strcmp(f1[i].file, f2[i].file);
		TAP_OK(same, "resolve_once gives the frames resolve gives");
		const char *inner = n1 ? f1[0].name : NULL;
		sp_error *e3 = sp_object_resolve_once(obj, compute, &f3, &n3);
		TAP_OK(!e3 && n3 == 1 && n1 == 4 && f1[0].name == inner &&
			       strcmp(f3[0].name, inner) != 0,
		       "a later resolve_once leaves the cached frames alone");
		sp_error_free(e1);
		sp_error_free(e2);
		sp_error_free(e3);
	}

	sp_profile *p = sp_profile_new();
	sp_profile_add_sample_type(p, "samples", "count");
	sp_mapping m = {0};
	m.memory_start = LOAD + (text->vaddr & ~0xfffULL);
	m.memory_limit = LOAD + ((text->vaddr + text->memsz + 0xfff) & ~0xfffULL);
	m.file_offset = text->offset & ~0xfffULL;
	m.filename = sp_profile_intern(p, exe);
	sp_profile_add_mapping(p, &m); /* 1: the fixture, no build id recorded */
	sp_mapping anon = {.memory_start = 0x7f0000000000ULL, .memory_limit = 0x7f0000010000ULL};
	sp_profile_add_mapping(p, &anon); /* 2: file-less */
	sp_mapping miss = {.memory_start = 0x7f1000000000ULL, .memory_limit = 0x7f1000010000ULL};
	miss.filename = sp_profile_intern(p, "/nonexistent/lib.so");
	sp_profile_add_mapping(p, &miss); /* 3 */
	sp_mapping bad = m;
	bad.memory_start += 0x100000000ULL;
	bad.memory_limit += 0x100000000ULL;
	bad.build_id = sp_profile_intern(p, "00112233445566778899aabbccddeeff00112233");
	sp_profile_add_mapping(p, &bad); /* 4: wrong build id */
	char *txt = sp_xasprintf("%s/text.so", tmpdir);
	sh("echo hello > '%s'", txt);
	sp_mapping notelf = {.memory_start = 0x7f2000000000ULL, .memory_limit = 0x7f2000010000ULL};
	notelf.filename = sp_profile_intern(p, txt);
	sp_profile_add_mapping(p, &notelf); /* 5 */
	sp_mapping done = {.memory_start = 0x7f3000000000ULL, .memory_limit = 0x7f3000010000ULL,
			   .has_functions = true};
	done.filename = sp_profile_intern(p, exe);
	sp_profile_add_mapping(p, &done); /* 6: already symbolized */
	sp_mapping big = m;
	big.memory_start += 0x200000000ULL;
	big.memory_limit = big.memory_start + 0x1000000;
	sp_profile_add_mapping(p, &big); /* 7: 16 MiB, more than the file has */

	uint64_t l_deep = sp_profile_location_for_address(p, 1, LOAD + deep);
	uint64_t l_help = sp_profile_location_for_address(p, 1, LOAD + helper);
	uint64_t l_help2 = sp_profile_location_for_address(p, 1, LOAD + helper + 1);
	sp_profile_location_for_address(p, 2, 0x7f0000000100ULL);
	sp_profile_location_for_address(p, 2, 0x7f0000000200ULL);
	sp_profile_location_for_address(p, 3, 0x7f1000000100ULL);
	sp_profile_location_for_address(p, 4, bad.memory_start + 0x10);
	sp_profile_location_for_address(p, 5, 0x7f2000000100ULL);
	uint64_t l_done = sp_profile_location_for_address(p, 6, 0x7f3000000100ULL);
	sp_profile_location_for_address(p, 0, 0x1234);
	uint64_t l_big = sp_profile_location_for_address(
		p, 7, big.memory_start + compute - (text->vaddr & ~0xfffULL));
	sp_profile_location_for_address(p, 7, big.memory_start + 0x800000);
	sp_profile_location_for_address(p, 7, big.memory_limit + 0x10);
	uint64_t ids[] = {l_deep, l_help, l_help2};
	int64_t v = 1;
	sp_profile_add_sample(p, &v, ids, 3, NULL, 0);

	sp_symbolize_report rep = {0};
	e = sp_symbolize_profile(s, p, &rep);
	TAP_OK(!e, "symbolize_profile succeeds with partial results");
	sp_error_free(e);

	const sp_location *ld = sp_profile_location(p, l_deep);
	if (no_inline) {
		TAP_EQ_U64(ld->n_lines, 1, "no_inline: only the outermost frame");
		if (ld->n_lines)
			TAP_EQ_U64(ld->lines[0].line, mark_line(src, "compute_call"),
				   "no_inline: the call line in compute");
	} else {
		TAP_EQ_U64(ld->n_lines, 4, "four lines for the inlined address");
		if (ld->n_lines == 4) {
			TAP_EQ_STR(fn_name(p, ld->lines[3].function_id),
				   "outer::inner::Widget::compute", "outermost: demangled compute");
			const sp_function *f = sp_profile_function(p, ld->lines[3].function_id);
			TAP_EQ_STR(sp_profile_str(p, f->system_name),
				   "_ZN5outer5inner6Widget7computeEi", "system name is mangled");
			TAP_OK(strstr(sp_profile_str(p, f->filename), "fixture.cc") != NULL,
			       "function file");
			TAP_EQ_U64(f->start_line, mark_line(src, "compute_decl"), "start line");
			TAP_EQ_U64(ld->lines[3].line, mark_line(src, "compute_call"),
				   "call line in compute");
			TAP_EQ_U64(ld->lines[2].line, mark_line(src, "top_call"),
				   "call line in top");
			TAP_EQ_STR(fn_name(p, ld->lines[2].function_id), "outer::inner::top",
				   "top demangled");
			TAP_OK(strstr(fn_name(p, ld->lines[0].function_id), "leaf") != NULL,
			       "innermost is leaf");
		}
	}
	const sp_location *lh = sp_profile_location(p, l_help);
	const sp_location *lh2 = sp_profile_location(p, l_help2);
	TAP_OK(lh->n_lines >= 1 && lh2->n_lines >= 1, "helper resolves");
	if (lh->n_lines >= 1 && lh2->n_lines >= 1) {
		TAP_EQ_STR(fn_name(p, lh->lines[lh->n_lines - 1].function_id), "helper",
			   "static helper demangled from its symbol");
		TAP_EQ_U64(lh->lines[lh->n_lines - 1].function_id,
			   lh2->lines[lh2->n_lines - 1].function_id, "functions de-duplicated");
	}
	TAP_OK(sp_profile_location(p, l_done)->n_lines == 0, "already symbolized left alone");

	const sp_mapping *m1 = sp_profile_mapping(p, 1);
	TAP_OK(m1->has_functions && m1->has_filenames && m1->has_line_numbers &&
		       m1->has_inline_frames,
	       "has_* flags set");
	TAP_EQ_STR(sp_profile_str(p, m1->build_id), info.build_id, "build id filled in");
	TAP_OK(!sp_profile_mapping(p, 2)->has_functions, "anonymous mapping not marked");

	TAP_EQ_U64(rep.n_mappings, 8, "one report per mapping plus no-mapping");
	const sp_mapping_report *r;
	r = report_for(&rep, 1);
	TAP_OK(r && r->n_addresses == 3 && r->n_resolved == 3, "mapping 1: 3 of 3 resolved");
	TAP_OK(r && r->used_path && !strcmp(r->used_path, exe), "mapping 1: used path");
	r = report_for(&rep, 2);
	TAP_OK(r && r->n_reason[SP_UNRES_ANONYMOUS] == 2, "mapping 2: anonymous x2");
	r = report_for(&rep, 3);
	TAP_OK(r && r->n_reason[SP_UNRES_FILE_NOT_FOUND] == 1, "mapping 3: file not found");
	r = report_for(&rep, 4);
	TAP_OK(r && r->n_reason[SP_UNRES_BUILD_ID_MISMATCH] == 1, "mapping 4: build-id mismatch");
	r = report_for(&rep, 5);
	TAP_OK(r && r->n_reason[SP_UNRES_NOT_ELF] == 1, "mapping 5: not ELF");
	r = report_for(&rep, 6);
	TAP_OK(r && r->n_reason[SP_UNRES_ALREADY] == 1, "mapping 6: already symbolized");
	r = report_for(&rep, 7);
	TAP_OK(r && r->n_addresses == 3 && r->n_resolved == 1, "mapping 7: 1 of 3 resolved");
	TAP_OK(r && r->n_reason[SP_UNRES_OUTSIDE_FILE] == 1, "mapping 7: one beyond the file");
	TAP_OK(r && r->n_reason[SP_UNRES_NO_MAPPING] == 1, "mapping 7: one beyond the mapping");
	{
		const sp_location *lb = sp_profile_location(p, l_big);
		TAP_OK(lb->n_lines >= 1 && !strcmp(fn_name(p, lb->lines[lb->n_lines - 1].function_id),
						  "outer::inner::Widget::compute"),
		       "mapping 7: compute found through the same object");
	}
	r = report_for(&rep, 0);
	TAP_OK(r && r->n_reason[SP_UNRES_NO_MAPPING] == 1, "no mapping");
	e = sp_profile_check(p, "symbolized");
	TAP_OK(!e, "profile still valid");
	sp_error_free(e);

	/* A second pass finds nothing to do. */
	sp_symbolize_report_clear(&rep);
	e = sp_symbolize_profile(s, p, &rep);
	r = report_for(&rep, 1);
	TAP_OK(!e && !r, "second pass: mapping 1 has no line-less locations left");
	sp_error_free(e);
	sp_symbolize_report_clear(&rep);
	sp_symbolize_report_clear(&rep);

	sp_profile_free(p);
	sp_symbolizer_free(s);
	sp_elf_info_clear(&info);
	free(txt);
}

/* Frames of the unstripped EXE at VADDR equal those of STRIPPED (separate
 * debug info found through OPTS); returns the debug path used. */
static void check_stripped(const char *exe, const char *stripped, const sp_symbolize_options *o,
			   uint64_t vaddr, const char *what)
{
	sp_symbolizer *s1 = sp_symbolizer_new(o), *s2 = sp_symbolizer_new(o);
	sp_object *a = NULL, *b = NULL;
	const sp_frame *fa, *fb;
	size_t na = 0, nb = 0;
	sp_error *e = sp_symbolizer_object(s1, exe, NULL, &a);
	if (!e)
		e = sp_object_resolve(a, vaddr, &fa, &na);
	sp_error_free(e);
	e = sp_symbolizer_object(s2, stripped, NULL, &b);
	if (!e)
		e = sp_object_resolve(b, vaddr, &fb, &nb);
	TAP_OK(!e && nb > 0 && nb == na, "%s: %zu frames as unstripped (%zu)", what, nb, na);
	sp_error_free(e);
	bool same = nb == na;
	for (size_t i = 0; same && i < na; i++)
		same = fa[i].file && fb[i].file && !strcmp(fa[i].file, fb[i].file) &&
		       fa[i].line == fb[i].line && !strcmp(fa[i].name, fb[i].name);
	TAP_OK(same, "%s: same names, files and lines", what);
	TAP_OK(b && sp_object_debug_path(b) != NULL, "%s: debug file recorded: %s", what,
	       b && sp_object_debug_path(b) ? sp_object_debug_path(b) : "(none)");
	sp_symbolizer_free(s1);
	sp_symbolizer_free(s2);
}

static void test_separate_debug(const char *exe)
{
	uint64_t compute = nm_addr(exe, "_ZN5outer5inner6Widget7computeEi");
	sp_elf_info info;
	sp_error *e = sp_elf_info_read(exe, &info);
	if (e || !info.build_id || !compute) {
		TAP_OK(0, "fixture identity for separate debug info");
		sp_error_free(e);
		return;
	}
	/* .gnu_debuglink next to the binary */
	int rc = sh("mkdir -p '%s/dl' && cd '%s/dl' && objcopy --only-keep-debug '%s' app.debug && "
		    "objcopy --strip-debug --add-gnu-debuglink=app.debug '%s' app",
		    tmpdir, tmpdir, exe, exe);
	TAP_OK(rc == 0, "made a stripped binary with a debuglink");
	char *stripped = sp_xasprintf("%s/dl/app", tmpdir);
	check_stripped(exe, stripped, NULL, compute + 0x10, "debuglink");
	free(stripped);

	/* build-id tree under --debug-dir */
	char *dd = sp_xasprintf("%s/debugroot", tmpdir);
	rc = sh("mkdir -p '%s/.build-id/%.2s' '%s/bid' && "
		"objcopy --only-keep-debug '%s' '%s/.build-id/%.2s/%s.debug' && "
		"objcopy --strip-debug '%s' '%s/bid/app'",
		dd, info.build_id, tmpdir, exe, dd, info.build_id, info.build_id + 2, exe, tmpdir);
	TAP_OK(rc == 0, "made a stripped binary and a build-id tree");
	const char *dirs[] = {dd};
	sp_symbolize_options o = {.debug_dirs = dirs, .n_debug_dirs = 1, .no_debuginfod = true};
	stripped = sp_xasprintf("%s/bid/app", tmpdir);
	check_stripped(exe, stripped, &o, compute + 0x10, "build-id tree");
	free(stripped);
	free(dd);
	sp_elf_info_clear(&info);
}

/* Gives every allocated section of the ET_REL at PATH a distinct run-time
 * address, as a JIT does; returns the address given to section NAME. */
static uint64_t place_sections(const char *path, const char *name)
{
	uint64_t want = 0, next = 0x7f3400000000ULL;
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
		next += ((sh.sh_size + 0xfff) & ~0xfffULL) + 0x1000;
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

/* A mapping of an ET_REL whose sections carry run-time addresses resolves
 * with base 0, whatever the mapping's start. */
static void test_rel_mapping(const char *src)
{
	char *obj = sp_xasprintf("%s/jit.o", tmpdir);
	const char *fn = "_ZN5outer5inner6Widget7computeEi";
	int rc = sh("g++ -O2 -g -ffunction-sections -c -o '%s' '%s'", obj, src);
	char *sec = sp_xasprintf(".text.%s", fn);
	uint64_t at = rc == 0 ? place_sections(obj, sec) : 0;
	TAP_OK(at != 0, "ET_REL with run-time section addresses");
	sp_profile *p = sp_profile_new();
	sp_profile_add_sample_type(p, "samples", "count");
	sp_mapping m = {.memory_start = 0x7f3400000000ULL, .memory_limit = 0x7f3500000000ULL};
	m.filename = sp_profile_intern(p, obj);
	sp_profile_add_mapping(p, &m);
	uint64_t l = sp_profile_location_for_address(p, 1, at + 4);
	sp_symbolizer *s = sp_symbolizer_new(NULL);
	sp_error *e = sp_symbolize_profile(s, p, NULL);
	TAP_OK(!e, "symbolized");
	sp_error_free(e);
	const sp_location *loc = sp_profile_location(p, l);
	TAP_OK(loc->n_lines >= 1 &&
		       !strcmp(fn_name(p, loc->lines[loc->n_lines - 1].function_id),
			       "outer::inner::Widget::compute"),
	       "ET_REL mapping: address resolves in its own section space");
	sp_symbolizer_free(s);
	sp_profile_free(p);
	free(sec);
	free(obj);
}

/* debuginfod is asked about the mappings samples use; a mapping only
 * unsampled locations name is not asked about, even when it comes first
 * (the server refuses connections: the first query fails fast).  The query
 * runs in a child that leaves with _exit: libdebuginfod writes with
 * dprintf, whose buffer glibc never frees, and LeakSanitizer would report
 * it at exit.  The child's status: 1 + unsampled mapping's debuginfod
 * places * 4 + sampled mapping's (each 0 or 1), 0 when the reports are not
 * one per mapping in mapping order. */
static int debuginfod_sampled_child(void)
{
	sp_profile *p = sp_profile_new();
	sp_profile_add_sample_type(p, "samples", "count");
	sp_mapping un = {.memory_start = 0x10000, .memory_limit = 0x20000};
	un.filename = sp_profile_intern(p, "/nonexistent/unsampled.so");
	un.build_id = sp_profile_intern(p, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	sp_profile_add_mapping(p, &un); /* 1 */
	sp_mapping used = {.memory_start = 0x30000, .memory_limit = 0x40000};
	used.filename = sp_profile_intern(p, "/nonexistent/sampled.so");
	used.build_id = sp_profile_intern(p, "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
	sp_profile_add_mapping(p, &used); /* 2 */
	sp_profile_location_for_address(p, 1, 0x10100);
	uint64_t l = sp_profile_location_for_address(p, 2, 0x30100);
	int64_t v = 1;
	sp_profile_add_sample(p, &v, &l, 1, NULL, 0);
	sp_symbolizer *s = sp_symbolizer_new(NULL);
	sp_symbolize_report rep = {0};
	sp_error *e = sp_symbolize_profile(s, p, &rep);
	int code = 0;
	if (!e && rep.n_mappings == 2 && rep.mappings[0].mapping_id == 1 &&
	    rep.mappings[1].mapping_id == 2) {
		size_t n_un = 0, n_used = 0;
		for (int k = 0; k < 2; k++)
			for (size_t i = 0; i < rep.mappings[k].tried.n; i++)
				if (!strncmp(rep.mappings[k].tried.v[i].path, "debuginfod:", 11))
					++*(k ? &n_used : &n_un);
		code = 1 + (int)(n_un > 1 ? 3 : n_un) * 4 + (int)(n_used > 1 ? 3 : n_used);
	}
	/* freed, so that a leak checker following the child finds nothing */
	sp_error_free(e);
	sp_symbolize_report_clear(&rep);
	sp_symbolizer_free(s);
	sp_profile_free(p);
	return code;
}

static void test_debuginfod_sampled(void)
{
	char cache[sizeof(tmpdir) + 16];
	snprintf(cache, sizeof(cache), "%s/dcache", tmpdir);
	setenv("DEBUGINFOD_URLS", "http://127.0.0.1:1", 1);
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0)
		_exit(debuginfod_sampled_child());
	int st = 0;
	bool ok = pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st);
	int code = ok ? WEXITSTATUS(st) : 0;
	TAP_OK(code > 0, "unsampled mapping first: one report per mapping, in mapping order");
	int n_un = code > 0 ? (code - 1) / 4 : -1, n_used = code > 0 ? (code - 1) % 4 : -1;
	if (n_un == 0 && n_used == 0)
		TAP_OK(1, "debuginfod asked about sampled mappings only # SKIP libdebuginfod "
			  "not loadable");
	else
		TAP_OK(n_un == 0 && n_used == 1,
		       "debuginfod asked about sampled mappings only (unsampled %d, sampled %d)",
		       n_un, n_used);
	unsetenv("DEBUGINFOD_URLS");
	unsetenv("DEBUGINFOD_CACHE_PATH");
}

/* Globals rather than main's locals: the forked child of
 * test_debuginfod_sampled exits holding them. */
static char *src, *exe;

int main(void)
{
	const char *srcdir = getenv("SP_SRCDIR");
	src = sp_xasprintf("%s/testdata/src/symbolize/fixture.cc", srcdir ? srcdir : "..");
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/sp-symbolize-XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	exe = sp_xasprintf("%s/fixture", tmpdir);
	TAP_OK(sh("g++ -O2 -g -fPIE -pie -Wl,--build-id -o '%s' '%s'", exe, src) == 0,
	       "compiled the PIE fixture");

	TAP_EQ_STR(sp_unresolved_reason_str(SP_UNRES_BUILD_ID_MISMATCH), "build-id mismatch",
		   "reason phrase");
	TAP_EQ_STR(sp_unresolved_reason_str(SP_UNRES_OUTSIDE_FILE), "outside the file",
		   "reason phrase");
	test_session(exe);
	test_profile(exe, src, false);
	test_profile(exe, src, true);
	test_separate_debug(exe);
	test_rel_mapping(src);
	test_debuginfod_sampled();

	sh("rm -rf '%s'", tmpdir);
	free(exe);
	free(src);
	return tap_done();
}
