/* dwarf.h — the face of symbolize/dwarf/: the resolver of one ELF file
 * (address -> frames with the inline chain, innermost first), and the module
 * unit the resolver and the per-process unwinder share.
 *
 *   resolver.c  resolution and its caches: DWARF first, then Go's pc-line
 *               table, then the symbol table (sp_resolver_*)
 *   module.c    one ELF as a module of a Dwfl: debug-info search, checked
 *               and inflated debug sections, the ET_REL section table
 *   zsec.c      compressed debug sections, decompressed through common/ (whole,
 *               or .debug_info / .debug_line lazily: as far as read)
 *   units.c     the compile-unit index, per-unit function trees, buckets
 *   functree.c  the function tree a unit's DIE walk builds
 *   die.c       the raw DIE walk: forms, abbreviations, range lists
 *   lines.c     the line-program decoder
 *   cursor.h    the one bounds-checked cursor under die.c and lines.c
 *   split.c     split units (.dwo) of skeleton units
 *   dwp.c       the .dwp package index
 *   gopclntab.c Go's pc-line table, for Go binaries without DWARF
 *   symtab.c    the .symtab / .dynsym fallback and its tie-break rules
 *   walk.c      every answer of a resolver in address order (for the index)
 *
 * The files share dwarfp.h; nothing outside dwarf/ includes it.
 */
#ifndef SYMPROF_SYMBOLIZE_DWARF_H
#define SYMPROF_SYMBOLIZE_DWARF_H

#include "symbolize/symbolize.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <libelf.h>

/* ------------------------------------------------------------------------ */
/* resolver.c: the resolver for one ELF file.                             */

typedef struct sp_resolver sp_resolver;

/* Prepares a resolver for the ELF at PATH; nothing is opened until the
 * first sp_resolver_resolve.  OPTS, INFO and FINDER (each may be NULL) are
 * borrowed until sp_resolver_free: they are used to find separate debug info
 * (the finder, else sp_find_debuginfo, then libdwfl's standard search) and
 * for the demangling style. */
sp_resolver *sp_resolver_new(const char *path, const sp_symbolize_options *opts,
		       const sp_elf_info *info, sp_finder *finder);
void sp_resolver_free(sp_resolver *d);

/* Frames for the symbol-file address ADDR (for ET_REL objects: the address
 * in the space of the file's own section addresses), innermost first.
 * *N == 0 when nothing is known.  Frames and their strings are borrowed
 * until sp_resolver_free.  Opening failures are remembered: every later call
 * returns a copy of the same error. */
sp_error *sp_resolver_resolve(sp_resolver *d, uint64_t addr, const sp_frame **frames, size_t *n);
/* The same without keeping the result: the frames are borrowed only until
 * the next call on D (their strings until sp_resolver_free). */
sp_error *sp_resolver_resolve_once(sp_resolver *d, uint64_t addr, const sp_frame **frames,
				size_t *n);

/* True when resolving ADDR would decode nothing first (D open, the compile
 * unit holding ADDR loaded or none): a cheap answer.  Opens nothing. */
bool sp_resolver_warm(const sp_resolver *d, uint64_t addr);

/* Where section NAME (allocated) of D's file is in the address space
 * sp_resolver_resolve takes: for an ET_REL without section addresses (a
 * kernel module), where libdwfl laid it out.  Opens the file. */
sp_error *sp_resolver_section_address(sp_resolver *d, const char *name, uint64_t *out);
/* The symbol naming the file address ADDR (symtab.c's rules) and the
 * allocated section holding it, into *OUT (fields NULL when none). */
sp_error *sp_resolver_symbol_at(sp_resolver *d, uint64_t addr, sp_symbol *out);
/* The first symbol named NAME: SP_E_NOT_FOUND when there is none. */
sp_error *sp_resolver_symbol_named(sp_resolver *d, const char *name, sp_symbol *out);
/* Path of the separate debug file libdwfl used, or NULL (borrowed). */
/* Opens D now, as its first resolve would; returns the (cached) failure. */
sp_error *sp_resolver_open(sp_resolver *d);
const char *sp_resolver_debug_path(const sp_resolver *d);
/* Every place looked for separate debug info (borrowed). */
const sp_find_log *sp_resolver_find_log(const sp_resolver *d);
/* Why the first split unit (.dwo) that was needed could not be read, and
 * how many could not, or NULL (caller frees). */
sp_error *sp_resolver_split_error(const sp_resolver *d);
/* The first split unit (.dwo, or a package's compressed sections) refused
 * for want of memory (SP_E_LIMIT), or NULL (borrowed until
 * sp_resolver_free): its functions' inline frames and lines are only the
 * skeleton's, which the caller must say. */
const sp_error *sp_resolver_split_refused(const sp_resolver *d);

/* ------------------------------------------------------------------------ */
/* walk.c: every answer of a resolver, for the symbol index.                */

/* One answer: what the resolver gives for every address from START up to
 * the next answer's START (the last one: up to the end of the address
 * space).  Frames as sp_resolver_resolve_once gives them (system_name is
 * the raw name, name demangled in the resolver's style), borrowed until
 * the callback returns. */
typedef struct {
	uint64_t start;
	const sp_frame *frames; /* innermost first; NULL when N == 0 */
	size_t n;
	bool go;                /* from Go's pc-line table: names are never demangled */
	const sp_error *err;    /* the look-up failed (N == 0) with this */
} sp_answer;

/* What the walk found. */
typedef struct {
	bool dwarf;    /* the file has DWARF (its own or a separate debug file's) */
	bool go;       /* Go's pc-line table */
	bool symbols;  /* function symbols */
	size_t n_keys; /* answers given */
} sp_walk_info;

typedef sp_error *sp_answer_fn(void *ctx, const sp_answer *a);

/* Calls FN with the answer at address 0 and at every address where D's
 * answer may change, in increasing order, so that one call covers every
 * address up to the next (walk.c says why that holds); consecutive
 * answers may be equal.  Units are read and freed as the walk passes them:
 * memory stays that of a few.  FN's error stops the walk and is returned;
 * so is D's failure to open, and SP_E_UNSUPPORTED for an ET_REL file
 * (whose addresses depend on where libdwfl lays out its sections). */
sp_error *sp_resolver_walk(sp_resolver *d, sp_answer_fn *fn, void *ctx, sp_walk_info *info);

/* ------------------------------------------------------------------------ */
/* lines.c: a compile unit's line table without libdw.                      */

/* One row of a line table; FILE indexes sp_line_table.files.  DISCR is
 * the row's discriminator (24 bits, as libdw keeps it), in the bytes the
 * row would otherwise pad. */
typedef struct {
	uint64_t addr;
	uint32_t file;
	int32_t line, col;
	uint32_t discr : 24;
	bool end_seq : 1;
} sp_line_row;

typedef struct {
	sp_line_row *rows; /* in libdw's order (see lines.c) */
	size_t n_rows;
	char **files;      /* names as libdw's dwarf_filesrc gives them */
	size_t n_files;
	bool *in_comp_dir; /* per file (NULL: none): a relative name that holds
			    * DW_AT_comp_dir already (directory 0 before DWARF 5) */
} sp_line_table;

/* The debug sections a line program reads, and the range lists the
 * resolver reads without libdw, little-endian and uncompressed (borrowed;
 * any may be NULL). */
typedef struct {
	const unsigned char *line, *line_str, *str;
	size_t line_size, line_str_size, str_size;
	const unsigned char *ranges, *rnglists;
	size_t ranges_size, rnglists_size;
	const unsigned char *addr; /* .debug_addr, for the split units of skeletons */
	size_t addr_size;
} sp_line_sections;

/* The sections of ELF (a Dwarf's, whose debug sections libdw has
 * decompressed in place) that sp_lines_decode can read: false, and *OUT
 * empty or partial, for big-endian data or without an uncompressed
 * .debug_line.  A .dwo file's sections (".debug_line.dwo", ...) count as
 * the same sections. */
bool sp_line_sections_get(Elf *elf, sp_line_sections *out);

/* Decodes the line program at OFFSET of .debug_line for a unit with
 * ADDR_SIZE-byte addresses and DW_AT_comp_dir COMP_DIR (may be NULL) into
 * *T, which the caller clears with sp_line_table_clear.  Returns false,
 * with *T empty, for a program that uses something this decoder leaves to
 * libdw's dwarf_getsrclines (the list is in lines.c), malformed ones
 * included. */
bool sp_lines_decode(const sp_line_sections *s, uint64_t offset, unsigned addr_size,
		     const char *comp_dir, sp_line_table *t);
void sp_line_table_clear(sp_line_table *t);

/* ------------------------------------------------------------------------ */
/* module.c: a Dwfl and its modules.                                        */

/* A Dwfl whose modules look for separate debug info with our search (see
 * sp_module) and otherwise with libdwfl's standard one.  One per resolved
 * object today; a per-process Dwfl holds several modules. */
typedef struct sp_dwfl sp_dwfl;

/* A Dwfl with the debug directories of OPTS (may be NULL; borrowed until
 * sp_dwfl_free).  WHAT names it in the error. */
sp_error *sp_dwfl_new(const sp_symbolize_options *opts, const char *what, sp_dwfl **out);
/* Ends the Dwfl: every module reported into it, and their files. */
void sp_dwfl_free(sp_dwfl *s);
/* The handle, for dwfl_report_begin/end and look-ups (borrowed). */
Dwfl *sp_dwfl_handle(sp_dwfl *s);

/* One allocated section of an ET_REL with its own address: file address
 * A in [lo, hi) is libdwfl address A + delta. */
typedef struct {
	uint64_t lo, hi;
	int64_t delta;
	size_t ndx;
} sp_rel_sec;

/* One ELF file as a module of a Dwfl.  Fields are read by the other
 * files of the resolver; only module.c writes them. */
typedef struct {
	char *path;
	const sp_symbolize_options *opts; /* these three borrowed, may be NULL */
	const sp_elf_info *info;
	sp_finder *finder;
	sp_find_log log;      /* every place looked for separate debug info */
	bool debug_searched;  /* our search ran; debug_path is its answer */
	char *debug_path;     /* the separate debug file in use, or NULL */
	int fd;               /* until libdwfl owns it */
	int etype;
	Dwfl_Module *mod;     /* once reported */
	Dwarf *dw;            /* once loaded; NULL without usable DWARF */
	Dwarf_Addr dwbias;
	size_t info_size;     /* of .debug_info as libdw reads it; 0 unknown */
	sp_rel_sec *secs;     /* ET_REL placed sections, sorted by lo */
	size_t n_secs;
	bool shifted;         /* no loadable segment: secs is the one shift of all */
	uint64_t low_bound;   /* code below this file address is discarded code (units.c) */
	sp_line_sections lsec; /* for lines.c and dwraw.c; lsec.line NULL: libdw decodes */
	bool direct_pc;        /* the raw walk reads pcs itself (see die.c) */
	bool split_pc;         /* in split units only (an ET_REL's, see sp_module_load) */
	void **inflated;       /* zstd sections inflated for libdw and us */
	size_t n_inflated;
	sp_lazy *zinfo;        /* .debug_info and .debug_line when zlib-compressed: */
	sp_lazy *zline;        /* inflated as far as units.c asks (NULL: whole) */
	const unsigned char *aranges; /* .debug_aranges as read, NULL without */
	size_t aranges_size;
	const unsigned char *abbrev; /* .debug_abbrev as read, NULL without */
	size_t abbrev_size;
	bool defer_debug;      /* sp_module_load patches the debug file in memory */
	sp_error *load_err;    /* a debug section of the separate file unreadable */
	Elf *image;            /* sp_module_share: the file mapped once, no descriptor */
	size_t *debug_fds;     /* counts the separate debug files handed to libdwfl */
} sp_module;

/* A module for the ELF at PATH; nothing is opened yet.  OPTS, INFO and
 * FINDER are borrowed until sp_module_free and used to find separate
 * debug info (the finder, else sp_find_debuginfo; libdwfl's standard
 * search without INFO). */
sp_module *sp_module_new(const char *path, const sp_symbolize_options *opts,
			 const sp_elf_info *info, sp_finder *finder);
/* Frees M; its Dwfl_Module belongs to the Dwfl (free that one first). */
void sp_module_free(sp_module *m);
/* Opens the file and checks that it is ELF. */
sp_error *sp_module_open(sp_module *m);
/* Reports the opened M into DWFL, between the caller's dwfl_report_begin
 * and dwfl_report_end, at BASE (ADD_P_VADDR as dwfl_report_elf takes it).
 * DWFL owns the file from here. */
sp_error *sp_module_report(sp_module *m, Dwfl *dwfl, Dwarf_Addr base, bool add_p_vaddr);
/* After dwfl_report_end: pairs ET_REL sections with libdwfl's layout,
 * inflates the compressed debug sections resolution reads (zlib .debug_info
 * and .debug_line only as far as units.c asks, M->zinfo and M->zline; the
 * other compressed ones hidden from libdw), gets the symbol table (which
 * opens a separate debug file, changed then in memory the same way) and
 * the DWARF, and checks its string sections; M->dw stays NULL when there
 * is none or it is malformed.  A read section compressed in a way we
 * cannot read (unknown type, corrupt data) is an error naming file and
 * section; corrupt data found later in a section inflated as it is read
 * is the reason units.c gives for the units it holds. */
sp_error *sp_module_load(sp_module *m);

/* The unwinder's way (a file mapped at many places of many processes):
 * the file is opened once and mapped (M->image), its descriptor closed;
 * each sp_module_report_shared makes one more Dwfl module of that one
 * image, at BASE (as dwfl_report_elf with ADD_P_VADDR), between the
 * caller's dwfl_report_begin_add and dwfl_report_end, with M as its user
 * data: libdwfl holds no descriptor for it (only for a separate debug
 * file it asks our search for, counted in *M->debug_fds when set).  Not
 * for an ET_REL, which libdwfl lays out in its own copy: SP_E_UNSUPPORTED.
 * M must outlive every Dwfl it is reported into. */
sp_error *sp_module_share(sp_module *m);
sp_error *sp_module_report_shared(sp_module *m, Dwfl *dwfl, Dwarf_Addr base, Dwfl_Module **out);
/* The shared image's bytes (the file as it is on disk, or decompressed),
 * NULL before sp_module_share. */
const unsigned char *sp_module_image(const sp_module *m, size_t *size);
/* ELF (of the file PATH, opened by the caller with ELF_C_READ_MMAP) with
 * its compressed debug sections changed in memory as libdw is to read
 * them, nothing copied: those resolution reads inflated by us (zlib and
 * zstd, each within the room the memory budget has), the others hidden.
 * The inflated buffers are appended to *KEEP (*N_KEEP of them), which the
 * caller frees after the Dwarf and ELF.  A section that cannot be read is
 * the error, naming the file and the section. */
sp_error *sp_debug_elf_prepare(Elf *elf, const char *path, void ***keep, size_t *n_keep);
/* The content of SCN (named NAME), a section of ELF (the file PATH) with
 * SHF_COMPRESSED, inflated into *OUT (malloc'd, *SIZE bytes; the caller
 * frees it).  SP_E_UNSUPPORTED for a compression type other than zlib and
 * zstd; SP_E_MALFORMED naming file and section for a bad header, corrupt
 * data or a size beyond what the compressed bytes can hold. */
sp_error *sp_section_inflate(const char *path, Elf *elf, Elf_Scn *scn, const char *name,
			     void **out, size_t *size);
/* The libdwfl address of file address ADDR: through the section holding
 * it in an ET_REL with placed sections (false when none holds it), else
 * the same address. */
/* The file address of libdwfl address A: false when no section holds it. */
bool sp_module_from_dwfl(const sp_module *m, uint64_t a, uint64_t *out);
/* The same through the ET_REL section table (M->n_secs > 0). */
bool sp_module_to_dwfl_rel(const sp_module *m, uint64_t addr, uint64_t *out);
static inline bool sp_module_to_dwfl(const sp_module *m, uint64_t addr, uint64_t *out)
{
	if (!m->n_secs) {
		*out = addr;
		return true;
	}
	return sp_module_to_dwfl_rel(m, addr, out);
}

#endif
