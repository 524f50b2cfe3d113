/* die.c — the DIE walk of one compile unit over its raw bytes.
 *
 * The walk collects subprograms and inlined subroutines with code into a
 * function tree (dwarfp.h), as units.c's walk over libdw's DIEs does, and
 * gives the same nodes and ranges in the same (pre-)order: a DIE that is
 * not a subprogram or inlined subroutine with code costs an abbreviation
 * look-up and a skip over its attribute bytes, where libdw's sibling step
 * decodes every attribute.  Abbreviations are libdw's.  Pcs (DW_AT_low_pc
 * and DW_AT_high_pc in plain forms), range lists (.debug_ranges and
 * .debug_rnglists without indexed addresses), abstract origins and call
 * attributes in plain forms are read from the bytes; libdw gives the
 * ranges of every other DIE that may have code.  In the split unit of a
 * skeleton (split.c), indexed addresses and range lists are read here
 * too, from the sections and bases split.c gathers: libdw cannot, as it
 * did not open the .dwo for the skeleton itself.
 *
 * Anything this does not know (DW_FORM_indirect, a vendor form, a LEB128
 * longer than cursor.h allows, bytes past the unit) makes it return
 * false: the caller then resets the tree and walks with libdw.  All reads
 * go through one bounds-checked cursor (cursor.h).
 */
#include "symbolize/dwarf/dwarfp.h"
#include "symbolize/dwarf/cursor.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

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
	const sp_split *split; /* a split unit's bases, or NULL */
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

/* Moves C past one attribute value of FORM; false when it does not fit
 * or the form is not known. */
static bool raw_skip_form(const raw_walk *w, unsigned form, sp_cur *c)
{
	int fs = form_fixed_size(w, form);
	if (fs >= 0)
		return sp_cur_skip(c, (size_t)fs);
	switch (form) {
	case DW_FORM_string: return sp_cur_cstr(c) != NULL;
	case DW_FORM_block1: return sp_cur_skip(c, sp_cur_fixed(c, 1)) && !c->bad;
	case DW_FORM_block:
	case DW_FORM_exprloc: return sp_cur_skip(c, sp_cur_uleb(c)) && !c->bad;
	case DW_FORM_block2: /* lengths in the file's byte order: left to libdw */
	case DW_FORM_block4: return false;
	case DW_FORM_sdata: sp_cur_sleb(c); return !c->bad;
	default:
		if (fs != -1)
			return false;
		sp_cur_uleb(c);
		return !c->bad;
	}
}

/* The index in the attribute bytes V of an indexed FORM (DW_FORM_addrx*,
 * DW_FORM_GNU_addr_index, DW_FORM_rnglistx): false for another form. */
static bool raw_index(unsigned form, sp_cur v, uint64_t *idx)
{
	switch (form) {
	case DW_FORM_addrx:
	case DW_FORM_GNU_addr_index:
	case DW_FORM_rnglistx:
		*idx = sp_cur_uleb(&v);
		return !v.bad;
	case DW_FORM_addrx1:
	case DW_FORM_addrx2:
	case DW_FORM_addrx3:
	case DW_FORM_addrx4: *idx = sp_cur_fixed(&v, sp_cur_left(&v)); return true;
	default: return false;
	}
}

/* Entry IDX of the table of N-byte entries at BASE of the section
 * [SEC, SEC + SIZE): false past its end. */
static bool raw_table(const unsigned char *sec, size_t size, uint64_t base, uint64_t idx,
		      unsigned n, uint64_t *out)
{
	if (!sec || n == 0 || base > size || idx >= (size - base) / n)
		return false;
	*out = sp_read_le(sec + base + idx * n, n);
	return true;
}

/* Address IDX of a split unit's .debug_addr table: false outside a split
 * unit (an ordinary unit's indexed addresses are left to libdw) or past
 * the section. */
static bool raw_addrx(const raw_walk *w, uint64_t idx, uint64_t *out)
{
	return w->split && (w->asz == 4 || w->asz == 8) &&
	       raw_table(w->sec->addr, w->sec->addr_size, w->split->addr_base, idx, w->asz, out);
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
	int64_t file, line, col, discr;
} raw_info;

/* The constant in the attribute bytes V of form FORM (attribute I of A):
 * false for a form that is not a plain constant. */
static bool raw_const(const raw_walk *w, const raw_abbrev *a, uint32_t i, unsigned form,
		      sp_cur v, int64_t *out)
{
	switch (form) {
	case DW_FORM_data1:
	case DW_FORM_data2:
	case DW_FORM_data4:
	case DW_FORM_data8: *out = (int64_t)sp_cur_fixed(&v, sp_cur_left(&v)); return true;
	case DW_FORM_udata: *out = (int64_t)sp_cur_uleb(&v); return !v.bad;
	case DW_FORM_implicit_const: *out = w->consts[a->first + i]; return true;
	default: return false;
	}
}

/* DW_AT_high_pc in the attribute bytes V of form FORM: false for a form
 * libdw's dwarf_highpc would not take as an address or offset here. */
static bool raw_high_pc(unsigned form, sp_cur v, uint64_t *high, bool *is_addr)
{
	*is_addr = form == DW_FORM_addr;
	switch (form) {
	case DW_FORM_addr:
	case DW_FORM_data1:
	case DW_FORM_data2:
	case DW_FORM_data4:
	case DW_FORM_data8: *high = sp_cur_fixed(&v, sp_cur_left(&v)); return true;
	case DW_FORM_udata: *high = sp_cur_uleb(&v); return true;
	default: return false;
	}
}

/* DW_AT_abstract_origin in the attribute bytes V of form FORM, for the
 * unit [START, UNIT_END): the DIE offset, false unless a plain reference
 * inside the unit. */
static bool raw_origin(unsigned form, sp_cur v, Dwarf_Off start, Dwarf_Off unit_end,
		       uint64_t *origin)
{
	uint64_t ref = 0;
	bool ok = true;
	switch (form) {
	case DW_FORM_ref1:
	case DW_FORM_ref2:
	case DW_FORM_ref4:
	case DW_FORM_ref8: ref = sp_cur_fixed(&v, sp_cur_left(&v)); break;
	case DW_FORM_ref_udata:
		ref = sp_cur_uleb(&v);
		ok = !v.bad;
		break;
	default: ok = false; break;
	}
	if (ref >= unit_end - start)
		ok = false;
	*origin = start + ref;
	return ok;
}

/* Reads the DIE of abbreviation A whose attributes start at C, in the
 * unit [START, UNIT_END): its range as libdw's dwarf_ranges would give
 * it when it has DW_AT_low_pc as an address and DW_AT_high_pc as an
 * address or a constant offset (anything else, DW_AT_ranges, indexed
 * addresses, only an origin, is left to libdw), and its abstract origin
 * and call attributes as resolver.c's name_node would read them through
 * libdw when they are in plain forms (else name_node asks libdw).  Of an
 * attribute given twice the first counts, as in libdw. */
static void raw_read_die(const raw_walk *w, const raw_abbrev *a, sp_cur c, Dwarf_Off start,
			 Dwarf_Off unit_end, raw_info *ri)
{
	bool have_lo = false, have_hi = false, hi_is_addr = false, attrs_ok = true;
	bool seen_origin = false, seen_file = false, seen_line = false, seen_col = false,
	     seen_discr = false;
	bool seen_ranges = false;
	uint64_t low = 0, high = 0;
	*ri = (raw_info){0};
	for (uint32_t i = 0; i < a->n; i++) {
		unsigned form = w->forms[a->first + i], name = w->names[a->first + i];
		sp_cur v = c; /* the attribute's own bytes, once skipped */
		int fs = w->sizes[a->first + i];
		if (fs >= 0 ? !sp_cur_skip(&c, (size_t)fs) : !raw_skip_form(w, form, &c))
			return;
		v.end = c.p;
		switch (name) {
		case DW_AT_low_pc: {
			uint64_t idx;
			if (have_lo)
				break;
			if (form == DW_FORM_addr)
				low = sp_cur_fixed(&v, w->asz);
			else if (!raw_index(form, v, &idx) || form == DW_FORM_rnglistx ||
				 !raw_addrx(w, idx, &low))
				return;
			have_lo = true;
			break;
		}
		case DW_AT_high_pc:
			if (have_hi)
				break;
			if (!raw_high_pc(form, v, &high, &hi_is_addr))
				return;
			have_hi = true;
			break;
		case DW_AT_abstract_origin:
			if (!seen_origin && !raw_origin(form, v, start, unit_end, &ri->origin))
				attrs_ok = false;
			seen_origin = true;
			break;
		case DW_AT_call_file:
			if (!seen_file && !raw_const(w, a, i, form, v, &ri->file))
				attrs_ok = false;
			seen_file = true;
			break;
		case DW_AT_call_line:
			if (!seen_line && !raw_const(w, a, i, form, v, &ri->line))
				attrs_ok = false;
			seen_line = true;
			break;
		case DW_AT_call_column:
			if (!seen_col && !raw_const(w, a, i, form, v, &ri->col))
				attrs_ok = false;
			seen_col = true;
			break;
		case DW_AT_GNU_discriminator:
			if (!seen_discr && !raw_const(w, a, i, form, v, &ri->discr))
				attrs_ok = false;
			seen_discr = true;
			break;
		case DW_AT_ranges:
			if (seen_ranges)
				break;
			seen_ranges = true;
			if (form == DW_FORM_sec_offset ||
			    (w->version < 4 && (form == DW_FORM_data4 || form == DW_FORM_data8))) {
				ri->ranges_off = sp_cur_fixed(&v, sp_cur_left(&v));
				/* a DWARF 4 split unit's lists are the binary's */
				if (w->split && w->version < 5)
					ri->ranges_off += w->split->ranges_base;
				ri->ranges = true;
			} else if (form == DW_FORM_rnglistx && w->split) {
				uint64_t idx, rel, base = w->split->rnglists_base;
				if (raw_index(form, v, &idx) &&
				    raw_table(w->sec->rnglists, w->sec->rnglists_size, base, idx,
					      w->osz, &rel) &&
				    rel <= UINT64_MAX - base) {
					ri->ranges_off = base + rel;
					ri->ranges = true;
				}
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

/* One entry of a DWARF 5 range list at C into [*B, *E), with *BASE the
 * current base address: 1 for a range, 0 for a base-address entry, -1 at
 * the end of the list, -2 for anything left to libdw (indexed addresses
 * outside a split unit, unknown entries, bytes past the section). */
static int raw_rle(const raw_walk *w, sp_cur *c, uint64_t *base, uint64_t *b, uint64_t *e)
{
	unsigned asz = w->asz;
	unsigned code = (unsigned)sp_cur_fixed(c, 1);
	if (c->bad)
		return -2;
	switch (code) {
	case DW_RLE_base_addressx:
		return raw_addrx(w, sp_cur_uleb(c), base) && !c->bad ? 0 : -2;
	case DW_RLE_startx_endx:
		if (!raw_addrx(w, sp_cur_uleb(c), b) || !raw_addrx(w, sp_cur_uleb(c), e))
			return -2;
		break;
	case DW_RLE_startx_length:
		if (!raw_addrx(w, sp_cur_uleb(c), b))
			return -2;
		*e = sp_cur_uleb(c) + *b;
		break;
	case DW_RLE_end_of_list: return -1;
	case DW_RLE_offset_pair:
		*b = sp_cur_uleb(c) + *base;
		*e = sp_cur_uleb(c) + *base;
		break;
	case DW_RLE_base_address:
		*base = sp_cur_fixed(c, asz);
		return c->bad ? -2 : 0;
	case DW_RLE_start_end:
		*b = sp_cur_fixed(c, asz);
		*e = sp_cur_fixed(c, asz);
		break;
	case DW_RLE_start_length:
		*b = sp_cur_fixed(c, asz);
		*e = sp_cur_uleb(c) + *b;
		break;
	default: return -2;
	}
	return c->bad ? -2 : 1;
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
	sp_cur c = {sec + off, sec + size, false};
	uint64_t escape = asz == 8 ? UINT64_MAX : UINT32_MAX;
	for (;;) {
		uint64_t b = 0, e = 0;
		if (lists) {
			int k = raw_rle(w, &c, &base, &b, &e);
			if (k == -1)
				return true;
			if (k == -2)
				break;
			if (k == 0)
				continue;
		} else {
			b = sp_cur_fixed(&c, asz);
			e = sp_cur_fixed(&c, asz);
			if (c.bad)
				break;
			if (b == escape) {
				if (e == escape)
					break;
				base = e;
				continue;
			}
			if (b == 0 && e == 0)
				return true;
			b += base;
			e += base;
		}
		raw_range r = {b, e};
		SP_PUSH(*out, *n, *cap, r);
	}
	*n = n0;
	return false;
}

/* Sets N's origin and call attributes from RI, when it has them. */
static void raw_node_attrs(const raw_abbrev *a, const raw_info *ri, sp_fn_node *n)
{
	if (!ri->attrs)
		return;
	n->from_raw = true;
	n->inlined = a->tag == DW_TAG_inlined_subroutine;
	n->origin = ri->origin;
	n->call_file_idx = ri->file >= 0 && ri->file <= INT32_MAX ? (int32_t)ri->file : -1;
	n->call_line = ri->line;
	n->call_col = sp_small(ri->col);
	n->call_discr = ri->discr > 0 && ri->discr <= 0xffffff ? (uint32_t)ri->discr : 0;
}

/* Adds the subprogram or inlined subroutine at OFF (abbreviation A, its
 * attributes at ATTRS) under PARENT to T, when it has code: returns its
 * node, 0 when it has none. */
static uint32_t raw_function(Dwarf *dw, const sp_cu *ci, raw_walk *w, const raw_abbrev *a,
			     sp_cur attrs, Dwarf_Off off, uint32_t parent, sp_fn_tree *t)
{
	uint32_t node = 0;
	uint32_t up = a->tag == DW_TAG_subprogram ? 0 : parent;
	Dwarf_Die die;
	raw_info ri = {0};
	if (a->pc && w->direct_pc)
		raw_read_die(w, a, attrs, ci->start, ci->end, &ri);
	if (ri.pc) {
		if (ri.lo < ri.hi) {
			node = sp_fn_add_node(t, off, up);
			sp_fn_add_range(t, ri.lo, ri.hi, up, node);
		}
	} else if (ri.nopc) {
		/* libdw would find no range either */
	} else if (ri.ranges && w->base_ok &&
		   (w->n_rr = 0,
		    raw_ranges(w, ri.ranges_off, w->base, &w->rr, &w->n_rr, &w->cap_rr))) {
		for (size_t k = 0; k < w->n_rr; k++) {
			if (w->rr[k].lo >= w->rr[k].hi)
				continue;
			if (!node)
				node = sp_fn_add_node(t, off, up);
			sp_fn_add_range(t, w->rr[k].lo, w->rr[k].hi, up, node);
		}
	} else if (a->pc && dwarf_offdie(dw, off, &die)) {
		sp_fn_add_die_ranges(t, &die, up, &node);
	}
	if (node)
		raw_node_attrs(a, &ri, &t->nodes[node]);
	return node;
}

#define RAW_DEAD UINT32_MAX
#define RAW_MAX_LEVEL 201 /* units.c's walk stops below this nesting level */

/* The walk of CI's DIEs: CTX[level] is the node that functions found at
 * that nesting level hang on (RAW_DEAD below a DIE whose children are not
 * collected), as units.c's walk passes its PARENT down. */
static bool raw_walk_cu(Dwarf *dw, sp_cu *ci, raw_walk *w, sp_fn_tree *t)
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
	const unsigned char *start = cudie->addr;
	sp_cur c = {start, start + (ci->end - base), false};
	uint32_t ctx[RAW_MAX_LEVEL + 2];
	size_t level = 0;
	for (;;) {
		Dwarf_Off off = base + (Dwarf_Off)(c.p - start);
		if (c.p >= c.end)
			return level != 0; /* unterminated: as libdw */
		uint64_t code = sp_cur_uleb(&c);
		if (c.bad)
			return false;
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
		sp_cur attrs = c;
		if (a->fixed >= 0) {
			if (!sp_cur_skip(&c, (size_t)a->fixed))
				return false;
		} else {
			for (uint32_t i = 0; i < a->n; i++) {
				int fs = w->sizes[a->first + i];
				if (fs >= 0 ? !sp_cur_skip(&c, (size_t)fs)
					    : !raw_skip_form(w, w->forms[a->first + i], &c))
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
				uint32_t node = raw_function(dw, ci, w, a, attrs, off, parent, t);
				if (node)
					child_ctx = node;
			} else if (!sp_fn_skip_children(a->tag)) {
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

bool sp_unit_base(Dwarf_Die *cudie, uint64_t *base)
{
	Dwarf_Addr b;
	Dwarf_Attribute am;
	if (dwarf_lowpc(cudie, &b) != 0 &&
	    dwarf_formaddr(dwarf_attr(cudie, DW_AT_entry_pc, &am), &b) != 0)
		b = 0;
	*base = b;
	return b != (Dwarf_Addr)-1;
}

bool sp_die_walk(Dwarf *dw, sp_cu *cu, const sp_line_sections *sec, bool direct_pc,
		   sp_fn_tree *t)
{
	raw_walk w = {.direct_pc = direct_pc, .sec = sec};
	sp_cu view;
	if (cu->split) {
		/* the split unit's DIEs, sections and the skeleton's bases */
		const sp_split *s = cu->split;
		view = *cu;
		view.die = s->die;
		view.start = s->start;
		view.end = s->end;
		cu = &view;
		dw = s->dw;
		w.sec = &s->sec;
		w.split = s;
		w.base = s->base;
		w.base_ok = s->base_ok;
	} else if (w.direct_pc) {
		w.base_ok = sp_unit_base(&cu->die, &w.base);
	}
	bool ok = raw_walk_cu(dw, cu, &w, t);
	free(w.ab);
	free(w.forms);
	free(w.names);
	free(w.consts);
	free(w.sizes);
	free(w.rr);
	return ok;
}
