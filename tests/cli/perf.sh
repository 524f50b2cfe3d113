#!/bin/sh
# cli_perf.sh — end to end: the perf.data fixture (testdata/src/perf, plan in perfbusy.h)
# recorded here with `perf record -e cpu-clock -g`, in file mode and in pipe mode
# (`perf record -o -`), converted by symprof to folded stacks and to pprof.
#
# What must hold, from how the fixture was written and from perf itself:
#   - every sample is kept: symprof's sample total equals the SAMPLE events of
#     `perf report --stats`, and its cpu-clock column the sum of perf's periods;
#   - the busy stacks are main|worker_main -> run_rounds -> busy_X -> spin_X, with the
#     inline frame spin_X that perf does not show for -g, in shares 50/30/20 +- 10 points,
#     in both threads;
#   - perf script is an independent reader: restricted to the fixture's own functions,
#     the stacks it prints and their counts are exactly symprof's;
#   - every kernel and fixture function perf script names is in symprof's stacks
#     (kernel frames through --kallsyms);
#   - the worker thread's name reaches the samples' comm label;
#   - pprof written and read back gives the same folded stacks.
# Skips when perf is missing or cannot record here (it needs root or a permissive
# perf_event_paranoid).
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

sp_require_perf

fix=$tmp/fix
"$SP_SRCDIR/testdata/src/perf/build.sh" "$fix" >"$tmp/build.log" 2>&1 ||
	{ sed 's/^/# /' "$tmp/build.log"; sp_bail "perf fixture does not build"; }
(cd "$fix" && perf record -q -e cpu-clock -g -o "$tmp/file.data" -- ./perfbusy) \
	>"$tmp/rec.log" 2>&1 || { sed 's/^/# /' "$tmp/rec.log"; sp_bail "perf record failed"; }
(cd "$fix" && perf record -q -e cpu-clock -g -o - -- ./perfbusy >"$tmp/pipe.data") \
	2>"$tmp/rec.log" || { sed 's/^/# /' "$tmp/rec.log"; sp_bail "perf record -o - failed"; }

# The fixture's own functions, those perf can name (the spin_X are inlined).
vocab="main run_rounds worker_main busy_main busy_shared busy_plugin pb_step"


# share FILE ROOT FUNC: samples whose stack is exactly ROOT;run_rounds;FUNC;spin_X at
# the leaf end, and the file's total.
share()
{
	awk -v want="$2;run_rounds;$3;spin_${3#busy_}" '
		{ v = $NF; s = $0; sub(/ [0-9]+$/, "", s); tot += v
		  n = length(want); if (length(s) >= n && substr(s, length(s) - n + 1) == want) sum += v }
		END { print sum + 0, tot + 0 }' "$1"
}

for mode in file pipe; do
	data=$tmp/$mode.data
	sp_run symprof convert --sample-index samples "$data" -o "$tmp/$mode.folded"
	sp_ok "$rc" "$mode: convert --sample-index samples -o $mode.folded exits 0" || sp_show_err

	want=$(perf report -i "$data" --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')
	got=$(awk '{ t += $NF } END { print t + 0 }' "$tmp/$mode.folded")
	[ -n "$want" ] && [ "$got" -eq "$want" ]
	sp_ok $? "$mode: $got samples, as perf report --stats counts ($want)"
	nscript=$(perf script -G -F period -i "$data" 2>/dev/null | grep -c "^ *[0-9][0-9]* *$")
	[ "$got" -eq "$nscript" ]
	sp_ok $? "$mode: as many samples as perf script prints ($nscript)"

	sp_run symprof convert "$data" -o "$tmp/$mode.default.folded"
	sp_check "$mode: folded stacks count samples by default" \
		cmp -s "$tmp/$mode.default.folded" "$tmp/$mode.folded"
	sp_run symprof convert --sample-index cpu-clock "$data" -o "$tmp/$mode.ns.folded"
	ns=$(awk '{ t += $NF } END { printf "%d", t }' "$tmp/$mode.ns.folded")
	periods=$(perf script -G -F period -i "$data" 2>/dev/null | awk '{ t += $1 } END { printf "%d", t }')
	[ "$ns" = "$periods" ]
	sp_ok $? "$mode: the cpu-clock column sums perf's periods in ns ($ns, perf $periods)"

	# both threads, each through its own entry, reach all three busy functions
	for root in "__libc_start_call_main;main" "start_thread;worker_main"; do
		for func in busy_main busy_shared busy_plugin; do
			set -- $(share "$tmp/$mode.folded" "$root" "$func")
			[ "$1" -gt 0 ]
			sp_ok $? "$mode: $root;run_rounds;$func;spin_${func#busy_} has samples ($1)" ||
				grep -F -- "$func" "$tmp/$mode.folded" | head -n 3 | sed 's/^/#   have: /'
		done
	done
	tot=$got
	while read -r func pct; do
		n=$(awk -v f=";$func;spin_${func#busy_}" '
			{ v = $NF; s = $0; sub(/ [0-9]+$/, "", s)
			  if (substr(s, length(s) - length(f) + 1) == f) sum += v }
			END { print sum + 0 }' "$tmp/$mode.folded")
		got=$((n * 100 / (tot > 0 ? tot : 1)))
		[ "$got" -ge $((pct - 10)) ] && [ "$got" -le $((pct + 10)) ]
		sp_ok $? "$mode: $func (with its inline spin_${func#busy_}) has ${got}% of the samples, ${pct}% +- 10"
	done <<EOF
busy_main 50
busy_shared 30
busy_plugin 20
EOF

	sp_perf_stacks "$data" >"$tmp/$mode.perf.stacks"
	sp_folded_stacks "$tmp/$mode.folded" >"$tmp/$mode.sym.stacks"
	cmp -s "$tmp/$mode.perf.stacks" "$tmp/$mode.sym.stacks"
	sp_ok $? "$mode: perf script's stacks of the fixture's functions, with their counts, are symprof's" ||
		diff "$tmp/$mode.perf.stacks" "$tmp/$mode.sym.stacks" | head -n 20 | sed 's/^/#   /'

	# every function perf names in the kernel (through a copy of /proc/kallsyms) and in
	# the fixture is in symprof's stacks.  (libc and ld.so are left out: their symbol
	# tables give several names to one address, and perf and symprof pick different
	# aliases, like __GI___readlink and readlink.)  Left out on perf's side too: its
	# synthetic NAME@plt, and SYMBOL+0x0 frames: a return address at a
	# function's first byte is the end of a call in the function before it, which perf
	# names without the -1 (spec/PERF-DATA.md 7) -- symprof names the caller.  perf
	# spells versioned names NAME@@VERSION.  And _init: perf stretches that zero-sized
	# symbol over the PLT's first stub that follows it, so a sample in the lazy-binding
	# stub is "_init+0x2b" to perf.
	if [ -r /proc/kallsyms ] &&
		awk '$1 != "0000000000000000" { found = 1; exit } END { exit !found }' /proc/kallsyms; then
		cp /proc/kallsyms "$tmp/kallsyms"
		sp_run symprof convert --kallsyms "$tmp/kallsyms" "$data"
		sed 's/ [0-9]*$//' "$tmp/out" | tr ';' '\n' | sort -u >"$tmp/sym.names"
		perf script -F ip,sym,symoff,dso -i "$data" 2>/dev/null |
			awk -v fix="($fix/" 'NF >= 3 && $2 != "[unknown]" &&
			     ($NF == "([kernel.kallsyms])" || index($NF, fix) == 1) &&
			     $2 !~ /@plt\+/ && $2 !~ /\+0x0$/ && $2 !~ /^_init\+/ {
				s = $2; sub(/[@+].*/, "", s); print s }' |
			sort -u >"$tmp/perf.names"
		# a kernel name counts as found when symprof names another alias of its address
		# (kallsyms has several names at one address, e.g. __x86_indirect_thunk_rax
		# and __x86_indirect_thunk_array, and perf's choice among them is its own)
		missing=$(comm -23 "$tmp/perf.names" "$tmp/sym.names" |
			awk -v ks="$tmp/kallsyms" -v sym="$tmp/sym.names" '
				BEGIN {
					while ((getline l < sym) > 0) named[l] = 1
					while ((getline l < ks) > 0) {
						split(l, f, " ")
						addr[f[3]] = f[1]
						if (f[3] in named) named_at[f[1]] = 1
					}
				}
				!($1 in addr) || !(addr[$1] in named_at) { print }' | tr '\n' ' ')
		nk=$(grep -c . "$tmp/perf.names")
		[ -z "$missing" ] && [ "$nk" -gt 0 ]
		sp_ok $? "$mode: all $nk kernel and fixture functions perf script names are in symprof's stacks${missing:+ (missing: $missing)}"
	else
		sp_skip "$mode: no readable /proc/kallsyms with addresses for the kernel frames"
	fi

	sp_run symprof convert --format raw "$data"
	grep -q 'comm:\[pbworker\]' "$tmp/out"
	sp_ok $? "$mode: the worker thread's samples carry comm pbworker"
	grep -q '^samples/count cpu-clock/nanoseconds\[dflt\]' "$tmp/out"
	sp_ok $? "$mode: sample types samples/count then cpu-clock/nanoseconds, the default"

	# through a pipe: a pipe-mode recording streams, a file-mode one cannot
	cat "$data" | "$SYMPROF" convert --sample-index samples /dev/stdin \
		>"$tmp/$mode.stdin.folded" 2>"$tmp/stdin.err"
	st=$?
	if [ "$mode" = pipe ]; then
		[ "$st" -eq 0 ] && cmp -s "$tmp/$mode.folded" "$tmp/$mode.stdin.folded"
		sp_ok $? "$mode: read from a pipe, the same folded stacks"
	else
		[ "$st" -ne 0 ] && grep -q 'cannot seek to offset 8:.*perf record -o -' "$tmp/stdin.err"
		sp_ok $? "$mode: from a pipe, refused with a hint to record with -o -" ||
			sed 's/^/#   /' "$tmp/stdin.err"
	fi

	# samples in ld.so come first, but the program is the main binary
	sp_run symprof convert --format top "$data"
	grep -q '^File: perfbusy$' "$tmp/out"
	sp_ok $? "$mode: the top report names perfbusy as the main binary" ||
		head -n 2 "$tmp/out" | sed 's/^/#   /'

	sp_run symprof convert "$data" -o "$tmp/$mode.pb.gz"
	sp_ok "$rc" "$mode: convert -o $mode.pb.gz exits 0" || sp_show_err
	sp_run symprof convert --sample-index samples "$tmp/$mode.pb.gz" -o "$tmp/$mode.back.folded"
	cmp -s "$tmp/$mode.folded" "$tmp/$mode.back.folded"
	sp_ok $? "$mode: the pprof file reads back to the same folded stacks"
done

sp_done
