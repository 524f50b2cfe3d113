/* internal.h — private interfaces between the files of the symbolize layer.
 * Nothing outside symbolize/ (except unit tests) includes this header.
 */
#ifndef SYMPROF_SYMBOLIZE_INTERNAL_H
#define SYMPROF_SYMBOLIZE_INTERNAL_H

#include "symbolize/symbolize.h"

/* ------------------------------------------------------------------------ */
/* dwarf.c: the resolver for one ELF file.                                   */

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

/* Path of the separate debug file libdwfl used, or NULL (borrowed). */
const char *sp_dwarf_debug_path(const sp_dwarf *d);
/* Every place looked for separate debug info (borrowed). */
const sp_find_log *sp_dwarf_find_log(const sp_dwarf *d);

/* ------------------------------------------------------------------------ */
/* session.c                                                                */

/* The path the object was opened from (borrowed until sp_symbolizer_free). */
const char *sp_object_path(const sp_object *o);
/* The separate debug file in use, or NULL (borrowed). */
const char *sp_object_debug_path(const sp_object *o);
/* Where separate debug info was looked for, or NULL (borrowed). */
const sp_find_log *sp_object_debug_log(const sp_object *o);
/* The session's finder, created at first use (borrowed until
 * sp_symbolizer_free): one debuginfod client per session. */
sp_finder *sp_symbolizer_finder(sp_symbolizer *s);

#endif
