/* index.h — the face of symbolize/index/: a persistent symbol index per
 * build id.
 *
 * An index holds, for one ELF file, every answer its resolver gives
 * (dwarf/dwarf.h): the address ranges over which the answer is the same,
 * each with its frames (names, files, lines, columns, discriminators,
 * declaration lines, the inline chain).  It is built once, written as one
 * file named after the build id, and later mapped and read in place: an
 * address costs a binary search and the decoding of a few bytes, without
 * opening the file's DWARF.  The answers are byte for byte those of the
 * resolver: names are stored raw (linkage names) and demangled at answer
 * time in the reader's style, the way the resolver demangles them;
 * --no-inline and the output forms apply afterwards as for any answer.
 * docs/INDEX.md describes the format byte by byte and its checks.
 *
 *   build.c   the writer: a resolver's walk (sp_resolver_walk) to bytes
 *   read.c    the reader: open, check, map, look up, answer
 *   store.c   the directory: file names, atomic writes
 *   format.c  CRC-32C and the file name of a build id
 *
 * The files share indexp.h; nothing outside index/ includes it.
 */
#ifndef SYMPROF_SYMBOLIZE_INDEX_H
#define SYMPROF_SYMBOLIZE_INDEX_H

#include "symbolize/types.h"
#include "symbolize/elf/elf.h"
#include "symbolize/find/find.h"

/* The format's version (the layout of the bytes) and the revision of the
 * answers (what the resolver gives: bumped whenever a change of symbolize/
 * changes an answer).  A reader takes only files with both equal to its
 * own. */
#define SP_INDEX_VERSION 2
#define SP_INDEX_REVISION 1

/* What an index holds (sp_index_build fills it; sp_index_stats_of too). */
typedef struct {
	size_t size;         /* bytes of the file */
	size_t n_rows;       /* address ranges with one answer each */
	size_t n_blocks;
	size_t n_funcs;      /* distinct functions (name and declaration line) */
	size_t n_nodes;      /* distinct frames: a function inlined at one place */
	size_t n_files;
	size_t strings_size; /* bytes of names and file names */
	size_t n_keys;       /* addresses the walk resolved */
	bool dwarf, go, symbols; /* what the answers came from */
	bool split_missing;  /* some split units (.dwo) could not be read */
} sp_index_stats;

/* ------------------------------------------------------------------------ */
/* Writing (build.c, store.c).                                              */

/* Builds the index of the ELF at PATH (INFO: its identity, which must have
 * a build id) through a resolver of its own made with OPTS and FINDER
 * (borrowed; as a session makes one: the same debug file is found) into
 * *OUT (appended; the caller frees it).  STATS may be NULL.  Fails for a
 * file the resolver cannot open, or an ET_REL file. */
sp_error *sp_index_build(const char *path, const sp_elf_info *info,
			 const sp_symbolize_options *opts, sp_finder *finder, sp_buf *out,
			 sp_index_stats *stats);

/* The path of BUILD_ID's index in DIR (caller frees), or NULL when the
 * build id cannot name one (empty, or too long for a file name: over 250
 * hex digits, over 124 bytes otherwise).  A GNU build id (hex) gives
 * "HEX.spx", another (Go's) "go-HEX.spx" with its bytes in hex. */
char *sp_index_path(const char *dir, const char *build_id);

/* Writes DATA[0..n) as PATH, whole or not at all: into a temporary file
 * beside it (removed on failure or when a signal ends the process),
 * flushed to disk, then renamed over PATH.  Writers racing on one PATH
 * each rename a whole file; a reader sees one of them.  PATH's directory
 * is made when missing (one level). */
sp_error *sp_index_store(const char *path, const void *data, size_t n);

/* ------------------------------------------------------------------------ */
/* Reading (read.c).                                                        */

typedef struct sp_index sp_index;

/* Maps the index at PATH and checks it: its magic, version and revision,
 * its size field against the file's size, the checksum of its header (the
 * header, the section table and the checksums of the body's pages), the
 * section table, the size of every table against its section, and its
 * build id against BUILD_ID (NULL: not compared).  The body's pages are
 * checked against their checksums when first read (a damaged one is the
 * look-up's error).  Names are demangled in STYLE.  Errors:
 * SP_E_NOT_FOUND (no file), SP_E_BUILD_ID_MISMATCH (another build's
 * index), SP_E_UNSUPPORTED (another version or revision), SP_E_MALFORMED
 * (damaged; the message names the file, the offset and what was expected),
 * SP_E_IO. */
sp_error *sp_index_open(const char *path, const char *build_id, sp_demangle_style style,
			sp_index **out);
/* The same over DATA[0..n) (borrowed until sp_index_free); WHAT names it. */
sp_error *sp_index_open_memory(const void *data, size_t n, const char *what,
			       const char *build_id, sp_demangle_style style, sp_index **out);
void sp_index_free(sp_index *ix);

/* Frames for the symbol-file address VADDR, innermost first, as the
 * resolver gives them (*N == 0: nothing known; an error the resolver gave
 * there, or a damaged part of the file, is returned).  Frames and strings
 * are borrowed until sp_index_free. */
sp_error *sp_index_resolve(sp_index *ix, uint64_t vaddr, const sp_frame **frames, size_t *n);
/* The same without keeping the result: the frames are borrowed until the
 * next call on IX (their strings until sp_index_free). */
sp_error *sp_index_resolve_once(sp_index *ix, uint64_t vaddr, const sp_frame **frames,
				size_t *n);

/* Whether a damaged part was found (every later look-up then fails with
 * that error): the index is not to be used any further. */
bool sp_index_damaged(const sp_index *ix);

/* What the index recorded of its making (borrowed until sp_index_free;
 * NULL when none): the separate debug file its answers came from, the file
 * it was made from. */
const char *sp_index_debug_path(const sp_index *ix);
const char *sp_index_source(const sp_index *ix);
/* Why some split units could not be read when it was made, as the
 * resolver said it (caller frees), or NULL. */
sp_error *sp_index_split_error(const sp_index *ix);
/* The path it was opened from (borrowed). */
const char *sp_index_file(const sp_index *ix);
/* The build id it holds, printable (hex when its bytes are not; borrowed). */
const char *sp_index_build_id(const sp_index *ix);
/* What it holds (n_rows and n_keys are 0: sp_index_verify counts rows). */
void sp_index_stats_of(const sp_index *ix, sp_index_stats *out);
/* Checks the whole file: every page's checksum, every block of rows and
 * every node decoded and within bounds, every reference to a string, file
 * or node valid.  The first problem is the error (SP_E_MALFORMED); else
 * *STATS (may be NULL) gets what it holds, rows counted. */
sp_error *sp_index_verify(sp_index *ix, sp_index_stats *stats);

#endif
