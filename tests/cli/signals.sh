#!/bin/sh
# signals.sh — -o's temporary file on every signal that ends the process, and the two
# that a write raises.  (outputs.sh does TERM, INT, HUP and BUS the same way.)
#   - QUIT, USR1, USR2, ALRM, XCPU, VTALRM, PROF, a real-time signal: the program ends by
#     the signal and neither out.pb.gz nor its temporary file is left (they left the
#     temporary file before);
#   - PIPE and XFSZ are ignored: sent by kill, the conversion goes on and writes its
#     output; a write past the file-size limit fails with EFBIG and a write to a closed
#     pipe with EPIPE, the error names the file and the cause, exit status 1, nothing
#     left (before: a 2 MB out.pb.gz.tmp.XXXXXX, no message, exit status 153).
# Runs are killed after 60 s (a hang fails); the file-size case stays within its
# --max-memory.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

# nothing_left DIR: DIR holds neither out.pb.gz nor a temporary file of it
nothing_left()
{
	! ls -a "$1" | grep -q '^out\.pb\.gz'
}

# shellcheck disable=SC3045 # dash and bash have ulimit -c
ulimit -c 0 # QUIT and XCPU would dump a core

# Large enough that writing the pprof takes a while (150,000 distinct stacks).
awk 'BEGIN { srand(1); for (i = 0; i < 150000; i++) {
	s = "main"
	for (d = 0; d < 12; d++) s = s ";f" int(rand() * 5000)
	print s, i + 1 } }' >"$tmp/big.folded"
mkdir "$tmp/sig"

# (35 is SIGRTMIN+1 under glibc, whose SIGRTMIN is 34)
for sig in QUIT:3 USR1:10 USR2:12 ALRM:14 XCPU:24 VTALRM:26 PROF:27 RTMIN+1:35; do
	signo=${sig#*:}
	sig=${sig%:*}
	sp_signal_mid_write "$signo" "$tmp/big.folded" "$tmp/sig"
	if [ -z "$caught" ]; then
		sp_skip "SIG$sig: the conversion ended before its temporary file was seen"
		continue
	fi
	sp_check "SIG$sig in the middle of the write ends the program by the signal ($st)" \
		test "$st" -eq $((128 + signo))
	sp_check "SIG$sig: neither out.pb.gz nor its temporary file is left" nothing_left "$tmp/sig"
done

for sig in PIPE:13 XFSZ:25; do
	sp_signal_mid_write "${sig#*:}" "$tmp/big.folded" "$tmp/sig"
	sig=${sig%:*}
	if [ -z "$caught" ]; then
		sp_skip "SIG$sig: the conversion ended before its temporary file was seen"
		continue
	fi
	sp_check "SIG$sig sent in the middle of the write is ignored: exit 0 ($st)" test "$st" -eq 0
	sp_check "... out.pb.gz is written" test -s "$tmp/sig/out.pb.gz"
	! ls -a "$tmp/sig" | grep -q '\.tmp\.'
	sp_ok $? "... and no temporary file is left"
done

# --- a write past the file-size limit ------------------------------------------------------
rm -f "$tmp/sig/"*
"$SP_BUILDDIR/tests/helpers/peak_mem" "$tmp/peak" 60 prlimit --fsize=1000000 "$SYMPROF" \
	convert --max-memory 256M -q "$tmp/big.folded" -o "$tmp/sig/out.pb.gz" >"$tmp/out" \
	2>"$tmp/err"
rc=$?
sp_check "a file-size limit of 1 MB: the conversion fails, exit 1 ($rc)" test "$rc" -eq 1
echo "symprof: $tmp/big.folded: pprof output: $tmp/sig/out.pb.gz: write failed: File too large" |
	cmp -s - "$tmp/err"
sp_ok $? "... the error names the output and the cause" || sp_show_err
sp_check "... neither out.pb.gz nor its temporary file is left" nothing_left "$tmp/sig"
if ! ldd "$SYMPROF" 2>/dev/null | grep -q libasan; then
	sp_peak_kb=$(cat "$tmp/peak")
fi
sp_peak_below $((256 * 1024)) "... within --max-memory 256M"

rm -f "$tmp/sig/"*
prlimit --fsize=1000000 "$SYMPROF" convert -q --format folded "$tmp/big.folded" \
	-o "$tmp/sig/out.folded" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] &&
	echo "symprof: $tmp/sig/out.folded: write failed: File too large" | cmp -s - "$tmp/err" &&
	[ -z "$(ls -A "$tmp/sig")" ]
sp_ok $? "folded output past the limit: exit 1, the cause named, nothing left ($rc)" || sp_show_err

# --- standard output to a closed pipe --------------------------------------------------------
# (the reader ends first; the write after fails with EPIPE instead of a silent SIGPIPE)
(sp_symprof convert -q --format folded "$tmp/big.folded" 2>"$tmp/err"; echo $? >"$tmp/rc") |
	head -c 1 >/dev/null
read -r rc <"$tmp/rc"
[ "$rc" -eq 1 ] && echo "symprof: standard output: write failed: Broken pipe" | cmp -s - "$tmp/err"
sp_ok $? "standard output closed by its reader: exit 1, \"Broken pipe\" said ($rc)" || sp_show_err

sp_done
