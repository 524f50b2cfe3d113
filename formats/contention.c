/* contention.c — reader for gperftools / Go legacy contention profiles
 * (spec/FORMATS.md §2.3):
 *
 *   --- contentionz 1 ---
 *   cycles/second = 3201000000
 *   sampling period = 100
 *   ms since reset = 6000
 *   19490304 27 @ 0x4ce1a9 0x4cd1e1 0x4b5612
 *   --- Memory map: ---
 *   00400000-00fc4000 r-xp 00000000 fc:00 1234 /usr/bin/server
 *
 * Samples are "<delay cycles> <count> @ PCs".  With a sampling period P the
 * count becomes count·P and, with cycles/second H, the delay becomes
 * cycles·P / (H/1e9) nanoseconds (computed in floating point and
 * truncated, as google/pprof does).  Every PC is a return address and is
 * moved back by one, the leaf included. */
#include "formats/formats.h"
#include "formats/legacy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LOCK_DROP_FRAMES                                                               \
	"(pthread_mutex_|pthread_rwlock_|pthread_cond_|pthread_spin_|__lll_|__pthread_" \
	"mutex_|futex_|sem_)[a-z_0-9]*|(base::|absl::)?(Mutex|SpinLock|CondVar)::.*|"   \
	"sync\\..*|runtime\\.(lock|unlock|semacquire|semrelease|notesleep)[a-zA-Z0-9_]*"

static sp_error *unrecognized(const char *name, size_t line, const char *why)
{
	return sp_error_new(SP_E_UNRECOGNIZED, "%s: line %zu: %s", name, line, why);
}

/* Parses an attribute value the way strconv.ParseInt(v, 0, 64) would for
 * the forms seen in practice: decimal (signed) or 0x hex. */
static bool parse_value(const char *s, size_t n, int64_t *out)
{
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		uint64_t u;
		if (!sp_parse_u64(s, s + n, 16, &u) || u > (uint64_t)INT64_MAX)
			return false;
		*out = (int64_t)u;
		return true;
	}
	return sp_parse_i64(s, s + n, out);
}

static bool has_prefix(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && memcmp(s, prefix, k) == 0;
}

static void trim(const char **s, size_t *n)
{
	while (*n && (**s == ' ' || **s == '\t'))
		(*s)++, (*n)--;
	while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' || (*s)[*n - 1] == '\r'))
		(*n)--;
}

static const char *skip_ws(const char *s, const char *e)
{
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

static const char *digits_end(const char *s, const char *e)
{
	while (s < e && *s >= '0' && *s <= '9')
		s++;
	return s;
}

typedef struct {
	int64_t period, hz;
	sp_u64vec addrs, locs;
} contention_state;

static sp_error *parse_sample(sp_profile *p, contention_state *st, const char *name,
			      size_t lineno, const char *s, size_t len)
{
	const char *e = s + len, *q = skip_ws(s, e);
	const char *d1 = q, *d1e = digits_end(d1, e);
	const char *d2 = skip_ws(d1e, e), *d2e = digits_end(d2, e);
	const char *at = skip_ws(d2e, e);
	int64_t delay, count;
	if (d1 == d1e || d2 == d1e || d2 == d2e || at >= e || *at != '@' ||
	    !sp_parse_i64(d1, d1e, &delay) || !sp_parse_i64(d2, d2e, &count))
		return sp_error_new(SP_E_MALFORMED,
				    "%s: line %zu: expected \"<delay> <count> @ 0x...\", got "
				    "\"%.*s\"",
				    name, lineno, (int)(len > 80 ? 80 : len), s);
	st->addrs.n = 0;
	sp_error *err = sp_legacy_parse_addrs(name, lineno, at + 1, (size_t)(e - at - 1), &st->addrs);
	if (err)
		return err;
	if (st->period > 0) {
		if (st->hz > 0) {
			double ghz = (double)st->hz / 1e9;
			double ns = (double)delay * (double)st->period / ghz;
			if (!(ns < 9223372036854775808.0))
				return sp_error_new(SP_E_MALFORMED,
						    "%s: line %zu: delay %lld cycles overflows "
						    "nanoseconds",
						    name, lineno, (long long)delay);
			delay = (int64_t)ns;
		}
		if (__builtin_mul_overflow(count, st->period, &count))
			return sp_error_new(SP_E_MALFORMED,
					    "%s: line %zu: count times the sampling period %lld "
					    "does not fit an int64",
					    name, lineno, (long long)st->period);
	}
	sp_legacy_adjust_pcs(st->addrs.v, st->addrs.n, true);
	sp_legacy_locations(p, st->addrs.v, st->addrs.n, &st->locs);
	int64_t v[2] = {count, delay};
	sp_profile_add_sample(p, v, st->locs.v, st->locs.n, NULL, 0);
	return NULL;
}

static sp_error *parse(sp_profile *p, contention_state *st, const char *name,
		       const uint8_t *data, size_t len)
{
	sp_lines it;
	sp_lines_init(&it, data, len);
	if (!sp_lines_next(&it) || !(has_prefix(it.line, it.line_len, "--- contentionz ") ||
				      has_prefix(it.line, it.line_len, "--- mutex:") ||
				      has_prefix(it.line, it.line_len, "--- contention:")))
		return sp_error_new(SP_E_UNRECOGNIZED, "%s: not a contention profile", name);

	/* "key = value" lines up to the first sample or "---" */
	bool more;
	while ((more = sp_lines_next(&it))) {
		const char *s = it.line;
		size_t n = it.line_len;
		trim(&s, &n);
		if (n == 0 || s[0] == '#')
			continue;
		if (has_prefix(s, n, "---"))
			break;
		const char *eq = memchr(s, '=', n);
		if (!eq)
			break;
		const char *k = s, *v = eq + 1;
		size_t kn = (size_t)(eq - s), vn = n - kn - 1;
		trim(&k, &kn);
		trim(&v, &vn);
		int64_t x = 0;
		bool known = (kn == 13 && !memcmp(k, "cycles/second", 13)) ||
			     (kn == 15 && !memcmp(k, "sampling period", 15)) ||
			     (kn == 14 && !memcmp(k, "ms since reset", 14)) ||
			     (kn == 17 && !memcmp(k, "discarded samples", 17));
		if (!known)
			return unrecognized(name, it.lineno,
					    "attribute not of a contention profile");
		if (kn == 17)
			continue;
		if (!parse_value(v, vn, &x))
			return unrecognized(name, it.lineno, "attribute value is not an integer");
		if (kn == 13)
			st->hz = x;
		else if (kn == 15)
			p->period = x;
		else if (__builtin_mul_overflow(x, (int64_t)1000000, &p->duration_nanos))
			return sp_error_new(SP_E_MALFORMED,
					    "%s: line %zu: duration %lld ms does not fit an int64 "
					    "of nanoseconds",
					    name, it.lineno, (long long)x);
	}
	st->period = p->period;

	/* samples, starting with the line that ended the attributes */
	for (; more; more = sp_lines_next(&it)) {
		const char *s = it.line;
		size_t n = it.line_len;
		trim(&s, &n);
		if (has_prefix(s, n, "---"))
			break;
		if (n == 0 || s[0] == '#')
			continue;
		sp_error *err = parse_sample(p, st, name, it.lineno, s, n);
		if (err)
			return err;
	}
	/* the memory map, if any, from the line that ended the samples on */
	return sp_legacy_finish_maps_from(p, name, data, len, more ? it.line_off : len);
}

sp_error *sp_contention_read(const char *name, const uint8_t *data, size_t len,
			     sp_profile **out)
{
	*out = NULL;
	sp_profile *p = sp_profile_new();
	sp_profile_add_sample_type(p, "contentions", "count");
	sp_profile_add_sample_type(p, "delay", "nanoseconds");
	p->period_type.type = sp_profile_intern(p, "contentions");
	p->period_type.unit = sp_profile_intern(p, "count");
	p->period = 1;
	p->drop_frames = sp_profile_intern(p, LOCK_DROP_FRAMES);
	contention_state st = {0};
	sp_error *err = parse(p, &st, name, data, len);
	sp_u64vec_free(&st.addrs);
	sp_u64vec_free(&st.locs);
	if (err) {
		sp_profile_free(p);
		return err;
	}
	*out = p;
	return NULL;
}
