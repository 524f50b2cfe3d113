/* test_loadbase.c — table tests of the load-base rules (spec/FORMATS.md
 * §6.2–6.3): one row per rule of GetBase and kernelBase, of the program
 * header choice, and of the combination in sp_mapping_base.  Expected
 * values are the spec's formulas written out, or its worked examples. */
#include "symbolize/symbolize.h"
#include "tests/helpers/tap.h"

#include <elf.h>
#include <stdlib.h>

#define K(x) UINT64_C(x)
#define NO_STEXT 0, 0
#define STEXT(v) 1, K(v)
#define SEG(off, va) true, { PT_LOAD, PF_R | PF_X, K(off), K(va), 0x1000, 0x1000, 0x1000 }
#define NOSEG false, { 0 }

struct base_row {
	const char *what;
	int type;
	bool has_seg;
	sp_phdr seg;
	int has_stext;
	uint64_t stext;
	uint64_t start, limit, offset;
	bool want_err;
	uint64_t want;
};

static const struct base_row base_rows[] = {
	/* rule 0 */
	{ "fake whole-space mapping, limit 0", ET_DYN, SEG(0x1000, 0x2000), NO_STEXT, 0, 0, 0,
	  false, 0 },
	{ "fake whole-space mapping, limit 2^64-1", ET_EXEC, SEG(0, 0x400000), NO_STEXT, 0,
	  UINT64_MAX, 0, false, 0 },
	{ "fake mapping is checked before the ELF type", ET_CORE, NOSEG, NO_STEXT, 0, 0, 0,
	  false, 0 },
	/* ET_EXEC */
	{ "EXEC without load segment", ET_EXEC, NOSEG, NO_STEXT, 0x400000, 0x401000, 0, false,
	  0 },
	{ "EXEC user space, text at 0x400000 offset 0 (worked example iii)", ET_EXEC,
	  SEG(0, 0x400000), NO_STEXT, 0x400000, 0x401000, 0, false, 0 },
	{ "EXEC user space, text segment at file offset 0x1000", ET_EXEC, SEG(0x1000, 0x401000),
	  NO_STEXT, 0x401000, 0x402000, 0x1000, false, 0 },
	{ "EXEC user space, remapped text: start - offset + p_offset - p_vaddr", ET_EXEC,
	  SEG(0x1000, 0x401000), NO_STEXT, 0x600000, 0x601000, 0x1000, false,
	  0x600000 - 0x1000 + 0x1000 - 0x401000 },
	{ "EXEC kernel: p_vaddr == start - offset gives base = offset", ET_EXEC,
	  SEG(0x200000, 0xffffffff81000000), NO_STEXT, 0xffffffff81200000, 0xffffffff82000000,
	  0x200000, false, 0x200000 },
	{ "EXEC ChromeOS kernel at page 0 with stext: start - stext", ET_EXEC,
	  SEG(0x200000, 0xffffffff81000000), STEXT(0xffffffff81000000), 0, 0x1000000, 0x1000,
	  false, K(0) - K(0xffffffff81000000) },
	{ "EXEC KASLR kernel, offset 0, stext unknown: start - p_vaddr", ET_EXEC,
	  SEG(0x200000, 0xffffffff80000000), NO_STEXT, 0xffffffff9a000000, 0xffffffff9b000000, 0,
	  false, K(0xffffffff9a000000) - K(0xffffffff80000000) },
	{ "EXEC ASLR kernel, offset == start (perf pgoff)", ET_EXEC,
	  SEG(0x200000, 0xffffffff80000000), NO_STEXT, 0xffffffff9a000000, 0xffffffff9b000000,
	  0xffffffff9a000000, false, K(0xffffffff9a000000) - K(0xffffffff80000000) },
	{ "EXEC PPC64 kernel, offset PAGE_OFFSET", ET_EXEC, SEG(0x10000, 0xc000000000000000),
	  NO_STEXT, 0xc000000000010000, 0xc000000002000000, 0xc000000000000000, false, 0x10000 },
	{ "EXEC kernel, stext same page offset as start: start - stext", ET_EXEC,
	  SEG(0x200000, 0xffffffff80000000), STEXT(0xffffffff81000000), 0xffffffff9a000000,
	  0xffffffff9b000000, 0, false, K(0xffffffff9a000000) - K(0xffffffff81000000) },
	{ "EXEC kernel, stext on another page offset: start - p_vaddr", ET_EXEC,
	  SEG(0x200000, 0xffffffff80000000), STEXT(0xffffffff81000190), 0xffffffff9a000000,
	  0xffffffff9b000000, 0, false, K(0xffffffff9a000000) - K(0xffffffff80000000) },
	{ "EXEC kernel, start not page aligned, stext agrees: start - stext", ET_EXEC,
	  SEG(0x200000, 0xffffffff81000000), STEXT(0xffffffff81000190), 0x1000190, 0x2000000, 0,
	  false, K(0x1000190) - K(0xffffffff81000190) },
	{ "EXEC ChromeOS kernel without stext: start - p_vaddr", ET_EXEC,
	  SEG(0x200000, 0xffffffff81000000), NO_STEXT, 0, 0x1000000, 0x1000, false,
	  K(0) - K(0xffffffff81000000) },
	{ "EXEC segment nobody knows how to handle", ET_EXEC, SEG(0x200000, 0xffffffff80000000),
	  NO_STEXT, 0xffffffff81000000, 0, 0x5000, true, 0 },
	{ "EXEC user-space start with stext known and no kernel rule", ET_EXEC,
	  SEG(0x200000, 0xffffffff80000000), STEXT(0xffffffff81000000), 0x1000, 0x2000, 0, true,
	  0 },
	/* ET_REL */
	{ "REL at offset 0: base = start", ET_REL, NOSEG, NO_STEXT, 0x7f0000001000,
	  0x7f0000002000, 0, false, 0x7f0000001000 },
	{ "REL at a nonzero offset is an error", ET_REL, NOSEG, NO_STEXT, 0x7f0000001000,
	  0x7f0000002000, 0x1000, true, 0 },
	/* ET_DYN */
	{ "DYN without load segment: start - offset", ET_DYN, NOSEG, NO_STEXT, 0x7f0000003000,
	  0x7f0000004000, 0x1000, false, 0x7f0000002000 },
	{ "DYN gcc PIE (worked example i)", ET_DYN, SEG(0x1000, 0x1000), NO_STEXT,
	  0x55af92a24000, 0x55af92a25000, 0x1000, false, 0x55af92a23000 },
	{ "DYN lld/mold PIE, p_offset 0x1000 p_vaddr 0x2000 (worked example ii)", ET_DYN,
	  SEG(0x1000, 0x2000), NO_STEXT, 0x7f1234561000, 0x7f1234562000, 0x1000, false,
	  0x7f1234561000 - 0x1000 - 0x1000 },
	{ "DYN PIE kernel: kernel rule p_vaddr == start - offset", ET_DYN,
	  SEG(0x200000, 0xffffffff81000000), NO_STEXT, 0xffffffff81000000, 0xffffffff82000000, 0,
	  false, 0 },
	{ "DYN KASLR kernel with stext", ET_DYN, SEG(0x200000, 0xffffffff80000000),
	  STEXT(0xffffffff81000000), 0xffffffff9a000000, 0xffffffff9b000000, 0xffffffff9a000000,
	  false, K(0xffffffff9a000000) - K(0xffffffff81000000) },
	/* other types */
	{ "CORE file is an error", ET_CORE, SEG(0, 0), NO_STEXT, 0x1000, 0x2000, 0, true, 0 },
};

static void test_load_base(void)
{
	for (size_t i = 0; i < SP_ARRAY_LEN(base_rows); i++) {
		const struct base_row *r = &base_rows[i];
		uint64_t base = 0xdeadbeef;
		sp_error *err = sp_load_base(r->type, r->has_seg ? &r->seg : NULL,
					     r->has_stext ? &r->stext : NULL, r->start, r->limit,
					     r->offset, &base);
		if (r->want_err) {
			TAP_OK(err != NULL, "GetBase: %s: error", r->what);
			if (err) {
				char *s = sp_error_string(err);
				printf("#   %s\n", s);
				free(s);
			}
		} else {
			if (err) {
				char *s = sp_error_string(err);
				printf("#   unexpected error: %s\n", s);
				free(s);
			}
			TAP_OK(!err, "GetBase: %s: no error", r->what);
			if (!err)
				TAP_EQ_U64(base, r->want, "GetBase: %s: base", r->what);
		}
		sp_error_free(err);
	}
}

/* A gcc 12 PIE: headers, text, read-only data, data + .bss. */
static const sp_phdr pie[] = {
	{ PT_LOAD, PF_R, 0x0, 0x0, 0x628, 0x628, 0x1000 },
	{ PT_LOAD, PF_R | PF_X, 0x1000, 0x1000, 0x1c5, 0x1c5, 0x1000 },
	{ PT_LOAD, PF_R, 0x2000, 0x2000, 0x104, 0x104, 0x1000 },
	{ PT_LOAD, PF_R | PF_W, 0x2df0, 0x3df0, 0x228, 0x230, 0x1000 },
};

struct phm_row {
	const char *what;
	const sp_phdr *phdrs;
	size_t n;
	uint64_t off, size;
	size_t n_want;
	size_t want[4];
};

/* A segment ending 0x800 bytes into a page, and a .bss-only segment. */
static const sp_phdr tail[] = {
	{ PT_LOAD, PF_R | PF_X, 0x1000, 0x1000, 0x1800, 0x1800, 0x1000 },
	{ PT_LOAD, PF_R | PF_W, 0x3000, 0x5000, 0, 0x1000, 0x1000 },
};

static const struct phm_row phm_rows[] = {
	{ "text mapping matches only the text segment", pie, 4, 0x1000, 0x1000, 1, { 1 } },
	{ "headers mapping matches only the first segment", pie, 4, 0, 0x1000, 1, { 0 } },
	{ "mapping over rodata and data matches both", pie, 4, 0x2000, 0x2000, 2, { 2, 3 } },
	{ "(a) mapping starting before the aligned segment offset is excluded", pie, 4, 0x1000,
	  0x2000, 1, { 1 } },
	{ "(b) mapping covering < 1 page of a segment and >= 1 page past it is excluded", tail,
	  2, 0x2000, 0x2000, 0, { 0 } },
	{ "(b) does not apply when the mapping ends less than a page past", tail, 2, 0x2000,
	  0x1000, 1, { 0 } },
	{ "segment with filesz 0 is skipped", tail, 2, 0x3000, 0x1000, 0, { 0 } },
	{ "no headers at all", pie, 0, 0x1000, 0x1000, 0, { 0 } },
};

static void test_program_headers(void)
{
	for (size_t i = 0; i < SP_ARRAY_LEN(phm_rows); i++) {
		const struct phm_row *r = &phm_rows[i];
		size_t out[4] = { 99, 99, 99, 99 };
		size_t n = sp_program_headers_for_mapping(r->phdrs, r->n, r->off, r->size, out);
		bool same = n == r->n_want;
		for (size_t k = 0; same && k < n; k++)
			same = out[k] == r->want[k];
		TAP_OK(same, "ProgramHeadersForMapping: %s (got %zu headers)", r->what, n);
	}
}

static void test_header_for_file_offset(void)
{
	static const size_t both[] = { 2, 3 };
	/* A debug file whose first segment's memsz runs over the second. */
	static const sp_phdr overlap[] = {
		{ PT_LOAD, PF_R | PF_X, 0x2000, 0x2000, 0x100, 0x1000, 0x1000 },
		{ PT_LOAD, PF_R | PF_W, 0x2800, 0x3800, 0x100, 0x100, 0x1000 },
	};
	static const size_t ov[] = { 0, 1 };
	size_t got = 99;
	sp_error *err;

	err = sp_header_for_file_offset(pie, both, 2, 0x2050, &got);
	TAP_OK(!err && got == 2, "HeaderForFileOffset: offset in rodata picks it");
	sp_error_free(err);
	err = sp_header_for_file_offset(pie, both, 2, 0x2e00, &got);
	TAP_OK(!err && got == 3, "HeaderForFileOffset: offset in data picks it");
	sp_error_free(err);
	err = sp_header_for_file_offset(pie, both, 2, 0x2500, &got);
	TAP_OK(err != NULL, "HeaderForFileOffset: offset in no header is an error");
	sp_error_free(err);
	err = sp_header_for_file_offset(overlap, ov, 2, 0x2850, &got);
	TAP_OK(err != NULL, "HeaderForFileOffset: offset in two headers is an error");
	sp_error_free(err);
}

static void test_text_header(void)
{
	sp_phdr loads[] = {
		{ PT_LOAD, PF_R | PF_X, 0x200000, 0xffffffff81000000, 0x1000000, 0x1000000,
		  0x200000 },
		{ PT_LOAD, PF_R | PF_W, 0x1200000, 0xffffffff82000000, 0x100000, 0x200000,
		  0x200000 },
	};
	sp_elf_info info = { .elf_type = ET_EXEC, .loads = loads, .n_loads = 2 };

	TAP_OK(sp_find_text_program_header(&info) == -1,
	       "FindTextProgHeader: no .text, no header");
	info.has_text = true;
	info.text_addr = 0xffffffff81000000;
	TAP_OK(sp_find_text_program_header(&info) == 0,
	       "FindTextProgHeader: executable segment holding .text");
	info.text_addr = 0xffffffff82000100;
	TAP_OK(sp_find_text_program_header(&info) == -1,
	       "FindTextProgHeader: segment holding .text must be executable");
}

static void test_mapping_base(void)
{
	sp_elf_info info = { .elf_type = ET_DYN, .loads = (sp_phdr *)pie, .n_loads = 4 };
	uint64_t base = 0;
	sp_error *err;

	err = sp_mapping_base(&info, 0x55af92a24000, 0x55af92a25000, 0x1000, 0x55af92a24230,
			      &base);
	TAP_OK(!err, "mapping base: PIE text mapping");
	TAP_EQ_U64(base, 0x55af92a23000, "mapping base: worked example i");
	TAP_EQ_U64(0x55af92a24230 - base, 0x1230, "mapping base: worked example i, mid");
	sp_error_free(err);

	/* Two candidates: the first address decides. */
	err = sp_mapping_base(&info, 0x7f0000002000, 0x7f0000004000, 0x2000, 0x7f0000002010,
			      &base);
	TAP_OK(!err && base == 0x7f0000002000 - 0x2000 + 0x2000 - 0x2000,
	       "mapping base: address in rodata uses the rodata header");
	sp_error_free(err);
	err = sp_mapping_base(&info, 0x7f0000002000, 0x7f0000004000, 0x2000, 0x7f0000002e00,
			      &base);
	TAP_OK(!err && base == 0x7f0000002000 - 0x2000 + 0x2df0 - 0x3df0,
	       "mapping base: address in data uses the data header");
	sp_error_free(err);
	err = sp_mapping_base(&info, 0x7f0000002000, 0x7f0000004000, 0x2000, 0x7f0000002500,
			      &base);
	TAP_OK(err != NULL, "mapping base: address in neither candidate is an error");
	sp_error_free(err);

	err = sp_mapping_base(&info, 0x7f0000010000, 0x7f0000011000, 0x10000, 0x7f0000010000,
			      &base);
	char *s = err ? sp_error_string(err) : NULL;
	TAP_OK(s && strstr(s, "no program header matches mapping info"),
	       "mapping base: no header matches: %s", s ? s : "(no error)");
	free(s);
	sp_error_free(err);

	err = sp_mapping_base(&info, 0x55af92a24000, 0x55af92a25000, 0x1000, 0x55af92a25000,
			      &base);
	TAP_OK(err != NULL, "mapping base: first address outside the mapping is an error");
	sp_error_free(err);

	/* A kernel module: no PT_LOAD at all. */
	sp_elf_info ko = { .elf_type = ET_REL };
	err = sp_mapping_base(&ko, 0xffffffffc0000000, 0xffffffffc0010000, 0, 0xffffffffc0000010,
			      &base);
	TAP_OK(!err && base == 0xffffffffc0000000, "mapping base: ET_REL without headers");
	sp_error_free(err);

	/* vmlinux with _stext: kernel-like, header from .text. */
	sp_phdr kl[] = {
		{ PT_LOAD, PF_R | PF_X, 0x200000, 0xffffffff81000000, 0x1000000, 0x1000000,
		  0x200000 },
	};
	sp_elf_info vm = { .elf_type = ET_EXEC, .loads = kl, .n_loads = 1, .has_text = true,
			   .text_addr = 0xffffffff81000000, .has_stext = true,
			   .stext = 0xffffffff81000000 };
	err = sp_mapping_base(&vm, 0xffffffff9a000000, 0xffffffff9b000000, 0, 0xffffffff9a000100,
			      &base);
	TAP_OK(!err && base == K(0xffffffff9a000000) - K(0xffffffff81000000),
	       "mapping base: KASLR vmlinux");
	sp_error_free(err);
}

/* --relative: one row per layout met in practice. */
static void test_relative_adjust(void)
{
	static const sp_phdr exec[] = {
		{PT_LOAD, PF_R, 0, 0x400000, 0x500, 0x500, 0x1000},
		{PT_LOAD, PF_R | PF_X, 0x1000, 0x401000, 0x2000, 0x2000, 0x1000},
	};
	static const sp_phdr pie_loads[] = {
		{PT_LOAD, PF_R, 0, 0, 0x600, 0x600, 0x1000},
		{PT_LOAD, PF_R | PF_X, 0x1000, 0x1000, 0x2000, 0x2000, 0x1000},
	};
	/* headers out of order: the lowest p_vaddr counts, not the first */
	static const sp_phdr unordered[] = {
		{PT_LOAD, PF_R | PF_X, 0x1000, 0x401000, 0x2000, 0x2000, 0x1000},
		{PT_LOAD, PF_R, 0, 0x400000, 0x500, 0x500, 0x1000},
	};
	/* prelinked library: vaddr and offset differ by the prelink address */
	static const sp_phdr prelinked[] = {
		{PT_LOAD, PF_R | PF_X, 0, 0x3a000000, 0x8000, 0x8000, 0x1000},
		{PT_LOAD, PF_R | PF_W, 0x8000, 0x3a009000, 0x100, 0x200, 0x1000},
	};
	/* first segment not at offset 0 (a linker script with a gap) */
	static const sp_phdr gap[] = {
		{PT_LOAD, PF_R | PF_X, 0x200, 0x10000, 0x1000, 0x1000, 0x1000},
	};
	/* vaddr below offset: the difference wraps, as the addition undoes */
	static const sp_phdr below[] = {
		{PT_LOAD, PF_R | PF_X, 0x2000, 0x1000, 0x100, 0x100, 0x1000},
	};
	static const struct {
		const char *what;
		const sp_phdr *loads;
		size_t n;
		uint64_t want;
	} rows[] = {
		{"non-PIE at 0x400000", exec, 2, 0x400000},
		{"PIE", pie_loads, 2, 0},
		{"headers out of order", unordered, 2, 0x400000},
		{"prelinked library", prelinked, 2, 0x3a000000},
		{"first segment at offset 0x200", gap, 1, 0x10000 - 0x200},
		{"vaddr below offset wraps", below, 1, (uint64_t)0 - 0x1000},
		{"no PT_LOAD", NULL, 0, 0},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		TAP_EQ_U64(sp_relative_adjust(rows[i].loads, rows[i].n), rows[i].want,
			   "relative adjust: %s", rows[i].what);
	TAP_EQ_U64(0x1234 + sp_relative_adjust(below, 1), 0x234,
		   "relative adjust: the wrapped difference adds back modulo 2^64");
}

/* A file offset's symbol-file address: one row per layout met in practice. */
static void test_file_offset_vaddr(void)
{
	/* a non-PIE at 0x400000 */
	static const sp_phdr nopie[] = {
		{PT_LOAD, PF_R, 0, 0x400000, 0x500, 0x500, 0x1000},
		{PT_LOAD, PF_R | PF_X, 0x1000, 0x401000, 0x2000, 0x2000, 0x1000},
	};
	static const struct {
		const char *what;
		const sp_phdr *loads;
		size_t n;
		uint64_t offset;
		bool found;
		uint64_t want;
	} rows[] = {
		{"PIE text: vaddr = offset", pie, 4, 0x1100, true, 0x1100},
		{"PIE data: a page past its offset", pie, 4, 0x2e00, true, 0x3e00},
		{"PIE: the first byte of a segment", pie, 4, 0x2000, true, 0x2000},
		{"PIE: between two segments' file bytes", pie, 4, 0x700, false, 0},
		{"PIE: past the data's file bytes (.bss has none)", pie, 4, 0x3018, false, 0},
		{"non-PIE text: 0x400000 up", nopie, 2, 0x1010, true, 0x401010},
		{"non-PIE ELF header", nopie, 2, 0, true, 0x400000},
		{"no PT_LOAD", NULL, 0, 0x10, false, 0},
	};
	for (size_t i = 0; i < SP_ARRAY_LEN(rows); i++) {
		uint64_t v = 0;
		bool found = sp_file_offset_vaddr(rows[i].loads, rows[i].n, rows[i].offset, &v);
		TAP_OK(found == rows[i].found && v == rows[i].want, "file offset -> vaddr: %s",
		       rows[i].what);
	}
}

/* A kernel module: perf's map starts at the module's run-time .text. */
static void test_kernel_module_base(void)
{
	static const struct {
		const char *what;
		uint64_t start, text, addr, want_vaddr;
	} rows[] = {
		{".text first in the object's layout", 0xffffffffc0a00000, 0, 0xffffffffc0a00015, 0x15},
		{"after a build-id note (libdwfl's layout)", 0xffffffffc0a00000, 0x30,
		 0xffffffffc0a00015, 0x45},
		{"a module in the low half (32-bit kernel)", 0xf8a00000, 0x40, 0xf8a00100, 0x140},
	};
	for (size_t i = 0; i < SP_ARRAY_LEN(rows); i++)
		TAP_EQ_U64(rows[i].addr - sp_kernel_module_base(rows[i].start, rows[i].text),
			   rows[i].want_vaddr, "kernel module base: %s", rows[i].what);
}

int main(void)
{
	test_load_base();
	test_program_headers();
	test_header_for_file_offset();
	test_text_header();
	test_mapping_base();
	test_relative_adjust();
	test_file_offset_vaddr();
	test_kernel_module_base();
	return tap_done();
}
