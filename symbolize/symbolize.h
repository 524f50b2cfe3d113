/* symbolize.h — turning addresses into frames.
 *
 *   load base      pure arithmetic of spec/FORMATS.md §6.2–6.3 and of
 *                  `symbolize --relative` (loadbase.c, table-tested)
 *   ELF identity   build id, ELF type, PT_LOADs, debuglink (libelf)
 *   finding files  binary search path, sysroot, path maps, debug dirs,
 *                  build-id trees, debuglink with CRC, debuginfod
 *   session        sp_symbolizer: owns one cached object per ELF (keyed by
 *                  build id, else dev+inode+size+mtime, else path), each with
 *                  one lazily opened Dwfl, and the finder's answer per
 *                  recorded path + build id; failures are cached too
 *   resolving      address -> frames with the inline chain, innermost first
 *   batches        the address order a batch is resolved in, and the engine
 *                  that answers address lists with text (batch.c)
 *   name sources   which source names an address, in one order (sources.c)
 *   demangling     libbfd, three styles
 *   profiles       sp_symbolize_profile: per mapping, de-duplicated, with a
 *                  report of what resolved and why the rest did not
 *
 * Nothing here is global: every cache hangs off an sp_symbolizer.
 *
 * Address kinds.  Three kinds of address meet here, and parameter names
 * say which one a function takes:
 *   addr        run-time address, as the profiler recorded it (a location's
 *               address; for callers already "return address - 1", the rule
 *               of spec/FORMATS.md §2.7 applied once by the reader);
 *   file_offset offset in the mapped file (a mapping's `offset`);
 *   vaddr       symbol-file address: what DWARF, .symtab and the ELF's
 *               p_vaddr speak (the `file_addr` of sp_name_query is one).
 * The one rule: vaddr = addr - base, base from sp_mapping_base() (ET_EXEC,
 * ET_DYN and kernels), sp_kernel_module_base() for kernel modules, or 0
 * for ET_REL objects a JIT placed at run-time addresses; `symbolize --relative` input is shifted by
 * sp_relative_adjust().  Every conversion is a pure function of loadbase.c
 * with rows in tests/unit/symbolize/test_loadbase.c; nothing else does this arithmetic.
 */
#ifndef SYMPROF_SYMBOLIZE_H
#define SYMPROF_SYMBOLIZE_H

#include "profile/profile.h"

#include <sys/types.h>

/* ------------------------------------------------------------------------ */
/* Options.  Zero-initialised means defaults; NULL pointers mean defaults.  */

typedef enum {
	SP_DEMANGLE_SIMPLE = 0, /* no parameter lists, no template args (pprof's) */
	SP_DEMANGLE_TEMPLATES,  /* no parameter lists, template args kept */
	SP_DEMANGLE_FULL,       /* everything libbfd prints */
	SP_DEMANGLE_NONE,       /* raw linkage names */
} sp_demangle_style;

typedef struct {
	const char *from, *to;
} sp_path_map;

typedef struct {
	const char *const *binary_paths; /* --binary-path / PPROF_BINARY_PATH */
	size_t n_binary_paths;
	const char *const *debug_dirs;   /* --debug-dir; none => /usr/lib/debug */
	size_t n_debug_dirs;
	const char *sysroot;             /* prefix for recorded paths */
	const sp_path_map *path_maps;    /* --path-map OLD=NEW, applied before sysroot */
	size_t n_path_maps;
	const char *const *jit_dirs;     /* --jit-dir: NAME.elf + NAME.meta pairs */
	size_t n_jit_dirs;
	const char *const *perf_maps;    /* --perf-map FILE, or DIR: its perf-PID.map */
	size_t n_perf_maps;
	const char *const *jitdumps;     /* --jitdump FILE (jit-PID.dump), or DIR: its
					    jit-PID.dump files */
	size_t n_jitdumps;
	const char *kallsyms;            /* --kallsyms FILE */
	bool no_debuginfod;
	bool debuginfod_quiet;           /* no line on stderr while a server is asked */
	bool no_inline;                  /* keep only the outermost frame */
	bool force_mismatch;             /* use a file that does not match its
					    mapping (sp_mapping_file_match) */
	sp_demangle_style demangle;
} sp_symbolize_options;

/* ------------------------------------------------------------------------ */
/* ELF identity (libelf).                                                   */

typedef struct {
	uint32_t type, flags;
	uint64_t offset, vaddr, filesz, memsz, align;
} sp_phdr;

typedef struct {
	char *path;
	int elf_type;           /* ET_EXEC, ET_DYN, ET_REL, ... */
	char *build_id;         /* lowercase hex (GNU or Go build id), or NULL */
	sp_phdr *loads;         /* PT_LOAD headers */
	size_t n_loads;
	bool has_text;
	uint64_t text_addr;     /* address of .text */
	bool has_stext;
	uint64_t stext;         /* address of _stext (kernels), when asked */
	bool has_dwarf;         /* .debug_info present */
	bool has_symtab;        /* .symtab or .dynsym with symbols */
	char *debuglink;        /* .gnu_debuglink file name, or NULL */
	uint32_t debuglink_crc;
	bool has_debugdata;     /* .gnu_debugdata (MiniDebugInfo) */
	dev_t dev;
	ino_t ino;
	off_t size;
	int64_t mtime_ns;
} sp_elf_info;

/* Reads identity facts of the ELF at PATH; error SP_E_UNRECOGNIZED when the
 * file is not ELF (or not a regular file), SP_E_NOT_FOUND when it does not
 * exist.  build_id is the GNU build id, else the Go build id string as it is
 * (note "Go" type 4, in .note.go.buildid); two GNU build id notes in one
 * note block are an error.  _stext is only looked up when the file name contains "vmlinux".
 * OUT is overwritten; free its contents with sp_elf_info_clear. */
sp_error *sp_elf_info_read(const char *path, sp_elf_info *out);
void sp_elf_info_clear(sp_elf_info *info);
/* CRC-32 (the one .gnu_debuglink uses) of the file at PATH. */
sp_error *sp_file_crc32(const char *path, uint32_t *crc);

/* ------------------------------------------------------------------------ */
/* Load base (pure functions, spec §6.2–6.3).                               */

/* Base for a mapping of an object of ELF type ELF_TYPE: symbol-file address
 * = runtime address - base.  SEG is the chosen PT_LOAD or NULL; STEXT the
 * kernel relocation symbol address or NULL when unknown. */
sp_error *sp_load_base(int elf_type, const sp_phdr *seg, const uint64_t *stext, uint64_t start,
		       uint64_t limit, uint64_t offset, uint64_t *base);
/* pprof's ProgramHeadersForMapping: writes matching header indices into
 * OUT (capacity n), returns how many. */
size_t sp_program_headers_for_mapping(const sp_phdr *phdrs, size_t n, uint64_t map_offset,
				      uint64_t map_size, size_t *out);
/* pprof's HeaderForFileOffset over the candidate indices. */
sp_error *sp_header_for_file_offset(const sp_phdr *phdrs, const size_t *cand, size_t n_cand,
				    uint64_t file_offset, size_t *out);
/* The base of a kernel module's mapping: perf records a module's map at
 * its run-time .text (where the kernel put the module's code, .text
 * first), and a .ko has no addresses of its own, so the base makes
 * START (the map's start) the .text's address TEXT_VADDR in the object. */
uint64_t sp_kernel_module_base(uint64_t start, uint64_t text_vaddr);
/* The PF_X PT_LOAD containing .text (kernel-like mappings), or -1. */
ssize_t sp_find_text_program_header(const sp_elf_info *info);
/* `symbolize --relative`: addresses given as offsets from where the
 * object's file offset 0 is loaded.  Symbol-file address = relative
 * address + the result (modulo 2^64): p_vaddr - p_offset of the PT_LOAD
 * with the lowest p_vaddr among LOADS[0..n) (the first of equals), 0 when
 * there is none.  For most PIEs and shared libraries it is 0; for a
 * non-PIE linked at 0x400000 it is 0x400000. */
uint64_t sp_relative_adjust(const sp_phdr *loads, size_t n);
/* The symbol-file address of the byte at FILE_OFFSET in the object's file:
 * FILE_OFFSET - p_offset + p_vaddr of the first PT_LOAD among LOADS[0..n)
 * whose file bytes [p_offset, p_offset + p_filesz) hold it.  False when
 * none does (headers, section tables, what no segment loads). */
bool sp_file_offset_vaddr(const sp_phdr *loads, size_t n, uint64_t file_offset,
			 uint64_t *vaddr);
/* The whole choice of spec §6.2–6.3 for one mapping, given the first
 * address seen in it (which must lie in [start, limit) unless the mapping
 * is kernel-like or the fake whole-space one).  Uses INFO's _stext when
 * known.  For mappings of files: ET_REL objects from a JIT, whose section
 * addresses are already run-time addresses, use base 0 and bypass this. */
sp_error *sp_mapping_base(const sp_elf_info *info, uint64_t start, uint64_t limit,
			  uint64_t offset, uint64_t first_addr, uint64_t *base);

/* ------------------------------------------------------------------------ */
/* Does a found file match the recorded mapping? (mapcheck.c; pure)         */

/* What the profile recorded about a mapping and its file. */
typedef struct {
	uint64_t start, limit, offset; /* the mapping */
	uint64_t file_size;            /* 0: not recorded */
	int64_t mtime_ns;              /* 0: not recorded */
} sp_mapping_record;

typedef enum {
	SP_FILE_MATCHES = 0,     /* or nothing could be compared */
	SP_FILE_NO_EXEC_SEGMENT, /* no executable PT_LOAD in the mapping's file range */
	SP_FILE_EXTENT_DIFFERS,  /* the mapping does not end where an executable
				    PT_LOAD's page-rounded extent does */
	SP_FILE_SIZE_DIFFERS,    /* recorded file size != the file's */
	SP_FILE_MTIME_DIFFERS,   /* recorded modification time != the file's */
} sp_file_match;

/* Compares mapping M with the file described by INFO (its PT_LOADs, size
 * and mtime); see mapcheck.c for the rules.  For SP_FILE_EXTENT_DIFFERS,
 * *SEG_SIZE gets the size (4 KiB pages) from the mapping's file offset to
 * the page end of an executable segment it overlaps, else 0. */
sp_file_match sp_mapping_file_match(const sp_mapping_record *m, const sp_elf_info *info,
				    uint64_t *seg_size);
const char *sp_file_match_str(sp_file_match w);

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

/* ------------------------------------------------------------------------ */
/* Demangling (libbfd).                                                     */

/* Returns a newly allocated demangled name, or NULL when NAME is not a
 * mangled name (or STYLE is NONE). */
char *sp_demangle(const char *name, sp_demangle_style style);

/* ------------------------------------------------------------------------ */
/* Sessions and resolving.                                                  */

typedef struct sp_symbolizer sp_symbolizer;
typedef struct sp_object sp_object;

typedef struct {
	const char *name;        /* demangled per the session's style */
	const char *system_name; /* raw linkage name */
	const char *file;        /* NULL when unknown */
	int64_t line, column;    /* 0 when unknown */
	int64_t start_line;      /* line of the function's declaration, or 0 */
	uint32_t discriminator;  /* the line's discriminator: 0 when none or unknown */
	bool inlined;            /* true for every frame but the outermost */
} sp_frame;

/* OPTS (may be NULL) is copied deeply. */
sp_symbolizer *sp_symbolizer_new(const sp_symbolize_options *opts);
void sp_symbolizer_free(sp_symbolizer *s);
const sp_symbolize_options *sp_symbolizer_options(const sp_symbolizer *s);
/* The kernel release (`uname -r`) of the profiles symbolized next (a
 * perf.data file's OSRELEASE; NULL: unknown): where the kernel's vmlinux
 * and modules are looked for (sp_finder_kernel).  RELEASE is copied. */
void sp_symbolizer_set_kernel_release(sp_symbolizer *s, const char *release);

/* A session for another thread.  libdw handles are not to be shared between
 * threads (elfutils 0.188 is built without its thread-safety option), so
 * every object is opened again in the new session, which owns its own
 * caches; what PARENT has loaded that is read-only after loading -- its
 * options and its name sources (sp_symbolizer_sources, to be called on
 * PARENT first) -- is borrowed, until PARENT is freed, which must come
 * after.  Only the new session's own calls may then run on its thread;
 * calls on PARENT that only look up (sp_name_address without JIT objects)
 * may run at the same time on another. */
sp_symbolizer *sp_symbolizer_new_worker(const sp_symbolizer *parent);

/* Opens (once per session; failures cached) the object at PATH.  When
 * EXPECTED_BUILD_ID is given and differs, fails with
 * SP_E_BUILD_ID_MISMATCH.  *OUT is borrowed until sp_symbolizer_free. */
sp_error *sp_symbolizer_object(sp_symbolizer *s, const char *path,
			       const char *expected_build_id, sp_object **out);
const sp_elf_info *sp_object_info(const sp_object *o);
/* The file of a mapping recorded as RECORDED with BUILD_ID (each may be
 * NULL): sp_finder_binary's answer, asked once per session for each
 * distinct pair and kept, failures included.  *FOUND (NULL on failure) and
 * *LOG (every candidate tried) are borrowed until sp_symbolizer_free; the
 * error returned is a copy of the finder's (caller frees). */
sp_error *sp_symbolizer_locate(sp_symbolizer *s, const char *recorded, const char *build_id,
			       const char **found, const sp_find_log **log);
/* Frames for the symbol-file address VADDR, innermost first; *N == 0 when
 * nothing is known.  Borrowed until sp_symbolizer_free. */
sp_error *sp_object_resolve(sp_object *o, uint64_t vaddr, const sp_frame **frames, size_t *n);
/* The same for a caller that keeps its own result per address: nothing is
 * cached, and the frames are borrowed only until the next resolve on O
 * (their strings until sp_symbolizer_free). */
sp_error *sp_object_resolve_once(sp_object *o, uint64_t vaddr, const sp_frame **frames,
				 size_t *n);
/* Opens O's resolver now (the debug file search included, debuginfod
 * too when the options allow it) instead of at its first address; its
 * failure is cached and returned (caller frees), as resolving would. */
sp_error *sp_object_open(sp_object *o);

/* ------------------------------------------------------------------------ */
/* JIT code and other name sources without a mapping file.                  */

/* Index of the loaded executable sections of every NAME.elf + NAME.meta
 * pair in DIRS: one sorted interval table over all objects. */
typedef struct sp_jit_index sp_jit_index;
sp_error *sp_jit_index_load(const char *const *dirs, size_t n_dirs, sp_jit_index **out);
void sp_jit_index_free(sp_jit_index *idx);
/* Path of the .elf whose loaded section contains ADDR (run-time address
 * = symbol-file address: base 0), or NULL.  Borrowed until _free. */
const char *sp_jit_index_lookup(const sp_jit_index *idx, uint64_t addr);
/* Number of executable ranges indexed. */
size_t sp_jit_index_count(const sp_jit_index *idx);

/* One entry of a .meta file: a section's name, run-time start (0 when not
 * loaded) and size. */
typedef struct {
	char *name;
	uint64_t start, size;
} sp_jit_section;

/* Parses .meta JSON {"sections":[{"name":..,"start":N,"size":N},...]}
 * strictly; errors name NAME, the byte offset and what was expected.
 * *SECS (caller frees with sp_jit_sections_free) gets *N entries. */
sp_error *sp_jit_meta_parse(const char *name, const char *data, size_t len,
			    sp_jit_section **secs, size_t *n);
void sp_jit_sections_free(sp_jit_section *secs, size_t n);
/* Writes the .meta JSON of SECS to S (one section per line). */
void sp_jit_meta_write(sp_sink *s, const sp_jit_section *secs, size_t n);
/* Every section of the in-memory ELF object OBJ (SIZE bytes, borrowed), in
 * header order from index 0: name, start = sh_addr for SHF_ALLOC sections
 * (else 0), size.  Extended section numbering is handled. */
sp_error *sp_jit_object_sections(const char *name, const void *obj, size_t size,
				 sp_jit_section **secs, size_t *n);

/* Objects registered through the GDB JIT interface (spec §5.3), recovered
 * from a live process or a core file. */
typedef struct {
	uint64_t entry_addr;   /* address of the jit_code_entry */
	uint64_t symfile_addr; /* where the object sits in the process */
	uint8_t *data;         /* symfile_size bytes */
	size_t size;
} sp_jit_object;

typedef struct {
	sp_jit_object *v;
	size_t n, cap;
	uint64_t descriptor_addr; /* run-time address of __jit_debug_descriptor */
} sp_jit_objects;

void sp_jit_objects_clear(sp_jit_objects *objs);
/* Walks __jit_debug_descriptor of the live process PID (the symbol is looked
 * for in every ELF file the process maps); memory is read with
 * process_vm_readv, else /proc/PID/mem. */
sp_error *sp_jit_read_process(pid_t pid, sp_jit_objects *out);
/* The same from the core file CORE of executable EXE: PT_LOAD segments of
 * the core hold the memory, its NT_FILE note the load bases of EXE and of
 * the libraries. */
sp_error *sp_jit_read_core(const char *core, const char *exe, sp_jit_objects *out);
/* Writes every object as DIR/jit-<n>.elf + DIR/jit-<n>.meta (n from 0),
 * each through a temporary file renamed into place. */
sp_error *sp_jit_objects_write(const sp_jit_objects *objs, const char *dir);

/* perf maps (/tmp/perf-PID.map): names for JIT addresses.  A file named
 * perf-PID.map (any directory) belongs to process PID; any other name
 * belongs to every process. */
typedef struct sp_perf_map sp_perf_map;
sp_error *sp_perf_map_load(const char *const *files, size_t n_files, sp_perf_map **out);
void sp_perf_map_free(sp_perf_map *m);
/* The process PATH's base name gives ("perf-PID.map", PID decimal, 1 to
 * 2^32-1), else 0 (every process). */
uint32_t sp_perf_map_file_pid(const char *path);
/* Name of the symbol containing ADDR or NULL; borrowed until _free.  PID
 * is the process ADDR belongs to: its own maps are asked, then those of
 * every process; PID 0 (unknown) asks every map at once. */
const char *sp_perf_map_lookup(const sp_perf_map *m, uint32_t pid, uint64_t addr);

/* jitdump files (jit-PID.dump, perfjit.c): names, and file:line where the
 * file has debug info records, for the JIT code of the header's process. */
typedef struct sp_jitdump sp_jitdump;
/* Reads FILES[0..n); an error names the file, the byte offset and what
 * was expected there (SP_E_UNRECOGNIZED when a file is no jitdump). */
sp_error *sp_jitdump_load(const char *const *files, size_t n_files, sp_jitdump **out);
void sp_jitdump_free(sp_jitdump *j);
/* How many code ranges (loads and moves) were read. */
size_t sp_jitdump_count(const sp_jitdump *j);
/* The function holding ADDR in process PID (0: any process): fills *OUT
 * with its name (name = system_name, not demangled) and, when known, its
 * file and line; the strings are borrowed until sp_jitdump_free.  False
 * when no file knows ADDR. */
bool sp_jitdump_lookup(const sp_jitdump *j, uint32_t pid, uint64_t addr, sp_frame *out);
/* Which code ADDR of process PID held at TIME (a sample's time, on the
 * clock of the jitdump records): the latest record at or before TIME whose
 * range holds ADDR, as a version for sp_jitdump_lookup_version;
 * SP_PERFJIT_NO_CODE when records hold ADDR only from a later time on; 0
 * when no record of PID holds it at any time. */
#define SP_PERFJIT_NO_CODE UINT64_MAX
uint64_t sp_jitdump_code_version(const sp_jitdump *j, uint32_t pid, uint64_t addr,
				 uint64_t time);
/* sp_jitdump_lookup for the code VERSION names; false for
 * SP_PERFJIT_NO_CODE or an ADDR outside that code. */
bool sp_jitdump_lookup_version(const sp_jitdump *j, uint64_t version, uint64_t addr,
			       sp_frame *out);
/* How many ranges hold addresses that an earlier range of their process
 * held (then sample times decide which code a sample saw). */
size_t sp_jitdump_reused(const sp_jitdump *j);
/* Whether some file's timestamps are the CPU's counter
 * (JITDUMP_FLAGS_ARCH_TIMESTAMP) rather than CLOCK_MONOTONIC. */
bool sp_jitdump_arch_timestamp(const sp_jitdump *j);

/* A copy of /proc/kallsyms: kernel symbol names. */
typedef struct sp_kallsyms sp_kallsyms;
sp_error *sp_kallsyms_load(const char *path, sp_kallsyms **out);
void sp_kallsyms_free(sp_kallsyms *k);
const char *sp_kallsyms_lookup(const sp_kallsyms *k, uint64_t addr);
/* The kernel release (`uname -r`) the kallsyms copy at PATH comes from, as
 * far as it can be told: a copy does not say so itself, so the first line
 * of PATH.osrelease when that file exists, else the running kernel's when
 * PATH is /proc/kallsyms; NULL otherwise.  *FROM (may be NULL) gets where
 * the answer came from ("PATH.osrelease", "uname") or NULL.  Caller frees. */
char *sp_kallsyms_release(const char *path, const char **from);
/* The build id of the kernel the kallsyms copy at PATH comes from: the
 * first line of PATH.buildid (hex), else the GNU build-id note of
 * PATH.notes (a copy of /sys/kernel/notes), else /sys/kernel/notes' when
 * PATH is /proc/kallsyms; NULL otherwise.  *FROM (may be NULL) gets where
 * (".buildid", ".notes", "/sys/kernel/notes") or NULL.  Lowercase; caller
 * frees. */
char *sp_kallsyms_build_id(const char *path, const char **from);
/* What a perf.data recording of kernel RECORDED (its OSRELEASE, NULL when
 * not recorded) with the kernel build id RECORDED_BUILD_ID (its build-id
 * table's [kernel.kallsyms], NULL when not recorded) and the kallsyms copy
 * at PATH say together: NULL when they agree, else a sentence for a warning
 * or `info` (caller frees).  *MISMATCH is set when the two releases, or the
 * two build ids, are known and differ. */
char *sp_kallsyms_check(const char *path, const char *recorded, const char *recorded_build_id,
			bool *mismatch);

/* The session's name sources without a mapping file (JIT objects, perf
 * maps, kallsyms; each NULL when its option is not given), loaded at the
 * first call and kept for the session: later calls, and later profiles,
 * reuse them.  A load failure is remembered too; every call then returns a
 * new copy of it (caller frees).  *JIT, *PERF and *KSYMS are borrowed until
 * sp_symbolizer_free. */
sp_error *sp_symbolizer_sources(sp_symbolizer *s, const sp_jit_index **jit,
				const sp_perf_map **perf, const sp_kallsyms **ksyms);

/* The session's jitdump files (--jitdump), NULL when none were given or
 * before sp_symbolizer_sources loaded them; borrowed until
 * sp_symbolizer_free. */
const sp_jitdump *sp_symbolizer_perfjit(const sp_symbolizer *s);

/* ------------------------------------------------------------------------ */
/* Batches of addresses (batch.c).                                          */

/* An address to resolve and what it is for (an index of the caller's). */
typedef struct {
	uint64_t addr;
	size_t tag;
} sp_addr_item;

/* Sorts ITEMS[0..n) by address, items of equal address in their order
 * (stable), so that a batch is resolved in address order, each distinct
 * address once (sp_addr_items_run).  TMP is room for N items. */
void sp_addr_items_sort(sp_addr_item *items, sp_addr_item *tmp, size_t n);
/* The end of the run of sorted ITEMS[i..n) that share ITEMS[i]'s address. */
static inline size_t sp_addr_items_run(const sp_addr_item *items, size_t n, size_t i)
{
	size_t e = i + 1;
	while (e < n && items[e].addr == items[i].addr)
		e++;
	return e;
}

/* The engine that answers lists of addresses with text (`symprof
 * symbolize`): lines of input, each an address in hex ("0x" optional) or
 * anything else, are answered in input order on one descriptor.  A block
 * of input is parsed in one pass, looked up in a cache of answer texts
 * per address (64 MiB by default, dropped when fewer than 1% of 65536
 * look-ups find their text there), its misses sorted and resolved once
 * each in address order, and the answers written with writev from where
 * they lie.  With jobs N > 1 a large block (128 KiB to 16 MiB of input
 * ready at once) is parsed, looked up, sorted, resolved and formatted on N
 * threads, each thread resolving in a session of its own
 * (sp_symbolizer_new_worker), and misses are resolved on N threads once
 * at least 2048 distinct ones come in a batch after 16384 were resolved;
 * with JIT objects in the session (--jit-dir) resolution stays on the
 * caller's thread.  The bytes written never depend on N.  The form of an
 * answer is the caller's, through these callbacks: */

/* One input line as the callbacks see it. */
typedef struct {
	uint64_t addr;    /* the address as given (when ok) */
	uint64_t vaddr;   /* addr + the batch's addr_adjust (when ok) */
	const char *line; /* the line without surrounding blanks (when not ok) */
	size_t line_len;
	bool ok;          /* the line is an address */
} sp_batch_line;

/* Most bytes a decorate callback copies for one line (sp_batch_put_copy). */
#define SP_BATCH_PREFIX_MAX 48
/* Most threads of a batch. */
#define SP_BATCH_JOBS_MAX 64

typedef struct sp_batch_emit sp_batch_emit;

typedef struct {
	/* Appends the answer to an address, its frames FR[0..n) (n == 0:
	 * nothing known; FR may be NULL), to B.  Called once per distinct
	 * address (the text is kept and reused), from any of the batch's
	 * threads at once: it must only read CTX.  Required. */
	void (*answer)(void *ctx, const sp_frame *fr, size_t n, sp_buf *b);
	/* Appends the answer to LINE (LEN bytes), which is no address, to B;
	 * from any thread, as answer.  NULL: the answer to no frames. */
	void (*bad_line)(void *ctx, const char *line, size_t len, sp_buf *b);
	/* Queues what is written for L: around its answer (sp_batch_put_answer)
	 * text that stays put (sp_batch_put: static text, L->line) or copies
	 * of at most SP_BATCH_PREFIX_MAX bytes in all (sp_batch_put_copy).
	 * From any thread, for lines in any order, but for the lines given by
	 * sp_batch_add_line: on the caller's thread, in input order.  NULL:
	 * each line's answer alone. */
	void (*decorate)(void *ctx, const sp_batch_line *l, sp_batch_emit *em);
	void *ctx;
} sp_batch_format;

void sp_batch_put(sp_batch_emit *em, const char *p, size_t n);
void sp_batch_put_copy(sp_batch_emit *em, const char *p, size_t n);
void sp_batch_put_answer(sp_batch_emit *em);

/* Zero-initialise, set size = sizeof. */
typedef struct {
	size_t size;
	sp_symbolizer *session;  /* borrowed until sp_batch_free; its name sources
				    loaded (sp_symbolizer_sources) without error */
	sp_object *object;       /* the file asked after the JIT objects, or NULL;
				    borrowed until sp_batch_free */
	const char *object_path; /* where OBJECT was opened from (the threads'
				    sessions open it again) */
	uint64_t addr_adjust;    /* symbol-file address = address + this (modulo
				    2^64; `--relative`'s sp_relative_adjust) */
	size_t cache_max;        /* bytes of answers kept for repeated addresses;
				    0: 64 MiB */
	bool no_cache;           /* keep none */
	int jobs;                /* threads, the caller's included; 0 or 1: the
				    caller's alone; at most SP_BATCH_JOBS_MAX */
	int fd;                  /* where answers are written (not closed) */
	sp_batch_format format;
} sp_batch_options;

typedef struct sp_batch sp_batch;
/* O is copied; what it points to is borrowed as said there.  One thread
 * uses a batch (its own threads are its business). */
sp_batch *sp_batch_new(const sp_batch_options *o);
void sp_batch_free(sp_batch *b);
/* Adds the line TEXT (LEN bytes, no newline; borrowed until the batch is
 * answered); a full batch (16384 lines) is answered and written. */
void sp_batch_add_line(sp_batch *b, const char *text, size_t len);
/* Answers and writes the lines added so far. */
void sp_batch_flush(sp_batch *b);
/* Reads lines from FD until its end and answers them, a block at a time:
 * as much as is ready at once (up to 1 MiB), so that a co-process writing a
 * line at a time gets each answer at once.  Returns 0, or the errno of a
 * failed read. */
int sp_batch_read_fd(sp_batch *b, int fd);
/* Writes N bytes at P after the answers written so far. */
void sp_batch_write(sp_batch *b, const char *p, size_t n);
/* The errno of the first write that failed (output stopped there), or 0. */
int sp_batch_write_error(const sp_batch *b);

/* ------------------------------------------------------------------------ */
/* Which source names an address (sources.c).                               */

/* The sources, in the one order they are asked (sp_name_address):
 *   1. JIT objects (--jit-dir): frames with lines, base 0;
 *   2. jitdump files (--jitdump): one frame, with file:line when the file
 *      has debug info;
 *   3. the mapped file, when the caller passes it (`symbolize -e FILE`);
 *   4. perf maps (--perf-map): one name;
 *   5. kallsyms (--kallsyms): one name, for kernel code only.
 * `convert` resolves a mapping's file itself, per mapping and in batches
 * (apply.c), after every address of the mapping was offered to 1, 2, 4, 5:
 * there perf maps and kallsyms name an address before its file does, while
 * for `symbolize -e FILE` the file comes first.  Both orders are those
 * symprof has always had.
 * Sources are keyed by process: a jitdump file belongs to its header's
 * pid, a perf map named perf-PID.map to PID; each and names only addresses of that process (a mapping's pid, known
 * for perf.data); pid 0 ("unknown": other inputs, `symbolize`, addresses
 * outside every recorded map) is asked of every source. */
typedef enum {
	SP_SOURCE_NONE = 0,
	SP_SOURCE_JIT_OBJECT,
	SP_SOURCE_FILE,
	SP_SOURCE_PERF_MAP,
	SP_SOURCE_KALLSYMS,
	SP_SOURCE_JITDUMP,
} sp_name_source;

typedef struct {
	uint32_t pid;          /* the process, 0 when unknown */
	uint64_t addr;         /* run-time address */
	sp_code_kind kind;     /* sp_code_kind_of the address: kallsyms only for KERNEL */
	uint64_t code_version; /* the location's (sp_location.code_version), or 0 */
	sp_object *file;       /* the mapped file to ask at step 2, or NULL */
	uint64_t file_addr;    /* ADDR as a symbol-file address of FILE */
	bool once;             /* objects resolve without caching (sp_object_resolve_once) */
} sp_name_query;

typedef struct {
	const sp_frame *frames; /* innermost first; see sp_name_address for lifetime */
	size_t n_frames;
	sp_name_source source;  /* NONE when no source knew the address */
	sp_frame one;           /* storage of a name-only answer */
	char *demangled;
} sp_named;

/* Asks the session's sources about Q->addr in the order above; fills *OUT
 * with the first answer and returns its source.  The session's sources
 * must have been loaded without error (sp_symbolizer_sources).  Frames of
 * an object are borrowed until sp_symbolizer_free, or with Q->once until
 * the next resolve on the object; a name-only frame lives in *OUT, cleared
 * by sp_named_clear (also before *OUT is reused). */
sp_name_source sp_name_address(sp_symbolizer *s, const sp_name_query *q, sp_named *out);
void sp_named_clear(sp_named *n);

/* ------------------------------------------------------------------------ */
/* Symbolizing a profile.                                                   */

typedef enum {
	SP_UNRES_NONE = 0,         /* everything resolved */
	SP_UNRES_NO_MAPPING,       /* address outside every mapping */
	SP_UNRES_UNSYMBOLIZABLE,   /* [vdso], //anon, memfd, ... */
	SP_UNRES_ANONYMOUS,        /* file-less region (e.g. JIT code without objects) */
	SP_UNRES_FILE_NOT_FOUND,
	SP_UNRES_BUILD_ID_MISMATCH,
	SP_UNRES_FILE_MISMATCH,    /* the file's segments (or size, mtime) are not
				      those of the recorded mapping: rebuilt since */
	SP_UNRES_NOT_ELF,
	SP_UNRES_NO_SYMBOLS,       /* no DWARF and no symbol for the address */
	SP_UNRES_OUTSIDE_FILE,     /* no PT_LOAD covers the address */
	SP_UNRES_ALREADY,          /* mapping was already symbolized: left alone */
	SP_UNRES_ERROR,            /* libdw / libelf error; see detail */
} sp_unresolved_reason;

const char *sp_unresolved_reason_str(sp_unresolved_reason r);

typedef struct {
	uint64_t mapping_id;        /* 0 for addresses without a mapping */
	char *recorded_path;        /* as in the profile */
	char *used_path;            /* file symbolized against, or NULL */
	char *debug_path;           /* separate debug file, or NULL */
	char *build_id;
	size_t n_addresses;         /* distinct addresses */
	size_t n_resolved;
	size_t n_reason[SP_UNRES_ERROR + 1]; /* unresolved counts per reason */
	char *detail;               /* first error message, or NULL */
	sp_find_log tried;          /* every place looked */
} sp_mapping_report;

typedef struct {
	sp_mapping_report *mappings;
	size_t n_mappings;
} sp_symbolize_report;

void sp_symbolize_report_clear(sp_symbolize_report *r);

/* Symbolizes every location of P that has no lines, per mapping, through
 * the session's cached objects; already symbolized mappings are left alone.
 * Partial symbolization is not an error; REPORT (may be NULL) says what
 * happened. */
sp_error *sp_symbolize_profile(sp_symbolizer *s, sp_profile *p, sp_symbolize_report *report);


/* ------------------------------------------------------------------------ */
/* Unwinding stack copies of a raw capture (unwind.c).                      */

struct sp_capture;

/* Where and why unwinding of some samples stopped before the end of the
 * stack: one row per process, mapping of the last frame found, and
 * reason. */
typedef struct {
	int64_t pid;
	char *path;   /* recorded path of the last frame's mapping; "" for none */
	char *reason;
	size_t count;
} sp_unwind_stop;

typedef struct {
	size_t n_samples;  /* samples that carried user registers and a stack copy */
	size_t n_complete; /* of those, unwound to the end of the stack */
	size_t n_reused;   /* of those, given an earlier sample's recorded unwind */
	sp_unwind_stop *stops;
	size_t n_stops, cap_stops;
} sp_unwind_report;

void sp_unwind_report_clear(sp_unwind_report *r);

/* An unwinder for the samples of one capture: one Dwfl per process, its
 * modules the files the session S finds (borrowed until
 * sp_unwinder_free) for the capture's maps, reported at their run-time
 * bases as unwinding meets them. */
typedef struct sp_unwinder sp_unwinder;
sp_unwinder *sp_unwinder_new(sp_symbolizer *s);
/* Unwinds every sample of C that carries x86-64 user registers and a
 * stack copy: its callchain becomes its kernel part, then the USER marker
 * and the unwound frames.  Callers' return addresses are kept as they are
 * (the capture's −1 rule applies to them); a caller frame that is itself an
 * exact pc (a signal frame) gets a USER marker of its own before it.  A
 * sample whose unwinding stops early keeps the frames found.  Callable once
 * per batch of samples (a perf round). */
void sp_unwinder_run(sp_unwinder *u, struct sp_capture *c);
/* The counts so far (borrowed until sp_unwinder_free). */
const sp_unwind_report *sp_unwinder_report(const sp_unwinder *u);
void sp_unwinder_free(sp_unwinder *u);

#endif
