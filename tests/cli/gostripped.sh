#!/bin/sh
# cli_gostripped.sh — a Go binary linked with -ldflags="-s -w" (no DWARF, no .symtab) is
# symbolized from its .gopclntab: function, file:line and inline chain.
#
# The fixture (testdata/src/gofix) is built twice from the same sources with the same build id:
# with DWARF, and stripped.  Their .text must be identical; the build records -ldflags in the
# binary, so the plain build gets a no-op -X of the same length as "-w -s" to keep every
# address where it is.  References, for every function's entry and a few offsets inside it
# (from go tool nm of the plain build; each instruction of package main):
#   - symprof on the plain build (DWARF): the whole inline chain must be the same;
#   - go tool addr2line on the stripped build: it prints the outermost function with the
#     innermost file:line, which must be ours.
# A copy without section headers must give the same frames (the table found in the segments).
# The references must agree on at least 99% of the addresses; the figures are printed.  The same
# again built as position-independent executables (the table is .data.rel.ro.gopclntab there).
. "$(dirname "$0")/../../tests/helpers/cli_lib.sh"

if ! sp_have_go; then
	sp_skip "go not installed: stripped Go binaries"
	sp_done
	exit
fi

gobuild()
{
	(cd "$tmp/gofix" && HOME=$tmp/gohome GOCACHE=$tmp/gocache GOPATH=$tmp/gopath GOFLAGS='' \
		GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=0 go build "$@")
}
gotool()
{
	HOME=$tmp/gohome GOCACHE=$tmp/gocache GOPATH=$tmp/gopath GOFLAGS='' GOPROXY=off \
		GOTOOLCHAIN=local go tool "$@"
}

cp -R "$SP_SRCDIR/testdata/src/gofix" "$tmp/gofix" && chmod -R u+w "$tmp/gofix"
gobuild -ldflags='-X=a.b= -buildid=symprof-gofix' -o "$tmp/plain" . >"$tmp/build.log" 2>&1 &&
	gobuild -ldflags='-w -s -buildid=symprof-gofix' -o "$tmp/stripped" . >>"$tmp/build.log" 2>&1
sp_ok $? "built the Go fixture with and without -s -w" ||
	{ sed 's/^/#   /' "$tmp/build.log"; sp_done; exit; }

objcopy -O binary -j .text "$tmp/plain" "$tmp/plain.text" &&
	objcopy -O binary -j .text "$tmp/stripped" "$tmp/stripped.text" &&
	cmp -s "$tmp/plain.text" "$tmp/stripped.text"
sp_ok $? "the two builds have the same .text"

readelf -SW "$tmp/stripped" | grep -q ' \.debug_info \| \.symtab ' && st=1 || st=0
sp_ok "$st" "the stripped build has neither DWARF nor a symbol table"

# addrs_of BIN: every function's entry, a third and two thirds in; every 3rd byte of main.*.
addrs_of()
{
	gotool nm -size "$1" | awk '
	function hex(h,  i, v) {
		for (i = 1; i <= length(h); i++)
			v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
		return v
	}
	($3 == "T" || $3 == "t") && $2 > 0 {
		a = hex($1); s = $2
		printf "0x%x\n0x%x\n0x%x\n", a, a + int(s / 3), a + int(2 * s / 3)
		if ($4 ~ /^main\./)
			for (o = 1; o < s; o += 3)
				printf "0x%x\n", a + o
	}' | sort -u
}
addrs_of "$tmp/plain" >"$tmp/addrs"
n=$(wc -l <"$tmp/addrs")
[ "$n" -gt 3000 ]
sp_ok $? "addresses to compare: $n"

# One line per address: the frames joined with " | ".
frames()
{
	awk '/^0x/ { if (l != "") print l; l = $0; next } { l = l " | " $0 } END { print l }' "$1"
}
sp_run symprof symbolize -f -i -a -e "$tmp/plain" <"$tmp/addrs"
frames "$tmp/out" >"$tmp/dwarf.txt"
sp_run symprof symbolize -f -i -a -e "$tmp/stripped" <"$tmp/addrs"
frames "$tmp/out" >"$tmp/pcln.txt"
[ "$(wc -l <"$tmp/pcln.txt")" -eq "$n" ] && ! grep -q '??' "$tmp/pcln.txt"
sp_ok $? "every address of the stripped build is named" ||
	grep -F '??' "$tmp/pcln.txt" | head -n 5 | sed 's/^/#   /'

# agree A B WHAT: the lines of A and B agree for at least 99%.
agree()
{
	[ "$n" -gt 0 ] || { sp_ok 1 "$3: no addresses"; return; }
	same=$(paste -d '\n' "$1" "$2" | awk 'NR % 2 { a = $0; next } a == $0 { n++ } END { print n + 0 }')
	pct=$(awk -v s="$same" -v n="$n" 'BEGIN { printf "%.2f", 100 * s / n }')
	awk -v s="$same" -v n="$n" 'BEGIN { exit !(s * 100 >= n * 99) }'
	sp_ok $? "$3: $same of $n addresses agree ($pct%)" ||
		paste -d '\n' "$1" "$2" | awk 'NR % 2 { a = $0; next } a != $0 { print "ours: " a; print "ref:  " $0 }' |
		head -n 10 | sed 's/^/#   /'
}
# The plain build names its outermost frames from its .symtab, which spells assembly
# functions with their ABI suffix (internal/cpu.cpuid.abi0): symprof leaves it out, as
# the runtime's table does.
agree "$tmp/pcln.txt" "$tmp/dwarf.txt" "whole inline chain as the DWARF build's"

# go tool addr2line: the outermost function, then the innermost file:line.
gotool addr2line "$tmp/stripped" <"$tmp/addrs" | paste -d ' ' - - >"$tmp/goref.txt"
awk -F ' [|] ' '{ print $(NF - 1) " " $3 }' "$tmp/pcln.txt" >"$tmp/ours.txt"
[ "$(wc -l <"$tmp/goref.txt")" -eq "$n" ]
sp_ok $? "go tool addr2line answered every address"
agree "$tmp/ours.txt" "$tmp/goref.txt" "outermost function and innermost file:line as go tool addr2line's"

# The inline chain of a known spot: square inlined into addSquares inlined into sumLoop.
sq=$(gotool objdump -s '^main.sumLoop$' "$tmp/plain" | awk '$1 == "main.go:21" { print $2; exit }')
sp_run symprof symbolize -f -i -e "$tmp/stripped" "$sq"
printf '%s\n' main.square "$tmp/gofix/main.go:21" main.addSquares "$tmp/gofix/main.go:23" \
	main.sumLoop "$tmp/gofix/main.go:39" | cmp -s - "$tmp/out"
sp_ok $? "square inlined into addSquares inlined into sumLoop at $sq" || sed 's/^/#   /' "$tmp/out"

# <autogenerated> code is printed as such, by both builds.
ag=$(gotool nm "$tmp/plain" | awk '$3 == "main.(*rect).area" { print "0x" $1 }')
sp_run symprof symbolize -f -i -e "$tmp/plain" "$ag"
printf 'main.(*rect).area\n<autogenerated>:1\n' | cmp -s - "$tmp/out"
sp_ok $? "DWARF: the wrapper's file is <autogenerated>" || sed 's/^/#   /' "$tmp/out"
sp_run symprof symbolize -f -i -e "$tmp/stripped" "$ag"
printf 'main.(*rect).area\n<autogenerated>:1\n' | cmp -s - "$tmp/out"
sp_ok $? "pc-line table: the wrapper's file is <autogenerated>" || sed 's/^/#   /' "$tmp/out"

# Without section headers (e_shoff, e_shnum and e_shstrndx of the ELF64 header zeroed) the
# table is found in the segments: the same answers as with them.
cp "$tmp/stripped" "$tmp/noshdr" &&
	printf '\0\0\0\0\0\0\0\0' | dd of="$tmp/noshdr" bs=1 seek=40 conv=notrunc 2>/dev/null &&
	printf '\0\0\0\0' | dd of="$tmp/noshdr" bs=1 seek=60 conv=notrunc 2>/dev/null &&
	readelf -hW "$tmp/noshdr" | grep -q 'Number of section headers: *0$'
sp_ok $? "a copy of the stripped build without section headers"
sp_run symprof symbolize -f -i -a -e "$tmp/noshdr" <"$tmp/addrs"
frames "$tmp/out" >"$tmp/noshdr.txt"
cmp -s "$tmp/noshdr.txt" "$tmp/pcln.txt"
sp_ok $? "without section headers: the same frames for every address" ||
	diff "$tmp/noshdr.txt" "$tmp/pcln.txt" | head -n 6 | sed 's/^/#   /'

# The same as position-independent executables, whose table is .data.rel.ro.gopclntab.
gobuild -buildmode=pie -ldflags='-X=a.b= -buildid=symprof-gofix' -o "$tmp/pie-plain" . &&
	gobuild -buildmode=pie -ldflags='-w -s -buildid=symprof-gofix' -o "$tmp/pie-stripped" . &&
	addrs_of "$tmp/pie-plain" >"$tmp/pie.addrs"
sp_ok $? "built the fixture as PIE, with and without -s -w"
n=$(wc -l <"$tmp/pie.addrs")
sp_run symprof symbolize -f -i -a -e "$tmp/pie-plain" <"$tmp/pie.addrs"
frames "$tmp/out" | sed 's/\.abi0 | / | /' >"$tmp/pie-dwarf.txt"
sp_run symprof symbolize -f -i -a -e "$tmp/pie-stripped" <"$tmp/pie.addrs"
frames "$tmp/out" >"$tmp/pie-pcln.txt"
agree "$tmp/pie-pcln.txt" "$tmp/pie-dwarf.txt" "PIE: whole inline chain as the DWARF build's"

# convert: raw stacks over the stripped binary get named frames.
load=$(readelf -lW "$tmp/stripped" | awk '$1 == "LOAD" && / R E / && $2 ~ /^0x0+$/ { print $3, $6; exit }')
words=$(gotool nm "$tmp/plain" | awk '$3 == "main.words" { print "0x" $1 }')
main=$(gotool nm "$tmp/plain" | awk '$3 == "main.main" { print "0x" $1 }')
# shellcheck disable=SC2086 # address and size
set -- $load
load=$1 size=$2
{
	echo '# symprof raw stacks v1'
	echo 'addresses: exact'
	echo "3 @ $sq $(printf '0x%x' $((main + 16)))"
	echo "2 @ $(printf '0x%x' $((words + 4))) $(printf '0x%x' $((main + 16)))"
	echo '--- Memory map: ---'
	printf '%x-%x r-xp 00000000 08:01 1 %s\n' "$((load))" "$((load + size))" "$tmp/stripped"
} >"$tmp/go.raw"
sp_run symprof convert --format folded "$tmp/go.raw"
grep -q '^main.main;main.sumLoop;main.addSquares;main.square 3$' "$tmp/out" &&
	grep -q '^main.main;main.words 2$' "$tmp/out"
sp_ok $? "convert: raw stacks over the stripped build give named, inlined frames" ||
	{ sed 's/^/#   /' "$tmp/out"; sp_show_err; }

sp_done
