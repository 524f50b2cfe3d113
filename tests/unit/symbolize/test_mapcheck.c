/* test_mapcheck.c — sp_mapping_file_match, one row per case: mappings as
 * the kernel and ld.so make them from real layouts (separate-code PIE,
 * non-PIE with headers and text in one segment, merged segments, a segment
 * ending inside its last page, a mapping that starts inside a segment,
 * 64 KiB pages, ET_REL, kernel), and what a rebuilt file looks like
 * (grown or moved text, other size or mtime). */
#include "symbolize/symbolize.h"
#include "tests/helpers/tap.h"

#include <elf.h>

#define R PF_R
#define RX (PF_R | PF_X)
#define RW (PF_R | PF_W)

/* A PIE linked with -z separate-code: headers, text, rodata, data. */
static const sp_phdr pie[] = {
	{PT_LOAD, R, 0x0, 0x0, 0x5f8, 0x5f8, 0x1000},
	{PT_LOAD, RX, 0x1000, 0x1000, 0x1a5, 0x1a5, 0x1000},
	{PT_LOAD, R, 0x2000, 0x2000, 0x114, 0x114, 0x1000},
	{PT_LOAD, RW, 0x2de8, 0x3de8, 0x248, 0x250, 0x1000},
};
/* The same program rebuilt with a longer function: text spills into a
 * second page. */
static const sp_phdr pie_grown[] = {
	{PT_LOAD, R, 0x0, 0x0, 0x5f8, 0x5f8, 0x1000},
	{PT_LOAD, RX, 0x1000, 0x1000, 0x11a5, 0x11a5, 0x1000},
	{PT_LOAD, R, 0x3000, 0x3000, 0x114, 0x114, 0x1000},
	{PT_LOAD, RW, 0x3de8, 0x4de8, 0x248, 0x250, 0x1000},
};
/* Rebuilt with larger headers: text moved to 0x2000. */
static const sp_phdr pie_moved[] = {
	{PT_LOAD, R, 0x0, 0x0, 0x15f8, 0x15f8, 0x1000},
	{PT_LOAD, RX, 0x2000, 0x2000, 0x1a5, 0x1a5, 0x1000},
	{PT_LOAD, R, 0x3000, 0x3000, 0x114, 0x114, 0x1000},
};
/* Non-PIE without separate code: headers and text in one R+X segment. */
static const sp_phdr exec_old[] = {
	{PT_LOAD, RX, 0x0, 0x400000, 0x7a4, 0x7a4, 0x200000},
	{PT_LOAD, RW, 0xe10, 0x600e10, 0x230, 0x238, 0x200000},
};
/* Non-PIE with separate code, as the fixture's: the main binary's mapping
 * is extended down to 0x400000, offset 0 (FORMATS.md §2.6). */
static const sp_phdr exec_sep[] = {
	{PT_LOAD, R, 0x0, 0x400000, 0xd20, 0xd20, 0x1000},
	{PT_LOAD, RX, 0x1000, 0x401000, 0x8f1, 0x8f1, 0x1000},
	{PT_LOAD, R, 0x2000, 0x402000, 0x3e2, 0x3e2, 0x1000},
};
static const sp_phdr exec_sep_grown[] = {
	{PT_LOAD, R, 0x0, 0x400000, 0xd20, 0xd20, 0x1000},
	{PT_LOAD, RX, 0x1000, 0x401000, 0x28f1, 0x28f1, 0x1000},
	{PT_LOAD, R, 0x4000, 0x404000, 0x3e2, 0x3e2, 0x1000},
};
/* Two executable segments back to back (e.g. a BOLTed binary). */
static const sp_phdr two_text[] = {
	{PT_LOAD, R, 0x0, 0x0, 0x400, 0x400, 0x1000},
	{PT_LOAD, RX, 0x1000, 0x1000, 0x800, 0x800, 0x1000},
	{PT_LOAD, RX, 0x2000, 0x2000, 0x1200, 0x1200, 0x1000},
};
/* Text ending one byte into a page. */
static const sp_phdr odd_end[] = {
	{PT_LOAD, RX, 0x1000, 0x1000, 0x1001, 0x1001, 0x1000},
};
/* An arm64 binary for 64 KiB pages. */
static const sp_phdr arm64k[] = {
	{PT_LOAD, R, 0x0, 0x0, 0x700, 0x700, 0x10000},
	{PT_LOAD, RX, 0x10000, 0x10000, 0x1234, 0x1234, 0x10000},
};

#define LOADS(a) (sp_phdr *)(a), SP_ARRAY_LEN(a)

static const struct row {
	const char *what;
	const sp_phdr *loads;
	size_t n_loads;
	uint64_t file_size;
	int64_t mtime_ns;
	sp_mapping_record m;
	sp_file_match want;
	uint64_t want_seg;
} rows[] = {
	{"PIE text mapping", LOADS(pie), 0, 0,
	 {0x55d0c8a01000, 0x55d0c8a02000, 0x1000, 0, 0}, SP_FILE_MATCHES, 0},
	{"PIE rebuilt, text grew a page", LOADS(pie_grown), 0, 0,
	 {0x55d0c8a01000, 0x55d0c8a02000, 0x1000, 0, 0}, SP_FILE_EXTENT_DIFFERS, 0x2000},
	{"PIE rebuilt, text moved", LOADS(pie_moved), 0, 0,
	 {0x55d0c8a01000, 0x55d0c8a02000, 0x1000, 0, 0}, SP_FILE_NO_EXEC_SEGMENT, 0},
	{"mapping longer than the text", LOADS(pie), 0, 0,
	 {0x55d0c8a01000, 0x55d0c8a03000, 0x1000, 0, 0}, SP_FILE_EXTENT_DIFFERS, 0x1000},
	{"mapping past every segment of the file", LOADS(pie), 0, 0,
	 {0x55d0c8a01000, 0x55d0c9a01000, 0x1000, 0, 0}, SP_FILE_MATCHES, 0},
	{"end not page-aligned (map written from p_filesz)", LOADS(pie), 0, 0,
	 {0x55d0c8a01000, 0x55d0c8a011a5, 0x1000, 0, 0}, SP_FILE_MATCHES, 0},
	{"offset in a read-only segment", LOADS(pie), 0, 0,
	 {0x55d0c8a00000, 0x55d0c8a01000, 0x0, 0, 0}, SP_FILE_NO_EXEC_SEGMENT, 0},
	{"non-PIE, headers and text in one segment", LOADS(exec_old), 0, 0,
	 {0x400000, 0x401000, 0x0, 0, 0}, SP_FILE_MATCHES, 0},
	{"non-PIE main binary extended down to 0x400000", LOADS(exec_sep), 0, 0,
	 {0x400000, 0x402000, 0x0, 0, 0}, SP_FILE_MATCHES, 0},
	{"non-PIE text mapping as recorded", LOADS(exec_sep), 0, 0,
	 {0x401000, 0x402000, 0x1000, 0, 0}, SP_FILE_MATCHES, 0},
	{"non-PIE rebuilt, text grew", LOADS(exec_sep_grown), 0, 0,
	 {0x400000, 0x402000, 0x0, 0, 0}, SP_FILE_EXTENT_DIFFERS, 0x4000},
	{"non-PIE rebuilt, text mapping a page short", LOADS(exec_sep_grown), 0, 0,
	 {0x401000, 0x403000, 0x1000, 0, 0}, SP_FILE_EXTENT_DIFFERS, 0x3000},
	{"two executable segments merged into one mapping", LOADS(two_text), 0, 0,
	 {0x7f0000001000, 0x7f0000004000, 0x1000, 0, 0}, SP_FILE_MATCHES, 0},
	{"the first of two executable segments", LOADS(two_text), 0, 0,
	 {0x7f0000001000, 0x7f0000002000, 0x1000, 0, 0}, SP_FILE_MATCHES, 0},
	{"last page partly filled", LOADS(odd_end), 0, 0,
	 {0x7f0000001000, 0x7f0000003000, 0x1000, 0, 0}, SP_FILE_MATCHES, 0},
	{"mapping starting inside the segment", LOADS(odd_end), 0, 0,
	 {0x7f0000002000, 0x7f0000003000, 0x2000, 0, 0}, SP_FILE_MATCHES, 0},
	{"64 KiB pages", LOADS(arm64k), 0, 0,
	 {0xaaaa00010000, 0xaaaa00020000, 0x10000, 0, 0}, SP_FILE_MATCHES, 0},
	{"64 KiB pages, 4 KiB extent", LOADS(arm64k), 0, 0,
	 {0xaaaa00010000, 0xaaaa00012000, 0x10000, 0, 0}, SP_FILE_MATCHES, 0},
	{"ET_REL: no PT_LOAD to compare", NULL, 0, 0, 0,
	 {0x7f0000000000, 0x7f0000001000, 0x0, 0, 0}, SP_FILE_MATCHES, 0},
	{"kernel mapping", LOADS(exec_old), 0, 0,
	 {0xffffffff81000000, 0xffffffff82000000, 0x0, 0, 0}, SP_FILE_MATCHES, 0},
	{"start >= limit (kernel-like)", LOADS(pie), 0, 0,
	 {0x1000, 0x1000, 0x0, 0, 0}, SP_FILE_MATCHES, 0},
	{"recorded size and mtime agree", LOADS(pie), 16384, 1700000000000000000,
	 {0x55d0c8a01000, 0x55d0c8a02000, 0x1000, 16384, 1700000000000000000},
	 SP_FILE_MATCHES, 0},
	{"recorded size differs", LOADS(pie), 16384, 0,
	 {0x55d0c8a01000, 0x55d0c8a02000, 0x1000, 20480, 0}, SP_FILE_SIZE_DIFFERS, 0},
	{"recorded mtime differs", LOADS(pie), 16384, 1700000000000000000,
	 {0x55d0c8a01000, 0x55d0c8a02000, 0x1000, 0, 1600000000000000000},
	 SP_FILE_MTIME_DIFFERS, 0},
	{"size not recorded: not compared", LOADS(pie), 16384, 1700000000000000000,
	 {0x55d0c8a01000, 0x55d0c8a02000, 0x1000, 0, 0}, SP_FILE_MATCHES, 0},
};

int main(void)
{
	for (size_t i = 0; i < SP_ARRAY_LEN(rows); i++) {
		const struct row *r = &rows[i];
		sp_elf_info info = {.elf_type = r->loads ? ET_DYN : ET_REL,
				    .loads = (sp_phdr *)r->loads,
				    .n_loads = r->n_loads,
				    .size = (off_t)r->file_size,
				    .mtime_ns = r->mtime_ns};
		uint64_t seg = 1;
		sp_file_match got = sp_mapping_file_match(&r->m, &info, &seg);
		TAP_OK(got == r->want && seg == r->want_seg, "%s: %s (segment size %#llx)", r->what,
		       sp_file_match_str(got), (unsigned long long)seg);
	}
	TAP_EQ_STR(sp_file_match_str(SP_FILE_EXTENT_DIFFERS),
		   "the mapping's size is not the executable segment's", "reason text");
	return tap_done();
}
