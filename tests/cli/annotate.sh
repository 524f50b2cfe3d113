#!/bin/sh
# annotate.sh — `--format list` and `--format disasm` (pprof's -list and -disasm) on
# the annotation fixture (testdata/src/annotate: hot_outer with leaf_a and leaf_b always
# inlined into it), checked against independent tools (tests/helpers/annotate_check.py):
#
# (a) raw stacks whose leaves are hot_outer's instructions, instruction i given i + 1
#     samples: the disassembly lists exactly objdump -d's instructions (addresses and
#     text), marks the instructions objdump's jumps land on, gives each instruction the
#     samples placed on it and addr2line's inline chain; the listing gives each line of
#     hot_outer the samples of the instructions addr2line puts on it (the line a helper
#     was inlined at included) and under it the helper's own lines; the values of each
#     view sum to its function's flat total;
# (b) --source-path and --path-map find a source the debug info names under a directory
#     that is gone, and without them the listing says it was not found;
# (c) an AArch64 program (clang, lld): its source lines are listed as on x86-64, and its
#     disassembly is either objdump's (aarch64-linux-gnu-objdump) or, with a libopcodes
#     built for x86 only (Debian's binutils-dev), a note saying so, not an error;
# (d) perf.data of the fixture (frame pointers, and --call-graph dwarf of its PIE): the
#     flat total of hot_outer is the number of samples perf script puts in it, its lines
#     and instructions sum to it, and the helpers' lines share it 2 : 1 as the fixture's
#     loops do (within 12 points).
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

command -v objdump >/dev/null 2>&1 && command -v addr2line >/dev/null 2>&1 ||
	{ echo "1..0 # SKIP objdump and addr2line (binutils) are needed"; exit 0; }
check="python3 $SP_SRCDIR/tests/helpers/annotate_check.py"
src=$(cd "$SP_SRCDIR/testdata/src/annotate" && pwd) # as build.sh names it
fix=$tmp/fix
"$src/build.sh" "$fix" >"$tmp/build.log" 2>&1 || { sed 's/^/# /' "$tmp/build.log"; sp_bail "fixture does not build"; }

# (a) ------------------------------------------------------------------------------
objdump -d "$fix/annfix" --no-show-raw-insn | awk '/<hot_outer>:$/ { on = 1; next } on && /^$/ { exit } on' \
	>"$tmp/hot.objdump"
[ -s "$tmp/hot.objdump" ] || sp_bail "objdump shows no hot_outer"
call=$(objdump -d "$fix/annfix" --no-show-raw-insn |
	awk '/^[0-9a-f]+ <main>:$/ { on = 1 } on && /call.*<hot_outer>/ { sub(/:.*/, ""); print $1; exit }')
[ -n "$call" ] || sp_bail "no call of hot_outer in main"
seg=$(readelf -lW "$fix/annfix" | awk '$1 == "LOAD" && / R E / { print $2, $3, $6; exit }')
set -- $seg
start=$(printf '%x' "$(($2))")
end=$(printf '%x' "$(($2 + $3))")
off=$(printf '%08x' "$(($1))")
awk -F ':' '{ gsub(/ /, "", $1); print $1, NR }' "$tmp/hot.objdump" >"$tmp/counts"
{
	echo "# symprof raw stacks v1"
	echo "addresses: exact"
	while read -r a n; do echo "$n @ 0x$a 0x$call"; done <"$tmp/counts"
	echo "--- Memory map: ---"
	echo "$start-$end r-xp $off 08:01 1 $fix/annfix"
} >"$tmp/hot.raw"
# shellcheck disable=SC2046 # one address per word
addr2line -a -i -f -e "$fix/annfix" $(awk '{ print "0x" $1 }' "$tmp/counts") >"$tmp/a2l"

sp_run symprof convert -q "$tmp/hot.raw" --format disasm --focus '^hot_outer$'
sp_ok "$rc" "disasm of raw stacks exits 0" || sp_show_err
cp "$tmp/out" "$tmp/hot.disasm"
for aspect in insns targets; do
	sp_run $check $aspect "$tmp/hot.objdump" "$tmp/hot.disasm"
	sp_ok "$rc" "disasm: $aspect as objdump -d shows them ($(cat "$tmp/out"))" || sp_show_err
done
sp_run $check counts "$tmp/counts" "$tmp/hot.disasm"
sp_ok "$rc" "disasm: each instruction's flat is the samples placed on it" || sp_show_err
sp_run $check chains "$tmp/a2l" "$tmp/hot.disasm"
sp_ok "$rc" "disasm: inline chains are addr2line's ($(cat "$tmp/out"))" || sp_show_err
grep -q 'leaf_a <- annfix.c:[0-9]* hot_outer' "$tmp/hot.disasm" &&
	grep -q 'leaf_b <- annfix.c:[0-9]* hot_outer' "$tmp/hot.disasm"
sp_ok $? "disasm: leaf_a and leaf_b are inlined into hot_outer"

sp_run symprof convert -q "$tmp/hot.raw" --format list --focus '^hot_outer$'
sp_ok "$rc" "list of raw stacks exits 0" || sp_show_err
cp "$tmp/out" "$tmp/hot.list"
sp_run $check lines "$tmp/counts" "$tmp/a2l" "$tmp/hot.list"
sp_ok "$rc" "list: lines and inline rows as addr2line attributes the samples ($(cat "$tmp/out"))" ||
	sp_show_err
grep -q 'x = leaf_a(x, ANN_A_PARTS \* n);' "$tmp/hot.list"
sp_ok $? "list: hot_outer's source text is shown"
sp_run symprof convert -q "$tmp/hot.raw" -o "$tmp/hot.list.txt" --focus 'no_such_function'
grep -q '^no function matched$' "$tmp/hot.list.txt"
sp_ok $? "list: a focus matching nothing says so (format from the .list.txt extension)"

# (b) ------------------------------------------------------------------------------
ANNFIX_CFLAGS="-fdebug-prefix-map=$src=/gone/src" "$src/build.sh" "$tmp/moved" >"$tmp/build.log" 2>&1 ||
	sp_bail "moved fixture does not build"
sed "s|$fix/annfix|$tmp/moved/annfix|" "$tmp/hot.raw" >"$tmp/moved.raw"
sp_run symprof convert -q "$tmp/moved.raw" --format list --focus '^hot_outer$'
grep -q 'source not shown: not found (looked at /gone/src/annfix.c)' "$tmp/out"
sp_ok $? "list: a source that is gone is named as not found" || head -n 3 "$tmp/out" | sed 's/^/#   /'
sp_run symprof convert -q "$tmp/moved.raw" --format list --focus '^hot_outer$' --source-path "$src"
grep -q 'x = leaf_a(x, ANN_A_PARTS \* n);' "$tmp/out"
sp_ok $? "list: --source-path DIR finds it by the path's last components" || sp_show_err
sp_run symprof convert -q "$tmp/moved.raw" --format list --focus '^hot_outer$' --path-map "/gone/src=$src"
grep -q 'x = leaf_a(x, ANN_A_PARTS \* n);' "$tmp/out"
sp_ok $? "list: --path-map OLD=NEW finds it too" || sp_show_err
sp_run symprof convert -q "$tmp/moved.raw" --format top --source-path "$src"
[ "$rc" -eq 2 ] && grep -q -- '--source-path applies only to --format html, list, disasm' "$tmp/err"
sp_ok $? "--source-path with another format is a usage error" || sp_show_err

# (c) ------------------------------------------------------------------------------
printf 'int leaf(int x)\n{\n\treturn x * 3 + 1;\n}\nvoid _start(void)\n{\n\tvolatile int r = leaf(5);\n\tfor (;;)\n\t\t;\n}\n' \
	>"$tmp/a64.c"
if command -v clang >/dev/null 2>&1 && command -v ld.lld >/dev/null 2>&1 &&
	clang --target=aarch64-linux-gnu -O2 -g -nostdlib -static -fuse-ld=lld -fno-inline \
		-o "$tmp/a64" "$tmp/a64.c" >"$tmp/a64.log" 2>&1; then
	leaf=$(nm "$tmp/a64" | awk '$3 == "leaf" { print $1 }')
	seg=$(readelf -lW "$tmp/a64" | awk '$1 == "LOAD" && / R E / { print $2, $3, $6; exit }')
	set -- $seg
	start=$(printf '%x' "$(($2 & ~0xfff))")
	end=$(printf '%x' "$((($2 + $3 + 0xfff) & ~0xfff))")
	off=$(printf '%08x' "$(($1 & ~0xfff))")
	printf '# symprof raw stacks v1\naddresses: exact\n3 @ 0x%x\n2 @ 0x%x\n--- Memory map: ---\n%s-%s r-xp %s 08:01 1 %s\n' \
		"$((0x$leaf))" "$((0x$leaf + 4))" "$start" "$end" "$off" "$tmp/a64" >"$tmp/a64.raw"
	sp_run symprof convert -q "$tmp/a64.raw" --format list --focus '^leaf$'
	grep -q '^         5          5      3:	return x \* 3 + 1;$' "$tmp/out"
	sp_ok $? "aarch64: list gives leaf's line 3 its 5 samples" || sed 's/^/#   /' "$tmp/out"
	sp_run symprof convert -q "$tmp/a64.raw" --format disasm --focus '^leaf$'
	if grep -q 'no disassembly: the libopcodes linked in decodes no AArch64 code' "$tmp/out"; then
		sp_ok "$rc" "aarch64: a libopcodes without AArch64 is named in the disassembly, exit 0"
	elif command -v aarch64-linux-gnu-objdump >/dev/null 2>&1; then
		cp "$tmp/out" "$tmp/a64.disasm"
		aarch64-linux-gnu-objdump -d --no-show-raw-insn "$tmp/a64" |
			awk '/<leaf>:$/ { on = 1; next } on && /^$/ { exit } on' >"$tmp/a64.objdump"
		sp_run $check insns "$tmp/a64.objdump" "$tmp/a64.disasm"
		sp_ok "$rc" "aarch64: disasm as aarch64-linux-gnu-objdump shows it" || sp_show_err
	else
		sp_skip "aarch64: disassembled, and no aarch64-linux-gnu-objdump to compare with"
	fi
else
	sp_skip "clang and lld cannot build an AArch64 program here"
fi

# (d) ------------------------------------------------------------------------------
if ! command -v perf >/dev/null 2>&1 ||
	! perf record -q -e cpu-clock -o "$tmp/probe.data" -- true >/dev/null 2>&1; then
	sp_skip "perf record does not work here"
	sp_done
	exit $?
fi
(cd "$fix" && perf record -q -e cpu-clock -g -o "$tmp/fp.data" -- ./annfix 500) >"$tmp/rec.log" 2>&1 ||
	sp_bail "perf record -g failed"
(cd "$fix" && perf record -q -e cpu-clock --call-graph dwarf,16384 -o "$tmp/dw.data" -- ./annfix-pie 300) \
	>"$tmp/rec.log" 2>&1 || sp_bail "perf record --call-graph dwarf failed"
for mode in fp dw; do
	data=$tmp/$mode.data
	want=$(perf script -F ip,sym -i "$data" 2>/dev/null | awk '
		/^[ \t]*$/ { first = 1; next }
		first && $NF == "(inlined)" { next } # perf names the inline frames of a dwarf unwind
		first { if ($2 == "hot_outer") n++; first = 0 }
		BEGIN { first = 1 } END { print n + 0 }')
	for view in list disasm; do
		sp_run symprof convert -q --sample-index samples "$data" --format $view --focus '^hot_outer$'
		cp "$tmp/out" "$tmp/$mode.$view"
		sp_run $check sums "$tmp/$mode.$view"
		got=$(cat "$tmp/out")
		[ "$rc" -eq 0 ] && [ "$got" = "$want" ] && [ "$want" -gt 50 ]
		sp_ok $? "$mode: $view of hot_outer: values sum to its flat $got, the samples perf script puts there ($want)" ||
			sp_show_err
	done
	awk -v want="$want" '
		/\| annfix.c:[0-9]+ leaf_a:/ { a += ($1 == "." ? 0 : $1) }
		/\| annfix.c:[0-9]+ leaf_b:/ { b += ($1 == "." ? 0 : $1) }
		END { if (!want || a + b < want * 0.9) exit 1
		      s = 100 * a / (a + b); print s; exit !(s > 66.7 - 12 && s < 66.7 + 12) }' "$tmp/$mode.list" >"$tmp/share"
	sp_ok $? "$mode: leaf_a's lines hold $(cat "$tmp/share")% of the helpers' samples (2 of 3 parts)"
done
sp_done
