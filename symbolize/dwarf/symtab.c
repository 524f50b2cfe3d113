/* symtab.c — function names from the ELF symbol tables, where DWARF has
 * none (no debug info, or an address outside every unit) and for the
 * outermost frame (see resolver.c).
 *
 * libdwfl's own look-up (dwfl_module_addrsym, __libdwfl_addrsym in
 * libdwfl/dwfl_module_addrsym.c) scans every symbol on every call.  Here
 * the function symbols are read once into one table sorted by address,
 * with one symbol per address, and each look-up is a binary search: the
 * symbol with the greatest start at or below the address, if the address
 * is inside it.  Where that gives other answers than libdwfl, and why:
 *
 *   - only STT_FUNC and STT_GNU_IFUNC symbols count (libdwfl takes every
 *     type but sections, files and TLS): data and labels do not name the
 *     code that runs;
 *   - of several symbols at one address the largest wins, then the better
 *     binding (global, then weak, then local or other), then the greater
 *     name in strcmp order, so the choice does not depend on the order of
 *     the table.  libdwfl prefers the smaller of two sizes unless the
 *     larger binds better, and the first found on a full tie; it can do
 *     so because it asks, per address, which symbol holds it, where a
 *     table of one symbol per address must keep the one that holds the
 *     most addresses;
 *   - symbols do not nest: inside a sized symbol that starts within a
 *     larger one, an address past the inner one's end has no name (libdwfl
 *     finds the outer one);
 *   - a symbol without size (st_size 0, hand-written assembly) holds the
 *     addresses up to the next symbol's start or its section's end, and a
 *     later symbol takes over from it.  libdwfl takes a sizeless symbol
 *     only when no sized one holds the address, only in the address's own
 *     section and not below the end of any sized symbol before it;
 *   - a versioned name ("name@VERSION", "name@@VERSION", as static
 *     objects' tables spell them) is given without its version.
 */
#include "symbolize/dwarf/dwarfp.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>

struct sp_fsym {
	uint64_t addr, size; /* module (dwfl) addresses */
	const char *name;
	int rank;            /* binding preference: global 2, weak 1, local 0 */
	bool sized;          /* st_size was given */
};

static int cmp_fsym(const void *a, const void *b)
{
	const sp_fsym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	uint64_t xs = x->sized ? x->size : 0, ys = y->sized ? y->size : 0;
	if (xs != ys)
		return xs < ys ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The string tables of ELF's symbol tables, as libdwfl reads them
 * (decompressed), appended to TABS (at most 4 in all). */
static void symbol_strings(Elf *elf, Elf_Data **tabs, size_t *n)
{
	Elf_Scn *scn = NULL;
	while (elf && *n < 4 && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		Elf_Scn *str = elf_getscn(elf, sh.sh_link);
		Elf_Data *data = str ? elf_getdata(str, NULL) : NULL;
		if (data && data->d_buf && data->d_size)
			tabs[(*n)++] = data;
	}
}

/* Whether NAME ends inside the string table it points into.  libelf
 * checks a name's NUL against the section as stored, and a compressed
 * string table decompressed without its last NUL hands out a name that
 * runs off the end of its buffer.  A name in no table we know (libdwfl's
 * MiniDebugInfo) is taken as it is. */
static bool name_terminated(Elf_Data *const *tabs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++) {
		const char *b = tabs[i]->d_buf, *e = b + tabs[i]->d_size;
		if (name >= b && name < e)
			return memchr(name, 0, (size_t)(e - name)) != NULL;
	}
	return true;
}

/* The function symbols of MOD (.symtab, else .dynsym, as libdwfl picks),
 * sorted once, one per address (see the top of this file). */
static void load_syms(sp_symtab *s, Dwfl_Module *mod)
{
	size_t cap = 0, k = 0;
	s->loaded = true;
	GElf_Addr ebias = 0;
	Elf *elf = dwfl_module_getelf(mod, &ebias);
	int n = dwfl_module_getsymtab(mod);
	Elf_Data *tabs[4];
	size_t n_tabs = 0;
	GElf_Addr dwbias;
	Dwarf *dw = n > 0 ? dwfl_module_getdwarf(mod, &dwbias) : NULL;
	symbol_strings(elf, tabs, &n_tabs);
	symbol_strings(dw ? dwarf_getelf(dw) : NULL, tabs, &n_tabs);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);
		if (!name || !name_terminated(tabs, n_tabs, name) || !*name || shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		/* A versioned symbol is "name@VERSION" or "name@@VERSION" in the
		 * symbol table; the function is "name". */
		const char *at = strchr(name, '@');
		if (at && at != name) {
			char *plain = sp_xstrndup(name, (size_t)(at - name));
			SP_PUSH(s->names, s->n_names, s->cap_names, plain);
			name = plain;
		}
		sp_fsym f = {addr, sym.st_size, name,
			  bind == STB_GLOBAL ? 2 : bind == STB_WEAK ? 1 : 0, sym.st_size != 0};
		if (f.size == 0) {
			/* no size: up to the end of its section at most */
			GElf_Shdr sh;
			Elf_Scn *scn = elf ? elf_getscn(elf, shndx) : NULL;
			if (scn && gelf_getshdr(scn, &sh) && sh.sh_addr + ebias + sh.sh_size > addr)
				f.size = sh.sh_addr + ebias + sh.sh_size - addr;
			else
				f.size = 1;
		}
		SP_PUSH(s->syms, s->n_syms, cap, f);
	}
	if (s->n_syms > 1) /* qsort must not get NULL, and empty tables may be */
		qsort(s->syms, s->n_syms, sizeof(*s->syms), cmp_fsym);
	for (size_t i = 0; i < s->n_syms; i++) {
		if (k && s->syms[k - 1].addr == s->syms[i].addr)
			k--; /* the later one is preferred */
		s->syms[k++] = s->syms[i];
	}
	s->n_syms = k;
	/* a symbol whose size came from its section ends at the next one */
	for (size_t i = 0; i + 1 < k; i++)
		if (s->syms[i].addr + s->syms[i].size > s->syms[i + 1].addr &&
		    s->syms[i].size > 1 && !s->syms[i].sized)
			s->syms[i].size = s->syms[i + 1].addr - s->syms[i].addr;
}

const char *sp_symtab_name(sp_symtab *s, Dwfl_Module *mod, uint64_t a)
{
	if (!s->loaded)
		load_syms(s, mod);
	size_t lo = 0, hi = s->n_syms;
#define SYM_ADDR(i) s->syms[i].addr
	SP_UPPER_BOUND(lo, hi, SYM_ADDR, a);
#undef SYM_ADDR
	if (lo == 0)
		return NULL;
	const sp_fsym *f = &s->syms[lo - 1];
	if (a - f->addr >= f->size)
		return NULL;
	return f->name;
}

void sp_symtab_bounds(sp_symtab *s, Dwfl_Module *mod, sp_bounds *b)
{
	if (!s->loaded)
		load_syms(s, mod);
	for (size_t i = 0; i < s->n_syms; i++) {
		const sp_fsym *f = &s->syms[i];
		sp_bounds_add(b, f->addr);
		sp_bounds_add(b, f->addr + f->size < f->addr ? UINT64_MAX : f->addr + f->size);
	}
}

void sp_symtab_clear(sp_symtab *s)
{
	free(s->syms);
	for (size_t i = 0; i < s->n_names; i++)
		free(s->names[i]);
	free(s->names);
	*s = (sp_symtab){0};
}
