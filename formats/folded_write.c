/* folded_write.c — placeholder until implemented. */
#include "formats/formats.h"

sp_error *sp_folded_write(const sp_profile *p, const sp_folded_options *opts, sp_sink *out)
{
	return sp_error_new(SP_E_UNSUPPORTED, "folded_write.c: not implemented");
}
