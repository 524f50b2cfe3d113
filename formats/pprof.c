/* pprof.c — placeholder until implemented. */
#include "formats/formats.h"

sp_error *sp_pprof_read(const char *name, const uint8_t *data, size_t len, sp_profile **out)
{
	return sp_error_new(SP_E_UNSUPPORTED, "pprof.c: not implemented");
}

sp_error *sp_pprof_write(const sp_profile *p, bool gzip, sp_sink *out)
{
	return sp_error_new(SP_E_UNSUPPORTED, "pprof.c: not implemented");
}
