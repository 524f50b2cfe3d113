#!/bin/sh
# cli_perf_z.sh — end to end: the perf.data fixture (testdata/src/perf, plan in perfbusy.h)
# recorded here with `perf record -z` (zstd-compressed records) with frame pointers in
# file mode and in pipe mode (`-o -`), and with `--call-graph dwarf`, converted by symprof.
#
# What must hold:
#   - every sample is kept: symprof's total equals the SAMPLE events of
#     `perf report --stats` and the samples `perf script` prints (perf reads -z itself);
#   - the file did hold compressed records (info names them), and perf script's stacks
#     of the fixture's functions, with their counts, are symprof's;
#   - the same recording with its COMPRESSED records replaced by the records they hold,
#     decompressed by the zstd command (tests/helpers/perf_unzstd.py; perf inject 6.1 copies
#     COMPRESSED records unchanged), gives the same folded stacks, byte for byte, as
#     does the pipe-mode recording read from a pipe.
# Skips when perf or zstd is missing, or perf cannot record (compressed) here.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

for tool in perf zstd python3; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "1..0 # SKIP $tool is not installed"
		exit 0
	fi
done
if ! perf record -q -z -e cpu-clock -o "$tmp/probe.data" -- true >"$tmp/probe.log" 2>&1; then
	echo "1..0 # SKIP perf record -z -e cpu-clock does not work here: $(head -n 1 "$tmp/probe.log")"
	exit 0
fi

fix=$tmp/fix
"$SP_SRCDIR/testdata/src/perf/build.sh" "$fix" >"$tmp/build.log" 2>&1 ||
	{ sed 's/^/# /' "$tmp/build.log"; sp_bail "perf fixture does not build"; }
(cd "$fix" && perf record -q -z -e cpu-clock -g -o "$tmp/file.data" -- ./perfbusy) \
	>"$tmp/rec.log" 2>&1 || { sed 's/^/# /' "$tmp/rec.log"; sp_bail "perf record -z failed"; }
(cd "$fix" && perf record -q -z -e cpu-clock -g -o - -- ./perfbusy >"$tmp/pipe.data") \
	2>"$tmp/rec.log" || { sed 's/^/# /' "$tmp/rec.log"; sp_bail "perf record -z -o - failed"; }
(cd "$fix" && perf record -q -z -e cpu-clock -F 1000 --call-graph dwarf -o "$tmp/dwarf.data" \
	-- ./perfbusy) >"$tmp/rec.log" 2>&1 ||
	{ sed 's/^/# /' "$tmp/rec.log"; sp_bail "perf record -z --call-graph dwarf failed"; }

vocab="main run_rounds worker_main busy_main busy_shared busy_plugin pb_step"

for mode in file pipe dwarf; do
	data=$tmp/$mode.data
	sp_run symprof convert --sample-index samples "$data" -o "$tmp/$mode.folded"
	sp_ok "$rc" "$mode: convert -o $mode.folded exits 0" || sp_show_err

	want=$(perf report -i "$data" --stats 2>"$tmp/report.err" |
		awk '/SAMPLE events:/ { print $3; exit }')
	got=$(awk '{ t += $NF } END { print t + 0 }' "$tmp/$mode.folded")
	if [ -z "$want" ] && grep -q "Couldn't decompress data" "$tmp/report.err"; then
		# observed with perf 6.1 on pipe-mode -z recordings: perf report gives up
		# ("dst_size 0"), perf script reads them (below)
		sp_skip "$mode: perf report --stats cannot decompress this recording itself"
	else
		[ -n "$want" ] && [ "$got" -eq "$want" ] && [ "$got" -gt 100 ]
		sp_ok $? "$mode: $got samples, as perf report --stats counts ($want)"
	fi
	nscript=$(perf script -F period -i "$data" 2>/dev/null | grep -c "^ *[0-9][0-9]* *$")
	[ "$got" -eq "$nscript" ]
	sp_ok $? "$mode: as many samples as perf script prints ($nscript)"

	sp_run symprof info "$data"
	grep -q 'comment: perf.data: zstd-compressed records (perf record -z, level 1' "$tmp/out"
	sp_ok $? "$mode: info says the records were zstd-compressed" || sed 's/^/#   /' "$tmp/out"

	if [ "$mode" != dwarf ]; then
		# (the two unwinders may give up on different samples: cli_unwind.sh)
		sp_perf_stacks "$data" >"$tmp/$mode.perf.stacks"
		sp_folded_stacks "$tmp/$mode.folded" >"$tmp/$mode.sym.stacks"
		[ -s "$tmp/$mode.sym.stacks" ] && cmp -s "$tmp/$mode.perf.stacks" "$tmp/$mode.sym.stacks"
		sp_ok $? "$mode: perf script's stacks of the fixture's functions, with their counts, are symprof's" ||
			diff "$tmp/$mode.perf.stacks" "$tmp/$mode.sym.stacks" | head -n 20 | sed 's/^/#   /'
	fi

	python3 "$SP_SRCDIR/tests/helpers/perf_unzstd.py" "$data" "$tmp/$mode.plain.data" 2>"$tmp/unz.err"
	sp_ok $? "$mode: decompressed by zstd into an uncompressed recording" || sed 's/^/#   /' "$tmp/unz.err"
	sp_run symprof info "$tmp/$mode.plain.data"
	[ "$rc" -eq 0 ] && ! grep -q 'zstd-compressed' "$tmp/out"
	sp_ok $? "$mode: the decompressed recording holds no compressed records"
	sp_run symprof convert --sample-index samples "$tmp/$mode.plain.data" -o "$tmp/$mode.plain.folded"
	[ "$rc" -eq 0 ] && cmp -s "$tmp/$mode.folded" "$tmp/$mode.plain.folded"
	sp_ok $? "$mode: the same folded stacks as the recording decompressed by zstd" ||
		diff "$tmp/$mode.folded" "$tmp/$mode.plain.folded" | head -n 10 | sed 's/^/#   /'
done

# a pipe-mode recording streams through a pipe, decompressed as it comes
cat "$tmp/pipe.data" | "$SYMPROF" convert --sample-index samples /dev/stdin \
	>"$tmp/stdin.folded" 2>"$tmp/stdin.err"
[ $? -eq 0 ] && cmp -s "$tmp/pipe.folded" "$tmp/stdin.folded"
sp_ok $? "pipe: read from a pipe, the same folded stacks" || sed 's/^/#   /' "$tmp/stdin.err"

sp_done
