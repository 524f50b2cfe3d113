/* find.c — placeholder until implemented. */
#include "symbolize/symbolize.h"

const char *sp_try_status_str(sp_try_status s)
{
	return "?";
}

void sp_find_log_add(sp_find_log *log, const char *path, sp_try_status status)
{
}

void sp_find_log_clear(sp_find_log *log)
{
}

sp_error *sp_find_binary(const sp_symbolize_options *o, const char *recorded, const char *build_id, char **found, sp_find_log *log)
{
	return sp_error_new(SP_E_UNSUPPORTED, "find.c: not implemented");
}

sp_error *sp_find_debuginfo(const sp_symbolize_options *o, const char *binary, const sp_elf_info *info, char **found, sp_find_log *log)
{
	return sp_error_new(SP_E_UNSUPPORTED, "find.c: not implemented");
}
