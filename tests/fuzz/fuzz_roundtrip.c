/* fuzz_roundtrip.c — libFuzzer harness for the pprof writer: the input is
 * read as pprof (protobuf, or gzip around it); when the reader accepts it
 * and the writer does too (it refuses strings with a NUL byte, with an
 * error), the bytes written are read back, and the two profiles must have
 * the same canonical dump (sp_profile_dump); writing the second
 * one must give the same bytes again.  Anything else aborts.  Its seeds
 * (tests/fuzz/seeds/roundtrip/) are the uncompressed pprof conversions of
 * testdata/profiles/.
 * fuzz-runs: 120000 (executions of each scripts/fuzz CI pass: about 10 s) */
#include "formats/formats.h"
#include "tests/fuzz/check.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void drop(sp_error *err)
{
	char *m = sp_error_string(err); /* every error must format */
	free(m);
	sp_error_free(err);
}

/* P's canonical dump (newly allocated, NUL-terminated) and its length. */
static char *dump(const sp_profile *p, size_t *len)
{
	sp_sink *s = sp_sink_memory_new();
	sp_profile_dump(p, s);
	const uint8_t *d = sp_sink_memory_data(s, len);
	char *copy = sp_xstrndup((const char *)d, *len);
	sp_sink_free(s);
	return copy;
}

/* P written as pprof (uncompressed), or NULL when the writer refuses it
 * with an error that formats (a string with a NUL byte in it, which the
 * reader keeps and protobuf-c cannot write). */
static uint8_t *write_pprof(const sp_profile *p, size_t *len)
{
	sp_sink *s = sp_sink_memory_new();
	sp_error *err = sp_pprof_write(p, false, s);
	uint8_t *copy = NULL;
	if (err) {
		drop(err);
	} else {
		const uint8_t *d = sp_sink_memory_data(s, len);
		copy = sp_xmalloc(*len ? *len : 1);
		memcpy(copy, d, *len);
	}
	sp_sink_free(s);
	return copy;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sp_profile *p = NULL;
	sp_error *err = sp_pprof_read("fuzz", data, size, &p);
	if (err) {
		drop(err);
		return 0;
	}
	size_t n1, n2, d1, d2;
	uint8_t *bytes = write_pprof(p, &n1);
	if (!bytes) {
		sp_profile_free(p);
		return 0;
	}
	sp_profile *q = NULL;
	if ((err = sp_pprof_read("again", bytes, n1, &q)))
		SP_FUZZ_FAIL("what we write, we must read");
	char *a = dump(p, &d1), *b = dump(q, &d2);
	if (d1 != d2 || memcmp(a, b, d1) != 0)
		SP_FUZZ_FAIL("the round trip changed the profile");
	uint8_t *again = write_pprof(q, &n2);
	if (!again || n1 != n2 || memcmp(bytes, again, n1) != 0)
		SP_FUZZ_FAIL("the same profile, other bytes");
	free(a);
	free(b);
	free(bytes);
	free(again);
	sp_profile_free(p);
	sp_profile_free(q);
	return 0;
}
