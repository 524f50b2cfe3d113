/* zlib.c — the only file that talks to zlib: gunzip and the gzip sink. */
#include "common/common.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

sp_error *sp_gunzip(const char *name, const uint8_t *in, size_t len, size_t max,
		    uint8_t **out, size_t *outlen)
{
	*out = NULL;
	*outlen = 0;
	bool by_budget = sp_mem_limit() && sp_mem_limit() < max;
	if (by_budget)
		max = sp_mem_limit();
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 15 + 16) != Z_OK)
		return sp_error_new(SP_E_ZLIB, "%s: inflateInit failed", name);
	sp_buf b = {0};
	size_t consumed = 0;
	uint8_t chunk[65536];
	int rc = Z_OK;
	while (consumed < len) {
		zs.next_in = (Bytef *)(in + consumed);
		size_t avail = len - consumed;
		zs.avail_in = avail > UINT32_MAX ? UINT32_MAX : (uInt)avail;
		zs.next_out = chunk;
		zs.avail_out = sizeof(chunk);
		uInt before = zs.avail_in;
		rc = inflate(&zs, Z_NO_FLUSH);
		consumed += before - zs.avail_in;
		size_t got = sizeof(chunk) - zs.avail_out;
		if (b.len + got > max) {
			inflateEnd(&zs);
			sp_buf_free(&b);
			if (by_budget) {
				char lim[64];
				sp_format_size(lim, sizeof(lim), max);
				return sp_error_new(SP_E_LIMIT,
						    "%s: decompressed data exceeds the memory "
						    "limit of %s (--max-memory)",
						    name, lim);
			}
			return sp_error_new(SP_E_LIMIT,
					    "%s: decompressed data exceeds %zu bytes", name, max);
		}
		sp_buf_append(&b, chunk, got);
		if (rc == Z_STREAM_END) {
			/* another member may follow */
			if (consumed < len && sp_is_gzip(in + consumed, len - consumed)) {
				inflateReset(&zs);
				continue;
			}
			break;
		}
		if (rc != Z_OK && rc != Z_BUF_ERROR) {
			sp_error *e = sp_error_new(SP_E_ZLIB,
						   "%s: offset %zu: corrupt gzip data (%s)", name,
						   consumed, zs.msg ? zs.msg : "inflate failed");
			inflateEnd(&zs);
			sp_buf_free(&b);
			return e;
		}
		if (rc == Z_BUF_ERROR && got == 0 && zs.avail_in == 0)
			break;
	}
	inflateEnd(&zs);
	if (rc != Z_STREAM_END) {
		sp_buf_free(&b);
		return sp_error_new(SP_E_ZLIB,
				    "%s: offset %zu: truncated gzip data (expected end of stream)",
				    name, consumed);
	}
	sp_buf_str(&b);
	*outlen = b.len;
	*out = (uint8_t *)sp_buf_take(&b);
	return NULL;
}

/* Writers hand the sink a few bytes at a time (a protobuf field, a
 * varint); deflate is given them GZ_CHUNK at a time, which costs less per
 * byte and compresses to the same bytes (with Z_NO_FLUSH, deflate's output
 * does not depend on how its input is cut). */
#define GZ_CHUNK 65536

typedef struct {
	sp_sink base;
	sp_sink *inner;
	z_stream zs;
	bool init;
	uint8_t in[GZ_CHUNK];
	size_t fill;
} gz_sink;

static void gz_pump(gz_sink *g, int flush)
{
	uint8_t chunk[65536];
	int rc;
	do {
		g->zs.next_out = chunk;
		g->zs.avail_out = sizeof(chunk);
		rc = deflate(&g->zs, flush);
		if (rc == Z_STREAM_ERROR) {
			sp_sink_fail(&g->base, sp_error_new(SP_E_ZLIB, "gzip: deflate failed"));
			return;
		}
		sp_sink_write(g->inner, chunk, sizeof(chunk) - g->zs.avail_out);
	} while (g->zs.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
}

/* Deflates [P, P+N) (Z_NO_FLUSH). */
static void gz_deflate(gz_sink *g, const uint8_t *p, size_t n)
{
	while (n) {
		uInt chunk = n > (1u << 30) ? (1u << 30) : (uInt)n;
		g->zs.next_in = (Bytef *)p;
		g->zs.avail_in = chunk;
		gz_pump(g, Z_NO_FLUSH);
		p += chunk;
		n -= chunk;
	}
}

static void gz_write(sp_sink *s, const void *data, size_t n)
{
	gz_sink *g = (gz_sink *)s;
	if (g->fill + n <= sizeof(g->in)) {
		memcpy(g->in + g->fill, data, n);
		g->fill += n;
		return;
	}
	gz_deflate(g, g->in, g->fill);
	g->fill = 0;
	if (n >= sizeof(g->in)) {
		gz_deflate(g, data, n);
		return;
	}
	memcpy(g->in, data, n);
	g->fill = n;
}

static sp_error *gz_finish(sp_sink *s)
{
	gz_sink *g = (gz_sink *)s;
	gz_deflate(g, g->in, g->fill);
	g->fill = 0;
	g->zs.next_in = NULL;
	g->zs.avail_in = 0;
	gz_pump(g, Z_FINISH);
	if (g->inner->err && !s->err)
		return sp_error_new(g->inner->err->code, "gzip: inner sink failed");
	return NULL;
}

static void gz_destroy(sp_sink *s)
{
	gz_sink *g = (gz_sink *)s;
	if (g->init)
		deflateEnd(&g->zs);
	free(g);
}

sp_sink *sp_sink_gzip_new(sp_sink *inner)
{
	gz_sink *g = sp_xcalloc(1, sizeof(*g));
	g->base.write = gz_write;
	g->base.finish = gz_finish;
	g->base.destroy = gz_destroy;
	g->inner = inner;
	/* mtime 0 and no name in the header: same input, same bytes */
	if (deflateInit2(&g->zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		sp_sink_fail(&g->base, sp_error_new(SP_E_ZLIB, "gzip: deflateInit failed"));
	else
		g->init = true;
	return &g->base;
}
