/* heap_line.c — the lines of a gperftools / tcmalloc heap profile
 * (spec §2.1, §2.2, §2.6, §2.7): the header, and a sample line's two
 * halves, scanning and building (heapp.h), which heap.c runs line by line
 * and heap_chunks.c on several threads.  Example lines:
 *
 *   heap profile:    2:    18432 [    2:    18432] @ heap_v2/524288
 *        1:     9216 [     1:     9216] @ 0x4005d4 0x400612 0x7f3c1a021b45
 */
#include "formats/heapp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

sp_error *sp_heap_parse_header(const char *name, const char *s, size_t n, heap_header *h)
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

/* A sample line is read in two halves (heapp.h).  With one thread they
 * run line by line; with more, lines are scanned on several threads a
 * chunk at a time and built in input order (heap_chunks.c).  Either way
 * the builder sees the same records in the same order, so the profile is
 * the same. */
sp_error *sp_heap_scan_counts(const char *name, const heap_header *h, size_t lineno,
			      const char *s, size_t n, heap_rec *r, size_t *stack_at)
{
	cur c = {s, n, 0};
	counts k;
	if (!parse_counts(&c, true, &k))
		return bad_line(name, lineno, SAMPLE_FORM, s, n);
	spaces(&c);
	if (!eat(&c, '@'))
		return bad_line(name, lineno, "expected '@' before the stack", s, n);
	size_t nv = 0;
	sp_error *err = NULL;
	r->blocksize = 0;
	if (h->has_alloc) {
		err = add_pair(name, lineno, s, n, &k, 2, h, "allocation", r->vals, &r->blocksize);
		nv = 2;
	}
	if (!err)
		err = add_pair(name, lineno, s, n, &k, 0, h, "inuse", r->vals + nv, &r->blocksize);
	*stack_at = c.i;
	return err;
}

sp_error *sp_heap_scan_stack(heap_scan *sc, size_t lineno, const char *st, size_t sn,
			     size_t found, heap_rec *r, sp_u64vec *addrs)
{
	r->stack = found;
	r->fresh = found == SIZE_MAX;
	if (!r->fresh)
		return NULL;
	size_t before = addrs->n;
	sp_error *err = sp_legacy_parse_addrs(sc->name, lineno, st, sn, addrs);
	if (err)
		return err;
	r->n_addrs = addrs->n - before;
	if (r->n_addrs) /* (a stack of no addresses may leave the array unallocated) */
		sp_legacy_adjust_pcs(addrs->v + before, r->n_addrs, true);
	sc->bytes += sn + r->n_addrs * sizeof(uint64_t);
	if (sc->bytes <= SP_STACK_MEMO_MAX)
		r->stack = sp_strtab_append(&sc->stacks, st, sn);
	return NULL;
}

/* A heap profile's records repeat their stacks (a stack per allocation
 * site, a record per allocation size): their samples share the stack's
 * ids, and the values and label go into the profile's sample storage, so
 * a record costs its sample, its values and its label, without a malloc
 * (sp_profile_add_sample_shared). */
void sp_heap_build_sample(heap_build *b, const heap_rec *r, const uint64_t *addrs)
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
