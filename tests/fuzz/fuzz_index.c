/* fuzz_index.c — libFuzzer harness for the symbol index reader
 * (symbolize/index/read.c).  The input is an index file.  It is opened as
 * it is (most changes then end at a checksum), and again as a copy whose
 * checksums are made again (tests/helpers/index_util.h), so that changes
 * reach the section table, the tables, the nodes and the rows (its size
 * field made its size, too).  When it
 * opens, the whole file is checked (sp_index_verify) and 300 addresses
 * from 16 below its first row on are looked up, each twice (once kept):
 * every answer must be at most 65 frames with NUL-terminated strings, or
 * an error whose message formats; after an error that says the file is
 * damaged, every look-up must fail.
 * Seeds (tests/fuzz/seeds/index/): indexes of made-up answers, written with
 * `tests/unit/symbolize/test_index --write-seeds DIR`; tests/malformed/index/
 * holds the malformed ones test_index checks.
 * fuzz-runs: 100000 (executions of each scripts/fuzz CI pass) */
#include "tests/fuzz/check.h"
#include "tests/helpers/index_util.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_frames(const sp_frame *f, size_t n)
{
	if (n > SPX_MAX_FRAMES || (n && !f))
		SP_FUZZ_FAIL("%zu frames", n);
	for (size_t i = 0; i < n; i++) {
		size_t len = (f[i].name ? strlen(f[i].name) : 0) +
			     (f[i].system_name ? strlen(f[i].system_name) : 0) +
			     (f[i].file ? strlen(f[i].file) : 0);
		if (len > SIZE_MAX / 2 || f[i].discriminator > 0xffffff ||
		    f[i].inlined != (i + 1 < n))
			SP_FUZZ_FAIL("frame %zu: a discriminator over 24 bits or a wrong inline flag",
				     i);
	}
}

static void exercise(const uint8_t *d, size_t n)
{
	sp_index *ix;
	sp_error *e = sp_index_open_memory(d, n, "fuzz", NULL, SP_DEMANGLE_SIMPLE, &ix);
	if (e) {
		if (ix)
			SP_FUZZ_FAIL("an index returned with an error");
		sp_fuzz_check_error(e);
		return;
	}
	sp_index_stats st;
	e = sp_index_verify(ix, &st);
	if (e)
		sp_fuzz_check_error(e);
	else if (st.size != n)
		SP_FUZZ_FAIL("verified, of %zu bytes, not %zu", st.size, n);
	uint64_t base = spx_le(d + 48, 8) - 16;
	bool damaged = false;
	for (uint64_t k = 0; k < 300; k++) {
		const sp_frame *f;
		size_t nf = 99;
		e = (k & 1) ? sp_index_resolve(ix, base + 3 * k, &f, &nf)
			    : sp_index_resolve_once(ix, base + 3 * k, &f, &nf);
		if (damaged && !e)
			SP_FUZZ_FAIL("an answer after the file was found damaged");
		if (e) {
			damaged = sp_index_damaged(ix);
			sp_fuzz_check_error(e);
			continue;
		}
		check_frames(f, nf);
	}
	if (sp_index_debug_path(ix) && !*sp_index_debug_path(ix))
		SP_FUZZ_FAIL("an empty debug path");
	sp_error_free(sp_index_split_error(ix));
	sp_index_free(ix);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	exercise(data, size);
	uint8_t *copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (size >= SPX_FIXED) /* its size field too: changes that cut or grow it */
		spx_put_le(copy + 16, size, 8);
	spx_test_rechecksum(copy, size);
	exercise(copy, size);
	free(copy);
	return 0;
}
