#!/bin/sh
# build.sh OUTDIR — build the --call-graph dwarf fixtures into OUTDIR:
#   unwbusy        PIE main, linked to libunwlib.so (rpath $ORIGIN)
#   libunwlib.so   linked library holding the main busy leaf
#   unwmaps        PIE that maps libunwleaf.so's code N times (unwmaps.c)
#   libunwleaf.so  its leaf
#   unwfork        PIE that forks children spinning in functions of their own
#                  (unwfork.c), linked to libunwlib.so
# -O2 -g WITHOUT frame pointers (a frame-pointer walk cannot give these stacks:
# only CFI can); no tail calls, so every call written is a real frame.
# shellcheck disable=SC2086 # $flags is a list of words
set -eu
out=${1:?usage: build.sh OUTDIR}
src=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-gcc}
mkdir -p "$out"
flags="-O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls -fno-inline -Wl,--build-id"
$CC $flags -fPIC -shared -o "$out/libunwlib.so" "$src/unwlib.c"
$CC $flags -fPIE -pie -o "$out/unwbusy" "$src/unwbusy.c" \
	-L"$out" -lunwlib -Wl,-rpath,'$ORIGIN'
$CC $flags -fPIC -shared -o "$out/libunwleaf.so" "$src/unwleaf.c"
$CC $flags -fPIE -pie -o "$out/unwmaps" "$src/unwmaps.c" -ldl
$CC $flags -fPIE -pie -o "$out/unwfork" "$src/unwfork.c" \
	-L"$out" -lunwlib -Wl,-rpath,'$ORIGIN'
