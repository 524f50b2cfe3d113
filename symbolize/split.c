/* split.c — the split unit of a skeleton unit (-gsplit-dwarf).
 *
 * A binary built with -gsplit-dwarf keeps one skeleton unit per compile
 * unit: its ranges, its line table and where the rest is,
 *
 *   DW_TAG_skeleton_unit (DWARF 5; a DW_TAG_compile_unit in DWARF 4)
 *     DW_AT_dwo_name  "obj/foo.dwo"      (DW_AT_GNU_dwo_name)
 *     DW_AT_comp_dir  "/build"
 *     DW_AT_addr_base 0x8                (DW_AT_GNU_addr_base)
 *     dwo id 0x1234...                   (unit header; DW_AT_GNU_dwo_id)
 *     DW_AT_GNU_ranges_base 0            (DWARF 4 only)
 *
 * and the .dwo file holds the split unit with the same id: every
 * subprogram and inlined subroutine, addresses as indexes into the
 * binary's .debug_addr (from the skeleton's addr_base), strings through
 * the .dwo's .debug_str_offsets.  libdw opens a .dwo as a Dwarf of its
 * own and reads its DIEs, strings and file table; what it cannot do
 * without the skeleton (indexed addresses, range lists) the raw walk
 * (dwraw.c) reads from the sections gathered here.
 */
#include "symbolize/dwarfp.h"
#include "symbolize/dwcursor.h"

#include <dwarf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *skel_string(Dwarf_Die *die, int name)
{
	Dwarf_Attribute a;
	return dwarf_formstring(dwarf_attr(die, name, &a));
}

static bool skel_udata(Dwarf_Die *die, int name, uint64_t *out)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	if (!dwarf_attr(die, name, &a) || dwarf_formudata(&a, &w) != 0)
		return false;
	*out = w;
	return true;
}

static const char *dwo_name(Dwarf_Die *skel)
{
	const char *n = skel_string(skel, DW_AT_dwo_name);
	return n ? n : skel_string(skel, DW_AT_GNU_dwo_name);
}

bool sp_split_is_skeleton(Dwarf_Die *skel)
{
	Dwarf_Attribute a;
	return dwarf_attr(skel, DW_AT_dwo_name, &a) || dwarf_attr(skel, DW_AT_GNU_dwo_name, &a);
}

/* The dwo id of the unit of DIE (libdw takes it from a DWARF 5 unit's
 * header, or DW_AT_GNU_dwo_id); false when it has none.  *VERSION and
 * *TYPE are its version and unit type. */
static bool unit_dwo_id(Dwarf_Die *die, Dwarf_Half *version, uint8_t *type, uint64_t *id)
{
	Dwarf_Die tmp;
	*id = 0;
	if (dwarf_cu_info(die->cu, version, type, &tmp, NULL, id, NULL, NULL) != 0)
		return false;
	return *id != 0 || skel_udata(die, DW_AT_GNU_dwo_id, id);
}

/* What the finder's check looks for, and what it opened. */
typedef struct {
	uint64_t id;
	int fd;
	Dwarf *dw;
	Dwarf_Die die;
	Dwarf_Off start, end;
} match;

static void close_dwo(Dwarf *dw, int fd)
{
	if (dw)
		dwarf_end(dw);
	if (fd >= 0)
		close(fd);
}

static void match_drop(match *mt)
{
	close_dwo(mt->dw, mt->fd);
	mt->dw = NULL;
	mt->fd = -1;
}

/* The size of ELF's .debug_info.dwo, 0 when it has none: the raw walk
 * stops there whatever a unit's length says. */
static size_t info_size(Elf *elf)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".debug_info.dwo") != 0)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		return d ? d->d_size : 0;
	}
	return 0;
}

/* sp_finder_dwo's check: PATH is a .dwo with a split unit of id
 * MT->id, kept open in MT. */
static sp_try_status check_dwo(const char *path, void *arg)
{
	match *mt = arg;
	match_drop(mt);
	mt->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (mt->fd < 0)
		return SP_TRY_MISSING;
	mt->dw = dwarf_begin(mt->fd, DWARF_C_READ);
	if (!mt->dw) {
		match_drop(mt);
		return SP_TRY_NO_DEBUG_INFO;
	}
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(mt->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		uint64_t id;
		Dwarf_Half version;
		uint8_t type;
		if (dwarf_offdie(mt->dw, off + hsize, &mt->die) &&
		    unit_dwo_id(&mt->die, &version, &type, &id) && id == mt->id &&
		    type == DW_UT_split_compile) {
			size_t size = info_size(dwarf_getelf(mt->dw));
			mt->start = off;
			mt->end = next < size ? next : size;
			return SP_TRY_OK;
		}
		off = next;
	}
	match_drop(mt);
	return SP_TRY_DWO_ID_MISMATCH;
}

/* Where DW_FORM_rnglistx's offsets start in the .dwo's .debug_rnglists:
 * after the header of its one table (12 bytes, 20 in 64-bit DWARF), or
 * at the split unit's own DW_AT_rnglists_base. */
static uint64_t rnglists_base(Dwarf_Die *split, const sp_line_sections *sec)
{
	uint64_t b;
	if (skel_udata(split, DW_AT_rnglists_base, &b))
		return b;
	if (!sec->rnglists || sec->rnglists_size < 4)
		return 0;
	return sp_read_le(sec->rnglists, 4) == 0xffffffffu ? 20 : 12;
}

sp_error *sp_split_open(const sp_module *m, sp_find_log *log, Dwarf_Die *skel, sp_split **out)
{
	*out = NULL;
	const char *name = dwo_name(skel);
	if (!name)
		return NULL;
	Dwarf_Half version;
	uint64_t id;
	uint8_t type;
	if (!unit_dwo_id(skel, &version, &type, &id))
		return sp_error_new(SP_E_MALFORMED,
				    "%s: skeleton unit at offset 0x%llx for %s has no dwo id",
				    m->path, (unsigned long long)dwarf_dieoffset(skel), name);
	match mt = {.id = id, .fd = -1};
	sp_finder *own = m->finder ? NULL : sp_finder_new(m->opts);
	char *found = NULL;
	sp_error *e = sp_finder_dwo(m->finder ? m->finder : own, m->path, name,
				    skel_string(skel, DW_AT_comp_dir), check_dwo, &mt, &found, log);
	sp_finder_free(own);
	free(found);
	if (e) {
		match_drop(&mt);
		return e;
	}
	sp_split *s = sp_xcalloc(1, sizeof(*s));
	s->dw = mt.dw;
	s->fd = mt.fd;
	s->die = mt.die;
	s->start = mt.start;
	s->end = mt.end;
	sp_line_sections_get(dwarf_getelf(s->dw), &s->sec);
	/* DWARF 4 range lists are the binary's; .debug_addr always is */
	s->sec.ranges = m->lsec.ranges;
	s->sec.ranges_size = m->lsec.ranges_size;
	s->sec.addr = m->lsec.addr;
	s->sec.addr_size = m->lsec.addr_size;
	if (!skel_udata(skel, DW_AT_addr_base, &s->addr_base))
		skel_udata(skel, DW_AT_GNU_addr_base, &s->addr_base);
	skel_udata(skel, DW_AT_GNU_ranges_base, &s->ranges_base);
	s->rnglists_base = rnglists_base(&s->die, &s->sec);
	s->base_ok = sp_unit_base(skel, &s->base);
	*out = s;
	return NULL;
}

void sp_split_free(sp_split *s)
{
	if (!s)
		return;
	close_dwo(s->dw, s->fd);
	free(s);
}
