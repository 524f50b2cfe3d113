#!/bin/sh
# symbolize_symtab.sh — the symbol-table rules (symbolize/dwarf/symtab.c) on an object
# assembled at test time from testdata/src/symtab/rules.s, without DWARF: untyped labels
# without size, nested symbols, bindings at one address, data in code.  The expected names
# are those rules.s says per address; eu-addr2line, which implements the same rules
# (libdwfl's dwfl_module_addrsym), must agree on the relocatable object and on an
# executable linked from it, but where the rules written in symtab.c choose otherwise
# (a local label against global ones at one address, past that address: elfutils takes
# the local one because it looks at locals last).
. "$(dirname "$0")/../../tests/helpers/cli_lib.sh"

src=$SP_SRCDIR/testdata/src/symtab/rules.s
gcc -c "$src" -o "$tmp/rules.o" &&
	gcc -nostdlib -static -Wl,-e,0 -Wl,--build-id=none -Wl,--section-start=.text=0x401000 \
		"$src" -o "$tmp/rules.exe"
sp_ok $? "assembled rules.s into an object and an executable" || { sp_done; exit; }

# address (offset in .text) and the name rules.s gives it
cat >"$tmp/want" <<'EOF'
0x0 ??
0x1 label_a
0x2 label_a
0x3 sized_b
0x5 sized_b
0x6 sized_b
0x7 ??
0x8 ??
0x9 label_c
0x40 label_c
0x7f label_c
0x80 outer_g
0x81 outer_g
0x82 inner_g
0x83 inner_g
0x84 outer_g
0x85 outer_g
0x87 outer_g
0x88 ??
0xff ??
0x100 ??
0x101 outer_l
0x102 outer_l
0x103 g_in_l
0x104 g_in_l
0x105 l_in_l
0x106 l_in_l
0x107 outer_l
0x108 outer_l
0x109 ??
0x181 b_g1
0x182 b_big
0x184 z_g2
0x185 z_g2
0x1ff z_g2
0x200 data_obj
0x203 data_obj
0x204 fn_t
0x205 ??
EOF
cut -d' ' -f1 "$tmp/want" >"$tmp/addrs"

# symprof -f: the function line of every address
names()
{
	sed -n 'p;n' "$1" >"$1.names"
}

sp_run symprof symbolize -f -e "$tmp/rules.o" $(cat "$tmp/addrs")
names "$tmp/out"
paste -d' ' "$tmp/addrs" "$tmp/out.names" >"$tmp/got"
diff "$tmp/want" "$tmp/got" >"$tmp/diff"
sp_ok $? "relocatable object: every address named as rules.s says" || sp_diag "$(cat "$tmp/diff")"

# against eu-addr2line, where symtab.c's rules are elfutils'
deviate="0x185|0x1ff"
if command -v eu-addr2line >/dev/null 2>&1; then
	for obj in rules.o rules.exe; do
		base=0
		[ "$obj" = rules.exe ] && base=0x401000
		: >"$tmp/a.$obj"
		while read -r a; do
			printf '0x%x\n' $((a + base)) >>"$tmp/a.$obj"
		done <"$tmp/addrs"
		eu-addr2line -f -e "$tmp/$obj" $(cat "$tmp/a.$obj") >"$tmp/eu" 2>/dev/null
		names "$tmp/eu"
		sp_run symprof symbolize -f -e "$tmp/$obj" $(cat "$tmp/a.$obj")
		names "$tmp/out"
		paste -d' ' "$tmp/addrs" "$tmp/eu.names" | grep -Ev "^($deviate) " >"$tmp/eu.cmp"
		paste -d' ' "$tmp/addrs" "$tmp/out.names" | grep -Ev "^($deviate) " >"$tmp/sp.cmp"
		diff "$tmp/eu.cmp" "$tmp/sp.cmp" >"$tmp/diff"
		sp_ok $? "$obj: the names eu-addr2line gives, at every address but past z_local" ||
			sp_diag "$(cat "$tmp/diff")"
	done
	# the one deliberate difference: eu-addr2line names z_local there
	eu-addr2line -f -e "$tmp/rules.o" 0x185 >"$tmp/eu" 2>/dev/null
	[ "$(head -n 1 "$tmp/eu")" = z_local ]
	sp_ok $? "eu-addr2line names 0x185 after a local label, symprof after the global ones"
else
	sp_skip "eu-addr2line not installed"
fi

sp_done
