#!/bin/sh
# html_browser.sh — the HTML report (`--format html`) opened in headless Chromium
# from file://, without network, and driven by tests/helpers/report_cdp.py with real clicks and
# typing: zoom on a function by clicking its frame, open its source and disassembly,
# sort the top table, show its callers and callees, the icicle, and search.  Every view is
# a screenshot that must show something (tests/helpers/png_ink.py), and no console error may be
# logged.  The numbers the page shows are checked against independent sources:
#
# (a) perf.data of the annotation fixture (testdata/src/annotate), frame pointers, as
#     sample counts: hot_outer's source lines and its instructions each sum to the
#     samples perf script puts in hot_outer; the instructions are objdump's; leaf_a and
#     leaf_b are rows under the lines they were inlined at, 2 : 1 (within 12 points); the
#     search for hot_outer matches, and the top table and callers/callees give as its
#     cum, the samples whose stack perf script shows through hot_outer; the top table is
#     sorted by cum after a click on its header;
# (b) the same with --call-graph dwarf of the fixture's PIE;
# (c) a tcmalloc heap dump of testdata/src/fixture, and the pprof symprof writes of it:
#     big_alloc's flat is 16 x 65536 bytes (fixture.h) and the root the dump's total;
# (d) its two dumps as a --diff-base pair: the differential report's root holds the
#     second dump's total and the base the first's.
# Every report is one file naming nothing outside itself.  Skips without Chromium.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

chromium=$(sp_chromium) || { echo "1..0 # SKIP chromium not installed"; exit 0; }
command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP python3 not installed"; exit 0; }

# open NAME HTML FUNCTION SEARCH: drive the report; $tmp/NAME.cdp gets report_cdp's lines;
# five cases: it ran, no console error, every view drawn, one file, the click zoomed
open_report()
{
	name=$1
	mkdir -p "$tmp/shots-$name"
	python3 "$SP_SRCDIR/tests/helpers/report_cdp.py" "$chromium" "$2" "$3" "$4" "$tmp/shots-$name" \
		>"$tmp/$name.cdp" 2>"$tmp/err"
	sp_ok $? "$name: Chromium opens the report and takes the clicks ($(awk '$1 == "load" { print $2 " s" }' "$tmp/$name.cdp"))" ||
		sp_show_err
	grep -q "$(printf '^errors\t0$')" "$tmp/$name.cdp"
	sp_ok $? "$name: no console error" || grep '^error' "$tmp/$name.cdp" | sed 's/^/#   /'
	blank=
	for v in flame zoomed source disasm top sandwich icicle search; do
		ink=$(python3 "$SP_SRCDIR/tests/helpers/png_ink.py" "$tmp/shots-$name/$v.png" 2>/dev/null | awk '{ print $3 }')
		[ "${ink:-0}" -gt 5000 ] || blank="$blank $v"
	done
	[ -z "$blank" ]
	sp_ok $? "$name: every view draws something (blank:${blank:- none})"
	! grep -E -q '<(script|link|img|iframe)[^>]* (src|href)=' "$2"
	sp_ok $? "$name: the report loads nothing from outside itself"
	[ "$(field zoom 2 "$name")" = "$3" ] && [ "$(field selected 2 "$name")" = "$3" ]
	sp_ok $? "$name: the click on $3 zoomed there and selected it"
}

# field KIND N NAME: field N of the first line of kind KIND
field()
{
	awk -F '\t' -v k="$1" -v n="$2" '$1 == k { print $n; exit }' "$tmp/$3.cdp"
}
# total KIND COLUMN NAME: the sum of COLUMN over the lines of kind KIND
total()
{
	awk -F '\t' -v k="$1" -v n="$2" '$1 == k { s += $n } END { print s + 0 }' "$tmp/$3.cdp"
}

fix=$tmp/fix
"$SP_SRCDIR/testdata/src/annotate/build.sh" "$fix" >"$tmp/build.log" 2>&1 || sp_bail "fixture does not build"
perf_ok=
command -v perf >/dev/null 2>&1 && perf record -q -e cpu-clock -o "$tmp/probe.data" -- true >/dev/null 2>&1 &&
	perf_ok=1

# perf_case NAME DATA BINARY: (a) and (b)
perf_case()
{
	name=$1
	sp_run symprof convert -q --sample-index samples "$2" -o "$tmp/$name.html"
	sp_ok "$rc" "$name: convert -o $name.html" || sp_show_err
	open_report "$name" "$tmp/$name.html" hot_outer '^hot_outer$'
	perf script -F ip,sym -i "$2" 2>/dev/null >"$tmp/$name.script"
	leaf=$(awk '/^[ \t]*$/ { first = 1; next } first && $NF == "(inlined)" { next }
		first { if ($2 == "hot_outer") n++; first = 0 } BEGIN { first = 1 } END { print n + 0 }' "$tmp/$name.script")
	through=$(awk '/^[ \t]*$/ { if (inside) n++; inside = 0; next } $2 == "hot_outer" { inside = 1 }
		END { if (inside) n++; print n + 0 }' "$tmp/$name.script")
	samples=$(awk '/^[ \t]*$/ { if (any) n++; any = 0; next } { any = 1 } END { if (any) n++; print n + 0 }' "$tmp/$name.script")
	src=$(total source 3 "$name")
	[ "$leaf" -gt 50 ] && [ "$src" = "$leaf" ] && [ "$(field srctotal 2 "$name")" = "$leaf" ]
	sp_ok $? "$name: source lines sum to hot_outer's flat $src, perf script's $leaf"
	asm=$(total insn 3 "$name")
	[ "$asm" = "$leaf" ] && [ "$(field asmtotal 2 "$name")" = "$leaf" ]
	sp_ok $? "$name: instructions sum to $asm, perf script's $leaf"
	objdump -d --no-show-raw-insn "$3" | awk '/<hot_outer>:$/ { on = 1; next } on && /^$/ { exit }
		on { sub(/:.*/, ""); print $1 }' >"$tmp/$name.addrs"
	awk -F '\t' '$1 == "insn" { print $2 }' "$tmp/$name.cdp" | cmp -s - "$tmp/$name.addrs"
	sp_ok $? "$name: the disassembly's addresses are objdump's"
	awk -F '\t' '$1 == "inline" && $2 == 1 && $3 == "leaf_a" { a += $5 } $1 == "inline" && $2 == 1 && $3 == "leaf_b" { b += $5 }
		END { if (a + b == 0) exit 1; s = 100 * a / (a + b); exit !(s > 66.7 - 12 && s < 66.7 + 12) }' "$tmp/$name.cdp"
	sp_ok $? "$name: leaf_a and leaf_b rows under their lines, 2 : 1"
	[ "$(field matched 2 "$name")" = "$through" ] && [ "$through" -gt 0 ]
	sp_ok $? "$name: the search matches the $through samples through hot_outer ($(field matched 3 "$name")%)"
	[ "$(awk -F '\t' '$1 == "top" && $2 == "hot_outer" { print $4 }' "$tmp/$name.cdp")" = "$through" ] &&
		[ "$(field sandwich 3 "$name")" = "$through" ]
	sp_ok $? "$name: the top table and callers/callees give hot_outer a cum of $through"
	awk -F '\t' '$1 == "top" { if (seen && $4 + 0 > last) bad = 1; last = $4 + 0; seen = 1 } END { exit bad || !seen }' "$tmp/$name.cdp"
	sp_ok $? "$name: a click on cum sorts the top table by cum"
	[ "$(field total 2 "$name")" = "$samples" ]
	sp_ok $? "$name: the flame graph's root holds the $samples samples"
}

if [ -n "$perf_ok" ]; then
	(cd "$fix" && perf record -q -e cpu-clock -g -o "$tmp/fp.data" -- ./annfix 400) >/dev/null 2>&1 ||
		sp_bail "perf record -g failed"
	perf_case fp "$tmp/fp.data" "$fix/annfix"
	(cd "$fix" && perf record -q -e cpu-clock --call-graph dwarf,16384 -o "$tmp/dw.data" -- ./annfix-pie 250) \
		>/dev/null 2>&1 || sp_bail "perf record --call-graph dwarf failed"
	perf_case dwarf "$tmp/dw.data" "$fix/annfix-pie"
else
	sp_skip "perf record does not work here"
fi

# (c) and (d) ------------------------------------------------------------------------
"$SP_SRCDIR/testdata/src/fixture/build.sh" "$tmp/hfix" >"$tmp/build.log" 2>&1 || sp_bail "heap fixture does not build"
(cd "$tmp/hfix" && env HEAPPROFILE="$tmp/d" FIXTURE_HEAP_DIFF=1 ./fixture) >/dev/null 2>&1 &&
	[ -s "$tmp/d.0001.heap" ] && [ -s "$tmp/d.0002.heap" ] || sp_bail "the heap fixture wrote no two dumps"
sum_of() { awk '{ s += $NF } END { print s + 0 }' "$1"; }
sp_run symprof convert -q "$tmp/d.0001.heap" --format folded
sum1=$(sum_of "$tmp/out")
sp_run symprof convert -q "$tmp/d.0002.heap" --format folded
sum2=$(sum_of "$tmp/out")
sp_run symprof convert -q "$tmp/d.0001.heap" -o "$tmp/heap.pb.gz"
for name in heap pprof; do
	in=$tmp/d.0001.heap
	[ $name = pprof ] && in=$tmp/heap.pb.gz
	sp_run symprof convert -q "$in" -o "$tmp/$name.html"
	sp_ok "$rc" "$name: convert -o $name.html" || sp_show_err
	open_report $name "$tmp/$name.html" fixture::big_alloc big_alloc
	[ "$(awk -F '\t' '$1 == "top" && $2 == "fixture::big_alloc" { print $3 }' "$tmp/$name.cdp")" = 1048576 ]
	sp_ok $? "$name: big_alloc's flat is 16 x 65536 bytes"
	[ "$(field total 2 $name)" = "$sum1" ]
	sp_ok $? "$name: the root holds the dump's $sum1 bytes"
done
sp_run symprof convert -q "$tmp/d.0002.heap" --diff-base "$tmp/d.0001.heap" -o "$tmp/diff.html"
sp_ok "$rc" "diff: convert --diff-base -o diff.html" || sp_show_err
open_report diff "$tmp/diff.html" fixture::alloc_in_main alloc_in_main
[ "$(field total 2 diff)" = "$sum2" ] && [ "$(field total 3 diff)" = "$sum1" ]
sp_ok $? "diff: the root holds the second dump's $sum2 bytes, the base the first's $sum1"
grep -q '"diff":true' "$tmp/diff.html" && grep -q '<title>Differential: ' "$tmp/diff.html"
sp_ok $? "diff: the report is differential"
sp_done
