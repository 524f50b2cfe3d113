/* fuzz_decompress.c — libFuzzer harness for common/decompress*.c, the one
 * wrapper of zlib, zstd and xz.  The input's first byte chooses a way, the
 * rest is the compressed data:
 *   0, 1, 2  gzip, xz or zstd decompressed whole (sp_decompress_stream)
 *            under a limit of 64 KiB;
 *   3        a zlib stream decompressed lazily (sp_lazy) to a size given by
 *            the next two bytes, first a third of it, then all;
 *   4        a zlib or zstd (the next byte's low bit) section of a size given
 *            by the two bytes after, checked then decompressed whole;
 *   5        a zstd stream pulled (sp_decoder) in chunks of the next byte's
 *            size + 1, each chunk under a limit of 16 KiB.
 * Checked: never more output than the limit (the bomb rule); an end inside
 * the input; lazy data made as far as asked, or an error before there;
 * every error formats.  Seeds (tests/fuzz/seeds/decompress/, written by
 * tests/fuzz/decompress_seeds.py): a short text in each way, and a gzip
 * bomb (1 MiB of zeros in 1 KiB).
 * fuzz-runs: 20000 (executions of each scripts/fuzz CI pass: about 10 s) */
#include "common/common.h"
#include "tests/fuzz/check.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define LIMIT ((size_t)64 << 10)
#define CHUNK_LIMIT ((size_t)16 << 10)

static sp_error *count(void *ctx, const uint8_t *p, size_t n)
{
	(void)p;
	*(size_t *)ctx += n;
	return NULL;
}

static void whole(sp_codec codec, const uint8_t *in, size_t n)
{
	sp_decompress_limit lim = {.name = "in", .limit = LIMIT, .why = "the harness's"};
	uint8_t buf[4096];
	size_t made = 0;
	sp_decompress_end end;
	sp_error *e =
		sp_decompress_stream(codec, &lim, in, n, buf, sizeof(buf), count, &made, &end);
	if (made > LIMIT)
		SP_FUZZ_FAIL("%zu bytes handed on, more than the limit", made);
	if (e)
		sp_fuzz_check_error(e);
	else if (end.at > n)
		SP_FUZZ_FAIL("ends at byte %zu of %zu", end.at, n);
	else if ((end.status == SP_DZ_CORRUPT || end.status == SP_DZ_TRAILING) && !end.msg)
		SP_FUZZ_FAIL("damaged data without words");
}

static void lazy(const uint8_t *in, size_t n)
{
	if (n < 2)
		return;
	size_t size = (size_t)(in[0] | in[1] << 8) + 1;
	sp_lazy *z = sp_lazy_new(SP_CODEC_ZLIB, in + 2, n - 2, size);
	if (!z)
		return;
	bool ok = sp_lazy_need(z, size / 3);
	if (ok && sp_lazy_valid(z) < size / 3)
		SP_FUZZ_FAIL("asked for %zu bytes, %zu made", size / 3, sp_lazy_valid(z));
	/* true: all of it made (a fault after its end may be known too) */
	ok = sp_lazy_need(z, size);
	if (ok ? sp_lazy_valid(z) != size : !sp_lazy_error(z) || sp_lazy_valid(z) >= size)
		SP_FUZZ_FAIL("need says %d with %zu of %zu bytes made", ok, sp_lazy_valid(z), size);
	sp_lazy_free(z);
}

static void sized(const uint8_t *in, size_t n)
{
	if (n < 3)
		return;
	sp_codec codec = in[0] & 1 ? SP_CODEC_ZSTD : SP_CODEC_ZLIB;
	size_t size = (size_t)(in[1] | in[2] << 8);
	sp_decompress_limit lim = {.name = "in"};
	sp_error *e = sp_decompress_check_size(codec, &lim, in + 3, n - 3, size);
	if (e) {
		sp_fuzz_check_error(e);
		return;
	}
	void *buf = sp_xmalloc(size ? size : 1);
	const char *why = sp_decompress_sized(codec, in + 3, n - 3, buf, size);
	if (why && !*why)
		SP_FUZZ_FAIL("damaged data without words");
	free(buf);
}

static void pulled(const uint8_t *in, size_t n)
{
	if (n < 1)
		return;
	size_t chunk = (size_t)in[0] + 1;
	sp_decompress_limit lim = {
		.name = "in", .what = "chunk", .limit = CHUNK_LIMIT, .why = "the harness's"};
	sp_decoder *d;
	sp_error *e = sp_decoder_new(SP_CODEC_ZSTD, &lim, &d);
	if (e) {
		sp_fuzz_check_error(e);
		return;
	}
	uint8_t out[4096];
	for (size_t at = 1; at < n && !e;) {
		const uint8_t *p = in + at;
		size_t left = n - at < chunk ? n - at : chunk, made = 0, got;
		at += left;
		lim.base = at - left;
		sp_decoder_limit(d, &lim);
		sp_decode_status st = SP_DECODE_MORE;
		do {
			e = sp_decoder_run(d, &p, &left, out, sizeof(out), &got, &st);
			made += got;
		} while (!e && st != SP_DECODE_BAD && (left || got == sizeof(out)));
		if (made > CHUNK_LIMIT + 1)
			SP_FUZZ_FAIL("a chunk gave %zu bytes, more than one past the limit", made);
		if (st == SP_DECODE_BAD)
			break;
	}
	(void)sp_decoder_may_end(d);
	if (e)
		sp_fuzz_check_error(e);
	sp_decoder_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	const uint8_t *in = data + 1;
	size_t n = size - 1;
	switch (data[0] % 6) {
	case 0:
		whole(SP_CODEC_GZIP, in, n);
		break;
	case 1:
		whole(SP_CODEC_XZ, in, n);
		break;
	case 2:
		whole(SP_CODEC_ZSTD, in, n);
		break;
	case 3:
		lazy(in, n);
		break;
	case 4:
		sized(in, n);
		break;
	default:
		pulled(in, n);
		break;
	}
	return 0;
}
