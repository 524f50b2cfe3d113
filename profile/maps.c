/* maps.c — placeholder until implemented. */
#include "profile/profile.h"

bool sp_maps_parse_line(const char *line, size_t len, sp_maps_entry *e)
{
	return false;
}

void sp_maps_entry_clear(sp_maps_entry *e)
{
}

sp_error *sp_profile_parse_maps(sp_profile *p, const char *text, size_t len)
{
	return sp_error_new(SP_E_UNSUPPORTED, "maps.c: not implemented");
}

void sp_profile_massage_mappings(sp_profile *p)
{
}

void sp_profile_attach_locations(sp_profile *p)
{
}

bool sp_mapping_unsymbolizable(const sp_profile *p, const sp_mapping *m)
{
	return false;
}
