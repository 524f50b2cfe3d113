/* session.c — placeholder until implemented. */
#include "symbolize/symbolize.h"

sp_symbolizer *sp_symbolizer_new(const sp_symbolize_options *opts)
{
	return NULL;
}

void sp_symbolizer_free(sp_symbolizer *s)
{
}

const sp_symbolize_options *sp_symbolizer_options(const sp_symbolizer *s)
{
	return NULL;
}

sp_error *sp_symbolizer_object(sp_symbolizer *s, const char *path, const char *expected_build_id, sp_object **out)
{
	return sp_error_new(SP_E_UNSUPPORTED, "session.c: not implemented");
}

const sp_elf_info *sp_object_info(const sp_object *o)
{
	return NULL;
}

sp_error *sp_object_resolve(sp_object *o, uint64_t vaddr, const sp_frame **frames, size_t *n)
{
	return sp_error_new(SP_E_UNSUPPORTED, "session.c: not implemented");
}
