/* html.c — the self-contained HTML report: one file that opens from
 * file:// in any current browser, with no network and no code but ours.
 *
 *   <!DOCTYPE html><html><head><style>html_page.css</style></head><body>
 *   <script type="application/json" id="sp-data">{...}</script>
 *   <script>html_page.js</script></body></html>
 *
 * The data, embedded once as JSON ('<' written as \u003c, so no "</script>"
 * can end it early):
 *
 *   title, type, unit, total, diff     what was measured; diff when the
 *                                      profile keeps its base's samples
 *   names                              frame names, each once
 *   tree {d, f, v[, b]}                the call tree, root first, nodes in
 *                                      depth-first order: d the depth, f the
 *                                      frame (name index * 8 + kind: 1
 *                                      inline, 2 kernel, 3 JIT, 4 unresolved),
 *                                      v the cumulative value (b the base's,
 *                                      for a difference)
 *   chains                             inline chains of instructions, each once
 *   ann                                the annotated functions (annotation.h):
 *                                      source lines and inline rows with their
 *                                      values and text, instructions
 *   sources                            every source file looked for: where it
 *                                      was read, or why it was not
 *
 * Children are sorted by name, so the same input gives the same bytes.
 * The page (html_page.js) draws the flame graph and icicle on a canvas,
 * computes the top table and the callers/callees of a function from the
 * tree, and shows the annotations.
 */
#include "report/reportp.h"

#include <stdlib.h>
#include <string.h>

#include "report/html_page.inc" /* html_page_js, html_page_css (generated) */

#define MAX_DEPTH 4096

typedef struct {
	size_t parent;
	uint32_t frame;
	uint32_t depth;
	int64_t value, before;
	size_t first_child, next_sibling; /* SIZE_MAX: none (built after) */
} hnode;

typedef struct {
	hnode *nodes;
	size_t n, cap;
	sp_idxset set;
	sp_strtab names; /* a frame is a name index * 8 + its kind */
} htree;

typedef struct {
	htree *t;
	size_t parent;
	uint32_t frame;
} hkey;

static bool child_eq(void *ctx, size_t idx)
{
	hkey *k = ctx;
	return k->t->nodes[idx].parent == k->parent && k->t->nodes[idx].frame == k->frame;
}

static size_t child_of(htree *t, size_t parent, uint32_t frame)
{
	uint64_t h = sp_hash_combine(sp_hash_u64(frame), parent);
	hkey k = {t, parent, frame};
	size_t i = sp_idxset_find(&t->set, h, child_eq, &k);
	if (i != SIZE_MAX)
		return i;
	hnode nd = {.parent = parent, .frame = frame, .depth = t->nodes[parent].depth + 1};
	SP_PUSH(t->nodes, t->n, t->cap, nd);
	sp_idxset_add(&t->set, h, t->n - 1);
	return t->n - 1;
}

static int kind_code(char k)
{
	switch (k) {
	case 'i': return 1;
	case 'k': return 2;
	case 'j': return 3;
	case 'u': return 4;
	}
	return 0;
}

/* The frame id of line LI of location L. */
static uint32_t frame_of(htree *t, const sp_profile *p, const sp_location *l, size_t li)
{
	char kind = sp_frame_annotation(p, l, li);
	char *name;
	if (!l->n_lines) {
		name = sp_location_address_name(p, l);
		if (!kind)
			kind = 'u';
	} else {
		const sp_function *f = sp_profile_function(p, l->lines[li].function_id);
		const char *s = f ? sp_profile_str(p, f->name) : "";
		name = sp_xstrdup(*s ? s : "<unknown>");
	}
	sp_report_clean_name(name);
	size_t idx = sp_strtab_intern_str(&t->names, name);
	free(name);
	return (uint32_t)(idx * 8 + (size_t)kind_code(kind));
}

static int cmp_children(const void *x, const void *y, void *arg)
{
	const htree *t = arg;
	const hnode *a = &t->nodes[*(const size_t *)x], *b = &t->nodes[*(const size_t *)y];
	int c = strcmp(t->names.strs[a->frame / 8], t->names.strs[b->frame / 8]);
	return c ? c : (int)(a->frame % 8) - (int)(b->frame % 8);
}

/* -- JSON ------------------------------------------------------------------- */

#define json_str_n sp_json_string
#define json_str sp_json_cstr

/* Line LINE of SRC with its tabs expanded to 8 columns (a tab would be a
 * control character to sp_report_clean_name). */
static void json_src_line(sp_sink *out, const sp_ann_source *src, int64_t line)
{
	size_t len;
	const char *t = sp_ann_source_line(src, line, &len);
	sp_buf b = {0};
	size_t col = 0;
	for (size_t i = 0; t && i < len; i++) {
		if (t[i] == '\t') {
			do
				sp_buf_append(&b, " ", 1);
			while (++col % 8);
		} else {
			sp_buf_append(&b, &t[i], 1);
			col += ((unsigned char)t[i] & 0xc0) != 0x80;
		}
	}
	json_str_n(out, b.len ? b.data : "", b.len);
	sp_buf_free(&b);
}

/* -- the annotations ---------------------------------------------------------- */

typedef struct {
	sp_strtab chains;
} ann_ctx;

static size_t chain_of(ann_ctx *c, const sp_annotation *a, const sp_ann_insn *in)
{
	sp_buf b = {0};
	for (size_t j = 0; j < in->n_frames; j++) {
		const sp_ann_frame *fr = &a->frames[in->first_frame + j];
		sp_buf_printf(&b, "%s%s:%lld %s", j ? " <- " : "",
			      sp_report_base_name(sp_ann_str(a, fr->file)), (long long)fr->line,
			      sp_ann_str(a, fr->function));
	}
	size_t idx = sp_strtab_intern(&c->chains, b.len ? b.data : "", b.len);
	sp_buf_free(&b);
	return idx;
}

static void write_function(sp_sink *out, ann_ctx *c, const sp_annotation *a,
			   const sp_ann_function *f)
{
	const sp_ann_source *src = sp_ann_source_of(a, f->file);
	sp_sink_puts(out, "{\"n\":");
	json_str(out, sp_ann_str(a, f->name));
	sp_sink_puts(out, ",\"file\":");
	json_str(out, sp_ann_str(a, f->file));
	sp_sink_printf(out, ",\"flat\":%lld,\"cum\":%lld", (long long)f->flat, (long long)f->cum);
	int64_t lo = 0, hi = -1;
	if (f->n_lines && src && src->text) {
		lo = f->lines[0].line;
		hi = f->lines[f->n_lines - 1].line;
		if (f->start_line > 0 && f->start_line < lo && lo - f->start_line < 200)
			lo = f->start_line;
		lo = lo > 2 ? lo - 2 : 1;
		hi = hi + 2 > (int64_t)src->n_lines ? (int64_t)src->n_lines : hi + 2;
		if (hi - lo > 5000) /* a function that long: its sampled lines only */
			hi = lo - 1;
	}
	sp_sink_printf(out, ",\"lo\":%lld,\"text\":[", (long long)lo);
	for (int64_t l = lo; l <= hi; l++) {
		if (l > lo)
			sp_sink_putc(out, ',');
		json_src_line(out, src, l);
	}
	sp_sink_puts(out, "],\"lines\":[");
	for (size_t i = 0; i < f->n_lines; i++) {
		const sp_ann_line *ln = &f->lines[i];
		sp_sink_printf(out, "%s[%lld,%lld,%lld,", i ? "," : "", (long long)ln->line,
			       (long long)ln->flat, (long long)ln->cum);
		json_src_line(out, src, ln->line);
		sp_sink_puts(out, ",[");
		for (size_t k = 0; k < ln->n_inline; k++) {
			const sp_ann_inline *in = &f->inlines[ln->first_inline + k];
			sp_sink_printf(out, "%s[%u,", k ? "," : "", in->depth);
			json_str(out, sp_ann_str(a, in->frame.function));
			sp_sink_putc(out, ',');
			json_str(out, sp_report_base_name(sp_ann_str(a, in->frame.file)));
			sp_sink_printf(out, ",%lld,%lld,%lld,", (long long)in->frame.line,
				       (long long)in->flat, (long long)in->cum);
			json_src_line(out, sp_ann_source_of(a, in->frame.file), in->frame.line);
			sp_sink_putc(out, ']');
		}
		sp_sink_puts(out, "]]");
	}
	sp_sink_putc(out, ']');
	if (f->n_insns) {
		sp_sink_puts(out, ",\"obj\":");
		json_str(out, f->object);
		sp_sink_puts(out, ",\"sym\":");
		json_str(out, f->symbol);
		sp_sink_printf(out, ",\"cflat\":%lld,\"ccum\":%lld,\"insns\":[",
			       (long long)f->code_flat, (long long)f->code_cum);
		for (size_t i = 0; i < f->n_insns; i++) {
			const sp_ann_insn *in = &f->insns[i];
			sp_sink_printf(out, "%s[\"%llx\",", i ? "," : "", (unsigned long long)in->vaddr);
			json_str(out, in->text);
			sp_sink_printf(out, ",%lld,%lld,%d,\"", (long long)in->flat,
				       (long long)in->cum, (in->is_target ? 1 : 0) | (in->branch ? 2 : 0));
			if (in->branch)
				sp_sink_printf(out, "%llx", (unsigned long long)in->target);
			sp_sink_printf(out, "\",%zu]", chain_of(c, a, in));
		}
		sp_sink_putc(out, ']');
	} else {
		sp_sink_puts(out, ",\"nod\":");
		json_str(out, f->no_disasm ? f->no_disasm : "no machine code");
	}
	sp_sink_putc(out, '}');
}

static void write_annotation(sp_sink *out, const sp_annotation *a)
{
	ann_ctx c = {0};
	sp_strtab_intern(&c.chains, "", 0);
	sp_sink_puts(out, ",\"ann\":[");
	for (size_t i = 0; a && i < a->n_functions; i++) {
		if (i)
			sp_sink_putc(out, ',');
		write_function(out, &c, a, &a->functions[i]);
	}
	sp_sink_puts(out, "],\"chains\":[");
	for (size_t i = 0; i < c.chains.n; i++) {
		if (i)
			sp_sink_putc(out, ',');
		json_str(out, c.chains.strs[i]);
	}
	sp_sink_puts(out, "],\"sources\":[");
	for (size_t i = 0; a && i < a->n_sources; i++) {
		const sp_ann_source *s = &a->sources[i];
		sp_sink_puts(out, i ? ",{\"path\":" : "{\"path\":");
		json_str(out, sp_ann_str(a, s->path));
		if (s->found) {
			sp_sink_puts(out, ",\"found\":");
			json_str(out, s->found);
		} else {
			sp_sink_puts(out, ",\"missing\":");
			json_str(out, s->missing);
		}
		sp_sink_putc(out, '}');
	}
	sp_sink_putc(out, ']');
	sp_strtab_free(&c.chains);
}

/* -- the tree ------------------------------------------------------------------ */

static sp_error *build_tree(const sp_profile *p, const sp_report_options *o, htree *t,
			    bool differential)
{
	sp_sample_filter *filter;
	sp_error *err = sp_report_filter_new(p, o, &filter);
	if (err)
		return err;
	size_t si = o->sample_index;
	size_t *loc_off = sp_xcalloc(p->n_locations + 1, sizeof(size_t));
	uint32_t *loc_frames = NULL;
	size_t n_lf = 0, cap_lf = 0;
	for (size_t i = 0; i < p->n_locations; i++) {
		const sp_location *l = &p->locations[i];
		size_t nl = l->n_lines ? l->n_lines : 1;
		loc_off[i] = n_lf;
		for (size_t li = 0; li < nl; li++)
			SP_PUSH(loc_frames, n_lf, cap_lf, frame_of(t, p, l, li));
	}
	loc_off[p->n_locations] = n_lf;
	sp_strtab_intern_str(&t->names, "all"); /* after the frames: its index is known */
	uint32_t root = (uint32_t)(sp_strtab_find(&t->names, "all", 3) * 8);
	uint32_t deeper = (uint32_t)(sp_strtab_intern_str(&t->names, "[deeper frames]") * 8);
	hnode r = {.parent = SIZE_MAX, .frame = root};
	SP_PUSH(t->nodes, t->n, t->cap, r);
	for (size_t i = 0; i < p->n_samples && !err; i++) {
		const sp_sample *s = &p->samples[i];
		int64_t w = s->values[si];
		bool before = differential && sp_sample_is_base(p, s);
		if (before)
			w = (int64_t)(0 - (uint64_t)w);
		if (w <= 0 || !sp_sample_filter_keep(filter, s))
			continue;
		int64_t *rootv = before ? &t->nodes[0].before : &t->nodes[0].value;
		if (__builtin_add_overflow(*rootv, w, rootv)) {
			err = sp_error_new(SP_E_LIMIT, "html: the %s values add up to more than an "
						       "int64 holds",
					   sp_profile_str(p, p->sample_types[si].type));
			break;
		}
		size_t cur = 0;
		for (size_t n = s->n_locations; n-- > 0;) {
			const sp_location *l = sp_profile_location(p, s->location_ids[n]);
			if (!l)
				continue;
			size_t li = (size_t)(l - p->locations);
			for (size_t j = loc_off[li + 1]; j-- > loc_off[li];) {
				bool cut = t->nodes[cur].depth + 1 >= MAX_DEPTH;
				cur = child_of(t, cur, cut ? deeper : loc_frames[j]);
				if (before)
					t->nodes[cur].before += w;
				else
					t->nodes[cur].value += w;
				if (cut)
					goto next;
			}
		}
	next:;
	}
	free(loc_off);
	free(loc_frames);
	sp_sample_filter_free(filter);
	return err;
}

/* The nodes in depth-first order, children by name; *N_OUT of them. */
static size_t *preorder(htree *t, size_t *n_out)
{
	size_t *n_kids = sp_xcalloc(t->n + 1, sizeof(size_t));
	for (size_t i = 1; i < t->n; i++)
		n_kids[t->nodes[i].parent]++;
	size_t *start = sp_xcalloc(t->n + 1, sizeof(size_t));
	for (size_t i = 0; i < t->n; i++)
		start[i + 1] = start[i] + n_kids[i];
	size_t *kids = sp_xcalloc(t->n ? t->n : 1, sizeof(size_t)), *fill = sp_xcalloc(t->n + 1, sizeof(size_t));
	for (size_t i = 1; i < t->n; i++) {
		size_t pa = t->nodes[i].parent;
		kids[start[pa] + fill[pa]++] = i;
	}
	for (size_t i = 0; i < t->n; i++)
		if (n_kids[i] > 1)
			qsort_r(kids + start[i], n_kids[i], sizeof(size_t), cmp_children, t);
	size_t *order = sp_xcalloc(t->n ? t->n : 1, sizeof(size_t)), *stack = sp_xcalloc(t->n + 1, sizeof(size_t));
	size_t n = 0, top = 0;
	stack[top++] = 0;
	while (top) {
		size_t i = stack[--top];
		order[n++] = i;
		for (size_t k = n_kids[i]; k-- > 0;)
			stack[top++] = kids[start[i] + k];
	}
	free(n_kids);
	free(start);
	free(kids);
	free(fill);
	free(stack);
	*n_out = n;
	return order;
}

static void write_tree(sp_sink *out, htree *t, bool differential)
{
	size_t n;
	size_t *order = preorder(t, &n);
	sp_sink_puts(out, ",\"tree\":{\"d\":[");
	for (size_t i = 0; i < n; i++)
		sp_sink_printf(out, i ? ",%u" : "%u", t->nodes[order[i]].depth);
	sp_sink_puts(out, "],\"f\":[");
	for (size_t i = 0; i < n; i++)
		sp_sink_printf(out, i ? ",%u" : "%u", t->nodes[order[i]].frame);
	sp_sink_puts(out, "],\"v\":[");
	for (size_t i = 0; i < n; i++)
		sp_sink_printf(out, i ? ",%lld" : "%lld", (long long)t->nodes[order[i]].value);
	if (differential) {
		sp_sink_puts(out, "],\"b\":[");
		for (size_t i = 0; i < n; i++)
			sp_sink_printf(out, i ? ",%lld" : "%lld", (long long)t->nodes[order[i]].before);
	}
	sp_sink_puts(out, "]}");
	free(order);
}

sp_error *sp_html_write(const sp_profile *p, const sp_report_options *o, const sp_annotation *a,
			sp_sink *out)
{
	sp_report_options def;
	if (!o) {
		sp_report_options_init(&def);
		o = &def;
	}
	sp_error *err = sp_profile_check(p, "html report");
	if (err)
		return err;
	size_t si = o->sample_index;
	if (si >= p->n_sample_types)
		return sp_error_new(SP_E_USAGE, "html report: sample index %zu out of range", si);
	bool differential = sp_profile_has_base(p);
	htree t = {0};
	if (!(err = build_tree(p, o, &t, differential))) {
		const char *type = sp_profile_str(p, p->sample_types[si].type);
		const char *unit = sp_profile_str(p, p->sample_types[si].unit);
		char *title = o->title && *o->title ? sp_xstrdup(o->title)
			      : differential ? sp_xasprintf("Differential: %s (%s)", type,
							    *unit ? unit : "count")
					     : sp_xasprintf("%s (%s)", type, *unit ? unit : "count");
		int64_t total = 0;
		for (size_t i = 0; i < p->n_samples; i++)
			total = sp_sat_add(total, sp_abs64(p->samples[i].values[si]));
		sp_sink_puts(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
				  "<meta name=\"generator\" content=\"symprof\">\n<title>");
		char *esc = sp_report_clean_name(sp_xstrdup(title));
		for (char *c = esc; *c; c++)
			if (*c == '<' || *c == '>' || *c == '&')
				*c = '?';
		sp_sink_puts(out, esc);
		free(esc);
		sp_sink_puts(out, "</title>\n<style>\n");
		sp_sink_puts(out, html_page_css);
		sp_sink_puts(out, "</style>\n</head>\n<body>\n"
				  "<script type=\"application/json\" id=\"sp-data\">{\"v\":1,\"title\":");
		json_str(out, title);
		free(title);
		sp_sink_puts(out, ",\"type\":");
		json_str(out, type);
		sp_sink_puts(out, ",\"unit\":");
		json_str(out, unit);
		sp_sink_puts(out, ",\"show\":");
		json_str(out, o->unit && *o->unit ? o->unit : "");
		sp_sink_printf(out, ",\"total\":%lld,\"diff\":%s,\"names\":[", (long long)total,
			       differential ? "true" : "false");
		for (size_t i = 0; i < t.names.n; i++) {
			if (i)
				sp_sink_putc(out, ',');
			json_str_n(out, t.names.strs[i], t.names.lens[i]);
		}
		sp_sink_putc(out, ']');
		write_tree(out, &t, differential);
		write_annotation(out, a);
		sp_sink_puts(out, "}</script>\n<script>\n");
		sp_sink_puts(out, html_page_js);
		sp_sink_puts(out, "</script>\n</body></html>\n");
	}
	free(t.nodes);
	sp_idxset_free(&t.set);
	sp_strtab_free(&t.names);
	return err;
}
