#!/bin/sh
# cli_gopclntab.sh — Go pc-line tables inside an ELF whose text is C, end to end, without a
# Go toolchain: a small stripped C program (text from 0x1000, as the tables of
# tests/unit/symbolize/test_gopclntab.c assume) gets a .gopclntab section added with objcopy.
#   - each table of tests/fuzz/seeds/gopclntab/ names the program's addresses through the
#     usual per-mapping path (main.a at 0x1000, main.b at 0x1040);
#   - each malformed table of tests/malformed/gopclntab/ makes `symprof info` report an
#     error naming the file, the section, the offset and what its .expect says, and never
#     crashes (a broken function record fails only its own addresses).
. "$(dirname "$0")/../../tests/helpers/cli_lib.sh"

printf 'int main(void) { return 0; }\n' >"$tmp/c.c"
cc -O0 -o "$tmp/cbin" "$tmp/c.c" && strip "$tmp/cbin" &&
	readelf -lW "$tmp/cbin" | awk '$1 == "LOAD" && / R E / { found = $3 == "0x0000000000001000" } END { exit !found }'
sp_ok $? "a stripped C program whose text starts at 0x1000" || { sp_done; exit; }

# with_table TABLE OUT: the program with TABLE as its .gopclntab.
with_table()
{
	objcopy --add-section .gopclntab="$1" --set-section-flags .gopclntab=alloc,readonly \
		"$tmp/cbin" "$2" 2>/dev/null
}

# raw PROGRAM: a raw-stacks profile of two addresses of PROGRAM's text.
raw()
{
	printf '# symprof raw stacks v1\naddresses: exact\n1 @ 0x1010 0x1044\n'
	printf -- '--- Memory map: ---\n1000-2000 r-xp 00001000 08:01 1 %s\n' "$1"
}

for tab in "$SP_SRCDIR"/tests/fuzz/seeds/gopclntab/*; do
	name=${tab##*/}
	with_table "$tab" "$tmp/prog"
	raw "$tmp/prog" >"$tmp/p.raw"
	sp_run symprof convert --format folded "$tmp/p.raw"
	[ "$rc" -eq 0 ] && [ "$(cat "$tmp/out")" = "main.b;main.a 1" ]
	sp_ok $? "$name: the addresses are named from the table" ||
		{ sed 's/^/#   /' "$tmp/out"; sp_show_err; }
done

n=0
for tab in "$SP_SRCDIR"/tests/malformed/gopclntab/*.tab; do
	name=${tab##*/}
	want=$(cat "${tab%.tab}.expect")
	n=$((n + 1))
	with_table "$tab" "$tmp/bad"
	raw "$tmp/bad" >"$tmp/b.raw"
	sp_run symprof info "$tmp/b.raw"
	[ "$rc" -eq 0 ] && grep -Fq -- "detail: $tmp/bad: .gopclntab: offset " "$tmp/out" &&
		grep -Fq -- "$want" "$tmp/out" && grep -Eq 'unresolved [12]: error' "$tmp/out"
	sp_ok $? "$name: info reports \"$want\"" || { sed 's/^/#   /' "$tmp/out"; sp_show_err; }
done
[ "$n" -ge 5 ]
sp_ok $? "found $n malformed tables"
sp_done
