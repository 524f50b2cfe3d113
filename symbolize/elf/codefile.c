/* codefile.c — the machine code of an object's functions, for disassembly: the
 * function symbols of its symbol tables (the binary's .symtab, else its
 * .dynsym, and those of its separate debug file when the binary is
 * stripped) and the bytes of its executable sections (read through
 * sp_object_fd: compressed modules too).  Only
 * the bytes asked for are read (pread), so a function costs its own size.
 *
 * Symbols are kept sorted by address; a function is the sized STT_FUNC
 * (or STT_GNU_IFUNC) symbol holding an address, the first by name order
 * among aliases (objdump shows one of them too, and which one it picks
 * among aliases is its own rule: tests compare addresses and text without
 * the <name> part).
 */
#include "symbolize/elf/elf.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
	uint64_t value, size;
	char *name;
	bool func;
} csym;

typedef struct {
	uint64_t addr, size, offset;
} csec;

struct sp_code_file {
	char *path;
	int fd;
	uint16_t machine;
	csym *syms; /* sorted by value, then functions first, then name */
	size_t n_syms, cap_syms;
	csec *secs;
	size_t n_secs, cap_secs;
};

static int csym_cmp(const void *a, const void *b)
{
	const csym *x = a, *y = b;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	if (x->func != y->func)
		return x->func ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Adds the named symbols of ELF's symbol table of type TYPE; returns how
 * many function symbols it had. */
static size_t add_symbols(sp_code_file *cf, Elf *elf, Elf64_Word type)
{
	size_t n_func = 0;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		size_t n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < n; i++) {
			GElf_Sym s;
			if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF ||
			    s.st_shndx == SHN_ABS)
				continue;
			int t = GELF_ST_TYPE(s.st_info);
			bool func = t == STT_FUNC || t == STT_GNU_IFUNC;
			if (!func && t != STT_OBJECT && t != STT_NOTYPE)
				continue;
			const char *name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!name || !*name || (t == STT_NOTYPE && name[0] == '$'))
				continue; /* AArch64 mapping symbols ($x, $d) */
			csym c = {s.st_value, s.st_size, sp_xstrdup(name), func};
			SP_PUSH(cf->syms, cf->n_syms, cf->cap_syms, c);
			n_func += func;
		}
	}
	return n_func;
}

static Elf *open_elf(const char *path, int *fd, sp_error **err)
{
	*fd = sp_object_fd(path, NULL, err);
	if (*fd < 0) {
		if (!*err)
			*err = sp_error_new(SP_E_IO, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	Elf *elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		*err = sp_error_new(SP_E_LIBELF, "%s: not an ELF file: %s", path,
				    elf_errmsg(-1));
		if (elf)
			elf_end(elf);
		close(*fd);
		*fd = -1;
		return NULL;
	}
	return elf;
}

sp_error *sp_code_file_open(const char *path, const char *debug_path, sp_code_file **out)
{
	*out = NULL;
	elf_version(EV_CURRENT);
	sp_error *err = NULL;
	sp_code_file *cf = sp_xcalloc(1, sizeof(*cf));
	cf->path = sp_xstrdup(path);
	Elf *elf = open_elf(cf->path, &cf->fd, &err);
	if (!elf) {
		sp_code_file_free(cf);
		return err;
	}
	GElf_Ehdr eh;
	if (gelf_getehdr(elf, &eh))
		cf->machine = eh.e_machine;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS &&
		    (sh.sh_flags & SHF_EXECINSTR) && sh.sh_size) {
			csec c = {sh.sh_addr, sh.sh_size, sh.sh_offset};
			SP_PUSH(cf->secs, cf->n_secs, cf->cap_secs, c);
		}
	}
	size_t n_func = add_symbols(cf, elf, SHT_SYMTAB);
	if (!n_func)
		n_func = add_symbols(cf, elf, SHT_DYNSYM);
	elf_end(elf);
	if (!n_func && debug_path) {
		/* stripped: the separate debug file keeps the symbol table */
		int dfd;
		sp_error *derr = NULL;
		Elf *d = open_elf(debug_path, &dfd, &derr);
		if (d) {
			add_symbols(cf, d, SHT_SYMTAB);
			elf_end(d);
			close(dfd);
		}
		sp_error_free(derr);
	}
	if (cf->n_syms)
		qsort(cf->syms, cf->n_syms, sizeof(*cf->syms), csym_cmp);
	*out = cf;
	return NULL;
}

void sp_code_file_free(sp_code_file *cf)
{
	if (!cf)
		return;
	for (size_t i = 0; i < cf->n_syms; i++)
		free(cf->syms[i].name);
	free(cf->syms);
	free(cf->secs);
	if (cf->fd >= 0)
		close(cf->fd);
	free(cf->path);
	free(cf);
}

uint16_t sp_code_file_machine(const sp_code_file *cf)
{
	return cf->machine;
}

/* The number of symbols with value <= VADDR. */
static size_t upper(const sp_code_file *cf, uint64_t vaddr)
{
	size_t lo = 0, hi = cf->n_syms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cf->syms[mid].value <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const char *sp_code_file_function(const sp_code_file *cf, uint64_t vaddr, uint64_t *start,
				  uint64_t *size)
{
	/* the closest start at or before VADDR whose extent holds it; a
	 * function nested in a bigger one (rare) wins over it */
	const csym *best = NULL;
	for (size_t i = upper(cf, vaddr); i-- > 0;) {
		const csym *s = &cf->syms[i];
		if (best && s->value < best->value)
			break;
		if (s->func && s->size && vaddr < s->value + s->size &&
		    (!best || strcmp(s->name, best->name) < 0))
			best = s;
		if (!best && vaddr - s->value > (UINT64_C(1) << 24))
			break; /* no function is that big */
	}
	if (!best)
		return NULL;
	*start = best->value;
	*size = best->size;
	return best->name;
}

const char *sp_code_file_symbol(void *ctx, uint64_t vaddr, uint64_t *off)
{
	const sp_code_file *cf = ctx;
	size_t i = upper(cf, vaddr);
	if (i == 0)
		return NULL;
	/* among the symbols at the closest value, the first (functions
	 * first, then by name) */
	uint64_t v = cf->syms[i - 1].value;
	while (i > 1 && cf->syms[i - 2].value == v)
		i--;
	*off = vaddr - v;
	return cf->syms[i - 1].name;
}

sp_error *sp_code_file_read(const sp_code_file *cf, uint64_t vaddr, uint8_t *buf, size_t n)
{
	for (size_t i = 0; i < cf->n_secs; i++) {
		const csec *s = &cf->secs[i];
		if (vaddr < s->addr || vaddr - s->addr > s->size || n > s->size - (vaddr - s->addr))
			continue;
		off_t at = (off_t)(s->offset + (vaddr - s->addr));
		for (size_t done = 0; done < n;) {
			ssize_t r = pread(cf->fd, buf + done, n - done, at + (off_t)done);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				return sp_error_new(SP_E_IO, "%s: cannot read %zu bytes at %#llx: %s",
						    cf->path, n, (unsigned long long)vaddr,
						    r < 0 ? strerror(errno) : "end of file");
			done += (size_t)r;
		}
		return NULL;
	}
	return sp_error_new(SP_E_NOT_FOUND, "%s: no executable section holds [%#llx, %#llx)",
			    cf->path, (unsigned long long)vaddr, (unsigned long long)(vaddr + n));
}

