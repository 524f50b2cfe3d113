#!/bin/sh
# index.sh — the symbol index: one address from start to finish, from DWARF (cold) and from
# the index, against GNU addr2line, llvm-symbolizer and LLVM's GSYM; and the index against
# GSYM in size, making time and batch look-ups.
#
#   bench/index.sh [-c] [-r RUNS] [-n ADDRS] [-w WORKDIR] [ELF...]
#
# Files: Debian's libc.so.6 with its libc6-dbg debug file (found by build id under
# /usr/lib/debug; zlib-compressed), Go's own cmd/go built from the local Go tree into
# WORKDIR (default /tmp/symprof-index; its DWARF the Go linker compresses with zlib), and
# each ELF given (e.g. bench/gen.py's bench-exe).  Addresses: libc's malloc, cmd/go's
# main.main (its last unit), and for other files the function in the middle of the sized
# ones by address; 4 bytes into each.
#
# Per file, once: `symprof index` (its wall time) and `llvm-gsymutil-14 --convert` of the
# file with the DWARF (the debug file for libc); their sizes.  GSYM holds no columns,
# discriminators, declaration lines or binutils' names of frames: with INDEX_CONTENT set to
# the build's tests/helpers/index_content (`make check` builds it), the index's size without
# them is given too ("same content").  Then RUNS rounds
# (default 7), interleaved, output to /dev/null, under /usr/bin/time (wall time, peak
# RSS): `symprof symbolize -f -i -C` cold (DWARF) and with --index-dir, `addr2line -f -i
# -C`, `llvm-symbolizer --inlines --demangle`, `llvm-gsymutil-14 --address` on the GSYM
# file; and a batch of ADDRS distinct addresses (default 100000; random offsets in sized
# functions, bench/addrs.py's way, sorted) through the index and through GSYM
# (--addresses-from-stdin).  Medians; ratios to addr2line's wall time.  The batch is also
# answered without the index, in the GNU (-a -f -i -C), LLVM and JSON forms: "index =
# DWARF, bytes" says whether every answer from the index was the same bytes.  -c: before each
# timed run (untimed) the file, its debug file, the index and the GSYM file are dropped from
# the page cache (bench/evict.py; the tools' own programs and libraries stay).
set -eu
runs=7 n=100000 work=/tmp/symprof-index cold=
while getopts cr:n:w: o; do
	case $o in
	c) cold=1 ;;
	r) runs=$OPTARG ;;
	n) n=$OPTARG ;;
	w) work=$OPTARG ;;
	*) sed -n '2,29p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
SYMPROF=${SYMPROF:-./symprof}
case $SYMPROF in /*) ;; *) SYMPROF=$(pwd)/$SYMPROF ;; esac
case ${INDEX_CONTENT:-} in /* | '') ;; *) INDEX_CONTENT=$(pwd)/$INDEX_CONTENT ;; esac
bench=$(cd "$(dirname "$0")" && pwd)
GSYM=${GSYM:-llvm-gsymutil-14}
for t in go addr2line llvm-symbolizer "$GSYM" readelf nm python3 /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "index.sh: $t is not installed" >&2; exit 1; }
done
extra=
for f in "$@"; do
	case $f in /*) extra="$extra $f" ;; *) extra="$extra $(pwd)/$f" ;; esac
done
mkdir -p "$work"
cd "$work"
if [ ! -s go-zlib ]; then
	echo "building cmd/go..." >&2
	(cd "$(go env GOROOT)/src/cmd/go" && GOFLAGS='' GOPROXY=off go build -o "$work/go-zlib" .)
fi
libc=/lib/x86_64-linux-gnu/libc.so.6
id=$(readelf -n "$libc" | awk '/Build ID/ { print $3 }')
dbg=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
[ -f "$dbg" ] || { echo "index.sh: no $dbg: apt-get install libc6-dbg" >&2; exit 1; }

# the address of symbol $2 in ELF $1, 4 bytes in; without $2 the middle sized function's
addr()
{
	nm -S --defined-only "$1" 2>/dev/null | python3 -c '
import sys
want, best = sys.argv[1], []
for line in sys.stdin:
    f = line.split()
    if len(f) == 4 and f[2] in "Tt" and (f[3] == want if want else int(f[1], 16) > 16):
        best.append(int(f[0], 16))
best.sort()
print(hex(best[len(best) // 2] + 4) if best else "")' "${2:-}"
}
median()
{
	sort -n | awk '{ t[NR] = $1 } END { if (NR) printf "%s", (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2 }'
}
# timed NAME CMD...: one run, stdin from $in, output thrown away; appends "wall rss_kb"
# (wall time taken around it: /usr/bin/time's is in hundredths)
timed()
{
	name=$1
	shift
	# -c: the files it reads dropped from the page cache first, untimed
	[ -z "$cold" ] || python3 "$bench/evict.py" "$file" "$dwarf" ix/*.spx g.gsym
	t0=$(date +%s.%N)
	/usr/bin/time -f '%M' -o "t.$name.1" "$@" <"$in" >/dev/null 2>&1 || true
	t1=$(date +%s.%N)
	echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }') $(tail -n 1 "t.$name.1")" >>"t.$name"
}

echo "load average (1 min) at the start: $(cut -d' ' -f1 /proc/loadavg)"
sizes="| file | DWARF bytes | index bytes | GSYM bytes | index / GSYM | same content: index bytes | same content / GSYM | symprof index s | gsymutil --convert s |
|---|---|---|---|---|---|---|---|---|"
table="| file | tool | median wall ms | median peak RSS MiB | / addr2line wall |
|---|---|---|---|---|"
batch="| file | addresses | index = DWARF, bytes | symprof --index-dir wall s | GSYM wall s | symprof / GSYM | symprof peak MiB | GSYM peak MiB |
|---|---|---|---|---|---|---|---|"
for spec in "libc|$libc|$dbg|__libc_malloc" "cmd/go|$work/go-zlib|$work/go-zlib|main.main" \
	$(for f in $extra; do echo "$(basename "$f")|$f|$f|"; done); do
	label=${spec%%|*} rest=${spec#*|}
	file=${rest%%|*} rest=${rest#*|}
	dwarf=${rest%%|*} sym=${rest#*|}
	a=$(addr "$dwarf" "$sym")
	[ -n "$a" ] || { echo "index.sh: no address in $file" >&2; exit 1; }
	rm -rf ix && mkdir ix
	t0=$(date +%s.%N)
	"$SYMPROF" index -q -o ix "$file"
	t1=$(date +%s.%N)
	"$GSYM" --convert="$dwarf" --out-file=g.gsym >/dev/null 2>&1
	t2=$(date +%s.%N)
	isize=$(cat ix/*.spx | wc -c)
	gsize=$(wc -c <g.gsym)
	dsize=$(readelf -SW "$dwarf" 2>/dev/null | python3 -c '
import sys
total = 0
for line in sys.stdin:
    f = line.replace("[ ", "[").split()
    for i, w in enumerate(f):
        if w.startswith(".debug_") and i + 4 < len(f):
            total += int(f[i + 4], 16)
print(total)')
	same=-
	[ -n "${INDEX_CONTENT:-}" ] && same=$("$INDEX_CONTENT" "$file" | cut -d' ' -f2)
	sizes="$sizes
| $label | $dsize | $isize | $gsize | $(awk -v a="$isize" -v b="$gsize" 'BEGIN { printf "%.2f", a / b }') | $same | $(awk -v a="$same" -v b="$gsize" 'BEGIN { if (a == "-") print "-"; else printf "%.2f", a / b }') | $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') | $(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.2f", b - a }') |"
	in=/dev/null
	rm -f t.*
	i=0
	while [ "$i" -lt "$runs" ]; do
		timed cold "$SYMPROF" symbolize -f -i -C -e "$file" "$a"
		timed index "$SYMPROF" symbolize -f -i -C -e "$file" --index-dir ix "$a"
		timed addr2line addr2line -f -i -C -e "$file" "$a"
		timed llvm-symbolizer llvm-symbolizer --inlines --demangle --obj="$file" "$a"
		timed gsym "$GSYM" --address="$a" g.gsym
		i=$((i + 1))
	done
	base=$(cut -d' ' -f1 t.addr2line | median)
	for tool in cold index addr2line llvm-symbolizer gsym; do
		w=$(cut -d' ' -f1 "t.$tool" | median)
		m=$(cut -d' ' -f2 "t.$tool" | median)
		case $tool in
		cold) name="symprof, DWARF" ;;
		index) name="symprof, index" ;;
		gsym) name="llvm-gsymutil --address" ;;
		*) name=$tool ;;
		esac
		table="$table
| $label | $name | $(awk -v w="$w" 'BEGIN { printf "%.1f", 1000 * w }') | $(awk -v m="$m" 'BEGIN { printf "%.1f", m / 1024 }') | $(awk -v w="$w" -v b="$base" 'BEGIN { printf "%.3fx", w / b }') |"
	done
	# a batch of distinct addresses
	python3 "$bench/addrs.py" "$dwarf" $((10 * n)) "$n" 2>/dev/null | sort -u >batch.addrs
	awk '{ print $1 " g.gsym" }' batch.addrs >batch.gsym
	# the batch's answers from the index are those from the debug info, byte for byte
	same=yes
	for form in "-a -f -i -C" "--output-style=LLVM -C" "--json"; do
		# shellcheck disable=SC2086 # the options are words
		"$SYMPROF" symbolize $form -e "$file" <batch.addrs >b.dwarf
		# shellcheck disable=SC2086
		"$SYMPROF" symbolize $form -e "$file" --index-dir ix <batch.addrs >b.index
		[ -s b.dwarf ] && cmp -s b.dwarf b.index || same="NO ($form)"
	done
	rm -f t.*
	i=0
	while [ "$i" -lt "$runs" ]; do
		in=batch.addrs timed bi "$SYMPROF" symbolize -f -i -C -e "$file" --index-dir ix
		in=batch.gsym timed bg "$GSYM" --addresses-from-stdin
		i=$((i + 1))
	done
	in=/dev/null
	wi=$(cut -d' ' -f1 t.bi | median) wg=$(cut -d' ' -f1 t.bg | median)
	batch="$batch
| $label | $(wc -l <batch.addrs) | $same | $(printf '%.3f' "$wi") | $(printf '%.3f' "$wg") | $(awk -v a="$wi" -v b="$wg" 'BEGIN { printf "%.3fx", a / b }') | $(cut -d' ' -f2 t.bi | median | awk '{ printf "%.1f", $1 / 1024 }') | $(cut -d' ' -f2 t.bg | median | awk '{ printf "%.1f", $1 / 1024 }') |"
done
echo
echo "$sizes"
echo
echo "one address, medians of $runs:"
echo
echo "$table"
echo
echo "a batch, medians of $runs:"
echo
echo "$batch"
echo
echo "load average (1 min) at the end: $(cut -d' ' -f1 /proc/loadavg)"
