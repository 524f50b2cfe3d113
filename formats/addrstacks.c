/* addrstacks.c — reader for symprof's raw address stacks, a text format that
 * eBPF agents and other collectors can write without a library (described
 * for users in docs/raw-stacks.md):
 *
 *   # symprof raw stacks v1
 *   sample_type: samples/count cpu/nanoseconds
 *   period: cpu/nanoseconds 10000000
 *   addresses: return
 *   3 30000000 @ 0x401005 0x402010 0x403020
 *   1 10000000 @ 0x401005 0x402010
 *   --- Memory map: ---
 *   00400000-00404000 r-xp 00000000 08:01 1234 /usr/bin/prog
 *
 * The magic first line makes detection unambiguous.  Header lines
 * ("key: value") come before the first sample.  Each sample line holds one
 * value per sample type, '@', then the stack leaf first.  With
 * "addresses: return" (the default) every frame but the leaf is a return
 * address and moves back by one into the call; "addresses: exact" keeps
 * them all.  Identical stacks are summed.  The memory map may follow a
 * "--- Memory map: ---" line; without one the locations stay unattached
 * and a map can be given later (sp_profile_parse_maps, then
 * sp_profile_attach_locations). */
#include "formats/formats.h"
#include "formats/legacy.h"
#include "formats/stacks.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define RAW_MAGIC "# symprof raw stacks v"

typedef struct {
	const char *name;
	sp_profile *p;
	bool exact;             /* addresses: exact */
	bool have_types, have_period, have_addresses, have_default;
	bool in_samples;
	int64_t *values;
	size_t cap_values;
	sp_u64vec addrs, locs;
	sp_stack_sums sums; /* identical stacks summed as they are read */
	sp_stack_memo memo; /* stacks already parsed, by their text ("addresses:"
			     * cannot change after the first sample) */
} raw_state;

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static void trim(const char **s, size_t *n)
{
	while (*n && is_blank(**s))
		(*s)++, (*n)--;
	while (*n && is_blank((*s)[*n - 1]))
		(*n)--;
}

/* The next blank-separated token of [*s, e); false at the end. */
static bool next_token(const char **s, const char *e, const char **tok, size_t *n)
{
	const char *q = *s;
	while (q < e && is_blank(*q))
		q++;
	if (q == e)
		return false;
	const char *t = q;
	while (q < e && !is_blank(*q))
		q++;
	*tok = t;
	*n = (size_t)(q - t);
	*s = q;
	return true;
}

/* bad(st, lineno, "literal with one %.*s", tok, n): the format stays a
 * literal at each call, so the compiler checks it. */
#define bad(st, lineno, fmt, tok, n) \
	bad_((st), (lineno), sp_xasprintf(fmt, (int)((n) > 60 ? 60 : (n)), (tok)))

/* WHAT is consumed. */
static sp_error *bad_(const raw_state *st, size_t lineno, char *what)
{
	sp_error *e = sp_error_new(SP_E_MALFORMED, "%s: line %zu: %s", st->name, lineno, what);
	free(what);
	return e;
}

/* "TYPE/UNIT" with both parts non-empty. */
static bool split_type(const char *tok, size_t n, size_t *slash)
{
	const char *sl = memchr(tok, '/', n);
	if (!sl || sl == tok || sl == tok + n - 1)
		return false;
	*slash = (size_t)(sl - tok);
	return true;
}

static sp_error *header_line(raw_state *st, size_t lineno, const char *s, size_t n)
{
	const char *colon = memchr(s, ':', n);
	const char *key = s, *e = s + n, *v = colon + 1, *tok;
	size_t kn = (size_t)(colon - s), tn;
	sp_profile *p = st->p;
#define KEY(k) (kn == sizeof(k) - 1 && !memcmp(key, k, kn))
#define ONCE(flag)                                                                         \
	do {                                                                               \
		if (flag)                                                                  \
			return bad(st, lineno, "header \"%.*s\" given twice", key, kn);    \
		flag = true;                                                               \
	} while (0)
	if (st->in_samples)
		return bad(st, lineno, "header line \"%.*s\" after the first sample", s, n);
	if (KEY("sample_type")) {
		ONCE(st->have_types);
		while (next_token(&v, e, &tok, &tn)) {
			size_t sl;
			if (!split_type(tok, tn, &sl))
				return bad(st, lineno, "expected TYPE/UNIT, got \"%.*s\"", tok, tn);
			char *type = sp_xstrndup(tok, sl), *unit = sp_xstrndup(tok + sl + 1, tn - sl - 1);
			sp_profile_add_sample_type(p, type, unit);
			free(type);
			free(unit);
		}
		if (!p->n_sample_types)
			return bad(st, lineno, "expected TYPE/UNIT after \"%.*s:\"", key, kn);
	} else if (KEY("period")) {
		ONCE(st->have_period);
		size_t sl, pn;
		const char *pt;
		int64_t period;
		if (!next_token(&v, e, &tok, &tn) || !split_type(tok, tn, &sl))
			return bad(st, lineno, "expected \"period: TYPE/UNIT N\", got \"%.*s\"", s, n);
		if (!next_token(&v, e, &pt, &pn) || !sp_parse_i64(pt, pt + pn, &period) ||
		    period < 0 || next_token(&v, e, &pt, &pn))
			return bad(st, lineno, "expected \"period: TYPE/UNIT N\", got \"%.*s\"", s, n);
		p->period_type.type = sp_profile_intern_n(p, tok, sl);
		p->period_type.unit = sp_profile_intern_n(p, tok + sl + 1, tn - sl - 1);
		p->period = period;
	} else if (KEY("addresses")) {
		ONCE(st->have_addresses);
		if (!next_token(&v, e, &tok, &tn))
			tn = 0, tok = v;
		if (tn == 6 && !memcmp(tok, "return", 6))
			st->exact = false;
		else if (tn == 5 && !memcmp(tok, "exact", 5))
			st->exact = true;
		else
			return bad(st, lineno, "expected \"return\" or \"exact\", got \"%.*s\"", tok,
				   tn);
	} else if (KEY("default_sample_type")) {
		ONCE(st->have_default);
		if (!next_token(&v, e, &tok, &tn))
			return bad(st, lineno, "expected a sample type after \"%.*s:\"", key, kn);
		p->default_sample_type = sp_profile_intern_n(p, tok, tn);
	} else {
		return bad(st, lineno,
			   "unknown header \"%.*s\" (expected sample_type, period, addresses or "
			   "default_sample_type)",
			   key, kn);
	}
#undef KEY
#undef ONCE
	return NULL;
}

/* Called before the first sample: defaults and cross-checks. */
static sp_error *start_samples(raw_state *st, size_t lineno)
{
	sp_profile *p = st->p;
	st->in_samples = true;
	if (!p->n_sample_types)
		sp_profile_add_sample_type(p, "samples", "count");
	if (p->default_sample_type) {
		const char *d = sp_profile_str(p, p->default_sample_type);
		for (size_t i = 0; i < p->n_sample_types; i++)
			if (!strcmp(sp_profile_str(p, p->sample_types[i].type), d))
				return NULL;
		return sp_error_new(SP_E_MALFORMED,
				    "%s: line %zu: default_sample_type \"%s\" names no sample type",
				    st->name, lineno, d);
	}
	return NULL;
}

static sp_error *sample_line(raw_state *st, size_t lineno, const char *s, size_t n)
{
	sp_profile *p = st->p;
	const char *e = s + n, *q = s, *tok;
	size_t tn, nv = 0;
	for (;;) {
		if (!next_token(&q, e, &tok, &tn))
			return bad(st, lineno, "expected \"V1 [V2 ...] @ 0xADDR ...\", got \"%.*s\"",
				   s, n);
		if (tn == 1 && tok[0] == '@')
			break;
		int64_t v;
		if (!sp_parse_i64(tok, tok + tn, &v))
			return bad(st, lineno, "expected an integer value or '@', got \"%.*s\"",
				   tok, tn);
		if (nv < p->n_sample_types) {
			sp_grow(&st->values, &st->cap_values, nv + 1, sizeof(int64_t));
			st->values[nv] = v;
		}
		nv++;
	}
	if (nv != p->n_sample_types) {
		char *why = sp_xasprintf("%zu values but %zu sample types", nv, p->n_sample_types);
		sp_error *err = sp_error_new(SP_E_MALFORMED, "%s: line %zu: %s", st->name, lineno,
					     why);
		free(why);
		return err;
	}
	const uint64_t *stack;
	size_t depth;
	if (!sp_stack_memo_find(&st->memo, q, (size_t)(e - q), &stack, &depth)) {
		st->addrs.n = 0;
		sp_error *err = sp_legacy_parse_addrs(st->name, lineno, q, (size_t)(e - q),
						      &st->addrs);
		if (err)
			return err;
		if (!st->exact)
			sp_legacy_adjust_pcs(st->addrs.v, st->addrs.n, false);
		sp_legacy_locations(p, st->addrs.v, st->addrs.n, &st->locs);
		sp_stack_memo_add(&st->memo, q, (size_t)(e - q), st->locs.v, st->locs.n);
		stack = st->locs.v;
		depth = st->locs.n;
	}
	sp_stack_sums_add(&st->sums, p, st->values, stack, depth, lineno);
	return NULL;
}

static sp_error *parse(raw_state *st, sp_lines *it)
{
	if (!sp_lines_next(it) || it->line_len < strlen(RAW_MAGIC) ||
	    memcmp(it->line, RAW_MAGIC, strlen(RAW_MAGIC)))
		return sp_error_new(SP_E_UNRECOGNIZED, "%s: not symprof raw stacks", st->name);
	const char *ver = it->line + strlen(RAW_MAGIC);
	size_t vn = it->line_len - strlen(RAW_MAGIC);
	trim(&ver, &vn);
	/* MALFORMED, not UNSUPPORTED: detection reads the latter as "not
	 * mine" and the user would never see which version was found */
	if (vn != 1 || ver[0] != '1')
		return sp_error_new(SP_E_MALFORMED,
				    "%s: line 1: raw stacks version \"%.*s\" not supported "
				    "(expected 1)",
				    st->name, (int)(vn > 20 ? 20 : vn), ver);
	bool maps = false;
	while (sp_lines_next(it)) {
		const char *s = it->line;
		size_t n = it->line_len;
		trim(&s, &n);
		if (n == 0 || s[0] == '#')
			continue;
		if (sp_legacy_is_maps_marker(s, n)) {
			maps = true;
			break;
		}
		sp_error *err;
		const char *colon = memchr(s, ':', n);
		if (colon && !memchr(s, '@', (size_t)(colon - s))) {
			err = header_line(st, it->lineno, s, n);
		} else {
			err = st->in_samples ? NULL : start_samples(st, it->lineno);
			if (!err)
				err = sample_line(st, it->lineno, s, n);
		}
		if (err)
			return err;
	}
	if (!st->in_samples) {
		sp_error *err = start_samples(st, it->lineno);
		if (err)
			return err;
	}
	sp_error *err = sp_stack_sums_finish(&st->sums);
	if (err)
		return err;
	if (maps)
		return sp_legacy_finish_maps(st->p, st->name, sp_lines_rest(it),
					     sp_lines_rest_len(it));
	return NULL;
}

static sp_error *read_lines(const char *name, sp_lines *it, const sp_read_options *ro,
			     sp_profile **out)
{
	(void)ro; /* read on the caller's thread: the stacks are summed as they come */
	*out = NULL;
	raw_state st = {.name = name, .p = sp_profile_new(), .sums = {.name = name, .unit = "line"}};
	sp_error *err = parse(&st, it);
	sp_error_free(sp_stack_sums_finish(&st.sums)); /* after an error of parse */
	free(st.values);
	sp_u64vec_free(&st.addrs);
	sp_u64vec_free(&st.locs);
	sp_stack_memo_free(&st.memo);
	if (err) {
		sp_profile_free(st.p);
		return err;
	}
	*out = st.p;
	return NULL;
}

sp_error *sp_addrstacks_read(const char *name, const uint8_t *data, size_t len, sp_profile **out)
{
	return sp_legacy_read_buffer(name, data, len, read_lines, out);
}

sp_error *sp_addrstacks_read_file(const char *name, FILE *f, sp_profile **out)
{
	return sp_legacy_read_file(name, f, read_lines, NULL, out);
}
