/* folded_write.c — FlameGraph folded stacks (spec/FORMATS.md §4.1,
 * DESIGN.md §4).  One line per distinct stack, root first, frames joined
 * by ';', then a space and the summed value of one sample column:
 *
 *   main;run;parse_config;std::vector<int>::push_back 4096
 *   main;libfoo.so+0x21b44 512
 *
 * Inline chains are expanded (the out-of-line function first, the
 * innermost inlined one last); a location without a name prints as its
 * file and offset ("libc.so.6+0x2a1ca", sp_location_address_name), the
 * same in every run whatever the load address.  Names have ';' replaced by ':' and newlines, carriage returns
 * and tabs by spaces.  flamegraph.pl reads "anything up to the last
 * whitespace-separated number" as the stack, so a name ending in
 * whitespace + digits ("foo 2") would be taken for a count: the last
 * whitespace before such trailing digits becomes '_' ("foo_2"), in every
 * frame so a function prints the same wherever it appears.  Lines are
 * sorted bytewise; stacks summing to zero are left out.  Values are
 * signed: the difference of two profiles prints its shrinkage negative.
 * The two-sided form (two_sides) prints difffolded.pl's columns for a
 * difference that kept its base samples (labelled pprof::base=true):
 *
 *   main;run;parse_config 4096 1024      (before after)
 *
 * Pruning (drop_frames) is the caller's business, not this writer's. */
#include "formats/formats.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static void append_name(sp_buf *b, const char *name)
{
	size_t start = b->len;
	for (const char *s = name; *s; s++) {
		char c = *s;
		if (c == ';')
			c = ':';
		else if (c == '\n' || c == '\r' || c == '\t')
			c = ' ';
		sp_buf_append(b, &c, 1);
	}
	/* "foo 2" -> "foo_2" */
	size_t e = b->len;
	while (e > start && b->data[e - 1] >= '0' && b->data[e - 1] <= '9')
		e--;
	if (e < b->len && e > start && is_ws(b->data[e - 1]))
		b->data[e - 1] = '_';
}

char sp_folded_annotation(const sp_profile *p, const sp_location *l, size_t line_idx)
{
	if (line_idx + 1 < l->n_lines)
		return 'i';
	switch (sp_code_kind_of(p, sp_profile_mapping(p, l->mapping_id), l->address)) {
	case SP_CODE_KERNEL: return 'k';
	case SP_CODE_JIT: return 'j';
	case SP_CODE_FILE:
	case SP_CODE_ANONYMOUS: break;
	}
	return 0;
}

static void annotate_frame(const sp_profile *p, const sp_location *l, size_t line_idx, sp_buf *b)
{
	char kind = sp_folded_annotation(p, l, line_idx);
	if (kind)
		sp_buf_printf(b, "_[%c]", kind);
}

static void append_location(const sp_profile *p, const sp_location *l, bool annotate, sp_buf *b)
{
	if (!l->n_lines) {
		if (b->len)
			sp_buf_puts(b, ";");
		char *name = sp_location_address_name(p, l);
		append_name(b, name);
		free(name);
		if (annotate)
			annotate_frame(p, l, 0, b);
		return;
	}
	for (size_t j = l->n_lines; j-- > 0;) {
		if (b->len)
			sp_buf_puts(b, ";");
		const sp_function *f = sp_profile_function(p, l->lines[j].function_id);
		const char *name = f ? sp_profile_str(p, f->name) : "";
		if (!*name && f)
			name = sp_profile_str(p, f->system_name);
		if (*name) {
			append_name(b, name);
		} else {
			char *addr = sp_location_address_name(p, l);
			append_name(b, addr);
			free(addr);
		}
		if (annotate)
			annotate_frame(p, l, j, b);
	}
}

/* Distinct location-id sequences are found by hashing the id array of one
 * sample standing for them, so a repeated stack costs one hash and one
 * compare; its text is built only the first time, from frames rendered
 * once per location.  Different id sequences may still render alike (two
 * locations of one function, say), so values are summed per rendered text,
 * in sample order as before. */
typedef struct {
	size_t sample; /* first sample with this id sequence */
	size_t line;   /* index of its rendered text in lines */
} idstack;

typedef struct {
	size_t off, len; /* stack text in the text arena */
	const char *text; /* set once the arena stops growing */
	int64_t sum;      /* after, or the only column */
	int64_t before;   /* two_sides: the base's value */
} line;

typedef struct {
	const sp_profile *p;
	const idstack *stacks;
	const sp_sample *key;
} idstack_ctx;

static bool idstack_eq(void *ctx, size_t i)
{
	idstack_ctx *c = ctx;
	const sp_sample *s = &c->p->samples[c->stacks[i].sample];
	return s->n_locations == c->key->n_locations &&
	       memcmp(s->location_ids, c->key->location_ids,
		      s->n_locations * sizeof(*s->location_ids)) == 0;
}

typedef struct {
	const line *lines;
	const char *arena;
	const char *key;
	size_t key_len;
} line_ctx;

static bool line_eq(void *ctx, size_t i)
{
	line_ctx *c = ctx;
	return c->lines[i].len == c->key_len &&
	       memcmp(c->arena + c->lines[i].off, c->key, c->key_len) == 0;
}

/* The end of X's output line, " SUM\n" or " BEFORE SUM\n", into TAIL (64
 * bytes); returns its length. */
static size_t line_tail(const line *x, bool two_sides, char *tail)
{
	int n = two_sides ? snprintf(tail, 64, " %" PRId64 " %" PRId64 "\n", x->before, x->sum)
			  : snprintf(tail, 64, " %" PRId64 "\n", x->sum);
	return (size_t)n;
}

/* Byte I of the output line "TEXT TAIL" of X, or -1 past its end; TAIL
 * holds TAIL_LEN bytes. */
static int line_byte(const line *x, size_t i, const char *tail, size_t tail_len)
{
	if (i < x->len)
		return (unsigned char)x->text[i];
	i -= x->len;
	return i < tail_len ? (unsigned char)tail[i] : -1;
}

/* Orders output lines bytewise, as strcmp would order "TEXT TAIL";
 * CTX points to the two_sides flag. */
static int cmp_lines(const void *pa, const void *pb, void *ctx)
{
	const line *a = pa, *b = pb;
	bool two_sides = *(const bool *)ctx;
	size_t m = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->text, b->text, m);
	if (c || a->len == b->len)
		return c; /* texts are distinct, so equal lengths differ in them */
	/* One text is a prefix of the other: the values take part. */
	char ta[64], tb[64];
	size_t na = line_tail(a, two_sides, ta), nb = line_tail(b, two_sides, tb);
	for (size_t i = m;; i++) {
		int ca = line_byte(a, i, ta, na), cb = line_byte(b, i, tb, nb);
		if (ca != cb || ca < 0)
			return ca - cb;
	}
}

sp_error *sp_folded_write(const sp_profile *p, const sp_folded_options *opts, sp_sink *out)
{
	size_t col;
	bool annotate = opts && opts->annotate, two_sides = opts && opts->two_sides;
	if (opts) {
		col = opts->sample_index;
	} else {
		sp_error *e = sp_profile_sample_index(p, NULL, &col);
		if (e)
			return sp_error_prefix(e, "folded output");
	}
	if (col >= p->n_sample_types)
		return sp_error_new(SP_E_USAGE,
				    "folded output: sample index %zu out of range (profile has %zu "
				    "sample types)",
				    col, p->n_sample_types);

	/* frames[i]: the rendered frames of p->locations[i], len 0 until then */
	struct {
		size_t off, len;
	} *frames = sp_xcalloc(p->n_locations ? p->n_locations : 1, sizeof(*frames));
	sp_buf frame_text = {0}, text = {0}, b = {0}, one = {0};
	idstack *stacks = NULL;
	size_t n_stacks = 0, cap_stacks = 0;
	line *lines = NULL;
	size_t n_lines = 0, cap_lines = 0;
	sp_idxset stack_set = {0}, line_set = {0};
	sp_error *err = NULL;
	for (size_t i = 0; i < p->n_samples && !err; i++) {
		const sp_sample *s = &p->samples[i];
		idstack_ctx ic = {p, stacks, s};
		uint64_t h = sp_hash_bytes(s->location_ids, s->n_locations * sizeof(*s->location_ids), 0);
		size_t at = sp_idxset_find(&stack_set, h, idstack_eq, &ic);
		size_t li;
		if (at != SIZE_MAX) {
			li = stacks[at].line;
		} else {
			sp_buf_reset(&b);
			for (size_t k = s->n_locations; k-- > 0;) {
				const sp_location *l = sp_profile_location(p, s->location_ids[k]);
				if (!l) {
					err = sp_error_new(SP_E_INVALID_PROFILE,
							   "folded output: sample %zu has unknown location %" PRIu64,
							   i + 1, s->location_ids[k]);
					break;
				}
				size_t x = (size_t)(l - p->locations);
				if (!frames[x].len) {
					sp_buf_reset(&one);
					append_location(p, l, annotate, &one);
					frames[x].off = frame_text.len;
					frames[x].len = one.len;
					sp_buf_append(&frame_text, one.data, one.len);
				}
				if (b.len)
					sp_buf_append(&b, ";", 1);
				sp_buf_append(&b, frame_text.data + frames[x].off, frames[x].len);
			}
			if (err)
				break;
			if (!b.len)
				sp_buf_puts(&b, "[unknown]");
			line_ctx lc = {lines, text.data, b.data, b.len};
			uint64_t th = sp_hash_bytes(b.data, b.len, 0);
			li = sp_idxset_find(&line_set, th, line_eq, &lc);
			if (li == SIZE_MAX) {
				line nl = {text.len, b.len, NULL, 0, 0};
				sp_buf_append(&text, b.data, b.len);
				SP_PUSH(lines, n_lines, cap_lines, nl);
				li = n_lines - 1;
				sp_idxset_add(&line_set, th, li);
			}
			idstack st = {i, li};
			SP_PUSH(stacks, n_stacks, cap_stacks, st);
			sp_idxset_add(&stack_set, h, n_stacks - 1);
		}
		int64_t v = s->values[col];
		/* base samples are negated: subtracting gives the base's value */
		if (two_sides && sp_sample_is_base(p, s)
			    ? __builtin_sub_overflow(lines[li].before, v, &lines[li].before)
			    : __builtin_add_overflow(lines[li].sum, v, &lines[li].sum))
			err = sp_error_new(SP_E_LIMIT, "folded output: sum of values overflows for stack %.80s",
					   text.data + lines[li].off);
	}
	free(frames);
	free(stacks);
	sp_idxset_free(&stack_set);
	sp_idxset_free(&line_set);
	sp_buf_free(&frame_text);
	sp_buf_free(&b);
	sp_buf_free(&one);

	size_t n_out = 0;
	for (size_t i = 0; i < n_lines && !err; i++) {
		if (lines[i].sum == 0 && lines[i].before == 0)
			continue;
		lines[n_out] = lines[i];
		lines[n_out++].text = text.data + lines[i].off;
	}
	if (!err && n_out)
		qsort_r(lines, n_out, sizeof(*lines), cmp_lines, &two_sides);
	for (size_t i = 0; i < n_out && !err; i++) {
		char tail[64];
		size_t n = line_tail(&lines[i], two_sides, tail);
		sp_sink_write(out, lines[i].text, lines[i].len);
		sp_sink_write(out, tail, n);
	}
	free(lines);
	sp_buf_free(&text);
	return err;
}
