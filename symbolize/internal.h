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

typedef struct sp_dwarf sp_dwarf;

/* Prepares a resolver for the ELF at PATH; nothing is opened until the
 * first sp_dwarf_resolve.  OPTS, INFO and FINDER (each may be NULL) are
 * borrowed until sp_dwarf_free: they are used to find separate debug info
 * (the finder, else sp_find_debuginfo, then libdwfl's standard search) and
 * for the demangling style. */
sp_dwarf *sp_dwarf_new(const char *path, const sp_symbolize_options *opts,
		       const sp_elf_info *info, sp_finder *finder);
void sp_dwarf_free(sp_dwarf *d);

/* Frames for the symbol-file address ADDR (for ET_REL objects: the address
 * in the space of the file's own section addresses), innermost first.
 * *N == 0 when nothing is known.  Frames and their strings are borrowed
 * until sp_dwarf_free.  Opening failures are remembered: every later call
 * returns a copy of the same error. */
sp_error *sp_dwarf_resolve(sp_dwarf *d, uint64_t addr, const sp_frame **frames, size_t *n);
/* The same without keeping the result: the frames are borrowed only until
 * the next call on D (their strings until sp_dwarf_free). */
sp_error *sp_dwarf_resolve_once(sp_dwarf *d, uint64_t addr, const sp_frame **frames,
				size_t *n);

/* Where section NAME (allocated) of D's file is in the address space
 * sp_dwarf_resolve takes: for an ET_REL without section addresses (a
 * kernel module), where libdwfl laid it out.  Opens the file. */
sp_error *sp_dwarf_section_address(sp_dwarf *d, const char *name, uint64_t *out);
/* Path of the separate debug file libdwfl used, or NULL (borrowed). */
/* Opens D now, as its first resolve would; returns the (cached) failure. */
sp_error *sp_dwarf_open(sp_dwarf *d);
const char *sp_dwarf_debug_path(const sp_dwarf *d);
/* Every place looked for separate debug info (borrowed). */
const sp_find_log *sp_dwarf_find_log(const sp_dwarf *d);
/* Why the first split unit (.dwo) that was needed could not be read, and
 * how many could not, or NULL (caller frees). */
sp_error *sp_dwarf_split_error(const sp_dwarf *d);

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

/* sp_dwarf_section_address of the object's file. */
sp_error *sp_object_section_address(sp_object *o, const char *name, uint64_t *vaddr);
/* The path the object was opened from (borrowed until sp_symbolizer_free). */
const char *sp_object_path(const sp_object *o);
/* The separate debug file in use, or NULL (borrowed). */
const char *sp_object_debug_path(const sp_object *o);
/* Where separate debug info was looked for, or NULL (borrowed). */
const sp_find_log *sp_object_debug_log(const sp_object *o);
/* sp_dwarf_split_error of the object's resolver, or NULL (caller frees). */
sp_error *sp_object_split_error(const sp_object *o);
/* The session's finder, created at first use (borrowed until
 * sp_symbolizer_free): one debuginfod client per session. */
sp_finder *sp_symbolizer_finder(sp_symbolizer *s);
/* The file of a mapping recorded as RECORDED with BUILD_ID (each may be
 * NULL): sp_finder_binary's answer, asked once per session for each
 * distinct pair and kept, failures included.  *FOUND (NULL on failure) and
 * *LOG (every candidate tried) are borrowed until sp_symbolizer_free; the
 * error returned is a copy of the finder's (caller frees). */
sp_error *sp_symbolizer_locate(sp_symbolizer *s, const char *recorded, const char *build_id,
			       const char **found, const sp_find_log **log);
/* The same for a kernel mapping (KERNEL: sp_finder_kernel, with the
 * release sp_symbolizer_set_kernel_release gave). */
sp_error *sp_symbolizer_locate_as(sp_symbolizer *s, bool kernel, const char *recorded,
				  const char *build_id, const char **found,
				  const sp_find_log **log);
/* sp_symbolizer_locate_as, each candidate accepted only when its file id is
 * HTLHASH as well (NULL: not checked), computed once per file in the
 * session (sp_filehash_cache). */
sp_error *sp_symbolizer_locate_file(sp_symbolizer *s, bool kernel, const char *recorded,
				    const char *build_id, const char *htlhash, const char **found,
				    const sp_find_log **log);
/* find/fileid.c: the file of mapping M of P (KERNEL: a kernel's), looked
 * for by each of its ids in turn: GNU build id, Go build id, then the eBPF
 * profiler's file id (htlhash) when the profile's OpenTelemetry extras
 * carry them, else its build id; a file id not found under the recorded
 * name is looked for among every file of each --binary-path directory (a
 * binary renamed since).  Appends every place tried to R's log and
 * sets R's ids and matched_by.  *FOUND as sp_symbolizer_locate; the error
 * (caller frees) is the most telling of the lookups' when none found it. */
sp_error *sp_locate_mapping(sp_symbolizer *s, const sp_profile *p, const sp_mapping *m,
			    bool kernel, const char **found, sp_mapping_report *r);
/* How many times the session has asked its finder for a binary (tests). */
size_t sp_symbolizer_finder_calls(const sp_symbolizer *s);
/* The name sources loaded by sp_symbolizer_sources (each NULL when not
 * given, or not loaded yet); borrowed until sp_symbolizer_free. */
void sp_symbolizer_loaded_sources(const sp_symbolizer *s, const sp_jit_index **jit,
				  const sp_perf_map **perf, const sp_kallsyms **ksyms);

/* ------------------------------------------------------------------------ */
/* find/filehash.c: the OpenTelemetry eBPF profiler's file id ("htlhash").  */

typedef struct {
	uint32_t h[8];
	uint64_t len;
	uint8_t buf[64];
	size_t n;
} sp_sha256;
void sp_sha256_init(sp_sha256 *s);
void sp_sha256_update(sp_sha256 *s, const void *data, size_t n);
void sp_sha256_final(sp_sha256 *s, uint8_t out[32]);

/* 32 hex digits and a NUL. */
#define SP_HTLHASH_HEX 33
/* The file id of the open regular file FD of SIZE bytes (NAME in errors). */
sp_error *sp_htlhash_fd(int fd, uint64_t size, const char *name, char hex[SP_HTLHASH_HEX]);
/* The same of the file at PATH (SP_E_NOT_FOUND, SP_E_UNRECOGNIZED when it
 * is not a regular file, SP_E_IO). */
sp_error *sp_htlhash_file(const char *path, char hex[SP_HTLHASH_HEX]);

/* File ids a session computed, by device, inode, size and modification
 * time: each file is read once however often it is a candidate. */
typedef struct sp_filehash_cache sp_filehash_cache;
sp_filehash_cache *sp_filehash_cache_new(void);
void sp_filehash_cache_free(sp_filehash_cache *c);
sp_error *sp_filehash_cache_get(sp_filehash_cache *c, const char *path,
				char hex[SP_HTLHASH_HEX]);
/* How many files were read and hashed (the others came from the cache). */
size_t sp_filehash_cache_hashed(const sp_filehash_cache *c);
/* The finder's check (sp_finder_binary_check) that a candidate's file id is
 * HTLHASH: ARG is an sp_filehash_want. */
typedef struct {
	sp_filehash_cache *cache;
	const char *htlhash;
} sp_filehash_want;
sp_try_status sp_filehash_check(const char *path, void *arg);
/* The session's cache of file ids, made at first use (borrowed until
 * sp_symbolizer_free). */
sp_filehash_cache *sp_symbolizer_filehash(sp_symbolizer *s);

#endif
