#!/bin/sh
# each_killed.sh — a `convert --each -j 2` worker killed in the middle of writing its
# output: with SIGKILL (the OOM killer's signal, which runs no handler) or SIGSEGV.  The
# parent knows the input the worker had and its temporary output (the worker keeps a copy
# of its list in memory it shares with the parent): it removes the file, says which signal
# ended the worker, and the other inputs are converted.  Before: NAME.pb.gz.tmp.* was left
# and the parent said only "its conversion stopped".  The parent's run is killed after
# 120 s (a hang fails) and stays within its --max-memory.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

# shellcheck disable=SC3045 # dash and bash have ulimit -c
ulimit -c 0 # SIGSEGV would dump a core

# Inputs whose pprof takes a while to write (150,000 distinct stacks each).
awk 'BEGIN { srand(1); for (i = 0; i < 150000; i++) {
	s = "main"
	for (d = 0; d < 12; d++) s = s ";f" int(rand() * 5000)
	print s, i + 1 } }' >"$tmp/in1.folded"
for i in 2 3 4 5; do cp "$tmp/in1.folded" "$tmp/in$i.folded"; done
asan=
ldd "$SYMPROF" 2>/dev/null | grep -q libasan && asan=yes

for sig in KILL SEGV; do
	rm -rf "$tmp/o"
	mkdir "$tmp/o"
	"$SP_BUILDDIR/tests/helpers/peak_mem" "$tmp/peak" 120 "$SYMPROF" convert --each -j 2 \
		--max-memory 256M --format pprof "$tmp/in1.folded" "$tmp/in2.folded" \
		"$tmp/in3.folded" "$tmp/in4.folded" "$tmp/in5.folded" -o "$tmp/o" \
		>"$tmp/out" 2>"$tmp/err" &
	pm=$!
	# the worker writing a temporary output: a child of symprof, itself peak_mem's child
	victim=
	k=0
	while [ -z "$victim" ] && [ $k -lt 2000 ] && kill -0 "$pm" 2>/dev/null; do
		for parent in $(sp_children "$pm"); do
			for w in $(sp_children "$parent"); do
				if ls -l "/proc/$w/fd" 2>/dev/null | grep -q '\.pb\.gz\.tmp\.'; then
					victim=$w
				fi
			done
		done
		[ -n "$victim" ] || sleep 0.01
		k=$((k + 1))
	done
	[ -n "$victim" ] && kill -"$sig" "$victim"
	wait "$pm"
	rc=$?
	if [ -z "$victim" ]; then
		sp_skip "SIG$sig: no worker was seen writing its output"
		continue
	fi
	[ "$rc" -eq 1 ]
	sp_ok $? "a worker killed by SIG$sig while it writes: the parent exits 1 ($rc)" || sp_show_err
	[ "$rc" -ne 124 ]
	sp_ok $? "SIG$sig: the parent ends by itself (no hang)"
	! ls -a "$tmp/o" | grep -q '\.tmp\.'
	sp_ok $? "SIG$sig: no NAME.pb.gz.tmp.* is left" || ls -a "$tmp/o" | sed 's/^/#   /'
	# the input it had, the signal, and the file removed (which the worker's own handler
	# may have removed first: SIGSEGV runs it, SIGKILL never does)
	in='[^ ]*/in[1-5]\.folded'
	removed="; its temporary output removed: $tmp/o/in[1-5]\\.folded\\.pb\\.gz\\.tmp\\.[A-Za-z0-9]*"
	case $sig in
	KILL) want="was killed by SIGKILL (Killed)$removed" ;;
	SEGV) want="was killed by SIGSEGV (Segmentation fault)\\($removed\\)\\{0,1\\}"
	      # a sanitizer handles SIGSEGV itself and exits 1
	      [ -n "$asan" ] && want="ended with status 1\\($removed\\)\\{0,1\\}" ;;
	esac
	grep -qx "symprof convert: $in: failed: the process converting it $want" "$tmp/err"
	sp_ok $? "SIG$sig: the parent names the input, the signal and what it removed" ||
		sp_show_err
	grep -qx "symprof convert: 4 of 5 inputs converted into $tmp/o, 1 failed" "$tmp/err" &&
		[ "$(ls "$tmp/o" | grep -c '\.pb\.gz$')" -eq 4 ]
	sp_ok $? "SIG$sig: the four other inputs are converted" || sp_show_err
	if [ -z "$asan" ]; then
		[ "$(cat "$tmp/peak")" -lt $((256 * 1024 + 16 * 1024)) ]
		sp_ok $? "SIG$sig: the parent within --max-memory 256M (peak $(cat "$tmp/peak") KiB)"
	else
		sp_skip "SIG$sig: no peak figure under AddressSanitizer"
	fi
done

sp_done
