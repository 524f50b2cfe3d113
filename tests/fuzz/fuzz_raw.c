/* fuzz_raw.c — libFuzzer harness for the raw address stacks reader; the
 * properties checked are those of tests/fuzz/reader.h.
 * fuzz-runs: 60000 (executions of each scripts/fuzz CI pass: about 10 s) */
#include "tests/fuzz/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return sp_fuzz_reader(sp_addrstacks_read, data, size);
}
