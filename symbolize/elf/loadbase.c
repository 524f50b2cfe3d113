/* loadbase.c — the arithmetic that turns a run-time address into a
 * symbol-file address (spec/FORMATS.md §6.2–6.3).  Given a mapping such as
 * `55af92a24000-55af92a25000 r-xp 00001000 ... /path/to/u` and the PT_LOAD
 * headers of u, it picks the program header that holds the mapping and
 * computes the base so that symbol-file address = run-time address - base
 * (here 0x55af92a23000).  Everything is pure: no I/O, no allocation, one
 * table test (tests/unit/symbolize/test_loadbase.c) with a row for every rule.
 *
 * ET_REL objects emitted by a JIT have their section addresses already set
 * to run-time addresses; they are symbolized with base 0 by the JIT index
 * and never go through sp_mapping_base, which is for mappings of files.
 */
#include "symbolize/elf/elf.h"

#include <elf.h>
#include <inttypes.h>
#include <stdlib.h>

#define PAGE_SIZE_ 4096u
#define KERNEL_HALF (UINT64_C(1) << 63)
#define PPC64_PAGE_OFFSET UINT64_C(0xc000000000000000)

/* pprof's kernelBase: the rules for kernel images, tried in order.
 * Returns true and sets *BASE when one matches. */
static bool kernel_base(const sp_phdr *seg, const uint64_t *stext, uint64_t start,
			uint64_t limit, uint64_t offset, uint64_t *base)
{
	if (seg->vaddr == start - offset) {
		*base = offset;
		return true;
	}
	if (start == 0 && limit != 0 && stext) {
		/* ChromeOS remaps the kernel at page 0. */
		*base = start - *stext;
		return true;
	}
	if (start >= KERNEL_HALF && limit > start &&
	    (offset == 0 || offset == PPC64_PAGE_OFFSET || offset == start)) {
		/* perf may use the relocation symbol's address as mmap start. */
		if (stext && start % PAGE_SIZE_ == *stext % PAGE_SIZE_)
			*base = start - *stext;
		else
			*base = start - seg->vaddr;
		return true;
	}
	if (start % PAGE_SIZE_ != 0 && stext && *stext % PAGE_SIZE_ == start % PAGE_SIZE_) {
		*base = start - *stext;
		return true;
	}
	return false;
}

sp_error *sp_load_base(int elf_type, const sp_phdr *seg, const uint64_t *stext, uint64_t start,
		       uint64_t limit, uint64_t offset, uint64_t *base)
{
	/* A fake mapping covering the whole address space: the addresses are
	 * symbol-file addresses already. */
	if (start == 0 && offset == 0 && (limit == 0 || limit == UINT64_MAX)) {
		*base = 0;
		return NULL;
	}
	switch (elf_type) {
	case ET_EXEC:
		if (!seg) {
			*base = 0;
			return NULL;
		}
		if (!stext && start > 0 && start < KERNEL_HALF) {
			*base = start - offset + seg->offset - seg->vaddr;
			return NULL;
		}
		if (kernel_base(seg, stext, start, limit, offset, base))
			return NULL;
		if (start == 0 && limit != 0 && !stext) {
			*base = start - seg->vaddr;
			return NULL;
		}
		return sp_error_new(SP_E_UNSUPPORTED,
				    "don't know how to handle EXEC segment (p_offset %#" PRIx64
				    ", p_vaddr %#" PRIx64 ") for mapping start %#" PRIx64
				    " limit %#" PRIx64 " offset %#" PRIx64,
				    seg->offset, seg->vaddr, start, limit, offset);
	case ET_REL:
		if (offset != 0)
			return sp_error_new(SP_E_UNSUPPORTED,
					    "relocatable object mapped at file offset %#" PRIx64
					    ": expected offset 0",
					    offset);
		*base = start;
		return NULL;
	case ET_DYN:
		if (!seg) {
			*base = start - offset;
			return NULL;
		}
		if (kernel_base(seg, stext, start, limit, offset, base))
			return NULL;
		*base = start - offset + seg->offset - seg->vaddr;
		return NULL;
	default:
		return sp_error_new(SP_E_UNSUPPORTED,
				    "don't know how to handle ELF type %d (expected EXEC, DYN or REL)",
				    elf_type);
	}
}

size_t sp_program_headers_for_mapping(const sp_phdr *phdrs, size_t n, uint64_t map_offset,
				      uint64_t map_size, size_t *out)
{
	uint64_t map_limit = map_offset + map_size;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const sp_phdr *p = &phdrs[i];
		uint64_t seg_end = p->offset + p->memsz;

		/* Segments without file contents (pure .bss) cannot be the
		 * one a file mapping shows. */
		if (p->filesz == 0)
			continue;
		if (!(map_offset < seg_end && p->offset < map_limit))
			continue;
		/* (a) The mapping begins before the aligned start of the
		 * segment: it shows another segment. */
		uint64_t rem = p->align > 1 ? p->vaddr % p->align : 0;
		uint64_t aligned = p->offset > rem ? p->offset - rem : 0;
		if (map_offset < aligned)
			continue;
		/* (b) It starts inside the segment, covers less than a page
		 * of it and goes on for at least a page past its end. */
		if (map_offset > p->offset && seg_end - map_offset < PAGE_SIZE_ &&
		    map_limit >= seg_end && map_limit - seg_end >= PAGE_SIZE_)
			continue;
		out[k++] = i;
	}
	return k;
}

sp_error *sp_header_for_file_offset(const sp_phdr *phdrs, const size_t *cand, size_t n_cand,
				    uint64_t file_offset, size_t *out)
{
	bool found = false;

	for (size_t i = 0; i < n_cand; i++) {
		const sp_phdr *p = &phdrs[cand[i]];
		if (file_offset < p->offset || file_offset - p->offset >= p->memsz)
			continue;
		if (found)
			return sp_error_new(SP_E_UNSUPPORTED,
					    "file offset %#" PRIx64
					    " lies in two program headers (offsets %#" PRIx64
					    " and %#" PRIx64
					    "): is this a stripped debug file, or does a segment "
					    "share a page with .bss?",
					    file_offset, phdrs[*out].offset, p->offset);
		*out = cand[i];
		found = true;
	}
	if (!found)
		return sp_error_new(SP_E_NOT_FOUND,
				    "no program header matches file offset %#" PRIx64, file_offset);
	return NULL;
}

ssize_t sp_find_text_program_header(const sp_elf_info *info)
{
	if (!info->has_text)
		return -1;
	for (size_t i = 0; i < info->n_loads; i++) {
		const sp_phdr *p = &info->loads[i];
		if (p->type == PT_LOAD && (p->flags & PF_X) && info->text_addr >= p->vaddr &&
		    info->text_addr - p->vaddr < p->memsz)
			return (ssize_t)i;
	}
	return -1;
}

sp_error *sp_mapping_base(const sp_elf_info *info, uint64_t start, uint64_t limit,
			  uint64_t offset, uint64_t first_addr, uint64_t *base)
{
	const uint64_t *stext = info->has_stext ? &info->stext : NULL;
	const sp_phdr *seg = NULL;
	bool whole = start == 0 && offset == 0 && (limit == 0 || limit == UINT64_MAX);

	if (!whole && start < limit && (first_addr < start || first_addr >= limit))
		return sp_error_new(SP_E_UNSUPPORTED,
				    "address %#" PRIx64 " is outside the mapping [%#" PRIx64
				    ", %#" PRIx64 ")",
				    first_addr, start, limit);

	if (stext || start >= limit || limit >= KERNEL_HALF) {
		/* Kernel-like: the executable segment holding .text. */
		ssize_t i = sp_find_text_program_header(info);
		if (i >= 0)
			seg = &info->loads[i];
	} else if (info->n_loads > 0) {
		size_t *cand = sp_xcalloc(info->n_loads, sizeof(*cand));
		size_t n = sp_program_headers_for_mapping(info->loads, info->n_loads, offset,
							  limit - start, cand);
		sp_error *err = NULL;
		size_t pick = 0;

		if (n == 0)
			err = sp_error_new(SP_E_NOT_FOUND,
					   "no program header matches mapping info (offset %#" PRIx64
					   ", size %#" PRIx64 ")",
					   offset, limit - start);
		else if (n == 1)
			pick = cand[0];
		else
			err = sp_header_for_file_offset(info->loads, cand, n,
							first_addr - start + offset, &pick);
		free(cand);
		if (err)
			return sp_error_prefix(err, "%s", info->path ? info->path : "(ELF)");
		seg = &info->loads[pick];
	}
	/* Files without PT_LOAD (e.g. kernel modules) keep seg == NULL. */

	sp_error *err = sp_load_base(info->elf_type, seg, stext, start, limit, offset, base);
	if (err)
		return sp_error_prefix(err, "%s", info->path ? info->path : "(ELF)");
	return NULL;
}

uint64_t sp_relative_adjust(const sp_phdr *loads, size_t n)
{
	const sp_phdr *low = NULL;
	for (size_t i = 0; i < n; i++)
		if (!low || loads[i].vaddr < low->vaddr)
			low = &loads[i];
	return low ? low->vaddr - low->offset : 0;
}

bool sp_file_offset_vaddr(const sp_phdr *loads, size_t n, uint64_t file_offset,
			 uint64_t *vaddr)
{
	for (size_t i = 0; i < n; i++) {
		const sp_phdr *p = &loads[i];
		if (file_offset < p->offset || file_offset - p->offset >= p->filesz)
			continue;
		*vaddr = file_offset - p->offset + p->vaddr;
		return true;
	}
	return false;
}

uint64_t sp_kernel_module_base(uint64_t start, uint64_t text_vaddr)
{
	return start - text_vaddr;
}
