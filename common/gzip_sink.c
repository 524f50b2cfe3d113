/* gzip_sink.c — the gzip sink: what writers write, gzip-compressed into
 * another sink (pprof's .pb.gz).  zlib's deflate itself is
 * decompress_zlib.c's (sp_deflater), the one file that includes zlib.h. */
#include "common/decompressp.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Writers hand the sink a few bytes at a time (a protobuf field, a
 * varint); deflate is given them GZ_CHUNK at a time, which costs less per
 * byte and compresses to the same bytes (with Z_NO_FLUSH, deflate's output
 * does not depend on how its input is cut).
 *
 * Compression at level 6 costs about as much as making what it
 * compresses, so once a second chunk is needed the chunks are deflated on
 * a thread of the sink's own while the writer fills the next one: two
 * buffers, one being filled, one being deflated, handed over under a
 * mutex.  The thread alone touches the deflater and the inner sink while
 * it runs; an output of one chunk never starts it. */
#define GZ_CHUNK ((size_t)1 << 20)

typedef struct {
	sp_sink base;
	sp_sink *inner;
	sp_deflater *z;
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

/* Deflates [P, P+N) (no flush). */
static bool gz_deflate(gz_sink *g, const uint8_t *p, size_t n)
{
	return sp_deflater_run(g->z, p, n, false, g->inner); /* n <= GZ_CHUNK */
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
	if (!failed)
		failed = !sp_deflater_run(g->z, NULL, 0, true, g->inner);
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
	sp_deflater_free(g->z);
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
	g->z = sp_deflater_new(); /* mtime 0, no name: same input, same bytes */
	if (!g->z)
		sp_sink_fail(&g->base, sp_error_new(SP_E_ZLIB, "gzip: deflateInit failed"));
	return &g->base;
}
