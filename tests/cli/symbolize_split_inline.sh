#!/bin/sh
# symbolize_split_inline.sh — a DWARF 5 split unit whose .dwo sections are in the object
# itself (-gsplit-dwarf=single: no .dwo file), its inlined call's range given by
# DW_FORM_rnglistx as an offset pair from the unit's base address, which is not 0.
# testdata/src/splitinline/splitinline.s, assembled at test time, says what each address
# is: at 0x30 tick() (line 3, column 64) inlined into main (line 5, column 3), at 0x37
# main alone (line 6).  llvm-symbolizer's own test of the case (split-dwarf-base-addr)
# expects the inlined frame; llvm-symbolizer 14 and addr2line 2.40 lose it, and addr2line
# joins the line table's directory "./" with a doubled slash.  File names: the unit's
# compilation directory "." before the DWARF 5 directory 0 "./", as llvm-symbolizer 14
# and addr2line prefix it, without the doubled slash.
. "$(dirname "$0")/../../tests/helpers/cli_lib.sh"

MC=
for t in llvm-mc llvm-mc-14; do command -v "$t" >/dev/null 2>&1 && { MC=$t; break; }; done
if [ -z "$MC" ]; then
	sp_skip "llvm-mc not installed (Debian package llvm)"
	sp_done
	exit
fi
mkdir -p "$tmp/build" "$tmp/elsewhere"
"$MC" --dwarf-version=5 -filetype=obj -triple x86_64-pc-linux \
	"$SP_SRCDIR/testdata/src/splitinline/splitinline.s" -o "$tmp/build/splitinline.o"
sp_ok $? "assembled splitinline.s" || { sp_done; exit; }

# run from another directory: the split unit is found in the object itself
cd "$tmp/elsewhere" || exit 1
sp_run symprof symbolize -f -i -e "$tmp/build/splitinline.o" 0x30 0x37
cat >"$tmp/want" <<'EOF2'
_ZL4tickv
././splitinline.cpp:3
main
././splitinline.cpp:5
main
././splitinline.cpp:6
EOF2
[ "$rc" -eq 0 ] && cmp -s "$tmp/want" "$tmp/out"
sp_ok $? "GNU style: tick inlined into main at 0x30, main at 0x37" || sp_diag "$(cat "$tmp/out" "$tmp/err")"

sp_run symprof symbolize --output-style=LLVM -C -e "$tmp/build/splitinline.o" 0x30
printf 'tick()\n././splitinline.cpp:3:64\nmain\n././splitinline.cpp:5:3\n\n' >"$tmp/want"
cmp -s "$tmp/want" "$tmp/out"
sp_ok $? "LLVM style: with the columns" || sp_diag "$(cat "$tmp/out")"

sp_done
