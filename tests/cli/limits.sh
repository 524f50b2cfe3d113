#!/bin/sh
# cli_limits.sh — values and sizes past what symprof holds are refused with a message
# naming the input, never wrapped, never an abort, and nothing is left behind; inputs
# shaped to make the work quadratic cost no more than their size.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

# refused WHAT EXPECTED-TEXT: the last sp_run exited 1 and said EXPECTED-TEXT.
refused()
{
	if [ "$rc" -eq 1 ] && grep -qF -- "$2" "$tmp/err"; then
		sp_ok 0 "$1"
	else
		sp_ok 1 "$1"
		sp_diag "exit $rc, want 1 and \"$2\""
		sp_show_err
	fi
}

# no_output FILE: neither FILE nor a temporary file beside it exists.
no_output()
{
	[ ! -e "$1" ] && ! ls -a "$(dirname "$1")" | grep -q "^$(basename "$1")\\.tmp\\."
}

# --- sums of int64 values (profile/profile.h: refused, never wrapped) -----------------
max=9223372036854775807
printf 'main;work %s\n' "$max" >"$tmp/a.folded"
printf 'main;work 1\n' >"$tmp/b.folded"
sp_run symprof convert -q "$tmp/a.folded" "$tmp/b.folded" -o "$tmp/merged.folded"
refused "merging two profiles whose equal stacks add up past 2^63-1 is refused" \
	"merging $tmp/b.folded: the samples values of sample 1 add up to more than an int64 holds"
sp_check "... and writes nothing" no_output "$tmp/merged.folded"

printf 'main;work %s\nmain;idle 1\n' "$max" >"$tmp/c.folded"
sp_run symprof convert -q "$tmp/c.folded" -o "$tmp/c.flame.svg"
refused "a flame graph whose total passes 2^63-1 is refused" \
	"flame graph: the samples values add up to more than an int64 holds"
sp_check "... and writes nothing" no_output "$tmp/c.flame.svg"
sp_run symprof convert -q "$tmp/c.folded" -o "$tmp/c.folded.out" --format folded
sp_ok "$rc" "the same profile as folded stacks (no sum needed) is written" || sp_show_err

# --- memory: a budget (--max-memory) and inputs bounded by it --------------------------
# Under AddressSanitizer the process's size is mostly shadow memory and quarantine:
# refusals are checked there too, peak sizes only in a plain build.
asan=
ldd "$SYMPROF" 2>/dev/null | grep -q libasan && asan=yes

# peak_below KB DESCRIPTION: the last timed run's peak resident size ($tmp/rss, from
# /usr/bin/time -f %M) stayed below KB.
peak_below()
{
	if [ -n "$asan" ]; then
		sp_skip "$2 (AddressSanitizer build)"
	elif [ ! -x /usr/bin/time ]; then
		sp_skip "$2 (no /usr/bin/time)"
	else
		peak=$(tail -n 1 "$tmp/rss")
		sp_check "$2 (peak $peak KB)" test "$peak" -lt "$1"
	fi
}

# timed_run ARGS...: sp_run symprof ARGS under /usr/bin/time when there is one.
timed_run()
{
	if [ -x /usr/bin/time ] && [ -z "$asan" ]; then
		/usr/bin/time -o "$tmp/rss" -f %M "$SYMPROF" "$@" >"$tmp/out" 2>"$tmp/err"
		rc=$?
	else
		sp_run symprof "$@"
	fi
}

# A pprof "bomb": 64 KiB of gzip inflating to MIB MiB of 4-byte samples (tests/helpers/bombs.py).
bomb()
{
	python3 "$SP_SRCDIR/tests/helpers/bombs.py" pprof "$1" "$2"
}

mkdir "$tmp/bomb"
if command -v python3 >/dev/null 2>&1; then
	# 64 MiB passes the gunzip step and is refused as the samples fill the budget;
	# 256 MiB is where the unbounded reader used to abort
	for mib in 64 256; do
		bomb "$mib" "$tmp/bomb$mib.pb.gz"
		timed_run convert --max-memory 256M -q --no-symbolize "$tmp/bomb$mib.pb.gz" \
			-o "$tmp/bomb/out.pb.gz"
		refused "a pprof.gz inflating to $mib MiB of samples is refused, not aborted" \
			"bomb$mib.pb.gz: needs more memory than the limit of 256 MiB (--max-memory)"
		sp_check "... and leaves nothing in the output directory" \
			test -z "$(ls -A "$tmp/bomb")"
		peak_below 262144 "... within the budget"
		rm -f "$tmp/bomb$mib.pb.gz"
	done
else
	sp_skip "no python3 to write the pprof bombs"
fi

# A bomb the budget lets through: the reader's peak follows what it read.  Per 4-byte
# sample the model holds a 40-byte sp_sample and its 8-byte value, 12 times the
# input, beside the inflated input itself: the bound is 14 times the inflated size plus
# 16 MiB for the program.  (It used to take 21 times: 32 bytes of malloc'd value
# array and 8 of bookkeeping per sample more.)
if command -v python3 >/dev/null 2>&1; then
	bomb 16 "$tmp/bomb16.pb.gz"
	timed_run convert --max-memory 1G -q --no-symbolize "$tmp/bomb16.pb.gz" \
		-o "$tmp/bomb/out16.pb.gz"
	sp_ok "$rc" "a pprof.gz inflating to 16 MiB of samples is read within a budget of 1 GiB" ||
		sp_show_err
	peak_below $(((16 * 14 + 16) * 1024)) "... in at most 14 times its inflated size + 16 MiB"
	rm -f "$tmp/bomb16.pb.gz" "$tmp/bomb/out16.pb.gz"
else
	sp_skip "no python3 to write the pprof bomb"
fi

# /dev/zero never ends: it is read up to the budget, then refused.
timed_run convert --max-memory 128M -q --no-symbolize /dev/zero -o "$tmp/bomb/zero.folded"
refused "/dev/zero as input is refused at the memory limit" \
	"/dev/zero: needs more memory than the limit of 128 MiB (--max-memory)"
peak_below 131072 "... within the budget"
# So is a pipe that never ends.
yes 'main;work 1' | "$SYMPROF" convert --max-memory 64M -q --no-symbolize /dev/stdin \
	-o "$tmp/bomb/pipe.folded" >"$tmp/out" 2>"$tmp/err"
rc=$?
refused "an endless pipe as input is refused at the memory limit" \
	"/dev/stdin: needs more memory than the limit of 64 MiB (--max-memory)"

# A budget passed while writing: the temporary output goes with the process.
awk 'BEGIN { srand(1); for (i = 0; i < 200000; i++) {
	s = "main"
	for (d = 0; d < 12; d++) s = s ";f" int(rand() * 5000)
	print s, i + 1 } }' >"$tmp/big.folded"
timed_run convert --max-memory 160M -q "$tmp/big.folded" -o "$tmp/bomb/big.html"
refused "an HTML report that passes the budget while being written is refused" \
	"big.folded: needs more memory than the limit of 160 MiB (--max-memory)"
sp_check "... and its temporary file is removed" test -z "$(ls -A "$tmp/bomb")"
peak_below 163840 "... within the budget"
timed_run convert --max-memory 1G -q "$tmp/big.folded" -o "$tmp/bomb/big.html"
sp_ok "$rc" "with --max-memory 1G the same report is written" || sp_show_err
# A flame graph's memory follows the distinct stacks, not every distinct prefix: the
# 200,000 stacks of 13 frames (2.4 million prefixes) are drawn within the budget the
# reading needs anyway.
timed_run convert --max-memory 110M -q "$tmp/big.folded" -o "$tmp/bomb/big.flame.svg"
sp_ok "$rc" "the flame graph of 200,000 distinct 13-frame stacks is written in 110 MiB" ||
	sp_show_err
sp_check "... with its root of all 20,000,100,000 samples" \
	grep -q 'data-n="all"><title>all (20000100000 samples' "$tmp/bomb/big.flame.svg"
rm -f "$tmp/bomb/big.flame.svg" "$tmp/bomb/big.html"

# --- work in proportion to the input --------------------------------------------------
# Two inputs on which rescanning what came before made the work quadratic: $name
# substitution in a memory map (a 40,000-line map took 41 s), and finding each address's
# mapping (100,000 addresses in as many mappings, 9 s).  Each run gets a CPU-time limit
# (ulimit -t) that the work stays 4 to 80 times below, plain or with AddressSanitizer,
# and that the quadratic work passed 5 to 30 times over (the map: 0.13 s, 0.36 s with
# ASan, 305 s before; the mappings: 1.1 s, 3.3 s, 75 s).  Under valgrind, which costs
# 50 times over, the runs are not limited.
# capped SECONDS ARGS...: sp_run symprof ARGS with at most SECONDS of CPU time.
capped()
{
	sp_cap=$1
	shift
	if [ -n "${SP_VALGRIND:-}" ]; then
		sp_run symprof "$@"
	else
		# shellcheck disable=SC3045 # dash and bash have ulimit -t
		(ulimit -t "$sp_cap" && sp_run symprof "$@" && exit "$rc")
		rc=$?
	fi
}

# 80,000 lines: every other one defines a name, the next uses it (tests/helpers/bombs.py maps);
# the raw output lists each mapping with its substituted path.
python3 "$SP_SRCDIR/tests/helpers/bombs.py" maps 80000 "$tmp/subst.maps" "$tmp/subst.raw"
capped 10 convert -q --no-symbolize --maps "$tmp/subst.maps" "$tmp/subst.raw" \
	--format raw -o "$tmp/subst.out"
sp_ok "$rc" "a memory map of 80,000 lines of \$name substitutions within 10 s of CPU" ||
	sp_show_err
good=$(awk '/^Mappings/ { m = 1; next }
	m && split($3, q, "/") == 4 && q[2] == "opt" && q[4] ~ /^lib[0-9]+\.so$/ {
		split($2, r, "/")
		i = substr(q[4], 4) + 0
		if (q[3] == "v" i * 7 && r[1] == sprintf("0x%x", 1048576 + i * 65536) && !(i in seen)) {
			seen[i] = 1
			n++
		}
	}
	END { print n + 0 }' "$tmp/subst.out" 2>/dev/null)
sp_check "... every one of the 40,000 mappings has its own path (${good:-0})" \
	test "${good:-0}" -eq 40000
rm -f "$tmp/subst.maps" "$tmp/subst.raw" "$tmp/subst.out"

# 400,000 addresses, each in its own mapping, in an order unrelated to the map's
# (tests/helpers/bombs.py mappings): each mapping's file is named once in the folded stacks.
python3 "$SP_SRCDIR/tests/helpers/bombs.py" mappings 400000 "$tmp/map.raw"
capped 15 convert -q --no-symbolize "$tmp/map.raw" -o "$tmp/map.folded"
sp_ok "$rc" "400,000 addresses in as many mappings within 15 s of CPU" || sp_show_err
good=$(awk '$0 ~ /^lib[0-9]+\.so\+0x10 1$/ { k = substr($1, 4) + 0
		if (!(k in seen) && k < 400000) { seen[k] = 1; n++ } }
	END { print n + 0 }' "$tmp/map.folded" 2>/dev/null)
sp_check "... each address in its own mapping (${good:-0} of 400,000)" test "${good:-0}" -eq 400000
rm -f "$tmp/map.raw" "$tmp/map.folded"

# --- a call graph of a recursive profile --------------------------------------------------
# dot reverses edges to break the cycles of testdata/inputs/graphs/recursive.folded; with
# SP_VALGRIND=1 this is the run whose graphviz-internal leak tests/helpers/valgrind.supp names.
# LeakSanitizer's suppression of it (formats/gvc.c) needs the whole allocation stack,
# which its fast unwinder loses in graphviz (built without frame pointers).
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0" \
	sp_run symprof convert -q "$SP_SRCDIR/testdata/inputs/graphs/recursive.folded" \
	-o "$tmp/rec.svg"
sp_ok "$rc" "a recursive profile renders to SVG${SP_VALGRIND:+ (valgrind: no definite leak)}" ||
	sp_show_err
sp_check "... an SVG document" grep -q '<svg' "$tmp/rec.svg"

sp_run symprof convert --max-memory lots "$tmp/a.folded"
sp_check "--max-memory lots is a usage error" test "$rc" -eq 2

sp_done
