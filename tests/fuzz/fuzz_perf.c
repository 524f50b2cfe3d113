/* fuzz_perf.c — libFuzzer harness for the perf.data reader; the
 * properties checked are those of tests/fuzz/reader.h. */
#include "tests/fuzz/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return sp_fuzz_reader(sp_perf_read, data, size);
}
