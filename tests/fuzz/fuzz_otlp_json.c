/* fuzz_otlp_json.c — libFuzzer harness for the OTLP profiles reader on
 * OTLP/JSON input (objects one after another): the properties of
 * tests/fuzz/otlp.h.  Seeds: tests/fuzz/seeds/otlp_json/.
 * fuzz-runs: 30000 (executions of each scripts/fuzz CI pass: about 10 s) */
#include "tests/fuzz/otlp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return sp_fuzz_otlp(data, size);
}
