/* file_util.h — writing a test's fixture files, and reading their functions. */
#ifndef SYMPROF_TESTS_FILE_UTIL_H
#define SYMPROF_TESTS_FILE_UTIL_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Writes DATA[0..LEN) to PATH, replacing it; false on any failure. */
static inline bool sp_test_write_file(const char *path, const uint8_t *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return false;
	bool ok = fwrite(data, 1, len, f) == len;
	return fclose(f) == 0 && ok;
}

/* Calls FN for every defined function symbol at a non-zero address of the
 * symbol table SCN (header SH). */
static inline void sp_test_func_syms(Elf_Scn *scn, const GElf_Shdr *sh,
				     void (*fn)(void *ctx, const GElf_Sym *sym), void *ctx)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	for (size_t k = 0; d && sh->sh_entsize && k < sh->sh_size / sh->sh_entsize; k++) {
		GElf_Sym s;
		if (gelf_getsym(d, (int)k, &s) && GELF_ST_TYPE(s.st_info) == STT_FUNC &&
		    s.st_shndx != SHN_UNDEF && s.st_value != 0)
			fn(ctx, &s);
	}
}

#endif
