#!/bin/sh
# go.sh — a stripped Go binary (no DWARF, no .symtab: -ldflags="-s -w"), named from its
# .gopclntab by `symprof symbolize` and by `go tool addr2line`, on the same address list.
#
#   bench/go.sh [-r RUNS] [-n ADDRS] [-w WORKDIR] [ELF]
#
# Without ELF, the go command itself is built from the local Go tree
# ($(go env GOROOT)/src/cmd/go, offline) with -ldflags="-s -w" into WORKDIR (default
# /tmp/symprof-gobench) and reused from there.  ADDRS addresses (default 1 000 000) are drawn
# uniformly, with a fixed seed, from its .text.  Both tools run RUNS times (default 5),
# interleaved, output to /dev/null; the table gives the median wall time and user+system
# CPU time of each, and go tool addr2line's time over symprof's.  Before timing, every
# address is checked: symprof's outermost function and innermost file:line must be what
# go tool addr2line prints (it prints no inline frames; where it knows no line it prints
# ":-1", taken as "??:0") — the agreement is shown.  They differ on the C functions of a
# cgo binary, which have no line table: go tool addr2line decodes one from offset 0 anyway.
set -eu
runs=5 naddr=1000000 work=/tmp/symprof-gobench
while getopts r:n:w: o; do
	case $o in
	r) runs=$OPTARG ;;
	n) naddr=$OPTARG ;;
	w) work=$OPTARG ;;
	*) sed -n '2,17p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
SYMPROF=${SYMPROF:-./symprof}
case $SYMPROF in /*) ;; *) SYMPROF=$(pwd)/$SYMPROF ;; esac
command -v go >/dev/null || { echo "go.sh: go is not installed" >&2; exit 1; }
mkdir -p "$work"
if [ $# -gt 0 ]; then
	elf=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
else
	elf=$work/go-stripped
	if [ ! -s "$elf" ]; then
		echo "building cmd/go with -ldflags=\"-s -w\"..." >&2
		(cd "$(go env GOROOT)/src/cmd/go" && GOFLAGS='' GOPROXY=off go build -ldflags='-s -w' -o "$elf" .)
	fi
fi
cd "$work"

# .text's address and size, and the address list
# shellcheck disable=SC2046 # two words
set -- $(readelf -SW "$elf" | sed -n 's/.* \.text  *PROGBITS  *\([0-9a-f]*\) [0-9a-f]* \([0-9a-f]*\) .*/\1 \2/p')
[ $# -eq 2 ] || { echo "go.sh: $elf has no .text" >&2; exit 1; }
awk -v s=$((0x$1)) -v n=$((0x$2)) -v c="$naddr" \
	'BEGIN { srand(15); for (i = 0; i < c; i++) printf "0x%x\n", s + int(rand() * n) }' >addrs

# agreement: go tool addr2line prints function, file:line per address
"$SYMPROF" symbolize -a -e "$elf" <addrs |
	awk '/^0x/ { if (l != "") print l; l = ""; f = ""; n = 0; next }
	     { n++; if (n == 2) first = $0; if (n % 2) f = $0 }
	     { l = f " " first }
	     END { print l }' >ours.txt
# an unknown line is ":-1" (or another negative number) there, "??:0" here
go tool addr2line "$elf" <addrs | paste -d ' ' - - | sed 's/ :-[0-9]*$/ ??:0/' >theirs.txt
same=$(paste -d '\n' ours.txt theirs.txt | awk 'NR % 2 { a = $0; next } a == $0 { n++ } END { print n + 0 }')

now() { date +%s.%N; }
# one timed run of "$@" < addrs: "wall cpu" (seconds) appended to FILE ($1)
timed() {
	f=$1
	shift
	t0=$(now)
	/usr/bin/time -f '%U %S' -o cpu.tmp "$@" <addrs >/dev/null
	t1=$(now)
	awk -v a="$t0" -v b="$t1" '{ printf "%.3f %.3f\n", b - a, $1 + $2 }' cpu.tmp >>"$f"
}
: >t.symprof
: >t.go
i=0
while [ "$i" -lt "$runs" ]; do
	timed t.symprof "$SYMPROF" symbolize -e "$elf"
	timed t.go go tool addr2line "$elf"
	i=$((i + 1))
done
median() { sort -n | awk '{ t[NR] = $1 } END { printf "%.3f", (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2 }'; }
sw=$(cut -d' ' -f1 t.symprof | median) sc=$(cut -d' ' -f2 t.symprof | median)
gw=$(cut -d' ' -f1 t.go | median) gc=$(cut -d' ' -f2 t.go | median)

pcln=$(readelf -SW "$elf" | sed -n 's/.* \.gopclntab  *PROGBITS  *[0-9a-f]* [0-9a-f]* \([0-9a-f]*\) .*/\1/p')
printf 'binary: %s (%s MiB, .gopclntab %s KiB)\n' "$elf" "$(($(stat -c %s "$elf") / 1048576))" \
	"$((0x${pcln:-0} / 1024))"
printf 'addresses: %s from .text; outermost function and innermost file:line as go tool addr2line: %s of %s\n' \
	"$naddr" "$same" "$naddr"
printf 'load average (1 min) at the end: %s\n\n' "$(cut -d' ' -f1 /proc/loadavg)"
echo "| tool | median wall s | median user+sys s | ($runs runs, interleaved) |"
echo "|---|---|---|---|"
echo "| symprof symbolize -e ELF | $sw | $sc | |"
echo "| go tool addr2line ELF | $gw | $gc | |"
awk -v sw="$sw" -v gw="$gw" -v sc="$sc" -v gc="$gc" \
	'BEGIN { printf "| go tool addr2line / symprof | %.1fx | %.1fx | |\n", gw / sw, gc / sc }'
