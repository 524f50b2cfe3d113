#!/bin/sh
# unwind_limits.sh — --call-graph dwarf captures of a process with many mappings: the
# fixture testdata/src/unwind/unwmaps.c maps libunwleaf.so's code N times (each copy in a
# reservation of the library's span, as the dynamic loader lays one out) and calls its
# leaf in every copy: every sample in uw_leaf has the stack main;uw_drive;uw_leaf, by
# how the fixture is written.  Recorded here with perf record --call-graph dwarf.
#
# What must hold:
#   - descriptors: 1,000 mappings at ulimit -n 256 (soft and hard) give every uw_leaf
#     sample its whole stack, and info says no unwind was cut short (each mapping used
#     to hold a descriptor: 877 of 1,304 samples became the one-frame stack uw_leaf, exit
#     status 0, only libc's "Too many open files" on stderr);
#   - errors said: when the library cannot be opened (an LD_PRELOAD shim, built here,
#     fails its open() with EMFILE), the unwinds it cuts short are counted in info, each
#     stop marked "error:" with the reason, and a warning on stderr names the input,
#     how many of how many, and why;
#   - time linear in the mappings: 20,000 mappings (20,000 samples, 23 MB) convert within
#     4 s of CPU and the budget (reporting each mapping into libdwfl in a round of its
#     own took 12.4 s of CPU and 310 MB here; 0.25 s and 40 MB now);
#   - and at ulimit -n 256, the 20,000 give their whole stacks, or those cut short by an
#     error are counted on stderr.
# Every run is killed after 120 s (a hang fails), stays within --max-memory 256M, and
# leaves no temporary output.  Skips when perf cannot record --call-graph dwarf.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

sp_need_perf_dwarf
fix=$tmp/fix
sp_unwind_fixture "$fix"
lib=$fix/libunwleaf.so
mkdir "$tmp/o"
budget=256M
budget_kb=$((256 * 1024))

# record N MS OUT: the fixture with N copies for MS milliseconds
record()
{
	(cd "$fix" && perf record -q -e cpu-clock -F 10000 --call-graph dwarf,1024 -o "$3" -- \
		./unwmaps "$lib" "$1" "$2") >"$tmp/rec.log" 2>&1 ||
		{ sed 's/^/# /' "$tmp/rec.log"; sp_bail "perf record failed"; }
}

# leaf_stacks FOLDED: "WHOLE ALL": samples with uw_leaf in their stack (kernel frames may
# follow it) that begin main;uw_drive;uw_leaf, and all of them
leaf_stacks()
{
	awk '{ v = $NF; s = ";" $0; sub(/ [0-9]+$/, ";", s) }
	     index(s, ";uw_leaf;") { all += v }
	     index(s, ";main;uw_drive;uw_leaf;") == 1 { whole += v }
	     END { print whole + 0, all + 0 }' "$1"
}

# within WHAT: the last sp_run_peak ended by itself, within the budget, left nothing
within()
{
	[ "$rc" -ne 124 ]
	sp_ok $? "$1: ends by itself (no hang)"
	sp_peak_below "$budget_kb" "$1: within --max-memory $budget"
	! ls -a "$tmp/o" | grep -q '\.tmp\.'
	sp_ok $? "$1: no temporary output left"
}

record 1000 1000 "$tmp/m1k.data"

# --- descriptors ---------------------------------------------------------------------
# shellcheck disable=SC3045 # dash and bash have ulimit -n
(ulimit -n 256 && sp_run_peak 120 symprof convert --max-memory "$budget" --sample-index \
	samples "$tmp/m1k.data" -o "$tmp/o/m1k.folded" && echo "$rc $sp_peak_kb" >"$tmp/rc")
read -r rc sp_peak_kb <"$tmp/rc" || rc=1
sp_ok "$rc" "1,000 mappings at ulimit -n 256: convert exits 0" || sp_show_err
within "1,000 mappings at ulimit -n 256"
set -- $(leaf_stacks "$tmp/o/m1k.folded")
[ "$2" -gt 500 ] && [ "$1" -eq "$2" ]
sp_ok $? "... every uw_leaf sample has main;uw_drive;uw_leaf ($1 of $2)" ||
	sort -t' ' -k2 -nr "$tmp/o/m1k.folded" | head -n 5 | sed 's/^/#   /'
! grep -q 'cut short' "$tmp/err"
sp_ok $? "... and no warning of unwinds cut short" || sp_show_err
(ulimit -n 256 && sp_run_peak 120 symprof info --max-memory "$budget" "$tmp/m1k.data" &&
	echo "$rc" >"$tmp/rc" && cp "$tmp/out" "$tmp/info1k")
read -r rc <"$tmp/rc" || rc=1
! grep -q 'cut short by errors\|: error: ' "$tmp/info1k" &&
	grep -q '^  unwound: ' "$tmp/info1k"
sp_ok $? "... info: no unwind cut short by an error" ||
	grep -A4 unwound "$tmp/info1k" | sed 's/^/#   /'

# --- errors said -------------------------------------------------------------------------
if cc -shared -fPIC -o "$tmp/failopen.so" "$SP_SRCDIR/tests/helpers/failopen.c" -ldl \
	>"$tmp/cc.log" 2>&1; then
	# ASan must come first among the libraries; the shim wraps open() only
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
	FAIL_OPEN_SUFFIX=/libunwleaf.so LD_PRELOAD="$tmp/failopen.so" \
		sp_run_peak 120 symprof convert --max-memory "$budget" --sample-index samples \
		"$tmp/m1k.data" -o "$tmp/o/fail.folded"
	sp_ok "$rc" "libunwleaf.so cannot be opened (EMFILE): convert still exits 0" || sp_show_err
	within "libunwleaf.so cannot be opened"
	set -- $(leaf_stacks "$tmp/o/m1k.folded")
	want="symprof: warning: $tmp/m1k.data: $2 of [0-9]* unwinds cut short by errors, their stacks incomplete (symprof info lists them): $lib: build id none: $lib: Too many open files (1 places tried)"
	grep -qx "$want" "$tmp/err"
	sp_ok $? "... a warning names the input, $2 unwinds cut short and why" || sp_show_err
	FAIL_OPEN_SUFFIX=/libunwleaf.so LD_PRELOAD="$tmp/failopen.so" \
		sp_run_peak 120 symprof info --max-memory "$budget" "$tmp/m1k.data"
	grep -qx "    cut short by errors: $2 (their stacks are incomplete)" "$tmp/out" &&
		grep -qx "    stopped: $2 in pid [0-9]* at $lib: error: $lib: build id none: $lib: Too many open files (1 places tried)" \
			"$tmp/out"
	sp_ok $? "... info counts them and marks the stop an error, with the reason" ||
		grep -A5 unwound "$tmp/out" | sed 's/^/#   /'
	unset LD_PRELOAD FAIL_OPEN_SUFFIX
else
	sed 's/^/# /' "$tmp/cc.log"
	sp_skip "no C compiler to build the open() shim"
fi

# convert_20k LIMIT OUT WHAT: the 20,000-mapping capture converted to OUT under `ulimit
# LIMIT` (none under valgrind), then checked: exit 0, no hang, the budget, nothing left,
# 99 % of the uw_leaf samples whole; sets $1 and $2 as leaf_stacks does
convert_20k()
{
	if [ -n "${SP_VALGRIND:-}" ]; then
		sp_run_peak 3600 symprof convert --max-memory "$budget" --sample-index samples \
			"$tmp/m20k.data" -o "$2"
	else
		# shellcheck disable=SC2086,SC3045 # the limit's option and value; dash has ulimit -t, -n
		(ulimit $1 && sp_run_peak 120 symprof convert --max-memory "$budget" \
			--sample-index samples "$tmp/m20k.data" -o "$2" &&
			echo "$rc $sp_peak_kb" >"$tmp/rc")
		read -r rc sp_peak_kb <"$tmp/rc" || rc=1
	fi
	sp_ok "$rc" "$3" || sp_show_err
	within "20,000 mappings, ulimit $1"
	set -- $(leaf_stacks "$2")
	whole=$1 all=$2
	[ "$all" -gt 1000 ] && [ $((whole * 100)) -ge $((all * 99)) ]
	sp_ok $? "... 99 % of the uw_leaf samples have their whole stack ($whole of $all)"
}

# --- time linear in the mappings -----------------------------------------------------------
record 20000 2000 "$tmp/m20k.data"
convert_20k "-t 4" "$tmp/o/m20k.folded" "20,000 mappings convert within 4 s of CPU"

# --- many mappings and few descriptors -----------------------------------------------------
convert_20k "-n 256" "$tmp/o/m20k256.folded" "20,000 mappings at ulimit -n 256: convert exits 0"
# the others, if any, are said: a stack cut short by an error is never passed off as whole
[ "$all" -gt 1000 ] && { [ "$whole" -eq "$all" ] || grep -q \
	"^symprof: warning: $tmp/m20k.data: [0-9]* of [0-9]* unwinds cut short by errors" "$tmp/err"; }
sp_ok $? "... and an unwind cut short by an error, if any, is counted on stderr" || sp_show_err

sp_done
