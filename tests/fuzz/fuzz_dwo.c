/* fuzz_dwo.c — libFuzzer harness for a split-DWARF .dwo read in place
 * (symbolize/dwarf/module.c: sp_debug_elf_prepare, which split.c's
 * check_dwo runs on every .dwo a binary names).  The input is the file.
 * It is opened as the session opens one (ELF_C_READ_MMAP on a descriptor),
 * under a memory limit of 64 MiB; its compressed debug sections are
 * inflated in memory or hidden, then libdw reads its units as check_dwo
 * does.  The preparation must succeed or give an error whose message
 * formats and names the file; after it, no section libdw is handed is
 * still marked compressed, the sections it inflated hold together at most
 * the limit, and every byte of every section libdw can read is readable
 * (ASan says otherwise).  Seeds (tests/fuzz/seeds/dwo/, from
 * tests/fuzz/dwo_seeds.sh): a .dwo of a small C file from GCC and from
 * Clang, plain and with its sections compressed by objcopy with zlib and
 * with zstd.
 * fuzz-runs: 20000 (executions of each scripts/fuzz CI pass: a few seconds) */
#include "symbolize/dwarf/dwarfp.h"
#include "tests/fuzz/check.h"
#include "tests/fuzz/memfd.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define LIMIT ((size_t)64 << 20)

/* Every byte of every section with contents, summed (so that reading them
 * is not optimised away); fails when a debug section is still marked
 * compressed. */
static unsigned touch_sections(Elf *elf)
{
	unsigned sum = 0;
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		if (name && !strncmp(name, ".debug_", 7) && (sh.sh_flags & SHF_COMPRESSED))
			SP_FUZZ_FAIL("section %zu is still compressed when libdw reads it",
				     elf_ndxscn(scn));
		const unsigned char *b = d->d_buf;
		for (size_t i = 0; i < d->d_size; i++)
			sum += b[i];
	}
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	elf_version(EV_CURRENT);
	sp_mem_set_limit(LIMIT);
	char path[64];
	int fd = sp_fuzz_memfd(data, size, path);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		close(fd);
		return 0;
	}
	void **keep = NULL;
	size_t n_keep = 0;
	sp_error *e = sp_debug_elf_prepare(elf, path, &keep, &n_keep);
	if (e) {
		char *m = sp_error_string(e);
		if (!m || !strstr(m, path))
			SP_FUZZ_FAIL("an error that does not name the file: %s", m ? m : "(none)");
		free(m);
		sp_error_free(e);
	} else {
		volatile unsigned sum = touch_sections(elf);
		(void)sum;
		size_t held = 0;
		Elf_Scn *scn = NULL;
		while ((scn = elf_nextscn(elf, scn)) != NULL) {
			GElf_Shdr sh;
			Elf_Data *d;
			for (size_t i = 0; i < n_keep; i++)
				if (gelf_getshdr(scn, &sh) && (d = elf_getdata(scn, NULL)) &&
				    d->d_buf == keep[i])
					held += d->d_size;
		}
		if (held > LIMIT)
			SP_FUZZ_FAIL("%zu bytes inflated, more than the limit of %zu", held, LIMIT);
		Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
		if (dw) {
			/* the units, as check_dwo looks for the split one */
			Dwarf_Off off = 0, next;
			size_t hsize;
			for (int i = 0; i < 64 && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL,
								 NULL) == 0;
			     i++) {
				Dwarf_Die die;
				if (dwarf_offdie(dw, off + hsize, &die)) {
					/* its name ends inside what libdw read (ASan) */
					const char *name = dwarf_diename(&die);
					volatile size_t len = name ? strlen(name) : 0;
					(void)len;
				}
				off = next;
			}
			dwarf_end(dw);
		}
	}
	elf_end(elf);
	for (size_t i = 0; i < n_keep; i++)
		free(keep[i]);
	free(keep);
	close(fd);
	return 0;
}
