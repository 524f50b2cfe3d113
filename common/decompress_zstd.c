/* decompress_zstd.c — libzstd, the one file that includes zstd.h: zstd
 * frames read whole (kernel modules installed as NAME.ko.zst), decoded
 * into a buffer of known size (ELFCOMPRESS_ZSTD sections), and pulled a
 * step at a time (perf.data's COMPRESSED records: one stream through many
 * records, flushed, never ended).  Its rules are decompress.c's
 * (decompressp.h). */
#include "common/decompressp.h"

/* ZSTD_createDCtx_advanced: decoders allocate through the budget */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

/* What the streaming decoder asks for next when it stands between two
 * blocks of an unfinished frame: a block header (RFC 8878 3.1.1.2).  A
 * stream flushed after every chunk (perf record -z) ends there, or at the
 * end of a frame (0). */
#define BETWEEN_BLOCKS 3

static void *zstd_alloc(void *opaque, size_t size)
{
	(void)opaque;
	return sp_dz_alloc(1, size);
}

static void zstd_free(void *opaque, void *p)
{
	(void)opaque;
	sp_dz_free(p);
}

static const ZSTD_customMem allocator = {zstd_alloc, zstd_free, NULL};

/* A decoder whose window is bounded by sp_dz_window_limit; NULL when it
 * cannot be made. */
static ZSTD_DCtx *new_dctx(void)
{
	ZSTD_DCtx *zd = ZSTD_createDCtx_advanced(allocator);
	int log = 10; /* ZSTD_WINDOWLOG_ABSOLUTEMIN */
	while (log < 27 && ((size_t)1 << (log + 1)) <= sp_dz_window_limit())
		log++;
	if (zd && ZSTD_isError(ZSTD_DCtx_setParameter(zd, ZSTD_d_windowLogMax, log))) {
		ZSTD_freeDCtx(zd);
		zd = NULL;
	}
	return zd;
}

sp_error *sp_dz_zstd_push(sp_dz_push *p)
{
	ZSTD_DCtx *zd = new_dctx();
	if (!zd)
		return sp_error_new(SP_E_UNSUPPORTED, "%s: cannot start zstd decoding",
				    p->lim->name);
	sp_error *err = NULL;
	ZSTD_inBuffer in = {p->in, p->len, 0};
	size_t rc = 1, frame = 0; /* where the frame being read starts */
	*p->end = (sp_decompress_end){.status = SP_DZ_END};
	/* rc == 0: a frame ended; stop at the end of the input, after
	 * concatenated frames */
	while (!err && !(rc == 0 && in.pos == in.size)) {
		ZSTD_outBuffer outb = {p->buf, p->buf_size, 0};
		size_t before = in.pos;
		rc = ZSTD_decompressStream(zd, &outb, &in);
		if (ZSTD_isError(rc)) {
			/* it says nothing finer than the frame */
			*p->end = (sp_decompress_end){SP_DZ_CORRUPT, frame, ZSTD_getErrorName(rc)};
			break;
		}
		if (rc == 0)
			frame = in.pos;
		if (rc != 0 && in.pos == in.size && outb.pos == 0 && before == in.pos) {
			*p->end = (sp_decompress_end){SP_DZ_CUT, in.pos, NULL};
			break;
		}
		err = sp_dz_emit(p, outb.pos, in.pos);
	}
	if (!err && p->end->status == SP_DZ_END)
		p->end->at = in.pos;
	ZSTD_freeDCtx(zd);
	return err;
}

bool sp_dz_zstd_content_size(const uint8_t *src, size_t n, uint64_t *size, bool *known)
{
	unsigned long long want = ZSTD_getFrameContentSize(src, n);
	*known = want != ZSTD_CONTENTSIZE_UNKNOWN && want != ZSTD_CONTENTSIZE_ERROR;
	*size = *known ? want : 0;
	return want != ZSTD_CONTENTSIZE_ERROR;
}

const char *sp_dz_zstd_sized(const uint8_t *src, size_t n, void *buf, size_t size)
{
	ZSTD_DCtx *zd = ZSTD_createDCtx_advanced(allocator);
	if (!zd)
		return "cannot start zstd decoding";
	size_t got = ZSTD_decompressDCtx(zd, buf, size, src, n);
	ZSTD_freeDCtx(zd);
	return ZSTD_isError(got) ? ZSTD_getErrorName(got)
	       : got != size     ? "less data than the header says"
				 : NULL;
}

/* -- a step at a time ---------------------------------------------------------- */

bool sp_dz_zstd_start(sp_decoder *d)
{
	d->state = new_dctx();
	return d->state != NULL;
}

sp_decode_status sp_dz_zstd_step(sp_decoder *d, const uint8_t **in, size_t *n, uint8_t *out,
				 size_t cap, size_t *got)
{
	ZSTD_inBuffer ib = {*in, *n, 0};
	ZSTD_outBuffer ob = {out, cap, 0};
	size_t r = ZSTD_decompressStream(d->state, &ob, &ib);
	*in += ib.pos;
	*n -= ib.pos;
	*got = ob.pos;
	if (ZSTD_isError(r)) {
		d->err = ZSTD_getErrorName(r);
		return SP_DECODE_BAD;
	}
	d->hint = r;
	d->ended = r == 0;
	return r == 0 ? SP_DECODE_END : SP_DECODE_MORE;
}

void sp_dz_zstd_end(sp_decoder *d)
{
	ZSTD_freeDCtx(d->state);
	d->state = NULL;
}

size_t sp_dz_zstd_out_size(void)
{
	return ZSTD_DStreamOutSize();
}

bool sp_dz_zstd_may_end(const sp_decoder *d)
{
	return d->hint == 0 || d->hint == BETWEEN_BLOCKS;
}
