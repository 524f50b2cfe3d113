/* functree.c — a compile unit's function tree: the subprograms and inlined
 * subroutines that have code, as nodes with their ranges, built by the DIE
 * walks of die.c (raw) and units.c (libdw's) and searched by units.c.  Nodes
 * and ranges are appended in the walk's order (sp_fn_add_node and
 * sp_fn_add_range in dwarfp.h); this file holds what both walks share.
 */
#include "symbolize/dwarf/dwarfp.h"

#include <dwarf.h>
#include <stdlib.h>

void sp_fn_add_die_ranges(sp_fn_tree *t, Dwarf_Die *die, uint32_t parent, uint32_t *node)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t it = 0;
	while ((it = dwarf_ranges(die, it, &base, &lo, &hi)) > 0) {
		if (lo >= hi)
			continue;
		if (!*node)
			*node = sp_fn_add_node(t, dwarf_dieoffset(die), parent);
		sp_fn_add_range(t, lo, hi, parent, *node);
	}
}

void sp_fn_tree_clear(sp_fn_tree *t)
{
	free(t->nodes);
	free(t->ranges);
	*t = (sp_fn_tree){0};
}

bool sp_fn_skip_children(int tag)
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
