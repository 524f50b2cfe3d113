#!/bin/sh
# cli_mcjit.sh — end to end with a real LLVM MCJIT: testdata/src/jit/mcjit_funcs.c and
# mcjit_funcs2.c are compiled to bitcode by clang here; tests/helpers/mcjit_host (built only where
# configure found llvm-14-dev) JIT-compiles them into two objects, registers each through the
# listener of testdata/src/jit/llvm_listener.cpp with JITREG_DUMP_DIR set, runs them and writes
# a raw-stacks profile of the stacks its callback host_record saw, with a copy of
# /proc/self/maps.  Then `symprof convert --jit-dir` must name the JIT frames after the
# functions of the sources, at the lines of the calls (found by their MARK-... comments),
# mark them _[j] with --annotate, and leave the host's own frames to the host's
# executable, also with a code section per function; `symprof jit dump --pid` of the live
# host must give back the registered objects, whether libjitreg or LLVM's own GDB listener
# registered them.  Skipped where the host program or clang is missing.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

host=$SP_BUILDDIR/tests/helpers/mcjit_host
src=$SP_SRCDIR/testdata/src/jit/mcjit_funcs.c
src2=$SP_SRCDIR/testdata/src/jit/mcjit_funcs2.c
hostsrc=$SP_SRCDIR/tests/helpers/mcjit_host.cpp
if [ ! -x "$host" ]; then
	echo "1..0 # SKIP tests/helpers/mcjit_host not built (configure found no usable llvm-config: install llvm-14-dev)"
	exit 0
fi
if ! command -v clang >/dev/null 2>&1; then
	echo "1..0 # SKIP clang not installed"
	exit 0
fi
for s in "$src" "$src2"; do
	clang -g -O1 -fno-omit-frame-pointer -emit-llvm -c -o "$tmp/$(basename "$s" .c).bc" "$s" ||
		sp_bail "clang cannot compile $s to bitcode"
done
bcs="$tmp/mcjit_funcs.bc $tmp/mcjit_funcs2.bc"

# mark M FILE: the line of the MARK-M comment in FILE
mark() { grep -n "MARK-$1 \*/" "$2" | cut -d: -f1; }
# defline FN FILE: the line where function FN is defined in FILE
defline() { grep -n "int64_t $1(" "$2" | cut -d: -f1; }

# host_record returns 10 * tag: mc_twice(1) = ((10 * 3 + 1) + 5) * 2 = 72,
# mc_direct(2) = 20 + 7 = 27, mc_middle(1) = 72 * 11 + 27 = 819, mc_entry(1) = 818;
# mc2_entry(3) = (30 + 7) * 2 = 74.
mkdir "$tmp/jd"
# shellcheck disable=SC2086 # one word per module
sp_run env JITREG_DUMP_DIR="$tmp/jd" "$host" $bcs "$tmp/prof.raw"
sp_ok "$rc" "mcjit_host runs the JIT code" || sp_show_err
sp_check "the JIT code computed mc_entry(1) = 818" grep -qx "result 818" "$tmp/out"
sp_check "the JIT code computed mc2_entry(3) = 74 (a call across objects)" \
	grep -qx "result2 74" "$tmp/out"
# count DIR SUFFIX: the number of files DIR/*SUFFIX
count() { set -- "$1"/*"$2"; if [ -e "$1" ]; then echo $#; else echo 0; fi; }
sp_check "the listener dumped two objects" \
	test "$(count "$tmp/jd" .elf)" -eq 2 -a "$(count "$tmp/jd" .meta)" -eq 2
sp_check "the dumped objects are relocatable ELF files" sh -c "
	for f in '$tmp/jd'/*.elf; do readelf -hW \"\$f\" | grep -q 'REL (Relocatable' || exit 1; done"
nm -A "$tmp/jd"/*.elf >"$tmp/nm" 2>/dev/null
for fn in mc_entry mc_middle mc_twice mc_direct mc2_entry; do
	sp_check "one JIT object defines $fn" test "$(grep -Ec " T $fn\$" "$tmp/nm")" -eq 1
done
sp_check "mc_scale was inlined (no symbol of its own)" sh -c "! grep -q ' mc_scale\$' '$tmp/nm'"

# Each loaded .text, per the .meta files, lies in an anonymous executable mapping of the
# copy of /proc/self/maps in the profile.
# in_anon_rx ADDR: ADDR lies in an r-xp mapping without a file in $tmp/prof.raw's map
in_anon_rx()
{
	sed -n '/^--- Memory map: ---$/,$p' "$tmp/prof.raw" |
		while read -r range perm _ _ _ file; do
			if [ "$perm" != r-xp ] || [ -n "$file" ]; then
				continue
			fi
			[ "$1" -ge $((0x${range%-*})) ] && [ "$1" -lt $((0x${range#*-})) ] && echo yes
		done | grep -q yes
}
for meta in "$tmp/jd"/*.meta; do
	m=$(basename "$meta")
	text_start=$(tr -d ' \n' <"$meta" | grep -o '"name":"\.text","start":[0-9]*' | sed 's/.*://')
	sp_check "$m gives .text a run-time address" test "${text_start:-0}" -gt 0
	sp_check "$m: the code lives in an anonymous r-xp mapping" in_anon_rx "${text_start:-0}" ||
		sp_diag ".text at $text_start"
done

# Folded stacks, root first: the calls of the sources between the host's frames.
S1="main;host_run;mc_entry;mc_middle;mc_twice;mc_scale;host_record 1"
S2="main;host_run;mc_entry;mc_middle;mc_direct;host_record 2"
S3="main;host_run;mc2_entry;mc_direct;host_record 3"
sp_run symprof convert -q --jit-dir "$tmp/jd" --format folded "$tmp/prof.raw" -o "$tmp/f.folded"
sp_ok "$rc" "convert --jit-dir --format folded exits 0" || sp_show_err
sp_check "three stacks" test "$(wc -l <"$tmp/f.folded")" -eq 3
sp_check "path through the inlined helper: JIT frames named, host frames the host's" \
	grep -qx "$S1" "$tmp/f.folded"
sp_check "path through mc_direct" grep -qx "$S2" "$tmp/f.folded"
sp_check "path from the second object into the first" grep -qx "$S3" "$tmp/f.folded"
[ "$sp_failed" -eq 0 ] || sed 's/^/#   have: /' "$tmp/f.folded"

sp_run symprof convert -q --annotate --jit-dir "$tmp/jd" --format folded "$tmp/prof.raw" \
	-o "$tmp/a.folded"
sp_ok "$rc" "convert --annotate exits 0" || sp_show_err
sp_check "--annotate: JIT frames _[j], the inlined helper _[i], host frames unmarked" \
	grep -qx "main;host_run;mc_entry_\[j\];mc_middle_\[j\];mc_twice_\[j\];mc_scale_\[i\];host_record 1" \
	"$tmp/a.folded"
sp_check "--annotate: mc_direct _[j]" \
	grep -qx "main;host_run;mc_entry_\[j\];mc_middle_\[j\];mc_direct_\[j\];host_record 2" \
	"$tmp/a.folded"
sp_check "--annotate: both objects' frames _[j]" \
	grep -qx "main;host_run;mc2_entry_\[j\];mc_direct_\[j\];host_record 3" "$tmp/a.folded"

# Without the objects the JIT frames stay addresses in their regions; nothing takes a
# library's name.
sp_run symprof convert -q --addresses --format folded "$tmp/prof.raw" -o "$tmp/nojit.folded"
sp_ok "$rc" "convert without --jit-dir exits 0" || sp_show_err
H='\[anon\]\+0x[0-9a-f]+'
sp_check "without --jit-dir: JIT frames stay [anon]+0xOFFSET between the host's frames" sh -c "
	grep -Eqx 'main;host_run;$H;$H;$H;host_record 1' '$tmp/nojit.folded' &&
	grep -Eqx 'main;host_run;$H;$H;$H;host_record 2' '$tmp/nojit.folded' &&
	grep -Eqx 'main;host_run;$H;$H;host_record 3' '$tmp/nojit.folded'"

# File and line of every frame (symprof's pprof -raw style text, and go tool pprof's).
# locs FILE: "FUNCTION FILE LINE START" for every frame of the Locations section.
locs()
{
	awk '
		/^Locations/ { on = 1; next }
		/^Mappings/ { on = 0 }
		on {
			i = ($1 ~ /^[0-9]+:$/) ? 4 : 1
			if (($1 ~ /^[0-9]+:$/ && $3 !~ /^M=/) || NF < i + 2)
				next
			n = split($(i + 1), fl, ":")
			s = $(i + 2)
			sub(/^s=/, "", s)
			print $i, fl[1], fl[2], s
		}' "$1" | sort -u
}
# check_lines LOCS WHAT: every frame of a JIT function is at the line of its call, in its
# source file, and starts at the function's definition; the host's frames are the host's.
check_lines()
{
	cl_locs=$1
	cl_what=$2
	for want in "mc_scale $src scale" "mc_twice $src twice" "mc_direct $src direct" \
		"mc_middle $src middle-twice middle-direct" "mc_entry $src entry" \
		"mc2_entry $src2 mc2-entry"; do
		# shellcheck disable=SC2086 # the words of one case
		set -- $want
		fn=$1
		file=$2
		shift 2
		lines=
		for m in "$@"; do lines="$lines $(mark "$m" "$file")"; done
		# shellcheck disable=SC2086 # one word per line number
		lines=$(printf '%s\n' $lines | sort -n | paste -sd' ' -)
		have=$(awk -v f="$fn" '$1 == f { print $3 }' "$cl_locs" | sort -n | paste -sd' ' -)
		base=$(basename "$file")
		sp_check "$cl_what: $fn at $base line(s) $lines" test "$have" = "$lines" ||
			sp_diag "have line(s): $have"
		d=$(defline "$fn" "$file")
		bad=$(awk -v f="$fn" -v d="$d" -v b="/testdata/src/jit/$base" '$1 == f &&
			(substr($2, length($2) - length(b) + 1) != b || $4 != d) { print $2 ":" $3 " s=" $4 }' \
			"$cl_locs")
		sp_check "$cl_what: $fn from testdata/src/jit/$base, starting at line $d" test -z "$bad" ||
			sp_diag "bad: $bad"
	done
	bad=$(awk '$1 ~ /^(main|host_run|host_record)$/ && $2 !~ /\/tests\/helpers\/mcjit_host\.cpp$/' "$cl_locs")
	# host_record's leaf, host_run at its call of the JIT code, main at its two calls
	sp_check "$cl_what: the host's frames are in tests/helpers/mcjit_host.cpp" \
		test -z "$bad" -a "$(awk '$1 ~ /^(main|host_run|host_record)$/' "$cl_locs" | wc -l)" -eq 4 ||
		sp_diag "bad: $bad"
	# shellcheck disable=SC2016 # an awk program
	sp_check "$cl_what: host_run at its call of the JIT code" \
		awk -v l="$(grep -n 'int64_t r = fn(arg);' "$hostsrc" | cut -d: -f1)" \
		'$1 == "host_run" && $3 == l { found = 1 } END { exit !found }' "$cl_locs"
}

sp_run symprof convert -q --jit-dir "$tmp/jd" --format raw "$tmp/prof.raw" -o "$tmp/f.txt"
sp_ok "$rc" "convert --jit-dir --format raw exits 0" || sp_show_err
locs "$tmp/f.txt" >"$tmp/raw.locs"
check_lines "$tmp/raw.locs" "raw"
sp_check "raw: the JIT code's mapping is named [jit]" \
	sh -c "sed -n '/^Mappings/,\$p' '$tmp/f.txt' | grep -q ' \[jit\] '"

if sp_have_go; then
	sp_run symprof convert -q --jit-dir "$tmp/jd" "$tmp/prof.raw" -o "$tmp/f.pb.gz"
	sp_ok "$rc" "convert --jit-dir to pprof exits 0" || sp_show_err
	sp_run sp_gopprof -raw "$tmp/f.pb.gz"
	sp_ok "$rc" "go tool pprof -raw reads it" || sp_show_err
	cp "$tmp/out" "$tmp/go.txt"
	locs "$tmp/go.txt" >"$tmp/go.locs"
	check_lines "$tmp/go.locs" "pprof"
	sp_check "pprof: the JIT code's mapping is named [jit]" \
		sh -c "sed -n '/^Mappings/,\$p' '$tmp/go.txt' | grep -q ' \[jit\]'"
else
	sp_skip "pprof checks: go not installed"
fi

# Again with a code section per function (as in objects of C++ code with many template
# instances): each section placed on its own, the same names and lines.
mkdir "$tmp/fs.jd"
# shellcheck disable=SC2086 # one word per module
sp_run env JITREG_DUMP_DIR="$tmp/fs.jd" "$host" --function-sections $bcs "$tmp/fs.raw"
sp_ok "$rc" "fs: mcjit_host --function-sections runs the JIT code" || sp_show_err
cat "$tmp/fs.jd"/*.meta | tr -d ' \n' >"$tmp/fs.metas"
for fn in mc_entry mc_middle mc_twice mc_direct mc2_entry; do
	sp_check "fs: .text.$fn loaded at an address of its own" \
		grep -q "\"name\":\"\.text\.$fn\",\"start\":[1-9]" "$tmp/fs.metas"
done
sp_run symprof convert -q --jit-dir "$tmp/fs.jd" --format folded "$tmp/fs.raw" -o "$tmp/fs.folded"
sp_ok "$rc" "fs: convert --jit-dir --format folded exits 0" || sp_show_err
sp_check "fs: the three stacks, JIT frames named" sh -c "
	test \$(wc -l <'$tmp/fs.folded') -eq 3 && grep -qx '$S1' '$tmp/fs.folded' &&
	grep -qx '$S2' '$tmp/fs.folded' && grep -qx '$S3' '$tmp/fs.folded'" ||
	sed 's/^/#   have: /' "$tmp/fs.folded"
sp_run symprof convert -q --jit-dir "$tmp/fs.jd" --format raw "$tmp/fs.raw" -o "$tmp/fs.txt"
sp_ok "$rc" "fs: convert --jit-dir --format raw exits 0" || sp_show_err
locs "$tmp/fs.txt" >"$tmp/fs.locs"
check_lines "$tmp/fs.locs" "fs"

# The six call sites in JIT code give six distinct return addresses on the stacks
# (mc_scale's in mc_twice, mc_direct's, mc_middle's two, mc_entry's, mc2_entry's).
# jit_resolved FILE: "RESOLVED TOTAL" summed over the [jit] (or anonymous) mappings
jit_resolved()
{
	awk '/^  mapping / { j = ($NF == "[jit]" || $NF == "(anonymous)") }
		j && $1 == "resolved" { r += $2; t += $4 }
		END { print r + 0, t + 0 }' "$1"
}
sp_run symprof info --jit-dir "$tmp/jd" "$tmp/prof.raw"
sp_ok "$rc" "info --jit-dir exits 0" || sp_show_err
sp_check "info: the [jit] mappings resolve all 6 JIT addresses" \
	test "$(jit_resolved "$tmp/out")" = "6 6" || sp_diag "have: $(jit_resolved "$tmp/out")"
sp_run symprof info "$tmp/prof.raw"
sp_check "info without --jit-dir: the anonymous regions resolve none of them" \
	test "$(jit_resolved "$tmp/out")" = "0 6" || sp_diag "have: $(jit_resolved "$tmp/out")"

# `symprof jit dump` of the live host: the objects it registered, found through
# libjitreg's descriptor, or (--llvm-gdb, as in lli) through LLVM's own in libLLVM.
# live LABEL [--llvm-gdb]: runs the waiting host, dumps it into $tmp/LABEL.dump.
live()
{
	lv=$1
	shift
	rm -f "$tmp/ctl"
	mkfifo "$tmp/ctl"
	mkdir "$tmp/$lv.jd"
	# shellcheck disable=SC2086 # one word per module
	JITREG_DUMP_DIR="$tmp/$lv.jd" "$host" --wait "$@" $bcs "$tmp/$lv.raw" \
		<"$tmp/ctl" >"$tmp/$lv.ready" 2>"$tmp/live.err" &
	hostpid=$!
	exec 3>"$tmp/ctl"
	i=0
	# a file of its own: the host truncates it only once it has the fifo open
	while ! grep -q '^ready' "$tmp/$lv.ready" 2>/dev/null && [ $i -lt 600 ] &&
		kill -0 "$hostpid" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	pid=$(awk '$1 == "ready" { print $2 }' "$tmp/$lv.ready")
	sp_check "$lv: the waiting host is ready" test -n "$pid" ||
		sed 's/^/#   stderr: /' "$tmp/live.err"
	sp_run symprof jit dump --pid "${pid:-0}" -d "$tmp/$lv.dump"
	sp_ok "$rc" "$lv: jit dump --pid exits 0" || sp_show_err
	exec 3>&-
	wait "$hostpid"
	sp_ok $? "$lv: the waiting host exits 0"
	sp_check "$lv: jit dump wrote two objects" \
		test -f "$tmp/$lv.dump/jit-1.elf" -a ! -e "$tmp/$lv.dump/jit-2.elf"
	sp_run symprof convert -q --jit-dir "$tmp/$lv.dump" --format folded "$tmp/$lv.raw" \
		-o "$tmp/$lv.folded"
	sp_ok "$rc" "$lv: convert --jit-dir of the dump exits 0" || sp_show_err
	sp_check "$lv: the dump names the live run's JIT frames" sh -c "
		grep -qx '$S1' '$tmp/$lv.folded' && grep -qx '$S2' '$tmp/$lv.folded' &&
		grep -qx '$S3' '$tmp/$lv.folded'"
}

# same_pair DUMPED.elf DIR: DIR holds a byte-identical .elf whose .meta matches
same_pair()
{
	for e in "$2"/*.elf; do
		cmp -s "$1" "$e" || continue
		[ "$(tr -d ' \n\t' <"${1%.elf}.meta")" = "$(tr -d ' \n\t' <"${e%.elf}.meta")" ] &&
			return 0
	done
	return 1
}

live jitreg
for k in 0 1; do
	sp_check "jitreg: dumped jit-$k is an object the listener registered, .meta and all" \
		same_pair "$tmp/jitreg.dump/jit-$k.elf" "$tmp/jitreg.jd"
done

live llvm-gdb --llvm-gdb
sp_check "llvm-gdb: libjitreg wrote nothing" test -z "$(ls "$tmp/llvm-gdb.jd")"
sp_check "llvm-gdb: the dumped objects define the JIT functions" sh -c "
	nm '$tmp/llvm-gdb.dump/jit-0.elf' '$tmp/llvm-gdb.dump/jit-1.elf' | grep -q ' T mc_entry\$' &&
	nm '$tmp/llvm-gdb.dump/jit-0.elf' '$tmp/llvm-gdb.dump/jit-1.elf' | grep -q ' T mc2_entry\$'"

sp_done
