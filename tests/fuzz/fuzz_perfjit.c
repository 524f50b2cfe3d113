/* fuzz_perfjit.c — libFuzzer harness for the jitdump reader (jitdump.c).
 * It reads files, so the input is handed over through a memfd.  Every
 * input either fails with an error or loads; lookups on what loaded must
 * be safe at any address, time and process, and a code version found by
 * time must name the address.  scripts/fuzz builds it with
 * libFuzzer; "make check" links it with tests/fuzz/standalone.c.
 * fuzz-runs: 70000 (executions of each scripts/fuzz CI pass: about 10 s) */
#include "symbolize/symbolize.h"
#include "tests/fuzz/check.h"
#include "tests/fuzz/memfd.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = sp_fuzz_memfd(data, size, path);
	static const uint64_t probes[] = {0, 1, 0x10000, 0x10011, 0x20011, 0x7e5a0000004bULL,
					  UINT64_MAX};
	static const uint32_t pids[] = {0, 42, 7};
	const char *files[] = {path};
	sp_jitdump *j = NULL;
	sp_error *err = sp_jitdump_load(files, 1, &j);
	if (err) {
		free(sp_error_string(err));
		sp_error_free(err);
	}
	for (size_t i = 0; j && i < SP_ARRAY_LEN(probes); i++) {
		sp_frame f;
		if (sp_jitdump_lookup(j, pids[i % SP_ARRAY_LEN(pids)], probes[i], &f) && !f.name)
			SP_FUZZ_FAIL("a frame without a name");
		/* by time: a version found names the probe's code */
		static const uint64_t times[] = {0, 1, 1000, UINT64_MAX};
		for (size_t t = 0; t < SP_ARRAY_LEN(times); t++) {
			uint64_t v = sp_jitdump_code_version(j, pids[i % SP_ARRAY_LEN(pids)],
							     probes[i], times[t]);
			bool named = sp_jitdump_lookup_version(j, v, probes[i], &f);
			if (v && v != SP_PERFJIT_NO_CODE && (!named || !f.name))
				SP_FUZZ_FAIL("code of that version has no name");
			if ((!v || v == SP_PERFJIT_NO_CODE) && named)
				SP_FUZZ_FAIL("a name where there was no code");
		}
	}
	sp_jitdump_free(j);
	close(fd);
	return 0;
}
