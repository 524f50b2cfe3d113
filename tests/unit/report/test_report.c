/* test_report.c — the top table, DOT graph, graphviz renders and flame graph
 * of a small hand-built profile whose every number is known:
 *
 *   main -> work -> helper (inlined into work) -> leaf   60ms
 *   main -> work -> helper                                20ms
 *   main                                                  10ms
 *   main -> libfoo.so+0x1000                             5ms
 *   main -> ns::f<int>&                                    5ms
 *
 * so leaf has flat 60 / cum 60, helper 20 / 80, work 0 / 80 (20 / 80 with
 * flat to the symbol), main 10 / 100 of a 100ms total (tests/helpers/report_fixture.h), then smaller profiles built
 * for one rule each: byte units, redundant residual edges, recursion, name
 * shortening, default node counts, bad bytes in names, tag counting and
 * nodelets, an empty profile, several threads.
 */
#include "formats/formats.h"
#include "report/report.h"
#include "tests/helpers/tap.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/helpers/report_fixture.h"

typedef sp_error *(*writer_fn)(const sp_profile *, const sp_report_options *, sp_sink *);

/* Runs W and returns its output (caller frees), or NULL on error. */
static char *run(writer_fn w, const sp_profile *p, const sp_report_options *o)
{
	sp_sink *s = sp_sink_memory_new();
	sp_error *err = w(p, o, s);
	const uint8_t *d;
	size_t n;
	char *out = NULL;

	if (!err)
		err = sp_sink_finish(s);
	if (err) {
		char *m = sp_error_string(err);

		printf("# error: %s\n", m);
		free(m);
		sp_error_free(err);
	} else {
		d = sp_sink_memory_data(s, &n);
		out = sp_xstrndup((const char *)d, n);
	}
	sp_sink_free(s);
	return out;
}

static void opts(sp_report_options *o)
{
	sp_report_options_init(o);
	o->sample_index = 1;
}

static bool has(const char *hay, const char *needle)
{
	bool ok = hay && strstr(hay, needle);

	if (!ok)
		printf("# missing: %s\n", needle);
	return ok;
}

static void test_top(const sp_profile *p)
{
	sp_report_options o;
	char *t;

	opts(&o);
	t = run(sp_top_write, p, &o);
	TAP_EQ_STR(t,
		   "File: prog\n"
		   "Type: cpu\n"
		   "Showing nodes accounting for 100ms, 100% of 100ms total\n"
		   "      flat  flat%   sum%        cum   cum%\n"
		   "      60ms 60.00% 60.00%       60ms 60.00%  leaf\n"
		   "      20ms 20.00% 80.00%       80ms 80.00%  helper (inline)\n"
		   "      10ms 10.00% 90.00%      100ms   100%  main\n"
		   "       5ms  5.00% 95.00%        5ms  5.00%  libfoo.so+0x1000\n"
		   "       5ms  5.00%   100%        5ms  5.00%  ns::f<int>&\n"
		   "         0     0%   100%       80ms 80.00%  work\n",
		   "top table, functions");
	free(t);

	o.flat_to = SP_FLAT_SYMBOL;
	t = run(sp_top_write, p, &o);
	TAP_EQ_STR(t,
		   "File: prog\n"
		   "Type: cpu\n"
		   "Flat: to the symbol holding each address (perf report's Self), not to the "
		   "functions inlined there\n"
		   "Showing nodes accounting for 100ms, 100% of 100ms total\n"
		   "      flat  flat%   sum%        cum   cum%\n"
		   "      60ms 60.00% 60.00%       60ms 60.00%  leaf\n"
		   "      20ms 20.00% 80.00%       80ms 80.00%  work\n"
		   "      10ms 10.00% 90.00%      100ms   100%  main\n"
		   "       5ms  5.00% 95.00%        5ms  5.00%  libfoo.so+0x1000\n"
		   "       5ms  5.00%   100%        5ms  5.00%  ns::f<int>&\n"
		   "         0     0%   100%       80ms 80.00%  helper (inline)\n",
		   "flat to the symbol: helper's 20ms to work, into which it is inlined");
	free(t);
	o.flat_to = SP_FLAT_FRAME;

	o.unit = "s";
	t = run(sp_top_write, p, &o);
	TAP_OK(has(t, "     0.06s 60.00% 60.00%      0.06s 60.00%  leaf\n") &&
		       has(t, "     0.10s   100%  main\n"),
	       "--unit s scales values");
	free(t);

	opts(&o);
	o.sample_index = 0;
	t = run(sp_top_write, p, &o);
	TAP_OK(has(t, "Type: samples\n") &&
		       has(t, "        60 60.00% 60.00%         60 60.00%  leaf\n"),
	       "count column prints plain numbers");
	free(t);

	opts(&o);
	o.nodecount = 2;
	t = run(sp_top_write, p, &o);
	TAP_OK(has(t, "Showing nodes accounting for 80ms, 80.00% of 100ms total\n"
		      "Showing top 2 nodes out of 6\n") &&
		       has(t, "  leaf\n") && has(t, "  helper\n") && !strstr(t, "main"),
	       "top nodecount=2 keeps the two heaviest by flat");
	free(t);

	opts(&o);
	o.focus = "^leaf$";
	t = run(sp_top_write, p, &o);
	TAP_EQ_STR(t,
		   "File: prog\n"
		   "Type: cpu\n"
		   "Active filters:\n"
		   "   focus=^leaf$\n"
		   "Showing nodes accounting for 60ms, 60.00% of 100ms total\n"
		   "      flat  flat%   sum%        cum   cum%\n"
		   "      60ms 60.00% 60.00%       60ms 60.00%  leaf\n"
		   "         0     0% 60.00%       60ms 60.00%  helper (inline)\n"
		   "         0     0% 60.00%       60ms 60.00%  main\n"
		   "         0     0% 60.00%       60ms 60.00%  work\n",
		   "focus keeps stacks through leaf; percentages of the whole profile");
	free(t);

	opts(&o);
	o.ignore = "helper";
	t = run(sp_top_write, p, &o);
	TAP_OK(has(t, "Showing nodes accounting for 20ms, 20.00% of 100ms total\n") &&
		       has(t, "      10ms 10.00% 10.00%       20ms 20.00%  main\n") &&
		       !strstr(t, "leaf") && !strstr(t, "work"),
	       "ignore drops every stack through helper");
	free(t);

	opts(&o);
	o.ignore = "main";
	t = run(sp_top_write, p, &o);
	TAP_OK(has(t, "Showing nodes accounting for 0, 0% of 100ms total\n"),
	       "nothing left: the total still in its own unit");
	free(t);

	opts(&o);
	o.focus = "libfoo";
	t = run(sp_top_write, p, &o);
	TAP_OK(has(t, "Showing nodes accounting for 5ms, 5.00% of 100ms total\n"),
	       "focus matches a mapping file name");
	free(t);

	opts(&o);
	o.focus = "(unclosed";
	t = run(sp_top_write, p, &o);
	TAP_OK(t == NULL, "bad regular expression is an error");
	free(t);

	opts(&o);
	o.sample_index = 7;
	t = run(sp_top_write, p, &o);
	TAP_OK(t == NULL, "sample index out of range is an error");
	free(t);

	opts(&o);
	o.granularity = SP_GRAN_LINES;
	t = run(sp_top_write, p, &o);
	TAP_OK(has(t, "      60ms 60.00% 60.00%       60ms 60.00%  leaf work.c:40\n") &&
		       has(t, "      20ms 20.00% 80.00%       80ms 80.00%  helper work.c:30 "
			      "(inline)\n") &&
		       has(t, "         0     0%   100%       80ms 80.00%  work work.c:20\n"),
	       "lines granularity");
	free(t);

	opts(&o);
	o.granularity = SP_GRAN_FILES;
	t = run(sp_top_write, p, &o);
	TAP_OK(has(t, "      80ms 80.00% 80.00%       80ms 80.00%  work.c\n") &&
		       has(t, "      10ms 10.00% 90.00%      100ms   100%  main.c\n") &&
		       has(t, "  other.c\n"),
	       "files granularity merges a file's inline frames");
	free(t);

	opts(&o);
	o.nodefraction = 0.1;
	t = run(sp_top_write, p, &o);
	TAP_OK(has(t, "Dropped 2 nodes (cum <= 10ms)\n") && !strstr(t, "libfoo") &&
		       has(t, "      10ms 10.00% 90.00%      100ms   100%  main\n"),
	       "nodefraction drops light nodes, cum of the rest unchanged");
	free(t);
}

/* DOT with whitespace outside quoted strings collapsed to one space. */
static char *normalize_dot(const char *dot)
{
	char *out = sp_xcalloc(strlen(dot) + 1, 1), *o = out;
	bool quoted = false, space = false;

	for (const char *s = dot; *s; s++) {
		if (!quoted && (*s == ' ' || *s == '\t' || *s == '\n')) {
			space = true;
			continue;
		}
		if (space && o != out)
			*o++ = ' ';
		space = false;
		*o++ = *s;
		if (*s == '\\' && quoted && s[1])
			*o++ = *++s;
		else if (*s == '"')
			quoted = !quoted;
	}
	return out;
}

/* The attribute list of statement HEAD ("N1" or "N1 -> N3") in the
 * normalized DOT text, or "" when there is none.  Caller frees. */
static char *attrs(const char *dot, const char *head)
{
	char key[64];
	const char *s = dot;
	size_t kl;

	snprintf(key, sizeof(key), " %s [", head);
	kl = strlen(key);
	while (s && (s = strstr(s, key))) {
		const char *a = s + kl, *e = a;
		bool quoted = false;

		if (s >= dot + 2 && s[-1] == '>' && s[-2] == '-') {
			s++;
			continue;
		}
		for (; *e && (quoted || *e != ']'); e++) {
			if (*e == '\\' && quoted && e[1])
				e++;
			else if (*e == '"')
				quoted = !quoted;
		}
		return sp_xstrndup(a, (size_t)(e - a));
	}
	return sp_xstrdup("");
}

/* True when statement HEAD's attributes contain WANT. */
static bool stmt_has(const char *dot, const char *head, const char *want)
{
	char *a = attrs(dot, head);
	bool ok = strstr(a, want) != NULL;

	if (!ok)
		printf("# %s [%s] lacks %s\n", head, a, want);
	free(a);
	return ok;
}

static bool stmt_lacks(const char *dot, const char *head, const char *unwanted)
{
	char *a = attrs(dot, head);
	bool ok = strstr(a, unwanted) == NULL;

	free(a);
	return ok;
}

static bool stmt_exists(const char *dot, const char *head)
{
	char *a = attrs(dot, head);
	bool ok = a[0] != 0;

	free(a);
	return ok;
}

static void test_dot(const sp_profile *p)
{
	sp_report_options o;
	char *raw, *t;

	opts(&o);
	raw = run(sp_dot_write, p, &o);
	t = normalize_dot(raw ? raw : "");
	TAP_OK(has(t, "digraph prog {") && has(t, "node [fillcolor=\"#f8f8f8\", style=filled ];"),
	       "graph named after the binary, default node style");
	TAP_OK(stmt_has(t, "N1", "label=\"main\\n10ms (10.00%)\\nof 100ms (100%)\""),
	       "main label: flat and cum");
	TAP_OK(stmt_has(t, "N2", "label=\"leaf\\n60ms (60.00%)\""),
	       "leaf label: flat only when flat == cum");
	TAP_OK(stmt_has(t, "N6", "label=\"work\\n0 of 80ms (80.00%)\""), "work label: zero flat");
	/* pprof's entropy scores: main (1 + H(.8,.05,.05,.1)) * 100 + 10 = 212,
	 * leaf 1 * 60 + 60 = 120, helper H(.75,.25) * 80 + 20 = 84, the two
	 * 5ms leaves 5 + 5 = 10 (then by name), work 0 (a pass-through). */
	TAP_OK(stmt_has(t, "N3", "label=\"helper\\n") &&
		       stmt_has(t, "N4", "label=\"libfoo.so+0x1000\\n5ms (5.00%)\"") &&
		       stmt_has(t, "N5", "label=\"ns\\nf<int>&\\n5ms (5.00%)\"") &&
		       !stmt_exists(t, "N7"),
	       "node ids by entropy score then name; unsymbolized frame by address");
	TAP_OK(stmt_has(t, "N1 -> N6", "label=\" 80ms\"") &&
		       stmt_has(t, "N3 -> N2", "label=\" 60ms\"") &&
		       stmt_has(t, "N1 -> N4", "label=\" 5ms\"") &&
		       stmt_has(t, "N1 -> N5", "label=\" 5ms\"") && !stmt_exists(t, "N1 -> N3"),
	       "call edges with weights");
	TAP_OK(stmt_has(t, "N6 -> N3", "label=\" 80ms\\n (inline)\""), "inline edge marked");
	TAP_OK(stmt_has(t, "legend", "label=\"File: prog\\lType: cpu\\lShowing nodes accounting "
				     "for 100ms, 100% of 100ms total\\l\"") &&
		       stmt_has(t, "legend", "shape=box"),
	       "legend box");
	/* 8 + ceil(16 * sqrt(flat / max flat)); pen 1 + 5 * weight / total. */
	TAP_OK(stmt_has(t, "N2", "fontsize=24") && stmt_has(t, "N1", "fontsize=15") &&
		       stmt_has(t, "N6", "fontsize=8") && stmt_has(t, "N1 -> N6", "penwidth=5") &&
		       stmt_has(t, "N3 -> N2", "penwidth=4") && stmt_lacks(t, "N1 -> N4", "penwidth"),
	       "font size grows with flat, pen width with weight");
	TAP_OK(!strstr(t, "dotted"), "no residual edges without pruning");
	{
		char *again = run(sp_dot_write, p, &o);

		TAP_EQ_STR(again, raw, "DOT output is deterministic");
		free(again);
	}
	free(raw);
	free(t);

	opts(&o);
	o.nodecount = 2;
	raw = run(sp_dot_write, p, &o);
	t = normalize_dot(raw ? raw : "");
	TAP_OK(stmt_has(t, "N1", "label=\"main\\n10ms (10.00%)\\nof 100ms (100%)\"") &&
		       stmt_has(t, "N2", "label=\"leaf\\n60ms (60.00%)\"") && !stmt_exists(t, "N3"),
	       "nodecount=2 keeps the two best by entropy score");
	TAP_OK(stmt_has(t, "N1 -> N2", "label=\" 60ms\"") &&
		       stmt_has(t, "N1 -> N2", "style=dotted") &&
		       stmt_has(t, "N1 -> N2", "tooltip=\"main ... leaf (60ms)\""),
	       "residual edge through the dropped nodes, dotted");
	TAP_OK(stmt_has(t, "legend", "\\lShowing top 2 nodes out of 6\\l"),
	       "legend tells the node limit");
	free(raw);
	free(t);

	opts(&o);
	o.edgefraction = 0.1;
	o.nodecount = -1;
	raw = run(sp_dot_write, p, &o);
	t = normalize_dot(raw ? raw : "");
	TAP_OK(stmt_has(t, "legend", "\\lDropped 2 edges (freq <= 10ms)\\l") &&
		       !stmt_exists(t, "N1 -> N4") && !stmt_exists(t, "N1 -> N5") &&
		       stmt_exists(t, "N1 -> N6"),
	       "edgefraction drops light edges");
	free(raw);
	free(t);

	opts(&o);
	o.title = "a \"quoted\" title";
	o.granularity = SP_GRAN_LINES;
	raw = run(sp_dot_write, p, &o);
	t = normalize_dot(raw ? raw : "");
	TAP_OK(has(t, "digraph \"a \\\"quoted\\\" title\" {") &&
		       stmt_has(t, "N1", "label=\"main\\nmain.c:10\\n10ms (10.00%)\\nof 100ms (100%)\""),
	       "title quoted; lines labels on two lines");
	free(raw);
	free(t);
}

static void test_render(const sp_profile *p)
{
	static const struct {
		const char *fmt, *magic;
		size_t len;
	} cases[] = {{"pdf", "%PDF", 4}, {"svg", "<svg", 0}, {"png", "\x89PNG", 4}};
	sp_report_options o;
	sp_error *err;

	opts(&o);
	for (size_t i = 0; i < SP_ARRAY_LEN(cases); i++) {
		sp_sink *s = sp_sink_memory_new();
		const uint8_t *d;
		size_t n = 0;
		bool ok;

		err = sp_graph_render(p, &o, cases[i].fmt, s);
		d = sp_sink_memory_data(s, &n);
		if (cases[i].len)
			ok = !err && n > 100 && !memcmp(d, cases[i].magic, cases[i].len);
		else
			ok = !err && n > 100 && memmem(d, n, "<svg", 4) &&
			     memmem(d, n, "main", 4);
		TAP_OK(ok, "render %s: %zu bytes with the right magic", cases[i].fmt, n);
		sp_error_free(err);
		sp_sink_free(s);
	}
	{
		sp_sink *s = sp_sink_memory_new();

		err = sp_graph_render(p, &o, "gif89", s);
		TAP_OK(err && sp_error_root_code(err) == SP_E_USAGE, "unknown render format refused");
		sp_error_free(err);
		sp_sink_free(s);
	}
}

/* The rect width of the frame whose data-n is NAME at depth DEPTH. */
static double frame_width(const char *svg, const char *name, int depth)
{
	char key[128];
	const char *g, *w;

	snprintf(key, sizeof(key), "data-d=\"%d\" data-n=\"%s\"", depth, name);
	g = svg ? strstr(svg, key) : NULL;
	if (!g)
		return -1;
	w = strstr(g, "width=\"");
	return w ? atof(w + 7) : -1;
}

/* The fill colour of the frame whose data-n is NAME. */
static bool frame_rgb(const char *svg, const char *name, int *r, int *g, int *b)
{
	char key[128];
	const char *f;

	snprintf(key, sizeof(key), "data-n=\"%s\"", name);
	f = svg ? strstr(svg, key) : NULL;
	f = f ? strstr(f, "fill=\"rgb(") : NULL;
	return f && sscanf(f + 10, "%d,%d,%d", r, g, b) == 3;
}

static void test_flamegraph(const sp_profile *p)
{
	sp_report_options o;
	char *t;

	opts(&o);
	t = run(sp_flamegraph_write, p, &o);
	TAP_OK(has(t, "<?xml") && has(t, "</svg>\n"), "flame graph is a complete SVG");
	TAP_OK(has(t, "<title>all (100000000 nanoseconds, 100.00%)</title>") &&
		       has(t, "<title>leaf (60000000 nanoseconds, 60.00%)</title>") &&
		       has(t, "<title>helper (80000000 nanoseconds, 80.00%)</title>"),
	       "frame titles carry value and share");
	/* 1180 px for the whole profile. */
	TAP_OK(frame_width(t, "all", 0) == 1180.0 && frame_width(t, "main", 1) == 1180.0 &&
		       frame_width(t, "work", 2) == 944.0 && frame_width(t, "helper", 3) == 944.0 &&
		       frame_width(t, "leaf", 4) == 708.0 &&
		       frame_width(t, "libfoo.so+0x1000", 2) == 59.0,
	       "widths proportional to values");
	TAP_OK(has(t, "data-n=\"ns::f&lt;int&gt;&amp;\"") && !strstr(t, "f<int>"),
	       "names XML-escaped");
	TAP_OK(!strstr(t, "_[i]") && has(t, "function zoom(") && has(t, "function search("),
	       "annotations not displayed; script embedded");
	free(t);

	opts(&o);
	o.focus = "libfoo";
	t = run(sp_flamegraph_write, p, &o);
	TAP_OK(frame_width(t, "libfoo.so+0x1000", 2) == 1180.0 && !strstr(t, "leaf"),
	       "flame graph honours focus");
	free(t);
}

/* Kernel, JIT and inline frames get their own colours. */
static void test_flame_colors(void)
{
	sp_profile *p = sp_profile_new();
	sp_mapping jit = {.memory_start = 0x7000, .memory_limit = 0x8000};
	uint64_t f, fi, l1, l2, l3;
	int64_t v = 1000;
	char *t;
	int r = -1, gr = -1, b = -1;

	sp_profile_add_sample_type(p, "samples", "count");
	jit.filename = sp_profile_intern(p, "[jit]");
	sp_profile_add_mapping(p, &jit);
	f = sp_profile_function_for(p, "jitted", "", "", 0);
	fi = sp_profile_function_for(p, "inl", "", "", 0);
	l1 = add_loc(p, 1, 0x7010, (uint64_t[]){f}, (int64_t[]){2}, 1);
	l2 = add_loc(p, 0, 0xffffffff81000010ULL, NULL, NULL, 0);
	l3 = add_loc(p, 0, 0x500,
		     (uint64_t[]){fi, sp_profile_function_for(p, "user", "", "", 0)},
		     (int64_t[]){3, 4}, 2);
	sp_profile_add_sample(p, &v, (uint64_t[]){l2, l1, l3}, 3, NULL, 0);
	t = run(sp_flamegraph_write, p, NULL);
	TAP_OK(frame_rgb(t, "0xffffffff81000010", &r, &gr, &b) && r >= 150 && r <= 190 &&
		       gr >= 110 && gr <= 150 && b >= 215 && !strstr(t, "_[k]"),
	       "kernel frame violet, suffix hidden");
	TAP_OK(frame_rgb(t, "jitted", &r, &gr, &b) && r <= 60 && gr >= 180 && b <= 60 &&
		       !strstr(t, "_[j]"),
	       "JIT frame green");
	TAP_OK(frame_rgb(t, "inl", &r, &gr, &b) && r <= 50 && gr >= 190 && b >= 190,
	       "inlined frame aqua");
	TAP_OK(frame_rgb(t, "user", &r, &gr, &b) && r >= 205 && gr <= 230 && b <= 55,
	       "ordinary frame warm");
	/* no ordinary frame takes the kernel's hue, whatever its name */
	bool apart = true;
	for (unsigned i = 0; i < 256 && apart; i++) {
		char nm[16], *svg;
		snprintf(nm, sizeof(nm), "fn%u", i);
		sp_profile *q = sp_profile_new();
		sp_profile_add_sample_type(q, "samples", "count");
		uint64_t fq = sp_profile_function_for(q, nm, "", "", 0);
		uint64_t lq = add_loc(q, 0, 0x600, (uint64_t[]){fq}, (int64_t[]){1}, 1);
		int64_t one = 1;
		sp_profile_add_sample(q, &one, &lq, 1, NULL, 0);
		svg = run(sp_flamegraph_write, q, NULL);
		apart = frame_rgb(svg, nm, &r, &gr, &b) && b <= 55;
		free(svg);
		sp_profile_free(q);
	}
	TAP_OK(apart, "256 ordinary frames: none of the kernel's violet");
	TAP_OK(has(t, "<title>0xffffffff81000010 (1000 samples, 100.00%)</title>"),
	       "count unit shown as samples");
	TAP_OK(frame_width(t, "user", 1) == 1180.0 && frame_width(t, "inl", 2) == 1180.0 &&
		       frame_width(t, "jitted", 3) == 1180.0 &&
		       frame_width(t, "0xffffffff81000010", 4) == 1180.0,
	       "root first, inline frame above its caller, leaf on top");
	free(t);
	sp_profile_free(p);
}

/* Bytes are printed in the unit of the smallest node, moved up when it is
 * 100 times smaller than the total (pprof's rule; base 1024). */
static void test_memory_units(void)
{
	sp_profile *p = sp_profile_new();
	uint64_t m, a, b, c;
	sp_report_options o;
	char *t;

	sp_profile_add_sample_type(p, "inuse_space", "bytes");
	m = add_loc(p, 0, 0x1000, (uint64_t[]){sp_profile_function_for(p, "main", "", "m.c", 0)},
		    (int64_t[]){1}, 1);
	a = add_loc(p, 0, 0x2000, (uint64_t[]){sp_profile_function_for(p, "a", "", "m.c", 0)},
		    (int64_t[]){2}, 1);
	b = add_loc(p, 0, 0x3000, (uint64_t[]){sp_profile_function_for(p, "b", "", "m.c", 0)},
		    (int64_t[]){3}, 1);
	c = add_loc(p, 0, 0x4000, (uint64_t[]){sp_profile_function_for(p, "c", "", "m.c", 0)},
		    (int64_t[]){4}, 1);
	sp_profile_add_sample(p, (int64_t[]){1536}, (uint64_t[]){a, m}, 2, NULL, 0);
	sp_profile_add_sample(p, (int64_t[]){3 << 20}, (uint64_t[]){b, m}, 2, NULL, 0);
	sp_profile_add_sample(p, (int64_t[]){512}, (uint64_t[]){c, m}, 2, NULL, 0);

	sp_report_options_init(&o);
	o.nodefraction = 0;
	t = run(sp_top_write, p, &o);
	TAP_EQ_STR(t,
		   "Type: inuse_space\n"
		   "Showing nodes accounting for 3074kB, 100% of 3074kB total\n"
		   "      flat  flat%   sum%        cum   cum%\n"
		   "    3072kB 99.93% 99.93%     3072kB 99.93%  b\n"
		   "    1.50kB 0.049%   100%     1.50kB 0.049%  a\n"
		   "    0.50kB 0.016%   100%     0.50kB 0.016%  c\n"
		   "         0     0%   100%     3074kB   100%  main\n",
		   "bytes scaled to kB, small percentages with two significant digits");
	free(t);

	sp_report_options_init(&o);
	t = run(sp_top_write, p, &o);
	TAP_OK(has(t, "Showing nodes accounting for 3MB, 99.93% of 3MB total\n"
		      "Dropped 2 nodes (cum <= 0.02MB)\n") &&
		       has(t, "       3MB 99.93% 99.93%        3MB 99.93%  b\n"),
	       "default node fraction drops a and c; MB");
	free(t);

	sp_report_options_init(&o);
	o.nodefraction = 0;
	o.unit = "MB";
	t = run(sp_top_write, p, &o);
	TAP_OK(has(t, "         0 0.016%   100%          0 0.016%  c\n") &&
		       has(t, "       3MB 99.93% 99.93%        3MB 99.93%  b\n"),
	       "--unit MB");
	free(t);
	sp_profile_free(p);
}

/* A residual edge is dropped when its destination is reachable anyway:
 * A->B->C (50) and A->X->C (1) with X pruned leave no dotted A...C. */
static void test_redundant_residual(void)
{
	sp_profile *p = sp_profile_new();
	uint64_t la, lb, lc, lx;
	sp_report_options o;
	char *raw, *t;

	sp_profile_add_sample_type(p, "samples", "count");
	la = add_loc(p, 0, 0x1000, (uint64_t[]){sp_profile_function_for(p, "A", "", "", 0)},
		     (int64_t[]){1}, 1);
	lb = add_loc(p, 0, 0x2000, (uint64_t[]){sp_profile_function_for(p, "B", "", "", 0)},
		     (int64_t[]){1}, 1);
	lc = add_loc(p, 0, 0x3000, (uint64_t[]){sp_profile_function_for(p, "C", "", "", 0)},
		     (int64_t[]){1}, 1);
	lx = add_loc(p, 0, 0x4000, (uint64_t[]){sp_profile_function_for(p, "X", "", "", 0)},
		     (int64_t[]){1}, 1);
	sp_profile_add_sample(p, (int64_t[]){50}, (uint64_t[]){lc, lb, la}, 3, NULL, 0);
	sp_profile_add_sample(p, (int64_t[]){1}, (uint64_t[]){lc, lx, la}, 3, NULL, 0);
	sp_report_options_init(&o);
	o.nodefraction = 0;
	o.nodecount = 3;
	raw = run(sp_dot_write, p, &o);
	t = normalize_dot(raw ? raw : "");
	/* Scores: C 109, A 58, then B and X 0 (by name). */
	TAP_OK(stmt_has(t, "N1", "label=\"C\\n51 (100%)\"") &&
		       stmt_has(t, "N2", "label=\"A\\n0 of 51 (100%)\"") &&
		       stmt_has(t, "N3", "label=\"B\\n0 of 50 (98.04%)\"") && !stmt_exists(t, "N4"),
	       "X pruned");
	TAP_OK(stmt_has(t, "N2 -> N3", "label=\" 50\"") && stmt_has(t, "N3 -> N1", "label=\" 50\"") &&
		       !stmt_exists(t, "N2 -> N1") && !strstr(t, "dotted"),
	       "redundant residual edge A...C removed");
	free(raw);
	free(t);
	sp_profile_free(p);
}

/* A node on a stack twice counts once in its cum; no self edges. */
static void test_recursion(void)
{
	sp_profile *p = sp_profile_new();
	uint64_t lm, lf, lg;
	char *raw, *t;

	sp_profile_add_sample_type(p, "samples", "count");
	lm = add_loc(p, 0, 0x1000, (uint64_t[]){sp_profile_function_for(p, "main", "", "", 0)},
		     (int64_t[]){1}, 1);
	lf = add_loc(p, 0, 0x2000, (uint64_t[]){sp_profile_function_for(p, "f", "", "", 0)},
		     (int64_t[]){1}, 1);
	lg = add_loc(p, 0, 0x3000, (uint64_t[]){sp_profile_function_for(p, "g", "", "", 0)},
		     (int64_t[]){1}, 1);
	sp_profile_add_sample(p, (int64_t[]){10}, (uint64_t[]){lg, lf, lf, lm}, 4, NULL, 0);
	sp_profile_add_sample(p, (int64_t[]){5}, (uint64_t[]){lg, lf, lg, lf, lm}, 5, NULL, 0);
	t = run(sp_top_write, p, NULL);
	TAP_EQ_STR(t,
		   "Type: samples\n"
		   "Showing nodes accounting for 15, 100% of 15 total\n"
		   "      flat  flat%   sum%        cum   cum%\n"
		   "        15   100%   100%         15   100%  g\n"
		   "         0     0%   100%         15   100%  f\n"
		   "         0     0%   100%         15   100%  main\n",
		   "recursive frames counted once per sample");
	free(t);
	raw = run(sp_dot_write, p, NULL);
	t = normalize_dot(raw ? raw : "");
	/* Stacks main f f g (10) and main f g f g (5): edges main->f 15,
	 * f->g 15 (twice in the second stack, counted once), g->f 5, no f->f. */
	TAP_OK(has(t, "label=\" 15\"") && has(t, "label=\" 5\"") && !strstr(t, "label=\" 10\"") &&
		       !strstr(t, "label=\" 20\""),
	       "edge weights counted once per sample");
	{
		int self = 0;

		for (int i = 1; i <= 3; i++) {
			char head[32];

			snprintf(head, sizeof(head), "N%d -> N%d", i, i);
			self += stmt_exists(t, head);
		}
		TAP_OK(self == 0, "no self edges");
	}
	free(raw);
	free(t);
	sp_profile_free(p);
}

static void test_empty(void)
{
	sp_profile *p = sp_profile_new();
	char *t;

	sp_profile_add_sample_type(p, "samples", "count");
	t = run(sp_top_write, p, NULL);
	TAP_EQ_STR(t,
		   "Type: samples\n"
		   "Showing nodes accounting for 0, 0% of 0 total\n"
		   "      flat  flat%   sum%        cum   cum%\n",
		   "empty profile: header only");
	free(t);
	t = run(sp_dot_write, p, NULL);
	TAP_OK(has(t, "digraph unnamed {") && has(t, "legend"), "empty profile: DOT with legend");
	free(t);
	t = run(sp_flamegraph_write, p, NULL);
	TAP_OK(has(t, "</svg>") && !strstr(t, "class=\"f\""), "empty profile: flame graph without frames");
	free(t);
	sp_profile_free(p);
}

/* Source files are shown lexically clean, as pprof shows them (Go's
 * filepath.Clean), so "./csu/../csu/x.c" and "csu/x.c" are one file. */
static void test_clean_paths(void)
{
	static const struct {
		const char *file, *want;
	} cases[] = {
		{"./csu/../csu/libc-start.c", "csu/libc-start.c"},
		{"./nptl/./nptl/pthread_create.c", "nptl/nptl/pthread_create.c"},
		{"/usr//src/../include/a.h", "/usr/include/a.h"},
		{"/../x.c", "/x.c"},
		{"../../y.c", "../../y.c"},
		{"a/b/../../../z.c", "../z.c"},
		{"w/..", "."},
	};
	sp_report_options o;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sp_profile *p = sp_profile_new();
		uint64_t f, l;
		char *t, *want;

		sp_profile_add_sample_type(p, "samples", "count");
		f = sp_profile_function_for(p, "fn", "fn", cases[i].file, 1);
		l = add_loc(p, 0, 0x1000, (uint64_t[]){f}, (int64_t[]){7}, 1);
		sp_profile_add_sample(p, (int64_t[]){1}, &l, 1, NULL, 0);
		sp_report_options_init(&o);
		o.granularity = SP_GRAN_LINES;
		t = run(sp_top_write, p, &o);
		want = sp_xasprintf("  fn %s:7\n", cases[i].want);
		TAP_OK(has(t, want), "lines: %s shown as %s", cases[i].file, cases[i].want);
		free(want);
		free(t);
		o.granularity = SP_GRAN_FILES;
		t = run(sp_top_write, p, &o);
		want = sp_xasprintf("  %s\n", cases[i].want);
		TAP_OK(has(t, want), "files: %s shown as %s", cases[i].file, cases[i].want);
		free(want);
		free(t);
		sp_profile_free(p);
	}
}

/* Graph labels shorten names like pprof: Java and C++ qualifiers and Go
 * import paths dropped, each remaining qualifier on its own line. */
static void test_label_names(void)
{
	static const struct {
		const char *name, *label;
	} cases[] = {
		{"std::vector<int>::push_back(int)", "std\\nvector<int>\\npush_back(int)"},
		{"com.example.Foo.bar(Foo.java)", "Foo\\nbar"},
		{"github.com/user/pkg/v2.(*T).Method", "pkg\\n(*T)\\nMethod"},
		{"(anonymous namespace)::Foo::bar", "Foo\\nbar"},
		{"a::b::Cls::method<int>(x)", "Cls\\nmethod<int>"},
		{"example.com/x/y.F[...]", "y\\nF[\xe2\x80\xa6]"},
		{"_ZN3fooEv", "_ZN3fooEv"},
	};
	sp_profile *p = sp_profile_new();
	sp_report_options o;
	uint64_t lm;
	char *raw, *t;

	sp_profile_add_sample_type(p, "samples", "count");
	lm = add_loc(p, 0, 0x1000, (uint64_t[]){sp_profile_function_for(p, "main", "", "", 0)},
		     (int64_t[]){1}, 1);
	for (size_t i = 0; i < SP_ARRAY_LEN(cases); i++) {
		uint64_t f = sp_profile_function_for(p, cases[i].name, "", "d/m.c", 0);
		uint64_t l = add_loc(p, 0, 0x2000 + i, (uint64_t[]){f}, (int64_t[]){(int64_t)i + 1}, 1);

		sp_profile_add_sample(p, (int64_t[]){10}, (uint64_t[]){l, lm}, 2, NULL, 0);
	}
	raw = run(sp_dot_write, p, NULL);
	t = normalize_dot(raw ? raw : "");
	for (size_t i = 0; i < SP_ARRAY_LEN(cases); i++) {
		char want[160];

		snprintf(want, sizeof(want), "label=\"%s\\n10 (14.29%%)\"", cases[i].label);
		TAP_OK(has(t, want), "label of %s", cases[i].name);
		snprintf(want, sizeof(want), "tooltip=\"%s (10)\"", cases[i].name);
		TAP_OK(has(t, want), "tooltip keeps the full name %s", cases[i].name);
	}
	free(raw);
	free(t);
	sp_report_options_init(&o);
	o.granularity = SP_GRAN_LINES;
	raw = run(sp_dot_write, p, &o);
	TAP_OK(has(raw, "label=\"Foo\\nbar\\nm.c:2\\n10 (14.29%)\""),
	       "lines: shortened name, then file base name and line");
	free(raw);
	sp_profile_free(p);
}

/* The table lists every node by default (pprof -top); graphs keep 80. */
static void test_default_nodecount(void)
{
	sp_profile *p = sp_profile_new();
	uint64_t lm;
	char *t, name[16];
	size_t rows = 0;

	sp_profile_add_sample_type(p, "samples", "count");
	lm = add_loc(p, 0, 0x1000, (uint64_t[]){sp_profile_function_for(p, "main", "", "", 0)},
		     (int64_t[]){1}, 1);
	for (int i = 0; i < 100; i++) {
		uint64_t l;

		snprintf(name, sizeof(name), "f%03d", i);
		l = add_loc(p, 0, 0x2000 + (uint64_t)i,
			    (uint64_t[]){sp_profile_function_for(p, name, "", "", 0)},
			    (int64_t[]){1}, 1);
		sp_profile_add_sample(p, (int64_t[]){100}, (uint64_t[]){l, lm}, 2, NULL, 0);
	}
	t = run(sp_top_write, p, NULL);
	for (const char *c = t; c && (c = strstr(c, "%  f0")); c++)
		rows++;
	TAP_OK(rows == 100 && !strstr(t, "Showing top"), "top: all 101 nodes by default (%zu f rows)",
	       rows);
	free(t);
	t = run(sp_dot_write, p, NULL);
	TAP_OK(t && strstr(t, "Showing top 80 nodes out of 101") && strstr(t, "N80") &&
		       !strstr(t, "N81"),
	       "graph: 80 nodes by default");
	free(t);
	sp_profile_free(p);
}

/* Files granularity as pprof keys it: a node's name is its file, but the
 * function's start line and the mapping's file stay in the node's key, so
 * two functions of a.c (start lines 10 and 20) are two rows; a frame
 * without a file is named after its mapping, "[prog]".
 *   s -> a  30 ms      s -> b  20 ms */
static void test_files_start_lines(void)
{
	sp_profile *p = sp_profile_new();
	sp_mapping exe = {.memory_start = 0x1000, .memory_limit = 0x4000};
	sp_report_options o;
	uint64_t ls, la, lb;
	char *t;

	sp_profile_add_sample_type(p, "samples", "count");
	sp_profile_add_sample_type(p, "cpu", "nanoseconds");
	exe.filename = sp_profile_intern(p, "/usr/bin/prog");
	sp_profile_add_mapping(p, &exe);
	ls = add_loc(p, 1, 0x1000, (uint64_t[]){sp_profile_function_for(p, "s", "s", "", 0)},
		     (int64_t[]){0}, 1);
	la = add_loc(p, 1, 0x2000, (uint64_t[]){sp_profile_function_for(p, "a", "a", "a.c", 10)},
		     (int64_t[]){12}, 1);
	lb = add_loc(p, 1, 0x3000, (uint64_t[]){sp_profile_function_for(p, "b", "b", "a.c", 20)},
		     (int64_t[]){22}, 1);
	add_sample(p, 30, (uint64_t[]){la, ls}, 2);
	add_sample(p, 20, (uint64_t[]){lb, ls}, 2);
	opts(&o);
	o.granularity = SP_GRAN_FILES;
	t = run(sp_top_write, p, &o);
	TAP_OK(has(t, "      30ms 60.00% 60.00%       30ms 60.00%  a.c\n"
		      "      20ms 40.00%   100%       20ms 40.00%  a.c\n"
		      "         0     0%   100%       50ms   100%  [prog]\n"),
	       "files: one row per function start line, [prog] for a frame without a file");
	free(t);
	sp_profile_free(p);
}

/* pprof's profile lines for time_nanos and duration_nanos: the time in
 * local time ("Jan 2, 2006 at 3:04pm (MST)"), the duration with the total
 * and, for times, the total's share of the duration.  1700000000 s is
 * 2023-11-14 22:13:20 UTC; the fixture's total is 100 ms, 100 samples. */
static void test_time_duration(void)
{
	sp_profile *p = make_profile();
	sp_report_options o;
	char *t;

	setenv("TZ", "UTC", 1);
	tzset();
	p->time_nanos = 1700000000LL * 1000000000LL;
	p->duration_nanos = 1000000000LL;
	opts(&o);
	t = run(sp_top_write, p, &o);
	TAP_OK(has(t, "Type: cpu\nTime: Nov 14, 2023 at 10:13pm (UTC)\n"
		      "Duration: 1s, Total samples = 100ms (10.00%)\nShowing nodes"),
	       "time and duration lines, share of the duration");
	free(t);
	o.sample_index = 0;
	t = run(sp_top_write, p, &o);
	TAP_OK(has(t, "Duration: 1s, Total samples = 100 \nShowing nodes"),
	       "counts: no share of the duration");
	free(t);
	t = run(sp_dot_write, p, &o);
	TAP_OK(has(t, "Time: Nov 14, 2023 at 10:13pm (UTC)"), "the graph's legend has the time");
	free(t);
	sp_profile_free(p);
}

/* Names that are not UTF-8 or hold control characters are printed with
 * '?' in their place; valid UTF-8 is kept. */
static void test_bad_names(void)
{
	sp_profile *p = sp_profile_new();
	uint64_t l1, l2;
	char *t;

	sp_profile_add_sample_type(p, "samples", "count");
	l1 = add_loc(p, 0, 0x1000,
		     (uint64_t[]){sp_profile_function_for(p, "caf\xc3\xa9", "", "", 0)},
		     (int64_t[]){1}, 1);
	l2 = add_loc(p, 0, 0x2000,
		     (uint64_t[]){sp_profile_function_for(p, "bad\xff\xc3x\x01", "", "", 0)},
		     (int64_t[]){1}, 1);
	sp_profile_add_sample(p, (int64_t[]){10}, (uint64_t[]){l2, l1}, 2, NULL, 0);
	t = run(sp_top_write, p, NULL);
	TAP_OK(has(t, "  caf\xc3\xa9\n") && has(t, "  bad??x?\n"), "top: names cleaned");
	free(t);
	t = run(sp_flamegraph_write, p, NULL);
	TAP_OK(has(t, "data-n=\"caf\xc3\xa9\"") && has(t, "data-n=\"bad??x?\""),
	       "flame graph: names cleaned");
	free(t);
	t = run(sp_dot_write, p, NULL);
	TAP_OK(has(t, "bad??x?") && !strchr(t, '\x01'), "DOT: names cleaned");
	free(t);
	sp_profile_free(p);
}

/* Graph node selection counts each node's "bytes" tags (at most four) as
 * nodes, as pprof does: fK has K allocation sizes of 1000 + 10K bytes each
 * under main, so with nodecount 5 only main (1) and f6 (1 + 4) fit.  The
 * sizes are drawn as nodelets (expected values checked against go tool
 * pprof -dot). */
static void test_tag_selection(void)
{
	static const struct {
		int nodecount, shown;
	} cases[] = {{5, 2}, {8, 3}, {12, 4}, {20, 5}, {-1, 7}};
	sp_profile *p = sp_profile_new();
	uint64_t lm;
	char name[8];

	sp_profile_add_sample_type(p, "inuse_space", "bytes");
	lm = add_loc(p, 0, 0x1000, (uint64_t[]){sp_profile_function_for(p, "main", "", "m.c", 0)},
		     (int64_t[]){1}, 1);
	for (int k = 1; k <= 6; k++) {
		uint64_t l;

		snprintf(name, sizeof(name), "f%d", k);
		l = add_loc(p, 0, 0x1000 + 0x100 * (uint64_t)k,
			    (uint64_t[]){sp_profile_function_for(p, name, "", "m.c", 0)},
			    (int64_t[]){k + 1}, 1);
		for (int j = 0; j < k; j++) {
			sp_label lab = sp_label_num(p, "bytes", 64 * (j + 1) * k, NULL);

			sp_profile_add_sample(p, (int64_t[]){1000 + 10 * k}, (uint64_t[]){l, lm}, 2,
					      &lab, 1);
		}
	}
	for (size_t i = 0; i < SP_ARRAY_LEN(cases); i++) {
		sp_report_options o;
		char *raw, *t, head[8];
		int shown = 0;

		sp_report_options_init(&o);
		o.nodecount = cases[i].nodecount;
		raw = run(sp_dot_write, p, &o);
		t = normalize_dot(raw ? raw : "");
		for (int n = 1; n <= 7; n++) {
			snprintf(head, sizeof(head), "N%d", n);
			shown += stmt_exists(t, head);
		}
		TAP_OK(shown == cases[i].shown && stmt_has(t, "N1", "label=\"main\\n") &&
			       (cases[i].shown < 2 || stmt_has(t, "N2", "label=\"f6\\n")),
		       "nodecount %d shows %d nodes (got %d)", cases[i].nodecount, cases[i].shown,
		       shown);
		if (cases[i].nodecount == 5) {
			/* f6's six sizes 384..2304 bytes (1060 bytes each) go
			 * into four nodelets: the four first by name
			 * ("1.12kB" < ... < "384B") start groups, 384 and 768
			 * join 1152, the closest; heaviest group first. */
			TAP_OK(stmt_has(t, "NN2_0", "label=\"384B..1.12kB\"") &&
				       stmt_has(t, "NN2_0", "shape=box3d") &&
				       stmt_has(t, "N2 -> NN2_0", "label=\" 3.11kB\"") &&
				       stmt_has(t, "NN2_1", "label=\"1.50kB\"") &&
				       stmt_has(t, "N2 -> NN2_1", "label=\" 1.04kB\"") &&
				       stmt_has(t, "NN2_3", "label=\"2.25kB\"") &&
				       !stmt_exists(t, "NN2_4") && !stmt_exists(t, "NN1_0") &&
				       stmt_lacks(t, "N1 -> N2", "minlen"),
			       "allocation sizes drawn as four nodelets");
		}
		free(raw);
		free(t);
	}
	sp_profile_free(p);
}

/* Graphs from several threads at once give the same bytes as one at a
 * time (graphviz is used under one lock). */
typedef struct {
	const sp_profile *p;
	char *dot;
	size_t svg_len;
} thread_job;

static void *render_job(void *arg)
{
	thread_job *j = arg;
	sp_report_options o;
	sp_sink *s = sp_sink_memory_new();
	sp_error *err;

	opts(&o);
	for (int i = 0; i < 3; i++) {
		free(j->dot);
		j->dot = run(sp_dot_write, j->p, &o);
	}
	err = sp_graph_render(j->p, &o, "svg", s);
	if (!err)
		sp_sink_memory_data(s, &j->svg_len);
	sp_error_free(err);
	sp_sink_free(s);
	return NULL;
}

static void test_threads(const sp_profile *p)
{
	thread_job jobs[4] = {{p, NULL, 0}, {p, NULL, 0}, {p, NULL, 0}, {p, NULL, 0}};
	pthread_t th[4];
	sp_report_options o;
	char *want;
	bool same = true;

	opts(&o);
	want = run(sp_dot_write, p, &o);
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, render_job, &jobs[i]);
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		same = same && jobs[i].dot && want && !strcmp(jobs[i].dot, want) &&
		       jobs[i].svg_len > 100;
		free(jobs[i].dot);
	}
	TAP_OK(same, "graphs written from four threads at once");
	free(want);
}

int main(void)
{
	sp_profile *p = make_profile();

	test_top(p);
	test_dot(p);
	test_render(p);
	test_threads(p);
	test_flamegraph(p);
	test_flame_colors();
	test_memory_units();
	test_redundant_residual();
	test_empty();
	test_recursion();
	test_label_names();
	test_default_nodecount();
	test_files_start_lines();
	test_time_duration();
	test_bad_names();
	test_tag_selection();
	test_clean_paths();
	sp_profile_free(p);
	return tap_done();
}
