/* compressed.c — `perf record -z`: the kernel's records through one zstd
 * stream, never ended, flushed at the end of every chunk perf takes from
 * its ring buffers: COMPRESSED (81) records {header; zstd bytes} or
 * COMPRESSED2 (83) {header; u64 size; zstd bytes; padding}, between perf's
 * own uncompressed records (FINISHED_ROUND, ...).  A record of the
 * decompressed stream may begin in one COMPRESSED record and end in the
 * next.
 *
 * The payloads go through one pull decoder (common/decompress.c) and
 * records.c parses the records as they complete, so memory holds one
 * partial record, not the data.  A round may end inside a COMPRESSED
 * record: its payload is then decompressed further when the next round is
 * read.  One COMPRESSED record may not give more than the buffer perf
 * compressed it from (the COMPRESSED feature's mmap_len) and a block: the
 * decoder's limit, the bomb rule's.  Errors inside that data name the
 * COMPRESSED record's offset and the byte of the decompressed stream.
 */
#include "formats/perf/perfp.h"

#include <stdlib.h>

/* The most one COMPRESSED record may give when the file does not say how
 * large perf's buffers were, and what a record may give beyond the buffer
 * it was compressed from: the end of the previous chunk's last block, at
 * most two of zstd's blocks (128 KiB each, RFC 8878 3.1.1.2.4). */
#define Z_DEFAULT_MAX ((uint64_t)64 << 20)
#define Z_SLACK ((uint64_t)2 * (128 << 10))

sp_error *sp_perf_z_begin(sp_perf_reader *d, sp_perf_cur *k, uint32_t type)
{
	const uint8_t *src = k->p + 8;
	size_t n = k->len - 8;
	if (type == SP_PERF_REC_COMPRESSED2) {
		uint64_t size;
		k->at = 8;
		sp_error *e = sp_perf_take64(k, &size, "compressed data size");
		if (e)
			return e;
		if (size > k->len - 16)
			return sp_perf_bad(d, k->base + 8,
					   "compressed data of %" PRIu64 " bytes in a "
					   "%zu-byte COMPRESSED2 record",
					   size, k->len);
		src = k->p + 16;
		n = (size_t)size;
	}
	if (d->z.type && d->z.type != 1)
		return sp_perf_bad(d, k->base,
				   "COMPRESSED record, but the COMPRESSED feature gives "
				   "compression type %" PRIu32 ": expected 1 (zstd)",
				   d->z.type);
	sp_decompress_limit lim = {
		.name = d->name,
		.what = "COMPRESSED record",
		.base = k->base + (uint64_t)(src - k->p),
		.limit = d->z.mmap_len ? d->z.mmap_len + Z_SLACK : Z_DEFAULT_MAX,
		.why = d->z.mmap_len ? "the COMPRESSED feature's buffer size and a block"
				     : "the most perf writes in one",
	};
	if (d->z.dec)
		sp_decoder_limit(d->z.dec, &lim);
	else {
		sp_error *e = sp_decoder_new(SP_CODEC_ZSTD, &lim, &d->z.dec);
		if (e)
			return e;
	}
	d->z.rec_off = k->base;
	d->z.src = src;
	d->z.n = n;
	d->z.payload = n;
	d->z.full = true; /* a step at least */
	d->z.active = true;
	return NULL;
}

sp_error *sp_perf_z_more(sp_perf_reader *d)
{
	if (!d->z.n && !d->z.full) { /* the payload gave all it holds */
		d->z.active = false;
		d->c->zstd_in += d->z.payload;
		return NULL;
	}
	size_t room = sp_decoder_out_size(d->z.dec), got;
	sp_grow(&d->z.buf, &d->z.cap, d->z.len + room, 1);
	sp_decode_status st;
	sp_error *e =
		sp_decoder_run(d->z.dec, &d->z.src, &d->z.n, d->z.buf + d->z.len, room, &got, &st);
	if (e)
		return e;
	if (st == SP_DECODE_BAD)
		return sp_perf_bad(d, d->z.rec_off, "corrupt zstd payload in COMPRESSED record: %s",
				   sp_decoder_error(d->z.dec));
	d->z.len += got;
	d->c->zstd_out += got;
	d->z.full = got == room;
	return NULL;
}

sp_error *sp_perf_z_end(sp_perf_reader *d)
{
	if (!d->z.dec)
		return NULL;
	d->z.inside = true;
	sp_error *e = NULL;
	if (d->z.skip)
		e = sp_perf_bad(d, d->z.pos, "truncated auxtrace data: %" PRIu64 " bytes missing",
				d->z.skip);
	else if (d->z.len)
		e = sp_perf_bad(d, d->z.pos,
				"truncated record: %zu bytes of it at the end of the "
				"compressed data",
				d->z.len);
	else if (!sp_decoder_may_end(d->z.dec))
		e = sp_perf_bad(d, d->z.pos,
				"the zstd stream of the COMPRESSED records ends inside "
				"a block (truncated payload)");
	d->z.inside = false;
	return e;
}

void sp_perf_z_free(sp_perf_reader *d)
{
	sp_decoder_free(d->z.dec);
	free(d->z.buf);
}
