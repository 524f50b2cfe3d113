/* jitload.c — command-line front of tests/helpers/jitfix.c for the shell tests:
 *   jitload IN.o PREFIX BASE STEP DATA_BASE
 * writes PREFIX.elf (sections placed from hex BASE every hex STEP,
 * non-executable ones from DATA_BASE) and PREFIX.meta, and prints one line
 * "NAME START SIZE" (hex) per placed section. */
#include "tests/helpers/jitfix.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: jitload IN.o PREFIX BASE STEP DATA_BASE\n");
		return 2;
	}
	jf_plan plan = {
		.base = strtoull(argv[3], NULL, 16),
		.step = strtoull(argv[4], NULL, 16),
		.data_base = strtoull(argv[5], NULL, 16),
		.with_null = true,
	};
	jf_placed *p;
	size_t n;
	if (jf_load(argv[1], argv[2], &plan, &p, &n))
		return 1;
	for (size_t i = 0; i < n; i++)
		printf("%s %" PRIx64 " %" PRIx64 "\n", p[i].name, p[i].start, p[i].size);
	jf_placed_free(p, n);
	return 0;
}
