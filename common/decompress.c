/* decompress.c — the one wrapper of zlib, zstd and xz: the rules every
 * decompression follows, whoever asks and whatever the codec.
 *
 *   whole     sp_gunzip (gzip profiles), sp_decompress_sized (a section of
 *             known size);
 *   streamed  sp_decompress_stream (whole-file streams pushed to the
 *             caller: kernel modules into a memory file), sp_decoder
 *             (pulled a step at a time: perf.data's COMPRESSED records);
 *   lazy      sp_lazy (.debug_info and .debug_line inflated only as far as
 *             they are read).
 *
 * The bomb rule: output is bounded by the caller's limit and by the memory
 * limit, whichever is less, and passing it is one error naming the input,
 * the byte where decoding stopped and the limit.  Decoders' windows are
 * bounded by a quarter of the memory limit, and everything a decoder
 * allocates goes through the budget.  The rules are decompress_rules.c's,
 * the libraries' calls in one file per codec (decompressp.h); this file
 * calls those, never the other way.
 */
#include "common/decompressp.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

/* -- whole input ---------------------------------------------------------------- */

sp_error *sp_decompress_stream(sp_codec codec, const sp_decompress_limit *lim, const uint8_t *in,
			       size_t len, uint8_t *buf, size_t buf_size, sp_decompress_put *put,
			       void *ctx, sp_decompress_end *end)
{
	sp_dz_push p = {.lim = lim,
			.codec = codec,
			.in = in,
			.len = len,
			.buf = buf,
			.buf_size = buf_size,
			.put = put,
			.ctx = ctx,
			.end = end};
	p.bound = sp_dz_bound(lim, &p.why);
	*end = (sp_decompress_end){.status = SP_DZ_CUT};
	switch (codec) {
	case SP_CODEC_GZIP:
		return sp_dz_gzip_push(&p);
	case SP_CODEC_XZ:
		return sp_dz_xz_push(&p);
	case SP_CODEC_ZSTD:
		return sp_dz_zstd_push(&p);
	default:
		return sp_error_new(SP_E_UNSUPPORTED, "%s: %s data cannot be read as a stream",
				    lim->name, sp_codec_name(codec));
	}
}

static sp_error *put_buf(void *ctx, const uint8_t *data, size_t n)
{
	sp_buf_append(ctx, data, n);
	return NULL;
}

sp_error *sp_gunzip(const char *name, const uint8_t *in, size_t len, size_t max, uint8_t **out,
		    size_t *outlen)
{
	*out = NULL;
	*outlen = 0;
	sp_decompress_limit lim = {
		.name = name, .limit = max, .why = "the most a decompressed input may hold"};
	sp_buf b = {0};
	uint8_t chunk[65536];
	sp_decompress_end end;
	sp_error *err = sp_decompress_stream(SP_CODEC_GZIP, &lim, in, len, chunk, sizeof(chunk),
					     put_buf, &b, &end);
	if (!err && end.status == SP_DZ_CORRUPT)
		err = sp_error_new(SP_E_ZLIB, "%s: offset %zu: corrupt gzip data (%s)", name,
				   end.at, end.msg);
	else if (!err && end.status == SP_DZ_CUT)
		err = sp_error_new(SP_E_ZLIB,
				   "%s: offset %zu: truncated gzip data (expected end of stream)",
				   name, end.at);
	else if (!err && end.status == SP_DZ_TRAILING)
		err = sp_error_new(SP_E_ZLIB,
				   "%s: offset %zu: %zu bytes after the end of the gzip data, not "
				   "another gzip member",
				   name, end.at, len - end.at);
	if (err) {
		sp_buf_free(&b);
		return err;
	}
	sp_buf_str(&b);
	*outlen = b.len;
	*out = (uint8_t *)sp_buf_take(&b);
	return NULL;
}

sp_error *sp_decompress_check_size(sp_codec codec, const sp_decompress_limit *lim,
				   const uint8_t *src, size_t n, uint64_t size)
{
	uint64_t want;
	bool known;
	if (codec == SP_CODEC_ZSTD &&
	    (!sp_dz_zstd_content_size(src, n, &want, &known) || (known && want != size)))
		return sp_error_new(SP_E_MALFORMED,
				    "%s: not a zstd frame of the %" PRIu64 " bytes its header says",
				    lim->name, size);
	/* Neither format can inflate without bound: deflate's densest encoding gives
	 * 258 bytes per 2 bits (1032:1, RFC 1951 3.2.5), zstd's an RLE block of up to
	 * 128 KiB per 4-byte block (RFC 8878 3.1.1.2).  A header claiming more is a
	 * lie, and is refused before any allocation. */
	uint64_t ratio = codec == SP_CODEC_ZSTD ? 32768 : 1032;
	if (size > 4096 + (uint64_t)n * ratio)
		return sp_error_new(SP_E_MALFORMED,
				    "%s: header says %" PRIu64 " bytes inflated, more than %zu "
				    "compressed %s bytes can hold",
				    lim->name, size, n, sp_codec_name(codec));
	const char *why;
	uint64_t bound = sp_dz_bound(lim, &why);
	if (size <= bound)
		return NULL;
	char says[64];
	snprintf(says, sizeof(says), ": its header says %" PRIu64 " bytes", size);
	return sp_dz_too_much(lim, codec, bound, why, lim->base, says);
}

/* -- a step at a time ----------------------------------------------------------- */

sp_error *sp_decoder_new(sp_codec codec, const sp_decompress_limit *lim, sp_decoder **out)
{
	sp_decoder *d = sp_xcalloc(1, sizeof(*d));
	d->codec = codec;
	sp_decoder_limit(d, lim);
	bool ok = codec == SP_CODEC_ZLIB   ? sp_dz_zlib_start(d)
		  : codec == SP_CODEC_ZSTD ? sp_dz_zstd_start(d)
					   : false;
	if (!ok) {
		free(d);
		*out = NULL;
		return sp_error_new(SP_E_UNSUPPORTED, "%s: cannot start %s decoding", lim->name,
				    sp_codec_name(codec));
	}
	*out = d;
	return NULL;
}

void sp_decoder_limit(sp_decoder *d, const sp_decompress_limit *lim)
{
	d->lim = *lim;
	d->bound = sp_dz_bound(lim, &d->why);
	d->made = d->used = 0;
}

sp_error *sp_decoder_run(sp_decoder *d, const uint8_t **in, size_t *n, uint8_t *out, size_t cap,
			 size_t *got, sp_decode_status *st)
{
	/* never more than one byte past the bound: enough to know it is passed */
	if (d->bound != UINT64_MAX && d->made <= d->bound && cap && cap - 1 > d->bound - d->made)
		cap = (size_t)(d->bound - d->made) + 1;
	size_t before = *n;
	*st = d->codec == SP_CODEC_ZLIB ? sp_dz_zlib_step(d, in, n, out, cap, got)
					: sp_dz_zstd_step(d, in, n, out, cap, got);
	d->used += before - *n;
	d->made += *got;
	if (*st == SP_DECODE_END)
		d->ended = true;
	if (d->made > d->bound)
		return sp_dz_too_much(&d->lim, d->codec, d->bound, d->why, d->lim.base + d->used,
				      NULL);
	return NULL;
}

const char *sp_decoder_error(const sp_decoder *d)
{
	return d->err;
}

bool sp_decoder_may_end(const sp_decoder *d)
{
	return d->codec == SP_CODEC_ZSTD ? sp_dz_zstd_may_end(d) : d->ended;
}

size_t sp_decoder_out_size(const sp_decoder *d)
{
	return d->codec == SP_CODEC_ZSTD ? sp_dz_zstd_out_size() : (size_t)64 << 10;
}

void sp_decoder_free(sp_decoder *d)
{
	if (!d)
		return;
	if (d->codec == SP_CODEC_ZLIB)
		sp_dz_zlib_end(d);
	else
		sp_dz_zstd_end(d);
	free(d);
}

/* -- lazy ------------------------------------------------------------------------ */

/* One address needs one compile unit: the unit's bytes in .debug_info and
 * its line program in .debug_line, a small part of sections that are
 * megabytes inflated (Debian's libc6-dbg: 5.8 MB of .debug_info, 1.3 MB of
 * .debug_line), and inflating them whole is most of the start-up time.  A
 * deflate stream cannot be entered in the middle, but it can be stopped:
 * the data gets a buffer of its full size and is inflated up to the end of
 * what its readers ask for, the stream kept open for more.  The buffer
 * never moves, so libdw can be handed it as the section's data at open,
 * provided nothing reads past what was asked for. */
struct sp_lazy {
	uint8_t *buf;
	size_t size; /* decompressed */
	size_t done; /* bytes of buf decompressed */
	const uint8_t *src;
	size_t n, in;    /* compressed bytes, and how many were consumed */
	sp_decoder *dec; /* while there is more to do */
	bool failed;
	bool mapped; /* buf is ours: an anonymous mapping, charged as filled */
	const char *err;
};

/* Decompressing in steps of at least this much keeps the per-call overhead
 * of the decoder small against a unit that needs a few hundred bytes more. */
#define LAZY_STEP ((size_t)128 << 10)

sp_lazy *sp_lazy_new(sp_codec codec, const uint8_t *src, size_t n, size_t size)
{
	if (codec != SP_CODEC_ZLIB || !sp_dz_zlib_header_ok(src, n) || !size)
		return NULL;
	void *buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return NULL;
	sp_lazy *z = sp_xcalloc(1, sizeof(*z));
	z->buf = buf;
	z->size = size;
	z->src = src;
	z->n = n;
	z->mapped = true;
	return z;
}

void *sp_lazy_data(const sp_lazy *z)
{
	return z->buf;
}

size_t sp_lazy_size(const sp_lazy *z)
{
	return z->size;
}

size_t sp_lazy_valid(const sp_lazy *z)
{
	return z ? z->done : 0;
}

const char *sp_lazy_error(const sp_lazy *z)
{
	return z && z->failed ? z->err : NULL;
}

/* One step of Z's decoder into OUT (CAP bytes); false when it went nowhere. */
static bool lazy_step(sp_lazy *z, uint8_t *out, size_t cap, size_t *got, sp_decode_status *st)
{
	const uint8_t *p = z->src + z->in;
	size_t left = z->n - z->in;
	/* the bound is the memory limit, which the size was checked against */
	sp_error_free(sp_decoder_run(z->dec, &p, &left, out, cap, got, st));
	size_t used = z->n - z->in - left;
	z->in += used;
	return used || *got || *st != SP_DECODE_MORE;
}

/* What is wrong once Z is decompressed up to z->done, the last step having
 * ended with ST (STUCK: it went nowhere): NULL when nothing is. */
static const char *lazy_error(sp_lazy *z, sp_decode_status st, bool stuck)
{
	if (!stuck && st == SP_DECODE_MORE && z->done == z->size) {
		/* all the header says: the stream must end there */
		uint8_t extra;
		size_t got;
		lazy_step(z, &extra, 1, &got, &st);
		if (got)
			return "more data than the header says";
		if (st != SP_DECODE_END)
			return sp_decoder_error(z->dec) ? sp_decoder_error(z->dec) : "cut short";
		return NULL;
	}
	if (st == SP_DECODE_END && z->done != z->size)
		return "less data than the header says";
	if (st == SP_DECODE_BAD || stuck)
		return sp_decoder_error(z->dec) ? sp_decoder_error(z->dec) : "cut short";
	return NULL;
}

bool sp_lazy_need(sp_lazy *z, size_t end)
{
	if (!z)
		return true;
	if (end > z->size)
		end = z->size;
	if (z->done >= end)
		return true;
	if (z->failed)
		return false;
	if (!z->dec) {
		sp_decompress_limit lim = {.name = "compressed data"};
		sp_error *e = sp_decoder_new(SP_CODEC_ZLIB, &lim, &z->dec);
		if (e) {
			sp_error_free(e);
			z->failed = true;
			z->err = "cannot start zlib";
			return false;
		}
	}
	size_t want = end - z->done < LAZY_STEP ? z->done + LAZY_STEP : end;
	if (want > z->size)
		want = z->size;
	size_t before = z->done;
	sp_decode_status st = SP_DECODE_MORE;
	bool stuck = false;
	while (z->done < want && st == SP_DECODE_MORE && !stuck) {
		size_t got;
		stuck = !lazy_step(z, z->buf + z->done, want - z->done, &got, &st);
		z->done += got;
	}
	if (z->mapped)
		sp_mem_charge(z->done - before);
	z->err = lazy_error(z, st, stuck);
	if (z->err) {
		z->failed = true;
		return false;
	}
	if (z->done == z->size) {
		sp_decoder_free(z->dec);
		z->dec = NULL;
	}
	return true;
}

const char *sp_decompress_sized(sp_codec codec, const uint8_t *src, size_t n, void *buf,
				size_t size)
{
	if (codec == SP_CODEC_ZSTD)
		return sp_dz_zstd_sized(src, n, buf, size);
	if (codec != SP_CODEC_ZLIB || !sp_dz_zlib_header_ok(src, n))
		return "not a zlib stream";
	if (!size)
		return NULL;
	sp_lazy z = {.buf = buf, .size = size, .src = src, .n = n};
	bool ok = sp_lazy_need(&z, size); /* one step: the whole data */
	sp_decoder_free(z.dec);
	return ok ? NULL : z.err;
}

void sp_lazy_free(sp_lazy *z)
{
	if (!z)
		return;
	sp_decoder_free(z->dec);
	if (z->mapped) {
		munmap(z->buf, z->size);
		sp_mem_uncharge(z->done);
	}
	free(z);
}
