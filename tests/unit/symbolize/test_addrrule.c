/* test_addrrule.c — which addresses a mapping holds (symbolize/elf/addrrule.c):
 * a row per case of the eBPF profiler's FileOffsetToVirtualAddress
 * (opentelemetry-ebpf-profiler libpf/pfelf/addressmapper.go: the executable
 * PT_LOAD whose page-aligned start <= offset < p_offset + p_filesz gives
 * p_vaddr - (p_offset - offset)), and the rule that follows for a mapping
 * starting at START. */
#include "symbolize/symbolize.h"
#include "tests/helpers/tap.h"

#include <elf.h>

#define X (PF_R | PF_X)

typedef struct {
	const char *what;
	sp_phdr loads[3];
	size_t n;
	uint64_t offset, start;
	bool has_va;
	uint64_t va;
	sp_address_rule rule;
} row;

static const row rows[] = {
	{"gcc PIE text: offset = vaddr; an eBPF mapping at its ELF VA",
	 {{PT_LOAD, X, 0x1000, 0x1000, 0x429, 0x429, 0x1000}}, 1, 0x1000, 0x1000, true, 0x1000,
	 SP_RULE_ELF_VA},
	{"the same PIE as perf maps it, at its run-time address",
	 {{PT_LOAD, X, 0x1000, 0x1000, 0x429, 0x429, 0x1000}}, 1, 0x1000, 0x55e0a1b2c000, true,
	 0x1000, SP_RULE_RUNTIME},
	{"lld-style PIE: vaddr = offset + 0x1000",
	 {{PT_LOAD, X, 0x1000, 0x2000, 0x800, 0x800, 0x1000}}, 1, 0x1000, 0x2000, true, 0x2000,
	 SP_RULE_ELF_VA},
	{"... whose file offset is not its address",
	 {{PT_LOAD, X, 0x1000, 0x2000, 0x800, 0x800, 0x1000}}, 1, 0x1000, 0x1000, true, 0x2000,
	 SP_RULE_RUNTIME},
	{"a segment not on a page boundary: the mapping starts on its page",
	 {{PT_LOAD, X, 0x1234, 0x401234, 0x500, 0x500, 0x1000}}, 1, 0x1000, 0x401000, true,
	 0x401000, SP_RULE_ELF_VA},
	{"an offset past the segment's file bytes",
	 {{PT_LOAD, X, 0x1234, 0x401234, 0x500, 0x500, 0x1000}}, 1, 0x2000, 0x402000, false, 0,
	 SP_RULE_RUNTIME},
	{"an offset on the page before the segment's",
	 {{PT_LOAD, X, 0x2010, 0x402010, 0x500, 0x500, 0x1000}}, 1, 0x1000, 0x401000, false, 0,
	 SP_RULE_RUNTIME},
	{"a segment that is not executable does not count",
	 {{PT_LOAD, PF_R, 0x0, 0x0, 0x900, 0x900, 0x1000}}, 1, 0x0, 0x0, false, 0, SP_RULE_RUNTIME},
	{"non-PIE executable at 0x400000: both rules say base 0",
	 {{PT_LOAD, PF_R, 0x0, 0x400000, 0x5e0, 0x5e0, 0x1000},
	  {PT_LOAD, X, 0x1000, 0x401000, 0x1a5, 0x1a5, 0x1000}},
	 2, 0x1000, 0x401000, true, 0x401000, SP_RULE_ELF_VA},
	{"libc: the second executable segment of three holds the offset",
	 {{PT_LOAD, X, 0x0, 0x0, 0x800, 0x800, 0x1000},
	  {PT_LOAD, PF_R, 0x1000, 0x1000, 0x25000, 0x25000, 0x1000},
	  {PT_LOAD, X, 0x26000, 0x26000, 0x1550fc, 0x1550fc, 0x1000}},
	 3, 0x26000, 0x26000, true, 0x26000, SP_RULE_ELF_VA},
	{"an offset within a segment, past its start page",
	 {{PT_LOAD, X, 0x26000, 0x26000, 0x1550fc, 0x1550fc, 0x1000}}, 1, 0x30000, 0x30000, true,
	 0x30000, SP_RULE_ELF_VA},
	{"a kernel image linked high, its map at 0",
	 {{PT_LOAD, X, 0x200000, 0xffffffff81000000, 0x1000000, 0x1000000, 0x200000}}, 1, 0x0, 0x0,
	 false, 0, SP_RULE_RUNTIME},
	{"no program headers (a relocatable object)", {{0}}, 0, 0x0, 0x0, false, 0, SP_RULE_RUNTIME},
};

int main(void)
{
	for (size_t i = 0; i < SP_ARRAY_LEN(rows); i++) {
		const row *r = &rows[i];
		uint64_t va = 0;
		bool has = sp_file_offset_va(r->loads, r->n, r->offset, &va);
		TAP_OK(has == r->has_va && (!has || va == r->va),
		       "%s: offset %#" PRIx64 " -> %s %#" PRIx64, r->what, r->offset,
		       has ? "VA" : "none", va);
		sp_address_rule rule = sp_mapping_address_rule(r->loads, r->n, r->start, r->offset);
		TAP_OK(rule == r->rule, "%s: a mapping at %#" PRIx64 " holds %s", r->what, r->start,
		       sp_address_rule_str(rule));
	}
	TAP_EQ_STR(sp_address_rule_str(SP_RULE_UNKNOWN), "unknown", "the rule of no file");
	return tap_done();
}
