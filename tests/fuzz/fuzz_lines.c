/* fuzz_lines.c — libFuzzer harness for the .debug_line decoder of
 * symbolize/lines.c.  The input is a .debug_line section; it also stands
 * in for .debug_line_str and .debug_str, so string offsets of DWARF 5
 * entry formats land in readable bytes.  Its first unit, and the unit
 * after it when the first one's length leaves room, are decoded with 8-
 * and 4-byte addresses.  A decoder answer of "leave it to libdw" is fine;
 * a table it does give must be what the resolver relies on: rows in
 * libdw's order (by address, an end of sequence before an ordinary row at
 * the same address; the last row's mark is set after sorting), the last
 * row an end of sequence, and a name for every file.  scripts/fuzz builds
 * it with libFuzzer; "make check" links it with tests/fuzz/standalone.c,
 * which also replays tests/fuzz/seeds/lines/ (the .debug_line sections of
 * a two-unit program built with -gdwarf-2 to -gdwarf-5).
 * fuzz-runs: 200000 (executions of each scripts/fuzz CI pass: about 10 s) */
#include "symbolize/internal.h"
#include "tests/fuzz/check.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const sp_line_sections *s, uint64_t off, unsigned asz)
{
	sp_line_table t;
	if (!sp_lines_decode(s, off, asz, "/comp/dir", &t)) {
		if (t.n_rows || t.n_files)
			SP_FUZZ_FAIL("a refused table is not empty");
		sp_line_table_clear(&t);
		return;
	}
	for (size_t i = 0; i < t.n_files; i++)
		if (!t.files[i])
			SP_FUZZ_FAIL("a file entry without a name");
	for (size_t i = 1; i < t.n_rows; i++) {
		/* the last row's mark is set after sorting, whatever it was */
		const sp_line_row *a = &t.rows[i - 1], *b = &t.rows[i];
		bool b_end = b->end_seq && i + 1 < t.n_rows;
		if (a->addr > b->addr || (a->addr == b->addr && !a->end_seq && b_end))
			SP_FUZZ_FAIL("rows out of address order");
	}
	if (t.n_rows && !t.rows[t.n_rows - 1].end_seq)
		SP_FUZZ_FAIL("the last row does not end a sequence");
	sp_line_table_clear(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sp_line_sections s;
	memset(&s, 0, sizeof(s));
	s.line = s.line_str = s.str = data;
	s.line_size = s.line_str_size = s.str_size = size;
	if (!size)
		s.line = NULL; /* an absent section */
	uint64_t next = 0;
	if (size >= 4)
		next = 4 + ((uint64_t)data[0] | (uint64_t)data[1] << 8 | (uint64_t)data[2] << 16 |
			    (uint64_t)data[3] << 24);
	for (unsigned asz = 4; asz <= 8; asz += 4) {
		check(&s, 0, asz);
		if (next < size)
			check(&s, next, asz);
	}
	return 0;
}
