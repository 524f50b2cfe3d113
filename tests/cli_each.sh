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

# -j: the inputs converted by two processes give the same files and the same lines, in
# the inputs' order, as one process.
heapprof=$SP_SRCDIR/testdata/profiles/heapprofile-small.heap
contention=$SP_SRCDIR/testdata/profiles/contention-example.txt
set -- "$tmp/bad.heap" "$heap" "$tmp/missing.heap" "$cpu" "$heapprof" "$contention"
sp_run symprof convert -q --each -j 1 -o "$tmp/j1" "$@"
rc1=$rc
cp "$tmp/err" "$tmp/err.j1"
sp_run symprof convert -q --each -j 2 -o "$tmp/j2" "$@"
[ "$rc" -eq 1 ] && [ "$rc1" -eq 1 ]
sp_ok $? "-j 2 and -j 1: exit 1 with bad inputs among good ones (got $rc, $rc1)"
sed "s|$tmp/j2|$tmp/j1|g" "$tmp/err" | cmp -s - "$tmp/err.j1" && [ "$(wc -l <"$tmp/err.j1")" -eq 7 ]
sp_ok $? "-j 2: the same lines as -j 1 (the directory aside), in the inputs' order" ||
	diff "$tmp/err.j1" "$tmp/err" | sed 's/^/#   /'
[ "$(ls "$tmp/j1" | wc -l)" -eq 4 ] && diff -r "$tmp/j1" "$tmp/j2" >/dev/null
sp_ok $? "-j 2: the same four output files, byte for byte, as -j 1"
sp_run symprof convert -q --each -j 3 -o "$tmp/j3" "$heap" "$cpu" "$heapprof" "$contention"
[ "$rc" -eq 0 ] && [ "$(tail -n 1 "$tmp/err")" = "symprof convert: 4 of 4 inputs converted into $tmp/j3, 0 failed" ]
sp_ok $? "-j 3, every input good: exit 0 and the summary" || sp_show_err
for bad in 0 x 2000; do
	sp_run symprof convert -q --each -j "$bad" -o "$tmp/jbad" "$heap"
	sp_check "-j $bad: usage error" test "$rc" = 2
done

sp_run symprof convert -q --each -o "$tmp/no/such/parent" "$heap"
[ "$rc" -eq 1 ] && grep -q "^symprof convert: --each: cannot create directory $tmp/no/such/parent: " "$tmp/err"
sp_ok $? "a directory that cannot be created: exit 1 naming it" || sp_show_err

sp_run symprof convert -q --each -o "$tmp/bad.heap" "$heap"
[ "$rc" -eq 2 ] && grep -q "^symprof convert: --each: -o $tmp/bad.heap is not a directory" "$tmp/err"
sp_ok $? "-o naming a file: usage error" || sp_show_err

sp_done
