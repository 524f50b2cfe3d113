/* flamegraph.c — placeholder until implemented. */
#include "formats/formats.h"

sp_error *sp_flamegraph_write(const sp_profile *p, const sp_report_options *o, sp_sink *out)
{
	return sp_error_new(SP_E_UNSUPPORTED, "flamegraph.c: not implemented");
}
