#!/bin/sh
# symbolize_debuglink.sh — a stripped binary's .gnu_debuglink file found in the places gdb
# and elfutils look: the binary's directory, its .debug/, each global debug directory +
# the binary's absolute directory (gdb), and under each debug directory the binary's
# trailing directories (elfutils: /root/bin/prog looks in DEBUGDIR/bin/ too, as elfutils'
# own test run-addr2line-alt-debugpath.sh puts it).  The answers must be those of the
# unstripped binary, eu-addr2line --debuginfo-path must find the same file (it is right
# there), and `symprof info` lists every place tried, in order.
. "$(dirname "$0")/../../tests/helpers/cli_lib.sh"

src=$SP_SRCDIR/testdata/src/symbolize/fixture.cc
mkdir -p "$tmp/root/bin" "$tmp/dbg"
g++ -O2 -g -o "$tmp/full" "$src" &&
	objcopy --only-keep-debug "$tmp/full" "$tmp/prog.debug" &&
	strip --strip-debug -o "$tmp/root/bin/prog" "$tmp/full" &&
	objcopy --add-gnu-debuglink="$tmp/prog.debug" "$tmp/root/bin/prog"
sp_ok $? "built the fixture, stripped, with a debuglink to prog.debug" || { sp_done; exit; }

nm -S --defined-only "$tmp/full" | awk 'NF == 4 && $3 ~ /^[tT]$/ {print "0x" $1}' |
	head -n 12 >"$tmp/addrs"
"$SYMPROF" symbolize -f -i -e "$tmp/full" $(cat "$tmp/addrs") >"$tmp/want"

# DIR (relative to $tmp): where prog.debug goes; then what a debug dir option gives
check_place()
{
	what=$1 place=$2
	shift 2
	mkdir -p "$tmp/$place" && cp "$tmp/prog.debug" "$tmp/$place/prog.debug"
	sp_run symprof symbolize -f -i "$@" -e "$tmp/root/bin/prog" $(cat "$tmp/addrs")
	cmp -s "$tmp/want" "$tmp/out"
	sp_ok $? "$what: the unstripped binary's answers" || sp_diag "$(diff "$tmp/want" "$tmp/out" | head)"
	if command -v eu-addr2line >/dev/null 2>&1; then
		dp=
		[ $# -gt 0 ] && dp="--debuginfo-path=$2"
		# shellcheck disable=SC2086 # empty or one word
		eu-addr2line $dp -e "$tmp/root/bin/prog" "$(head -n 1 "$tmp/addrs")" >"$tmp/eu" 2>&1
		! grep -q '^??:' "$tmp/eu"
		sp_ok $? "$what: eu-addr2line finds it too" || sp_diag "$(cat "$tmp/eu")"
	fi
	rm -f "$tmp/$place/prog.debug"
}
check_place "beside the binary" root/bin
check_place "in the binary's .debug/" root/bin/.debug
check_place "global debug dir + the binary's directory" "dbg$tmp/root/bin" --debug-dir "$tmp/dbg"
check_place "debug dir + the binary's trailing directory" dbg/bin --debug-dir "$tmp/dbg"
check_place "debug dir + the last two directories" dbg/root/bin --debug-dir "$tmp/dbg"

# info lists the places, in order: a raw profile with the binary mapped
cat >"$tmp/p.txt" <<EOT
# symprof raw stacks v1
sample_type: samples/count
addresses: exact
1 @ 0x$(printf '%x' $(( $(head -n 1 "$tmp/addrs") )))
--- Memory map: ---
00000000-00100000 r-xp 00000000 08:01 1234 $tmp/root/bin/prog
EOT
mkdir -p "$tmp/dbg"
sp_run symprof info --debug-dir "$tmp/dbg" "$tmp/p.txt"
grep '^    tried: ' "$tmp/out" | sed 's/^    tried: //; s/ ([a-z -]*)$//' >"$tmp/tried"
real=$(cd "$tmp/root/bin" && pwd -P)
{
	echo "$tmp/root/bin/prog.debug"
	echo "$tmp/root/bin/.debug/prog.debug"
	d=$tmp/root/bin
	while [ -n "$d" ]; do
		echo "$tmp/dbg$d/prog.debug"
		case $d in /*/*) d=/${d#/*/} ;; *) d= ;; esac
	done
	echo "$tmp/dbg/prog.debug"
	if [ "$real" != "$tmp/root/bin" ]; then
		d=$real
		while [ -n "$d" ]; do
			echo "$tmp/dbg$d/prog.debug"
			case $d in /*/*) d=/${d#/*/} ;; *) d= ;; esac
		done
	fi
} | awk '!seen[$0]++' >"$tmp/want_tried"
grep -Fxf "$tmp/want_tried" "$tmp/tried" | cmp -s "$tmp/want_tried" -
sp_ok $? "info: every place gdb and elfutils look, in order" ||
	sp_diag "$(diff "$tmp/want_tried" "$tmp/tried")"

sp_done
