/* gvc.c — renders the call graph of dot.c to PDF, SVG or PNG in process with
 * graphviz's gvc (dot layout, then gvRenderData into memory).
 *
 * With dot.c, the only file that includes graphviz; graphviz's plugins
 * (cairo for PDF/PNG) come from its installed configuration.  Example:
 * sp_graph_render(p, &opts, "svg", sink) writes "<?xml ... <svg ...".
 *
 * The one process-wide object of the formats layer lives here: graphviz's
 * text-layout plugin (pango, up to at least 2.42) keeps a pointer to the
 * last font name in a static variable, and that string belongs to the gvc
 * context, so freeing a context and creating another reads freed memory.
 * One context is therefore created on first use and kept for the life of
 * the process.  graphviz is not thread-safe (cgraph and gvc keep static
 * caches), so one mutex, taken by sp_graphviz_lock, serializes every use of
 * graphviz in the process: building, writing and rendering graphs.
 */
#include "formats/report.h"

#include <graphviz/gvc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SANITIZE_ADDRESS__
/* Text layout leaves fontconfig's and pango's font caches allocated until
 * exit; they are theirs, not ours, so LeakSanitizer is told to skip them in
 * every program that can render a graph.  So are the virtual edges that
 * dot's layout makes for the reversed edges of a cycle and never frees
 * (the same leak as tests/valgrind.supp's graphviz-dot-layout-virtual-edge). */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libfontconfig.so\n"
	       "leak:libpango-1.0.so\n"
	       "leak:libpangoft2-1.0.so\n"
	       "leak:libpangocairo-1.0.so\n"
	       "leak:libgvplugin_pango.so\n"
	       "leak:new_virtual_edge\n";
}
#endif

static pthread_mutex_t gvc_lock = PTHREAD_MUTEX_INITIALIZER;
static GVC_t *gvc_shared; /* guarded by gvc_lock; never freed */

void sp_graphviz_lock(void)
{
	pthread_mutex_lock(&gvc_lock);
}

void sp_graphviz_unlock(void)
{
	pthread_mutex_unlock(&gvc_lock);
}

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
	sp_graphviz_lock();
	if ((err = sp_dot_graph_new(p, o, &g))) {
		sp_graphviz_unlock();
		return err;
	}
	if (!gvc_shared)
		gvc_shared = gvContext();
	gvc = gvc_shared;
	if (!gvc) {
		agclose(g);
		sp_graphviz_unlock();
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
	sp_graphviz_unlock();
	return err;
}
