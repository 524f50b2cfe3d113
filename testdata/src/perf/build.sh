#!/bin/sh
# build.sh OUTDIR — build the perf.data fixture (perfbusy.h) into OUTDIR:
#   perfbusy           PIE main, linked to libperfshared.so (rpath $ORIGIN)
#   libperfshared.so   linked library
#   libperfplugin.so   library perfbusy dlopen()s from its own directory
# -O2 -g with frame pointers everywhere; no tail calls, so every call written in the
# sources is a real frame for `perf record -g`.
# shellcheck disable=SC2086 # $flags is a list of words
set -eu
out=${1:?usage: build.sh OUTDIR}
src=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-gcc}
mkdir -p "$out"
flags="-O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-optimize-sibling-calls -Wl,--build-id"
$CC $flags -fPIC -shared -o "$out/libperfshared.so" "$src/perfshared.c"
$CC $flags -fPIC -shared -o "$out/libperfplugin.so" "$src/perfplugin.c" \
	-L"$out" -lperfshared
$CC $flags -fPIE -pie -o "$out/perfbusy" "$src/perfbusy.c" \
	-L"$out" -lperfshared -Wl,-rpath,'$ORIGIN' -ldl -lpthread
