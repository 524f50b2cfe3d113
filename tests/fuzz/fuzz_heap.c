/* fuzz_heap.c — libFuzzer harness for the gperftools heap profile reader; the
 * properties checked are those of tests/fuzz/reader.h.
 * fuzz-runs: 15000 (executions of each scripts/fuzz CI pass: about 10 s) */
#include "tests/fuzz/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return sp_fuzz_reader(sp_heap_read, data, size);
}
