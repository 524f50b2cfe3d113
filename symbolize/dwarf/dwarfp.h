/* dwarfp.h — private interfaces between the files of symbolize/dwarf/ (its
 * face to the rest of symbolize/ is dwarf.h).  Nothing outside dwarf/ (except
 * unit tests) includes this header.
 */
#ifndef SYMPROF_SYMBOLIZE_DWARFP_H
#define SYMPROF_SYMBOLIZE_DWARFP_H

#include "symbolize/dwarf/dwarf.h"
#include "symbolize/find/find.h"

#include <gelf.h>

/* The discriminator of an inlined call (a GNU extension GCC and Clang
 * write; elfutils' dwarf.h does not name it). */
#define DW_AT_GNU_discriminator 0x2136

/* Binary search over sorted tables: the first index in [LO, HI) whose
 * KEY_AT(i) is above ADDR (HI if none), left in LO. */
#define SP_UPPER_BOUND(lo, hi, key_at, addr)                                             \
	do {                                                                             \
		while ((lo) < (hi)) {                                                    \
			size_t mid_ = (lo) + ((hi) - (lo)) / 2;                          \
			if (key_at(mid_) <= (addr))                                      \
				(lo) = mid_ + 1;                                         \
			else                                                             \
				(hi) = mid_;                                             \
		}                                                                        \
	} while (0)

/* ------------------------------------------------------------------------ */
/* zsec.c: compressed debug sections, decompressed through common/.        */

#ifndef ELFCOMPRESS_ZSTD
#define ELFCOMPRESS_ZSTD 2 /* the gABI's value; older elf.h lack it */
#endif

/* ELFDATA2LSB or ELFDATA2MSB: the byte order of the machine running. */
static inline int sp_elf_host_order(void)
{
	static const uint16_t one = 1;
	return *(const uint8_t *)&one ? ELFDATA2LSB : ELFDATA2MSB;
}

/* The compression header of the compressed section SCN (header SH) of ELF
 * (the file PATH; NAME the section's) into *CH, and the compressed bytes
 * after it into *SRC and *N (borrowed from ELF).  Read from the file's
 * image when it is in the host's byte order (*RAW then: libelf has not
 * read the section's data). */
/* Asks the kernel to read now, in large requests, the sections of ELF's
 * file (mapped by libelf) for which WANTED says so: the ones read from
 * their start to their end, such as compressed sections and symbol
 * tables.  A cold page cache would otherwise fill them a fault at a time,
 * and every fault a read of the device's read-ahead window around it. */
void sp_sections_willneed(Elf *elf, bool (*wanted)(const char *name, const GElf_Shdr *sh));
sp_error *sp_section_compressed(const char *path, const char *name, Elf *elf, Elf_Scn *scn,
				const GElf_Shdr *sh, GElf_Chdr *ch, const char **src, size_t *n,
				bool *raw);
/* The compressed section NAME of PATH (header CH, zlib or zstd; data
 * SRC[0..n)) decompressed into *OUT (malloc'd, CH->ch_size bytes); or,
 * with LAZY and zlib, *LAZY ready to decompress as far as it is read (*OUT
 * NULL; SRC borrowed until sp_lazy_free).  SP_E_MALFORMED naming file and
 * section for corrupt data or a size beyond what the compressed bytes can
 * hold; the bomb rule's error for one beyond the memory limit. */
sp_error *sp_section_decompress(const char *path, const char *name, const GElf_Chdr *ch,
				const char *src, size_t n, void **out, sp_lazy **lazy);

/* ------------------------------------------------------------------------ */
/* module.c                                                                  */

/* An allocated section: where it is and its size (NOBITS ones too). */
typedef struct {
	uint64_t addr, size;
} sp_alloc_section;

/* The address below which a file's debug information describes code the
 * linker discarded: a linker resolves the addresses of code it dropped (an
 * unused COMDAT copy, a function of a section --gc-sections removed) to 0
 * or to a small addend, and the debug information keeps them.  It is the
 * lowest address of the N allocated sections SECS that are not empty (a
 * debug-only file keeps their addresses and sizes as NOBITS), 0 when there
 * is none, and 0 for a relocatable object (ETYPE ET_REL), whose addresses
 * start at 0.  Ranges starting below it are dropped (units.c). */
uint64_t sp_code_low_bound(int etype, const sp_alloc_section *secs, size_t n);

/* ------------------------------------------------------------------------ */
/* functree.c: what the DIE walks (die.c, units.c) build per unit.         */

/* A subprogram or inlined subroutine with code.  Node 0 is the root.
 * (Ordered so that no byte is padding: a unit holds tens of thousands.) */
typedef struct {
	Dwarf_Off off;        /* its DIE */
	uint32_t parent;
	uint32_t child_first; /* into sp_fn_tree.ranges */
	uint32_t child_n;
	uint32_t call_discr;  /* DW_AT_GNU_discriminator of an inlined call, or 0 */
	int32_t call_file_idx; /* when from_raw; -1 none */
	bool named;           /* the fields below are filled */
	bool from_raw;        /* origin and call_* read from the DIE bytes */
	bool inlined;
	bool linkage;         /* raw is a linkage name */
	Dwarf_Off origin;     /* DW_AT_abstract_origin's DIE, when from_raw */
	const char *raw;      /* linkage name, else name; NULL if none */
	const char *name;     /* demangled (or raw) */
	const char *gnu_name; /* as binutils names it (sp_frame.gnu_name) */
	const char *call_file;
	int64_t call_line;
	int32_t call_col, decl_line; /* 0 past what 31 bits hold (sp_frame's) */
	uint64_t low;         /* where its first range (in DWARF's order) starts */
} sp_fn_node;

/* One range of a node, with the node's children (copied from the node,
 * so a descent reads the ranges only). */
typedef struct {
	uint64_t lo, hi;
	uint32_t parent, node;
	uint32_t child_first, child_n;
} sp_fn_range;

/* Nodes and ranges in the walk's (pre-)order; ranges are sorted by
 * units.c once the walk is done. */
typedef struct {
	sp_fn_node *nodes;
	size_t n_nodes, cap_nodes;
	sp_fn_range *ranges;
	size_t n_ranges, cap_ranges;
} sp_fn_tree;

/* V as a 32-bit column or line: 0 (unknown) past what 31 bits hold. */
static inline int32_t sp_small(int64_t v)
{
	return v > 0 && v <= INT32_MAX ? (int32_t)v : 0;
}

/* Appends a node for the DIE at OFF under PARENT; returns its index. */
static inline uint32_t sp_fn_add_node(sp_fn_tree *t, Dwarf_Off off, uint32_t parent)
{
	sp_fn_node n = {0};
	n.off = off;
	n.parent = parent;
	n.low = UINT64_MAX;
	SP_PUSH(t->nodes, t->n_nodes, t->cap_nodes, n);
	return (uint32_t)(t->n_nodes - 1);
}

/* Appends [LO, HI) of NODE, a child of PARENT. */
static inline void sp_fn_add_range(sp_fn_tree *t, uint64_t lo, uint64_t hi, uint32_t parent,
				   uint32_t node)
{
	sp_fn_range r = {lo, hi, parent, node, 0, 0};
	SP_PUSH(t->ranges, t->n_ranges, t->cap_ranges, r);
	if (t->nodes[node].low == UINT64_MAX) /* its first range, in DWARF's order */
		t->nodes[node].low = lo;
}

/* Adds the ranges dwarf_ranges gives DIE, as node DIE under PARENT when
 * there is one (*NODE, 0 when none and then left 0). */
void sp_fn_add_die_ranges(sp_fn_tree *t, Dwarf_Die *die, uint32_t parent, uint32_t *node);
/* Whether the walks skip the children of a DIE with TAG: they hold no
 * code (parameters, variables, types, call sites). */
bool sp_fn_skip_children(int tag);
void sp_fn_tree_clear(sp_fn_tree *t);

/* ------------------------------------------------------------------------ */
/* dwp.c: the unit index of a DWARF package (.dwp).                         */

/* Section kinds of the index's columns (DW_SECT_*; version 2 and 5 agree
 * on those read here). */
enum {
	SP_DWP_SECT_INFO = 1,
	SP_DWP_SECT_ABBREV = 3,
	SP_DWP_SECT_LINE = 4,
	SP_DWP_SECT_STR_OFFSETS = 6,
	SP_DWP_MAX_SECT = 8,
};

/* A .debug_cu_index read and checked: pointers into its bytes (borrowed). */
typedef struct {
	unsigned version;   /* 2 or 5 */
	uint32_t n_cols, n_units, n_slots;
	const unsigned char *ids, *rows, *sects, *offsets, *sizes;
} sp_dwp_index;

/* A unit's contributions, by section kind (DW_SECT_*). */
typedef struct {
	bool has[SP_DWP_MAX_SECT + 1];
	uint64_t off[SP_DWP_MAX_SECT + 1], size[SP_DWP_MAX_SECT + 1];
} sp_dwp_unit;

/* Reads the .debug_cu_index section [P, P + N) of the package WHAT: its
 * header, and that every table fits the bytes, every column names a known
 * section kind once and every row is a unit's.  SP_E_MALFORMED naming
 * WHAT, the offset and what was expected otherwise.  *OUT borrows P. */
sp_error *sp_dwp_index_read(const unsigned char *p, size_t n, const char *what,
			    sp_dwp_index *out);
/* The contributions of the unit with dwo id ID: false when the index has
 * none (at most one probe per slot). */
bool sp_dwp_index_find(const sp_dwp_index *ix, uint64_t id, sp_dwp_unit *out);

/* ------------------------------------------------------------------------ */
/* split.c: the split unit of a skeleton unit (-gsplit-dwarf).              */

/* A skeleton unit's split unit, in its own .dwo file.  Its DIEs (names,
 * origins, call attributes, the .dwo's file table) are read through the
 * .dwo's Dwarf; its addresses (DW_FORM_addrx, DW_FORM_GNU_addr_index) come
 * from the binary's .debug_addr at the skeleton's base, its range lists
 * from the .dwo's .debug_rnglists (DWARF 5) or the binary's .debug_ranges
 * at the skeleton's DW_AT_GNU_ranges_base (DWARF 4), its line rows from
 * the skeleton's line table. */
typedef struct {
	Dwarf *dw;             /* the .dwo's (owned) */
	int fd;                /* the .dwo's, -1 for a package's unit */
	Elf *elf;              /* the .dwo's, its compressed sections inflated in
				  memory; a package's unit: the view of its
				  contributions */
	void **inflated;       /* a .dwo's sections inflated (malloc'd) */
	size_t n_inflated;
	Dwarf_Die die;         /* the split unit's DIE */
	Dwarf_Off start, end;  /* the split unit in .debug_info.dwo */
	sp_line_sections sec;  /* ranges, rnglists and addr as the split unit reads them */
	uint64_t addr_base;    /* into sec.addr */
	uint64_t ranges_base;  /* added to DW_AT_ranges offsets before DWARF 5 */
	uint64_t rnglists_base; /* where DW_FORM_rnglistx's offsets start in sec.rnglists */
	uint64_t base;         /* the skeleton's base address for range lists */
	bool base_ok;
} sp_split;

/* A DWARF package (.dwp): its file and its checked unit index. */
typedef struct sp_dwp sp_dwp;

/* The package of M's file, found with sp_finder_dwp (M's finder, else one
 * made of M's options) and its index read (inflated first when it is
 * compressed): NULL into *OUT without one; an error naming the package
 * (and the offset in its index, or the section) when it is not one we
 * can read. */
sp_error *sp_dwp_open(const sp_module *m, sp_dwp **out);
void sp_dwp_free(sp_dwp *p);
const char *sp_dwp_path(const sp_dwp *p);

/* The split unit of the skeleton unit SKEL of M's DWARF (M and DWP
 * borrowed until sp_split_free): the unit of package DWP (may be NULL)
 * with the skeleton's dwo id, else its .dwo, looked for with sp_finder_dwo
 * (M's finder, else one made of M's options), every place tried added to
 * LOG, opened and matched by its dwo id.  The package's compressed
 * sections the unit reads are inflated into DWP, once.  SP_E_NOT_FOUND
 * naming the .dwo and every place looked when there is none; NULL into
 * *OUT (and no error) for a unit that is no skeleton. */
sp_error *sp_split_open(const sp_module *m, sp_dwp *dwp, sp_find_log *log,
			Dwarf_Die *skel, sp_split **out);
/* Whether SKEL names a split unit (DW_AT_dwo_name or DW_AT_GNU_dwo_name). */
bool sp_split_is_skeleton(Dwarf_Die *skel);
void sp_split_free(sp_split *s);

/* ------------------------------------------------------------------------ */
/* units.c: the compile units of one Dwarf.                                 */

/* Buckets over a sorted table of entries whose first member is a uint64_t
 * key (units.c): a search for an address looks only between the bounds
 * of its bucket, not at the log2(N) rows of a whole binary search, each
 * of them a cache miss in a large table. */
typedef struct {
	uint64_t base;
	unsigned shift;
	size_t nb;      /* 0: no index */
	uint32_t *first;
} sp_buckets;

/* Builds BI over TABLE (N entries of STRIDE bytes; BI->first freed by the
 * caller): none for a small or sparse table. */
void sp_buckets_build(sp_buckets *bi, const void *table, size_t stride, size_t n);
/* The bounds [*LO, *HI) of TABLE (N entries) where its first entry above
 * ADDR is. */
void sp_buckets_bounds(const sp_buckets *bi, size_t n, uint64_t addr, size_t *lo, size_t *hi);

typedef struct {
	Dwarf_Die die;        /* the unit's DIE (a skeleton's, for a split unit) */
	Dwarf *dw;            /* the Dwarf of its function DIEs (the .dwo's, for a split unit) */
	uint64_t key;         /* added to DIE offsets of DW to key caches across Dwarfs */
	sp_split *split;      /* once loaded, for a skeleton whose .dwo was found */
	Dwarf_Off start;      /* offset of the unit (its header) */
	Dwarf_Off end;        /* offset of the next unit, at most the section's size; 0: unknown */
	bool loaded;
	bool go;              /* a Go unit (DW_LANG_Go), once loaded */
	bool plain_names;     /* its language does not mangle: DW_AT_name is the symbol */
	sp_line_row *lines;   /* file: index into fnames */
	size_t n_lines;
	sp_fn_tree fn;
	const char **fnames;  /* absolute file names (borrowed from libdw or sp_units) */
	size_t n_files;
	const char **call_fnames; /* the file table of DW_AT_call_file: fnames, or the .dwo's */
	size_t n_call_files;
	sp_buckets line_index; /* over lines */
	sp_buckets root_index; /* over the root's child ranges */
} sp_cu;

typedef struct {
	uint64_t lo, hi;
	uint32_t cu;
} sp_cu_range;

typedef struct {
	Dwarf *dw;
	sp_module *m;         /* borrowed */
	const sp_line_sections *lsec; /* borrowed */
	bool direct_pc;
	sp_cu *cus;
	size_t n_cus;
	sp_cu_range *ranges;  /* sorted */
	size_t n_ranges;
	uint64_t *maxend;     /* prefix maximum of ranges[].hi */
	sp_u64map paths;      /* relative file name pointer -> index into names + 1 */
	char **names;         /* file names made here */
	size_t n_names, cap_names;
	size_t n_splits;      /* split units opened */
	bool dwp_tried;       /* the package was looked for */
	sp_dwp *dwp;          /* the package of the file, or NULL */
	sp_error *split_err;  /* the first split unit that could not be read */
	size_t n_split_errs;  /* how many could not */
	sp_error *split_refused; /* the first for want of memory (SP_E_LIMIT) */
	/* Partial index (.debug_info inflated as far as read, see sp_lazy):
	 * cus and ranges hold only the units .debug_aranges led to, ARANGES
	 * (sorted by lo) lead to the others; the whole index is built when
	 * they cannot answer. */
	bool partial;
	size_t cap_cus, cap_ranges;
	struct sp_arange *aranges;
	size_t n_aranges;
} sp_units;

/* Indexes every unit with code of the loaded module M (its Dwarf and
 * lsec, borrowed until sp_units_clear; its direct_pc and info_size).
 * The search for a skeleton's .dwo, when an address first falls in it,
 * adds to M's log. */
void sp_units_index(sp_units *u, sp_module *m);
void sp_units_clear(sp_units *u);
/* Indexes every unit now when the index is partial (sp_units_find does
 * that itself when it must). */
void sp_units_full(sp_units *u);
/* The unit whose ranges hold the DWARF address ADDR, loaded, or NULL. */
sp_cu *sp_units_find(sp_units *u, uint64_t addr);
/* True when an address at ADDR needs no unit loaded first (its unit is
 * loaded, or no unit holds it); false when one would be, or the partial
 * index would have to grow to tell.  Changes nothing. */
bool sp_units_warm(const sp_units *u, uint64_t addr);
/* Loads unit I (< U->n_cus) now, when it is not loaded yet. */
void sp_units_load(sp_units *u, size_t i);
/* Frees what loading unit I made (line rows, function tree), as it was
 * before its first address: the next address in it loads it again.  Names
 * already handed out stay valid (they live in the Dwarf or in U); so a
 * unit with a split unit, whose names live in its .dwo, is left loaded.
 * For a walk over every unit in bounded memory. */
void sp_units_unload(sp_units *u, size_t i);
/* The nodes of the functions holding ADDR, outermost first, at most MAX
 * of them, into CHAIN: returns how many. */
size_t sp_cu_chain(const sp_cu *cu, uint64_t addr, uint32_t *chain, size_t max);
/* The line row in force at ADDR, or NULL. */
const sp_line_row *sp_cu_line(const sp_cu *cu, uint64_t addr);

/* The function tree of unit I as the raw walk (RAW) or libdw's walk
 * builds it, before sorting, into *T (cleared by the caller with
 * sp_fn_tree_clear).  False when the raw walk leaves the unit to libdw.
 * For tests: the two must give the same nodes in the same order. */
bool sp_units_walk(sp_units *u, size_t i, bool raw, sp_fn_tree *t);

/* ------------------------------------------------------------------------ */
/* die.c: the raw DIE walk.                                               */

/* Walks the DIE tree of CU over its raw bytes (with libdw's abbreviations,
 * libdw's ranges where the bytes are not plain) into T, in the order of
 * libdw's walk.  SEC gives the range-list sections; DIRECT_PC that pcs
 * may be read from the bytes.  For a unit with a split unit (CU->split)
 * the walk is the split unit's, over its Dwarf, sections and bases.
 * False for anything it does not know: T is then partial and the caller
 * walks with libdw. */
bool sp_die_walk(Dwarf *dw, sp_cu *cu, const sp_line_sections *sec, bool direct_pc,
		   sp_fn_tree *t);
/* The base address of the unit of CUDIE for its range lists, as libdw
 * takes it (DW_AT_low_pc, else DW_AT_entry_pc, else 0): false when it is
 * the all-ones "no base". */
bool sp_unit_base(Dwarf_Die *cudie, uint64_t *base);

/* ------------------------------------------------------------------------ */
/* resolver.c                                                                */

/* Opens D as sp_resolver_resolve would and gives its units (borrowed until
 * sp_resolver_free; *OUT NULL without DWARF).  For tests of the walks. */
sp_error *sp_resolver_units(sp_resolver *d, sp_units **out);

/* ------------------------------------------------------------------------ */
/* symtab.c: names from the ELF symbol tables, by the rules written at the
 * top of symtab.c.                                                         */

typedef struct sp_fsym sp_fsym;

/* An allocated section [lo, hi) in module addresses; NAME borrowed. */
typedef struct {
	uint64_t lo, hi;
	const char *name;
} sp_symtab_section;

typedef struct {
	bool loaded;
	sp_fsym *syms;       /* the symbols that count, in table order */
	size_t n_syms;
	uint64_t *bp;        /* where the answer changes, ascending */
	uint32_t *bp_sym;    /* the answer from there on: into syms, UINT32_MAX none */
	size_t n_bp;
	sp_buckets bp_index; /* over bp */
	sp_symtab_section *secs; /* sorted by lo */
	size_t n_secs;
	uint32_t *by_name;   /* syms sorted by name, made at the first name asked */
	char **names;        /* names made here (versions cut off) */
	size_t n_names, cap_names;
} sp_symtab;

/* A symbol that names an address, or was named: NAME borrowed until
 * sp_symtab_clear, VALUE its module address, SIZE 0 when it has none. */
typedef struct {
	const char *name;
	uint64_t value, size;
	const char *file; /* a local symbol's source file (the STT_FILE symbol
			   * before it in its table, as binutils and LLVM take
			   * it), or NULL */
} sp_symtab_hit;

/* One symbol of a table, for sp_symtab_build: BIND is STB_*, ABS that its
 * section index is reserved (SHN_ABS, SHN_COMMON). */
typedef struct {
	uint64_t value, size;
	const char *name; /* borrowed until sp_symtab_clear */
	uint8_t bind;
	bool abs;
	const char *file; /* the STT_FILE before it in the table, or NULL */
} sp_symtab_symbol;

/* Rule 1: whether a defined symbol NAME of type TYPE (STT_*) in section
 * SHNDX counts at all. */
bool sp_symtab_counts(const char *name, int type, unsigned shndx);
/* Rule 5: the length of NAME without its version ("@VERSION",
 * "@@VERSION"). */
size_t sp_symtab_name_len(const char *name);
/* Makes S the table of the N symbols IN (in table order; rule 1 of
 * symtab.c already applied) and the N_SECS allocated sections SECS:
 * pure, for the table test of the rules.  Copies both. */
void sp_symtab_build(sp_symtab *s, const sp_symtab_symbol *in, size_t n,
		     const sp_symtab_section *secs, size_t n_secs);

/* The symbol of MOD naming the module address A, into *OUT: false when
 * none does.  The table is read at the first call (MOD may be NULL once
 * S is built). */
bool sp_symtab_lookup(sp_symtab *s, Dwfl_Module *mod, uint64_t a, sp_symtab_hit *out);
/* Its name only, or NULL (borrowed until sp_symtab_clear). */
const char *sp_symtab_name(sp_symtab *s, Dwfl_Module *mod, uint64_t a);
/* The allocated section holding A (its end address counts unless the next
 * section starts there), or NULL (borrowed until sp_symtab_clear). */
const sp_symtab_section *sp_symtab_section_of(sp_symtab *s, Dwfl_Module *mod, uint64_t a);
/* The first symbol in table order named NAME (without version), into
 * *OUT: false when there is none. */
bool sp_symtab_find(sp_symtab *s, Dwfl_Module *mod, const char *name, sp_symtab_hit *out);
/* Frees the table but the names made here (sp_symtab_build again). */
void sp_symtab_clear_table(sp_symtab *s);
void sp_symtab_clear(sp_symtab *s);

/* ------------------------------------------------------------------------ */
/* walk.c: every answer of a resolver, in address order.                    */

/* Addresses at which an answer may change, gathered, then sorted. */
typedef struct {
	uint64_t *v;
	size_t n, cap;
} sp_bounds;

static inline void sp_bounds_add(sp_bounds *b, uint64_t a)
{
	SP_PUSH(b->v, b->n, b->cap, a);
}

/* Sorts V[0..n): an LSD radix sort over the bytes in which they differ
 * (symtab.c). */
void sp_sort_u64(uint64_t *v, size_t n);

/* Every address where the symbol naming an address of MOD changes (the
 * table is read at the first call), into B. */
void sp_symtab_bounds(sp_symtab *s, Dwfl_Module *mod, sp_bounds *b);

/* What D answers from, opened (every unit indexed, Go's table read), for
 * walk.c; borrowed until sp_resolver_free. */
typedef struct {
	sp_module *m;
	sp_units *units;        /* NULL without DWARF */
	sp_symtab *syms;
	struct sp_gopcln *go;   /* NULL without Go's table */
} sp_resolver_parts;
sp_error *sp_resolver_open_parts(sp_resolver *d, sp_resolver_parts *out);
/* Whether the last answer of D came from Go's pc-line table (whose names
 * are never demangled). */
bool sp_resolver_last_go(const sp_resolver *d);

#endif
