/* fuzz_gopclntab.c — libFuzzer harness for Go's pc-line table reader
 * (symbolize/gopclntab.c).  The input is a .gopclntab section at address
 * 0x20000 whose text starts at 0x1000; it is also the memory image the
 * funcdata point into (its own address for 1.16 pointers, gofunc = its
 * address for 1.18+ offsets), so inline trees land in the fuzzer's bytes.
 * The table is opened, the moduledata search runs over it, and when it
 * opens, pcs of its first 64 functions (entry, 16 steps to the next
 * entry's, and the next entry itself) are looked up: every answer must be
 * frames with NUL-terminated names or an error whose message formats.
 * Seeds (tests/fuzz/seeds/gopclntab/): the tables of test_gopclntab, one
 * per layout, byte order, pointer size and quantum, written with
 * `tests/unit/symbolize/test_gopclntab --write-seeds DIR`; "make check" replays them and
 * 20000 mutations; scripts/fuzz also the malformed tables of
 * tests/malformed/gopclntab/.
 * fuzz-runs: 200000 (executions of each scripts/fuzz CI pass: about 10 s) */
#include "symbolize/dwarf/gopclntab.h"
#include "tests/fuzz/check.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define VADDR 0x20000u

static void look(sp_gopcln *t, uint64_t pc)
{
	sp_gopcln_frame f[8];
	size_t n = 99;
	sp_error *e = sp_gopcln_lookup(t, pc, f, 8, &n);
	if (e) {
		sp_fuzz_check_error(e);
		return;
	}
	if (n > 8)
		SP_FUZZ_FAIL("more than 8 frames for one address");
	for (size_t i = 0; i < n; i++)
		if (!f[i].name || strlen(f[i].name) > SIZE_MAX / 2 ||
		    (f[i].file && strlen(f[i].file) > SIZE_MAX / 2) || f[i].line < 0)
			SP_FUZZ_FAIL("a frame without a name, or with a negative line");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sp_go_region r = {VADDR, data, size};
	uint64_t gofunc = sp_gopcln_find_gofunc(data, size, VADDR, &r, 1);
	sp_gopcln_input in = {.data = data, .size = size, .vaddr = VADDR, .text_start = 0x1000,
			      .regions = &r, .n_regions = 1, .gofunc = gofunc ? gofunc : VADDR};
	sp_gopcln *t;
	sp_error *e = sp_gopcln_open(&in, "fuzz", &t);
	if (e) {
		if (t)
			SP_FUZZ_FAIL("a table returned with an error");
		sp_fuzz_check_error(e);
		return 0;
	}
	size_t nf = sp_gopcln_nfunc(t);
	for (size_t i = 0; i < nf && i < 64; i++) {
		uint64_t a = sp_gopcln_entry(t, i), b = sp_gopcln_entry(t, i + 1);
		if (b < a)
			SP_FUZZ_FAIL("function entries out of order after open checked them");
		uint64_t step = (b - a) / 16 + 1;
		for (uint64_t pc = a; pc < b && pc - a < 16 * step; pc += step)
			look(t, pc);
		look(t, b);
		look(t, a - 1);
	}
	sp_gopcln_free(t);
	return 0;
}
