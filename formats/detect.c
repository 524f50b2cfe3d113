/* detect.c — placeholder until implemented. */
#include "formats/formats.h"

const char *sp_input_format_name(sp_input_format f)
{
	return "unknown";
}

sp_error *sp_read_profile(const char *name, const uint8_t *data, size_t len, sp_profile **out, sp_input_format *fmt)
{
	return sp_error_new(SP_E_UNSUPPORTED, "detect.c: not implemented");
}

sp_error *sp_read_profile_file(const char *path, sp_profile **out, sp_input_format *fmt)
{
	return sp_error_new(SP_E_UNSUPPORTED, "detect.c: not implemented");
}
