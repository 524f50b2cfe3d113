#!/bin/sh
# otlp.sh [-r RUNS] [-w WORKDIR] [-n LOCATIONS] — symbolizing what the OpenTelemetry eBPF
# profiler sends from a busy host, against the same work given as pprof.
#
# bench/otlpgen.py makes the batch once in WORKDIR (default /tmp/sp-bench-otlp): an
# ExportProfilesServiceRequest of LOCATIONS unnamed native locations (default 1,000,000)
# in the 60 largest shared libraries of the machine (60 mappings and the kernel's), 40
# processes, stacks 8 to 40 deep.  symprof --no-symbolize turns it into pprof: the same
# mappings, addresses and samples.  Each is then symbolized into its own format, RUNS
# times (default 3) each way:
#   cold  the page cache of the batch and of every mapped file dropped before the run
#         (bench/evict.py; pages a running process maps stay);
#   warm  straight after a run, everything cached.
# symprof keeps no state between runs: warm is the page cache only.  Prints the median
# wall time, locations symbolized per second and peak RSS (/usr/bin/time), and how many
# locations got names.
set -eu
runs=3
work=${TMPDIR:-/tmp}/sp-bench-otlp
n=1000000
while getopts r:w:n: opt; do
	case $opt in
	r) runs=$OPTARG ;;
	w) work=$OPTARG ;;
	n) n=$OPTARG ;;
	*) echo "usage: otlp.sh [-r RUNS] [-w WORKDIR] [-n LOCATIONS]" >&2; exit 2 ;;
	esac
done
here=$(cd "$(dirname "$0")" && pwd)
SYMPROF=${SYMPROF:-$here/../build/symprof}
PY=
for py in python3 /usr/bin/python3; do
	"$py" -c 'import google.protobuf' 2>/dev/null && { PY=$py; break; }
done
[ -n "$PY" ] || { echo "otlp.sh: needs python3-protobuf" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "otlp.sh: needs /usr/bin/time (Debian package time)" >&2; exit 1; }
mkdir -p "$work"
batch=$work/batch-$n.otlp
if [ ! -s "$batch" ]; then
	$PY "$here/otlpgen.py" --locations "$n" "$batch"
	"$SYMPROF" convert -q --no-symbolize "$batch" -o "$work/batch-$n.pb.gz"
fi
dirs=$(sed 's|/[^/]*$||' "$batch.files" | sort -u | sed 's/^/--binary-path /' | tr '\n' ' ')
locs=$("$SYMPROF" info -q --no-symbolize "$batch" | awk '/locations:/ { print $4; exit }')

# one run: wall seconds and peak RSS (KiB) of converting IN to OUT
run()
{
	# shellcheck disable=SC2086 # $dirs is a list of options
	/usr/bin/time -f "%e %M" -o "$work/time" "$SYMPROF" convert -q --no-debuginfod $dirs "$1" \
		-o "$2" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
	cat "$work/time"
}

median()
{
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

printf '%-6s %-5s %9s %14s %10s\n' input cache "wall (s)" "locations/s" "peak MiB"
for mode in cold warm; do
	for fmt in otlp pprof; do
		in=$batch
		out=$work/out.otlp
		if [ "$fmt" = pprof ]; then
			in=$work/batch-$n.pb.gz
			out=$work/out.pb.gz
		fi
		: >"$work/runs"
		for _ in $(seq "$runs"); do
			if [ "$mode" = cold ]; then
				# shellcheck disable=SC2046 # one file a line, no spaces
				$PY "$here/evict.py" "$in" $(cat "$batch.files")
			else
				run "$in" "$out" >/dev/null
			fi
			run "$in" "$out" >>"$work/runs"
		done
		wall=$(awk '{ print $1 }' "$work/runs" | median)
		rss=$(awk '{ print $2 }' "$work/runs" | median)
		printf '%-6s %-5s %9s %14.0f %10.0f\n' "$fmt" "$mode" "$wall" \
			"$(echo "$locs / $wall" | bc -l)" "$(echo "$rss / 1024" | bc -l)"
	done
done
named=$("$SYMPROF" convert -q --no-symbolize "$work/out.otlp" --format raw |
	awk '/^Locations/ { l = 1; next } /^Mappings/ { l = 0 } l && /^ *[0-9]+: 0x[0-9a-f]+ M=[0-9]+ [^ ]/ { n++ } END { print n + 0 }')
echo "$locs locations, $named named"
