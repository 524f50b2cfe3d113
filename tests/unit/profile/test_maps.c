/* test_maps.c — memory-map line grammar (spec §2.6, every accepted example
 * plus rejects), the section parser (glog prefixes, $name substitution,
 * non-executable regions), the mapping rules of DESIGN.md §3 (merge only
 * pieces of one named file; never an anonymous region into a library),
 * main-binary choice, location attachment and Unsymbolizable (spec §1.3). */
#include "profile/profile.h"
#include "tests/helpers/tap.h"

#include <stdlib.h>

typedef struct {
	const char *line;
	bool ok;
	uint64_t start, limit, offset;
	const char *perms; /* NULL = none */
	const char *path;  /* NULL = none */
	const char *build_id;
} line_case;

static const line_case line_cases[] = {
	/* accepted examples of spec §2.6 */
	{"7f7446d89000-7f7446f3d000 r-xp 00000000 fc:00 790190 /usr/lib/x.so", true,
	 0x7f7446d89000, 0x7f7446f3d000, 0, "r-xp", "/usr/lib/x.so", NULL},
	{"00400000-02e00000 r-xp 00000000 00:00 0", true, 0x400000, 0x2e00000, 0, "r-xp", NULL,
	 NULL},
	{"  02e00000-02e8a000: /foo/bin (@2a00000)", true, 0x2e00000, 0x2e8a000, 0x2a00000, NULL,
	 "/foo/bin", NULL},
	{"0xff6810563000 0xff6810565000 r-xp abc_exe 87c4d547f895cfd2b1e3c2f6a9f1e9b0", true,
	 0xff6810563000, 0xff6810565000, 0, "r-xp", "abc_exe", "87c4d547f895cfd2b1e3c2f6a9f1e9b0"},
	{"0x40000-0x80000 /path/to/binary (@FF00) abc123456", true, 0x40000, 0x80000, 0xff00,
	 NULL, "/path/to/binary", "abc123456"},
	/* more rows of pprof's TestParseMappingEntry */
	{"02e00000-02e8a000 r-xp 02a00000 00:00 15953927    /foo/bin", true, 0x2e00000, 0x2e8a000,
	 0x2a00000, "r-xp", "/foo/bin", NULL},
	{"02e00000-02e8a000 r-xp 000000 00:00 15953927    [vdso]", true, 0x2e00000, 0x2e8a000, 0,
	 "r-xp", "[vdso]", NULL},
	{"  02e00000-02e8a000: /foo/bin (deleted)", true, 0x2e00000, 0x2e8a000, 0, NULL,
	 "/foo/bin", NULL},
	{"  02e00000-02e8a000: /foo/bin", true, 0x2e00000, 0x2e8a000, 0, NULL, "/foo/bin", NULL},
	{"  02e00000-02e8a000: [vdso]", true, 0x2e00000, 0x2e8a000, 0, NULL, "[vdso]", NULL},
	{"7f5e5435e000-7f5e5455e000 --xp 00002000 00:00 1531        myprogram", true,
	 0x7f5e5435e000, 0x7f5e5455e000, 0x2000, "--xp", "myprogram", NULL},
	{"7f7472710000-7f7472722000 r-xp 00000000 fc:00 790190      /usr/lib/libfantastic-1.2.so",
	 true, 0x7f7472710000, 0x7f7472722000, 0, "r-xp", "/usr/lib/libfantastic-1.2.so", NULL},
	{"7f47a542f000-7f47a5447000: /lib/libpthread-2.15.so", true, 0x7f47a542f000,
	 0x7f47a5447000, 0, NULL, "/lib/libpthread-2.15.so", NULL},
	{"0x40000-0x80000 /path/to/binary      (@FF00)            abc123456", true, 0x40000,
	 0x80000, 0xff00, NULL, "/path/to/binary", "abc123456"},
	/* offset taken from the proc line */
	{"7f0000001000-7f0000002000 r-xp 0001a000 08:01 42 /lib/libm.so.6", true, 0x7f0000001000,
	 0x7f0000002000, 0x1a000, "r-xp", "/lib/libm.so.6", NULL},
	/* symprof keeps spaces in /proc paths and strips " (deleted)" */
	{"7f00-7f10 r-xp 00001000 08:01 1234 /opt/my app/lib.so (deleted)", true, 0x7f00, 0x7f10,
	 0x1000, "r-xp", "/opt/my app/lib.so", NULL},
	{"1000-2000 r-xp 00000000 08:01 7 /usr/bin/prog (deleted)  ", true, 0x1000, 0x2000, 0,
	 "r-xp", "/usr/bin/prog", NULL},
	/* non-executable lines still parse (the section parser skips them) */
	{"1000-2000 rw-p 00000000 00:00 0 [heap]", true, 0x1000, 0x2000, 0, "rw-p", "[heap]",
	 NULL},
	/* a long perms run is cut to 7 characters, keeping its 'x' */
	{"1000-2000 ---------x 0 00:00 0 /a", true, 0x1000, 0x2000, 0, "------x", "/a", NULL},
	/* a bare range, no perms nor path */
	{"1000-2000", true, 0x1000, 0x2000, 0, NULL, NULL, NULL},
	/* pprof's regex backtracks inside one hex run: START=abcde END=f */
	{"abcdef", true, 0xabcde, 0xf, 0, NULL, NULL, NULL},
	/* rejects */
	{"", false, 0, 0, 0, NULL, NULL, NULL},
	{"MAPPED_LIBRARIES:", false, 0, 0, 0, NULL, NULL, NULL},
	{"--- Memory map: ---", false, 0, 0, 0, NULL, NULL, NULL},
	{"hello world", false, 0, 0, 0, NULL, NULL, NULL},
	{"0x", false, 0, 0, 0, NULL, NULL, NULL},
	{"g000-2000 r-xp", false, 0, 0, 0, NULL, NULL, NULL},
	/* 17 hex digits do not fit 64 bits: unrecognized, as in pprof */
	{"10000000000000000-20000000000000000 r-xp 00000000 00:00 0", false, 0, 0, 0, NULL, NULL,
	 NULL},
};

static bool same(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

static void test_lines(void)
{
	for (size_t i = 0; i < SP_ARRAY_LEN(line_cases); i++) {
		const line_case *c = &line_cases[i];
		sp_maps_entry e = {0};
		bool ok = sp_maps_parse_line(c->line, strlen(c->line), &e);
		if (!c->ok) {
			TAP_OK(!ok, "reject \"%s\"", c->line);
			continue;
		}
		bool good = ok && e.start == c->start && e.limit == c->limit &&
			    e.offset == c->offset && e.has_perms == (c->perms != NULL) &&
			    (!c->perms || strcmp(e.perms, c->perms) == 0) && same(e.path, c->path) &&
			    same(e.build_id, c->build_id);
		if (!TAP_OK(good, "parse \"%s\"", c->line))
			printf("#   got ok=%d %#llx-%#llx off %#llx perms '%s' path '%s' bid '%s'\n",
			       ok, (unsigned long long)e.start, (unsigned long long)e.limit,
			       (unsigned long long)e.offset, e.perms, e.path ? e.path : "(null)",
			       e.build_id ? e.build_id : "(null)");
		sp_maps_entry_clear(&e);
	}
	/* the line need not be NUL-terminated */
	const char buf[] = "1000-2000 r-xp 00000000 08:01 7 /bin/aXXXX";
	sp_maps_entry e = {0};
	TAP_OK(sp_maps_parse_line(buf, strlen(buf) - 4, &e) && same(e.path, "/bin/a"),
	       "length bounds the line");
	sp_maps_entry_clear(&e);
	sp_maps_entry_clear(NULL);

	/* a long run of hex digits cannot make matching quadratic: a line
	 * beyond the matcher's step budget is simply not a map line */
	size_t big = 1 << 20;
	char *hex = sp_xmalloc(big + 1);
	memset(hex, 'a', big);
	hex[big] = '\0';
	hex[10] = ' ';
	bool ok = sp_maps_parse_line(hex, big, &e);
	TAP_OK(!ok, "1 MiB line of hex digits rejected without quadratic work");
	sp_maps_entry_clear(&e);
	free(hex);
}

static const char *mfile(const sp_profile *p, size_t i)
{
	return sp_profile_str(p, p->mappings[i].filename);
}

static sp_profile *parse(const char *text)
{
	sp_profile *p = sp_profile_new();
	sp_error *e = sp_profile_parse_maps(p, text, strlen(text));
	TAP_OK(e == NULL, "parse_maps succeeds");
	sp_error_free(e);
	return p;
}

static void test_section(void)
{
	sp_profile *p = parse("I0601 12:00:00.000000  1234 heap.cc:42] "
			      "00400000-00500000 r-xp 00000000 08:01 11 /bin/prog\n"
			      "source=/home/me \n"
			      "0x600000-0x700000 $source/lib/libx.so (@1000) 0badc0de\n"
			      "00700000-00800000 rw-p 00000000 00:00 0 [heap]\n"
			      "just text\n");
	TAP_EQ_U64(p->n_mappings, 2, "non-executable region skipped");
	TAP_EQ_STR(mfile(p, 0), "/bin/prog", "glog prefix stripped");
	TAP_EQ_STR(mfile(p, 1), "/home/me/lib/libx.so", "$source substituted");
	TAP_EQ_STR(sp_profile_str(p, p->mappings[1].build_id), "0badc0de", "build id kept");
	TAP_EQ_U64(p->mappings[1].file_offset, 0x1000, "(@offset) kept");
	TAP_OK(p->mappings[0].id == 1 && p->mappings[1].id == 2, "ids 1..n");
	sp_profile_free(p);

	/* glog-prefixed marker and entry (pprof's test rows) */
	p = parse("W1220 15:07:15.201776    8272 logger.cc:12033] --- Memory map: ---\n"
		  "W1220 15:07:15.202776    8272 logger.cc:12036]   0x40000-0x80000 "
		  "/path/to/binary      (@FF00)            abc123456\n");
	TAP_OK(p->n_mappings == 1 && !strcmp(mfile(p, 0), "/path/to/binary") &&
		       p->mappings[0].memory_start == 0x40000 && p->mappings[0].file_offset == 0xff00 &&
		       !strcmp(sp_profile_str(p, p->mappings[0].build_id), "abc123456"),
	       "glog-prefixed entry parsed");
	sp_profile_free(p);
	p = parse("7f5e5435e000-7f5e5455e000 ---p 00002000 00:00 1531        myprogram\n");
	TAP_EQ_U64(p->n_mappings, 0, "---p entry skipped");
	sp_profile_free(p);

	/* main binary swapped first */
	p = parse("7f0000000000-7f0000100000 r-xp 00000000 08:01 1 /lib/libc.so.6\n"
		  "7f0000200000-7f0000300000 r-xp 00000000 08:01 2 /lib/libq.so\n"
		  "7f0000400000-7f0000500000 r-xp 00000000 00:00 0 [vdso]\n"
		  "555555554000-555555556000 r-xp 00002000 08:01 3 /usr/bin/app\n");
	TAP_EQ_U64(p->n_mappings, 4, "four mappings");
	TAP_EQ_STR(mfile(p, 0), "/usr/bin/app", "main binary first");
	TAP_EQ_STR(mfile(p, 3), "/lib/libc.so.6", "swapped with the first");
	sp_profile_free(p);
}

static void test_merge(void)
{
	/* the JIT case: an anonymous r-xp region ending where a library's
	 * r-xp mapping begins stays on its own (pprof merges them) */
	sp_profile *p = parse("7f0000000000-7f0000100000 r-xp 00000000 00:00 0\n"
			      "7f0000100000-7f0000200000 r-xp 00000000 08:01 55 /usr/lib/libfoo.so\n");
	TAP_EQ_U64(p->n_mappings, 2, "anonymous region not merged into the next library");
	TAP_OK(p->mappings[0].memory_limit == 0x7f0000100000 && p->mappings[0].filename == 0,
	       "anonymous region keeps its own range and no file");
	TAP_OK(p->mappings[1].memory_start == 0x7f0000100000, "library keeps its start");
	sp_profile_free(p);

	/* and the other way round: a library followed by anonymous code */
	p = parse("7f0000100000-7f0000200000 r-xp 00000000 08:01 55 /usr/lib/libfoo.so\n"
		  "7f0000200000-7f0000300000 r-xp 00000000 00:00 0\n");
	TAP_EQ_U64(p->n_mappings, 2, "library not extended over following anonymous code");
	sp_profile_free(p);

	/* two pieces of one file with consistent offsets merge */
	p = parse("1000000-1100000 r-xp 00000000 08:01 9 /lib/libz.so.1\n"
		  "1100000-1200000 r-xp 00100000 08:01 9 /lib/libz.so.1\n");
	TAP_EQ_U64(p->n_mappings, 1, "pieces of one file merged");
	TAP_EQ_U64(p->mappings[0].memory_limit, 0x1200000, "merged limit");
	sp_profile_free(p);

	/* offsets both nonzero and inconsistent */
	p = parse("1000000-1100000 r-xp 00001000 08:01 9 /lib/libz.so.1\n"
		  "1100000-1200000 r-xp 00300000 08:01 9 /lib/libz.so.1\n");
	TAP_EQ_U64(p->n_mappings, 2, "inconsistent offsets not merged");
	sp_profile_free(p);

	/* different files, or a gap */
	p = parse("1000000-1100000 r-xp 00000000 08:01 9 /lib/liba.so\n"
		  "1100000-1200000 r-xp 00000000 08:01 8 /lib/libb.so\n"
		  "1300000-1400000 r-xp 00000000 08:01 8 /lib/libb.so\n");
	TAP_EQ_U64(p->n_mappings, 3, "different files or non-contiguous not merged");
	sp_profile_free(p);

	/* differing build ids */
	p = parse("0x1000-0x2000 /lib/a.so aaaa\n0x2000-0x3000 /lib/a.so bbbb\n");
	TAP_EQ_U64(p->n_mappings, 2, "different build ids not merged");
	sp_profile_free(p);
	p = parse("0x1000-0x2000 /lib/a.so\n0x2000-0x3000 /lib/a.so bbbb\n");
	TAP_OK(p->n_mappings == 1 && !strcmp(sp_profile_str(p, p->mappings[0].build_id), "bbbb"),
	       "one build id empty: merged, build id kept");
	sp_profile_free(p);

	/* mapping rules that come after the merge */
	p = parse("00401000-00500000 r-xp 00001000 08:01 1 /bin/prog\n");
	TAP_OK(p->mappings[0].memory_start == 0x400000 && p->mappings[0].file_offset == 0,
	       "start - offset == 0x400000 rule");
	sp_profile_free(p);
	p = parse("00400000-00600000 r-xp 00000000 00:00 0 /anon_hugepage (deleted)\n"
		  "00600000-00700000 r-xp 00200000 08:01 5 /bin/prog\n");
	TAP_OK(p->n_mappings == 1 && !strcmp(mfile(p, 0), "/bin/prog") &&
		       p->mappings[0].id == 1,
	       "leading /anon_hugepage dropped");
	TAP_OK(p->mappings[0].memory_start == 0x400000 && p->mappings[0].file_offset == 0,
	       "then the 0x400000 rule applies to the main binary");
	sp_profile_free(p);

	/* locations that already point at mappings are re-pointed */
	p = sp_profile_new();
	int64_t f = sp_profile_intern(p, "/lib/libz.so.1");
	sp_mapping m1 = {.id = 7, .memory_start = 0x1000, .memory_limit = 0x2000, .filename = f};
	sp_mapping m2 = {.id = 9, .memory_start = 0x2000, .memory_limit = 0x3000, .filename = f};
	sp_profile_add_mapping(p, &m1);
	sp_profile_add_mapping(p, &m2);
	uint64_t l = sp_profile_location_for_address(p, 9, 0x2500);
	sp_profile_massage_mappings(p);
	TAP_OK(p->n_mappings == 1 && p->mappings[0].id == 1, "merged and renumbered");
	TAP_EQ_U64(sp_profile_location(p, l)->mapping_id, 1, "location re-pointed to merged id");
	TAP_OK(sp_profile_mapping(p, 1) == &p->mappings[0], "id lookup sees the new ids");
	sp_profile_free(p);
}

static void test_attach(void)
{
	sp_profile *p = parse("0x10000-0x20000 /bin/prog\n"
			      "0x32000-0x40000 /lib/liba.so (@2000)\n");
	uint64_t in = sp_profile_location_for_address(p, 0, 0x10010);
	uint64_t below = sp_profile_location_for_address(p, 0, 0x30500);
	uint64_t nowhere1 = sp_profile_location_for_address(p, 0, 0x90000);
	uint64_t nowhere2 = sp_profile_location_for_address(p, 0, 0x5);
	uint64_t zero = sp_profile_location_for_address(p, 0, 0);
	sp_profile_attach_locations(p);
	TAP_EQ_U64(sp_profile_location(p, in)->mapping_id, 1, "containing mapping");
	TAP_EQ_U64(sp_profile_location(p, below)->mapping_id, 2, "mapping extended downward");
	TAP_OK(p->mappings[1].memory_start == 0x30000 && p->mappings[1].file_offset == 0,
	       "extended mapping: start -= offset, offset = 0");
	TAP_EQ_U64(p->n_mappings, 3, "one fake mapping added");
	TAP_OK(p->mappings[2].id == 3 && p->mappings[2].memory_start == 0 &&
		       p->mappings[2].memory_limit == UINT64_MAX && p->mappings[2].filename == 0,
	       "fake mapping covers the whole space");
	TAP_OK(sp_profile_location(p, nowhere1)->mapping_id == 3 &&
		       sp_profile_location(p, nowhere2)->mapping_id == 3,
	       "unmapped addresses share the fake mapping");
	TAP_EQ_U64(sp_profile_location(p, zero)->mapping_id, 0, "address 0 stays unmapped");
	TAP_OK(sp_profile_check(p, "t") == NULL, "profile still valid");
	sp_profile_free(p);
}

static void test_unsymbolizable(void)
{
	static const struct {
		const char *file;
		bool un;
	} cases[] = {
		{"", true},
		{"[vdso]", true},
		{"/usr/lib/linux-vdso.so.1", true},
		{"/dev/dri/renderD128", true},
		{"/memfd:jit", true},
		{"//anon", true},
		{"[kernel.kallsyms]_text", true},
		{"/tmp/[jit]", true},
		{"/lib/libc.so.6", false},
		{"/usr/bin/app", false},
	};
	sp_profile *p = sp_profile_new();
	for (size_t i = 0; i < SP_ARRAY_LEN(cases); i++) {
		sp_mapping m = {.filename = sp_profile_intern(p, cases[i].file)};
		TAP_OK(sp_mapping_unsymbolizable(p, &m) == cases[i].un, "unsymbolizable(\"%s\") = %d",
		       cases[i].file, cases[i].un);
	}
	sp_profile_free(p);
}

/* $name substitutions: first definition wins, replaced text is not
 * re-scanned, and the work is linear in the section (100,000 lines, half of
 * them definitions, each used once; quadratic work took minutes here). */
static void test_substitution(void)
{
	/* (names are not hex digits: "ab=..." would be a map line from a to b) */
	sp_profile *p = parse("g=/first\n"
			      "gh=/second\n"
			      "g=/ignored\n"
			      "self=$self/x\n"
			      "0x1000-0x2000 $g$gh/lib.so\n"
			      "0x3000-0x4000 $ghi$self$$g\n");
	TAP_EQ_U64(p->n_mappings, 2, "two mappings");
	/* (the one that is not a .so is taken for the main binary: first) */
	TAP_EQ_STR(mfile(p, 1), "/first/firsth/lib.so",
		   "the first definition wins, even over a longer name");
	TAP_EQ_STR(mfile(p, 0), "/firsthi$self/x$/first", "replaced text is not scanned again");
	sp_profile_free(p);

	enum { N = 50000 };
	sp_buf text = {0};
	for (unsigned i = 0; i < N; i++) {
		/* fixed width: no name is a prefix of another */
		sp_buf_printf(&text, "dir%06u = /opt/v%u\n", i, i * 7);
		sp_buf_printf(&text, "%x-%x r-xp 00000000 08:01 %u $dir%06u/lib%u.so\n",
			      0x100000u + i * 0x10000u, 0x100000u + i * 0x10000u + 0x8000u, i + 1, i, i);
	}
	p = sp_profile_new();
	sp_error *e = sp_profile_parse_maps(p, text.data, text.len);
	TAP_OK(e == NULL, "100,000 lines parse");
	sp_error_free(e);
	TAP_EQ_U64(p->n_mappings, N, "one mapping per map line");
	size_t bad = 0;
	for (size_t k = 0; k < p->n_mappings; k++) {
		unsigned i = (unsigned)((p->mappings[k].memory_start - 0x100000u) / 0x10000u);
		char want[64];
		snprintf(want, sizeof(want), "/opt/v%u/lib%u.so", i * 7, i);
		if (strcmp(mfile(p, k), want) != 0 && bad++ < 3)
			printf("#   mapping at %#llx: %s, want %s\n",
			       (unsigned long long)p->mappings[k].memory_start, mfile(p, k), want);
	}
	TAP_EQ_U64(bad, 0, "every path substituted with its own definition");
	sp_profile_free(p);

	/* a value used over and over cannot grow one line without bound */
	sp_buf_reset(&text);
	sp_buf_puts(&text, "0x1000-0x2000 /ok\nv=");
	for (int i = 0; i < 1024; i++)
		sp_buf_puts(&text, "x");
	sp_buf_puts(&text, "\n0x3000-0x4000 ");
	for (int i = 0; i < 1100; i++)
		sp_buf_puts(&text, "$v");
	sp_buf_puts(&text, "\n");
	p = sp_profile_new();
	e = sp_profile_parse_maps(p, text.data, text.len);
	char *msg = e ? sp_error_string(e) : NULL;
	TAP_OK(e && e->code == SP_E_LIMIT && msg &&
		       strstr(msg, "line 3: $name substitutions make the line longer than 1048576 bytes"),
	       "a line that substitutions grow past 1 MiB is refused with its number: %s",
	       msg ? msg : "(no error)");
	free(msg);
	sp_error_free(e);
	sp_profile_free(p);
	sp_buf_free(&text);
}

int main(void)
{
	test_lines();
	test_section();
	test_substitution();
	test_merge();
	test_attach();
	test_unsymbolizable();
	return tap_done();
}
