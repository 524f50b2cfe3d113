/* graph.c — the call graph behind the graph and text reports, built
 * and pruned with pprof's rules.
 *
 * Each location gives one node per inline frame (names.c).  For
 * every kept sample (profile/filter.c) the chosen value is added to the cum
 * of each distinct node on its stack, to each distinct caller->callee edge
 * (root to leaf, through inline frames) and to the flat of the leaf: its
 * innermost frame, inlined or not (pprof's flat), or with flat_to
 * SP_FLAT_SYMBOL the function the symbol table names for the address, the
 * outermost frame of the leaf's inline chain (perf report's Self).  As in
 * pprof the graph is rebuilt from the samples at each pruning step: first
 * nodes whose |cum| is below nodefraction of the graph's total, then all but
 * the first nodecount nodes of the report order (flat for the table, pprof's
 * entropy score for graphs), then edges below edgefraction.  Stacks that
 * pass through dropped nodes keep an edge across them, marked residual; a
 * dropped leaf gives no flat to anyone.
 */
#include "report/reportp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NONE SIZE_MAX

typedef struct {
	int64_t flat, cum;
	size_t stamp;
} gnode;

typedef struct {
	size_t src, dst;
	int64_t weight;
	size_t stamp;
	bool residual, is_inline, removed;
} gedge;

typedef struct {
	const sp_profile *p;
	size_t si;
	sp_sample_filter *filter;
	/* node keys: the name, a NUL, the tie (see sp_frame_namer_name; ""
	 * if none); node k is keys.strs[k], labelled labels[k] */
	sp_strtab keys;
	char **labels;
	size_t n_keys, cap_labels;
	bool flat_symbol; /* flat to the leaf location's outermost frame */
	/* per location index: its node keys, outermost last (as lines) */
	size_t *loc_off, *loc_cnt, *loc_nodes;
	size_t n_loc_nodes, cap_loc_nodes;
	/* What the graph is built from: units, each a weight and the
	 * location indices frames[frame_off[u] .. frame_off[u + 1]] (leaf
	 * first).  With tags, unit u is sample u (filtered-out and zero
	 * samples have no frames); without, a unit is one distinct stack of
	 * the kept samples, their weights summed, in the order the stacks
	 * first appear: the sums, the nodes and edges and their order are
	 * those of adding every sample, at the cost of the distinct stacks. */
	uint32_t *frames;
	size_t *frame_off;
	int64_t *unit_w;
	size_t n_units;
	/* graphs only: the tags of sample i are tag_ids[tag_off[i] ..
	 * tag_off[i + 1]] (see sample_tags) */
	size_t *tag_ids, *tag_off;
	size_t n_tags, cap_tags; /* distinct tags */
	sp_u64map tag_map; /* node * n_tags + tag -> index into tag_vals */
	int64_t (*tag_vals)[2]; /* flat, cum */
	size_t *tag_node;         /* the node of each tag_vals entry */
	size_t *tag_tag;          /* the tag of each tag_vals entry */
	size_t n_tag_vals, cap_tag_vals, cap_tag_node, cap_tag_tag;
	/* per tag id: 'L' (string labels) or 'N' (a bytes value); the joined
	 * string labels (the tag's own name for 'L'); the shown name; the
	 * first value seen (for 'N') */
	char *tag_kind;
	char **tag_group, **tag_name;
	int64_t *tag_value;
	/* the current graph */
	gnode *nodes; /* n_keys entries */
	gedge *edges;
	size_t n_edges, cap_edges;
	sp_u64map edge_map;
} builder;

static const char *node_name(const builder *b, size_t k)
{
	return b->keys.strs[k];
}

static const char *node_tie(const builder *b, size_t k)
{
	return b->keys.strs[k] + strlen(b->keys.strs[k]) + 1;
}

/* Interns a node for components FIRST/SECOND, TIE (may be NULL) and LABEL
 * (all consumed). */
static size_t intern_node(builder *b, char *first, char *second, char *tie, char *label)
{
	sp_buf key = {0};
	size_t idx;

	sp_buf_puts(&key, first);
	if (second)
		sp_buf_printf(&key, " %s", second);
	sp_buf_append(&key, "", 1);
	sp_buf_puts(&key, tie ? tie : "");
	idx = sp_strtab_find(&b->keys, key.data, key.len);
	if (idx == SIZE_MAX) {
		idx = sp_strtab_append(&b->keys, key.data, key.len);
		SP_PUSH(b->labels, b->n_keys, b->cap_labels, label);
	} else {
		free(label);
	}
	sp_buf_free(&key);
	free(first);
	free(second);
	free(tie);
	return idx;
}

static void builder_init(builder *b, const sp_profile *p, size_t si, sp_granularity g)
{
	size_t nloc = p->n_locations ? p->n_locations : 1;
	sp_frame_namer *nm = sp_frame_namer_new(p, g);

	memset(b, 0, sizeof(*b));
	b->p = p;
	b->si = si;
	b->loc_off = sp_xcalloc(nloc, sizeof(size_t));
	b->loc_cnt = sp_xcalloc(nloc, sizeof(size_t));
	for (size_t i = 0; i < p->n_locations; i++) {
		const sp_location *l = &p->locations[i];
		size_t n = l->n_lines ? l->n_lines : 1;

		b->loc_off[i] = b->n_loc_nodes;
		b->loc_cnt[i] = n;
		for (size_t li = 0; li < n; li++) {
			char *first, *second, *label, *tie;
			size_t k;

			sp_frame_namer_name(nm, l, li, &first, &second, &label, &tie);
			k = intern_node(b, first, second, tie, label);
			SP_PUSH(b->loc_nodes, b->n_loc_nodes, b->cap_loc_nodes, k);
		}
	}
	b->nodes = sp_xcalloc(b->n_keys ? b->n_keys : 1, sizeof(gnode));
	sp_frame_namer_free(nm);
}

/* Resolves every kept sample's location ids once for all graph passes. */
typedef struct {
	const sp_profile *p;
	const size_t *first; /* each unit's first sample */
	const sp_sample *key;
} unit_key;

static bool unit_eq(void *ctx, size_t u)
{
	const unit_key *k = ctx;
	const sp_sample *s = &k->p->samples[k->first[u]];

	return s->n_locations == k->key->n_locations &&
	       (!s->n_locations || !memcmp(s->location_ids, k->key->location_ids,
					   s->n_locations * sizeof(*s->location_ids)));
}

/* The units; BY_STACK: one per distinct stack, else one per sample. */
static void builder_frames(builder *b, bool by_stack)
{
	const sp_profile *p = b->p;
	size_t n = 0, cap = 0, cap_off = 0, cap_w = 0, cap_first = 0, n_first = 0;
	size_t *first = NULL;
	sp_idxset set = {0};

	sp_grow(&b->frame_off, &cap_off, 1, sizeof(*b->frame_off));
	for (size_t si = 0; si < p->n_samples; si++) {
		const sp_sample *s = &p->samples[si];
		int64_t w = s->values[b->si];
		bool kept = w != 0 && sp_sample_filter_keep(b->filter, s);

		if (by_stack) {
			if (!kept)
				continue;
			uint64_t h = sp_hash_bytes(s->location_ids,
						   s->n_locations * sizeof(*s->location_ids), 0);
			unit_key k = {p, first, s};
			size_t u = sp_idxset_find(&set, h, unit_eq, &k);
			if (u != SIZE_MAX) {
				/* wrapping: the graph's sums come out as adding
				 * the samples one by one would make them */
				b->unit_w[u] = (int64_t)((uint64_t)b->unit_w[u] + (uint64_t)w);
				continue;
			}
			sp_idxset_add(&set, h, b->n_units);
			SP_PUSH(first, n_first, cap_first, si);
		}
		sp_grow(&b->frame_off, &cap_off, b->n_units + 2, sizeof(*b->frame_off));
		sp_grow(&b->unit_w, &cap_w, b->n_units + 1, sizeof(*b->unit_w));
		b->frame_off[b->n_units] = n;
		b->unit_w[b->n_units++] = w;
		if (!kept)
			continue;
		for (size_t i = 0; i < s->n_locations; i++) {
			const sp_location *l = sp_profile_location(p, s->location_ids[i]);

			if (l)
				SP_PUSH(b->frames, n, cap, (uint32_t)(l - p->locations));
		}
	}
	b->frame_off[b->n_units] = n;
	free(first);
	sp_idxset_free(&set);
}

static void builder_free(builder *b)
{
	for (size_t i = 0; i < b->n_keys; i++)
		free(b->labels[i]);
	free(b->labels);
	sp_strtab_free(&b->keys);
	free(b->loc_off);
	free(b->loc_cnt);
	free(b->loc_nodes);
	free(b->frames);
	free(b->frame_off);
	free(b->unit_w);
	free(b->tag_ids);
	free(b->tag_off);
	free(b->tag_vals);
	free(b->tag_node);
	free(b->tag_tag);
	for (size_t i = 0; i < b->n_tags; i++) {
		free(b->tag_group[i]);
		free(b->tag_name[i]);
	}
	free(b->tag_kind);
	free(b->tag_group);
	free(b->tag_name);
	free(b->tag_value);
	sp_u64map_free(&b->tag_map);
	free(b->nodes);
	free(b->edges);
	sp_u64map_free(&b->edge_map);
	sp_sample_filter_free(b->filter);
}

/* The id of the tag KEY (consumed) in KEYS.  A new tag gets KIND, GROUP
 * (copied), NAME (consumed; freed when the tag exists) and VALUE. */
static size_t tag_id(builder *b, sp_strtab *keys, char *key, char kind, const char *group,
		     char *name, int64_t value)
{
	size_t id = sp_strtab_intern_str(keys, key);

	free(key);
	if (id < b->n_tags) {
		free(name);
		return id;
	}
	sp_grow(&b->tag_kind, &b->cap_tags, id + 1, 1);
	b->tag_group = sp_xreallocarray(b->tag_group, b->cap_tags, sizeof(char *));
	b->tag_name = sp_xreallocarray(b->tag_name, b->cap_tags, sizeof(char *));
	b->tag_value = sp_xreallocarray(b->tag_value, b->cap_tags, sizeof(int64_t));
	b->tag_kind[id] = kind;
	b->tag_group[id] = sp_xstrdup(group);
	b->tag_name[id] = name;
	b->tag_value[id] = value;
	b->n_tags++;
	return id;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* pprof's graphs give nodes "tags": one for a sample's string labels
 * ("key:value" sorted and joined) and one per value of its numeric
 * "bytes" label (named by the value with its unit, e.g. "1.50kB").  They
 * are drawn as nodelets (dot.c) and count as nodes against nodecount. */
static void builder_tags(builder *b, const char *unit)
{
	const sp_profile *p = b->p;
	sp_strtab keys = {0};
	size_t n = 0, cap = 0;

	b->tag_off = sp_xcalloc(p->n_samples + 1, sizeof(size_t));
	for (size_t si = 0; si < p->n_samples; si++) {
		const sp_sample *s = &p->samples[si];
		char **strs = sp_xcalloc(s->n_labels + 1, sizeof(char *));
		size_t ns = 0, id;
		sp_buf joined = {0};

		b->tag_off[si] = n;
		if (b->frame_off[si] == b->frame_off[si + 1]) {
			free(strs);
			continue;
		}
		for (size_t i = 0; i < s->n_labels; i++)
			if (s->labels[i].str)
				strs[ns++] = sp_report_clean_name(sp_xasprintf(
					"%s:%s", sp_profile_str(p, s->labels[i].key),
					sp_profile_str(p, s->labels[i].str)));
		qsort(strs, ns, sizeof(char *), cmp_str);
		/* joined with a DOT line break, as pprof shows them */
		sp_buf_puts(&joined, "");
		for (size_t i = 0; i < ns; i++) {
			sp_buf_printf(&joined, "%s%s", i ? "\\n" : "", strs[i]);
			free(strs[i]);
		}
		free(strs);
		if (ns) {
			id = tag_id(b, &keys, sp_xasprintf("L%s", joined.data), 'L', joined.data,
				    sp_xstrdup(joined.data), 0);
			SP_PUSH(b->tag_ids, n, cap, id);
		}
		for (size_t i = 0; i < s->n_labels; i++) {
			const sp_label *l = &s->labels[i];
			const char *u = sp_profile_str(p, l->num_unit);
			char *v;

			if (l->str || strcmp(sp_profile_str(p, l->key), "bytes"))
				continue;
			v = sp_report_scaled_label(l->num, u[0] ? u : "bytes", unit);
			id = tag_id(b, &keys, sp_xasprintf("N%s\x1f%s", joined.data, v), 'N',
				    joined.data, v, l->num);
			SP_PUSH(b->tag_ids, n, cap, id);
		}
		sp_buf_free(&joined);
	}
	b->tag_off[p->n_samples] = n;
	sp_strtab_free(&keys);
}

static void add_tags(builder *b, size_t si, size_t node, int64_t w, int which)
{
	for (size_t i = b->tag_off[si]; i < b->tag_off[si + 1]; i++) {
		uint64_t key = (uint64_t)node * b->n_tags + b->tag_ids[i], idx;

		if (!sp_u64map_get(&b->tag_map, key, &idx)) {
			idx = b->n_tag_vals++;
			sp_grow(&b->tag_vals, &b->cap_tag_vals, idx + 1, sizeof(*b->tag_vals));
			sp_grow(&b->tag_node, &b->cap_tag_node, idx + 1, sizeof(*b->tag_node));
			sp_grow(&b->tag_tag, &b->cap_tag_tag, idx + 1, sizeof(*b->tag_tag));
			b->tag_vals[idx][0] = b->tag_vals[idx][1] = 0;
			b->tag_node[idx] = node;
			b->tag_tag[idx] = b->tag_ids[i];
			sp_u64map_put(&b->tag_map, key, idx);
		}
		b->tag_vals[idx][which] = sp_sat_add(b->tag_vals[idx][which], w);
	}
}

/* How many of the ordered nodes fit in NODECOUNT when each also counts
 * its tags with flat weight (at most 4), tags below CUTOFF ignored. */
static size_t select_count(const builder *b, const size_t *order, size_t n, size_t nodecount,
			   int64_t cutoff)
{
	size_t *tags = sp_xcalloc(b->n_keys + 1, sizeof(size_t)), count = 0, limit = nodecount;

	for (size_t i = 0; i < b->n_tag_vals; i++) {
		int64_t flat = b->tag_vals[i][0], cum = b->tag_vals[i][1];

		if (flat != 0 && (sp_abs64(flat) >= cutoff || sp_abs64(cum) >= cutoff))
			tags[b->tag_node[i]]++;
	}
	for (size_t i = 0; i < n; i++) {
		count += (tags[order[i]] > 4 ? 4 : tags[order[i]]) + 1;
		if (count >= nodecount) {
			limit = i + 1;
			break;
		}
	}
	free(tags);
	return limit < n ? limit : n;
}

/* Adds W to the edge SRC->DST once per sample (STAMP). */
static void add_edge(builder *b, size_t src, size_t dst, int64_t w, size_t stamp,
		     bool residual, bool is_inline)
{
	uint64_t key = (uint64_t)src * b->n_keys + dst, idx;
	gedge *e;

	if (!sp_u64map_get(&b->edge_map, key, &idx)) {
		idx = b->n_edges;
		SP_PUSH(b->edges, b->n_edges, b->cap_edges,
			((gedge){.src = src, .dst = dst, .residual = residual,
				 .is_inline = is_inline}));
		sp_u64map_put(&b->edge_map, key, idx);
	} else if (b->edges[idx].stamp != stamp) {
		if (residual)
			b->edges[idx].residual = true;
		if (!is_inline)
			b->edges[idx].is_inline = false;
	}
	e = &b->edges[idx];
	if (e->stamp == stamp)
		return;
	e->stamp = stamp;
	e->weight += w;
}

/* Rebuilds the graph from the units, keeping only KEPT nodes (NULL: all). */
static void build_graph(builder *b, const bool *kept)
{
	memset(b->nodes, 0, (b->n_keys ? b->n_keys : 1) * sizeof(gnode));
	b->n_edges = 0;
	sp_u64map_free(&b->edge_map);
	memset(&b->edge_map, 0, sizeof(b->edge_map));
	b->n_tag_vals = 0;
	sp_u64map_free(&b->tag_map);
	memset(&b->tag_map, 0, sizeof(b->tag_map));

	for (size_t si = 0; si < b->n_units; si++) {
		int64_t w = b->unit_w[si];
		size_t stamp = si + 1, parent = NONE;
		bool residual = false;

		for (size_t i = b->frame_off[si + 1]; i-- > b->frame_off[si];) {
			size_t li = b->frames[i];

			for (size_t ni = b->loc_cnt[li]; ni-- > 0;) {
				size_t n = b->loc_nodes[b->loc_off[li] + ni];

				if (kept && !kept[n]) {
					residual = true;
					continue;
				}
				if (b->nodes[n].stamp != stamp) {
					b->nodes[n].stamp = stamp;
					b->nodes[n].cum += w;
					if (b->tag_off)
						add_tags(b, si, n, w, 1);
				}
				if (parent != NONE && parent != n)
					add_edge(b, parent, n, w, stamp, residual,
						 ni + 1 != b->loc_cnt[li]);
				parent = n;
				residual = false;
			}
		}
		size_t symbol = residual ? NONE : parent;
		if (b->flat_symbol && b->frame_off[si] < b->frame_off[si + 1]) {
			/* the leaf location's outermost frame, when kept */
			size_t li = b->frames[b->frame_off[si]];
			size_t n = b->loc_nodes[b->loc_off[li] + b->loc_cnt[li] - 1];
			symbol = kept && !kept[n] ? NONE : n;
		}
		if (symbol != NONE) {
			b->nodes[symbol].flat += w;
			if (b->tag_off)
				add_tags(b, si, symbol, w, 0);
		}
	}
}

static bool in_graph(const builder *b, size_t n)
{
	return b->nodes[n].flat != 0 || b->nodes[n].cum != 0;
}

typedef struct {
	const builder *b;
	sp_report_mode mode;
	const int64_t *score; /* graph mode: per node key */
} sort_ctx;

static int cmp_nodes(const void *x, const void *y, void *arg)
{
	const sort_ctx *c = arg;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	const gnode *na = &c->b->nodes[a], *nb = &c->b->nodes[b];
	int64_t fa = sp_abs64(na->flat), fb = sp_abs64(nb->flat);
	int64_t ca = sp_abs64(na->cum), cb = sp_abs64(nb->cum);
	int r;

	if (c->mode == SP_REPORT_TEXT) {
		if (fa != fb)
			return fa > fb ? -1 : 1;
	} else {
		int64_t sa = sp_abs64(c->score[a]), sb = sp_abs64(c->score[b]);

		if (sa != sb)
			return sa > sb ? -1 : 1;
	}
	r = strcmp(node_name(c->b, a), node_name(c->b, b));
	if (r)
		return r;
	if (c->mode == SP_REPORT_TEXT) {
		if (ca != cb)
			return ca > cb ? -1 : 1;
	} else {
		if (fa != fb)
			return fa > fb ? -1 : 1;
	}
	if ((r = strcmp(node_tie(c->b, a), node_tie(c->b, b))))
		return r;
	return a < b ? -1 : a > b;
}

static double entropy_term(int64_t w, int64_t total)
{
	double frac = (double)sp_abs64(w) / (double)total;

	return frac > 0 ? -frac * log2(frac) : 0;
}

/* pprof's entropy score: cum weighted by how much the node's incoming and
 * outgoing edges branch (a node that merely passes its caller's weight on
 * to one callee scores low), plus flat.  Entry and leaf nodes count one
 * for the missing side. */
static int64_t *entropy_scores(const builder *b)
{
	size_t n = b->n_keys + 1;
	int64_t *in_total = sp_xcalloc(n, sizeof(int64_t)), *out_total;
	double *in_score = sp_xcalloc(n, sizeof(double)), *out_score;
	size_t *in_n = sp_xcalloc(n, sizeof(size_t)), *out_n;
	int64_t *score = sp_xcalloc(n, sizeof(int64_t));

	out_total = sp_xcalloc(n, sizeof(int64_t));
	out_score = sp_xcalloc(n, sizeof(double));
	out_n = sp_xcalloc(n, sizeof(size_t));
	for (size_t k = 0; k < b->n_keys; k++)
		out_total[k] = b->nodes[k].flat;
	for (size_t i = 0; i < b->n_edges; i++) {
		const gedge *e = &b->edges[i];

		if (e->removed)
			continue;
		in_n[e->dst]++;
		out_n[e->src]++;
		if (e->weight > 0) {
			in_total[e->dst] = sp_sat_add(in_total[e->dst], e->weight);
			out_total[e->src] = sp_sat_add(out_total[e->src], e->weight);
		}
	}
	for (size_t i = 0; i < b->n_edges; i++) {
		const gedge *e = &b->edges[i];

		if (e->removed)
			continue;
		if (in_total[e->dst] != 0)
			in_score[e->dst] += entropy_term(e->weight, in_total[e->dst]);
		if (out_total[e->src] != 0)
			out_score[e->src] += entropy_term(e->weight, out_total[e->src]);
	}
	for (size_t k = 0; k < b->n_keys; k++) {
		double sc = 0;
		int64_t flat = b->nodes[k].flat;

		sc += in_n[k] == 0 ? 1 : in_score[k];
		if (out_n[k] == 0)
			sc += 1;
		else
			sc += out_score[k] + (flat > 0 && out_total[k] != 0
						      ? entropy_term(flat, out_total[k])
						      : 0);
		score[k] = sp_sat_add(sp_i64_from_double(sc * (double)b->nodes[k].cum), flat);
	}
	free(in_total);
	free(out_total);
	free(in_score);
	free(out_score);
	free(in_n);
	free(out_n);
	return score;
}

/* The graph's nodes in report order; *N gets their number. */
static size_t *sorted_nodes(const builder *b, sp_report_mode mode, size_t *n)
{
	size_t *v = sp_xcalloc(b->n_keys ? b->n_keys : 1, sizeof(*v)), k = 0;
	sort_ctx c = {b, mode, NULL};
	int64_t *score = mode == SP_REPORT_GRAPH ? entropy_scores(b) : NULL;

	c.score = score;
	for (size_t i = 0; i < b->n_keys; i++)
		if (in_graph(b, i))
			v[k++] = i;
	qsort_r(v, k, sizeof(*v), cmp_nodes, &c);
	free(score);
	*n = k;
	return v;
}

/* Drops edges lighter than CUTOFF; returns how many. */
static size_t trim_edges(builder *b, int64_t cutoff)
{
	size_t dropped = 0;

	for (size_t i = 0; i < b->n_edges; i++) {
		gedge *e = &b->edges[i];

		if (!e->removed && sp_abs64(e->weight) < cutoff) {
			e->removed = true;
			dropped++;
		}
	}
	return dropped;
}

/* pprof's edge order: heavier first, then by source and destination name. */
static int cmp_edges(const void *x, const void *y, void *arg)
{
	const builder *b = arg;
	const gedge *ea = &b->edges[*(const size_t *)x], *eb = &b->edges[*(const size_t *)y];
	int r;

	if (sp_abs64(ea->weight) != sp_abs64(eb->weight))
		return sp_abs64(ea->weight) > sp_abs64(eb->weight) ? -1 : 1;
	if ((r = strcmp(node_name(b, ea->src), node_name(b, eb->src))))
		return r;
	return strcmp(node_name(b, ea->dst), node_name(b, eb->dst));
}

/* True when DST can be reached from SRC without edge SKIP. */
static bool reachable_without(const builder *b, size_t skip, size_t *queue, bool *seen)
{
	size_t src = b->edges[skip].src, head = 0, tail = 0;
	bool found = false;

	memset(seen, 0, b->n_keys * sizeof(*seen));
	queue[tail++] = b->edges[skip].dst;
	seen[b->edges[skip].dst] = true;
	while (head < tail && !found) {
		size_t n = queue[head++];

		for (size_t i = 0; i < b->n_edges; i++) {
			const gedge *e = &b->edges[i];

			if (i == skip || e->removed || e->dst != n || seen[e->src])
				continue;
			if (e->src == src) {
				found = true;
				break;
			}
			seen[e->src] = true;
			queue[tail++] = e->src;
		}
	}
	return found;
}

/* pprof's RemoveRedundantEdges: from the lightest node up, drop residual
 * incoming edges (lightest first, stopping at the first ordinary edge) when
 * their destination is reachable another way. */
static void remove_redundant_edges(builder *b, const size_t *order, size_t n)
{
	size_t *in = sp_xcalloc(b->n_edges + 1, sizeof(*in));
	size_t *queue = sp_xcalloc(b->n_keys + 1, sizeof(*queue));
	bool *seen = sp_xcalloc(b->n_keys + 1, sizeof(*seen));

	for (size_t i = n; i-- > 0;) {
		size_t k = 0;

		for (size_t e = 0; e < b->n_edges; e++)
			if (!b->edges[e].removed && b->edges[e].dst == order[i])
				in[k++] = e;
		qsort_r(in, k, sizeof(*in), cmp_edges, b);
		for (size_t j = k; j-- > 0;) {
			if (!b->edges[in[j]].residual)
				break;
			if (reachable_without(b, in[j], queue, seen))
				b->edges[in[j]].removed = true;
		}
	}
	free(in);
	free(queue);
	free(seen);
}

/* R's edges: B's edges between kept nodes, by their positions POS. */
static void copy_edges(sp_report *r, const builder *b, const size_t *pos)
{
	r->edges = sp_xcalloc(b->n_edges + 1, sizeof(*r->edges));
	for (size_t i = 0; i < b->n_edges; i++) {
		const gedge *e = &b->edges[i];
		sp_redge *re;

		if (e->removed || !in_graph(b, e->src) || !in_graph(b, e->dst))
			continue;
		re = &r->edges[r->n_edges++];
		*re = (sp_redge){pos[e->src], pos[e->dst], e->weight, e->residual, e->is_inline};
		if (e->is_inline)
			r->nodes[re->dst].in_inline = true;
		else
			r->nodes[re->dst].in_call = true;
		r->nodes[re->src].has_out = true;
	}
}

/* The tags of R's nodes, without those below NODE_CUTOFF. */
static void copy_tags(sp_report *r, const builder *b, const size_t *pos, int64_t node_cutoff)
{
	for (size_t i = 0; i < b->n_tag_vals; i++) {
		int64_t flat = b->tag_vals[i][0], cum = b->tag_vals[i][1];
		size_t k = b->tag_node[i], t = b->tag_tag[i];
		sp_rnode *nd;

		if (!in_graph(b, k) || (sp_abs64(flat) < node_cutoff && sp_abs64(cum) < node_cutoff))
			continue;
		nd = &r->nodes[pos[k]];
		nd->tags = sp_xreallocarray(nd->tags, nd->n_tags + 1, sizeof(*nd->tags));
		nd->tags[nd->n_tags++] = (sp_rtag){
			.kind = b->tag_kind[t],
			.group = sp_xstrdup(b->tag_group[t]),
			.name = sp_xstrdup(b->tag_name[t]),
			.value = b->tag_value[t],
			.flat = flat,
			.cum = cum,
		};
	}
}

/* R's edges by source, heavier first, then destination. */
static void sort_edges(sp_report *r)
{
	for (size_t i = 1; i < r->n_edges; i++) {
		sp_redge t = r->edges[i];
		size_t j = i;

		while (j > 0) {
			const sp_redge *q = &r->edges[j - 1];
			bool after = q->src > t.src ||
				     (q->src == t.src && (sp_abs64(q->weight) < sp_abs64(t.weight) ||
							  (sp_abs64(q->weight) == sp_abs64(t.weight) &&
							   q->dst > t.dst)));

			if (!after)
				break;
			r->edges[j] = r->edges[j - 1];
			j--;
		}
		r->edges[j] = t;
	}
}

/* Copies the nodes of B in ORDER (N of them) into R, with their edges and
 * the tags of the nodes kept, leaving out tags below NODE_CUTOFF. */
static void copy_out(sp_report *r, const builder *b, const size_t *order, size_t n,
		     int64_t node_cutoff)
{
	size_t *pos = sp_xcalloc(b->n_keys + 1, sizeof(*pos));

	r->nodes = sp_xcalloc(n + 1, sizeof(*r->nodes));
	r->n_nodes = n;
	for (size_t i = 0; i < n; i++) {
		size_t k = order[i];

		pos[k] = i;
		r->nodes[i].name = sp_xstrdup(node_name(b, k));
		r->nodes[i].label = sp_xstrdup(b->labels[k]);
		r->nodes[i].flat = b->nodes[k].flat;
		r->nodes[i].cum = b->nodes[k].cum;
	}
	copy_edges(r, b, pos);
	copy_tags(r, b, pos, node_cutoff);
	sort_edges(r);
	free(pos);
}

sp_error *sp_report_build_graph(sp_report *r, const sp_report_options *o, sp_report_mode mode)
{
	builder b;
	sp_error *err;
	size_t *order, n;
	bool *kept = NULL, edges_trimmed = false;
	int64_t flat_total = 0, node_cutoff, edge_cutoff;

	builder_init(&b, r->p, r->sample_index, o->granularity);
	b.flat_symbol = o->flat_to == SP_FLAT_SYMBOL;
	if ((err = sp_report_filter_new(r->p, o, &b.filter))) {
		builder_free(&b);
		return err;
	}
	builder_frames(&b, mode != SP_REPORT_GRAPH);
	if (mode == SP_REPORT_GRAPH)
		builder_tags(&b, o->unit && o->unit[0] ? o->unit : "minimum");
	kept = sp_xcalloc(b.n_keys + 1, sizeof(*kept));

	/* 1: everything; drop nodes below the node fraction of the graph. */
	build_graph(&b, NULL);
	for (size_t i = 0; i < b.n_keys; i++)
		flat_total += b.nodes[i].flat;
	node_cutoff = sp_abs64(sp_i64_from_double((double)flat_total * r->nodefraction));
	edge_cutoff = sp_abs64(sp_i64_from_double((double)flat_total * r->edgefraction));
	if (node_cutoff > 0) {
		size_t before = 0, after = 0;

		for (size_t i = 0; i < b.n_keys; i++) {
			if (!in_graph(&b, i))
				continue;
			before++;
			kept[i] = sp_abs64(b.nodes[i].cum) >= node_cutoff;
			after += kept[i];
		}
		r->dropped_nodes = before - after;
		build_graph(&b, kept);
	}

	/* 2: the first NODECOUNT nodes of the report order. */
	order = sorted_nodes(&b, mode, &n);
	r->orig_count = n;
	if (r->nodecount > 0) {
		/* As pprof does, edges are trimmed before the selection; if
		 * the graph is not rebuilt they are not counted again. */
		trim_edges(&b, edge_cutoff);
		edges_trimmed = true;
		size_t limit = (size_t)r->nodecount < n ? (size_t)r->nodecount : n;

		if (mode == SP_REPORT_GRAPH)
			limit = select_count(&b, order, n, (size_t)r->nodecount, node_cutoff);
		if (limit < n) {
			memset(kept, 0, b.n_keys + 1);
			for (size_t i = 0; i < limit; i++)
				kept[order[i]] = true;
			build_graph(&b, kept);
			edges_trimmed = false;
			free(order);
			order = sorted_nodes(&b, mode, &n);
		}
	}

	/* 3: light edges, then (graphs) redundant residual edges. */
	{
		size_t d = trim_edges(&b, edge_cutoff);

		r->dropped_edges = edges_trimmed ? 0 : d;
	}
	if (mode == SP_REPORT_GRAPH)
		remove_redundant_edges(&b, order, n);

	copy_out(r, &b, order, n, node_cutoff);
	free(order);
	free(kept);
	builder_free(&b);
	return NULL;
}
