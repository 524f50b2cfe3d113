/* fuzz_heap.c — libFuzzer harness for the gperftools heap profile reader; the
 * properties checked are those of tests/fuzz/reader.h, and that the input
 * read from a file on three threads (its lines scanned a chunk at a time,
 * formats/heap_chunks.c) gives what the bytes read whole give: the same
 * error, or a profile written as the same pprof bytes.
 * fuzz-runs: 15000 (executions of each scripts/fuzz CI pass: about 10 s) */
#include "tests/fuzz/memfd.h"
#include "tests/fuzz/reader.h"

#include <string.h>

/* P as pprof bytes (caller frees), or its write error's text. */
static char *pprof_of(sp_profile *p, size_t *len)
{
	sp_sink *pb = sp_sink_memory_new();
	sp_error *err = sp_pprof_write(p, false, pb);
	char *s;
	if (err) {
		s = sp_error_string(err);
		*len = strlen(s);
		sp_error_free(err);
	} else {
		const uint8_t *bytes = sp_sink_memory_data(pb, len);
		s = malloc(*len ? *len : 1);
		if (!s)
			SP_FUZZ_FAIL("out of memory");
		memcpy(s, bytes, *len);
	}
	sp_sink_free(pb);
	return s;
}

static void same_on_threads(const uint8_t *data, size_t size)
{
	sp_profile *a = NULL, *b = NULL;
	sp_error *ea = sp_heap_read("fuzz", data, size, &a);
	char path[64];
	int fd = sp_fuzz_memfd(data, size, path);
	FILE *f = fopen(path, "rb");
	close(fd);
	if (!f)
		SP_FUZZ_FAIL("cannot open the memfd");
	sp_read_options ro = {.jobs = 3};
	sp_error *eb = sp_heap_read_file_with("fuzz", f, &ro, &b);
	fclose(f);
	if (!ea != !eb)
		SP_FUZZ_FAIL("read whole and on threads: one fails, the other not");
	size_t la, lb;
	char *sa = ea ? sp_error_string(ea) : pprof_of(a, &la);
	char *sb = eb ? sp_error_string(eb) : pprof_of(b, &lb);
	if (ea)
		la = strlen(sa), lb = strlen(sb);
	if (la != lb || memcmp(sa, sb, la) != 0)
		SP_FUZZ_FAIL("read whole and on threads: not the same");
	free(sa);
	free(sb);
	sp_error_free(ea);
	sp_error_free(eb);
	sp_profile_free(a);
	sp_profile_free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	same_on_threads(data, size);
	return sp_fuzz_reader(sp_heap_read, data, size);
}
