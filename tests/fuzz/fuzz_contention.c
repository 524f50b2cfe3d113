/* fuzz_contention.c — libFuzzer harness for the contention profile reader: every input
 * either fails with an error or yields a profile that passes the validity
 * check.  Build with e.g.
 *   clang -fsanitize=fuzzer,address -I. -Ibuild -include build/config.h \
 *     tests/fuzz/fuzz_contention.c build/formats/.libs/libformats.a \
 *     build/profile/.libs/libprofile.a build/common/.libs/libcommon.a -lz
 * "make check" links it with tests/fuzz/standalone.c, which replays the
 * malformed-input corpus and deterministic mutations of it. */
#include "formats/formats.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sp_profile *p = NULL;
	sp_error *err = sp_contention_read("fuzz", data, size, &p);
	if (err) {
		if (p)
			abort(); /* no half-built profile on error */
		char *s = sp_error_string(err);
		free(s);
		sp_error_free(err);
		return 0;
	}
	err = sp_profile_check(p, "fuzz");
	if (err)
		abort(); /* a reader must never return an invalid profile */
	sp_profile_free(p);
	return 0;
}
