/* elf.h — the face of symbolize/elf/: object files as ELF.
 *
 *   elfinfo.c   identity: build id, ELF type, PT_LOADs, debuglink (libelf)
 *   loadbase.c  the address arithmetic of spec/FORMATS.md §6.2–6.3 (pure,
 *               table-tested)
 *   mapcheck.c  whether a found file is the one a mapping recorded (pure)
 *   addrrule.c  whether a mapping holds ELF virtual or run-time addresses (pure)
 *   objfile.c   opening object files, decompressing whole-file streams
 */
#ifndef SYMPROF_SYMBOLIZE_ELF_H
#define SYMPROF_SYMBOLIZE_ELF_H

#include "profile/profile.h"

#include <sys/types.h>

/* ------------------------------------------------------------------------ */
/* ELF identity (libelf).                                                   */

typedef struct {
	uint32_t type, flags;
	uint64_t offset, vaddr, filesz, memsz, align;
} sp_phdr;

typedef struct {
	char *path;
	int elf_type;           /* ET_EXEC, ET_DYN, ET_REL, ... */
	int elf_class;          /* ELFCLASS32 or ELFCLASS64 */
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
/* Which addresses a mapping holds (addrrule.c; pure).                      */

typedef enum {
	SP_RULE_UNKNOWN = 0, /* its file was not opened (or a kernel or JIT object) */
	SP_RULE_ELF_VA,      /* ELF virtual addresses: load base 0 (OTLP from eBPF) */
	SP_RULE_RUNTIME,     /* run-time addresses: sp_mapping_base */
} sp_address_rule;

const char *sp_address_rule_str(sp_address_rule r);
/* The ELF virtual address where file offset OFFSET is mapped by default
 * (the eBPF profiler's FileOffsetToVirtualAddress): p_vaddr - (p_offset -
 * OFFSET) of the first executable PT_LOAD of LOADS[0..n) that holds OFFSET,
 * its start rounded down to a 4 KiB page.  False when none holds it. */
bool sp_file_offset_va(const sp_phdr *loads, size_t n, uint64_t offset, uint64_t *va);
/* A mapping at START of the file offset OFFSET of a file with LOADS holds
 * ELF virtual addresses when START is OFFSET's (sp_file_offset_va), else
 * run-time addresses. */
sp_address_rule sp_mapping_address_rule(const sp_phdr *loads, size_t n, uint64_t start,
					uint64_t offset);

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
/* Machine code of a function, and its disassembly (codefile.c, disasm.c).  */

/* One decoded instruction at a symbol-file address. */
typedef struct {
	uint64_t vaddr;   /* where it starts */
	uint8_t len;      /* its bytes: 1..15 (x86), 4 (AArch64) */
	uint8_t bytes[15];
	char *text;       /* as `objdump -d` prints it, e.g. "mov    %rsp,%rbp",
			     "call   401126 <f+0x6>" (targets as hex without 0x,
			     then <symbol+offset> when one is known) */
	bool branch;      /* a jump or call with an address operand */
	uint64_t target;  /* that address (branch only) */
} sp_insn;

/* Names an address for the <symbol+offset> after a target: the symbol
 * holding VADDR (borrowed) and *OFF, or NULL. */
typedef const char *(*sp_symbol_fn)(void *ctx, uint64_t vaddr, uint64_t *off);

/* Decodes CODE[0..n) (machine E_MACHINE: EM_X86_64, EM_386, EM_AARCH64),
 * whose first byte is at VADDR, into *OUT (*N_OUT instructions; caller
 * frees with sp_insns_free).  Bytes that are no instruction are one
 * "(bad)" each, as objdump shows them.  SYM (may be NULL) names targets.
 * Errors: SP_E_UNSUPPORTED when the disassembler linked in has no decoder
 * for the machine.  disasm.c is the one file that includes dis-asm.h
 * (binutils' libopcodes, objdump's own disassembler). */
sp_error *sp_disassemble(uint16_t e_machine, const uint8_t *code, size_t n, uint64_t vaddr,
			 sp_symbol_fn sym, void *sym_ctx, sp_insn **out, size_t *n_out);
void sp_insns_free(sp_insn *insns, size_t n);

/* The code of an ELF file's functions (codefile.c): its symbol tables (the
 * file's, else those of DEBUG_PATH, its separate debug file, when given)
 * and the bytes of its executable sections. */
typedef struct sp_code_file sp_code_file;
/* Opens PATH (through sp_object_fd: a compressed module too).  Errors: the
 * file cannot be read as ELF. */
sp_error *sp_code_file_open(const char *path, const char *debug_path, sp_code_file **out);
void sp_code_file_free(sp_code_file *cf);
/* The ELF machine (e_machine) of the file. */
uint16_t sp_code_file_machine(const sp_code_file *cf);
/* The function symbol holding VADDR (symbol-file address): its raw name
 * (borrowed until sp_code_file_free), [*START, *START + *SIZE).  NULL when
 * no sized function symbol holds it. */
const char *sp_code_file_function(const sp_code_file *cf, uint64_t vaddr, uint64_t *start,
				  uint64_t *size);
/* The symbol at or before VADDR (any function or object symbol, as
 * objdump names addresses) and *OFF; NULL when none.  An sp_symbol_fn. */
const char *sp_code_file_symbol(void *cf, uint64_t vaddr, uint64_t *off);
/* Copies the N bytes of the file's executable code at VADDR into BUF.
 * Errors: SP_E_NOT_FOUND when no executable section with contents holds
 * them all. */
sp_error *sp_code_file_read(const sp_code_file *cf, uint64_t vaddr, uint8_t *buf, size_t n);

#endif
