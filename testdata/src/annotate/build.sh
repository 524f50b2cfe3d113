#!/bin/sh
# build.sh OUTDIR — build the annotation fixture (annfix.c) into OUTDIR:
#   annfix        ET_EXEC (-no-pie), so symbol-file and run-time addresses agree
#   annfix-pie    the same as a PIE
# -O2 -g with frame pointers; hot_outer keeps its own frame (noinline) and its two
# helpers are always inlined into it.
# shellcheck disable=SC2086 # $flags is a list of words
set -eu
out=${1:?usage: build.sh OUTDIR}
src=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-gcc}
mkdir -p "$out"
flags="-O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-optimize-sibling-calls -Wl,--build-id ${ANNFIX_CFLAGS:-}"
$CC $flags -fno-PIE -no-pie -o "$out/annfix" "$src/annfix.c"
$CC $flags -fPIE -pie -o "$out/annfix-pie" "$src/annfix.c"
