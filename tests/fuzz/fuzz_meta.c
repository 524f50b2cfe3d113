/* fuzz_meta.c — libFuzzer harness for the JIT .meta JSON parser: every
 * input either fails with an error or yields sections that write back and
 * parse again to the same list.  scripts/fuzz builds it with libFuzzer;
 * "make check" links it with tests/fuzz/standalone.c.
 * fuzz-runs: 200000 (executions of each scripts/fuzz CI pass: about 10 s) */
#include "symbolize/symbolize.h"
#include "tests/fuzz/check.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sp_jit_section *secs = NULL, *again = NULL;
	size_t n = 0, n2 = 0;
	sp_error *err = sp_jit_meta_parse("fuzz", (const char *)data, size, &secs, &n);
	if (err) {
		char *s = sp_error_string(err);
		free(s);
		sp_error_free(err);
		return 0;
	}
	/* what we write, we read back identically */
	sp_sink *m = sp_sink_memory_new();
	sp_jit_meta_write(m, secs, n);
	size_t len;
	const uint8_t *text = sp_sink_memory_data(m, &len);
	err = sp_jit_meta_parse("again", (const char *)text, len, &again, &n2);
	if (err || n2 != n)
		SP_FUZZ_FAIL("what was written does not read back");
	for (size_t i = 0; i < n; i++)
		if (strcmp(secs[i].name, again[i].name) || secs[i].start != again[i].start ||
		    secs[i].size != again[i].size)
			SP_FUZZ_FAIL("a section changed in the round trip");
	sp_jit_sections_free(again, n2);
	sp_jit_sections_free(secs, n);
	sp_sink_free(m);
	return 0;
}
