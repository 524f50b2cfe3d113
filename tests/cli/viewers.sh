#!/bin/sh
# viewers.sh — `--format speedscope` and `--format firefox`, read back by
# tests/helpers/viewer_check.py (independent of symprof's C code):
#
# (a) a tcmalloc heap dump of the fixture (testdata/src/fixture) and the pprof symprof writes
#     of it: both files hold exactly the stacks and values of symprof's folded output;
#     the speedscope file is valid under the JSON schema of the speedscope npm package
#     (installed at test time into the test's directory; skipped when npm cannot), the
#     Firefox file a processed profile of version 47;
# (b) perf.data of the two-thread perf fixture (testdata/src/perf): one profile / thread per
#     thread, with the samples perf script counts for each tid and the worker's name; the
#     stacks of all threads together are the folded output's; the Firefox file's sample
#     times are perf script's, after the earliest sample, to 2 microseconds.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP python3 not installed"; exit 0; }
check="python3 $SP_SRCDIR/tests/helpers/viewer_check.py"

# The schema of the speedscope package, installed here (never committed).
schema=
if command -v npm >/dev/null 2>&1 &&
	timeout 120 npm install --prefix "$tmp/npm" --cache "$tmp/npm-cache" --no-audit --no-fund \
		--no-save --loglevel=error speedscope@1 >"$tmp/npm.log" 2>&1; then
	schema=$(find "$tmp/npm/node_modules/speedscope" -name file-format-schema.json | head -n 1)
fi

# both FILE.speedscope.json and FILE.firefox.json of INPUT with OPTIONS: valid, and their
# stacks those of the folded output
viewers()
{
	name=$1
	input=$2
	shift 2
	sp_run symprof convert -q "$@" "$input" --format folded
	sort "$tmp/out" >"$tmp/$name.folded"
	for kind in speedscope firefox; do
		out=$tmp/$name.$kind.json
		sp_run symprof convert -q "$@" "$input" -o "$out"
		sp_ok "$rc" "$name: convert -o $name.$kind.json" || sp_show_err
		if [ $kind = firefox ]; then
			sp_run $check firefox "$out"
			sp_ok "$rc" "$name: a processed profile of version 47" || sp_show_err
		elif [ -n "$schema" ]; then
			sp_run $check schema "$schema" "$out"
			if [ "$rc" -eq 77 ]; then
				sp_skip "$name: python3-jsonschema is not installed"
			else
				sp_ok "$rc" "$name: valid under the speedscope package's schema" || sp_show_err
			fi
		else
			sp_skip "$name: the speedscope npm package could not be installed"
		fi
		sp_run $check folded $kind "$out"
		sort "$tmp/out" >"$tmp/$name.$kind.folded"
		[ -s "$tmp/$name.folded" ] && cmp -s "$tmp/$name.folded" "$tmp/$name.$kind.folded"
		sp_ok $? "$name: the $kind file holds the folded output's stacks and values" ||
			diff "$tmp/$name.folded" "$tmp/$name.$kind.folded" | head -n 6 | sed 's/^/#   /'
	done
}

# (a) ------------------------------------------------------------------------------
if sp_fixture_heap "$tmp"; then
	viewers heap "$tmp/fixture.heap"
	sp_run symprof convert -q "$tmp/fixture.heap" -o "$tmp/fixture.pb.gz"
	viewers pprof "$tmp/fixture.pb.gz"
else
	sp_skip "the heap fixture does not build or record here"
fi

# (b) ------------------------------------------------------------------------------
if ! command -v perf >/dev/null 2>&1 ||
	! perf record -q -e cpu-clock -o "$tmp/probe.data" -- true >/dev/null 2>&1; then
	sp_skip "perf record does not work here"
	sp_done
	exit $?
fi
"$SP_SRCDIR/testdata/src/perf/build.sh" "$tmp/pfix" >"$tmp/build.log" 2>&1 || sp_bail "perf fixture does not build"
(cd "$tmp/pfix" && perf record -q -e cpu-clock -g -o "$tmp/p.data" -- ./perfbusy) >"$tmp/rec.log" 2>&1 ||
	sp_bail "perf record failed"
viewers perf "$tmp/p.data" --sample-index samples
perf script -F tid,time -i "$tmp/p.data" 2>/dev/null | awk '{ sub(/:$/, "", $2); print $1, $2 }' \
	>"$tmp/script.times"
awk '{ n[$1]++ } END { for (t in n) print t, n[t] }' "$tmp/script.times" | sort >"$tmp/script.threads"
for kind in speedscope firefox; do
	sp_run $check threads $kind "$tmp/perf.$kind.json"
	awk '{ print $1, $2 }' "$tmp/out" | sort >"$tmp/threads"
	[ "$(wc -l <"$tmp/threads")" -ge 2 ] && cmp -s "$tmp/threads" "$tmp/script.threads"
	sp_ok $? "perf: $kind has a thread per tid with perf script's samples ($(paste -sd' ' "$tmp/threads"))" ||
		sp_diag "perf script: $(paste -sd' ' "$tmp/script.threads")"
	grep -q ' pbworker' "$tmp/out"
	sp_ok $? "perf: $kind names the worker thread pbworker"
done
sp_run $check times "$tmp/perf.firefox.json" "$tmp/script.times"
sp_ok "$rc" "perf: firefox sample times are perf script's ($(cat "$tmp/out") samples)" || sp_show_err
sp_done
