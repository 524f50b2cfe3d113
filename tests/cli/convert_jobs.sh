#!/bin/sh
# cli_convert_jobs.sh — `symprof convert -j N` on one input: a heap profile file is read
# on two threads (formats/heap.c: one scans lines into records, the other builds the
# profile), the folded writer matches samples to stacks in two halves on two threads
# (formats/folded_write.c, from 65536 samples), and every output is byte for byte what
# -j 1 writes, and what reading the same bytes from standard input (whole, on one thread)
# writes.
#
# The input is made from the heap fixture's dump (real binaries, symbolized through
# their DWARF): its header and memory map, and LINES sample lines whose stacks are
# drawn from the addresses of its own stacks, line i taking stack i % DISTINCT (1 to 12
# frames), with counts 1 + i % 7 of 64 bytes each: many batches of records (the scanning
# thread hands them over 4096 at a time), repeated stacks found by their text, and
# locations shared between stacks.  Then the same with one line in the middle broken:
# the same error, naming that line, whatever -j.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

lines=70001
distinct=2500

sp_fixture_heap "$tmp" || { sed 's/^/# /' "$tmp/build.log"; sp_bail "fixture dump not recorded"; }
dump=$tmp/fixture.heap
awk -v lines="$lines" -v distinct="$distinct" '
	NR == 1 { print; next }
	/MAPPED_LIBRARIES:/ { maps = 1 }
	maps { map[++nm] = $0; next }
	/@/ {
		for (i = 1; i <= NF; i++)
			if ($i ~ /^0x/ && !($i in seen)) { seen[$i] = 1; addr[na++] = $i }
	}
	END {
		for (i = 0; i < lines; i++) {
			s = i % distinct
			c = 1 + i % 7
			printf "%6d: %8d [%6d: %8d] @", c, c * 64, c, c * 64
			for (j = 0; j < 1 + s % 12; j++)
				printf " %s", addr[(s * 7 + j * 13) % na]
			printf "\n"
		}
		for (k = 1; k <= nm; k++) print map[k]
	}' "$dump" >"$tmp/big.heap"
sp_check "the input holds $lines samples" test "$(grep -c ' @ 0x' "$tmp/big.heap")" -eq "$lines"

# same NAME EXT OPTIONS...: -j 2 and -j 4 write what -j 1 writes to x.EXT, and so does
# -j 2 reading the bytes from standard input
same()
{
	sm_name=$1 sm_ext=$2
	shift 2
	sp_same_jobs "$sm_name" "$sm_ext" "$tmp/big.heap" "2 4" 2 "$@"
}

same "pprof" pb.gz
same "pprof, --sample-index inuse_objects" pb.gz --sample-index inuse_objects
same "folded" folded
same "folded --annotate" folded --annotate
same "raw" raw
same "top" txt
same "top --lines" txt --lines
same "dot" dot
same "dot --focus" dot --focus 'fixture::'
same "pprof --no-symbolize" pb.gz --no-symbolize

# Every sample is counted: the folded output's column (inuse_space) sums 64 bytes times
# 1 + i % 7 over the lines i.
want=$(awk -v n="$lines" 'BEGIN { for (i = 0; i < n; i++) t += 64 * (1 + i % 7); print t }')
got=$(awk '{ t += $NF } END { print t }' "$tmp/j1.folded")
sp_check "the folded output sums all $want bytes ($got)" test "$got" = "$want"
grep -q 'fixture::' "$tmp/j1.folded"
sp_ok $? "the fixture's functions are named"

# A broken line in the middle: the same error, naming it, whatever -j.
bad=$((lines / 2 + 2))
awk -v bad="$bad" 'NR == bad { sub(/ 0x/, " 0y") } { print }' "$tmp/big.heap" >"$tmp/bad.heap"
for j in 1 2; do
	sp_run symprof convert -q -j "$j" "$tmp/bad.heap" -o "$tmp/bad$j.folded"
	cp "$tmp/err" "$tmp/bad$j.err"
	[ "$rc" -eq 1 ] && grep -q "^symprof: $tmp/bad.heap: line $bad: expected hex address" "$tmp/err" &&
		[ ! -e "$tmp/bad$j.folded" ]
	sp_ok $? "-j $j: a bad line $bad is an error naming it, and no output (status $rc)" || sp_show_err
done
cmp -s "$tmp/bad1.err" "$tmp/bad2.err"
sp_ok $? "-j 2 says what -j 1 says"

# threads J: how many threads and processes convert -j J starts on the input (folded
# output: the gzip sink's thread does not come in), counted by strace
threads()
{
	self=$SYMPROF
	if [ "$(head -c 2 "$self")" = "#!" ]; then
		self=$(dirname "$SYMPROF")/.libs/$(basename "$SYMPROF")
	fi
	strace -f -qq -e trace=clone,clone3 -o "$tmp/strace" "$self" convert -q -j "$1" \
		"$tmp/big.heap" -o "$tmp/t.folded" >/dev/null 2>&1
	grep -c 'clone' "$tmp/strace"
}
if strace -f -qq -o /dev/null true 2>/dev/null; then
	t1=$(threads 1)
	t2=$(threads 2)
	[ "$t2" -gt "$t1" ]
	sp_ok $? "-j 2 starts a thread ($t2 clones, -j 1: $t1)"
else
	sp_skip "strace cannot trace here: threads not counted"
fi

for bad in 0 x 1025; do
	sp_run symprof convert -q -j "$bad" "$tmp/big.heap" -o "$tmp/x.folded"
	[ "$rc" -eq 2 ] && grep -q -- "-j expects a number from 1 to 1024, got '$bad'" "$tmp/err"
	sp_ok $? "-j $bad: usage error (status $rc)" || sp_show_err
done
sp_done
