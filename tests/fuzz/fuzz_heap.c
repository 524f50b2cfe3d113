/* fuzz_heap.c — libFuzzer harness for the heap reader: every input either
 * parses into a valid profile that the folded writer can print, or is
 * refused with an error.  Build with libFuzzer from the source tree (after
 * configure in build/), instrumenting the code under test:
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -std=gnu11 -I. -Ibuild \
 *     -include build/config.h tests/fuzz/fuzz_heap.c \
 *     common/{error,mem,hash,sink,file,zlib}.c \
 *     profile/{model,check,dump,maps,prune,merge}.c \
 *     formats/{heap,legacy,folded_write}.c -lz -lm -o fuzz_heap
 *   ./fuzz_heap -max_len=4096 tests/malformed/heap
 *
 * or link tests/fuzz/standalone.c instead of libFuzzer to replay a corpus
 * (make check does that over tests/malformed and mutations of it). */
#include "formats/formats.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sp_profile *p = NULL;
	sp_error *e = sp_heap_read("fuzz", data, size, &p);
	if (e) {
		if (p)
			abort(); /* an error must not leave a profile behind */
		char *m = sp_error_string(e);
		free(m);
		sp_error_free(e);
		return 0;
	}
	e = sp_profile_check(p, "fuzz");
	if (e)
		abort(); /* a reader must produce a valid profile */
	sp_profile_prune_frames(p);
	sp_sink *s = sp_sink_memory_new();
	e = sp_folded_write(p, NULL, s);
	sp_error_free(e);
	sp_sink_free(s);
	sp_profile_free(p);
	return 0;
}
