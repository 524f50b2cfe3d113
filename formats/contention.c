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
#include "formats/stacks.h"

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
	uint64_t *addrs, *locs;
	size_t n, cap_addrs, cap_locs;
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
	/* after '@' only hex addresses and blanks */
	st->n = 0;
	for (const char *a = skip_ws(at + 1, e); a < e; a = skip_ws(a, e)) {
		const char *t = a;
		while (t < e && *t != ' ' && *t != '\t')
			t++;
		uint64_t v;
		if (t - a < 3 || a[0] != '0' || a[1] != 'x' || !sp_parse_u64(a, t, 16, &v))
			return sp_error_new(SP_E_MALFORMED,
					    "%s: line %zu: expected hex address after '@', got "
					    "\"%.*s\"",
					    name, lineno, (int)(t - a > 40 ? 40 : t - a), a);
		SP_PUSH(st->addrs, st->n, st->cap_addrs, v);
		a = t;
	}
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
		count = (int64_t)((uint64_t)count * (uint64_t)st->period);
	}
	sp_grow(&st->locs, &st->cap_locs, st->n, sizeof(uint64_t));
	for (size_t i = 0; i < st->n; i++)
		st->locs[i] = sp_profile_location_for_address(p, 0, st->addrs[i] - 1);
	int64_t v[2] = {count, delay};
	sp_profile_add_sample(p, v, st->locs, st->n, NULL, 0);
	return NULL;
}

static sp_error *parse(sp_profile *p, contention_state *st, const char *name,
		       const uint8_t *data, size_t len)
{
	sp_fmt_lines it;
	sp_fmt_lines_init(&it, (const char *)data, len);
	if (!sp_fmt_lines_next(&it) ||
	    !(sp_fmt_has_prefix(it.line, it.len, "--- contentionz ") ||
	      sp_fmt_has_prefix(it.line, it.len, "--- mutex:") ||
	      sp_fmt_has_prefix(it.line, it.len, "--- contention:")))
		return sp_error_new(SP_E_UNRECOGNIZED, "%s: not a contention profile", name);

	/* "key = value" lines up to the first sample or "---" */
	bool more;
	while ((more = sp_fmt_lines_next(&it))) {
		const char *s = it.line;
		size_t n = it.len;
		sp_fmt_trim(&s, &n);
		if (n == 0 || s[0] == '#')
			continue;
		if (sp_fmt_has_prefix(s, n, "---"))
			break;
		const char *eq = memchr(s, '=', n);
		if (!eq)
			break;
		const char *k = s, *v = eq + 1;
		size_t kn = (size_t)(eq - s), vn = n - kn - 1;
		sp_fmt_trim(&k, &kn);
		sp_fmt_trim(&v, &vn);
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
		else
			p->duration_nanos = (int64_t)((uint64_t)x * 1000000u);
	}
	st->period = p->period;

	/* samples, starting with the line that ended the attributes */
	for (; more; more = sp_fmt_lines_next(&it)) {
		const char *s = it.line;
		size_t n = it.len;
		sp_fmt_trim(&s, &n);
		if (sp_fmt_has_prefix(s, n, "---"))
			break;
		if (n == 0 || s[0] == '#')
			continue;
		sp_error *err = parse_sample(p, st, name, it.lineno, s, n);
		if (err)
			return err;
	}
	return sp_fmt_parse_trailing_maps(p, &it, name);
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
	free(st.addrs);
	free(st.locs);
	if (err) {
		sp_profile_free(p);
		return err;
	}
	*out = p;
	return NULL;
}
