/* zlib.c — gzip data read whole (sp_gunzip, sp_gunzip_stream) and the gzip sink. */
#include "common/common.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

sp_error *sp_gunzip_stream(const char *name, const uint8_t *in, size_t len, uint8_t *buf,
			   size_t buf_size, sp_gunzip_put *put, void *ctx, sp_gunzip_end *end)
{
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	*end = (sp_gunzip_end){.status = SP_GZ_CUT};
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
		return sp_error_new(SP_E_ZLIB, "%s: cannot start inflating", name);
	sp_error *err = NULL;
	size_t used = 0;
	zs.next_in = (Bytef *)in;
	for (;;) {
		/* avail_in is 32 bits: the input goes in in parts */
		if (zs.avail_in == 0) {
			size_t left = len - used;
			if (left == 0)
				break; /* inside a member: SP_GZ_CUT */
			zs.avail_in = left > UINT32_MAX ? UINT32_MAX : (uInt)left;
		}
		zs.next_out = buf;
		zs.avail_out = (uInt)buf_size;
		int rc = inflate(&zs, Z_NO_FLUSH);
		used = (size_t)(zs.next_in - (const Bytef *)in);
		if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
			end->status = SP_GZ_CORRUPT;
			end->msg = zs.msg ? zs.msg : "not deflate data";
			break;
		}
		size_t got = buf_size - zs.avail_out;
		if (got && (err = put(ctx, buf, got)) != NULL)
			break;
		if (rc != Z_STREAM_END)
			continue;
		/* the member ended: another may follow (gzip -c a b > c);
		 * anything else is not gzip data (a cut copy's tail, padding,
		 * two files run together), refused as go tool pprof and
		 * gzip -t do */
		if (used == len) {
			end->status = SP_GZ_END;
			break;
		}
		if (!sp_is_gzip(in + used, len - used)) {
			end->status = SP_GZ_TRAILING;
			break;
		}
		inflateReset(&zs);
	}
	end->at = used;
	inflateEnd(&zs);
	return err;
}

/* sp_gunzip's output: a buffer of at most MAX bytes */
typedef struct {
	const char *name;
	sp_buf b;
	size_t max;
	bool by_budget; /* MAX is the memory limit */
} gunzip_buf;

static sp_error *put_buf(void *ctx, const uint8_t *data, size_t n)
{
	gunzip_buf *g = ctx;
	if (n > g->max - g->b.len) {
		if (g->by_budget) {
			char lim[64];
			sp_format_size(lim, sizeof(lim), g->max);
			return sp_error_new(SP_E_LIMIT,
					    "%s: decompressed data exceeds the memory limit of %s "
					    "(--max-memory)",
					    g->name, lim);
		}
		return sp_error_new(SP_E_LIMIT, "%s: decompressed data exceeds %zu bytes", g->name,
				    g->max);
	}
	sp_buf_append(&g->b, data, n);
	return NULL;
}

sp_error *sp_gunzip(const char *name, const uint8_t *in, size_t len, size_t max,
		    uint8_t **out, size_t *outlen)
{
	*out = NULL;
	*outlen = 0;
	gunzip_buf g = {.name = name, .max = max};
	if (sp_mem_limit() && sp_mem_limit() < max) {
		g.max = sp_mem_limit();
		g.by_budget = true;
	}
	uint8_t chunk[65536];
	sp_gunzip_end end;
	sp_error *err = sp_gunzip_stream(name, in, len, chunk, sizeof(chunk), put_buf, &g, &end);
	if (!err && end.status == SP_GZ_CORRUPT)
		err = sp_error_new(SP_E_ZLIB, "%s: offset %zu: corrupt gzip data (%s)", name, end.at,
				   end.msg);
	else if (!err && end.status == SP_GZ_CUT)
		err = sp_error_new(SP_E_ZLIB,
				   "%s: offset %zu: truncated gzip data (expected end of stream)",
				   name, end.at);
	else if (!err && end.status == SP_GZ_TRAILING)
		err = sp_error_new(SP_E_ZLIB,
				   "%s: offset %zu: %zu bytes after the end of the gzip data, not "
				   "another gzip member",
				   name, end.at, len - end.at);
	if (err) {
		sp_buf_free(&g.b);
		return err;
	}
	sp_buf_str(&g.b);
	*outlen = g.b.len;
	*out = (uint8_t *)sp_buf_take(&g.b);
	return NULL;
}

/* Writers hand the sink a few bytes at a time (a protobuf field, a
 * varint); deflate is given them GZ_CHUNK at a time, which costs less per
 * byte and compresses to the same bytes (with Z_NO_FLUSH, deflate's output
 * does not depend on how its input is cut).
 *
 * Compression at level 6 costs about as much as making what it
 * compresses, so once a second chunk is needed the chunks are deflated on
 * a thread of the sink's own while the writer fills the next one: two
 * buffers, one being filled, one being deflated, handed over under a
 * mutex.  The thread alone touches the z_stream and the inner sink while
 * it runs; an output of one chunk never starts it. */
#define GZ_CHUNK ((size_t)1 << 20)

typedef struct {
	sp_sink base;
	sp_sink *inner;
	z_stream zs;
	bool init;
	uint8_t *buf[2]; /* buf[cur] is being filled */
	size_t fill;
	int cur;
	/* the deflating thread, once started; what follows is under MU */
	bool started;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	const uint8_t *job; /* handed over, not yet deflated; NULL when idle */
	size_t job_len;
	bool quit, failed;
} gz_sink;

/* Compresses what is in zs.next_in into the inner sink; false when
 * deflate fails. */
static bool gz_pump(gz_sink *g, int flush)
{
	uint8_t chunk[65536];
	int rc;
	do {
		g->zs.next_out = chunk;
		g->zs.avail_out = sizeof(chunk);
		rc = deflate(&g->zs, flush);
		if (rc == Z_STREAM_ERROR)
			return false;
		sp_sink_write(g->inner, chunk, sizeof(chunk) - g->zs.avail_out);
	} while (g->zs.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
	return true;
}

/* Deflates [P, P+N) (Z_NO_FLUSH). */
static bool gz_deflate(gz_sink *g, const uint8_t *p, size_t n)
{
	g->zs.next_in = (Bytef *)p;
	g->zs.avail_in = (uInt)n; /* n <= GZ_CHUNK */
	return gz_pump(g, Z_NO_FLUSH);
}

static void *gz_thread(void *arg)
{
	gz_sink *g = arg;
	pthread_mutex_lock(&g->mu);
	for (;;) {
		while (!g->job && !g->quit)
			pthread_cond_wait(&g->cv, &g->mu);
		if (!g->job)
			break;
		const uint8_t *p = g->job;
		size_t n = g->job_len;
		pthread_mutex_unlock(&g->mu);
		bool ok = gz_deflate(g, p, n);
		pthread_mutex_lock(&g->mu);
		g->failed |= !ok;
		g->job = NULL;
		pthread_cond_broadcast(&g->cv);
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

/* Waits until the thread has deflated what it was handed; under MU. */
static void gz_wait_idle(gz_sink *g)
{
	while (g->job)
		pthread_cond_wait(&g->cv, &g->mu);
}

/* Deflates the buffer being filled: on the thread (started the first
 * time; inline when it cannot be), the other buffer taking its place. */
static void gz_hand_over(gz_sink *g)
{
	if (!g->buf[1]) { /* the first hand-over: once only, whether it starts or not */
		g->buf[1] = sp_xmalloc(GZ_CHUNK);
		if (pthread_mutex_init(&g->mu, NULL) == 0) {
			if (pthread_cond_init(&g->cv, NULL) == 0) {
				g->started = pthread_create(&g->thread, NULL, gz_thread, g) == 0;
				if (!g->started)
					pthread_cond_destroy(&g->cv);
			}
			if (!g->started)
				pthread_mutex_destroy(&g->mu);
		}
	}
	if (!g->started) {
		g->failed |= !gz_deflate(g, g->buf[g->cur], g->fill);
		g->fill = 0;
		return;
	}
	pthread_mutex_lock(&g->mu);
	gz_wait_idle(g);
	g->job = g->buf[g->cur];
	g->job_len = g->fill;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
	g->cur ^= 1;
	g->fill = 0;
}

/* Ends the thread after what it was handed; the stream is the caller's
 * again.  Returns whether deflate failed. */
static bool gz_stop(gz_sink *g)
{
	if (g->started) {
		pthread_mutex_lock(&g->mu);
		gz_wait_idle(g);
		g->quit = true;
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->mu);
		pthread_join(g->thread, NULL);
		pthread_cond_destroy(&g->cv);
		pthread_mutex_destroy(&g->mu);
		g->started = false;
	}
	return g->failed;
}

static void gz_write(sp_sink *s, const void *data, size_t n)
{
	gz_sink *g = (gz_sink *)s;
	const uint8_t *p = data;
	while (n) {
		size_t k = GZ_CHUNK - g->fill < n ? GZ_CHUNK - g->fill : n;
		memcpy(g->buf[g->cur] + g->fill, p, k);
		g->fill += k;
		p += k;
		n -= k;
		if (g->fill == GZ_CHUNK)
			gz_hand_over(g);
	}
}

static sp_error *gz_finish(sp_sink *s)
{
	gz_sink *g = (gz_sink *)s;
	bool failed = gz_stop(g);
	if (!failed && g->fill)
		failed = !gz_deflate(g, g->buf[g->cur], g->fill);
	g->fill = 0;
	if (!failed) {
		g->zs.next_in = NULL;
		g->zs.avail_in = 0;
		failed = !gz_pump(g, Z_FINISH);
	}
	if (failed)
		return sp_error_new(SP_E_ZLIB, "gzip: deflate failed");
	if (g->inner->err)
		return sp_error_new(g->inner->err->code, "gzip: inner sink failed");
	return NULL;
}

static void gz_destroy(sp_sink *s)
{
	gz_sink *g = (gz_sink *)s;
	gz_stop(g); /* not finished: the output is dropped */
	if (g->init)
		deflateEnd(&g->zs);
	free(g->buf[0]);
	free(g->buf[1]);
	free(g);
}

sp_sink *sp_sink_gzip_new(sp_sink *inner)
{
	gz_sink *g = sp_xcalloc(1, sizeof(*g));
	g->base.write = gz_write;
	g->base.finish = gz_finish;
	g->base.destroy = gz_destroy;
	g->inner = inner;
	g->buf[0] = sp_xmalloc(GZ_CHUNK);
	/* mtime 0 and no name in the header: same input, same bytes */
	if (deflateInit2(&g->zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		sp_sink_fail(&g->base, sp_error_new(SP_E_ZLIB, "gzip: deflateInit failed"));
	else
		g->init = true;
	return &g->base;
}
