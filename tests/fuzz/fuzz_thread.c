/* fuzz_thread.c — libFuzzer harness for the gperftools thread profile reader; the
 * properties checked are those of tests/fuzz/reader.h.
 * fuzz-runs: 60000 (executions of each scripts/fuzz CI pass: about 10 s) */
#include "tests/fuzz/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return sp_fuzz_reader(sp_thread_read, data, size);
}
