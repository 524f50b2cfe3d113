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
 * (die.c) reads from the sections gathered here.
 *
 * A package (BIN.dwp) holds many split units: its index (dwp.c) gives
 * each unit's part of every section, and a unit is opened as a view of
 * the package whose sections are only that part, read as a .dwo is.  A
 * package's compressed sections (objcopy --compress-debug-sections, the
 * index included) are inflated by us once per package, when a unit
 * first reads them, and every view reads that one copy: libdw would
 * inflate a section of each view again, and cannot read zstd.
 */
#include "symbolize/dwarf/dwarfp.h"
#include "symbolize/dwarf/cursor.h"

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
	int fd;   /* a .dwo's own; -1 for a package's unit */
	Elf *elf; /* a package's unit: its contributions */
	Dwarf *dw;
	Dwarf_Die die;
	Dwarf_Off start, end;
} match;

static void close_dwo(Dwarf *dw, Elf *elf, int fd)
{
	if (dw)
		dwarf_end(dw);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

static void match_drop(match *mt)
{
	close_dwo(mt->dw, mt->elf, mt->fd);
	mt->dw = NULL;
	mt->elf = NULL;
	mt->fd = -1;
}

/* The section named NAME of ELF, or NULL. */
static Elf_Scn *section_named(Elf *elf, const char *name)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *n;
		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* The size of ELF's .debug_info.dwo, 0 when it has none: the raw walk
 * stops there whatever a unit's length says. */
static size_t info_size(Elf *elf)
{
	Elf_Scn *scn = section_named(elf, ".debug_info.dwo");
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	return d ? d->d_size : 0;
}

static sp_try_status match_unit(match *mt);

/* Whether NAME is a debug section's, and (*DWO) a split unit's. */
static bool debug_section(const char *name, bool *dwo)
{
	size_t len = strlen(name);
	*dwo = len > 4 && !strcmp(name + len - 4, ".dwo");
	return !strncmp(name, ".debug_", 7) || !strncmp(name, ".zdebug_", 8);
}

/* FD's split-unit sections alone, when it also has debug sections of its
 * own: an object built with -gsplit-dwarf=single (or an assembler's
 * output before the .dwo sections are split off) keeps its skeleton units
 * and their split units in one file, and libdw reads only the plain
 * sections of a file that has both.  The view hides those, as a package's
 * unit view hides the index; NULL for a file that does not have both. */
static Elf *split_sections_view(int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t shstrndx;
	bool plain = false, split = false;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0) {
		if (elf)
			elf_end(elf);
		return NULL;
	}
	for (int pass = 0; pass < 2; pass++) {
		Elf_Scn *scn = NULL;
		while ((scn = elf_nextscn(elf, scn)) != NULL) {
			GElf_Shdr sh;
			const char *name;
			bool dwo;
			if (!gelf_getshdr(scn, &sh) ||
			    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
			    !debug_section(name, &dwo) || sh.sh_type == SHT_NOBITS)
				continue;
			if (pass == 0) {
				plain |= !dwo;
				split |= dwo;
			} else if (!dwo) {
				sh.sh_type = SHT_NOBITS;
				sh.sh_name = 0;
				gelf_update_shdr(scn, &sh);
			}
		}
		if (pass == 0 && !(plain && split)) {
			elf_end(elf);
			return NULL;
		}
	}
	return elf;
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
	/* zstd sections inflated for libdw, as in the main debug file; one that
	 * cannot be read leaves the unit to the skeleton, as a damaged one does */
	sp_error *e = NULL;
	mt->fd = sp_debug_fd_prepare(mt->fd, path, &e);
	sp_error_free(e);
	mt->elf = split_sections_view(mt->fd);
	mt->dw = mt->elf ? dwarf_begin_elf(mt->elf, DWARF_C_READ, NULL)
			 : dwarf_begin(mt->fd, DWARF_C_READ);
	return match_unit(mt);
}

/* The split unit of id MT->id in MT->dw, kept in MT; MT dropped when
 * there is none. */
static sp_try_status match_unit(match *mt)
{
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

/* M's finder, else one made of M's options into *OWN (the caller frees it). */
static sp_finder *module_finder(const sp_module *m, sp_finder **own)
{
	*own = m->finder ? NULL : sp_finder_new(m->opts);
	return m->finder ? m->finder : *own;
}

/* ------------------------------------------------------------------------ */
/* Packages (.dwp).                                                         */

/* A compressed section of a package, inflated at most once. */
typedef struct {
	bool tried;
	void *buf; /* malloc'd */
	size_t size;
	sp_error *err; /* why it could not be */
} dwp_inflated;

struct sp_dwp {
	char *path;
	int fd;
	Elf *elf; /* holds the index's bytes, and the compressed sections */
	sp_dwp_index ix;
	void *index_buf;    /* the index inflated, when it is compressed */
	dwp_inflated *secs; /* by section index */
	size_t n_secs;
};

/* The package's sections and the kind of each one's contributions, in
 * index version 2 and 5 (0: none in that version); READ: resolution reads
 * it (.debug_str.dwo, which all units share, too). */
static const struct {
	const char *name;
	unsigned char kind[2];
	bool read;
} dwp_sections[] = {
	{".debug_info.dwo", {1, 1}, true},        {".debug_types.dwo", {2, 0}, false},
	{".debug_abbrev.dwo", {3, 3}, true},      {".debug_line.dwo", {4, 4}, true},
	{".debug_loc.dwo", {5, 0}, false},        {".debug_loclists.dwo", {0, 5}, false},
	{".debug_str_offsets.dwo", {6, 6}, true}, {".debug_macinfo.dwo", {7, 0}, false},
	{".debug_macro.dwo", {8, 7}, false},      {".debug_rnglists.dwo", {0, 8}, true},
	{".debug_str.dwo", {0, 0}, true},
};

void sp_dwp_free(sp_dwp *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_secs; i++) {
		free(p->secs[i].buf);
		sp_error_free(p->secs[i].err);
	}
	free(p->secs);
	free(p->index_buf);
	close_dwo(NULL, p->elf, p->fd);
	free(p->path);
	free(p);
}

/* The content of P's compressed section NDX (named NAME) inflated, in
 * *BUF and *SIZE (borrowed until sp_dwp_free); its failure the second
 * time as the first. */
static sp_error *dwp_inflate(sp_dwp *p, size_t ndx, const char *name, void **buf, size_t *size)
{
	Elf_Scn *scn = ndx < p->n_secs ? elf_getscn(p->elf, ndx) : NULL;
	*buf = NULL;
	*size = 0;
	if (!scn)
		return sp_error_new(SP_E_MALFORMED, "%s: no section %zu", p->path, ndx);
	dwp_inflated *s = &p->secs[ndx];
	if (!s->tried) {
		s->tried = true;
		s->err = sp_section_inflate(p->path, p->elf, scn, name, &s->buf, &s->size);
	}
	*buf = s->buf;
	*size = s->size;
	return sp_error_dup(s->err);
}

sp_error *sp_dwp_open(const sp_module *m, sp_dwp **out)
{
	*out = NULL;
	sp_finder *own;
	char *found = NULL;
	sp_error *e = sp_finder_dwp(module_finder(m, &own), m->path, &found, NULL);
	sp_finder_free(own);
	if (e) { /* no package is the usual case */
		sp_error_free(e);
		return NULL;
	}
	sp_dwp *p = sp_xcalloc(1, sizeof(*p));
	p->path = found;
	p->fd = open(found, O_RDONLY | O_CLOEXEC);
	p->elf = p->fd >= 0 ? elf_begin(p->fd, ELF_C_READ_MMAP, NULL) : NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf_Scn *scn = section_named(p->elf, ".debug_cu_index");
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	if (!p->elf || !gelf_getehdr(p->elf, &eh) || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    elf_getshdrnum(p->elf, &p->n_secs) != 0)
		e = sp_error_new(SP_E_UNRECOGNIZED, "%s: not a little-endian ELF file", found);
	else if (!d || !d->d_buf || !gelf_getshdr(scn, &sh))
		e = sp_error_new(SP_E_MALFORMED, "%s: no .debug_cu_index section", found);
	else if (!(sh.sh_flags & SHF_COMPRESSED))
		e = sp_dwp_index_read(d->d_buf, d->d_size, found, &p->ix);
	else {
		size_t n;
		e = sp_section_inflate(found, p->elf, scn, ".debug_cu_index", &p->index_buf, &n);
		if (!e)
			e = sp_dwp_index_read(p->index_buf, n, found, &p->ix);
	}
	/* libelf has checked the section headers against the file */
	p->secs = sp_xcalloc(p->n_secs ? p->n_secs : 1, sizeof(*p->secs));
	if (e) {
		sp_dwp_free(p);
		return e;
	}
	*out = p;
	return NULL;
}

const char *sp_dwp_path(const sp_dwp *p)
{
	return p->path;
}

/* The section NAME of a package with index VERSION: the kind of a unit's
 * contributions to it (0: none), and in *READ whether resolution reads it. */
static unsigned dwp_kind(const char *name, unsigned version, bool *read)
{
	for (size_t i = 0; i < SP_ARRAY_LEN(dwp_sections); i++)
		if (!strcmp(name, dwp_sections[i].name)) {
			*read = dwp_sections[i].read;
			return dwp_sections[i].kind[version == 2 ? 0 : 1];
		}
	*read = false;
	return 0;
}

/* The unit U (of dwo id MT->id) of package P as a .dwo of its own: a view
 * of the package whose sections are the unit's contributions, in MT. */
static sp_error *dwp_unit(sp_dwp *p, const sp_dwp_unit *u, match *mt)
{
	mt->elf = elf_begin(p->fd, ELF_C_READ_MMAP, NULL);
	size_t shstrndx;
	if (!mt->elf || elf_getshdrstrndx(mt->elf, &shstrndx) != 0) {
		match_drop(mt);
		return sp_error_new(SP_E_LIBDW, "%s: %s", p->path, elf_errmsg(-1));
	}
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(mt->elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(mt->elf, shstrndx, sh.sh_name)))
			continue;
		bool index = !strcmp(name, ".debug_cu_index") || !strcmp(name, ".debug_tu_index");
		bool read, packed = (sh.sh_flags & SHF_COMPRESSED) != 0;
		unsigned kind = dwp_kind(name, p->ix.version, &read);
		if (index || (packed && !read)) {
			/* libdw 0.188 refuses a file with a section of the
			 * index's names: they are hidden, name and data; a
			 * compressed section no one reads is never inflated */
			sh.sh_type = SHT_NOBITS;
			sh.sh_name = index ? 0 : sh.sh_name;
			gelf_update_shdr(scn, &sh);
			continue;
		}
		Elf_Data *d = kind || packed ? elf_getdata(scn, NULL) : NULL;
		if (!d)
			continue;
		if (packed) {
			void *buf;
			size_t n;
			sp_error *e = dwp_inflate(p, elf_ndxscn(scn), name, &buf, &n);
			if (e) {
				match_drop(mt);
				return e;
			}
			d->d_buf = buf;
			d->d_size = n;
			d->d_type = ELF_T_BYTE;
			sh.sh_flags &= ~(GElf_Xword)SHF_COMPRESSED;
			sh.sh_size = n;
			gelf_update_shdr(scn, &sh);
		}
		if (!kind)
			continue;
		if (!u->has[kind]) {
			d->d_size = 0;
			continue;
		}
		if (u->off[kind] > d->d_size || u->size[kind] > d->d_size - u->off[kind]) {
			sp_error *e = sp_error_new(SP_E_MALFORMED,
						   "%s: .debug_cu_index: unit 0x%llx: its %s at "
						   "offset %llu, %llu bytes, "
						   "is past the section's %zu bytes",
						   p->path, (unsigned long long)mt->id, name,
						   (unsigned long long)u->off[kind],
						   (unsigned long long)u->size[kind], d->d_size);
			match_drop(mt);
			return e;
		}
		d->d_buf = (char *)d->d_buf + u->off[kind];
		d->d_size = u->size[kind];
	}
	mt->dw = dwarf_begin_elf(mt->elf, DWARF_C_READ, NULL);
	if (match_unit(mt) != SP_TRY_OK)
		return sp_error_new(SP_E_MALFORMED,
				    "%s: .debug_cu_index: unit 0x%llx: no such split unit in its "
				    ".debug_info.dwo contribution",
				    p->path, (unsigned long long)mt->id);
	return NULL;
}

/* ------------------------------------------------------------------------ */

sp_error *sp_split_open(const sp_module *m, sp_dwp *dwp, sp_find_log *log, Dwarf_Die *skel,
			sp_split **out)
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
	sp_dwp_unit unit;
	sp_error *e;
	if (dwp && sp_dwp_index_find(&dwp->ix, id, &unit)) {
		/* a package has the unit: its .dwo is not looked for */
		if ((e = dwp_unit(dwp, &unit, &mt)) != NULL)
			return e;
	} else {
		sp_finder *own;
		char *found = NULL;
		e = sp_finder_dwo(module_finder(m, &own), m->path, name,
				  skel_string(skel, DW_AT_comp_dir), check_dwo, &mt, &found, log);
		sp_finder_free(own);
		free(found);
		if (e) {
			match_drop(&mt);
			return e;
		}
	}
	sp_split *s = sp_xcalloc(1, sizeof(*s));
	s->dw = mt.dw;
	s->elf = mt.elf;
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
	close_dwo(s->dw, s->elf, s->fd);
	free(s);
}
