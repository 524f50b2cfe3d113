/* dot.c — the call graph as a graphviz graph, written as DOT text or laid
 * out and rendered as PDF, SVG or PNG (through graphviz.c, the one file
 * that talks to graphviz).  The graph follows pprof's DOT report: a
 * legend box, then nodes N1.. in report order (pprof's entropy score: cum
 * weighted by how much the node's edges branch, then name), each labelled
 * "name\nflat (flat%)\nof cum (cum%)" ("flat (flat%)" alone when flat ==
 * cum, "0 of cum (cum%)" when flat is 0), then edges labelled with their
 * weight (and "(inline)" for inlined calls; residual edges through dropped
 * nodes are dotted):
 *
 *   N1 [label="main\n10ms (10.00%)\nof 100ms (100%)", fontsize=15, ...];
 *   N1 -> N2 [label=" 60ms", penwidth=4, ...];
 *
 * Nodes whose samples carry string labels or a numeric "bytes" label get
 * pprof's nodelets: small boxes (N1_0, NN1_0, ...) with the weight of each
 * label set and allocation size, sizes collapsed into at most four ranges.
 *
 * Font size is 8 + ceil(16 * sqrt(|flat| / max |flat|)) points (8..24);
 * edge pen width is 1 + min(5 * |weight| / total, 5) and layout weight
 * 1 + min(100 * |weight| / total, 100), both truncated to integers.  Colours
 * go from grey (near 0% of the total) to red (100%).  Node and edge order
 * is fixed by the report (cgraph writes each node before its out-edges),
 * so the text is the same for the same input.
 */
#include "report/reportp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "#rrggbb" for SCORE in [-1, 1]: grey near 0, red towards 1 (green for
 * negative values of diff profiles); pale for backgrounds. */
static void score_color(double score, bool background, char *buf)
{
	double sat = background ? 0.1 : 1.0, val = background ? 0.93 : 0.7;
	double r, g, b;

	if (score > 1)
		score = 1;
	if (score < -1)
		score = -1;
	if (fabs(score) < 0.2)
		sat *= fabs(score) / 0.2;
	/* Push scores away from 0 so small shares are still tinted. */
	score = score > 0 ? pow(score, 0.3) : -pow(-score, 0.3);
	if (score < 0) {
		g = val;
		r = val * (1 + sat * score);
	} else {
		r = val;
		g = val * (1 - sat * score);
	}
	b = val * (1 - sat);
	snprintf(buf, 8, "#%02x%02x%02x", (unsigned)(r * 255.0) & 0xff,
		 (unsigned)(g * 255.0) & 0xff, (unsigned)(b * 255.0) & 0xff);
}

/* Escapes S for a DOT label: backslashes doubled, newlines as
 * END-of-line escapes (EOL is "\\n" centred or "\\l" left-justified). */
static void escape_label(sp_buf *b, const char *s, const char *eol)
{
	for (; *s; s++) {
		if (*s == '\\')
			sp_buf_puts(b, "\\\\");
		else if (*s == '\n')
			sp_buf_puts(b, eol);
		else
			sp_buf_append(b, s, 1);
	}
}

static double score_of(int64_t v, int64_t total)
{
	int64_t t = total < 0 ? -total : total;

	return t ? (double)v / (double)t : 0;
}

static void add_legend(sp_gv_graph *g, const sp_report *r)
{
	/* A plain node, created first so dot puts it top left (pprof wraps
	 * it in a cluster, which graphviz 2.42's dot layout leaks). */
	sp_gv_node *n = sp_gv_node_new(g, "legend");
	sp_buf label = {0};
	size_t nl;
	char **lines = sp_report_legend(r, &nl);

	for (size_t i = 0; i < nl; i++) {
		escape_label(&label, lines[i], "\\l");
		sp_buf_puts(&label, "\\l");
		free(lines[i]);
	}
	free(lines);
	sp_gv_set(n, "shape", "box");
	sp_gv_set(n, "fontsize", "16");
	sp_gv_set(n, "label", sp_buf_str(&label));
	sp_buf_free(&label);
}

static void add_node(sp_gv_graph *g, const sp_report *r, size_t i, int64_t max_flat,
		     sp_gv_node **nodes)
{
	const sp_rnode *nd = &r->nodes[i];
	char id[32], color[8], fill[8], *flat, *cum, pct[16];
	int64_t af = nd->flat < 0 ? -nd->flat : nd->flat;
	int fontsize = 8;
	sp_buf label = {0};
	sp_gv_node *n;

	snprintf(id, sizeof(id), "N%zu", i + 1);
	n = nodes[i] = sp_gv_node_new(g, id);
	flat = sp_report_value(r, nd->flat);
	cum = sp_report_value(r, nd->cum);
	escape_label(&label, nd->label, "\\n");
	sp_buf_puts(&label, "\\n");
	if (nd->flat != 0) {
		sp_report_pct(nd->flat, r->total, pct);
		sp_buf_printf(&label, "%s (%s)", flat, pct + strspn(pct, " "));
	} else {
		sp_buf_puts(&label, "0");
	}
	if (nd->cum != nd->flat) {
		sp_report_pct(nd->cum, r->total, pct);
		sp_buf_printf(&label, "%sof %s (%s)", nd->flat != 0 ? "\\n" : " ", cum,
			      pct + strspn(pct, " "));
	}
	if (max_flat > 0 && af > 0 && af <= max_flat)
		fontsize += (int)ceil(16.0 * sqrt((double)af / (double)max_flat));
	sp_gv_set(n, "label", sp_buf_str(&label));
	snprintf(id, sizeof(id), "node%zu", i + 1);
	sp_gv_set(n, "id", id);
	snprintf(id, sizeof(id), "%d", fontsize);
	sp_gv_set(n, "fontsize", id);
	sp_gv_set(n, "shape", "box");
	sp_buf_reset(&label);
	escape_label(&label, nd->name, " ");
	sp_buf_printf(&label, " (%s)", cum);
	sp_gv_set(n, "tooltip", sp_buf_str(&label));
	score_color(score_of(nd->cum, r->total), false, color);
	score_color(score_of(nd->cum, r->total), true, fill);
	sp_gv_set(n, "color", color);
	sp_gv_set(n, "fillcolor", fill);
	sp_buf_free(&label);
	free(flat);
	free(cum);
}

/* -- nodelets: a node's tags drawn as small boxes hanging from it -------- */

#define MAX_NODELETS 4

static int cmp_tags(const void *x, const void *y, void *arg)
{
	const sp_rtag *a = x, *b = y;
	bool flat = *(const bool *)arg;
	int64_t ac = a->cum < 0 ? -a->cum : a->cum, bc = b->cum < 0 ? -b->cum : b->cum;
	int64_t af = a->flat < 0 ? -a->flat : a->flat, bf = b->flat < 0 ? -b->flat : b->flat;

	if (!flat && a->cum != b->cum && ac != bc)
		return ac > bc ? -1 : 1;
	if (a->flat != b->flat && af != bf)
		return af > bf ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* One nodelet SRC_ID_J hanging from SRC, weighing W. */
static void add_nodelet(sp_gv_graph *g, const sp_report *r, sp_gv_node *src, const char *id,
			const char *label, int64_t w, bool dotted)
{
	sp_gv_node *n = sp_gv_node_new(g, id);
	sp_gv_edge *e = sp_gv_edge_new(g, src, n);
	char *weight = sp_report_value(r, w), *el = sp_xasprintf(" %s", weight);

	sp_gv_set(n, "label", label);
	sp_gv_set(n, "id", id);
	sp_gv_set(n, "fontsize", "8");
	sp_gv_set(n, "shape", "box3d");
	sp_gv_set(n, "tooltip", weight);
	sp_gv_set(e, "label", el);
	sp_gv_set(e, "weight", "100");
	sp_gv_set(e, "tooltip", weight);
	sp_gv_set(e, "labeltooltip", weight);
	if (dotted)
		sp_gv_set(e, "style", "dotted");
	free(el);
	free(weight);
}

static char *bytes_label(int64_t v)
{
	return sp_report_scaled_label(v, "bytes", "auto");
}

/* The numeric tags TS (N of them, in GROUP) of a node, at most four: when
 * there are more, each goes with the first four's closest value and the
 * groups are shown as "min..max". */
static bool numeric_nodelets(sp_gv_graph *g, const sp_report *r, sp_gv_node *src, const char *src_id,
			     sp_rtag *ts, size_t n, bool flat_tags)
{
	sp_rtag groups[MAX_NODELETS];
	int64_t lo[MAX_NODELETS], hi[MAX_NODELETS];
	size_t ng = n < MAX_NODELETS ? n : MAX_NODELETS, count[MAX_NODELETS] = {0};
	bool any = false;

	qsort_r(ts, n, sizeof(*ts), cmp_tags, &flat_tags);
	for (size_t i = 0; i < ng; i++) {
		groups[i] = ts[i];
		lo[i] = hi[i] = ts[i].value;
		count[i] = 1;
	}
	for (size_t i = ng; i < n; i++) {
		size_t best = 0;
		double d = fabs((double)ts[i].value - (double)groups[0].value);

		for (size_t k = 1; k < ng; k++) {
			double nd = fabs((double)ts[i].value - (double)groups[k].value);

			if (nd < d)
				best = k, d = nd;
		}
		groups[best].flat = sp_sat_add(groups[best].flat, ts[i].flat);
		groups[best].cum = sp_sat_add(groups[best].cum, ts[i].cum);
		lo[best] = ts[i].value < lo[best] ? ts[i].value : lo[best];
		hi[best] = ts[i].value > hi[best] ? ts[i].value : hi[best];
		count[best]++;
	}
	if (n > MAX_NODELETS) {
		for (size_t i = 0; i < ng; i++) {
			char *a = bytes_label(lo[i]), *b = bytes_label(hi[i]);

			groups[i].name = count[i] == 1 ? sp_xstrdup(a) : sp_xasprintf("%s..%s", a, b);
			free(a);
			free(b);
		}
		qsort_r(groups, ng, sizeof(*groups), cmp_tags, &flat_tags);
	}
	for (size_t j = 0; j < ng; j++) {
		const sp_rtag *t = &groups[j];
		bool use_flat = flat_tags || t->flat == t->cum;
		int64_t w = use_flat ? t->flat : t->cum;
		char id[64];

		if (w != 0) {
			snprintf(id, sizeof(id), "N%s_%zu", src_id, j);
			add_nodelet(g, r, src, id, t->name, w, !use_flat);
			any = true;
		}
	}
	if (n > MAX_NODELETS)
		for (size_t i = 0; i < ng; i++)
			free(groups[i].name);
	return any;
}

/* pprof's nodelets: up to four string-label tags, each with the values of
 * its samples' bytes label, and the bytes values of unlabelled samples.
 * Leaves show cum weights (their callees may have been dropped), other
 * nodes flat weights. */
static bool add_nodelets(sp_gv_graph *g, const sp_report *r, size_t i, sp_gv_node *node)
{
	const sp_rnode *nd = &r->nodes[i];
	sp_rtag *labels = sp_xcalloc(nd->n_tags + 1, sizeof(*labels));
	sp_rtag *nums = sp_xcalloc(nd->n_tags + 1, sizeof(*nums));
	size_t nl = 0, nn;
	bool flat_tags = nd->has_out, any = false;
	char id[64], src[32];

	for (size_t t = 0; t < nd->n_tags; t++)
		if (nd->tags[t].kind == 'L')
			labels[nl++] = nd->tags[t];
	qsort_r(labels, nl, sizeof(*labels), cmp_tags, &flat_tags);
	for (size_t t = 0; t < nl && t < MAX_NODELETS; t++) {
		int64_t w = flat_tags ? labels[t].flat : labels[t].cum;
		sp_gv_node *ln;

		if (w == 0)
			continue;
		snprintf(id, sizeof(id), "N%zu_%zu", i + 1, t);
		add_nodelet(g, r, node, id, labels[t].name, w, false);
		any = true;
		ln = sp_gv_node_find(g, id);
		nn = 0;
		for (size_t k = 0; k < nd->n_tags; k++)
			if (nd->tags[k].kind == 'N' && !strcmp(nd->tags[k].group, labels[t].name))
				nums[nn++] = nd->tags[k];
		if (nn)
			numeric_nodelets(g, r, ln, id, nums, nn, flat_tags);
	}
	nn = 0;
	for (size_t k = 0; k < nd->n_tags; k++)
		if (nd->tags[k].kind == 'N' && !nd->tags[k].group[0])
			nums[nn++] = nd->tags[k];
	snprintf(src, sizeof(src), "N%zu", i + 1);
	if (nn)
		any |= numeric_nodelets(g, r, node, src, nums, nn, flat_tags);
	free(labels);
	free(nums);
	return any;
}

static void add_edge(sp_gv_graph *g, const sp_report *r, const sp_redge *e, sp_gv_node **nodes,
		     const bool *nodelets)
{
	sp_gv_edge *ed = sp_gv_edge_new(g, nodes[e->src], nodes[e->dst]);
	char *w = sp_report_value(r, e->weight), buf[32], color[8];
	int64_t aw = e->weight < 0 ? -e->weight : e->weight;
	int64_t at = r->total < 0 ? -r->total : r->total;
	sp_buf s = {0};

	sp_buf_printf(&s, " %s%s", w, e->is_inline ? "\\n (inline)" : "");
	sp_gv_set(ed, "label", sp_buf_str(&s));
	if (at != 0) {
		/* aw <= at: an edge adds each sample once, the total all */
		int64_t weight = sp_mul_div(aw, 100, at), width = sp_mul_div(aw, 5, at);

		weight = 1 + (weight > 100 ? 100 : weight);
		width = 1 + (width > 5 ? 5 : width);
		if (weight > 1) {
			snprintf(buf, sizeof(buf), "%lld", (long long)weight);
			sp_gv_set(ed, "weight", buf);
		}
		if (width > 1) {
			snprintf(buf, sizeof(buf), "%lld", (long long)width);
			sp_gv_set(ed, "penwidth", buf);
		}
		score_color(score_of(e->weight, r->total), false, color);
		sp_gv_set(ed, "color", color);
	}
	sp_buf_reset(&s);
	escape_label(&s, r->nodes[e->src].name, " ");
	sp_buf_puts(&s, e->residual ? " ... " : " -> ");
	escape_label(&s, r->nodes[e->dst].name, " ");
	sp_buf_printf(&s, " (%s)", w);
	sp_gv_set(ed, "tooltip", sp_buf_str(&s));
	sp_gv_set(ed, "labeltooltip", sp_buf_str(&s));
	if (e->residual)
		sp_gv_set(ed, "style", "dotted");
	if (nodelets[e->src])
		sp_gv_set(ed, "minlen", "2"); /* room for the source's nodelets */
	sp_buf_free(&s);
	free(w);
}

/* The graph of P's report for O; freed with sp_gv_free. */
static sp_error *graph_new(const sp_profile *p, const sp_report_options *o, sp_gv_graph **out)
{
	sp_report *r;
	sp_error *err;
	sp_gv_graph *g;
	sp_gv_node **nodes;
	bool *nodelets;
	const char *title = o ? o->title : NULL;
	int64_t max_flat = 0;

	if ((err = sp_report_new(p, o, SP_REPORT_GRAPH, &r)))
		return err;
	if (!title || !title[0]) {
		title = "unnamed";
		if (p->n_mappings > 0 && sp_profile_str(p, p->mappings[0].filename)[0])
			title = sp_report_base_name(sp_profile_str(p, p->mappings[0].filename));
	}
	if ((err = sp_gv_new(title, &g))) {
		sp_report_free(r);
		return err;
	}
	sp_gv_node_default(g, "style", "filled");
	sp_gv_node_default(g, "fillcolor", "#f8f8f8");
	add_legend(g, r);
	for (size_t i = 0; i < r->n_nodes; i++) {
		int64_t af = r->nodes[i].flat < 0 ? -r->nodes[i].flat : r->nodes[i].flat;

		if (af > max_flat)
			max_flat = af;
	}
	nodes = sp_xcalloc(r->n_nodes + 1, sizeof(*nodes));
	nodelets = sp_xcalloc(r->n_nodes + 1, sizeof(*nodelets));
	for (size_t i = 0; i < r->n_nodes; i++) {
		add_node(g, r, i, max_flat, nodes);
		nodelets[i] = add_nodelets(g, r, i, nodes[i]);
	}
	for (size_t i = 0; i < r->n_edges; i++)
		add_edge(g, r, &r->edges[i], nodes, nodelets);
	free(nodes);
	free(nodelets);
	sp_report_free(r);
	*out = g;
	return NULL;
}

sp_error *sp_dot_write(const sp_profile *p, const sp_report_options *o, sp_sink *out)
{
	sp_gv_graph *g;
	sp_error *err;

	if ((err = graph_new(p, o, &g)))
		return err;
	err = sp_gv_write_dot(g, out);
	sp_gv_free(g);
	return err;
}

sp_error *sp_graph_render(const sp_profile *p, const sp_report_options *o, const char *format,
			  sp_sink *out)
{
	static const char *const formats[] = {"pdf", "svg", "png"};
	sp_gv_graph *g;
	sp_error *err;
	bool known = false;

	for (size_t i = 0; i < SP_ARRAY_LEN(formats); i++)
		known |= format && !strcmp(format, formats[i]);
	if (!known)
		return sp_error_new(SP_E_USAGE,
				    "graph: unknown output format \"%s\" (expected pdf, svg or png)",
				    format ? format : "");
	if ((err = graph_new(p, o, &g)))
		return err;
	err = sp_gv_render(g, format, out);
	sp_gv_free(g);
	return err;
}
