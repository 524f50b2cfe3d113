#!/bin/sh
# budget.sh — one memory budget for the whole process (--max-memory): every memory file,
# inflated section and copy of a file counts against it, the session's objects give back
# what they hold before it is reached, and what does not fit is refused naming its file.
# Peak memory is the resident set plus the memory files held (tests/helpers/peak_mem,
# each memory file once), and must stay below the budget plus a fixed 16 MiB (the code,
# libraries and stacks, which the budget leaves out: it keeps that much aside); every run
# is killed after 120 s (a hang fails) and leaves no temporary output.
#   - a split-DWARF .dwo with zstd-compressed sections, padded with a sparse hole to
#     3 GiB (truncate: no disk), read where it is: the function and line of each address
#     of main as llvm-symbolizer gives them on the plain build of the same sources, within
#     --max-memory 64M (it was copied whole into a memory file first: 3 GiB, 13 s);
#   - a .dwo whose string section inflates to 100 MiB: refused at --max-memory 64M with a
#     note naming the file, the section and the limit (its inline frames were dropped
#     without a word), read whole with room for it;
#   - three zstd-compressed modules, each an ELF followed by 100 MiB of zeros, named by
#     three mappings, and a fourth of 400 MiB: with --max-memory 256M the three are
#     decompressed in turn, each module's object given back before the next needs the
#     room, all three name their address (bombfn, in their DWARF), and the fourth is
#     refused naming its file and the limit (before: each was bounded by the limit on
#     its own, all held at once: 580 MB);
#   - the single budget: one `convert --each` run over a profile naming all of these and a
#     pprof bomb (64 KiB of gzip inflating to 256 MiB of samples, tests/helpers/bombs.py)
#     stays below 256 MiB + 16 MiB, converts the first, and every refusal names its file;
#   - hostile debuginfod servers (tests/helpers/bombs.py server) under --max-memory 64M:
#     a body without a length, one announcing 3 GiB, one dripping, one not ELF.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

overhead_kb=$((16 * 1024))
mkdir "$tmp/o"

# within LIMIT_MIB WHAT: the last sp_run_peak ended by itself, below LIMIT_MIB MiB + the
# overhead, and left no temporary output
within()
{
	[ "$rc" -ne 124 ]
	sp_ok $? "$2: ends by itself (no hang)"
	sp_peak_below $(($1 * 1024 + overhead_kb)) "$2: within $1 MiB + 16 MiB"
	! ls -a "$tmp/o" | grep -q '\.tmp\.'
	sp_ok $? "$2: no temporary output left"
}

# as_llvm ADDRS: the last run's output ($tmp/out) is the function and file:line of every
# frame of ADDRS as llvm-symbolizer says them on the plain build (without its columns and
# the blank line after each address), with inline frames among them (two lines a frame:
# more than two an address)
as_llvm()
{
	if ! command -v llvm-symbolizer >/dev/null 2>&1; then
		sp_skip "llvm-symbolizer not installed: no independent frames"
		return
	fi
	# shellcheck disable=SC2086 # one word per address
	llvm-symbolizer --obj="$sd/plain/prog" --inlines --functions=linkage --basenames \
		$1 | awk 'NF' | sed -E 's/:([0-9]+):[0-9]+$/:\1/' >"$tmp/want"
	sed 's/ (discriminator [0-9]*)$//' "$tmp/out" >"$tmp/got"
	[ -s "$tmp/want" ] && cmp -s "$tmp/want" "$tmp/got" &&
		[ "$(wc -l <"$tmp/got")" -gt $((2 * $(echo "$1" | wc -w))) ]
	sp_ok $? "... every address of main: the frames llvm-symbolizer gives on the plain build" ||
		diff "$tmp/want" "$tmp/got" | head -n 10 | sed 's/^/#   /'
}
# main_addrs PROG: every third byte address of PROG's main, in hex, one word each
main_addrs()
{
	set -- $(nm -S "$1" | awk '$4 == "main" { print $1, $2 }')
	a=0
	while [ $a -lt $((0x$2)) ]; do
		printf ' 0x%x' $((0x$1 + a))
		a=$((a + 3))
	done
}

command -v zstd >/dev/null 2>&1 || { sp_skip "zstd not installed (Debian package zstd)"; sp_done; }

# --- a sparse .dwo ------------------------------------------------------------------------
src="$SP_SRCDIR/testdata/src/symbolize/fixture.cc"
src_b="$SP_SRCDIR/testdata/src/symbolize/fixture_b.cc"
sd=$tmp/sd
mkdir "$sd" "$sd/plain"
(cd "$sd" && g++ -O2 -g -gdwarf-5 -gsplit-dwarf -o prog "$src" "$src_b" &&
	g++ -O2 -g -gdwarf-5 -o plain/prog "$src" "$src_b" &&
	objcopy --compress-debug-sections=zstd prog-fixture.dwo) >"$tmp/sd.log" 2>&1 ||
	{ sed 's/^/# /' "$tmp/sd.log"; sp_bail "split DWARF fixture does not build"; }
truncate -s 3G "$sd/prog-fixture.dwo"
addrs=$(main_addrs "$sd/prog")
main=$((0x$(nm "$sd/prog" | awk '$3 == "main" { print $1 }')))
# shellcheck disable=SC2086 # one word per address
sp_run_peak 120 symprof symbolize --max-memory 64M -e "$sd/prog" -f -i -s $addrs
sp_ok "$rc" "a .dwo with zstd sections and a 3 GiB hole: symbolize exits 0" || sp_show_err
within 64 "the sparse .dwo"
as_llvm "$addrs"

# --- a .dwo section that does not fit ------------------------------------------------------
# The same build with the .dwo's string section followed by 100 MiB of zeros, then
# compressed: at --max-memory 64M it cannot be inflated, and its functions lose their inline
# frames, which must be said (naming the file, the section and the limit), never silently;
# with room for it, every address of main is what llvm-symbolizer says on the plain build.
sb=$tmp/sb
mkdir "$sb"
(cd "$sb" && g++ -O2 -g -gdwarf-5 -gsplit-dwarf -o prog "$src" "$src_b" &&
	objcopy --dump-section .debug_str.dwo=str.bin prog-fixture.dwo &&
	cp str.bin big.bin && truncate -s +100M big.bin &&
	objcopy --update-section .debug_str.dwo=big.bin prog-fixture.dwo &&
	rm big.bin && objcopy --compress-debug-sections=zstd prog-fixture.dwo) >"$tmp/sb.log" 2>&1 ||
	{ sed 's/^/# /' "$tmp/sb.log"; sp_bail "the .dwo with a large section does not build"; }
inflated=$(($(wc -c <"$sb/str.bin") + 100 * 1024 * 1024))
sb_addrs=$(main_addrs "$sb/prog")
# shellcheck disable=SC2086 # one word per address
sp_run_peak 120 symprof symbolize --max-memory 64M -e "$sb/prog" -f -i -s $sb_addrs
sp_ok "$rc" "a .dwo section inflating to 100 MiB at --max-memory 64M: exit 0" || sp_show_err
within 64 "the .dwo section that does not fit"
grep -qxF "symprof: note: $sb/prog: split unit prog-fixture.dwo not read: $sb/prog-fixture.dwo: section .debug_str.dwo: offset 0: zstd data decompresses to more than 64 MiB (the memory limit, --max-memory): its header says $inflated bytes; the functions of that unit are named without their inline frames" "$tmp/err" &&
	[ "$(grep -c 'note:' "$tmp/err")" -eq 1 ]
sp_ok $? "... said once, naming the file, the section, the size and the limit" || sp_show_err
# With -j 2 the note is said as with -j 1, once, whichever session met the unit: 20000
# other addresses and main's, main's the lowest of the list and then (as offsets from
# .fini, wrapped below zero) the highest, which -j 2's second session takes first.
fini=$((0x$(readelf -SW "$sb/prog" | sed -n 's/.* \.fini  *[A-Z]*  *\([0-9a-f]*\) .*/\1/p')))
for layout in low high; do
	: >"$tmp/list"
	for a in $sb_addrs; do
		if [ $layout = low ]; then printf '%x\n' $((a)); else printf '%x\n' $((a - fini)); fi
	done >>"$tmp/list"
	awk 'BEGIN { for (i = 0; i < 20000; i++) printf "%x\n", 1048576 + 16 * i }' >>"$tmp/list"
	[ $layout = low ] && set -- || set -- --section=.fini
	for j in 1 2; do
		sp_symprof symbolize --max-memory 64M -j $j -e "$sb/prog" -f -i -s "$@" <"$tmp/list" \
			>"$tmp/j$j.out" 2>"$tmp/j$j.err"
		echo $? >"$tmp/j$j.rc"
	done
	[ "$(cat "$tmp/j1.rc")" -eq 0 ] && [ "$(cat "$tmp/j2.rc")" -eq 0 ] &&
		cmp -s "$tmp/j1.out" "$tmp/j2.out" && cmp -s "$tmp/j1.err" "$tmp/j2.err" &&
		[ "$(grep -c 'note:.*without their inline frames' "$tmp/j2.err")" -eq 1 ]
	sp_ok $? "-j 2, main's addresses $layout in the list: -j 1's answers and its note, once" ||
		sed 's/^/#   /' "$tmp/j2.err"
done
# shellcheck disable=SC2086
sp_run_peak 120 symprof symbolize --max-memory 512M -e "$sb/prog" -f -i -s $sb_addrs
sp_ok "$rc" "... at --max-memory 512M: exit 0" || sp_show_err
within 512 "the .dwo section with room"
! grep -q 'note:' "$tmp/err"
sp_ok $? "... nothing to say" || sp_show_err
as_llvm "$sb_addrs"

# --- compressed modules, three that fit one at a time, one that does not ------------------
bb=$tmp/bombs
mkdir "$bb"
# module K: its own code (so its own build id), then zeros
for k in 1 2 3 4; do
	printf 'int bombfn(int x) { return x * %d + 1; }\n' $((k + 2)) >"$bb/b$k.c"
	gcc -O2 -g -shared -fPIC -Wl,--build-id -o "$bb/b$k.so" "$bb/b$k.c" ||
		sp_bail "module $k does not build"
done
for k in 1 2 3; do
	(cat "$bb/b$k.so" && head -c 100M /dev/zero) | zstd -q -19 -o "$bb/bomb$k.ko.zst"
done
(cat "$bb/b4.so" && head -c 400M /dev/zero) | zstd -q -19 -o "$bb/big.ko.zst"
fn=$(nm "$bb/b1.so" | awk '$3 == "bombfn" { print $1 }')
# each mapping holds the executable segment (file offset 0x1000 at 0xK0001000)
{
	printf '# symprof raw stacks v1\n'
	for k in 1 2 3 4; do printf '1 @ 0x%x\n' $((k * 0x10000000 + 0x$fn)); done
	printf '1 @ 0x%x\n' $((0x555555554000 + main))
	printf -- '--- Memory map: ---\n'
	for k in 1 2 3; do
		printf '%x-%x r-xp 00001000 00:00 0 %s/bomb%d.ko.zst\n' $((k * 0x10000000 + 0x1000)) \
			$((k * 0x10000000 + 0x2000)) "$bb" $k
	done
	printf '40001000-40002000 r-xp 00001000 00:00 0 %s/big.ko.zst\n' "$bb"
	printf '555555554000-555555654000 r-xp 00000000 08:01 1 %s/prog\n' "$sd"
} >"$tmp/mix.raw"
big_refused="symprof: $tmp/mix.raw: $bb/big.ko.zst: 1 of 1 addresses unresolved (error; $bb/big.ko.zst: build id none: $bb/big.ko.zst: zstd data decompresses to more than the"
big_refused_end="MiB the memory limit of 256 MiB leaves (--max-memory) (1 places tried))"

sp_run_peak 120 symprof convert --max-memory 256M "$tmp/mix.raw" -o "$tmp/o/mix.folded"
sp_ok "$rc" "three 100 MiB module bombs and one of 400 MiB at --max-memory 256M: exit 0" ||
	sp_show_err
within 256 "module bombs"
grep -qx 'bombfn 3' "$tmp/o/mix.folded"
sp_ok $? "... the three that fit each name their address (bombfn)" ||
	sed 's/^/#   /' "$tmp/o/mix.folded"
grep -q "^$big_refused [0-9]* $big_refused_end\$" "$tmp/err"
sp_ok $? "... the one that does not is refused, naming its file and the limit" || sp_show_err

# --- the single budget: all of it and a pprof bomb in one run ---------------------------------
python3 "$SP_SRCDIR/tests/helpers/bombs.py" pprof 256 "$tmp/pbomb.pb.gz"
rm -f "$tmp/o/"*
sp_run_peak 120 symprof convert --each -j 1 --max-memory 256M --format folded "$tmp/mix.raw" \
	"$tmp/pbomb.pb.gz" -o "$tmp/o"
[ "$rc" -eq 1 ]
sp_ok $? "the sparse .dwo, the module bombs and a pprof bomb in one run: exit 1 ($rc)"
within 256 "the single budget"
grep -qx "symprof: $tmp/pbomb.pb.gz: needs more memory than the limit of 256 MiB (--max-memory)" \
	"$tmp/err" && grep -q "^$big_refused [0-9]* $big_refused_end\$" "$tmp/err"
sp_ok $? "... each refusal names its file: the pprof bomb and the 400 MiB module" || sp_show_err
grep -qx 'bombfn 3' "$tmp/o/mix.raw.folded" && grep -q '^main' "$tmp/o/mix.raw.folded"
sp_ok $? "... and the profile naming them is converted, names from the .dwo and the modules" ||
	sed 's/^/#   /' "$tmp/o/mix.raw.folded"

# --- debuginfod servers that hurt, under the budget --------------------------------------------
# A stripped copy of module 1 (its build id kept): its debug info is asked of the server.
# Under valgrind (50 times slower) the servers' time bounds are met at other points of the
# transfers: only the runs themselves are checked there, not what the cache kept or info.
vg=
[ -n "${SP_VALGRIND:-}" ] && [ "$SP_VALGRIND" != 0 ] && vg=yes
if command -v python3 >/dev/null 2>&1 && strip -g -o "$bb/s1.so" "$bb/b1.so"; then
	printf '# symprof raw stacks v1\n1 @ 0x%x\n--- Memory map: ---\n' $((0x10000000 + 0x$fn)) \
		>"$tmp/dfd.raw"
	printf '10001000-10002000 r-xp 00001000 00:00 0 %s/s1.so\n' "$bb" >>"$tmp/dfd.raw"
	bid=$(readelf -n "$bb/s1.so" | awk '/Build ID:/ { print $3 }')
	for mode in huge biglen drip garbage; do
		: >"$tmp/$mode.log"
		python3 "$SP_SRCDIR/tests/helpers/bombs.py" server $mode "$tmp/$mode.port" \
			"$tmp/$mode.log" 600 &
		srv=$!
		k=0
		while [ ! -s "$tmp/$mode.port" ] && [ $k -lt 100 ]; do sleep 0.1; k=$((k + 1)); done
		url="http://127.0.0.1:$(cat "$tmp/$mode.port" 2>/dev/null)"
		export DEBUGINFOD_URLS="$url" DEBUGINFOD_CACHE_PATH="$tmp/cache-$mode"
		# (a size bound the endless bodies reach at once, whatever the machine's pace)
		export DEBUGINFOD_MAXTIME=4 DEBUGINFOD_MAXSIZE=2000000
		sp_run_peak 120 symprof convert --max-memory 64M "$tmp/dfd.raw" -o "$tmp/o/dfd.folded"
		sp_ok "$rc" "debuginfod server ($mode) at --max-memory 64M: exit 0" || sp_show_err
		within 64 "debuginfod server ($mode)"
		[ -s "$tmp/$mode.log" ] && grep -qx 'bombfn 1' "$tmp/o/dfd.folded"
		sp_ok $? "... the server was asked; the address named from the module's own symbols" ||
			sed 's/^/#   /' "$tmp/o/dfd.folded"
		if [ -n "$vg" ]; then
			sp_skip "... what the cache kept and what info says (valgrind)"
			sp_kill_children "$srv"
			continue
		fi
		cached=$(find "$DEBUGINFOD_CACHE_PATH" -mindepth 2 -type f -size +0 2>/dev/null | wc -l)
		[ "$cached" -eq 0 ]
		sp_ok $? "... nothing kept in the cache ($cached files)"
		case $mode in
		huge | biglen) why="debuginfod:$bid/debuginfo from $url (too large: over 2000000 bytes)" ;;
		drip) why="debuginfod:$bid/debuginfo from $url (timed out after 4 s)" ;;
		garbage) why="$DEBUGINFOD_CACHE_PATH/$bid/debuginfo (not ELF)" ;;
		esac
		rm -rf "$DEBUGINFOD_CACHE_PATH"
		sp_run_peak 120 symprof info --max-memory 64M "$tmp/dfd.raw"
		grep -qxF "    tried: $why" "$tmp/out"
		sp_ok $? "... info says what the server did: $mode" || grep tried "$tmp/out" | sed 's/^/#   /'
		sp_kill_children "$srv"
	done
	unset DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH DEBUGINFOD_MAXTIME DEBUGINFOD_MAXSIZE
else
	sp_skip "python3 or strip missing: no debuginfod servers"
fi

sp_done
