/* jitreg.h — libjitreg: tell debuggers and profilers about JIT-compiled
 * object files.
 *
 * A JIT host that emits an object file (ELF with its sections' sh_addr set
 * to where the code runs, plus symbols and DWARF) calls jitreg_register; the
 * object is linked into the GDB JIT interface list (`__jit_debug_descriptor`,
 * see the GDB manual "JIT Interface"), so gdb sees it at once, and `symprof
 * jit dump` can recover it later from the live process or from a core file.
 * Optionally every registered object is also written to a directory as
 * NAME.elf + NAME.meta, the pair `symprof convert --jit-dir` reads:
 *
 *   NAME.meta  {"sections":[{"name":"","start":0,"size":0},
 *                           {"name":".text","start":140230412435456,"size":96},...]}
 *
 * listing every section header in order (from the null section 0) with its
 * run-time start (sh_addr, or 0 when the section is not SHF_ALLOC) and size.
 *
 * Usable from C and C++; thread-safe (one process-wide mutex guards the
 * list).  The library defines the two GDB symbols itself.  Another provider
 * in the same process (libLLVM's GDBRegistrationListener, which MCJIT
 * always registers; its versioned symbols do not clash with ours) keeps a
 * list of its own: gdb and `symprof jit dump` then see only one of the two
 * lists, and an object given to both is registered twice.  Register each
 * object with one provider: remove MCJIT's built-in listener
 * (UnregisterJITEventListener of JITEventListener::createGDBRegistrationListener())
 * before adding one that calls jitreg_register.
 *
 * ABI: public structs begin with their size and keep reserved space;
 * callers zero-initialise them (size 0 means the layout of version 1).
 */
#ifndef JITREG_H
#define JITREG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define JITREG_VERSION 1

/* jitreg_options.flags */
enum {
	JITREG_COPY = 1u << 0,    /* copy the object; OBJ may be freed after the call */
	JITREG_NO_DUMP = 1u << 1, /* ignore JITREG_DUMP_DIR for this object */
};

/* Options for jitreg_register.  Zero-initialise; NULL means all defaults. */
typedef struct jitreg_options {
	size_t size;          /* sizeof(jitreg_options), or 0 for version 1 */
	const char *dump_dir; /* write NAME.elf + NAME.meta here; NULL: the
			       * JITREG_DUMP_DIR environment variable, if set */
	const char *name;     /* NAME for the dump files (no '/'), replacing
			       * older ones; NULL: "jit-<pid>-<object address
			       * in hex>", with "-<k>" appended when an earlier
			       * object at that address was dumped already */
	uint32_t flags;       /* JITREG_* flags */
	uint32_t reserved32;
	void *reserved[8];    /* must be zero */
} jitreg_options;

/* One registered object; opaque. */
typedef struct jitreg_entry jitreg_entry;

/* Registers the SIZE-byte object at OBJ (borrowed until jitreg_unregister
 * unless JITREG_COPY is given) and, when a dump directory is configured,
 * first writes it out (each file written to a temporary name and renamed
 * into place; the .meta needs OBJ to be a 64-bit ELF of this machine's byte
 * order).  On success returns 0 and sets *OUT (freed by jitreg_unregister).
 * On failure returns a negative errno value (-EINVAL for bad arguments,
 * -ENOEXEC when a dump was asked for and OBJ's section headers cannot be
 * read, -ENOMEM, or the error of the failed file operation), sets *OUT to
 * NULL and registers nothing. */
int jitreg_register(const void *obj, size_t size, const jitreg_options *opt, jitreg_entry **out);

/* Unlinks ENTRY (from jitreg_register, not yet unregistered) from the
 * list, tells the debugger, and frees ENTRY and its copy of the object.
 * jitreg_unregister(NULL) is a no-op returning 0. */
int jitreg_unregister(jitreg_entry *entry);

/* Writes the .meta JSON describing the ELF64 object OBJ into the file
 * descriptor FD (not closed).  Returns 0 or a negative errno value
 * (-ENOEXEC for an object whose section headers cannot be read). */
int jitreg_write_meta(const void *obj, size_t size, int fd);

#ifdef __cplusplus
}
#endif

#endif
