/* merge.c — placeholder until implemented. */
#include "profile/profile.h"

sp_error *sp_profile_merge(sp_profile *const *profiles, size_t n, sp_profile **out)
{
	return sp_error_new(SP_E_UNSUPPORTED, "merge.c: not implemented");
}
