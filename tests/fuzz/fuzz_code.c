/* fuzz_code.c — libFuzzer harness for a function's machine code: the symbol
 * table and code reader (symbolize/elf/codefile.c) and the libopcodes
 * wrapper (symbolize/elf/disasm.c), as the annotated disassembly uses them.
 *
 * An input beginning with the ELF magic is a file: opened through a memfd
 * with sp_code_file_open, then for its entry point and for each 8-byte
 * little-endian word of its last 64 bytes, the function symbol holding that
 * address is read (at most 64 KiB of it) and decoded with the file's
 * machine and its symbols naming targets.  Any other input is code: byte 0
 * chooses the machine (x86-64, i386, AArch64, then an unknown one), the rest
 * is decoded at 0x401000.  Every decode must cover its bytes exactly, one
 * instruction after the other, each 1 to 15 bytes with a text, a target
 * only on a branch; every error must have a message.  Seeds
 * (tests/fuzz/seeds/code/): hot_outer of the annotation fixture as x86-64
 * code, AArch64 code, cut and prefixed instructions, and a small ELF object.
 * fuzz-runs: 20000 (executions of each scripts/fuzz CI pass: about 10 s) */
#include "symbolize/symbolize.h"
#include "tests/fuzz/check.h"
#include "tests/fuzz/memfd.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_CODE ((uint64_t)64 << 10)

static void check_decode(uint16_t machine, const uint8_t *code, size_t n, uint64_t vaddr,
			 sp_symbol_fn sym, void *ctx)
{
	sp_insn *in;
	size_t k;
	sp_error *e = sp_disassemble(machine, code, n, vaddr, sym, ctx, &in, &k);
	if (e) {
		if (k || in)
			SP_FUZZ_FAIL("instructions and an error");
		sp_fuzz_check_error(e);
		return;
	}
	uint64_t at = vaddr;
	for (size_t i = 0; i < k; i++) {
		if (in[i].vaddr != at)
			SP_FUZZ_FAIL("instruction %zu at %#llx, expected %#llx", i,
				     (unsigned long long)in[i].vaddr, (unsigned long long)at);
		if (in[i].len < 1 || in[i].len > 15 || !in[i].text || !*in[i].text)
			SP_FUZZ_FAIL("instruction %zu: length %u or no text", i, in[i].len);
		if (!in[i].branch && in[i].target)
			SP_FUZZ_FAIL("a target without a branch");
		if (memcmp(in[i].bytes, code + (at - vaddr), in[i].len) != 0)
			SP_FUZZ_FAIL("instruction %zu: bytes differ from the code", i);
		at += in[i].len;
	}
	if (at != vaddr + n)
		SP_FUZZ_FAIL("%zu bytes decoded of %zu", (size_t)(at - vaddr), n);
	sp_insns_free(in, k);
}

static void one_address(sp_code_file *cf, uint64_t vaddr)
{
	uint64_t start, size;
	const char *name = sp_code_file_function(cf, vaddr, &start, &size);
	if (!name)
		return;
	if (vaddr < start || vaddr - start >= size)
		SP_FUZZ_FAIL("%s [%#llx, +%llu) does not hold %#llx", name,
			     (unsigned long long)start, (unsigned long long)size,
			     (unsigned long long)vaddr);
	if (size > MAX_CODE)
		return;
	uint8_t *buf = sp_xmalloc(size ? size : 1);
	sp_error *e = sp_code_file_read(cf, start, buf, size);
	if (e)
		sp_fuzz_check_error(e);
	else
		check_decode(sp_code_file_machine(cf), buf, size, start, sp_code_file_symbol, cf);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sp_mem_set_limit((size_t)256 << 20);
	if (size < 4 || memcmp(data, ELFMAG, SELFMAG) != 0) {
		static const uint16_t machines[] = {EM_X86_64, EM_386, EM_AARCH64, EM_RISCV};
		if (!size)
			return 0;
		check_decode(machines[data[0] % 4], data + 1, size - 1, 0x401000, NULL, NULL);
		return 0;
	}
	char path[64];
	int fd = sp_fuzz_memfd(data, size, path);
	sp_code_file *cf;
	sp_error *e = sp_code_file_open(path, NULL, &cf);
	if (e) {
		sp_fuzz_check_error(e);
		close(fd);
		return 0;
	}
	if (size >= sizeof(Elf64_Ehdr) && data[EI_CLASS] == ELFCLASS64) {
		Elf64_Ehdr eh;
		memcpy(&eh, data, sizeof(eh));
		one_address(cf, eh.e_entry);
	}
	for (size_t off = size > 64 ? size - 64 : 0; off + 8 <= size; off += 8) {
		uint64_t a;
		memcpy(&a, data + off, 8);
		one_address(cf, a);
	}
	sp_code_file_free(cf);
	close(fd);
	return 0;
}
