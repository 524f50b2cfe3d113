/* find.h — the face of symbolize/find/: where binaries and their debug info
 * are, by build id, path, search path, sysroot, path maps, debug dirs,
 * .gnu_debuglink and debuginfod; every place looked is logged.
 */
#ifndef SYMPROF_SYMBOLIZE_FIND_H
#define SYMPROF_SYMBOLIZE_FIND_H

#include "symbolize/elf/elf.h"
#include "symbolize/types.h"

/* ------------------------------------------------------------------------ */
/* Finding files.                                                           */

typedef enum {
	SP_TRY_OK = 0,
	SP_TRY_MISSING,
	SP_TRY_BUILD_ID_MISMATCH,
	SP_TRY_BAD_CRC,
	SP_TRY_NOT_ELF,
	SP_TRY_NO_DEBUG_INFO,
	SP_TRY_FAILED, /* e.g. debuginfod error */
	SP_TRY_DWO_ID_MISMATCH, /* a .dwo of another build of the unit */
	SP_TRY_FILE_ID_MISMATCH, /* another file id (htlhash) than the mapping's */
	SP_TRY_NOT_REGULAR, /* a device, FIFO, socket or directory */
} sp_try_status;

const char *sp_try_status_str(sp_try_status s);

typedef struct {
	char *path;
	sp_try_status status;
	char *detail; /* said instead of the status when set, e.g. "timed out after 5 s" */
} sp_find_attempt;

typedef struct {
	sp_find_attempt *v;
	size_t n, cap;
} sp_find_log;

void sp_find_log_add(sp_find_log *log, const char *path, sp_try_status status);
/* Adds a copy of every attempt of FROM to LOG. */
void sp_find_log_append(sp_find_log *log, const sp_find_log *from);
/* What to print for attempt A: its detail, else its status. */
const char *sp_find_attempt_str(const sp_find_attempt *a);
void sp_find_log_clear(sp_find_log *log);

/* Locates the binary for a mapping recorded as RECORDED (may be NULL or
 * empty) with BUILD_ID (hex or NULL): explicit search dirs (pprof's
 * candidate list), path maps + sysroot, the recorded path, then debuginfod.
 * A candidate is accepted only if its build id matches when both are known.
 * On success *FOUND (caller frees) is set; every candidate tried is logged. */
sp_error *sp_find_binary(const sp_symbolize_options *o, const char *recorded,
			 const char *build_id, char **found, sp_find_log *log);
/* Locates separate debug info for the binary BINARY with identity INFO:
 * build-id trees under every debug dir, .gnu_debuglink (CRC checked) in the
 * binary's dir, its .debug/ and <debugdir>/<dir>/, then debuginfod.
 * Returns SP_E_NOT_FOUND when there is none. */
sp_error *sp_find_debuginfo(const sp_symbolize_options *o, const char *binary,
			    const sp_elf_info *info, char **found, sp_find_log *log);

/* A finder does what sp_find_binary / sp_find_debuginfo do (they are thin
 * wrappers around a temporary one) and keeps, across lookups, the one
 * debuginfod client of a run.  debuginfod is asked only when
 * OPTS->no_debuginfod is false, the build id is known and DEBUGINFOD_URLS is
 * set and not empty.  After the first failure other than "not found"
 * (unreachable server, timeout) it is not asked again, so a dead server
 * costs one bounded wait per finder, not one per lookup.  A query that no
 * server has answered after DEBUGINFOD_TIMEOUT seconds (when that is a
 * positive number; libdebuginfod's own knob), else after 5 s, is abandoned,
 * libdebuginfod's retries included.  One build id may take 60 s in all
 * (its queries, transfers and retries; DEBUGINFOD_MAXTIME lowers it), one
 * file 1 GiB (DEBUGINFOD_MAXSIZE lowers it) and a run 4 GiB; a query past
 * either is abandoned, and a server that timed out or sent too much is
 * not asked again (libdebuginfod's retries are made within the deadline,
 * after other failures only).  A file a server sends that is not the one asked for
 * (not ELF, no or another build id, no debug info) is removed from the
 * debuginfod cache.
 * OPTS is borrowed until sp_finder_free. */
typedef struct sp_finder sp_finder;
sp_finder *sp_finder_new(const sp_symbolize_options *opts);
void sp_finder_free(sp_finder *f);
/* Whether debuginfod may be asked (it may, unless this said otherwise). */
void sp_finder_allow_debuginfod(sp_finder *f, bool allowed);
/* As sp_find_binary.  Without a sysroot the recorded path itself is tried
 * after the path-mapped one; with a sysroot it is not, because it names a
 * file of another machine's tree.  Errors (root code): SP_E_BUILD_ID_MISMATCH
 * when only mismatching candidates exist, else SP_E_UNRECOGNIZED when only
 * non-ELF ones exist, else SP_E_NOT_FOUND. */
sp_error *sp_finder_binary(sp_finder *f, const char *recorded, const char *build_id,
			   char **found, sp_find_log *log);
/* As sp_finder_binary, a candidate accepted only when CHECK (called with
 * ARG, after the build id comparison) says SP_TRY_OK of it: a file id
 * (htlhash) that must match, for a mapping without build ids. */
sp_error *sp_finder_binary_check(sp_finder *f, const char *recorded, const char *build_id,
				 sp_try_status (*check)(const char *path, void *arg), void *arg,
				 char **found, sp_find_log *log);
/* Kernel mappings of perf.data.  RECORDED names the kernel image
 * ("[kernel.kallsyms]", perf's "[kernel.kallsyms]_text") or a module (its
 * .ko path as perf recorded it, or perf's "[name]"); RELEASE is the
 * recording's kernel release (OSRELEASE, `uname -r`; may be NULL).  The
 * vmlinux or .ko is looked for, each candidate accepted only when its build
 * id matches BUILD_ID (when both are known), in every debug dir D:
 * D/.build-id/xx/rest.debug, then for the image D/boot/vmlinux-RELEASE and
 * D/lib/modules/RELEASE/vmlinux, for a module D/PATH.debug, D/PATH and
 * NAME.ko(.debug) anywhere under D/lib/modules/RELEASE; then (under the
 * sysroot, if any) /boot/vmlinux-RELEASE and
 * /lib/modules/RELEASE/build/vmlinux, or the module's recorded path
 * (path maps and sysroot as for binaries) and NAME.ko under
 * /lib/modules/RELEASE/kernel; then debuginfod by build id.  Compressed
 * modules (.ko.xz, .ko.zst) are not read.  Errors as sp_finder_binary. */
sp_error *sp_finder_kernel(sp_finder *f, const char *recorded, const char *build_id,
			   const char *release, char **found, sp_find_log *log);
/* perf's build-id cache (perfcache.c): its root ($PERF_BUILDID_DIR, else
 * `buildid.dir` of perf's config, else ~/.debug; NULL without HOME), and
 * the kallsyms perf kept there of the kernel of build id BID (NULL when
 * none; both malloc'd). */
char *sp_find_perf_cache_root(void);
char *sp_find_perf_kallsyms(const sp_symbolize_options *o, const char *bid);

/* Whether RECORDED names the kernel image ("[kernel.kallsyms]"...). */
bool sp_kernel_image_name(const char *recorded);
/* The module a kernel mapping's RECORDED name names (caller frees; '-'
 * kept as recorded), or NULL when it names none. */
char *sp_kernel_module_name(const char *recorded);
/* As sp_find_debuginfo.  A candidate must be ELF with DWARF, and its build
 * id must match INFO's when both are known; .gnu_debuglink candidates must
 * also match the link's CRC, and a link naming BINARY itself is ignored. */
sp_error *sp_finder_debuginfo(sp_finder *f, const char *binary, const sp_elf_info *info,
			      char **found, sp_find_log *log);
/* Locates the .dwo file of a split unit of BINARY (may be NULL), recorded
 * as DWO_NAME (DW_AT_dwo_name) with DW_AT_comp_dir COMP_DIR (may be NULL):
 * the recorded path (DWO_NAME when absolute, else under COMP_DIR) through
 * the path maps and sysroot as sp_finder_binary takes recorded paths, then
 * DWO_NAME's base name beside BINARY, then under each debug dir the
 * recorded path and the base name.  A candidate must be ELF, and CHECK
 * (called with CHECK_ARG) must say SP_TRY_OK of it.  SP_E_NOT_FOUND when
 * none is, naming DWO_NAME and every place looked with its outcome. */
sp_error *sp_finder_dwo(sp_finder *f, const char *binary, const char *dwo_name,
			const char *comp_dir, sp_try_status (*check)(const char *path, void *arg),
			void *check_arg, char **found, sp_find_log *log);
/* Locates the DWARF package of BINARY: BINARY.dwp, then under each debug
 * dir its base name + ".dwp" and its absolute path + ".dwp".  A candidate
 * must be ELF.  SP_E_NOT_FOUND when none is. */
sp_error *sp_finder_dwp(sp_finder *f, const char *binary, char **found, sp_find_log *log);

#endif
