/* resolver.c — address -> frames for one ELF file: the sp_resolver_* API.
 *
 * Each resolver holds one Dwfl with the single module of its file
 * (module.c), opened at the first address.  An address is looked up in the
 * compile units (units.c): the chain of subprogram and inlined subroutines
 * holding it, innermost first, with the line row in force; the names of
 * their DIEs are worked out here once per node (once per abstract origin
 * for inlined copies).  Names, demangled names and whole results per
 * address are cached.  Without DWARF (or outside every unit) Go's pc-line
 * table (gopclntab.c), when the file has one, gives every frame; else the
 * ELF symbol tables (symtab.c) give the function name, and they name the
 * outermost frame of DWARF's answers whenever they can.
 *
 * Callers speak the file's own address space (for ET_REL objects, their
 * sh_addr space), which module.c maps to libdwfl's.
 */
#include "symbolize/dwarf/dwarfp.h"
#include "symbolize/dwarf/gopclntab.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	const sp_frame *f;
	size_t n;
} result;

typedef struct {
	const char *raw, *name;
	int32_t decl_line;
	bool linkage;
} oname;

#define FRAME_BLOCK 4096

struct sp_resolver {
	const sp_symbolize_options *opts;
	sp_demangle_style style;

	bool opened;
	sp_error *open_err; /* cached failure */
	sp_dwfl *dwfl;
	sp_module *m;

	sp_units units;      /* when the module has DWARF */

	sp_symtab syms;     /* the fallback for names */

	/* Go's pc-line table, read at the first address no unit holds */
	bool go_tried;
	sp_gopcln *go;
	sp_error *go_err;    /* the table is malformed */
	bool last_go;        /* the last answer came from it */

	/* caches */
	sp_u64map addr_cache;  /* address -> index into results */
	result *results;
	size_t n_results, cap_results;
	sp_frame **blocks;
	size_t n_blocks, cap_blocks, block_used;
	sp_u64map names;       /* raw name pointer -> index into dnames + 1 */
	sp_u64map origins;     /* abstract origin DIE offset + 1 -> index into onames */
	oname *onames;
	size_t n_onames, cap_onames;
	char **dnames;
	size_t n_dnames, cap_dnames;
	sp_frame *scratch;
	size_t cap_scratch;
};

sp_resolver *sp_resolver_new(const char *path, const sp_symbolize_options *opts,
		       const sp_elf_info *info, sp_finder *finder)
{
	sp_resolver *d = sp_xcalloc(1, sizeof(*d));
	d->opts = opts;
	d->m = sp_module_new(path, opts, info, finder);
	d->style = opts ? opts->demangle : SP_DEMANGLE_SIMPLE;
	return d;
}

void sp_resolver_free(sp_resolver *d)
{
	if (!d)
		return;
	sp_dwfl_free(d->dwfl); /* before the module it holds */
	sp_module_free(d->m);
	sp_units_clear(&d->units);
	sp_symtab_clear(&d->syms);
	sp_gopcln_free(d->go);
	sp_error_free(d->go_err);
	sp_u64map_free(&d->addr_cache);
	free(d->results);
	for (size_t i = 0; i < d->n_blocks; i++)
		free(d->blocks[i]);
	free(d->blocks);
	sp_u64map_free(&d->names);
	sp_u64map_free(&d->origins);
	free(d->onames);
	for (size_t i = 0; i < d->n_dnames; i++)
		free(d->dnames[i]);
	free(d->dnames);
	free(d->scratch);
	sp_error_free(d->open_err);
	free(d);
}

const char *sp_resolver_debug_path(const sp_resolver *d)
{
	return d->m->debug_path;
}

const sp_find_log *sp_resolver_find_log(const sp_resolver *d)
{
	return &d->m->log;
}

const sp_error *sp_resolver_split_refused(const sp_resolver *d)
{
	return d->units.split_refused;
}

sp_error *sp_resolver_split_error(const sp_resolver *d)
{
	sp_error *e = sp_error_dup(d->units.split_err);
	if (e && d->units.n_split_errs > 1)
		e = sp_error_prefix(e, "%zu split units not read, the first",
				    d->units.n_split_errs);
	return e;
}





static sp_error *open_module(sp_resolver *d)
{
	d->opened = true;
	sp_error *e = sp_module_open(d->m);
	if (!e)
		e = sp_dwfl_new(d->opts, d->m->path, &d->dwfl);
	if (e)
		return e;
	Dwfl *dwfl = sp_dwfl_handle(d->dwfl);
	dwfl_report_begin(dwfl);
	if ((e = sp_module_report(d->m, dwfl, 0, true)) != NULL)
		return e;
	if (dwfl_report_end(dwfl, NULL, NULL) != 0)
		return sp_error_new(SP_E_LIBDW, "%s: %s", d->m->path, dwfl_errmsg(-1));
	if ((e = sp_module_load(d->m)) != NULL)
		return e;
	if (d->m->dw)
		sp_units_index(&d->units, d->m);
	return NULL;
}

static const char *attr_string(Dwarf_Die *die, int name)
{
	Dwarf_Attribute a;
	if (!dwarf_attr_integrate(die, name, &a))
		return NULL;
	return dwarf_formstring(&a);
}

static int64_t attr_int(Dwarf_Die *die, int name, bool integrate)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	if (!(integrate ? dwarf_attr_integrate(die, name, &a) : dwarf_attr(die, name, &a)))
		return 0;
	if (dwarf_formudata(&a, &w) != 0)
		return 0;
	return (int64_t)w;
}

/* The demangled form of RAW, cached by the pointer (names live in the
 * debug sections or symbol tables for the resolver's lifetime). */
static const char *demangled(sp_resolver *d, const char *raw)
{
	uint64_t v;
	if (!raw)
		return NULL;
	if (sp_u64map_get(&d->names, (uint64_t)(uintptr_t)raw, &v))
		return v ? d->dnames[v - 1] : raw;
	char *dn = sp_demangle(raw, d->style);
	if (!dn) {
		sp_u64map_put(&d->names, (uint64_t)(uintptr_t)raw, 0);
		return raw;
	}
	SP_PUSH(d->dnames, d->n_dnames, d->cap_dnames, dn);
	sp_u64map_put(&d->names, (uint64_t)(uintptr_t)raw, d->n_dnames);
	return dn;
}

/* The linkage name of DIE, else its name (through origins and
 * specifications), or NULL; *LINKAGE says which. */
static const char *die_raw_name(Dwarf_Die *die, bool *linkage)
{
	const char *raw = attr_string(die, DW_AT_linkage_name);
	if (!raw)
		raw = attr_string(die, DW_AT_MIPS_linkage_name);
	*linkage = raw != NULL;
	if (!raw)
		raw = attr_string(die, DW_AT_name);
	return raw;
}

/* Works out the names of the abstract origin ORIGIN once, as entry
 * KEY of d->origins. */
static void origin_names(sp_resolver *d, Dwarf_Die *origin, uint64_t key)
{
	oname o;
	o.raw = die_raw_name(origin, &o.linkage);
	o.name = demangled(d, o.raw);
	o.decl_line = sp_small(attr_int(origin, DW_AT_decl_line, true));
	SP_PUSH(d->onames, d->n_onames, d->cap_onames, o);
	sp_u64map_put(&d->origins, key, d->n_onames - 1);
}

static void name_node_dwarf(sp_resolver *d, const sp_cu *ci, sp_fn_node *n)
{
	Dwarf_Die die, origin;
	Dwarf_Attribute a;
	uint64_t v;
	n->named = true;
	if (n->from_raw) {
		/* origin and call attributes known: libdw only for a new origin */
		uint64_t key = ci->key + n->origin + 1;
		bool found = sp_u64map_get(&d->origins, key, &v);
		if (!found && dwarf_offdie(ci->dw, n->origin, &origin)) {
			origin_names(d, &origin, key);
			found = sp_u64map_get(&d->origins, key, &v);
		}
		if (found) {
			n->raw = d->onames[v].raw;
			n->name = d->onames[v].name;
			n->decl_line = d->onames[v].decl_line;
			n->linkage = d->onames[v].linkage;
			if (n->inlined && n->call_file_idx >= 0 &&
			    (uint64_t)n->call_file_idx < ci->n_call_files)
				n->call_file = ci->call_fnames[n->call_file_idx];
			if (!n->inlined) {
				n->call_line = n->call_col = 0;
				n->call_discr = 0;
			}
			return;
		}
		n->call_line = n->call_col = 0;
		n->call_discr = 0;
	}
	if (!dwarf_offdie(ci->dw, n->off, &die))
		return;
	/* Every inlined copy of a function names the same abstract origin:
	 * its name is worked out once. */
	Dwarf_Die *from = &die;
	uint64_t key = 0;
	if (dwarf_attr(&die, DW_AT_abstract_origin, &a) && dwarf_formref_die(&a, &origin)) {
		from = &origin;
		key = ci->key + dwarf_dieoffset(&origin) + 1;
	}
	if (key && !sp_u64map_get(&d->origins, key, &v)) {
		origin_names(d, from, key);
		sp_u64map_get(&d->origins, key, &v);
	}
	if (key) {
		n->raw = d->onames[v].raw;
		n->name = d->onames[v].name;
		n->decl_line = d->onames[v].decl_line;
		n->linkage = d->onames[v].linkage;
	} else {
		n->raw = die_raw_name(from, &n->linkage);
		n->name = demangled(d, n->raw);
		n->decl_line = sp_small(attr_int(from, DW_AT_decl_line, true));
	}
	if (dwarf_tag(&die) == DW_TAG_inlined_subroutine) {
		int64_t f = attr_int(&die, DW_AT_call_file, false);
		if (f >= 0 && (size_t)f < ci->n_call_files)
			n->call_file = ci->call_fnames[f];
		n->call_line = attr_int(&die, DW_AT_call_line, false);
		n->call_col = sp_small(attr_int(&die, DW_AT_call_column, false));
		int64_t discr = attr_int(&die, DW_AT_GNU_discriminator, false);
		n->call_discr = discr > 0 && discr <= 0xffffff ? (uint32_t)discr : 0;
	}
}


static const char *go_name(sp_resolver *d, const char *sym);

/* Names node N of unit CI: its DWARF names, and the name binutils gives
 * it once it has looked the function up (bfd's dwarf2.c: a function
 * without a linkage name takes the name of the symbol that starts where
 * its code starts, when there is one).  binutils' very first look-up in
 * such a function names it after the symbol holding that address, which
 * it does not do again: symprof answers every address as binutils
 * answers all but that first one. */
static void name_node(sp_resolver *d, const sp_cu *ci, sp_fn_node *n)
{
	name_node_dwarf(d, ci, n);
	n->gnu_name = n->name;
	sp_symtab_hit h;
	if (!n->linkage && !ci->plain_names && n->low != UINT64_MAX &&
	    sp_symtab_lookup(&d->syms, d->m->mod, n->low + d->m->dwbias, &h) &&
	    h.value == n->low + d->m->dwbias)
		n->gnu_name = ci->go ? go_name(d, h.name) : demangled(d, h.name);
}

static sp_frame *scratch(sp_resolver *d, size_t n)
{
	if (n > d->cap_scratch) {
		d->cap_scratch = n * 2;
		d->scratch = sp_xreallocarray(d->scratch, d->cap_scratch, sizeof(sp_frame));
	}
	return d->scratch;
}

/* Copies N frames (N <= 64 + 1, the deepest chain kept) into stable
 * storage: blocks that never move. */
static const sp_frame *keep_frames(sp_resolver *d, const sp_frame *f, size_t n)
{
	if (n == 0)
		return NULL;
	if (d->n_blocks == 0 || d->block_used + n > FRAME_BLOCK) {
		SP_PUSH(d->blocks, d->n_blocks, d->cap_blocks,
			sp_xreallocarray(NULL, FRAME_BLOCK, sizeof(sp_frame)));
		d->block_used = 0;
	}
	sp_frame *dst = d->blocks[d->n_blocks - 1] + d->block_used;
	memcpy(dst, f, n * sizeof(*f));
	d->block_used += n;
	return dst;
}

/* Frames of ADDR from Go's pc-line table (read at the first call) into
 * the scratch frames: how many, 0 when it has none or does not hold ADDR.
 * A malformed table, or record of ADDR's function, is *ERR. */
static size_t go_frames(sp_resolver *d, uint64_t addr, sp_error **err)
{
	if (!d->go_tried) {
		Dwarf_Addr bias;
		d->go_tried = true;
		d->go_err = sp_gopcln_from_elf(dwfl_module_getelf(d->m->mod, &bias), d->m->path,
					       &d->go);
	}
	if (d->go_err) {
		*err = sp_error_dup(d->go_err);
		return 0;
	}
	sp_gopcln_frame gf[64];
	size_t n = 0;
	if (!d->go || (*err = sp_gopcln_lookup(d->go, addr, gf, SP_ARRAY_LEN(gf), &n)) != NULL ||
	    n == 0)
		return 0;
	sp_frame *f = scratch(d, n);
	memset(f, 0, n * sizeof(*f));
	for (size_t i = 0; i < n; i++) {
		/* Go's names are not mangled: the name is the raw one */
		f[i].name = f[i].system_name = gf[i].name;
		f[i].file = gf[i].file;
		f[i].line = gf[i].line;
		f[i].inlined = i + 1 < n;
	}
	return n;
}

/* A Go symbol's function name: without the suffix of an ABI wrapper
 * (".abi0": an assembly function, ".abiinternal"), which Go's own tools
 * and its pc-line table leave out, so that one function has one name; the
 * symbol keeps it as the system name.  Cached as demangled names are. */
static const char *go_name(sp_resolver *d, const char *sym)
{
	static const char *const suffixes[] = {".abi0", ".abiinternal"};
	uint64_t v;
	if (sp_u64map_get(&d->names, (uint64_t)(uintptr_t)sym, &v))
		return v ? d->dnames[v - 1] : sym;
	size_t len = strlen(sym);
	for (size_t i = 0; i < SP_ARRAY_LEN(suffixes); i++) {
		size_t sl = strlen(suffixes[i]);
		if (len > sl && !strcmp(sym + len - sl, suffixes[i])) {
			SP_PUSH(d->dnames, d->n_dnames, d->cap_dnames, sp_xstrndup(sym, len - sl));
			sp_u64map_put(&d->names, (uint64_t)(uintptr_t)sym, d->n_dnames);
			return d->dnames[d->n_dnames - 1];
		}
	}
	return demangled(d, sym);
}

static size_t resolve_uncached(sp_resolver *d, uint64_t addr, sp_frame **out, sp_error **err)
{
	uint64_t dwfl_addr;
	const char *symname = NULL;
	size_t n = 0;

	*err = NULL;
	*out = d->scratch;
	if (!sp_module_to_dwfl(d->m, addr, &dwfl_addr))
		return 0;

	sp_cu *ci = d->m->dw ? sp_units_find(&d->units, dwfl_addr - d->m->dwbias) : NULL;
	if (ci) {
		uint64_t a = dwfl_addr - d->m->dwbias;
		uint32_t chain[64];
		size_t depth = sp_cu_chain(ci, a, chain, SP_ARRAY_LEN(chain));
		const sp_line_row *row = sp_cu_line(ci, a);
		const char *row_file = row && row->file < ci->n_files ? ci->fnames[row->file] : NULL;
		size_t nf = depth ? depth : 1;
		sp_frame *f = scratch(d, nf);
		memset(f, 0, nf * sizeof(*f));
		for (size_t i = 0; i < depth; i++) {
			sp_fn_node *fn = &ci->fn.nodes[chain[depth - 1 - i]];
			if (!fn->named)
				name_node(d, ci, fn);
			f[i].name = fn->name;
			f[i].gnu_name = fn->gnu_name;
			f[i].system_name = fn->raw;
			f[i].start_line = fn->decl_line;
			f[i].inlined = i + 1 < depth;
			if (i == 0) {
				if (row) {
					f[i].file = row_file;
					f[i].line = row->line;
					f[i].column = row->col;
					f[i].discriminator = row->discr;
				}
			} else {
				sp_fn_node *inner = &ci->fn.nodes[chain[depth - i]];
				f[i].file = inner->call_file;
				f[i].line = inner->call_line;
				f[i].column = inner->call_col;
				f[i].discriminator = inner->call_discr;
			}
		}
		if (depth == 0 && row) {
			f[0].file = row_file;
			f[0].line = row->line;
			f[0].column = row->col;
			f[0].discriminator = row->discr;
		}
		n = nf;
		if (depth == 0 && !row)
			n = 0;
	}
	/* Go code without DWARF: Go's own table, which names every frame */
	d->last_go = false;
	if (n == 0 && d->m->etype != ET_REL && (n = go_frames(d, addr, err)) != 0) {
		d->last_go = true;
		*out = d->scratch;
		return n;
	}
	/* The outermost frame takes the symbol table's name when there is one,
	 * as llvm-symbolizer does: static functions and templates often carry
	 * no linkage name in DWARF, while the symbol is mangled and unique. */
	sp_symtab_hit hit;
	symname = sp_symtab_lookup(&d->syms, d->m->mod, dwfl_addr, &hit) ? hit.name : NULL;
	if (symname) {
		if (n == 0) {
			sp_frame *f = scratch(d, 1);
			memset(f, 0, sizeof(*f));
			f->file = hit.file; /* the symbol table's own word on the source */
			n = 1;
		}
		const char *name = ci && ci->go ? go_name(d, symname) : demangled(d, symname);
		d->scratch[n - 1].system_name = symname;
		d->scratch[n - 1].name = name;
		/* (binutils names a frame after its DWARF function: name_node) */
		if (!d->scratch[n - 1].gnu_name)
			d->scratch[n - 1].gnu_name = name;
	}
	if (n && *err) { /* the symbol table named it after all */
		sp_error_free(*err);
		*err = NULL;
	}
	*out = d->scratch;
	return n;
}

static sp_error *ensure_open(sp_resolver *d)
{
	if (!d->opened)
		d->open_err = open_module(d);
	if (d->open_err)
		return sp_error_dup(d->open_err);
	return NULL;
}

sp_error *sp_resolver_section_address(sp_resolver *d, const char *name, uint64_t *out)
{
	sp_error *e = ensure_open(d);
	if (e)
		return e;
	GElf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(d->m->mod, &bias);
	size_t shstrndx;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return sp_error_new(SP_E_LIBDW, "%s: %s", d->m->path, dwfl_errmsg(-1));
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *n;
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) &&
		    (n = elf_strptr(elf, shstrndx, sh.sh_name)) && !strcmp(n, name)) {
			*out = sh.sh_addr + bias;
			return NULL;
		}
	}
	return sp_error_new(SP_E_NOT_FOUND, "%s: no allocated section %s", d->m->path, name);
}

sp_error *sp_resolver_open(sp_resolver *d)
{
	return ensure_open(d);
}

sp_error *sp_resolver_units(sp_resolver *d, sp_units **out)
{
	*out = NULL;
	sp_error *e = ensure_open(d);
	if (!e && d->m->dw) {
		sp_units_full(&d->units);
		*out = &d->units;
	}
	return e;
}

bool sp_resolver_last_go(const sp_resolver *d)
{
	return d->last_go;
}

sp_error *sp_resolver_open_parts(sp_resolver *d, sp_resolver_parts *out)
{
	*out = (sp_resolver_parts){0};
	sp_error *e = ensure_open(d);
	if (e)
		return e;
	out->m = d->m;
	if (d->m->dw) {
		sp_units_full(&d->units);
		out->units = &d->units;
	}
	out->syms = &d->syms;
	if (d->m->etype != ET_REL) {
		sp_error *ge = NULL;
		go_frames(d, 0, &ge); /* reads the table */
		sp_error_free(ge);
		out->go = d->go;
	}
	return NULL;
}

/* Fills OUT from symbol H (dwfl addresses) of D's table. */
static void symbol_out(sp_resolver *d, const sp_symtab_hit *h, sp_symbol *out)
{
	uint64_t v;
	out->name = h->name;
	out->demangled = demangled(d, h->name);
	out->size = h->size;
	out->value = sp_module_from_dwfl(d->m, h->value, &v) ? v : h->value;
}

sp_error *sp_resolver_symbol_at(sp_resolver *d, uint64_t addr, sp_symbol *out)
{
	*out = (sp_symbol){0};
	sp_error *e = ensure_open(d);
	uint64_t a, start;
	if (e || !sp_module_to_dwfl(d->m, addr, &a))
		return e;
	sp_symtab_hit h;
	if (sp_symtab_lookup(&d->syms, d->m->mod, a, &h))
		symbol_out(d, &h, out);
	const sp_symtab_section *s = sp_symtab_section_of(&d->syms, d->m->mod, a);
	if (s) {
		out->section = s->name;
		out->section_start = sp_module_from_dwfl(d->m, s->lo, &start) ? start : s->lo;
	}
	return NULL;
}

sp_error *sp_resolver_symbol_named(sp_resolver *d, const char *name, sp_symbol *out)
{
	*out = (sp_symbol){0};
	sp_error *e = ensure_open(d);
	if (e)
		return e;
	sp_symtab_hit h;
	if (!sp_symtab_find(&d->syms, d->m->mod, name, &h))
		return sp_error_new(SP_E_NOT_FOUND, "%s: no symbol %s", d->m->path, name);
	symbol_out(d, &h, out);
	return NULL;
}

bool sp_resolver_warm(const sp_resolver *d, uint64_t addr)
{
	uint64_t dwfl_addr;
	if (!d->opened || d->open_err)
		return d->opened;
	if (!d->m->dw || !sp_module_to_dwfl(d->m, addr, &dwfl_addr))
		return true;
	return sp_units_warm(&d->units, dwfl_addr - d->m->dwbias);
}

sp_error *sp_resolver_resolve_once(sp_resolver *d, uint64_t addr, const sp_frame **frames, size_t *n)
{
	*frames = NULL;
	*n = 0;
	sp_error *e = ensure_open(d);
	if (e)
		return e;
	sp_frame *f;
	*n = resolve_uncached(d, addr, &f, &e);
	if (e)
		return e;
	*frames = *n ? f : NULL;
	return NULL;
}

sp_error *sp_resolver_resolve(sp_resolver *d, uint64_t addr, const sp_frame **frames, size_t *n)
{
	*frames = NULL;
	*n = 0;
	sp_error *e = ensure_open(d);
	if (e)
		return e;
	uint64_t v;
	if (sp_u64map_get(&d->addr_cache, addr, &v)) {
		*frames = d->results[v].f;
		*n = d->results[v].n;
		return NULL;
	}
	sp_frame *f;
	size_t nf = resolve_uncached(d, addr, &f, &e);
	if (e)
		return e;
	result r = {keep_frames(d, f, nf), nf};
	SP_PUSH(d->results, d->n_results, d->cap_results, r);
	sp_u64map_put(&d->addr_cache, addr, d->n_results - 1);
	*frames = r.f;
	*n = r.n;
	return NULL;
}

