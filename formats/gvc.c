/* gvc.c — placeholder until implemented. */
#include "formats/formats.h"

sp_error *sp_graph_render(const sp_profile *p, const sp_report_options *o, const char *format, sp_sink *out)
{
	return sp_error_new(SP_E_UNSUPPORTED, "gvc.c: not implemented");
}
