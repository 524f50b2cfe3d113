/* decompress_xz.c — liblzma, the one file that includes lzma.h: xz streams
 * read whole (kernel modules installed as NAME.ko.xz), one after the other
 * (xz -c a b > c), each maybe followed by stream padding.  Its rules are
 * decompress.c's (decompressp.h). */
#include "common/decompressp.h"

#include <lzma.h>
#include <string.h>

static void *xz_alloc(void *opaque, size_t nmemb, size_t size)
{
	(void)opaque;
	return sp_dz_alloc(nmemb, size);
}

static void xz_free(void *opaque, void *p)
{
	(void)opaque;
	sp_dz_free(p);
}

static const lzma_allocator allocator = {xz_alloc, xz_free, NULL};

static const char *xz_error(lzma_ret rc)
{
	switch (rc) {
	case LZMA_FORMAT_ERROR:
		return "not an xz stream";
	case LZMA_OPTIONS_ERROR:
		return "unsupported options";
	case LZMA_MEMLIMIT_ERROR:
		return "its dictionary is larger than a quarter of the memory limit";
	case LZMA_MEM_ERROR:
		return "out of memory";
	default:
		return "corrupt data";
	}
}

/* One xz stream from byte *AT of the input on; *AT ends where it stopped.
 * *STOP (with *P->end set) when the data ends there, damaged or cut. */
static sp_error *xz_stream(sp_dz_push *p, size_t *at, bool *stop)
{
	lzma_stream ls = LZMA_STREAM_INIT;
	ls.allocator = &allocator;
	if (lzma_stream_decoder(&ls, sp_dz_window_limit(), 0) != LZMA_OK)
		return sp_error_new(SP_E_UNSUPPORTED, "%s: cannot start xz decoding", p->lim->name);
	sp_error *err = NULL;
	lzma_ret rc = LZMA_OK;
	ls.next_in = p->in + *at;
	ls.avail_in = p->len - *at;
	while (!err && !*stop && rc != LZMA_STREAM_END) {
		ls.next_out = p->buf;
		ls.avail_out = p->buf_size;
		/* the whole input is in: LZMA_FINISH reports a cut stream */
		rc = lzma_code(&ls, LZMA_FINISH);
		*at = p->len - ls.avail_in;
		if (rc == LZMA_BUF_ERROR && ls.avail_in == 0) {
			*p->end = (sp_decompress_end){SP_DZ_CUT, *at, NULL};
			*stop = true;
		} else if (rc != LZMA_OK && rc != LZMA_STREAM_END) {
			*p->end = (sp_decompress_end){SP_DZ_CORRUPT, *at, xz_error(rc)};
			*stop = true;
		} else {
			err = sp_dz_emit(p, p->buf_size - ls.avail_out, *at);
		}
	}
	lzma_end(&ls);
	return err;
}

/* Streams one after the other, each maybe followed by stream padding (zero
 * bytes, four at a time), and nothing else: what is not another stream is
 * named as such, not taken for a cut one. */
sp_error *sp_dz_xz_push(sp_dz_push *p)
{
	static const uint8_t magic[6] = {0xfd, '7', 'z', 'X', 'Z', 0};
	size_t used = 0;
	bool stop = false;
	sp_error *err;
	while (!(err = xz_stream(p, &used, &stop)) && !stop) {
		size_t at = used;
		while (at < p->len && !p->in[at])
			at++;
		if (at == p->len && (at - used) % 4 == 0) {
			*p->end = (sp_decompress_end){SP_DZ_END, at, NULL};
			return NULL;
		}
		if ((at - used) % 4 || p->len - at < sizeof(magic) ||
		    memcmp(p->in + at, magic, sizeof(magic))) {
			*p->end = (sp_decompress_end){
				SP_DZ_TRAILING, used,
				"what follows the xz data is not padding or another xz stream"};
			return NULL;
		}
		used = at;
	}
	return err;
}
