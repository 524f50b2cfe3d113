/* symtab.c — function names from the ELF symbol tables, where DWARF has
 * none (no debug info, or an address outside every unit), for the
 * outermost frame (see resolver.c), and the other way: the address of a
 * symbol named in the input.
 *
 * Which symbol names an address follows elfutils' dwfl_module_addrsym
 * (libdwfl/dwfl_module_addrsym.c), whose rules hand-written assembly,
 * linker scripts and start-up labels need:
 *
 *   1. Every defined symbol with a name counts but sections, files and
 *      TLS: functions, data, and untyped labels (STT_NOTYPE) alike.
 *   2. A sized symbol that holds the address ([value, value + size)) wins
 *      over every symbol without size.  Of several, the one that starts
 *      last wins: a small symbol nested in a larger one names its own
 *      addresses, and the larger one the rest.  Of several that start at
 *      the same address, the better binding (global, then weak, then
 *      local, then any other), then the smaller size, then the first in
 *      the table.
 *   3. Non-local symbols are asked first: a local symbol is taken only
 *      when no non-local one holds the address (a local label inside a
 *      global function does not name it) and no non-local symbol without
 *      size sits exactly at the address.
 *   4. Where no sized symbol holds the address, the nearest symbol without
 *      size before it names it — up to the next symbol (of any kind: a
 *      sized symbol starting or ending after the label ends its reach) and
 *      only within the label's own section (a section's end address counts
 *      as inside it unless the next section starts there); an absolute
 *      symbol (SHN_ABS) names only its own address.  Of several at that
 *      address: non-local over local, global over weak, then the last in
 *      the table.
 *   5. A versioned name ("name@VERSION", "name@@VERSION", as static
 *      objects' tables spell them) is given without its version.
 *   6. The stubs of the procedure linkage table have no symbols: on
 *      x86-64 each gets one, NAME@plt as perf and objdump name them, 16
 *      bytes at .plt.sec + 16 i (IBT's second PLT), else at .plt + 16 (i + 1)
 *      (after the PLT's header), for the i-th relocation of .rela.plt and
 *      the dynamic symbol it names; and each stub of .plt.got, whose jump
 *      (jmp *GOT(%rip)) goes through a slot .rela.dyn fills with a symbol's
 *      address (GLOB_DAT), NAME@plt too.
 *
 * elfutils finds the answer by scanning every symbol per address.  Here
 * the answer, a function of the address that changes only where a symbol
 * or section starts or ends (or one past a label, for the exact-address
 * rules), is worked out once per change point when the table is first
 * read, into one sorted table of intervals: a look-up is one binary
 * search.  Where elfutils' answer depends on the order of the table
 * (nested symbols of different bindings, a local label at the address of
 * a global one) these rules pick as written above.
 */
#include "symbolize/dwarf/dwarfp.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

struct sp_fsym {
	uint64_t addr, size; /* module (dwfl) addresses */
	const char *name;
	const char *file;    /* a local symbol's source file (STT_FILE), or NULL */
	uint32_t index;      /* position in the table */
	uint8_t rank;        /* global 3, weak 2, local 1, other 0 */
	bool local;
	bool abs;            /* matches its own address only, when sizeless */
};

/* ------------------------------------------------------------------------ */
/* Building the interval table from the symbols (pure).                     */

/* The sized symbols of one binding group, sorted by start, then size
 * downwards (a smaller one at the same start comes later), with for each
 * the nearest earlier one that ends no sooner (its container, when they
 * nest) and the greatest end so far. */
typedef struct {
	uint32_t *ix;      /* into syms */
	uint32_t *parent;  /* into ix, NONE */
	uint64_t *maxend;
	size_t n;
} sized_list;

/* The symbols without size, sorted by address, then rank, then table
 * order (the preferred of one address is the last). */
typedef struct {
	uint32_t *ix;
	size_t n;
} label_list;

typedef struct {
	const sp_fsym *syms;
	sized_list nl, l;
	label_list labels;
	const sp_symtab_section *secs; /* sorted by lo */
	size_t n_secs;
	/* the last index of each list starting at or below the address the
	 * build is at (NONE: none yet), moved along as it goes up */
	uint32_t last_nl, last_l, last_label;
} build_ctx;

static int cmp_sized(const void *a, const void *b, void *ctx)
{
	const sp_fsym *syms = ctx;
	const sp_fsym *x = &syms[*(const uint32_t *)a], *y = &syms[*(const uint32_t *)b];
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int cmp_label(const void *a, const void *b, void *ctx)
{
	const sp_fsym *syms = ctx;
	const sp_fsym *x = &syms[*(const uint32_t *)a], *y = &syms[*(const uint32_t *)b];
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->local != y->local)
		return x->local ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static void sized_finish(const sp_fsym *syms, sized_list *s)
{
	if (s->n > 1)
		qsort_r(s->ix, s->n, sizeof(*s->ix), cmp_sized, (void *)syms);
	s->parent = sp_xreallocarray(NULL, s->n ? s->n : 1, sizeof(*s->parent));
	s->maxend = sp_xreallocarray(NULL, s->n ? s->n : 1, sizeof(*s->maxend));
	uint32_t *stack = sp_xreallocarray(NULL, s->n ? s->n : 1, sizeof(*stack));
	size_t top = 0;
	uint64_t m = 0;
	for (size_t i = 0; i < s->n; i++) {
		const sp_fsym *f = &syms[s->ix[i]];
		uint64_t end = f->addr + f->size < f->addr ? UINT64_MAX : f->addr + f->size;
		/* the nearest earlier symbol ending no sooner */
		while (top) {
			const sp_fsym *t = &syms[s->ix[stack[top - 1]]];
			if (t->addr + t->size >= end)
				break;
			top--;
		}
		s->parent[i] = top ? stack[top - 1] : NONE;
		stack[top++] = (uint32_t)i;
		if (end > m)
			m = end;
		s->maxend[i] = m;
	}
	free(stack);
}

/* *LAST moved to the last index of IX (N entries) whose symbol starts at
 * or below A, A at least where it was last time. */
static void move_last(const sp_fsym *syms, const uint32_t *ix, size_t n, uint64_t a,
		      uint32_t *last)
{
	size_t next = *last == NONE ? 0 : (size_t)*last + 1;
	while (next < n && syms[ix[next]].addr <= a)
		next++;
	*last = next ? (uint32_t)(next - 1) : NONE;
}

/* Rule 2: the sized symbol of S holding A, or NONE; J is the last index
 * of S starting at or below A. */
static uint32_t sized_holder(const sp_fsym *syms, const sized_list *s, uint32_t j, uint64_t a)
{
	while (j != NONE && a - syms[s->ix[j]].addr >= syms[s->ix[j]].size)
		j = s->parent[j];
	if (j == NONE)
		return NONE;
	/* of those starting where it starts: binding, size, table order */
	uint64_t start = syms[s->ix[j]].addr;
	uint32_t best = s->ix[j];
	for (uint32_t k = j; k-- > 0 && syms[s->ix[k]].addr == start;) {
		const sp_fsym *c = &syms[s->ix[k]], *b = &syms[best];
		if (a - c->addr >= c->size)
			continue;
		if (c->rank > b->rank ||
		    (c->rank == b->rank &&
		     (c->size < b->size || (c->size == b->size && c->index < b->index))))
			best = s->ix[k];
	}
	return best;
}

/* The greatest end of the symbols of S up to index J (NONE: 0). */
static uint64_t sized_reach(const sized_list *s, uint32_t j)
{
	return j == NONE ? 0 : s->maxend[j];
}

/* The allocated section holding A (its end address counts unless the
 * next section starts there), or NONE. */
static uint32_t section_of(const build_ctx *c, uint64_t a)
{
	size_t lo = 0, hi = c->n_secs;
#define SEC_LO(i) c->secs[i].lo
	SP_UPPER_BOUND(lo, hi, SEC_LO, a);
#undef SEC_LO
	/* a section starting at A sorts after one ending there, and is met
	 * first; sections seldom overlap, so a few steps back suffice */
	for (size_t i = lo, k = 0; i-- > 0 && k < 8; k++)
		if (a <= c->secs[i].hi)
			return (uint32_t)i;
	return NONE;
}

/* Rule 4: the label naming A from among the labels at the greatest
 * address at or below A, when it is not below REACH; NONLOCAL_ONLY for
 * the exact-address rule of rule 3.  NONE if none does. */
static uint32_t label_for(const build_ctx *c, uint64_t a, uint64_t reach, bool nonlocal_only,
			  bool exact)
{
	const sp_fsym *syms = c->syms;
	uint32_t j = c->last_label;
	if (j == NONE)
		return NONE;
	uint64_t v = syms[c->labels.ix[j]].addr;
	if (v < reach || (exact && v != a))
		return NONE;
	uint32_t sec = NONE;
	bool sec_known = false;
	/* the preferred is the last of the address; fall back past those that
	 * do not qualify */
	for (uint32_t k = j + 1; k-- > 0 && syms[c->labels.ix[k]].addr == v;) {
		const sp_fsym *f = &syms[c->labels.ix[k]];
		if (nonlocal_only && f->local)
			continue;
		if (f->abs) {
			if (f->addr == a)
				return c->labels.ix[k];
			continue;
		}
		if (!sec_known) {
			sec = section_of(c, a);
			sec_known = true;
		}
		if (sec != NONE && section_of(c, v) == sec)
			return c->labels.ix[k];
	}
	return NONE;
}

/* The symbol naming A under rules 2 to 4, or NONE; A is at least where
 * the last call was. */
static uint32_t answer_at(build_ctx *c, uint64_t a)
{
	const sp_fsym *syms = c->syms;
	move_last(syms, c->nl.ix, c->nl.n, a, &c->last_nl);
	move_last(syms, c->l.ix, c->l.n, a, &c->last_l);
	move_last(syms, c->labels.ix, c->labels.n, a, &c->last_label);
	uint32_t h = sized_holder(syms, &c->nl, c->last_nl, a);
	if (h != NONE)
		return h;
	/* a non-local label exactly at A keeps the locals out */
	uint64_t reach = sized_reach(&c->nl, c->last_nl), lr = sized_reach(&c->l, c->last_l);
	uint32_t x = label_for(c, a, reach, true, true);
	if (x != NONE)
		return x;
	h = sized_holder(syms, &c->l, c->last_l, a);
	if (h != NONE)
		return h;
	return label_for(c, a, lr > reach ? lr : reach, false, false);
}

void sp_sort_u64(uint64_t *v, size_t n)
{
	if (n < 2)
		return;
	uint64_t diff = 0;
	for (size_t i = 1; i < n; i++)
		diff |= v[i] ^ v[0];
	uint64_t *tmp = sp_xreallocarray(NULL, n, sizeof(*tmp)), *src = v, *dst = tmp;
	size_t count[256];
	for (unsigned shift = 0; shift < 64; shift += 8) {
		if (!((diff >> shift) & 255))
			continue;
		memset(count, 0, sizeof(count));
		for (size_t i = 0; i < n; i++)
			count[(src[i] >> shift) & 255]++;
		for (size_t i = 0, sum = 0; i < 256; i++) {
			size_t k = count[i];
			count[i] = sum;
			sum += k;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & 255]++] = src[i];
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
}

static int cmp_section(const void *a, const void *b)
{
	const sp_symtab_section *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

static void add_point(uint64_t **v, size_t *n, size_t *cap, uint64_t p)
{
	SP_PUSH(*v, *n, *cap, p);
}

void sp_symtab_build(sp_symtab *s, const sp_symtab_symbol *in, size_t n,
		     const sp_symtab_section *secs, size_t n_secs)
{
	sp_symtab_clear_table(s);
	s->loaded = true;
	s->syms = sp_xreallocarray(NULL, n ? n : 1, sizeof(*s->syms));
	s->n_syms = n;
	s->secs = sp_xreallocarray(NULL, n_secs ? n_secs : 1, sizeof(*s->secs));
	if (n_secs)
		memcpy(s->secs, secs, n_secs * sizeof(*secs));
	s->n_secs = n_secs;
	if (n_secs > 1)
		qsort(s->secs, n_secs, sizeof(*s->secs), cmp_section);

	build_ctx c = {.syms = s->syms, .secs = s->secs, .n_secs = n_secs, .last_nl = NONE,
		       .last_l = NONE, .last_label = NONE};
	size_t cap_nl = 0, cap_l = 0, cap_lab = 0, cap_pts = 0, n_pts = 0;
	uint64_t *pts = NULL;
	for (size_t i = 0; i < n; i++) {
		sp_fsym *f = &s->syms[i];
		int b = in[i].bind;
		f->addr = in[i].value;
		f->size = in[i].size;
		f->name = in[i].name;
		f->file = b == STB_LOCAL ? in[i].file : NULL;
		f->index = (uint32_t)i;
		f->local = b == STB_LOCAL;
		f->rank = b == STB_GLOBAL ? 3 : b == STB_WEAK ? 2 : b == STB_LOCAL ? 1 : 0;
		f->abs = in[i].abs;
		uint32_t ix = (uint32_t)i;
		add_point(&pts, &n_pts, &cap_pts, f->addr);
		if (f->size) {
			if (f->local)
				SP_PUSH(c.l.ix, c.l.n, cap_l, ix);
			else
				SP_PUSH(c.nl.ix, c.nl.n, cap_nl, ix);
			if (f->addr + f->size > f->addr)
				add_point(&pts, &n_pts, &cap_pts, f->addr + f->size);
		} else {
			SP_PUSH(c.labels.ix, c.labels.n, cap_lab, ix);
			if (f->addr + 1 > f->addr)
				add_point(&pts, &n_pts, &cap_pts, f->addr + 1);
		}
	}
	for (size_t i = 0; i < n_secs; i++) {
		add_point(&pts, &n_pts, &cap_pts, s->secs[i].lo);
		if (s->secs[i].hi + 1 > s->secs[i].hi)
			add_point(&pts, &n_pts, &cap_pts, s->secs[i].hi + 1);
	}
	sized_finish(s->syms, &c.nl);
	sized_finish(s->syms, &c.l);
	if (c.labels.n > 1)
		qsort_r(c.labels.ix, c.labels.n, sizeof(*c.labels.ix), cmp_label, s->syms);
	sp_sort_u64(pts, n_pts);

	size_t cap_bp = 0;
	uint32_t last = NONE;
	for (size_t i = 0; i < n_pts; i++) {
		if (i && pts[i] == pts[i - 1])
			continue;
		uint32_t ans = answer_at(&c, pts[i]);
		if (ans == last)
			continue;
		if (s->n_bp == cap_bp) {
			cap_bp = cap_bp ? cap_bp * 2 : 64;
			s->bp = sp_xreallocarray(s->bp, cap_bp, sizeof(*s->bp));
			s->bp_sym = sp_xreallocarray(s->bp_sym, cap_bp, sizeof(*s->bp_sym));
		}
		s->bp[s->n_bp] = pts[i];
		s->bp_sym[s->n_bp++] = ans;
		last = ans;
	}
	free(pts);
	sp_buckets_build(&s->bp_index, s->bp, sizeof(*s->bp), s->n_bp);
	free(c.nl.ix);
	free(c.nl.parent);
	free(c.nl.maxend);
	free(c.l.ix);
	free(c.l.parent);
	free(c.l.maxend);
	free(c.labels.ix);
}

/* ------------------------------------------------------------------------ */
/* Reading the table of a module.                                           */

bool sp_symtab_counts(const char *name, int type, unsigned shndx)
{
	return name && *name && shndx != SHN_UNDEF && type != STT_SECTION && type != STT_FILE &&
	       type != STT_TLS;
}

size_t sp_symtab_name_len(const char *name)
{
	const char *at = strchr(name, '@');
	return at && at != name ? (size_t)(at - name) : strlen(name);
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

/* The allocated sections of ELF (ET_REL: as libdwfl laid them out, which
 * it writes into the section headers) at EBIAS, into *OUT. */
static size_t alloc_sections(Elf *elf, uint64_t ebias, sp_symtab_section **out)
{
	size_t n = 0, cap = 0, shstrndx = 0;
	Elf_Scn *scn = NULL;
	*out = NULL;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
			continue;
		sp_symtab_section sec = {sh.sh_addr + ebias, sh.sh_addr + ebias + sh.sh_size,
					 elf_strptr(elf, shstrndx, sh.sh_name)};
		if (sec.hi < sec.lo)
			continue;
		SP_PUSH(*out, n, cap, sec);
	}
	return n;
}

/* The symbols of MOD (.symtab, else .dynsym, as libdwfl picks, and the
 * MiniDebugInfo table) that rule 1 counts, into the interval table. */
/* The section of ELF named NAME (NULL when none), its header in *SH. */
static Elf_Scn *section_named(Elf *elf, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		const char *n;
		if (gelf_getshdr(scn, sh) && (n = elf_strptr(elf, shstrndx, sh->sh_name)) &&
		    !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* Rule 6: NAME@plt for each stub of ELF's PLT (x86-64), appended to *IN. */
static void plt_syms(sp_symtab *s, Elf *elf, uint64_t ebias, sp_symtab_symbol **in,
		     size_t *n_in, size_t *cap_in)
{
	GElf_Ehdr eh;
	GElf_Shdr rel_sh, plt_sh, sec_sh, dyn_sh;
	if (!elf || !gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64)
		return;
	Elf_Scn *rel = section_named(elf, ".rela.plt", &rel_sh);
	Elf_Scn *plt = section_named(elf, ".plt", &plt_sh);
	Elf_Scn *sec = section_named(elf, ".plt.sec", &sec_sh);
	Elf_Scn *dyn = rel ? elf_getscn(elf, rel_sh.sh_link) : NULL;
	Elf_Data *rd = rel ? elf_getdata(rel, NULL) : NULL;
	Elf_Data *dd = dyn && gelf_getshdr(dyn, &dyn_sh) ? elf_getdata(dyn, NULL) : NULL;
	if (!rd || !dd || (!plt && !sec) || rel_sh.sh_type != SHT_RELA || !rel_sh.sh_entsize)
		return;
	uint64_t base = sec ? sec_sh.sh_addr : plt_sh.sh_addr + 16;
	uint64_t room = sec ? sec_sh.sh_size : plt_sh.sh_size > 16 ? plt_sh.sh_size - 16 : 0;
	size_t n = rel_sh.sh_size / rel_sh.sh_entsize;
	for (size_t i = 0; i < n && 16 * (i + 1) <= room; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		const char *name;
		if (!gelf_getrela(rd, (int)i, &r) || !gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &sym) ||
		    !(name = elf_strptr(elf, dyn_sh.sh_link, sym.st_name)) || !*name)
			continue;
		char *plt_name = sp_xasprintf("%.*s@plt", (int)sp_symtab_name_len(name), name);
		SP_PUSH(s->names, s->n_names, s->cap_names, plt_name);
		sp_symtab_symbol f = {base + 16 * i + ebias, 16, plt_name, STB_GLOBAL, false, NULL};
		SP_PUSH(*in, *n_in, *cap_in, f);
	}
}

/* The .plt.got stubs of ELF: NAME@plt for each whose jmp *X(%rip) reads a
 * GOT slot that a GLOB_DAT relocation of .rela.dyn names. */
static void plt_got_syms(sp_symtab *s, Elf *elf, uint64_t ebias, sp_symtab_symbol **in,
			 size_t *n_in, size_t *cap_in)
{
	GElf_Shdr got_sh, rel_sh, dyn_sh;
	Elf_Scn *got = section_named(elf, ".plt.got", &got_sh);
	Elf_Scn *rel = section_named(elf, ".rela.dyn", &rel_sh);
	Elf_Scn *dyn = rel ? elf_getscn(elf, rel_sh.sh_link) : NULL;
	Elf_Data *gd = got ? elf_getdata(got, NULL) : NULL;
	Elf_Data *rd = rel ? elf_getdata(rel, NULL) : NULL;
	Elf_Data *dd = dyn && gelf_getshdr(dyn, &dyn_sh) ? elf_getdata(dyn, NULL) : NULL;
	size_t es = got ? got_sh.sh_entsize : 0;
	if (!gd || !rd || !dd || !gd->d_buf || es < 6 || rel_sh.sh_type != SHT_RELA ||
	    !rel_sh.sh_entsize)
		return;
	size_t n_rel = rel_sh.sh_size / rel_sh.sh_entsize;
	for (size_t off = 0; off + es <= gd->d_size; off += es) {
		const uint8_t *b = (const uint8_t *)gd->d_buf + off;
		size_t k = 0; /* the jmp, after endbr64 and a bnd prefix if any */
		while (k + 6 <= es && !(b[k] == 0xff && b[k + 1] == 0x25))
			k++;
		if (k + 6 > es)
			continue;
		int32_t rel32 = (int32_t)((uint32_t)b[k + 2] | (uint32_t)b[k + 3] << 8 |
					  (uint32_t)b[k + 4] << 16 | (uint32_t)b[k + 5] << 24);
		uint64_t slot = got_sh.sh_addr + off + k + 6 + (uint64_t)(int64_t)rel32;
		for (size_t i = 0; i < n_rel; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			const char *name;
			if (!gelf_getrela(rd, (int)i, &r) || r.r_offset != slot ||
			    GELF_R_TYPE(r.r_info) != R_X86_64_GLOB_DAT ||
			    !gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &sym) ||
			    !(name = elf_strptr(elf, dyn_sh.sh_link, sym.st_name)) || !*name)
				continue;
			char *plt_name = sp_xasprintf("%.*s@plt", (int)sp_symtab_name_len(name), name);
			SP_PUSH(s->names, s->n_names, s->cap_names, plt_name);
			sp_symtab_symbol f = {got_sh.sh_addr + off + ebias, es, plt_name, STB_GLOBAL,
					      false, NULL};
			SP_PUSH(*in, *n_in, *cap_in, f);
			break;
		}
	}
}

static void load_syms(sp_symtab *s, Dwfl_Module *mod)
{
	GElf_Ehdr eh;
	GElf_Addr ebias = 0;
	Elf *elf = dwfl_module_getelf(mod, &ebias);
	int n = dwfl_module_getsymtab(mod);
	Elf_Data *tabs[4];
	size_t n_tabs = 0, n_in = 0, cap_in = 0;
	GElf_Addr dwbias;
	Dwarf *dw = n > 0 ? dwfl_module_getdwarf(mod, &dwbias) : NULL;
	sp_symtab_symbol *in = NULL;
	const char *file = NULL;
	symbol_strings(elf, tabs, &n_tabs);
	symbol_strings(dw ? dwarf_getelf(dw) : NULL, tabs, &n_tabs);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, NULL, NULL);
		bool named = name && name_terminated(tabs, n_tabs, name);
		if (named && GELF_ST_TYPE(sym.st_info) == STT_FILE)
			file = *name ? name : NULL; /* the source of the local symbols after it */
		if (!named || !sp_symtab_counts(name, GELF_ST_TYPE(sym.st_info), sym.st_shndx))
			continue;
		size_t len = sp_symtab_name_len(name);
		if (name[len]) {
			char *plain = sp_xstrndup(name, len);
			SP_PUSH(s->names, s->n_names, s->cap_names, plain);
			name = plain;
		}
		sp_symtab_symbol f = {addr, sym.st_size, name, (uint8_t)GELF_ST_BIND(sym.st_info),
				      shndx >= SHN_LORESERVE && shndx != SHN_XINDEX, file};
		SP_PUSH(in, n_in, cap_in, f);
	}
	plt_syms(s, elf, ebias, &in, &n_in, &cap_in);
	if (elf && gelf_getehdr(elf, &eh) && eh.e_machine == EM_X86_64)
		plt_got_syms(s, elf, ebias, &in, &n_in, &cap_in);
	sp_symtab_section *secs;
	size_t n_secs = alloc_sections(elf, ebias, &secs);
	sp_symtab_build(s, in, n_in, secs, n_secs);
	free(in);
	free(secs);
}

bool sp_symtab_lookup(sp_symtab *s, Dwfl_Module *mod, uint64_t a, sp_symtab_hit *out)
{
	if (!s->loaded)
		load_syms(s, mod);
	size_t lo, hi;
	sp_buckets_bounds(&s->bp_index, s->n_bp, a, &lo, &hi);
#define BP(i) s->bp[i]
	SP_UPPER_BOUND(lo, hi, BP, a);
#undef BP
	if (lo == 0 || s->bp_sym[lo - 1] == NONE)
		return false;
	const sp_fsym *f = &s->syms[s->bp_sym[lo - 1]];
	out->name = f->name;
	out->value = f->addr;
	out->size = f->size;
	out->file = f->file;
	return true;
}

const char *sp_symtab_name(sp_symtab *s, Dwfl_Module *mod, uint64_t a)
{
	sp_symtab_hit h;
	return sp_symtab_lookup(s, mod, a, &h) ? h.name : NULL;
}

const sp_symtab_section *sp_symtab_section_of(sp_symtab *s, Dwfl_Module *mod, uint64_t a)
{
	if (!s->loaded)
		load_syms(s, mod);
	build_ctx c = {.syms = s->syms, .secs = s->secs, .n_secs = s->n_secs};
	uint32_t i = section_of(&c, a);
	return i == NONE ? NULL : &s->secs[i];
}

static int cmp_by_name(const void *a, const void *b, void *ctx)
{
	const sp_fsym *syms = ctx;
	const sp_fsym *x = &syms[*(const uint32_t *)a], *y = &syms[*(const uint32_t *)b];
	int r = strcmp(x->name, y->name);
	return r ? r : (x->index < y->index ? -1 : x->index > y->index);
}

bool sp_symtab_find(sp_symtab *s, Dwfl_Module *mod, const char *name, sp_symtab_hit *out)
{
	if (!s->loaded)
		load_syms(s, mod);
	if (!s->by_name && s->n_syms) {
		s->by_name = sp_xreallocarray(NULL, s->n_syms, sizeof(*s->by_name));
		for (size_t i = 0; i < s->n_syms; i++)
			s->by_name[i] = (uint32_t)i;
		qsort_r(s->by_name, s->n_syms, sizeof(*s->by_name), cmp_by_name, s->syms);
	}
	/* the first of the name in the table */
	size_t lo = 0, hi = s->n_syms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(s->syms[s->by_name[mid]].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == s->n_syms || strcmp(s->syms[s->by_name[lo]].name, name))
		return false;
	const sp_fsym *f = &s->syms[s->by_name[lo]];
	out->name = f->name;
	out->value = f->addr;
	out->size = f->size;
	out->file = f->file;
	return true;
}

void sp_symtab_clear_table(sp_symtab *s)
{
	free(s->syms);
	free(s->bp);
	free(s->bp_sym);
	free(s->secs);
	free(s->by_name);
	free(s->bp_index.first);
	s->bp_index = (sp_buckets){0};
	s->syms = NULL;
	s->bp = NULL;
	s->bp_sym = NULL;
	s->secs = NULL;
	s->by_name = NULL;
	s->n_syms = s->n_bp = s->n_secs = 0;
	s->loaded = false;
}

void sp_symtab_bounds(sp_symtab *s, Dwfl_Module *mod, sp_bounds *b)
{
	if (!s->loaded)
		load_syms(s, mod);
	for (size_t i = 0; i < s->n_bp; i++) /* where the answer changes */
		sp_bounds_add(b, s->bp[i]);
}

void sp_symtab_clear(sp_symtab *s)
{
	sp_symtab_clear_table(s);
	for (size_t i = 0; i < s->n_names; i++)
		free(s->names[i]);
	free(s->names);
	*s = (sp_symtab){0};
}
