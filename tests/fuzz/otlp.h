/* otlp.h — the body of the OTLP readers' fuzz harnesses (fuzz_otlp.c for
 * protobuf, fuzz_otlp_json.c for OTLP/JSON).
 *
 * An input either fails with an error that formats (and leaves no profile),
 * or is a profile with reader.h's properties; then what the reader made of
 * it is written as OTLP protobuf, gzipped, and as OTLP/JSON, and each is
 * read back: the canonical dump (the model and its OpenTelemetry extras)
 * must be the same every time, and writing the profile read back must give
 * the same bytes again.  Anything else aborts. */
#ifndef SYMPROF_FUZZ_OTLP_H
#define SYMPROF_FUZZ_OTLP_H

#include "tests/fuzz/reader.h"

#include <string.h>

static char *sp_fuzz_otlp_dump(const sp_profile *p, size_t *len)
{
	sp_sink *s = sp_sink_memory_new();
	sp_profile_dump(p, s);
	const uint8_t *d = sp_sink_memory_data(s, len);
	char *copy = sp_xstrndup((const char *)d, *len);
	sp_sink_free(s);
	return copy;
}

/* P written in ENC (NULL when the writer refuses it with an error). */
static uint8_t *sp_fuzz_otlp_write(const sp_profile *p, sp_otlp_encoding enc, size_t *len)
{
	sp_sink *s = sp_sink_memory_new();
	sp_error *err = sp_otlp_write(p, enc, s);
	uint8_t *copy = NULL;
	if (err) {
		sp_fuzz_drop(err);
	} else {
		const uint8_t *d = sp_sink_memory_data(s, len);
		copy = sp_xmalloc(*len ? *len : 1);
		memcpy(copy, d, *len);
	}
	sp_sink_free(s);
	return copy;
}

static void sp_fuzz_otlp_again(const sp_profile *p, const char *want, size_t want_len,
			       sp_otlp_encoding enc)
{
	size_t n;
	uint8_t *bytes = sp_fuzz_otlp_write(p, enc, &n);
	if (!bytes)
		return;
	sp_profile *q = NULL;
	sp_error *err = sp_otlp_read("again", bytes, n, &q);
	if (err) {
		char *m = sp_error_string(err);
		SP_FUZZ_FAIL("what we write as OTLP (%d), we must read: %s", (int)enc, m);
	}
	size_t dl;
	char *d = sp_fuzz_otlp_dump(q, &dl);
	if (dl != want_len || memcmp(d, want, dl))
		SP_FUZZ_FAIL("OTLP (%d) read back is not what was written", (int)enc);
	if (enc == SP_OTLP_PROTO) {
		size_t n2;
		uint8_t *again = sp_fuzz_otlp_write(q, enc, &n2);
		if (!again || n2 != n || memcmp(again, bytes, n))
			SP_FUZZ_FAIL("writing what was read back gives other bytes");
		free(again);
	}
	free(d);
	sp_profile_free(q);
	free(bytes);
}

static int sp_fuzz_otlp(const uint8_t *data, size_t size)
{
	sp_fuzz_reader(sp_otlp_read, data, size);
	sp_profile *p = NULL;
	sp_error *err = sp_otlp_read("fuzz", data, size, &p);
	if (err) {
		sp_fuzz_drop(err);
		return 0;
	}
	size_t dl;
	char *d = sp_fuzz_otlp_dump(p, &dl);
	sp_fuzz_otlp_again(p, d, dl, SP_OTLP_PROTO);
	sp_fuzz_otlp_again(p, d, dl, SP_OTLP_PROTO_GZ);
	sp_fuzz_otlp_again(p, d, dl, SP_OTLP_JSON);
	free(d);
	sp_profile_free(p);
	return 0;
}

#endif
