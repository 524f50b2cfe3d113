/* module.c — one ELF file as a module of a Dwfl.
 *
 * A module is opened and checked first (sp_module_open), reported into a
 * Dwfl by its owner (sp_module_report, inside the owner's report round,
 * so a per-process Dwfl can hold several), then its DWARF is loaded
 * (sp_module_load).  Its separate debug info is found by our own search
 * (find_debuginfo_cb), which libdwfl calls with the module as user data.
 *
 * ET_REL objects (code a JIT emitted, with section addresses already set to
 * run-time addresses) are laid out again by libdwfl when it reports them:
 * it moves the module, and re-places sections one by one (aligned, after
 * the previous one) as soon as some allocated section sits at 0, as the
 * sections a JIT never loaded do.  So no single shift maps the file's
 * addresses to libdwfl's: every placed section's own sh_addr is read before
 * libdwfl touches the headers and paired with the address libdwfl gave that
 * section, and each address is moved by the delta of the section holding
 * it.  Callers speak the file's own sh_addr space.
 */
#include "symbolize/dwarf/dwarfp.h"

#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

struct sp_dwfl {
	Dwfl *dwfl;
	Dwfl_Callbacks cb; /* libdwfl keeps a pointer to it */
	char *debuginfo_path;
};

static int prepared_debug_fd(sp_module *m, int fd, const char *path);

/* libdwfl asks here for separate debug info: our own search (build-id
 * trees, debuglink with CRC, debuginfod as the options say).  libdwfl's
 * standard search is used only when ours cannot run: it looks in the same
 * places, but when DEBUGINFOD_URLS is set it also asks debuginfod itself,
 * once per module, which would ignore --no-debuginfod and cost one timeout
 * per binary against a dead server. */
static int find_debuginfo_cb(Dwfl_Module *mod, void **userdata, const char *modname,
			     Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			     GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	sp_module *m = *userdata;

	if (m && m->info) {
		/* libdwfl asks again (for the symbol table) when the DWARF
		 * search found nothing: answer from the first search, so every
		 * place is tried, and listed, once. */
		if (m->debug_searched) {
			sp_error *e = NULL;
			int fd = m->debug_path ? sp_object_fd(m->debug_path, NULL, &e) : -1;
			sp_error_free(e);
			if (fd >= 0)
				*debuginfo_file_name = sp_xstrdup(m->debug_path);
			if (fd >= 0 && m->debug_fds)
				(*m->debug_fds)++;
			return fd;
		}
		m->debug_searched = true;
		char *found = NULL;
		sp_error *err = m->finder ? sp_finder_debuginfo(m->finder, m->path, m->info, &found,
								&m->log)
					  : sp_find_debuginfo(m->opts, m->path, m->info, &found,
							      &m->log);
		if (!err && found) {
			int fd = sp_object_fd(found, NULL, &err);
			if (fd >= 0)
				fd = prepared_debug_fd(m, fd, found);
			if (fd >= 0 && m->debug_fds)
				(*m->debug_fds)++;
			if (fd >= 0) {
				free(m->debug_path);
				m->debug_path = sp_xstrdup(found);
				*debuginfo_file_name = found;
				return fd;
			}
		}
		free(found);
		sp_error_free(err);
		return -1;
	}
	int fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
					      debuglink_file, debuglink_crc, debuginfo_file_name);
	if (fd >= 0 && m && *debuginfo_file_name) {
		free(m->debug_path);
		m->debug_path = sp_xstrdup(*debuginfo_file_name);
	}
	return fd;
}

/* The allocated, non-empty sections of an ET_REL that have an address, read
 * before libdwfl changes the in-memory section headers; their deltas are
 * filled in by rel_sections_map. */
static void rel_sections_read(sp_module *m, int fd)
{
	size_t cap = 0;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			break;
		if (!(sh.sh_flags & SHF_ALLOC) || sh.sh_addr == 0 || sh.sh_size == 0 ||
		    sh.sh_addr + sh.sh_size < sh.sh_addr)
			continue;
		sp_rel_sec r = {sh.sh_addr, sh.sh_addr + sh.sh_size, 0, elf_ndxscn(scn)};
		SP_PUSH(m->secs, m->n_secs, cap, r);
	}
	elf_end(elf);
}

static int cmp_rel_sec(const void *a, const void *b)
{
	const sp_rel_sec *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->ndx < y->ndx ? -1 : x->ndx > y->ndx;
}

/* Pairs each section read by rel_sections_read with the address libdwfl
 * laid it out at (its in-memory header plus the module bias, the address
 * its symbols and relocated DWARF use). */
static void rel_sections_map(sp_module *m)
{
	GElf_Addr ebias = 0;
	Elf *elf = dwfl_module_getelf(m->mod, &ebias);
	size_t k = 0;
	for (size_t i = 0; elf && i < m->n_secs; i++) {
		GElf_Shdr sh;
		Elf_Scn *scn = elf_getscn(elf, m->secs[i].ndx);
		if (!scn || !gelf_getshdr(scn, &sh))
			continue;
		m->secs[i].delta = (int64_t)(sh.sh_addr + ebias - m->secs[i].lo);
		m->secs[k++] = m->secs[i];
	}
	m->n_secs = k;
	if (m->n_secs > 1) /* qsort must not get NULL: an object with no placed section */
		qsort(m->secs, m->n_secs, sizeof(*m->secs), cmp_rel_sec);
}

bool sp_module_to_dwfl_rel(const sp_module *m, uint64_t addr, uint64_t *out)
{
	size_t lo = 0, hi = m->n_secs;
#define SEC_LO(i) m->secs[i].lo
	SP_UPPER_BOUND(lo, hi, SEC_LO, addr);
#undef SEC_LO
	if (lo == 0 || addr >= m->secs[lo - 1].hi)
		return false;
	*out = addr + (uint64_t)m->secs[lo - 1].delta;
	return true;
}

bool sp_module_from_dwfl(const sp_module *m, uint64_t a, uint64_t *out)
{
	for (size_t i = 0; i < m->n_secs; i++) {
		uint64_t lo = m->secs[i].lo + (uint64_t)m->secs[i].delta;
		if (a >= lo && a - lo < m->secs[i].hi - m->secs[i].lo) {
			*out = a - (uint64_t)m->secs[i].delta;
			return true;
		}
	}
	*out = a;
	return m->n_secs == 0;
}

/* The debug sections sp_module_load checks itself, as libdw reads them. */
enum { SEC_INFO, SEC_STR, SEC_LINE_STR, SEC_ARANGES, SEC_ABBREV, N_SECS };

/* The debug section after SCN in ELF (the first with SCN NULL) that has
 * data in the file: *SH its header, *NAME its full name, *SUFFIX the part
 * after ".debug_" or the GNU-compressed ".zdebug_".  NULL after the last. */
static Elf_Scn *next_debug_section(Elf *elf, size_t shstrndx, Elf_Scn *scn, GElf_Shdr *sh,
				   const char **name, const char **suffix)
{
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, sh) || sh->sh_type == SHT_NOBITS ||
		    !(*name = elf_strptr(elf, shstrndx, sh->sh_name)))
			continue;
		if (!strncmp(*name, ".zdebug_", 8) || !strncmp(*name, ".debug_", 7)) {
			*suffix = strchr(*name + 1, '_') + 1;
			return scn;
		}
	}
	return NULL;
}

/* In one pass over ELF's section headers, the data of .debug_info,
 * .debug_str and .debug_line_str (or their GNU-compressed .zdebug_ names)
 * as libdw reads them, decompressed and relocated: OUT[SEC_...], NULL for
 * a section that is absent or has no data.  Of two sections of one name,
 * the first counts. */
static void debug_sections(Elf *elf, Elf_Data *out[N_SECS])
{
	static const char *const names[N_SECS] = {"info", "str", "line_str", "aranges", "abbrev"};
	bool found[N_SECS] = {false};
	size_t shstrndx;
	for (size_t i = 0; i < N_SECS; i++)
		out[i] = NULL;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	const char *name, *suffix;
	while ((scn = next_debug_section(elf, shstrndx, scn, &sh, &name, &suffix)) != NULL) {
		for (size_t i = 0; i < N_SECS; i++)
			if (!found[i] && !strcmp(suffix, names[i])) {
				Elf_Data *data = elf_getdata(scn, NULL);
				out[i] = data && data->d_buf ? data : NULL;
				found[i] = true;
			}
	}
}

/* The debug sections resolution reads (without the ".debug_" prefix).
 * Every other compressed debug section (.debug_loc, .debug_loclists,
 * .debug_frame, .debug_macro, ...) is hidden from libdw, which would
 * otherwise inflate each one it knows when it opens the file. */
static const char *const read_sections[] = {
	"info", "abbrev", "line", "str", "line_str", "rnglists", "ranges",
	"addr", "str_offsets", "types", "aranges",
};

static bool read_by_resolution(const char *suffix)
{
	/* a split unit's sections (.debug_info.dwo) are read as their plain names */
	size_t n = strlen(suffix);
	if (n > 4 && !strcmp(suffix + n - 4, ".dwo"))
		n -= 4;
	for (size_t i = 0; i < SP_ARRAY_LEN(read_sections); i++)
		if (strlen(read_sections[i]) == n && !strncmp(suffix, read_sections[i], n))
			return true;
	return false;
}

/* A change to one debug section before libdw reads it: its header
 * becomes SH; DATA (SH.sh_size bytes, malloc'd) is its inflated content,
 * or LAZY inflates it as it is read (.debug_info, .debug_line: WHICH is
 * 'i' or 'l'); neither for a section hidden. */
typedef struct {
	size_t ndx;
	GElf_Shdr sh;
	void *data;
	sp_lazy *lazy;
	char which;
	bool raw; /* read from the file's image: libelf has not read its data */
} sec_patch;

typedef struct {
	sec_patch *v;
	size_t n, cap;
} sec_patches;

static void patches_clear(sec_patches *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].data);
		sp_lazy_free(p->v[i].lazy);
	}
	free(p->v);
	*p = (sec_patches){0};
}

/* What must change in ELF (the file PATH) before libdw opens its DWARF:
 * the compressed debug sections resolution reads are inflated by us (libdw
 * 0.188 cannot read zstd; a failure names the section; zlib ones only when
 * ZLIB, else libdw inflates them; with LAZY, zlib .debug_info and
 * .debug_line only as far as they are read), the other compressed ones
 * become SHT_NOBITS, which libdw and libdwfl's relocation skip, so that
 * they are never inflated.  *OUT gets the changes. */
static sp_error *plan_debug_sections(const char *path, Elf *elf, bool zlib, bool lazy,
				     sec_patches *out)
{
	size_t shstrndx;
	*out = (sec_patches){0};
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	const char *name, *suffix;
	while ((scn = next_debug_section(elf, shstrndx, scn, &sh, &name, &suffix)) != NULL) {
		bool gnu = name[1] == 'z';
		if (!gnu && !(sh.sh_flags & SHF_COMPRESSED))
			continue;
		sec_patch p = {elf_ndxscn(scn), sh, NULL, NULL, 0, false};
		if (!read_by_resolution(suffix)) {
			p.sh.sh_type = SHT_NOBITS;
			SP_PUSH(out->v, out->n, out->cap, p);
			continue;
		}
		if (gnu)
			continue; /* libdw inflates the GNU format itself */
		GElf_Chdr ch;
		const char *src = NULL;
		size_t n = 0;
		sp_error *e = sp_section_compressed(path, name, elf, scn, &sh, &ch, &src, &n, &p.raw);
		if (e)
			return e;
		if (ch.ch_type == ELFCOMPRESS_ZLIB && !zlib)
			continue;
		if (ch.ch_type == ELFCOMPRESS_ZLIB || ch.ch_type == ELFCOMPRESS_ZSTD) {
			p.which = !strcmp(suffix, "info") ? 'i' : !strcmp(suffix, "line") ? 'l' : 0;
			e = sp_section_decompress(path, name, &ch, src, n, &p.data,
						  lazy && p.which ? &p.lazy : NULL);
			if (e)
				return e;
			p.sh.sh_flags &= ~(GElf_Xword)SHF_COMPRESSED;
			p.sh.sh_size = ch.ch_size;
			p.sh.sh_addralign = ch.ch_addralign;
		} else {
			return sp_error_new(SP_E_UNSUPPORTED,
					    "%s: section %s: compression type %u cannot be read "
					    "(zlib and zstd can)",
					    path, name, (unsigned)ch.ch_type);
		}
		SP_PUSH(out->v, out->n, out->cap, p);
	}
	return NULL;
}

/* Who keeps a change's inflated data (P->data or P->lazy, taken and set
 * NULL) for as long as the Elf is read. */
typedef void keep_fn(void *ctx, sec_patch *p);

/* The changes of plan_debug_sections made to ELF (the file PATH) in
 * memory (libdwfl opens files so that they may be changed there, and
 * ELF_C_READ_MMAP copies the section headers); inflated data goes to
 * KEEP (CTX). */
/* The sections of a file resolution reads from start to end: compressed
 * debug sections it reads (inflated in order), small ones, and the symbol
 * tables with their names. */
static bool read_whole(const char *name, const GElf_Shdr *sh)
{
	if (sh->sh_type == SHT_SYMTAB || sh->sh_type == SHT_DYNSYM || !strcmp(name, ".strtab") ||
	    !strcmp(name, ".dynstr"))
		return true;
	bool gnu = !strncmp(name, ".zdebug_", 8);
	if (!gnu && strncmp(name, ".debug_", 7))
		return false;
	return read_by_resolution(strchr(name + 1, '_') + 1) &&
	       (gnu || (sh->sh_flags & SHF_COMPRESSED) || sh->sh_size <= ((GElf_Xword)1 << 20));
}

static sp_error *patch_in_memory(Elf *elf, const char *path, bool lazy, keep_fn *keep, void *ctx)
{
	sec_patches ps;
	sp_sections_willneed(elf, read_whole);
	sp_error *e = plan_debug_sections(path, elf, true, lazy, &ps);
	for (size_t i = 0; !e && i < ps.n; i++) {
		sec_patch *p = &ps.v[i];
		Elf_Scn *scn = elf_getscn(elf, p->ndx);
		if (p->raw && (p->data || p->lazy)) {
			/* no longer compressed before libelf reads it, so that it
			 * reads the bytes in place (see compressed_data) */
			GElf_Shdr plain;
			if (gelf_getshdr(scn, &plain)) {
				plain.sh_flags &= ~(GElf_Xword)SHF_COMPRESSED;
				gelf_update_shdr(scn, &plain);
			}
		}
		Elf_Data *data = p->data || p->lazy ? elf_getdata(scn, NULL) : NULL;
		if ((p->data || p->lazy) && !data)
			continue;
		gelf_update_shdr(scn, &p->sh);
		if (!data)
			continue;
		data->d_buf = p->lazy ? sp_lazy_data(p->lazy) : p->data;
		data->d_size = p->sh.sh_size;
		data->d_type = ELF_T_BYTE;
		data->d_align = 1;
		keep(ctx, p);
	}
	patches_clear(&ps);
	return e;
}

/* Keeps P's inflated data in the module CTX until sp_module_free. */
static void keep_in_module(void *ctx, sec_patch *p)
{
	sp_module *m = ctx;
	if (p->lazy) {
		sp_lazy **slot = p->which == 'i' ? &m->zinfo : &m->zline;
		sp_lazy_free(*slot);
		*slot = p->lazy;
		p->lazy = NULL;
	} else {
		m->inflated = sp_xreallocarray(m->inflated, m->n_inflated + 1, sizeof(*m->inflated));
		m->inflated[m->n_inflated++] = p->data;
		p->data = NULL;
	}
}

/* patch_in_memory for a module's file: inflated data is kept in M until
 * sp_module_free; .debug_info and .debug_line inflated as far as read,
 * except in an ET_REL (libdwfl writes its relocations into their data). */
static sp_error *prepare_debug_sections(sp_module *m, Elf *elf, const char *path)
{
	return patch_in_memory(elf, path, m->etype != ET_REL, keep_in_module, m);
}

typedef struct {
	void ***v;
	size_t *n;
} keep_list;

static void keep_in_list(void *ctx, sec_patch *p)
{
	keep_list *k = ctx;
	*k->v = sp_xreallocarray(*k->v, *k->n + 1, sizeof(**k->v));
	(*k->v)[(*k->n)++] = p->data;
	p->data = NULL;
}

sp_error *sp_debug_elf_prepare(Elf *elf, const char *path, void ***keep, size_t *n_keep)
{
	keep_list k = {keep, n_keep};
	return patch_in_memory(elf, path, false, keep_in_list, &k);
}

/* Copies LEN bytes of file IN to OUT from their starts; false on error. */
static bool copy_file(int in, int out, off_t len)
{
	off_t at = 0;
	while (at < len) {
		ssize_t k = sendfile(out, in, &at, (size_t)(len - at));
		if (k <= 0)
			return false;
	}
	return true;
}

/* Writes header SH at file offset AT of OUT in ELF class CLASS (the
 * host's byte order). */
static bool write_shdr(int out, off_t at, int class, const GElf_Shdr *sh)
{
	if (class == ELFCLASS64) {
		Elf64_Shdr x = {sh->sh_name,	   sh->sh_type, sh->sh_flags,	  sh->sh_addr,
				sh->sh_offset,	   sh->sh_size, sh->sh_link,	  sh->sh_info,
				sh->sh_addralign, sh->sh_entsize};
		return pwrite(out, &x, sizeof(x), at) == (ssize_t)sizeof(x);
	}
	Elf32_Shdr x = {sh->sh_name,
			sh->sh_type,
			(Elf32_Word)sh->sh_flags,
			(Elf32_Addr)sh->sh_addr,
			(Elf32_Off)sh->sh_offset,
			(Elf32_Word)sh->sh_size,
			sh->sh_link,
			sh->sh_info,
			(Elf32_Word)sh->sh_addralign,
			(Elf32_Word)sh->sh_entsize};
	return pwrite(out, &x, sizeof(x), at) == (ssize_t)sizeof(x);
}

static int debug_fd_prepare(int fd, const char *path, bool keep_with_symtab, sp_error **err);

/* A separate debug file as libdwfl hands it to libdw (which reads its
 * DWARF at once); a section that cannot be read is kept in M->load_err.
 * While sp_module_load asks for the symbol table first (M->defer_debug),
 * a file with a symbol table is left as it is: libdwfl opens it for the
 * symbols, and sp_module_load changes its sections in memory then, before
 * libdw reads them, which costs no copy of the file and lets the sections
 * be inflated only as far as they are read. */
static int prepared_debug_fd(sp_module *m, int fd, const char *path)
{
	sp_error *e = NULL;
	int r = debug_fd_prepare(fd, path, m->defer_debug, &e);
	if (e) {
		sp_error_free(m->load_err);
		m->load_err = e;
	}
	return r;
}

/* Whether ELF has a symbol table (SHT_SYMTAB) with a symbol. */
static bool has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB && sh.sh_entsize &&
		    sh.sh_size / sh.sh_entsize > 1)
			return true;
	return false;
}

/* The debug file FD (PATH) as libdw should read it, when libdwfl opens it
 * itself: FD when no section needs changing, else a copy in memory (FD is
 * closed; the copy counted against the memory budget while libdwfl holds
 * it, and refused, *ERR, when the budget has no room for it) with the
 * compressed sections resolution reads inflated where libdw cannot (zstd),
 * and the other compressed ones hidden; with KEEP_WITH_SYMTAB, FD itself
 * for a file with a symbol table (see prepared_debug_fd).  A section that
 * cannot be read is *ERR too; FD, or the copy, is returned all the same. */
static int debug_fd_prepare(int fd, const char *path, bool keep_with_symtab, sp_error **err)
{
	int host = sp_elf_host_order();
	GElf_Ehdr eh;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	sec_patches ps = {0};
	if (!elf || !gelf_getehdr(elf, &eh) || eh.e_ident[EI_DATA] != host ||
	    (keep_with_symtab && has_symtab(elf))) {
		if (elf)
			elf_end(elf);
		return fd;
	}
	/* zlib sections are left to libdw there: writing them inflated into
	 * the copy costs more than libelf's checksum */
	sp_error *e = plan_debug_sections(path, elf, false, false, &ps);
	int cls = gelf_getclass(elf);
	elf_end(elf);
	*err = e;
	struct stat st;
	bool copy = ps.n && !e && fstat(fd, &st) == 0;
	if (copy) {
		/* never a copy the budget has no room for (a sparse file is
		 * copied whole: its holes too) */
		size_t need = (size_t)st.st_size;
		for (size_t i = 0; i < ps.n; i++)
			if (ps.v[i].data)
				need += (size_t)ps.v[i].sh.sh_size + 16;
		char *what = sp_xasprintf("%s: a copy in memory to change its sections", path);
		*err = sp_mem_make_room(need, what);
		free(what);
		copy = !*err;
	}
	int out = copy ? memfd_create("symprof-debug", MFD_CLOEXEC) : -1;
	bool ok = out >= 0 && copy_file(fd, out, st.st_size);
	off_t end = ok ? (st.st_size + 15) / 16 * 16 : 0;
	for (size_t i = 0; ok && i < ps.n; i++) {
		sec_patch *p = &ps.v[i];
		if (p->data) {
			ok = pwrite(out, p->data, p->sh.sh_size, end) == (ssize_t)p->sh.sh_size;
			p->sh.sh_offset = (GElf_Off)end;
			end += (off_t)(p->sh.sh_size + 15) / 16 * 16;
		}
		ok = ok && write_shdr(out, (off_t)(eh.e_shoff + p->ndx * eh.e_shentsize), cls,
					      &p->sh);
	}
	patches_clear(&ps);
	if (!ok) {
		if (out >= 0)
			close(out);
		return fd;
	}
	close(fd);
	sp_memfile_track(out, (size_t)end); /* counted while libdwfl holds it */
	return out;
}

/* Whether every string of a string section ends inside it (true for an
 * absent one).  libdw hands out pointers into .debug_str and
 * .debug_line_str without looking for the NUL (dwarf_formstring; the file
 * names of dwarf_getsrclines, which it measures with strlen), so in a
 * damaged file whose section lost its last NUL, libdw and every user of a
 * name read past the section, and past the mapped file when it ends
 * there. */
static bool strings_terminated(const Elf_Data *data)
{
	return !data || !data->d_size || ((const char *)data->d_buf)[data->d_size - 1] == 0;
}

/* libdwfl asks here for the ELF of a module reported without one: a
 * module of a shared image gets a new reference to it (no descriptor);
 * any other, libdwfl's search by build id. */
static int find_elf_cb(Dwfl_Module *mod, void **userdata, const char *modname,
		       Dwarf_Addr base, char **file_name, Elf **elfp)
{
	sp_module *m = *userdata;
	if (m && m->image) {
		*elfp = elf_begin(-1, ELF_C_READ_MMAP, m->image);
		*file_name = sp_xstrdup(m->path); /* libdwfl frees it */
		return -1;
	}
	return dwfl_build_id_find_elf(mod, userdata, modname, base, file_name, elfp);
}

sp_error *sp_module_share(sp_module *m)
{
	if (m->image)
		return NULL;
	sp_error *e = sp_module_open(m);
	if (e)
		return e;
	if (m->etype == ET_REL)
		return sp_error_new(SP_E_UNSUPPORTED, "%s: a relocatable object", m->path);
	Elf *elf = elf_begin(m->fd, ELF_C_READ_MMAP, NULL);
	/* everything read now, the descriptor no longer used: only the
	 * mapping keeps the file */
	if (!elf || elf_cntl(elf, ELF_C_FDREAD) != 0) { /* FDREAD ends with FDDONE */
		e = sp_error_new(SP_E_LIBELF, "%s: %s", m->path, elf_errmsg(-1));
		if (elf)
			elf_end(elf);
		return e;
	}
	close(m->fd);
	m->fd = -1;
	m->image = elf;
	return NULL;
}

sp_error *sp_module_report_shared(sp_module *m, Dwfl *dwfl, Dwarf_Addr base, Dwfl_Module **out)
{
	/* the range dwfl_report_elf gives (ADD_P_VADDR): from the first
	 * PT_LOAD's page to the end of the last; ET_EXEC at its own addresses */
	GElf_Ehdr eh;
	size_t phnum;
	*out = NULL;
	if (!gelf_getehdr(m->image, &eh) || elf_getphdrnum(m->image, &phnum) != 0)
		return sp_error_new(SP_E_LIBELF, "%s: %s", m->path, elf_errmsg(-1));
	if (eh.e_type == ET_EXEC)
		base = 0;
	GElf_Addr lo = 0, hi = 0;
	bool first = true;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(m->image, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (first)
			lo = ph.p_vaddr & -(ph.p_align ? ph.p_align : 1);
		first = false;
		if (ph.p_vaddr + ph.p_memsz > hi)
			hi = ph.p_vaddr + ph.p_memsz;
	}
	if (first || hi <= lo)
		return sp_error_new(SP_E_UNRECOGNIZED, "%s: no PT_LOAD segment", m->path);
	Dwfl_Module *dm = dwfl_report_module(dwfl, m->path, base + lo, base + hi);
	if (!dm)
		return sp_error_new(SP_E_LIBDW, "%s: %s", m->path, dwfl_errmsg(-1));
	void **ud;
	dwfl_module_info(dm, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	*ud = m;
	*out = dm;
	return NULL;
}

const unsigned char *sp_module_image(const sp_module *m, size_t *size)
{
	*size = 0;
	return m->image ? (const unsigned char *)elf_rawfile(m->image, size) : NULL;
}

sp_error *sp_dwfl_new(const sp_symbolize_options *opts, const char *what, sp_dwfl **out)
{
	sp_dwfl *s = sp_xcalloc(1, sizeof(*s));
	*out = s;
	/* ":.debug:DIR..." — the binary's own dir, its .debug/, then each
	 * debug dir (libdwfl's default list when none is given). */
	if (opts && opts->n_debug_dirs) {
		sp_buf b = {0};
		sp_buf_puts(&b, ":.debug");
		for (size_t i = 0; i < opts->n_debug_dirs; i++) {
			sp_buf_puts(&b, ":");
			sp_buf_puts(&b, opts->debug_dirs[i]);
		}
		s->debuginfo_path = sp_buf_take(&b);
	}
	s->cb.find_elf = find_elf_cb;
	s->cb.find_debuginfo = find_debuginfo_cb;
	s->cb.section_address = dwfl_offline_section_address;
	s->cb.debuginfo_path = s->debuginfo_path ? &s->debuginfo_path : NULL;
	s->dwfl = dwfl_begin(&s->cb);
	if (!s->dwfl)
		return sp_error_new(SP_E_LIBDW, "%s: dwfl_begin: %s", what, dwfl_errmsg(-1));
	return NULL;
}

void sp_dwfl_free(sp_dwfl *s)
{
	if (!s)
		return;
	if (s->dwfl)
		dwfl_end(s->dwfl); /* closes the files it was given */
	free(s->debuginfo_path);
	free(s);
}

Dwfl *sp_dwfl_handle(sp_dwfl *s)
{
	return s->dwfl;
}

sp_module *sp_module_new(const char *path, const sp_symbolize_options *opts,
			 const sp_elf_info *info, sp_finder *finder)
{
	sp_module *m = sp_xcalloc(1, sizeof(*m));
	m->path = sp_xstrdup(path);
	m->opts = opts;
	m->info = info;
	m->finder = finder;
	m->fd = -1;
	m->etype = -1;
	return m;
}

void sp_module_free(sp_module *m)
{
	if (!m)
		return;
	if (m->fd >= 0)
		close(m->fd);
	if (m->image)
		elf_end(m->image);
	free(m->secs);
	for (size_t i = 0; i < m->n_inflated; i++)
		free(m->inflated[i]);
	free(m->inflated);
	sp_lazy_free(m->zinfo);
	sp_lazy_free(m->zline);
	sp_error_free(m->load_err);
	free(m->debug_path);
	sp_find_log_clear(&m->log);
	free(m->path);
	free(m);
}

sp_error *sp_module_open(sp_module *m)
{
	sp_error *err;
	m->fd = sp_object_fd(m->path, NULL, &err);
	if (m->fd < 0)
		return err ? err
			   : sp_error_new(SP_E_IO, "%s: cannot open: %s", m->path,
					  strerror(errno));

	elf_version(EV_CURRENT);
	GElf_Ehdr eh;
	Elf *elf = elf_begin(m->fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		if (elf)
			elf_end(elf);
		return sp_error_new(SP_E_UNRECOGNIZED, "%s: not an ELF file", m->path);
	}
	m->etype = eh.e_type;
	elf_end(elf);
	if (m->etype == ET_REL)
		rel_sections_read(m, m->fd);
	return NULL;
}

/* Whether FD holds an executable or shared object without a loadable
 * segment (no program headers at all, as assemblers' and yaml2obj's
 * linked test objects, or none of type PT_LOAD). */
static bool no_load_segment(int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	size_t phnum = 0;
	bool none = elf && gelf_getehdr(elf, &eh) && eh.e_type != ET_REL &&
		    elf_getphdrnum(elf, &phnum) == 0;
	for (size_t i = 0; none && i < phnum; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			none = false;
	}
	if (elf)
		elf_end(elf);
	return none;
}

/* Reports M (FD), an executable or shared object without a loadable
 * segment, the way libdwfl reports a file given alone: its sections where
 * they are, an ET_DYN moved by the offline layout's base, which the module
 * records as the shift of its one range (sp_module_to_dwfl). */
static Dwfl_Module *report_sections_only(sp_module *m, Dwfl *dwfl, int fd)
{
	Dwfl_Module *mod = dwfl_report_offline(dwfl, m->path, m->path, fd);
	if (!mod)
		return NULL;
	Dwarf_Addr start = 0;
	dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
	if (start) {
		sp_rel_sec r = {0, UINT64_MAX, (int64_t)start, 0};
		size_t cap = 0;
		SP_PUSH(m->secs, m->n_secs, cap, r);
		m->shifted = true;
	}
	return mod;
}

sp_error *sp_module_report(sp_module *m, Dwfl *dwfl, Dwarf_Addr base, bool add_p_vaddr)
{
	int fd = m->fd;
	m->fd = -1; /* libdwfl owns it from here */
	m->mod = dwfl_report_elf(dwfl, m->path, m->path, fd, base, add_p_vaddr);
	if (!m->mod && base == 0 && no_load_segment(fd))
		m->mod = report_sections_only(m, dwfl, fd);
	if (!m->mod) {
		sp_error *e = sp_error_new(SP_E_LIBDW, "%s: %s", m->path, dwfl_errmsg(-1));
		close(fd); /* libdwfl keeps a descriptor only with the module */
		return e;
	}
	void **ud;
	dwfl_module_info(m->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	*ud = m;
	return NULL;
}

uint64_t sp_code_low_bound(int etype, const sp_alloc_section *secs, size_t n)
{
	uint64_t low = UINT64_MAX;
	if (etype == ET_REL)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (secs[i].size && secs[i].addr < low)
			low = secs[i].addr;
	return low == UINT64_MAX ? 0 : low;
}

/* sp_code_low_bound of ELF's allocated sections. */
static uint64_t low_bound(Elf *elf)
{
	GElf_Ehdr eh;
	sp_alloc_section *secs = NULL;
	size_t n = 0, cap = 0;
	if (!elf || !gelf_getehdr(elf, &eh))
		return 0;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC)) {
			sp_alloc_section a = {sh.sh_addr, sh.sh_size};
			SP_PUSH(secs, n, cap, a);
		}
	}
	uint64_t low = sp_code_low_bound(eh.e_type, secs, n);
	free(secs);
	return low;
}

sp_error *sp_module_load(sp_module *m)
{
	if (m->etype == ET_REL)
		rel_sections_map(m);

	GElf_Addr ebias;
	Elf *elf = dwfl_module_getelf(m->mod, &ebias);
	m->low_bound = low_bound(elf);
	sp_error *e = prepare_debug_sections(m, elf, m->path);
	if (e)
		return e;
	/* The symbol table first: when it is the separate debug file's,
	 * libdwfl has opened that file, unchanged (prepared_debug_fd), and it
	 * is changed here before libdw reads its DWARF. */
	m->defer_debug = m->info != NULL;
	int nsym = m->defer_debug ? dwfl_module_getsymtab(m->mod) : 0;
	m->defer_debug = false;
	GElf_Sym sym;
	GElf_Addr addr;
	Elf *symelf = NULL;
	if (nsym > 1 && dwfl_module_getsym_info(m->mod, 1, &sym, &addr, NULL, &symelf, NULL) &&
	    symelf && symelf != elf && m->debug_path &&
	    (e = prepare_debug_sections(m, symelf, m->debug_path)) != NULL)
		return e;
	m->dw = dwfl_module_getdwarf(m->mod, &m->dwbias);
	if (m->load_err) /* the separate debug file's sections */
		return sp_error_dup(m->load_err);
	/* libdwfl relocates an ET_REL's DWARF to the module's own layout: its
	 * addresses are module addresses already, whatever bias it reports. */
	if (m->etype == ET_REL)
		m->dwbias = 0;
	Elf_Data *sec[N_SECS];
	if (m->dw) {
		debug_sections(dwarf_getelf(m->dw), sec);
		if (!strings_terminated(sec[SEC_STR]) || !strings_terminated(sec[SEC_LINE_STR]))
			m->dw = NULL; /* malformed: the symbol tables name the functions */
	}
	if (m->dw) {
		m->info_size = sec[SEC_INFO] ? sec[SEC_INFO]->d_size : 0;
		if (sec[SEC_ARANGES] && sec[SEC_ABBREV]) {
			m->aranges = sec[SEC_ARANGES]->d_buf;
			m->aranges_size = sec[SEC_ARANGES]->d_size;
			m->abbrev = sec[SEC_ABBREV]->d_buf;
			m->abbrev_size = sec[SEC_ABBREV]->d_size;
		}
		/* ET_REL objects are left to libdw, which relocates their
		 * line tables; libdwfl has relocated their sections in place,
		 * so their .debug_addr and range lists serve the walk of a
		 * split unit, whose own bytes hold no address */
		if (m->etype != ET_REL) {
			m->direct_pc = sp_line_sections_get(dwarf_getelf(m->dw), &m->lsec);
		} else {
			sp_line_sections_get(dwarf_getelf(m->dw), &m->lsec);
			m->lsec.line = m->lsec.line_str = m->lsec.str = NULL;
			m->lsec.line_size = m->lsec.line_str_size = m->lsec.str_size = 0;
			m->split_pc = m->lsec.addr != NULL;
		}
	}
	return NULL;
}
