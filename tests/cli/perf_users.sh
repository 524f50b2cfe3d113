#!/bin/sh
# perf_users.sh — what a perf user meets first: `symprof convert x.data` with no options,
# on recordings made here with `perf record`, against `perf report` on the same file.
#
# Kernel frames (a recording of dd reading /dev/zero: most samples in read_zero):
#   - named by default: the kernel functions of `perf report --no-children --sort sym`
#     are symprof top's (every row: --nodefraction 0, as perf report lists functions
#     under top's default 0.5% cut), each within 0.5 points, from the kallsyms perf's
#     build-id cache kept, and with an empty cache from /proc/kallsyms (the running
#     kernel is the recording's), info saying which and why;
#   - a --kallsyms copy whose addresses are all 0 (read without the right to see them)
#     is a warning and kernel frames stay addresses (exit 0, output written).
# perf's build-id cache (the fixture spin, testdata/src/perfusers, rebuilt after
# recording with another build id):
#   - the functions perf report names from its cache, symprof names too, by default;
#   - with an empty cache, from the same tree given as --debug-dir (`perf archive`
#     unpacked), and from the rebuilt binary with --force-mismatch; without either they
#     stay addresses with a build-id mismatch.
# --debug-dir adds: with one of one's own, libc6-dbg's /usr/lib/debug still gives libc
#   its debug info.
# PLT stubs of spin: symprof symbolize names each NAME@plt, as objdump -d labels it.
# Two events (task-clock,page-faults): each its own columns, never summed: the default
#   folded total is task-clock's sample count (perf script), stderr names the event shown
#   and the other, --sample-index page-faults gives page-faults' count.
# Flat to the symbol: perf.data's top charges spin_c, not spin_mix inlined into it, as perf
#   report's Self (the legend says so), --flat-to frame the inlined frame; stacks keep it.
# A stripped library: its unnamed addresses are one frame [libstrip.so] (with lib_work,
#   named from .dynsym, the library's share of perf report --sort dso), --addresses and
#   the pprof output keep libstrip.so+0xOFFSET frames.
# A frame-pointer chain into junk (junk_spin points the frame pointer at a fake record):
#   perf's 0x10000000030 root is one [unknown] frame, stderr says once that --call-graph
#   dwarf gives real stacks.
#   The flame graph has no junk root, and its title the event without modifiers.
# stderr: one line per file, not per mapping (six processes map the stripped library),
#   none for libraries whose debug info is installed.
# A killed perf record (SIGKILL: data size 0, no features) and a truncated file: exit 0,
#   a warning naming the samples read, the folded total that number.
# --comm, --pid, --cpu and --time (absolute and percent) as perf script's options select;
#   --percent-limit 5 leaves no top row under 5%;
#   top's File: is the busiest program, not the shell that started it.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

sp_require_perf
[ "$(uname -m)" = x86_64 ] || { echo "1..0 # SKIP the checks are for x86-64"; exit 0; }

# shares DATA N: "NAME PERCENT" of perf report's N first symbols (no children).
perf_shares()
{
	perf report -i "$1" --stdio --no-children --sort sym -g none 2>/dev/null |
		awk -v n="$2" -v only="${3:-}" '/^ *[0-9.]+%/ && k < n && (only == "" || $2 == only) {
			sub("%", "", $1); print $NF, $1; k++ }'
}
# symprof's flat shares of the same functions: "NAME PERCENT" for each line of top.
symprof_shares()
{
	awk 'f && NF >= 6 { sub("%", "", $2); print $6, $2 } /flat%/ { f = 1 }' "$1"
}
# agree PERF SYMPROF: every name of PERF is in SYMPROF with a share within 0.5 points.
agree()
{
	awk 'NR == FNR { s[$1] = $2; next }
	     { d = ($1 in s) ? s[$1] - $2 : 100; if (d < 0) d = -d
	       if (d > 0.5) { print "#   " $1 " perf " $2 "% symprof " (($1 in s) ? s[$1] "%" : "none"); bad = 1 } }
	     END { exit bad }' "$2" "$1"
}

# -- kernel frames ---------------------------------------------------------------------
perf record -q -g -o "$tmp/k.data" -- dd if=/dev/zero of=/dev/null bs=64k count=60000 \
	>"$tmp/rec.log" 2>&1 || { sed 's/^/# /' "$tmp/rec.log"; sp_bail "perf record of dd failed"; }
perf_shares "$tmp/k.data" 5 "[k]" >"$tmp/k.perf"
grep -q read_zero "$tmp/k.perf" || sp_bail "perf report does not name read_zero: $(cat "$tmp/k.perf")"
sp_run symprof convert -f top --nodecount 200 --nodefraction 0 "$tmp/k.data"
symprof_shares "$tmp/out" >"$tmp/k.sp"
agree "$tmp/k.perf" "$tmp/k.sp"
sp_ok $? "kernel frames named by default from perf's cache, shares as perf report's"
sp_run symprof info "$tmp/k.data"
grep -q "kallsyms: kernel names from .*perf-cache.*kallsyms: perf's build-id cache" "$tmp/out"
sp_ok $? "info says the kernel names came from perf's cache" || grep kallsyms "$tmp/out" | sed 's/^/#   /'

if [ "$(id -u)" = 0 ] && [ "$(sed -n 2p /proc/kallsyms | cut -c1-8)" != 00000000 ]; then
	PERF_BUILDID_DIR=$tmp/empty sp_run symprof convert -f top --nodecount 200 --nodefraction 0 "$tmp/k.data"
	symprof_shares "$tmp/out" >"$tmp/k2.sp"
	agree "$tmp/k.perf" "$tmp/k2.sp"
	sp_ok $? "without perf's cache, named from /proc/kallsyms of the running kernel"
	PERF_BUILDID_DIR=$tmp/empty sp_run symprof info "$tmp/k.data"
	grep -q "kallsyms: kernel names from /proc/kallsyms: the running kernel is the recording's" "$tmp/out"
	sp_ok $? "info says why /proc/kallsyms was used" || grep kallsyms "$tmp/out" | sed 's/^/#   /'
	[ ! -s "$tmp/err" ] || grep -qv kernel "$tmp/err"
	sp_ok $? "nothing on stderr about the kernel" || sp_show_err
else
	sp_skip "/proc/kallsyms needs root here"
	sp_skip "/proc/kallsyms needs root here"
	sp_skip "/proc/kallsyms needs root here"
fi
sed 's/^[0-9a-f]* /0000000000000000 /' /proc/kallsyms >"$tmp/zero.kallsyms"
sp_run symprof convert --addresses --kallsyms "$tmp/zero.kallsyms" "$tmp/k.data" -o "$tmp/zero.folded"
[ "$rc" -eq 0 ] && grep -q 'warning:.*every address is 0' "$tmp/err" &&
	grep -q '\[kernel\]+0x' "$tmp/zero.folded" && ! grep -q read_zero "$tmp/zero.folded"
sp_ok $? "a kallsyms of zeros: a warning, kernel frames stay addresses, exit 0" || sp_show_err

# -- perf's build-id cache ---------------------------------------------------------------
fix=$tmp/fix
"$SP_SRCDIR/testdata/src/perfusers/build.sh" "$fix" 1 >"$tmp/build.log" 2>&1 ||
	{ sed 's/^/# /' "$tmp/build.log"; sp_bail "the fixture does not build"; }
(cd "$fix" && perf record -q -g -o "$tmp/spin.data" -- ./spin 60 1) >"$tmp/rec.log" 2>&1 ||
	{ sed 's/^/# /' "$tmp/rec.log"; sp_bail "perf record of spin failed"; }
"$SP_SRCDIR/testdata/src/perfusers/build.sh" "$fix" 2 >"$tmp/build.log" 2>&1 ||
	sp_bail "the fixture does not rebuild"
perf_shares "$tmp/spin.data" 20 | grep -E '^spin_(a|b) ' >"$tmp/spin.perf"
[ "$(wc -l <"$tmp/spin.perf")" -eq 2 ] || sp_bail "perf report does not name spin_a and spin_b"
sp_run symprof convert -f top --nodecount 200 --nodefraction 0 "$tmp/spin.data"
symprof_shares "$tmp/out" >"$tmp/spin.sp"
agree "$tmp/spin.perf" "$tmp/spin.sp"
sp_ok $? "a rebuilt binary: named from perf's cache as perf report names it" || sp_show_err

PERF_BUILDID_DIR=$tmp/empty sp_run symprof info "$tmp/spin.data"
grep -q 'build-id mismatch' "$tmp/out"
sp_ok $? "without the cache: build-id mismatch"
PERF_BUILDID_DIR=$tmp/empty sp_run symprof convert -f top --nodecount 200 --nodefraction 0 \
	--debug-dir "$sp_perf_home/perf-cache" "$tmp/spin.data"
symprof_shares "$tmp/out" >"$tmp/spin2.sp"
agree "$tmp/spin.perf" "$tmp/spin2.sp"
sp_ok $? "perf's cache given as --debug-dir" || sp_show_err
if (cd "$tmp" && perf archive spin.data) >"$tmp/arch.log" 2>&1 && [ -f "$tmp/spin.data.tar.bz2" ]; then
	mkdir -p "$tmp/unpacked" && tar xjf "$tmp/spin.data.tar.bz2" -C "$tmp/unpacked"
	PERF_BUILDID_DIR=$tmp/empty sp_run symprof convert -f top --nodecount 200 --nodefraction 0 \
		--debug-dir "$tmp/unpacked" "$tmp/spin.data"
	symprof_shares "$tmp/out" >"$tmp/spin3.sp"
	agree "$tmp/spin.perf" "$tmp/spin3.sp"
	sp_ok $? "an unpacked perf archive given as --debug-dir" || sp_show_err
else
	sp_skip "perf archive does not work here: $(head -n 1 "$tmp/arch.log")"
fi
PERF_BUILDID_DIR=$tmp/empty sp_run symprof convert -f top --nodecount 200 --nodefraction 0 --force-mismatch \
	"$tmp/spin.data"
symprof_shares "$tmp/out" >"$tmp/spin4.sp"
agree "$tmp/spin.perf" "$tmp/spin4.sp"
sp_ok $? "--force-mismatch uses the rebuilt binary" || sp_show_err

# -- --debug-dir adds to /usr/lib/debug ------------------------------------------------
libc=$(awk '/libc\.so\.6$/ { print $NF; exit }' /proc/self/maps)
lbid=$(readelf -n "$libc" 2>/dev/null | awk '/Build ID/ { print $3 }')
if [ -n "$lbid" ] && [ -f "/usr/lib/debug/.build-id/$(echo "$lbid" | cut -c1-2)/$(echo "$lbid" | cut -c3-).debug" ]; then
	mkdir -p "$tmp/own-debug"
	sp_run symprof info --debug-dir "$tmp/own-debug" "$tmp/spin.data"
	grep -A4 "libc.so.6$" "$tmp/out" | grep -q "debug info: /usr/lib/debug/"
	sp_ok $? "--debug-dir DIR adds to /usr/lib/debug: libc's installed debug info still used" ||
		grep -A8 "libc.so.6$" "$tmp/out" | sed 's/^/#   /'
else
	sp_skip "no installed debug info for libc (Debian package libc6-dbg)"
fi

# -- PLT stubs: NAME@plt, as objdump (and perf) name them -------------------------------
objdump -d "$fix/spin" | awk '/^[0-9a-f]+ <[^>]*@plt>:$/ { gsub(/[<>:]/, "", $2); print $1, $2 }' \
	>"$tmp/plt.want"
n_plt=0
ok=0
while read -r addr name; do
	n_plt=$((n_plt + 1))
	got=$("$SYMPROF" symbolize -f -e "$fix/spin" "0x$addr" 2>/dev/null | head -n 1)
	[ "$got" = "$name" ] && ok=$((ok + 1))
done <"$tmp/plt.want"
[ "$n_plt" -gt 0 ] && [ "$ok" = "$n_plt" ]
sp_ok $? "PLT stubs named as objdump names them ($ok of $n_plt)" || sed 's/^/#   /' "$tmp/plt.want"

# -- several events ---------------------------------------------------------------------
(cd "$fix" && perf record -q -e task-clock,page-faults -g -o "$tmp/ev.data" -- \
	sh -c 'head -c 40000000 /dev/zero | sort >/dev/null; ./spin 20') >"$tmp/rec.log" 2>&1 ||
	{ sed 's/^/# /' "$tmp/rec.log"; sp_bail "perf record of two events failed"; }
perf script -F event -i "$tmp/ev.data" 2>/dev/null | sed 's/:.*//; s/^ *//' | sort | uniq -c |
	awk '{ print $2, $1 }' >"$tmp/ev.counts"
n_tc=$(awk '$1 == "task-clock" { print $2 }' "$tmp/ev.counts")
n_pf=$(awk '$1 == "page-faults" { print $2 }' "$tmp/ev.counts")
sum() { awk '{ s += $NF } END { print s + 0 }' "$1"; }
sp_run symprof convert -q "$tmp/ev.data"
[ -n "$n_tc" ] && [ "$(sum "$tmp/out")" = "$n_tc" ]
sp_ok $? "two events: the default folded total is task-clock's $n_tc samples, not summed with page-faults' $n_pf" ||
	sp_diag "symprof: $(sum "$tmp/out")"
sp_run symprof convert "$tmp/ev.data" -o "$tmp/ev.folded"
grep -q 'the output shows task-clock.*the others: page-faults' "$tmp/err"
sp_ok $? "two events: stderr says which is shown and which others there are" || sp_show_err
sp_run symprof convert -q --sample-index page-faults "$tmp/ev.data"
[ -n "$n_pf" ] && [ "$(sum "$tmp/out")" = "$n_pf" ]
sp_ok $? "--sample-index page-faults: its $n_pf samples" || sp_diag "symprof: $(sum "$tmp/out")"

# -- flat to the symbol, as perf report's Self ------------------------------------------
(cd "$fix" && perf record -q -g -o "$tmp/inl.data" -- ./spin 20 0 0 1) >"$tmp/rec.log" 2>&1 ||
	{ sed 's/^/# /' "$tmp/rec.log"; sp_bail "perf record of spin's inline case failed"; }
perf_shares "$tmp/inl.data" 20 | grep -E '^spin_(a|b|c) ' >"$tmp/inl.perf"
[ "$(wc -l <"$tmp/inl.perf")" -eq 3 ] || sp_bail "perf report does not name spin_a, spin_b and spin_c"
sp_run symprof convert -f top --nodecount 200 --nodefraction 0 "$tmp/inl.data"
symprof_shares "$tmp/out" >"$tmp/inl.sp"
agree "$tmp/inl.perf" "$tmp/inl.sp" && grep -q "^Flat: to the symbol holding each address" "$tmp/out" &&
	awk '$6 == "spin_mix" && $1 == "0" { z = 1 } END { exit !z }' "$tmp/out"
sp_ok $? "perf.data: flat to the symbol as perf report's Self (spin_c with its inlined spin_mix), said in the legend" ||
	sed 's/^/#   /' "$tmp/out"
sp_run symprof convert -f top --nodecount 200 --nodefraction 0 --flat-to frame "$tmp/inl.data"
awk -v want="$(awk '$1 == "spin_c" { print $2 }' "$tmp/inl.perf")" '
	f && $6 == "spin_mix" { sub("%", "", $2); m = $2 + 0 } f && $6 == "spin_c" { sub("%", "", $2); c = $2 + 0 }
	/flat%/ { f = 1 } /^Flat:/ { bad = 1 }
	END { d = m + c - want; if (d < 0) d = -d; exit !(!bad && m > c && d <= 0.5) }' "$tmp/out"
sp_ok $? "--flat-to frame: spin_mix's own flat, spin_c's and spin_mix's together perf's spin_c" ||
	sed 's/^/#   /' "$tmp/out"
sp_run symprof convert "$tmp/inl.data"
grep -q 'spin_c;spin_mix ' "$tmp/out"
sp_ok $? "folded: the inlined frame stays in the stacks"

# -- a stripped library -------------------------------------------------------------------
perf report -i "$tmp/spin.data" --stdio --no-children --sort dso -g none 2>/dev/null |
	awk '$2 == "libstrip.so" { sub("%", "", $1); print $1 }' >"$tmp/dso.perf"
sp_run symprof convert -f top --nodecount 200 --nodefraction 0 "$tmp/spin.data"
awk -v want="$(cat "$tmp/dso.perf")" '
	f && ($6 == "[libstrip.so]" || $6 == "lib_work") { sub("%", "", $2); s += $2 }
	/flat%/ { f = 1 }
	END { d = s - want; if (d < 0) d = -d; exit !(want > 1 && d <= 0.5) }' "$tmp/out"
sp_ok $? "a stripped library: [libstrip.so] and lib_work carry perf report's dso share ($(cat "$tmp/dso.perf")%)" ||
	sed 's/^/#   /' "$tmp/out"
sp_run symprof convert "$tmp/spin.data"
! grep -q 'libstrip\.so+0x' "$tmp/out" && grep -q '\[libstrip\.so\]' "$tmp/out"
sp_ok $? "folded: one [libstrip.so] frame, no per-address frames"
sp_run symprof convert --addresses "$tmp/spin.data"
grep -q 'libstrip\.so+0x' "$tmp/out"
sp_ok $? "--addresses: a frame per address"
sp_run symprof convert "$tmp/spin.data" -o "$tmp/spin.pb.gz"
sp_run symprof convert --addresses "$tmp/spin.pb.gz"
grep -q 'libstrip\.so+0x' "$tmp/out"
sp_ok $? "the pprof output keeps every address"

# -- a frame-pointer chain into junk ------------------------------------------------------
(cd "$fix" && perf record -q -g -o "$tmp/junk.data" -- ./spin 20 0 1) >"$tmp/rec.log" 2>&1 ||
	{ sed 's/^/# /' "$tmp/rec.log"; sp_bail "perf record of spin junk failed"; }
n_junk=$(perf script -F ip,sym -i "$tmp/junk.data" 2>/dev/null | grep -c ' junk_spin$')
sp_run symprof convert "$tmp/junk.data"
got=$(awk '/^\[unknown\];junk_spin[ ;]/ { s += $NF } END { print s + 0 }' "$tmp/out")
[ "$n_junk" -gt 0 ] && [ "$got" = "$n_junk" ] && ! grep -q '0x10000000030' "$tmp/out"
sp_ok $? "a chain into junk: [unknown];junk_spin for perf's $n_junk samples, no 0x10000000030 root" ||
	grep junk "$tmp/out" | sed 's/^/#   /'
[ "$(grep -c 'call-graph dwarf' "$tmp/err")" = 1 ]
sp_ok $? "... said once, with --call-graph dwarf" || sp_show_err
sp_run symprof convert -q "$tmp/junk.data" -o "$tmp/junk.flame.svg"
! grep -q '0x10000000030' "$tmp/junk.flame.svg" &&
	grep -q '<text id="title"[^>]*>cpu-clock (nanoseconds)</text>' "$tmp/junk.flame.svg"
sp_ok $? "flame graph: no junk root, the event's name without its modifiers in the title" ||
	grep -o '<text id="title"[^<]*' "$tmp/junk.flame.svg" | sed 's/^/#   /'

# -- stderr: a line per file --------------------------------------------------------------
(cd "$fix" && perf record -q -g -o "$tmp/six.data" -- \
	sh -c 'for i in 1 2 3 4 5 6; do ./spin 4 1; done') >"$tmp/rec.log" 2>&1 ||
	{ sed 's/^/# /' "$tmp/rec.log"; sp_bail "perf record of six runs failed"; }
sp_run symprof convert "$tmp/six.data" -o "$tmp/six.folded"
[ "$(grep -c 'libstrip.so' "$tmp/err")" = 1 ] && ! grep -q 'ld-linux' "$tmp/err" &&
	[ "$(wc -l <"$tmp/err")" -le 3 ]
sp_ok $? "six processes: one line for libstrip.so, none for ld.so, 3 lines at most" || sp_show_err

# -- killed and truncated recordings ------------------------------------------------------
# (the program outlives perf: timeout ends it)
(cd "$fix" && exec perf record -q -m 2 -g -o "$tmp/killed.data" -- timeout 5 ./spin 100000) \
	>/dev/null 2>&1 &
rec=$!
sleep 2 # (-m 2: small buffers, written as they fill)
kill -9 "$rec" 2>/dev/null
wait "$rec" 2>/dev/null
sp_kill_children
sp_run symprof convert "$tmp/killed.data" -o "$tmp/killed.folded"
n=$(sed -n 's/.*not finished (perf record was killed?): \([0-9]*\) samples read.*/\1/p' "$tmp/err")
[ "$rc" -eq 0 ] && [ -n "$n" ] && [ "$n" -gt 0 ] && [ "$(sum "$tmp/killed.folded")" = "$n" ]
sp_ok $? "a SIGKILLed perf record: exit 0, its $n samples, a warning" || sp_show_err
size=$(wc -c <"$tmp/spin.data")
head -c $((size * 2 / 3)) "$tmp/spin.data" >"$tmp/cut.data"
sp_run symprof convert "$tmp/cut.data" -o "$tmp/cut.folded"
n=$(sed -n 's/.*cut short.*: \([0-9]*\) samples read.*/\1/p' "$tmp/err")
sp_run symprof convert -q "$tmp/spin.data" -o "$tmp/whole.folded"
[ -n "$n" ] && [ "$n" -gt 0 ] && [ "$(sum "$tmp/cut.folded")" = "$n" ] &&
	[ "$n" -lt "$(sum "$tmp/whole.folded")" ]
sp_ok $? "a truncated file: what precedes the cut, with a warning" || sp_show_err

# -- perf report's selections -------------------------------------------------------------
(cd "$fix" && perf record -q -g --sample-cpu -o "$tmp/sel.data" -- \
	sh -c 'dd if=/dev/zero of=/dev/null bs=64k count=40000 2>/dev/null; ./spin 30') \
	>"$tmp/rec.log" 2>&1 || { sed 's/^/# /' "$tmp/rec.log"; sp_bail "perf record of sh failed"; }
pcount() { perf script -i "$tmp/sel.data" -F comm "$@" 2>/dev/null | grep -c .; }
scount() { sp_run symprof convert -q "$tmp/sel.data" "$@"; sum "$tmp/out"; }
spin_pid=$(perf script -i "$tmp/sel.data" -F comm,pid 2>/dev/null | awk '$1 == "spin" { print $2; exit }')
cpu0=$(perf script -i "$tmp/sel.data" -F cpu 2>/dev/null | head -n 1 | tr -d '[] ')
t_mid=$(perf script -i "$tmp/sel.data" -F time 2>/dev/null | tr -d ': ' | sort -n | awk '{ t[NR] = $1 } END { print t[int(NR / 2)] }')
for sel in "--comm dd" "--comm spin,sh" "--pid $spin_pid" "--cpu ${cpu0:-0}" "--time 10%/2" \
	"--time 0%-25%,50%-75%" "--time $t_mid," "--time ,$t_mid"; do
	# shellcheck disable=SC2086 # options are words
	want=$(pcount $sel)
	# shellcheck disable=SC2086
	got=$(scount $sel)
	d=$((want - got))
	[ "$want" -gt 0 ] && [ "${d#-}" -le 1 ]
	sp_ok $? "$sel: $got samples, perf script $sel: $want"
done
sp_run symprof convert --format top --percent-limit 5 "$tmp/sel.data"
awk 'f && NF >= 6 { n++; sub("%", "", $5); if ($5 + 0 < 5) bad = 1 } /flat%/ { f = 1 }
	END { exit bad || !n }' "$tmp/out"
sp_ok $? "--percent-limit 5: no row under 5%" || sed 's/^/#   /' "$tmp/out"
sp_run symprof convert --format top "$tmp/sel.data"
grep -q '^File: spin$' "$tmp/out"
sp_ok $? "top's File: is spin, the busiest program, not sh" || head -n 2 "$tmp/out" | sed 's/^/#   /'

sp_done
