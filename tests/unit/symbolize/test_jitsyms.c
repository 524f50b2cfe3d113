/* test_jitsyms.c — perf maps, kallsyms copies and .meta parsing: lookups
 * against files written here line by line, and malformed input rejected
 * with the file, line or byte offset named. */
#include "symbolize/symbolize.h"
#include "tests/helpers/tap.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/sp-jitsyms-XXXXXX";

static char *write_tmp(const char *name, const char *text)
{
	char *path = sp_xasprintf("%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

static bool err_has(sp_error *err, const char *needle)
{
	if (!err)
		return false;
	char *s = sp_error_string(err);
	bool ok = strstr(s, needle) != NULL;
	if (!ok)
		printf("# error was: %s\n", s);
	free(s);
	return ok;
}

static void test_perf_map(void)
{
	char *a = write_tmp("perf-1.map",
			    "1000 100 outer function\n"
			    "0x1040 0x10 inner\r\n"
			    "\n"
			    "2000\t\t  0 zero-size at 2000\n"
			    "  3000 20   name with  spaces  \n"
			    "1000 100 duplicate outer (later line)\n"
			    "ffffffffffffff00 200 at the top");
	char *b = write_tmp("perf-2.map", "5000 8 from second file\n0FF0 10 Upper\n");
	const char *files[] = {a, b};
	sp_perf_map *m;
	sp_error *err = sp_perf_map_load(files, 2, &m);
	TAP_OK(!err, "perf maps load");
	/* (start,size) order: 0x1000/0x100 precedes 0x1040/0x10; the first line
	 * of two equal entries wins. */
	TAP_EQ_STR(sp_perf_map_lookup(m, 0, 0x1000), "outer function", "start of an entry");
	TAP_EQ_STR(sp_perf_map_lookup(m, 0, 0x1045), "outer function", "first containing entry wins over a nested one");
	TAP_EQ_STR(sp_perf_map_lookup(m, 0, 0x10ff), "outer function", "last byte of an entry");
	TAP_OK(sp_perf_map_lookup(m, 0, 0x1100) == NULL, "end of an entry is outside");
	TAP_EQ_STR(sp_perf_map_lookup(m, 0, 0xff5), "Upper", "uppercase hex, second file");
	TAP_EQ_STR(sp_perf_map_lookup(m, 0, 0x2000), "zero-size at 2000", "size-0 entry matches its start");
	TAP_OK(sp_perf_map_lookup(m, 0, 0x2001) == NULL, "size-0 entry matches nothing else");
	TAP_EQ_STR(sp_perf_map_lookup(m, 0, 0x3010), "name with  spaces  ", "name is the rest of the line");
	TAP_EQ_STR(sp_perf_map_lookup(m, 0, 0x5007), "from second file", "second file");
	TAP_OK(sp_perf_map_lookup(m, 0, 0x999) == NULL, "address below every entry");
	TAP_EQ_STR(sp_perf_map_lookup(m, 0, UINT64_MAX - 1), "at the top", "entry ending past 2^64 is clamped");
	/* per process: perf-1.map is process 1's, perf-2.map process 2's */
	TAP_EQ_STR(sp_perf_map_lookup(m, 1, 0x1000), "outer function", "pid 1: its own map");
	TAP_OK(sp_perf_map_lookup(m, 2, 0x1000) == NULL, "pid 2: not process 1's map");
	TAP_EQ_STR(sp_perf_map_lookup(m, 2, 0x5007), "from second file", "pid 2: its own map");
	TAP_OK(sp_perf_map_lookup(m, 1, 0x5007) == NULL, "pid 1: not process 2's map");
	TAP_OK(sp_perf_map_lookup(m, 3, 0x1000) == NULL && sp_perf_map_lookup(m, 3, 0x5007) == NULL,
	       "pid 3, without a map: none of them");
	sp_perf_map_free(m);

	/* two processes with code at the same address, and a map for everyone */
	char *p10 = write_tmp("perf-10.map", "7000 100 ten_fn\n");
	char *p11 = write_tmp("perf-11.map", "7000 100 eleven_fn\n");
	char *all = write_tmp("jit-names.map", "7000 100 shared_fn\n8000 10 only_shared\n");
	const char *three[] = {all, p10, p11};
	err = sp_perf_map_load(three, 3, &m);
	TAP_OK(!err, "three perf maps load");
	TAP_EQ_STR(sp_perf_map_lookup(m, 10, 0x7010), "ten_fn", "pid 10 at 0x7010: its own name, not the shared map's");
	TAP_EQ_STR(sp_perf_map_lookup(m, 11, 0x7010), "eleven_fn", "pid 11 at the same address: its own name");
	TAP_EQ_STR(sp_perf_map_lookup(m, 12, 0x7010), "shared_fn", "pid 12: the map without a pid");
	TAP_EQ_STR(sp_perf_map_lookup(m, 10, 0x8004), "only_shared", "pid 10: the map without a pid too");
	TAP_EQ_STR(sp_perf_map_lookup(m, 0, 0x7010), "shared_fn", "unknown pid: every map, first loaded wins a tie");
	sp_perf_map_free(m);
	free(p10);
	free(p11);
	free(all);

	static const struct {
		const char *path;
		uint32_t pid;
	} names[] = {
		{"/tmp/perf-1234.map", 1234}, {"perf-1.map", 1}, {"/x/perf-4294967295.map", UINT32_MAX},
		{"/tmp/perf-4294967296.map", 0}, {"/tmp/perf-0.map", 0}, {"/tmp/perf-.map", 0},
		{"/tmp/perf-12.map.bak", 0}, {"/tmp/perf-12x.map", 0}, {"/tmp/myperf-12.map", 0},
		{"/tmp/perfinfo-12.map", 0}, {"/perf-9.map/other.map", 0}, {"jit.map", 0},
	};
	for (size_t i = 0; i < SP_ARRAY_LEN(names); i++)
		TAP_OK(sp_perf_map_file_pid(names[i].path) == names[i].pid, "pid of %s is %u",
		       names[i].path, names[i].pid);

	static const struct {
		const char *text, *want;
	} bad[] = {
		{"1000 10 ok\nxyz 10 f\n", "perf-bad.map: line 2: expected hex start address, got \"xyz\""},
		{"1000 10 ok\r\n\r\n1000 g1 f\n", "perf-bad.map: line 3: expected hex size"},
		{"1000 10\n", "perf-bad.map: line 1: expected a symbol name"},
		{"1000\n", "perf-bad.map: line 1: expected hex size"},
		{"11112222333344445 1 f\n", "line 1: expected hex start address"},
	};
	for (size_t i = 0; i < SP_ARRAY_LEN(bad); i++) {
		char *p = write_tmp("perf-bad.map", bad[i].text);
		const char *f1[] = {p};
		err = sp_perf_map_load(f1, 1, &m);
		TAP_OK(err && sp_error_root_code(err) == SP_E_MALFORMED && err_has(err, bad[i].want),
		       "malformed perf map %zu rejected with its line", i);
		TAP_OK(m == NULL, "no map on error %zu", i);
		sp_error_free(err);
		free(p);
	}
	const char *missing[] = {"/nonexistent/perf-9.map"};
	err = sp_perf_map_load(missing, 1, &m);
	TAP_OK(err && err_has(err, "/nonexistent/perf-9.map"), "missing perf map names the file");
	sp_error_free(err);
	free(a);
	free(b);
}

static void test_kallsyms(void)
{
	char *p = write_tmp("kallsyms",
			    "0000000000000000 A fixed_percpu_data\n"
			    "ffffffff81000000 T _stext\n"
			    "ffffffff81000000 T startup_64\n"
			    "ffffffff81000100 D some_data\n"
			    "ffffffff81000200 t local_text\n"
			    "ffffffff81000300 W weak_fn\n"
			    "ffffffff81000400 r rodata_sym\n"
			    "ffffffffc0a01000 t ext4_fill_super\t[ext4]\n"
			    "ffffffffc0a02000 T ext4_other\t[ext4]\r\n");
	sp_kallsyms *k;
	sp_error *err = sp_kallsyms_load(p, &k);
	TAP_OK(!err, "kallsyms loads");
	TAP_OK(sp_kallsyms_lookup(k, 0xffffffff80ffffffULL) == NULL, "below the first text symbol");
	TAP_EQ_STR(sp_kallsyms_lookup(k, 0xffffffff81000000ULL), "_stext", "first of equal addresses (file order)");
	TAP_EQ_STR(sp_kallsyms_lookup(k, 0xffffffff81000150ULL), "_stext", "data symbols are skipped");
	TAP_EQ_STR(sp_kallsyms_lookup(k, 0xffffffff81000200ULL), "local_text", "t symbol at its start");
	TAP_EQ_STR(sp_kallsyms_lookup(k, 0xffffffff810002ffULL), "local_text", "greatest start <= addr");
	TAP_EQ_STR(sp_kallsyms_lookup(k, 0xffffffff81000450ULL), "weak_fn", "W kept, r skipped");
	TAP_EQ_STR(sp_kallsyms_lookup(k, 0xffffffffc0a01010ULL), "ext4_fill_super [ext4]", "module suffix kept");
	TAP_EQ_STR(sp_kallsyms_lookup(k, 0xffffffffc0a02001ULL), "ext4_other [ext4]", "CRLF tolerated");
	sp_kallsyms_free(k);
	free(p);

	/* a copy out of address order is sorted, ties kept in file order */
	p = write_tmp("kallsyms-unsorted", "ffffffffc0a02000 T mod_b\t[m]\n"
					   "ffffffff81000000 T _stext\n"
					   "ffffffffc0a01000 t mod_a\t[m]\n"
					   "ffffffff81000000 T startup_64\n");
	err = sp_kallsyms_load(p, &k);
	TAP_OK(!err && !strcmp(sp_kallsyms_lookup(k, 0xffffffff81000010ULL), "_stext") &&
		       !strcmp(sp_kallsyms_lookup(k, 0xffffffffc0a01500ULL), "mod_a [m]") &&
		       !strcmp(sp_kallsyms_lookup(k, 0xffffffffc0a02001ULL), "mod_b [m]"),
	       "kallsyms out of address order: sorted, the first in the file names an address");
	sp_error_free(err);
	if (!err)
		sp_kallsyms_free(k);
	free(p);

	static const struct {
		const char *text, *want;
	} bad[] = {
		{"ffffffff81000000 T a\nzz T b\n", "kallsyms-bad: line 2: expected hex address"},
		{"ffffffff81000000 TT a\n", "line 1: expected a one-letter symbol type"},
		{"ffffffff81000000 T\n", "line 1: expected a symbol name"},
		{"ffffffff81000000 T a\tjunk\n", "line 1: expected \"[module]\""},
	};
	for (size_t i = 0; i < SP_ARRAY_LEN(bad); i++) {
		char *q = write_tmp("kallsyms-bad", bad[i].text);
		err = sp_kallsyms_load(q, &k);
		TAP_OK(err && err_has(err, bad[i].want), "malformed kallsyms %zu rejected", i);
		sp_error_free(err);
		free(q);
	}
	/* read without the right to see addresses (kptr_restrict): loads, says
	 * so, names nothing */
	char *z = write_tmp("kallsyms-zero", "0000000000000000 T a\n0000000000000000 t b\n");
	err = sp_kallsyms_load(z, &k);
	TAP_OK(!err && sp_kallsyms_restricted(k) && !sp_kallsyms_lookup(k, 0) &&
		       !sp_kallsyms_lookup(k, 0x1000),
	       "a kallsyms of zeros loads as restricted and names nothing");
	sp_error_free(err);
	if (!err)
		sp_kallsyms_free(k);
	free(z);
}

static void test_meta(void)
{
	const char *good = " {\"version\": 2, \"sections\" : [ {\"name\":\"\",\"start\":0,\"size\":0},\n"
			   "{\"size\":18446744073709551615,\"extra\":[1,{\"a\":null},-2.5e3,true],"
			   "\"name\":\".text.a\\\"b\\\\\\u00e9\\ud83d\\ude00\",\"start\":140000000000}\n]}\n";
	sp_jit_section *s;
	size_t n;
	sp_error *err = sp_jit_meta_parse("good.meta", good, strlen(good), &s, &n);
	TAP_OK(!err, "valid .meta parses");
	TAP_EQ_U64(n, 2, "two sections");
	if (n == 2) {
		TAP_EQ_STR(s[0].name, "", "empty name");
		TAP_EQ_STR(s[1].name, ".text.a\"b\\\xc3\xa9\xf0\x9f\x98\x80", "escapes decoded");
		TAP_EQ_U64(s[1].start, 140000000000ULL, "start");
		TAP_EQ_U64(s[1].size, UINT64_MAX, "size up to 2^64-1");
	}
	/* Writing and parsing again gives the same sections. */
	sp_sink *sink = sp_sink_memory_new();
	sp_jit_meta_write(sink, s, n);
	size_t len;
	const uint8_t *d = sp_sink_memory_data(sink, &len);
	sp_jit_section *s2;
	size_t n2;
	err = sp_jit_meta_parse("rt.meta", (const char *)d, len, &s2, &n2);
	TAP_OK(!err && n2 == n && n == 2 && !strcmp(s2[1].name, s[1].name) && s2[1].size == UINT64_MAX,
	       "written .meta reads back");
	sp_jit_sections_free(s2, n2);
	sp_sink_free(sink);
	sp_jit_sections_free(s, n);

	static const struct {
		const char *text, *want;
	} bad[] = {
		{"", "x.meta: byte 0: expected '{' starting the .meta object, got end of file"},
		{"{\"sections\":[{\"name\":\"a\",\"start\":1}]}", "x.meta: byte 13: section lacks \"size\""},
		{"{\"sections\":[{\"name\":\"a\",\"start\":-1,\"size\":1}]}", "x.meta: byte 33: expected an unsigned integer start address, got '-'"},
		{"{\"sections\":[{\"name\":\"a\",\"start\":1.5,\"size\":1}]}", "byte 34: expected an integer (no fraction or exponent)"},
		{"{\"sections\":[{\"name\":\"a\",\"start\":18446744073709551616,\"size\":1}]}", "byte 33: expected a number below 2^64"},
		{"{\"sections\":[{\"name\":\"a\",\"start\":01,\"size\":1}]}", "byte 33: expected a number without leading zeros"},
		{"{\"sections\":[{\"name\":\"a\nb\",\"start\":1,\"size\":1}]}", "byte 23: expected an escaped control character"},
		{"{\"sections\":[{\"name\":\"a\",\"start\":1,\"size\":1},]}", "byte 45: expected '{' starting a section, got ']'"},
		{"{\"sections\":[{\"name\":\"a\",\"start\":1,\"size\":1}]} x", "byte 47: expected end of file after the .meta object"},
		{"{\"sections\":[{\"name\":\"a\",\"name\":\"b\",\"start\":1,\"size\":1}]}", "byte 25: expected each key once per section"},
		{"{\"other\":1}", "expected a \"sections\" key"},
		{"{\"sections\":[{\"name\":\"\\x\",\"start\":1,\"size\":1}]}", "byte 23: expected one of"},
		{"{\"sections\":[{\"name\":\"a\" \"start\":1}]}", "byte 25: expected ',' or '}' in a section, got '\"'"},
	};
	for (size_t i = 0; i < SP_ARRAY_LEN(bad); i++) {
		err = sp_jit_meta_parse("x.meta", bad[i].text, strlen(bad[i].text), &s, &n);
		TAP_OK(err && sp_error_root_code(err) == SP_E_MALFORMED && err_has(err, bad[i].want),
		       "malformed .meta %zu: %s", i, bad[i].want);
		sp_error_free(err);
	}
}

/* jitdump files (jitdump.c), written here record by record as
 * spec/FORMATS.md §5.2 lays them out, little-endian. */
static void jput(FILE *f, const void *p, size_t n)
{
	fwrite(p, 1, n, f);
}

/* The timestamp of the records written next. */
static uint64_t jclock;

/* V as a 32- or 64-bit integer in this (little-endian) host's order */
#define jput32(f, v) jput((f), &(uint32_t){(v)}, 4)
#define jput64(f, v) jput((f), &(uint64_t){(v)}, 8)

static void jheader(FILE *j, uint32_t pid)
{
	jput32(j, 0x4A695444);
	jput32(j, 1);
	jput32(j, 40);
	jput32(j, 62);
	jput32(j, 0);
	jput32(j, pid);
	jput64(j, 0);
	jput64(j, 0);
}

/* A CODE_LOAD of SIZE bytes of code (zeros) at ADDR. */
static void jload(FILE *j, uint64_t addr, uint64_t size, uint64_t index, const char *name)
{
	size_t len = strlen(name) + 1;
	jput32(j, 0);
	jput32(j, (uint32_t)(56 + len + size));
	jput64(j, jclock);
	jput32(j, 1);
	jput32(j, 1);
	jput64(j, addr);
	jput64(j, addr);
	jput64(j, size);
	jput64(j, index);
	jput(j, name, len);
	for (uint64_t i = 0; i < size; i++)
		fputc(0, j);
}

/* A DEBUG_INFO record of one entry: ADDR is at LINE of FILE. */
static void jdebug(FILE *j, uint64_t addr, int32_t line, const char *file)
{
	size_t len = strlen(file) + 1;
	jput32(j, 2);
	jput32(j, (uint32_t)(16 + 16 + 16 + len));
	jput64(j, jclock);
	jput64(j, addr);
	jput64(j, 1);
	jput64(j, addr);
	jput32(j, (uint32_t)line);
	jput32(j, 0);
	jput(j, file, len);
}

/* A CODE_MOVE of the code of INDEX (SIZE bytes) from OLD to NEW. */
static void jmove(FILE *j, uint64_t old, uint64_t new_addr, uint64_t size, uint64_t index)
{
	jput32(j, 1);
	jput32(j, 64);
	jput64(j, jclock);
	jput32(j, 1);
	jput32(j, 1);
	jput64(j, new_addr);
	jput64(j, old);
	jput64(j, new_addr);
	jput64(j, size);
	jput64(j, index);
}

static const char *jname(const sp_jitdump *j, uint32_t pid, uint64_t addr)
{
	sp_frame f;
	return sp_jitdump_lookup(j, pid, addr, &f) ? f.name : NULL;
}

/* The release of a kallsyms copy, and how it compares with a recording's. */
static void test_kallsyms_release(void)
{
	char *k = write_tmp("ksyms", "ffffffff81000000 T _stext\n");
	const char *from = "x";
	char *rel = sp_kallsyms_release(k, &from);
	TAP_OK(!rel && !from, "a copy without .osrelease: release unknown");
	bool mismatch = true;
	char *msg = sp_kallsyms_check(k, "6.1.0-13-amd64", NULL, &mismatch);
	TAP_OK(msg && strstr(msg, "cannot tell") && !mismatch, "unknown release: not checked, no mismatch");
	free(msg);
	char *side = write_tmp("ksyms.osrelease", "6.1.0-13-amd64 \r\nsecond line\n");
	rel = sp_kallsyms_release(k, &from);
	TAP_EQ_STR(rel, "6.1.0-13-amd64", "the first line of FILE.osrelease, trailing blanks and CR cut");
	free(rel);
	msg = sp_kallsyms_check(k, "6.1.0-13-amd64", NULL, &mismatch);
	TAP_OK(!msg && !mismatch, "same release: nothing to say");
	msg = sp_kallsyms_check(k, "6.12.0-1-amd64", NULL, &mismatch);
	TAP_OK(msg && mismatch && strstr(msg, "6.1.0-13-amd64") && strstr(msg, "6.12.0-1-amd64"),
	       "another release: a mismatch naming both");
	free(msg);
	msg = sp_kallsyms_check(k, NULL, NULL, &mismatch);
	TAP_OK(msg && !mismatch && strstr(msg, "OSRELEASE"), "no OSRELEASE recorded: not checked");
	free(msg);
	free(side);
	free(k);
}

/* The build id of a kallsyms copy, from FILE.buildid or FILE.notes. */
static void test_kallsyms_build_id(void)
{
	static const char id[] = "4a5a9b0affb66c437abcd455d2738af879985fa9";
	char *k = write_tmp("kb", "ffffffff81000000 T _stext\n");
	char *rel = write_tmp("kb.osrelease", "6.1.0-13-amd64\n");
	const char *from = "x";
	TAP_OK(!sp_kallsyms_build_id(k, &from) && !from, "no .buildid or .notes: build id unknown");
	bool mismatch = true;
	char *msg = sp_kallsyms_check(k, "6.1.0-13-amd64", id, &mismatch);
	TAP_OK(!msg && !mismatch, "unknown build id, same release: nothing to say");
	/* /sys/kernel/notes as the kernel has it: a Xen note, then the build id */
	uint8_t notes[128] = {0};
	size_t n = 0;
	uint32_t xen[3] = {4, 4, 18};
	memcpy(notes + n, xen, 12), memcpy(notes + n + 12, "Xen", 4), n += 20;
	uint32_t gnu[3] = {4, 20, 3};
	memcpy(notes + n, gnu, 12), memcpy(notes + n + 12, "GNU", 4), n += 16;
	for (int i = 0; i < 20; i++)
		sscanf(id + 2 * i, "%2hhx", &notes[n + (size_t)i]);
	n += 20;
	char *np = sp_xasprintf("%s/kb.notes", tmpdir);
	FILE *f = fopen(np, "wb");
	fwrite(notes, 1, n, f);
	fclose(f);
	char *got = sp_kallsyms_build_id(k, &from);
	TAP_EQ_STR(got, id, "FILE.notes: the GNU build-id note after another note");
	TAP_EQ_STR(from, ".notes", "... from .notes");
	free(got);
	msg = sp_kallsyms_check(k, "6.1.0-13-amd64", id, &mismatch);
	TAP_OK(!msg && !mismatch, "same build id and release: nothing to say");
	msg = sp_kallsyms_check(k, "6.1.0-13-amd64", "00112233", &mismatch);
	TAP_OK(msg && mismatch && strstr(msg, id) && strstr(msg, "00112233") &&
	       strstr(msg, "its .notes"), "another build of the same release: a mismatch naming both ids");
	free(msg);
	char *bf = write_tmp("kb.buildid", "4A5A9B0AFFB66C437ABCD455D2738AF879985FA9 \n");
	got = sp_kallsyms_build_id(k, &from);
	TAP_EQ_STR(got, id, "FILE.buildid first (hex, case and blanks ignored)");
	free(got);
	msg = sp_kallsyms_check(k, "6.2.0", "00112233", &mismatch);
	TAP_OK(msg && mismatch && strstr(msg, "6.2.0") && strstr(msg, "00112233") &&
	       strstr(msg, "its .buildid"), "release and build id both differ: both said");
	free(msg);
	free(bf);
	bf = write_tmp("kb.buildid", "not hex\n");
	got = sp_kallsyms_build_id(k, &from);
	TAP_EQ_STR(got, id, "a .buildid that is no build id is passed over for .notes");
	free(got);
	free(bf);
	free(np);
	free(rel);
	free(k);
}

static void test_perfjit(void)
{
	char *pa = sp_xasprintf("%s/jit-42.dump", tmpdir), *pb = sp_xasprintf("%s/jit-43.dump", tmpdir);
	FILE *a = fopen(pa, "wb"), *b = fopen(pb, "wb");
	jheader(a, 42);
	jload(a, 0x1000, 0x100, 1, "f1");
	jload(a, 0x1040, 0x10, 2, "f2_nested_later");
	jload(a, 0x1000, 0x20, 3, "f3_reused_later");
	jheader(b, 43);
	jload(b, 0x1000, 0x100, 1, "g");
	jdebug(b, 0x2000, 7, "h.js");
	jload(b, 0x2000, 0x10, 2, "h");
	jdebug(b, 0x2ff0, 9, "early.js"); /* before its code */
	jload(b, 0x3000, 0x10, 3, "late");
	jmove(b, 0x2000, 0x5000, 0x10, 2);
	fclose(a);
	fclose(b);
	const char *files[] = {pa, pb};
	sp_jitdump *j = NULL;
	sp_error *err = sp_jitdump_load(files, 2, &j);
	TAP_OK(!err && sp_jitdump_count(j) == 7, "two jitdump files: 7 code ranges");
	TAP_EQ_STR(jname(j, 42, 0x1010), "f3_reused_later", "pid 42: the later load wins where they overlap");
	TAP_EQ_STR(jname(j, 42, 0x1045), "f2_nested_later", "pid 42: a later nested load wins");
	TAP_EQ_STR(jname(j, 42, 0x1080), "f1", "pid 42: the first load where nothing later covers");
	TAP_OK(jname(j, 42, 0x1100) == NULL, "pid 42: the end of the code is outside");
	TAP_EQ_STR(jname(j, 43, 0x1010), "g", "pid 43: its own file's name at the same address");
	TAP_OK(jname(j, 44, 0x1010) == NULL, "pid 44, without a file: nothing");
	TAP_EQ_STR(jname(j, 0, 0x1080), "g", "unknown pid: every file, the later one first");
	sp_frame f = {0};
	TAP_OK(sp_jitdump_lookup(j, 43, 0x2008, &f) && f.file && !strcmp(f.file, "h.js") &&
	       f.line == 7, "a debug entry at the code's start gives its line");
	f = (sp_frame){0};
	TAP_OK(sp_jitdump_lookup(j, 43, 0x3008, &f) && !strcmp(f.name, "late") && !f.file &&
	       !f.line, "a debug entry before the code gives it no line");
	f = (sp_frame){0};
	TAP_OK(sp_jitdump_lookup(j, 43, 0x5008, &f) && !strcmp(f.name, "h") && f.file &&
	       !strcmp(f.file, "h.js") && f.line == 7,
	       "moved code: its name, and its lines moved with it");
	TAP_OK(sp_jitdump_lookup(j, 43, 0x2008, &f) && !strcmp(f.name, "h"),
	       "moved code: the old place still names it (samples from before the move)");
	TAP_OK(!sp_jitdump_lookup(j, 43, 0x5010, &f), "moved code: its end is outside");
	sp_jitdump_free(j);
	free(pa);
	free(pb);

	const char *none[] = {"/nonexistent/jit-1.dump"};
	err = sp_jitdump_load(none, 1, &j);
	TAP_OK(err && err_has(err, "/nonexistent/jit-1.dump") && !j, "missing jitdump names the file");
	sp_error_free(err);
}

/* The name of the code ADDR of PID held at TIME: "-" for no code at that
 * time, NULL when no record ever held ADDR. */
static const char *jat(const sp_jitdump *j, uint32_t pid, uint64_t addr, uint64_t time)
{
	uint64_t v = sp_jitdump_code_version(j, pid, addr, time);
	sp_frame f;
	if (v == SP_PERFJIT_NO_CODE)
		return "-";
	return v && sp_jitdump_lookup_version(j, v, addr, &f) ? f.name : NULL;
}

/* Addresses reused over time: the code of a sample's time. */
static void test_perfjit_times(void)
{
	char *path = sp_xasprintf("%s/jit-50.dump", tmpdir);
	FILE *a = fopen(path, "wb");
	jheader(a, 50);
	jclock = 100;
	jload(a, 0x1000, 0x100, 1, "A");
	jclock = 200;
	jload(a, 0x1040, 0x10, 2, "B_nested");
	jclock = 300;
	jload(a, 0x1000, 0x20, 3, "C_reuses_A_start");
	jload(a, 0x1080, 0x40, 4, "D");
	jload(a, 0x1080, 0x10, 5, "E_same_time_as_D");
	jclock = 150; /* written late, timed early */
	jload(a, 0x10b0, 0x10, 6, "G_early");
	jclock = 400;
	jmove(a, 0x1040, 0x3000, 0x10, 2);
	jclock = 0;
	fclose(a);
	const char *files[] = {path};
	sp_jitdump *j = NULL;
	sp_error *err = sp_jitdump_load(files, 1, &j);
	TAP_OK(!err && sp_jitdump_count(j) == 7, "timed jitdump: 7 code ranges");
	TAP_EQ_U64(sp_jitdump_reused(j), 5, "5 ranges over addresses an earlier one held");
	TAP_OK(!sp_jitdump_arch_timestamp(j), "times on CLOCK_MONOTONIC (no arch flag)");
	TAP_EQ_STR(jat(j, 50, 0x1010, 50), "-", "before every record: no code yet");
	TAP_EQ_STR(jat(j, 50, 0x1010, 100), "A", "at the load's own time: its code");
	TAP_EQ_STR(jat(j, 50, 0x1010, 299), "A", "before the reuse: the first code");
	TAP_EQ_STR(jat(j, 50, 0x1010, 300), "C_reuses_A_start", "from the reuse on: the new code");
	TAP_EQ_STR(jat(j, 50, 0x1030, 1000), "A", "past the reusing range: still the first");
	TAP_EQ_STR(jat(j, 50, 0x1045, 150), "A", "nested range before its time: the outer one");
	TAP_EQ_STR(jat(j, 50, 0x1045, 1000), "B_nested", "nested range, later: itself (a move leaves it)");
	TAP_EQ_STR(jat(j, 50, 0x1085, 299), "A", "before two loads of one time: the first code");
	TAP_EQ_STR(jat(j, 50, 0x1085, 300), "E_same_time_as_D", "equal times: the later in the file");
	TAP_EQ_STR(jat(j, 50, 0x10b5, 200), "G_early", "a record written late counts from its own time");
	TAP_EQ_STR(jat(j, 50, 0x10b5, 350), "D", "and a later-timed one written before it wins after");
	TAP_EQ_STR(jname(j, 50, 0x10b5), "G_early", "without a time: the later in the file, as before");
	TAP_EQ_STR(jat(j, 50, 0x3008, 399), "-", "moved code before the move: nothing there yet");
	TAP_EQ_STR(jat(j, 50, 0x3008, 400), "B_nested", "moved code from the move on");
	TAP_OK(jat(j, 50, 0x5000, 1000) == NULL, "an address no record holds: no version");
	TAP_OK(jat(j, 50, 0x1100, 1000) == NULL, "the end of the code: no version");
	TAP_OK(jat(j, 51, 0x1010, 1000) == NULL, "another process: no version");
	uint64_t v = sp_jitdump_code_version(j, 50, 0x1010, 300);
	sp_frame f;
	TAP_OK(!sp_jitdump_lookup_version(j, v, 0x1030, &f),
	       "a version names only addresses of its own code");
	sp_jitdump_free(j);
	free(path);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_perf_map();
	test_kallsyms();
	test_meta();
	test_perfjit();
	test_perfjit_times();
	test_kallsyms_release();
	test_kallsyms_build_id();
	char *cmd[] = {"rm", "-rf", tmpdir, NULL};
	pid_t pid = fork();
	if (pid == 0) {
		execvp(cmd[0], cmd);
		_exit(127);
	}
	waitpid(pid, NULL, 0);
	return tap_done();
}
