#!/bin/sh
# cli_each.sh — `convert --each -o DIR` creates DIR when missing, goes on past a bad
# input, converts every other one, prints one line per input (ok, or failed with the
# reason) and a summary, and exits 1 when any input failed.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

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

# -j: the parent converts the inputs until one has converted, then forks workers that
# take the rest from a shared counter (without -j only when the rest is worth it: not for
# these small inputs); whatever the split, the files and the lines (in the inputs' order)
# are those of one process.
heapprof=$SP_SRCDIR/testdata/profiles/heapprofile-small.heap
contention=$SP_SRCDIR/testdata/profiles/contention-example.txt
# each_same NAME J... -- INPUT...: --each -j 1 and then -j J for every J over the inputs:
# the same exit status, the same lines (the directory aside) and the same files.
each_same()
{
	name=$1
	shift
	js=
	while [ "$1" != -- ]; do
		js="$js $1"
		shift
	done
	shift
	sp_run symprof convert -q --each -j 1 -o "$tmp/$name-1" "$@"
	rc1=$rc
	mv "$tmp/err" "$tmp/$name.err1"
	for j in $js; do
		if [ "$j" = default ]; then # without -j: the CPUs, workers only when worth it
			sp_run symprof convert -q --each -o "$tmp/$name-$j" "$@"
		else
			sp_run symprof convert -q --each -j "$j" -o "$tmp/$name-$j" "$@"
		fi
		[ "$rc" -eq "$rc1" ] && sed "s|$tmp/$name-$j|$tmp/$name-1|g" "$tmp/err" | cmp -s - "$tmp/$name.err1" &&
			diff -r "$tmp/$name-1" "$tmp/$name-$j" >/dev/null
		sp_ok $? "$name: -j $j gives -j 1's exit status ($rc1), lines and files" || {
			echo "# exit status $rc"
			diff "$tmp/$name.err1" "$tmp/err" | sed 's/^/#   /'
		}
	done
}
set -- "$tmp/bad.heap" "$heap" "$tmp/missing.heap" "$cpu" "$heapprof" "$contention"
each_same mixed 2 4 default -- "$@"
[ "$rc1" -eq 1 ] && [ "$(wc -l <"$tmp/mixed.err1")" -eq 7 ] && [ "$(ls "$tmp/mixed-1" | wc -l)" -eq 4 ] &&
	[ "$(tail -n 1 "$tmp/mixed.err1")" = "symprof convert: 4 of 6 inputs converted into $tmp/mixed-1, 2 failed" ]
sp_ok $? "mixed: -j 1 exits 1, converts the four good inputs and says so" || sed 's/^/#   /' "$tmp/mixed.err1"

# Inputs that resolve in the fixture: the parent's session, opened on the first one,
# serves the workers.  Input k has one sample, main's address plus k in a mapping at its
# own load address; every third input is bad (its header is not a format).
fix=$tmp/fix
"$SP_SRCDIR/testdata/src/fixture/build.sh" "$fix" >"$tmp/build.log" 2>&1 ||
	{ sed 's/^/# /' "$tmp/build.log"; sp_bail "fixture does not build"; }
main=$(nm "$fix/fixture" | awk '$3 == "main" { print $1 }')
[ -n "$main" ] || sp_bail "no main in the fixture's symbol table"
set --
k=1
while [ "$k" -le 14 ]; do
	base=$((0x555555554000 + k * 0x1000000))
	{
		if [ $((k % 3)) -eq 0 ]; then
			echo "# not a profile"
		else
			printf '# symprof raw stacks v1\naddresses: exact\n'
		fi
		printf '%d @ 0x%x\n--- Memory map: ---\n' "$k" $((base + 0x$main + k))
		printf '%x-%x r-xp 00000000 08:01 1 %s\n' "$base" $((base + 0x100000)) "$fix/fixture"
	} >"$tmp/stacks$k.txt"
	set -- "$@" "$tmp/stacks$k.txt"
	k=$((k + 1))
done
each_same fixture 2 4 default -- "$@"
[ "$rc1" -eq 1 ] && [ "$(grep -c ': ok -> ' "$tmp/fixture.err1")" -eq 10 ] &&
	[ "$(grep -c ': failed: ' "$tmp/fixture.err1")" -eq 4 ] &&
	sp_symprof convert --format folded "$tmp/fixture-1/stacks14.txt.pb.gz" >"$tmp/f14" 2>/dev/null &&
	[ "$(cat "$tmp/f14")" = "main 14" ]
sp_ok $? "fixture: 10 converted, 4 failed; input 14's sample names main" || sed 's/^/#   /' "$tmp/fixture.err1"
# the first input bad: the parent goes on to the second before any worker starts
shift
each_same bad-first 2 -- "$tmp/bad.heap" "$@"
# more jobs than inputs, and as many
each_same few 8 -- "$tmp/stacks1.txt" "$tmp/stacks2.txt" "$tmp/stacks4.txt"
each_same two 4 -- "$tmp/stacks1.txt" "$tmp/bad.heap"

# A first input of 4 MiB or more is work enough to share from the start: the workers are
# forked before it and each warms a session of its own (a worker, not the parent, opens
# it); the files and lines are still those of -j 1.
for k in 1 2 3; do
	base=$((0x555555554000 + k * 0x1000000))
	awk -v b="$base" -v m=$((0x$main)) -v n=$((k == 1 ? 250000 : 1000)) 'BEGIN {
		print "# symprof raw stacks v1"; print "addresses: exact"
		for (i = 0; i < n; i++) printf "%d @ 0x%x 0x%x\n", 1 + i % 7, b + m + i % 13, b + m + 1
		print "--- Memory map: ---"
		printf "%x-%x r-xp 00000000 08:01 1 '"$fix/fixture"'\n", b, b + 1048576 }' >"$tmp/big$k.txt"
done
[ "$(wc -c <"$tmp/big1.txt")" -ge 4194304 ] || sp_bail "big1.txt is under 4 MiB"
each_same cold 2 default -- "$tmp/big1.txt" "$tmp/big2.txt" "$tmp/big3.txt"
if command -v strace >/dev/null 2>&1; then
	strace -f -qq -e trace=openat -o "$tmp/cold.strace" \
		"$SYMPROF" convert -q --each -j 2 -o "$tmp/cold-s" "$tmp/big1.txt" "$tmp/big2.txt" \
		"$tmp/big3.txt" >/dev/null 2>&1
	parent=$(awk 'NR == 1 { print $1 }' "$tmp/cold.strace")
	# (the parent opens every input once to check it; the conversion's opens are a worker's)
	opener=$(awk -v f="\"$tmp/big1.txt\"" -v p="$parent" 'index($0, f) && !/ENOENT/ && $1 != p { print $1; exit }' \
		"$tmp/cold.strace")
	[ -n "$opener" ] && [ "$opener" != "$parent" ] && [ -s "$tmp/cold-s/big1.txt.pb.gz" ]
	sp_ok $? "a first input of 4 MiB: a worker (pid $opener), not the parent ($parent), converts it"
else
	sp_skip "strace is not installed"
fi

# A worker dies with its parent: the parent killed while a worker waits to open an input
# that is a FIFO leaves no reader of it behind (a writer's open then blocks until the
# timeout).
if command -v mkfifo >/dev/null 2>&1 && command -v timeout >/dev/null 2>&1; then
	mkfifo "$tmp/slow.txt"
	# (not through sp_symprof, so that $! is symprof's own pid)
	"$SYMPROF" convert -q --each -j 2 -o "$tmp/orphan" "$tmp/stacks1.txt" "$tmp/slow.txt" \
		"$tmp/stacks2.txt" >/dev/null 2>&1 &
	pid=$!
	k=0
	while [ ! -s "$tmp/orphan/stacks1.txt.pb.gz" ] && [ "$k" -lt 300 ]; do
		sleep 0.1
		k=$((k + 1))
	done
	sleep 1
	workers=$(sp_children "$pid")
	kill -TERM "$pid"
	wait "$pid"
	st=$?
	# (a worker is told of its parent's death by a signal: it may take a moment)
	# shellcheck disable=SC2086 # one word per pid
	sp_wait_gone $workers
	timeout 5 sh -c 'echo >"$1"' sh "$tmp/slow.txt"
	[ $? -eq 124 ] && [ "$st" -eq 143 ] && [ ! -e "$tmp/orphan/slow.txt.pb.gz" ]
	sp_ok $? "the parent killed (status $st): its worker waiting for a FIFO is gone"
else
	sp_skip "no mkfifo or timeout"
fi

sp_run symprof convert -q --each -j 3 -o "$tmp/j3" "$heap" "$cpu" "$heapprof" "$contention"
[ "$rc" -eq 0 ] && [ "$(tail -n 1 "$tmp/err")" = "symprof convert: 4 of 4 inputs converted into $tmp/j3, 0 failed" ]
sp_ok $? "-j 3, every input good: exit 0 and the summary" || sp_show_err
for bad in 0 x 2000; do
	sp_run symprof convert -q --each -j "$bad" -o "$tmp/jbad" "$heap"
	sp_check "-j $bad: usage error" test "$rc" = 2
done

# missing parents are made (mkdir -p); under a regular file none can be
: >"$tmp/plain"
sp_run symprof convert -q --each -o "$tmp/plain/sub" "$heap"
[ "$rc" -eq 1 ] && grep -q "^symprof convert: --each: cannot create directory $tmp/plain/sub: " "$tmp/err"
sp_ok $? "a directory that cannot be created: exit 1 naming it" || sp_show_err

sp_run symprof convert -q --each -o "$tmp/bad.heap" "$heap"
[ "$rc" -eq 2 ] && grep -q "^symprof convert: --each: -o $tmp/bad.heap is not a directory" "$tmp/err"
sp_ok $? "-o naming a file: usage error" || sp_show_err

# a --base that cannot be read: one error naming it, before any input; nothing attempted
for j in 1 2; do
	sp_run symprof convert -q --each -j $j --base "$tmp/no-such-base.heap" -o "$tmp/nobase" \
		"$heap" "$cpu"
	[ "$rc" -eq 1 ] && grep -q "^symprof: $tmp/no-such-base.heap: cannot open" "$tmp/err" &&
		! grep -q "$tmp/nobase: failed" "$tmp/err" &&
		[ "$(tail -n 1 "$tmp/err")" = "symprof convert: 0 of 2 inputs converted into $tmp/nobase, 0 failed, 2 not attempted" ]
	sp_ok $? "-j $j, --base unreadable: exit 1, the error names the base, 2 not attempted" ||
		sp_show_err
done

sp_done
