/* jobs.c — one mapping's addresses resolved on the threads of -j.
 *
 * sp_symbolize_profile (symbolize.c) resolves a mapping's distinct
 * addresses in address order and turns each answer into Line entries at
 * once, on the caller's thread: the order in which functions and strings
 * enter the profile is that order.  Here the answers are asked for in the
 * same order (sp_par_next) while other threads resolve addresses ahead,
 * each thread in a session of its own (sp_symbolizer_new_worker: libdw's
 * handles are not shared between threads) that opens the mapping's file
 * again.  A thread's frames are borrowed from its session, so they are
 * copied out (names and files into one text per chunk), and the caller's
 * thread reads them from there in order: the profile gets the bytes that
 * -j 1 gives it.
 *
 * The sorted addresses are cut into chunks of PAR_CHUNK, and the chunks
 * into windows of PAR_WINDOW_PER_JOB chunks per thread.  A window's chunks
 * are shared out in contiguous runs, the caller's thread taking the first:
 * so each session reads mostly the compile units (line tables, function
 * trees) of its own range of addresses, not every unit of the file.  A
 * thread takes its run's chunks in order, then takes chunks from the end
 * of another's run, so a thread the machine does not run holds nothing up;
 * the caller's thread takes chunks so while the one it is to read next is
 * in another's hands.  The next window is shared out once every chunk of
 * this one is taken and the caller reads in it: at most two windows of
 * copies are held, whatever the mapping's size.
 *
 * Pacing.  Another session costs its opening (the file found, its unit
 * index built, the units it meets decoded again: milliseconds to tens of
 * milliseconds on a large C++ program) and its caches' memory.  A mapping
 * starts on the caller's thread alone, resolving in place as -j 1 does.
 * Its first chunk pays for what is built once, and the thread time it
 * takes (the largest seen for the profile) is what a session is taken to
 * spend before its first answer; after it the cost of an address is
 * measured over PAR_PROBE_NS of thread time, and the other threads start
 * only when the share of the addresses left that they would take off the
 * caller's thread is worth twice their opening and PAR_MIN_GAIN_NS more:
 * below that they would not pay for their
 * sessions.  The memory a session takes is estimated as what the heap grew
 * by while the caller's session opened the file and resolved the first
 * chunk; only as many sessions are made as twice that fits in the budget's
 * room (sp_mem_room).  The worker sessions are no evictors of the budget
 * (evictors run on the thread that owns them, and these threads end with
 * the mapping); they are kept for the next mapping of the same object and
 * freed at the first mapping of another, or with the profile's.
 */
#include "symbolize/internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Addresses a thread resolves at a time. */
#define PAR_CHUNK 256
/* A mapping with fewer distinct addresses to resolve stays on one thread. */
#define PAR_MIN_ADDRS 2048
/* Thread time over which the cost of an address is measured. */
#define PAR_PROBE_NS 2e6
/* Thread time the other threads must take off the caller's, besides
 * twice what opening their sessions costs. */
#define PAR_MIN_GAIN_NS 5e6
/* Chunks of a window, per thread. */
#define PAR_WINDOW_PER_JOB 32

/* A frame copied out of a session: its strings as offsets into the
 * chunk's text, plus one (0: NULL). */
typedef struct {
	size_t name, system_name, gnu_name, file;
	int64_t line;
	int32_t column, start_line;
	uint32_t discriminator;
	bool inlined;
} cframe;

typedef struct {
	size_t first, n; /* its frames: the chunk's frames[first..first+n) */
	sp_error *err;   /* the resolver's error (handed to the reader) */
} canswer;

typedef struct {
	canswer *ans;    /* PAR_CHUNK of them, made by the thread resolving it */
	cframe *frames;
	size_t n_frames, cap_frames;
	sp_buf text;
	bool done;       /* under the lock */
} chunk;

typedef struct {
	size_t next, end; /* what is left of a thread's run of the window */
} share;

typedef struct worker {
	sp_par *par;
	int index;        /* its share: shares[index]; the caller's is 0 */
	sp_symbolizer *s; /* its own session (sp_symbolizer_new_worker) */
	pthread_t tid;
	bool started;
} worker;

struct sp_par {
	sp_symbolizer *s;
	int jobs;
	worker *w;          /* jobs - 1 of them */
	int n_sessions;     /* w[0..n_sessions) have sessions */
	const sp_object *sessions_obj; /* the object they were made for */
	size_t session_cost; /* estimated bytes of a session: the largest seen */
	double open_ns;     /* estimated thread time of its opening: the largest seen */
	/* the mapping in hand (sp_par_begin .. sp_par_end) */
	sp_object *obj;
	const char *path;
	bool debuginfod;
	const uint64_t *vaddrs;
	size_t n, next;     /* addresses, and the next one asked for */
	size_t heap0;       /* sp_mem_in_use at the start */
	bool probing;       /* on the caller's thread, measuring */
	double t_begin;     /* thread time at sp_par_begin */
	double t0;          /* thread time when the measure began */
	size_t k0;          /* ... and the address it began at */
	bool threads;       /* the workers run: answers come from chunks */
	int n_threads;      /* workers started (w[0..n_threads)) */
	size_t base;        /* chunks cover vaddrs[base..n) */
	chunk *chunks;
	size_t n_chunks;
	/* under the lock: */
	size_t cur;         /* the chunk the caller's thread reads */
	size_t w_lo, w_hi;  /* the window shared out */
	share *shares;      /* n_threads + 1 */
	bool quit;
	sp_frame *out;      /* the frames handed out by sp_par_next */
	size_t cap_out;
	pthread_mutex_t lock, open_lock;
	pthread_cond_t work; /* a window was shared out, or quit */
	pthread_cond_t done; /* a chunk was resolved */
};

sp_par *sp_par_new(sp_symbolizer *s, int jobs)
{
	if (jobs < 2)
		return NULL;
	if (jobs > SP_BATCH_JOBS_MAX)
		jobs = SP_BATCH_JOBS_MAX;
	sp_par *p = sp_xcalloc(1, sizeof(*p));
	p->s = s;
	p->jobs = jobs;
	p->w = sp_xcalloc((size_t)jobs - 1, sizeof(*p->w));
	p->shares = sp_xcalloc((size_t)jobs, sizeof(*p->shares));
	pthread_mutex_init(&p->lock, NULL);
	pthread_mutex_init(&p->open_lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	return p;
}

static void free_sessions(sp_par *p)
{
	for (int k = 0; k < p->n_sessions; k++) {
		/* what they found to say (a split unit refused) is the caller's */
		sp_symbolizer_pass_notes(p->s, p->w[k].s);
		sp_symbolizer_free(p->w[k].s);
	}
	p->n_sessions = 0;
}

void sp_par_free(sp_par *p)
{
	if (!p)
		return;
	free_sessions(p);
	free(p->w);
	free(p->shares);
	free(p->out);
	pthread_cond_destroy(&p->done);
	pthread_cond_destroy(&p->work);
	pthread_mutex_destroy(&p->open_lock);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

bool sp_par_begin(sp_par *p, sp_object *o, bool debuginfod, const uint64_t *vaddrs, size_t n)
{
	if (!p || n < PAR_MIN_ADDRS)
		return false;
	p->obj = o;
	p->path = sp_object_path(o);
	p->debuginfod = debuginfod;
	p->vaddrs = vaddrs;
	p->n = n;
	p->next = 0;
	p->heap0 = sp_mem_in_use();
	p->t_begin = sp_thread_cpu_ns();
	p->probing = true;
	p->threads = p->quit = false;
	p->k0 = 0;
	return true;
}

/* Appends S to T: its offset plus one (0 for NULL). */
static size_t keep(sp_buf *t, const char *s)
{
	if (!s)
		return 0;
	size_t off = t->len;
	sp_buf_append(t, s, strlen(s) + 1);
	return off + 1;
}

/* The addresses of chunk T */
static size_t chunk_len(const sp_par *p, size_t t)
{
	size_t from = p->base + t * PAR_CHUNK;
	return p->n - from < PAR_CHUNK ? p->n - from : PAR_CHUNK;
}

/* Resolves chunk T in object O (the caller's, or a worker's: ONCE, as
 * nothing of it is kept there) and copies its frames into it. */
static void resolve_chunk(sp_par *p, sp_object *o, bool once, size_t t)
{
	chunk *ch = &p->chunks[t];
	size_t from = p->base + t * PAR_CHUNK, len = chunk_len(p, t);
	ch->ans = sp_xcalloc(len, sizeof(*ch->ans));
	for (size_t k = 0; k < len; k++) {
		const sp_frame *f = NULL;
		size_t nf = 0;
		canswer *a = &ch->ans[k];
		a->err = once ? sp_object_resolve_once(o, p->vaddrs[from + k], &f, &nf)
			      : sp_object_resolve(o, p->vaddrs[from + k], &f, &nf);
		a->first = ch->n_frames;
		a->n = a->err ? 0 : nf;
		if (!a->n)
			continue;
		sp_grow(&ch->frames, &ch->cap_frames, ch->n_frames + nf, sizeof(*ch->frames));
		for (size_t i = 0; i < nf; i++) {
			cframe *c = &ch->frames[ch->n_frames++];
			c->name = keep(&ch->text, f[i].name);
			c->system_name = f[i].system_name == f[i].name ? c->name
								     : keep(&ch->text, f[i].system_name);
			c->gnu_name = f[i].gnu_name == f[i].name ? c->name
								 : keep(&ch->text, f[i].gnu_name);
			c->file = keep(&ch->text, f[i].file);
			c->line = f[i].line;
			c->column = f[i].column;
			c->start_line = f[i].start_line;
			c->discriminator = f[i].discriminator;
			c->inlined = f[i].inlined;
		}
	}
}

static void chunk_clear(chunk *ch, size_t len)
{
	for (size_t i = 0; ch->ans && i < len; i++)
		sp_error_free(ch->ans[i].err);
	free(ch->ans);
	free(ch->frames);
	sp_buf_free(&ch->text);
	ch->ans = NULL;
	ch->frames = NULL;
	ch->n_frames = ch->cap_frames = 0;
}

/* Under the lock: shares out the next window, when every chunk of this
 * one is taken and the caller's thread reads in it.  Whether it did. */
static bool next_window(sp_par *p)
{
	int n = p->n_threads + 1;
	for (int k = 0; k < n; k++)
		if (p->shares[k].next < p->shares[k].end)
			return false;
	if (p->w_hi == p->n_chunks || p->cur < p->w_lo)
		return false;
	size_t per = PAR_WINDOW_PER_JOB * (size_t)n;
	p->w_lo = p->w_hi;
	p->w_hi = p->n_chunks - p->w_lo < per ? p->n_chunks : p->w_lo + per;
	size_t len = p->w_hi - p->w_lo;
	for (int k = 0; k < n; k++) {
		p->shares[k].next = p->w_lo + len * (size_t)k / (size_t)n;
		p->shares[k].end = p->w_lo + len * (size_t)(k + 1) / (size_t)n;
	}
	pthread_cond_broadcast(&p->work);
	return true;
}

/* Under the lock: the next chunk of thread INDEX's run, else the last of
 * another's, else of the next window; false when none is left now. */
static bool take(sp_par *p, int index, size_t *t)
{
	int n = p->n_threads + 1;
	do {
		share *own = &p->shares[index];
		if (own->next < own->end) {
			*t = own->next++;
			return true;
		}
		for (int k = 1; k < n; k++) {
			share *v = &p->shares[(index + k) % n];
			if (v->next < v->end) {
				*t = --v->end;
				return true;
			}
		}
	} while (next_window(p));
	return false;
}

static void *work(void *arg)
{
	worker *w = arg;
	sp_par *p = w->par;
	sp_object *o = NULL;
	/* one session opens at a time: opening may ask debuginfod, whose
	 * client library is not for two threads at once */
	pthread_mutex_lock(&p->open_lock);
	sp_finder_allow_debuginfod(sp_symbolizer_finder(w->s), p->debuginfod);
	sp_error *e = sp_symbolizer_object(w->s, p->path, NULL, &o);
	if (!e)
		e = sp_object_open(o);
	/* an error with the object made is cached in it: its addresses get
	 * the answers they get in the caller's session */
	sp_error_free(e);
	pthread_mutex_unlock(&p->open_lock);
	if (!o)
		return NULL; /* the others take its run */
	size_t t;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->quit && !take(p, w->index, &t))
			pthread_cond_wait(&p->work, &p->lock);
		if (p->quit)
			break;
		pthread_mutex_unlock(&p->lock);
		resolve_chunk(p, o, true, t);
		pthread_mutex_lock(&p->lock);
		p->chunks[t].done = true;
		pthread_cond_broadcast(&p->done);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* After the probe: the other threads, when the work left pays for them
 * and the budget has room for their sessions. */
static void start(sp_par *p, double ns_per_addr)
{
	size_t left = p->n - p->next;
	/* what the others would take off this thread, against what each
	 * spends opening its session before it resolves */
	double gain = (double)left * ns_per_addr * (double)(p->jobs - 1) / (double)p->jobs;
	if (gain < 2 * p->open_ns + PAR_MIN_GAIN_NS || left < PAR_CHUNK * 2)
		return;
	size_t in_use = sp_mem_in_use();
	size_t cost = in_use > p->heap0 ? in_use - p->heap0 : 0;
	if (cost > p->session_cost)
		p->session_cost = cost;
	if (p->n_sessions && p->sessions_obj != p->obj)
		free_sessions(p); /* they hold another object's resolver */
	p->sessions_obj = p->obj;
	int want = p->jobs - 1;
	size_t room = sp_mem_room();
	if (room != SIZE_MAX) {
		/* sessions made for an earlier mapping are in the heap already */
		size_t fits = room / (2 * (p->session_cost ? p->session_cost : 1));
		if ((size_t)want > fits + (size_t)p->n_sessions)
			want = (int)(fits + (size_t)p->n_sessions);
	}
	if (want < 1)
		return;
	while (p->n_sessions < want) {
		worker *w = &p->w[p->n_sessions++];
		w->s = sp_symbolizer_new_worker(p->s);
		w->par = p;
		w->index = p->n_sessions;
	}
	p->base = p->next;
	p->n_chunks = (left + PAR_CHUNK - 1) / PAR_CHUNK;
	p->chunks = sp_xcalloc(p->n_chunks, sizeof(*p->chunks));
	p->cur = p->w_lo = p->w_hi = 0;
	p->n_threads = want;
	memset(p->shares, 0, (size_t)p->jobs * sizeof(*p->shares));
	next_window(p);
	p->threads = true;
	for (int k = 0; k < want; k++)
		p->w[k].started = pthread_create(&p->w[k].tid, NULL, work, &p->w[k]) == 0;
}

/* The caller's thread: until chunk T is resolved, resolves the chunks it
 * can take, else waits. */
static void wait_chunk(sp_par *p, size_t t)
{
	size_t c;
	pthread_mutex_lock(&p->lock);
	if (t != p->cur) { /* (the last chunk read is cleared) */
		p->cur = t;
		next_window(p);
	}
	while (!p->chunks[t].done) {
		if (!take(p, 0, &c)) {
			pthread_cond_wait(&p->done, &p->lock);
			continue;
		}
		pthread_mutex_unlock(&p->lock);
		resolve_chunk(p, p->obj, false, c);
		pthread_mutex_lock(&p->lock);
		p->chunks[c].done = true;
	}
	pthread_mutex_unlock(&p->lock);
}

/* The caller's thread, until the threads start: resolving in place, and
 * measuring what an address costs. */
static sp_error *next_here(sp_par *p, size_t k, const sp_frame **frames, size_t *n)
{
	sp_error *e = sp_object_resolve(p->obj, p->vaddrs[k], frames, n);
	if (!p->probing)
		return e;
	/* the first chunk pays for what is built once: the cost of an
	 * address is measured after it (the clock read every 16) */
	if (k + 1 == PAR_CHUNK) {
		p->t0 = sp_thread_cpu_ns();
		p->k0 = k + 1;
		/* what another session spends before its first answers: at
		 * least what this one did (the object may have been open) */
		if (p->t0 - p->t_begin > p->open_ns)
			p->open_ns = p->t0 - p->t_begin;
	} else if (k + 1 > PAR_CHUNK && (k + 1) % 16 == 0) {
		double took = sp_thread_cpu_ns() - p->t0;
		if (took >= PAR_PROBE_NS) {
			p->probing = false;
			/* the frames stay valid: nothing is opened or resolved
			 * in this session before they are read */
			start(p, took / (double)(k + 1 - p->k0));
		}
	}
	return e;
}

sp_error *sp_par_next(sp_par *p, const sp_frame **frames, size_t *n)
{
	size_t k = p->next++;
	if (!p->threads)
		return next_here(p, k, frames, n);
	size_t t = (k - p->base) / PAR_CHUNK, i = (k - p->base) % PAR_CHUNK;
	if (i == 0) {
		if (t)
			chunk_clear(&p->chunks[t - 1], PAR_CHUNK); /* read */
		wait_chunk(p, t);
	}
	chunk *ch = &p->chunks[t];
	canswer *a = &ch->ans[i];
	sp_error *e = a->err;
	a->err = NULL;
	if (a->n > p->cap_out) {
		p->out = sp_xreallocarray(p->out, a->n, sizeof(*p->out));
		p->cap_out = a->n;
	}
	const char *text = ch->text.data;
	for (size_t x = 0; x < a->n; x++) {
		const cframe *c = &ch->frames[a->first + x];
		p->out[x] = (sp_frame){
			.name = c->name ? text + c->name - 1 : NULL,
			.system_name = c->system_name ? text + c->system_name - 1 : NULL,
			.gnu_name = c->gnu_name ? text + c->gnu_name - 1 : NULL,
			.file = c->file ? text + c->file - 1 : NULL,
			.line = c->line,
			.column = c->column,
			.start_line = c->start_line,
			.discriminator = c->discriminator,
			.inlined = c->inlined,
		};
	}
	*frames = p->out;
	*n = a->n;
	return e;
}

void sp_par_end(sp_par *p)
{
	if (!p || !p->obj)
		return;
	if (p->threads) {
		pthread_mutex_lock(&p->lock);
		p->quit = true;
		pthread_cond_broadcast(&p->work);
		pthread_mutex_unlock(&p->lock);
		for (int k = 0; k < p->n_threads; k++)
			if (p->w[k].started)
				pthread_join(p->w[k].tid, NULL);
		/* what was resolved and not read (errors included) */
		for (size_t t = 0; t < p->n_chunks; t++)
			chunk_clear(&p->chunks[t], chunk_len(p, t));
		free(p->chunks);
		p->chunks = NULL;
	}
	p->obj = NULL;
	p->threads = false;
}
