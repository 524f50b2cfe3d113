/* replay.c — runs a libFuzzer harness without libFuzzer: each file named
 * on the command line is passed to LLVMFuzzerTestOneInput once, so the
 * harnesses are built and exercised (under ASan with --enable-sanitizers)
 * by "make check" on any compiler. */
#include "common/common.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		uint8_t *data;
		size_t len;
		sp_error *err = sp_read_file(argv[i], &data, &len);
		if (err) {
			char *s = sp_error_string(err);
			fprintf(stderr, "replay: %s\n", s);
			free(s);
			sp_error_free(err);
			return 1;
		}
		LLVMFuzzerTestOneInput(data, len);
		free(data);
	}
	return 0;
}
