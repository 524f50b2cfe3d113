/* kallsyms.c — placeholder until implemented. */
#include "symbolize/symbolize.h"

sp_error *sp_kallsyms_load(const char *path, sp_kallsyms **out)
{
	*out = NULL;
	return path ? sp_error_new(SP_E_UNSUPPORTED, "kallsyms.c: not implemented") : NULL;
}

void sp_kallsyms_free(sp_kallsyms *k)
{
}

const char *sp_kallsyms_lookup(const sp_kallsyms *k, uint64_t addr)
{
	return NULL;
}
