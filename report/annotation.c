/* annotation.c — the parts of an annotation (annotation.h) a profile alone
 * gives: which functions to show and their source lines' values, with the
 * rows of inlined callees under the line each was inlined at.  The
 * instructions and the source text are added by pipeline/annotate.c. */
#include "report/reportp.h"

#include <stdlib.h>
#include <string.h>

sp_annotation *sp_annotation_new(void)
{
	sp_annotation *a = sp_xcalloc(1, sizeof(*a));
	sp_strtab_intern(&a->strings, "", 0);
	return a;
}

void sp_annotation_free(sp_annotation *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n_functions; i++) {
		sp_ann_function *f = &a->functions[i];
		free(f->lines);
		free(f->inlines);
		free(f->object);
		free(f->symbol);
		for (size_t k = 0; k < f->n_insns; k++)
			free(f->insns[k].text);
		free(f->insns);
		free(f->no_disasm);
	}
	free(a->functions);
	free(a->frames);
	for (size_t i = 0; i < a->n_sources; i++) {
		free(a->sources[i].found);
		free(a->sources[i].missing);
		free(a->sources[i].text);
		free(a->sources[i].line_start);
	}
	free(a->sources);
	sp_strtab_free(&a->strings);
	free(a);
}

const char *sp_ann_str(const sp_annotation *a, size_t idx)
{
	return idx < a->strings.n ? a->strings.strs[idx] : "";
}

const sp_ann_source *sp_ann_source_of(const sp_annotation *a, size_t file)
{
	for (size_t i = 0; i < a->n_sources; i++)
		if (a->sources[i].path == file)
			return &a->sources[i];
	return NULL;
}

const char *sp_ann_source_line(const sp_ann_source *s, int64_t line, size_t *len)
{
	if (!s || !s->text || line < 1 || (uint64_t)line > s->n_lines)
		return NULL;
	size_t b = s->line_start[line - 1];
	size_t e = b;
	while (s->text[e] && s->text[e] != '\n')
		e++;
	if (e > b && s->text[e - 1] == '\r')
		e--;
	*len = e - b;
	return s->text + b;
}

/* -- building from the profile -------------------------------------------- */

/* A function of the profile as the annotation knows it: name and file. */
typedef struct {
	size_t name, file;
	int64_t start_line;
	int64_t flat, cum;
	size_t stamp; /* the last sample (+1) that added to cum */
	size_t selected; /* index among the chosen, SIZE_MAX when not chosen */
} fn_entry;

/* A line of a chosen function, or an inline row under it. */
typedef struct {
	size_t fn;      /* chosen function */
	int64_t line;   /* its line */
	uint32_t depth; /* 0 for the line itself */
	sp_ann_frame callee;
	int64_t flat, cum;
	size_t stamp;
} row;

typedef struct {
	sp_annotation *a;
	fn_entry *fns;
	size_t n_fns, cap_fns;
	sp_idxset fn_set;
	row *rows;
	size_t n_rows, cap_rows;
	sp_idxset row_set;
	sp_u64map by_id; /* profile function id -> fns index + 1 */
} builder;

typedef struct {
	builder *b;
	size_t name, file;
} fn_key;

static bool fn_eq(void *ctx, size_t idx)
{
	fn_key *k = ctx;
	return k->b->fns[idx].name == k->name && k->b->fns[idx].file == k->file;
}

/* The fns index of profile function ID (added at first sight). */
static size_t fn_of(builder *b, const sp_profile *p, uint64_t id)
{
	uint64_t v;
	if (sp_u64map_get(&b->by_id, id, &v))
		return (size_t)v - 1;
	const sp_function *f = sp_profile_function(p, id);
	const char *name = f ? sp_profile_str(p, f->name) : "";
	const char *file = f ? sp_profile_str(p, f->filename) : "";
	fn_key k = {b, sp_strtab_intern_str(&b->a->strings, name),
		    sp_strtab_intern_str(&b->a->strings, file)};
	uint64_t h = sp_hash_combine(sp_hash_u64(k.name), k.file);
	size_t i = sp_idxset_find(&b->fn_set, h, fn_eq, &k);
	if (i == SIZE_MAX) {
		fn_entry e = {.name = k.name, .file = k.file, .start_line = f ? f->start_line : 0,
			      .selected = SIZE_MAX};
		SP_PUSH(b->fns, b->n_fns, b->cap_fns, e);
		i = b->n_fns - 1;
		sp_idxset_add(&b->fn_set, h, i);
	}
	sp_u64map_put(&b->by_id, id, i + 1);
	return i;
}

typedef struct {
	builder *b;
	const row *r;
} row_key;

static bool row_eq(void *ctx, size_t idx)
{
	const row *x = ((row_key *)ctx)->r, *y = &((row_key *)ctx)->b->rows[idx];
	return x->fn == y->fn && x->line == y->line && x->depth == y->depth &&
	       x->callee.function == y->callee.function && x->callee.file == y->callee.file &&
	       x->callee.line == y->callee.line;
}

static void add_row(builder *b, const row *r, size_t stamp, int64_t v, bool leaf)
{
	row_key k = {b, r};
	uint64_t h = sp_hash_combine(sp_hash_combine(sp_hash_u64(r->fn), (uint64_t)r->line),
				     sp_hash_combine(sp_hash_combine(r->depth, r->callee.function),
						     sp_hash_combine(r->callee.file,
								     (uint64_t)r->callee.line)));
	size_t i = sp_idxset_find(&b->row_set, h, row_eq, &k);
	if (i == SIZE_MAX) {
		SP_PUSH(b->rows, b->n_rows, b->cap_rows, *r);
		i = b->n_rows - 1;
		b->rows[i].flat = b->rows[i].cum = 0;
		b->rows[i].stamp = 0;
		sp_idxset_add(&b->row_set, h, i);
	}
	row *x = &b->rows[i];
	if (x->stamp != stamp) {
		x->stamp = stamp;
		x->cum += v;
	}
	if (leaf)
		x->flat += v;
}

/* One inline frame of a sampled stack, as the passes see it: sample SI
 * (value V), its location J (0: the leaf), line K of that location. */
typedef void (*frame_fn)(builder *b, const sp_profile *p, const sp_location *l, size_t si,
			 int64_t v, size_t j, size_t k);

/* Calls FN for every inline frame of every sample KEEP keeps. */
static void each_frame(builder *b, const sp_profile *p, size_t col, const sp_sample_filter *keep,
		       frame_fn fn)
{
	for (size_t si = 0; si < p->n_samples; si++) {
		const sp_sample *s = &p->samples[si];
		if (keep && !sp_sample_filter_keep(keep, s))
			continue;
		for (size_t j = 0; j < s->n_locations; j++) {
			const sp_location *l = sp_profile_location(p, s->location_ids[j]);
			for (size_t k = 0; l && k < l->n_lines; k++)
				fn(b, p, l, si, s->values[col], j, k);
		}
	}
}

/* Pass 1: every function's flat and cum. */
static void total_frame(builder *b, const sp_profile *p, const sp_location *l, size_t si,
			int64_t v, size_t j, size_t k)
{
	size_t fi = fn_of(b, p, l->lines[k].function_id);
	fn_entry *f = &b->fns[fi];
	if (f->stamp != si + 1) {
		f->stamp = si + 1;
		f->cum += v;
		if (j == 0)
			f->flat += v;
	}
}

static int by_heat(const void *x, const void *y, void *ctx)
{
	const builder *bl = ctx;
	const sp_annotation *sort_ann = bl->a;
	const fn_entry *a = &bl->fns[*(const size_t *)x], *b = &bl->fns[*(const size_t *)y];
	int64_t fa = sp_abs64(a->flat), fb = sp_abs64(b->flat);
	if (fa != fb)
		return fa > fb ? -1 : 1;
	int64_t ca = sp_abs64(a->cum), cb = sp_abs64(b->cum);
	if (ca != cb)
		return ca > cb ? -1 : 1;
	int c = strcmp(sp_ann_str(sort_ann, a->name), sp_ann_str(sort_ann, b->name));
	if (c)
		return c;
	c = strcmp(sp_ann_str(sort_ann, a->file), sp_ann_str(sort_ann, b->file));
	return c ? c : *(const size_t *)x < *(const size_t *)y ? -1 : 1;
}

/* Pass 2: the chosen functions' lines and inline rows. */
static void line_frame(builder *b, const sp_profile *p, const sp_location *l, size_t si,
		       int64_t v, size_t j, size_t k)
{
	size_t fi = fn_of(b, p, l->lines[k].function_id);
	size_t sel = b->fns[fi].selected;
	if (sel == SIZE_MAX)
		return;
	row r = {.fn = sel, .line = l->lines[k].line};
	add_row(b, &r, si + 1, v, j == 0);
	for (size_t d = 1; d <= k; d++) {
		const sp_line *c = &l->lines[k - d];
		size_t ci = fn_of(b, p, c->function_id);
		r.depth = (uint32_t)d;
		r.callee = (sp_ann_frame){b->fns[ci].name, b->fns[ci].file, c->line};
		add_row(b, &r, si + 1, v, j == 0);
	}
}

static int row_cmp(const void *x, const void *y)
{
	const row *a = x, *b = y;
	if (a->fn != b->fn)
		return a->fn < b->fn ? -1 : 1;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	/* a line, then its rows by callee line (a depth-first reading order:
	 * depth 1 rows first within one callee line) */
	if ((a->depth == 0) != (b->depth == 0))
		return a->depth == 0 ? -1 : 1;
	int64_t ha = sp_abs64(a->cum), hb = sp_abs64(b->cum);
	if (a->depth != b->depth)
		return a->depth < b->depth ? -1 : 1;
	if (ha != hb)
		return ha > hb ? -1 : 1;
	if (a->callee.function != b->callee.function)
		return a->callee.function < b->callee.function ? -1 : 1;
	return a->callee.line < b->callee.line ? -1 : a->callee.line > b->callee.line;
}

sp_error *sp_annotation_build(const sp_profile *p, size_t col, const sp_sample_filter *keep,
			      const regex_t *select, size_t max_functions, sp_annotation **out)
{
	builder b = {.a = sp_annotation_new()};
	sp_annotation *a = b.a;
	for (size_t i = 0; i < p->n_samples; i++)
		a->total = sp_sat_add(a->total, sp_abs64(p->samples[i].values[col]));
	a->sample_type = sp_profile_str(p, p->sample_types[col].type);
	a->sample_unit = sp_profile_str(p, p->sample_types[col].unit);
	each_frame(&b, p, col, keep, total_frame);

	size_t *order = sp_xcalloc(b.n_fns ? b.n_fns : 1, sizeof(*order));
	size_t n = 0;
	for (size_t i = 0; i < b.n_fns; i++) {
		if (!b.fns[i].cum && !b.fns[i].flat)
			continue;
		if (select && regexec(select, sp_ann_str(a, b.fns[i].name), 0, NULL, 0) != 0)
			continue;
		order[n++] = i;
	}
	qsort_r(order, n, sizeof(*order), by_heat, &b);
	if (max_functions && n > max_functions)
		n = max_functions;
	a->functions = sp_xcalloc(n ? n : 1, sizeof(*a->functions));
	a->n_functions = n;
	for (size_t i = 0; i < n; i++) {
		fn_entry *f = &b.fns[order[i]];
		f->selected = i;
		a->functions[i] = (sp_ann_function){.name = f->name,
						    .file = f->file,
						    .start_line = f->start_line,
						    .flat = f->flat,
						    .cum = f->cum};
	}
	free(order);
	if (n)
		each_frame(&b, p, col, keep, line_frame);
	if (b.n_rows)
		qsort(b.rows, b.n_rows, sizeof(*b.rows), row_cmp);
	for (size_t i = 0; i < b.n_rows; i++) {
		const row *r = &b.rows[i];
		sp_ann_function *f = &a->functions[r->fn];
		if (r->depth == 0) {
			sp_ann_line ln = {r->line, r->flat, r->cum, f->n_inlines, 0};
			size_t cap = f->n_lines;
			SP_PUSH(f->lines, f->n_lines, cap, ln);
		} else {
			sp_ann_inline in = {r->depth, r->callee, r->flat, r->cum};
			size_t cap = f->n_inlines;
			SP_PUSH(f->inlines, f->n_inlines, cap, in);
			f->lines[f->n_lines - 1].n_inline++;
		}
	}
	free(b.fns);
	sp_idxset_free(&b.fn_set);
	free(b.rows);
	sp_idxset_free(&b.row_set);
	sp_u64map_free(&b.by_id);
	*out = a;
	return NULL;
}

size_t sp_ann_add_frame(sp_annotation *a, const char *function, const char *file, int64_t line)
{
	sp_ann_frame fr = {sp_strtab_intern_str(&a->strings, function ? function : ""),
			   sp_strtab_intern_str(&a->strings, file ? file : ""), line};
	SP_PUSH(a->frames, a->n_frames, a->cap_frames, fr);
	return a->n_frames - 1;
}
