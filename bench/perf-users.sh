#!/bin/sh
# perf-users.sh — issue 26's "done when": `symprof convert x.data` with no options, on the
# recording machine, against `perf report --no-children --sort sym` on the same file, for
# four real workloads recorded with `perf record -g` (perf's own build-id cache, kallsyms
# and installed debug info in place, as a perf user has them):
#   xz      xz -6 of 12 MB of /usr/share/doc and /usr/include (tar)
#   python3 a pure-Python loop (dicts, strings, integers)
#   gcc     gcc -O2 -c of symprof's own sources
#   cxx     bench/perfusers.cc (std::sort, std::map, std::unordered_map, libm), -O2 -g
# For each: perf report's top-20 symbols (names as the symbol tables give them:
# --no-demangle, and symprof --demangle none) beside symprof top's flat share of the same
# name, with no options (perf.data's flat goes to the symbol holding the address, as perf
# report's Self) and with --flat-to frame (pprof's flat: inline frames are frames of their
# own, so a function whose callees were inlined into it has less self time than perf gives
# it), and how many of perf's names are within 0.5 points
# (rows perf gives as an address, having no symbol either, are shown, not counted; the
# first "[file]" groups of symprof's top are listed); then the lines symprof wrote on
# stderr.  Aliases perf and symprof may choose differently for one
# address (__GI___libc_write / __libc_write / __write) are matched through their common
# name without __GI_ and leading underscores, and through the other names the file's
# symbol table gives the address (cfree@GLIBC_2.2.5 / free).
#
#   SYMPROF=build/symprof sh bench/perf-users.sh [-w WORKDIR] [-n "xz python3 gcc cxx"]
#
# Needs perf able to record, xz-utils, python3, gcc, g++.  Recordings are made anew each
# run in WORKDIR (default /tmp/symprof-perf-users).
set -eu
work=${TMPDIR:-/tmp}/symprof-perf-users
only="xz python3 gcc cxx"
while getopts w:n: o; do
	case $o in
	w) work=$OPTARG ;;
	n) only=$OPTARG ;;
	*) echo "usage: perf-users.sh [-w WORKDIR] [-n NAMES]" >&2; exit 2 ;;
	esac
done
src=$(cd "$(dirname "$0")/.." && pwd)
SYMPROF=${SYMPROF:-$src/build/symprof}
mkdir -p "$work"
cd "$work"

record() # NAME CMD...
{
	name=$1
	shift
	nice -n 10 perf record -q -g -o "$name.data" -- "$@" >"$name.rec.log" 2>&1 ||
		{ echo "perf record of $name failed:"; cat "$name.rec.log"; return 1; }
}

prepare()
{
	case $1 in
	xz)
		tar cf - /usr/share/doc /usr/include 2>/dev/null | head -c 12000000 >xz.in
		record xz sh -c 'xz -6 -T1 -c xz.in >/dev/null' ;;
	python3)
		cat >py.py <<'PY'
d = {}
for i in range(1500000):
    k = "k%d" % (i % 10007)
    d[k] = d.get(k, 0) + i * i % 97
s = sorted(d.items(), key=lambda kv: kv[1])
print(len(s))
PY
		record python3 python3 py.py ;;
	gcc)
		record gcc sh -c "for f in $src/formats/pprof.c $src/report/graph.c $src/symbolize/dwarf/lines.c; do gcc -O2 -I$src -I$src/build -include $src/build/config.h -c \$f -o /dev/null; done" ;;
	cxx)
		g++ -O2 -g -o cxx "$src/bench/perfusers.cc"
		record cxx ./cxx 3 ;;
	esac
}

# perf's NAME PERCENT DSO for the top 20 symbols
perf_top()
{
	perf report -i "$1" --stdio --no-children --sort sym,dso -g none --no-demangle 2>/dev/null |
		awk '/^ *[0-9.]+%/ && k < 20 { sub("%", "", $1); print $3, $1, $4; k++ }'
}

# aliases DATA: for each of perf's names (NAME PERCENT DSO on stdin) "NAME ALIAS...": the
# other names the DSO's symbol table gives its address (free for cfree@GLIBC_2.2.5)
aliases()
{
	perf buildid-list -i "$1" 2>/dev/null | awk '{ print $2 }' >"$1.dsos"
	while read -r sym _ dso; do
		path=$(awk -v b="$dso" '{ n = $0; sub(/.*\//, "", n) } n == b { print; exit }' "$1.dsos")
		[ -n "$path" ] && [ -f "$path" ] || continue
		readelf -Ws --dyn-syms "$path" 2>/dev/null | awk -v s="${sym%%@*}" '
			$4 == "FUNC" { n = $8; sub(/@.*/, "", n); at[n] = $2; names[$2] = names[$2] " " n }
			END { if (s in at) print s names[at[s]] }'
	done
}

for name in $only; do
	prepare "$name" || continue
	perf_top "$name.data" >"$name.perf"
	aliases "$name.data" <"$name.perf" >"$name.alias"
	"$SYMPROF" convert --demangle none -f top --nodecount 0 --nodefraction 0 "$name.data" \
		>"$name.top" 2>"$name.err"
	"$SYMPROF" convert -q --flat-to frame --demangle none -f top --nodecount 0 --nodefraction 0 \
		"$name.data" >"$name.ni.top"
	for t in top ni.top; do
		awk 'f && NF >= 6 { sub("%", "", $2); print $6, $2 } /flat%/ { f = 1 }' \
			"$name.$t" >"$name.$t.sp"
	done
	echo "== $name: perf report --no-children --sort sym, top 20, against symprof top" \
		"(default: flat to the symbol, perf's view; --flat-to frame: to inline frames)"
	# perf's rows that are addresses (no symbol for perf either) are shown, not counted
	awk '
		function norm(s) { sub(/@.*/, "", s); sub(/^__GI_/, "", s); sub(/^_+/, "", s)
			sub(/^libc_/, "", s); return s }
		function look1(m, mn, k) { return (k in m) ? m[k] : (norm(k) in mn) ? mn[norm(k)] : -1 }
		function look(m, mn, k,  v, i, n, a) {
			if ((v = look1(m, mn, k)) >= 0) return v
			sub(/@.*/, "", k); n = split(al[k], a, " ")
			for (i = 1; i <= n; i++) if ((v = look1(m, mn, a[i])) >= 0) return v
			return -1 }
		FILENAME ~ /\.alias$/ { k = $1; $1 = ""; al[k] = $0; next }
		FILENAME ~ /ni\.top\.sp$/ { ni[$1] = $2; nin[norm($1)] += $2; next }
		FILENAME ~ /top\.sp$/ { sp[$1] = $2; spn[norm($1)] += $2; next }
		{
			v = look(sp, spn, $1); w = look(ni, nin, $1)
			d = v < 0 ? 100 : $2 - v; if (d < 0) d = -d
			e = w < 0 ? 100 : $2 - w; if (e < 0) e = -e
			addr = $1 ~ /^0x[0-9a-f]+$/
			if (!addr) { ok += d <= 0.5; oki += e <= 0.5; n++ }
			printf "  %-44s perf %6.2f%%  symprof %s  --flat-to frame %s%s\n", substr($1, 1, 44),
				$2, v < 0 ? "   none" : sprintf("%6.2f%%", v),
				w < 0 ? "   none" : sprintf("%6.2f%%", w),
				addr ? "  (perf: no symbol)" : d <= 0.5 ? "" : "  *"
		}
		END { printf "  within 0.5 points, of the %d perf names: %d (default), %d (--flat-to frame)\n",
			n, ok, oki }' "$name.alias" "$name.top.sp" "$name.ni.top.sp" "$name.perf"
	grep '^ *[0-9.]*[a-z]* *[0-9.]*% .*\[.*\]$' "$name.top" | head -n 3 | sed 's/^/  group: /'
	echo "  symprof stderr: $(wc -l <"$name.err") lines"
	sed 's/^/    /' "$name.err"
done
