/* folded_write.c — FlameGraph folded stacks (spec/FORMATS.md §4.1,
 * DESIGN.md §4).  One line per distinct stack, root first, frames joined
 * by ';', then a space and the summed value of one sample column:
 *
 *   main;run;parse_config;std::vector<int>::push_back 4096
 *   main;0x7f3c1a021b44 512
 *
 * Inline chains are expanded (the out-of-line function first, the
 * innermost inlined one last); a location without lines prints as its hex
 * address.  Names have ';' replaced by ':' and newlines, carriage returns
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

typedef struct {
	char *stack;
	size_t len;
	int64_t sum;    /* after, or the only column */
	int64_t before; /* two_sides: the base's value */
} entry;

typedef struct {
	entry *v;
	size_t n, cap;
	const char *key;
	size_t key_len;
} table;

static bool entry_eq(void *ctx, size_t i)
{
	table *t = ctx;
	return t->v[i].len == t->key_len && memcmp(t->v[i].stack, t->key, t->key_len) == 0;
}

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
		sp_buf_printf(b, "0x%" PRIx64, l->address);
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
		if (*name)
			append_name(b, name);
		else
			sp_buf_printf(b, "0x%" PRIx64, l->address);
		if (annotate)
			annotate_frame(p, l, j, b);
	}
}

static int cmp_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
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

	table t = {0};
	sp_idxset set = {0};
	sp_buf b = {0};
	sp_error *err = NULL;
	for (size_t i = 0; i < p->n_samples && !err; i++) {
		const sp_sample *s = &p->samples[i];
		sp_buf_reset(&b);
		for (size_t k = s->n_locations; k-- > 0;) {
			const sp_location *l = sp_profile_location(p, s->location_ids[k]);
			if (!l) {
				err = sp_error_new(SP_E_INVALID_PROFILE,
						   "folded output: sample %zu has unknown location %" PRIu64,
						   i + 1, s->location_ids[k]);
				break;
			}
			append_location(p, l, annotate, &b);
		}
		if (err)
			break;
		if (!b.len)
			sp_buf_puts(&b, "[unknown]");
		t.key = b.data;
		t.key_len = b.len;
		uint64_t h = sp_hash_bytes(b.data, b.len, 0);
		size_t at = sp_idxset_find(&set, h, entry_eq, &t);
		int64_t v = s->values[col];
		bool before = two_sides && sp_sample_is_base(p, s);
		if (at == SIZE_MAX) {
			entry e = {sp_xstrndup(b.data, b.len), b.len, 0, 0};
			SP_PUSH(t.v, t.n, t.cap, e);
			at = t.n - 1;
			sp_idxset_add(&set, h, at);
		}
		/* base samples are negated: subtracting gives the base's value */
		if (before ? __builtin_sub_overflow(t.v[at].before, v, &t.v[at].before)
			   : __builtin_add_overflow(t.v[at].sum, v, &t.v[at].sum)) {
			err = sp_error_new(SP_E_LIMIT, "folded output: sum of values overflows for stack %.80s",
					   t.v[at].stack);
		}
	}

	char **lines = NULL;
	size_t n_lines = 0, cap_lines = 0;
	for (size_t i = 0; i < t.n && !err; i++) {
		if (t.v[i].sum == 0 && t.v[i].before == 0)
			continue;
		char *line = two_sides ? sp_xasprintf("%s %" PRId64 " %" PRId64 "\n", t.v[i].stack,
						      t.v[i].before, t.v[i].sum)
				       : sp_xasprintf("%s %" PRId64 "\n", t.v[i].stack, t.v[i].sum);
		SP_PUSH(lines, n_lines, cap_lines, line);
	}
	if (n_lines)
		qsort(lines, n_lines, sizeof(*lines), cmp_lines);
	for (size_t i = 0; i < n_lines; i++) {
		sp_sink_puts(out, lines[i]);
		free(lines[i]);
	}
	free(lines);
	for (size_t i = 0; i < t.n; i++)
		free(t.v[i].stack);
	free(t.v);
	sp_idxset_free(&set);
	sp_buf_free(&b);
	return err;
}
