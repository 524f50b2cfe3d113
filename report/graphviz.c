/* graphviz.c — the one file that talks to graphviz: cgraph to build a
 * graph, gvc to lay it out and render it, cgraph to write it as DOT.
 * Everything else sees sp_gv_* (report.h), with const strings and sp_error
 * results; graphviz's non-const char * parameters and its error channel
 * (return codes, no cause) stay here.  Example:
 *
 *   sp_gv_graph *g = sp_gv_new("prog");
 *   sp_gv_node *a = sp_gv_node_new(g, "N1"), *b = sp_gv_node_new(g, "N2");
 *   sp_gv_set(sp_gv_edge_new(g, a, b), "label", " 60ms");
 *   sp_gv_render(g, "svg", sink);   // "<?xml ... <svg ..."
 *   sp_gv_free(g);
 *
 * graphviz's plugins (cairo for PDF/PNG) come from its installed
 * configuration.  The one process-wide object of the formats layer lives
 * here: graphviz's text-layout plugin (pango, up to at least 2.42) keeps a
 * pointer to the last font name in a static variable, and that string
 * belongs to the gvc context, so freeing a context and creating another
 * reads freed memory.  One context is therefore created on first use and
 * kept for the life of the process.  graphviz is not thread-safe (cgraph
 * and gvc keep static caches), so one mutex serializes every use of
 * graphviz in the process: it is held from sp_gv_new to sp_gv_free, so
 * building, writing and rendering a graph happen under it.
 */
#include "report/reportp.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SANITIZE_ADDRESS__
/* Text layout leaves fontconfig's and pango's font caches allocated until
 * exit; they are theirs, not ours, so LeakSanitizer is told to skip them in
 * every program that can render a graph.  So are the virtual edges that
 * dot's layout makes for the reversed edges of a cycle and never frees
 * (the same leak as tests/helpers/valgrind.supp's graphviz-dot-layout-virtual-edge). */
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

/* The handles we give out are graphviz's own objects under our names. */
#define AG_G(g) ((Agraph_t *)(void *)(g))
#define AG_N(n) ((Agnode_t *)(void *)(n))

sp_error *sp_gv_new(const char *title, sp_gv_graph **out)
{
	Agraph_t *g;

	pthread_mutex_lock(&gvc_lock);
	g = agopen((char *)title, Agdirected, NULL);
	if (!g) {
		pthread_mutex_unlock(&gvc_lock);
		return sp_error_new(SP_E_GRAPHVIZ, "DOT: cannot create graph \"%s\"", title);
	}
	*out = (sp_gv_graph *)(void *)g;
	return NULL;
}

void sp_gv_free(sp_gv_graph *g)
{
	if (!g)
		return;
	agclose(AG_G(g));
	pthread_mutex_unlock(&gvc_lock);
}

void sp_gv_node_default(sp_gv_graph *g, const char *name, const char *value)
{
	agattr(AG_G(g), AGNODE, (char *)name, (char *)value);
}

sp_gv_node *sp_gv_node_new(sp_gv_graph *g, const char *id)
{
	return (sp_gv_node *)(void *)agnode(AG_G(g), (char *)id, 1);
}

sp_gv_node *sp_gv_node_find(sp_gv_graph *g, const char *id)
{
	return (sp_gv_node *)(void *)agnode(AG_G(g), (char *)id, 0);
}

sp_gv_edge *sp_gv_edge_new(sp_gv_graph *g, sp_gv_node *src, sp_gv_node *dst)
{
	return (sp_gv_edge *)(void *)agedge(AG_G(g), AG_N(src), AG_N(dst), NULL, 1);
}

void sp_gv_set(void *obj, const char *name, const char *value)
{
	/* cgraph takes char * everywhere; it does not modify these. */
	agsafeset(obj, (char *)name, (char *)value, (char *)"");
}

sp_error *sp_gv_write_dot(sp_gv_graph *g, sp_sink *out)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int rc;

	if (!f)
		return sp_error_new(SP_E_IO, "DOT: cannot open a memory stream");
	rc = agwrite(AG_G(g), f);
	fclose(f);
	if (rc != 0) {
		free(text);
		return sp_error_new(SP_E_GRAPHVIZ, "DOT: agwrite failed");
	}
	sp_sink_write(out, text, len);
	free(text);
	return NULL;
}

sp_error *sp_gv_render(sp_gv_graph *g, const char *format, sp_sink *out)
{
	sp_error *err = NULL;
	char *data = NULL;
	unsigned int len = 0;

	if (!gvc_shared)
		gvc_shared = gvContext();
	if (!gvc_shared)
		return sp_error_new(SP_E_GRAPHVIZ, "graph: cannot create a graphviz context");
	if (gvLayout(gvc_shared, AG_G(g), "dot") != 0)
		return sp_error_new(SP_E_GRAPHVIZ, "graph: dot layout failed");
	if (gvRenderData(gvc_shared, AG_G(g), format, &data, &len) != 0 || !data) {
		err = sp_error_new(SP_E_GRAPHVIZ,
				   "graph: rendering %s failed (is the graphviz plugin for it "
				   "installed?)",
				   format);
	} else {
		sp_sink_write(out, data, len);
	}
	if (data)
		gvFreeRenderData(data);
	gvFreeLayout(gvc_shared, AG_G(g));
	return err;
}
