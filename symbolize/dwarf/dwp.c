/* dwp.c — the unit index of a DWARF package (.dwp), as binutils' dwp and
 * llvm-dwp write it: the section .debug_cu_index, version 2 (the GNU
 * extension for DWARF 4) or 5 (DWARF 5), little-endian:
 *
 *   version      u32 2            (u16 5 + u16 0)
 *   columns N    u32 5
 *   units U      u32 2
 *   slots S      u32 16           a power of two above U
 *   S u64        dwo ids, 0 in an empty slot (open addressing)
 *   S u32        row of each slot, 1..U, 0 in an empty slot
 *   N u32        the DW_SECT_* of each column: 1 info, 3 abbrev, 4 line, ...
 *   U x N u32    each unit's offset in each section
 *   U x N u32    each unit's size in each section
 *
 * A unit of the package is the contributions its row names: its part of
 * .debug_info.dwo, .debug_abbrev.dwo and the others, in which it reads as
 * a .dwo file would (split.c).  Nothing here does I/O: the section's bytes
 * come in, the index keeps pointers into them, and every count is checked
 * against the bytes before it is used.
 */
#include "symbolize/dwarf/dwarfp.h"
#include "symbolize/dwarf/cursor.h"

#include <string.h>

#define HEADER 16

sp_error *sp_dwp_index_read(const unsigned char *p, size_t n, const char *what, sp_dwp_index *out)
{
	*out = (sp_dwp_index){0};
	if (n < HEADER)
		return sp_error_new(SP_E_MALFORMED,
				    "%s: .debug_cu_index at offset 0: expected a 16-byte header, "
				    "got %zu bytes",
				    what, n);
	uint32_t v32 = (uint32_t)sp_read_le(p, 4);
	unsigned version = v32 == 2 ? 2 : (v32 & 0xffff) == 5 && (v32 >> 16) == 0 ? 5 : 0;
	if (!version)
		return sp_error_new(SP_E_MALFORMED,
				    "%s: .debug_cu_index at offset 0: expected version 2 or 5, got "
				    "0x%x",
				    what, (unsigned)v32);
	uint64_t cols = sp_read_le(p + 4, 4), units = sp_read_le(p + 8, 4),
		 slots = sp_read_le(p + 12, 4);
	if (cols < 1 || cols > SP_DWP_MAX_SECT)
		return sp_error_new(SP_E_MALFORMED,
				    "%s: .debug_cu_index at offset 4: expected 1 to %d columns, "
				    "got %llu",
				    what, SP_DWP_MAX_SECT, (unsigned long long)cols);
	if (slots & (slots - 1) || units > slots)
		return sp_error_new(SP_E_MALFORMED,
				    "%s: .debug_cu_index at offset 12: expected a power of two "
				    "of slots, at least the %llu units, got %llu",
				    what, (unsigned long long)units, (unsigned long long)slots);
	/* all below 2^32, so no product overflows 64 bits */
	uint64_t need = HEADER + slots * 12 + cols * 4 + units * cols * 8;
	if (need > n)
		return sp_error_new(SP_E_MALFORMED,
				    "%s: .debug_cu_index at offset 0: %llu units of %llu columns "
				    "in %llu slots need %llu bytes, the section has %zu",
				    what, (unsigned long long)units, (unsigned long long)cols,
				    (unsigned long long)slots, (unsigned long long)need, n);
	out->version = version;
	out->n_cols = (uint32_t)cols;
	out->n_units = (uint32_t)units;
	out->n_slots = (uint32_t)slots;
	out->ids = p + HEADER;
	out->rows = out->ids + slots * 8;
	out->sects = out->rows + slots * 4;
	out->offsets = out->sects + cols * 4;
	out->sizes = out->offsets + units * cols * 4;
	bool seen[SP_DWP_MAX_SECT + 1] = {false};
	for (uint32_t c = 0; c < cols; c++) {
		uint64_t s = sp_read_le(out->sects + c * 4, 4);
		if (s < 1 || s > SP_DWP_MAX_SECT || seen[s])
			return sp_error_new(SP_E_MALFORMED,
					    "%s: .debug_cu_index at offset %llu: expected a "
					    "section kind 1 to %d not given before, got %llu",
					    what, (unsigned long long)(HEADER + slots * 12 + c * 4),
					    SP_DWP_MAX_SECT, (unsigned long long)s);
		seen[s] = true;
	}
	if (units && !seen[SP_DWP_SECT_INFO])
		return sp_error_new(SP_E_MALFORMED,
				    "%s: .debug_cu_index at offset %llu: expected a column for "
				    ".debug_info.dwo",
				    what, (unsigned long long)(HEADER + slots * 12));
	for (uint32_t i = 0; i < slots; i++) {
		uint64_t row = sp_read_le(out->rows + i * 4, 4);
		if (row > units)
			return sp_error_new(SP_E_MALFORMED,
					    "%s: .debug_cu_index at offset %llu: expected a row "
					    "of at most %llu, got %llu",
					    what, (unsigned long long)(HEADER + slots * 8 + i * 4),
					    (unsigned long long)units, (unsigned long long)row);
	}
	return NULL;
}

bool sp_dwp_index_find(const sp_dwp_index *ix, uint64_t id, sp_dwp_unit *out)
{
	memset(out, 0, sizeof(*out));
	if (!ix->n_slots || !ix->n_units)
		return false;
	uint64_t mask = ix->n_slots - 1;
	uint64_t h = id & mask, step = ((id >> 32) & mask) | 1;
	/* an odd step visits every slot of a power-of-two table once */
	for (uint32_t k = 0; k < ix->n_slots; k++, h = (h + step) & mask) {
		uint32_t row = (uint32_t)sp_read_le(ix->rows + h * 4, 4);
		uint64_t at = sp_read_le(ix->ids + h * 8, 8);
		if (row == 0 && at == 0)
			return false;
		if (at != id || row == 0)
			continue;
		for (uint32_t c = 0; c < ix->n_cols; c++) {
			unsigned s = (unsigned)sp_read_le(ix->sects + c * 4, 4);
			size_t cell = ((size_t)(row - 1) * ix->n_cols + c) * 4;
			out->has[s] = true;
			out->off[s] = sp_read_le(ix->offsets + cell, 4);
			out->size[s] = sp_read_le(ix->sizes + cell, 4);
		}
		return true;
	}
	return false;
}
