/* internal.h — private interfaces between the files of the symbolize layer.
 * Nothing outside symbolize/ (except unit tests) includes this header.
 */
#ifndef SYMPROF_SYMBOLIZE_INTERNAL_H
#define SYMPROF_SYMBOLIZE_INTERNAL_H

#include "symbolize/symbolize.h"
#include "symbolize/dwarf/dwarf.h"

/* ------------------------------------------------------------------------ */
/* session.c                                                                */

/* The path the object was opened from (borrowed until sp_symbolizer_free). */
const char *sp_object_path(const sp_object *o);
/* The separate debug file in use, or NULL (borrowed). */
const char *sp_object_debug_path(const sp_object *o);
/* Where separate debug info was looked for, or NULL (borrowed). */
const sp_find_log *sp_object_debug_log(const sp_object *o);
/* sp_resolver_split_error of the object's resolver, or NULL (caller frees). */
sp_error *sp_object_split_error(const sp_object *o);
/* The symbol index the object answers from (--index-dir), or NULL
 * (borrowed). */
const char *sp_object_index_path(const sp_object *o);
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
/* How many times the session has asked its finder for a binary (tests). */
size_t sp_symbolizer_finder_calls(const sp_symbolizer *s);
/* The name sources loaded by sp_symbolizer_sources (each NULL when not
 * given, or not loaded yet); borrowed until sp_symbolizer_free. */
void sp_symbolizer_loaded_sources(const sp_symbolizer *s, const sp_jit_index **jit,
				  const sp_perf_map **perf, const sp_kallsyms **ksyms);

#endif
