/* gopclntab.h — Go's pc-line table (.gopclntab): function names, file:line
 * and inline frames of Go code without DWARF (binaries linked with
 * -ldflags="-s -w").
 *
 * The reader (gopclntab.c) works on bytes: the table and, for inline trees,
 * the regions of the file's memory image that hold the functions' data.
 * Nothing outside symbolize/ (except tests and fuzz harnesses) includes it.
 */
#ifndef SYMPROF_SYMBOLIZE_GOPCLNTAB_H
#define SYMPROF_SYMBOLIZE_GOPCLNTAB_H

#include "common/common.h"

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes of the memory image at VADDR (borrowed). */
typedef struct {
	uint64_t vaddr;
	const unsigned char *data;
	size_t size;
} sp_go_region;

/* What sp_gopcln_open reads; every pointer is borrowed until
 * sp_gopcln_free. */
typedef struct {
	const unsigned char *data; /* the table, from its magic on */
	size_t size;
	uint64_t vaddr;            /* its address */
	uint64_t text_start;       /* .text's address: the base of 1.18+ entry
				    * offsets when the header's is 0 (unrelocated) */
	const sp_go_region *regions; /* where funcdata points (inline trees); may be
				      * none; the array is copied, its bytes borrowed */
	size_t n_regions;
	uint64_t gofunc;           /* moduledata.gofunc (1.18+ funcdata base); 0 unknown */
} sp_gopcln_input;

/* One frame of an address, innermost first.  Strings are borrowed from the
 * table's bytes. */
typedef struct {
	const char *name;
	const char *file; /* NULL when unknown */
	int64_t line;     /* 0 when unknown */
} sp_gopcln_frame;

typedef struct sp_gopcln sp_gopcln;

/* Layouts, by magic: Go 1.2 (0xfffffffb), 1.16 (0xfffffffa), 1.18
 * (0xfffffff0), 1.20 and later (0xfffffff1); either byte order. */
typedef enum { SP_GO12 = 12, SP_GO116 = 116, SP_GO118 = 118, SP_GO120 = 120 } sp_go_layout;

/* Checks the header and the function table of IN (sorted entries, every
 * function's record inside the table) and indexes it.  WHAT names the
 * table in errors (SP_E_MALFORMED with the offset and what was expected). */
sp_error *sp_gopcln_open(const sp_gopcln_input *in, const char *what, sp_gopcln **out);
void sp_gopcln_free(sp_gopcln *t);
sp_go_layout sp_gopcln_layout(const sp_gopcln *t);
size_t sp_gopcln_nfunc(const sp_gopcln *t);
/* The entry address of function I (< sp_gopcln_nfunc). */
uint64_t sp_gopcln_entry(const sp_gopcln *t, size_t i);

/* The frames of address PC, innermost first (inline frames when the table
 * has inline trees and IN gave where they are), at most MAX (>= 1), into F;
 * *N is 0 when no function holds PC.  A record of the function that breaks
 * the table's rules (a name, file or pc-value table out of bounds) is an
 * error with its offset. */
sp_error *sp_gopcln_lookup(sp_gopcln *t, uint64_t pc, sp_gopcln_frame *f, size_t max,
			   size_t *n);

/* Every address at which the answer of sp_gopcln_lookup may change, given
 * to FN (in no order, some more than once): the functions' entries, the end
 * of the last function, and each pc at which a function's file, line or
 * inline index changes (a malformed record gives its entry only: its
 * look-ups fail alike). */
void sp_gopcln_changes(sp_gopcln *t, void (*fn)(void *ctx, uint64_t pc), void *ctx);

/* The moduledata of the table at PCLN_VADDR of LAYOUT in REGIONS (the
 * pointer to the table followed by the one to its function names), and its
 * gofunc field: 0 when there is none or the layout has none. */
uint64_t sp_gopcln_find_gofunc(const unsigned char *pcln, size_t pcln_size, uint64_t pcln_vaddr,
			       const sp_go_region *regions, size_t n_regions);

/* The table of ELF (read through libelf; borrowed until ELF ends) into
 * *OUT, NULL when ELF has no .gopclntab section (.data.rel.ro.gopclntab in
 * position-independent executables).  A file without section headers has
 * its read-only and data segments searched for a table whose functions lie
 * in its executable segment.  PATH names the file in
 * errors. */
sp_error *sp_gopcln_from_elf(Elf *elf, const char *path, sp_gopcln **out);

#endif
