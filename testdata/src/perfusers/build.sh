#!/bin/sh
# build.sh OUTDIR [VARIANT] — the perf-user fixture (spin.c, strip.c) into OUTDIR:
#   spin          linked to libstrip.so (rpath $ORIGIN), -O1 -g, frame pointers
#   libstrip.so   stripped of its symbol tables and debug info (strip --strip-all)
# VARIANT (default 1) changes spin's code and build id.
set -eu
out=${1:?usage: build.sh OUTDIR [VARIANT]}
src=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-gcc}
mkdir -p "$out"
flags="-O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-optimize-sibling-calls -Wl,--build-id"
$CC $flags -fPIC -shared -o "$out/libstrip.so" "$src/strip.c"
strip --strip-all "$out/libstrip.so"
$CC $flags -DVARIANT="${2:-1}" -o "$out/spin" "$src/spin.c" -L"$out" -lstrip \
	-Wl,-rpath,'$ORIGIN'
