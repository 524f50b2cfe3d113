/* test_legacy.c — the helpers shared by the text readers: line iteration
 * with line numbers, hex address lists with positioned errors, the PC
 * adjustment rule of spec §2.7, locating the memory-map section, and the
 * map trailer attaching locations. */
#include "formats/legacy.h"
#include "tests/helpers/tap.h"

#include <stdlib.h>

static void test_lines(void)
{
	const char *text = "a\r\n\nccc\nlast";
	sp_lines it;
	sp_lines_init(&it, (const uint8_t *)text, strlen(text));
	TAP_OK(sp_lines_next(&it) && it.lineno == 1 && it.line_len == 1 && it.line[0] == 'a',
	       "line 1 without CR LF");
	TAP_OK(sp_lines_next(&it) && it.lineno == 2 && it.line_len == 0, "empty line 2");
	TAP_OK(sp_lines_next(&it) && it.lineno == 3 && it.line_off == 4 && it.line_len == 3,
	       "line 3 at offset 4");
	TAP_EQ_STR(sp_lines_rest(&it), "last", "rest after line 3");
	TAP_OK(sp_lines_next(&it) && it.lineno == 4 && it.line_len == 4, "last line without newline");
	TAP_OK(!sp_lines_next(&it), "end");
	TAP_OK(sp_legacy_is_space_or_comment("  \t", 3), "blank");
	TAP_OK(sp_legacy_is_space_or_comment("  # x", 5), "comment");
	TAP_OK(!sp_legacy_is_space_or_comment(" 1: 2", 5), "not comment");
}

static void test_addrs(void)
{
	sp_u64vec v = {0};
	const char *s = " 0x4005d4 0x7f3c1a021b45\t0x1 ";
	TAP_OK(sp_legacy_parse_addrs("f", 3, s, strlen(s), &v) == NULL && v.n == 3 &&
		       v.v[0] == 0x4005d4 && v.v[1] == 0x7f3c1a021b45 && v.v[2] == 1,
	       "three addresses");
	static const char *bad[] = {"0x12 0xABC", "0x12 12", "0x", "0x12 0xg1",
				    "0x10000000000000000"};
	static const char *want[] = {"f: line 7: expected hex address 0x[0-9a-f]+, got \"0xABC\"",
				     "f: line 7: expected hex address 0x[0-9a-f]+, got \"12\"",
				     "f: line 7: expected hex address 0x[0-9a-f]+, got \"0x\"",
				     "f: line 7: expected hex address 0x[0-9a-f]+, got \"0xg1\"",
				     "f: line 7: hex address \"0x10000000000000000\" does not fit in 64 bits"};
	for (size_t i = 0; i < SP_ARRAY_LEN(bad); i++) {
		sp_error *e = sp_legacy_parse_addrs("f", 7, bad[i], strlen(bad[i]), &v);
		char *msg = e ? sp_error_string(e) : NULL;
		TAP_OK(e && e->code == SP_E_MALFORMED, "bad token in \"%s\" is malformed", bad[i]);
		TAP_EQ_STR(msg, want[i], "message for \"%s\"", bad[i]);
		free(msg);
		sp_error_free(e);
	}
	v.n = 0;
	const char *t = "  PC: 0x40b688 0x4d5f51x0x10 0xABC 0x7 creator: 0x";
	TAP_OK(sp_legacy_scan_addrs("f", 2, t, strlen(t), &v) == NULL && v.n == 4 &&
		       v.v[0] == 0x40b688 && v.v[1] == 0x4d5f51 && v.v[2] == 0x10 && v.v[3] == 0x7,
	       "scan finds every 0x[0-9a-f]+ run, skipping other text");
	const char *big = "PC: 0x40b688 0x473add693e639c6f0";
	sp_error *e = sp_legacy_scan_addrs("f", 4, big, strlen(big), &v);
	char *msg = e ? sp_error_string(e) : NULL;
	TAP_EQ_STR(msg, "f: line 4: hex address \"0x473add693e639c6f0\" does not fit in 64 bits",
		   "scan: 65-bit number refused");
	free(msg);
	sp_error_free(e);
	uint64_t a[] = {0x1000, 0x2000, 0};
	sp_legacy_adjust_pcs(a, 3, false);
	TAP_OK(a[0] == 0x1000 && a[1] == 0x1fff && a[2] == 0, "leaf kept, callers -1, 0 kept");
	sp_legacy_adjust_pcs(a, 3, true);
	TAP_OK(a[0] == 0xfff && a[1] == 0x1ffe, "leaf adjusted too");
	sp_u64vec_free(&v);
}

static void test_maps(void)
{
	const char *text = "1: 2 @ 0x1\n--- Memory map: ---\n0x1000-0x2000 /bin/p\n";
	size_t off = 0;
	TAP_OK(sp_legacy_find_maps((const uint8_t *)text, strlen(text), 0, &off) &&
		       strcmp(text + off, "0x1000-0x2000 /bin/p\n") == 0,
	       "--- Memory map: --- found");
	const char *t2 = "x\nfoo MAPPED_LIBRARIES: bar\n1-2\n";
	TAP_OK(sp_legacy_find_maps((const uint8_t *)t2, strlen(t2), 0, &off) && off == 28,
	       "MAPPED_LIBRARIES: anywhere on a line");
	TAP_OK(!sp_legacy_find_maps((const uint8_t *)t2, strlen(t2), 28, &off), "none after it");

	sp_profile *p = sp_profile_new();
	sp_u64vec ids = {0};
	uint64_t addrs[] = {0x1100, 0x1200, 0x1100, 0x9000};
	sp_legacy_locations(p, addrs, 4, &ids);
	TAP_OK(ids.n == 4 && ids.v[0] == 1 && ids.v[1] == 2 && ids.v[2] == 1 && ids.v[3] == 3,
	       "locations de-duplicated by address");
	const char *maps = "0x1000-0x2000 /bin/p\n";
	sp_error *e = sp_legacy_finish_maps(p, "f", maps, strlen(maps));
	TAP_OK(e == NULL, "maps parsed");
	sp_error_free(e);
	TAP_OK(sp_profile_location(p, 1)->mapping_id == 1 && sp_profile_location(p, 3)->mapping_id == 2,
	       "locations attached; unmapped one gets the fake mapping");
	sp_u64vec_free(&ids);
	sp_profile_free(p);
}

static void test_memo(void)
{
	sp_stack_memo m = {0};
	const uint64_t a[] = {3, 1, 2}, *got = NULL;
	size_t n = 99;
	TAP_OK(!sp_stack_memo_find(&m, "0x10 0x20", 9, &got, &n), "memo: empty finds nothing");
	sp_stack_memo_add(&m, "", 0, NULL, 0);
	sp_stack_memo_add(&m, "0x10 0x20 0x30", 14, a, 3);
	sp_stack_memo_add(&m, "0x10", 4, a + 1, 1);
	TAP_OK(sp_stack_memo_find(&m, "0x10 0x20 0x30", 14, &got, &n) && n == 3 && got[0] == 3 &&
		       got[1] == 1 && got[2] == 2,
	       "memo: a stack's ids by its text");
	TAP_OK(sp_stack_memo_find(&m, "0x10", 4, &got, &n) && n == 1 && got[0] == 1,
	       "memo: another stack's own ids");
	TAP_OK(sp_stack_memo_find(&m, "", 0, &got, &n) && n == 0, "memo: the empty stack");
	TAP_OK(!sp_stack_memo_find(&m, "0x10 0x20 0x3", 13, &got, &n),
	       "memo: a prefix is another text");
	/* past the bound, stacks are not kept */
	size_t big = SP_STACK_MEMO_MAX / 2 + 1;
	char *t = sp_xmalloc(big);
	memset(t, ' ', big);
	sp_stack_memo_add(&m, t, big, NULL, 0);
	t[0] = '0';
	sp_stack_memo_add(&m, t, big, NULL, 0);
	TAP_OK(sp_stack_memo_find(&m, t + 1, big - 1, &got, &n) == false &&
		       !sp_stack_memo_find(&m, t, big, &got, &n),
	       "memo: a stack past SP_STACK_MEMO_MAX is not kept");
	t[0] = ' ';
	TAP_OK(sp_stack_memo_find(&m, t, big, &got, &n) && n == 0,
	       "memo: the stacks kept before the bound still are");
	free(t);
	sp_stack_memo_free(&m);
}

int main(void)
{
	test_lines();
	test_addrs();
	test_maps();
	test_memo();
	return tap_done();
}
