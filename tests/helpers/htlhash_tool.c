/* htlhash_tool.c — prints the eBPF profiler's file id of each FILE, as
 * symbolize/find/filehash.c computes it: for tests/test_htlhash.sh. */
#include "symbolize/internal.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rc = 0;
	for (int i = 1; i < argc; i++) {
		char id[SP_HTLHASH_HEX];
		sp_error *e = sp_htlhash_file(argv[i], id);
		if (e) {
			char *m = sp_error_string(e);
			fprintf(stderr, "htlhash_tool: %s\n", m);
			free(m);
			sp_error_free(e);
			rc = 1;
			continue;
		}
		printf("%s %s\n", id, argv[i]);
	}
	return rc;
}
