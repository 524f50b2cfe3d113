/* report.c — placeholder until implemented. */
#include "formats/formats.h"

void sp_report_options_init(sp_report_options *o)
{
	*o = (sp_report_options){.nodefraction = -1, .edgefraction = -1};
}

sp_error *sp_top_write(const sp_profile *p, const sp_report_options *o, sp_sink *out)
{
	return sp_error_new(SP_E_UNSUPPORTED, "report.c: not implemented");
}
