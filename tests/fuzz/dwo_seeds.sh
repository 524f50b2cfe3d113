#!/bin/sh
# dwo_seeds.sh DIR — writes the seeds of fuzz_dwo into DIR: the .dwo of a
# small C file (an inline function, two others) from GCC and from Clang,
# as the compiler wrote it and with its debug sections compressed by
# objcopy, with zlib and with zstd.  A compiler or a compression that is
# missing is left out.
set -eu
out=${1:?usage: dwo_seeds.sh DIR}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/s.c" <<'SRC'
static inline int sq(int x) { return x * x; }
int add(int a, int b) { return a + b; }
int main(int c, char **v) { (void)v; return add(sq(c), 3); }
SRC
for cc in gcc clang; do
	command -v "$cc" >/dev/null 2>&1 || continue
	for v in 4 5; do
		(cd "$tmp" && "$cc" -O1 -g -gdwarf-$v -gsplit-dwarf -c s.c -o "$cc$v.o") || continue
		cp "$tmp/$cc$v.dwo" "$out/$cc-dwarf$v"
		for z in zlib zstd; do
			objcopy --compress-debug-sections=$z "$tmp/$cc$v.dwo" "$out/$cc-dwarf$v-$z" \
				2>/dev/null || rm -f "$out/$cc-dwarf$v-$z"
		done
	done
done
