/* folded_read.c — reader for FlameGraph folded ("collapsed") stacks
 * (spec/FORMATS.md §4.1), so folded files from other tools can become
 * pprof profiles or graphs:
 *
 *   main;parse;read_line 12
 *   main;run;do_work_[k] 30
 *
 * Frames are root first and ';'-separated; the count is the last
 * whitespace-separated token, so frames may contain spaces.  Counts must
 * be integers (the model's values are int64): a decimal count, or a
 * second count (difffolded.pl's differential form), is an error naming
 * the line.  The annotations _[k] _[j] _[i] _[w] are stripped from names.
 * Every frame becomes a function (name only) and a location with one line
 * and no address or mapping; identical stacks are summed; the sample type
 * is samples/count. */
#include "formats/formats.h"
#include "formats/stacks.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* True when [s, e) is DIGITS ["." DIGITS*]; *decimal tells which. */
static bool is_count(const char *s, const char *e, bool *decimal)
{
	const char *q = s;
	while (q < e && is_digit(*q))
		q++;
	if (q == s)
		return false;
	*decimal = false;
	if (q < e && *q == '.') {
		*decimal = true;
		q++;
		while (q < e && is_digit(*q))
			q++;
	}
	return q == e;
}

/* Start of the last whitespace-separated token of [s, e), e trimmed. */
static const char *last_token(const char *s, const char *e)
{
	const char *q = e;
	while (q > s && !is_ws(q[-1]))
		q--;
	return q;
}

static size_t strip_annotation(const char *f, size_t n)
{
	if (n >= 4 && f[n - 4] == '_' && f[n - 3] == '[' && f[n - 1] == ']' &&
	    strchr("kjiw", f[n - 2]) && f[n - 2])
		return n - 4;
	return n;
}

typedef struct {
	sp_profile *p;
	sp_u64map loc_of_func; /* function id -> location id */
	uint64_t *stack;
	size_t cap;
	uint64_t *where; /* line of each sample */
	size_t n_where, cap_where;
} folded_state;

static uint64_t frame_location(folded_state *st, const char *f, size_t n)
{
	n = strip_annotation(f, n);
	char *name = sp_xstrndup(f, n);
	uint64_t fid = sp_profile_function_for(st->p, name, name, "", 0);
	free(name);
	uint64_t lid;
	if (sp_u64map_get(&st->loc_of_func, fid, &lid))
		return lid;
	sp_line ln = {.function_id = fid};
	sp_location l = {.lines = &ln, .n_lines = 1};
	lid = sp_profile_add_location(st->p, &l)->id;
	sp_u64map_put(&st->loc_of_func, fid, lid);
	return lid;
}

/* Parses one non-blank line [s, e) (trailing whitespace already trimmed).
 * FIRST: the first content line, where a line without a trailing count
 * means "not this format". */
static sp_error *parse_line(folded_state *st, const char *name, size_t lineno, const char *s,
			    const char *e, bool first)
{
	const char *tok = last_token(s, e);
	bool decimal;
	if (!is_count(tok, e, &decimal) || tok == s) {
		if (first)
			return sp_error_new(SP_E_UNRECOGNIZED,
					    "%s: line %zu: not a folded stack", name, lineno);
		return sp_error_new(SP_E_MALFORMED,
				    "%s: line %zu: expected \"frame;frame;... COUNT\", got "
				    "\"%.*s\"",
				    name, lineno, (int)(e - s > 80 ? 80 : e - s), s);
	}
	if (decimal)
		return sp_error_new(SP_E_MALFORMED,
				    "%s: line %zu: count \"%.*s\" is not an integer "
				    "(decimal counts are not supported)",
				    name, lineno, (int)(e - tok), tok);
	const char *stack_end = tok;
	while (stack_end > s && is_ws(stack_end[-1]))
		stack_end--;
	const char *prev = last_token(s, stack_end);
	bool d2;
	if (prev > s && is_count(prev, stack_end, &d2))
		return sp_error_new(SP_E_MALFORMED,
				    "%s: line %zu: differential folded input not supported "
				    "(two counts \"%.*s\")",
				    name, lineno, (int)(e - prev), prev);
	uint64_t count;
	if (!sp_parse_u64(tok, e, 10, &count) || count > (uint64_t)INT64_MAX)
		return sp_error_new(SP_E_MALFORMED, "%s: line %zu: count \"%.*s\" out of range",
				    name, lineno, (int)(e - tok), tok);
	if (stack_end == s)
		return sp_error_new(SP_E_MALFORMED, "%s: line %zu: empty stack before count",
				    name, lineno);

	/* frames are root first; samples want the leaf first */
	size_t n = 0;
	for (const char *f = s;;) {
		const char *fe = memchr(f, ';', (size_t)(stack_end - f));
		if (!fe)
			fe = stack_end;
		SP_PUSH(st->stack, n, st->cap, frame_location(st, f, (size_t)(fe - f)));
		if (fe == stack_end)
			break;
		f = fe + 1;
	}
	for (size_t i = 0; i < n / 2; i++) {
		uint64_t t = st->stack[i];
		st->stack[i] = st->stack[n - 1 - i];
		st->stack[n - 1 - i] = t;
	}
	int64_t v = (int64_t)count;
	sp_profile_add_sample(st->p, &v, st->stack, n, NULL, 0);
	SP_PUSH(st->where, st->n_where, st->cap_where, lineno);
	return NULL;
}

sp_error *sp_folded_read(const char *name, const uint8_t *data, size_t len, sp_profile **out)
{
	*out = NULL;
	if (memchr(data, '\0', len))
		return sp_error_new(SP_E_UNRECOGNIZED, "%s: binary data is not folded stacks",
				    name);
	folded_state st = {.p = sp_profile_new()};
	sp_profile_add_sample_type(st.p, "samples", "count");
	const char *s = (const char *)data, *end = s + len;
	size_t lineno = 0;
	bool first = true;
	sp_error *err = NULL;
	while (s < end && !err) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;
		lineno++;
		const char *b = s, *e = le;
		while (b < e && is_ws(*b))
			b++;
		while (e > b && is_ws(e[-1]))
			e--;
		if (b < e) {
			err = parse_line(&st, name, lineno, b, e, first);
			first = false;
		}
		s = nl ? nl + 1 : end;
	}
	if (!err && first)
		err = sp_error_new(SP_E_UNRECOGNIZED, "%s: no folded stacks", name);
	if (!err)
		err = sp_fmt_sum_identical_samples(st.p, name, "line", st.where);
	free(st.stack);
	free(st.where);
	sp_u64map_free(&st.loc_of_func);
	if (err) {
		sp_profile_free(st.p);
		return err;
	}
	*out = st.p;
	return NULL;
}
