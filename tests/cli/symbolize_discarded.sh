#!/bin/sh
# symbolize_discarded.sh — a function whose unit has no line table is named from its DIE
# (no line: addr2line's "??:?", llvm-symbolizer's "??:0:0"), and code the linker
# discarded, whose debug information says it sits at address 0 (or at a small addend)
# over the code that is there, does not hide it.
#
# testdata/src/discarded/discarded.yaml, made into objects with yaml2obj at test time
# (no program headers, as assemblers' and yaml2obj's linked objects have none), in the
# variants llvm-symbolizer's own test of the rule (discarded-code-range) checks: an
# executable, a shared object, a discarded range at 0 + an addend, 32-bit, without
# .debug_aranges, DWARF 5 ranges through .debug_addr, and a debug-only file
# (objcopy --only-keep-debug).  kept_fn holds 0x1004 in all of them, and nothing holds
# 0x1800, inside the discarded range only.  Where 0 is a real address (.text or .bss
# there, or no allocated section to tell), the range at 0 is code: 0x4 is dropped_fn,
# as llvm-symbolizer says.
. "$(dirname "$0")/../../tests/helpers/cli_lib.sh"

yaml=$SP_SRCDIR/testdata/src/discarded/discarded.yaml
Y2O=
for t in yaml2obj yaml2obj-14; do command -v "$t" >/dev/null 2>&1 && { Y2O=$t; break; }; done
if [ -z "$Y2O" ]; then
	sp_skip "yaml2obj not installed (Debian package llvm)"
	sp_done
	exit
fi
SYMB=
for t in llvm-symbolizer llvm-symbolizer-14; do command -v "$t" >/dev/null 2>&1 && { SYMB=$t; break; }; done

# NAME: yaml2obj options
while read -r name opts; do
	# shellcheck disable=SC2086 # one word per option
	"$Y2O" $opts "$yaml" -o "$tmp/$name" || sp_bail "yaml2obj $opts"
done <<'EOF'
exec
dyn -DTYPE=ET_DYN
addend -DLOW=4
elf32 -DCLASS=ELFCLASS32 -DMACHINE=EM_386 -DASZ=4 -DCU2=0x33
rnglists --docnum=2
text0 -DTEXT=0
bss0 -DBSS=4
noalloc -DFLAGS=
empty -DSIZE=0
EOF
objcopy --remove-section=.debug_aranges "$tmp/exec" "$tmp/noaranges" &&
	objcopy --only-keep-debug "$tmp/exec" "$tmp/debugonly"
sp_ok $? "made the objects" || { sp_done; exit; }

for v in exec dyn addend elf32 noaranges rnglists debugonly; do
	sp_run symprof symbolize -f -e "$tmp/$v" 0x1004 0x1800
	printf 'kept_fn\n??:?\n??\n??:0\n' >"$tmp/want"
	[ "$rc" -eq 0 ] && cmp -s "$tmp/want" "$tmp/out"
	sp_ok $? "$v: kept_fn at 0x1004 (no line: ??:? as addr2line writes it), nothing at 0x1800" ||
		sp_diag "$(cat "$tmp/out" "$tmp/err")"
	sp_run symprof symbolize --output-style=LLVM -e "$tmp/$v" 0x1004
	printf 'kept_fn\n??:0:0\n\n' >"$tmp/want"
	cmp -s "$tmp/want" "$tmp/out"
	sp_ok $? "$v: the same in LLVM style" || sp_diag "$(cat "$tmp/out")"
done

for v in text0 bss0 noalloc empty; do
	sp_run symprof symbolize --output-style=LLVM -e "$tmp/$v" 0x4
	printf 'dropped_fn\n??:0:0\n\n' >"$tmp/want"
	cmp -s "$tmp/want" "$tmp/out"
	sp_ok $? "$v: address 0 is code here, 0x4 is dropped_fn" || sp_diag "$(cat "$tmp/out")"
	if [ -n "$SYMB" ]; then
		"$SYMB" --obj="$tmp/$v" 0x4 >"$tmp/llvm" 2>&1
		cmp -s "$tmp/llvm" "$tmp/out"
		sp_ok $? "$v: as $SYMB says" || sp_diag "$(cat "$tmp/llvm")"
	fi
done

sp_done
