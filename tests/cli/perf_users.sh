#!/bin/sh
# perf_users.sh — what a perf user meets first: `symprof convert x.data` with no options,
# on recordings made here with `perf record`, against `perf report` on the same file.
#
# Kernel frames (a recording of dd reading /dev/zero: most samples in read_zero):
#   - named by default: the kernel functions of `perf report --no-children --sort sym`
#     are symprof top's, each within 0.5 points, from the kallsyms perf's build-id cache
#     kept, and with an empty cache from /proc/kallsyms (the running kernel is the
#     recording's), info saying which and why;
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
sp_run symprof convert -f top --nodecount 200 "$tmp/k.data"
symprof_shares "$tmp/out" >"$tmp/k.sp"
agree "$tmp/k.perf" "$tmp/k.sp"
sp_ok $? "kernel frames named by default from perf's cache, shares as perf report's"
sp_run symprof info "$tmp/k.data"
grep -q "kallsyms: kernel names from .*perf-cache.*kallsyms: perf's build-id cache" "$tmp/out"
sp_ok $? "info says the kernel names came from perf's cache" || grep kallsyms "$tmp/out" | sed 's/^/#   /'

if [ "$(id -u)" = 0 ] && [ "$(sed -n 2p /proc/kallsyms | cut -c1-8)" != 00000000 ]; then
	PERF_BUILDID_DIR=$tmp/empty sp_run symprof convert -f top --nodecount 200 "$tmp/k.data"
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
sp_run symprof convert --kallsyms "$tmp/zero.kallsyms" "$tmp/k.data" -o "$tmp/zero.folded"
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
sp_run symprof convert -f top --nodecount 200 "$tmp/spin.data"
symprof_shares "$tmp/out" >"$tmp/spin.sp"
agree "$tmp/spin.perf" "$tmp/spin.sp"
sp_ok $? "a rebuilt binary: named from perf's cache as perf report names it" || sp_show_err

PERF_BUILDID_DIR=$tmp/empty sp_run symprof info "$tmp/spin.data"
grep -q 'build-id mismatch' "$tmp/out"
sp_ok $? "without the cache: build-id mismatch"
PERF_BUILDID_DIR=$tmp/empty sp_run symprof convert -f top --nodecount 200 \
	--debug-dir "$tmp/perf-cache" "$tmp/spin.data"
symprof_shares "$tmp/out" >"$tmp/spin2.sp"
agree "$tmp/spin.perf" "$tmp/spin2.sp"
sp_ok $? "perf's cache given as --debug-dir" || sp_show_err
if (cd "$tmp" && perf archive spin.data) >"$tmp/arch.log" 2>&1 && [ -f "$tmp/spin.data.tar.bz2" ]; then
	mkdir -p "$tmp/unpacked" && tar xjf "$tmp/spin.data.tar.bz2" -C "$tmp/unpacked"
	PERF_BUILDID_DIR=$tmp/empty sp_run symprof convert -f top --nodecount 200 \
		--debug-dir "$tmp/unpacked" "$tmp/spin.data"
	symprof_shares "$tmp/out" >"$tmp/spin3.sp"
	agree "$tmp/spin.perf" "$tmp/spin3.sp"
	sp_ok $? "an unpacked perf archive given as --debug-dir" || sp_show_err
else
	sp_skip "perf archive does not work here: $(head -n 1 "$tmp/arch.log")"
fi
PERF_BUILDID_DIR=$tmp/empty sp_run symprof convert -f top --nodecount 200 --force-mismatch \
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

sp_done
