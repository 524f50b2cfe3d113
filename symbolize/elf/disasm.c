/* disasm.c — machine code to text through binutils' libopcodes, the
 * disassembler `objdump -d` itself runs, so an instruction reads here as it
 * reads there:
 *
 *   bytes 55 48 89 e5 e8 1d 00 00 00 at 0x401126
 *     401126  push   %rbp
 *     401127  mov    %rsp,%rbp
 *     40112a  call   40114c <helper>
 *
 * This is the one file that includes dis-asm.h (which, like bfd.h, wants
 * PACKAGE defined: config.h is force-included).  libopcodes has no stable
 * interface (init_disassemble_info gained its styled printer in binutils
 * 2.39; the library's soname is the binutils release), so nothing of it
 * leaves this file.  Why libopcodes rather than capstone: docs/DESIGN.md,
 * "Disassembly".
 *
 * libopcodes prints through callbacks: the text of an instruction is
 * gathered into a buffer, and every address it prints (a branch target, or
 * the comment after a RIP-relative operand) goes through print_address,
 * which writes it as objdump does (hex without 0x, then <symbol+0xoff>)
 * and keeps the first one as the branch target.
 */
#include "symbolize/symbolize.h"

#include <dis-asm.h>
#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	sp_buf text;
	bool has_addr;
	uint64_t addr;
	sp_symbol_fn sym;
	void *sym_ctx;
} dis_state;

static int put_text(void *stream, const char *fmt, ...) SP_PRINTF(2, 3);
static int put_text(void *stream, const char *fmt, ...)
{
	dis_state *st = stream;
	char small[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return n;
	if ((size_t)n < sizeof(small)) {
		sp_buf_append(&st->text, small, (size_t)n);
		return n;
	}
	char *big = sp_xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sp_buf_append(&st->text, big, (size_t)n);
	free(big);
	return n;
}

static int put_styled(void *stream, enum disassembler_style style, const char *fmt, ...)
	SP_PRINTF(3, 4);
static int put_styled(void *stream, enum disassembler_style style, const char *fmt, ...)
{
	(void)style;
	dis_state *st = stream;
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		sp_oom();
	sp_buf_append(&st->text, s, (size_t)n);
	free(s);
	return n;
}

/* objdump's objdump_print_addr: the value in hex (no 0x, no leading
 * zeros), then " <sym>" or " <sym+0xoff>" when a symbol is known. */
static void print_address(bfd_vma addr, struct disassemble_info *info)
{
	dis_state *st = info->stream;
	if (!st->has_addr) {
		st->has_addr = true;
		st->addr = (uint64_t)addr;
	}
	sp_buf_printf(&st->text, "%llx", (unsigned long long)addr);
	uint64_t off = 0;
	const char *name = st->sym ? st->sym(st->sym_ctx, (uint64_t)addr, &off) : NULL;
	if (!name)
		return;
	if (off)
		sp_buf_printf(&st->text, " <%s+0x%llx>", name, (unsigned long long)off);
	else
		sp_buf_printf(&st->text, " <%s>", name);
}

/* Whether TEXT (an instruction of MACHINE) transfers control to an address
 * operand: x86 jumps, calls, loops; AArch64 b, bl, b.cond, cb(n)z, tb(n)z. */
static bool is_branch(uint16_t machine, const char *text)
{
	size_t n = strcspn(text, " \t");
	if (machine == EM_AARCH64)
		return (n == 1 && text[0] == 'b') || (n == 2 && !strncmp(text, "bl", 2)) ||
		       !strncmp(text, "b.", 2) || !strncmp(text, "cbz", n) ||
		       !strncmp(text, "cbnz", n) || !strncmp(text, "tbz", n) ||
		       !strncmp(text, "tbnz", n);
	/* a prefix ("bnd jmp", "notrack jmp") comes first */
	for (const char *t = text; *t;) {
		size_t w = strcspn(t, " \t");
		if ((w >= 2 && t[0] == 'j') || !strncmp(t, "call", 4) || !strncmp(t, "loop", 4) ||
		    !strncmp(t, "xbegin", 6))
			return true;
		if (strncmp(t, "bnd", w) && strncmp(t, "notrack", w) && strncmp(t, "data16", w) &&
		    strncmp(t, "cs", w) && strncmp(t, "ds", w))
			return false;
		t += w;
		t += strspn(t, " \t");
	}
	return false;
}

static sp_error *target_of(uint16_t machine, enum bfd_architecture *arch, unsigned long *mach)
{
	switch (machine) {
	case EM_X86_64:
		*arch = bfd_arch_i386;
		*mach = bfd_mach_x86_64;
		return NULL;
	case EM_386:
		*arch = bfd_arch_i386;
		*mach = bfd_mach_i386_i386;
		return NULL;
	case EM_AARCH64:
		*arch = bfd_arch_aarch64;
		*mach = bfd_mach_aarch64;
		return NULL;
	}
	return sp_error_new(SP_E_UNSUPPORTED, "no disassembler for ELF machine %u", machine);
}

sp_error *sp_disassemble(uint16_t e_machine, const uint8_t *code, size_t n, uint64_t vaddr,
			 sp_symbol_fn sym, void *sym_ctx, sp_insn **out, size_t *n_out)
{
	*out = NULL;
	*n_out = 0;
	enum bfd_architecture arch;
	unsigned long mach;
	sp_error *err = target_of(e_machine, &arch, &mach);
	if (err)
		return err;
	disassembler_ftype dis = disassembler(arch, false, mach, NULL);
	if (!dis)
		return sp_error_new(SP_E_UNSUPPORTED,
				    "the libopcodes linked in decodes no %s code (Debian's "
				    "binutils-multiarch-dev has every architecture)",
				    e_machine == EM_AARCH64 ? "AArch64" : "such");
	dis_state st = {.sym = sym, .sym_ctx = sym_ctx};
	struct disassemble_info info;
	init_disassemble_info(&info, &st, put_text, put_styled);
	info.arch = arch;
	info.mach = mach;
	info.endian = BFD_ENDIAN_LITTLE;
	info.endian_code = BFD_ENDIAN_LITTLE;
	info.buffer = (bfd_byte *)code;
	info.buffer_length = n;
	info.buffer_vma = vaddr;
	info.print_address_func = print_address;
	disassemble_init_for_target(&info);
	size_t cap = 0;
	for (size_t at = 0; at < n;) {
		sp_buf_reset(&st.text);
		st.has_addr = false;
		int len = dis(vaddr + at, &info);
		if (len <= 0 || (size_t)len > n - at) {
			/* cut short by the end of the bytes: objdump's "(bad)" */
			sp_buf_reset(&st.text);
			sp_buf_puts(&st.text, "(bad)");
			st.has_addr = false;
			len = 1;
		}
		if (len > 15)
			len = 15; /* no instruction of these machines is longer */
		sp_insn in = {.vaddr = vaddr + at, .len = (uint8_t)len};
		memcpy(in.bytes, code + at, (size_t)len);
		in.text = sp_xstrdup(sp_buf_str(&st.text));
		/* objdump prints the text as libopcodes gives it, trailing
		 * blanks (x86 pads a lone mnemonic) removed */
		size_t tl = strlen(in.text);
		while (tl && (in.text[tl - 1] == ' ' || in.text[tl - 1] == '\t'))
			in.text[--tl] = '\0';
		in.branch = st.has_addr && is_branch(e_machine, in.text);
		in.target = in.branch ? st.addr : 0;
		SP_PUSH(*out, *n_out, cap, in);
		at += (size_t)len;
	}
	disassemble_free_target(&info);
	sp_buf_free(&st.text);
	return NULL;
}

void sp_insns_free(sp_insn *insns, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(insns[i].text);
	free(insns);
}
