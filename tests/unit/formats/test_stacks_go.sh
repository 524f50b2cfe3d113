#!/bin/sh
# test_stacks_go.sh — symprof's CPU, contention, thread and Go count readers
# agree, sample by sample, with google/pprof (`go tool pprof -raw`) on the
# fixtures in testdata/inputs/stacks and on a real CPU profile written by
# Debian's libprofiler.  Both sides are reduced to "VALUES @ ADDRESSES"
# lines, identical stacks summed (pprof merges them when it loads a
# profile) and all-zero samples dropped, then sorted and compared.
# Skips cleanly when go is not installed.
srcdir=${SP_SRCDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
builddir=${SP_BUILDDIR:-.}
# sp_raw_samples and sp_canon_samples: the reduction the CLI tests use too
. "$srcdir/tests/cli/samples.sh"
if ! command -v go >/dev/null 2>&1; then
	echo "1..0 # SKIP go is not installed"
	exit 0
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# go wants a writable home and cache; keep them out of the user's.
HOME=$tmp/home GOCACHE=$tmp/gocache GOFLAGS=-mod=mod GOTOOLCHAIN=local
export HOME GOCACHE GOFLAGS GOTOOLCHAIN
mkdir -p "$HOME"
n=0 failed=0
ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}

compare() { # reader file label
	"$builddir/tests/helpers/read_stacks" "$1" "$2" >"$tmp/ours.txt" 2>"$tmp/err"
	ok $? "$3: symprof reads it" || sed 's/^/#   /' "$tmp/err"
	go tool pprof -raw -symbolize=none "$2" >"$tmp/go.raw" 2>"$tmp/err"
	ok $? "$3: go tool pprof reads it" || sed 's/^/#   /' "$tmp/err"
	sp_raw_samples <"$tmp/go.raw" >"$tmp/go.txt"
	sp_canon_samples <"$tmp/ours.txt" >"$tmp/ours.canon"
	[ -s "$tmp/go.txt" ] && cmp -s "$tmp/go.txt" "$tmp/ours.canon"
	ok $? "$3: samples agree with go tool pprof -raw" ||
		diff "$tmp/go.txt" "$tmp/ours.canon" | sed 's/^/#   /'
}

d=$srcdir/testdata/inputs/stacks
compare cpu "$d/cpu_le64.prof" "CPU 64-bit LE"
compare cpu "$d/cpu_be32.prof" "CPU 32-bit BE"
compare contention "$d/contention.txt" "contention"
compare thread "$d/thread.txt" "thread"
compare gocount "$d/goroutine.txt" "goroutine"
compare cpu "$d/cpu_single.prof" "CPU, one sample (both signal-frame passes)"
compare cpu "$d/cpu_handler.prof" "CPU 64-bit BE, handler frames in 40 of 41 samples, no map"
compare contention "$d/contention_nohz.txt" "mutex, no cycles/second"
# cpu_evicted.prof, 64-bit LE words: 0 3 0 10000 0, then 32 records
# "1 2 0x401000 0x409001" (one stack written again after hash-table
# evictions), "1 3 0x401100 0x407001 0x406001", 0 1 0, and the map line
# "00400000-0040a000 r-xp 00000000 08:01 1234 /usr/bin/prog".  pprof counts
# the handler-frame share per record (32 of 33) and drops 0x409000.
compare cpu "$d/cpu_evicted.prof" "CPU, one stack written in 32 records"

# A real CPU profile from libprofiler: two busy functions.
cat >"$tmp/busy.c" <<'CEOF'
#include <stdint.h>
volatile uint64_t sink;
__attribute__((noinline)) static void spin_a(uint64_t n) { for (uint64_t i = 0; i < n; i++) sink += i * 3; }
__attribute__((noinline)) static void spin_b(uint64_t n) { for (uint64_t i = 0; i < n; i++) sink ^= i + 7; }
int main(void) { for (int r = 0; r < 20; r++) { spin_a(20000000); spin_b(10000000); } return 0; }
CEOF
if ${CC:-cc} -O1 -g -fno-omit-frame-pointer -o "$tmp/busy" "$tmp/busy.c" \
	-Wl,--no-as-needed -lprofiler 2>"$tmp/err"; then
	CPUPROFILE=$tmp/busy.prof CPUPROFILE_FREQUENCY=1000 "$tmp/busy" >/dev/null 2>&1
	if [ -s "$tmp/busy.prof" ]; then
		compare cpu "$tmp/busy.prof" "libprofiler CPU profile"
	else
		echo "ok $((n = n + 1)) - libprofiler CPU profile # SKIP no profile written"
	fi
else
	echo "ok $((n = n + 1)) - libprofiler CPU profile # SKIP cannot link -lprofiler"
fi
echo "1..$n"
[ "$failed" -eq 0 ]
