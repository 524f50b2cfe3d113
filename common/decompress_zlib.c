/* decompress_zlib.c — zlib, the one file that includes zlib.h: gzip members
 * read whole, zlib streams pulled a step at a time (compressed ELF
 * sections), and the deflate of the gzip sink.  Its rules are
 * decompress.c's (decompressp.h). */
#include "common/decompressp.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static voidpf zalloc(voidpf opaque, uInt items, uInt size)
{
	(void)opaque;
	return sp_dz_alloc(items, size);
}

static void zfree(voidpf opaque, voidpf p)
{
	(void)opaque;
	sp_dz_free(p);
}

/* avail_in and avail_out are 32 bits: longer buffers go in in parts */
static uInt clamp32(size_t n)
{
	return n > UINT32_MAX ? UINT32_MAX : (uInt)n;
}

sp_error *sp_dz_gzip_push(sp_dz_push *p)
{
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	zs.zalloc = zalloc;
	zs.zfree = zfree;
	sp_decompress_end *end = p->end;
	*end = (sp_decompress_end){.status = SP_DZ_CUT};
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
		return sp_error_new(SP_E_ZLIB, "%s: cannot start inflating", p->lim->name);
	sp_error *err = NULL;
	size_t used = 0, len = p->len;
	zs.next_in = (Bytef *)p->in;
	for (;;) {
		if (zs.avail_in == 0) {
			size_t left = len - used;
			if (left == 0)
				break; /* inside a member: SP_DZ_CUT */
			zs.avail_in = clamp32(left);
		}
		zs.next_out = p->buf;
		zs.avail_out = (uInt)p->buf_size;
		int rc = inflate(&zs, Z_NO_FLUSH);
		used = (size_t)(zs.next_in - (const Bytef *)p->in);
		if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
			end->status = SP_DZ_CORRUPT;
			end->msg = zs.msg ? zs.msg : "not deflate data";
			break;
		}
		size_t got = p->buf_size - zs.avail_out;
		if (got && (err = sp_dz_emit(p, got, used)) != NULL)
			break;
		if (rc != Z_STREAM_END)
			continue;
		/* the member ended: another may follow (gzip -c a b > c);
		 * anything else is not gzip data (a cut copy's tail, padding,
		 * two files run together), refused as go tool pprof and
		 * gzip -t do */
		if (used == len) {
			end->status = SP_DZ_END;
			break;
		}
		if (!sp_is_gzip(p->in + used, len - used)) {
			end->status = SP_DZ_TRAILING;
			end->msg = "what follows the gzip data is not another gzip member";
			break;
		}
		inflateReset(&zs);
	}
	end->at = used;
	inflateEnd(&zs);
	return err;
}

/* -- zlib streams, a step at a time ------------------------------------------ */

bool sp_dz_zlib_header_ok(const uint8_t *src, size_t n)
{
	return n >= 2 && (src[0] & 0x0f) == Z_DEFLATED && ((src[0] << 8) | src[1]) % 31 == 0;
}

bool sp_dz_zlib_start(sp_decoder *d)
{
	z_stream *zs = sp_xcalloc(1, sizeof(*zs));
	zs->zalloc = zalloc;
	zs->zfree = zfree;
	/* the deflate data is read raw, past the two-byte header: the
	 * Adler-32 at the end is never checked (which saves a sixth of the
	 * time of a whole section) */
	if (inflateInit2(zs, -MAX_WBITS) != Z_OK) {
		free(zs);
		return false;
	}
	d->state = zs;
	return true;
}

sp_decode_status sp_dz_zlib_step(sp_decoder *d, const uint8_t **in, size_t *n, uint8_t *out,
				 size_t cap, size_t *got)
{
	z_stream *zs = d->state;
	*got = 0;
	if (!d->header) {
		if (*n < 2)
			return SP_DECODE_MORE;
		if (!sp_dz_zlib_header_ok(*in, *n)) {
			d->err = "not a zlib stream";
			return SP_DECODE_BAD;
		}
		*in += 2;
		*n -= 2;
		d->header = true;
	}
	zs->next_in = (Bytef *)*in;
	zs->avail_in = clamp32(*n);
	zs->next_out = out;
	zs->avail_out = clamp32(cap);
	uInt ai = zs->avail_in, ao = zs->avail_out;
	int rc = inflate(zs, Z_NO_FLUSH);
	*in += ai - zs->avail_in;
	*n -= ai - zs->avail_in;
	*got = ao - zs->avail_out;
	if (rc == Z_STREAM_END)
		return SP_DECODE_END;
	if (rc == Z_OK || rc == Z_BUF_ERROR)
		return SP_DECODE_MORE;
	d->err = zs->msg;
	return SP_DECODE_BAD;
}

void sp_dz_zlib_end(sp_decoder *d)
{
	if (!d->state)
		return;
	inflateEnd(d->state);
	free(d->state);
	d->state = NULL;
}

/* -- the gzip sink's deflate --------------------------------------------------- */

struct sp_deflater {
	z_stream zs;
};

sp_deflater *sp_deflater_new(void)
{
	sp_deflater *z = sp_xcalloc(1, sizeof(*z));
	z->zs.zalloc = zalloc;
	z->zs.zfree = zfree;
	/* raw deflate: the gzip header and trailer are the sink's */
	if (deflateInit2(&z->zs, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(z);
		return NULL;
	}
	return z;
}

bool sp_deflater_block(sp_deflater *z, const uint8_t *dict, size_t dict_len, const uint8_t *p,
		       size_t n, bool last, sp_buf *out, uint32_t *crc)
{
	if (deflateReset(&z->zs) != Z_OK ||
	    (dict_len && deflateSetDictionary(&z->zs, dict, (uInt)dict_len) != Z_OK))
		return false;
	*crc = (uint32_t)crc32(0L, p, (uInt)n);
	int flush = last ? Z_FINISH : Z_SYNC_FLUSH;
	z->zs.next_in = (Bytef *)p;
	z->zs.avail_in = (uInt)n;
	int rc;
	do {
		size_t room = deflateBound(&z->zs, (uLong)z->zs.avail_in) + 16;
		sp_grow(&out->data, &out->cap, out->len + room + 1, 1);
		z->zs.next_out = (Bytef *)out->data + out->len;
		z->zs.avail_out = (uInt)room;
		rc = deflate(&z->zs, flush);
		if (rc == Z_STREAM_ERROR)
			return false;
		out->len += room - z->zs.avail_out;
		out->data[out->len] = '\0';
	} while (z->zs.avail_out == 0 || (last && rc != Z_STREAM_END));
	return true;
}

void sp_deflater_free(sp_deflater *z)
{
	if (!z)
		return;
	deflateEnd(&z->zs);
	free(z);
}

uint32_t sp_crc32_combine(uint32_t crc_a, uint32_t crc_b, size_t len_b)
{
	return (uint32_t)crc32_combine(crc_a, crc_b, (z_off_t)len_b);
}
