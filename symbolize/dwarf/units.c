/* units.c — the compile units of one Dwarf and their function trees.
 *
 * Compile-unit ranges are indexed from every CU DIE (DW_AT_low_pc/high_pc/
 * ranges; .debug_aranges is not trusted because Go binaries and JIT
 * objects lack it).  The first address that falls in a unit makes us walk
 * its DIE tree once (die.c over the raw bytes, or libdw's walk here when
 * the raw walk does not know something), collecting subprograms and their
 * inlined_subroutine trees as sorted range tables, and decode its line
 * table once (lines.c, or libdw for unusual ones).  Every later address is
 * a bucket look-up and a few binary searches in a bucket.
 */
#include "symbolize/dwarf/dwarfp.h"
#include "symbolize/dwarf/cursor.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

/* The walk over libdw's DIEs, below PARENT_DIE (node PARENT). */
static void walk(sp_fn_tree *t, Dwarf_Die *parent_die, uint32_t parent, int depth)
{
	Dwarf_Die child;
	if (depth > 200 || dwarf_child(parent_die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			uint32_t node = 0;
			sp_fn_add_die_ranges(t, &child, tag == DW_TAG_subprogram ? 0 : parent, &node);
			if (node)
				walk(t, &child, node, depth + 1);
		} else if (!sp_fn_skip_children(tag) && dwarf_haschildren(&child)) {
			walk(t, &child, parent, depth + 1);
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

bool sp_units_walk(sp_units *u, size_t i, bool raw, sp_fn_tree *t)
{
	sp_cu *ci = &u->cus[i];
	t->n_nodes = 0;
	t->n_ranges = 0;
	sp_fn_add_node(t, 0, 0); /* the root */
	if (raw)
		return sp_die_walk(u->dw, ci, u->lsec,
				   u->direct_pc || (ci->split && u->m->split_pc), t);
	if (ci->split) /* libdw cannot read a split unit's addresses alone */
		return true;
	walk(t, &ci->die, 0, 0);
	return true;
}

static int cmp_cu_range(const void *a, const void *b)
{
	const sp_cu_range *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	return x->cu < y->cu ? -1 : x->cu > y->cu;
}

static void inflate_failed(sp_units *u, const sp_lazy *z, const char *name);

/* One range of .debug_aranges: [lo, hi) is code of the unit at OFF. */
struct sp_arange {
	uint64_t lo, hi, off;
};

/* Adds the unit at OFF (its header HSIZE bytes, the next unit at NEXT) to
 * the index, with its ranges, when its DIE has any: true then. */
static bool add_unit(sp_units *u, Dwarf_Off off, Dwarf_Off next, size_t hsize, size_t info_size)
{
	Dwarf_Die cudie;
	if (dwarf_offdie(u->dw, off + hsize, &cudie) == NULL)
		return false;
	sp_cu ci = {0};
	ci.die = cudie;
	ci.dw = u->dw;
	ci.start = off;
	ci.end = next < info_size ? next : info_size;
	uint32_t idx = (uint32_t)u->n_cus;
	bool any = false;
	Dwarf_Addr base, lo, hi;
	ptrdiff_t it = 0;
	while ((it = dwarf_ranges(&cudie, it, &base, &lo, &hi)) > 0) {
		if (lo >= hi || lo < u->m->low_bound)
			continue;
		sp_cu_range r = {lo, hi, idx};
		SP_PUSH(u->ranges, u->n_ranges, u->cap_ranges, r);
		any = true;
	}
	if (any)
		SP_PUSH(u->cus, u->n_cus, u->cap_cus, ci);
	return any;
}

/* Sorts the ranges and makes their prefix maximum. */
static void finish_ranges(sp_units *u)
{
	if (u->n_ranges > 1) /* qsort must not get NULL, and empty tables may be */
		qsort(u->ranges, u->n_ranges, sizeof(*u->ranges), cmp_cu_range);
	free(u->maxend);
	u->maxend = sp_xreallocarray(NULL, u->n_ranges + 1, sizeof(uint64_t));
	uint64_t top = 0;
	for (size_t i = 0; i < u->n_ranges; i++) {
		if (u->ranges[i].hi > top)
			top = u->ranges[i].hi;
		u->maxend[i] = top;
	}
}

static void cu_clear(sp_cu *ci)
{
	free(ci->lines);
	sp_fn_tree_clear(&ci->fn);
	if (ci->call_fnames != ci->fnames)
		free(ci->call_fnames);
	free(ci->fnames);
	sp_split_free(ci->split);
	free(ci->line_index.first);
	free(ci->root_index.first);
}

/* Every unit of .debug_info, inflating all of it.  M->info_size: the size
 * of .debug_info as libdw reads it, 0 if unknown.  dwarf_nextcu takes a
 * unit's length as it is: a damaged one puts the next unit past the end of
 * .debug_info, and the raw walk must stop at the section's end, not there.
 * Units a partial index loaded keep what they loaded. */
static void index_all(sp_units *u)
{
	sp_module *m = u->m;
	size_t info_size = m->info_size, limit = SIZE_MAX;
	if (!sp_lazy_need(m->zinfo, info_size)) {
		limit = sp_lazy_valid(m->zinfo); /* corrupt: what could be inflated */
		inflate_failed(u, m->zinfo, ".debug_info");
	}
	sp_cu *old = u->cus;
	size_t n_old = u->n_cus;
	u->cus = NULL;
	u->n_cus = u->cap_cus = 0;
	u->n_ranges = 0;
	u->partial = false;
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (off < limit && dwarf_nextcu(u->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (add_unit(u, off, next, hsize, info_size)) {
			sp_cu *ci = &u->cus[u->n_cus - 1];
			for (size_t i = 0; i < n_old; i++)
				if (old[i].start == off && old[i].loaded) {
					*ci = old[i]; /* moved: it is the same unit */
					old[i].loaded = false;
				}
		}
		off = next;
	}
	for (size_t i = 0; i < n_old; i++)
		if (old[i].loaded)
			cu_clear(&old[i]);
	free(old);
	finish_ranges(u);
}

static int cmp_arange(const void *a, const void *b)
{
	const struct sp_arange *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* The ranges of .debug_aranges (DWARF 2-5, version 2 sets) into
 * U->aranges, sorted: false when it is absent, empty or not as expected,
 * and then the index is built from the units themselves. */
static bool read_aranges(sp_units *u)
{
	size_t cap = 0;
	sp_cur c = {u->m->aranges, u->m->aranges + u->m->aranges_size, false};
	while (c.p && sp_cur_left(&c)) {
		const unsigned char *set = c.p;
		uint64_t len = sp_cur_fixed(&c, 4);
		size_t osz = 4;
		if (len == 0xffffffff) {
			len = sp_cur_fixed(&c, 8);
			osz = 8;
		}
		if (len > sp_cur_left(&c))
			return false;
		sp_cur s = {c.p, c.p + len, false};
		c.p += len;
		unsigned version = (unsigned)sp_cur_fixed(&s, 2);
		uint64_t off = sp_cur_fixed(&s, osz);
		unsigned asz = (unsigned)sp_cur_fixed(&s, 1), ssz = (unsigned)sp_cur_fixed(&s, 1);
		if (s.bad || version != 2 || (asz != 4 && asz != 8) || ssz != 0)
			return false;
		size_t at = (size_t)(s.p - set), align = 2 * asz;
		sp_cur_skip(&s, (align - at % align) % align);
		for (;;) {
			uint64_t lo = sp_cur_fixed(&s, asz), n = sp_cur_fixed(&s, asz);
			if (s.bad)
				return false;
			if (lo == 0 && n == 0)
				break;
			if (n && lo + n > lo && lo >= u->m->low_bound) {
				struct sp_arange r = {lo, lo + n, off};
				SP_PUSH(u->aranges, u->n_aranges, cap, r);
			}
		}
	}
	if (c.bad || !u->n_aranges)
		return false;
	qsort(u->aranges, u->n_aranges, sizeof(*u->aranges), cmp_arange);
	return true;
}

void sp_units_index(sp_units *u, sp_module *m)
{
	*u = (sp_units){0};
	u->dw = m->dw;
	u->m = m;
	u->lsec = &m->lsec;
	u->direct_pc = m->direct_pc;
	/* With .debug_info inflated as it is read, .debug_aranges says which
	 * unit to inflate up to; else every unit is read now. */
	if (m->zinfo && m->abbrev && read_aranges(u)) {
		u->partial = true;
		finish_ranges(u);
		return;
	}
	index_all(u);
}

void sp_units_full(sp_units *u)
{
	if (u->partial)
		index_all(u);
}

/* Whether the abbreviation table at OFF of M's .debug_abbrev has no form
 * that refers outside its unit (DW_FORM_ref_addr, DW_FORM_ref_sig8) and
 * no unknown one (DW_FORM_indirect): then the unit that uses it can be
 * read, by us and by libdw, with .debug_info inflated up to its end. */
static bool unit_self_contained(const sp_module *m, uint64_t off)
{
	if (off >= m->abbrev_size)
		return false;
	sp_cur c = {m->abbrev + off, m->abbrev + m->abbrev_size, false};
	while (sp_cur_uleb(&c) != 0) { /* a code; 0 ends the table */
		sp_cur_uleb(&c); /* tag */
		sp_cur_skip(&c, 1); /* children */
		for (;;) {
			uint64_t at = sp_cur_uleb(&c), form = sp_cur_uleb(&c);
			if (c.bad)
				return false;
			if (at == 0 && form == 0)
				break;
			if (form == DW_FORM_ref_addr || form == DW_FORM_ref_sig8 ||
			    form == DW_FORM_indirect)
				return false;
			if (form == DW_FORM_implicit_const)
				sp_cur_sleb(&c);
		}
	}
	return !c.bad;
}

/* Adds the unit at OFF that .debug_aranges gives for an address, inflating
 * .debug_info up to its end: false when it cannot be read this way or is
 * in the index already. */
static bool add_arange_unit(sp_units *u, uint64_t off)
{
	for (size_t i = 0; i < u->n_cus; i++)
		if (u->cus[i].start == off)
			return false;
	Dwarf_Off next, abbrev;
	size_t hsize;
	size_t info_size = u->m->info_size;
	/* the header (at most 24 bytes), then the whole unit */
	if (off >= info_size || !sp_lazy_need(u->m->zinfo, off + 24) ||
	    dwarf_nextcu(u->dw, off, &next, &hsize, &abbrev, NULL, NULL) != 0 ||
	    !unit_self_contained(u->m, abbrev) || !sp_lazy_need(u->m->zinfo, next) ||
	    !add_unit(u, off, next, hsize, info_size))
		return false;
	finish_ranges(u);
	return true;
}

/* Sorts ranges by (parent, lo, hi, node): a stable LSD radix sort on
 * (parent, lo, hi), as a node's ranges are pushed together and nodes are
 * numbered in push order.  Only the bytes that differ between ranges get
 * a pass. */
static void sort_ranges(sp_fn_range *r, size_t n)
{
	if (n < 2)
		return;
	uint64_t dhi = 0, dlo = 0, dpar = 0;
	for (size_t i = 1; i < n; i++) {
		dhi |= r[i].hi ^ r[0].hi;
		dlo |= r[i].lo ^ r[0].lo;
		dpar |= r[i].parent ^ r[0].parent;
	}
	sp_fn_range *tmp = sp_xreallocarray(NULL, n, sizeof(*tmp)), *src = r, *dst = tmp;
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
		sp_fn_range *t = src;
		src = dst;
		dst = t;
	}
	if (src != r)
		memcpy(r, src, n * sizeof(*r));
	free(tmp);
}

/* The pseudo file F names when its last part is one ("<autogenerated>",
 * Go's name for code the compiler made), which is no path and is printed
 * alone as other symbolizers do; NULL for an ordinary or absolute name. */
static const char *pseudo_file(const char *f)
{
	if (f[0] == '/')
		return NULL;
	const char *last = strrchr(f, '/');
	last = last ? last + 1 : f;
	return last[0] == '<' ? last : NULL;
}

/* The relative file name F of a line table as printed (malloc'd): under
 * the unit's compilation directory DIR (may be NULL or empty) unless
 * WHOLE (F holds it already: directory 0 before DWARF 5), the way other
 * symbolizers print it, and with no doubled "/" where the line table's
 * directory ended in one ("./" + "/" + "a.c"). */
static char *unit_file(const char *dir, const char *f, bool whole)
{
	char *j = !whole && dir && *dir ? sp_xasprintf("%s/%s", dir, f) : sp_xstrdup(f);
	char *o = j;
	for (const char *p = j; *p; p++)
		if (*p != '/' || o == j || o[-1] != '/')
			*o++ = *p;
	*o = '\0';
	return j;
}

/* F made absolute with the CU's DW_AT_comp_dir when it is relative (cached
 * by the pointer, which libdw keeps for the Dwarf's lifetime).  Before
 * DWARF 5 a name of directory 0 starts with the compilation directory
 * already (libdw joined them). */
static const char *abs_file(sp_units *u, sp_cu *ci, const char *f)
{
	uint64_t v;
	if (!f || f[0] == '/')
		return f;
	if (pseudo_file(f))
		return pseudo_file(f);
	if (sp_u64map_get(&u->paths, (uint64_t)(uintptr_t)f, &v))
		return u->names[v - 1];
	Dwarf_Attribute a;
	Dwarf_Die tmp;
	Dwarf_Half version = 0;
	const char *dir = ci->go ? NULL : dwarf_formstring(dwarf_attr(&ci->die, DW_AT_comp_dir, &a));
	size_t dl = dir ? strlen(dir) : 0;
	bool whole = dl && dwarf_cu_die(ci->die.cu, &tmp, &version, NULL, NULL, NULL, NULL, NULL) &&
		     version < 5 && !strncmp(f, dir, dl) && f[dl] == '/';
	char *j = unit_file(dir, f, whole);
	SP_PUSH(u->names, u->n_names, u->cap_names, j);
	sp_u64map_put(&u->paths, (uint64_t)(uintptr_t)f, u->n_names);
	return j;
}

/* The unit's line table by lines.c, file names made absolute as
 * abs_file makes libdw's.  False when libdw has to decode it. */
static bool own_lines(sp_units *u, sp_cu *ci)
{
	Dwarf_Attribute a;
	Dwarf_Word off;
	Dwarf_Die tmp;
	Dwarf_Half version;
	uint8_t asz, osz;
	if (!u->lsec->line || !dwarf_attr(&ci->die, DW_AT_stmt_list, &a) ||
	    dwarf_formudata(&a, &off) != 0 ||
	    !dwarf_cu_die(ci->die.cu, &tmp, &version, NULL, &asz, &osz, NULL, NULL))
		return false;
	const char *comp_dir = ci->go ? NULL
				      : dwarf_formstring(dwarf_attr(&ci->die, DW_AT_comp_dir, &a));
	sp_line_table t;
	if (!sp_lines_decode(u->lsec, off, asz, comp_dir, &t))
		return false;
	ci->fnames = sp_xreallocarray(NULL, t.n_files ? t.n_files : 1, sizeof(*ci->fnames));
	ci->n_files = t.n_files;
	for (size_t i = 0; i < t.n_files; i++) {
		char *f = t.files[i];
		const char *ps = pseudo_file(f);
		if (ps && ps != f) {
			memmove(f, ps, strlen(ps) + 1);
		} else if (f[0] != '/' && !ps) {
			char *j = unit_file(comp_dir, f, t.in_comp_dir && t.in_comp_dir[i]);
			free(f);
			f = j;
		}
		t.files[i] = NULL;
		SP_PUSH(u->names, u->n_names, u->cap_names, f);
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
static void libdw_lines(sp_units *u, sp_cu *ci)
{
	Dwarf_Lines *lines;
	Dwarf_Files *files;
	size_t nl, nf, cap_f = 0;
	sp_u64map ids = {0}; /* libdw's name pointer -> index + 1 */
	uint64_t v;
	if (dwarf_getsrcfiles(&ci->die, &files, &nf) == 0) {
		for (size_t i = 0; i < nf; i++) {
			const char *f = dwarf_filesrc(files, i, NULL, NULL);
			SP_PUSH(ci->fnames, ci->n_files, cap_f, abs_file(u, ci, f));
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
				SP_PUSH(ci->fnames, ci->n_files, cap_f, abs_file(u, ci, f));
				sp_u64map_put(&ids, (uint64_t)(uintptr_t)f, ci->n_files);
				r.file = (uint32_t)(ci->n_files - 1);
			}
			if (dwarf_lineno(l, &n) == 0)
				r.line = n;
			if (dwarf_linecol(l, &n) == 0)
				r.col = n;
			unsigned discr;
			if (dwarf_linediscriminator(l, &discr) == 0 && discr <= 0xffffff)
				r.discr = discr;
			ci->lines[k++] = r;
		}
		ci->n_lines = k;
	}
	sp_u64map_free(&ids);
}


/* Links every node to its children: the ranges sorted, each parent's
 * children are one run of them. */
static void link_children(sp_fn_tree *t)
{
	sort_ranges(t->ranges, t->n_ranges);
	for (size_t i = 0; i < t->n_ranges;) {
		size_t j = i;
		while (j < t->n_ranges && t->ranges[j].parent == t->ranges[i].parent)
			j++;
		sp_fn_node *p = &t->nodes[t->ranges[i].parent];
		p->child_first = (uint32_t)i;
		p->child_n = (uint32_t)(j - i);
		i = j;
	}
	for (size_t i = 0; i < t->n_ranges; i++) {
		const sp_fn_node *n = &t->nodes[t->ranges[i].node];
		t->ranges[i].child_first = n->child_first;
		t->ranges[i].child_n = n->child_n;
	}
}

/* Keeps E (consumed) as the first failure, counting those of split units
 * (LOG: every place one was looked for, NULL for the package); LOG goes to
 * the module's log with the first. */
static void split_failed(sp_units *u, sp_error *e, const sp_find_log *log)
{
	if (log)
		u->n_split_errs++;
	if (!u->split_refused && sp_error_root_code(e) == SP_E_LIMIT)
		u->split_refused = sp_error_dup(e);
	if (u->split_err) {
		sp_error_free(e);
		return;
	}
	/* where the first missing one was looked for, as for debug files; a
	 * thousand found .dwo files are not listed */
	if (log)
		sp_find_log_append(&u->m->log, log);
	u->split_err = e;
}

/* Z, the section NAME, could not be inflated as far as a unit needs: the
 * reason, kept as the first failure (the units it holds are not read). */
static void inflate_failed(sp_units *u, const sp_lazy *z, const char *name)
{
	const sp_module *m = u->m;
	split_failed(u,
		     sp_error_new(SP_E_MALFORMED,
				  "%s: section %s: corrupt zlib data: %s (%zu bytes inflated)",
				  m->debug_path ? m->debug_path : m->path, name, sp_lazy_error(z),
				  sp_lazy_valid(z)),
		     NULL);
}

/* The split unit of the skeleton CI, from the file's package or its .dwo:
 * function DIEs and call files from there (the line rows stay the
 * skeleton's; so do the file numbers of a split unit without a line table
 * of its own, as Clang writes it).  Failures are kept for the report. */
static void load_split(sp_units *u, sp_cu *ci)
{
	sp_split *s = NULL;
	sp_find_log log = {0};
	if (!u->dwp_tried) {
		u->dwp_tried = true;
		sp_error *e = sp_dwp_open(u->m, &u->dwp);
		if (e)
			split_failed(u, e, NULL);
	}
	sp_error *e = sp_split_open(u->m, u->dwp, &log, &ci->die, &s);
	if (e)
		split_failed(u, e, &log);
	sp_find_log_clear(&log);
	if (!s)
		return;
	ci->split = s;
	ci->dw = s->dw;
	ci->key = (uint64_t)++u->n_splits << 40;
	Dwarf_Files *files;
	size_t nf;
	if (dwarf_getsrcfiles(&s->die, &files, &nf) != 0)
		return;
	ci->call_fnames = sp_xreallocarray(NULL, nf ? nf : 1, sizeof(*ci->call_fnames));
	for (size_t i = 0; i < nf; i++)
		ci->call_fnames[i] = abs_file(u, ci, dwarf_filesrc(files, i, NULL, NULL));
	ci->n_call_files = nf;
}

/* The unit's line program in .debug_line, inflated when it is inflated
 * as it is read: its header's length, then all of it. */
static void need_line_unit(sp_units *u, sp_cu *ci)
{
	sp_lazy *z = u->m->zline;
	Dwarf_Attribute a;
	Dwarf_Word off;
	if (!z || !dwarf_attr(&ci->die, DW_AT_stmt_list, &a) || dwarf_formudata(&a, &off) != 0)
		return;
	size_t size = sp_lazy_size(z);
	bool ok;
	if (off >= size || size - off < 12 || !sp_lazy_need(z, off + 12)) {
		ok = sp_lazy_need(z, size);
	} else {
		const unsigned char *p = (const unsigned char *)sp_lazy_data(z) + off;
		uint64_t len = sp_read_le(p, 4), hdr = 4;
		if (len == 0xffffffff) {
			len = sp_read_le(p + 4, 8);
			hdr = 12;
		}
		ok = sp_lazy_need(z, len > size ? size : off + hdr + len);
	}
	if (!ok)
		inflate_failed(u, z, ".debug_line");
}

/* Drops the ranges of T that start below BOUND: discarded code (see
 * module.c, low_bound), whose functions must not hide the code that is
 * there. */
static void drop_discarded(sp_fn_tree *t, uint64_t bound)
{
	size_t k = 0;
	while (k < t->n_ranges && t->ranges[k].lo >= bound)
		k++;
	for (size_t i = k; i < t->n_ranges; i++)
		if (t->ranges[i].lo >= bound)
			t->ranges[k++] = t->ranges[i];
	t->n_ranges = k;
}

/* Whether LANG's names are the symbols' (binutils' list of languages that
 * do not mangle, bfd/dwarf2.c): a function's DW_AT_name is then its
 * linkage name. */
static bool plain_names(int lang)
{
	switch (lang) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_Ada83:
	case DW_LANG_Cobol74:
	case DW_LANG_Cobol85:
	case DW_LANG_Fortran77:
	case DW_LANG_Pascal83:
	case DW_LANG_C99:
	case DW_LANG_Ada95:
	case DW_LANG_PLI:
	case DW_LANG_UPC:
	case DW_LANG_C11:
	case DW_LANG_Mips_Assembler:
		return true;
	default:
		return false;
	}
}

static void load_cu(sp_units *u, sp_cu *ci)
{
	ci->loaded = true;
	/* Go's tools print a Go unit's relative names (-trimpath) as they
	 * are, not under its DW_AT_comp_dir "." */
	int lang = dwarf_srclang(&ci->die);
	ci->go = lang == DW_LANG_Go;
	need_line_unit(u, ci);
	if (!own_lines(u, ci))
		libdw_lines(u, ci);
	if (sp_split_is_skeleton(&ci->die))
		load_split(u, ci);
	if (lang < 0 && ci->split) /* a skeleton: the split unit says */
		lang = dwarf_srclang(&ci->split->die);
	ci->plain_names = plain_names(lang);
	if (!ci->call_fnames) { /* no split unit, or one without a file table */
		ci->call_fnames = ci->fnames;
		ci->n_call_files = ci->n_files;
	}
	size_t i = (size_t)(ci - u->cus);
	if (!sp_units_walk(u, i, true, &ci->fn))
		sp_units_walk(u, i, false, &ci->fn);
	drop_discarded(&ci->fn, u->m->low_bound);
	link_children(&ci->fn);
	sp_buckets_build(&ci->line_index, ci->lines, sizeof(*ci->lines), ci->n_lines);
	if (ci->fn.ranges) /* else a unit whose walk found no function */
		sp_buckets_build(&ci->root_index, ci->fn.ranges + ci->fn.nodes[0].child_first,
			     sizeof(*ci->fn.ranges), ci->fn.nodes[0].child_n);
}

/* Buckets over a sorted table of N entries whose first member is a
 * uint64_t key: entry FIRST[b] is the first whose key is above the start
 * of bucket b, so a search for an address looks only between the bounds
 * of its bucket, not at the log2(N) rows of a whole binary search, each
 * of them a cache miss in a large table. */
void sp_buckets_build(sp_buckets *bi, const void *table, size_t stride, size_t n)
{
#define KEY(i) (*(const uint64_t *)((const char *)table + (i) * stride))
	*bi = (sp_buckets){0};
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
void sp_buckets_bounds(const sp_buckets *bi, size_t n, uint64_t addr, size_t *lo, size_t *hi)
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


/* Of the N ranges from FIRST (the children of one node; of the root when
 * ROOT), the one containing ADDR, or NULL. */
static const sp_fn_range *find_child(const sp_cu *ci, uint32_t first, uint32_t n, bool root,
				  uint64_t addr)
{
	if (!n)
		return NULL;
	const sp_fn_range *r = ci->fn.ranges + first;
	size_t lo = 0, hi = n;
	if (root)
		sp_buckets_bounds(&ci->root_index, hi, addr, &lo, &hi);
#define RANGE_LO(i) r[i].lo
	SP_UPPER_BOUND(lo, hi, RANGE_LO, addr);
#undef RANGE_LO
	/* Siblings do not normally overlap; look back a little in case. */
	for (size_t i = lo, k = 0; i > 0 && k < 8; i--, k++)
		if (addr >= r[i - 1].lo && addr < r[i - 1].hi)
			return &r[i - 1];
	return NULL;
}

size_t sp_cu_chain(const sp_cu *ci, uint64_t addr, uint32_t *chain, size_t max)
{
	size_t depth = 0;
	uint32_t first = ci->fn.nodes[0].child_first, nc = ci->fn.nodes[0].child_n;
	const sp_fn_range *hit;
	while (depth < max && (hit = find_child(ci, first, nc, depth == 0, addr)) != NULL) {
		chain[depth++] = hit->node;
		first = hit->child_first;
		nc = hit->child_n;
	}
	return depth;
}

const sp_line_row *sp_cu_line(const sp_cu *ci, uint64_t addr)
{
	size_t lo, hi;
	sp_buckets_bounds(&ci->line_index, ci->n_lines, addr, &lo, &hi);
#define LINE_ADDR(i) ci->lines[i].addr
	SP_UPPER_BOUND(lo, hi, LINE_ADDR, addr);
#undef LINE_ADDR
	if (lo == 0 || ci->lines[lo - 1].end_seq)
		return NULL;
	return &ci->lines[lo - 1];
}

/* The unit of the index whose ranges hold ADDR, or NULL. */
static sp_cu *indexed_unit(const sp_units *u, uint64_t addr)
{
	size_t lo = 0, hi = u->n_ranges;
#define CU_LO(i) u->ranges[i].lo
	SP_UPPER_BOUND(lo, hi, CU_LO, addr);
#undef CU_LO
	for (size_t i = lo; i > 0 && u->maxend[i - 1] > addr; i--) {
		if (addr < u->ranges[i - 1].hi)
			return &u->cus[u->ranges[i - 1].cu];
	}
	return NULL;
}

/* A partial index tries so many units of .debug_aranges, then reads them
 * all: each one added sorts the index again. */
#define PARTIAL_MAX_UNITS 64

sp_cu *sp_units_find(sp_units *u, uint64_t addr)
{
	sp_cu *ci = indexed_unit(u, addr);
	if (!ci && u->partial) {
		/* The unit .debug_aranges names; the whole index when it names
		 * none, or one whose own ranges do not hold ADDR, so that the
		 * answer is the one the whole index gives. */
		size_t lo = 0, hi = u->n_aranges;
#define ARANGE_LO(i) u->aranges[i].lo
		SP_UPPER_BOUND(lo, hi, ARANGE_LO, addr);
#undef ARANGE_LO
		bool added = lo > 0 && addr < u->aranges[lo - 1].hi &&
			     u->n_cus < PARTIAL_MAX_UNITS &&
			     add_arange_unit(u, u->aranges[lo - 1].off);
		ci = added ? indexed_unit(u, addr) : NULL;
		if (!ci) {
			index_all(u);
			ci = indexed_unit(u, addr);
		}
	}
	if (ci && !ci->loaded)
		load_cu(u, ci);
	return ci;
}

bool sp_units_warm(const sp_units *u, uint64_t addr)
{
	const sp_cu *ci = indexed_unit(u, addr);
	return ci ? ci->loaded : !u->partial;
}

void sp_units_load(sp_units *u, size_t i)
{
	if (!u->cus[i].loaded)
		load_cu(u, &u->cus[i]);
}

void sp_units_unload(sp_units *u, size_t i)
{
	sp_cu *ci = &u->cus[i];
	/* a split unit's names live in its .dwo, which stays open */
	if (!ci->loaded || ci->split)
		return;
	cu_clear(ci);
	sp_cu fresh = {0};
	fresh.die = ci->die;
	fresh.dw = u->dw;
	fresh.start = ci->start;
	fresh.end = ci->end;
	*ci = fresh;
}

void sp_units_clear(sp_units *u)
{
	for (size_t i = 0; i < u->n_cus; i++)
		cu_clear(&u->cus[i]);
	free(u->cus);
	free(u->aranges);
	free(u->ranges);
	free(u->maxend);
	sp_u64map_free(&u->paths);
	for (size_t i = 0; i < u->n_names; i++)
		free(u->names[i]);
	free(u->names);
	sp_error_free(u->split_err);
	sp_error_free(u->split_refused);
	sp_dwp_free(u->dwp);
	*u = (sp_units){0};
}
