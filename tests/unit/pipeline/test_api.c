/* test_api.c — libsymprof through symprof.h alone (linked to the shared
 * library, which exports nothing else): ownership, NULL and sized options,
 * errors and per-mapping reasons as data, every address kind, by path and
 * by build id, the text forms, and conversions in memory and on files.
 *
 * The fixture testdata/src/symbolize/fixture.cc is built as a PIE at test
 * time.  Expected frames come from its source (MARK lines: file, line and
 * the inline chain written there), its symbols from nm, its segments from
 * readelf; a run-time address is the fixture "loaded" at LOAD, a file
 * offset is the one readelf gives for the segment.
 */
#include "pipeline/symprof.h"
#include "tests/helpers/tap.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOAD 0x555555554000ULL

static char tmpdir[256];
static char *src, *exe;

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	return s;
}

static int sh(const char *cmd)
{
	return system(cmd);
}

/* The first word of what CMD prints, as a number in BASE; 0 when none. */
static uint64_t first_number(const char *cmd, int base)
{
	FILE *f = popen(cmd, "r");
	char buf[256] = "";
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		pclose(f);
	}
	return strtoull(buf, NULL, base);
}

static uint64_t nm_addr(const char *name)
{
	char *cmd = xasprintf("nm --defined-only '%s' | awk '$3 == \"%s\" { print $1 }'", exe, name);
	uint64_t a = first_number(cmd, 16);
	free(cmd);
	return a;
}

/* NAME's st_size (nm -S); 0 when none. */
static uint64_t nm_size(const char *name)
{
	char *cmd = xasprintf("nm -S --defined-only '%s' | awk '$4 == \"%s\" { print $2 }'", exe,
			      name);
	uint64_t a = first_number(cmd, 16);
	free(cmd);
	return a;
}

/* The executable PT_LOAD's p_offset and p_vaddr (readelf -lW). */
static void text_segment(uint64_t *offset, uint64_t *vaddr)
{
	char *cmd = xasprintf("readelf -lW '%s' | awk '$1 == \"LOAD\" && / R E / { print $2 }'", exe);
	*offset = first_number(cmd, 16);
	free(cmd);
	cmd = xasprintf("readelf -lW '%s' | awk '$1 == \"LOAD\" && / R E / { print $3 }'", exe);
	*vaddr = first_number(cmd, 16);
	free(cmd);
}

static char *build_id(void)
{
	char *cmd = xasprintf("readelf -n '%s' | awk '/Build ID:/ { print $3 }'", exe);
	FILE *f = popen(cmd, "r");
	char buf[128] = "";
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		pclose(f);
	}
	free(cmd);
	buf[strcspn(buf, "\n")] = 0;
	return strdup(buf);
}

static int64_t mark_line(const char *what)
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

static symprof_session *session(symprof_demangle d)
{
	symprof_options o = {.size = sizeof(o), .demangle = d, .no_debuginfod = 1};
	symprof_session *s = NULL;
	symprof_error *e = symprof_session_new(&o, &s);
	symprof_error_free(e);
	return s;
}

/* Ownership: every _free takes NULL; a result outlives its session. */
static void test_ownership(uint64_t compute)
{
	symprof_error_free(NULL);
	symprof_session_free(NULL);
	symprof_symbols_free(NULL);
	symprof_report_free(NULL);
	symprof_free(NULL);
	TAP_OK(1, "every _free(NULL) is a no-op");
	TAP_OK(symprof_version() && !strncmp(symprof_version(), "0.", 2), "version %s",
	       symprof_version());

	symprof_session *s = session(SYMPROF_DEMANGLE_FULL);
	symprof_target t = {.size = sizeof(t), .path = exe};
	symprof_symbols *r = NULL;
	symprof_error *e = symprof_symbolize(s, &t, &compute, 1, &r);
	symprof_session_free(s); /* the result stays */
	TAP_OK(!e && r && r->n_locations == 1 && r->locations[0].n_frames >= 1 &&
		       strstr(r->locations[0].frames[r->locations[0].n_frames - 1].function,
			      "Widget::compute(int)"),
	       "the result's strings outlive the session (%s)",
	       r && r->n_locations && r->locations[0].n_frames
		       ? r->locations[0].frames[0].function
		       : "nothing");
	TAP_OK(r && r->report.used_path && !strcmp(r->report.used_path, exe) &&
		       r->report.n_addresses == 1 && r->report.n_resolved == 1,
	       "the report names the file used and counts the address");
	symprof_symbols_free(r);
	symprof_error_free(e);
}

/* NULL options mean defaults; sizes and reserved fields are checked. */
static void test_options(void)
{
	symprof_session *s = NULL;
	symprof_error *e = symprof_session_new(NULL, &s);
	TAP_OK(!e && s, "NULL session options: defaults");
	symprof_error_free(e);
	uint64_t a = 0x1234;
	symprof_symbols *r = NULL;
	e = symprof_symbolize(s, NULL, &a, 1, &r);
	TAP_OK(!e && r && r->n_locations == 1 && r->locations[0].n_frames == 0 &&
		       r->locations[0].reason == SYMPROF_NO_MAPPING,
	       "NULL target: no object, no source: no mapping");
	symprof_symbols_free(r);
	symprof_error_free(e);

	struct {
		symprof_target t;
		uint64_t later[2];
	} big = {.t = {.size = sizeof(big), .path = exe}};
	e = symprof_symbolize(s, &big.t, &a, 1, &r);
	TAP_OK(!e, "a larger struct with zeros past the known fields is taken");
	symprof_symbols_free(r);
	symprof_error_free(e);
	big.later[1] = 7;
	e = symprof_symbolize(s, &big.t, &a, 1, &r);
	TAP_OK(e && symprof_error_code(e) == SYMPROF_E_USAGE && !r,
	       "a larger struct with unknown fields set is refused: %s", symprof_error_message(e));
	symprof_error_free(e);
	symprof_target z = {0};
	z.path = exe;
	e = symprof_symbolize(s, &z, &a, 1, &r);
	TAP_OK(!e, "size 0: this version's layout");
	symprof_symbols_free(r);
	symprof_error_free(e);
	symprof_target k = {.size = sizeof(k), .kind = (symprof_addr_kind)9};
	e = symprof_symbolize(s, &k, &a, 1, &r);
	TAP_OK(e && symprof_error_code(e) == SYMPROF_E_USAGE, "an unknown kind is refused");
	symprof_error_free(e);
	symprof_target rel = {.size = sizeof(rel), .kind = SYMPROF_ADDR_RELATIVE};
	e = symprof_symbolize(s, &rel, &a, 1, &r);
	TAP_OK(e && symprof_error_code(e) == SYMPROF_E_USAGE,
	       "relative addresses without an object are refused");
	symprof_error_free(e);
	symprof_options bad = {.size = sizeof(bad)};
	bad.reserved[3] = &bad;
	symprof_session *s2 = NULL;
	e = symprof_session_new(&bad, &s2);
	TAP_OK(e && !s2 && symprof_error_code(e) == SYMPROF_E_USAGE,
	       "reserved fields set: refused");
	symprof_error_free(e);
	symprof_session_free(s);
}

/* Errors and reasons are data. */
static void test_errors(uint64_t compute)
{
	symprof_options o = {.size = sizeof(o), .kallsyms = "/nonexistent/kallsyms"};
	symprof_session *s = NULL;
	symprof_error *e = symprof_session_new(&o, &s);
	TAP_OK(e && !s && strstr(symprof_error_message(e), "/nonexistent/kallsyms"),
	       "a name source that cannot be read: the error names it (%s)",
	       symprof_error_message(e));
	symprof_error_free(e);

	s = session(SYMPROF_DEMANGLE_SIMPLE);
	char *missing = xasprintf("%s/no-such-file", tmpdir);
	symprof_target t = {.size = sizeof(t), .path = missing};
	symprof_symbols *r = NULL;
	e = symprof_symbolize(s, &t, &compute, 1, &r);
	TAP_OK(!e && r && r->locations[0].reason == SYMPROF_FILE_NOT_FOUND &&
		       !r->report.used_path && r->report.n_tried >= 1 &&
		       !strcmp(r->report.tried[0].path, missing) && r->report.detail &&
		       r->report.n_unresolved == 1 &&
		       r->report.unresolved[0].reason == SYMPROF_FILE_NOT_FOUND &&
		       r->report.unresolved[0].count == 1,
	       "a missing file: not an error; the reason, the places tried and the count");
	TAP_EQ_STR(symprof_reason_string(SYMPROF_FILE_NOT_FOUND), "file not found", "reason text");
	symprof_symbols_free(r);
	symprof_error_free(e);

	symprof_target m = {.size = sizeof(m), .path = exe, .build_id = "0123456789abcdef"};
	e = symprof_symbolize(s, &m, &compute, 1, &r);
	TAP_OK(!e && r && r->locations[0].reason == SYMPROF_BUILD_ID_MISMATCH,
	       "another build id: build-id mismatch");
	symprof_symbols_free(r);
	symprof_error_free(e);

	char *notelf = xasprintf("%s/not-elf", tmpdir);
	FILE *f = fopen(notelf, "w");
	if (f) {
		fputs("not an ELF file\n", f);
		fclose(f);
	}
	symprof_target n = {.size = sizeof(n), .path = notelf};
	e = symprof_symbolize(s, &n, &compute, 1, &r);
	TAP_OK(!e && r && r->locations[0].reason == SYMPROF_NOT_ELF, "a text file: not ELF");
	symprof_symbols_free(r);
	symprof_error_free(e);
	symprof_session_free(s);
	free(missing);
	free(notelf);
}

/* The first address in [from, from + 0x80) with N_FRAMES frames (VADDR). */
static uint64_t address_with_frames(symprof_session *s, uint64_t from, size_t n_frames)
{
	uint64_t addrs[0x80];
	for (size_t i = 0; i < 0x80; i++)
		addrs[i] = from + i;
	symprof_target t = {.size = sizeof(t), .path = exe};
	symprof_symbols *r = NULL;
	symprof_error *e = symprof_symbolize(s, &t, addrs, 0x80, &r);
	uint64_t found = 0;
	for (size_t i = 0; !e && i < r->n_locations && !found; i++)
		if (r->locations[i].n_frames == n_frames)
			found = addrs[i];
	symprof_symbols_free(r);
	symprof_error_free(e);
	return found;
}

/* The frames of one address: the inline chain the source writes. */
static bool chain_ok(const symprof_location *l)
{
	static const char *const marks[] = {"leaf_store", "middle_call", "top_call", "compute_call"};
	if (l->n_frames != 4)
		return false;
	for (size_t i = 0; i < 4; i++) {
		const symprof_frame *f = &l->frames[i];
		if (f->line != mark_line(marks[i]) || !f->file || !strstr(f->file, "fixture.cc") ||
		    f->inlined != (i < 3))
			return false;
	}
	return strstr(l->frames[0].function, "leaf") && strstr(l->frames[1].function, "middle") &&
	       strstr(l->frames[2].function, "top") &&
	       !strcmp(l->frames[3].function, "outer::inner::Widget::compute") &&
	       !strcmp(l->frames[3].linkage_name, "_ZN5outer5inner6Widget7computeEi");
}

/* Symbolizes the one address A as T says; true when its frames are the
 * chain and its symbol compute's, at offset OFF (A's distance from
 * compute's nm value in symbol-file addresses). */
static bool kind_gives_chain(symprof_session *s, const symprof_target *t, uint64_t a,
			     uint64_t off)
{
	symprof_symbols *r = NULL;
	symprof_error *e = symprof_symbolize(s, t, &a, 1, &r);
	bool ok = !e && r->n_locations == 1 && r->locations[0].address == a &&
		  chain_ok(&r->locations[0]) && r->locations[0].reason == SYMPROF_RESOLVED &&
		  r->locations[0].symbol &&
		  !strcmp(r->locations[0].symbol, "outer::inner::Widget::compute") &&
		  r->locations[0].symbol_offset == off;
	if (!ok && r && r->n_locations)
		printf("# %#llx: %zu frames, reason %s, symbol %s+%#llx\n", (unsigned long long)a,
		       r->locations[0].n_frames, symprof_reason_string(r->locations[0].reason),
		       r->locations[0].symbol ? r->locations[0].symbol : "(none)",
		       (unsigned long long)r->locations[0].symbol_offset);
	symprof_symbols_free(r);
	symprof_error_free(e);
	return ok;
}

/* Every address kind names the same code the same way. */
static void test_kinds(uint64_t compute)
{
	symprof_session *s = session(SYMPROF_DEMANGLE_SIMPLE);
	uint64_t deep = address_with_frames(s, compute, 4);
	uint64_t t_off, t_vaddr;
	text_segment(&t_off, &t_vaddr);
	if (!TAP_OK(deep && t_vaddr, "an address of compute with 4 frames, and the text segment")) {
		symprof_session_free(s);
		return;
	}
	symprof_target v = {.size = sizeof(v), .path = exe, .kind = SYMPROF_ADDR_VADDR};
	uint64_t off = deep - compute;
	TAP_OK(kind_gives_chain(s, &v, deep, off),
	       "VADDR: the inline chain of the source, symbol compute+%#llx (nm)",
	       (unsigned long long)off);
	symprof_target rt = {.size = sizeof(rt), .path = exe, .kind = SYMPROF_ADDR_RUNTIME,
			     .map_start = LOAD + t_vaddr, .map_limit = LOAD + t_vaddr + 0x100000,
			     .map_offset = t_off};
	TAP_OK(kind_gives_chain(s, &rt, LOAD + deep, off),
	       "RUNTIME: the text segment mapped at its page (offset %#llx)",
	       (unsigned long long)t_off);
	uint64_t out = LOAD + t_vaddr - 0x10;
	symprof_symbols *r = NULL;
	symprof_error *e = symprof_symbolize(s, &rt, &out, 1, &r);
	TAP_OK(!e && r->locations[0].reason == SYMPROF_NO_MAPPING && !r->locations[0].symbol &&
		       !r->locations[0].symbol_offset,
	       "RUNTIME: an address outside the mapping: no mapping, no symbol");
	symprof_symbols_free(r);
	symprof_error_free(e);
	symprof_target fo = {.size = sizeof(fo), .path = exe, .kind = SYMPROF_ADDR_FILE_OFFSET};
	TAP_OK(kind_gives_chain(s, &fo, deep - t_vaddr + t_off, off), "FILE_OFFSET: the same code");
	uint64_t beyond = 1ULL << 40;
	e = symprof_symbolize(s, &fo, &beyond, 1, &r);
	TAP_OK(!e && r->locations[0].reason == SYMPROF_OUTSIDE_FILE && !r->locations[0].symbol &&
		       !r->locations[0].symbol_offset,
	       "FILE_OFFSET: past every segment: outside the file, no symbol");
	symprof_symbols_free(r);
	symprof_error_free(e);
	/* a PIE's first segment is at offset 0, vaddr 0: relative = vaddr */
	symprof_target re = {.size = sizeof(re), .path = exe, .kind = SYMPROF_ADDR_RELATIVE};
	TAP_OK(kind_gives_chain(s, &re, deep, off), "RELATIVE: the same code");
	symprof_session_free(s);
}

/* Every byte of compute: its symbol (raw without demangling) at the
 * address's distance from nm's value; and the byte past the last of the
 * text segment's symbols has none of compute's. */
static void test_symbol(uint64_t compute)
{
	static const char raw[] = "_ZN5outer5inner6Widget7computeEi";
	uint64_t size = nm_size(raw);
	if (!TAP_OK(size > 0 && size < 65536, "compute's size (nm -S): %#llx",
		    (unsigned long long)size))
		return;
	symprof_session *s = session(SYMPROF_DEMANGLE_NONE);
	uint64_t *addrs = calloc(size, sizeof(*addrs));
	for (uint64_t i = 0; i < size; i++)
		addrs[i] = compute + i;
	symprof_target t = {.size = sizeof(t), .path = exe};
	symprof_symbols *r = NULL;
	symprof_error *e = symprof_symbolize(s, &t, addrs, size, &r);
	size_t bad = 0;
	for (uint64_t i = 0; !e && i < size; i++) {
		const symprof_location *l = &r->locations[i];
		if (!l->symbol || strcmp(l->symbol, raw) || l->symbol_offset != i) {
			if (!bad++)
				printf("# %#llx: %s+%#llx\n", (unsigned long long)addrs[i],
				       l->symbol ? l->symbol : "(none)",
				       (unsigned long long)l->symbol_offset);
		}
	}
	TAP_OK(!e && r->n_locations == size && !bad,
	       "every byte of compute: symbol %s, offset = address - nm's value (%zu wrong)", raw,
	       bad);
	symprof_symbols_free(r);
	symprof_error_free(e);
	free(addrs);
	symprof_session_free(s);
}

/* An object by build id alone: in a debug dir's .build-id tree. */
static void test_build_id(uint64_t compute)
{
	char *bid = build_id();
	char *dbg = xasprintf("%s/debug", tmpdir);
	char *cmd = xasprintf("mkdir -p '%s/.build-id/%.2s' && cp '%s' '%s/.build-id/%.2s/%s.debug'",
			      dbg, bid, exe, dbg, bid, bid + 2);
	TAP_OK(strlen(bid) == 40 && sh(cmd) == 0, "a build-id tree with the fixture (%s)", bid);
	const char *dirs[] = {dbg};
	symprof_options o = {.size = sizeof(o), .debug_dirs = dirs, .n_debug_dirs = 1,
			     .no_debuginfod = 1};
	symprof_session *s = NULL;
	symprof_error *e = symprof_session_new(&o, &s);
	symprof_target t = {.size = sizeof(t), .build_id = bid};
	symprof_symbols *r = NULL;
	if (!e)
		e = symprof_symbolize(s, &t, &compute, 1, &r);
	TAP_OK(!e && r->locations[0].n_frames >= 1 && r->report.used_path &&
		       strstr(r->report.used_path, ".build-id/") &&
		       !strcmp(r->report.build_id, bid),
	       "found by build id in the tree, and resolved (%s)",
	       r && r->report.used_path ? r->report.used_path : "none");
	symprof_symbols_free(r);
	symprof_error_free(e);
	symprof_session_free(s);
	free(cmd);
	free(dbg);
	free(bid);
}

/* The bytes symprof_symbolize_text writes for LINES[0..n) with O, into BUF
 * (a NUL-terminated string of at most CAP - 1 bytes). */
static symprof_error *text_of(symprof_session *s, const symprof_target *t,
			      const symprof_text_options *o, const char *const *lines, size_t n,
			      char *buf, size_t cap)
{
	char *path = xasprintf("%s/text.out", tmpdir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	symprof_error *e = symprof_symbolize_text(s, t, o, lines, n, -1, fd);
	close(fd);
	FILE *f = fopen(path, "r");
	size_t k = f ? fread(buf, 1, cap - 1, f) : 0;
	buf[k] = 0;
	if (f)
		fclose(f);
	free(path);
	return e;
}

/* The command's defaults and -S through the library: addr2line's FILE:LINE
 * alone without functions; the symbol's line (its name alone at its first
 * byte, NAME+0xOFF after) before it with symbols. */
static void test_text_forms(symprof_session *s, const symprof_target *t, uint64_t compute,
			    const symprof_frame *fr)
{
	char arg[2][32], buf[4096];
	snprintf(arg[0], sizeof(arg[0]), "%#llx", (unsigned long long)compute);
	snprintf(arg[1], sizeof(arg[1]), "%#llx", (unsigned long long)compute + 1);
	const char *lines[] = {arg[0], arg[1]};
	symprof_text_options o = {.size = sizeof(o)};
	symprof_error *e = text_of(s, t, &o, lines, 1, buf, sizeof(buf));
	char *want = xasprintf("%s:%lld\n", fr->file, (long long)fr->line);
	TAP_OK(!e && !strcmp(buf, want), "GNU text without functions: FILE:LINE alone");
	free(want);
	symprof_error_free(e);
	o.symbols = 1;
	e = text_of(s, t, &o, lines, 2, buf, sizeof(buf));
	want = xasprintf("%s\n%s:%lld\n%s+0x1\n", fr->function, fr->file, (long long)fr->line,
			 fr->function);
	TAP_OK(!e && !strncmp(buf, want, strlen(want)),
	       "symbols: the symbol's name at its entry, NAME+0x1 a byte on");
	if (e || strncmp(buf, want, strlen(want)))
		printf("# got:\n%s# want:\n%s...\n", buf, want);
	free(want);
	symprof_error_free(e);
}

/* The text forms: the same frames, addr2line's layout. */
static void test_text(uint64_t compute)
{
	symprof_session *s = session(SYMPROF_DEMANGLE_FULL);
	char arg[32], buf[4096];
	snprintf(arg, sizeof(arg), "%#llx", (unsigned long long)compute);
	const char *lines[] = {arg, "junk"};
	symprof_target t = {.size = sizeof(t), .path = exe};
	symprof_text_options o = {.size = sizeof(o), .print_address = 1, .functions = 1,
				  .inlines = 1};
	symprof_error *e = text_of(s, &t, &o, lines, 2, buf, sizeof(buf));
	/* the frames symprof_symbolize gives, in addr2line's layout */
	symprof_symbols *r = NULL;
	symprof_error *e1 = symprof_symbolize(s, &t, &compute, 1, &r);
	char *want = xasprintf("0x%016llx\n", (unsigned long long)compute);
	for (size_t i = 0; !e1 && i < r->locations[0].n_frames; i++) {
		const symprof_frame *fr = &r->locations[0].frames[i];
		char *w = xasprintf("%s%s\n%s:%lld\n", want, fr->function, fr->file,
				    (long long)fr->line);
		free(want);
		want = w;
	}
	char *w = xasprintf("%sjunk\n??\n??:0\n", want);
	free(want);
	want = w;
	TAP_OK(!e1 && r->locations[0].n_frames == 1 &&
		       !strcmp(r->locations[0].frames[0].function, "outer::inner::Widget::compute(int)"),
	       "compute's entry: one frame, demangled in full");
	if (!e1 && r->locations[0].n_frames == 1)
		test_text_forms(s, &t, compute, &r->locations[0].frames[0]);
	symprof_symbols_free(r);
	symprof_error_free(e1);
	TAP_OK(!e && !strcmp(buf, want), "GNU text with -a: address, function, FILE:LINE; junk "
					 "echoed with ?? (%s)",
	       e ? symprof_error_message(e) : "");
	if (strcmp(buf, want))
		printf("# got:\n%s# want:\n%s", buf, want);
	symprof_error_free(e);
	symprof_text_options bad = {.size = sizeof(bad), .style = SYMPROF_TEXT_JSON, .pretty = 1};
	e = symprof_symbolize_text(s, &t, &bad, lines, 1, -1, 1);
	TAP_OK(e && symprof_error_code(e) == SYMPROF_E_USAGE, "pretty JSON is refused");
	symprof_error_free(e);
	symprof_session_free(s);
	free(want);
}

/* A conversion in memory: raw address stacks of the fixture loaded at
 * LOAD, symbolized, to folded stacks; folded to pprof and back. */
static void test_convert_memory(uint64_t compute)
{
	symprof_session *s = session(SYMPROF_DEMANGLE_SIMPLE);
	uint64_t deep = address_with_frames(s, compute, 4);
	char *raw = xasprintf("# symprof raw stacks v1\n"
			      "sample_type: samples/count\n"
			      "addresses: exact\n"
			      "3 @ %#llx\n"
			      "--- Memory map: ---\n"
			      "%llx-%llx r-xp 00000000 08:01 1 %s\n",
			      (unsigned long long)(LOAD + deep), (unsigned long long)LOAD,
			      (unsigned long long)(LOAD + 0x100000), exe);
	void *out = NULL;
	size_t len = 0;
	symprof_report *rep = NULL;
	symprof_error *e = symprof_convert_memory(s, NULL, raw, strlen(raw), "raw", &out, &len, &rep);
	char *text = out ? strndup(out, len) : NULL;
	static const char root[] = "outer::inner::Widget::compute;outer::inner::top;";
	TAP_OK(!e && text && !strncmp(text, root, strlen(root)) &&
		       strstr(text, ";middle<") && strstr(text, ";leaf<") &&
		       strstr(text, ";leaf<") > strstr(text, ";middle<") &&
		       !strcmp(text + strlen(text) - 3, " 3\n") && !strchr(text, '\n')[1],
	       "raw stacks in memory, symbolized, to folded (root first, inline frames "
	       "expanded): %s", text ? text : e ? symprof_error_message(e) : "");
	TAP_OK(rep && rep->n_inputs == 1 && rep->inputs[0].n_mappings >= 1 &&
		       rep->inputs[0].mappings[0].n_resolved == 1 && rep->resolved_percent == 100 &&
		       !strcmp(rep->inputs[0].format, "raw"),
	       "the report: the mapping resolved, 100%% of frames (%s)",
	       rep && rep->n_inputs ? rep->inputs[0].format : "");
	symprof_report_free(rep);
	symprof_free(out);
	symprof_error_free(e);

	const char *folded = "a;b;c 3\nx;y 2\n";
	symprof_convert_options po = {.size = sizeof(po), .format = "pprof"};
	e = symprof_convert_memory(s, &po, folded, strlen(folded), "folded", &out, &len, NULL);
	TAP_OK(!e && len > 2 && ((unsigned char *)out)[0] == 0x1f &&
		       ((unsigned char *)out)[1] == 0x8b,
	       "folded in memory to pprof: gzip-compressed bytes");
	void *back = NULL;
	size_t blen = 0;
	symprof_error *e2 = e ? NULL : symprof_convert_memory(s, NULL, out, len, "pb", &back, &blen, NULL);
	TAP_OK(!e && !e2 && blen == strlen(folded) && !memcmp(back, folded, blen),
	       "and back to folded: the same stacks");
	symprof_free(back);
	symprof_free(out);
	symprof_error_free(e);
	symprof_error_free(e2);

	e = symprof_convert_memory(s, NULL, "# symprof raw stacks v1\nbogus: 1\n", 34, "bad", &out,
				   &len, NULL);
	TAP_OK(e && symprof_error_code(e) == SYMPROF_E_MALFORMED && !out &&
		       strstr(symprof_error_message(e), "bad"),
	       "a broken input: an error naming it (%s)", symprof_error_message(e));
	symprof_error_free(e);
	symprof_convert_options uf = {.size = sizeof(uf), .format = "no-such-format"};
	e = symprof_convert_memory(s, &uf, folded, strlen(folded), "f", &out, &len, NULL);
	TAP_OK(e && symprof_error_code(e) == SYMPROF_E_USAGE, "an unknown format is refused");
	symprof_error_free(e);
	symprof_session_free(s);
	free(text);
	free(raw);
}

/* Files: convert, info, each. */
static void test_convert_files(void)
{
	symprof_session *s = session(SYMPROF_DEMANGLE_SIMPLE);
	char *a = xasprintf("%s/a.folded", tmpdir), *b = xasprintf("%s/b.folded", tmpdir);
	char *o = xasprintf("%s/merged.folded", tmpdir), *dir = xasprintf("%s/each", tmpdir);
	FILE *f = fopen(a, "w");
	if (f) {
		fputs("m;n 1\n", f);
		fclose(f);
	}
	f = fopen(b, "w");
	if (f) {
		fputs("m;n 2\nz 1\n", f);
		fclose(f);
	}
	const char *in[] = {a, b};
	symprof_report *rep = NULL;
	symprof_error *e = symprof_convert(s, NULL, in, 2, o, &rep);
	char buf[256] = "";
	f = fopen(o, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	buf[n] = 0;
	if (f)
		fclose(f);
	TAP_OK(!e && !strcmp(buf, "m;n 3\nz 1\n") && rep && rep->n_inputs == 2,
	       "two files merged into one (the output's extension chose folded)");
	symprof_report_free(rep);
	symprof_error_free(e);

	char *text = NULL;
	e = symprof_info(s, NULL, a, &text, NULL);
	TAP_OK(!e && text && !strncmp(text, a, strlen(a)) && strstr(text, "format: folded"),
	       "info: the text of `symprof info`");
	symprof_free(text);
	symprof_error_free(e);

	char *missing = xasprintf("%s/missing.folded", tmpdir);
	const char *each_in[] = {a, missing, b};
	e = symprof_convert_each(s, NULL, each_in, 3, dir, 1, &rep);
	struct stat st;
	char *out_a = xasprintf("%s/a.folded.pb.gz", dir);
	TAP_OK(!e && rep && rep->n_inputs == 3 && rep->inputs[0].output &&
		       !strcmp(rep->inputs[0].output, out_a) && stat(out_a, &st) == 0 &&
		       !rep->inputs[0].error && rep->inputs[1].error && !rep->inputs[1].output &&
		       symprof_error_code(rep->inputs[1].error) == SYMPROF_E_IO &&
		       rep->inputs[2].output,
	       "each: outputs written, the missing input's error kept, the next converted");
	for (size_t i = 0; rep && i < rep->n_inputs; i++)
		printf("# %s: %s %s\n", rep->inputs[i].name,
		       rep->inputs[i].output ? rep->inputs[i].output : "-",
		       rep->inputs[i].error ? symprof_error_message(rep->inputs[i].error) : "");
	symprof_report_free(rep);
	symprof_error_free(e);
	symprof_session_free(s);
	free(out_a);
	free(missing);
	free(a);
	free(b);
	free(o);
	free(dir);
}

int main(void)
{
	const char *srcdir = getenv("SP_SRCDIR");
	src = xasprintf("%s/testdata/src/symbolize/fixture.cc", srcdir ? srcdir : "..");
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/sp-api-XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	exe = xasprintf("%s/fixture", tmpdir);
	char *cmd = xasprintf("g++ -O2 -g -fPIE -pie -Wl,--build-id -o '%s' '%s'", exe, src);
	TAP_OK(sh(cmd) == 0, "compiled the PIE fixture");
	uint64_t compute = nm_addr("_ZN5outer5inner6Widget7computeEi");
	TAP_OK(compute != 0, "compute's address (nm)");

	test_ownership(compute);
	test_options();
	test_errors(compute);
	test_kinds(compute);
	test_symbol(compute);
	test_build_id(compute);
	test_text(compute);
	test_convert_memory(compute);
	test_convert_files();

	free(cmd);
	cmd = xasprintf("rm -rf '%s'", tmpdir);
	sh(cmd);
	free(cmd);
	free(exe);
	free(src);
	return tap_done();
}
