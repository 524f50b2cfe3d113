#!/bin/sh
# cli_outputs.sh — what `-o` does to what it names, and what is left behind when a
# conversion does not finish.
#
# A device or a FIFO is written to directly (it stays a device or a FIFO); a symbolic
# link keeps pointing where it did and its target gets the output; a regular file is
# replaced whole, keeping its permission bits; a new file gets 0666 minus the umask.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

printf 'main;a 3\nmain;b 4\n' >"$tmp/in.folded"
printf 'main;a 3\nmain;b 4\n' >"$tmp/want"

# same_output FILE DESCRIPTION: FILE holds the conversion of in.folded.
same_output()
{
	if cmp -s "$tmp/want" "$1"; then
		sp_ok 0 "$2"
	else
		sp_ok 1 "$2"
		diff "$tmp/want" "$1" 2>&1 | head -n 5 | sed 's/^/#   /'
	fi
}

# leftovers DIR: no temporary output is left in DIR.
leftovers()
{
	ls -a "$1" | grep -q '\.tmp\.' && return 1
	return 0
}

# --- a character device ---------------------------------------------------------------
# One made here when allowed (so that a wrong rename cannot hurt the system's node),
# else /dev/null itself.
dev=$tmp/null
mknod "$dev" c 1 3 2>/dev/null && [ -c "$dev" ] && : >"$dev" 2>/dev/null || dev=/dev/null
sp_run symprof convert -q "$tmp/in.folded" --format folded -o "$dev"
sp_ok "$rc" "-o $dev (a character device) exits 0" || sp_show_err
sp_check "$dev is still a character device" test -c "$dev"
sp_check "no temporary file beside $dev" leftovers "$(dirname "$dev")"

# --- a FIFO: read what is written through it ------------------------------------------
mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/fifo.out" &
reader=$!
sp_run symprof convert -q "$tmp/in.folded" --format folded -o "$tmp/fifo"
sp_ok "$rc" "-o FIFO exits 0" || sp_show_err
# A run that failed may never have opened the FIFO: its reader would wait forever.
if [ "$rc" -ne 0 ]; then
	kill "$reader" 2>/dev/null
	sp_ok 1 "the FIFO is still a FIFO (the run failed)"
elif [ -p "$tmp/fifo" ]; then
	sp_ok 0 "the FIFO is still a FIFO"
	wait "$reader"
else
	sp_ok 1 "the FIFO is still a FIFO"
	kill "$reader" 2>/dev/null
fi
same_output "$tmp/fifo.out" "the reader of the FIFO got the output"

# --- a symbolic link: its target is replaced, the link stays ---------------------------
mkdir "$tmp/real" "$tmp/links"
echo old >"$tmp/real/target.folded"
ln -s ../real/target.folded "$tmp/links/out.folded"
sp_run symprof convert -q "$tmp/in.folded" -o "$tmp/links/out.folded"
sp_ok "$rc" "-o SYMLINK exits 0" || sp_show_err
sp_check "the link is still a link" test -L "$tmp/links/out.folded"
sp_check "the link still points to its target" \
	test "$(readlink "$tmp/links/out.folded")" = ../real/target.folded
same_output "$tmp/real/target.folded" "the link's target holds the output"
sp_check "no temporary file beside the link" leftovers "$tmp/links"
sp_check "no temporary file beside the target" leftovers "$tmp/real"

# A dangling link creates its target.
ln -s ../real/new.folded "$tmp/links/dangling.folded"
sp_run symprof convert -q "$tmp/in.folded" -o "$tmp/links/dangling.folded"
sp_ok "$rc" "-o DANGLING-SYMLINK exits 0" || sp_show_err
sp_check "the dangling link is still a link" test -L "$tmp/links/dangling.folded"
same_output "$tmp/real/new.folded" "the dangling link's target was created"

# --- a regular file keeps its mode; a new one follows the umask ------------------------
echo old >"$tmp/private.folded"
chmod 600 "$tmp/private.folded"
sp_run symprof convert -q "$tmp/in.folded" -o "$tmp/private.folded"
sp_ok "$rc" "-o an existing 0600 file exits 0" || sp_show_err
sp_check "the replaced file is still 0600" \
	test "$(stat -c %a "$tmp/private.folded")" = 600
same_output "$tmp/private.folded" "the replaced file holds the output"
chmod 640 "$tmp/private.folded"
sp_run symprof convert -q "$tmp/in.folded" -o "$tmp/private.folded"
sp_check "a 0640 file is still 0640" test "$(stat -c %a "$tmp/private.folded")" = 640

# The owner is kept where the rename would change it and chown is allowed (as root).
if [ "$(id -u)" = 0 ] && chown 65534:65534 "$tmp/private.folded" 2>/dev/null; then
	sp_run symprof convert -q "$tmp/in.folded" -o "$tmp/private.folded"
	sp_check "a file of another user keeps its owner and group" \
		test "$(stat -c %u:%g "$tmp/private.folded")" = 65534:65534
else
	sp_skip "not root: owners cannot be given away"
fi

(umask 027 && "$SYMPROF" convert -q "$tmp/in.folded" -o "$tmp/new.folded")
sp_check "a new file gets 0666 minus the umask (027: 640)" \
	test "$(stat -c %a "$tmp/new.folded")" = 640
sp_check "no temporary file is left in the test directory" leftovers "$tmp"

# --- a conversion ended by a signal leaves no temporary file -----------------------------
# Inputs large enough that writing the pprof takes a while (150,000 distinct stacks).
# The program is stopped, the temporary output is seen to exist, then the signal is sent
# and the program continued, so the signal always arrives in the middle of the write.
awk 'BEGIN { srand(1); for (i = 0; i < 150000; i++) {
	s = "main"
	for (d = 0; d < 12; d++) s = s ";f" int(rand() * 5000)
	print s, i + 1 } }' >"$tmp/big.folded"
mkdir "$tmp/sig"
for sig in TERM:15 INT:2 HUP:1 BUS:7; do
	signo=${sig#*:}
	sig=${sig%:*}
	# (a background job starts with SIGINT ignored: the program gets the default)
	sp_signal_mid_write "$sig" "$tmp/big.folded" "$tmp/sig"
	if [ -z "$caught" ]; then
		sp_skip "SIG$sig: the conversion ended before its temporary file was seen"
		continue
	fi
	if [ "$sig" = BUS ]; then
		# (what a mapped input that shrinks raises)
		sp_check "SIGBUS in the middle of the write is an error, exit 1 ($st)" test "$st" -eq 1
		sp_check "SIGBUS: the message names the input" \
			grep -q "^symprof: $tmp/big.folded: a file being read became shorter" "$tmp/err"
	else
		sp_check "SIG$sig in the middle of the write ends the program by the signal ($st)" \
			test "$st" -eq $((128 + signo))
	fi
	sp_check "SIG$sig: no out.pb.gz.tmp.* is left" leftovers "$tmp/sig"
	sp_check "SIG$sig: no out.pb.gz either" test ! -e "$tmp/sig/out.pb.gz"
done

# --- output lost on standard output is an error ------------------------------------------
if [ -w /dev/full ]; then
	for cmd in "info --no-symbolize" "convert -q --no-symbolize" "--help"; do
		# shellcheck disable=SC2086 # the command's words
		sp_symprof $cmd "$tmp/in.folded" >/dev/full 2>"$tmp/err"
		st=$?
		sp_check "symprof $cmd >/dev/full exits 1 ($st)" test "$st" -eq 1
		sp_check "... saying the output was lost" \
			grep -q "standard output: write failed: No space left on device" "$tmp/err"
	done
else
	sp_skip "no writable /dev/full"
fi

# --- what cannot be an output ----------------------------------------------------------
mkdir "$tmp/adir"
sp_run symprof convert -q "$tmp/in.folded" --format folded -o "$tmp/adir"
sp_check "-o DIRECTORY fails" test "$rc" -eq 1
sp_check "and says it is a directory" grep -q "adir: output is a directory" "$tmp/err"

sp_done
