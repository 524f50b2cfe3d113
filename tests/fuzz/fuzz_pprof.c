/* fuzz_pprof.c — libFuzzer harness for the pprof reader: every input either
 * fails with an error or yields a profile that passes the validity check
 * and can be written back.  Build with e.g.
 *   clang -fsanitize=fuzzer,address -I. -Ibuild -include build/config.h \
 *     tests/fuzz/fuzz_pprof.c formats/pprof.c build/formats/proto/profile.pb-c.c \
 *     profile/model.c profile/check.c profile/dump.c common/{error,mem,hash,sink,file,zlib}.c -lprotobuf-c -lz
 * tests/fuzz/fuzz_pprof_replay.c runs it in `make check` without libFuzzer. */
#include "formats/formats.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sp_profile *p = NULL;
	sp_error *err = sp_pprof_read("fuzz", data, size, &p);
	if (err) {
		char *s = sp_error_string(err);
		free(s);
		sp_error_free(err);
		return 0;
	}
	err = sp_profile_check(p, "fuzz");
	if (err)
		abort(); /* the reader must not return an invalid profile */
	sp_sink *out = sp_sink_memory_new();
	err = sp_pprof_write(p, false, out);
	if (err) {
		/* only NUL bytes in strings cannot be written */
		if (sp_error_root_code(err) != SP_E_UNSUPPORTED)
			abort();
		sp_error_free(err);
	}
	sp_sink_free(out);
	sp_profile_free(p);
	return 0;
}
