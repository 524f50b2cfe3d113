#!/bin/sh
# cli_cpu.sh — end to end: a real gperftools CPU profile of the CPU fixture
# (testdata/src/fixture/busy.cc) converted by symprof to folded stacks and pprof.
#
# The fixture is built here (build.sh: -O2 -g, PIE, linked to libfixshared.so and
# Debian's libprofiler, dlopen()ing libfixplugin.so) and run with CPUPROFILE and
# CPUPROFILE_FREQUENCY=1000.  Its busy phase splits the same work loop 5 : 3 : 2 between
# fixture::busy_main, fixshared::busy_shared and fixplugin::busy_plugin (fixture.h), so the
# frames of every busy stack and the shares of CPU time are known; the shares are
# checked to within 10 percentage points.  go tool pprof is the independent reader of
# the original profile and of symprof's pprof.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"
. "$SP_SRCDIR/tests/cli/samples.sh"

fix=$tmp/fix
"$SP_SRCDIR/testdata/src/fixture/build.sh" "$fix" >"$tmp/build.log" 2>&1 ||
	{ sed 's/^/# /' "$tmp/build.log"; sp_bail "fixture does not build"; }
(cd "$fix" && env CPUPROFILE="$tmp/busy.prof" CPUPROFILE_FREQUENCY=1000 ./busy) \
	>/dev/null 2>&1 || sp_bail "busy fixture failed"
[ -s "$tmp/busy.prof" ] || sp_bail "busy fixture wrote no CPU profile"

# Spec 3: header slots 0 3 0 period 0, period = 1e6 / 1000 Hz = 1000 us (64-bit LE here).
hdr=$(od -An -t u8 -N 40 "$tmp/busy.prof" | tr -s ' \n' ' ' | sed 's/^ //; s/ $//')
[ "$hdr" = "0 3 0 1000 0" ]
sp_ok $? "CPU profile header is 0 3 0 1000 0 (got $hdr)"

sp_run symprof convert --sample-index cpu "$tmp/busy.prof" -o "$tmp/busy.folded"
sp_ok "$rc" "convert busy.prof -o busy.folded exits 0" || sp_show_err
# Samples, not nanoseconds, for the shares: the same totals divided by the period.
sp_run symprof convert --sample-index samples "$tmp/busy.prof" -o "$tmp/busy.samples.folded"
sp_ok "$rc" "convert --sample-index samples exits 0" || sp_show_err
# folded stacks count samples by default, as flamegraph.pl's stackcollapse scripts do
sp_run symprof convert "$tmp/busy.prof" -o "$tmp/busy.default.folded"
sp_ok "$rc" "convert busy.prof to folded exits 0" || sp_show_err
sp_check "folded stacks of a CPU profile count samples by default" \
	cmp -s "$tmp/busy.default.folded" "$tmp/busy.samples.folded"

# The three busy stacks, root first, frames restated from busy.cc / fixshared.cc /
# fixplugin.cc: the program's entry, libc's start-up, main, then the work chain.
chains="main fixture::busy_main 50
shared fixshared::busy_shared 30
plugin plugin_busy;fixplugin::busy_plugin 20"

# share FILE CHAIN: the summed value of the lines whose stack is exactly
# _start;...;main;CHAIN (any libc start-up frames between _start and main).
share()
{
	awk -v chain="main;$2" '
		{ v = $NF; s = $0; sub(/ [0-9]+$/, "", s)
		  tot += v
		  n = split(s, f, ";")
		  if (f[1] != "_start") next
		  m = split(chain, c, ";")
		  if (n < m + 1) next
		  for (i = 1; i <= m; i++) if (f[n - m + i] != c[i]) next
		  sum += v }
		END { print sum + 0, tot + 0 }' "$1"
}

total_samples=$(awk '{ t += $NF } END { print t + 0 }' "$tmp/busy.samples.folded")
[ "$total_samples" -ge 200 ]
sp_ok $? "at least 200 samples in the profile (got $total_samples)"

busy_sum=0
while read -r what chain pct; do
	set -- $(share "$tmp/busy.samples.folded" "$chain")
	n=$1 tot=$2
	busy_sum=$((busy_sum + n))
	[ "$n" -gt 0 ]
	sp_ok $? "$what: _start;...;main;$chain has samples ($n)" ||
		grep -F -- "${chain##*;}" "$tmp/busy.samples.folded" | head -n 3 | sed 's/^/#   have: /'
	got=$((n * 100 / (tot > 0 ? tot : 1)))
	[ "$got" -ge $((pct - 10)) ] && [ "$got" -le $((pct + 10)) ]
	sp_ok $? "$what: share ${got}% is ${pct}% +- 10 points"
	# the nanosecond column says the same: samples x 1 ms period
	set -- $(share "$tmp/busy.folded" "$chain")
	[ "$1" -eq $((n * 1000000)) ]
	sp_ok $? "$what: cpu/nanoseconds = samples x 1000000 ($1 for $n samples)"
done <<EOF
$chains
EOF
[ $((busy_sum * 100)) -ge $((total_samples * 90)) ]
sp_ok $? "the three busy stacks hold at least 90% of the samples ($busy_sum of $total_samples)"

# No frame of the profiler's signal handler survives (spec 3 drop_frames; 2.7 clean-ups).
! grep -Eq 'ProfileData::|prof_handler|__restore|__pthread_sighandler' "$tmp/busy.folded"
sp_ok $? "no profiler signal-handler frames in the folded stacks"

# pprof output: names and sample-by-sample agreement with go tool pprof's reading.
sp_run symprof convert "$tmp/busy.prof" -o "$tmp/busy.pb.gz"
sp_ok "$rc" "convert busy.prof -o busy.pb.gz exits 0" || sp_show_err
if sp_have_go; then
	sp_run sp_gopprof -raw -symbolize=none "$tmp/busy.pb.gz"
	grep -q '^samples/count cpu/nanoseconds' "$tmp/out"
	sp_ok $? "busy.pb.gz: sample types samples/count cpu/nanoseconds"
	for f in fixture::busy_main fixshared::busy_shared fixplugin::busy_plugin plugin_busy main; do
		grep -Fq -- " $f " "$tmp/out"
		sp_ok $? "busy.pb.gz: go tool pprof -raw shows $f"
	done
	pp_total=$(sp_raw_samples <"$tmp/out" | awk '{ t += $1 } END { print t + 0 }')
	[ "$pp_total" -eq "$total_samples" ]
	sp_ok $? "pprof and folded outputs count the same samples ($pp_total, $total_samples)"
	sp_same_samples "CPU profile" "$tmp/busy.prof" "$tmp/busy.pb.gz"
	# Reports of a CPU profile (time values, ms/s units) as go tool pprof draws them.
	# Samples in the vdso (no file to read) stay unsymbolized, and pprof names such
	# a frame by its mapping alone where symprof keeps the address: they are left out.
	for opts in "--ignore vdso" "--lines --ignore vdso" "--sample-index samples --ignore vdso" \
		"--nodecount 4 --ignore vdso"; do
		sp_reports_agree "$tmp/busy.prof" "$tmp/busy.pb.gz" "$opts"
	done
else
	sp_skip "go not installed: pprof output not checked with go tool pprof"
fi

sp_done
