# cli_lib.sh — shared helpers for the CLI tests (tests/cli/*.sh), sourced, not run.
#
# Speaks TAP: every check prints "ok N - what" or "not ok N - what" with diagnostics as
# "# " lines, and sp_done prints the plan and sets the exit status.  The make harness sets
# SP_SRCDIR, SP_BUILDDIR and SYMPROF; run by hand, they default to the source tree and
# its build/ directory.
#
#   SP_VALGRIND=1   run symprof under valgrind; a memory error makes it exit 99
#   SP_KEEP_TMP=1   keep the test's temporary directory (to look at its files)
#
# sp_run CMD...  runs a command (the first word "symprof" means the program under test)
# and leaves its exit status in $rc, its stdout in $tmp/out and its stderr in $tmp/err.

if [ -z "${SP_SRCDIR:-}" ]; then
	# run by hand: the source tree is the first directory above the test with configure.ac
	SP_SRCDIR=$(cd "$(dirname "$0")" && pwd)
	while [ "$SP_SRCDIR" != / ] && [ ! -f "$SP_SRCDIR/configure.ac" ]; do
		SP_SRCDIR=$(dirname "$SP_SRCDIR")
	done
fi
SP_BUILDDIR=${SP_BUILDDIR:-$SP_SRCDIR/build}
SYMPROF=${SYMPROF:-$SP_BUILDDIR/symprof}
export LC_ALL=C

sp_n=0
sp_failed=0

tmp=$(mktemp -d "${TMPDIR:-/tmp}/symprof-test.XXXXXX")
trap '[ -n "${SP_KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
# perf's build-id cache is the test's own: what `perf record` keeps there, and what
# symprof finds there by default, is of this test only (not of ~/.debug); perf reads
# only $PERF_CONFIG's file, and its buildid.dir says where the cache is
sp_perf_home=$tmp/perf
mkdir "$sp_perf_home"
printf '[buildid]\n\tdir = %s/perf-cache\n' "$sp_perf_home" >"$sp_perf_home/perfconfig"
PERF_CONFIG=$sp_perf_home/perfconfig
export PERF_CONFIG
unset PERF_BUILDID_DIR

# ok COND-STATUS DESCRIPTION: pass when the previous command's status was 0.
sp_ok()
{
	sp_st=$1
	shift
	sp_n=$((sp_n + 1))
	if [ "$sp_st" -eq 0 ]; then
		echo "ok $sp_n - $*"
	else
		echo "not ok $sp_n - $*"
		sp_failed=$((sp_failed + 1))
	fi
	return "$sp_st"
}

# sp_check DESCRIPTION CMD...: one test case whose outcome is CMD's status.
sp_check()
{
	sp_desc=$1
	shift
	"$@"
	sp_ok $? "$sp_desc"
}

sp_skip()
{
	sp_n=$((sp_n + 1))
	echo "ok $sp_n # SKIP $*"
}

sp_diag()
{
	printf '%s\n' "$@" | sed 's/^/#   /'
}

# Show the tail of the last command's stderr (after a failure).
sp_show_err()
{
	[ -s "$tmp/err" ] && head -n 20 "$tmp/err" | sed 's/^/#   stderr: /'
	return 0
}

# sp_same_run DESC REF OUT REF_STATUS STATUS REF_ERR ERR: one test that two runs (a
# reference and another, e.g. -j 1 and -j N) both exited 0 with nothing on stderr, and
# that OUT holds the same bytes as REF, which is not empty; on failure, the first
# difference and the second run's stderr
sp_same_run()
{
	[ "$4" -eq 0 ] && [ "$5" -eq 0 ] && [ -s "$2" ] && cmp -s "$2" "$3" &&
		[ ! -s "$6" ] && [ ! -s "$7" ]
	sp_ok $? "$1" || {
		cmp "$2" "$3" | sed 's/^/#   /'
		head -n 5 "$7" | sed 's/^/#   /'
	}
}

# sp_same_jobs NAME EXT INPUT "J..." JSTDIN [OPTIONS...]: `convert -j J` of INPUT to
# x.EXT writes what -j 1 writes, for each J, and so does -j JSTDIN reading INPUT's
# bytes from standard input (work files in $tmp)
sp_same_jobs()
{
	sj_name=$1 sj_ext=$2 sj_in=$3 sj_jobs=$4 sj_stdin=$5
	shift 5
	sp_symprof convert -q -j 1 "$@" "$sj_in" -o "$tmp/j1.$sj_ext" 2>"$tmp/err1"
	sj_rc1=$?
	for j in $sj_jobs stdin; do
		if [ "$j" = stdin ]; then
			sp_symprof convert -q -j "$sj_stdin" "$@" - -o "$tmp/j$j.$sj_ext" \
				<"$sj_in" 2>"$tmp/err$j"
		else
			sp_symprof convert -q -j "$j" "$@" "$sj_in" -o "$tmp/j$j.$sj_ext" 2>"$tmp/err$j"
		fi
		sj_rc=$?
		sp_same_run "$sj_name: -j $j writes what -j 1 writes (status $sj_rc, $sj_rc1)" \
			"$tmp/j1.$sj_ext" "$tmp/j$j.$sj_ext" "$sj_rc1" "$sj_rc" "$tmp/err1" "$tmp/err$j"
	done
}

sp_done()
{
	echo "1..$sp_n"
	[ "$sp_failed" -eq 0 ]
}

# Bail out of the whole script (TAP "Bail out!" makes the driver report an error).
sp_bail()
{
	echo "Bail out! $*"
	exit 1
}

sp_symprof()
{
	if [ -n "${SP_VALGRIND:-}" ] && [ "$SP_VALGRIND" != 0 ]; then
		# A libtool wrapper script is run through libtool so valgrind sees the program.
		sp_lt=
		[ "$(head -c 2 "$SYMPROF")" = "#!" ] && [ -x "$SP_BUILDDIR/libtool" ] &&
			sp_lt="$SP_BUILDDIR/libtool --mode=execute"
		$sp_lt valgrind --error-exitcode=99 --leak-check=full \
			--errors-for-leak-kinds=definite -q \
			--suppressions="$SP_SRCDIR/tests/helpers/valgrind.supp" "$SYMPROF" "$@"
	else
		"$SYMPROF" "$@"
	fi
}

# sp_children PID: the pids of PID's children (from /proc/*/stat, whose 4th field, the
# 2nd after the command name's closing parenthesis, is the parent: no procps needed)
sp_children()
{
	sp_parent=$1
	for sp_f in /proc/[0-9]*/stat; do
		sp_s=$(cat "$sp_f" 2>/dev/null) || continue
		# shellcheck disable=SC2086 # the fields after the name
		set -- ${sp_s##*) }
		[ "${2:-}" = "$sp_parent" ] && { sp_p=${sp_f#/proc/}; echo "${sp_p%/stat}"; }
	done
}

# sp_kill_tree PID: PID's children, then PID, get SIGTERM
sp_kill_tree()
{
	# shellcheck disable=SC2046 # one word per pid
	kill $(sp_children "$1") 2>/dev/null
	kill "$1" 2>/dev/null
}

# sp_kill_children PID...: SIGTERM to each PID that is still a child of this shell.  A
# child that has ended and been reaped gives up its pid, and with pid_max at 32768 another
# process (a test running beside this one) may hold it minutes later.
sp_kill_children()
{
	for sp_c in $(sp_children $$); do
		case " $* " in
		*" $sp_c "*) kill "$sp_c" 2>/dev/null ;;
		esac
	done
}

# sp_wait_gone PID...: until none of the PIDs is alive, 10 s at most
sp_wait_gone()
{
	sp_k=0
	for sp_p in "$@"; do
		while kill -0 "$sp_p" 2>/dev/null && [ "$sp_k" -lt 100 ]; do
			sleep 0.1
			sp_k=$((sp_k + 1))
		done
	done
}

# sp_need_perf_dwarf: ends the test with a TAP skip when perf is missing or cannot record
# --call-graph dwarf here.
sp_need_perf_dwarf()
{
	if ! command -v perf >/dev/null 2>&1; then
		echo "1..0 # SKIP perf is not installed (Debian package linux-perf)"
		exit 0
	fi
	if ! perf record -q -e cpu-clock --call-graph dwarf -o "$tmp/probe.data" -- true \
		>"$tmp/probe.log" 2>&1; then
		echo "1..0 # SKIP perf record --call-graph dwarf does not work here: $(head -n 1 "$tmp/probe.log")"
		exit 0
	fi
}

# sp_unwind_fixture DIR: builds testdata/src/unwind into DIR, or bails out.
sp_unwind_fixture()
{
	"$SP_SRCDIR/testdata/src/unwind/build.sh" "$1" >"$tmp/build.log" 2>&1 ||
		{ sed 's/^/# /' "$tmp/build.log"; sp_bail "unwind fixture does not build"; }
}

# sp_signal_mid_write SIG INPUT DIR: `symprof convert -q INPUT -o DIR/out.pb.gz` in the
# background (every signal at its default), stopped as soon as its temporary output
# exists, sent SIG (a name or a number) and continued, so that SIG arrives in the middle
# of the write: $st is its exit status, $caught empty when it ended before the temporary
# file was seen (60 s at most); its stderr in $tmp/err.
sp_signal_mid_write()
{
	rm -f "$3/"*
	env --default-signal "$SYMPROF" convert -q "$2" -o "$3/out.pb.gz" 2>"$tmp/err" &
	sp_pid=$!
	caught=
	sp_k=0
	while kill -0 "$sp_pid" 2>/dev/null && [ $sp_k -lt 3000 ]; do
		kill -STOP "$sp_pid" 2>/dev/null || break
		if ls "$3" | grep -q '^out\.pb\.gz\.tmp\.'; then
			kill -"$1" "$sp_pid"
			caught=yes
		fi
		kill -CONT "$sp_pid" 2>/dev/null
		[ -n "$caught" ] && break
		sleep 0.02
		sp_k=$((sp_k + 1))
	done
	wait "$sp_pid"
	st=$?
}

# sp_run_peak SECONDS symprof ARGS...: sp_run under tests/helpers/peak_mem, killed
# after SECONDS ($rc 124 then): $rc, $tmp/out, $tmp/err, and $sp_peak_kb, the most memory
# it held (resident set plus memory files, KiB).  $sp_peak_kb is empty under valgrind or
# AddressSanitizer, whose sizes are their own (the run is then only timed).
sp_run_peak()
{
	sp_secs=$1
	shift 2
	sp_peak_kb=
	if [ -n "${SP_VALGRIND:-}" ] && [ "$SP_VALGRIND" != 0 ]; then
		sp_lt=
		[ "$(head -c 2 "$SYMPROF")" = "#!" ] && [ -x "$SP_BUILDDIR/libtool" ] &&
			sp_lt="$SP_BUILDDIR/libtool --mode=execute"
		timeout -s KILL "$((sp_secs * 20))" $sp_lt valgrind --error-exitcode=99 \
			--leak-check=full --errors-for-leak-kinds=definite -q \
			--suppressions="$SP_SRCDIR/tests/helpers/valgrind.supp" "$SYMPROF" "$@" \
			>"$tmp/out" 2>"$tmp/err"
		rc=$?
		[ "$rc" -eq 137 ] && rc=124
		return 0
	fi
	"$SP_BUILDDIR/tests/helpers/peak_mem" "$tmp/peak" "$sp_secs" "$SYMPROF" "$@" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	ldd "$SYMPROF" 2>/dev/null | grep -q libasan || sp_peak_kb=$(cat "$tmp/peak")
	return 0
}

# sp_peak_below KIB WHAT: the last sp_run_peak held less than KIB (skipped without a figure)
sp_peak_below()
{
	if [ -z "$sp_peak_kb" ]; then
		sp_skip "$2 (no peak figure under valgrind or AddressSanitizer)"
	else
		[ "$sp_peak_kb" -lt "$1" ]
		sp_ok $? "$2 (peak $sp_peak_kb KiB, limit $1 KiB)"
	fi
}

sp_run()
{
	if [ "$1" = symprof ]; then
		shift
		sp_symprof "$@" >"$tmp/out" 2>"$tmp/err"
	else
		"$@" >"$tmp/out" 2>"$tmp/err"
	fi
	# shellcheck disable=SC2034 # read by the sourcing script
	rc=$?
	return 0
}

# sp_has_line_ending FILE SUFFIX: some line of FILE ends with SUFFIX (compared as text).
sp_has_line_ending()
{
	awk -v s="$2" '
		length($0) >= length(s) && substr($0, length($0) - length(s) + 1) == s { found = 1 }
		END { exit !found }' "$1" 2>/dev/null
}

# sp_expect_suffix FILE SUFFIX DESCRIPTION: a TAP case for sp_has_line_ending, printing
# the lines that share the suffix's last frame when it fails.
sp_expect_suffix()
{
	if sp_has_line_ending "$1" "$2"; then
		sp_ok 0 "$3"
	else
		sp_ok 1 "$3"
		sp_diag "want a line ending with: $2"
		sp_leaf=${2##*;}
		sp_leaf=${sp_leaf% *}
		grep -F -- "$sp_leaf" "$1" 2>/dev/null | head -n 5 | sed 's/^/#   have: /'
		return 1
	fi
}

# sp_record_heap DIR NAME: run DIR/NAME (a fixture program built by
# testdata/src/fixture/build.sh) under libtcmalloc's heap profiler and keep the dump
# HeapProfilerDump wrote (.0001) as $tmp/NAME.heap.
sp_record_heap()
{
	(cd "$1" && env HEAPPROFILE="$tmp/$2" "./$2") >/dev/null 2>&1 &&
		mv "$tmp/$2.0001.heap" "$tmp/$2.heap"
}

# go tool pprof, offline, with its caches in the test directory.
sp_gopprof()
{
	HOME=$tmp/gohome GOCACHE=$tmp/gocache GOPATH=$tmp/gopath GOFLAGS='' GOPROXY=off \
		GOTOOLCHAIN=local PPROF_TMPDIR=$tmp/pproftmp go tool pprof "$@"
}

sp_have_go()
{
	command -v go >/dev/null 2>&1
}

# Golden cases (testdata/golden/LIST): sp_optname OPTIONS... prints the options' part of
# a golden file name: "--sample-index 0" -> "sample-index_0", nothing -> "default".
sp_optname()
{
	[ $# -eq 0 ] && { echo default; return; }
	printf '%s\n' "$@" | sed 's/^-*//; s/[^A-Za-z0-9.=-]/_/g' | paste -sd_ -
}

# sp_golden_case LINE: splits a line of testdata/golden/LIST, "[@FMT,FMT...] INPUT
# [OPTIONS...]", into $sp_g_formats (default "raw folded"), $sp_g_input and $sp_g_opts;
# status 1 for blank and comment lines.
sp_golden_case()
{
	# shellcheck disable=SC2034 # read by the sourcing script
	sp_g_formats="raw folded"
	# shellcheck disable=SC2086 # words of the line
	set -- $1
	case ${1:-#} in '#'*) return 1 ;; esac
	case $1 in
	@*)
		# shellcheck disable=SC2034
		sp_g_formats=$(echo "${1#@}" | tr , ' ')
		shift
		;;
	esac
	sp_g_input=$1
	shift
	# shellcheck disable=SC2034
	sp_g_opts=$*
	[ -n "$sp_g_input" ]
}

# sp_golden_convert FORMAT INPUT OPTIONS...: the conversion a golden file records.
sp_golden_convert()
{
	sp_fmt=$1
	sp_in=$2
	shift 2
	sp_symprof convert "$@" --no-symbolize --format "$sp_fmt" "$SP_SRCDIR/testdata/profiles/$sp_in"
}

# The heap fixture (testdata/src/fixture): sp_fixture_heap DIR builds it into DIR/fix and
# records the exact "@ heapprofile" dump (every allocation) as DIR/fixture.heap; status 1
# when either fails (DIR/build.log says why).  sp_fixture_sites lists the allocation
# sites of fixture.h as "count size leaf" (inner_leaf is inlined into middle and outer).
sp_fixture_heap()
{
	"$SP_SRCDIR/testdata/src/fixture/build.sh" "$1/fix" >"$1/build.log" 2>&1 || return 1
	(cd "$1/fix" && env HEAPPROFILE="$1/fixture" ./fixture) >/dev/null 2>&1 &&
		mv "$1/fixture.0001.heap" "$1/fixture.heap"
}
# shellcheck disable=SC2034 # read by the sourcing script
sp_fixture_sites="10 4096 fixture::alloc_in_main
5 4000 fixture::fill<int>
6 8000 fixture::fill<double>
3 12288 static_alloc
7 1000 fixture::inner_leaf
2 5000 (anonymous namespace)::helper
6 2048 fixshared::shared_alloc
4 3000 fixplugin::plugin_work
9 1100 fixture::thread_main
16 65536 fixture::big_alloc"

# sp_chromium: the headless browser of the flame graph tests (SP_CHROMIUM, else Debian's
# /usr/bin/chromium); status 1 when there is none.
sp_chromium()
{
	sp_chr=${SP_CHROMIUM:-/usr/bin/chromium}
	[ -x "$sp_chr" ] && echo "$sp_chr"
}

# sp_reports_agree INPUT PROFILE "OPTIONS": symprof's DOT and top of INPUT with OPTIONS
# (symprof's spelling, e.g. "--sample-index samples") against go tool pprof -dot and
# -top of PROFILE (symprof's pprof of INPUT) with the same options in pprof's spelling
# (one dash, "=", sample_index).  Two TAP cases.
sp_reports_agree()
{
	sp_in=$1
	sp_pb=$2
	sp_o=$3
	# shellcheck disable=SC2086 # options are words
	sp_po=$(printf '%s\n' $sp_o | awk '
		NF == 0 { next }
		/^--/ { if (o != "") print o; o = "-" substr($0, 3); next }
		{ o = o "=" $0 }
		END { if (o != "") print o }' | sed 's/^-sample-index/-sample_index/' | paste -sd' ' -)
	# shellcheck disable=SC2086
	sp_run symprof convert $sp_o --format dot "$sp_in"
	cp "$tmp/out" "$tmp/ours.dot"
	# shellcheck disable=SC2086
	sp_dot_agrees "$tmp/ours.dot" "$sp_pb" $sp_po
	sp_ok $? "DOT${sp_o:+ $sp_o}: same nodes and edges as go tool pprof -dot${sp_po:+ $sp_po}"
	# shellcheck disable=SC2086
	sp_run symprof convert $sp_o --format top "$sp_in"
	cp "$tmp/out" "$tmp/ours.top"
	# shellcheck disable=SC2086
	sp_run sp_gopprof -top -symbolize=none $sp_po "$sp_pb"
	cmp -s "$tmp/ours.top" "$tmp/out"
	sp_ok $? "top${sp_o:+ $sp_o}: same table as go tool pprof -top${sp_po:+ $sp_po}" ||
		diff "$tmp/ours.top" "$tmp/out" | head -n 8 | sed 's/^/#   /'
}

# sp_dot_agrees OURS.dot PROFILE PPROF-OPTIONS...: `go tool pprof -dot` of PROFILE with
# those options draws the same nodes and edges, with the same labels, as OURS.dot
# (tests/helpers/report_dotcmp.py); the differences are printed as diagnostics.
sp_dot_agrees()
{
	sp_ours=$1
	sp_prof=$2
	shift 2
	if ! sp_gopprof -dot -symbolize=none "$@" "$sp_prof" >"$tmp/pprof.dot" 2>"$tmp/err"; then
		sp_show_err
		return 1
	fi
	python3 "$SP_SRCDIR/tests/helpers/report_dotcmp.py" "$sp_ours" "$tmp/pprof.dot" >"$tmp/dotcmp"
	sp_st=$?
	sed 's/^# */#   /' "$tmp/dotcmp"
	return $sp_st
}

# sp_require_perf: skip the whole script (plan 1..0) unless `perf record -e cpu-clock`
# works here (it needs root or a permissive perf_event_paranoid).
sp_require_perf()
{
	if ! command -v perf >/dev/null 2>&1; then
		echo "1..0 # SKIP perf is not installed (Debian package linux-perf)"
		exit 0
	fi
	if ! perf record -q -e cpu-clock -o "$tmp/probe.data" -- true >"$tmp/probe.log" 2>&1; then
		echo "1..0 # SKIP perf record -e cpu-clock does not work here: $(head -n 1 "$tmp/probe.log")"
		exit 0
	fi
}

# sp_perf_stacks PERF.DATA: the stacks perf script prints, root first, kept to the
# functions named in $vocab, with their sample counts (sorted).
sp_perf_stacks()
{
	perf script -F ip,sym -i "$1" 2>/dev/null | awk -v vocab="$vocab" '
		BEGIN { n = split(vocab, w, " "); for (i = 1; i <= n; i++) keep[w[i]] = 1 }
		function flush() { if (insample) { c[s == "" ? "-" : s]++ } s = ""; insample = 0 }
		/^[ \t]*$/ { flush(); next }
		{ insample = 1; if ($2 in keep) s = (s == "" ? $2 : $2 ";" s) }
		END { flush(); for (k in c) print k, c[k] }' | sort
}

# sp_folded_stacks FOLDED: the same from symprof's folded stacks.
sp_folded_stacks()
{
	awk -v vocab="$vocab" '
		BEGIN { n = split(vocab, w, " "); for (i = 1; i <= n; i++) keep[w[i]] = 1 }
		{ v = $NF; line = $0; sub(/ [0-9]+$/, "", line)
		  m = split(line, f, ";"); s = ""
		  for (i = 1; i <= m; i++) if (f[i] in keep) s = (s == "" ? f[i] : s ";" f[i])
		  c[s == "" ? "-" : s] += v }
		END { for (k in c) print k, c[k] }' "$1" | sort
}

# sp_stacks_agree DATA FOLDED: whether every stack of $vocab's functions perf script gives
# for the perf.data file DATA is one of symprof's FOLDED stacks, the counts within 2 % of
# the samples ($tmp/perf.stacks and $tmp/sym.stacks keep both; each stack perf alone has
# is printed on stderr as a TAP comment).
sp_stacks_agree()
{
	sp_perf_stacks "$1" >"$tmp/perf.stacks"
	sp_folded_stacks "$2" >"$tmp/sym.stacks"
	awk 'NR == FNR { sym[$1] = $2; next }
	     { if (!($1 in sym)) { missing++; print "# perf only: " $0 > "/dev/stderr" }
	       d = $2 - sym[$1]; diff += d < 0 ? -d : d; tot += $2 }
	     END { exit !(missing == 0 && diff * 50 <= tot) }' "$tmp/sym.stacks" "$tmp/perf.stacks"
}
