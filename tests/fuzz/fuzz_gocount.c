/* fuzz_gocount.c — libFuzzer harness for the Go count profile reader; the
 * properties checked are those of tests/fuzz/reader.h.
 * fuzz-runs: 100000 (executions of each scripts/fuzz CI pass: about 10 s) */
#include "tests/fuzz/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return sp_fuzz_reader(sp_gocount_read, data, size);
}
