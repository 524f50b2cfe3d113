/* loadbase.c — placeholder until implemented. */
#include "symbolize/symbolize.h"

sp_error *sp_load_base(int elf_type, const sp_phdr *seg, const uint64_t *stext, uint64_t start, uint64_t limit, uint64_t offset, uint64_t *base)
{
	return sp_error_new(SP_E_UNSUPPORTED, "loadbase.c: not implemented");
}

size_t sp_program_headers_for_mapping(const sp_phdr *phdrs, size_t n, uint64_t map_offset, uint64_t map_size, size_t *out)
{
	return 0;
}

sp_error *sp_header_for_file_offset(const sp_phdr *phdrs, const size_t *cand, size_t n_cand, uint64_t file_offset, size_t *out)
{
	return sp_error_new(SP_E_UNSUPPORTED, "loadbase.c: not implemented");
}

ssize_t sp_find_text_program_header(const sp_elf_info *info)
{
	return -1;
}

sp_error *sp_mapping_base(const sp_elf_info *info, uint64_t start, uint64_t limit, uint64_t offset, uint64_t first_addr, uint64_t *base)
{
	return sp_error_new(SP_E_UNSUPPORTED, "loadbase.c: not implemented");
}
