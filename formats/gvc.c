/* gvc.c — renders the call graph of dot.c to PDF, SVG or PNG in process with
 * graphviz's gvc (dot layout, then gvRenderData into memory).
 *
 * With dot.c, the only file that includes graphviz; graphviz's plugins
 * (cairo for PDF/PNG) come from its installed configuration.  Example:
 * sp_graph_render(p, &opts, "svg", sink) writes "<?xml ... <svg ...".
 */
#include "formats/report.h"

#include <graphviz/gvc.h>
#include <stdlib.h>
#include <string.h>

sp_error *sp_graph_render(const sp_profile *p, const sp_report_options *o, const char *format,
			  sp_sink *out)
{
	static const char *const formats[] = {"pdf", "svg", "png"};
	Agraph_t *g;
	GVC_t *gvc;
	sp_error *err = NULL;
	char *data = NULL;
	unsigned int len = 0;
	bool known = false;

	for (size_t i = 0; i < SP_ARRAY_LEN(formats); i++)
		known |= format && !strcmp(format, formats[i]);
	if (!known)
		return sp_error_new(SP_E_USAGE,
				    "graph: unknown output format \"%s\" (expected pdf, svg or png)",
				    format ? format : "");
	if ((err = sp_dot_graph_new(p, o, &g)))
		return err;
	gvc = gvContext();
	if (!gvc) {
		agclose(g);
		return sp_error_new(SP_E_GRAPHVIZ, "graph: cannot create a graphviz context");
	}
	if (gvLayout(gvc, g, "dot") != 0) {
		err = sp_error_new(SP_E_GRAPHVIZ, "graph: dot layout failed");
		goto out;
	}
	if (gvRenderData(gvc, g, format, &data, &len) != 0 || !data) {
		err = sp_error_new(SP_E_GRAPHVIZ,
				   "graph: rendering %s failed (is the graphviz plugin for it "
				   "installed?)",
				   format);
	} else {
		sp_sink_write(out, data, len);
	}
	if (data)
		gvFreeRenderData(data);
	gvFreeLayout(gvc, g);
out:
	agclose(g);
	gvFreeContext(gvc);
	return err;
}
