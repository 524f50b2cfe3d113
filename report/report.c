/* report.c — the report behind the graph and text outputs: the total, the
 * output unit, the legend.  The graph itself is built and pruned in graph.c,
 * its nodes named in names.c, values formatted in values.c, options in
 * defaults.c.  Percentages are of the total of all
 * samples, taken before focus and ignore (pprof's default).  Legend example:
 *
 *   Type: cpu
 *   Showing nodes accounting for 90ms, 90.00% of 100ms total
 *   Dropped 3 nodes (cum <= 0.50ms)
 */
#include "report/reportp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *trim_left(const char *s)
{
	while (*s == ' ')
		s++;
	return s;
}

static void add_header(sp_report *r, char *line)
{
	size_t cap = r->n_headers;

	sp_grow(&r->headers, &cap, r->n_headers + 1, sizeof(*r->headers));
	r->headers[r->n_headers++] = line;
}

/* "Time: Jan 2, 2006 at 3:04pm (MST)" in local time, as pprof prints a
 * profile's time_nanos. */
static char *time_line(int64_t ns)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;
	char buf[96];

	if (ns < 0 && ns % 1000000000)
		t--;
	if (!localtime_r(&t, &tm) ||
	    !strftime(buf, sizeof(buf), "%b %-d, %Y at %-I:%M%P (%Z)", &tm))
		return sp_xasprintf("Time: %lld ns", (long long)ns);
	return sp_xasprintf("Time: %s", buf);
}

/* pprof's "Duration: 6s, Total samples = 1.22s (20.30%)": the share is
 * there only when the samples are times (the space before it stays). */
static char *duration_line(const sp_report *r, int64_t duration)
{
	const char *unit;
	double ns = sp_report_scale(r->total, r->sample_unit, "nanoseconds", &unit);
	int64_t ns64 = sp_i64_from_double(ns);
	char *d = sp_report_scaled_label(duration, "nanoseconds", "auto");
	char *total = sp_report_value(r, r->total);
	char pct[16], *ratio, *line;

	if (!strcmp(unit, "ns") && ns != 0)
		ratio = sp_xasprintf("(%s)", sp_report_pct(ns64, duration, pct));
	else
		ratio = sp_xstrdup("");
	line = sp_xasprintf("Duration: %s, Total samples = %s %s", d, total, ratio);
	free(d);
	free(total);
	free(ratio);
	return line;
}

/* The profile's lines of the legend (pprof's ProfileLabels) and the active
 * filters; after the output unit is chosen, which the total is shown in. */
static void make_headers(sp_report *r, const sp_report_options *o)
{
	const sp_profile *p = r->p;

	if (p->n_mappings > 0) {
		const char *file = sp_profile_str(p, p->mappings[0].filename);
		const char *bid = sp_profile_str(p, p->mappings[0].build_id);

		if (file[0])
			add_header(r, sp_xasprintf("File: %s", sp_report_base_name(file)));
		if (bid[0])
			add_header(r, sp_xasprintf("Build ID: %s", bid));
	}
	for (size_t i = 0; i < p->n_comments; i++) {
		const char *c = sp_profile_str(p, p->comments[i]);

		if (c[0] != '#')
			add_header(r, sp_xstrdup(c));
	}
	if (r->sample_type[0])
		add_header(r, sp_xasprintf("Type: %s", r->sample_type));
	if (p->time_nanos != 0)
		add_header(r, time_line(p->time_nanos));
	if (p->duration_nanos != 0)
		add_header(r, duration_line(r, p->duration_nanos));
	const char *const filters[][2] = {
		{"focus", o->focus}, {"ignore", o->ignore},
		{"tagfocus", o->tagfocus}, {"tagignore", o->tagignore},
	};
	bool any = false;
	for (size_t i = 0; i < SP_ARRAY_LEN(filters); i++) {
		if (!filters[i][1] || !filters[i][1][0])
			continue;
		if (!any)
			add_header(r, sp_xstrdup("Active filters:"));
		any = true;
		add_header(r, sp_xasprintf("   %s=%s", filters[i][0], filters[i][1]));
	}
}

/* pprof's selectOutputUnit: the unit of the smallest nonzero node value,
 * moved up one unit when that is 100 times smaller than the total. */
static char *select_output_unit(const sp_report *r)
{
	int64_t minv = 0, maxv = r->total;
	const char *minu, *maxu, *u;

	if (r->n_nodes == 0)
		return sp_xstrdup("minimum"); /* each value in its own unit */
	for (size_t i = 0; i < r->n_nodes; i++) {
		int64_t v = sp_abs64(r->nodes[i].flat);

		if (v == 0)
			v = sp_abs64(r->nodes[i].cum);
		if (v > 0 && (minv == 0 || v < minv))
			minv = v;
	}
	if (minv == 0)
		minv = maxv;
	sp_report_scale(minv, r->sample_unit, "minimum", &minu);
	sp_report_scale(maxv, r->sample_unit, "minimum", &maxu);
	u = minu;
	if (strcmp(minu, maxu) && minv <= (maxv - 1) / 100) /* minv * 100 < maxv */
		sp_report_scale(100 * minv, r->sample_unit, "minimum", &u);
	return sp_xstrdup(u[0] ? u : r->sample_unit);
}

sp_error *sp_report_new(const sp_profile *p, const sp_report_options *opts,
			sp_report_mode mode, sp_report **out)
{
	sp_report_options o;
	sp_report *r;
	sp_error *err;

	if (opts)
		o = *opts;
	else
		sp_report_options_init(&o);
	if ((err = sp_profile_check(p, "report")))
		return err;
	if (o.sample_index >= p->n_sample_types)
		return sp_error_new(SP_E_USAGE,
				    "report: sample index %zu out of range (profile has %zu "
				    "sample types)",
				    o.sample_index, p->n_sample_types);

	r = sp_xcalloc(1, sizeof(*r));
	r->p = p;
	r->sample_index = o.sample_index;
	r->sample_type = sp_profile_str(p, p->sample_types[o.sample_index].type);
	r->sample_unit = sp_profile_str(p, p->sample_types[o.sample_index].unit);
	r->nodefraction = o.nodefraction < 0 ? 0.005 : o.nodefraction;
	r->edgefraction = o.edgefraction < 0 ? 0.001 : o.edgefraction;
	r->flat_symbol = o.flat_to == SP_FLAT_SYMBOL;
	/* pprof's defaults: every node for the table, 80 for graphs. */
	if (o.nodecount == 0)
		r->nodecount = mode == SP_REPORT_TEXT ? -1 : 80;
	else
		r->nodecount = o.nodecount;
	for (size_t i = 0; i < p->n_samples; i++) {
		int64_t v = p->samples[i].values[o.sample_index];

		if (v == INT64_MIN || __builtin_add_overflow(r->total, sp_abs64(v), &r->total)) {
			err = sp_error_new(SP_E_LIMIT,
					   "report: the values of sample type \"%s\" add up to "
					   "more than 2^63-1 at sample %zu of %zu (value %lld); "
					   "too large to total",
					   r->sample_type, i + 1, p->n_samples, (long long)v);
			sp_report_free(r);
			return err;
		}
	}

	if ((err = sp_report_build_graph(r, &o, mode))) {
		sp_report_free(r);
		return err;
	}

	if (o.unit && o.unit[0])
		r->output_unit = sp_xstrdup(o.unit);
	else
		r->output_unit = select_output_unit(r);
	make_headers(r, &o);
	*out = r;
	return NULL;
}

void sp_report_free(sp_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_headers; i++)
		free(r->headers[i]);
	free(r->headers);
	for (size_t i = 0; i < r->n_nodes; i++) {
		free(r->nodes[i].name);
		free(r->nodes[i].label);
		for (size_t t = 0; t < r->nodes[i].n_tags; t++) {
			free(r->nodes[i].tags[t].group);
			free(r->nodes[i].tags[t].name);
		}
		free(r->nodes[i].tags);
	}
	free(r->nodes);
	free(r->edges);
	free(r->output_unit);
	free(r);
}

static char *dropped_line(const sp_report *r, size_t d, const char *what, const char *key,
			  double fraction)
{
	char *v = sp_report_value(r, sp_abs64(sp_i64_from_double((double)r->total * fraction)));
	char *s = sp_xasprintf("Dropped %zu %s%s (%s <= %s)", d, what, d > 1 ? "s" : "", key, v);

	free(v);
	return s;
}

char **sp_report_legend(const sp_report *r, size_t *n)
{
	char **v = sp_xcalloc(r->n_headers + 5, sizeof(*v));
	size_t k = 0;
	int64_t flat_sum = 0;
	char pct[16], *a, *b;

	for (size_t i = 0; i < r->n_headers; i++)
		v[k++] = sp_xstrdup(r->headers[i]);
	for (size_t i = 0; i < r->n_nodes; i++)
		flat_sum += r->nodes[i].flat;
	if (r->flat_symbol)
		v[k++] = sp_xstrdup("Flat: to the symbol holding each address (perf report's "
				    "Self), not to the functions inlined there");
	a = sp_report_value(r, flat_sum);
	b = sp_report_value(r, r->total);
	v[k++] = sp_xasprintf("Showing nodes accounting for %s, %s of %s total", a,
			      trim_left(sp_report_pct(flat_sum, r->total, pct)), b);
	free(a);
	free(b);
	if (r->total != 0) {
		if (r->dropped_nodes > 0)
			v[k++] = dropped_line(r, r->dropped_nodes, "node", "cum", r->nodefraction);
		if (r->dropped_edges > 0)
			v[k++] = dropped_line(r, r->dropped_edges, "edge", "freq", r->edgefraction);
		if (r->n_nodes > 0 && r->n_nodes < r->orig_count)
			v[k++] = sp_xasprintf("Showing top %zu nodes out of %zu", r->n_nodes,
					      r->orig_count);
	}
	*n = k;
	return v;
}
