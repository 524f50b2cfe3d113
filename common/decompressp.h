/* decompressp.h — what decompress.c shares with the one file per codec:
 * decompress_zlib.c (zlib: gzip members, zlib streams, and the gzip sink's
 * deflate), decompress_xz.c (liblzma) and decompress_zstd.c (libzstd).
 * Those three are the only files of symprof that include zlib.h, lzma.h
 * and zstd.h; everything else, common/ included, goes through common.h.
 *
 * decompress_rules.c owns the rules (the bomb rule's bound and error, the
 * window limit, allocation through the budget); a codec's file owns its
 * library's calls, its states and its words for damaged data; decompress.c
 * puts them together as common.h's API (whole, streamed, pulled, lazy).
 * Calls point one way: decompress.c -> codecs -> decompress_rules.c.
 */
#ifndef SYMPROF_COMMON_DECOMPRESSP_H
#define SYMPROF_COMMON_DECOMPRESSP_H

#include "common/common.h"

/* -- decompress_rules.c --------------------------------------------------------- */

/* The most memory one decoder's window may take: a quarter of the memory
 * limit, at most 128 MiB (zstd's default; xz -9's dictionary is 64 MiB). */
size_t sp_dz_window_limit(void);
/* What decoders allocate with (the libraries' allocator hooks): counted
 * against the budget as any sp_xmalloc. */
void *sp_dz_alloc(size_t nmemb, size_t size);
void sp_dz_free(void *p);

/* The bound of the bomb rule for LIM (UINT64_MAX: none) and, in *WHY, the
 * words for it. */
uint64_t sp_dz_bound(const sp_decompress_limit *lim, const char **why);
/* The bomb rule's error: CODEC's data of LIM passed BOUND (WHY) when
 * decoding stopped at byte AT of LIM->name; SUFFIX (may be NULL) is added. */
sp_error *sp_dz_too_much(const sp_decompress_limit *lim, sp_codec codec, uint64_t bound,
			 const char *why, uint64_t at, const char *suffix);

/* -- whole input, output pushed (sp_decompress_stream) ----------------------- */

typedef struct {
	const sp_decompress_limit *lim;
	sp_codec codec;
	uint64_t bound; /* sp_dz_bound's */
	const char *why;
	const uint8_t *in;
	size_t len;
	uint8_t *buf; /* output goes here first */
	size_t buf_size;
	sp_decompress_put *put;
	void *ctx;
	uint64_t made; /* output so far */
	sp_decompress_end *end;
} sp_dz_push;

/* Hands the first N bytes of P->buf to the caller, the input having been
 * decoded up to byte AT: the bomb rule's error when they pass the bound. */
sp_error *sp_dz_emit(sp_dz_push *p, size_t n, size_t at);
/* Each codec's loop over its streams, the same contract as
 * sp_decompress_stream. */
sp_error *sp_dz_gzip_push(sp_dz_push *p);
sp_error *sp_dz_xz_push(sp_dz_push *p);
sp_error *sp_dz_zstd_push(sp_dz_push *p);

/* -- pulled a step at a time (sp_decoder) ------------------------------------ */

struct sp_decoder {
	sp_codec codec;
	sp_decompress_limit lim;
	uint64_t bound; /* sp_dz_bound's, since the limit was set */
	const char *why;
	uint64_t made;   /* output since the limit was set */
	uint64_t used;   /* input since */
	void *state;     /* the codec's: a z_stream, a ZSTD_DCtx */
	size_t hint;     /* zstd: its last answer (0: at a frame's end) */
	bool header;     /* zlib: the stream's two-byte header was read */
	bool ended;      /* the stream ended */
	const char *err; /* the codec's words for SP_DECODE_BAD */
};

/* Each codec's start (false: cannot), step (one call of the library:
 * *IN, *N advanced, *GOT bytes made into OUT[0..cap)) and end. */
bool sp_dz_zlib_start(sp_decoder *d);
sp_decode_status sp_dz_zlib_step(sp_decoder *d, const uint8_t **in, size_t *n, uint8_t *out,
				 size_t cap, size_t *got);
void sp_dz_zlib_end(sp_decoder *d);
bool sp_dz_zstd_start(sp_decoder *d);
sp_decode_status sp_dz_zstd_step(sp_decoder *d, const uint8_t **in, size_t *n, uint8_t *out,
				 size_t cap, size_t *got);
void sp_dz_zstd_end(sp_decoder *d);
size_t sp_dz_zstd_out_size(void);
/* At a frame's end, or between two blocks (where a flushed stream stops). */
bool sp_dz_zstd_may_end(const sp_decoder *d);

/* Whether SRC starts with a zlib stream's header (deflate, check bits). */
bool sp_dz_zlib_header_ok(const uint8_t *src, size_t n);
/* A zstd frame's content size from its header: false when SRC is no zstd
 * frame; *KNOWN false when the header does not say. */
bool sp_dz_zstd_content_size(const uint8_t *src, size_t n, uint64_t *size, bool *known);
/* sp_decompress_sized for zstd. */
const char *sp_dz_zstd_sized(const uint8_t *src, size_t n, void *buf, size_t size);

/* -- the gzip sink's compressor (decompress_zlib.c, for gzip_sink.c) --------- */

/* One gzip member made of blocks compressed apart (pigz's way): each block
 * is raw deflate at level 6, primed with up to 32 KiB of the input before
 * it (the window it would have had), and ends with a sync flush (an empty
 * stored block: byte-aligned, the stream goes on) or, the last, with the
 * final block.  The blocks' outputs joined, between the gzip header and
 * the trailer (the CRC-32 of the input and its size modulo 2^32), are one
 * deflate stream that any gzip reader takes.  A deflater is one thread's;
 * NULL when zlib cannot start. */
typedef struct sp_deflater sp_deflater;
sp_deflater *sp_deflater_new(void);
/* Compresses the block P[0..n) (n at most UINT32_MAX) primed with
 * DICT[0..dict_len) (at most 32 KiB), appending to OUT; *CRC gets the
 * CRC-32 of P.  False when deflate fails. */
bool sp_deflater_block(sp_deflater *z, const uint8_t *dict, size_t dict_len, const uint8_t *p,
		       size_t n, bool last, sp_buf *out, uint32_t *crc);
void sp_deflater_free(sp_deflater *z);
/* The CRC-32 of A's bytes then B's, from their CRCs and B's length. */
uint32_t sp_crc32_combine(uint32_t crc_a, uint32_t crc_b, size_t len_b);

#endif
