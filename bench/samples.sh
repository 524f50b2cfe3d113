#!/bin/sh
# samples.sh — per-sample conversion cost: a synthetic heap profile of N
# samples (bench/samples.py) converted to folded and to pprof by two symprof
# builds, interleaved, RUNS times each; prints medians of wall time, CPU
# time (user+sys) and peak RSS, and the folded/pprof wall ratio.
#
#   OLD=/path/to/old/symprof NEW=build/symprof [POOL=P] sh bench/samples.sh [-r RUNS] [-j J] ELF N...
#
# POOL: distinct stacks the samples are drawn from (default N/10).
# -j J: NEW also runs as `convert -j J` (NEWJ), interleaved with the others,
# and its wall and CPU time are given over NEW's.  The load average is
# printed before and after each N.
# GO=1: also `go tool pprof -symbolize=none -proto` against both builds'
# `convert --no-symbolize --format pprof` on the same file, interleaved,
# RUNS times: medians of wall and CPU time, peak RSS, CPU over go's.
set -eu
runs=5
jobs=
while :; do
	case ${1:-} in
	-r) runs=$2; shift 2 ;;
	-j) jobs=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] || { echo "usage: OLD=... NEW=... $0 [-r RUNS] [-j J] ELF N..." >&2; exit 2; }
builds="OLD NEW"
[ -z "$jobs" ] || { builds="OLD NEW NEWJ"; NEWJ=$NEW; }
elf=$1; shift
here=$(dirname "$0")
work=${WORKDIR:-${TMPDIR:-/tmp}/symprof-samples}
mkdir -p "$work"
tm=$work/time.txt

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

for n in "$@"; do
	pool=${POOL:-0}
	in=$work/$n.heap
	[ "$pool" = 0 ] || in=$work/$n-pool$pool.heap
	[ -s "$in" ] || python3 "$here/samples.py" --pool "$pool" "$elf" "$n" >"$in"
	for fmt in folded pprof; do
		for b in $builds; do : >"$work/$b.$fmt"; done
	done
	echo "load before: $(uptime | sed 's/.*load average: //')"
	r=0
	while [ $r -lt "$runs" ]; do
		for fmt in folded pprof; do
			for b in $builds; do
				eval bin=\$$b
				j=1
				[ $b != NEWJ ] || j=$jobs
				set -- convert --format "$fmt" "$in" -o /dev/null
				[ $b = OLD ] || set -- "$@" -j "$j"
				/usr/bin/time -f '%e %U %S %M' -o "$tm" "$bin" "$@"
				awk '{printf "%s %.2f %d\n", $1, $2 + $3, $4}' "$tm" >>"$work/$b.$fmt"
			done
		done
		r=$((r + 1))
	done
	echo "load after: $(uptime | sed 's/.*load average: //')"
	for b in $builds; do
		for fmt in folded pprof; do
			f=$work/$b.$fmt
			eval "${b}_${fmt}_w=\$(cut -d' ' -f1 $f | median)"
			eval "${b}_${fmt}_c=\$(cut -d' ' -f2 $f | median)"
			eval "${b}_${fmt}_m=\$(cut -d' ' -f3 $f | median)"
		done
		eval "printf '%s %8s samples  folded %6ss wall %6ss cpu %6s MiB   pprof %6ss wall %6ss cpu %6s MiB   folded/pprof %s\n' \
			$b $n \$${b}_folded_w \$${b}_folded_c \$((\$${b}_folded_m / 1024)) \
			\$${b}_pprof_w \$${b}_pprof_c \$((\$${b}_pprof_m / 1024)) \
			\$(echo \"\$${b}_folded_w \$${b}_pprof_w\" | awk '{printf \"%.2f\", \$1 / \$2}')"
	done
	if [ -n "$jobs" ]; then
		for fmt in folded pprof; do
			eval "printf '%s -j %s / -j 1: %s wall %s cpu\n' $fmt $jobs \
				\$(echo \"\$NEWJ_${fmt}_w \$NEW_${fmt}_w\" | awk '{printf \"%.3f\", \$1 / \$2}') \
				\$(echo \"\$NEWJ_${fmt}_c \$NEW_${fmt}_c\" | awk '{printf \"%.3f\", \$1 / \$2}')"
		done
	fi
	[ "${GO:-0}" = 1 ] || continue
	for t in GO OLD NEW; do : >"$work/$t.nosym"; done
	r=0
	while [ $r -lt "$runs" ]; do
		for t in GO OLD NEW; do
			if [ $t = GO ]; then
				set -- go tool pprof -symbolize=none -proto "$in"
			else
				eval bin=\$$t
				set -- "$bin" convert --no-symbolize --format pprof "$in"
			fi
			/usr/bin/time -f '%e %U %S %M' -o "$tm" "$@" >/dev/null 2>"$work/err"
			awk '{printf "%s %.2f %d\n", $1, $2 + $3, $4}' "$tm" >>"$work/$t.nosym"
		done
		r=$((r + 1))
	done
	go_c=$(cut -d' ' -f2 "$work/GO.nosym" | median)
	for t in GO OLD NEW; do
		f=$work/$t.nosym
		c=$(cut -d' ' -f2 "$f" | median)
		printf '%s %8s samples  unsymbolized to pprof %6ss wall %6ss cpu %6s MiB   cpu/go %s\n' \
			"$t" "$n" "$(cut -d' ' -f1 "$f" | median)" "$c" \
			$(($(cut -d' ' -f3 "$f" | median) / 1024)) \
			"$(echo "$c $go_c" | awk '{printf "%.3f", $1 / $2}')"
	done
done
