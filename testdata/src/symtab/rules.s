# rules.s — symbols of the kinds hand-written assembly, linker scripts and
# start-up code leave, for the symbol-table rules of symbolize/dwarf/symtab.c
# (tests/cli/symbolize_symtab.sh).  Offsets are from the start of .text; the
# comments say which symbol names each address.
	.text
	nop				# 0x0: nothing yet
label_a:				# 0x1-0x2: label_a (no size, untyped)
	nop
	nop
sized_b:				# 0x3-0x6: sized_b, label_in_b hidden inside it
	nop
	nop
label_in_b:
	nop
	nop
	.size sized_b, . - sized_b
	nop				# 0x7-0x8: nothing, sized_b ended after label_in_b
	nop
label_c:				# 0x9-0x7f: label_c up to the next symbol
	nop
	.org 0x80
	.globl outer_g
outer_g:				# 0x80-0x81, 0x84-0x87: outer_g
	nop
	nop
	.globl inner_g
inner_g:				# 0x82-0x83: inner_g, nested
	nop
	nop
	.size inner_g, . - inner_g
inner_l:				# 0x84-0x85: a local nested in a global: outer_g
	nop
	nop
	.size inner_l, . - inner_l
	nop
	nop
	.size outer_g, . - outer_g
	nop				# 0x88-0xff: nothing (outer_g ended past inner_l)
	.org 0x100
	nop
outer_l:				# 0x101-0x102, 0x107-0x108: outer_l
	nop
	nop
	.globl g_in_l
g_in_l:					# 0x103-0x104: a global nested in a local: g_in_l
	nop
	nop
	.size g_in_l, . - g_in_l
l_in_l:					# 0x105-0x106: l_in_l
	nop
	nop
	.size l_in_l, . - l_in_l
	nop
	nop
	.size outer_l, . - outer_l
	nop
	.org 0x180
	.byte 0
b_local: .size b_local, 1		# 0x181: five at one address: the globals of the
	.weak b_weak			# smallest size, the first in the table
b_weak:  .size b_weak, 1
	.globl b_big
b_big:   .size b_big, 2		# 0x182: b_big alone
	.globl b_g1
b_g1:    .size b_g1, 1
	.globl b_g2
b_g2:    .size b_g2, 1
	.byte 1
	.byte 2
	.byte 3
z_local: .size z_local, 0		# 0x184-0x1ff: four labels at one address: the
	.weak z_weak			# last global in the table
z_weak:  .size z_weak, 0
	.globl z_g1
z_g1:    .size z_g1, 0
	.globl z_g2
z_g2:    .size z_g2, 0
	.byte 4
	.byte 5
	.org 0x200
	.type data_obj, @object
data_obj:				# 0x200-0x203: data in .text names its bytes
	.long 1
	.size data_obj, 4
	.globl fn_t
	.type fn_t, @function
fn_t:					# 0x204: fn_t; 0x205 (end of .text): nothing
	ret
	.size fn_t, . - fn_t
