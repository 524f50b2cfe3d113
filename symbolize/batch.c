/* batch.c — batches of addresses: the order they are resolved in, and the
 * engine that answers lists of addresses as text (`symprof symbolize`).
 *
 * Resolving N addresses against one object is cheapest in address order:
 * neighbouring addresses share compile units, line tables and function
 * trees, so the resolver's caches stay warm, and equal addresses end up
 * next to each other, to be resolved once.  `convert` sorts each
 * mapping's addresses this way (symbolize.c), the engine each block of
 * input addresses its text cache lacks.
 *
 * The engine (sp_batch): the lines of a block of input are parsed in one
 * pass and looked up in a cache of answer texts per address; the addresses
 * it lacks are sorted and resolved once each in address order, and the
 * answers go out in input order with writev straight from the cache.  With
 * -j N a large block is parsed, looked up, sorted, resolved and formatted
 * on N threads (run_block), and written in input order by the caller's
 * thread or, when writing is slow, by a writer thread of its own.  What an
 * answer looks like is the caller's (sp_batch_format): this file knows
 * frames and bytes, not output forms.
 */
#include "symbolize/internal.h"
#include "symbolize/symbolize.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

void sp_addr_items_sort(sp_addr_item *items, sp_addr_item *tmp, size_t n)
{
	size_t count[256];
	uint64_t diff = 0;
	sp_addr_item *src = items, *dst = tmp;
	for (size_t i = 1; i < n; i++)
		diff |= items[i].addr ^ items[0].addr;
	/* LSD radix sort, stable; only the bytes in which addresses differ
	 * get a pass */
	for (unsigned shift = 0; shift < 64; shift += 8) {
		if (!((diff >> shift) & 255))
			continue;
		memset(count, 0, sizeof(count));
		for (size_t i = 0; i < n; i++)
			count[(src[i].addr >> shift) & 255]++;
		for (size_t i = 0, sum = 0; i < 256; i++) {
			size_t k = count[i];
			count[i] = sum;
			sum += k;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i].addr >> shift) & 255]++] = src[i];
		sp_addr_item *t = src;
		src = dst;
		dst = t;
	}
	if (src != items)
		memcpy(items, src, n * sizeof(*items));
}

/* -- the engine ------------------------------------------------------------------- */

/* Output is written with writev(2) straight from where its text lives:
 * the per-address text cache, a per-batch prefix buffer, the input line.
 * At a million addresses stdio's per-call locking and copying, and even
 * one memcpy of every answer, cost more than the lookups.  A queue with
 * GROW keeps every piece (a part of a parallel batch, written later in
 * input order); the engine's own queue writes when WQ_IOV are queued. */
#define WQ_IOV 1024

typedef struct {
	struct iovec *iov;
	size_t n, cap;
	int fd;
	int err; /* errno of the first failed write; output stops there */
	bool grow;
} wqueue;

/* Output text per address, kept in open-addressing tables of slots that
 * each fit in a cache line with their neighbours (len 0: empty); SRC
 * names the buffer that holds the text (TXT_CACHE or a job's kept text).
 * With -j N there are N tables, an address's table chosen by its hash,
 * so that N threads fill them at once. */
typedef struct {
	uint64_t addr;
	uint32_t off;      /* into the buffer SRC names */
	uint32_t len : 24; /* < TEXT_LEN_MAX */
	uint32_t src : 8;
} text_slot;

typedef struct {
	text_slot *slots;
	size_t n_slots, cap_slots; /* cap: a power of two */
} SP_OWN_LINES text_table;

/* Longest answer kept for a repeated address */
#define TEXT_LEN_MAX 0xffffff

/* Where an input line's answer text is: TXT_CACHE is the engine's kept
 * text, TXT_TMP this batch's answers it has no room for; TXT_JOB + 2(k-1)
 * and the next are job k's (k >= 1) kept and batch texts. */
enum { TXT_CACHE, TXT_TMP, TXT_UNKNOWN, TXT_ERROR, TXT_JOB };

/* One input line of a batch. */
typedef struct {
	uint64_t addr;    /* as given, when ok */
	const char *line; /* the trimmed line, when not ok (else unset) */
	size_t line_len;
	size_t off, len;  /* its answer text in the buffer SRC names */
	uint8_t src;
	bool ok;
} entry;

/* Lines resolved together: bounds the batch's memory whatever the input. */
#define BATCH_LINES ((size_t)1 << 14)

/* A part of a batch: the lines of a piece of the input block, parsed,
 * looked up and written out by one thread of -j N (run_block); the batch
 * of the serial path is part 0.  An entry's tag (sp_addr_item) is its
 * part << PART_SHIFT | its index there. */
typedef struct {
	const char *buf; /* its lines: buf[0..len), all complete unless EOF */
	size_t len;
	bool eof;
	entry *ents;
	size_t n_ents, cap_ents;
	sp_addr_item *m, *m_tmp; /* its misses, sorted */
	size_t n_m, cap_m;
	size_t asked, hits;      /* text-cache look-ups and hits */
	sp_buf errors;           /* bad_line's answers to lines that are no address */
	size_t n_sym;            /* lines that may be symbols' names */
	char *prefix;            /* SP_BATCH_PREFIX_MAX per entry */
	size_t cap_prefix;
	wqueue out;              /* its output, in order (grow) */
	bool emitted;            /* out is made (under the batch's wlock) */
} SP_OWN_LINES part;

#define PART_SHIFT 20

/* A block's output as the writer takes it: each part's bytes, in order. */
typedef struct {
	sp_buf *parts;
	size_t n, cap;
} outset;

/* A task of a phase of the jobs (run_phase): number TASK, run by job J. */
struct job;
typedef void task_fn(sp_batch *c, struct job *j, size_t task);

struct sp_batch {
	sp_batch_format fmt;
	uint64_t adjust;     /* added to every address for its symbol-file address */
	bool symbols;        /* the answers want the symbol holding each address */
	sp_object *obj;      /* the object, or NULL */
	char *obj_path;      /* where it was found */
	sp_symbolizer *s;
	wqueue out;
	text_table *tables;  /* the text cache: n_tables of them */
	unsigned n_tables;   /* -j N: N */
	sp_buf text;         /* job 0's kept answers (TXT_CACHE) */
	size_t cache_max;    /* most bytes of text kept, all jobs' */
	size_t kept_others;  /* bytes kept by jobs 1..N-1 */
	size_t n_asked, n_hits; /* addresses looked up in the cache, and found there */
	sp_buf tmp;          /* answers of this batch job 0 keeps no room for */
	sp_buf unknown;      /* the answer for a line that is not an address */
	part *part;          /* part 0: the serial batch (BATCH_LINES) */
	size_t n_parts, cap_parts;
	sp_addr_item *misses, *misses_tmp; /* a batch's misses, sorted; tag: entry */
	size_t n_misses, cap_misses;
	struct job *job;     /* -j N: N of them, job 0 the caller's own */
	int jobs;            /* -j N; 1 once threads are out of the question */
	bool paced;          /* -j not given: sessions only when the work left says */
	double ns_per_addr;  /* paced: CPU ns a distinct address took here (0: not yet) */
	size_t chunk_base;   /* task_resolve's chunk numbers start here */
	bool threads;        /* jobs 1..N-1 have been started */
	bool sessions;       /* ... and have sessions of their own */
	bool no_sessions;    /* a session could not open FILE: resolution stays here */
	pthread_mutex_t open_lock; /* held by a job opening FILE in its session */
	size_t *returned;    /* resolution chunks a job could not run (open_job failed) */
	size_t n_returned, cap_returned;
	size_t n_resolved;   /* distinct addresses resolved so far */
	/* run_block's sort ranges: bounds[r * n_parts + p] is where range r
	 * starts in part p's misses; range r goes to misses + range_off[r] */
	size_t *bounds, *range_off, *range_distinct;
	size_t n_ranges;
	size_t *chunks;      /* resolution chunks: misses[chunks[t]..chunks[t+1]) */
	size_t n_chunks, cap_chunks;
	/* the jobs' shared state: what is left of each share, and who works */
	pthread_mutex_t lock;
	pthread_cond_t work; /* a phase was handed out, or the threads are to end */
	pthread_cond_t done; /* the last task in hand was finished */
	task_fn *fn;         /* the phase's task */
	bool queue;          /* ... taken in order by every job (run_queue) */
	int busy;            /* tasks in hand */
	bool quit;
	/* the writer of run_block's output (write_block) */
	outset sets[2];      /* block k's output is in sets[k & 1] */
	size_t n_blocks;     /* blocks handed to the writer */
	pthread_t writer;
	bool writer_started, writer_tried;
	bool async_out;      /* blocks go to the writer (once a write was slow) */
	/* run_block's parts written as they are made (commit), under wlock: */
	size_t commit_next;  /* the next part to write */
	bool committing;     /* a job is writing */
	double commit_ns;    /* what the writes took */
	size_t commit_bytes;
	pthread_mutex_t wlock;
	pthread_cond_t wcond;
	/* under wlock: */
	size_t n_written;    /* blocks written */
	bool wquit;
	wqueue wout;         /* the writer's: its first failed write's errno */
};

/* One thread of -j: job 0 runs on the caller's thread with the caller's
 * session; the others run tasks of every phase (parts of the input, sort
 * ranges, text tables) and, once they have sessions of their own, chunks
 * of a batch's sorted misses, whose answers go into their own texts. */
typedef struct job {
	sp_batch *c;
	int index;
	sp_symbolizer *s;  /* job 0: c->s; else its own (sp_symbolizer_new_worker) */
	sp_object *obj;    /* the object in that session, or NULL */
	size_t next, end;  /* what is left of its share of tasks, under c->lock */
	sp_buf *keep;      /* answers kept for the text cache: job 0 c->text */
	sp_buf *tmp;       /* this batch's others: job 0 c->tmp */
	uint8_t keep_src, tmp_src;
	size_t keep_limit; /* keep->len stays at most this */
	sp_buf keep_buf, tmp_buf; /* jobs 1..N-1 */
	sp_named named;
	pthread_t tid;
	bool started;
	bool opened, failed; /* jobs 1..N-1: open_job was run, and failed */
	bool working;      /* a task in hand, under c->lock */
	char **notes;      /* what its session had to say, for the caller's */
	size_t n_notes, cap_notes;
} SP_OWN_LINES job;

/* What a decorate callback queues through: the queue, the line's room in
 * the prefix buffer, and where its answer is. */
struct sp_batch_emit {
	wqueue *q;
	char *pre;           /* the next free byte of the line's room */
	const char *answer;
	size_t answer_len;
};

/* Writes the N pieces at V (when no error was seen), WQ_IOV at a time. */
static void wq_write(wqueue *o, struct iovec *v, size_t n)
{
	while (n > 0 && !o->err) {
		ssize_t w = writev(o->fd, v, n < WQ_IOV ? (int)n : WQ_IOV);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			o->err = w < 0 ? errno : EIO;
			break;
		}
		size_t done = (size_t)w;
		while (n > 0 && done >= v->iov_len) {
			done -= v->iov_len;
			v++;
			n--;
		}
		if (n > 0) {
			v->iov_base = (char *)v->iov_base + done;
			v->iov_len -= done;
		}
	}
}

/* Writes every pending piece of output (when no error was seen). */
static void wq_flush(wqueue *o)
{
	wq_write(o, o->iov, o->n);
	o->n = 0;
}

/* Queues N bytes at P, which must stay put until the next wq_flush;
 * a piece right after the previous one extends it. */
static inline __attribute__((always_inline)) void wq_put(wqueue *o, const char *p, size_t n)
{
	if (!n)
		return;
	if (o->n) {
		struct iovec *last = &o->iov[o->n - 1];
		if ((const char *)last->iov_base + last->iov_len == p) {
			last->iov_len += n;
			return;
		}
	}
	if (o->n == o->cap) {
		if (o->grow)
			sp_grow(&o->iov, &o->cap, o->n + 1, sizeof(*o->iov));
		else
			wq_flush(o);
	}
	o->iov[o->n++] = (struct iovec){(void *)(uintptr_t)p, n};
}

void sp_batch_put(sp_batch_emit *em, const char *p, size_t n)
{
	wq_put(em->q, p, n);
}

void sp_batch_put_copy(sp_batch_emit *em, const char *p, size_t n)
{
	memcpy(em->pre, p, n);
	wq_put(em->q, em->pre, n);
	em->pre += n;
}

void sp_batch_put_answer(sp_batch_emit *em)
{
	wq_put(em->q, em->answer, em->answer_len);
}

static const unsigned char *hex_digits(void)
{
	static const unsigned char t[256] = {
#define D16(x) x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x
		D16(0xff), D16(0xff), D16(0xff),
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 10, 11, 12, 13, 14, 15, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		D16(0xff),
		0xff, 10, 11, 12, 13, 14, 15, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		D16(0xff), D16(0xff), D16(0xff), D16(0xff), D16(0xff), D16(0xff), D16(0xff),
		D16(0xff), D16(0xff),
#undef D16
	};
	return t;
}

/* Hex number with optional 0x/0X, at least one digit, no overflow: the
 * same language as sp_parse_u64 base 16, one table look-up a digit and
 * the checks once at the end (a non-digit maps to 0xff). */
static bool parse_hex(const char *s, const char *end, uint64_t *out)
{
	const unsigned char *t = hex_digits();
	if (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (s >= end)
		return false;
	while (end - s > 16 && *s == '0')
		s++;
	if (end - s > 16)
		return false;
	uint64_t v = 0;
	unsigned bad = 0;
	for (; s < end; s++) {
		unsigned d = t[(unsigned char)*s];
		bad |= d;
		v = v << 4 | (d & 15);
	}
	if (bad > 15)
		return false;
	*out = v;
	return true;
}

static uint64_t addr_hash(uint64_t addr)
{
	return addr * 0x9e3779b97f4a7c15ULL;
}

/* ADDR's table: from the hash's top bits, apart from the slot's */
static text_table *table_of(const sp_batch *c, uint64_t addr)
{
	return &c->tables[((addr_hash(addr) >> 58) * c->n_tables) >> 6];
}

static size_t slot_of(const text_table *t, uint64_t addr)
{
	return (size_t)(addr_hash(addr) >> 32) & (t->cap_slots - 1);
}

static const text_slot *cache_get(const sp_batch *c, uint64_t addr)
{
	const text_table *tb = table_of(c, addr);
	if (!tb->cap_slots)
		return NULL;
	for (size_t i = slot_of(tb, addr);; i = (i + 1) & (tb->cap_slots - 1)) {
		const text_slot *t = &tb->slots[i];
		if (!t->len)
			return NULL;
		if (t->addr == addr)
			return t;
	}
}

static void cache_put(text_table *tb, uint64_t addr, size_t off, size_t len, uint8_t src)
{
	if ((tb->n_slots + 1) * 4 >= tb->cap_slots * 3) {
		size_t old = tb->cap_slots;
		text_slot *os = tb->slots;
		tb->cap_slots = old ? old * 2 : 1024;
		tb->slots = sp_xcalloc_written(tb->cap_slots, sizeof(*tb->slots));
		tb->n_slots = 0;
		for (size_t i = 0; i < old; i++)
			if (os[i].len)
				cache_put(tb, os[i].addr, os[i].off, os[i].len, (uint8_t)os[i].src);
		free(os);
	}
	size_t i = slot_of(tb, addr);
	while (tb->slots[i].len)
		i = (i + 1) & (tb->cap_slots - 1);
	tb->slots[i] = (text_slot){addr, (uint32_t)off, (uint32_t)len, src};
	tb->n_slots++;
}

/* Where the texts of SRC start (ERRORS: the part's error answers); valid
 * until that text grows. */
static const char *text_base(const sp_batch *c, unsigned src, const char *errors)
{
	switch (src) {
	case TXT_CACHE: return c->text.data;
	case TXT_TMP: return c->tmp.data;
	case TXT_UNKNOWN: return c->unknown.data;
	case TXT_ERROR: return errors;
	default: {
		const job *j = &c->job[1 + (src - TXT_JOB) / 2];
		return (src - TXT_JOB) & 1 ? j->tmp->data : j->keep->data;
	}
	}
}

/* Frames for ADDR (as given) and VADDR (ADDR in FILE's address space)
 * from the name sources, FILE right after the JIT objects (sources.c).
 * The frames last until the next lookup: each address is looked up once,
 * its text kept in the text cache. */
static void lookup(sp_symbolizer *s, sp_object *obj, uint64_t addr, uint64_t vaddr,
		   sp_named *out)
{
	sp_name_query q = {
		.addr = addr,
		.kind = sp_code_kind_of(NULL, NULL, addr),
		.file = obj,
		.file_addr = vaddr,
		.once = true,
	};
	sp_name_address(s, &q, out);
}

/* Output text per address is kept (up to this much in all by default),
 * so the hot addresses of a profile-like list cost one lookup and one
 * copy. */
#define TEXT_CACHE_MAX ((size_t)64 << 20)

/* The entry a miss's tag names */
static entry *entry_at(const sp_batch *c, size_t tag)
{
	return &c->part[tag >> PART_SHIFT].ents[tag & (((size_t)1 << PART_SHIFT) - 1)];
}

/* True when SRC is text kept for the text cache */
static bool src_kept(unsigned src)
{
	return src == TXT_CACHE || (src >= TXT_JOB && !((src - TXT_JOB) & 1));
}

/* Answers the run M[i..end) of one address in J's session: the text goes
 * into J's kept text while that stays within J's limit, else into its
 * batch text, and the run's entries point at it.  True when kept. */
static inline __attribute__((always_inline)) bool resolve_run(sp_batch *c, job *j,
							       const sp_addr_item *m,
							       size_t i, size_t end)
{
	uint64_t addr = m[i].addr, vaddr = addr + c->adjust;
	lookup(j->s, j->obj, addr, vaddr, &j->named);
	sp_symbol sym = {0};
	if (c->symbols && j->obj)
		sp_error_free(sp_object_symbol_at(j->obj, vaddr, &sym));
	sp_buf *keep = j->keep;
	size_t off = keep->len;
	c->fmt.answer(c->fmt.ctx, j->named.frames, j->named.n_frames, &sym, vaddr, keep);
	size_t tl = keep->len - off;
	uint8_t src = j->keep_src;
	if (!c->cache_max || keep->len > j->keep_limit || tl >= TEXT_LEN_MAX) {
		src = j->tmp_src;
		sp_buf_append(j->tmp, keep->data + off, tl);
		keep->len = off;
		off = j->tmp->len - tl;
	}
	for (size_t k = i; k < end; k++) {
		entry *e = entry_at(c, m[k].tag);
		e->src = src;
		e->off = off;
		e->len = tl;
	}
	return src == j->keep_src;
}

/* Answers every address of the batch that the text cache lacks, sorted,
 * in address order, once per distinct address, on the caller's thread,
 * and keeps the answers in the text cache. */
static void resolve_misses(sp_batch *c, sp_addr_item *m, size_t n)
{
	job *j = &c->job[0];
	for (size_t i = 0, end; i < n; i = end) {
		end = sp_addr_items_run(m, n, i);
		if (resolve_run(c, j, m, i, end)) {
			const entry *e = entry_at(c, m[i].tag);
			cache_put(table_of(c, m[i].addr), m[i].addr, e->off, e->len, TXT_CACHE);
		}
	}
}

/* -j N.  The caller's thread and N-1 others run phases of tasks: each
 * job has a share of a phase's tasks (a contiguous run of them), takes
 * them in order (jobs of odd index from the share's end), then tasks of
 * another's share from the end its owner reaches last (take_task).  So
 * a thread that is not running (the machine is shared) holds no phase
 * up: the others take its share, and the caller's thread waits only for
 * tasks in hand, never for a thread to wake.  The threads start once
 * (before the first read of a large file) and wait between phases.
 *
 * A large block of input (run_block) is a batch of its own, cut into
 * line-aligned parts: each part's lines are parsed, looked up in the
 * text cache and their misses sorted (task_part); the misses are cut
 * into sort ranges at sampled addresses, each gathered from every part
 * and sorted (task_range); the sorted misses are resolved in chunks at
 * address boundaries (task_resolve), job k's share being the k-th range
 * of addresses, so its session reads mostly the compile units (line
 * tables, function trees) of those; then each text table takes its
 * addresses' answers and each part writes its output's pieces
 * (task_finish, its tasks taken in order), and the parts are written in
 * input order as they are made (commit) or, when writing is slow, by the
 * writer.
 * A job resolves in a session of its own (no libdw handle is shared
 * between threads) and keeps its answers in texts of its own; it writes
 * the entries of its addresses only.  The bytes are those of -j 1
 * whatever the thread count.
 *
 * Opening the other sessions costs about what resolving some thousands
 * of addresses does (the debug file found and indexed again, per
 * thread), so misses are resolved on N threads only in a batch of at
 * least JOBS_MIN_BATCH distinct misses, and only once the run has
 * resolved at least JOBS_MIN_RUN distinct addresses, this batch's
 * included (at about 1 us an address, the session opened for a second
 * thread costs 1.5 ms for a stripped Go binary's table, 7 ms for 6.5 MiB
 * of DWARF, spent on that thread while the caller's resolves: open_job);
 * before that they are resolved on the caller's thread, the
 * other phases of a large block still on N.  A block is read in one
 * piece only when it is at least PAR_MIN_BYTES and was ready at once, so
 * a co-process's lines never wait for one: it takes the serial path,
 * which resolves a batch's misses on N threads under the same rules. */
#define JOBS_MIN_BATCH 2048
/* (-j 2 against -j 1, wall time: 1M lines of 42k distinct addresses
 * 1.03x with 16384, 0.95x with 65536, 1.04x with 4096; 30k lines of
 * 29k distinct addresses 0.95x, 0.76x, 0.97x) */
#define JOBS_MIN_RUN 16384

/* Misses a job resolves at a time. */
#define JOB_CHUNK 256

/* Paced (-j not given): the caller's thread resolves a batch's first
 * chunks alone for PACE_PROBE_NS of CPU time, which gives the cost of an
 * address; the other sessions are opened only when the distinct addresses
 * left would cost at least PACE_MIN_WORK_NS on one thread.  A session's
 * opening repeats the unit index and the decoding of the units it meets
 * (7 ms and about +30% CPU on a list of 42k distinct addresses over a
 * C++ program with 14 MiB of .debug_info, where -j 2 took 0.9 to 1.0 of
 * -j 1's wall time); below this the threads would not pay for it. */
#define PACE_PROBE_NS 2e6
#define PACE_MIN_WORK_NS 50e6

/* A block of input run by run_block: at least this much, at most the
 * other; parts of PART_MIN to PART_MAX bytes, eight per job. */
#define PAR_MIN_BYTES ((size_t)128 << 10)
#define PAR_MAX_BYTES ((size_t)16 << 20)
#define PART_MIN ((size_t)16 << 10)
#define PART_MAX ((size_t)64 << 10)
/* Sort ranges per job */
#define RANGES_PER_JOB 4

/* A job whose share has so many resolution chunks left is helped
 * whatever that costs the helper. */
#define HELP_ALWAYS 8

static task_fn task_resolve;

/* Whether J is to take task T of V's share (under c->lock).  A chunk of
 * addresses in a compile unit J's session has not decoded costs J the
 * unit's decoding (some milliseconds for a large one) and V, which has
 * it, a fraction of that: near the end of V's share J leaves it to V
 * rather than keep the phase waiting on its decoding. */
static bool worth_taking(const sp_batch *c, const job *j, const job *v, size_t t)
{
	if (c->fn != task_resolve || !v->working || v->end - v->next >= HELP_ALWAYS)
		return true;
	if (j->index && (!j->opened || j->failed))
		return false; /* opening its session costs more */
	uint64_t vaddr = c->misses[c->chunks[c->chunk_base + t]].addr + c->adjust;
	return !j->obj || sp_object_warm(j->obj, vaddr);
}

/* Takes (under c->lock) J's next task, else one of another's share;
 * false when none is left for J.  Jobs of even index take their share
 * from its start, odd ones from its end, so jobs 2k and 2k+1 work towards
 * each other, and a job out of work takes from the end of another's share
 * its owner reaches last: for job 2k+1's partner first, the tasks next to
 * its own.  Resolution chunks are in address order, so the addresses a
 * job takes from another are next to its own, in the compile units its
 * session has decoded, not at the far end of the other's; and it leaves
 * the last ones to their owner unless they are cheap for it too
 * (worth_taking). */
static bool take_task(job *j, size_t *t)
{
	sp_batch *c = j->c;
	if (c->queue) { /* one run, in order */
		job *q = &c->job[0];
		if (q->next == q->end)
			return false;
		*t = q->next++;
		c->busy++;
		j->working = true;
		return true;
	}
	if (j->next < j->end) {
		*t = j->index & 1 ? --j->end : j->next++;
		c->busy++;
		j->working = true;
		return true;
	}
	for (int k = 0; k < c->jobs; k++) {
		/* the partner first, then the others */
		int i = k ? (j->index + k) % c->jobs : j->index ^ 1;
		if (i >= c->jobs || (k && i == (j->index ^ 1)))
			continue;
		job *v = &c->job[i];
		if (v->next == v->end)
			continue;
		size_t vt = v->index & 1 ? v->next : v->end - 1;
		if (!worth_taking(c, j, v, vt))
			continue;
		if (v->index & 1)
			v->next++;
		else
			v->end--;
		*t = vt;
		c->busy++;
		j->working = true;
		return true;
	}
	return false;
}

/* Runs FN on tasks 0..n-1, on every job, and returns when all are done:
 * in shares, or (QUEUE) in order, each job taking the next task left. */
static void run_tasks(sp_batch *c, task_fn *fn, size_t n, bool queue)
{
	job *j0 = &c->job[0];
	if (!c->threads) {
		for (size_t t = 0; t < n; t++)
			fn(c, j0, t);
		return;
	}
	pthread_mutex_lock(&c->lock);
	c->fn = fn;
	c->queue = queue;
	for (int k = 0; k < c->jobs; k++) {
		c->job[k].next = queue ? 0 : n * (size_t)k / (size_t)c->jobs;
		c->job[k].end = queue ? k ? 0 : n : n * (size_t)(k + 1) / (size_t)c->jobs;
	}
	pthread_cond_broadcast(&c->work);
	size_t t;
	while (take_task(j0, &t)) {
		pthread_mutex_unlock(&c->lock);
		fn(c, j0, t);
		pthread_mutex_lock(&c->lock);
		c->busy--;
		j0->working = false;
	}
	while (c->busy)
		pthread_cond_wait(&c->done, &c->lock);
	pthread_mutex_unlock(&c->lock);
}

static void run_phase(sp_batch *c, task_fn *fn, size_t n)
{
	run_tasks(c, fn, n, false);
}

/* What job J holds of its own: for jobs 1..N-1 their session too. */
static void release_job(job *j)
{
	sp_named_clear(&j->named);
	char *note;
	while (j->index && j->s && (note = sp_symbolizer_next_note(j->s)) != NULL)
		SP_PUSH(j->notes, j->n_notes, j->cap_notes, note);
	if (j->index)
		sp_symbolizer_free(j->s);
	j->s = NULL;
	sp_buf_free(&j->keep_buf);
	sp_buf_free(&j->tmp_buf);
}

/* A thread of jobs 1..N-1: tasks of every phase until told to end, then
 * it frees what its job holds, while the caller's thread frees the rest
 * (a session's teardown is some milliseconds of a large binary's). */
static void *job_thread(void *arg)
{
	job *j = arg;
	sp_batch *c = j->c;
	size_t t;
	pthread_mutex_lock(&c->lock);
	while (!c->quit) {
		if (!take_task(j, &t)) {
			pthread_cond_wait(&c->work, &c->lock);
			continue;
		}
		task_fn *fn = c->fn;
		pthread_mutex_unlock(&c->lock);
		fn(c, j, t);
		pthread_mutex_lock(&c->lock);
		j->working = false;
		if (--c->busy == 0)
			pthread_cond_signal(&c->done);
	}
	pthread_mutex_unlock(&c->lock);
	release_job(j);
	return NULL;
}

/* The jobs, job 0 the caller's own; threads and sessions come later. */
static void init_jobs(sp_batch *c)
{
	c->job = sp_xcalloc_lines((size_t)c->jobs, sizeof(*c->job));
	for (int k = 0; k < c->jobs; k++) {
		job *j = &c->job[k];
		j->c = c;
		j->index = k;
		if (k) {
			j->keep = &j->keep_buf;
			j->tmp = &j->tmp_buf;
			j->keep_src = (uint8_t)(TXT_JOB + 2 * (k - 1));
			j->tmp_src = (uint8_t)(j->keep_src + 1);
		} else {
			j->s = c->s;
			j->obj = c->obj;
			j->keep = &c->text;
			j->tmp = &c->tmp;
			j->keep_src = TXT_CACHE;
			j->tmp_src = TXT_TMP;
		}
	}
	c->n_tables = (unsigned)c->jobs;
	c->tables = sp_xcalloc_lines(c->n_tables, sizeof(*c->tables));
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_init(&c->open_lock, NULL);
	pthread_mutex_init(&c->wlock, NULL);
	pthread_cond_init(&c->wcond, NULL);
	c->wout = (wqueue){.fd = c->out.fd};
	pthread_cond_init(&c->work, NULL);
	pthread_cond_init(&c->done, NULL);
}

/* Starts the threads of jobs 1..N-1; a job without a thread has its
 * share taken by the others. */
static void start_threads(sp_batch *c)
{
	for (int k = 1; k < c->jobs; k++)
		c->job[k].started =
			pthread_create(&c->job[k].tid, NULL, job_thread, &c->job[k]) == 0;
	c->threads = true;
}

/* Makes the sessions of jobs 1..N-1; each job opens the object in its
 * session at its first chunk (open_job), while the caller's thread opens
 * it in its own, if it has not, and resolves: the start-up of a large
 * first batch (the debug file found, the unit index) runs on every
 * thread at once.  False when misses are to be resolved on this thread
 * only. */
static bool open_sessions(sp_batch *c)
{
	if (c->no_sessions)
		return false;
	if (!c->threads)
		start_threads(c);
	for (int k = 1; k < c->jobs; k++)
		c->job[k].s = sp_symbolizer_new_worker(c->s);
	c->sessions = true;
	return true;
}

/* Opens the object in job J's session, one job at a time (a query of
 * debuginfod waits for another's in any case: find/debuginfod.c), so that
 * a file one job fetched is in the cache for the next.  False when the
 * session cannot have the file (then J resolves nothing). */
static bool open_job(sp_batch *c, job *j)
{
	pthread_mutex_lock(&c->open_lock);
	j->opened = true;
	if (c->obj) {
		sp_error *e = sp_symbolizer_object(j->s, c->obj_path, NULL, &j->obj);
		if (!e)
			e = sp_object_open(j->obj);
		/* an error with the object made is cached: its addresses stay
		 * unknown, as in the caller's session */
		j->failed = e && !j->obj;
		sp_error_free(e);
	}
	pthread_mutex_unlock(&c->open_lock);
	return !j->failed;
}

/* Tells the threads of jobs 1..N-1 to end. */
static void stop_jobs(sp_batch *c)
{
	if (!c->job)
		return;
	pthread_mutex_lock(&c->lock);
	c->quit = true;
	pthread_cond_broadcast(&c->work);
	pthread_mutex_unlock(&c->lock);
}

static void free_jobs(sp_batch *c)
{
	if (!c->job)
		return;
	stop_jobs(c);
	for (int k = 0; k < c->jobs; k++) {
		job *j = &c->job[k];
		if (j->started)
			pthread_join(j->tid, NULL);
		else
			release_job(j);
		/* a split unit its session had no room for is said, once */
		for (size_t i = 0; i < j->n_notes; i++)
			sp_symbolizer_add_note(c->s, j->notes[i]);
		free(j->notes);
	}
	free(c->job);
	c->job = NULL;
	pthread_cond_destroy(&c->done);
	pthread_cond_destroy(&c->work);
	pthread_mutex_destroy(&c->lock);
	pthread_mutex_destroy(&c->open_lock);
	pthread_cond_destroy(&c->wcond);
	pthread_mutex_destroy(&c->wlock);
}

/* Cuts the sorted misses M[0..n) into chunks of about JOB_CHUNK at
 * address boundaries: c->chunks. */
static void cut_chunks(sp_batch *c, const sp_addr_item *m, size_t n)
{
	c->n_chunks = 0;
	SP_PUSH(c->chunks, c->n_chunks, c->cap_chunks, 0);
	for (size_t at = 0; at < n;) {
		size_t e = n - at > JOB_CHUNK ? at + JOB_CHUNK : n;
		while (e < n && m[e].addr == m[e - 1].addr)
			e++;
		SP_PUSH(c->chunks, c->n_chunks, c->cap_chunks, e);
		at = e;
	}
	c->n_chunks--;
}

static void task_resolve(sp_batch *c, job *j, size_t t)
{
	if (j->index && ((!j->opened && !open_job(c, j)) || j->failed)) {
		pthread_mutex_lock(&c->lock); /* for the caller's thread, after the phase */
		SP_PUSH(c->returned, c->n_returned, c->cap_returned, t);
		pthread_mutex_unlock(&c->lock);
		return;
	}
	const sp_addr_item *m = c->misses;
	size_t b = c->chunks[c->chunk_base + t + 1];
	for (size_t i = c->chunks[c->chunk_base + t], end; i < b; i = end) {
		end = sp_addr_items_run(m, b, i);
		resolve_run(c, j, m, i, end);
	}
}

/* Room for the text cache, shared: each job's keep_limit.  ALL: every
 * job resolves, else only job 0. */
static void share_cache(sp_batch *c, bool all)
{
	size_t kept = c->text.len + c->kept_others;
	size_t left = c->cache_max > kept ? c->cache_max - kept : 0;
	for (int k = 0; k < (all ? c->jobs : 1); k++)
		c->job[k].keep_limit = c->job[k].keep->len + (all ? left / (size_t)c->jobs : left);
}

static size_t count_distinct(const sp_addr_item *m, size_t n)
{
	size_t distinct = 0;
	for (size_t i = 0; i < n; i = sp_addr_items_run(m, n, i))
		distinct++;
	return distinct;
}

/* Clock ID's time in nanoseconds. */
static double clock_ns(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

double sp_thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* Paced: resolves the first of the chunks of M (c->chunks) on the
 * caller's thread until it knows what an address costs, then the rest too
 * when they would not pay for the other sessions.  Returns the chunks
 * done (c->n_chunks: all). */
static size_t pace(sp_batch *c, const sp_addr_item *m, size_t distinct)
{
	size_t t = 0, done = 0;
	if (!c->ns_per_addr) {
		/* the first chunk pays what is built once (the unit index, the
		 * first units' tables): the cost is taken after it */
		share_cache(c, false);
		task_resolve(c, &c->job[0], t++);
		double t0 = sp_thread_cpu_ns(), took = 0;
		for (; t < c->n_chunks && took < PACE_PROBE_NS; t++) {
			task_resolve(c, &c->job[0], t);
			took = sp_thread_cpu_ns() - t0;
		}
		done = count_distinct(m, c->chunks[t]);
		size_t timed = done - count_distinct(m, c->chunks[1]);
		c->ns_per_addr = timed ? took / (double)timed : 1;
	}
	if (t < c->n_chunks && (double)(distinct - done) * c->ns_per_addr < PACE_MIN_WORK_NS) {
		share_cache(c, false);
		for (; t < c->n_chunks; t++)
			task_resolve(c, &c->job[0], t);
	}
	return t;
}

/* Resolves the sorted misses M[0..n) (a batch's) on the jobs' threads;
 * false when threads are not to be used (then nothing is done). */
static bool resolve_parallel(sp_batch *c, sp_addr_item *m, size_t n, size_t distinct)
{
	c->n_resolved += distinct;
	if (distinct < JOBS_MIN_BATCH || c->n_resolved < JOBS_MIN_RUN || c->no_sessions)
		return false;
	cut_chunks(c, m, n);
	c->chunk_base = 0;
	if (c->paced && !c->sessions) {
		c->chunk_base = pace(c, m, distinct);
		if (c->chunk_base == c->n_chunks) {
			c->chunk_base = 0;
			return true; /* all on this thread */
		}
	}
	if (!c->sessions && !open_sessions(c)) {
		share_cache(c, false);
		for (size_t t = 0; t < c->n_chunks - c->chunk_base; t++)
			task_resolve(c, &c->job[0], t);
		c->chunk_base = 0;
		return true;
	}
	share_cache(c, true);
	c->n_returned = 0;
	run_phase(c, task_resolve, c->n_chunks - c->chunk_base);
	if (c->n_returned) {
		/* a job could not open FILE: its chunks here, and all from now on */
		c->no_sessions = true;
		c->job[0].keep_limit = c->job[0].keep->len; /* the others' room is unknown */
		for (size_t i = 0; i < c->n_returned; i++)
			task_resolve(c, &c->job[0], c->returned[i]);
	}
	c->chunk_base = 0;
	return true;
}

/* Puts the kept answers of this batch's misses (c->misses[0..n_misses))
 * whose addresses belong to text table Q into it. */
static void fill_table(sp_batch *c, size_t q, size_t n)
{
	const sp_addr_item *m = c->misses;
	text_table *tb = &c->tables[q];
	for (size_t i = 0, end; i < n; i = end) {
		end = sp_addr_items_run(m, n, i);
		if (table_of(c, m[i].addr) != tb)
			continue;
		const entry *e = entry_at(c, m[i].tag);
		if (src_kept(e->src))
			cache_put(tb, m[i].addr, e->off, e->len, e->src);
	}
}

/* A list of distinct addresses (no repeats to save) would only fill the
 * text cache: after this many look-ups with fewer than 1% found there,
 * the cache is dropped and every answer is made for its batch alone. */
#define CACHE_TRIAL 65536

/* What the REPEATS inside a block of input (misses of addresses missed
 * before in it) count as hits for CACHE_TRIAL: a serial batch of -j 1
 * would have found them in the text cache had they come in a later
 * batch.  Counted as they would be in a window of CACHE_TRIAL lines,
 * where the trial is decided: in a list of addresses drawn at random the
 * share of repeats in a window grows with its length. */
static size_t block_repeats(const sp_batch *c, size_t repeats)
{
	size_t lines = 0;
	for (size_t p = 0; p < c->n_parts; p++)
		lines += c->part[p].n_ents;
	return lines > CACHE_TRIAL ? (size_t)((double)repeats * CACHE_TRIAL / (double)lines) : repeats;
}

/* True when the text cache is kept but not worth its keep: it is dropped
 * before the next batch. */
static bool cache_failed(const sp_batch *c)
{
	return c->cache_max && c->n_asked >= CACHE_TRIAL && c->n_hits * 100 < c->n_asked;
}

/* Readies a batch: the batch texts emptied, the text cache dropped when
 * it is not worth its keep, job 0's room in it. */
static void start_batch(sp_batch *c)
{
	sp_buf_reset(&c->tmp);
	for (int k = 1; k < c->jobs; k++)
		sp_buf_reset(c->job[k].tmp);
	if (cache_failed(c)) {
		for (unsigned q = 0; q < c->n_tables; q++) {
			free(c->tables[q].slots);
			c->tables[q] = (text_table){0};
		}
		sp_buf_reset(&c->text);
		for (int k = 1; k < c->jobs; k++)
			sp_buf_reset(c->job[k].keep);
		c->cache_max = 0;
		c->kept_others = 0;
	}
	c->job[0].keep_limit = c->cache_max - c->kept_others;
}

/* Whether E, a line that is no address, may be a symbol's name: it starts
 * as no number does (NAME, or (SECTION)). */
static bool maybe_name(const entry *e)
{
	return e->line_len > 0 && !(*e->line >= '0' && *e->line <= '9');
}

/* The largest part of a name said in a message. */
#define NAME_SHOWN 200

/* Says why a name names nothing, through the format's message. */
static void name_message(const sp_batch *c, const char *fmt, ...) SP_PRINTF(2, 3);
static void name_message(const sp_batch *c, const char *fmt, ...)
{
	if (!c->fmt.message)
		return;
	va_list ap;
	va_start(ap, fmt);
	sp_error *e = sp_error_newv(SP_E_NOT_FOUND, fmt, ap);
	va_end(ap);
	c->fmt.message(c->fmt.ctx, e->msg);
	sp_error_free(e);
}

/* The address the name NAME (+ OFF; SECTION: a section's name) gives in the
 * object into *VADDR; false, said, when it names nothing there. */
static bool named_vaddr(const sp_batch *c, const char *name, bool section, intmax_t off,
			uint64_t *vaddr)
{
	sp_symbol sym = {0};
	sp_error *err = NULL;
	bool ok = false;
	if (section) {
		err = sp_object_section_address(c->obj, name, vaddr);
		if (!err) {
			*vaddr += (uint64_t)off;
			ok = true;
		} else {
			name_message(c, "no section '%.*s'", NAME_SHOWN, name);
		}
	} else if ((err = sp_object_symbol_named(c->obj, name, &sym)) != NULL) {
		name_message(c, "cannot find symbol '%.*s'%s", NAME_SHOWN, name,
			     strlen(name) > NAME_SHOWN ? "..." : "");
	} else if (sym.size && (uint64_t)off >= sym.size) {
		name_message(c, "offset %#jx lies outside the %" PRIu64 " bytes of '%.*s'",
			     (uintmax_t)off, sym.size, NAME_SHOWN, name);
	} else {
		*vaddr = sym.value + (uint64_t)off;
		ok = true;
	}
	sp_error_free(err);
	return ok;
}

/* eu-addr2line's symbol expressions: NAME, NAME+OFF, NAME-OFF (OFF in C's
 * notations: 16, 0x10, 020), and (SECTION)+OFF; NAME is everything before
 * the first + or -.  E, a line that is no address, becomes the address
 * it names in the object (ok); one that names nothing stays unknown, and
 * the format's message says why. */
static void name_address(const sp_batch *c, entry *e)
{
	size_t len = e->line_len, cut = 0;
	const char *t = e->line;
	bool section = len > 2 && t[0] == '(';
	if (section) {
		const char *close = memchr(t, ')', len);
		cut = close ? (size_t)(close - t) + 1 : len;
	} else {
		while (cut < len && t[cut] != '+' && t[cut] != '-')
			cut++;
	}
	char *name = sp_xstrndup(section ? t + 1 : t, section ? (cut > 1 ? cut - 2 : 0) : cut);
	char *rest = sp_xstrndup(t + cut, len - cut), *end;
	errno = 0;
	intmax_t off = *rest ? strtoimax(rest, &end, 0) : 0;
	bool num_ok = !*rest || (end != rest && !*end && errno == 0 && (*rest == '+' || *rest == '-'));
	uint64_t vaddr = 0;
	/* no expression: an unknown line, as any other */
	if (*name && num_ok && c->obj && !(section && t[cut - 1] != ')') &&
	    named_vaddr(c, name, section, off, &vaddr)) {
		e->ok = true;
		e->addr = vaddr - c->adjust;
	}
	free(name);
	free(rest);
}

/* Looks the entries ENTS[0..n) up in the text cache: a hit points at its
 * text, a miss goes to M (tag: TAG0 + its index), a line that is no
 * address at its answer (bad_line's: appended to ERRORS).  Returns the
 * misses; adds the look-ups and hits to *ASKED and *HITS.  A line that may
 * be a symbol's name is made its address first (name_address), but on the
 * jobs' threads (N_SYM not NULL), where it is only counted in *N_SYM. */
static size_t probe(const sp_batch *c, entry *ents, size_t n, size_t tag0, sp_buf *errors,
		    sp_addr_item *m, size_t *asked, size_t *hits, size_t *n_sym)
{
	size_t n_miss = 0, a = 0, h = 0;
	for (size_t i = 0; i < n; i++) {
		entry *e = &ents[i];
		if (!e->ok && maybe_name(e)) {
			/* only the caller's thread reads its object's symbols */
			if (n_sym)
				++*n_sym;
			else
				name_address(c, e);
		}
		const text_slot *t = e->ok && c->cache_max ? cache_get(c, e->addr) : NULL;
		a += e->ok;
		h += t != NULL;
		if (t) {
			e->src = (uint8_t)t->src;
			e->off = t->off;
			e->len = t->len;
		} else if (e->ok) {
			m[n_miss++] = (sp_addr_item){e->addr, tag0 + i};
		} else if (c->fmt.bad_line) {
			e->src = TXT_ERROR;
			e->off = errors->len;
			c->fmt.bad_line(c->fmt.ctx, e->line, e->line_len, errors);
			e->len = errors->len - e->off;
		} else {
			e->src = TXT_UNKNOWN;
			e->off = 0;
			e->len = c->unknown.len;
		}
	}
	*asked += a;
	*hits += h;
	return n_miss;
}

/* Queues the answers of ENTS[0..n) on O in order, each with what the
 * format's decorate puts around it; PRE has room for SP_BATCH_PREFIX_MAX
 * bytes an entry, ERRORS is where their TXT_ERROR texts are. */
static void emit(const sp_batch *c, wqueue *o, const entry *ents, size_t n, char *pre,
		 const char *errors)
{
	if (!c->fmt.decorate) {
		for (size_t i = 0; i < n; i++)
			wq_put(o, text_base(c, ents[i].src, errors) + ents[i].off, ents[i].len);
		return;
	}
	sp_batch_emit em = {.q = o, .pre = pre};
	for (size_t i = 0; i < n; i++) {
		const entry *e = &ents[i];
		sp_batch_line l = {
			.addr = e->addr,
			.vaddr = e->addr + c->adjust,
			.line = e->line,
			.line_len = e->line_len,
			.ok = e->ok,
		};
		em.answer = text_base(c, e->src, errors) + e->off;
		em.answer_len = e->len;
		c->fmt.decorate(c->fmt.ctx, &l, &em);
	}
}

/* -- the writer ------------------------------------------------------------------- */

/* With threads, a large block's output is copied by the tasks that make
 * it (task_finish) into a buffer per part, and written on a thread of its
 * own while the next block is read and answered: writing 40 MiB of
 * answers to a file costs the kernel about as long as resolving them took
 * one thread, and on the caller's thread it held every job up.  Two
 * blocks' outputs at most are in hand (block k's in sets[k & 1]); each is
 * written whole, in order, and before anything the caller's thread writes
 * itself (drain_writer), so the bytes are those of -j 1. */

/* The bytes of the pieces queued on Q, into B. */
static void copy_out(sp_buf *b, const wqueue *q)
{
	size_t n = 0;
	for (size_t i = 0; i < q->n; i++)
		n += q->iov[i].iov_len;
	sp_grow(&b->data, &b->cap, n + 1, 1);
	b->len = 0;
	for (size_t i = 0; i < q->n; i++) {
		memcpy(b->data + b->len, q->iov[i].iov_base, q->iov[i].iov_len);
		b->len += q->iov[i].iov_len;
	}
}

/* Writes the parts of O in order (when no error was seen). */
static void write_set(sp_batch *c, const outset *o)
{
	struct iovec v[64];
	for (size_t i = 0; i < o->n;) {
		int k = 0;
		for (; k < (int)SP_ARRAY_LEN(v) && i < o->n; i++)
			if (o->parts[i].len)
				v[k++] = (struct iovec){o->parts[i].data, o->parts[i].len};
		wq_write(&c->wout, v, (size_t)k);
	}
}

static void *writer_thread(void *arg)
{
	sp_batch *c = arg;
	pthread_mutex_lock(&c->wlock);
	for (;;) {
		while (c->n_written == c->n_blocks && !c->wquit)
			pthread_cond_wait(&c->wcond, &c->wlock);
		if (c->n_written == c->n_blocks)
			break;
		const outset *o = &c->sets[c->n_written & 1];
		pthread_mutex_unlock(&c->wlock);
		write_set(c, o);
		pthread_mutex_lock(&c->wlock);
		c->n_written++;
		pthread_cond_broadcast(&c->wcond);
	}
	pthread_mutex_unlock(&c->wlock);
	return NULL;
}

/* Waits until at most LEFT blocks are still to be written. */
static void wait_writer(sp_batch *c, size_t left)
{
	if (!c->writer_started)
		return;
	pthread_mutex_lock(&c->wlock);
	while (c->n_blocks - c->n_written > left)
		pthread_cond_wait(&c->wcond, &c->wlock);
	pthread_mutex_unlock(&c->wlock);
}

/* Readies sets[n_blocks & 1] for a block of N parts, once the writer is
 * done with the block before last, which used it. */
static void ready_set(sp_batch *c, size_t n)
{
	wait_writer(c, 1);
	outset *o = &c->sets[c->n_blocks & 1];
	if (n > o->cap) {
		size_t old = o->cap;
		sp_grow(&o->parts, &o->cap, n, sizeof(*o->parts));
		memset(o->parts + old, 0, (o->cap - old) * sizeof(*o->parts));
	}
	o->n = n;
}

/* Output slower than this to write than to copy (2 GB/s) goes to the
 * writer from the next block on: a file's or a pipe's, not /dev/null's. */
#define ASYNC_NS_PER_BYTE 0.5

/* After a block's parts were written as they were made (commit): whether
 * the next blocks go to the writer, from how long the writes took. */
static void committed(sp_batch *c)
{
	c->async_out = c->commit_ns > (double)c->commit_bytes * ASYNC_NS_PER_BYTE;
}

/* Hands the block in sets[n_blocks & 1] to the writer (started at the
 * first; the caller's thread writes it when no thread can be had). */
static void write_block(sp_batch *c)
{
	if (!c->writer_tried) {
		c->writer_tried = true;
		c->writer_started = pthread_create(&c->writer, NULL, writer_thread, c) == 0;
	}
	if (!c->writer_started) {
		write_set(c, &c->sets[c->n_blocks & 1]);
		c->n_blocks++;
		c->n_written++;
		return;
	}
	pthread_mutex_lock(&c->wlock);
	c->n_blocks++;
	pthread_cond_signal(&c->wcond);
	pthread_mutex_unlock(&c->wlock);
}

/* Waits until every block handed to the writer is written; its error,
 * if any, is the engine's from now on. */
static void drain_writer(sp_batch *c)
{
	wait_writer(c, 0);
	if (!c->out.err)
		c->out.err = c->wout.err;
}

/* Ends the writer once everything is written. */
static void stop_writer(sp_batch *c)
{
	if (!c->writer_started)
		return;
	drain_writer(c);
	pthread_mutex_lock(&c->wlock);
	c->wquit = true;
	pthread_cond_signal(&c->wcond);
	pthread_mutex_unlock(&c->wlock);
	pthread_join(c->writer, NULL);
	c->writer_started = false;
}

static task_fn task_finish;

/* Answers the serial batch's lines (part 0) and writes them, in input
 * order. */
static void run_batch(sp_batch *c)
{
	part *pt = &c->part[0];
	start_batch(c);
	size_t n_miss = probe(c, pt->ents, pt->n_ents, 0, &pt->errors, c->misses, &c->n_asked,
			      &c->n_hits, NULL);
	if (n_miss > 1)
		sp_addr_items_sort(c->misses, c->misses_tmp, n_miss);
	if (n_miss && c->jobs > 1 &&
	    resolve_parallel(c, c->misses, n_miss, count_distinct(c->misses, n_miss))) {
		c->n_misses = n_miss;
		run_tasks(c, task_finish, c->n_tables, true);
		c->kept_others = 0;
		for (int k = 1; k < c->jobs; k++)
			c->kept_others += c->job[k].keep->len;
	} else if (n_miss) {
		resolve_misses(c, c->misses, n_miss);
	}
	drain_writer(c);
	emit(c, &c->out, pt->ents, pt->n_ents, pt->prefix, pt->errors.data);
	wq_flush(&c->out);
	sp_buf_reset(&pt->errors);
	pt->n_ents = 0;
}

/* Trims LINE (LEN bytes, no newline) into E and parses its address. */
static void set_line(entry *e, const char *text, size_t len)
{
	while (len && (text[len - 1] == '\r' || text[len - 1] == ' ' || text[len - 1] == '\t'))
		len--;
	while (len && (*text == ' ' || *text == '\t')) {
		text++;
		len--;
	}
	e->line = text;
	e->line_len = len;
	e->ok = parse_hex(text, text + len, &e->addr);
}

void sp_batch_add_line(sp_batch *c, const char *text, size_t len)
{
	part *pt = &c->part[0];
	set_line(&pt->ents[pt->n_ents++], text, len);
	if (pt->n_ents == BATCH_LINES)
		run_batch(c);
}

void sp_batch_flush(sp_batch *c)
{
	if (c->part[0].n_ents)
		run_batch(c);
}

void sp_batch_write(sp_batch *c, const char *p, size_t n)
{
	drain_writer(c);
	wq_put(&c->out, p, n);
	wq_flush(&c->out);
}

int sp_batch_write_error(const sp_batch *c)
{
	return c->out.err;
}

/* Parses the lines of BUF (LEN bytes, BUF[LEN] readable and not a hex
 * digit) into ENTS from *N on, until *N is MAX; the last line only at EOF
 * when it has no newline.  Returns the bytes used.  The common line, hex
 * digits and a newline, is parsed in the same pass that finds its end. */
static size_t parse_lines(const char *buf, size_t len, bool eof, entry *ents, size_t *n,
			  size_t max)
{
	const unsigned char *t = hex_digits();
	const char *p = buf, *end = buf + len;
	size_t k = *n;
	while (p < end && k < max) {
		const char *q = p;
		if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
			q += 2;
		const char *digits = q;
		uint64_t v = 0;
		unsigned d;
		while ((d = t[(unsigned char)*q]) < 16) {
			v = v << 4 | d;
			q++;
		}
		if (q < end && *q == '\n' && q > digits && q - digits <= 16) {
			entry *e = &ents[k++];
			e->addr = v;
			e->ok = true;
			p = q + 1;
			continue;
		}
		const char *nl = memchr(q, '\n', (size_t)(end - q));
		if (!nl) {
			if (!eof)
				break;
			nl = end;
		}
		set_line(&ents[k++], p, (size_t)(nl - p));
		p = nl < end ? nl + 1 : end;
	}
	*n = k;
	return (size_t)(p - buf);
}

/* Adds the lines of BUF (LEN bytes, BUF[LEN] readable and not a hex
 * digit) to the batch, running it whenever it is full; the last line only
 * at EOF when it has no newline.  Returns the bytes used. */
static size_t add_lines(sp_batch *c, const char *buf, size_t len, bool eof)
{
	part *pt = &c->part[0];
	size_t used = 0;
	for (;;) {
		used += parse_lines(buf + used, len - used, eof, pt->ents, &pt->n_ents, BATCH_LINES);
		if (pt->n_ents < BATCH_LINES)
			return used;
		run_batch(c);
	}
}

/* Part P of a block: its lines parsed, looked up, its misses sorted. */
static void task_part(sp_batch *c, job *j, size_t p)
{
	part *pt = &c->part[p];
	pt->n_ents = 0;
	pt->asked = pt->hits = 0;
	sp_buf_reset(&pt->errors);
	/* a line is one byte at least */
	sp_grow(&pt->ents, &pt->cap_ents, pt->len / 8 + 16, sizeof(*pt->ents));
	size_t used = 0;
	for (;;) {
		used += parse_lines(pt->buf + used, pt->len - used, pt->eof, pt->ents, &pt->n_ents,
				    pt->cap_ents);
		if (used == pt->len || pt->n_ents < pt->cap_ents)
			break;
		sp_grow(&pt->ents, &pt->cap_ents, pt->n_ents + 1, sizeof(*pt->ents));
	}
	if (pt->cap_m < pt->n_ents) {
		free(pt->m);
		free(pt->m_tmp);
		pt->cap_m = pt->cap_ents;
		pt->m = sp_xreallocarray(NULL, pt->cap_m, sizeof(*pt->m));
		pt->m_tmp = sp_xreallocarray(NULL, pt->cap_m, sizeof(*pt->m_tmp));
	}
	pt->n_sym = 0;
	pt->n_m = probe(c, pt->ents, pt->n_ents, p << PART_SHIFT, &pt->errors, pt->m, &pt->asked,
			&pt->hits, &pt->n_sym);
	if (pt->n_m > 1)
		sp_addr_items_sort(pt->m, pt->m_tmp, pt->n_m);
}

/* Sort range R of a block's misses: gathered from every part, sorted. */
static void task_range(sp_batch *c, job *j, size_t r)
{
	sp_addr_item *dst = c->misses + c->range_off[r];
	size_t n = 0, np = c->n_parts;
	for (size_t p = 0; p < np; p++) {
		size_t a = c->bounds[r * np + p], b = c->bounds[(r + 1) * np + p];
		memcpy(dst + n, c->part[p].m + a, (b - a) * sizeof(*dst));
		n += b - a;
	}
	if (n > 1)
		sp_addr_items_sort(dst, c->misses_tmp + c->range_off[r], n);
	c->range_distinct[r] = count_distinct(dst, n);
}

/* Writes run_block's parts from the next one not written while they are
 * made, in order (under wlock: the job that makes the next one writes it
 * and the made ones after it), timing the writes. */
static void commit(sp_batch *c, size_t p)
{
	pthread_mutex_lock(&c->wlock);
	c->part[p].emitted = true;
	if (c->committing) {
		pthread_mutex_unlock(&c->wlock);
		return; /* the writing job sees it */
	}
	c->committing = true;
	while (c->commit_next < c->n_parts && c->part[c->commit_next].emitted) {
		part *pt = &c->part[c->commit_next++];
		pthread_mutex_unlock(&c->wlock);
		size_t bytes = 0;
		for (size_t i = 0; i < pt->out.n; i++)
			bytes += pt->out.iov[i].iov_len;
		double t0 = clock_ns(CLOCK_MONOTONIC);
		wq_write(&c->out, pt->out.iov, pt->out.n);
		double ns = clock_ns(CLOCK_MONOTONIC) - t0;
		pthread_mutex_lock(&c->wlock);
		c->commit_ns += ns;
		c->commit_bytes += bytes;
	}
	c->committing = false;
	pthread_mutex_unlock(&c->wlock);
}

/* The last phase of a block, or of a batch resolved on the jobs'
 * threads, its tasks taken in order (run_tasks' queue): task Q <
 * n_tables fills text table Q with the batch's kept answers (each a pass
 * over all misses: the first task of each job), the others queue a
 * part's output and, for a block, copy it for the writer or write it
 * when it is next (commit). */
static void task_finish(sp_batch *c, job *j, size_t t)
{
	if (t < c->n_tables) {
		/* not for a cache about to be dropped */
		if (c->cache_max && !cache_failed(c))
			fill_table(c, t, c->n_misses);
		return;
	}
	size_t p = t - c->n_tables;
	part *pt = &c->part[p];
	sp_grow(&pt->prefix, &pt->cap_prefix, pt->n_ents * SP_BATCH_PREFIX_MAX + 1, 1);
	pt->out.n = 0;
	emit(c, &pt->out, pt->ents, pt->n_ents, pt->prefix, pt->errors.data);
	if (c->async_out)
		copy_out(&c->sets[c->n_blocks & 1].parts[p], &pt->out);
	else
		commit(c, p);
}

/* First in sorted M[0..n) at ADDR or after. */
static size_t lower_bound(const sp_addr_item *m, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Cuts a block's TOTAL misses (sorted per part) into sort ranges at
 * addresses sampled from every part: c->bounds, c->range_off. */
static void plan_ranges(sp_batch *c, size_t total)
{
	size_t np = c->n_parts;
	size_t want = (size_t)c->jobs * RANGES_PER_JOB;
	size_t step = total / (want * 8) ? total / (want * 8) : 1;
	/* the samples, in c->misses (not yet in use) */
	sp_addr_item *s = c->misses;
	size_t ns = 0;
	for (size_t p = 0; p < np; p++)
		for (size_t i = step / 2; i < c->part[p].n_m; i += step)
			s[ns++] = (sp_addr_item){c->part[p].m[i].addr, 0};
	sp_addr_items_sort(s, c->misses_tmp, ns);
	size_t nr = total < 4 * JOB_CHUNK || !ns ? 1 : want;
	c->n_ranges = nr;
	c->bounds = sp_xreallocarray(c->bounds, (nr + 1) * np, sizeof(*c->bounds));
	c->range_off = sp_xreallocarray(c->range_off, nr + 1, sizeof(*c->range_off));
	c->range_distinct = sp_xreallocarray(c->range_distinct, nr, sizeof(*c->range_distinct));
	c->range_off[0] = 0;
	for (size_t r = 0; r <= nr; r++) {
		uint64_t split = r && r < nr ? s[r * ns / nr].addr : 0;
		size_t sum = 0;
		for (size_t p = 0; p < np; p++) {
			const part *pt = &c->part[p];
			size_t b = r == 0 ? 0 : r == nr ? pt->n_m : lower_bound(pt->m, pt->n_m, split);
			c->bounds[r * np + p] = b;
			if (r)
				sum += b - c->bounds[(r - 1) * np + p];
		}
		if (r)
			c->range_off[r] = c->range_off[r - 1] + sum;
	}
}

/* Cuts the block BUF[0..len) (complete lines, but for the last at EOF;
 * BUF[LEN] readable and not a hex digit) into c->part. */
static void cut_parts(sp_batch *c, const char *buf, size_t len, bool eof)
{
	size_t size = len / (8 * (size_t)c->jobs);
	size = size < PART_MIN ? PART_MIN : size > PART_MAX ? PART_MAX : size;
	c->n_parts = 0;
	for (size_t at = 0; at < len;) {
		size_t e = len - at > size ? at + size : len;
		if (e < len) {
			const char *nl = memchr(buf + e - 1, '\n', len - (e - 1));
			e = nl ? (size_t)(nl - buf) + 1 : len;
		}
		if (c->n_parts == c->cap_parts) {
			size_t old = c->cap_parts;
			part *grown = sp_xcalloc_lines(old * 2, sizeof(*c->part));
			memcpy(grown, c->part, old * sizeof(*c->part));
			free(c->part);
			c->part = grown;
			c->cap_parts = old * 2;
			for (size_t p = old; p < c->cap_parts; p++)
				c->part[p].out.grow = true;
		}
		part *pt = &c->part[c->n_parts++];
		pt->buf = buf + at;
		pt->len = e - at;
		pt->eof = eof && e == len;
		at = e;
	}
}

/* Resolves a large block's TOTAL misses (gathered into sort ranges first)
 * on the jobs' threads, or on the caller's when threads are not worth it
 * yet. */
static void resolve_block(sp_batch *c, size_t total)
{
	run_phase(c, task_range, c->n_ranges);
	size_t distinct = 0;
	for (size_t r = 0; r < c->n_ranges; r++)
		distinct += c->range_distinct[r];
	c->n_hits += block_repeats(c, total - distinct);
	if (!resolve_parallel(c, c->misses, total, distinct)) {
		share_cache(c, false);
		cut_chunks(c, c->misses, total);
		for (size_t t = 0; t < c->n_chunks; t++)
			task_resolve(c, &c->job[0], t);
	}
}

/* Answers a large block of input, BUF[0..len) (complete lines, but for
 * the last at EOF; BUF[LEN] readable and not a hex digit), on the jobs'
 * threads, and writes the answers in input order.  False, with nothing
 * written, for a block with lines that may be symbols' names: the serial
 * path answers it (names are looked up on the caller's thread). */
static bool run_block(sp_batch *c, const char *buf, size_t len, bool eof)
{
	if (!c->threads)
		start_threads(c);
	start_batch(c);
	cut_parts(c, buf, len, eof);
	run_phase(c, task_part, c->n_parts);
	for (size_t p = 0; p < c->n_parts; p++)
		if (c->part[p].n_sym) {
			c->part[0].n_ents = 0;
			sp_buf_reset(&c->part[0].errors);
			return false;
		}
	size_t total = 0;
	for (size_t p = 0; p < c->n_parts; p++) {
		c->n_asked += c->part[p].asked;
		c->n_hits += c->part[p].hits;
		total += c->part[p].n_m;
	}
	if (total > c->cap_misses) {
		free(c->misses);
		free(c->misses_tmp);
		c->cap_misses = total;
		c->misses = sp_xreallocarray(NULL, total, sizeof(*c->misses));
		c->misses_tmp = sp_xreallocarray(NULL, total, sizeof(*c->misses_tmp));
	}
	plan_ranges(c, total);
	if (total)
		resolve_block(c, total);
	c->n_misses = total;
	if (c->async_out) {
		ready_set(c, c->n_parts);
	} else {
		c->commit_next = 0;
		c->commit_ns = 0;
		c->commit_bytes = 0;
		for (size_t p = 0; p < c->n_parts; p++)
			c->part[p].emitted = false;
	}
	run_tasks(c, task_finish, c->n_tables + c->n_parts, true);
	c->kept_others = 0;
	for (int k = 1; k < c->jobs; k++)
		c->kept_others += c->job[k].keep->len;
	if (c->async_out)
		write_block(c);
	else
		committed(c);
	c->part[0].n_ents = 0;
	sp_buf_reset(&c->part[0].errors);
	return true;
}

/* True when FD has input (or EOF) to read without waiting. */
static bool input_ready(int fd)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	int r;
	while ((r = poll(&pfd, 1, 0)) < 0 && errno == EINTR)
		;
	return r != 0;
}

/* Input is read in blocks of up to READ_BLOCK: as long as more is ready
 * at once and there is room, then the block's lines are answered and
 * written before the next read, which could block.  So a co-process sees
 * its answer as soon as its line is sent, and bulk input is answered in
 * large batches. */
#define READ_BLOCK ((size_t)1 << 20)

/* Reads from FD into BUF[*len..cap) while input is ready; *EOF at its
 * end.  Returns 0 or errno. */
static int read_ready(int fd, char *buf, size_t cap, size_t *len, bool *eof)
{
	for (;;) {
		ssize_t got = read(fd, buf + *len, cap - *len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return errno;
		if (got == 0) {
			*eof = true;
			return 0;
		}
		*len += (size_t)got;
		if (*len == cap || !input_ready(fd))
			return 0;
	}
}

/* True when FD is a regular file with a block of PAR_MIN_BYTES or more
 * left to read: run_block will want the threads. */
static bool large_file(int fd)
{
	struct stat st;
	off_t at;
	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (at = lseek(fd, 0, SEEK_CUR)) >= 0 &&
	       st.st_size - at >= (off_t)PAR_MIN_BYTES;
}

int sp_batch_read_fd(sp_batch *c, int fd)
{
	/* a thread takes some time to be running on another CPU: started
	 * now, it is by the time the first block is read */
	if (c->jobs > 1 && !c->threads && large_file(fd))
		start_threads(c);
	size_t cap = READ_BLOCK, len = 0;
	char *buf = sp_xmalloc(cap + 1);
	bool eof = false;
	while (!eof) {
		if (len == cap) { /* one line longer than the block */
			cap *= 2;
			buf = sp_xrealloc(buf, cap + 1);
		}
		int e = read_ready(fd, buf, cap, &len, &eof);
		if (e) {
			free(buf);
			drain_writer(c);
			return e;
		}
		buf[len] = '\0';
		/* complete lines, and the last at EOF */
		const char *nl = eof ? NULL : memrchr(buf, '\n', len);
		size_t whole = eof ? len : nl ? (size_t)(nl - buf) + 1 : 0;
		size_t used;
		if (c->jobs > 1 && whole >= PAR_MIN_BYTES && whole <= PAR_MAX_BYTES &&
		    run_block(c, buf, whole, eof)) {
			used = whole;
		} else {
			used = add_lines(c, buf, len, eof);
			if (c->part[0].n_ents)
				run_batch(c);
		}
		memmove(buf, buf + used, len - used);
		len -= used;
	}
	free(buf);
	drain_writer(c);
	return 0;
}

sp_batch *sp_batch_new(const sp_batch_options *o)
{
	sp_batch *c = sp_xcalloc(1, sizeof(*c));
	const sp_jit_index *jit = NULL;
	const sp_perf_map *perf;
	const sp_kallsyms *ksyms;
	c->s = o->session;
	c->obj = o->object;
	c->obj_path = o->object && o->object_path ? sp_xstrdup(o->object_path) : NULL;
	c->fmt = o->format;
	c->adjust = o->addr_adjust;
	c->symbols = o->symbols;
	c->cache_max = o->no_cache ? 0 : o->cache_max ? o->cache_max : TEXT_CACHE_MAX;
	c->out = (wqueue){.fd = o->fd, .cap = WQ_IOV};
	c->out.iov = sp_xreallocarray(NULL, c->out.cap, sizeof(*c->out.iov));
	/* (loaded by the caller, whose error it was) */
	sp_error_free(sp_symbolizer_sources(c->s, &jit, &perf, &ksyms));
	c->jobs = o->jobs < 1 ? 1 : o->jobs > SP_BATCH_JOBS_MAX ? SP_BATCH_JOBS_MAX : o->jobs;
	c->paced = o->paced;
	/* a JIT object is opened at its first address, on whichever thread
	 * meets it: with JIT objects every address is resolved on this one */
	if (jit)
		c->jobs = 1;
	c->fmt.answer(c->fmt.ctx, NULL, 0, NULL, 0, &c->unknown);
	init_jobs(c);
	c->cap_parts = 1;
	c->part = sp_xcalloc_lines(1, sizeof(*c->part));
	c->part[0].out.grow = true;
	c->part[0].cap_ents = BATCH_LINES;
	c->part[0].ents = sp_xreallocarray(NULL, BATCH_LINES, sizeof(*c->part[0].ents));
	c->part[0].cap_prefix = BATCH_LINES * SP_BATCH_PREFIX_MAX;
	c->part[0].prefix = sp_xmalloc(c->part[0].cap_prefix);
	c->cap_misses = BATCH_LINES;
	c->misses = sp_xreallocarray(NULL, BATCH_LINES, sizeof(*c->misses));
	c->misses_tmp = sp_xreallocarray(NULL, BATCH_LINES, sizeof(*c->misses_tmp));
	return c;
}

void sp_batch_free(sp_batch *c)
{
	if (!c)
		return;
	stop_writer(c);
	stop_jobs(c); /* their threads free their jobs' while this frees the rest */
	for (size_t p = 0; p < c->cap_parts; p++) {
		part *pt = &c->part[p];
		free(pt->ents);
		free(pt->m);
		free(pt->m_tmp);
		free(pt->prefix);
		free(pt->out.iov);
		sp_buf_free(&pt->errors);
	}
	free(c->part);
	free(c->misses);
	free(c->misses_tmp);
	free(c->bounds);
	free(c->range_off);
	free(c->range_distinct);
	free(c->chunks);
	free(c->returned);
	for (unsigned q = 0; q < c->n_tables; q++)
		free(c->tables[q].slots);
	free(c->tables);
	for (int k = 0; k < 2; k++) {
		for (size_t p = 0; p < c->sets[k].cap; p++)
			sp_buf_free(&c->sets[k].parts[p]);
		free(c->sets[k].parts);
	}
	free(c->out.iov);
	sp_buf_free(&c->text);
	sp_buf_free(&c->tmp);
	sp_buf_free(&c->unknown);
	free_jobs(c);
	free(c->obj_path);
	free(c);
}
