#!/bin/sh
# heap_jobs.sh — a heap profile file of many MiB read on several threads (convert -j N:
# formats/heap_chunks.c reads it in chunks of whole lines that every thread scans, the
# profile built from them in input order) writes, byte for byte, what -j 1 writes and
# what reading the same bytes from standard input (whole, on one thread) writes; and a
# bad line deep in the file is the same error, naming it, whatever -j, the first one in
# the input when there are two.
#
# The profile is generated here: LINES sample lines over POOL stacks 5 to 30 frames
# deep, addresses in 64 executable mappings, with comment and blank lines among them,
# some lines ending in CR LF, one line longer than a chunk (1 MiB), and a memory map
# longer than a chunk at the end, without a final newline.  What the folded output sums
# comes from how the lines were made.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

lines=30000
pool=3000
long_at=14000

# gen LINES: the profile on standard output
gen()
{
	awk -v lines="$1" -v pool="$pool" -v long_at="$long_at" 'BEGIN {
		srand(7)
		printf "heap profile: %d: %d [%d: %d] @ heapprofile\n", lines, lines * 64, lines, lines * 64
		for (s = 0; s < pool; s++) {
			d = 5 + int(rand() * 26)
			t = ""
			for (j = 0; j < d; j++)
				t = t sprintf(" 0x%x", 4194304 + int(rand() * 64) * 1048576 + int(rand() * 65536) * 16 + 5)
			st[s] = t
		}
		for (i = 0; i < lines; i++) {
			if (i % 997 == 0) print "# a comment"
			if (i % 1009 == 0) print ""
			s = int(rand() * rand() * pool)
			c = 1 + i % 7
			t = st[s]
			if (i == long_at)
				for (j = 0; j < 80000; j++)
					t = t sprintf(" 0x%x", 4194320 + j % 4096)
			printf "%6d: %8d [%6d: %8d] @%s%s\n", c, c * 64, c, c * 64, t, i % 13 == 0 ? "\r" : ""
		}
		print ""
		print "MAPPED_LIBRARIES:"
		for (m = 0; m < 64; m++)
			printf "%08x-%08x r-xp 00000000 08:02 %d /usr/lib/libm%d.so\n", 4194304 + m * 1048576, 4194304 + (m + 1) * 1048576, m + 1, m
		for (k = 0; k < 40000; k++)
			printf "# a note of the map, long enough to take more than a chunk %d\n", k
		printf "# the last line, without a newline"
	}'
}
gen "$lines" >"$tmp/big.heap"
size=$(wc -c <"$tmp/big.heap")
sp_check "the input spans many 1 MiB chunks ($size bytes)" test "$size" -gt 8000000
sp_check "the input holds $lines samples" test "$(grep -c ' @ 0x' "$tmp/big.heap")" -eq "$lines"

# same NAME EXT OPTIONS...: -j 2, 3 and 5 write what -j 1 writes, and so does -j 3
# reading the bytes from standard input
same()
{
	sm_name=$1 sm_ext=$2
	shift 2
	sp_same_jobs "$sm_name" "$sm_ext" "$tmp/big.heap" "2 3 5" 3 "$@"
}

same "pprof" pb.gz
same "folded" folded
same "raw" raw

# Every sample is counted: the folded output sums 64 bytes times 1 + i % 7 over the lines.
want=$(awk -v n="$lines" 'BEGIN { for (i = 0; i < n; i++) t += 64 * (1 + i % 7); print t }')
got=$(awk '{ t += $NF } END { print t }' "$tmp/j3.folded")
sp_check "the folded output of -j 3 sums all $want bytes ($got)" test "$got" = "$want"
# The map's 64 libraries are all there (read past the chunks after its marker).
got=$(zcat "$tmp/j3.pb.gz" | grep -a -o 'libm[0-9]*\.so' | sort -u | wc -l)
sp_check "the pprof output of -j 3 names the 64 mapped libraries ($got)" test "$got" -eq 64

# The file's line N (1-based), as gen numbers them: the header, then comment and blank
# lines before sample lines i % 997 == 0 and i % 1009 == 0.
line_of()
{
	awk -v i="$1" 'BEGIN { print 4 + i + int(i / 997) + int(i / 1009) }'
}

# bad NAME EXPECT SED...: the profile changed by each sed script: -j 1 and -j 3 fail
# alike, with the error EXPECT (a grep pattern) and no output.
bad()
{
	bd_name=$1 bd_want=$2
	shift 2
	cp "$tmp/big.heap" "$tmp/bad.heap"
	for script in "$@"; do
		sed -e "$script" "$tmp/bad.heap" >"$tmp/bad2.heap" && mv "$tmp/bad2.heap" "$tmp/bad.heap"
	done
	for j in 1 3; do
		sp_run symprof convert -q -j "$j" "$tmp/bad.heap" -o "$tmp/bad$j.pb.gz"
		cp "$tmp/err" "$tmp/bad$j.err"
		[ "$rc" -eq 1 ] && grep -q "^symprof: $tmp/bad.heap: $bd_want" "$tmp/err" &&
			[ ! -e "$tmp/bad$j.pb.gz" ]
		sp_ok $? "$bd_name, -j $j: the error names it (status $rc)" || sp_show_err
	done
	cmp -s "$tmp/bad1.err" "$tmp/bad3.err"
	sp_ok $? "$bd_name: -j 3 says what -j 1 says"
}

early=$(line_of 9000)
late=$(line_of 25000)
sp_check "line $early is sample 9000's" sh -c "sed -n '${early}p' '$tmp/big.heap' | grep -q '^ *6:      384 \['"
count_err='expected "<n>: <bytes> \[<n>: <bytes>\] @ 0x<addr> ..."'
bad "counts broken on line $late" "line $late: $count_err" "${late}s/\[/{/"
bad "an address broken on line $late" "line $late: expected hex address" "${late}s/ 0x/ 0xq/"
bad "an address broken on line $early, counts on line $late" \
	"line $early: expected hex address" "${early}s/ 0x/ 0xq/" "${late}s/\[/{/"
bad "counts broken on line $early, an address on line $late" \
	"line $early: $count_err" "${early}s/\[/{/" "${late}s/ 0x/ 0xq/"
sp_done
