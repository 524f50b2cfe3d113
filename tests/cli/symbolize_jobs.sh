#!/bin/sh
# cli_symbolize_jobs.sh — `symprof symbolize -j N` resolves large batches on N threads and
# writes the same bytes as -j 1, in every output form.
#
# Two ELF files with many functions: the symprof binary itself (C, DWARF with inline
# chains) and libstdc++ (C++ names from .dynsym only, demangled with -C).  The address list
# holds DISTINCT addresses spread over each one's .text (a stride that is prime to its
# size), then the same addresses again in another order, then every fifth once more: more
# than the thresholds above which threads are used (cmd_symbolize.c: JOBS_MIN_RUN distinct
# misses in all, JOBS_MIN_BATCH in one batch), repeats inside a batch (resolved once, by
# one thread) and across batches (answered from the text cache).  Each form is run with -j 1,
# -j 2 and -j 4 and compared byte for byte; so are --cache-max=0 (no text cache) and a small
# --cache-max (answers partly cached).  Where strace works, -j 2 is seen to start threads
# on the large list and none on a small one.  Large blocks of input, cut into parts parsed
# and written by every thread, are run with odd lines, without a last newline and from a
# pipe.  A file that the threads' sessions cannot open (moved away) is answered by the
# command's thread.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

distinct=70000

# addrs ELF: the address list for ELF's .text (hex, one per line), on stdout
addrs()
{
	set -- $(readelf -SW "$1" | sed -n 's/.* \.text  *[A-Z]*  *\([0-9a-f]*\)  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1 \2/p')
	[ $# -eq 2 ] || return 1
	awk -v n="$distinct" -v start="$(printf '%d' "0x$1")" -v size="$(printf '%d' "0x$2")" '
		BEGIN {
			stride = 7919
			while (size % stride == 0) stride += 2
			for (i = 0; i < n; i++) printf "%x\n", start + (i * stride) % size
			for (i = n - 1; i >= 0; i -= 1) printf "0x%x\n", start + ((i * 31) % n * stride) % size
			for (i = 0; i < n; i += 5) printf "%x\n", start + (i * stride) % size
		}'
}

self=$SYMPROF
if [ "$(head -c 2 "$self")" = "#!" ]; then
	self=$(dirname "$SYMPROF")/.libs/$(basename "$SYMPROF")
fi
libstdcxx=$(g++ -print-file-name=libstdc++.so)
libstdcxx=$(readlink -f "$libstdcxx")
for elf in "$self" "$libstdcxx"; do
	[ -f "$elf" ] || sp_bail "no ELF file $elf"
done
addrs "$self" >"$tmp/self.in" || sp_bail "no .text in $self"
addrs "$libstdcxx" >"$tmp/cxx.in" || sp_bail "no .text in $libstdcxx"
sp_check "the lists hold $((distinct * 11 / 5)) lines" test "$(wc -l <"$tmp/self.in")" -eq $((distinct * 11 / 5))

# same NAME ELF INPUT OPTIONS...: -j 2 and -j 4 print what -j 1 prints (ELF "-": no -e)
same()
{
	sm_name=$1 sm_elf=$2 sm_in=$3
	shift 3
	[ "$sm_elf" = - ] || set -- "$@" -e "$sm_elf"
	sp_symprof symbolize -f -i -j 1 "$@" <"$sm_in" >"$tmp/j1" 2>"$tmp/err1"
	sm_rc1=$?
	for j in 2 4; do
		sp_symprof symbolize -f -i -j "$j" "$@" <"$sm_in" >"$tmp/j$j" 2>"$tmp/err$j"
		sm_rc=$?
		sp_same_run "$sm_name: -j $j prints what -j 1 prints (status $sm_rc, $sm_rc1)" \
			"$tmp/j1" "$tmp/j$j" "$sm_rc1" "$sm_rc" "$tmp/err1" "$tmp/err$j"
	done
}

same "symprof, addr2line form" "$self" "$tmp/self.in"
same "symprof, -a -f -i" "$self" "$tmp/self.in" -a -f -i
same "symprof, -a -p -s" "$self" "$tmp/self.in" -a -p -s
same "symprof, --json" "$self" "$tmp/self.in" --json
same "symprof, --output-style=LLVM -a" "$self" "$tmp/self.in" --output-style=LLVM -a
same "symprof, --output-style=JSON" "$self" "$tmp/self.in" --output-style=JSON
same "symprof, --cache-max=0" "$self" "$tmp/self.in" -a --cache-max=0
same "symprof, --cache-max=200000" "$self" "$tmp/self.in" -a --cache-max=200000
same "libstdc++, -C" "$libstdcxx" "$tmp/cxx.in" -C
same "libstdc++, -a -p -C" "$libstdcxx" "$tmp/cxx.in" -a -p -C
same "libstdc++, --relative --json" "$libstdcxx" "$tmp/cxx.in" --relative --json

# Lines that are no address among the others keep their places.
awk 'NR % 997 == 0 { print "not-an-address" } { print }' "$tmp/self.in" >"$tmp/mixed.in"
same "symprof, lines that are no address" "$self" "$tmp/mixed.in" -a
same "symprof, lines that are no address, JSON" "$self" "$tmp/mixed.in" --output-style=JSON

# Names from a perf map alone (no ELF file: the threads' sessions share the parent's map),
# and from the file first with the map for the rest.
nm -S --defined-only "$self" | awk 'NF == 4 && $3 ~ /^[tT]$/ { print $1, $2, "map_" $4 }' \
	>"$tmp/perf-77.map"
sp_check "a perf map of symprof's functions" test -s "$tmp/perf-77.map"
same "symprof's perf map, no ELF" - "$tmp/self.in" -a --perf-map "$tmp/perf-77.map"
[ "$(grep -c '^map_' "$tmp/j1")" -gt $((distinct / 2)) ]
sp_ok $? "the map names most addresses ($(grep -c '^map_' "$tmp/j1") lines)"
same "symprof and its perf map" "$self" "$tmp/mixed.in" --perf-map "$tmp/perf-77.map"

# The answers are the frames: the list's first address is in some function of symprof.
sp_symprof symbolize -f -i -j 2 -e "$self" <"$tmp/self.in" | head -n 1 >"$tmp/first"
grep -qv '^??$' "$tmp/first"
sp_ok $? "-j 2: the first address is named ($(cat "$tmp/first"))"

# threads ARGS...: how many threads and processes symprof symbolize ARGS starts (stdin:
# $tmp/in), counted by strace
threads()
{
	strace -f -qq -e trace=clone,clone3 -o "$tmp/strace" "$self" symbolize "$@" <"$tmp/in" >/dev/null 2>&1
	grep -c 'clone' "$tmp/strace"
}
if strace -f -qq -o /dev/null true 2>/dev/null; then
	cp "$tmp/self.in" "$tmp/in"
	t1=$(threads -j 1 -e "$self")
	t2=$(threads -j 2 -e "$self")
	[ "$t2" -gt "$t1" ]
	sp_ok $? "-j 2 on $(wc -l <"$tmp/in") lines starts threads ($t2 clones, -j 1: $t1)"
	head -n 1000 "$tmp/self.in" >"$tmp/in"
	t1=$(threads -j 1 -e "$self")
	t2=$(threads -j 2 -e "$self")
	[ "$t2" -eq "$t1" ]
	sp_ok $? "-j 2 on 1000 lines starts none ($t2 clones, -j 1: $t1)"
else
	sp_skip "strace cannot trace here: threads not counted"
fi

# Without -j: the CPUs, but the other threads' sessions only when the work left pays for
# them.  The same bytes as -j 1 on the large list; on 16500 distinct addresses, each
# twelve times (more than the thresholds, a few milliseconds of work), only the command's
# thread opens the file (strace; not with sanitizers or valgrind, whose slowness is work).
sp_symprof symbolize -f -i -j 1 -e "$self" <"$tmp/self.in" >"$tmp/d1" 2>&1
sp_symprof symbolize -f -i -e "$self" <"$tmp/self.in" >"$tmp/d0" 2>&1
cmp -s "$tmp/d1" "$tmp/d0"
sp_ok $? "without -j: the bytes of -j 1 ($(wc -l <"$tmp/d1") lines)"
if strace -f -qq -o /dev/null true 2>/dev/null && [ -z "${SP_VALGRIND:-}" ] &&
	! ldd "$self" 2>/dev/null | grep -q 'libasan\|libtsan'; then
	head -n 16500 "$tmp/self.in" >"$tmp/few"
	for k in 1 2 3 4 5 6 7 8 9 10 11 12; do cat "$tmp/few"; done >"$tmp/in"
	strace -f -qq -e trace=openat -o "$tmp/paced.strace" "$self" symbolize -e "$self" \
		<"$tmp/in" >/dev/null 2>&1
	main=$(head -n 1 "$tmp/paced.strace" | cut -d ' ' -f 1)
	others=$(awk -v m="$main" -v f="\"$self\"" '$1 != m && index($0, f)' "$tmp/paced.strace" | wc -l)
	[ "$others" -eq 0 ] && grep -q "\"$self\"" "$tmp/paced.strace"
	sp_ok $? "without -j, $(wc -l <"$tmp/in") lines of 16500 addresses: no other thread opens the file ($others opens)"
else
	sp_skip "strace cannot trace here, or a sanitizer or valgrind slows every address"
fi

# Large blocks of input (cmd_symbolize.c: run_block, at least PAR_MIN_BYTES read
# at once) are cut into parts at line boundaries: more than one block (the list four times
# over, 1.4 MiB, read in 1 MiB blocks), lines that take the slow parse (blanks, CR, upper
# case 0X, leading zeros, too long, empty) among the others, and a last line without its
# newline.
cat "$tmp/self.in" "$tmp/self.in" "$tmp/self.in" "$tmp/self.in" >"$tmp/big.in"
sp_check "the big list is more than one 1 MiB block" test "$(wc -c <"$tmp/big.in")" -gt $((1 << 20))
same "symprof, several blocks" "$self" "$tmp/big.in" -a
same "symprof, several blocks, --json" "$self" "$tmp/big.in" --json
awk 'NR % 101 == 0 { print "  0X" $0 "\r" } NR % 103 == 0 { print "" } NR % 107 == 0 { print "0000000000000000000" $0 }
	NR % 109 == 0 { print "12345678901234567" } { print }' "$tmp/self.in" >"$tmp/odd.in"
same "symprof, lines parsed the slow way" "$self" "$tmp/odd.in" -a
same "symprof, lines parsed the slow way, LLVM" "$self" "$tmp/odd.in" --output-style=LLVM
printf '%s' "$(cat "$tmp/self.in")" >"$tmp/nonl.in"
sp_check "the last line has no newline" test "$(tail -c 1 "$tmp/nonl.in" | od -An -c | tr -d ' ')" != '\n'
same "symprof, no newline at the end" "$self" "$tmp/nonl.in" -a
# through a pipe, the blocks are what each read finds: the same bytes whatever they are
sp_symprof symbolize -f -i -j 1 -a -e "$self" <"$tmp/big.in" >"$tmp/pipe1" 2>"$tmp/pipe1.err"
rc1=$?
cat "$tmp/big.in" | sp_symprof symbolize -f -i -j 2 -a -e "$self" >"$tmp/pipe2" 2>"$tmp/pipe2.err"
rc2=$?
sp_same_run "-j 2 from a pipe prints what -j 1 prints (status $rc2, $rc1)" \
	"$tmp/pipe1" "$tmp/pipe2" "$rc1" "$rc2" "$tmp/pipe1.err" "$tmp/pipe2.err"

# Output that is slow to write goes to a thread of its own while the next blocks are
# answered (batch.c: the writer): through a pipe whose reader takes one byte and then
# waits half a second (so the first block's write waits, however fast it was made), six
# blocks come out in order, the bytes -j 1 writes to a file, and strace sees threads other
# than the command's write some of them.  A write that fails there (the reader gone after
# 20 MB, SIGPIPE ignored) is said as -j 1 says it, with its status.
late() { dd bs=1 count=1 2>/dev/null; sleep 0.5; "$@"; }
for k in 1 2 3 4 5; do cat "$tmp/self.in"; done >"$tmp/five.in"
sp_check "the five-fold list is more than five 1 MiB blocks" test "$(wc -c <"$tmp/five.in")" -gt $((5 << 20))
sp_symprof symbolize -f -i -j 1 -a -e "$self" <"$tmp/five.in" >"$tmp/five1" 2>"$tmp/five1.err"
rc1=$?
{ sp_symprof symbolize -f -i -j 2 -a -e "$self" <"$tmp/five.in" 2>"$tmp/five2.err"; echo $? >"$tmp/five2.rc"; } |
	late cat >"$tmp/five2"
sp_same_run "-j 2 through a pipe read late prints what -j 1 prints (status $(cat "$tmp/five2.rc"), $rc1)" \
	"$tmp/five1" "$tmp/five2" "$rc1" "$(cat "$tmp/five2.rc")" "$tmp/five1.err" "$tmp/five2.err"
if strace -f -qq -o /dev/null true 2>/dev/null; then
	# the job's thread starts before the first read; the writer is the thread started
	# after the first write (the first block's), and it writes
	strace -f -qq -e trace=clone,clone3,writev -o "$tmp/slow.strace" "$self" symbolize -j 2 \
		-a -e "$self" <"$tmp/five.in" 2>/dev/null | late cat >/dev/null
	writer=$(awk '/writev/ { w = 1 } w && /clone/ { sub(/.*= */, ""); print; exit }' "$tmp/slow.strace")
	by_writer=$(awk -v w="${writer:-none}" '$1 == w && /writev/' "$tmp/slow.strace" | wc -l)
	[ -n "$writer" ] && [ "$by_writer" -gt 0 ]
	sp_ok $? "-j 2 through the slow pipe: a thread started after the first write writes (${writer:-none}: $by_writer writes)"
else
	sp_skip "strace cannot trace here: the writer not seen"
fi
for j in 1 2; do
	(
		trap '' PIPE
		{ sp_symprof symbolize -f -i -j $j -a -e "$self" <"$tmp/five.in" 2>"$tmp/epipe$j.err"
			echo $? >"$tmp/epipe$j.rc"; } | late head -c 20000000 >/dev/null
	)
done
[ "$(cat "$tmp/epipe1.rc")" -eq 1 ] && [ "$(cat "$tmp/epipe2.rc")" -eq 1 ] &&
	grep -q 'writing output: Broken pipe' "$tmp/epipe1.err" && cmp -s "$tmp/epipe1.err" "$tmp/epipe2.err"
sp_ok $? "-j 2, the reader gone: the error -j 1 says ($(cat "$tmp/epipe2.err")), status $(cat "$tmp/epipe2.rc")"

# A co-process still gets each answer before it sends the next line: after a block large
# enough for the parts (written at once, then a wait for its last answer), single lines.
first=$(head -n 1 "$tmp/self.in")
head -n 30000 "$tmp/self.in" >"$tmp/block.in"
sp_symprof symbolize -f -i -j 1 -a -e "$self" <"$tmp/block.in" >"$tmp/block.want"
sp_symprof symbolize -f -i -j 1 -a -e "$self" "$first" >"$tmp/first.want"
nb=$(wc -l <"$tmp/block.want") nf=$(wc -l <"$tmp/first.want")
mkfifo "$tmp/cin" "$tmp/cout"
sp_symprof symbolize -f -i -j 2 -a -e "$self" <"$tmp/cin" >"$tmp/cout" &
co=$!
# a hang fails instead of blocking ($co is the shell running sp_symprof: its child too)
(sleep 60; sp_kill_tree $co) & dog=$!
exec 3>"$tmp/cin" 4<"$tmp/cout"
# the block is written while its answers are read, as a co-process must do: the answers
# to the first part fill the pipe long before the block is all written
cat "$tmp/block.in" >&3 &
feeder=$!
# lines N FILE: the next N lines of the answers into $tmp/FILE (head stops reading there:
# nothing else is written before the next line is sent)
lines() { head -n "$1" <&4 >"$tmp/$2"; }
lines "$nb" block.got
wait $feeder
echo "$first" >&3
lines "$nf" first.got
echo "$first" >&3
lines "$nf" again.got
exec 3>&-
cat <&4 >/dev/null; exec 4<&-
wait $co
sp_kill_tree $dog
cmp -s "$tmp/block.got" "$tmp/block.want" && cmp -s "$tmp/first.got" "$tmp/first.want" &&
	cmp -s "$tmp/again.got" "$tmp/first.want"
sp_ok $? "-j 2 as a co-process: each line answered before the next is sent (after $nb lines)"

# A thread whose session cannot open the file hands its chunks back to the command's
# thread, which answers them as -j 1 does.  The file is moved away once the command's
# thread has it open and has resolved past JOBS_MIN_RUN (warm-up batches of 1800 distinct
# addresses, under JOBS_MIN_BATCH, answered one at a time), then a batch of 7000 new
# addresses goes to the threads, whose sessions open the file only then.  Where strace
# works, another thread is seen failing to open it.
cp "$self" "$tmp/moving"
addrs "$tmp/moving" | head -n 25000 >"$tmp/moving.in"
sp_symprof symbolize -j 1 --json -e "$tmp/moving" <"$tmp/moving.in" >"$tmp/moving.want"
mkfifo "$tmp/min" "$tmp/mout"
if strace -f -qq -o /dev/null true 2>/dev/null; then
	# (LeakSanitizer cannot run under ptrace: the sanitizer builds' leak check is off
	# for this run)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -e trace=openat -o "$tmp/moving.strace" "$self" symbolize -j 2 \
		--json -e "$tmp/moving" <"$tmp/min" >"$tmp/mout" 2>"$tmp/moving.err" &
else
	"$self" symbolize -j 2 --json -e "$tmp/moving" <"$tmp/min" >"$tmp/mout" 2>"$tmp/moving.err" &
fi
co=$!
(sleep 60; sp_kill_tree $co) & dog=$!
exec 5>"$tmp/min" 6<"$tmp/mout"
: >"$tmp/moving.got"
for k in 0 1 2 3 4 5 6 7 8 9; do
	sed -n "$((k * 1800 + 1)),$((k * 1800 + 1800))p" "$tmp/moving.in" >&5
	head -n 1800 <&6 >>"$tmp/moving.got"
done
mv "$tmp/moving" "$tmp/moved"
tail -n +18001 "$tmp/moving.in" >&5
exec 5>&-
cat <&6 >>"$tmp/moving.got"; exec 6<&-
wait $co
mrc=$?
sp_kill_tree $dog
sp_same_run "-j 2, the file moved away before the threads open it: what -j 1 prints (status $mrc)" \
	"$tmp/moving.want" "$tmp/moving.got" 0 "$mrc" /dev/null "$tmp/moving.err"
if [ -s "$tmp/moving.strace" ]; then
	main=$(head -n 1 "$tmp/moving.strace" | cut -d ' ' -f 1)
	awk -v main="$main" -v f="$tmp/moving" '$1 != main && index($0, "\"" f "\"")' \
		"$tmp/moving.strace" >"$tmp/moving.others"
	# The rest of the list may come through the pipe in pieces small enough to be
	# answered on one thread: then no other thread opened the file, and the case did
	# not arise (the answers are checked above all the same).
	if [ -s "$tmp/moving.others" ]; then
		grep -q ENOENT "$tmp/moving.others"
		sp_ok $? "-j 2, the file moved away: another thread's open of it failed (strace)" ||
			sed 's/^/#   /' "$tmp/moving.others"
	else
		sp_skip "-j 2, the file moved away: the rest was answered on one thread"
	fi
else
	sp_skip "strace cannot trace here: the failed open not seen"
fi

# A small list is answered as with -j 1 too.
head -n 100 "$tmp/self.in" >"$tmp/small.in"
same "symprof, 100 lines" "$self" "$tmp/small.in" -a

for bad in 0 x 65 -1; do
	sp_run symprof symbolize -f -i -j "$bad" -e "$self" 0x1
	[ "$rc" -eq 2 ] && grep -q -- "-j expects a number from 1 to 64, got '$bad'" "$tmp/err"
	sp_ok $? "-j $bad: usage error (status $rc)" || sp_show_err
done
sp_done
