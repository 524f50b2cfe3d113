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

/* The sample lines of IT, after the header H, and the memory map; a line
 * is not kept once read. */
static sp_error *read_samples(const char *name, sp_lines *it, const heap_header *h,
			      sp_profile **out)
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

	sp_u64vec addrs = {0}, ids = {0};
	sp_stack_memo memo = {0};
	const int64_t bytes = sp_profile_intern(p, "bytes");
	bool maps = false;
	while (!err && sp_legacy_next_line(it, &maps)) {
		const char *s = it->line;
		size_t n = it->line_len;
		cur c = {s, n, 0};
		counts k;
		if (!parse_counts(&c, true, &k)) {
			err = bad_line(name, it->lineno, SAMPLE_FORM, s, n);
			break;
		}
		spaces(&c);
		if (!eat(&c, '@')) {
			err = bad_line(name, it->lineno, "expected '@' before the stack", s, n);
			break;
		}
		int64_t vals[4], blocksize = 0;
		size_t nv = 0;
		if (h->has_alloc) {
			err = add_pair(name, it->lineno, s, n, &k, 2, h, "allocation", vals, &blocksize);
			nv = 2;
		}
		if (!err)
			err = add_pair(name, it->lineno, s, n, &k, 0, h, "inuse", vals + nv,
				       &blocksize);
		if (err)
			break;
		const uint64_t *stack;
		size_t depth;
		if (!sp_stack_memo_find(&memo, s + c.i, n - c.i, &stack, &depth)) {
			addrs.n = 0;
			err = sp_legacy_parse_addrs(name, it->lineno, s + c.i, n - c.i, &addrs);
			if (err)
				break;
			sp_legacy_adjust_pcs(addrs.v, addrs.n, true);
			sp_legacy_locations(p, addrs.v, addrs.n, &ids);
			sp_stack_memo_add(&memo, s + c.i, n - c.i, ids.v, ids.n);
			stack = ids.v;
			depth = ids.n;
		}
		sp_label lab = {.key = bytes, .num = blocksize};
		sp_profile_add_sample(p, vals, stack, depth, &lab, 1);
	}
	sp_u64vec_free(&addrs);
	sp_u64vec_free(&ids);
	sp_stack_memo_free(&memo);
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

static sp_error *read_lines(const char *name, sp_lines *it, sp_profile **out)
{
	*out = NULL;
	name = name ? name : "heap profile";
	if (!sp_lines_next(it))
		return sp_error_new(SP_E_UNRECOGNIZED, "%s: empty input", name);
	heap_header h;
	sp_error *err = parse_header(name, it->line, it->line_len, &h);
	return err ? err : read_samples(name, it, &h, out);
}

sp_error *sp_heap_read(const char *name, const uint8_t *data, size_t len, sp_profile **out)
{
	return sp_legacy_read_buffer(name, data, len, read_lines, out);
}

sp_error *sp_heap_read_file(const char *name, FILE *f, sp_profile **out)
{
	return sp_legacy_read_file(name, f, read_lines, out);
}
