/* sources.h — the face of symbolize/sources/: names for code without a
 * mapped file, each read whole and kept by the session (the order they are
 * asked in is sources.c's, sp_name_address):
 *
 *   jitobj.c    .elf + .meta JIT objects (--jit-dir), indexed by section
 *   jitdump.c   jitdump files (jit-PID.dump, --jitdump)
 *   perfmap.c   perf maps (/tmp/perf-PID.map, --perf-map)
 *   kallsyms.c  copies of /proc/kallsyms (--kallsyms)
 *   gdbjit.c    objects registered through the GDB JIT interface, read from a
 *               live process or a core file (`symprof jit dump`)
 */
#ifndef SYMPROF_SYMBOLIZE_SOURCES_H
#define SYMPROF_SYMBOLIZE_SOURCES_H

#include "symbolize/types.h"

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
/* Whether every text symbol of K was at address 0 (a copy read without
 * the right to see addresses, kptr_restrict): K names nothing. */
bool sp_kallsyms_restricted(const sp_kallsyms *k);
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

#endif
