/* addrrule.c — which addresses a mapping's locations hold (pure; rows in
 * tests/unit/symbolize/test_addrrule.c).
 *
 * A profile made from run-time memory maps (perf.data, gperftools, pprof)
 * holds run-time addresses: the load base comes from pprof's rule
 * (loadbase.c).  The OpenTelemetry eBPF profiler instead sends a native
 * frame's mapping and address in the ELF file's own virtual addresses, load
 * base 0 (opentelemetry-ebpf-profiler b442421a32cc, processmanager/
 * processinfo.go: memory_start = FileOffsetToVirtualAddress(file offset),
 * libpf/pfelf/addressmapper.go), and data converted from pprof to OTLP
 * keeps pprof's run-time addresses.  So the rule is decided per mapping,
 * from the file found for it: when the mapping starts at the ELF virtual
 * address of its file offset, its addresses are ELF virtual addresses.
 * (For a non-PIE executable both rules give base 0: they agree.)
 *
 * Neither rule touches "return address - 1": the profiler has applied it
 * already to its callers' addresses, and pprof's addresses are the
 * producer's to adjust (spec/FORMATS.md 2.7).
 */
#include "symbolize/elf/elf.h"

#include <elf.h>

/* The profiler aligns as the kernel's ELF loader and glibc do: to the
 * system page size, 4 KiB on the machines it runs on. */
#define PAGE ((uint64_t)4096)

const char *sp_address_rule_str(sp_address_rule r)
{
	switch (r) {
	case SP_RULE_ELF_VA: return "ELF virtual addresses (load base 0)";
	case SP_RULE_RUNTIME: return "run-time addresses";
	case SP_RULE_UNKNOWN: break;
	}
	return "unknown";
}

bool sp_file_offset_va(const sp_phdr *loads, size_t n, uint64_t offset, uint64_t *va)
{
	for (size_t i = 0; i < n; i++) {
		const sp_phdr *p = &loads[i];
		if (p->type != PT_LOAD || !(p->flags & PF_X))
			continue;
		/* the mapping may start before the segment, on its page */
		uint64_t aligned = p->offset & ~(PAGE - 1);
		if (offset >= aligned && offset < p->offset + p->filesz) {
			*va = p->vaddr - (p->offset - offset);
			return true;
		}
	}
	return false;
}

sp_address_rule sp_mapping_address_rule(const sp_phdr *loads, size_t n, uint64_t start,
					uint64_t offset)
{
	uint64_t va;
	if (sp_file_offset_va(loads, n, offset, &va) && va == start)
		return SP_RULE_ELF_VA;
	return SP_RULE_RUNTIME;
}
