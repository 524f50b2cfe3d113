/* dwarf.c — address -> frames for one ELF file through libdw.
 *
 * Each resolver holds one Dwfl with the single module of its file, opened
 * at the first address.  Compile-unit ranges are indexed from every CU DIE
 * (DW_AT_low_pc/high_pc/ranges; .debug_aranges is not trusted because Go
 * binaries and JIT objects lack it).  The first address that falls in a CU
 * makes us walk that CU's DIE tree once (over its raw bytes, with libdw's
 * abbreviations; pcs, range lists, abstract origins and call attributes in
 * plain forms are read from the bytes too, libdw reads the rest),
 * collecting subprograms and their inlined_subroutine trees as sorted range
 * tables, and decode its line table once (lines.c, or libdw for unusual
 * ones); every later address is a bucket look-up and a few binary searches
 * in a bucket.  Names, demangled names and whole results per address are
 * cached.  Without DWARF (or outside every CU) the ELF symbol tables give
 * the function name.
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
#include "symbolize/internal.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
	uint64_t lo, hi;
	uint32_t cu;
} cu_range;


/* A subprogram or inlined subroutine with code.  Node 0 is the root. */
typedef struct {
	Dwarf_Off off;        /* its DIE */
	uint32_t parent;
	uint32_t child_first; /* into cu_info.ranges */
	uint32_t child_n;
	bool named;           /* the fields below are filled */
	bool from_raw;        /* origin and call_* read from the DIE bytes */
	bool inlined;
	Dwarf_Off origin;     /* DW_AT_abstract_origin's DIE, when from_raw */
	int64_t call_file_idx; /* when from_raw */
	const char *raw;      /* linkage name, else name; NULL if none */
	const char *name;     /* demangled (or raw) */
	const char *call_file;
	int64_t call_line, call_col, decl_line;
} fn_node;

/* One range of a node, with the node's children (copied from the node,
 * so a descent reads the ranges only). */
typedef struct {
	uint64_t lo, hi;
	uint32_t parent, node;
	uint32_t child_first, child_n;
} fn_range;

typedef struct {
	uint64_t base;
	unsigned shift;
	size_t nb;      /* 0: no index */
	uint32_t *first;
} bucket_index;

typedef struct {
	Dwarf_Die die;
	Dwarf_Off start; /* offset of the unit (its header) */
	Dwarf_Off end; /* offset of the next unit, at most the section's size; 0: unknown */
	bool loaded;
	sp_line_row *lines;   /* file: index into fnames */
	size_t n_lines;
	fn_node *nodes;
	size_t n_nodes, cap_nodes;
	fn_range *ranges;
	size_t n_ranges, cap_ranges;
	const char **fnames;  /* absolute file names (borrowed from libdw or sp_dwarf.dnames) */
	size_t n_files;
	bucket_index line_index; /* over lines */
	bucket_index root_index; /* over the root's child ranges */
} cu_info;

typedef struct {
	const sp_frame *f;
	size_t n;
} result;

typedef struct {
	const char *raw, *name;
	int64_t decl_line;
} oname;

typedef struct {
	uint64_t addr, size; /* module (dwfl) addresses */
	const char *name;
	int rank;            /* binding preference: global 2, weak 1, local 0 */
	bool sized;          /* st_size was given */
} fsym;

/* One allocated section of an ET_REL with its own address: file address
 * A in [lo, hi) is libdwfl address A + delta. */
typedef struct {
	uint64_t lo, hi;
	int64_t delta;
	size_t ndx;
} rel_sec;

#define FRAME_BLOCK 4096

struct sp_dwarf {
	char *path;
	const sp_symbolize_options *opts;
	const sp_elf_info *info;
	sp_finder *finder;
	sp_demangle_style style;
	sp_find_log log;

	bool opened;
	sp_error *open_err; /* cached failure */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwfl_Callbacks cb;
	char *debuginfo_path;
	int fd;
	bool debug_searched; /* our search ran; debug_path is its answer */
	char *debug_path;
	Dwarf *dw;
	Dwarf_Addr dwbias;
	rel_sec *secs;      /* ET_REL placed sections, sorted by lo */
	size_t n_secs;
	sp_line_sections lsec; /* for lines.c; lsec.line NULL: libdw decodes */
	bool direct_pc;        /* the raw walk reads pcs itself (see raw_read_die) */

	cu_info *cus;
	size_t n_cus;
	cu_range *cu_ranges;
	size_t n_cu_ranges;
	uint64_t *cu_maxend; /* prefix maximum of cu_ranges[].hi */

	bool syms_loaded;    /* function symbols, sorted, one per address */
	fsym *syms;
	size_t n_syms;

	/* caches */
	sp_u64map addr_cache;  /* address -> index into results */
	result *results;
	size_t n_results, cap_results;
	sp_frame **blocks;
	size_t n_blocks, cap_blocks, block_used;
	sp_u64map names;       /* raw name pointer -> index into dnames + 1 */
	sp_u64map paths;       /* relative file name pointer -> index into dnames + 1 */
	sp_u64map origins;     /* abstract origin DIE offset + 1 -> index into onames */
	oname *onames;
	size_t n_onames, cap_onames;
	char **dnames;
	size_t n_dnames, cap_dnames;
	sp_frame *scratch;
	size_t cap_scratch;
};

sp_dwarf *sp_dwarf_new(const char *path, const sp_symbolize_options *opts,
		       const sp_elf_info *info, sp_finder *finder)
{
	sp_dwarf *d = sp_xcalloc(1, sizeof(*d));
	d->path = sp_xstrdup(path);
	d->opts = opts;
	d->info = info;
	d->finder = finder;
	d->style = opts ? opts->demangle : SP_DEMANGLE_TEMPLATES;
	d->fd = -1;
	return d;
}

void sp_dwarf_free(sp_dwarf *d)
{
	if (!d)
		return;
	if (d->dwfl)
		dwfl_end(d->dwfl); /* closes the fd it was given */
	else if (d->fd >= 0)
		close(d->fd);
	for (size_t i = 0; i < d->n_cus; i++) {
		free(d->cus[i].lines);
		free(d->cus[i].nodes);
		free(d->cus[i].ranges);
		free(d->cus[i].fnames);
		free(d->cus[i].line_index.first);
		free(d->cus[i].root_index.first);
	}
	free(d->cus);
	free(d->cu_ranges);
	free(d->cu_maxend);
	free(d->syms);
	free(d->secs);
	sp_u64map_free(&d->addr_cache);
	free(d->results);
	for (size_t i = 0; i < d->n_blocks; i++)
		free(d->blocks[i]);
	free(d->blocks);
	sp_u64map_free(&d->names);
	sp_u64map_free(&d->paths);
	sp_u64map_free(&d->origins);
	free(d->onames);
	for (size_t i = 0; i < d->n_dnames; i++)
		free(d->dnames[i]);
	free(d->dnames);
	free(d->scratch);
	sp_error_free(d->open_err);
	free(d->debuginfo_path);
	free(d->debug_path);
	sp_find_log_clear(&d->log);
	free(d->path);
	free(d);
}

const char *sp_dwarf_debug_path(const sp_dwarf *d)
{
	return d->debug_path;
}

const sp_find_log *sp_dwarf_find_log(const sp_dwarf *d)
{
	return &d->log;
}

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
	sp_dwarf *d = *userdata;

	if (d && d->info) {
		/* libdwfl asks again (for the symbol table) when the DWARF
		 * search found nothing: answer from the first search, so every
		 * place is tried, and listed, once. */
		if (d->debug_searched) {
			int fd = d->debug_path ? open(d->debug_path, O_RDONLY | O_CLOEXEC) : -1;
			if (fd >= 0)
				*debuginfo_file_name = sp_xstrdup(d->debug_path);
			return fd;
		}
		d->debug_searched = true;
		char *found = NULL;
		sp_error *err = d->finder ? sp_finder_debuginfo(d->finder, d->path, d->info, &found,
								&d->log)
					  : sp_find_debuginfo(d->opts, d->path, d->info, &found,
							      &d->log);
		if (!err && found) {
			int fd = open(found, O_RDONLY | O_CLOEXEC);
			if (fd >= 0) {
				free(d->debug_path);
				d->debug_path = sp_xstrdup(found);
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
	if (fd >= 0 && d && *debuginfo_file_name) {
		free(d->debug_path);
		d->debug_path = sp_xstrdup(*debuginfo_file_name);
	}
	return fd;
}

static int cmp_cu_range(const void *a, const void *b)
{
	const cu_range *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	return x->cu < y->cu ? -1 : x->cu > y->cu;
}

/* The allocated, non-empty sections of an ET_REL that have an address, read
 * before libdwfl changes the in-memory section headers; their deltas are
 * filled in by rel_sections_map. */
static void rel_sections_read(sp_dwarf *d, int fd)
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
		rel_sec r = {sh.sh_addr, sh.sh_addr + sh.sh_size, 0, elf_ndxscn(scn)};
		SP_PUSH(d->secs, d->n_secs, cap, r);
	}
	elf_end(elf);
}

static int cmp_rel_sec(const void *a, const void *b)
{
	const rel_sec *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->ndx < y->ndx ? -1 : x->ndx > y->ndx;
}

/* Pairs each section read by rel_sections_read with the address libdwfl
 * laid it out at (its in-memory header plus the module bias, the address
 * its symbols and relocated DWARF use). */
static void rel_sections_map(sp_dwarf *d)
{
	GElf_Addr ebias = 0;
	Elf *elf = dwfl_module_getelf(d->mod, &ebias);
	size_t k = 0;
	for (size_t i = 0; elf && i < d->n_secs; i++) {
		GElf_Shdr sh;
		Elf_Scn *scn = elf_getscn(elf, d->secs[i].ndx);
		if (!scn || !gelf_getshdr(scn, &sh))
			continue;
		d->secs[i].delta = (int64_t)(sh.sh_addr + ebias - d->secs[i].lo);
		d->secs[k++] = d->secs[i];
	}
	d->n_secs = k;
	qsort(d->secs, d->n_secs, sizeof(*d->secs), cmp_rel_sec);
}

/* The libdwfl address of file address ADDR: through the section holding it
 * in an ET_REL with placed sections (false when none holds it), else the
 * same address. */
static bool to_dwfl(const sp_dwarf *d, uint64_t addr, uint64_t *out)
{
	if (!d->n_secs) {
		*out = addr;
		return true;
	}
	size_t lo = 0, hi = d->n_secs;
	while (lo < hi) { /* first with secs.lo > addr */
		size_t mid = lo + (hi - lo) / 2;
		if (d->secs[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= d->secs[lo - 1].hi)
		return false;
	*out = addr + (uint64_t)d->secs[lo - 1].delta;
	return true;
}

/* The debug sections open_module checks itself, as libdw reads them. */
enum { SEC_INFO, SEC_STR, SEC_LINE_STR, N_SECS };

/* In one pass over ELF's section headers, the data of .debug_info,
 * .debug_str and .debug_line_str (or their GNU-compressed .zdebug_ names)
 * as libdw reads them, decompressed and relocated: OUT[SEC_...], NULL for
 * a section that is absent or has no data.  Of two sections of one name,
 * the first counts. */
static void debug_sections(Elf *elf, Elf_Data *out[N_SECS])
{
	static const char *const names[N_SECS] = {"info", "str", "line_str"};
	bool found[N_SECS] = {false};
	size_t shstrndx;
	for (size_t i = 0; i < N_SECS; i++)
		out[i] = NULL;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (!strncmp(name, ".z", 2))
			name++;
		if (strncmp(name, ".debug_", 7))
			continue;
		for (size_t i = 0; i < N_SECS; i++)
			if (!found[i] && !strcmp(name + 7, names[i])) {
				Elf_Data *data = elf_getdata(scn, NULL);
				out[i] = data && data->d_buf ? data : NULL;
				found[i] = true;
			}
	}
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

/* INFO_SIZE: the size of .debug_info as libdw reads it, 0 if unknown.
 * dwarf_nextcu takes a unit's length as it is: a damaged one puts the next
 * unit past the end of .debug_info, and the raw walk must stop at the
 * section's end, not there. */
static void index_cus(sp_dwarf *d, size_t info_size)
{
	size_t cap_cus = 0, cap_r = 0;
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cudie;
		if (dwarf_offdie(d->dw, off + hsize, &cudie) != NULL) {
			cu_info ci = {0};
			ci.die = cudie;
			ci.start = off;
			ci.end = next < info_size ? next : info_size;
			uint32_t idx = (uint32_t)d->n_cus;
			bool any = false;
			Dwarf_Addr base, lo, hi;
			ptrdiff_t it = 0;
			while ((it = dwarf_ranges(&cudie, it, &base, &lo, &hi)) > 0) {
				if (lo >= hi)
					continue;
				cu_range r = {lo, hi, idx};
				SP_PUSH(d->cu_ranges, d->n_cu_ranges, cap_r, r);
				any = true;
			}
			if (any)
				SP_PUSH(d->cus, d->n_cus, cap_cus, ci);
		}
		off = next;
	}
	if (d->n_cu_ranges > 1) /* qsort must not get NULL, and empty tables may be */
		qsort(d->cu_ranges, d->n_cu_ranges, sizeof(*d->cu_ranges), cmp_cu_range);
	d->cu_maxend = sp_xreallocarray(NULL, d->n_cu_ranges + 1, sizeof(uint64_t));
	uint64_t m = 0;
	for (size_t i = 0; i < d->n_cu_ranges; i++) {
		if (d->cu_ranges[i].hi > m)
			m = d->cu_ranges[i].hi;
		d->cu_maxend[i] = m;
	}
}

static sp_error *open_module(sp_dwarf *d)
{
	d->opened = true;
	d->fd = open(d->path, O_RDONLY | O_CLOEXEC);
	if (d->fd < 0)
		return sp_error_new(SP_E_IO, "%s: cannot open: %s", d->path, strerror(errno));

	elf_version(EV_CURRENT);
	GElf_Ehdr eh;
	int etype = -1;
	{
		Elf *elf = elf_begin(d->fd, ELF_C_READ_MMAP, NULL);
		if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
			if (elf)
				elf_end(elf);
			return sp_error_new(SP_E_UNRECOGNIZED, "%s: not an ELF file", d->path);
		}
		etype = eh.e_type;
		elf_end(elf);
	}
	if (etype == ET_REL)
		rel_sections_read(d, d->fd);

	/* ":.debug:DIR..." — the binary's own dir, its .debug/, then each
	 * debug dir (libdwfl's default list when none is given). */
	if (d->opts && d->opts->n_debug_dirs) {
		sp_buf b = {0};
		sp_buf_puts(&b, ":.debug");
		for (size_t i = 0; i < d->opts->n_debug_dirs; i++) {
			sp_buf_puts(&b, ":");
			sp_buf_puts(&b, d->opts->debug_dirs[i]);
		}
		d->debuginfo_path = sp_buf_take(&b);
	}
	d->cb.find_elf = dwfl_build_id_find_elf;
	d->cb.find_debuginfo = find_debuginfo_cb;
	d->cb.section_address = dwfl_offline_section_address;
	d->cb.debuginfo_path = d->debuginfo_path ? &d->debuginfo_path : NULL;
	d->dwfl = dwfl_begin(&d->cb);
	if (!d->dwfl)
		return sp_error_new(SP_E_LIBDW, "%s: dwfl_begin: %s", d->path, dwfl_errmsg(-1));
	dwfl_report_begin(d->dwfl);
	int fd = d->fd;
	d->fd = -1; /* libdwfl owns it from here */
	d->mod = dwfl_report_elf(d->dwfl, d->path, d->path, fd, 0, true);
	if (!d->mod || dwfl_report_end(d->dwfl, NULL, NULL) != 0)
		return sp_error_new(SP_E_LIBDW, "%s: %s", d->path, dwfl_errmsg(-1));

	void **ud;
	dwfl_module_info(d->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	*ud = d;
	if (etype == ET_REL)
		rel_sections_map(d);

	d->dw = dwfl_module_getdwarf(d->mod, &d->dwbias);
	/* libdwfl relocates an ET_REL's DWARF to the module's own layout: its
	 * addresses are module addresses already, whatever bias it reports. */
	if (etype == ET_REL)
		d->dwbias = 0;
	Elf_Data *sec[N_SECS];
	if (d->dw) {
		debug_sections(dwarf_getelf(d->dw), sec);
		if (!strings_terminated(sec[SEC_STR]) || !strings_terminated(sec[SEC_LINE_STR]))
			d->dw = NULL; /* malformed: the symbol tables name the functions */
	}
	if (d->dw) {
		index_cus(d, sec[SEC_INFO] ? sec[SEC_INFO]->d_size : 0);
		/* ET_REL objects are left to libdw, which relocates their
		 * line tables */
		if (etype != ET_REL)
			d->direct_pc = sp_line_sections_get(dwarf_getelf(d->dw), &d->lsec);
	}
	return NULL;
}

/* ------------------------------------------------------------------------ */
/* Per-CU tables.                                                           */

static uint32_t add_node_at(cu_info *ci, Dwarf_Off off, uint32_t parent)
{
	fn_node n = {0};
	n.off = off;
	n.parent = parent;
	SP_PUSH(ci->nodes, ci->n_nodes, ci->cap_nodes, n);
	return (uint32_t)(ci->n_nodes - 1);
}

static uint32_t add_node(cu_info *ci, Dwarf_Die *die, uint32_t parent)
{
	return add_node_at(ci, dwarf_dieoffset(die), parent);
}

static bool skip_children(int tag)
{
	switch (tag) {
	case DW_TAG_formal_parameter:
	case DW_TAG_variable:
	case DW_TAG_member:
	case DW_TAG_enumeration_type:
	case DW_TAG_subroutine_type:
	case DW_TAG_template_type_parameter:
	case DW_TAG_template_value_parameter:
	case DW_TAG_GNU_template_parameter_pack:
	case DW_TAG_GNU_formal_parameter_pack:
	case DW_TAG_array_type:
	case DW_TAG_base_type:
	case DW_TAG_pointer_type:
	case DW_TAG_call_site:
	case DW_TAG_GNU_call_site:
		return true;
	default:
		return false;
	}
}

static void walk(cu_info *ci, Dwarf_Die *parent_die, uint32_t parent, int depth)
{
	Dwarf_Die child;
	if (depth > 200 || dwarf_child(parent_die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t it = 0;
			uint32_t node = 0;
			uint32_t up = tag == DW_TAG_subprogram ? 0 : parent;
			while ((it = dwarf_ranges(&child, it, &base, &lo, &hi)) > 0) {
				if (lo >= hi)
					continue;
				if (!node)
					node = add_node(ci, &child, up);
				fn_range r = {lo, hi, up, node, 0, 0};
				SP_PUSH(ci->ranges, ci->n_ranges, ci->cap_ranges, r);
			}
			if (node)
				walk(ci, &child, node, depth + 1);
		} else if (!skip_children(tag) && dwarf_haschildren(&child)) {
			walk(ci, &child, parent, depth + 1);
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* The same walk over the raw bytes of the unit: a DIE that is not a
 * subprogram or inlined subroutine with code costs an abbreviation look-up
 * and a skip over its attribute bytes, where libdw's sibling step decodes
 * every attribute.  libdw still gives the ranges of the DIEs that may have
 * code, and nodes and ranges come out in the same (pre-)order as walk()'s.
 * Anything this does not know (DW_FORM_indirect, a vendor form, bytes
 * past the unit) makes it return false: the caller then resets the tables
 * and walks with libdw. */

typedef struct {
	uint64_t lo, hi;
} raw_range;

typedef struct {
	uint16_t tag;
	bool children;
	bool pc;            /* may have ranges: low_pc, high_pc, ranges, or an origin */
	int32_t fixed;      /* size of the attributes when every form is fixed, else -1 */
	uint32_t first, n;  /* its forms in raw_walk.forms */
} raw_abbrev;

typedef struct {
	raw_abbrev *ab;     /* by code; tag 0: no such code */
	size_t n_ab;
	uint16_t *forms;
	uint16_t *names;    /* the attribute of each form (when it fits 16 bits) */
	int64_t *consts;    /* the value of each DW_FORM_implicit_const */
	int8_t *sizes;      /* form_fixed_size of each form */
	const sp_line_sections *sec; /* .debug_ranges, .debug_rnglists */
	uint64_t base;      /* the unit's base address for its range lists */
	bool base_ok;
	raw_range *rr;      /* scratch for raw_ranges */
	size_t n_rr, cap_rr;
	size_t n_forms, cap_forms, cap_names, cap_consts, cap_sizes;
	uint8_t asz, osz;
	Dwarf_Half version;
	bool direct_pc;     /* little-endian, not relocated: pcs read here */
} raw_walk;

/* Size of FORM when it does not depend on the bytes, else -1; -2 unknown. */
static int form_fixed_size(const raw_walk *w, unsigned form)
{
	switch (form) {
	case DW_FORM_flag_present:
	case DW_FORM_implicit_const:
		return 0;
	case DW_FORM_addr:
		return w->asz;
	case DW_FORM_data1:
	case DW_FORM_ref1:
	case DW_FORM_flag:
	case DW_FORM_strx1:
	case DW_FORM_addrx1:
		return 1;
	case DW_FORM_data2:
	case DW_FORM_ref2:
	case DW_FORM_strx2:
	case DW_FORM_addrx2:
		return 2;
	case DW_FORM_strx3:
	case DW_FORM_addrx3:
		return 3;
	case DW_FORM_data4:
	case DW_FORM_ref4:
	case DW_FORM_strx4:
	case DW_FORM_addrx4:
	case DW_FORM_ref_sup4:
		return 4;
	case DW_FORM_data8:
	case DW_FORM_ref8:
	case DW_FORM_ref_sig8:
	case DW_FORM_ref_sup8:
		return 8;
	case DW_FORM_data16:
		return 16;
	case DW_FORM_strp:
	case DW_FORM_line_strp:
	case DW_FORM_sec_offset:
	case DW_FORM_strp_sup:
	case DW_FORM_GNU_ref_alt:
	case DW_FORM_GNU_strp_alt:
		return w->osz;
	case DW_FORM_ref_addr:
		return w->version <= 2 ? w->asz : w->osz;
	case DW_FORM_udata:
	case DW_FORM_sdata:
	case DW_FORM_ref_udata:
	case DW_FORM_strx:
	case DW_FORM_addrx:
	case DW_FORM_rnglistx:
	case DW_FORM_loclistx:
	case DW_FORM_GNU_addr_index:
	case DW_FORM_GNU_str_index:
	case DW_FORM_string:
	case DW_FORM_block1:
	case DW_FORM_block2:
	case DW_FORM_block4:
	case DW_FORM_block:
	case DW_FORM_exprloc:
		return -1;
	default:
		return -2;
	}
}

static bool raw_uleb(const unsigned char **pp, const unsigned char *end, uint64_t *v)
{
	const unsigned char *p = *pp;
	uint64_t r = 0;
	for (unsigned shift = 0; p < end; shift += 7) {
		unsigned char b = *p++;
		if (shift < 64)
			r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*pp = p;
			*v = r;
			return true;
		}
	}
	return false;
}

static bool raw_skip(const unsigned char **pp, const unsigned char *end, size_t n)
{
	if ((size_t)(end - *pp) < n)
		return false;
	*pp += n;
	return true;
}

static bool raw_skip_form(const raw_walk *w, unsigned form, const unsigned char **pp,
			  const unsigned char *end)
{
	int fs = form_fixed_size(w, form);
	uint64_t v;
	if (fs >= 0)
		return raw_skip(pp, end, (size_t)fs);
	switch (form) {
	case DW_FORM_string: {
		const unsigned char *z = memchr(*pp, 0, (size_t)(end - *pp));
		if (!z)
			return false;
		*pp = z + 1;
		return true;
	}
	case DW_FORM_block1:
		if (end - *pp < 1)
			return false;
		v = (*pp)[0];
		*pp += 1;
		return raw_skip(pp, end, v);
	case DW_FORM_block:
	case DW_FORM_exprloc:
		return raw_uleb(pp, end, &v) && raw_skip(pp, end, v);
	case DW_FORM_block2: /* lengths in the file's byte order: left to libdw */
	case DW_FORM_block4:
		return false;
	default:
		return fs == -1 && raw_uleb(pp, end, &v);
	}
}

static bool raw_abbrevs(raw_walk *w, Dwarf_Die *cudie)
{
	size_t cap_ab = 0;
	Dwarf_Off off = 0;
	for (;;) {
		size_t len = 0;
		Dwarf_Abbrev *a = dwarf_getabbrev(cudie, off, &len);
		if (a == DWARF_END_ABBREV)
			return true;
		if (!a || len == 0)
			return false;
		off += len;
		unsigned code = dwarf_getabbrevcode(a);
		if (code == 0 || code > (1u << 20))
			return false;
		if (code >= cap_ab) {
			size_t nc = cap_ab ? cap_ab : 64;
			while (nc <= code)
				nc *= 2;
			w->ab = sp_xreallocarray(w->ab, nc, sizeof(*w->ab));
			memset(w->ab + cap_ab, 0, (nc - cap_ab) * sizeof(*w->ab));
			cap_ab = nc;
		}
		raw_abbrev *r = &w->ab[code];
		if (code >= w->n_ab)
			w->n_ab = code + 1;
		r->tag = (uint16_t)dwarf_getabbrevtag(a);
		if (r->tag == 0)
			return false;
		r->children = dwarf_abbrevhaschildren(a) > 0;
		r->pc = false;
		r->fixed = 0;
		r->first = (uint32_t)w->n_forms;
		/* Attributes up to the terminating pair: dwarf_getattrcnt of
		 * elfutils 0.188 says 8 for an abbreviation of 7 that has two
		 * DW_FORM_implicit_const. */
		for (size_t i = 0;; i++) {
			unsigned name, form;
			Dwarf_Sword data;
			if (dwarf_getabbrevattr_data(a, i, &name, &form, &data, NULL) != 0)
				break;
			int fs = form_fixed_size(w, form);
			if (fs == -2)
				return false;
			if (fs < 0 || r->fixed < 0)
				r->fixed = -1;
			else
				r->fixed += fs;
			if (name == DW_AT_low_pc || name == DW_AT_high_pc || name == DW_AT_ranges ||
			    name == DW_AT_abstract_origin || name == DW_AT_specification)
				r->pc = true;
			size_t k = w->n_forms, k2 = w->n_forms, k3 = w->n_forms;
			SP_PUSH(w->names, k, w->cap_names, (uint16_t)(name <= 0xffff ? name : 0));
			SP_PUSH(w->consts, k2, w->cap_consts, (int64_t)data);
			SP_PUSH(w->sizes, k3, w->cap_sizes, (int8_t)(fs < 0 ? -1 : fs));
			SP_PUSH(w->forms, w->n_forms, w->cap_forms, (uint16_t)form);
		}
		r->n = (uint32_t)(w->n_forms - r->first);
	}
}

/* What the raw walk reads of a subprogram's or inlined subroutine's
 * attributes, in one pass over them. */
typedef struct {
	bool pc;             /* low_pc an address, high_pc an address or constant */
	uint64_t lo, hi;
	bool attrs;          /* origin a plain reference, call_* plain constants */
	bool nopc;           /* neither low_pc, high_pc nor ranges: no code */
	bool ranges;         /* DW_AT_ranges, a section offset */
	uint64_t ranges_off;
	uint64_t origin;
	int64_t file, line, col;
} raw_info;

/* The constant of form FORM at *P (advanced past it) for attribute I of
 * A: false for a form that is not a plain constant. */
static bool raw_const(const raw_walk *w, const raw_abbrev *a, uint32_t i, unsigned form,
		      const unsigned char *p, const unsigned char *end, int64_t *v)
{
	uint64_t u;
	switch (form) {
	case DW_FORM_data1: *v = (int64_t)sp_read_le(p, 1); return true;
	case DW_FORM_data2: *v = (int64_t)sp_read_le(p, 2); return true;
	case DW_FORM_data4: *v = (int64_t)sp_read_le(p, 4); return true;
	case DW_FORM_data8: *v = (int64_t)sp_read_le(p, 8); return true;
	case DW_FORM_udata:
		if (!raw_uleb(&p, end, &u))
			return false;
		*v = (int64_t)u;
		return true;
	case DW_FORM_implicit_const: *v = w->consts[a->first + i]; return true;
	default: return false;
	}
}

/* Reads the DIE of abbreviation A whose attributes start at P, in the
 * unit [START, UNIT_END): its range as libdw's dwarf_ranges would give
 * it when it has DW_AT_low_pc as an address and DW_AT_high_pc as an
 * address or a constant offset (anything else, DW_AT_ranges, indexed
 * addresses, only an origin, is left to libdw), and its abstract origin
 * and call attributes as name_node would read them through libdw when
 * they are in plain forms (else name_node asks libdw). */
static void raw_read_die(const raw_walk *w, const raw_abbrev *a, const unsigned char *p,
			 const unsigned char *end, Dwarf_Off start, Dwarf_Off unit_end,
			 raw_info *ri)
{
	bool have_lo = false, have_hi = false, hi_is_addr = false, attrs_ok = true;
	bool seen_origin = false, seen_file = false, seen_line = false, seen_col = false;
	bool seen_ranges = false;
	uint64_t low = 0, high = 0;
	*ri = (raw_info){0};
	for (uint32_t i = 0; i < a->n; i++) {
		unsigned form = w->forms[a->first + i], name = w->names[a->first + i];
		const unsigned char *at = p;
		int fs = w->sizes[a->first + i];
		if (fs >= 0 ? (size_t)(end - p) < (size_t)fs : !raw_skip_form(w, form, &p, end))
			return;
		if (fs >= 0)
			p += fs;
		switch (name) {
		case DW_AT_low_pc:
			if (have_lo)
				break; /* libdw reads the first */
			if (form != DW_FORM_addr)
				return;
			low = sp_read_le(at, w->asz);
			have_lo = true;
			break;
		case DW_AT_high_pc:
			if (have_hi)
				break;
			switch (form) {
			case DW_FORM_addr: high = sp_read_le(at, w->asz); hi_is_addr = true; break;
			case DW_FORM_data1: high = sp_read_le(at, 1); break;
			case DW_FORM_data2: high = sp_read_le(at, 2); break;
			case DW_FORM_data4: high = sp_read_le(at, 4); break;
			case DW_FORM_data8: high = sp_read_le(at, 8); break;
			case DW_FORM_udata: raw_uleb(&at, end, &high); break;
			default: return;
			}
			have_hi = true;
			break;
		case DW_AT_abstract_origin:
			if (seen_origin)
				break;
			seen_origin = true;
			{
				uint64_t ref = 0;
				const unsigned char *q = at;
				switch (form) {
				case DW_FORM_ref1: ref = sp_read_le(at, 1); break;
				case DW_FORM_ref2: ref = sp_read_le(at, 2); break;
				case DW_FORM_ref4: ref = sp_read_le(at, 4); break;
				case DW_FORM_ref8: ref = sp_read_le(at, 8); break;
				case DW_FORM_ref_udata:
					if (!raw_uleb(&q, end, &ref))
						attrs_ok = false;
					break;
				default: attrs_ok = false; break;
				}
				if (ref >= unit_end - start)
					attrs_ok = false;
				ri->origin = start + ref;
			}
			break;
		case DW_AT_call_file:
			if (!seen_file && !raw_const(w, a, i, form, at, end, &ri->file))
				attrs_ok = false;
			seen_file = true;
			break;
		case DW_AT_call_line:
			if (!seen_line && !raw_const(w, a, i, form, at, end, &ri->line))
				attrs_ok = false;
			seen_line = true;
			break;
		case DW_AT_call_column:
			if (!seen_col && !raw_const(w, a, i, form, at, end, &ri->col))
				attrs_ok = false;
			seen_col = true;
			break;
		case DW_AT_ranges:
			if (seen_ranges)
				break;
			seen_ranges = true;
			if (form == DW_FORM_sec_offset ||
			    (w->version < 4 && (form == DW_FORM_data4 || form == DW_FORM_data8))) {
				ri->ranges_off = sp_read_le(at, form == DW_FORM_data8 ? 8
						     : form == DW_FORM_data4 ? 4 : w->osz);
				ri->ranges = true;
			}
			break;
		default: break;
		}
	}
	ri->nopc = !have_lo && !have_hi && !seen_ranges;
	if (have_lo && have_hi) {
		ri->pc = true;
		ri->lo = low;
		ri->hi = hi_is_addr ? high : low + high;
	}
	ri->attrs = attrs_ok && seen_origin;
}

/* The ranges of a DIE's DW_AT_ranges at offset OFF, as libdw's
 * dwarf_ranges gives them: .debug_ranges pairs before DWARF 5 (an
 * all-ones begin selects a base address), .debug_rnglists entries from
 * DWARF 5, starting from the unit's base address.  Appends them to *OUT;
 * false, with nothing appended, for an entry that needs .debug_addr, an
 * unknown entry or a list that runs off its section: then libdw reads it. */
static bool raw_ranges(const raw_walk *w, uint64_t off, uint64_t base, raw_range **out,
		       size_t *n, size_t *cap)
{
	bool lists = w->version >= 5;
	const unsigned char *sec = lists ? w->sec->rnglists : w->sec->ranges;
	size_t size = lists ? w->sec->rnglists_size : w->sec->ranges_size;
	size_t n0 = *n;
	unsigned asz = w->asz;
	if (!sec || off >= size || (asz != 4 && asz != 8))
		return false;
	const unsigned char *p = sec + off, *end = sec + size;
	uint64_t escape = asz == 8 ? UINT64_MAX : UINT32_MAX;
	for (;;) {
		uint64_t b, e;
		if (!lists) {
			if ((size_t)(end - p) < 2 * asz)
				goto bad;
			b = sp_read_le(p, asz);
			e = sp_read_le(p + asz, asz);
			p += 2 * asz;
			if (b == escape) {
				if (e == escape)
					goto bad;
				base = e;
				continue;
			}
			if (b == 0 && e == 0)
				return true;
			b += base;
			e += base;
		} else {
			if (p >= end)
				goto bad;
			unsigned code = *p++;
			switch (code) {
			case DW_RLE_end_of_list: return true;
			case DW_RLE_offset_pair:
				if (!raw_uleb(&p, end, &b) || !raw_uleb(&p, end, &e))
					goto bad;
				b += base;
				e += base;
				break;
			case DW_RLE_base_address:
				if ((size_t)(end - p) < asz)
					goto bad;
				base = sp_read_le(p, asz);
				p += asz;
				continue;
			case DW_RLE_start_end:
				if ((size_t)(end - p) < 2 * asz)
					goto bad;
				b = sp_read_le(p, asz);
				e = sp_read_le(p + asz, asz);
				p += 2 * asz;
				break;
			case DW_RLE_start_length:
				if ((size_t)(end - p) < asz)
					goto bad;
				b = sp_read_le(p, asz);
				p += asz;
				if (!raw_uleb(&p, end, &e))
					goto bad;
				e += b;
				break;
			default: goto bad; /* indexed addresses, unknown entries */
			}
		}
		raw_range r = {b, e};
		SP_PUSH(*out, *n, *cap, r);
	}
bad:
	*n = n0;
	return false;
}

/* Sets N's origin and call attributes from RI, when it has them. */
static void raw_node_attrs(const raw_abbrev *a, const raw_info *ri, fn_node *n)
{
	if (!ri->attrs)
		return;
	n->from_raw = true;
	n->inlined = a->tag == DW_TAG_inlined_subroutine;
	n->origin = ri->origin;
	n->call_file_idx = ri->file;
	n->call_line = ri->line;
	n->call_col = ri->col;
}

#define RAW_DEAD UINT32_MAX
#define RAW_MAX_LEVEL 201 /* walk() stops below this nesting level */

static bool raw_walk_cu(Dwarf *dw, cu_info *ci, raw_walk *w)
{
	Dwarf_Die *cudie = &ci->die;
	Dwarf_Die tmp;
	if (!dwarf_cu_die(cudie->cu, &tmp, &w->version, NULL, &w->asz, &w->osz, NULL, NULL))
		return false;
	if (!raw_abbrevs(w, cudie))
		return false;
	Dwarf_Off base = dwarf_dieoffset(cudie);
	if (ci->end <= base || !cudie->addr) /* ci->end 0: the section's size is unknown */
		return false;
	const unsigned char *start = cudie->addr, *p = start, *end = start + (ci->end - base);
	uint32_t ctx[RAW_MAX_LEVEL + 2];
	size_t level = 0;
	for (;;) {
		Dwarf_Off off = base + (Dwarf_Off)(p - start);
		uint64_t code;
		if (!raw_uleb(&p, end, &code))
			return level == 0 ? false : p >= end; /* unterminated: as libdw */
		if (code == 0) {
			if (level == 0)
				return false;
			if (--level == 0)
				return true;
			continue;
		}
		if (code >= w->n_ab || w->ab[code].tag == 0)
			return false;
		const raw_abbrev *a = &w->ab[code];
		const unsigned char *attrs = p;
		if (a->fixed >= 0) {
			if (!raw_skip(&p, end, (size_t)a->fixed))
				return false;
		} else {
			for (uint32_t i = 0; i < a->n; i++) {
				int fs = w->sizes[a->first + i];
				if (fs >= 0 ? !raw_skip(&p, end, (size_t)fs)
					    : !raw_skip_form(w, w->forms[a->first + i], &p, end))
					return false;
			}
		}
		uint32_t child_ctx = RAW_DEAD;
		if (level == 0) {
			child_ctx = 0; /* the unit DIE: its children hang on the root */
		} else {
			uint32_t parent = level <= RAW_MAX_LEVEL ? ctx[level] : RAW_DEAD;
			if (parent == RAW_DEAD) {
				/* nothing below is collected */
			} else if (a->tag == DW_TAG_subprogram || a->tag == DW_TAG_inlined_subroutine) {
				uint32_t node = 0;
				uint32_t up = a->tag == DW_TAG_subprogram ? 0 : parent;
				Dwarf_Die die;
				raw_info ri = {0};
				if (a->pc && w->direct_pc)
					raw_read_die(w, a, attrs, end, ci->start, ci->end, &ri);
				if (ri.pc) {
					if (ri.lo < ri.hi) {
						node = add_node_at(ci, off, up);
						fn_range r = {ri.lo, ri.hi, up, node, 0, 0};
						SP_PUSH(ci->ranges, ci->n_ranges, ci->cap_ranges, r);
					}
				} else if (ri.nopc) {
					/* libdw would find no range either */
				} else if (ri.ranges && w->base_ok &&
					   (w->n_rr = 0,
					    raw_ranges(w, ri.ranges_off, w->base, &w->rr, &w->n_rr,
						       &w->cap_rr))) {
					for (size_t k = 0; k < w->n_rr; k++) {
						if (w->rr[k].lo >= w->rr[k].hi)
							continue;
						if (!node)
							node = add_node_at(ci, off, up);
						fn_range r = {w->rr[k].lo, w->rr[k].hi, up, node, 0, 0};
						SP_PUSH(ci->ranges, ci->n_ranges, ci->cap_ranges, r);
					}
				} else if (a->pc && dwarf_offdie(dw, off, &die)) {
					Dwarf_Addr rbase, lo, hi;
					ptrdiff_t it = 0;
					while ((it = dwarf_ranges(&die, it, &rbase, &lo, &hi)) > 0) {
						if (lo >= hi)
							continue;
						if (!node)
							node = add_node(ci, &die, up);
						fn_range r = {lo, hi, up, node, 0, 0};
						SP_PUSH(ci->ranges, ci->n_ranges, ci->cap_ranges, r);
					}
				}
				if (node)
					raw_node_attrs(a, &ri, &ci->nodes[node]);
				if (node)
					child_ctx = node;
			} else if (!skip_children(a->tag)) {
				child_ctx = parent;
			}
		}
		if (!a->children) {
			if (level == 0)
				return true;
			continue;
		}
		level++;
		if (level <= RAW_MAX_LEVEL)
			ctx[level] = child_ctx;
	}
}

/* Sorts ranges by (parent, lo, hi, node): a stable LSD radix sort on
 * (parent, lo, hi), as a node's ranges are pushed together and nodes are
 * numbered in push order.  Only the bytes that differ between ranges get
 * a pass. */
static void sort_ranges(fn_range *r, size_t n)
{
	if (n < 2)
		return;
	uint64_t dhi = 0, dlo = 0, dpar = 0;
	for (size_t i = 1; i < n; i++) {
		dhi |= r[i].hi ^ r[0].hi;
		dlo |= r[i].lo ^ r[0].lo;
		dpar |= r[i].parent ^ r[0].parent;
	}
	fn_range *tmp = sp_xreallocarray(NULL, n, sizeof(*tmp)), *src = r, *dst = tmp;
	size_t count[256];
	for (unsigned k = 0; k < 20; k++) {
		uint64_t diff = k < 8 ? dhi : k < 16 ? dlo : dpar;
		unsigned shift = 8 * (k & 7);
		if (!((diff >> shift) & 255))
			continue;
		memset(count, 0, sizeof(count));
#define RANGE_BYTE(x) ((unsigned)(((k < 8 ? (x).hi : k < 16 ? (x).lo : (x).parent) >> shift) & 255))
		for (size_t i = 0; i < n; i++)
			count[RANGE_BYTE(src[i])]++;
		for (size_t i = 0, sum = 0; i < 256; i++) {
			size_t c = count[i];
			count[i] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[RANGE_BYTE(src[i])]++] = src[i];
#undef RANGE_BYTE
		fn_range *t = src;
		src = dst;
		dst = t;
	}
	if (src != r)
		memcpy(r, src, n * sizeof(*r));
	free(tmp);
}

/* F made absolute with the CU's DW_AT_comp_dir when it is relative, the
 * way other symbolizers print it (cached by the pointer, which libdw keeps
 * for the Dwarf's lifetime). */
static const char *abs_file(sp_dwarf *d, cu_info *ci, const char *f)
{
	uint64_t v;
	if (!f || f[0] == '/')
		return f;
	if (sp_u64map_get(&d->paths, (uint64_t)(uintptr_t)f, &v))
		return d->dnames[v - 1];
	Dwarf_Attribute a;
	const char *dir = dwarf_formstring(dwarf_attr(&ci->die, DW_AT_comp_dir, &a));
	char *j = dir && *dir ? sp_xasprintf("%s/%s", dir, f) : sp_xstrdup(f);
	SP_PUSH(d->dnames, d->n_dnames, d->cap_dnames, j);
	sp_u64map_put(&d->paths, (uint64_t)(uintptr_t)f, d->n_dnames);
	return j;
}

static void bucket_build(bucket_index *bi, const void *table, size_t stride, size_t n);

/* The unit's line table by lines.c, file names made absolute as
 * abs_file makes libdw's.  False when libdw has to decode it. */
static bool own_lines(sp_dwarf *d, cu_info *ci)
{
	Dwarf_Attribute a;
	Dwarf_Word off;
	Dwarf_Die tmp;
	Dwarf_Half version;
	uint8_t asz, osz;
	if (!d->lsec.line || !dwarf_attr(&ci->die, DW_AT_stmt_list, &a) ||
	    dwarf_formudata(&a, &off) != 0 ||
	    !dwarf_cu_die(ci->die.cu, &tmp, &version, NULL, &asz, &osz, NULL, NULL))
		return false;
	const char *comp_dir = dwarf_formstring(dwarf_attr(&ci->die, DW_AT_comp_dir, &a));
	sp_line_table t;
	if (!sp_lines_decode(&d->lsec, off, asz, comp_dir, &t))
		return false;
	ci->fnames = sp_xreallocarray(NULL, t.n_files ? t.n_files : 1, sizeof(*ci->fnames));
	ci->n_files = t.n_files;
	for (size_t i = 0; i < t.n_files; i++) {
		char *f = t.files[i];
		if (f[0] != '/' && comp_dir && *comp_dir) {
			char *j = sp_xasprintf("%s/%s", comp_dir, f);
			free(f);
			f = j;
		}
		t.files[i] = NULL;
		SP_PUSH(d->dnames, d->n_dnames, d->cap_dnames, f);
		ci->fnames[i] = f;
	}
	ci->lines = t.rows;
	ci->n_lines = t.n_rows;
	t.rows = NULL;
	t.n_rows = 0;
	sp_line_table_clear(&t);
	return true;
}

/* The unit's line table by libdw. */
static void libdw_lines(sp_dwarf *d, cu_info *ci)
{
	Dwarf_Lines *lines;
	Dwarf_Files *files;
	size_t nl, nf, cap_f = 0;
	sp_u64map ids = {0}; /* libdw's name pointer -> index + 1 */
	uint64_t v;
	if (dwarf_getsrcfiles(&ci->die, &files, &nf) == 0) {
		for (size_t i = 0; i < nf; i++) {
			const char *f = dwarf_filesrc(files, i, NULL, NULL);
			SP_PUSH(ci->fnames, ci->n_files, cap_f, abs_file(d, ci, f));
			if (f && !sp_u64map_get(&ids, (uint64_t)(uintptr_t)f, &v))
				sp_u64map_put(&ids, (uint64_t)(uintptr_t)f, i + 1);
		}
	}
	if (dwarf_getsrclines(&ci->die, &lines, &nl) == 0 && nl > 0) {
		ci->lines = sp_xreallocarray(NULL, nl, sizeof(*ci->lines));
		size_t k = 0;
		for (size_t i = 0; i < nl; i++) {
			Dwarf_Line *l = dwarf_onesrcline(lines, i);
			sp_line_row r = {0};
			Dwarf_Addr a;
			int n;
			bool b;
			if (!l || dwarf_lineaddr(l, &a) != 0)
				continue;
			r.addr = a;
			if (dwarf_lineendsequence(l, &b) == 0)
				r.end_seq = b;
			const char *f = dwarf_linesrc(l, NULL, NULL);
			r.file = UINT32_MAX;
			if (f && sp_u64map_get(&ids, (uint64_t)(uintptr_t)f, &v)) {
				r.file = (uint32_t)(v - 1);
			} else if (f) { /* not in the unit's table: a name of its own */
				SP_PUSH(ci->fnames, ci->n_files, cap_f, abs_file(d, ci, f));
				sp_u64map_put(&ids, (uint64_t)(uintptr_t)f, ci->n_files);
				r.file = (uint32_t)(ci->n_files - 1);
			}
			if (dwarf_lineno(l, &n) == 0)
				r.line = n;
			if (dwarf_linecol(l, &n) == 0)
				r.col = n;
			ci->lines[k++] = r;
		}
		ci->n_lines = k;
	}
	sp_u64map_free(&ids);
}

static void load_cu(sp_dwarf *d, cu_info *ci)
{
	ci->loaded = true;
	if (!own_lines(d, ci))
		libdw_lines(d, ci);

	fn_node root = {0};
	SP_PUSH(ci->nodes, ci->n_nodes, ci->cap_nodes, root);
	raw_walk w = {.direct_pc = d->direct_pc, .sec = &d->lsec};
	if (w.direct_pc) {
		/* the unit's base address, as libdw takes it for range lists */
		Dwarf_Addr base;
		Dwarf_Attribute am;
		if (dwarf_lowpc(&ci->die, &base) != 0 &&
		    dwarf_formaddr(dwarf_attr(&ci->die, DW_AT_entry_pc, &am), &base) != 0)
			base = 0;
		w.base = base;
		w.base_ok = base != (Dwarf_Addr)-1;
	}
	if (!raw_walk_cu(d->dw, ci, &w)) {
		ci->n_nodes = 1;
		ci->n_ranges = 0;
		walk(ci, &ci->die, 0, 0);
	}
	free(w.ab);
	free(w.forms);
	free(w.names);
	free(w.consts);
	free(w.sizes);
	free(w.rr);
	sort_ranges(ci->ranges, ci->n_ranges);
	for (size_t i = 0; i < ci->n_ranges;) {
		size_t j = i;
		while (j < ci->n_ranges && ci->ranges[j].parent == ci->ranges[i].parent)
			j++;
		fn_node *p = &ci->nodes[ci->ranges[i].parent];
		p->child_first = (uint32_t)i;
		p->child_n = (uint32_t)(j - i);
		i = j;
	}
	for (size_t i = 0; i < ci->n_ranges; i++) {
		const fn_node *n = &ci->nodes[ci->ranges[i].node];
		ci->ranges[i].child_first = n->child_first;
		ci->ranges[i].child_n = n->child_n;
	}
	bucket_build(&ci->line_index, ci->lines, sizeof(*ci->lines), ci->n_lines);
	bucket_build(&ci->root_index, ci->ranges + ci->nodes[0].child_first, sizeof(*ci->ranges),
		     ci->nodes[0].child_n);
}

/* Buckets over a sorted table of N entries whose first member is a
 * uint64_t key: entry FIRST[b] is the first whose key is above the start
 * of bucket b, so a search for an address looks only between the bounds
 * of its bucket, not at the log2(N) rows of a whole binary search, each
 * of them a cache miss in a large table. */
static void bucket_build(bucket_index *bi, const void *table, size_t stride, size_t n)
{
#define KEY(i) (*(const uint64_t *)((const char *)table + (i) * stride))
	*bi = (bucket_index){0};
	if (n < 8)
		return;
	uint64_t base = KEY(0), range = KEY(n - 1) - base;
	if (range > ((uint64_t)1 << 62))
		return;
	size_t nb = 1;
	while (nb < n / 2)
		nb *= 2;
	unsigned shift = 0;
	while ((range >> shift) >= nb)
		shift++;
	bi->base = base;
	bi->shift = shift;
	bi->nb = nb;
	bi->first = sp_xreallocarray(NULL, nb, sizeof(*bi->first));
	size_t i = 0;
	for (size_t b = 0; b < nb; b++) {
		uint64_t start = base + ((uint64_t)b << shift);
		while (i < n && KEY(i) <= start)
			i++;
		bi->first[b] = (uint32_t)i;
	}
#undef KEY
}

/* The bounds [*LO, *HI) of the first entry above ADDR. */
static void bucket_bounds(const bucket_index *bi, size_t n, uint64_t addr, size_t *lo, size_t *hi)
{
	*lo = 0;
	*hi = n;
	if (!bi->nb)
		return;
	if (addr < bi->base) {
		*hi = 0;
		return;
	}
	uint64_t b = (addr - bi->base) >> bi->shift;
	if (b >= bi->nb)
		b = bi->nb - 1;
	*lo = bi->first[b];
	if (b + 1 < bi->nb)
		*hi = bi->first[b + 1];
}

/* The first index in [LO, HI) whose KEY_AT is above ADDR (HI if none). */
#define UPPER_BOUND(lo, hi, key_at, addr)                                                \
	do {                                                                             \
		while ((lo) < (hi)) {                                                    \
			size_t mid_ = (lo) + ((hi) - (lo)) / 2;                          \
			if (key_at(mid_) <= (addr))                                      \
				(lo) = mid_ + 1;                                         \
			else                                                             \
				(hi) = mid_;                                             \
		}                                                                        \
	} while (0)

/* Of the N ranges from FIRST (the children of one node; of the root when
 * ROOT), the one containing ADDR, or NULL. */
static const fn_range *find_child(const cu_info *ci, uint32_t first, uint32_t n, bool root,
				  uint64_t addr)
{
	const fn_range *r = ci->ranges + first;
	size_t lo = 0, hi = n;
	if (root)
		bucket_bounds(&ci->root_index, hi, addr, &lo, &hi);
#define RANGE_LO(i) r[i].lo
	UPPER_BOUND(lo, hi, RANGE_LO, addr);
#undef RANGE_LO
	/* Siblings do not normally overlap; look back a little in case. */
	for (size_t i = lo, k = 0; i > 0 && k < 8; i--, k++)
		if (addr >= r[i - 1].lo && addr < r[i - 1].hi)
			return &r[i - 1];
	return NULL;
}

static const sp_line_row *find_line(const cu_info *ci, uint64_t addr)
{
	size_t lo, hi;
	bucket_bounds(&ci->line_index, ci->n_lines, addr, &lo, &hi);
#define LINE_ADDR(i) ci->lines[i].addr
	UPPER_BOUND(lo, hi, LINE_ADDR, addr);
#undef LINE_ADDR
	if (lo == 0 || ci->lines[lo - 1].end_seq)
		return NULL;
	return &ci->lines[lo - 1];
}

static const char *attr_string(Dwarf_Die *die, int name)
{
	Dwarf_Attribute a;
	if (!dwarf_attr_integrate(die, name, &a))
		return NULL;
	return dwarf_formstring(&a);
}

static int64_t attr_int(Dwarf_Die *die, int name, bool integrate)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	if (!(integrate ? dwarf_attr_integrate(die, name, &a) : dwarf_attr(die, name, &a)))
		return 0;
	if (dwarf_formudata(&a, &w) != 0)
		return 0;
	return (int64_t)w;
}

/* The demangled form of RAW, cached by the pointer (names live in the
 * debug sections or symbol tables for the resolver's lifetime). */
static const char *demangled(sp_dwarf *d, const char *raw)
{
	uint64_t v;
	if (!raw)
		return NULL;
	if (sp_u64map_get(&d->names, (uint64_t)(uintptr_t)raw, &v))
		return v ? d->dnames[v - 1] : raw;
	char *dn = sp_demangle(raw, d->style);
	if (!dn) {
		sp_u64map_put(&d->names, (uint64_t)(uintptr_t)raw, 0);
		return raw;
	}
	SP_PUSH(d->dnames, d->n_dnames, d->cap_dnames, dn);
	sp_u64map_put(&d->names, (uint64_t)(uintptr_t)raw, d->n_dnames);
	return dn;
}

/* The linkage name of DIE, else its name (through origins and
 * specifications), or NULL. */
static const char *die_raw_name(Dwarf_Die *die)
{
	const char *raw = attr_string(die, DW_AT_linkage_name);
	if (!raw)
		raw = attr_string(die, DW_AT_MIPS_linkage_name);
	if (!raw)
		raw = attr_string(die, DW_AT_name);
	return raw;
}

/* Works out the names of the abstract origin ORIGIN once, as entry
 * KEY of d->origins. */
static void origin_names(sp_dwarf *d, Dwarf_Die *origin, uint64_t key)
{
	oname o;
	o.raw = die_raw_name(origin);
	o.name = demangled(d, o.raw);
	o.decl_line = attr_int(origin, DW_AT_decl_line, true);
	SP_PUSH(d->onames, d->n_onames, d->cap_onames, o);
	sp_u64map_put(&d->origins, key, d->n_onames - 1);
}

static void name_node(sp_dwarf *d, cu_info *ci, fn_node *n)
{
	Dwarf_Die die, origin;
	Dwarf_Attribute a;
	uint64_t v;
	n->named = true;
	if (n->from_raw) {
		/* origin and call attributes known: libdw only for a new origin */
		uint64_t key = n->origin + 1;
		bool found = sp_u64map_get(&d->origins, key, &v);
		if (!found && dwarf_offdie(d->dw, n->origin, &origin)) {
			origin_names(d, &origin, key);
			found = sp_u64map_get(&d->origins, key, &v);
		}
		if (found) {
			n->raw = d->onames[v].raw;
			n->name = d->onames[v].name;
			n->decl_line = d->onames[v].decl_line;
			if (n->inlined && n->call_file_idx >= 0 &&
			    (uint64_t)n->call_file_idx < ci->n_files)
				n->call_file = ci->fnames[n->call_file_idx];
			if (!n->inlined)
				n->call_line = n->call_col = 0;
			return;
		}
		n->call_line = n->call_col = 0;
	}
	if (!dwarf_offdie(d->dw, n->off, &die))
		return;
	/* Every inlined copy of a function names the same abstract origin:
	 * its name is worked out once. */
	Dwarf_Die *from = &die;
	uint64_t key = 0;
	if (dwarf_attr(&die, DW_AT_abstract_origin, &a) && dwarf_formref_die(&a, &origin)) {
		from = &origin;
		key = dwarf_dieoffset(&origin) + 1;
	}
	if (key && !sp_u64map_get(&d->origins, key, &v)) {
		origin_names(d, from, key);
		sp_u64map_get(&d->origins, key, &v);
	}
	if (key) {
		n->raw = d->onames[v].raw;
		n->name = d->onames[v].name;
		n->decl_line = d->onames[v].decl_line;
	} else {
		n->raw = die_raw_name(from);
		n->name = demangled(d, n->raw);
		n->decl_line = attr_int(from, DW_AT_decl_line, true);
	}
	if (dwarf_tag(&die) == DW_TAG_inlined_subroutine) {
		int64_t f = attr_int(&die, DW_AT_call_file, false);
		if (f >= 0 && (size_t)f < ci->n_files)
			n->call_file = ci->fnames[f];
		n->call_line = attr_int(&die, DW_AT_call_line, false);
		n->call_col = attr_int(&die, DW_AT_call_column, false);
	}
}

static cu_info *find_cu(const sp_dwarf *d, uint64_t addr)
{
	size_t lo = 0, hi = d->n_cu_ranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->cu_ranges[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i > 0 && d->cu_maxend[i - 1] > addr; i--)
		if (addr < d->cu_ranges[i - 1].hi)
			return &d->cus[d->cu_ranges[i - 1].cu];
	return NULL;
}

static int cmp_fsym(const void *a, const void *b)
{
	const fsym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	uint64_t xs = x->sized ? x->size : 0, ys = y->sized ? y->size : 0;
	if (xs != ys)
		return xs < ys ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The string tables of ELF's symbol tables, as libdwfl reads them
 * (decompressed), appended to TABS (at most 4 in all). */
static void symbol_strings(Elf *elf, Elf_Data **tabs, size_t *n)
{
	Elf_Scn *scn = NULL;
	while (elf && *n < 4 && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		Elf_Scn *str = elf_getscn(elf, sh.sh_link);
		Elf_Data *data = str ? elf_getdata(str, NULL) : NULL;
		if (data && data->d_buf && data->d_size)
			tabs[(*n)++] = data;
	}
}

/* Whether NAME ends inside the string table it points into.  libelf
 * checks a name's NUL against the section as stored, and a compressed
 * string table decompressed without its last NUL hands out a name that
 * runs off the end of its buffer.  A name in no table we know (libdwfl's
 * MiniDebugInfo) is taken as it is. */
static bool name_terminated(Elf_Data *const *tabs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++) {
		const char *b = tabs[i]->d_buf, *e = b + tabs[i]->d_size;
		if (name >= b && name < e)
			return memchr(name, 0, (size_t)(e - name)) != NULL;
	}
	return true;
}

/* The module's function symbols (.symtab, else .dynsym, as libdwfl picks),
 * sorted once: libdwfl's own address lookup scans every symbol per call.
 * Of several symbols at one address the largest, then global, one wins. */
static void load_syms(sp_dwarf *d)
{
	size_t cap = 0, k = 0;
	d->syms_loaded = true;
	GElf_Addr ebias = 0;
	Elf *elf = dwfl_module_getelf(d->mod, &ebias);
	int n = dwfl_module_getsymtab(d->mod);
	Elf_Data *tabs[4];
	size_t n_tabs = 0;
	symbol_strings(elf, tabs, &n_tabs);
	symbol_strings(d->dw ? dwarf_getelf(d->dw) : NULL, tabs, &n_tabs);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(d->mod, i, &sym, &addr, &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);
		if (!name || !name_terminated(tabs, n_tabs, name) || !*name || shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		/* A versioned symbol is "name@VERSION" or "name@@VERSION" in the
		 * symbol table; the function is "name". */
		const char *at = strchr(name, '@');
		if (at && at != name) {
			char *plain = sp_xstrndup(name, (size_t)(at - name));
			SP_PUSH(d->dnames, d->n_dnames, d->cap_dnames, plain);
			name = plain;
		}
		fsym f = {addr, sym.st_size, name,
			  bind == STB_GLOBAL ? 2 : bind == STB_WEAK ? 1 : 0, sym.st_size != 0};
		if (f.size == 0) {
			/* no size: up to the end of its section at most */
			GElf_Shdr sh;
			Elf_Scn *scn = elf ? elf_getscn(elf, shndx) : NULL;
			if (scn && gelf_getshdr(scn, &sh) && sh.sh_addr + ebias + sh.sh_size > addr)
				f.size = sh.sh_addr + ebias + sh.sh_size - addr;
			else
				f.size = 1;
		}
		SP_PUSH(d->syms, d->n_syms, cap, f);
	}
	if (d->n_syms > 1) /* qsort must not get NULL, and empty tables may be */
		qsort(d->syms, d->n_syms, sizeof(*d->syms), cmp_fsym);
	for (size_t i = 0; i < d->n_syms; i++) {
		if (k && d->syms[k - 1].addr == d->syms[i].addr)
			k--; /* the later one is preferred */
		d->syms[k++] = d->syms[i];
	}
	d->n_syms = k;
	/* a symbol whose size came from its section ends at the next one */
	for (size_t i = 0; i + 1 < k; i++)
		if (d->syms[i].addr + d->syms[i].size > d->syms[i + 1].addr &&
		    d->syms[i].size > 1 && !d->syms[i].sized)
			d->syms[i].size = d->syms[i + 1].addr - d->syms[i].addr;
}

/* Name of the function symbol holding the module address A, or NULL. */
static const char *sym_name(sp_dwarf *d, uint64_t a)
{
	if (!d->syms_loaded)
		load_syms(d);
	size_t lo = 0, hi = d->n_syms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->syms[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const fsym *f = &d->syms[lo - 1];
	if (a - f->addr >= f->size)
		return NULL;
	return f->name;
}

static sp_frame *scratch(sp_dwarf *d, size_t n)
{
	if (n > d->cap_scratch) {
		d->cap_scratch = n * 2;
		d->scratch = sp_xreallocarray(d->scratch, d->cap_scratch, sizeof(sp_frame));
	}
	return d->scratch;
}

/* Copies N frames (N <= 64 + 1, the deepest chain kept) into stable
 * storage: blocks that never move. */
static const sp_frame *keep_frames(sp_dwarf *d, const sp_frame *f, size_t n)
{
	if (n == 0)
		return NULL;
	if (d->n_blocks == 0 || d->block_used + n > FRAME_BLOCK) {
		SP_PUSH(d->blocks, d->n_blocks, d->cap_blocks,
			sp_xreallocarray(NULL, FRAME_BLOCK, sizeof(sp_frame)));
		d->block_used = 0;
	}
	sp_frame *dst = d->blocks[d->n_blocks - 1] + d->block_used;
	memcpy(dst, f, n * sizeof(*f));
	d->block_used += n;
	return dst;
}

static size_t resolve_uncached(sp_dwarf *d, uint64_t addr, sp_frame **out)
{
	uint64_t dwfl_addr;
	const char *symname = NULL;
	size_t n = 0;

	*out = d->scratch;
	if (!to_dwfl(d, addr, &dwfl_addr))
		return 0;

	cu_info *ci = d->dw ? find_cu(d, dwfl_addr - d->dwbias) : NULL;
	if (ci) {
		uint64_t a = dwfl_addr - d->dwbias;
		uint32_t chain[64];
		size_t depth = 0;
		if (!ci->loaded)
			load_cu(d, ci);
		uint32_t first = ci->nodes[0].child_first, nc = ci->nodes[0].child_n;
		const fn_range *hit;
		while (depth < SP_ARRAY_LEN(chain) &&
		       (hit = find_child(ci, first, nc, depth == 0, a)) != NULL) {
			chain[depth++] = hit->node;
			first = hit->child_first;
			nc = hit->child_n;
		}
		const sp_line_row *row = find_line(ci, a);
		const char *row_file = row && row->file < ci->n_files ? ci->fnames[row->file] : NULL;
		size_t nf = depth ? depth : 1;
		sp_frame *f = scratch(d, nf);
		memset(f, 0, nf * sizeof(*f));
		for (size_t i = 0; i < depth; i++) {
			fn_node *fn = &ci->nodes[chain[depth - 1 - i]];
			if (!fn->named)
				name_node(d, ci, fn);
			f[i].name = fn->name;
			f[i].system_name = fn->raw;
			f[i].start_line = fn->decl_line;
			f[i].inlined = i + 1 < depth;
			if (i == 0) {
				if (row) {
					f[i].file = row_file;
					f[i].line = row->line;
					f[i].column = row->col;
				}
			} else {
				fn_node *inner = &ci->nodes[chain[depth - i]];
				f[i].file = inner->call_file;
				f[i].line = inner->call_line;
				f[i].column = inner->call_col;
			}
		}
		if (depth == 0 && row) {
			f[0].file = row_file;
			f[0].line = row->line;
			f[0].column = row->col;
		}
		n = nf;
		if (depth == 0 && !row)
			n = 0;
	}
	/* The outermost frame takes the symbol table's name when there is one,
	 * as llvm-symbolizer does: static functions and templates often carry
	 * no linkage name in DWARF, while the symbol is mangled and unique. */
	symname = sym_name(d, dwfl_addr);
	if (symname) {
		if (n == 0) {
			sp_frame *f = scratch(d, 1);
			memset(f, 0, sizeof(*f));
			n = 1;
		}
		d->scratch[n - 1].system_name = symname;
		d->scratch[n - 1].name = demangled(d, symname);
	}
	*out = d->scratch;
	return n;
}

static sp_error *ensure_open(sp_dwarf *d)
{
	if (!d->opened)
		d->open_err = open_module(d);
	if (d->open_err)
		return sp_error_new(sp_error_root_code(d->open_err), "%s", d->open_err->msg);
	return NULL;
}

sp_error *sp_dwarf_resolve_once(sp_dwarf *d, uint64_t addr, const sp_frame **frames, size_t *n)
{
	*frames = NULL;
	*n = 0;
	sp_error *e = ensure_open(d);
	if (e)
		return e;
	sp_frame *f;
	*n = resolve_uncached(d, addr, &f);
	*frames = *n ? f : NULL;
	return NULL;
}

sp_error *sp_dwarf_resolve(sp_dwarf *d, uint64_t addr, const sp_frame **frames, size_t *n)
{
	*frames = NULL;
	*n = 0;
	sp_error *e = ensure_open(d);
	if (e)
		return e;
	uint64_t v;
	if (sp_u64map_get(&d->addr_cache, addr, &v)) {
		*frames = d->results[v].f;
		*n = d->results[v].n;
		return NULL;
	}
	sp_frame *f;
	size_t nf = resolve_uncached(d, addr, &f);
	result r = {keep_frames(d, f, nf), nf};
	SP_PUSH(d->results, d->n_results, d->cap_results, r);
	sp_u64map_put(&d->addr_cache, addr, d->n_results - 1);
	*frames = r.f;
	*n = r.n;
	return NULL;
}
