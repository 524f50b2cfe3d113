/* apply.c — placeholder until implemented. */
#include "symbolize/symbolize.h"

const char *sp_unresolved_reason_str(sp_unresolved_reason r)
{
	return "?";
}

void sp_symbolize_report_clear(sp_symbolize_report *r)
{
}

sp_error *sp_symbolize_profile(sp_symbolizer *s, sp_profile *p, sp_symbolize_report *report)
{
	return sp_error_new(SP_E_UNSUPPORTED, "apply.c: not implemented");
}
