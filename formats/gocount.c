/* gocount.c — reader for Go's legacy count profiles (goroutine,
 * threadcreate; spec/FORMATS.md §2.5):
 *
 *   goroutine profile: total 3
 *   2 @ 0x42f86a 0x42a3c5 0x45a2e1
 *   1 @ 0x42f86a 0x4ef21e
 *   --- Memory map: ---
 *   00400000-00500000 r-xp 00000000 fc:00 1234 /usr/bin/server
 *
 * The header names the sample type (<name>/count, period 1).  Each line
 * "<count> @ PCs" is one sample; every PC, the leaf included, is a return
 * address and moves back by one. */
#include "formats/formats.h"
#include "formats/legacy.h"

#include <stdlib.h>
#include <string.h>

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* "<name> profile: total <digits>", NAME without blanks. */
static bool parse_header(const char *s, size_t n, size_t *name_len)
{
	size_t i = 0;
	while (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r' &&
	       s[i] != '\f' && s[i] != '\v')
		i++;
	static const char mid[] = " profile: total ";
	size_t m = sizeof(mid) - 1;
	if (i == 0 || n - i < m || memcmp(s + i, mid, m))
		return false;
	size_t d = i + m;
	if (d == n)
		return false;
	for (size_t j = d; j < n; j++)
		if (!is_digit(s[j]))
			return false;
	*name_len = i;
	return true;
}

typedef struct {
	sp_u64vec addrs, locs;
} gocount_state;

/* "<digits> @ 0x.. 0x..": exactly one space before each address. */
static sp_error *parse_sample(sp_profile *p, gocount_state *st, const char *name, size_t lineno,
			      const char *s, size_t len)
{
	const char *e = s + len, *q = s;
	while (q < e && is_digit(*q))
		q++;
	int64_t count;
	bool ok = q > s && sp_parse_i64(s, q, &count) && e - q >= 2 && q[0] == ' ' &&
		  q[1] == '@';
	st->addrs.n = 0;
	if (ok) {
		const char *a = q + 2;
		if (a == e)
			ok = false;
		while (ok && a < e) {
			const char *t = a + 1;
			while (t < e && *t != ' ')
				t++;
			uint64_t v;
			ok = *a == ' ' && t - a >= 4 && a[1] == '0' && a[2] == 'x';
			for (const char *h = a + 3; ok && h < t; h++)
				ok = is_digit(*h) || (*h >= 'a' && *h <= 'f');
			if (ok)
				ok = sp_parse_u64(a + 3, t, 16, &v);
			if (ok)
				SP_PUSH(st->addrs.v, st->addrs.n, st->addrs.cap, v);
			a = t;
		}
	}
	if (!ok)
		return sp_error_new(SP_E_MALFORMED,
				    "%s: line %zu: expected \"<count> @ 0x... 0x...\", got "
				    "\"%.*s\"",
				    name, lineno, (int)(len > 80 ? 80 : len), s);
	sp_legacy_adjust_pcs(st->addrs.v, st->addrs.n, true);
	sp_legacy_locations(p, st->addrs.v, st->addrs.n, &st->locs);
	sp_profile_add_sample(p, &count, st->locs.v, st->locs.n, NULL, 0);
	return NULL;
}

static sp_error *parse(sp_profile **pp, gocount_state *st, const char *name, const uint8_t *data,
		       size_t len)
{
	sp_lines it;
	sp_lines_init(&it, data, len);
	bool more;
	while ((more = sp_lines_next(&it)) && sp_legacy_is_space_or_comment(it.line, it.line_len))
		;
	size_t tn;
	if (!more || !parse_header(it.line, it.line_len, &tn))
		return sp_error_new(SP_E_UNRECOGNIZED, "%s: not a Go count profile", name);
	sp_profile *p = *pp = sp_profile_new();
	char *type = sp_xstrndup(it.line, tn);
	sp_profile_add_sample_type(p, type, "count");
	p->period_type.type = sp_profile_intern(p, type);
	p->period_type.unit = sp_profile_intern(p, "count");
	p->period = 1;
	free(type);
	while ((more = sp_lines_next(&it))) {
		if (sp_legacy_is_space_or_comment(it.line, it.line_len))
			continue;
		if (it.line_len >= 3 && !memcmp(it.line, "---", 3))
			break;
		sp_error *err = parse_sample(p, st, name, it.lineno, it.line, it.line_len);
		if (err)
			return err;
	}
	/* the memory map, if any, from the line that ended the samples on */
	return sp_legacy_finish_maps_from(p, name, data, len, more ? it.line_off : len);
}

sp_error *sp_gocount_read(const char *name, const uint8_t *data, size_t len, sp_profile **out)
{
	*out = NULL;
	sp_profile *p = NULL;
	gocount_state st = {0};
	sp_error *err = parse(&p, &st, name, data, len);
	sp_u64vec_free(&st.addrs);
	sp_u64vec_free(&st.locs);
	if (err) {
		sp_profile_free(p);
		return err;
	}
	*out = p;
	return NULL;
}
