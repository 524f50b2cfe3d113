/* dump.c — placeholder until implemented. */
#include "profile/profile.h"

void sp_profile_dump(const sp_profile *p, sp_sink *out)
{
}
