/* folded_read.c — placeholder until implemented. */
#include "formats/formats.h"

sp_error *sp_folded_read(const char *name, const uint8_t *data, size_t len, sp_profile **out)
{
	return sp_error_new(SP_E_UNSUPPORTED, "folded_read.c: not implemented");
}
