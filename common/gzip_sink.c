/* gzip_sink.c — the gzip sink: what writers write, gzip-compressed into
 * another sink (pprof's .pb.gz).  zlib's deflate itself is
 * decompress_zlib.c's (sp_deflater), the one file that includes zlib.h.
 *
 * The input is cut into blocks of GZ_BLOCK bytes, each deflated apart
 * (decompressp.h: primed with the 32 KiB of input before it, ended by a
 * sync flush), as pigz does, so that blocks can be deflated on several
 * threads.  The bytes depend only on the input: never on how the writes
 * cut it, nor on the threads.  An output of one block is the bytes zlib's
 * own gzip deflate writes at level 6 (mtime 0, no name, OS 3).
 *
 * Compression at level 6 costs about twice what making its input does, so
 * once a second block is needed, blocks are deflated on threads of the
 * sink's own (sp_sink_gzip_threads: -j, by default the CPUs this process
 * may use; at most GZ_THREADS_MAX) while
 * the writer fills the next block.  Blocks live in a ring of twice as many
 * slots as threads; a slot goes FREE -> QUEUED (handed over) -> RUNNING (a
 * thread deflates it) -> DONE, under MU.  Only the writer's thread touches
 * the inner sink: it writes the done blocks in order before it reuses
 * their slots, and the rest at finish.  Without threads (one block, or
 * none could start) the writer deflates each block itself.
 */
#include "common/decompressp.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define GZ_BLOCK ((size_t)1 << 20)
#define GZ_WINDOW ((size_t)32 << 10)
#define GZ_THREADS_MAX 8

enum { SLOT_FREE, SLOT_QUEUED, SLOT_RUNNING, SLOT_DONE };

typedef struct {
	uint8_t *in; /* GZ_BLOCK bytes */
	size_t len;
	uint8_t *dict; /* GZ_WINDOW bytes: the input before this block */
	size_t dict_len;
	bool last;
	sp_buf out;
	uint32_t crc;
	int state;
	bool failed;
} gz_slot;

typedef struct {
	sp_sink base;
	sp_sink *inner;
	sp_deflater *z; /* the writer's own, for blocks it deflates itself */
	gz_slot *ring;
	size_t n_ring;
	size_t fill_seq;  /* the block being filled: ring[fill_seq % n_ring] */
	size_t write_seq; /* the next block to write out */
	size_t take_seq;  /* the next block a thread takes */
	uint8_t *window;  /* the last GZ_WINDOW bytes of input handed over */
	size_t window_len;
	uint32_t crc;
	uint64_t total;
	bool header_done, failed;
	/* the threads, once started; ring states and what follows under MU */
	int n_threads;
	pthread_t *threads;
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	bool quit;
} gz_sink;

static _Atomic int gz_threads; /* sp_sink_gzip_threads; 0: the CPUs */

void sp_sink_gzip_threads(int n)
{
	gz_threads = n < 0 ? 0 : n;
}

static gz_slot *slot_of(gz_sink *g, size_t seq)
{
	return &g->ring[seq % g->n_ring];
}

static void deflate_slot(sp_deflater *z, gz_slot *s)
{
	s->out.len = 0;
	s->failed = !z || !sp_deflater_block(z, s->dict, s->dict_len, s->in, s->len, s->last,
					     &s->out, &s->crc);
}

static void *gz_thread(void *arg)
{
	gz_sink *g = arg;
	sp_signals_block_in_thread(); /* a signal's handler runs on the caller's */
	sp_deflater *z = sp_deflater_new();
	pthread_mutex_lock(&g->mu);
	for (;;) {
		while (!g->quit &&
		       (g->take_seq == g->fill_seq || slot_of(g, g->take_seq)->state != SLOT_QUEUED))
			pthread_cond_wait(&g->work, &g->mu);
		if (g->quit)
			break;
		gz_slot *s = slot_of(g, g->take_seq++);
		s->state = SLOT_RUNNING;
		pthread_mutex_unlock(&g->mu);
		deflate_slot(z, s);
		pthread_mutex_lock(&g->mu);
		s->state = SLOT_DONE;
		pthread_cond_broadcast(&g->done);
	}
	pthread_mutex_unlock(&g->mu);
	sp_deflater_free(z);
	return NULL;
}

/* Writes the done blocks at the head of the ring, in order; with WAIT,
 * every block handed over (waiting for the threads).  Under MU when the
 * threads run (released while writing). */
static void write_done(gz_sink *g, bool wait)
{
	if (!g->header_done) {
		/* gzip, deflate, no flags, mtime 0, no extra flags, OS 3 (Unix) */
		static const uint8_t header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
		sp_sink_write(g->inner, header, sizeof(header));
		g->header_done = true;
	}
	while (g->write_seq < g->fill_seq) {
		gz_slot *s = slot_of(g, g->write_seq);
		if (s->state != SLOT_DONE) {
			if (!wait || !g->n_threads)
				return;
			pthread_cond_wait(&g->done, &g->mu);
			continue;
		}
		if (g->n_threads)
			pthread_mutex_unlock(&g->mu);
		g->failed |= s->failed;
		if (!g->failed) {
			sp_sink_write(g->inner, s->out.data, s->out.len);
			g->crc = g->write_seq ? sp_crc32_combine(g->crc, s->crc, s->len) : s->crc;
		}
		if (g->n_threads)
			pthread_mutex_lock(&g->mu);
		s->state = SLOT_FREE;
		g->write_seq++;
	}
}

/* Starts the threads and grows the ring (once, at the first hand-over of
 * a block that is not the last); none when they cannot start. */
static void start_threads(gz_sink *g)
{
	int want = gz_threads ? gz_threads : sp_cpus_available();
	want = want > GZ_THREADS_MAX ? GZ_THREADS_MAX : want;
	g->threads = sp_xcalloc((size_t)want, sizeof(*g->threads)); /* tried once */
	if (pthread_mutex_init(&g->mu, NULL) != 0)
		return;
	if (pthread_cond_init(&g->work, NULL) != 0 || pthread_cond_init(&g->done, NULL) != 0) {
		pthread_mutex_destroy(&g->mu);
		return;
	}
	size_t n = 2 * (size_t)want;
	g->ring = sp_xreallocarray(g->ring, n, sizeof(*g->ring));
	memset(g->ring + 1, 0, (n - 1) * sizeof(*g->ring));
	for (size_t i = 1; i < n; i++) {
		g->ring[i].in = sp_xmalloc(GZ_BLOCK);
		g->ring[i].dict = sp_xmalloc(GZ_WINDOW);
	}
	g->n_ring = n;
	pthread_mutex_lock(&g->mu);
	for (int i = 0; i < want; i++) {
		if (pthread_create(&g->threads[g->n_threads], NULL, gz_thread, g) != 0)
			break;
		g->n_threads++;
	}
	pthread_mutex_unlock(&g->mu);
	if (!g->n_threads) {
		pthread_cond_destroy(&g->done);
		pthread_cond_destroy(&g->work);
		pthread_mutex_destroy(&g->mu);
	}
}

/* Keeps the last GZ_WINDOW bytes of the input handed over, P[0..n) the
 * latest. */
static void slide_window(gz_sink *g, const uint8_t *p, size_t n)
{
	if (n >= GZ_WINDOW) {
		memcpy(g->window, p + n - GZ_WINDOW, GZ_WINDOW);
		g->window_len = GZ_WINDOW;
		return;
	}
	size_t drop = g->window_len + n > GZ_WINDOW ? g->window_len + n - GZ_WINDOW : 0;
	memmove(g->window, g->window + drop, g->window_len - drop);
	memcpy(g->window + g->window_len - drop, p, n);
	g->window_len += n - drop;
}

/* Hands over the block being filled (LAST: the stream's last) and makes
 * the next slot the one filled. */
static void hand_over(gz_sink *g, bool last)
{
	if (!last && !g->threads)
		start_threads(g); /* (the ring moves) */
	gz_slot *s = slot_of(g, g->fill_seq);
	memcpy(s->dict, g->window, g->window_len);
	s->dict_len = g->window_len;
	s->last = last;
	slide_window(g, s->in, s->len);
	g->total += s->len;
	if (!g->n_threads) {
		deflate_slot(g->z, s);
		s->state = SLOT_DONE;
		g->fill_seq++;
		write_done(g, false);
		slot_of(g, g->fill_seq)->len = 0;
		return;
	}
	pthread_mutex_lock(&g->mu);
	s->state = SLOT_QUEUED;
	g->fill_seq++;
	pthread_cond_signal(&g->work);
	/* the next slot must be written out before it is filled again */
	write_done(g, false);
	while (slot_of(g, g->fill_seq)->state != SLOT_FREE) {
		pthread_cond_wait(&g->done, &g->mu);
		write_done(g, false);
	}
	slot_of(g, g->fill_seq)->len = 0;
	pthread_mutex_unlock(&g->mu);
}

/* Ends the threads (the blocks in hand are finished first). */
static void stop_threads(gz_sink *g)
{
	if (!g->n_threads)
		return;
	pthread_mutex_lock(&g->mu);
	g->quit = true;
	pthread_cond_broadcast(&g->work);
	pthread_mutex_unlock(&g->mu);
	for (int i = 0; i < g->n_threads; i++)
		pthread_join(g->threads[i], NULL);
	pthread_cond_destroy(&g->done);
	pthread_cond_destroy(&g->work);
	pthread_mutex_destroy(&g->mu);
	g->n_threads = 0;
}

static void gz_write(sp_sink *s, const void *data, size_t n)
{
	gz_sink *g = (gz_sink *)s;
	const uint8_t *p = data;
	while (n) {
		gz_slot *b = slot_of(g, g->fill_seq);
		size_t k = GZ_BLOCK - b->len < n ? GZ_BLOCK - b->len : n;
		memcpy(b->in + b->len, p, k);
		b->len += k;
		p += k;
		n -= k;
		if (b->len == GZ_BLOCK)
			hand_over(g, false);
	}
}

static sp_error *gz_finish(sp_sink *s)
{
	gz_sink *g = (gz_sink *)s;
	hand_over(g, true);
	if (g->n_threads) {
		pthread_mutex_lock(&g->mu);
		write_done(g, true);
		pthread_mutex_unlock(&g->mu);
	}
	stop_threads(g);
	if (!g->failed) {
		uint8_t trailer[8];
		for (int i = 0; i < 4; i++) {
			trailer[i] = (uint8_t)(g->crc >> (8 * i));
			trailer[4 + i] = (uint8_t)(g->total >> (8 * i));
		}
		sp_sink_write(g->inner, trailer, sizeof(trailer));
	}
	if (g->failed)
		return sp_error_new(SP_E_ZLIB, "gzip: deflate failed");
	if (g->inner->err)
		return sp_error_dup(g->inner->err); /* the file and the cause: EFBIG, EPIPE, ... */
	return NULL;
}

static void gz_destroy(sp_sink *s)
{
	gz_sink *g = (gz_sink *)s;
	stop_threads(g); /* not finished: the output is dropped */
	sp_deflater_free(g->z);
	for (size_t i = 0; i < g->n_ring; i++) {
		free(g->ring[i].in);
		free(g->ring[i].dict);
		sp_buf_free(&g->ring[i].out);
	}
	free(g->ring);
	free(g->threads);
	free(g->window);
	free(g);
}

sp_sink *sp_sink_gzip_new(sp_sink *inner)
{
	gz_sink *g = sp_xcalloc(1, sizeof(*g));
	g->base.write = gz_write;
	g->base.finish = gz_finish;
	g->base.destroy = gz_destroy;
	g->inner = inner;
	g->n_ring = 1;
	g->ring = sp_xcalloc(1, sizeof(*g->ring));
	g->ring[0].in = sp_xmalloc(GZ_BLOCK);
	g->ring[0].dict = sp_xmalloc(GZ_WINDOW);
	g->window = sp_xmalloc(GZ_WINDOW);
	g->z = sp_deflater_new();
	if (!g->z)
		sp_sink_fail(&g->base, sp_error_new(SP_E_ZLIB, "gzip: deflateInit failed"));
	return &g->base;
}
