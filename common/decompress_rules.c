/* decompress_rules.c — the rules every decompression follows, whatever the
 * codec and whoever asks (decompressp.h): the bomb rule's bound and its one
 * error, the window limit, allocation through the budget; and the codecs'
 * names and magic numbers.  The bottom of the decompress*.c family: the
 * codecs' files call it, it calls none of them. */
#include "common/decompressp.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

sp_codec sp_codec_sniff(const uint8_t *p, size_t n)
{
	static const uint8_t xz[6] = {0xfd, '7', 'z', 'X', 'Z', 0};
	static const uint8_t zst[4] = {0x28, 0xb5, 0x2f, 0xfd};
	if (sp_is_gzip(p, n))
		return SP_CODEC_GZIP;
	if (n >= sizeof(xz) && !memcmp(p, xz, sizeof(xz)))
		return SP_CODEC_XZ;
	if (n >= sizeof(zst) && !memcmp(p, zst, sizeof(zst)))
		return SP_CODEC_ZSTD;
	return SP_CODEC_NONE;
}

const char *sp_codec_name(sp_codec c)
{
	static const char *const names[] = {"", "gzip", "zlib", "xz", "zstd"};
	return (unsigned)c < SP_ARRAY_LEN(names) ? names[c] : "";
}

bool sp_is_gzip(const uint8_t *data, size_t len)
{
	return len >= 2 && data[0] == 0x1f && data[1] == 0x8b;
}

#define WINDOW_MAX ((size_t)128 << 20)

size_t sp_dz_window_limit(void)
{
	size_t w = sp_mem_limit() ? sp_mem_limit() / 4 : WINDOW_MAX;
	return w < WINDOW_MAX ? w : WINDOW_MAX;
}

void *sp_dz_alloc(size_t nmemb, size_t size)
{
	return sp_xreallocarray(NULL, nmemb, size);
}

void sp_dz_free(void *p)
{
	free(p);
}

uint64_t sp_dz_bound(const sp_decompress_limit *lim, const char **why)
{
	uint64_t mem = sp_mem_limit();
	if (mem && (!lim->limit || mem <= lim->limit)) {
		*why = "the memory limit, --max-memory";
		return mem;
	}
	*why = lim->why ? lim->why : "the reader's limit";
	return lim->limit ? lim->limit : UINT64_MAX;
}

sp_error *sp_dz_too_much(const sp_decompress_limit *lim, sp_codec codec, uint64_t bound,
			 const char *why, uint64_t at, const char *suffix)
{
	char size[64];
	sp_format_size(size, sizeof(size), (size_t)bound);
	return sp_error_new(SP_E_LIMIT,
			    "%s: offset %" PRIu64 ": %s%s decompresses to more than %s "
			    "(%s)%s",
			    lim->name, at, lim->what ? lim->what : sp_codec_name(codec),
			    lim->what ? "" : " data", size, why, suffix ? suffix : "");
}

sp_error *sp_dz_emit(sp_dz_push *p, size_t n, size_t at)
{
	if (n > p->bound - p->made)
		return sp_dz_too_much(p->lim, p->codec, p->bound, p->why, p->lim->base + at, NULL);
	p->made += n;
	return n ? p->put(p->ctx, p->buf, n) : NULL;
}
