/* fuzz_perfmap.c — libFuzzer harness for the perf map and kallsyms readers.
 * Both read files, so the input is handed over through a memfd.  Every
 * input either fails with an error or loads; lookups on a loaded table
 * must be safe at any address.  scripts/fuzz builds it with libFuzzer;
 * "make check" links it with tests/fuzz/standalone.c.
 * fuzz-runs: 70000 (executions of each scripts/fuzz CI pass: about 10 s) */
#include "symbolize/symbolize.h"
#include "tests/fuzz/memfd.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void drop(sp_error *err)
{
	char *s = sp_error_string(err);
	free(s);
	sp_error_free(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = sp_fuzz_memfd(data, size, path);
	static const uint64_t probes[] = {0, 1, 0x1000, 0x401000, 0x7f0000000000ULL,
					  0xffffffff81000000ULL, UINT64_MAX};
	const char *files[] = {path};
	sp_perf_map *pm = NULL;
	sp_error *err = sp_perf_map_load(files, 1, &pm);
	if (err)
		drop(err);
	for (size_t i = 0; pm && i < SP_ARRAY_LEN(probes); i++)
		(void)sp_perf_map_lookup(pm, (uint32_t)i, probes[i]);
	sp_perf_map_free(pm);
	sp_kallsyms *k = NULL;
	err = sp_kallsyms_load(path, &k);
	if (err)
		drop(err);
	for (size_t i = 0; k && i < SP_ARRAY_LEN(probes); i++)
		(void)sp_kallsyms_lookup(k, probes[i]);
	sp_kallsyms_free(k);
	close(fd);
	return 0;
}
