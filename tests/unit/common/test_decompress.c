/* test_decompress.c — common/decompress*.c, the one wrapper of zlib, zstd and
 * xz.  The data are made here with the libraries' own compressors, from
 * bytes that follow from their offset (byte i is (i * 7 + i / 4096) & 0xff),
 * so every decompressed byte can be checked:
 *   - lazy: a zlib stream decompressed only as far as it is asked for, the
 *     untouched rest reading as zeros; damaged and cut streams;
 *   - sized: a zlib or zstd section of known size, and the sizes a header
 *     may not claim (more than the codec can give, more than the memory
 *     limit: the bomb rule);
 *   - streamed whole: gzip members, xz streams with padding, zstd frames,
 *     one after the other, cut, damaged or followed by junk (where each
 *     ends), and the bomb rule's error with the offset where it stopped;
 *   - pulled: a zstd stream flushed after each chunk (as perf record -z
 *     writes it), fed a chunk at a time, each with its own limit;
 *   - windows: a zstd frame whose window is larger than a quarter of the
 *     memory limit is refused.
 */
#include "common/common.h"
#include "tests/helpers/tap.h"

#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#define SIZE ((size_t)1 << 20)

static unsigned char byte_at(size_t i)
{
	return (unsigned char)((i * 7 + i / 4096) & 0xff);
}

/* Whether the first N bytes of P are the data's and the rest of its SIZE
 * bytes zeros. */
static bool check(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < SIZE; i++)
		if (p[i] != (i < n ? byte_at(i) : 0))
			return false;
	return true;
}

static void lazy(const unsigned char *z, size_t zn)
{
	/* asked for a little: at least that, far from all of it */
	sp_lazy *s = sp_lazy_new(SP_CODEC_ZLIB, z, zn, SIZE);
	TAP_OK(s != NULL, "lazy: a zlib stream is taken");
	TAP_EQ_U64(sp_lazy_valid(s), 0, "lazy: nothing decompressed before it is asked for");
	TAP_OK(sp_lazy_need(s, 100), "lazy: the first 100 bytes");
	size_t v = sp_lazy_valid(s);
	TAP_OK(v >= 100 && v < SIZE / 2, "lazy: up to 100 bytes and a step, not more (%zu)", v);
	TAP_OK(check(sp_lazy_data(s), v), "lazy: the bytes made are the data's, the rest zeros");
	TAP_OK(sp_lazy_need(s, 50) && sp_lazy_valid(s) == v, "lazy: a second, smaller need is free");
	TAP_OK(sp_lazy_need(s, 700000), "lazy: up to byte 700000");
	v = sp_lazy_valid(s);
	TAP_OK(v >= 700000 && check(sp_lazy_data(s), v), "lazy: up to byte 700000: right bytes (%zu)",
	       v);
	TAP_OK(sp_lazy_need(s, SIZE * 2), "lazy: past the end: the whole data");
	TAP_EQ_U64(sp_lazy_valid(s), SIZE, "lazy: the whole data decompressed");
	TAP_OK(check(sp_lazy_data(s), SIZE), "lazy: the whole data: right bytes");
	TAP_OK(sp_lazy_error(s) == NULL, "lazy: no error");
	sp_lazy_free(s);
	TAP_OK(sp_lazy_new(SP_CODEC_ZLIB, (const uint8_t *)"plain bytes", 11, SIZE) == NULL,
	       "lazy: plain bytes are no zlib stream");

	/* cut short: the first half decompresses, then an error */
	s = sp_lazy_new(SP_CODEC_ZLIB, z, zn / 2, SIZE);
	TAP_OK(s && sp_lazy_need(s, 1000), "lazy: a stream cut in half: its start decompresses");
	TAP_OK(s && !sp_lazy_need(s, SIZE), "lazy: a stream cut in half: not all of it");
	TAP_EQ_STR(sp_lazy_error(s), "cut short", "lazy: a stream cut in half: cut short");
	TAP_OK(s && !sp_lazy_need(s, SIZE) && sp_lazy_valid(s) < SIZE,
	       "lazy: the failure stays, what was decompressed stays valid");
	sp_lazy_free(s);

	/* damaged in the middle: the start is right, the error comes where it is */
	unsigned char *bad = malloc(zn);
	memcpy(bad, z, zn);
	for (size_t i = zn / 2; i < zn / 2 + 64; i++)
		bad[i] = 0xff;
	s = sp_lazy_new(SP_CODEC_ZLIB, bad, zn, SIZE);
	TAP_OK(s && sp_lazy_need(s, 1000) && check(sp_lazy_data(s), sp_lazy_valid(s)),
	       "lazy: a stream damaged in the middle: its start is right");
	bool failed = s && !sp_lazy_need(s, SIZE);
	const char *why = s ? sp_lazy_error(s) : NULL;
	TAP_OK(failed && why && sp_lazy_valid(s) < SIZE,
	       "lazy: a stream damaged in the middle: an error before its end (%s)",
	       why ? why : "none");
	sp_lazy_free(s);
	sp_lazy_free(NULL);
	TAP_OK(sp_lazy_need(NULL, 5), "lazy: no data: nothing to do");
	free(bad);
}

static void sized(const unsigned char *plain, const unsigned char *z, size_t zn)
{
	unsigned char *out = malloc(SIZE);
	TAP_OK(sp_decompress_sized(SP_CODEC_ZLIB, z, zn, out, SIZE) == NULL &&
		       !memcmp(out, plain, SIZE),
	       "sized: a zlib stream whole");
	TAP_EQ_STR(sp_decompress_sized(SP_CODEC_ZLIB, z, zn, out, SIZE + 1),
		   "less data than the header says", "sized: a header claiming a byte more");
	TAP_EQ_STR(sp_decompress_sized(SP_CODEC_ZLIB, z, zn, out, SIZE - 1),
		   "more data than the header says", "sized: a header claiming a byte less");
	TAP_EQ_STR(sp_decompress_sized(SP_CODEC_ZLIB, plain, 16, out, SIZE), "not a zlib stream",
		   "sized: plain bytes are no zlib stream");
	size_t cap = ZSTD_compressBound(SIZE);
	unsigned char *zs = malloc(cap);
	size_t zsn = ZSTD_compress(zs, cap, plain, SIZE, 3);
	memset(out, 0, SIZE);
	TAP_OK(!ZSTD_isError(zsn) && sp_decompress_sized(SP_CODEC_ZSTD, zs, zsn, out, SIZE) == NULL &&
		       !memcmp(out, plain, SIZE),
	       "sized: a zstd frame whole");
	TAP_OK(sp_decompress_sized(SP_CODEC_ZSTD, zs, zsn, out, SIZE - 1) != NULL,
	       "sized: a zstd frame larger than its buffer is refused");

	/* what a header may claim */
	sp_decompress_limit lim = {.name = "f: section .debug_info"};
	sp_error *e = sp_decompress_check_size(SP_CODEC_ZLIB, &lim, z, zn, SIZE);
	TAP_OK(e == NULL, "check: the size a zlib header gives");
	sp_error_free(e);
	e = sp_decompress_check_size(SP_CODEC_ZLIB, &lim, z, 10, 4096 + 10 * 1032 + 1);
	char *msg = e ? sp_error_string(e) : NULL;
	TAP_EQ_STR(msg, "f: section .debug_info: header says 14417 bytes inflated, more than 10 "
			"compressed zlib bytes can hold",
		   "check: more than deflate's densest encoding gives");
	free(msg);
	sp_error_free(e);
	e = sp_decompress_check_size(SP_CODEC_ZSTD, &lim, zs, zsn, SIZE + 1);
	msg = e ? sp_error_string(e) : NULL;
	TAP_EQ_STR(msg, "f: section .debug_info: not a zstd frame of the 1048577 bytes its header "
			"says",
		   "check: a zstd frame of another size");
	free(msg);
	sp_error_free(e);
	/* the bomb rule: beyond the memory limit, before anything is allocated */
	sp_mem_set_limit((size_t)64 << 20);
	e = sp_decompress_check_size(SP_CODEC_ZLIB, &lim, z, (size_t)1 << 20, (uint64_t)100 << 20);
	msg = e ? sp_error_string(e) : NULL;
	TAP_EQ_STR(msg, "f: section .debug_info: offset 0: zlib data decompresses to more than "
			"64 MiB (the memory limit, --max-memory): its header says 104857600 bytes",
		   "check: more than the memory limit");
	TAP_OK(e && e->code == SP_E_LIMIT, "check: ... a limit error");
	free(msg);
	sp_error_free(e);
	sp_mem_set_limit(0);
	free(zs);
	free(out);
}

/* -- streamed whole -------------------------------------------------------------- */

static sp_error *put(void *ctx, const uint8_t *data, size_t n)
{
	sp_buf_append(ctx, data, n);
	return NULL;
}

/* Decompresses IN whole with LIMIT (0: none): the error as a string
 * (NULL: none), the output in *OUT, how it ended in *END. */
static char *whole(sp_codec codec, const uint8_t *in, size_t len, uint64_t limit, sp_buf *out,
		   sp_decompress_end *end)
{
	sp_decompress_limit lim = {.name = "in", .limit = limit, .why = "the test's limit"};
	uint8_t buf[4096];
	sp_buf_free(out);
	sp_error *e = sp_decompress_stream(codec, &lim, in, len, buf, sizeof(buf), put, out, end);
	char *s = e ? sp_error_string(e) : NULL;
	sp_error_free(e);
	return s;
}

/* Whether OUT holds N1 bytes of the data then N2 more from its start. */
static bool two_copies(const sp_buf *out, size_t n1, size_t n2)
{
	if (out->len != n1 + n2)
		return false;
	for (size_t i = 0; i < n1 + n2; i++)
		if ((uint8_t)out->data[i] != byte_at(i < n1 ? i : i - n1))
			return false;
	return true;
}

/* gzip members of the first N bytes of PLAIN (gzip, window bits 15 + 16) */
static size_t gzip_of(const unsigned char *plain, size_t n, unsigned char *out, size_t cap)
{
	z_stream s;
	memset(&s, 0, sizeof(s));
	if (deflateInit2(&s, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return 0;
	s.next_in = (Bytef *)plain;
	s.avail_in = (uInt)n;
	s.next_out = out;
	s.avail_out = (uInt)cap;
	int rc = deflate(&s, Z_FINISH);
	size_t got = cap - s.avail_out;
	deflateEnd(&s);
	return rc == Z_STREAM_END ? got : 0;
}

static void streams_gzip(const unsigned char *plain)
{
	size_t cap = 2 * SIZE;
	unsigned char *g = malloc(2 * cap + 64);
	size_t a = gzip_of(plain, SIZE, g, cap), b = gzip_of(plain, 1000, g + a, cap);
	sp_buf out = {0};
	sp_decompress_end end;
	char *e = whole(SP_CODEC_GZIP, g, a + b, 0, &out, &end);
	TAP_OK(!e && end.status == SP_DZ_END && two_copies(&out, SIZE, 1000),
	       "gzip: two members, both whole");
	e = whole(SP_CODEC_GZIP, g, a + b - 5, 0, &out, &end);
	TAP_OK(!e && end.status == SP_DZ_CUT && end.at == a + b - 5,
	       "gzip: cut in its trailer: at its end (%zu)", end.at);
	memcpy(g + a + b, "junk", 4);
	e = whole(SP_CODEC_GZIP, g, a + b + 4, 0, &out, &end);
	TAP_OK(!e && end.status == SP_DZ_TRAILING && end.at == a + b &&
		       !strcmp(end.msg, "what follows the gzip data is not another gzip member"),
	       "gzip: junk after the last member: where it begins (%zu)", end.at);
	e = whole(SP_CODEC_GZIP, g, a + b, 100000, &out, &end);
	bool shape = e && !strncmp(e, "in: offset ", 11) &&
		     strstr(e, ": gzip data decompresses to more than 100000 bytes (the test's "
			       "limit)");
	unsigned long at = e ? strtoul(e + 11, NULL, 10) : 0;
	TAP_OK(shape && at > 0 && at < a, "gzip: the bomb rule: %s", e ? e : "no error");
	TAP_OK(out.len <= 100000, "gzip: ... not a byte past the limit handed on (%zu)", out.len);
	free(e);
	uint8_t *plain_out;
	size_t plen;
	sp_error *ge = sp_gunzip("p.gz", g, a, 1000, &plain_out, &plen);
	char *gs = ge ? sp_error_string(ge) : NULL;
	TAP_OK(gs && strstr(gs, "gzip data decompresses to more than 1000 bytes (the most a "
				"decompressed input may hold)"),
	       "sp_gunzip: the bomb rule: %s", gs ? gs : "no error");
	free(gs);
	sp_error_free(ge);
	sp_buf_free(&out);
	free(g);
}

static void streams_xz(const unsigned char *plain)
{
	size_t cap = lzma_stream_buffer_bound(SIZE) * 2 + 64, a = 0, b;
	unsigned char *x = malloc(cap);
	if (lzma_easy_buffer_encode(1, LZMA_CHECK_CRC64, NULL, plain, SIZE, x, &a, cap) !=
	    LZMA_OK) {
		TAP_OK(0, "xz: data made");
		free(x);
		return;
	}
	memset(x + a, 0, 8); /* stream padding: a multiple of four zeros */
	b = a + 8;
	lzma_easy_buffer_encode(1, LZMA_CHECK_CRC64, NULL, plain, 1000, x, &b, cap);
	sp_buf out = {0};
	sp_decompress_end end;
	char *e = whole(SP_CODEC_XZ, x, b, 0, &out, &end);
	TAP_OK(!e && end.status == SP_DZ_END && two_copies(&out, SIZE, 1000),
	       "xz: two streams with padding between, both whole");
	/* three zeros are no padding */
	memmove(x + a + 3, x + a + 8, b - a - 8);
	e = whole(SP_CODEC_XZ, x, b - 5, 0, &out, &end);
	TAP_OK(!e && end.status == SP_DZ_TRAILING && end.at == a,
	       "xz: three zeros after a stream: where the stream ends (%zu)", end.at);
	e = whole(SP_CODEC_XZ, x, a / 2, 0, &out, &end);
	TAP_OK(!e && end.status == SP_DZ_CUT && end.at == a / 2, "xz: cut: at its end (%zu)",
	       end.at);
	e = whole(SP_CODEC_XZ, x, a, 5000, &out, &end);
	TAP_OK(e && strstr(e, ": xz data decompresses to more than 5000 bytes (the test's limit)"),
	       "xz: the bomb rule: %s", e ? e : "no error");
	free(e);
	sp_buf_free(&out);
	free(x);
}

static void streams_zstd(const unsigned char *plain)
{
	size_t cap = ZSTD_compressBound(SIZE) + ZSTD_compressBound(1000);
	unsigned char *z = malloc(cap);
	size_t a = ZSTD_compress(z, cap, plain, SIZE, 3);
	size_t b = a + ZSTD_compress(z + a, cap - a, plain, 1000, 3);
	sp_buf out = {0};
	sp_decompress_end end;
	char *e = whole(SP_CODEC_ZSTD, z, b, 0, &out, &end);
	TAP_OK(!e && end.status == SP_DZ_END && two_copies(&out, SIZE, 1000),
	       "zstd: two frames, both whole");
	e = whole(SP_CODEC_ZSTD, z, a + (b - a) / 2, 0, &out, &end);
	TAP_OK(!e && end.status == SP_DZ_CUT && end.at == a + (b - a) / 2,
	       "zstd: the second frame cut: at its end (%zu)", end.at);
	z[a] ^= 0xff; /* the second frame's magic */
	e = whole(SP_CODEC_ZSTD, z, b, 0, &out, &end);
	TAP_OK(!e && end.status == SP_DZ_CORRUPT && end.at == a,
	       "zstd: the second frame damaged: at that frame (%zu, %s)", end.at,
	       end.msg ? end.msg : "");
	e = whole(SP_CODEC_ZSTD, z, a, 70000, &out, &end);
	TAP_OK(e && strstr(e, ": zstd data decompresses to more than 70000 bytes (the test's limit)"),
	       "zstd: the bomb rule: %s", e ? e : "no error");
	free(e);
	/* the memory limit, when less than the caller's */
	sp_mem_set_limit((size_t)64 << 20);
	e = whole(SP_CODEC_ZSTD, z, a, (uint64_t)1 << 40, &out, &end);
	TAP_OK(!e && out.len == SIZE, "zstd: within both limits");
	free(e);
	sp_mem_set_limit(0);
	sp_buf_free(&out);
	free(z);
}

/* -- pulled ---------------------------------------------------------------------- */

/* A zstd stream of the data in chunks of CHUNK bytes, flushed after each and
 * never ended (perf record -z): *ENDS gets where each chunk's output ends. */
static size_t flushed_stream(const unsigned char *plain, size_t chunk, unsigned char *out,
			     size_t cap, size_t *ends, size_t n_chunks)
{
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 1);
	ZSTD_outBuffer ob = {out, cap, 0};
	for (size_t i = 0; i < n_chunks; i++) {
		ZSTD_inBuffer ib = {plain + i * chunk, chunk, 0};
		size_t left;
		do
			left = ZSTD_compressStream2(cc, &ob, &ib, ZSTD_e_flush);
		while (left && !ZSTD_isError(left));
		ends[i] = ob.pos;
	}
	ZSTD_freeCCtx(cc);
	return ob.pos;
}

static void pulled(const unsigned char *plain)
{
	enum { CHUNK = 65536, N = 8 };
	size_t ends[N], cap = ZSTD_compressBound(SIZE);
	unsigned char *z = malloc(cap);
	flushed_stream(plain, CHUNK, z, cap, ends, N);
	sp_decoder *d;
	sp_decompress_limit lim = {.name = "in", .what = "chunk", .limit = CHUNK,
				   .why = "a chunk's size"};
	sp_error *e = sp_decoder_new(SP_CODEC_ZSTD, &lim, &d);
	TAP_OK(!e && d, "pull: a zstd decoder");
	uint8_t *out = malloc(SIZE), *o = out;
	bool whole = true, ends_ok = true;
	for (size_t i = 0; i < N && d; i++) {
		const uint8_t *in = z + (i ? ends[i - 1] : 0);
		size_t n = ends[i] - (i ? ends[i - 1] : 0), got;
		lim.base = (size_t)(in - z);
		sp_decoder_limit(d, &lim);
		sp_decode_status st = SP_DECODE_MORE;
		while (!e && (n || got == sp_decoder_out_size(d)) && st != SP_DECODE_BAD) {
			e = sp_decoder_run(d, &in, &n, o, sp_decoder_out_size(d), &got, &st);
			o += got;
		}
		whole &= !e && st != SP_DECODE_BAD;
		ends_ok &= sp_decoder_may_end(d);
	}
	TAP_OK(whole && (size_t)(o - out) == N * CHUNK && !memcmp(out, plain, N * CHUNK),
	       "pull: eight flushed chunks, each within its limit, give the data");
	TAP_OK(ends_ok, "pull: after each chunk the stream may end");
	sp_decoder_free(d);

	/* the first chunk with a limit of less than it gives */
	lim = (sp_decompress_limit){.name = "in", .what = "COMPRESSED record", .base = 100,
				    .limit = 1000, .why = "the record's limit"};
	sp_decoder_new(SP_CODEC_ZSTD, &lim, &d);
	const uint8_t *in = z;
	size_t n = ends[0], got;
	sp_decode_status st;
	e = sp_decoder_run(d, &in, &n, out, SIZE, &got, &st);
	char *msg = e ? sp_error_string(e) : NULL;
	TAP_OK(msg && strstr(msg, ": COMPRESSED record decompresses to more than 1000 bytes (the "
				  "record's limit)") && got <= 1001,
	       "pull: the bomb rule, one byte past the limit at most (%zu): %s", got,
	       msg ? msg : "no error");
	free(msg);
	sp_error_free(e);
	sp_decoder_free(d);
	/* a chunk cut inside a block: the stream may not end there */
	sp_decoder_new(SP_CODEC_ZSTD, &lim, &d);
	lim.limit = 0;
	sp_decoder_limit(d, &lim);
	in = z;
	n = ends[0] / 2;
	do
		e = sp_decoder_run(d, &in, &n, out, SIZE, &got, &st);
	while (!e && n && st == SP_DECODE_MORE);
	TAP_OK(!e && !sp_decoder_may_end(d), "pull: cut inside a block, it may not end there");
	sp_decoder_free(d);
	free(out);
	free(z);
}

/* A frame whose window is larger than a quarter of the memory limit. */
static void windows(const unsigned char *plain)
{
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	ZSTD_CCtx_setParameter(cc, ZSTD_c_windowLog, 25); /* 32 MiB */
	size_t cap = ZSTD_compressBound(SIZE);
	unsigned char *z = malloc(cap);
	ZSTD_outBuffer ob = {z, cap, 0};
	ZSTD_inBuffer ib = {plain, SIZE, 0};
	ZSTD_compressStream2(cc, &ob, &ib, ZSTD_e_flush); /* size not known: the window stays */
	ib = (ZSTD_inBuffer){plain, 0, 0};
	while (ZSTD_compressStream2(cc, &ob, &ib, ZSTD_e_end) > 0)
		;
	ZSTD_freeCCtx(cc);
	sp_buf out = {0};
	sp_decompress_end end;
	char *e = whole(SP_CODEC_ZSTD, z, ob.pos, 0, &out, &end);
	TAP_OK(!e && end.status == SP_DZ_END && out.len == SIZE,
	       "window: 32 MiB without a memory limit");
	sp_mem_set_limit((size_t)64 << 20);
	e = whole(SP_CODEC_ZSTD, z, ob.pos, 0, &out, &end);
	TAP_OK(!e && end.status == SP_DZ_CORRUPT && out.len == 0,
	       "window: 32 MiB, more than a quarter of a 64 MiB limit: refused (%s)",
	       end.msg ? end.msg : "");
	sp_mem_set_limit(0);
	free(e);
	sp_buf_free(&out);
	free(z);
}

int main(void)
{
	unsigned char *plain = malloc(SIZE);
	for (size_t i = 0; i < SIZE; i++)
		plain[i] = byte_at(i);
	uLongf zn = compressBound(SIZE);
	unsigned char *z = malloc(zn);
	if (compress2(z, &zn, plain, SIZE, 6) != Z_OK)
		return 99;
	lazy(z, zn);
	sized(plain, z, zn);
	streams_gzip(plain);
	streams_xz(plain);
	streams_zstd(plain);
	pulled(plain);
	windows(plain);
	TAP_EQ_U64(sp_codec_sniff(z, zn), SP_CODEC_NONE, "sniff: a zlib stream has no magic");
	TAP_EQ_STR(sp_codec_name(SP_CODEC_XZ), "xz", "codec names");
	free(z);
	free(plain);
	return tap_done();
}
