/* prune.c — placeholder until implemented. */
#include "profile/profile.h"

void sp_profile_prune_frames(sp_profile *p)
{
}
