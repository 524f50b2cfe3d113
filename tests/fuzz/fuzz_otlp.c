/* fuzz_otlp.c — libFuzzer harness for the OTLP profiles reader on protobuf
 * input (one message or a length-prefixed stream, gzip or zstd around it):
 * the properties of tests/fuzz/otlp.h.  Seeds: tests/fuzz/seeds/otlp/.
 * fuzz-runs: 30000 (executions of each scripts/fuzz CI pass: about 10 s) */
#include "tests/fuzz/otlp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return sp_fuzz_otlp(data, size);
}
