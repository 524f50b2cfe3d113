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
#include <pthread.h>
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

static void annotate_frame(const sp_profile *p, const sp_location *l, size_t line_idx, sp_buf *b)
{
	char kind = sp_frame_annotation(p, l, line_idx);
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
 * in sample order as before.
 *
 * With two threads (jobs > 1, at least SPLIT_MIN samples) each half of the
 * samples is matched to its own stacks first; the second half's stacks are
 * then found among the first half's or added after them, in the order they
 * first appear, which is the order one pass over all the samples meets
 * them: the texts, their order and the sums (added in sample order, so an
 * overflow is met at the same sample) are the same. */
typedef struct {
	size_t sample; /* first sample with this id sequence */
	size_t line;   /* index of its rendered text in lines */
} idstack;

typedef struct {
	size_t off, n; /* its frames: locs[off..off+n), root first */
	size_t len;    /* bytes of its text */
	int64_t sum;    /* after, or the only column */
	int64_t before; /* two_sides: the base's value */
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
	/* (a sample without locations may have no array at all) */
	return s->n_locations == c->key->n_locations &&
	       (!s->n_locations || memcmp(s->location_ids, c->key->location_ids,
					  s->n_locations * sizeof(*s->location_ids)) == 0);
}

static uint64_t idstack_hash(const sp_sample *s)
{
	return sp_hash_bytes(s->location_ids, s->n_locations * sizeof(*s->location_ids), 0);
}

/* The distinct id sequences of samples [LO, HI): stacks in the order they
 * first appear, and each sample's (stack_of[i - LO]). */
typedef struct {
	const sp_profile *p;
	size_t lo, hi;
	idstack *stacks;
	uint64_t *hashes; /* stacks[k]'s */
	size_t n_stacks, cap_stacks, cap_hashes;
	size_t *stack_of;
	sp_idxset set;
} stack_part;

/* Stack K of PART (adding it when new) for sample S, of hash H. */
static size_t part_stack(stack_part *part, size_t s, uint64_t h)
{
	idstack_ctx ic = {part->p, part->stacks, &part->p->samples[s]};
	size_t k = sp_idxset_find(&part->set, h, idstack_eq, &ic);
	if (k != SIZE_MAX)
		return k;
	idstack st = {s, SIZE_MAX};
	SP_PUSH(part->stacks, part->n_stacks, part->cap_stacks, st);
	k = part->n_stacks - 1;
	sp_grow(&part->hashes, &part->cap_hashes, k + 1, sizeof(*part->hashes));
	part->hashes[k] = h;
	sp_idxset_add(&part->set, h, k);
	return k;
}

static void *part_run(void *arg)
{
	stack_part *part = arg;
	part->stack_of = sp_xmalloc((part->hi - part->lo) * sizeof(size_t));
	for (size_t i = part->lo; i < part->hi; i++)
		part->stack_of[i - part->lo] = part_stack(part, i, idstack_hash(&part->p->samples[i]));
	return NULL;
}

static void part_free(stack_part *part)
{
	free(part->stacks);
	free(part->hashes);
	free(part->stack_of);
	sp_idxset_free(&part->set);
}

#define SPLIT_MIN ((size_t)1 << 16)

/* Matches the samples of P to their stacks in two halves, on two threads:
 * *WHOLE gets every stack, the first half's followed by the second's new
 * ones, with each sample's stack (whole->stack_of over all samples).  False
 * when the thread cannot be started (nothing done then). */
static bool stacks_two_threads(const sp_profile *p, stack_part *whole)
{
	size_t mid = p->n_samples / 2;
	stack_part second = {.p = p, .lo = mid, .hi = p->n_samples};
	pthread_t t;
	if (pthread_create(&t, NULL, part_run, &second) != 0)
		return false;
	*whole = (stack_part){.p = p, .lo = 0, .hi = mid};
	part_run(whole);
	pthread_join(t, NULL);
	/* the second half's stacks, found among the first's or added */
	size_t *to_whole = sp_xmalloc((second.n_stacks ? second.n_stacks : 1) * sizeof(size_t));
	for (size_t k = 0; k < second.n_stacks; k++)
		to_whole[k] = part_stack(whole, second.stacks[k].sample, second.hashes[k]);
	whole->stack_of = sp_xrealloc(whole->stack_of, p->n_samples * sizeof(size_t));
	for (size_t i = mid; i < p->n_samples; i++)
		whole->stack_of[i] = to_whole[second.stack_of[i - mid]];
	whole->hi = p->n_samples;
	free(to_whole);
	part_free(&second);
	return true;
}

/* What the writer builds: frames[i] the rendered frames of
 * p->locations[i] (len 0 until then), each distinct line's location
 * indexes (its text is made again from the frames when needed, so memory
 * follows the distinct stacks and their depth, not their texts), and the
 * lines' sums. */
typedef struct {
	const sp_profile *p;
	bool annotate, two_sides;
	struct {
		size_t off, len;
	} *frames;
	sp_buf frame_text, b, one;
	uint32_t *locs, *cur; /* every line's location indexes; the stack at hand's */
	size_t n_locs, cap_locs, n_cur, cap_cur;
	line *lines;
	size_t n_lines, cap_lines;
	sp_idxset line_set;
} folded_state;

static const char unknown_stack[] = "[unknown]";

/* Reads a line's text piece by piece: its frames' texts and the ';'
 * between them, without copying. */
typedef struct {
	const folded_state *w;
	const uint32_t *loc; /* next frame */
	size_t left;	     /* frames after the current piece */
	const char *at;	     /* the current piece */
	size_t n;	     /* bytes of it not yet read */
	bool sep;	     /* a ';' comes before the next frame */
} text_cur;

static void cur_init(text_cur *c, const folded_state *w, const line *x)
{
	*c = (text_cur){.w = w, .left = x->n};
	if (x->n) {
		c->loc = w->locs + x->off;
	} else { /* (no frames stored yet: locs may be NULL) */
		c->at = unknown_stack;
		c->n = sizeof(unknown_stack) - 1;
	}
}

/* Makes the current piece non-empty; false at the end of the text. */
static bool cur_fill(text_cur *c)
{
	while (!c->n) {
		if (!c->left)
			return false;
		if (c->sep) {
			c->at = ";";
			c->n = 1;
			c->sep = false;
			return true;
		}
		c->at = c->w->frame_text.data + c->w->frames[*c->loc].off;
		c->n = c->w->frames[*c->loc].len;
		c->loc++;
		c->left--;
		c->sep = c->left > 0;
	}
	return true;
}

/* Compares the texts of A and B bytewise up to the end of the shorter;
 * 0 when one is a prefix of the other. */
static int cmp_text(const folded_state *w, const line *a, const line *b)
{
	text_cur ca, cb;

	cur_init(&ca, w, a);
	cur_init(&cb, w, b);
	while (cur_fill(&ca) && cur_fill(&cb)) {
		size_t m = ca.n < cb.n ? ca.n : cb.n;
		int c = memcmp(ca.at, cb.at, m);
		if (c)
			return c;
		ca.at += m, ca.n -= m;
		cb.at += m, cb.n -= m;
	}
	return 0;
}

/* X's text into B. */
static void line_text(const folded_state *w, const line *x, sp_buf *b)
{
	text_cur c;

	sp_buf_reset(b);
	cur_init(&c, w, x);
	while (cur_fill(&c)) {
		sp_buf_append(b, c.at, c.n);
		c.n = 0;
	}
}

typedef struct {
	const folded_state *w;
	const sp_buf *key;
} line_ctx;

static bool line_eq(void *ctx, size_t i)
{
	line_ctx *c = ctx;
	const line *x = &c->w->lines[i];
	text_cur cur;

	if (x->len != c->key->len)
		return false;
	cur_init(&cur, c->w, x);
	for (size_t at = 0; cur_fill(&cur); at += cur.n, cur.n = 0)
		if (memcmp(cur.at, c->key->data + at, cur.n))
			return false;
	return true;
}

/* The end of X's output line, " SUM\n" or " BEFORE SUM\n", into TAIL (64
 * bytes); returns its length. */
static size_t line_tail(const line *x, bool two_sides, char *tail)
{
	int n = two_sides ? snprintf(tail, 64, " %" PRId64 " %" PRId64 "\n", x->before, x->sum)
			  : snprintf(tail, 64, " %" PRId64 "\n", x->sum);
	return (size_t)n;
}

/* Orders output lines bytewise, as strcmp would order "TEXT TAIL". */
static int cmp_lines(const void *pa, const void *pb, void *ctx)
{
	const folded_state *w = ctx;
	const line *a = pa, *b = pb;
	int c = cmp_text(w, a, b);

	if (c || a->len == b->len)
		return c; /* texts are distinct, so equal lengths differ in them */
	/* One text is a prefix of the other: the shorter one's tail meets the
	 * rest of the longer one's text, then its tail. */
	const line *s = a->len < b->len ? a : b, *l = s == a ? b : a;
	char ts[64], tl[64];
	size_t ns = line_tail(s, w->two_sides, ts), nl = line_tail(l, w->two_sides, tl);
	text_cur cur;
	int r;

	cur_init(&cur, w, l);
	for (size_t skip = s->len; skip && cur_fill(&cur);) {
		size_t m = cur.n < skip ? cur.n : skip;
		cur.at += m, cur.n -= m, skip -= m;
	}
	for (size_t i = 0;; i++) {
		size_t at = s->len + i; /* in the longer line */
		int cs = i < ns ? (unsigned char)ts[i] : -1, cl;
		if (at < l->len && cur_fill(&cur)) {
			cl = (unsigned char)*cur.at;
			cur.at++, cur.n--;
		} else {
			cl = at - l->len < nl ? (unsigned char)tl[at - l->len] : -1;
		}
		if (cs != cl || cs < 0) {
			r = cs - cl;
			break;
		}
	}
	return s == a ? r : -r;
}

/* The index of the line of sample I's stack (rendered now, added when new)
 * into *LI. */
static sp_error *stack_line(folded_state *w, size_t i, size_t *li)
{
	const sp_profile *p = w->p;
	const sp_sample *s = &p->samples[i];
	sp_buf *b = &w->b;
	sp_buf_reset(b);
	w->n_cur = 0;
	for (size_t k = s->n_locations; k-- > 0;) {
		const sp_location *l = sp_profile_location(p, s->location_ids[k]);
		if (!l)
			return sp_error_new(SP_E_INVALID_PROFILE,
					    "folded output: sample %zu has unknown location %" PRIu64,
					    i + 1, s->location_ids[k]);
		size_t x = (size_t)(l - p->locations);
		if (!w->frames[x].len) {
			sp_buf_reset(&w->one);
			append_location(p, l, w->annotate, &w->one);
			w->frames[x].off = w->frame_text.len;
			w->frames[x].len = w->one.len;
			sp_buf_append(&w->frame_text, w->one.data, w->one.len);
		}
		if (b->len)
			sp_buf_append(b, ";", 1);
		sp_buf_append(b, w->frame_text.data + w->frames[x].off, w->frames[x].len);
		SP_PUSH(w->cur, w->n_cur, w->cap_cur, (uint32_t)x);
	}
	if (!b->len)
		sp_buf_puts(b, unknown_stack);
	line_ctx lc = {w, b};
	uint64_t th = sp_hash_bytes(b->data, b->len, 0);
	*li = sp_idxset_find(&w->line_set, th, line_eq, &lc);
	if (*li == SIZE_MAX) {
		line nl = {w->n_locs, w->n_cur, b->len, 0, 0};
		for (size_t k = 0; k < w->n_cur; k++)
			SP_PUSH(w->locs, w->n_locs, w->cap_locs, w->cur[k]);
		SP_PUSH(w->lines, w->n_lines, w->cap_lines, nl);
		*li = w->n_lines - 1;
		sp_idxset_add(&w->line_set, th, *li);
	}
	return NULL;
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

	folded_state w = {.p = p, .annotate = annotate, .two_sides = two_sides};
	w.frames = sp_xcalloc(p->n_locations ? p->n_locations : 1, sizeof(*w.frames));
	stack_part whole = {.p = p, .lo = 0, .hi = p->n_samples};
	bool split = opts && opts->jobs > 1 && p->n_samples >= SPLIT_MIN &&
		     stacks_two_threads(p, &whole);
	sp_error *err = NULL;
	for (size_t i = 0; i < p->n_samples && !err; i++) {
		const sp_sample *s = &p->samples[i];
		size_t k = split ? whole.stack_of[i] : part_stack(&whole, i, idstack_hash(s));
		if (whole.stacks[k].line == SIZE_MAX && (err = stack_line(&w, i, &whole.stacks[k].line)))
			break;
		line *x = &w.lines[whole.stacks[k].line];
		int64_t v = s->values[col];
		/* base samples are negated: subtracting gives the base's value */
		if (two_sides && sp_sample_is_base(p, s)
			    ? __builtin_sub_overflow(x->before, v, &x->before)
			    : __builtin_add_overflow(x->sum, v, &x->sum))
		{
			line_text(&w, x, &w.b);
			err = sp_error_new(SP_E_LIMIT, "folded output: sum of values overflows for stack %.*s",
					   (int)(w.b.len < 80 ? w.b.len : 80), w.b.data);
		}
	}
	part_free(&whole);
	sp_idxset_free(&w.line_set);
	free(w.cur);

	size_t n_out = 0;
	for (size_t i = 0; i < w.n_lines && !err; i++)
		if (w.lines[i].sum != 0 || w.lines[i].before != 0)
			w.lines[n_out++] = w.lines[i];
	if (!err && n_out)
		qsort_r(w.lines, n_out, sizeof(*w.lines), cmp_lines, &w);
	for (size_t i = 0; i < n_out && !err; i++) {
		char tail[64];
		size_t n = line_tail(&w.lines[i], two_sides, tail);
		line_text(&w, &w.lines[i], &w.b);
		sp_sink_write(out, w.b.data, w.b.len);
		sp_sink_write(out, tail, n);
	}
	free(w.frames);
	free(w.lines);
	free(w.locs);
	sp_buf_free(&w.frame_text);
	sp_buf_free(&w.b);
	sp_buf_free(&w.one);
	return err;
}
