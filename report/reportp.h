/* reportp.h — private to the report writers (top, DOT, graphviz renders,
 * flame graph): the call graph built from a profile with pprof's rules
 * (report.c, graph.c), the value formatting with units
 * (values.c), and the frame naming shared with the flame graph
 * (names.c).  Nothing here includes graphviz.
 */
#ifndef SYMPROF_REPORT_REPORTP_H
#define SYMPROF_REPORT_REPORTP_H

#include "report/report.h"

/* -- arithmetic -----------------------------------------------------------------
 * Report arithmetic never wraps.  sp_report_new refuses a profile whose
 * chosen values do not total within 64 bits (the sum of |value| over all
 * samples above 2^63-1, or a value of -2^63) with SP_E_LIMIT, naming the
 * sample type and the sample where the total overflows.  Every node,
 * edge, flat and legend sum adds each sample at most once, so it is
 * bounded by that total and fits.  The sums that can add one sample more
 * than once (a node's tags, the in/out totals of the entropy score, DOT
 * nodelet groups) saturate at +-(2^63-1) with sp_sat_add, and doubles
 * come back to int64 through sp_i64_from_double, which saturates too. */

/* |V|; -2^63 gives 2^63-1. */
static inline int64_t sp_abs64(int64_t v)
{
	return v >= 0 ? v : v == INT64_MIN ? INT64_MAX : -v;
}

/* A + B, saturated to [-(2^63-1), 2^63-1]. */
static inline int64_t sp_sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r) || r == INT64_MIN)
		return a < 0 ? -INT64_MAX : INT64_MAX;
	return r;
}

/* D truncated to an integer, saturated to [-(2^63-1), 2^63-1]; NaN gives 0. */
static inline int64_t sp_i64_from_double(double d)
{
	if (d != d)
		return 0;
	if (d >= 9223372036854775807.0) /* 2^63 as a double */
		return INT64_MAX;
	if (d <= -9223372036854775807.0)
		return -INT64_MAX;
	return (int64_t)d;
}

/* A * M / D for 0 <= A, 0 <= M, 0 < D, without overflow in between; the
 * result must fit (callers have A <= D). */
static inline int64_t sp_mul_div(int64_t a, int64_t m, int64_t d)
{
	return (int64_t)((unsigned __int128)a * (unsigned __int128)m / (unsigned __int128)d);
}

/* A node's tag (graphs only): the string labels of some of its samples,
 * or one value of their numeric "bytes" label. */
typedef struct {
	char kind;   /* 'L' string labels, 'N' a bytes value */
	char *group; /* the string labels ("a:1\\nb:2") the value belongs with; "" */
	char *name;  /* shown name: the labels, or the value with its unit */
	int64_t value; /* 'N': the bytes value */
	int64_t flat, cum;
} sp_rtag;

typedef struct {
	char *name;  /* printable name: components joined by ' ' */
	char *label; /* for graphs: pprof's shortened name, one qualifier per
		      * line ("ns::Cls::f" => "Cls\nf"), then the file base
		      * name and line; lines joined by '\n' */
	int64_t flat, cum;
	bool in_inline, in_call; /* has incoming inline / ordinary edges */
	bool has_out;            /* has outgoing edges */
	sp_rtag *tags;           /* graphs: tags above the node cutoff */
	size_t n_tags;
} sp_rnode;

typedef struct {
	size_t src, dst; /* indices into sp_report.nodes */
	int64_t weight;
	bool residual;   /* goes through one or more dropped nodes */
	bool is_inline;  /* every call it stands for is an inlined call */
} sp_redge;

typedef enum {
	SP_REPORT_TEXT,  /* nodes ordered by flat (pprof's top) */
	SP_REPORT_GRAPH, /* nodes ordered by pprof's entropy score (cum weighted by
			  * how much the node's edges branch); redundant residual
			  * edges removed */
} sp_report_mode;

typedef struct {
	const sp_profile *p;  /* borrowed */
	size_t sample_index;
	const char *sample_type; /* borrowed from p */
	const char *sample_unit; /* borrowed from p */
	char *output_unit;       /* "" = as recorded; "minimum" = each value scaled */
	int64_t total;           /* sum of |value| over all samples, before focus/ignore;
				  * at most 2^63-1 (see "arithmetic" above) */
	double nodefraction, edgefraction;
	bool flat_symbol; /* flat to the symbol (SP_FLAT_SYMBOL), said in the legend */
	int nodecount;
	char **headers;          /* "File: ...", "Type: ...", "Active filters:", ... */
	size_t n_headers;

	sp_rnode *nodes; /* kept nodes, in report order (ids N1.. follow it) */
	size_t n_nodes;
	sp_redge *edges; /* sorted by src, then weight desc, then dst */
	size_t n_edges;
	size_t orig_count;    /* nodes before the nodecount limit */
	size_t dropped_nodes; /* below the node fraction */
	size_t dropped_edges; /* below the edge fraction */
} sp_report;

/* Builds the trimmed graph of P (checked first) for O (NULL => defaults).
 * Errors: a bad sample index or regular expression (SP_E_USAGE); values
 * that do not total within 64 bits (SP_E_LIMIT).  *OUT is freed with
 * sp_report_free. */
sp_error *sp_report_new(const sp_profile *p, const sp_report_options *o, sp_report_mode mode,
			sp_report **out);
void sp_report_free(sp_report *r);

/* graph.c: fills R's nodes, edges, orig_count and dropped counts
 * from R->p, sample_index, nodefraction, edgefraction and nodecount, with
 * O's focus, ignore, granularity and unit (for tags).  Errors: a bad
 * focus or ignore expression (SP_E_USAGE). */
sp_error *sp_report_build_graph(sp_report *r, const sp_report_options *o, sp_report_mode mode);

/* VALUE in unit FROM expressed in unit TO ("minimum" or "auto": the
 * largest unit giving a value of at least 1); *UNIT gets the canonical
 * unit name ("" for counts). */
double sp_report_scale(int64_t value, const char *from, const char *to, const char **unit);
/* V formatted in the report's output unit, e.g. "1.50MB", "30ms", "12".
 * Caller frees. */
char *sp_report_value(const sp_report *r, int64_t v);
/* V in unit FROM shown in unit TO ("auto": the largest unit giving a value
 * of at least 1), e.g. (1536, "bytes", "auto") => "1.50kB".  Caller frees. */
char *sp_report_scaled_label(int64_t v, const char *from, const char *to);
/* pprof's percentage of V in TOTAL: "%5.2f%%", "  100%" or "%5.2g%%".
 * Writes into BUF (at least 16 bytes) and returns it. */
const char *sp_report_pct(int64_t v, int64_t total, char *buf);
/* The legend lines: headers, "Showing nodes accounting for ...", dropped
 * nodes and edges, "Showing top N nodes out of M".  Caller frees each line
 * and the array. */
char **sp_report_legend(const sp_report *r, size_t *n);

/* -- graphviz (graphviz.c) ------------------------------------------------- */

/* A graphviz graph under our own names; the only file that includes
 * graphviz is graphviz.c.  Strings are copied by graphviz. */
typedef struct sp_gv_graph sp_gv_graph;
typedef struct sp_gv_node sp_gv_node;
typedef struct sp_gv_edge sp_gv_edge;

/* A new directed graph named TITLE.  Every use of graphviz in the process
 * is serialized: the graph holds the process's graphviz lock until
 * sp_gv_free, so build, write or render it and free it promptly, in the
 * same thread.  Errors: SP_E_GRAPHVIZ. */
sp_error *sp_gv_new(const char *title, sp_gv_graph **out);
void sp_gv_free(sp_gv_graph *g);
/* The default of node attribute NAME (declared in the DOT text). */
void sp_gv_node_default(sp_gv_graph *g, const char *name, const char *value);
/* The node named ID, created when missing (borrowed until sp_gv_free). */
sp_gv_node *sp_gv_node_new(sp_gv_graph *g, const char *id);
/* The node named ID, or NULL. */
sp_gv_node *sp_gv_node_find(sp_gv_graph *g, const char *id);
/* A new edge SRC -> DST (borrowed until sp_gv_free). */
sp_gv_edge *sp_gv_edge_new(sp_gv_graph *g, sp_gv_node *src, sp_gv_node *dst);
/* Sets attribute NAME of OBJ (an sp_gv_node or sp_gv_edge) to VALUE. */
void sp_gv_set(void *obj, const char *name, const char *value);
/* Writes G as DOT text. */
sp_error *sp_gv_write_dot(sp_gv_graph *g, sp_sink *out);
/* Lays G out with dot and renders it as FORMAT ("pdf", "svg", "png").
 * Errors: SP_E_GRAPHVIZ (layout, or a missing plugin). */
sp_error *sp_gv_render(sp_gv_graph *g, const char *format, sp_sink *out);

/* -- naming (names.c) ------------------------------------------------ */

/* The names of the frames of P's locations at one granularity. */
typedef struct sp_frame_namer sp_frame_namer;
/* P is borrowed until sp_frame_namer_free. */
sp_frame_namer *sp_frame_namer_new(const sp_profile *p, sp_granularity g);
void sp_frame_namer_free(sp_frame_namer *nm);
/* Name components of inline frame LI of L (any LI when L has no lines):
 * *FIRST (function, file or address) and *SECOND (file:line for lines,
 * else NULL), the graph label (*LABEL: multi-line shortened name, file base
 * names), and *TIE: what else tells two nodes of one name apart (files
 * granularity only, else NULL).  Caller frees each. */
void sp_frame_namer_name(const sp_frame_namer *nm, const sp_location *l, size_t li,
			 char **first, char **second, char **label, char **tie);

/* The part of PATH after its last '/'.  Borrowed from PATH. */
const char *sp_report_base_name(const char *path);

/* Replaces, in place, bytes that are not valid UTF-8 and control
 * characters with '?' (names come from binaries and JIT maps; SVG and
 * graphviz need UTF-8).  Returns S. */
char *sp_report_clean_name(char *s);

/* -- the text views of an annotation (list.c, disasm_view.c) ----------------- */

/* V in UNIT ("." for 0; caller frees). */
char *sp_ann_value(const sp_annotation *a, const char *unit, int64_t v);
/* "Total: V\n". */
void sp_ann_write_total(const sp_annotation *a, const char *unit, sp_sink *out);
/* "%10s %10s " of FLAT and CUM. */
void sp_ann_write_values(const sp_annotation *a, const char *unit, int64_t flat, int64_t cum,
			 sp_sink *out);

#endif
