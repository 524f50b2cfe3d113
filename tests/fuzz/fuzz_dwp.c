/* fuzz_dwp.c — libFuzzer harness for the .dwp unit index reader
 * (symbolize/dwp.c).  The input is a .debug_cu_index section.  When it
 * reads, every id of its hash table and a few others are looked up: a
 * unit found has contributions only in the section kinds its columns
 * name, and every read stays inside the input (ASan says otherwise).  An
 * error must format, naming the package.  Seeds (tests/fuzz/seeds/dwp/):
 * the tables of test_dwp (`tests/unit/symbolize/test_dwp --write-seeds DIR`) and the
 * indexes of the packages binutils' dwp and llvm-dwp made of the split
 * fixture of tests/cli/split_dwarf.sh, built by GCC and by Clang (NAME:
 * packer-compiler-version); the malformed tables of tests/malformed/dwp/
 * (NAME.idx) are replayed by scripts/fuzz too.
 * fuzz-runs: 200000 (executions of each scripts/fuzz CI pass: a few seconds) */
#include "symbolize/dwarf/dwarfp.h"
#include "symbolize/dwarf/cursor.h"
#include "tests/fuzz/check.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void look(const sp_dwp_index *ix, uint64_t id)
{
	sp_dwp_unit u;
	if (!sp_dwp_index_find(ix, id, &u))
		return;
	bool any = false;
	for (unsigned s = 0; s <= SP_DWP_MAX_SECT; s++) {
		if (!u.has[s])
			continue;
		bool named = false;
		for (uint32_t c = 0; c < ix->n_cols; c++)
			named |= sp_read_le(ix->sects + c * 4, 4) == s;
		if (!named || s == 0 || u.off[s] > UINT32_MAX || u.size[s] > UINT32_MAX)
			SP_FUZZ_FAIL("a unit's section is not one of the index's columns, or passes 32 bits");
		any = true;
	}
	if (!any || !u.has[SP_DWP_SECT_INFO])
		SP_FUZZ_FAIL("an accepted index has no unit with a .debug_info part");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sp_dwp_index ix;
	sp_error *e = sp_dwp_index_read(data, size, "fuzz.dwp", &ix);
	if (e) {
		char *m = sp_error_string(e);
		if (!m || !strstr(m, "fuzz.dwp: .debug_cu_index"))
			SP_FUZZ_FAIL("the error does not name fuzz.dwp: .debug_cu_index");
		free(m);
		sp_error_free(e);
		return 0;
	}
	for (uint32_t i = 0; i < ix.n_slots && i < 4096; i++)
		look(&ix, sp_read_le(ix.ids + (size_t)i * 8, 8));
	look(&ix, 0);
	look(&ix, 1);
	look(&ix, UINT64_MAX);
	return 0;
}
