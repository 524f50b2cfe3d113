/* jit.c — placeholder until implemented. */
#include "symbolize/symbolize.h"

sp_error *sp_jit_index_load(const char *const *dirs, size_t n_dirs, sp_jit_index **out)
{
	*out = NULL;
	return n_dirs ? sp_error_new(SP_E_UNSUPPORTED, "jit.c: not implemented") : NULL;
}

void sp_jit_index_free(sp_jit_index *idx)
{
}

const char *sp_jit_index_lookup(const sp_jit_index *idx, uint64_t addr)
{
	return NULL;
}
