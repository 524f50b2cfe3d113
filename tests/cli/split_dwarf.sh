#!/bin/sh
# cli_split_dwarf.sh — split DWARF (-gsplit-dwarf): the skeleton units of a binary and the
# split units of its .dwo files, DWARF 5 (DW_UT_skeleton, DW_FORM_addrx, DW_FORM_rnglistx)
# and DWARF 4 (GNU attributes and forms).
#
# The fixture testdata/src/symbolize/fixture.cc (inline functions several levels deep), after a
# second unit testdata/src/symbolize/fixture_b.cc (so that one skeleton's .debug_addr and range
# list bases are not zero, and two .dwo files have DIEs at the same offsets), is built at
# test time plain and with -gsplit-dwarf from the same sources, so both have the same
# .text (checked), by GCC and by Clang (whose split units have no line table of their
# own: their file numbers are the skeleton's), each in DWARF 5 and 4.  The reference is
# llvm-symbolizer on the plain build of the same compiler and version: at every
# instruction address of the fixture's own functions, the whole inline chain (function,
# file, line) of `symprof symbolize` on each split variant must equal it for at least 99%
# of the addresses.  Variants: the .dwo left in the build directory (found through
# DW_AT_comp_dir), the binary and its .dwo moved elsewhere and the build directory deleted
# (found beside the binary), the .dwo under a --debug-dir, behind a --path-map, with
# zlib- and zstd-compressed sections, packed into a .dwp (its sections as they are, and
# zlib- or zstd-compressed), and missing (the skeleton's line table still gives the
# innermost line; `info` says why); and Clang's -fsplit-dwarf-inlining, found and
# missing.  One `symprof convert` round trip (raw stacks -> pprof -> folded) must give
# what the plain build gives.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

src="$SP_SRCDIR/testdata/src/symbolize/fixture.cc"
src_b="$SP_SRCDIR/testdata/src/symbolize/fixture_b.cc"
command -v llvm-symbolizer >/dev/null 2>&1 || { sp_skip "llvm-symbolizer not installed"; sp_done; }

# One record per address: "ADDR FUNC@FILE:LINE|FUNC@FILE:LINE|..." innermost first, from
# "-a" output of symprof symbolize --output-style=LLVM or llvm-symbolizer (whose columns
# are dropped).
norm()
{
	awk '/^0x/ { if (NR > 1) print "" } { print }' | awk 'BEGIN { RS = ""; FS = "\n" }
	{
		a = $1; sub(/^0x0*/, "", a); out = ""
		for (i = 2; i <= NF; i += 2) {
			f = $(i + 1)
			if (f ~ /:[0-9]+:[0-9]+$/) sub(/:[0-9]+$/, "", f)
			out = out $i "@" f "|"
		}
		print a " " out
	}'
}

# match WANT GOT: how many records of GOT equal WANT's (same addresses, same order).
match()
{
	paste -d '\n' "$1" "$2" | awk 'NR % 2 { w = $0; next } $0 == w { n++ } END { print n + 0 }'
}

# One pass per compiler and DWARF version; K names a pass's files ($v for GCC, the
# files the later checks use; c$v for Clang).
for cc in g++ clang++; do
for v in 5 4; do
	case $cc in
	g++)
		k=$v
		what="GCC, DWARF $v"
		# GCC 12 names a .dwo after the output and the source
		dwo="prog-fixture.dwo prog-fixture_b.dwo"
		packer=dwp
		[ $v = 5 ] && packer=llvm-dwp
		;;
	*)
		k=c$v
		what="Clang, DWARF $v"
		# Clang names it after the source; its DWARF 4 is the GNU extension's form
		dwo="fixture.dwo fixture_b.dwo"
		packer=llvm-dwp
		;;
	esac
	if ! command -v $cc >/dev/null 2>&1; then
		sp_skip "$what: $cc not installed"
		continue
	fi
	b=$tmp/build$k
	mkdir -p "$b"
	$cc -O2 -g -gdwarf-$v -o "$tmp/plain$k" "$src_b" "$src"
	sp_ok $? "$what: built the plain fixture"
	(cd "$b" && $cc -O2 -g -gdwarf-$v -gsplit-dwarf -o prog "$src_b" "$src")
	sp_ok $? "$what: built the split fixture"
	(cd "$b" && ls $dwo) >/dev/null
	sp_ok $? "$what: the compiler left $dwo in the build directory"
	objcopy -O binary -j .text "$tmp/plain$k" "$tmp/text-plain$k" &&
		objcopy -O binary -j .text "$b/prog" "$tmp/text-split$k" &&
		cmp -s "$tmp/text-plain$k" "$tmp/text-split$k"
	sp_ok $? "$what: plain and split builds have the same .text"
	readelf -wi "$b/prog" | grep -q 'DW_AT_\(GNU_\)\{0,1\}dwo_name'
	sp_ok $? "$what: the binary has skeleton units naming their .dwo"

	# Every instruction address of the fixture's own code (its functions in the
	# reference name fixture.cc), and the reference chains.
	objdump -d --no-show-raw-insn -j .text "$tmp/plain$k" |
		awk '/^ *[0-9a-f]+:/ { sub(":", "", $1); print "0x" $1 }' >"$tmp/all$k"
	llvm-symbolizer --obj="$tmp/plain$k" -a <"$tmp/all$k" | norm >"$tmp/refall$k"
	grep 'fixture\(_b\)\{0,1\}\.cc:[0-9]*|$' "$tmp/refall$k" >"$tmp/ref$k"
	awk '{ print "0x" $1 }' "$tmp/ref$k" >"$tmp/addrs$k"
	total=$(wc -l <"$tmp/addrs$k")
	[ "$total" -gt 300 ]
	sp_ok $? "$what: $total instruction addresses in the fixture's functions"
	grep -c '|.*|' "$tmp/ref$k" >"$tmp/ninl" || true
	[ "$(cat "$tmp/ninl")" -gt 50 ]
	sp_ok $? "$what: $(cat "$tmp/ninl") of them are in inlined code"

	# check NAME EXE [OPTIONS]: symbolize every address with EXE and compare.
	check()
	{
		name=$1
		exe=$2
		shift 2
		sp_symprof symbolize --output-style=LLVM -a -e "$exe" "$@" <"$tmp/addrs$k" >"$tmp/out" 2>"$tmp/err"
		sp_ok $? "$what, $name: symbolize exits 0"
		norm <"$tmp/out" >"$tmp/got"
		same=$(match "$tmp/ref$k" "$tmp/got")
		sp_diag "$what, $name: $same of $total inline chains equal llvm-symbolizer's"
		[ $((same * 100)) -ge $((total * 99)) ]
		sp_ok $? "$what, $name: at least 99% of the inline chains equal the reference"
	}
	check "plain" "$tmp/plain$k"
	check "split, .dwo in the build directory" "$b/prog"

	# The binary with its .dwo under a debug dir, alone.
	mkdir -p "$tmp/alone$k" "$tmp/dbg$k"
	cp "$b/prog" "$tmp/alone$k/prog"
	for d in $dwo; do cp "$b/$d" "$tmp/dbg$k/$d"; done
	# ... behind a path map from the build directory
	mkdir -p "$tmp/mapped$k"
	for d in $dwo; do cp "$b/$d" "$tmp/mapped$k/$d"; done

	# Moved beside the binary, the build directory deleted.
	mkdir -p "$tmp/moved$k"
	for d in prog $dwo; do cp "$b/$d" "$tmp/moved$k/$d"; done
	rm -rf "$b"
	check "split, moved beside the binary, build directory gone" "$tmp/moved$k/prog"
	check "split, .dwo under --debug-dir" "$tmp/alone$k/prog" --debug-dir "$tmp/dbg$k"
	check "split, .dwo behind --path-map" "$tmp/alone$k/prog" --path-map "$b=$tmp/mapped$k"

	# The .dwo files with compressed sections (ELFCOMPRESS_ZLIB, which libdw reads, and
	# ELFCOMPRESS_ZSTD, which Debian 12's libdw cannot): the same chains.
	for z in zlib zstd; do
		mkdir -p "$tmp/$z$k"
		for d in prog $dwo; do cp "$tmp/moved$k/$d" "$tmp/$z$k/$d"; done
		(cd "$tmp/$z$k" && for d in $dwo; do objcopy --compress-debug-sections=$z "$d" || exit 1; done)
		readelf -SW "$tmp/$z$k/$(echo $dwo | cut -d' ' -f1)" | grep -q '\.debug_info\.dwo .* C'
		sp_ok $? "$what: objcopy wrote $z-compressed .dwo sections"
		check "split, .dwo sections $z-compressed" "$tmp/$z$k/prog"
	done

	# A package of the .dwo files (binutils' dwp for GCC's DWARF 4, llvm-dwp for the
	# others), beside the binary as BIN.dwp, then under a debug dir, without the .dwo
	# files; then with its sections compressed, its index included (libdw would
	# inflate zlib ones of a file, but a package's unit is a view of the package).
	if command -v $packer >/dev/null 2>&1; then
		mkdir -p "$tmp/pkg$k" "$tmp/pkgdbg$k"
		(cd "$tmp/moved$k" && $packer -o "$tmp/pkg$k/prog.dwp" $dwo)
		sp_ok $? "$what: $packer packed the .dwo files into prog.dwp"
		cp "$tmp/moved$k/prog" "$tmp/pkg$k/prog"
		check "package prog.dwp beside the binary" "$tmp/pkg$k/prog"
		cp "$tmp/pkg$k/prog.dwp" "$tmp/pkgdbg$k/prog.dwp"
		check "package under --debug-dir" "$tmp/alone$k/prog" --debug-dir "$tmp/pkgdbg$k"
		for z in zlib zstd; do
			mkdir -p "$tmp/pkg$z$k"
			cp "$tmp/pkg$k/prog" "$tmp/pkg$k/prog.dwp" "$tmp/pkg$z$k/"
			objcopy --compress-debug-sections=$z "$tmp/pkg$z$k/prog.dwp" &&
				readelf -SW "$tmp/pkg$z$k/prog.dwp" >"$tmp/sections" &&
				grep -q '\.debug_info\.dwo .* C' "$tmp/sections" &&
				grep -q '\.debug_cu_index .* C' "$tmp/sections"
			sp_ok $? "$what: objcopy wrote a package with $z-compressed sections, its index too"
			check "package prog.dwp, sections $z-compressed" "$tmp/pkg$z$k/prog"
		done
	else
		sp_skip "$what: no $packer to make a package"
	fi

	# Missing: the innermost line still comes from the skeleton's line table, and the
	# outermost frame's name from the symbol table.
	sp_symprof symbolize --output-style=LLVM -a -e "$tmp/alone$k/prog" <"$tmp/addrs$k" >"$tmp/out" 2>"$tmp/err"
	sp_ok $? "$what, .dwo missing: symbolize exits 0"
	norm <"$tmp/out" >"$tmp/gotfull"
	sed 's/@\([^|]*\)|.*/@\1|/; s/ [^@]*@/ @/' "$tmp/gotfull" >"$tmp/got"
	sed 's/@\([^|]*\)|.*/@\1|/; s/ [^@]*@/ @/' "$tmp/ref$k" >"$tmp/want"
	same=$(match "$tmp/want" "$tmp/got")
	sp_diag "$what, .dwo missing: $same of $total innermost lines equal the reference"
	[ $((same * 100)) -ge $((total * 99)) ]
	sp_ok $? "$what, .dwo missing: the skeleton's line table gives the innermost line"
	! grep -q '|.*|' "$tmp/gotfull"
	sp_ok $? "$what, .dwo missing: no inline frames (they come from the .dwo only)"
done
done

# Clang's -fsplit-dwarf-inlining keeps the inlined calls in the skeleton too (names
# without scopes or parameters): with the .dwo, the chains are the .dwo's; without it,
# the skeleton's, as llvm-symbolizer reads them from the same binary alone.
if [ -f "$tmp/plainc5" ]; then
	k=c5
	what="Clang, DWARF 5, -fsplit-dwarf-inlining"
	mkdir "$tmp/buildinl" "$tmp/inlmoved" "$tmp/inlalone"
	(cd "$tmp/buildinl" && clang++ -O2 -g -gdwarf-5 -gsplit-dwarf -fsplit-dwarf-inlining \
		-o prog "$src_b" "$src")
	sp_ok $? "$what: built the split fixture"
	objcopy -O binary -j .text "$tmp/buildinl/prog" "$tmp/text-inl" &&
		cmp -s "$tmp/text-plainc5" "$tmp/text-inl"
	sp_ok $? "$what: the same .text as the plain build"
	cp "$tmp/buildinl/"* "$tmp/inlmoved/"
	cp "$tmp/buildinl/prog" "$tmp/inlalone/"
	rm -rf "$tmp/buildinl"
	check "moved beside the binary, build directory gone" "$tmp/inlmoved/prog"
	llvm-symbolizer --obj="$tmp/inlalone/prog" -a <"$tmp/addrsc5" | norm >"$tmp/refinl"
	[ "$(grep -c '|.*|' "$tmp/refinl")" -gt 50 ]
	sp_ok $? "$what, .dwo missing: llvm-symbolizer gives the skeleton's inline chains"
	sp_symprof symbolize --output-style=LLVM -a -e "$tmp/inlalone/prog" <"$tmp/addrsc5" | norm >"$tmp/got"
	same=$(match "$tmp/refinl" "$tmp/got")
	sp_diag "$what, .dwo missing: $same of $total chains equal llvm-symbolizer's"
	[ $((same * 100)) -ge $((total * 99)) ]
	sp_ok $? "$what, .dwo missing: at least 99% of the chains equal llvm-symbolizer's"
else
	sp_skip "Clang, -fsplit-dwarf-inlining: no Clang build"
fi

# convert: raw stacks of fixture addresses (the PIE's code mapped at 0x555555555000)
# through pprof and back to folded stacks, with the split binary beside its .dwo, equal
# the plain build's folded stacks (a copy of the same name: the few addresses outside
# every function print as the file's name and offset).
raw()
{
	echo "# symprof raw stacks v1"
	echo "sample_type: samples/count"
	echo "addresses: exact"
	awk 'NR % 7 == 1' "$tmp/addrs5" | while read -r a; do
		printf '1 @ 0x%x\n' $((a + 0x555555554000))
	done
	echo "--- Memory map: ---"
	echo "555555555000-555555556000 r-xp 00001000 08:01 1234 $1"
}
mkdir "$tmp/plainprog"
cp "$tmp/plain5" "$tmp/plainprog/prog"
raw "$tmp/plainprog/prog" >"$tmp/plain.raw"
raw "$tmp/moved5/prog" >"$tmp/split.raw"
sp_run symprof convert "$tmp/plain.raw" -o "$tmp/plain.folded"
sp_ok $rc "convert: raw stacks of the plain build to folded"
sp_run symprof convert "$tmp/split.raw" -o "$tmp/split.pb.gz"
sp_ok $rc "convert: raw stacks of the split build to pprof"
sp_run symprof convert "$tmp/split.pb.gz" -o "$tmp/split.folded"
sp_ok $rc "convert: that pprof to folded"
[ "$(grep -c ';' "$tmp/plain.folded")" -gt 10 ]
sp_ok $? "convert: the plain build's folded stacks have inline frames"
cmp -s "$tmp/plain.folded" "$tmp/split.folded"
sp_ok $? "convert: the split build's round trip gives the plain build's folded stacks"

# info names a missing .dwo and every place it was looked for.
raw "$tmp/alone5/prog" >"$tmp/missing.raw"
sp_run symprof info "$tmp/missing.raw"
sp_ok $rc "info on a split binary without its .dwo exits 0"
grep -qF "detail: 2 split units not read, the first: split unit prog-fixture.dwo not found: looked in $tmp/build5/prog-fixture.dwo (missing), $tmp/alone5/prog-fixture.dwo (missing)," "$tmp/out"
sp_ok $? "info: the missing split unit is named, with the places looked in"
grep -qF "tried: $tmp/alone5/prog-fixture.dwo (missing)" "$tmp/out"
sp_ok $? "info: the place beside the binary is listed as tried"
# A .dwo of another build of the unit (the DWARF 4 one beside the DWARF 5 binary) is not
# used.
mkdir "$tmp/wrong"
cp "$tmp/moved5/prog" "$tmp/moved4/"*.dwo "$tmp/wrong/"
raw "$tmp/wrong/prog" >"$tmp/wrong.raw"
sp_run symprof info "$tmp/wrong.raw"
grep -qF "tried: $tmp/wrong/prog-fixture.dwo (dwo id mismatch)" "$tmp/out"
sp_ok $? "info: a .dwo with another dwo id is rejected"
# A package whose index is damaged: an error naming the package and the offset, the
# .dwo files beside it still used; a unit's contribution past its section: an error
# naming the unit and the section; the compressed bytes of a compressed package's index
# damaged, or a section's compression type unknown: an error naming the package and the
# section.
if [ -f "$tmp/pkg4/prog.dwp" ]; then
	# section_at FILE SECTION: the file offset of FILE's SECTION
	section_at()
	{
		echo $((0x$(readelf -SW "$1" |
			awk -v s="$2" '{ for (i = 1; i < NF; i++) if ($i == s) print $(i + 3) }')))
	}
	# damage NAME FROM SECTION DELTA BYTES: $tmp/NAME, a copy of the binary and package of
	# directory FROM with the .dwo files beside them, and BYTES (a printf format) written
	# DELTA bytes into the package's SECTION; then symprof info on raw stacks of it.
	damage()
	{
		mkdir "$tmp/$1"
		cp "$2/prog" "$2/prog.dwp" "$tmp/moved4/"*.dwo "$tmp/$1/"
		at=$(section_at "$tmp/$1/prog.dwp" "$3")
		# shellcheck disable=SC2059 # the bytes are the format
		printf "$5" | dd of="$tmp/$1/prog.dwp" bs=1 seek=$((at + $4)) conv=notrunc 2>/dev/null
		raw "$tmp/$1/prog" >"$tmp/$1.raw"
		sp_run symprof info "$tmp/$1.raw"
	}
	# dwo_used NAME: the .dwo files beside the damaged package of $tmp/NAME are used.
	dwo_used()
	{
		sp_symprof symbolize --output-style=LLVM -a -e "$tmp/$1/prog" <"$tmp/addrs4" | norm >"$tmp/got"
		same=$(match "$tmp/ref4" "$tmp/got")
		[ "$same" = "$(wc -l <"$tmp/ref4")" ]
		sp_ok $? "$1: the package is left for the .dwo files beside it ($same chains equal)"
	}
	damage badver "$tmp/pkg4" .debug_cu_index 0 '\007'
	grep -qF "detail: $tmp/badver/prog.dwp: .debug_cu_index at offset 0: expected version 2 or 5, got 0x7" "$tmp/out"
	sp_ok $? "info: a package with an unknown index version is named with the offset"
	dwo_used badver

	# the first row's first column (.debug_info.dwo for binutils' dwp), after the
	# header, S slots of 12 bytes and N columns of 4
	# shellcheck disable=SC2046 # four numbers
	set -- $(od -An -tu4 -j "$(section_at "$tmp/pkg4/prog.dwp" .debug_cu_index)" -N16 \
		"$tmp/pkg4/prog.dwp")
	damage badcontrib "$tmp/pkg4" .debug_cu_index $((16 + $4 * 12 + $2 * 4)) '\377\377\377\177'
	grep -q "detail: $tmp/badcontrib/prog.dwp: .debug_cu_index: unit 0x[0-9a-f]*: its .debug_info.dwo at offset 2147483647, [0-9]* bytes, is past the section's [0-9]* bytes" "$tmp/out"
	sp_ok $? "info: a unit's contribution past its section is named"

	# the zstd frame's magic number, after the 24-byte Elf64_Chdr
	damage badzindex "$tmp/pkgzstd4" .debug_cu_index 24 '\377\377\377\377'
	grep -qF "detail: $tmp/badzindex/prog.dwp: section .debug_cu_index: not a zstd frame of the " "$tmp/out"
	sp_ok $? "info: a compressed index that cannot be inflated is named"
	dwo_used badzindex

	# ch_type, the Elf64_Chdr's first word
	damage badztype "$tmp/pkgzstd4" .debug_info.dwo 0 '\003'
	grep -qF "$tmp/badztype/prog.dwp: section .debug_info.dwo: compression type 3 cannot be read (zlib and zstd can)" "$tmp/out"
	sp_ok $? "info: a package's section of an unknown compression type is named"
else
	sp_skip "no package to damage"
fi

sp_run symprof info "$tmp/split.raw"
! grep -q "dwo" "$tmp/out"
sp_ok $? "info: nothing about split units when every .dwo is found"

sp_done
