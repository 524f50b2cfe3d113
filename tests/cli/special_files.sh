#!/bin/sh
# special_files.sh — paths symprof did not choose (a mapping's file, the entries of a
# --perf-map or --jitdump directory in world-writable /tmp, a .dwo a binary names) that
# are not regular files: a FIFO, which a blocking open waits on for ever, /dev/zero,
# which reads without end, /dev/tty.  Each is refused, never waited on or read, and the
# reason says what it is ("not a regular file: a FIFO"), not "file not found".  Every
# run is killed after 20 s (a hang fails), its peak memory (resident set plus memory
# files, tests/helpers/peak_mem.py) stays below its --max-memory of 64 MiB, and no
# temporary output is left.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

budget=64M
budget_kb=$((64 * 1024))

# nothing_left DIR: DIR holds no temporary output (NAME.tmp.XXXXXX)
nothing_left()
{
	! ls -a "$1" | grep -q '\.tmp\.'
}

# ran_within WHAT: the last sp_run_peak ended by itself, below the budget, left nothing
ran_within()
{
	[ "$rc" -ne 124 ]
	sp_ok $? "$1: ends by itself (no hang)"
	sp_peak_below "$budget_kb" "$1: within --max-memory $budget"
	sp_check "$1: no temporary output left" nothing_left "$tmp/o"
}

mkdir "$tmp/o" "$tmp/maps" "$tmp/dumps"
mkfifo "$tmp/fifo"

# --- a mapping's file (finding: "file not found ... set DEBUGINFOD_URLS") -----------
cat >"$tmp/dev.raw" <<EOF
# symprof raw stacks v1
1 @ 0x10000010
1 @ 0x20000010
1 @ 0x30000010
--- Memory map: ---
10000000-10008000 r-xp 00000000 00:05 1 /dev/zero
20000000-20008000 r-xp 00000000 00:05 2 /dev/tty
30000000-30008000 r-xp 00000000 00:05 3 $tmp/fifo
EOF
sp_run_peak 20 symprof convert --max-memory "$budget" "$tmp/dev.raw" -o "$tmp/o/dev.folded"
sp_ok "$rc" "mappings naming /dev/zero, /dev/tty and a FIFO: convert exits 0" || sp_show_err
ran_within "mappings naming devices"
# nothing the user can act on: no line on stderr (none saying "file not found" or
# asking for debuginfod); info says why, below
[ ! -s "$tmp/err" ]
sp_ok $? "... no stderr line sends the user looking for those files" || sp_show_err
sp_run symprof convert -q --addresses --max-memory "$budget" "$tmp/dev.raw" -o "$tmp/o/deva.folded"
printf 'fifo+0x10 1\ntty+0x10 1\nzero+0x10 1\n' | cmp -s - "$tmp/o/deva.folded"
sp_ok $? "... and with --addresses the frames keep their file's offsets" ||
	sed 's/^/#   /' "$tmp/o/deva.folded"
sp_run_peak 20 symprof info --max-memory "$budget" "$tmp/dev.raw"
grep -qxF "    tried: $tmp/fifo (not a regular file: a FIFO)" "$tmp/out" &&
	[ "$(grep -cxF "    unresolved 1: not a regular file" "$tmp/out")" = 3 ]
sp_ok $? "info: the FIFO tried, and each mapping not a regular file" ||
	sed 's/^/#   /' "$tmp/out"

# --- --perf-map and --jitdump directories ----------------------------------------------
# perf-1.map a FIFO (no writer: a blocking open never returns), perf-2.map a link to
# /dev/zero (read to the memory limit before), perf-3.map a good map naming the address.
mkfifo "$tmp/maps/perf-1.map"
ln -s /dev/zero "$tmp/maps/perf-2.map"
printf '10000000 100 jitted_fn\n' >"$tmp/maps/perf-3.map"
printf '# symprof raw stacks v1\n1 @ 0x10000010\n' >"$tmp/jit.raw"
sp_run_peak 20 symprof convert --max-memory "$budget" --perf-map "$tmp/maps" "$tmp/jit.raw" \
	-o "$tmp/o/jit.folded"
sp_ok "$rc" "--perf-map DIR holding a FIFO and a link to /dev/zero: convert exits 0" ||
	sp_show_err
ran_within "--perf-map DIR"
cat >"$tmp/want" <<EOF
symprof: note: $tmp/maps/perf-1.map: not a regular file: a FIFO: skipped
symprof: note: $tmp/maps/perf-2.map: not a regular file: a character device: skipped
EOF
grep '^symprof: note:' "$tmp/err" | cmp -s "$tmp/want" -
sp_ok $? "... a note names each entry left out and what it is" || sp_show_err
printf 'jitted_fn 1\n' | cmp -s - "$tmp/o/jit.folded"
sp_ok $? "... and the good map names the address" || sed 's/^/#   /' "$tmp/o/jit.folded"

sp_run_peak 20 symprof convert --max-memory "$budget" --perf-map "$tmp/maps/perf-1.map" \
	"$tmp/jit.raw" -o "$tmp/o/jit2.folded"
[ "$rc" -eq 1 ] &&
	grep -qxF "symprof: $tmp/jit.raw: perf map: $tmp/maps/perf-1.map: not a regular file: a FIFO" \
		"$tmp/err"
sp_ok $? "--perf-map naming a FIFO itself: refused at once, naming it" || sp_show_err
ran_within "--perf-map FIFO"
sp_run_peak 20 symprof convert --max-memory "$budget" --perf-map "$tmp/maps/perf-2.map" \
	"$tmp/jit.raw" -o "$tmp/o/jit2.folded"
[ "$rc" -eq 1 ] && grep -qxF \
	"symprof: $tmp/jit.raw: perf map: $tmp/maps/perf-2.map: not a regular file: a character device" \
	"$tmp/err"
sp_ok $? "--perf-map naming a link to /dev/zero: refused before reading, naming the map" ||
	sp_show_err
ran_within "--perf-map /dev/zero"

mkfifo "$tmp/dumps/jit-1.dump"
ln -s /dev/zero "$tmp/dumps/jit-2.dump"
sp_run_peak 20 symprof convert --max-memory "$budget" --jitdump "$tmp/dumps" "$tmp/jit.raw" \
	-o "$tmp/o/dump.folded"
sp_ok "$rc" "--jitdump DIR holding a FIFO and a link to /dev/zero: convert exits 0" ||
	sp_show_err
ran_within "--jitdump DIR"
cat >"$tmp/want" <<EOF
symprof: note: $tmp/dumps/jit-1.dump: not a regular file: a FIFO: skipped
symprof: note: $tmp/dumps/jit-2.dump: not a regular file: a character device: skipped
EOF
grep '^symprof: note:' "$tmp/err" | cmp -s "$tmp/want" -
sp_ok $? "... a note names each entry left out and what it is" || sp_show_err

printf 'symprof: note: %s\nsymprof: note: %s\n' \
	"$tmp/maps/perf-1.map: not a regular file: a FIFO: skipped" \
	"$tmp/maps/perf-2.map: not a regular file: a character device: skipped" >"$tmp/want"
sp_run_peak 20 symprof symbolize -f --max-memory "$budget" --perf-map "$tmp/maps" 0x10000010
[ "$rc" -eq 0 ] && grep -qx 'jitted_fn' "$tmp/out" &&
	grep '^symprof: note:' "$tmp/err" | cmp -s - "$tmp/want"
sp_ok $? "symbolize --perf-map DIR: the same notes, the good map used" || sp_show_err
[ "$rc" -ne 124 ]
sp_ok $? "symbolize --perf-map DIR: ends by itself (no hang)"

# --- a .dwo the binary names is a FIFO --------------------------------------------------
if command -v g++ >/dev/null 2>&1; then
	mkdir "$tmp/sd"
	(cd "$tmp/sd" && g++ -O2 -g -gsplit-dwarf -gdwarf-5 -o prog \
		"$SP_SRCDIR/testdata/src/symbolize/fixture.cc" \
		"$SP_SRCDIR/testdata/src/symbolize/fixture_b.cc") >"$tmp/sd.log" 2>&1 ||
		{ sed 's/^/# /' "$tmp/sd.log"; sp_bail "split DWARF fixture does not build"; }
	for d in "$tmp"/sd/*.dwo; do
		rm "$d"
		mkfifo "$d"
	done
	main=$(nm "$tmp/sd/prog" | awk '$2 == "T" && $3 == "main" { print $1 }')
	sp_run_peak 20 symprof symbolize --max-memory "$budget" -e "$tmp/sd/prog" -f "0x$main"
	sp_ok "$rc" "a .dwo that is a FIFO: symbolize exits 0" || sp_show_err
	[ "$rc" -ne 124 ]
	sp_ok $? "... ends by itself (no hang)"
	sp_peak_below "$budget_kb" "... within --max-memory $budget"
	head -n 1 "$tmp/out" | grep -qx main
	sp_ok $? "... and names the function from the skeleton and the symbol table" ||
		sed 's/^/#   /' "$tmp/out"
	printf '# symprof raw stacks v1\n1 @ 0x%x\n--- Memory map: ---\n' \
		$((0x555555554000 + 0x$main)) >"$tmp/sd.raw"
	printf '555555554000-555555654000 r-xp 00000000 08:01 1 %s/sd/prog\n' "$tmp" >>"$tmp/sd.raw"
	sp_run_peak 20 symprof info --max-memory "$budget" "$tmp/sd.raw"
	grep -qxF "    tried: $tmp/sd/prog-fixture.dwo (not a regular file: a FIFO)" "$tmp/out"
	sp_ok $? "info: the .dwo tried, and that it is a FIFO" ||
		grep -E 'tried|detail' "$tmp/out" | sed 's/^/#   /'
else
	sp_skip "g++ not installed: no split DWARF fixture"
fi

sp_done
