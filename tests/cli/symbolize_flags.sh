#!/bin/sh
# cli_symbolize_flags.sh — the addr2line / llvm-symbolizer flags of `symprof symbolize`:
# --obj, -p, -s and --output-style=GNU|LLVM|JSON, checked against values that follow from
# how the fixtures are written, against binutils addr2line and against llvm-symbolizer;
# contradictory flags are usage errors.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

# A three-deep inline chain, fx::leaf <- fx::mid <- fx::outer, in a directory whose name
# holds a quote, a backslash and a tab, which JSON output must escape.
dir=$(printf '%s/we"ird\\\tdir' "$tmp")
mkdir -p "$dir" || sp_bail "cannot make $dir"
src=$dir/fx.cc
cat >"$src" <<'EOF'
// MARK lines are found by the test
volatile int sink;
namespace fx {
inline __attribute__((always_inline)) int leaf(int x) // MARK:leaf_decl
{
	sink = x; // MARK:leaf
	return x + 1;
}
inline __attribute__((always_inline)) int mid(int x) // MARK:mid_decl
{
	return leaf(x * 2) + 3; // MARK:mid
}
__attribute__((noinline)) int outer(int x) // MARK:outer_decl
{
	return mid(x) * 5; // MARK:outer
}
} // namespace fx
int main(int argc, char **argv)
{
	(void)argv;
	return fx::outer(argc);
}
EOF
g++ -O2 -g -o "$tmp/fx" "$src" || sp_bail "the inline fixture does not build"
line() { grep -n "MARK:$1\$" "$src" | cut -d: -f1; }
# The store to sink in fx::outer is leaf's line, inlined into mid, inlined into outer.
store=$(objdump -d --no-show-raw-insn "$tmp/fx" | awk '
	/^[0-9a-f]+ <.*>:$/ { f = $2; next }
	f == "<_ZN2fx5outerEi>:" && /<sink>/ { sub(":", "", $1); print "0x" $1; exit }')
[ -n "$store" ] || sp_bail "no store to sink in fx::outer"
store16=$(printf '0x%016x' "$store")

# pretty PREFIX FILE: the -p -C text of the store, as the fixture is written
pretty()
{
	printf '%sfx::leaf(int) at %s:%s\n (inlined by) fx::mid(int) at %s:%s\n (inlined by) fx::outer(int) at %s:%s\n' \
		"$1" "$2" "$(line leaf)" "$2" "$(line mid)" "$2" "$(line outer)"
}
sp_run symprof symbolize -f -i --obj "$tmp/fx" -p -s -a -C "$store"
pretty "$store16: " fx.cc >"$tmp/want"
[ "$rc" = 0 ] && cmp -s "$tmp/want" "$tmp/out"
sp_ok $? "-p -s -a -C: the inline chain on one line per frame, as the fixture is written" ||
	sp_diag "$(cat "$tmp/out")"

sp_run symprof symbolize -f -i -e "$tmp/fx" -p -a -C "$store"
pretty "$store16: " "$src" | cmp -s - "$tmp/out"
sp_ok $? "-e is --obj, and without -s the file keeps its directories"

sp_run symprof symbolize -f -i -e "$tmp/fx" -p -C "$store"
pretty "" "$src" | cmp -s - "$tmp/out"
sp_ok $? "-p without -a: no address in front"

# addr2line names the first frame of an inline chain after the function it is inlined
# into (binutils' lookup); every other part of its -p line is ours.
addr2line -p -s -f -i -C -a -e "$tmp/fx" "$store" | sed "1s/: [^ ]* at /: FIRST at /" >"$tmp/a2l"
sp_run symprof symbolize -f -i --obj "$tmp/fx" -p -s -a -C "$store"
[ "$rc" = 0 ] && sed "1s/: [^ ]* at /: FIRST at /" "$tmp/out" | cmp -s - "$tmp/a2l"
sp_ok $? "addr2line -p -s -f -i -C -a: the same files, lines and inlined-by frames" ||
	sp_diag "$(cat "$tmp/a2l")"

# At every function entry of the resolver fixture: the same text as addr2line -p -s.
fix=$tmp/pie
g++ -O2 -g -o "$fix" "$SP_SRCDIR/testdata/src/symbolize/fixture.cc" || sp_bail "fixture.cc does not build"
nm -S --defined-only "$fix" | awk 'NF == 4 && $3 ~ /^[tT]$/ && $4 != "_start" { print "0x" $1 }' >"$tmp/entries"
[ "$(wc -l <"$tmp/entries")" -gt 15 ] || sp_bail "too few functions in the fixture"
for f in "" -C; do
	addr2line -p -s -f -i -a $f -e "$fix" <"$tmp/entries" >"$tmp/a2l"
	sp_run symprof symbolize -f -i --obj "$fix" -p -s -a $f <"$tmp/entries"
	diff "$tmp/a2l" "$tmp/out" >"$tmp/diff"
	sp_ok $? "-p -s -a $f: addr2line's text at every function entry" || sp_diag "$(head "$tmp/diff")"
done

# Every instruction of the fixture's own functions (those with DWARF).
objdump -d --no-show-raw-insn "$fix" | awk '
	/^[0-9a-f]+ <.*>:$/ { f = $2; next }
	/^ +[0-9a-f]+:/ && (f ~ /^<_Z/ || f == "<main>:") { sub(":", "", $1); print "0x" $1 }' >"$tmp/insns"
[ "$(wc -l <"$tmp/insns")" -gt 300 ] || sp_bail "too few instructions in the fixture"
# lines that are no address, and one that is not UTF-8
printf 'zz\n\n0x\nq\377"\\\tx\n' >"$tmp/junk"
cat "$tmp/insns" "$tmp/junk" >"$tmp/input"

if ! command -v llvm-symbolizer >/dev/null 2>&1; then
	sp_skip "llvm-symbolizer is not installed (Debian package llvm)"
else
	for f in "" "-a" "-a -p -s" "-p"; do
		# shellcheck disable=SC2086 # the flags are words
		llvm-symbolizer --obj="$fix" $f <"$tmp/input" >"$tmp/llvm"
		# shellcheck disable=SC2086
		sp_run symprof symbolize --obj "$fix" -C --output-style=LLVM $f <"$tmp/input"
		diff "$tmp/llvm" "$tmp/out" >"$tmp/diff"
		sp_ok $? "--output-style=LLVM $f: llvm-symbolizer's text at every instruction" ||
			sp_diag "$(head "$tmp/diff")"
	done

	# JSON: the same keys in the same order and the same values, but for what the
	# resolver does not look up (printed as llvm-symbolizer prints it unknown).
	unknowns() {
		sed 's/"StartAddress":"[^"]*","StartFileName":"\([^"\\]\|\\.\)*"/"StartAddress":A,"StartFileName":F/g' "$1"
	}
	for f in "" -s; do
		llvm-symbolizer --obj="$fix" $f --output-style=JSON <"$tmp/input" >"$tmp/llvm"
		sp_run symprof symbolize --obj "$fix" -C $f --output-style=JSON <"$tmp/input"
		unknowns "$tmp/llvm" >"$tmp/llvm.n"
		unknowns "$tmp/out" >"$tmp/out.n"
		diff "$tmp/llvm.n" "$tmp/out.n" >"$tmp/diff"
		sp_ok $? "--output-style=JSON $f: llvm-symbolizer's objects at every instruction" ||
			sp_diag "$(head -c 2000 "$tmp/diff")"
	done
	python3 -c '
import json, sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
assert len(lines) > 300
for x in lines:
    for s in json.loads(x).get("Symbol", []):
        assert (s["StartAddress"], s["StartFileName"]) == ("", ""), x
assert any(s["Discriminator"] for x in lines for s in json.loads(x).get("Symbol", []))' "$tmp/out"
	sp_ok $? "--output-style=JSON: start address and declaration file unknown, some discriminators"

	# Clang writes the discriminators of inlined calls too (DW_AT_GNU_discriminator).
	if ! command -v clang++ >/dev/null 2>&1; then
		sp_skip "clang++ is not installed"
	elif ! clang++ -O2 -g -fdebug-info-for-profiling -o "$tmp/clang" \
		"$SP_SRCDIR/testdata/src/symbolize/fixture.cc"; then
		sp_ok 1 "clang++ builds the fixture"
	else
		objdump -d --no-show-raw-insn "$tmp/clang" | awk '
			/^[0-9a-f]+ <.*>:$/ { f = $2; next }
			/^ +[0-9a-f]+:/ && (f ~ /^<_Z/ || f == "<main>:") { sub(":", "", $1); print "0x" $1 }' >"$tmp/cl.in"
		llvm-symbolizer --obj="$tmp/clang" --output-style=JSON <"$tmp/cl.in" >"$tmp/llvm"
		sp_run symprof symbolize --obj "$tmp/clang" -C --output-style=JSON <"$tmp/cl.in"
		unknowns "$tmp/llvm" >"$tmp/llvm.n"
		unknowns "$tmp/out" >"$tmp/out.n"
		grep -q '"Discriminator":[1-9].*"Discriminator":[1-9]' "$tmp/out" &&
			diff "$tmp/llvm.n" "$tmp/out.n" >"$tmp/diff"
		sp_ok $? "--output-style=JSON, clang -fdebug-info-for-profiling: llvm-symbolizer's discriminators" ||
			sp_diag "$(head -c 2000 "$tmp/diff")"
	fi

	llvm-symbolizer --obj="$tmp/fx" --output-style=JSON "$store" >"$tmp/llvm"
	sp_run symprof symbolize --obj "$tmp/fx" -C --output-style=JSON "$store"
	unknowns "$tmp/llvm" >"$tmp/llvm.n"
	unknowns "$tmp/out" >"$tmp/out.n"
	diff "$tmp/llvm.n" "$tmp/out.n" >"$tmp/diff"
	sp_ok $? "--output-style=JSON: a quote, a backslash and a tab in the path as llvm-symbolizer escapes them" ||
		sp_diag "$(cat "$tmp/diff")"
fi

# The values, read back by a JSON parser, are those of the source.
sp_run symprof symbolize --obj "$tmp/fx" -C --output-style=JSON "$store" zz
python3 - "$tmp/out" "$tmp/fx" "$src" "$store" \
	"$(line leaf) $(line leaf_decl) $(line mid) $(line mid_decl) $(line outer) $(line outer_decl)" <<'PY'
import json, sys
out, obj, src, store, lines = sys.argv[1:]
l = [int(x) for x in lines.split()]
a, b = json.loads(open(out, encoding="utf-8").read())  # arguments: one array
assert list(a) == ["Address", "ModuleName", "Symbol"], list(a)
assert a["Address"] == hex(int(store, 16)) and a["ModuleName"] == obj, a
keys = ["Column", "Discriminator", "FileName", "FunctionName", "Line", "StartAddress",
        "StartFileName", "StartLine"]
got = [(s["FunctionName"], s["FileName"], s["Line"], s["StartLine"]) for s in a["Symbol"]]
assert all(list(s) == keys for s in a["Symbol"]), a
assert got == [("fx::leaf(int)", src, l[0], l[1]), ("fx::mid(int)", src, l[2], l[3]),
               ("fx::outer(int)", src, l[4], l[5])], got
assert b == {"Error": {"Message": "unable to parse arguments: zz"}, "ModuleName": obj}, b
PY
sp_ok $? "--output-style=JSON: names, files, lines and declaration lines of the fixture, and an error object"

sp_run symprof symbolize --obj "$fix" --output-style=JSON <"$tmp/junk"
python3 -c '
import json, sys
m = [json.loads(x)["Error"]["Message"] for x in open(sys.argv[1], encoding="utf-8")]
assert m[-1] == "unable to parse arguments: q\ufffd\"\\\tx", m' "$tmp/out"
sp_ok $? "--output-style=JSON: a line that is not UTF-8 still gives valid JSON"

sp_run symprof symbolize -f -i --obj "$fix" --output-style=GNU -a <"$tmp/input"
cp "$tmp/out" "$tmp/gnu"
sp_run symprof symbolize -f -i --obj "$fix" -a <"$tmp/input"
[ "$rc" = 0 ] && [ -s "$tmp/gnu" ] && cmp -s "$tmp/gnu" "$tmp/out"
sp_ok $? "--output-style=GNU is the default form"

sp_run symprof symbolize --obj "$fix" -s --json -C <"$tmp/entries"
python3 -c '
import json, sys
fs = {f["file"] for x in open(sys.argv[1]) for f in json.loads(x)["frames"]}
assert fs and "fixture.cc" in fs and not any("/" in f for f in fs if f), fs' "$tmp/out"
sp_ok $? "-s --json: file names without directories"

sp_run symprof symbolize -f -i --obj "$fix" -s -a <"$tmp/entries"
addr2line -s -f -i -a -e "$fix" <"$tmp/entries" | cmp -s - "$tmp/out"
sp_ok $? "-s without -p: addr2line -s's text"

# Contradictions are usage errors: exit 2, one line naming the problem, nothing on stdout.
usage_error()
{
	want=$1
	shift
	sp_run symprof symbolize -f -i "$@" 0x10
	[ "$rc" = 2 ] && [ ! -s "$tmp/out" ] && grep -q -- "$want" "$tmp/err"
	sp_ok $? "usage error (exit 2, got $rc): symbolize $*" || sp_show_err
}
usage_error "two output forms" --obj "$fix" --json --output-style=JSON
usage_error "two output forms" --obj "$fix" --json --output-style=GNU
usage_error "not with JSON output" --obj "$fix" -p --output-style=JSON
usage_error "not with JSON output" --obj "$fix" -p --json
usage_error "expected GNU, LLVM or JSON" --obj "$fix" --output-style=json
usage_error "the object is already" -e "$fix" --obj "$tmp/fx"
sp_run symprof symbolize -f -i -e "$fix" --obj "$fix" -p -s "$(head -1 "$tmp/entries")"
[ "$rc" = 0 ] && [ -s "$tmp/out" ]
sp_ok $? "-e and --obj naming the same file are fine"

# The bash completion offers the new options and the output styles.
complete_words()
{
	bash -c '
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_symprof symprof "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' sh "$SP_SRCDIR/completion/symprof" "$@"
}
[ "$(complete_words symprof symbolize --output-style '')" = "$(printf 'GNU\nLLVM\nJSON')" ] &&
	[ "$(complete_words symprof symbolize --output-style=J)" = --output-style=JSON ] &&
	[ "$(complete_words symprof symbolize --pre)" = --pretty-print ] &&
	[ "$(complete_words symprof symbolize --ob)" = --obj ] &&
	[ "$(complete_words symprof symbolize --base)" = --basenames ]
sp_ok $? "completion: --output-style values, --pretty-print, --obj, --basenames"

sp_done
