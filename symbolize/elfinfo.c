/* elfinfo.c — placeholder until implemented. */
#include "symbolize/symbolize.h"

sp_error *sp_elf_info_read(const char *path, sp_elf_info *out)
{
	return sp_error_new(SP_E_UNSUPPORTED, "elfinfo.c: not implemented");
}

void sp_elf_info_clear(sp_elf_info *info)
{
}

sp_error *sp_file_crc32(const char *path, uint32_t *crc)
{
	return sp_error_new(SP_E_UNSUPPORTED, "elfinfo.c: not implemented");
}
