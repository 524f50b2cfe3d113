/* html.h — the self-contained HTML report (html.c, its page script
 * html_page.js and style html_page.css, embedded at build time). */
#ifndef SYMPROF_REPORT_HTML_H
#define SYMPROF_REPORT_HTML_H

#include "formats/formats.h"
#include "report/annotate.h"

/* One HTML file, no network: P's flame graph and icicle, top table,
 * callers and callees of a function, and A's annotated source and
 * disassembly; differential when P keeps its base's samples
 * (sp_profile_has_base).  O gives the value column (sample_index), the
 * filters (graphs' rule: the total before them), --unit and --title. */
sp_error *sp_html_write(const sp_profile *p, const sp_report_options *o, const sp_annotation *a,
			sp_sink *out);

#endif
