#!/bin/sh
# deep.sh — deep stacks, many samples: a heap profile of SAMPLES samples
# (default 1,000,000) drawn from POOL distinct stacks (default 20,000), 10-40
# frames deep, over ELF (bench/samples.py), converted by two symprof builds
# to folded, pprof, a flame graph and top, interleaved (OLD then NEW for each
# format, RUNS times); prints the median wall time, CPU time (user+sys) and
# peak RSS of each, and NEW over OLD.
#
#   OLD=/path/to/old/symprof NEW=build/symprof sh bench/deep.sh [-r RUNS] [-n SAMPLES] [-p POOL] ELF
#
# WORKDIR (default /tmp/symprof-deep) keeps the generated profile between runs.
set -eu
runs=5 n=1000000 pool=20000
while :; do
	case ${1:-} in
	-r) runs=$2; shift 2 ;;
	-n) n=$2; shift 2 ;;
	-p) pool=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { echo "usage: OLD=... NEW=... $0 [-r RUNS] [-n SAMPLES] [-p POOL] ELF" >&2; exit 2; }
: "${OLD:?OLD=old symprof}" "${NEW:?NEW=new symprof}"
elf=$1
here=$(dirname "$0")
work=${WORKDIR:-${TMPDIR:-/tmp}/symprof-deep}
mkdir -p "$work"
in=$work/$n-pool$pool.heap
[ -s "$in" ] || python3 "$here/samples.py" --pool "$pool" "$elf" "$n" >"$in"
formats="folded pprof flamegraph top"
for f in $formats; do : >"$work/OLD.$f"; : >"$work/NEW.$f"; done
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "$n samples, $pool distinct stacks, $(wc -c <"$in") bytes; load before: $(uptime | sed 's/.*load average: //')"
r=0
while [ $r -lt "$runs" ]; do
	for f in $formats; do
		for b in OLD NEW; do
			eval bin=\$$b
			/usr/bin/time -f '%e %U %S %M' -o "$work/time" "$bin" convert -q -j 1 \
				--format "$f" "$in" -o /dev/null
			awk '{printf "%s %.2f %d\n", $1, $2 + $3, $4}' "$work/time" >>"$work/$b.$f"
		done
	done
	r=$((r + 1))
done
echo "load after: $(uptime | sed 's/.*load average: //')"
printf '%-11s %-4s %9s %9s %9s\n' format build 'wall s' 'CPU s' 'peak MiB'
for f in $formats; do
	for b in OLD NEW; do
		w=$(cut -d' ' -f1 "$work/$b.$f" | median)
		c=$(cut -d' ' -f2 "$work/$b.$f" | median)
		m=$(($(cut -d' ' -f3 "$work/$b.$f" | median) / 1024))
		eval "${b}_w=$w ${b}_c=$c ${b}_m=$m"
		printf '%-11s %-4s %9s %9s %9s\n' "$f" "$b" "$w" "$c" "$m"
	done
	echo "$f NEW/OLD: wall $NEW_w/$OLD_w CPU $NEW_c/$OLD_c peak $NEW_m/$OLD_m" |
		awk '{split($4, w, "/"); split($6, c, "/"); split($8, m, "/");
		      printf "%-11s NEW/OLD   wall %.2f  CPU %.2f  peak %.2f\n", $1,
		      w[1] / w[2], c[1] / c[2], m[1] / m[2]}'
done
