#!/bin/sh
# index_peers.sh — answers from a symbol index against the tools that read the DWARF:
# llvm-symbolizer, binutils addr2line and elfutils eu-addr2line.
#
# Fixtures built here: testdata/src/symbolize/fixture.cc (-O2 -g: namespaces, templates,
# inline chains several levels deep), and a three-deep inline chain in a file of its own
# (fx::leaf <- fx::mid <- fx::outer).  For each, a copy without debug info (strip
# --strip-debug: the same build id, the symbol table alone) is answered from the index
# `symprof index` wrote, and compared with what each tool answers from the file WITH its
# debug info, at every instruction of the fixture's own functions:
#   - llvm-symbolizer's text (-C, every inlined frame, columns), with -a and with -p;
#   - addr2line -a -f -i -C: each frame's name, file and line (addr2line names the first
#     frame of an inline chain after the function it is inlined into: that one name is
#     left out), and addr2line -p -s -a at every function entry, byte for byte;
#   - eu-addr2line -i: each frame's file and line.
# (addr2line and eu-addr2line at the instructions inside sized function symbols: they name
# the padding between functions, on purpose not symprof, docs/DESIGN.md.)
# Nothing here comes from symprof's own answers.  Without the index the copy answers
# otherwise (checked), so the answers compared are the index's.
. "$(dirname "$0")/../../tests/helpers/cli_lib.sh"

dir=$tmp/src
mkdir -p "$dir"
cat >"$dir/fx.cc" <<'EOF'
volatile int sink;
namespace fx {
inline __attribute__((always_inline)) int leaf(int x)
{
	sink = x;
	return x + 1;
}
inline __attribute__((always_inline)) int mid(int x)
{
	return leaf(x * 2) + 3;
}
__attribute__((noinline)) int outer(int x)
{
	return mid(x) * 5;
}
} // namespace fx
int main(int argc, char **argv)
{
	(void)argv;
	return fx::outer(argc);
}
EOF
g++ -O2 -g -o "$tmp/fixture" "$SP_SRCDIR/testdata/src/symbolize/fixture.cc" &&
	g++ -O2 -g -o "$tmp/fx" "$dir/fx.cc" &&
	strip --strip-debug -o "$tmp/fixture.bare" "$tmp/fixture" &&
	strip --strip-debug -o "$tmp/fx.bare" "$tmp/fx"
sp_ok $? "built the fixtures and copies without debug info" || { sp_done; exit; }

sp_run symprof index -q -o "$tmp/ix" "$tmp/fixture" "$tmp/fx"
set -- "$tmp"/ix/*.spx
[ "$rc" -eq 0 ] && [ $# -eq 2 ] && [ -s "$1" ] && [ -s "$2" ]
sp_ok $? "symprof index wrote both indexes" || sp_show_err

# insns FILE: every instruction of FILE's own functions (C++ names and main)
insns()
{
	objdump -d --no-show-raw-insn "$1" | awk '
		/^[0-9a-f]+ <.*>:$/ { f = $2; next }
		/^ +[0-9a-f]+:/ && (f ~ /^<_Z/ || f == "<main>:") { sub(":", "", $1); print "0x" $1 }'
}
# ix NAME ARGS...: symprof symbolize on the copy of NAME without debug info, from the index
ix()
{
	n=$1
	shift
	sp_run symprof symbolize -e "$tmp/$n.bare" --index-dir "$tmp/ix" "$@"
}

for n in fixture fx; do
	insns "$tmp/$n" >"$tmp/$n.insns"
	nm -S --defined-only "$tmp/$n" |
		awk 'NF == 4 && $3 ~ /^[tT]$/ && $4 != "_start" { print "0x" $1 }' >"$tmp/$n.entries"
	# the instructions inside a sized function symbol, not the padding after one: binutils
	# names it after the symbol before it, eu-addr2line gives it the line before it, and
	# symprof, as llvm-symbolizer, nothing (docs/DESIGN.md)
	nm -S --defined-only "$tmp/$n" >"$tmp/$n.nm"
	python3 -c '
import sys
spans = []
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 4 and f[2] in "tT":
        spans.append((int(f[0], 16), int(f[0], 16) + int(f[1], 16)))
for line in sys.stdin:
    a = int(line, 16)
    if any(lo <= a < hi for lo, hi in spans):
        print(line.strip())' "$tmp/$n.nm" <"$tmp/$n.insns" >"$tmp/$n.sized"
	[ "$(wc -l <"$tmp/$n.insns")" -gt 6 ] && [ "$(wc -l <"$tmp/$n.entries")" -gt 1 ] &&
		[ "$(wc -l <"$tmp/$n.sized")" -gt 4 ]
	sp_ok $? "$n: $(wc -l <"$tmp/$n.insns") instructions ($(wc -l <"$tmp/$n.sized") inside sized functions), $(wc -l <"$tmp/$n.entries") function entries"

	# some answer has an inline chain, per the tools themselves
	addr2line -f -i -e "$tmp/$n" <"$tmp/$n.insns" >"$tmp/a2l.raw"
	[ "$(wc -l <"$tmp/a2l.raw")" -gt $((2 * $(wc -l <"$tmp/$n.insns"))) ]
	sp_ok $? "$n: addr2line -i finds inlined frames"

	ix "$n" -f -i <"$tmp/$n.insns"
	mv "$tmp/out" "$tmp/withix"
	sp_run symprof symbolize -e "$tmp/$n.bare" -f -i <"$tmp/$n.insns"
	! cmp -s "$tmp/withix" "$tmp/out"
	sp_ok $? "$n: (without the index the copy answers otherwise)"

	if command -v llvm-symbolizer >/dev/null 2>&1; then
		for f in "" "-a" "-p"; do
			# shellcheck disable=SC2086 # the flags are words
			llvm-symbolizer --obj="$tmp/$n" $f <"$tmp/$n.insns" >"$tmp/llvm"
			# shellcheck disable=SC2086
			ix "$n" -C --output-style=LLVM $f <"$tmp/$n.insns"
			[ "$rc" -eq 0 ] && [ -s "$tmp/llvm" ] && diff "$tmp/llvm" "$tmp/out" >"$tmp/diff"
			sp_ok $? "$n: llvm-symbolizer $f's text at every instruction, from the index" ||
				{ sp_diag "$(head "$tmp/diff")"; sp_show_err; }
		done
	else
		sp_skip "llvm-symbolizer is not installed (Debian package llvm)"
	fi

	# addr2line -f -i -C: name, file:line per frame; the first frame's name of each
	# address left out (binutils names it after the function it is inlined into)
	frames()
	{
		awk '
			/^0x[0-9a-f]+$/ { k = 0; next }
			{ k++ }
			k % 2 { name = k == 1 ? "FIRST" : $0; next }
			{ print name " @ " $0 }' "$1"
	}
	addr2line -a -f -i -C -e "$tmp/$n" <"$tmp/$n.sized" >"$tmp/a2l"
	ix "$n" -a -f -i -C <"$tmp/$n.sized"
	frames "$tmp/a2l" >"$tmp/a2l.f"
	frames "$tmp/out" >"$tmp/ix.f"
	[ "$rc" -eq 0 ] && [ -s "$tmp/a2l.f" ] && diff "$tmp/a2l.f" "$tmp/ix.f" >"$tmp/diff"
	sp_ok $? "$n: addr2line -f -i -C's frames at every instruction of a function, from the index" ||
		{ sp_diag "$(head "$tmp/diff")"; sp_show_err; }
	for f in "" -C; do
		addr2line -p -s -f -i -a $f -e "$tmp/$n" <"$tmp/$n.entries" >"$tmp/a2l"
		ix "$n" -p -s -f -i -a $f <"$tmp/$n.entries"
		[ "$rc" -eq 0 ] && diff "$tmp/a2l" "$tmp/out" >"$tmp/diff"
		sp_ok $? "$n: addr2line -p -s -f -i -a $f's text at every function entry, from the index" ||
			{ sp_diag "$(head "$tmp/diff")"; sp_show_err; }
	done

	if command -v eu-addr2line >/dev/null 2>&1; then
		# eu-addr2line -i: FILE:LINE[:COLUMN] per frame; the index's GNU form without -f:
		# FILE:LINE per frame, and a discriminator, left out here
		eu-addr2line -i -e "$tmp/$n" <"$tmp/$n.sized" |
			sed 's/\(:[0-9][0-9]*\):[0-9][0-9]*$/\1/' >"$tmp/eu.l"
		ix "$n" -i <"$tmp/$n.sized"
		sed 's/ (discriminator [0-9]*)$//' "$tmp/out" >"$tmp/ix.l"
		[ "$rc" -eq 0 ] && [ -s "$tmp/eu.l" ] && diff "$tmp/eu.l" "$tmp/ix.l" >"$tmp/diff"
		sp_ok $? "$n: eu-addr2line -i's files and lines at every instruction of a function, from the index" ||
			{ sp_diag "$(head "$tmp/diff")"; sp_show_err; }
	else
		sp_skip "eu-addr2line is not installed (Debian package elfutils)"
	fi
done
sp_done
