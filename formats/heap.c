/* heap.c — the gperftools / tcmalloc heap profile text reader (spec
 * §2.1, §2.2, §2.6, §2.7), also the growth and fragmentation forms and
 * the Go runtime's legacy "heap/N" text.  Example input:
 *
 *   heap profile:    2:    18432 [    2:    18432] @ heap_v2/524288
 *        1:     9216 [     1:     9216] @ 0x4005d4 0x400612 0x7f3c1a021b45
 *        1:     9216 [     1:     9216] @ 0x4005d4 0x400640
 *
 *   MAPPED_LIBRARIES:
 *   00400000-00401000 r-xp 00000000 08:02 173521      /usr/bin/prog
 *
 * The first line decides: without "heap profile:" the input is not ours.
 * A line that has "heap profile:" but no "@ <type>" is refused with an
 * error rather than passed on: google/pprof rejects it too, and saying
 * why is more useful than "unrecognized format" (perl pprof reads it as an
 * old remote v1 format, which symprof does not support).  Only lower-case
 * hex addresses are accepted, as everywhere in these text formats. */
#include "formats/formats.h"
#include "formats/legacy.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef enum { SAMPLING_NONE, SAMPLING_V2 } sampling;

typedef struct {
	sampling samp;
	int64_t rate;
	bool has_alloc;
} heap_header;

static sp_error *bad_line(const char *name, size_t lineno, const char *what, const char *s,
			  size_t n)
{
	char *q = sp_legacy_quote(s, n);
	sp_error *e = sp_error_new(SP_E_MALFORMED, "%s: line %zu: %s, got %s", name, lineno, what, q);
	free(q);
	return e;
}

/* A tiny cursor over one line. */
typedef struct {
	const char *s;
	size_t n, i;
} cur;

static void spaces(cur *c)
{
	while (c->i < c->n && c->s[c->i] == ' ')
		c->i++;
}

static bool eat(cur *c, char ch)
{
	if (c->i < c->n && c->s[c->i] == ch) {
		c->i++;
		return true;
	}
	return false;
}

/* [-]?\d+ ; returns the token */
static bool digits(cur *c, bool allow_minus, const char **tok, size_t *tl)
{
	size_t b = c->i;
	if (allow_minus && c->i < c->n && c->s[c->i] == '-')
		c->i++;
	size_t d = c->i;
	while (c->i < c->n && c->s[c->i] >= '0' && c->s[c->i] <= '9')
		c->i++;
	if (c->i == d) {
		c->i = b;
		return false;
	}
	*tok = c->s + b;
	*tl = c->i - b;
	return true;
}

static bool tok_eq(const char *a, size_t al, const char *b, size_t bl)
{
	return al == bl && memcmp(a, b, al) == 0;
}

/* N: B [ N: B ] — the four count tokens of a header or sample line. */
typedef struct {
	const char *t[4];
	size_t l[4];
} counts;

static bool parse_counts(cur *c, bool signed_inuse, counts *k)
{
	spaces(c);
	if (!digits(c, signed_inuse, &k->t[0], &k->l[0]) || !eat(c, ':'))
		return false;
	spaces(c);
	if (!digits(c, signed_inuse, &k->t[1], &k->l[1]))
		return false;
	spaces(c);
	if (!eat(c, '['))
		return false;
	spaces(c);
	if (!digits(c, false, &k->t[2], &k->l[2]) || !eat(c, ':'))
		return false;
	spaces(c);
	if (!digits(c, false, &k->t[3], &k->l[3]))
		return false;
	spaces(c);
	return eat(c, ']');
}

static bool rest_blank(const cur *c)
{
	for (size_t i = c->i; i < c->n; i++)
		if (c->s[i] != ' ' && c->s[i] != '\t')
			return false;
	return true;
}

static const char *find(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(s + i, needle, k) == 0)
			return s + i;
	return NULL;
}

#define HEADER_FORM                                                                  \
	"\"heap profile: <n>: <bytes> [<n>: <bytes>] @ <type>[/<rate>]\" with type "  \
	"heapprofile, heap_v2, heapz_v2, heap, growth(z) or fragmentation(z)"

static sp_error *parse_header(const char *name, const char *s, size_t n, heap_header *h)
{
	const char *at = find(s, n, "heap profile:");
	if (!at)
		return sp_error_new(SP_E_UNRECOGNIZED, "%s: not a heap profile", name);
	cur c = {s, n, (size_t)(at - s) + strlen("heap profile:")};
	counts k;
	if (!parse_counts(&c, false, &k))
		return bad_line(name, 1, "expected " HEADER_FORM, s, n);
	spaces(&c);
	if (!eat(&c, '@'))
		return bad_line(name, 1,
				"expected \"@ <type>\" after the header counts (a heap header without "
				"a type is an old format symprof does not read)",
				s, n);
	spaces(&c);
	size_t tb = c.i;
	while (c.i < c.n && ((c.s[c.i] >= 'a' && c.s[c.i] <= 'z') ||
			     (c.s[c.i] >= '0' && c.s[c.i] <= '9') || c.s[c.i] == '_'))
		c.i++;
	const char *type = s + tb;
	size_t tl = c.i - tb;
	memset(h, 0, sizeof(*h));
	if (tok_eq(type, tl, "growth", 6) || tok_eq(type, tl, "growthz", 7) ||
	    tok_eq(type, tl, "fragmentation", 13) || tok_eq(type, tl, "fragmentationz", 14)) {
		if (!rest_blank(&c))
			return bad_line(name, 1, "expected end of line after the profile type", s, n);
		h->rate = 1;
		return NULL;
	}
	if (tl < 4 || memcmp(type, "heap", 4) != 0)
		return bad_line(name, 1, "expected a profile type after '@': " HEADER_FORM, s, n);
	int64_t rate = 0;
	if (eat(&c, '/')) {
		const char *rt;
		size_t rl;
		if (digits(&c, false, &rt, &rl) && !sp_parse_i64(rt, rt + rl, &rate))
			return bad_line(name, 1, "sampling rate does not fit in 64 bits", s, n);
	}
	if (!rest_blank(&c))
		return bad_line(name, 1, "expected end of line after the sampling rate", s, n);
	if (tok_eq(type, tl, "heap_v2", 7) || tok_eq(type, tl, "heapz_v2", 8)) {
		h->samp = SAMPLING_V2;
		h->rate = rate;
	} else if (tok_eq(type, tl, "heapprofile", 11)) {
		h->rate = 1;
	} else if (tok_eq(type, tl, "heap", 4)) {
		h->samp = SAMPLING_V2;
		h->rate = rate / 2;
	} else {
		char *q = sp_legacy_quote(type, tl);
		sp_error *e = sp_error_new(SP_E_MALFORMED,
					   "%s: line 1: unknown heap profile type %s (expected "
					   "heapprofile, heap_v2, heapz_v2 or heap)",
					   name, q);
		free(q);
		return e;
	}
	/* string comparison of the digit strings, as pprof does */
	h->has_alloc = (!tok_eq(k.t[2], k.l[2], k.t[0], k.l[0]) && !tok_eq(k.t[2], k.l[2], "0", 1)) ||
		       (!tok_eq(k.t[3], k.l[3], k.t[1], k.l[1]) && !tok_eq(k.t[3], k.l[3], "0", 1));
	return NULL;
}

/* pprof's scaleHeapSample (spec §2.2).  False when the result does not fit
 * an int64. */
static bool unsample(int64_t count, int64_t size, int64_t rate, int64_t *oc, int64_t *os)
{
	if (count == 0 || size == 0) {
		*oc = *os = 0;
		return true;
	}
	if (rate <= 1) {
		*oc = count, *os = size;
		return true;
	}
	double avg = (double)size / (double)count;
	double scale = 1 / (1 - exp(-avg / (double)rate));
	double c = (double)count * scale, s = (double)size * scale;
	const double lim = 9223372036854775808.0; /* 2^63 */
	if (!(c >= -lim && c < lim && s >= -lim && s < lim))
		return false;
	*oc = (int64_t)c;
	*os = (int64_t)s;
	return true;
}

/* Converts one count/bytes pair; sets *BLOCKSIZE when count != 0. */
static sp_error *add_pair(const char *name, size_t lineno, const char *line, size_t ll,
			  const counts *k, int first, const heap_header *h, const char *label,
			  int64_t *vals, int64_t *blocksize)
{
	int64_t count, size;
	if (!sp_parse_i64(k->t[first], k->t[first] + k->l[first], &count) ||
	    !sp_parse_i64(k->t[first + 1], k->t[first + 1] + k->l[first + 1], &size))
		return bad_line(name, lineno, "count or byte total does not fit in 64 bits", line, ll);
	if (count == 0 && size != 0)
		return sp_error_new(SP_E_MALFORMED,
				    "%s: line %zu: %s count is 0 but %s bytes is %lld (expected a "
				    "nonzero count when bytes are nonzero)",
				    name, lineno, label, label, (long long)size);
	if (count != 0) {
		if (count == -1 && size == INT64_MIN)
			return bad_line(name, lineno, "byte total out of range", line, ll);
		*blocksize = size / count;
		if (h->samp == SAMPLING_V2 && !unsample(count, size, h->rate, &count, &size))
			return bad_line(name, lineno, "unsampled value out of range", line, ll);
	}
	vals[0] = count;
	vals[1] = size;
	return NULL;
}

#define SAMPLE_FORM "expected \"<n>: <bytes> [<n>: <bytes>] @ 0x<addr> ...\""

/* A sample line is read in two halves: scanning (its counts, and its
 * stack's text looked up among the stacks seen before, its addresses parsed
 * when it is new) needs only the line, building (locations interned, the
 * sample added) only the profile.  With two threads the halves run at once,
 * the scanning one a few batches of lines ahead; with one, line by line.
 * Either way the builder sees the same records in the same order, so the
 * profile is the same.
 *
 * What scanning makes of one line: */
typedef struct {
	int64_t vals[4];
	int64_t blocksize;
	size_t stack;   /* the stack's number among those kept, SIZE_MAX when not kept */
	bool fresh;     /* not seen before (or not kept): its addresses follow */
	size_t n_addrs; /* when fresh */
} heap_rec;

/* The scanning half's state: the text of the stacks kept, numbered in
 * the order they first appear, up to SP_STACK_MEMO_MAX bytes of text and
 * addresses (past it new stacks are parsed every time, as with
 * sp_stack_memo). */
typedef struct {
	const char *name;
	const heap_header *h;
	sp_strtab stacks;
	size_t bytes;
} heap_scan;

/* Scans IT's current line into R; a fresh stack's addresses (adjusted) are
 * appended to ADDRS. */
static sp_error *scan_line(heap_scan *sc, const sp_lines *it, heap_rec *r, sp_u64vec *addrs)
{
	const char *name = sc->name, *s = it->line;
	size_t n = it->line_len;
	cur c = {s, n, 0};
	counts k;
	if (!parse_counts(&c, true, &k))
		return bad_line(name, it->lineno, SAMPLE_FORM, s, n);
	spaces(&c);
	if (!eat(&c, '@'))
		return bad_line(name, it->lineno, "expected '@' before the stack", s, n);
	size_t nv = 0;
	sp_error *err = NULL;
	r->blocksize = 0;
	if (sc->h->has_alloc) {
		err = add_pair(name, it->lineno, s, n, &k, 2, sc->h, "allocation", r->vals,
			       &r->blocksize);
		nv = 2;
	}
	if (!err)
		err = add_pair(name, it->lineno, s, n, &k, 0, sc->h, "inuse", r->vals + nv,
			       &r->blocksize);
	if (err)
		return err;
	const char *st = s + c.i;
	size_t sn = n - c.i;
	r->stack = sp_strtab_find(&sc->stacks, st, sn);
	r->fresh = r->stack == SIZE_MAX;
	if (!r->fresh)
		return NULL;
	size_t before = addrs->n;
	if ((err = sp_legacy_parse_addrs(name, it->lineno, st, sn, addrs)))
		return err;
	r->n_addrs = addrs->n - before;
	if (r->n_addrs) /* (a stack of no addresses may leave the array unallocated) */
		sp_legacy_adjust_pcs(addrs->v + before, r->n_addrs, true);
	sc->bytes += sn + r->n_addrs * sizeof(uint64_t);
	if (sc->bytes <= SP_STACK_MEMO_MAX)
		r->stack = sp_strtab_append(&sc->stacks, st, sn);
	return NULL;
}

/* A stack's location ids in the profile's sample storage, shared by
 * every sample of the stack. */
typedef struct {
	const uint64_t *ids;
	size_t n;
} heap_stack;

/* The building half's state: the location ids of each kept stack, by its
 * number. */
typedef struct {
	sp_profile *p;
	int64_t bytes; /* the label key */
	heap_stack *kept;
	size_t n_kept, cap_kept;
	sp_u64vec fresh; /* a fresh stack's ids */
} heap_build;

/* Adds the sample of R; ADDRS are its addresses when it is fresh.  A
 * heap profile's records repeat their stacks (a stack per allocation
 * site, a record per allocation size): their samples share the stack's
 * ids, and the values and label go into the profile's sample storage, so
 * a record costs its sample, its values and its label, without a malloc
 * (sp_profile_add_sample_shared). */
static void build_sample(heap_build *b, const heap_rec *r, const uint64_t *addrs)
{
	heap_stack st;
	if (r->fresh) {
		sp_legacy_locations(b->p, addrs, r->n_addrs, &b->fresh);
		uint64_t *ids = sp_profile_sample_storage(b->p, b->fresh.n, sizeof(*ids));
		if (b->fresh.n)
			memcpy(ids, b->fresh.v, b->fresh.n * sizeof(*ids));
		st = (heap_stack){ids, b->fresh.n};
		if (r->stack != SIZE_MAX) /* kept: numbered as the scanner numbered it */
			SP_PUSH(b->kept, b->n_kept, b->cap_kept, st);
	} else {
		st = b->kept[r->stack];
	}
	sp_label lab = {.key = b->bytes, .num = r->blocksize};
	sp_profile_add_sample_shared(b->p, r->vals, st.ids, st.n, &lab, 1);
}

/* -- two threads --------------------------------------------------------------
 * The scanning thread fills batches of records, SLOTS of them in a ring,
 * and hands each over under MU; the caller's thread builds from them in
 * order and gives the slot back.  Lines are the scanning thread's alone
 * until it ends (IT is the caller's again after the join). */
#define BATCH_RECS 4096
#define SLOTS 4

typedef struct {
	heap_rec *recs;
	size_t n;
	sp_u64vec addrs; /* the fresh stacks' addresses, in record order */
	sp_error *err;   /* the line after the records failed: the samples end here */
	bool last;       /* the samples end with this batch */
} heap_batch;

typedef struct {
	heap_scan *sc;
	sp_lines *it;
	bool maps; /* the samples ended at a map marker (read after the join) */
	heap_batch slot[SLOTS];
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t filled, built; /* batches handed over, given back; under MU */
} heap_pipe;

/* Fills B from the lines; false after its last. */
static bool scan_batch(heap_pipe *hp, heap_batch *b)
{
	if (!b->recs)
		b->recs = sp_xmalloc(BATCH_RECS * sizeof(*b->recs));
	b->n = 0;
	b->addrs.n = 0;
	while (b->n < BATCH_RECS) {
		if (!sp_legacy_next_line(hp->it, &hp->maps)) {
			b->last = true;
			return false;
		}
		if ((b->err = scan_line(hp->sc, hp->it, &b->recs[b->n], &b->addrs))) {
			b->last = true;
			return false;
		}
		b->n++;
	}
	return true;
}

static void *scan_thread(void *arg)
{
	heap_pipe *hp = arg;
	bool more = true;
	for (size_t k = 0; more; k++) {
		pthread_mutex_lock(&hp->mu);
		while (k - hp->built >= SLOTS)
			pthread_cond_wait(&hp->cv, &hp->mu);
		pthread_mutex_unlock(&hp->mu);
		more = scan_batch(hp, &hp->slot[k % SLOTS]);
		pthread_mutex_lock(&hp->mu);
		hp->filled = k + 1;
		pthread_cond_broadcast(&hp->cv);
		pthread_mutex_unlock(&hp->mu);
	}
	return NULL;
}

/* Builds B's records into B's profile; returns the batch's error
 * (consumed from it). */
static sp_error *build_batch(heap_build *bd, heap_batch *b)
{
	const uint64_t *addrs = b->addrs.v;
	for (size_t i = 0; i < b->n; i++) {
		build_sample(bd, &b->recs[i], addrs);
		if (b->recs[i].fresh)
			addrs += b->recs[i].n_addrs;
	}
	sp_error *err = b->err;
	b->err = NULL;
	return err;
}

/* The samples read on a second thread; false when it cannot be started
 * (nothing was read then). */
static bool read_two_threads(heap_scan *sc, heap_build *bd, sp_lines *it, bool *maps,
			     sp_error **err)
{
	heap_pipe hp = {.sc = sc, .it = it};
	pthread_t t;
	if (pthread_mutex_init(&hp.mu, NULL) != 0)
		return false;
	if (pthread_cond_init(&hp.cv, NULL) != 0) {
		pthread_mutex_destroy(&hp.mu);
		return false;
	}
	bool started = pthread_create(&t, NULL, scan_thread, &hp) == 0;
	bool last = !started;
	for (size_t k = 0; !last; k++) {
		pthread_mutex_lock(&hp.mu);
		while (hp.filled <= k)
			pthread_cond_wait(&hp.cv, &hp.mu);
		pthread_mutex_unlock(&hp.mu);
		heap_batch *b = &hp.slot[k % SLOTS];
		*err = build_batch(bd, b);
		last = b->last;
		pthread_mutex_lock(&hp.mu);
		hp.built = k + 1;
		pthread_cond_broadcast(&hp.cv);
		pthread_mutex_unlock(&hp.mu);
	}
	if (started)
		pthread_join(t, NULL);
	pthread_cond_destroy(&hp.cv);
	pthread_mutex_destroy(&hp.mu);
	for (size_t i = 0; i < SLOTS; i++) {
		free(hp.slot[i].recs);
		sp_u64vec_free(&hp.slot[i].addrs);
	}
	*maps = hp.maps;
	return started;
}

/* The sample lines of IT, after the header H, and the memory map; a line
 * is not kept once read.  With RO's jobs > 1 the lines are scanned on a
 * second thread. */
static sp_error *read_samples(const char *name, sp_lines *it, const heap_header *h,
			      const sp_read_options *ro, sp_profile **out)
{
	sp_error *err = NULL;
	sp_profile *p = sp_profile_new();
	p->period_type.type = sp_profile_intern(p, "space");
	p->period_type.unit = sp_profile_intern(p, "bytes");
	p->period = h->rate;
	p->drop_frames = sp_profile_intern(p, SP_HEAP_DROP_FRAMES);
	if (h->has_alloc) {
		sp_profile_add_sample_type(p, "alloc_objects", "count");
		sp_profile_add_sample_type(p, "alloc_space", "bytes");
		sp_profile_add_sample_type(p, "inuse_objects", "count");
		sp_profile_add_sample_type(p, "inuse_space", "bytes");
	} else {
		sp_profile_add_sample_type(p, "objects", "count");
		sp_profile_add_sample_type(p, "space", "bytes");
	}

	heap_scan sc = {.name = name, .h = h};
	heap_build bd = {.p = p, .bytes = sp_profile_intern(p, "bytes")};
	bool maps = false;
	if (!ro || ro->jobs < 2 || !read_two_threads(&sc, &bd, it, &maps, &err)) {
		sp_u64vec addrs = {0};
		heap_rec r;
		while (!err && sp_legacy_next_line(it, &maps)) {
			addrs.n = 0;
			if (!(err = scan_line(&sc, it, &r, &addrs)))
				build_sample(&bd, &r, addrs.v);
		}
		sp_u64vec_free(&addrs);
	}
	sp_strtab_free(&sc.stacks);
	sp_u64vec_free(&bd.fresh);
	free(bd.kept);
	if (!err)
		err = sp_legacy_finish_maps(p, name, maps ? sp_lines_rest(it) : NULL,
					    maps ? sp_lines_rest_len(it) : 0);
	if (err) {
		sp_profile_free(p);
		return err;
	}
	*out = p;
	return NULL;
}

static sp_error *read_lines(const char *name, sp_lines *it, const sp_read_options *ro,
			     sp_profile **out)
{
	*out = NULL;
	name = name ? name : "heap profile";
	if (!sp_lines_next(it))
		return sp_error_new(SP_E_UNRECOGNIZED, "%s: empty input", name);
	heap_header h;
	sp_error *err = parse_header(name, it->line, it->line_len, &h);
	return err ? err : read_samples(name, it, &h, ro, out);
}

sp_error *sp_heap_read(const char *name, const uint8_t *data, size_t len, sp_profile **out)
{
	return sp_legacy_read_buffer(name, data, len, read_lines, out);
}

sp_error *sp_heap_read_file_with(const char *name, FILE *f, const sp_read_options *ro,
				 sp_profile **out)
{
	return sp_legacy_read_file(name, f, read_lines, ro, out);
}

sp_error *sp_heap_read_file(const char *name, FILE *f, sp_profile **out)
{
	return sp_heap_read_file_with(name, f, NULL, out);
}
