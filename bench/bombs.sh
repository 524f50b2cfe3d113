#!/bin/sh
# bombs.sh — the resource bombs of issue 11, each built here and run once: time, peak RSS,
# exit status and first line of stderr, one Markdown table row per run.
#
#   bench/bombs.sh [-w WORKDIR] [-t SECONDS] [-J SECTIONS] [-F FRAMES] [-M MAPPINGS]
#                  [-L LINES] [-D]
#
# Bombs (the recipes of tests/cli/limits.sh, tests/unit/common/test_interval.c,
# tests/cli/flamegraph.sh and tests/cli/debuginfo.sh, at the issue's sizes; the pprof
# bomb, the memory map, the mappings and the debuginfod servers are tests/helpers/bombs.py's):
#   pprof.gz inflating to 64 and 256 MiB of 4-byte samples, default budget and
#   --max-memory 256M; /dev/zero and an endless pipe with --max-memory 128M; a memory map
#   of LINES lines (default 40 000), half `$name=value` definitions, half map lines using
#   them; a JIT .meta of SECTIONS sections (default 10 000 000), one enclosing all the
#   others, and 1 000 addresses; MAPPINGS addresses in as many mappings (default 100 000);
#   one folded stack of FRAMES frames (default 35 000 000) to folded, pprof and a flame
#   graph; int64 sums past 2^63-1; and, in a private network namespace (unshare -rn, as
#   tests/cli/debuginfo.sh), debuginfod servers that drip 200 B/s, send an endless body or
#   announce 3 GiB (-D leaves them out).
# Every run has a `timeout` of SECONDS (default 300) and writes into an empty directory
# that is checked for `*.tmp.*` files afterwards.  Inputs live in a directory made under
# WORKDIR (default /tmp/symprof-bench-bombs, removed too if made here), removed at the
# end.  SYMPROF names the binary (default ./symprof); `make bench-bombs
# BENCH_BOMBS_ARGS='-J 1000000'` runs it.
set -eu
bombs=$(cd "$(dirname "$0")/.." && pwd)/tests/helpers/bombs.py
work=/tmp/symprof-bench-bombs tmo=300 nsec=10000000 frames=35000000 nmap=100000
lines=40000 dfd=yes inner=
while getopts w:t:J:F:M:L:DN: o; do
	case $o in
	w) work=$OPTARG ;;
	t) tmo=$OPTARG ;;
	J) nsec=$OPTARG ;;
	F) frames=$OPTARG ;;
	M) nmap=$OPTARG ;;
	L) lines=$OPTARG ;;
	D) dfd= ;;
	N) inner=$OPTARG ;; # internal: the debuginfod rows, in the namespace, inputs in DIR
	*) sed -n '2,24p' "$0" >&2; exit 2 ;;
	esac
done
: "${SYMPROF:=./symprof}"
export SYMPROF LC_ALL=C
for t in python3 timeout awk cc; do
	command -v $t >/dev/null 2>&1 || { echo "bombs.sh: $t missing" >&2; exit 2; }
done
[ -x "$SYMPROF" ] || { echo "bombs.sh: SYMPROF=$SYMPROF is not executable" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bombs.sh: /usr/bin/time missing (apt-get install time)" >&2; exit 2; }

# Half of physical memory, at most 8 GiB: symprof's default budget (README, --max-memory).
budget=$(awk '/^MemTotal:/ { m = int($2 / 2048); print (m > 8192 ? 8192 : m) }' /proc/meminfo)
deflimit="default ($budget MiB)"

# size FILE: its size, in B, KiB or MiB.
size()
{
	stat -c %s "$1" | awk '{ if ($1 >= 1048576) printf "%.1f MiB", $1 / 1048576
		else if ($1 >= 1024) printf "%.1f KiB", $1 / 1024; else printf "%d B", $1 }'
}

# bomb WHAT INPUT-SIZE LIMIT ARGS...: one run of `symprof ARGS` with stdin from $in (default
# /dev/null) or, when $feed is set, from `yes "$feed"`; prints its row.  Outputs go to
# $run/out, which is then checked for temporary files (named in $run/left) and emptied.
bomb()
{
	what=$1 isize=$2 limit=$3
	shift 3
	rm -rf "$run/out"
	mkdir "$run/out"
	rc=0
	if [ -n "${feed:-}" ]; then
		yes "$feed" | /usr/bin/time -f '%e %M' -o "$run/time" \
			timeout -k 10 "$tmo" "$SYMPROF" "$@" >/dev/null 2>"$run/err" || rc=$?
	else
		/usr/bin/time -f '%e %M' -o "$run/time" \
			timeout -k 10 "$tmo" "$SYMPROF" "$@" <"${in:-/dev/null}" >/dev/null 2>"$run/err" || rc=$?
	fi
	case $rc in
	0 | 1 | 2 | 3) st=$rc ;;
	124) st="124: **timed out after $tmo s**" ;;
	*) st="**$rc** $([ "$rc" -gt 128 ] && echo "(signal $((rc - 128)))")" ;;
	esac
	tmps=$(find "$run/out" -name '*.tmp.*' | wc -l)
	if [ "$tmps" -gt 0 ]; then
		st="$st; **$tmps \*.tmp.\* left**"
		echo "$what" >>"$run/left"
	fi
	# /usr/bin/time's last line (one before it says how the command ended, when not 0)
	wall=$(tail -n 1 "$run/time" | cut -d' ' -f1)
	rss=$(tail -n 1 "$run/time" | awk '{ printf "%.1f", $2 / 1024 }')
	cmd=$(printf '%s ' symprof "$@" | sed "s|$run/||g; s/ \$//; s/|/\\\\|/g")
	err=$(head -n 1 "$run/err" | sed "s|$run/||g" | cut -c 1-90 | sed 's/|/\\|/g')
	# shellcheck disable=SC2016 # the backquotes are Markdown
	printf '| %s | %s | `%s` | %s | %s | %s | %s | %s |\n' "$what" "$isize" "$cmd" "$st" \
		"${err:-(nothing)}" "$wall" "$rss" "$limit"
	rm -rf "$run/out"
}

# --- debuginfod, in a network namespace whose only interface is loopback ----------------
# Raw stacks over 8 mappings of missing files, each with a build id debuginfod is asked
# about, 2 addresses each.  Servers (tests/helpers/bombs.py server): drip announces 100 kB and
# sends 20 bytes every 0.1 s; huge sends an endless body without a length, 64 KiB chunks of
# an ELF magic and zeros; biglen announces 3 GiB and sends the same.  Default limits
# (DEBUGINFOD_TIMEOUT, _MAXTIME, _MAXSIZE unset).  The row's last column adds the requests
# and bytes the server saw and the bytes left in the cache.
debuginfod_rows()
{
	ip link set lo up
	unset DEBUGINFOD_TIMEOUT DEBUGINFOD_MAXTIME DEBUGINFOD_MAXSIZE
	srv=
	trap '[ -z "$srv" ] || kill "$srv" 2>/dev/null' EXIT
	awk 'BEGIN { print "# symprof raw stacks v1"
		for (i = 1; i <= 8; i++) printf "1 @ 0x%x 0x%x\n", i * 1048576 + 16, i * 1048576 + 4096
		print "--- Memory map: ---"
		for (i = 1; i <= 8; i++) printf "%x-%x r-xp /nonexistent/lib%d.so (@0) %040x\n",
			i * 1048576, i * 1048576 + 65536, i, i * 7907 }' >"$run/dfd.raw"
	for mode in drip huge biglen; do
		: >"$run/$mode.log"
		python3 "$bombs" server $mode "$run/$mode.port" "$run/$mode.log" &
		srv=$!
		i=0
		while [ ! -s "$run/$mode.port" ] && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		cache=$run/cache-$mode
		DEBUGINFOD_URLS=http://127.0.0.1:$(cat "$run/$mode.port") DEBUGINFOD_CACHE_PATH=$cache
		export DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH
		row=$(bomb "debuginfod: $mode" "8 build ids, $(size "$run/dfd.raw")" \
			"60 s per build id, 1 GiB a file, 4 GiB a run (defaults)" \
			convert "$run/dfd.raw" -o "$run/out/dfd.folded")
		sleep 1 # the server's handlers see the closed connections and log
		kill "$srv"
		wait "$srv" 2>/dev/null || true
		srv=
		sent=$(awk '{ n++; b += $2 } END { printf "%d requests, %d bytes sent", n, b }' "$run/$mode.log.sent")
		kept=$(find "$cache" -type f -printf '%s\n' 2>/dev/null |
			awk '{ n++; b += $1 } END { printf "%d B in %d files left in the cache", b, n }')
		echo "$row" | sed "s/ |\$/; server: $sent; $kept |/"
		rm -rf "$cache" "$run/$mode.log" "$run/$mode.log.sent" "$run/$mode.port"
	done
	rm -f "$run/dfd.raw"
}

if [ -n "$inner" ]; then
	run=$inner
	debuginfod_rows
	exit 0
fi

made=
[ -d "$work" ] || made=yes
mkdir -p "$work"
run=$(mktemp -d "$work/run.XXXXXX")
trap 'rm -rf "$run"; [ -z "$made" ] || rmdir "$work"' EXIT
trap 'exit 130' INT TERM HUP
: >"$run/left"

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $(awk '/^MemTotal:/ { printf "%d MiB", $2 / 1024 }' /proc/meminfo) of memory; symprof: $SYMPROF"
echo "# load average before: $(uptime | sed 's/.*load average: //')"
echo
echo "| bomb | input size | symprof command | exit status | first line of stderr | wall s | peak RSS MiB | limit in force |"
echo "|---|---|---|---|---|---|---|---|"

# 1. pprof.gz bombs (tests/cli/limits.sh): a header declaring one sample type, then MIB MiB
# of 4-byte samples, gzip -9
for mib in 64 256; do
	python3 "$bombs" pprof "$mib" "$run/bomb$mib.pb.gz"
	z="$(size "$run/bomb$mib.pb.gz") gzip, $mib MiB inflated"
	bomb "pprof.gz bomb, $mib MiB" "$z" "$deflimit" \
		convert -q --no-symbolize "$run/bomb$mib.pb.gz" -o "$run/out/bomb.pb.gz"
	bomb "pprof.gz bomb, $mib MiB" "$z" "--max-memory 256M" \
		convert --max-memory 256M -q --no-symbolize "$run/bomb$mib.pb.gz" -o "$run/out/bomb.pb.gz"
	rm -f "$run/bomb$mib.pb.gz"
done

# 2. inputs that never end
bomb "/dev/zero" "endless" "--max-memory 128M" \
	convert --max-memory 128M -q --no-symbolize /dev/zero -o "$run/out/zero.folded"
feed='main;work 1'
bomb "endless pipe (yes 'main;work 1')" "endless" "--max-memory 128M" \
	convert --max-memory 128M -q --no-symbolize /dev/stdin -o "$run/out/pipe.folded"
feed=

# 3. `$name=value` substitution in a memory map (tests/cli/limits.sh): LINES lines, every
# other one a definition of fixed width, the next a map line using it; raw stacks with one
# address in each mapping (tests/helpers/bombs.py maps).
python3 "$bombs" maps "$lines" "$run/subst.maps" "$run/subst.raw"
bomb "memory map, \$name=value" "$lines lines, $(size "$run/subst.maps")" "$deflimit" \
	convert -q --no-symbolize --maps "$run/subst.maps" "$run/subst.raw" -o "$run/out/subst.folded"
rm -f "$run/subst.maps" "$run/subst.raw"

# 4. JIT: a .meta of SECTIONS sections, the first enclosing all the others (named .text.*,
# which the .elf does not have: executable by name), beside a small object; a heap profile
# of 250 stacks x 4 frames, every other address in a small section, the rest in the gaps
# only the enclosing one covers, one anonymous r-xp mapping over all.
base=$((0x7f4000000000))
mkdir "$run/jd"
printf 'int jit_bomb(int x) { return x + 1; }\n' >"$run/jd/obj.c"
cc -c -g -O2 -o "$run/jd/obj.elf" "$run/jd/obj.c"
rm "$run/jd/obj.c"
awk -v n="$nsec" -v b="$base" 'BEGIN {
	printf "{\"sections\":[{\"name\":\".text.all\",\"start\":%d,\"size\":%d}", b, n * 256
	for (i = 1; i < n; i++) printf ",\n{\"name\":\".text.s%d\",\"start\":%d,\"size\":128}", i, b + i * 256
	print "]}" }' >"$run/jd/obj.meta"
awk -v n="$nsec" -v b="$base" 'BEGIN { srand(11)
	printf "heap profile: 250: 16000 [250: 16000] @ heapprofile\n"
	for (s = 0; s < 250; s++) {
		printf "     1:       64 [     1:       64] @"
		for (k = 0; k < 4; k++) printf " 0x%x", b + int(rand() * (n - 1) + 1) * 256 + (k % 2 ? 192 : 64)
		printf "\n" }
	printf "\nMAPPED_LIBRARIES:\n%x-%x r-xp 00000000 00:00 0 \n", b, b + n * 256 }' >"$run/jit.heap"
bomb "JIT .meta, one section enclosing the others" "$nsec sections, .meta $(size "$run/jd/obj.meta"); 1 000 addresses" \
	"$deflimit" convert -q --jit-dir "$run/jd" "$run/jit.heap" -o "$run/out/jit.folded"
rm -rf "$run/jd" "$run/jit.heap"

# 5. address -> mapping (tests/cli/limits.sh): MAPPINGS raw stacks of one address each,
# each in its own mapping, in an order unrelated to the map's (tests/helpers/bombs.py mappings)
python3 "$bombs" mappings "$nmap" "$run/map.raw"
bomb "address -> mapping" "$nmap addresses x $nmap mappings, $(size "$run/map.raw")" "$deflimit" \
	convert -q --no-symbolize "$run/map.raw" -o "$run/out/map.folded"
rm -f "$run/map.raw"

# 6. one folded stack: main, then FRAMES frames (rounded down to thousands) f0..f99 over and
# over, to three formats
frames=$((frames / 1000 * 1000))
awk -v n="$frames" 'BEGIN { for (i = 0; i < 1000; i++) c = c ";f" (i % 100)
	printf "main"; for (k = 0; k < n / 1000; k++) printf "%s", c
	print " 1" }' >"$run/deep.folded"
d="1 line, main + $frames frames, $(size "$run/deep.folded")"
for f in folded:folded pprof:pb.gz "flame graph:flame.svg"; do
	bomb "deep stack -> ${f%:*}" "$d" "$deflimit" convert -q "$run/deep.folded" -o "$run/out/deep.${f#*:}"
done
rm -f "$run/deep.folded"

# 7. int64 sums past 2^63-1 (tests/cli/limits.sh)
max=9223372036854775807
printf 'main;work %s\nmain;idle 1\n' "$max" >"$run/c.folded"
printf 'main;work %s\nmain;work 1\n' "$max" >"$run/same.folded"
printf 'main;work %s\n' "$max" >"$run/a.folded"
printf 'main;work 1\n' >"$run/b.folded"
bomb "total past 2^63-1 -> top" "2 lines" "int64" convert -q "$run/c.folded" -o "$run/out/c.txt"
bomb "total past 2^63-1 -> flame graph" "2 lines" "int64" convert -q "$run/c.folded" -o "$run/out/c.flame.svg"
bomb "one stack 2^63-1 + 1 -> folded" "2 lines" "int64" convert -q "$run/same.folded" -o "$run/out/same.folded"
bomb "one stack 2^63-1 + 1 -> pprof" "2 lines" "int64" convert -q "$run/same.folded" -o "$run/out/same.pb.gz"
bomb "two files 2^63-1 + 1 merged" "1 line each" "int64" \
	convert -q "$run/a.folded" "$run/b.folded" -o "$run/out/merged.folded"
rm -f "$run"/*.folded

# 8. debuginfod
if [ -z "$dfd" ]; then
	echo "| debuginfod | - | left out (-D) | | | | | |"
elif command -v unshare >/dev/null 2>&1 && command -v ip >/dev/null 2>&1 &&
	unshare -rn true 2>/dev/null; then
	unshare -rn /bin/sh "$0" -t "$tmo" -N "$run"
else
	echo "| debuginfod | - | left out: no private network namespace (unshare -rn) | | | | | |"
fi

echo
echo "# load average after: $(uptime | sed 's/.*load average: //')"
if [ -s "$run/left" ]; then
	echo "# *.tmp.* files left in the output directory by: $(awk '{ printf "%s%s", NR > 1 ? "; " : "", $0 }' "$run/left")"
else
	echo "# no run left a *.tmp.* file in its output directory"
fi
