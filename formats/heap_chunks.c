/* heap_chunks.c — a heap profile file's sample lines scanned on several
 * threads (heap.c's sp_read_options.jobs), for lines like
 *
 *        4:      256 [     4:      256] @ 0x5555558d1273 0x55555568489b
 *
 * The input after the header is read in chunks of whole lines, about
 * CHUNK_BYTES each, numbered in input order.  Any thread, the caller's
 * included, takes the next chunk (one thread reads the file at a time),
 * and scans it with no lock: each line's counts parsed, its stack's text
 * hashed and looked up among the stacks already built.  The caller's
 * thread builds the chunks in their numbers' order: a stack not found by
 * the scanner is looked up again (it may have been built since), a new one
 * parsed and kept as on one thread, so the stacks are numbered, the
 * locations interned and the samples added in the same order as line by
 * line.  When the next chunk to build is not scanned yet, the caller's
 * thread scans one itself.
 *
 * Errors come in input order: a scanner stops a chunk at its first bad
 * line and keeps where it is; the builder, having built the records
 * before it, makes that line's error again with its number in the input
 * (the number of lines of the chunks before it is known then).  An
 * address that does not parse is found by the builder, the first time a
 * stack is seen, as on one thread.  A memory-map marker ends a chunk's
 * samples: the map is that chunk's text after it, the chunks read after
 * it and the rest of the file.
 *
 * Memory: at most SLOTS_PER_JOB chunks per thread are read and not yet
 * built (their text and records), each allocated through the budget. */
#include "formats/heapp.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_BYTES ((size_t)1 << 20)
#define SLOTS_PER_JOB 2
#define MAX_SLOTS 32
/* The stacks the scanners may look up: past this many, later stacks are
 * found by the builder alone. */
#define SHARED_MAX ((size_t)1 << 20)

/* -- the stacks built, for the scanners ------------------------------------------
 * An open-addressing table of the kept stacks that only the builder adds
 * to and the scanners read at the same time.  An entry is written whole
 * before its slot is published (release; the scanners load with acquire);
 * a table that fills is copied into one twice its size, published the
 * same way, the old one kept until the end for scanners still in it.  A
 * scanner that misses a stack added meanwhile leaves it to the builder. */
typedef struct {
	uint64_t hash;
	const char *s; /* in the heap_scan's table, which never moves its strings */
	size_t n;
	size_t id;
} shared_entry;

typedef struct shared_table {
	size_t mask;
	_Atomic(const shared_entry *) *slot;
	struct shared_table *older;
} shared_table;

typedef struct {
	_Atomic(shared_table *) cur;
	size_t n;                /* entries; the builder's */
	shared_entry **blocks;   /* entries, 4096 per block; the builder's */
	size_t n_blocks, cap_blocks;
} shared_stacks;

#define ENTRY_BLOCK 4096

static shared_table *table_new(size_t slots, shared_table *older)
{
	shared_table *t = sp_xmalloc(sizeof(*t));
	t->mask = slots - 1;
	t->slot = sp_xmalloc(slots * sizeof(*t->slot));
	for (size_t i = 0; i < slots; i++)
		atomic_init(&t->slot[i], NULL);
	t->older = older;
	return t;
}

static void table_put(shared_table *t, const shared_entry *e)
{
	size_t i = e->hash & t->mask;
	while (atomic_load_explicit(&t->slot[i], memory_order_relaxed))
		i = (i + 1) & t->mask;
	atomic_store_explicit(&t->slot[i], e, memory_order_release);
}

/* The id of the stack [S, S+N) of hash HASH, or SIZE_MAX; any thread. */
static size_t shared_find(shared_stacks *sh, uint64_t hash, const char *s, size_t n)
{
	shared_table *t = atomic_load_explicit(&sh->cur, memory_order_acquire);
	for (size_t i = hash & t->mask;; i = (i + 1) & t->mask) {
		const shared_entry *e = atomic_load_explicit(&t->slot[i], memory_order_acquire);
		if (!e)
			return SIZE_MAX;
		if (e->hash == hash && e->n == n && memcmp(e->s, s, n) == 0)
			return e->id;
	}
}

/* Adds stack ID, [S, S+N); the builder's thread only. */
static void shared_add(shared_stacks *sh, uint64_t hash, const char *s, size_t n, size_t id)
{
	if (sh->n >= SHARED_MAX)
		return;
	if (sh->n % ENTRY_BLOCK == 0) {
		shared_entry *b = sp_xmalloc(ENTRY_BLOCK * sizeof(*b));
		SP_PUSH(sh->blocks, sh->n_blocks, sh->cap_blocks, b);
	}
	shared_entry *e = &sh->blocks[sh->n / ENTRY_BLOCK][sh->n % ENTRY_BLOCK];
	*e = (shared_entry){hash, s, n, id};
	sh->n++;
	shared_table *t = atomic_load_explicit(&sh->cur, memory_order_relaxed);
	if (sh->n * 2 > t->mask + 1) {
		shared_table *big = table_new((t->mask + 1) * 2, t);
		for (size_t i = 0; i + 1 < sh->n; i++)
			table_put(big, &sh->blocks[i / ENTRY_BLOCK][i % ENTRY_BLOCK]);
		table_put(big, e);
		atomic_store_explicit(&sh->cur, big, memory_order_release);
		return;
	}
	table_put(t, e);
}

static void shared_free(shared_stacks *sh)
{
	shared_table *t = atomic_load_explicit(&sh->cur, memory_order_relaxed);
	while (t) {
		shared_table *o = t->older;
		free(t->slot);
		free(t);
		t = o;
	}
	for (size_t i = 0; i < sh->n_blocks; i++)
		free(sh->blocks[i]);
	free(sh->blocks);
}

/* -- chunks ----------------------------------------------------------------------- */

/* A sample line as scanned: its values, where its stack's text is in the
 * chunk, the stack's hash and its id when it was found. */
typedef struct {
	int64_t vals[4];
	int64_t blocksize;
	uint64_t hash;
	size_t at, n; /* the stack's text: [at, at + n) of the chunk */
	size_t id;    /* SIZE_MAX: not found by the scanner */
	size_t line;  /* 1-based, within the chunk */
} chunk_rec;

enum { CHUNK_FREE, CHUNK_SCANNING, CHUNK_SCANNED };

typedef struct {
	int state; /* under the pipe's MU */
	char *text;
	size_t len, cap;
	chunk_rec *recs;
	size_t n_recs, cap_recs;
	size_t n_lines; /* lines scanned (all of them unless it stopped) */
	bool maps;      /* the samples end at a marker line; the map from MAPS_AT */
	size_t maps_at;
	bool bad; /* line BAD_LINE, [BAD_AT, BAD_AT + BAD_LEN), is not a sample line */
	size_t bad_at, bad_len, bad_line;
} chunk;

typedef struct {
	heap_scan *sc; /* the builder's, but for sc->name and sc->h */
	FILE *f;
	shared_stacks shared;
	chunk *slot;
	size_t n_slots;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	/* under MU: */
	size_t n_read; /* chunks read: chunk k is in slot k % n_slots */
	size_t built;  /* chunks built (and their slots free) */
	bool reading;  /* a thread is reading: the fields below are its */
	bool ended;    /* nothing more will be read */
	bool stop;     /* the builder is done: the threads leave */
	/* the reader's: */
	char *carry; /* what follows the last chunk read: part of a line */
	size_t carry_len, carry_cap;
	size_t offset; /* bytes of the file read */
	bool eof;
	sp_error *read_err;
} heap_pipe;

/* Up to CAP bytes of the input into BUF: how many; at its end or on a
 * read error (kept) none, and HP says which. */
static size_t read_some(heap_pipe *hp, char *buf, size_t cap)
{
	size_t r = fread(buf, 1, cap, hp->f);
	if (r == 0 && ferror(hp->f))
		hp->read_err = sp_error_new(SP_E_IO, "read error after byte %zu: %s", hp->offset,
					    strerror(errno));
	else if (r == 0)
		hp->eof = true;
	hp->offset += r;
	return r;
}

/* Reads the next chunk into C: the carry and what follows, up to the last
 * '\n' (all of it at the end of the file).  False when there is nothing
 * more.  The caller holds the reading turn. */
static bool read_chunk(heap_pipe *hp, chunk *c)
{
	size_t want = hp->carry_len + CHUNK_BYTES;
	if (c->cap < want) {
		free(c->text);
		c->cap = want;
		c->text = sp_xmalloc(c->cap);
	}
	memcpy(c->text, hp->carry, hp->carry_len);
	c->len = hp->carry_len;
	hp->carry_len = 0;
	size_t seen = 0; /* bytes of C without '\n' */
	for (;;) {
		size_t r = 0;
		if (!hp->eof && !hp->read_err)
			r = read_some(hp, c->text + c->len, c->cap - c->len);
		c->len += r;
		size_t end = c->len;
		while (end > seen && c->text[end - 1] != '\n')
			end--;
		if (end > seen) { /* whole lines, the rest carried */
			size_t rest = c->len - end;
			if (hp->carry_cap < rest) {
				free(hp->carry);
				hp->carry_cap = rest > CHUNK_BYTES ? rest : CHUNK_BYTES;
				hp->carry = sp_xmalloc(hp->carry_cap);
			}
			memcpy(hp->carry, c->text + end, rest);
			hp->carry_len = rest;
			c->len = end;
			return true;
		}
		if (r == 0) /* the end: a last line without '\n', or nothing */
			return c->len > 0;
		seen = c->len;
		if (c->len == c->cap) { /* a line longer than the chunk */
			c->cap *= 2;
			c->text = sp_xrealloc(c->text, c->cap);
		}
	}
}

/* Scans C's lines into its records, up to its first bad line or marker;
 * as sp_legacy_next_line does, blank and comment lines are skipped. */
static void scan_chunk(heap_pipe *hp, chunk *c)
{
	const heap_scan *sc = hp->sc;
	c->n_recs = c->n_lines = 0;
	c->maps = c->bad = false;
	for (size_t pos = 0; pos < c->len;) {
		const char *s = c->text + pos;
		const char *nl = memchr(s, '\n', c->len - pos);
		size_t n = nl ? (size_t)(nl - s) : c->len - pos;
		size_t next = pos + n + (nl ? 1 : 0);
		c->n_lines++;
		if (n && s[n - 1] == '\r')
			n--;
		if (sp_legacy_is_space_or_comment(s, n)) {
			pos = next;
			continue;
		}
		if (sp_legacy_is_maps_marker(s, n)) {
			c->maps = true;
			c->maps_at = next;
			return;
		}
		heap_rec r;
		size_t at;
		sp_error *err = sp_heap_scan_counts(sc->name, sc->h, 0, s, n, &r, &at);
		if (err) { /* made again, with its line's number, when built */
			sp_error_free(err);
			c->bad = true;
			c->bad_at = pos;
			c->bad_len = n;
			c->bad_line = c->n_lines;
			return;
		}
		if (c->n_recs == c->cap_recs)
			sp_grow(&c->recs, &c->cap_recs, c->n_recs + 1, sizeof(*c->recs));
		chunk_rec *cr = &c->recs[c->n_recs++];
		memcpy(cr->vals, r.vals, sizeof(cr->vals));
		cr->blocksize = r.blocksize;
		cr->at = pos + at;
		cr->n = n - at;
		cr->hash = sp_hash_bytes(s + at, cr->n, 0);
		cr->id = shared_find(&hp->shared, cr->hash, s + at, cr->n);
		cr->line = c->n_lines;
		pos = next;
	}
}

/* Takes the reading turn and the next chunk's number, when a chunk may be
 * read; under MU. */
static bool take_chunk(heap_pipe *hp, size_t *k)
{
	if (hp->reading || hp->ended || hp->stop || hp->n_read - hp->built >= hp->n_slots)
		return false;
	hp->reading = true;
	*k = hp->n_read;
	return true;
}

/* Reads chunk K (the reading turn taken) and scans it; called and returns
 * with MU held. */
static void read_and_scan(heap_pipe *hp, size_t k)
{
	chunk *c = &hp->slot[k % hp->n_slots];
	pthread_mutex_unlock(&hp->mu);
	bool got = read_chunk(hp, c);
	pthread_mutex_lock(&hp->mu);
	hp->reading = false;
	if (got) {
		hp->n_read = k + 1;
		c->state = CHUNK_SCANNING;
	}
	if (!got || ((hp->eof || hp->read_err) && !hp->carry_len)) /* (a last line without '\n' is carried) */
		hp->ended = true;
	pthread_cond_broadcast(&hp->cv);
	if (!got)
		return;
	pthread_mutex_unlock(&hp->mu);
	scan_chunk(hp, c);
	pthread_mutex_lock(&hp->mu);
	c->state = CHUNK_SCANNED;
	if (c->maps || c->bad) /* what follows is not needed as samples */
		hp->ended = true;
	pthread_cond_broadcast(&hp->cv);
}

static void *scan_thread(void *arg)
{
	heap_pipe *hp = arg;
	size_t k;
	pthread_mutex_lock(&hp->mu);
	while (!hp->stop && !(hp->ended && !hp->reading)) {
		if (take_chunk(hp, &k))
			read_and_scan(hp, k);
		else
			pthread_cond_wait(&hp->cv, &hp->mu);
	}
	pthread_mutex_unlock(&hp->mu);
	return NULL;
}

/* The id of the stack [S, S+N) of hash HASH among SC's (sp_strtab_find). */
typedef struct {
	const sp_strtab *t;
	const char *s;
	size_t n;
} stack_key;

static bool stack_eq(void *ctx, size_t i)
{
	const stack_key *k = ctx;
	return k->t->lens[i] == k->n && memcmp(k->t->strs[i], k->s, k->n) == 0;
}

static size_t stack_find(const sp_strtab *t, uint64_t hash, const char *s, size_t n)
{
	stack_key k = {t, s, n};
	return sp_idxset_find(&t->set, hash, stack_eq, &k);
}

/* Builds chunk C, whose first line follows line BASE of the input; the
 * first error, in input order, of its lines. */
static sp_error *build_chunk(heap_pipe *hp, heap_build *bd, chunk *c, size_t base,
			     sp_u64vec *addrs)
{
	heap_scan *sc = hp->sc;
	for (size_t i = 0; i < c->n_recs; i++) {
		const chunk_rec *cr = &c->recs[i];
		const char *st = c->text + cr->at;
		heap_rec r;
		memcpy(r.vals, cr->vals, sizeof(r.vals));
		r.blocksize = cr->blocksize;
		size_t id = cr->id != SIZE_MAX ? cr->id : stack_find(&sc->stacks, cr->hash, st, cr->n);
		addrs->n = 0;
		sp_error *err = sp_heap_scan_stack(sc, base + cr->line, st, cr->n, id, &r, addrs);
		if (err)
			return err;
		sp_heap_build_sample(bd, &r, addrs->v);
		if (r.fresh && r.stack != SIZE_MAX)
			shared_add(&hp->shared, cr->hash, sc->stacks.strs[r.stack], cr->n, r.stack);
	}
	if (!c->bad)
		return NULL;
	heap_rec r;
	size_t at;
	sp_error *err = sp_heap_scan_counts(sc->name, sc->h, base + c->bad_line, c->text + c->bad_at,
					    c->bad_len, &r, &at);
	return err ? err /* (the same line scans the same way twice) */
		   : sp_error_new(SP_E_MALFORMED, "%s: line %zu: " "expected a sample line",
				  sc->name, base + c->bad_line);
}

/* The map: chunk K's text from its marker on, the chunks read after it,
 * what is carried and the rest of the file (the threads stopped). */
static char *map_text(heap_pipe *hp, size_t k, size_t *len)
{
	sp_buf b = {0};
	const chunk *c = &hp->slot[k % hp->n_slots];
	sp_buf_append(&b, c->text + c->maps_at, c->len - c->maps_at);
	for (size_t j = k + 1; j < hp->n_read; j++)
		sp_buf_append(&b, hp->slot[j % hp->n_slots].text, hp->slot[j % hp->n_slots].len);
	sp_buf_append(&b, hp->carry, hp->carry_len);
	char piece[65536];
	while (!hp->eof && !hp->read_err) {
		size_t r = read_some(hp, piece, sizeof(piece));
		sp_buf_append(&b, piece, r);
	}
	*len = b.len;
	return b.len ? sp_buf_take(&b) : (sp_buf_free(&b), sp_xstrdup(""));
}

bool sp_heap_read_chunks(heap_scan *sc, heap_build *bd, sp_lines *it, int jobs, char **maps,
			 size_t *maps_len, sp_error **err)
{
	heap_pipe hp = {.sc = sc, .f = it->f};
	*maps = NULL;
	*maps_len = 0;
	if (pthread_mutex_init(&hp.mu, NULL) != 0)
		return false;
	if (pthread_cond_init(&hp.cv, NULL) != 0) {
		pthread_mutex_destroy(&hp.mu);
		return false;
	}
	size_t n_threads = (size_t)jobs - 1;
	if (n_threads > MAX_SLOTS / SLOTS_PER_JOB - 1)
		n_threads = MAX_SLOTS / SLOTS_PER_JOB - 1;
	hp.n_slots = (n_threads + 1) * SLOTS_PER_JOB;
	hp.slot = sp_xcalloc(hp.n_slots, sizeof(*hp.slot));
	atomic_init(&hp.shared.cur, table_new(1024, NULL));
	/* what the header's reading buffered comes first */
	hp.carry_len = it->len - it->pos;
	hp.carry_cap = hp.carry_len > CHUNK_BYTES ? hp.carry_len : CHUNK_BYTES;
	hp.carry = sp_xmalloc(hp.carry_cap);
	memcpy(hp.carry, it->data + it->pos, hp.carry_len);
	hp.offset = it->base + it->len;
	it->pos = it->len;

	pthread_t *t = sp_xcalloc(n_threads ? n_threads : 1, sizeof(*t));
	size_t started = 0;
	while (started < n_threads && pthread_create(&t[started], NULL, scan_thread, &hp) == 0)
		started++;

	sp_u64vec addrs = {0};
	size_t base = it->lineno, k = 0;
	bool to_end = false; /* every chunk was built: the input's end was reached */
	*err = NULL;
	for (;; k++) {
		chunk *c = &hp.slot[k % hp.n_slots];
		size_t j;
		pthread_mutex_lock(&hp.mu);
		while (!(k < hp.n_read && c->state == CHUNK_SCANNED)) {
			if (k >= hp.n_read && hp.ended && !hp.reading)
				break;
			if (take_chunk(&hp, &j))
				read_and_scan(&hp, j);
			else
				pthread_cond_wait(&hp.cv, &hp.mu);
		}
		bool have = k < hp.n_read && c->state == CHUNK_SCANNED;
		pthread_mutex_unlock(&hp.mu);
		if (!have) {
			to_end = true;
			break;
		}
		*err = build_chunk(&hp, bd, c, base, &addrs);
		if (*err || c->maps)
			break;
		base += c->n_lines;
		pthread_mutex_lock(&hp.mu);
		c->state = CHUNK_FREE;
		hp.built = k + 1;
		pthread_cond_broadcast(&hp.cv);
		pthread_mutex_unlock(&hp.mu);
	}
	pthread_mutex_lock(&hp.mu);
	hp.stop = true;
	pthread_cond_broadcast(&hp.cv);
	pthread_mutex_unlock(&hp.mu);
	for (size_t i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	free(t);

	if (!*err && !to_end)
		*maps = map_text(&hp, k, maps_len);
	if (hp.read_err && (to_end || *maps)) { /* the input was cut short where it was needed */
		sp_error_free(it->err);
		it->err = hp.read_err;
		hp.read_err = NULL;
	}
	sp_error_free(hp.read_err);
	sp_u64vec_free(&addrs);
	for (size_t i = 0; i < hp.n_slots; i++) {
		free(hp.slot[i].text);
		free(hp.slot[i].recs);
	}
	free(hp.slot);
	free(hp.carry);
	shared_free(&hp.shared);
	pthread_cond_destroy(&hp.cv);
	pthread_mutex_destroy(&hp.mu);
	return true;
}
