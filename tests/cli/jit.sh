#!/bin/sh
# cli_jit.sh — end to end through `symprof convert`: JIT code next to a real library.
#
# testdata/src/jit/jitfuncs.c is compiled here (-g -O2 -ffunction-sections) into an ET_REL
# object and "loaded" twice the way a JIT does (tests/helpers/jitload: sh_addr set to run-time
# addresses, gcc's empty .text/.data left at 0, .elf + .meta written).  A small shared
# library, also built here, sits at LIB: object A's last section ends exactly at LIB,
# inside an anonymous r-xp region that ends where the library's r-xp mapping begins;
# object B's sections are spread below and above the library.  A legacy heap profile
# and a raw-stacks profile hold addresses in both objects, in the library and in the
# anonymous regions outside every object.  Expected names come from the sources written
# here and in testdata/src/jit; expected lines are each function's line span in its source.
# Unresolved frames are checked by address: the folded outputs are written with --addresses.
# Then the `symprof jit dump` round trip: tests/helpers/jithost registers A through libjitreg,
# the dump of the live process is used as --jit-dir.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

src=$SP_SRCDIR/testdata/src/jit/jitfuncs.c
cat >"$tmp/neigh.c" <<'EOF'
__attribute__((noinline)) long neigh_work(long x)
{
	return x * 7 + 1;
}
EOF
gcc -c -g -O2 -ffunction-sections -o "$tmp/f.o" "$src" &&
	gcc -shared -fPIC -g -O2 -o "$tmp/libneigh.so" "$tmp/neigh.c" ||
	sp_bail "fixtures do not compile"

# The library's executable segment and neigh_work's offset in it.
load=$(readelf -lW "$tmp/libneigh.so" | awk '$1 == "LOAD" && / R E / { print $2, $3; exit }')
set -- $load
seg_off=$(($1))
seg_vaddr=$(($2))
fn_vaddr=$((0x$(nm "$tmp/libneigh.so" | awk '$3 == "neigh_work" { print $1 }')))
[ "$seg_off" -gt 0 ] && [ "$fn_vaddr" -gt 0 ] || sp_bail "library layout not understood"
LIB=$((0x7f2200100000))
LIB_END=$((LIB + 0x1000))
fn_addr=$((LIB - seg_vaddr + fn_vaddr))
hex() { printf '%x' "$1"; }

# A: its last code section (jit_entry) ends exactly at LIB.
mkdir "$tmp/jd" "$tmp/probe"
entry_size=$("$SP_BUILDDIR/tests/helpers/jitload" "$tmp/f.o" "$tmp/probe/p" 0 1000 0 |
	awk '$1 == ".text.jit_entry" { print $3 }')
[ -n "$entry_size" ] || sp_bail "jitload did not place .text.jit_entry"
"$SP_BUILDDIR/tests/helpers/jitload" "$tmp/f.o" "$tmp/jd/A" "$(hex $((LIB - 0x2000 - 0x$entry_size)))" 1000 \
	7f2210000000 >"$tmp/A.placed" &&
	"$SP_BUILDDIR/tests/helpers/jitload" "$tmp/f.o" "$tmp/jd/B" "$(hex $((LIB - 0x4800)))" 3000 \
		7f2220000000 >"$tmp/B.placed" || sp_bail "objects not placed"
# start and size of section $2 in object $1
sec() { awk -v n="$2" '$1 == n { print $2, $3 }' "$tmp/$1.placed"; }
# an address in the middle of section $2 of object $1
mid() { set -- $(sec "$1" "$2"); hex $((0x$1 + 0x$2 / 2)); }
set -- $(sec A .text.jit_entry)
sp_check "A's jit_entry ends exactly where the library begins" test $((0x$1 + 0x$2)) -eq $LIB
set -- $(sec B .text.jit_entry)
sp_check "B's jit_entry lies above the library" test $((0x$1)) -ge $LIB_END
sp_check "empty .text left at 0 in A.meta" grep -q '"name": ".text", "start": 0' "$tmp/jd/A.meta"

A_add=$(mid A .text.jit_add)
A_loop=$(mid A .text.jit_loop)
A_entry_last=$(hex $((LIB - 1)))
B_loop=$(mid B .text.jit_loop)
B_entry=$(mid B .text.jit_entry)
GAP_BELOW=$(hex $((LIB - 0x8000)))
GAP_ABOVE=$(hex $((LIB_END + 0x8000)))
LIBFN=$(hex $((fn_addr + 4)))
LIBMAP="$(hex $((LIB - 0x10000)))-$(hex $LIB) r-xp 00000000 00:00 0
$(hex $LIB)-$(hex $LIB_END) r-xp $(printf %08x "$seg_off") 08:01 1234 $tmp/libneigh.so
$(hex $LIB_END)-$(hex $((LIB_END + 0xf000))) r-xp 00000000 00:00 0"

# Heap addresses are return addresses: symprof looks one byte lower, still inside.
cat >"$tmp/jit.heap" <<EOF
heap profile:      3:      700 [     3:      700] @ heapprofile
     1:      100 [     1:      100] @ 0x$A_add 0x$A_loop 0x$A_entry_last 0x$LIBFN
     1:      200 [     1:      200] @ 0x$B_entry 0x$B_loop 0x$GAP_BELOW 0x$LIBFN
     1:      400 [     1:      400] @ 0x$GAP_ABOVE 0x$LIBFN

MAPPED_LIBRARIES:
$LIBMAP
EOF
# Raw stacks with exact addresses: the same stacks, values 1, 2, 4.
{
	echo "# symprof raw stacks v1"
	echo "addresses: exact"
	echo "1 @ 0x$A_add 0x$A_loop 0x$A_entry_last 0x$LIBFN"
	echo "2 @ 0x$B_entry 0x$B_loop 0x$GAP_BELOW 0x$LIBFN"
	echo "4 @ 0x$GAP_ABOVE 0x$LIBFN"
	echo "--- Memory map: ---"
	echo "$LIBMAP"
} >"$tmp/jit.raw"

S1="neigh_work;jit_entry;jit_loop;jit_add"
S2_TAIL="jit_loop;jit_entry"
S1A="neigh_work;jit_entry_[j];jit_loop_[j];jit_add_[j]"

for kind in heap raw; do
	case $kind in heap) v1=100 v2=200 v3=400 ;; raw) v1=1 v2=2 v3=4 ;; esac
	in=$tmp/jit.$kind

	sp_run symprof convert -q --addresses --jit-dir "$tmp/jd" "$in" -o "$tmp/$kind.folded"
	sp_ok "$rc" "$kind: convert --jit-dir to folded exits 0" || sp_show_err
	sp_check "$kind: A's frames named, the library frame is the library's" \
		grep -qx "$S1 $v1" "$tmp/$kind.folded"
	# the gap below the library (0x8000 into its region; a return address is looked up
	# one byte before) stays an address in its region and is not the library's
	sp_check "$kind: B's frames named around an address in no object" \
		grep -Eqx "neigh_work;\\[jit\\]\\+0x(7fff|8000);$S2_TAIL $v2" "$tmp/$kind.folded"
	sp_check "$kind: the region above the library stays an address in it" \
		grep -Eqx "neigh_work;\\[jit\\]\\+0x(7fff|8000) $v3" "$tmp/$kind.folded"

	sp_run symprof convert -q --addresses --annotate --jit-dir "$tmp/jd" "$in" -o "$tmp/$kind.ann.folded"
	sp_ok "$rc" "$kind: convert --annotate exits 0" || sp_show_err
	sp_check "$kind: --annotate marks JIT frames _[j], not the library's" \
		grep -Fqx "$S1A $v1" "$tmp/$kind.ann.folded"

	sp_run symprof convert -q --addresses "$in" -o "$tmp/$kind.nojit.folded"
	sp_ok "$rc" "$kind: convert without --jit-dir exits 0" || sp_show_err
	sp_check "$kind: without --jit-dir the library frame still resolves" \
		grep -q "^neigh_work;" "$tmp/$kind.nojit.folded"
	sp_check "$kind: without --jit-dir no anonymous frame takes a library name" \
		awk '{ sub(/^neigh_work;/, ""); n = split($1, f, ";")
			for (i = 1; i <= n; i++) if (f[i] !~ /^\[anon\]\+0x[0-9a-f]+$/) bad = 1 }
			END { exit bad || NR == 0 }' "$tmp/$kind.nojit.folded"
	sp_check "$kind: without --jit-dir the frame just below the library stays an address" \
		grep -Eq "^neigh_work;\\[anon\\]\\+0xfff(f|e);" "$tmp/$kind.nojit.folded"

	# pprof, read back by go tool pprof
	if sp_have_go; then
		sp_run symprof convert -q --jit-dir "$tmp/jd" "$in" -o "$tmp/$kind.pb.gz"
		sp_ok "$rc" "$kind: convert --jit-dir to pprof exits 0" || sp_show_err
		sp_run sp_gopprof -raw "$tmp/$kind.pb.gz"
		sp_ok "$rc" "$kind: go tool pprof -raw reads it" || sp_show_err
		cp "$tmp/out" "$tmp/$kind.pprof.txt"
		sp_check "$kind: the anonymous mappings are named [jit]" \
			test "$(grep -c ' \[jit\] ' "$tmp/$kind.pprof.txt")" -eq 2
		sp_check "$kind: the library mapping keeps its name" \
			grep -q "/libneigh.so " "$tmp/$kind.pprof.txt"
		# each function's file and a line within its span in the source
		for fn in jit_add jit_loop jit_entry; do
			first=$(grep -n "int64_t $fn(" "$src" | cut -d: -f1)
			last=$(awk -v f="$first" 'NR > f && $0 == "}" { print NR; exit }' "$src")
			bad=$(awk -v fn="$fn" -v lo="$first" -v hi="$last" '
				$4 == fn { n++; split($5, a, ":"); f = a[1]; l = a[2] + 0
					if (f !~ /testdata\/src\/jit\/jitfuncs\.c$/ || l < lo || l > hi) bad = bad " " $5 }
				END { if (!n) print "none"; else print bad }' "$tmp/$kind.pprof.txt")
			sp_check "$kind: pprof: $fn at jitfuncs.c lines $first-$last" test -z "$bad"
			[ -z "$bad" ] || sp_diag "bad: $bad"
		done
		sp_check "$kind: pprof: neigh_work from the library's source" \
			grep -Eq " neigh_work [^ ]*/neigh\.c:3 " "$tmp/$kind.pprof.txt"
	else
		sp_skip "$kind: pprof checks: go not installed"
	fi
done

# `symprof symbolize` with the same sources, on run-time addresses.
span() { # first and last line of function $1 in the source
	first=$(grep -n "int64_t $1(" "$src" | cut -d: -f1)
	echo "$first $(awk -v f="$first" 'NR > f && $0 == "}" { print NR; exit }' "$src")"
}
# checks "NAME FILE:LINE" pairs of symbolize output $1 (function lines, then file:line)
sym_is() {
	awk 'NR % 2 { f = $0; next } { print f, $0 }' "$1" | sed -n "${2}p" >"$tmp/pair"
	read -r fn loc <"$tmp/pair"
	loc=${loc%% (discriminator *}
	[ "$fn" = "$3" ] || return 1
	[ "$3" = "??" ] && { [ "$loc" = "??:0" ]; return; }
	set -- $(span "$3")
	case $loc in */testdata/src/jit/jitfuncs.c:*) ;; *) return 1 ;; esac
	l=${loc##*:}
	[ "$l" -ge "$1" ] && [ "$l" -le "$2" ]
}
sp_run symprof symbolize -f -i --jit-dir "$tmp/jd" "0x$A_add" "0x$B_loop" "0x$GAP_BELOW" "0x$B_entry"
sp_ok "$rc" "symbolize --jit-dir exits 0" || sp_show_err
cp "$tmp/out" "$tmp/sym.out"
sp_check "symbolize --jit-dir: A's jit_add at its source line" sym_is "$tmp/sym.out" 1 jit_add
sp_check "symbolize --jit-dir: B's jit_loop at its source line" sym_is "$tmp/sym.out" 2 jit_loop
sp_check "symbolize --jit-dir: an address in no object is ??" sym_is "$tmp/sym.out" 3 "??"
sp_check "symbolize --jit-dir: B's jit_entry" sym_is "$tmp/sym.out" 4 jit_entry
sp_run symprof symbolize -f -i --jit-dir "$tmp/jd" -e "$tmp/libneigh.so" "0x$A_loop" "$(hex $((fn_vaddr + 4)))"
sp_ok "$rc" "symbolize --jit-dir -e LIB exits 0" || sp_show_err
sp_check "symbolize --jit-dir -e LIB: the JIT address resolves in its object" \
	sym_is "$tmp/out" 1 jit_loop
sp_check "symbolize --jit-dir -e LIB: the library address in the library" \
	sh -c "sed -n 3,4p '$tmp/out' | tr '\n' ' ' | grep -Eq '^neigh_work .*/neigh\.c:3 \$'"
sp_run symprof symbolize --json --jit-dir "$tmp/jd" "0x$A_add"
sp_ok "$rc" "symbolize --json --jit-dir exits 0" || sp_show_err
sp_check "symbolize --json --jit-dir: one jit_add frame from jitfuncs.c" \
	grep -Eq '^\{"address":"0x'"$A_add"'","frames":\[\{"function":"jit_add",[^]]*jitfuncs\.c"' "$tmp/out"
sp_run symprof symbolize -f -i --jit-dir "$tmp/jd" --relative "0x$A_add"
sp_check "symbolize --relative without -e is a usage error" test "$rc" = 2
sp_run symprof symbolize -f -i --jit-dir "$tmp/no-such-dir" "0x$A_add"
sp_check "symbolize --jit-dir of a missing directory: exit 1 naming it" \
	sh -c "[ $rc = 1 ] && grep -q '$tmp/no-such-dir' '$tmp/err'"

# Perf map only: names, no files; tolerant of 0x prefixes.
set -- $(sec A .text.jit_add)
a_add_start=$1 a_add_size=$2
set -- $(sec A .text.jit_loop)
a_loop_start=$1 a_loop_size=$2
printf '0x%s 0x%s perf_add\n%s   %s perf_loop\n' "$a_add_start" "$a_add_size" \
	"$a_loop_start" "$a_loop_size" >"$tmp/perf-77.map"
sp_run symprof convert -q --addresses --perf-map "$tmp/perf-77.map" "$tmp/jit.raw" -o "$tmp/perf.folded"
sp_ok "$rc" "perf map: convert exits 0" || sp_show_err
sp_check "perf map: JIT frames named from the map, the library's from the library" \
	grep -Eqx "neigh_work;\\[(jit|anon)\\]\\+0x[0-9a-f]+;perf_loop;perf_add 1" "$tmp/perf.folded"
sp_check "perf map: A's jit_entry (not in the map) stays an address in its region" \
	grep -q "^neigh_work;\\[jit\\]+0x$(hex $((0x$A_entry_last - (LIB - 0x10000))));" "$tmp/perf.folded"
sp_run symprof symbolize -f -i --perf-map "$tmp/perf-77.map" "0x$A_loop" "0x$A_entry_last"
sp_ok "$rc" "symbolize --perf-map exits 0" || sp_show_err
sp_check "symbolize --perf-map: the map's name, no file; unknown stays ??" \
	test "$(tr '\n' ' ' <"$tmp/out")" = "perf_loop ??:? ?? ??:0 "

# `symprof jit dump` of a live process registering A, then its dump as --jit-dir.
if [ -x "$SP_BUILDDIR/tests/helpers/jithost" ]; then
	mkfifo "$tmp/ctl"
	"$SP_BUILDDIR/tests/helpers/jithost" "$tmp/jd/A.elf" <"$tmp/ctl" >"$tmp/ready" &
	hostpid=$!
	exec 3>"$tmp/ctl"
	i=0
	while ! grep -q '^ready' "$tmp/ready" 2>/dev/null && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	read -r _ pid _ <"$tmp/ready"
	sp_run symprof jit dump --pid "${pid:-0}" -d "$tmp/dump"
	sp_ok "$rc" "jit dump --pid of the host exits 0" || sp_show_err
	exec 3>&-
	wait "$hostpid"
	sp_check "jit dump wrote one object" test -f "$tmp/dump/jit-0.elf" -a ! -e "$tmp/dump/jit-1.elf"
	{
		echo "# symprof raw stacks v1"
		echo "addresses: exact"
		echo "3 @ 0x$A_add 0x$A_loop 0x$A_entry_last 0x$LIBFN"
		echo "--- Memory map: ---"
		echo "$LIBMAP"
	} >"$tmp/dumped.raw"
	sp_run symprof convert -q --jit-dir "$tmp/dump" "$tmp/dumped.raw" -o "$tmp/dumped.folded"
	sp_ok "$rc" "convert --jit-dir of the dump exits 0" || sp_show_err
	sp_check "the dumped object names the JIT frames" grep -qx "$S1 3" "$tmp/dumped.folded"
else
	sp_skip "jit dump round trip: tests/helpers/jithost not built"
fi

# `jit dump --pid` of a process that is gone, or that this user may not read: the error
# says which, and no output directory is left behind.
sh -c 'exit 0' &
gone=$!
wait "$gone"
sp_run symprof jit dump --pid "$gone" -d "$tmp/gone"
sp_check "jit dump --pid of an exited process exits 1" test "$rc" = 1
sp_check "jit dump --pid of an exited process: \"no such process\"" \
	grep -q "process $gone: no such process" "$tmp/err"
sp_check "jit dump --pid of an exited process leaves no directory" test ! -e "$tmp/gone"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
	setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$SYMPROF" 2>/dev/null; then
	mkdir -m 1777 "$tmp/shared"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$SYMPROF" jit dump --pid 1 -d "$tmp/shared/denied" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	sp_check "jit dump --pid of another user's process exits 1" test "$rc" = 1
	sp_check "jit dump --pid of another user's process: \"permission denied (ptrace)\"" \
		grep -q "process 1: permission denied (ptrace)" "$tmp/err"
	sp_check "jit dump --pid of another user's process leaves no directory" \
		test ! -e "$tmp/shared/denied"
else
	sp_skip "jit dump --pid permission error: needs root, setpriv and a build others may run"
fi

sp_done
