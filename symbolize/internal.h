/* internal.h — private interfaces between the files of the symbolize layer.
 * Nothing outside symbolize/ (except unit tests) includes this header.
 */
#ifndef SYMPROF_SYMBOLIZE_INTERNAL_H
#define SYMPROF_SYMBOLIZE_INTERNAL_H

#include "symbolize/symbolize.h"

#include <libelf.h>

/* ------------------------------------------------------------------------ */
/* objfile.c: opening object files.                                         */

/* Opens the object file PATH for reading.  A file compressed whole, as
 * kernel modules are installed (gzip, xz or zstd, known by their magic
 * numbers whatever the name), is decompressed into an anonymous memory
 * file, of at most the memory limit, so that libelf and libdwfl read it as
 * any other.  Returns the descriptor; or -1 with errno set and *ERR NULL
 * when PATH cannot be opened; or -1 with *ERR naming PATH (SP_E_MALFORMED
 * with the offset in the file for damaged or cut data, SP_E_LIMIT past the
 * memory limit).  *ST (when not NULL) is PATH's own status (not its
 * content's).  The file last decompressed is kept, and opening it again
 * (unchanged) gives a new descriptor of the same memory file. */
struct stat;
int sp_object_fd(const char *path, struct stat *st, sp_error **err);

/* ------------------------------------------------------------------------ */
/* resolve.c: the resolver for one ELF file (its parts: see dwarfp.h).      */

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

/* Where section NAME (allocated) of D's file is in the address space
 * sp_resolver_resolve takes: for an ET_REL without section addresses (a
 * kernel module), where libdwfl laid it out.  Opens the file. */
sp_error *sp_resolver_section_address(sp_resolver *d, const char *name, uint64_t *out);
/* Path of the separate debug file libdwfl used, or NULL (borrowed). */
/* Opens D now, as its first resolve would; returns the (cached) failure. */
sp_error *sp_resolver_open(sp_resolver *d);
const char *sp_resolver_debug_path(const sp_resolver *d);
/* Every place looked for separate debug info (borrowed). */
const sp_find_log *sp_resolver_find_log(const sp_resolver *d);
/* Why the first split unit (.dwo) that was needed could not be read, and
 * how many could not, or NULL (caller frees). */
sp_error *sp_resolver_split_error(const sp_resolver *d);

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
/* session.c                                                                */

/* sp_resolver_section_address of the object's file. */
sp_error *sp_object_section_address(sp_object *o, const char *name, uint64_t *vaddr);
/* The path the object was opened from (borrowed until sp_symbolizer_free). */
const char *sp_object_path(const sp_object *o);
/* The separate debug file in use, or NULL (borrowed). */
const char *sp_object_debug_path(const sp_object *o);
/* Where separate debug info was looked for, or NULL (borrowed). */
const sp_find_log *sp_object_debug_log(const sp_object *o);
/* sp_resolver_split_error of the object's resolver, or NULL (caller frees). */
sp_error *sp_object_split_error(const sp_object *o);
/* The session's finder, created at first use (borrowed until
 * sp_symbolizer_free): one debuginfod client per session. */
sp_finder *sp_symbolizer_finder(sp_symbolizer *s);
/* sp_symbolizer_locate for a kernel mapping (KERNEL: sp_finder_kernel, with the
 * release sp_symbolizer_set_kernel_release gave). */
sp_error *sp_symbolizer_locate_as(sp_symbolizer *s, bool kernel, const char *recorded,
				  const char *build_id, const char **found,
				  const sp_find_log **log);
/* How many times the session has asked its finder for a binary (tests). */
size_t sp_symbolizer_finder_calls(const sp_symbolizer *s);
/* The name sources loaded by sp_symbolizer_sources (each NULL when not
 * given, or not loaded yet); borrowed until sp_symbolizer_free. */
void sp_symbolizer_loaded_sources(const sp_symbolizer *s, const sp_jit_index **jit,
				  const sp_perf_map **perf, const sp_kallsyms **ksyms);

#endif
