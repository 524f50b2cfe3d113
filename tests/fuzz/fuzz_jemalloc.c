/* fuzz_jemalloc.c — libFuzzer harness for the jemalloc heap_v2 reader; the
 * properties checked are those of tests/fuzz/reader.h. */
#include "tests/fuzz/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return sp_fuzz_reader(sp_jemalloc_read, data, size);
}
