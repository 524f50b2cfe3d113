/* report.h — what people read, drawn from a profile: the top table, call graphs
 * (DOT, and PDF/SVG/PNG rendered through graphviz) and the interactive flame
 * graph, with pprof's report options (granularity, focus/ignore/tag filters,
 * node and edge pruning, units).  Writers write to an sp_sink and never open
 * files; they read the profile and never change it.  The engine they share
 * (the call graph with pprof's rules, values with units, frame names) is
 * private to report/ (reportp.h).
 */
#ifndef SYMPROF_REPORT_H
#define SYMPROF_REPORT_H

#include "profile/profile.h"
#include "report/annotation.h"

typedef enum {
	SP_GRAN_FUNCTIONS = 0,
	SP_GRAN_LINES,
	SP_GRAN_FILES,
} sp_granularity;

/* Flame graph palettes, as flamegraph.pl's --colors names them. */
typedef enum {
	SP_FLAME_JAVA = 0, /* by kind: inline aqua, JIT green, kernel orange,
			      unresolved grey, other frames warm */
	SP_FLAME_HOT,      /* every frame warm (red to yellow) */
	SP_FLAME_MEM,      /* every frame green to blue */
	SP_FLAME_IO,       /* every frame blue */
} sp_flame_colors;

/* How --minwidth is meant. */
typedef enum {
	SP_MINWIDTH_DEFAULT = 0, /* frames under 0.1% of the total are left out */
	SP_MINWIDTH_PX,          /* frames narrower than minwidth pixels */
	SP_MINWIDTH_PERCENT,     /* frames under minwidth percent of the total */
} sp_minwidth_kind;

/* The flame graph's options, named after flamegraph.pl's; zero means the
 * default of each. */
typedef struct {
	const char *subtitle;     /* NULL => none */
	int width;                /* image width in px; 0 => 1200 */
	int frame_height;         /* frame height in px; 0 => 16 */
	double minwidth;          /* see minwidth_kind */
	sp_minwidth_kind minwidth_kind;
	sp_flame_colors colors;
	bool reverse;             /* stacks leaf first: frames merged by leaf */
	bool inverted;            /* icicle graph: the root at the top */
	const char *countname;    /* word after values; NULL => from the unit */
	const char *search_color; /* CSS colour; NULL => rgb(230,0,230) */
} sp_flame_options;

/* Where a sample's flat (self) value goes in the graph and top reports. */
typedef enum {
	SP_FLAT_DEFAULT = 0, /* the run decides: SYMBOL for perf.data, else FRAME */
	SP_FLAT_FRAME,       /* the leaf's innermost frame, inlined or not (pprof) */
	SP_FLAT_SYMBOL,      /* the function the symbol table names for the address,
				the outermost frame of the leaf's inline chain
				(perf report's Self) */
} sp_flat_to;

typedef struct {
	size_t sample_index;
	const char *focus;  /* regex or NULL */
	const char *ignore; /* regex or NULL */
	const char *tagfocus;  /* [KEY=]RANGE|REGEX,... or NULL (sp_sample_filter_tags) */
	const char *tagignore; /* likewise */
	sp_granularity granularity;
	sp_flat_to flat_to;   /* DEFAULT here is FRAME */
	int nodecount;        /* 0 => default 80 (top: all, like pprof -top); < 0 => all */
	double nodefraction;  /* < 0 => default 0.005 */
	double edgefraction;  /* < 0 => default 0.001 */
	const char *unit;     /* NULL => as recorded */
	const char *title;    /* NULL => derived */
	sp_flame_options flame; /* the flame graph's own; zero => defaults */
} sp_report_options;

/* Default-initialised report options (nodefraction etc. set to defaults). */
void sp_report_options_init(sp_report_options *o);
/* The sample filter of O's focus, ignore, tagfocus and tagignore over P
 * (sp_sample_filter_new, then sp_sample_filter_tags); errors as theirs. */
sp_error *sp_report_filter_new(const sp_profile *p, const sp_report_options *o,
			       sp_sample_filter **out);

sp_error *sp_top_write(const sp_profile *p, const sp_report_options *o, sp_sink *out);
sp_error *sp_dot_write(const sp_profile *p, const sp_report_options *o, sp_sink *out);
/* Renders the call graph through graphviz: FORMAT is "pdf", "svg" or "png". */
sp_error *sp_graph_render(const sp_profile *p, const sp_report_options *o, const char *format,
			  sp_sink *out);
/* The interactive flame graph; differential (colours by change, before and
 * after in the tooltips, a legend) when P has base samples
 * (sp_profile_has_base). */
sp_error *sp_flamegraph_write(const sp_profile *p, const sp_report_options *o, sp_sink *out);

/* -- annotated source and disassembly, the HTML report ------------------------
 * Views of an annotation (annotate.h, filled by pipeline/annotate.c). */

/* pprof's -list: source lines with flat and cum (list.c).  UNIT as --unit
 * (NULL: as recorded). */
sp_error *sp_list_write(const sp_annotation *a, const char *unit, sp_sink *out);
/* pprof's -disasm: instructions with flat and cum, each with its
 * file:line and inline chain (disasm_view.c). */
sp_error *sp_disasm_write(const sp_annotation *a, const char *unit, sp_sink *out);
/* One self-contained HTML file, no network (html.c, its page script
 * html_page.js and style html_page.css embedded at build time): P's flame
 * graph and icicle, top table, callers and callees of a function, and A's
 * annotated source and disassembly; differential when P keeps its base's
 * samples (sp_profile_has_base).  O gives the value column
 * (sample_index), the filters (graphs' rule: the total before them),
 * --unit and --title. */
sp_error *sp_html_write(const sp_profile *p, const sp_report_options *o, const sp_annotation *a,
			sp_sink *out);

#endif
