/* perfmap.c — placeholder until implemented. */
#include "symbolize/symbolize.h"

sp_error *sp_perf_map_load(const char *const *files, size_t n_files, sp_perf_map **out)
{
	*out = NULL;
	return n_files ? sp_error_new(SP_E_UNSUPPORTED, "perfmap.c: not implemented") : NULL;
}

void sp_perf_map_free(sp_perf_map *m)
{
}

const char *sp_perf_map_lookup(const sp_perf_map *m, uint64_t addr)
{
	return NULL;
}
