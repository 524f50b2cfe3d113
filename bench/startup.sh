#!/bin/sh
# startup.sh — one address from start to finish on zlib-compressed DWARF: symprof against
# addr2line and eu-addr2line, and the same files with their DWARF stored uncompressed.
#
#   bench/startup.sh [-r RUNS] [-w WORKDIR] [-o OLD_SYMPROF]
#
# Files: Go's own cmd/go built from the local Go tree ($(go env GOROOT)/src/cmd/go,
# offline) into WORKDIR (default /tmp/symprof-startup), whose DWARF the Go linker
# compresses with zlib; Debian's libc.so.6 with its libc6-dbg debug file (zlib too), found
# by build id under /usr/lib/debug.  Bounds: the same with `objcopy
# --decompress-debug-sections` (cmd/go copied; for libc the decompressed debug file, given
# directly with -e, as GNU addr2line takes no debug directory).  Each case runs
# `symprof symbolize -f -i -C`, `addr2line -f -i -C` and `eu-addr2line -f -i -C` with one
# address on the command line, output to /dev/null, RUNS times (default 9), interleaved;
# the table gives median wall times and symprof's over each other tool's.  With -o, an
# older symprof build runs too, in the same rounds (its own column).
set -eu
runs=9 work=/tmp/symprof-startup old=
while getopts r:w:o: o; do
	case $o in
	r) runs=$OPTARG ;;
	w) work=$OPTARG ;;
	o) old=$OPTARG ;;
	*) sed -n '2,17p' "$0" >&2; exit 2 ;;
	esac
done
SYMPROF=${SYMPROF:-./symprof}
case $SYMPROF in /*) ;; *) SYMPROF=$(pwd)/$SYMPROF ;; esac
case $old in /* | '') ;; *) old=$(pwd)/$old ;; esac
for t in go addr2line eu-addr2line objcopy readelf nm; do
	command -v $t >/dev/null || { echo "startup.sh: $t is not installed" >&2; exit 1; }
done
mkdir -p "$work"
cd "$work"
if [ ! -s go-zlib ]; then
	echo "building cmd/go..." >&2
	(cd "$(go env GOROOT)/src/cmd/go" && GOFLAGS='' GOPROXY=off go build -o "$work/go-zlib" .)
fi
[ -s go-plain ] || objcopy --decompress-debug-sections go-zlib go-plain
libc=/lib/x86_64-linux-gnu/libc.so.6
id=$(readelf -n "$libc" | awk '/Build ID/ { print $3 }')
dbg=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
[ -f "$dbg" ] || { echo "startup.sh: no $dbg: apt-get install libc6-dbg" >&2; exit 1; }
[ -s libc-plain.debug ] || objcopy --decompress-debug-sections "$dbg" libc-plain.debug

# the address of symbol $2 in ELF $1 (inside it, past its first instruction)
addr() { nm "$1" 2>/dev/null | awk -v s="$2" '$3 == s { print $1; exit }' |
	python3 -c 'import sys; print(hex(int(sys.stdin.read(), 16) + 4))'; }
gomain=$(addr go-zlib main.main) goalloc=$(addr go-zlib runtime.mallocgc)
malloc=$(addr "$dbg" __libc_malloc)
# label, file, address
cases="cmd/go-main.main|go-zlib|$gomain
cmd/go-runtime.mallocgc|go-zlib|$goalloc
libc-malloc|$libc|$malloc
bound:cmd/go-main.main|go-plain|$gomain
bound:cmd/go-runtime.mallocgc|go-plain|$goalloc
bound:libc-malloc|libc-plain.debug|$malloc"

now() { date +%s.%N; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }
median() { sort -n | awk '{ t[NR] = $1 } END { printf "%.1f", 1000 * ((NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2) }'; }
echo "load average (1 min) at the start: $(cut -d' ' -f1 /proc/loadavg)"
echo
echo "| case | file | symprof ms | addr2line ms | eu-addr2line ms | symprof / addr2line | symprof / eu-addr2line |${old:+ old symprof ms |}"
echo "|---|---|---|---|---|---|---|${old:+---|}"
echo "$cases" | while IFS='|' read -r label file a; do
	: >t.sp
	: >t.a2l
	: >t.eu
	: >t.old
	i=0
	while [ "$i" -lt "$runs" ]; do
		for tool in sp a2l eu ${old:+old}; do
			case $tool in
			old) set -- "$old" symbolize -f -i -C -e "$file" "$a" ;;
			sp) set -- "$SYMPROF" symbolize -f -i -C -e "$file" "$a" ;;
			a2l) set -- addr2line -f -i -C -e "$file" "$a" ;;
			eu) set -- eu-addr2line -f -i -C -e "$file" "$a" ;;
			esac
			t0=$(now)
			"$@" >/dev/null 2>&1 || true
			t1=$(now)
			echo "$t1 - $t0" | bc >>t.$tool
		done
		i=$((i + 1))
	done
	sp=$(median <t.sp) a2l=$(median <t.a2l) eu=$(median <t.eu)
	printf '| %s | %s | %s | %s | %s | %s | %s |' "$label" "$(basename "$file")" "$sp" "$a2l" \
		"$eu" "$(ratio "$sp" "$a2l")" "$(ratio "$sp" "$eu")"
	[ -z "$old" ] || printf ' %s |' "$(median <t.old)"
	echo
done
echo
echo "load average (1 min) at the end: $(cut -d' ' -f1 /proc/loadavg); $runs runs each, medians"
