/* top.c — the text "top" report: the legend, then one line per node
 * of the report in flat order, e.g.
 *
 *       flat  flat%   sum%        cum   cum%
 *       60ms 60.00% 60.00%       90ms 90.00%  leaf
 */
#include "report/reportp.h"

#include <stdlib.h>

sp_error *sp_top_write(const sp_profile *p, const sp_report_options *o, sp_sink *out)
{
	sp_report *r;
	sp_error *err;
	char **legend, p1[16], p2[16], p3[16];
	size_t n;
	int64_t flat_sum = 0;

	if ((err = sp_report_new(p, o, SP_REPORT_TEXT, &r)))
		return err;
	/* The text report has no edges to speak of. */
	r->dropped_edges = 0;
	legend = sp_report_legend(r, &n);
	for (size_t i = 0; i < n; i++) {
		sp_sink_printf(out, "%s\n", legend[i]);
		free(legend[i]);
	}
	free(legend);
	sp_sink_printf(out, "%10s %5s%% %5s%% %10s %5s%%\n", "flat", "flat", "sum", "cum", "cum");
	for (size_t i = 0; i < r->n_nodes; i++) {
		const sp_rnode *nd = &r->nodes[i];
		char *fv = sp_report_value(r, nd->flat), *cv = sp_report_value(r, nd->cum);
		const char *inl = "";

		if (nd->in_inline)
			inl = nd->in_call ? " (partial-inline)" : " (inline)";
		flat_sum += nd->flat;
		sp_sink_printf(out, "%10s %s %s %10s %s  %s%s\n", fv,
			       sp_report_pct(nd->flat, r->total, p1),
			       sp_report_pct(flat_sum, r->total, p2), cv,
			       sp_report_pct(nd->cum, r->total, p3), nd->name, inl);
		free(fv);
		free(cv);
	}
	sp_report_free(r);
	return NULL;
}
