#!/bin/sh
# cli_each.sh — `convert --each -o DIR` creates DIR when missing, goes on past a bad
# input, converts every other one, prints one line per input (ok, or failed with the
# reason) and a summary, and exits 1 when any input failed.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/tests/cli_lib.sh"

heap=$SP_SRCDIR/testdata/profiles/heap_v2-example.heap
cpu=$SP_SRCDIR/testdata/profiles/cpu-example.prof
printf 'junk\n' >"$tmp/bad.heap"
sp_symprof convert -q "$heap" -o "$tmp/heap.pb.gz" && sp_symprof convert -q "$cpu" -o "$tmp/cpu.pb.gz" ||
	sp_bail "converting the examples failed"

sp_run symprof convert -q --each -o "$tmp/new" "$heap" "$cpu"
[ "$rc" -eq 0 ] && [ -d "$tmp/new" ] && cmp -s "$tmp/new/heap_v2-example.heap.pb.gz" "$tmp/heap.pb.gz" &&
	cmp -s "$tmp/new/cpu-example.prof.pb.gz" "$tmp/cpu.pb.gz"
sp_ok $? "--each -o MISSING-DIR creates it and writes both outputs" || sp_show_err
[ "$(cat "$tmp/err")" = "symprof convert: $heap: ok -> $tmp/new/heap_v2-example.heap.pb.gz
symprof convert: $cpu: ok -> $tmp/new/cpu-example.prof.pb.gz
symprof convert: 2 of 2 inputs converted into $tmp/new, 0 failed" ]
sp_ok $? "one ok line per input and a summary" || sp_show_err

sp_run symprof convert -q --each -o "$tmp/mixed" "$tmp/bad.heap" "$heap" "$tmp/missing.heap" "$cpu"
[ "$rc" -eq 1 ]
sp_ok $? "a bad input among good ones: exit 1 (got $rc)"
[ "$(ls "$tmp/mixed")" = "cpu-example.prof.pb.gz
heap_v2-example.heap.pb.gz" ] && cmp -s "$tmp/mixed/heap_v2-example.heap.pb.gz" "$tmp/heap.pb.gz" &&
	cmp -s "$tmp/mixed/cpu-example.prof.pb.gz" "$tmp/cpu.pb.gz"
sp_ok $? "every good input is converted, before and after the bad ones" || ls "$tmp/mixed" | sed 's/^/#   /'
[ "$(wc -l <"$tmp/err")" -eq 5 ] &&
	sed -n 1p "$tmp/err" | grep -qF "symprof convert: $tmp/bad.heap: failed: unrecognized profile format" &&
	[ "$(sed -n 2p "$tmp/err")" = "symprof convert: $heap: ok -> $tmp/mixed/heap_v2-example.heap.pb.gz" ] &&
	[ "$(sed -n 3p "$tmp/err")" = "symprof convert: $tmp/missing.heap: failed: cannot open: No such file or directory" ] &&
	[ "$(sed -n 4p "$tmp/err")" = "symprof convert: $cpu: ok -> $tmp/mixed/cpu-example.prof.pb.gz" ] &&
	[ "$(sed -n 5p "$tmp/err")" = "symprof convert: 2 of 4 inputs converted into $tmp/mixed, 2 failed" ]
sp_ok $? "one line per input (ok, or failed with the reason) and a summary" || sp_show_err

sp_run symprof convert -q --each -o "$tmp/no/such/parent" "$heap"
[ "$rc" -eq 1 ] && grep -q "^symprof convert: --each: cannot create directory $tmp/no/such/parent: " "$tmp/err"
sp_ok $? "a directory that cannot be created: exit 1 naming it" || sp_show_err

sp_run symprof convert -q --each -o "$tmp/bad.heap" "$heap"
[ "$rc" -eq 2 ] && grep -q "^symprof convert: --each: -o $tmp/bad.heap is not a directory" "$tmp/err"
sp_ok $? "-o naming a file: usage error" || sp_show_err

sp_done
