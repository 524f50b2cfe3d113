#!/bin/sh
# test_find.sh — finding binaries and their debug info (spec/FORMATS.md
# §6.5-6.6): every candidate of pprof's list in a --binary-path dir, path
# maps and sysroot, build-id mismatches, build-id trees, .gnu_debuglink in
# its three places with a CRC check, and debuginfod against a server that
# never answers.  Fixtures are built here with gcc, objcopy and strip;
# build ids are read with readelf.  Speaks TAP.

tool="${SP_BUILDDIR:-..}/tests/helpers/find_tool"
T=$(mktemp -d /tmp/sp-find-XXXXXX) || exit 1
sink_pid=
cleanup() {
	[ -n "$sink_pid" ] && kill "$sink_pid" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
unset DEBUGINFOD_URLS DEBUGINFOD_TIMEOUT
DEBUGINFOD_CACHE_PATH="$T/cache"
export DEBUGINFOD_CACHE_PATH

n=0
failed=0
ok() { # ok CONDITION-STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
		[ -f "$T/out" ] && sed 's/^/#   /' "$T/out"
	fi
}
# run ARGS...: output in $T/out
run() { "$tool" "$@" >"$T/out" 2>&1; }
found_is() { grep -qxF "found $1" "$T/out"; }
has_line() { grep -qxF "$1" "$T/out"; }

cat >"$T/prog.c" <<'EOF'
#include <stdio.h>
int mid(int x) { return x * 3 + 1; }
int main(int argc, char **argv) { printf("%d\n", mid(argc)); return 0; }
EOF
cat >"$T/other.c" <<'EOF'
int main(void) { return 7; }
EOF
mkdir -p "$T/src" "$T/o"
gcc -g -O1 -Wl,--build-id -o "$T/src/prog" "$T/prog.c" &&
	gcc -g -O1 -Wl,--build-id -o "$T/o/prog" "$T/other.c" || {
	echo "1..0 # SKIP cannot build fixtures"
	exit 0
}
bid=$(readelf -n "$T/src/prog" | sed -n 's/.*Build ID: *//p')
obid=$(readelf -n "$T/o/prog" | sed -n 's/.*Build ID: *//p')
rec=/opt/app/prog
first2=$(echo "$bid" | cut -c1-2)
rest=$(echo "$bid" | cut -c3-)

run buildid "$T/src/prog"
ok $([ "$(cat "$T/out")" = "$bid" ]; echo $?) "build id agrees with readelf -n"

# --- binary: each item of pprof's candidate list, alone in a dir ---------
place() { # place ITEM PATH: copy the binary to PATH under dir $T/bN
	mkdir -p "$(dirname "$2")" && cp "$T/src/prog" "$2"
}
place 1 "$T/b1/$bid/prog"
place 2 "$T/b2/$bid/zz-renamed"
place 3 "$T/b3/opt/app/prog/$bid"
place 4 "$T/b4/$first2/$rest.debug"
place 5 "$T/b5/prog"
place 6 "$T/b6/opt/app/prog"
place 7 "$T/b7/opt/app/prog.debug"
place 8 "$T/b8/opt/app/.debug/prog.debug"
place 9 "$T/b9/usr/lib/debug/opt/app/prog.debug"
for i in 1 2 3 4 5 6 7 8 9; do
	want=$(find "$T/b$i" -type f)
	run -n -b "$T/b$i" binary "$rec" "$bid"
	ok $(found_is "$want"; echo $?) "binary-path item $i: $(echo "$want" | sed "s|$T/||")"
done

# Item 1 comes before item 5 in one dir.
mkdir -p "$T/b15/$bid"
cp "$T/src/prog" "$T/b15/$bid/prog"
cp "$T/src/prog" "$T/b15/prog"
run -n -b "$T/b15" binary "$rec" "$bid"
ok $(found_is "$T/b15/$bid/prog"; echo $?) "item 1 is tried before item 5"

# Glob in lexical order: "a" has another build id, "b" is right.
mkdir -p "$T/bg/$bid"
cp "$T/o/prog" "$T/bg/$bid/a"
cp "$T/src/prog" "$T/bg/$bid/b"
run -n -b "$T/bg" binary "$rec" "$bid"
ok $(has_line "try build-id mismatch $T/bg/$bid/a" && found_is "$T/bg/$bid/b"; echo $?) \
	"glob: mismatching entry logged, next entry taken"

# Mismatch only: error, and a second dir still wins.
mkdir -p "$T/bm"
cp "$T/o/prog" "$T/bm/prog"
run -n -b "$T/bm" binary "$rec" "$bid"
ok $(has_line "try build-id mismatch $T/bm/prog" && grep -q "^error build id mismatch" "$T/out"; echo $?) \
	"only a mismatching candidate: build id mismatch error"
run -n -b "$T/bm" -b "$T/b5" binary "$rec" "$bid"
ok $(has_line "try build-id mismatch $T/bm/prog" && found_is "$T/b5/prog"; echo $?) \
	"mismatch in the first dir, match in the second"
run -n -b "$T/bm" binary "$rec" -
ok $(found_is "$T/bm/prog"; echo $?) "unknown build id: any ELF candidate is accepted"

# Not ELF.
mkdir -p "$T/bt"
echo "not a binary" >"$T/bt/prog"
run -n -b "$T/bt" binary "$rec" "$bid"
ok $(has_line "try not ELF $T/bt/prog" && grep -q "^error unrecognized format" "$T/out"; echo $?) \
	"text file: not ELF"

# Nothing anywhere.
run -n -b "$T/empty" binary "$rec" "$bid"
ok $(has_line "try missing $T/empty/$bid/prog" && has_line "try missing $rec" &&
	grep -q "^error not found" "$T/out"; echo $?) "nothing found: every place logged missing"

# --- path maps, sysroot, recorded path -----------------------------------
mkdir -p "$T/root/opt/app"
cp "$T/src/prog" "$T/root/opt/app/prog"
run -n -s "$T/root" binary "$rec" "$bid"
ok $(found_is "$T/root/opt/app/prog"; echo $?) "sysroot prefix"
run -n -m "/opt/app=$T/src" binary "$rec" "$bid"
ok $(found_is "$T/src/prog"; echo $?) "path map OLD=NEW"
run -n -m "/opt/ap=$T/nowhere" -m "/opt/app=$T/src" binary "$rec" "$bid"
ok $(found_is "$T/src/prog"; echo $?) "path map matches whole path components only"
run -n -m "/srv=/opt" -s "$T/root" binary /srv/app/prog "$bid"
ok $(found_is "$T/root/opt/app/prog"; echo $?) "path map applied before the sysroot"
run -n binary "$T/src/prog" "$bid"
ok $(found_is "$T/src/prog"; echo $?) "recorded path as is"
run -n -s "$T/root" binary "$T/src/prog" "$bid"
ok $(! grep "^try " "$T/out" | grep -qF " $T/src/prog" && grep -q "^error" "$T/out"; echo $?) \
	"with a sysroot the recorded path is not tried raw"
run -n binary "$T/o/prog" "$bid"
ok $(has_line "try build-id mismatch $T/o/prog"; echo $?) "recorded path with another build id"

# --- debug info ----------------------------------------------------------
mkdir -p "$T/s"
objcopy --only-keep-debug "$T/src/prog" "$T/prog.debug"
strip --strip-debug -o "$T/s/prog" "$T/src/prog"
objcopy --add-gnu-debuglink="$T/prog.debug" "$T/s/prog"
sdir=$(cd "$T/s" && pwd -P)

mkdir -p "$T/dd/.build-id/$first2"
cp "$T/prog.debug" "$T/dd/.build-id/$first2/$rest.debug"
run -n -d "$T/dd" debuginfo "$T/s/prog"
ok $(found_is "$T/dd/.build-id/$first2/$rest.debug"; echo $?) "build-id tree in a --debug-dir"

mkdir -p "$T/ddx/.build-id/$first2"
strip --strip-debug -o "$T/ddx/.build-id/$first2/$rest.debug" "$T/src/prog"
run -n -d "$T/ddx" debuginfo "$T/s/prog"
ok $(has_line "try no debug info $T/ddx/.build-id/$first2/$rest.debug"; echo $?) \
	"build-id tree entry without DWARF: no debug info"

ob1=$(echo "$obid" | cut -c1-2)
orest=$(echo "$obid" | cut -c3-)
mkdir -p "$T/ddm/.build-id/$first2"
objcopy --only-keep-debug "$T/o/prog" "$T/ddm/.build-id/$first2/$rest.debug"
run -n -d "$T/ddm" debuginfo "$T/s/prog"
ok $(has_line "try build-id mismatch $T/ddm/.build-id/$first2/$rest.debug"; echo $?) \
	"build-id tree entry of another binary: mismatch"

cp "$T/prog.debug" "$T/s/prog.debug"
run -n -d "$T/empty" debuginfo "$T/s/prog"
ok $(found_is "$T/s/prog.debug"; echo $?) "debuglink in the binary's dir"
rm "$T/s/prog.debug"

mkdir -p "$T/s/.debug"
cp "$T/prog.debug" "$T/s/.debug/prog.debug"
run -n -d "$T/empty" debuginfo "$T/s/prog"
ok $(has_line "try missing $T/s/prog.debug" && found_is "$T/s/.debug/prog.debug"; echo $?) \
	"debuglink in .debug/"
# A corrupted copy in the binary's dir: bad CRC, the good one is taken.
cp "$T/prog.debug" "$T/s/prog.debug"
printf 'x' >>"$T/s/prog.debug"
run -n -d "$T/empty" debuginfo "$T/s/prog"
ok $(has_line "try bad CRC $T/s/prog.debug" && found_is "$T/s/.debug/prog.debug"; echo $?) \
	"corrupted debuglink target: bad CRC"
rm -r "$T/s/prog.debug" "$T/s/.debug"

mkdir -p "$T/dl$sdir"
cp "$T/prog.debug" "$T/dl$sdir/prog.debug"
run -n -d "$T/dl" debuginfo "$T/s/prog"
ok $(found_is "$T/dl$sdir/prog.debug"; echo $?) "debuglink under <debugdir>/<binary dir>/"

run -n -d "$T/empty" debuginfo "$T/s/prog"
ok $(grep -q "^error not found" "$T/out" && has_line "try missing $T/empty/.build-id/$first2/$rest.debug"; echo $?) \
	"no debug info anywhere: not found"

# A link naming the binary itself is ignored.
mkdir -p "$T/self"
cp "$T/s/prog" "$T/self/prog.debug"
objcopy --remove-section=.gnu_debuglink "$T/self/prog.debug"
objcopy --add-gnu-debuglink="$T/self/prog.debug" "$T/self/prog.debug" "$T/self/tmp"
mv "$T/self/tmp" "$T/self/prog.debug"
run -n -d "$T/empty" debuginfo "$T/self/prog.debug"
ok $(! grep "^try " "$T/out" | grep -q " $T/self/prog.debug\$" && grep -q "^try missing $T/self/.debug/prog.debug" "$T/out"; echo $?) \
	"self-referential debuglink ignored"

# --- debuginfod ------------------------------------------------------------
"$tool" sink >"$T/port" &
sink_pid=$!
i=0
while [ ! -s "$T/port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
port=$(cat "$T/port")
run -r 3 -d "$T/empty" debuginfo "$T/s/prog"
ok $(! grep -q "debuginfod:" "$T/out"; echo $?) "DEBUGINFOD_URLS unset: debuginfod not asked"
export DEBUGINFOD_URLS="http://127.0.0.1:$port"
run -n -d "$T/empty" debuginfo "$T/s/prog"
ok $(! grep -q "debuginfod:" "$T/out"; echo $?) "no_debuginfod: debuginfod not asked"
t0=$(date +%s)
run -r 3 -d "$T/empty" debuginfo "$T/s/prog"
t1=$(date +%s)
ok $([ "$(grep -c "^try failed debuginfod:$bid/debuginfo" "$T/out")" -eq 1 ]; echo $?) \
	"server that never answers: asked once in three lookups"
ok $(grep -q "^try failed debuginfod:$bid/debuginfo from http://127.0.0.1:$port: timed out after 5 s$" "$T/out"; echo $?) \
	"server that never answers: the attempt names the server and the 5 s timeout"
ok $([ $((t1 - t0)) -le 12 ]; echo $?) "three lookups took $((t1 - t0)) s (one bounded wait)"
unset DEBUGINFOD_URLS
# the sink ends itself after 120 s; once reaped its pid may be another process's
kill "$sink_pid" 2>/dev/null
wait "$sink_pid" 2>/dev/null
sink_pid=

echo "1..$n"
[ "$failed" -eq 0 ]
