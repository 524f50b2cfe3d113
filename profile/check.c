/* check.c — placeholder until implemented. */
#include "profile/profile.h"

sp_error *sp_profile_check(const sp_profile *p, const char *name)
{
	return NULL;
}
