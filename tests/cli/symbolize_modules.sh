#!/bin/sh
# symbolize_modules.sh — `symprof symbolize` without -e reads llvm-symbolizer's input lines
# that name their module: MODULE ADDR, "MODULE" ADDR, with or without a CODE or DATA
# prefix, a line of one word being an address of the last module named.  Two programs
# are built here (testdata/src/perfusers/spin.c twice, with VARIANT 1 and 7: main and
# spin_a at other addresses); for main and spin_a of each, in every form, the answer is
# llvm-symbolizer's for the same line (--output-style=LLVM) in the forms it answers as code;
# with a DATA prefix, and a bare address after a module line, the function is named from
# that module.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

llvm=$(command -v llvm-symbolizer || command -v llvm-symbolizer-14) ||
	{ echo "1..0 # SKIP no llvm-symbolizer"; exit 0; }
for v in 1 7; do
	"$SP_SRCDIR/testdata/src/perfusers/build.sh" "$tmp/p$v" "$v" >"$tmp/build.log" 2>&1 ||
		{ sed 's/^/# /' "$tmp/build.log"; sp_bail "the fixture does not build"; }
done
addr() { nm "$1" | awk -v f="$2" '$3 == f { print "0x" $1 }'; }
: >"$tmp/in"
for v in 1 7; do
	for f in main spin_a; do
		a=$(addr "$tmp/p$v/spin" "$f")
		[ -n "$a" ] || sp_bail "no $f in p$v/spin"
		printf '%s %s\n"%s" %s\nCODE %s %s\n' \
			"$tmp/p$v/spin" "$a" "$tmp/p$v/spin" "$a" "$tmp/p$v/spin" "$a" >>"$tmp/in"
		printf 'DATA "%s" %s\n%s\n' "$tmp/p$v/spin" "$a" "$a" >>"$tmp/more"
	done
done
"$llvm" <"$tmp/in" >"$tmp/want" 2>/dev/null
sp_symprof symbolize --output-style=LLVM <"$tmp/in" >"$tmp/got" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && [ -s "$tmp/want" ] && cmp -s "$tmp/want" "$tmp/got"
sp_ok $? "MODULE ADDR, \"MODULE\" ADDR, CODE MODULE ADDR: llvm-symbolizer's answers" ||
	{ sp_show_err; diff "$tmp/want" "$tmp/got" | head -n 20 | sed 's/^/#   /'; }
# (llvm-symbolizer answers DATA lines as data, a symbol and its extent, and a line without
# a module only with --obj; symprof names the code there, the latter from the module named
# last)
sp_symprof symbolize -f <"$tmp/more" >"$tmp/got2" 2>"$tmp/err"
[ "$(grep -c '^main$' "$tmp/got2")" = 4 ] && [ "$(grep -c '^spin_a$' "$tmp/got2")" = 4 ]
sp_ok $? "DATA \"MODULE\" ADDR and a bare address after it: named from that module" ||
	sed 's/^/#   /' "$tmp/got2"
printf '%s %s\n' "$tmp/nowhere" 0x1000 | sp_symprof symbolize -f >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && grep -q '^??$' "$tmp/out" && grep -q 'nowhere' "$tmp/err"
sp_ok $? "a module that is not there: ?? and its name on stderr" || sp_show_err

sp_done
