#!/bin/sh
# symbolize_gnu.sh — the output forms of `symprof symbolize` byte for byte as the tools
# whose flags they take write them, and the inputs and flags those tools' own tests use:
#   - --output-style=GNU (the default) as addr2line 2.40, flag set by flag set: no function
#     line without -f, the innermost frame alone without -i, " (discriminator N)", "??:?"
#     for a function without a line, -a with as many digits as the ELF class has
#     (0x08049000 in a 32-bit file), -p's " (inlined by) ", binutils' names;
#   - --output-style=LLVM as llvm-symbolizer 14: demangled unless --no-demangle, every
#     frame unless --no-inlines, columns;
#   - symbol names as input (NAME, NAME+OFF, NAME-OFF, as eu-addr2line reads them), an
#     unknown name said on stderr;
#   - -S and -x (eu-addr2line's SYMBOL+0xOFF and its section), --section=NAME (offsets in
#     a section, addr2line's -j).
# The fixture, testdata/src/gnuform/gnuform.c (no libc), is built 64-bit with gcc and
# 32-bit with clang -m32 -gdwarf-4 and ld, at every instruction of its functions.
# addr2line names the first address it is asked of a function without a linkage name
# after the symbol holding it, and every later one after the function: it is asked the
# list twice and its second answers are compared.
. "$(dirname "$0")/../../tests/helpers/cli_lib.sh"

src=$SP_SRCDIR/testdata/src/gnuform/gnuform.c
gcc -O2 -g -ffreestanding -nostdlib -static -Wl,-e,entry -Wl,--build-id=none -o "$tmp/g64" "$src"
sp_ok $? "built the 64-bit fixture" || { sp_done; exit; }
bins=g64
if clang -m32 -O2 -g -gdwarf-4 -c -o "$tmp/g32.o" "$src" 2>/dev/null &&
	ld -m elf_i386 -e entry -o "$tmp/g32" "$tmp/g32.o" 2>/dev/null; then
	bins="g64 g32"
else
	sp_skip "no 32-bit build (clang -m32, ld -m elf_i386)"
fi

# insns BIN: the address of every instruction inside a function's symbol (the padding
# between functions is left out: binutils names it after the function before it, the
# symbol's size notwithstanding, where elfutils, LLVM and symprof name nothing)
insns()
{
	{ nm -S "$1" | awk 'NF == 4 && $3 ~ /^[tT]$/ { print "F", $1, $2 }'
	  objdump -d --no-show-raw-insn "$1" | awk '/^ +[0-9a-f]+:/ { sub(":", "", $1); print "I", $1 }'
	} | awk 'function hex(h,  i, v) {
			for (i = 1; i <= length(h); i++)
				v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
			return v
		}
		BEGIN { n = 0 }
		$1 == "F" { lo[n] = hex($2); hi[n] = hex($2) + hex($3); n++; next }
		{ a = hex($2); for (k = 0; k < n; k++) if (a >= lo[k] && a < hi[k]) { print "0x" $2; break } }'
}

# gnu BIN FLAGS...: addr2line's second answers and symprof's, the same bytes
gnu()
{
	b=$1
	shift
	cat "$tmp/$b.addrs" "$tmp/$b.addrs" | addr2line "$@" -e "$tmp/$b" >"$tmp/a2l" 2>/dev/null
	sp_run symprof symbolize "$@" -e "$tmp/$b" <"$tmp/$b.addrs"
	tail -n "$(wc -l <"$tmp/out")" "$tmp/a2l" >"$tmp/a2l.2"
	[ "$rc" -eq 0 ] && [ -s "$tmp/out" ] && cmp -s "$tmp/a2l.2" "$tmp/out"
	sp_ok $? "$b: GNU $*: addr2line's bytes at every instruction" ||
		sp_diag "$(diff "$tmp/a2l.2" "$tmp/out" | head -n 12)"
}

for b in $bins; do
	insns "$tmp/$b" >"$tmp/$b.addrs"
	[ "$(wc -l <"$tmp/$b.addrs")" -gt 50 ] || sp_bail "too few instructions in $b"
	gnu "$b"
	gnu "$b" -a
	gnu "$b" -f
	gnu "$b" -i
	gnu "$b" -a -f -i
	gnu "$b" -a -f -i -C
	gnu "$b" -a -f -i -p -C
	gnu "$b" -p -i
	gnu "$b" -a -s -f -i -p
done
if [ -f "$tmp/g32" ]; then
	sp_run symprof symbolize -a -e "$tmp/g32" 0x8049000
	[ "$(head -n 1 "$tmp/out")" = 0x08049000 ]
	sp_ok $? "-a in a 32-bit file: 8 digits" || sp_diag "$(cat "$tmp/out")"
fi
addr2line -e "$tmp/g64" <"$tmp/g64.addrs" | grep -q ' (discriminator [0-9]*)$'
sp_ok $? "the 64-bit fixture has lines with discriminators"

# LLVM style against llvm-symbolizer
LLVMSYM=
for t in llvm-symbolizer llvm-symbolizer-14; do command -v "$t" >/dev/null 2>&1 && { LLVMSYM=$t; break; }; done
if [ -n "$LLVMSYM" ]; then
	for b in $bins; do
		for f in "" -a --no-inlines -p -s --no-demangle; do
			# shellcheck disable=SC2086 # one word or none
			"$LLVMSYM" $f --obj="$tmp/$b" <"$tmp/$b.addrs" >"$tmp/llvm"
			# shellcheck disable=SC2086 # one word or none
			sp_run symprof symbolize --output-style=LLVM $f -e "$tmp/$b" <"$tmp/$b.addrs"
			cmp -s "$tmp/llvm" "$tmp/out"
			sp_ok $? "$b: LLVM ${f:-(defaults)}: llvm-symbolizer's bytes at every instruction" ||
				sp_diag "$(diff "$tmp/llvm" "$tmp/out" | head -n 12)"
		done
	done
else
	sp_skip "llvm-symbolizer not installed"
fi

# names as input, as eu-addr2line takes them: the same address, the same answer
val()
{
	nm "$tmp/g64" | awk -v s="$1" '$3 == s { print "0x" $1 }'
}
o=$(val outer) h=$(val helper)
sp_run symprof symbolize -a -f -i -e "$tmp/g64" outer outer+0x4 helper+2 helper-0 entry+010
n_out=$rc
cp "$tmp/out" "$tmp/names"
sp_run symprof symbolize -a -f -i -e "$tmp/g64" "$o" "$(printf '0x%x' $((o + 4)))" \
	"$(printf '0x%x' $((h + 2)))" "$h" "$(printf '0x%x' $(($(val entry) + 8)))"
[ "$n_out" -eq 0 ] && cmp -s "$tmp/names" "$tmp/out"
sp_ok $? "NAME, NAME+0xOFF, NAME+OFF, NAME-0, NAME+0OCTAL: the answers of their addresses" ||
	sp_diag "$(diff "$tmp/out" "$tmp/names")"
if command -v eu-addr2line >/dev/null 2>&1; then
	eu-addr2line -a -e "$tmp/g64" outer outer+0x4 helper+2 helper-0 entry+010 2>/dev/null |
		grep '^0x' >"$tmp/eu"
	grep '^0x' "$tmp/names" | cmp -s "$tmp/eu" -
	sp_ok $? "names: the addresses eu-addr2line reads them as" || sp_diag "$(cat "$tmp/eu")"
fi
sp_run symprof symbolize -f -e "$tmp/g64" no_such_function outer+0x1000
printf '??\n??:0\n??\n??:0\n' | cmp -s - "$tmp/out" &&
	grep -Fq "cannot find symbol 'no_such_function'" "$tmp/err" &&
	grep -Fq "lies outside" "$tmp/err"
sp_ok $? "an unknown name and an offset past a symbol: ?? and a line on stderr each" ||
	sp_diag "$(cat "$tmp/out" "$tmp/err")"

# -S and -x against eu-addr2line on the symbol-table fixture (no DWARF)
gcc -c "$SP_SRCDIR/testdata/src/symtab/rules.s" -o "$tmp/rules.o"
seq 0 519 | awk '{ printf "0x%x\n", $1 }' >"$tmp/r.addrs"
if command -v eu-addr2line >/dev/null 2>&1; then
	for f in -S -x; do
		eu-addr2line -a "$f" -e "$tmp/rules.o" <"$tmp/r.addrs" | sed -n '2~3p' >"$tmp/eu"
		sp_run symprof symbolize -a "$f" -e "$tmp/rules.o" <"$tmp/r.addrs"
		sed -n '2~3p' "$tmp/out" >"$tmp/ours"
		# symtab.c's one rule of its own: past z_local (0x185-0x1ff) global labels name
		paste -d'|' "$tmp/eu" "$tmp/ours" | awk -F'|' 'NR < 390 || NR > 512' |
			awk -F'|' '$1 != $2' >"$tmp/bad"
		[ -s "$tmp/ours" ] && [ ! -s "$tmp/bad" ]
		sp_ok $? "$f: eu-addr2line's SYMBOL+0xOFF lines at every byte" ||
			sp_diag "$(head -n 5 "$tmp/bad")"
	done
fi
sp_run symprof symbolize -S -e "$tmp/rules.o" 0x82 0x204 0x0
printf 'inner_g\n??:?\nfn_t\n??:?\n(.text)+0\n??:0\n' | cmp -s - "$tmp/out"
sp_ok $? "-S: SYMBOL, and (SECTION)+OFF where no symbol names the address" ||
	sp_diag "$(cat "$tmp/out")"

# --section: offsets in a section, as addr2line -j (which echoes the offset with -a)
t=$(readelf -SW "$tmp/g64" | awk '$2 == ".text" { print "0x" $4 }')
while read -r a; do printf '0x%x\n' $((a - t)); done <"$tmp/g64.addrs" >"$tmp/off"
cat "$tmp/off" "$tmp/off" | addr2line -j .text -a -f -i -e "$tmp/g64" >"$tmp/a2l"
sp_run symprof symbolize --section=.text -a -f -i -e "$tmp/g64" <"$tmp/off"
tail -n "$(wc -l <"$tmp/out")" "$tmp/a2l" | cmp -s - "$tmp/out"
sp_ok $? "--section=.text: addr2line -j .text's bytes" || sp_diag "$(head -n 6 "$tmp/out")"
sp_run symprof symbolize --section=.nope -e "$tmp/g64" 0x0
[ "$rc" -eq 1 ] && grep -q '\.nope' "$tmp/err"
sp_ok $? "--section of a section the file has not: exit 1 naming it"

sp_done
