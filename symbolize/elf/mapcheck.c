/* mapcheck.c — does a file found for a mapping look like the one that was
 * mapped?  gperftools and jemalloc dumps record no build ids, so a binary
 * rebuilt since the run would otherwise be symbolized silently and print
 * wrong stacks.  What the map line recorded can still be compared with the
 * file's program headers: the kernel and the dynamic loader map an
 * executable PT_LOAD from the page holding p_offset to the page end of
 * p_offset + p_memsz, so
 *
 *   55d0c8a01000-55d0c8a03000 r-xp 00001000 08:01 1234  /usr/bin/prog
 *
 * needs an executable PT_LOAD whose page-rounded file extent overlaps the
 * file range [0x1000, 0x3000) and ends, page-rounded, at 0x3000.  The
 * mapping may begin before that segment: adjacent pieces of one file
 * merged into one mapping (profile/maps.c), or a non-PIE main binary whose
 * mapping pprof's rule extends down to 0x400000 and file offset 0 (its
 * headers' segment).  It may begin inside the segment (part of it remapped
 * elsewhere), but it never ends inside one.  Page sizes of 4, 16 and
 * 64 KiB are accepted, and an end that is not on a page boundary (a map
 * written by hand or by a tool from p_filesz) is rounded up first.  A
 * mapping that reaches past every segment of the file says nothing about
 * the file's layout (some pprof producers record such limits): it is not
 * refused here, and its addresses past the file are reported as outside
 * it, one by one, when they are resolved.  When the profile recorded the file's size and
 * modification time, they must agree too.
 *
 * Pure: no I/O, no allocation; tests/unit/symbolize/test_mapcheck.c has a row per case.
 * Nothing is rejected when nothing can be compared: objects without
 * PT_LOADs (ET_REL), kernel-like mappings (start >= limit or in the upper
 * half), the fake whole-space mapping, and facts the profile did not
 * record.
 */
#include "symbolize/elf/elf.h"

#include <elf.h>

#define KERNEL_HALF (UINT64_C(1) << 63)

static const uint64_t page_sizes[] = {4096, 16384, 65536};

static uint64_t page_down(uint64_t x, uint64_t page)
{
	return x & ~(page - 1);
}

static uint64_t page_up(uint64_t x, uint64_t page)
{
	return (x + page - 1) & ~(page - 1);
}

static bool executable_load(const sp_phdr *p)
{
	return p->type == PT_LOAD && (p->flags & PF_X) && p->memsz > 0;
}

/* The extent test for one page size: some executable segment overlaps the
 * mapping's file range [OFFSET, OFFSET + SIZE) and ends, page-rounded,
 * where the mapping ends (page-rounded too), or the mapping reaches past
 * every segment of the file.  *SEG_SIZE gets the size from OFFSET to the
 * page end of the last overlapping executable segment. */
static sp_file_match extent_match(const sp_phdr *loads, size_t n, uint64_t offset,
				  uint64_t size, uint64_t page, uint64_t *seg_size)
{
	sp_file_match why = SP_FILE_NO_EXEC_SEGMENT;
	uint64_t map_end = page_up(offset + size, page_sizes[0]), file_end = 0;
	for (size_t i = 0; i < n; i++)
		if (loads[i].type == PT_LOAD && page_up(loads[i].offset + loads[i].memsz, page) > file_end)
			file_end = page_up(loads[i].offset + loads[i].memsz, page);
	for (size_t i = 0; i < n; i++) {
		const sp_phdr *s = &loads[i];
		uint64_t begin = page_down(s->offset, page), end = page_up(s->offset + s->memsz, page);
		/* overlap of [begin, end) with [offset, offset + size) */
		if (!executable_load(s) || offset >= end || (begin > offset && begin - offset >= size))
			continue;
		if (end == map_end || map_end > file_end)
			return SP_FILE_MATCHES;
		why = SP_FILE_EXTENT_DIFFERS;
		*seg_size = end - offset;
	}
	return why;
}

sp_file_match sp_mapping_file_match(const sp_mapping_record *m, const sp_elf_info *info,
				    uint64_t *seg_size)
{
	*seg_size = 0;
	if (m->file_size && info->size > 0 && m->file_size != (uint64_t)info->size)
		return SP_FILE_SIZE_DIFFERS;
	if (m->mtime_ns && info->mtime_ns && m->mtime_ns != info->mtime_ns)
		return SP_FILE_MTIME_DIFFERS;
	if (info->n_loads == 0 || m->limit <= m->start || m->start >= KERNEL_HALF ||
	    m->limit > KERNEL_HALF)
		return SP_FILE_MATCHES;
	sp_file_match why = SP_FILE_MATCHES;
	for (size_t i = 0; i < SP_ARRAY_LEN(page_sizes); i++) {
		uint64_t seg = 0;
		uint64_t end = m->offset + (m->limit - m->start);
		if (i > 0 && (m->offset % page_sizes[i] != 0 ||
			      page_up(end, page_sizes[0]) % page_sizes[i] != 0))
			break; /* larger pages cannot have mapped it */
		sp_file_match w = extent_match(info->loads, info->n_loads, m->offset,
					       m->limit - m->start, page_sizes[i], &seg);
		if (w == SP_FILE_MATCHES) {
			*seg_size = 0;
			return w;
		}
		if (i == 0) { /* the 4 KiB answer explains a mismatch */
			why = w;
			*seg_size = seg;
		}
	}
	return why;
}

const char *sp_file_match_str(sp_file_match w)
{
	switch (w) {
	case SP_FILE_MATCHES: return "matches";
	case SP_FILE_NO_EXEC_SEGMENT: return "no executable segment at the mapping's file offsets";
	case SP_FILE_EXTENT_DIFFERS: return "the mapping's size is not the executable segment's";
	case SP_FILE_SIZE_DIFFERS: return "file size differs";
	case SP_FILE_MTIME_DIFFERS: return "modification time differs";
	}
	return "unknown";
}
