#!/bin/sh
# jit_dump.sh — `symprof jit dump` against a live JIT host (tests/helpers/jithost,
# linked with libjitreg) and against its core file written by gcore: the
# dumped objects must be byte for byte the ones registered, in list order
# (newest first), with .meta files describing the sections as the loader
# (tests/helpers/jitload) placed them.  Also: clear errors for a process without the
# GDB JIT symbols, a truncated core and bad usage.  Run twice: with the
# descriptor in libjitreg.so and with it copied into the executable.
# Speaks TAP.
set -u
: "${SP_SRCDIR:?}" "${SP_BUILDDIR:?}" "${SYMPROF:?}"
T=$(mktemp -d /tmp/sp-jitdump-XXXXXX)
n=0
failed=0
cleanup() {
	exec 3>&- 2>/dev/null
	[ -n "${spid:-}" ] && kill "$spid" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); failed=1; echo "not ok $n - $1"; }
check() {
	desc=$1
	shift
	if "$@"; then ok "$desc"; else notok "$desc"; fi
}
# The .meta JSON without layout whitespace (names hold no blanks here).
norm() { tr -d ' \n\t' < "$1"; }
same_meta() { [ -s "$1" ] && [ -s "$2" ] && [ "$(norm "$1")" = "$(norm "$2")" ]; }

gcc -c -g -O2 -ffunction-sections -o "$T/f.o" "$SP_SRCDIR/testdata/src/jit/jitfuncs.c"
check "fixture compiles" test -s "$T/f.o"
"$SP_BUILDDIR/tests/helpers/jitload" "$T/f.o" "$T/a" 7f1200000000 1000 7f1210000000 > /dev/null &&
"$SP_BUILDDIR/tests/helpers/jitload" "$T/f.o" "$T/b" 7f1200000800 1000 7f1220000000 > /dev/null &&
"$SP_BUILDDIR/tests/helpers/jitload" "$T/f.o" "$T/c" 7f1200000400 1000 7f1230000000 > /dev/null
check "three objects placed" test -s "$T/c.meta"

dump_checks() { # DIR WHAT
	check "$2: two objects dumped" test -f "$1/jit-0.elf" -a -f "$1/jit-1.elf" -a ! -e "$1/jit-2.elf"
	check "$2: jit-0.elf is the newest object (c)" cmp -s "$1/jit-0.elf" "$T/c.elf"
	check "$2: jit-1.elf is a (b was unregistered)" cmp -s "$1/jit-1.elf" "$T/a.elf"
	check "$2: jit-0.meta lists c's sections as placed" same_meta "$1/jit-0.meta" "$T/c.meta"
	check "$2: jit-1.meta lists a's sections as placed" same_meta "$1/jit-1.meta" "$T/a.meta"
}

# run_host HOST LABEL: registers a, b, c, unregisters b (the list is then
# c -> a), dumps the live process and its core.  Leaves $pid, $exe and the
# core $T/LABEL-core.$pid.
run_host() {
	host=$1
	label=$2
	rm -f "$T/ctl" "$T/ready"
	mkfifo "$T/ctl"
	"$host" "$T/a.elf" "$T/b.elf" "$T/c.elf" --drop "$T/b.elf" < "$T/ctl" > "$T/ready" &
	exec 3> "$T/ctl"
	i=0
	while ! grep -q '^ready' "$T/ready" 2>/dev/null && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	pid=
	read -r _ pid exe < "$T/ready"
	check "$label: host is ready (pid ${pid:-?})" test -n "${pid:-}"

	"$SYMPROF" jit dump --pid "$pid" -d "$T/$label-live" 2> "$T/live.err"
	rc=$?
	check "$label: jit dump --pid exits 0" test $rc -eq 0
	[ $rc -eq 0 ] || sed 's/^/# /' "$T/live.err"
	dump_checks "$T/$label-live" "$label live"

	# A sanitized host maps terabytes of shadow memory that gcore would
	# write out: its core is not taken (the plain host below covers cores).
	if readelf -dW "$exe" 2> /dev/null | grep -q 'NEEDED.*lib[at]san'; then
		ok "$label: core # SKIP host built with sanitizers"
	else
		# Bounded in size (1 GiB) and time, whatever happens.
		(ulimit -f 2097152; timeout 120 gcore -o "$T/$label-core" "$pid") > "$T/gcore.log" 2>&1
		check "$label: gcore wrote a core file" test -s "$T/$label-core.$pid"
		"$SYMPROF" jit dump --core "$T/$label-core.$pid" --exe "$exe" -d "$T/$label-fromcore" 2> "$T/core.err"
		rc=$?
		check "$label: jit dump --core exits 0" test $rc -eq 0
		[ $rc -eq 0 ] || sed 's/^/# /' "$T/core.err"
		dump_checks "$T/$label-fromcore" "$label core"
	fi

	# Let the host go.
	exec 3>&-
	wait
}

# The descriptor in libjitreg.so, found through the process's mappings and
# the core's NT_FILE note.
run_host "$SP_BUILDDIR/tests/helpers/jithost" lib
# The descriptor copied into the executable.
run_host "$SP_BUILDDIR/tests/helpers/jithost_copyrel" exe
if readelf -rW "$exe" | grep -q "COPY.*__jit_debug_descriptor"; then
	ok "exe: the executable holds the descriptor (copy relocation)"
else
	ok "exe: the executable holds the descriptor # SKIP no copy relocation on this target"
fi
# libjitreg compiled into a plain (never sanitized) PIE: the descriptor is
# defined by the executable, whose base comes from the core's AT_ENTRY.
gcc -O2 -pie -fPIE -I"$SP_SRCDIR" -o "$T/plainhost" "$SP_SRCDIR/testdata/src/jit/jithost.c" \
	"$SP_SRCDIR/jitreg/jitreg.c" -lpthread
check "plain host compiles" test -x "$T/plainhost"
run_host "$T/plainhost" plain
cp "$T/plain-core.$pid" "$T/core.$pid"

# A truncated core: keep the headers and notes, cut the memory.
first_load=$(readelf -lW "$T/core.$pid" | awk '$1 == "LOAD" { print $2; exit }')
head -c "$((${first_load:-0} + 4096))" "$T/core.$pid" > "$T/trunc.core"
"$SYMPROF" jit dump --core "$T/trunc.core" --exe "$exe" -d "$T/trunc" 2> "$T/trunc.err"
rc=$?
check "truncated core fails" test $rc -eq 1
check "truncated core is named as such" grep -q "trunc.core: truncated core" "$T/trunc.err"
[ $rc -eq 1 ] || sed 's/^/# /' "$T/trunc.err"

sleep 30 &
spid=$!
"$SYMPROF" jit dump --pid "$spid" -d "$T/none" 2> "$T/none.err"
rc=$?
check "process without the GDB JIT interface fails" test $rc -eq 1
check "... saying the symbol is missing" grep -q "no symbol __jit_debug_descriptor" "$T/none.err"
# ended and reaped at once: a pid left for the exit trap could belong to another process by then
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
spid=

"$SYMPROF" jit dump --pid 1 --core x -d "$T/u" 2> /dev/null
check "--pid with --core is a usage error" test $? -eq 2
"$SYMPROF" jit dump --core x -d "$T/u" 2> /dev/null
check "--core without --exe is a usage error" test $? -eq 2
"$SYMPROF" jit dump --pid 12x -d "$T/u" 2> "$T/u.err"
check "bad pid is a usage error" test $? -eq 2

echo "1..$n"
exit $failed
