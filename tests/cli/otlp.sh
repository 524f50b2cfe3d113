#!/bin/sh
# otlp.sh — end to end: OpenTelemetry profiles as the eBPF profiler sends them.  The
# perf fixture (testdata/src/perf, plan in perfbusy.h) is recorded here with `perf record`, and
# tests/helpers/otlp_gen.py (python3-protobuf, written from spec/OTLP-PROFILES.md, none of
# symprof's code) turns perf script's samples into OTLP as the profiler encodes them:
# mappings and addresses in ELF virtual addresses, return addresses already decremented,
# GNU build ids and file ids (htlhash) as attributes, thread attributes, timestamps and
# links, one resource per process; with kernel frames named on the host when the kernel's
# are recorded.
#
# What must hold, from how the OTLP was made and from independent tools:
#   - every variant (ProfilesData, ExportProfilesServiceRequest, a length-prefixed stream
#     of two requests, OTLP/JSON lines, gzip, zstd; stripped binaries with a build-id
#     debug tree; mappings identified by htlhash only, past a decoy of the same name, or
#     under another name in a --binary-path directory;
#     kernel frames named by the profiler beside native ones) gives the folded stacks
#     symprof gives for the perf.data it came from (same stacks, same counts; the vDSO
#     has no file on either side and is named by its mapping);
#   - `-o x.pb.gz` and `-o x.otlp` work on each, and every other writer too (speedscope
#     and firefox files holding the folded output's stacks, read by viewer_check.py);
#   - OTLP written back, decoded by python3-protobuf, keeps every resource, scope,
#     profile field and every sample's attributes, link and timestamps, and its native
#     frames have lines now (tests/helpers/otlp_check.py written);
#   - OTLP -> pprof -> `go tool pprof -raw` has the samples with their counts and labels
#     (tests/helpers/otlp_check.py pprof-raw);
#   - pprof -> OTLP (protobuf and JSON) -> pprof is the same in the canonical dump
#     (--format raw), for perf.data's profile and the pprof and legacy testdata;
#   - `symprof info` says per mapping which id found the file, which addresses it holds
#     (ELF virtual for the profiler's, run-time for pprof's made OTLP) and why a mapping
#     stayed unresolved;
#   - a caller's address at a function's first byte names that function: the reader
#     never subtracts 1 again; frames the profiler named stay so unless --resymbolize,
#     and kernel frames even then.
# Skips when perf cannot record here or python3-protobuf is missing.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

sp_require_perf
PY=
for py in python3 /usr/bin/python3; do
	if "$py" -c 'import google.protobuf' 2>/dev/null; then
		PY=$py
		break
	fi
done
if [ -z "$PY" ]; then
	echo "1..0 # SKIP python3-protobuf is not installed (Debian package python3-protobuf)"
	exit 0
fi
gen="$PY $SP_SRCDIR/tests/helpers/otlp_gen.py"
check="$PY $SP_SRCDIR/tests/helpers/otlp_check.py"

fix=$tmp/fix
"$SP_SRCDIR/testdata/src/perf/build.sh" "$fix" >"$tmp/build.log" 2>&1 ||
	{ sed 's/^/# /' "$tmp/build.log"; sp_bail "perf fixture does not build"; }
(cd "$fix" && perf record -q --sample-cpu -e cpu-clock:u -g -o "$tmp/u.data" -- ./perfbusy) \
	>"$tmp/rec.log" 2>&1 || { sed 's/^/# /' "$tmp/rec.log"; sp_bail "perf record failed"; }
perf script -i "$tmp/u.data" --ns --show-mmap-events \
	-F comm,pid,tid,cpu,time,period,ip,sym,dso >"$tmp/u.txt" 2>/dev/null
$gen "$tmp/u.txt" "$tmp/gen" >"$tmp/gen.log" 2>&1 &&
	$gen "$tmp/u.txt" "$tmp/genh" --no-build-ids >>"$tmp/gen.log" 2>&1 ||
	{ sed 's/^/# /' "$tmp/gen.log"; sp_bail "otlp_gen.py failed"; }
sed 's/^/# /' "$tmp/gen.log"

# where the mapped files are: the fixture's, and the system libraries' directories
dirs=$(awk '/PERF_RECORD_MMAP2/ && $NF ~ /^\// { sub(/\/[^\/]*$/, "", $NF); print $NF }' \
	"$tmp/u.txt" | sort -u)
paths="--no-debuginfod -q"
for d in $dirs; do paths="$paths --binary-path $d"; done

# the stacks of the perf.data itself (root addresses in no mapping are the one [unknown]
# frame symprof cuts a perf.data chain into there); the vDSO is [vdso] to perf, linux-vdso.1.so to the
# profiler: neither has a file, each names its frames after its mapping
sp_run symprof convert --no-debuginfod -q --sample-index samples "$tmp/u.data" -o "$tmp/want.folded"
sp_ok "$rc" "perf.data converts" || sp_show_err
# (the lines sorted: the order of folded stacks is not what is compared)
LC_ALL=C sort -o "$tmp/want.folded" "$tmp/want.folded"
norm()
{
	sed 's/linux-vdso\.1\.so+/[vdso]+/g; s/\[linux-vdso\.1\.so\]/[vdso]/g; s/^\(\[unknown\];\)\{0,1\}\(0x[0-9a-f]*;\)\{1,\}/[unknown];/' "$1" |
		LC_ALL=C sort
}

if command -v zstd >/dev/null 2>&1; then
	zstd -q -c "$tmp/gen/agent-stream.otlp" >"$tmp/gen/agent-stream.otlp.zst"
fi
for v in agent.otlp agent-export.otlp agent-stream.otlp agent.otlp.json agent.otlp.gz \
	agent-stream.otlp.zst; do
	[ -f "$tmp/gen/$v" ] || { sp_skip "$v: zstd is not installed"; continue; }
	# shellcheck disable=SC2086 # $paths is a list of options
	sp_run symprof convert $paths "$tmp/gen/$v" -o "$tmp/$v.folded"
	sp_ok "$rc" "$v converts to folded stacks" || sp_show_err
	norm "$tmp/$v.folded" | cmp -s - "$tmp/want.folded"
	sp_ok $? "$v: the same stacks and counts as the perf.data" ||
		norm "$tmp/$v.folded" | diff - "$tmp/want.folded" | head -n 10 | sed 's/^/#   /'
	# shellcheck disable=SC2086
	sp_run symprof convert $paths "$tmp/gen/$v" -o "$tmp/$v.pb.gz"
	[ "$rc" -eq 0 ] && [ -s "$tmp/$v.pb.gz" ]
	sp_ok $? "$v: -o x.pb.gz" || sp_show_err
	# shellcheck disable=SC2086
	sp_run symprof convert $paths "$tmp/gen/$v" -o "$tmp/$v.otlp"
	[ "$rc" -eq 0 ] && [ -s "$tmp/$v.otlp" ]
	sp_ok $? "$v: -o x.otlp" || sp_show_err
done

# stripped binaries, their debug info in a build-id tree
mkdir -p "$tmp/strip" "$tmp/dbg"
for f in perfbusy libperfshared.so libperfplugin.so; do
	bid=$(readelf -n "$fix/$f" | awk '/Build ID:/ { print $3 }')
	mkdir -p "$tmp/dbg/.build-id/$(echo "$bid" | cut -c1-2)"
	objcopy --only-keep-debug "$fix/$f" "$tmp/dbg/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).debug"
	strip --strip-all -o "$tmp/strip/$f" "$fix/$f"
done
spaths=$(echo "$paths" | sed "s|--binary-path $fix |--binary-path $tmp/strip |")
# shellcheck disable=SC2086
sp_run symprof convert $spaths --debug-dir "$tmp/dbg" --debug-dir /usr/lib/debug \
	"$tmp/gen/agent.otlp" -o "$tmp/strip.folded"
norm "$tmp/strip.folded" | cmp -s - "$tmp/want.folded"
sp_ok $? "stripped binaries and a build-id debug tree: the same stacks" ||
	{ sp_show_err; norm "$tmp/strip.folded" | diff - "$tmp/want.folded" | head -n 5 | sed 's/^/#   /'; }
! grep -q "perfbusy+0x" "$tmp/strip.folded"
sp_ok $? "... every frame of perfbusy named from its debug file"

# htlhash only: a decoy of the same name first, which its file id rejects
mkdir -p "$tmp/decoy"
cp "$fix/libperfplugin.so" "$tmp/decoy/perfbusy"
# shellcheck disable=SC2086
sp_run symprof convert --binary-path "$tmp/decoy" $paths "$tmp/genh/agent.otlp" -o "$tmp/h.folded"
norm "$tmp/h.folded" | cmp -s - "$tmp/want.folded"
sp_ok $? "mappings with their htlhash only, a decoy first: the same stacks" ||
	{ sp_show_err; norm "$tmp/h.folded" | diff - "$tmp/want.folded" | head -n 5 | sed 's/^/#   /'; }
# shellcheck disable=SC2086
sp_run symprof info --binary-path "$tmp/decoy" $paths "$tmp/genh/agent.otlp"
awk '/ perfbusy$/ { m = 1 } m && /found by: file id \(htlhash\)/ { f = 1 }
     m && /tried: .*decoy\/perfbusy \(file id \(htlhash\) mismatch\)/ { d = 1 }
     m && /^  mapping/ && !/ perfbusy$/ { m = 0 } END { exit !(f && d) }' "$tmp/out"
sp_ok $? "info: perfbusy found by its htlhash, the decoy rejected for it" ||
	sed -n '/ perfbusy$/,/^  mapping/p' "$tmp/out" | head -n 20 | sed 's/^/#   /'
# the same without the real file: stripped (another file id) is not taken
# shellcheck disable=SC2086
sp_run symprof info $spaths "$tmp/genh/agent.otlp"
sed -n '/ perfbusy$/,/^  mapping/p' "$tmp/out" >"$tmp/h.info"
grep -q "tried: $tmp/strip/perfbusy (file id (htlhash) mismatch)" "$tmp/h.info" &&
	grep -q "unresolved [0-9]*: build-id mismatch" "$tmp/h.info"
sp_ok $? "info: a stripped copy has another file id, and the frames say why they stay addresses" ||
	sed 's/^/#   /' "$tmp/h.info" | head -n 20

# a binary renamed since the run: found among its directory's files by its file id
mkdir -p "$tmp/renamed"
for f in perfbusy libperfshared.so libperfplugin.so; do cp "$fix/$f" "$tmp/renamed/$f.v2"; done
rpaths=$(echo "$paths" | sed "s|--binary-path $fix |--binary-path $tmp/renamed |")
# shellcheck disable=SC2086
sp_run symprof convert $rpaths "$tmp/genh/agent.otlp" -o "$tmp/renamed.folded"
norm "$tmp/renamed.folded" | cmp -s - "$tmp/want.folded"
sp_ok $? "binaries renamed since the run: found by their file ids, the same stacks" ||
	{ sp_show_err; norm "$tmp/renamed.folded" | diff - "$tmp/want.folded" | head -n 5 | sed 's/^/#   /'; }
# shellcheck disable=SC2086
sp_run symprof info $rpaths "$tmp/genh/agent.otlp"
sed -n '/ perfbusy$/,/^  mapping/p' "$tmp/out" | grep -q "found by: file id (htlhash), under another name"
sp_ok $? "info: ... which it says" || sed -n '/ perfbusy$/,/^  mapping/p' "$tmp/out" | sed 's/^/#   /'

# info: which id, which addresses, and why the vDSO stayed unnamed
# shellcheck disable=SC2086
sp_run symprof info $paths "$tmp/gen/agent.otlp"
sed -n '/ perfbusy$/,/^  mapping/p' "$tmp/out" >"$tmp/m.info"
grep -q "found by: GNU build id" "$tmp/m.info" &&
	grep -q "file id (htlhash): [0-9a-f]\{32\}" "$tmp/m.info" &&
	grep -q "addresses: ELF virtual addresses (load base 0)" "$tmp/m.info" &&
	grep -q "samples: [1-9][0-9]* of" "$tmp/m.info"
sp_ok $? "info: perfbusy found by its GNU build id, ELF virtual addresses, its samples" ||
	sed 's/^/#   /' "$tmp/m.info"
if grep -q " linux-vdso.1.so$" "$tmp/out"; then
	sed -n '/ linux-vdso.1.so$/,/^  mapping/p' "$tmp/out" | grep -q "unresolved [0-9]*: unsymbolizable"
	sp_ok $? "info: the vDSO unresolved, and why" || sed 's/^/#   /' "$tmp/out" | tail -n 20
else
	sp_skip "no sample in the vDSO this time"
fi

# OTLP made from pprof holds run-time addresses: that rule, decided per mapping
sp_run symprof convert --no-symbolize -q "$tmp/u.data" -o "$tmp/rt.otlp"
# shellcheck disable=SC2086
sp_run symprof info $paths "$tmp/rt.otlp"
sed -n '/perfbusy$/,/^  mapping/p' "$tmp/out" | grep -q "addresses: run-time addresses, load base 0x[0-9a-f]*"
sp_ok $? "info: OTLP from a perf.data's pprof holds run-time addresses, with a load base" ||
	sed 's/^/#   /' "$tmp/out" | head -n 30
# shellcheck disable=SC2086
sp_run symprof convert $paths --sample-index samples "$tmp/rt.otlp" -o "$tmp/rt.folded"
LC_ALL=C sort "$tmp/rt.folded" | cmp -s - "$tmp/want.folded"
sp_ok $? "... and gives the perf.data's stacks"

# written back: every attribute, link and timestamp kept, the lines added
# shellcheck disable=SC2086
sp_run symprof convert $paths "$tmp/gen/agent.otlp" -o "$tmp/back.otlp"
$check written "$tmp/gen/agent.otlp" "$tmp/back.otlp" >"$tmp/check" 2>&1
sp_ok $? "OTLP written back keeps every attribute, link and timestamp, with lines" ||
	sed 's/^/#   /' "$tmp/check" | cut -c1-300
# shellcheck disable=SC2086
sp_run symprof convert $paths "$tmp/gen/agent-stream.otlp" -o "$tmp/back.otlp.json"
$check written "$tmp/gen/agent-stream.otlp" "$tmp/back.otlp.json" >"$tmp/check" 2>&1
sp_ok $? "... as OTLP/JSON, from a stream of two requests" ||
	sed 's/^/#   /' "$tmp/check" | cut -c1-300

# OTLP -> pprof -> go tool pprof -raw
if command -v go >/dev/null 2>&1; then
	# shellcheck disable=SC2086
	sp_run symprof convert $paths "$tmp/gen/agent.otlp" -o "$tmp/x.pb.gz"
	mkdir -p "$tmp/home" "$tmp/gocache"
	HOME=$tmp/home GOCACHE=$tmp/gocache GOTOOLCHAIN=local go tool pprof -raw "$tmp/x.pb.gz" \
		>"$tmp/x.raw" 2>"$tmp/go.err"
	$check pprof-raw "$tmp/gen/agent.otlp" "$tmp/x.raw" >"$tmp/check" 2>&1
	sp_ok $? "OTLP -> pprof: go tool pprof -raw shows its samples, counts and labels" ||
		{ sed 's/^/#   /' "$tmp/check" | cut -c1-300; head -n 3 "$tmp/go.err" | sed 's/^/#   /'; }
else
	sp_skip "go is not installed (Debian package golang-go)"
fi

# pprof -> OTLP -> pprof: the same canonical dump
sp_run symprof convert --no-debuginfod -q "$tmp/u.data" -o "$tmp/a.pb.gz"
for src in "$tmp/a.pb.gz" "$SP_SRCDIR/testdata/profiles/pprof-from-raw.pb.gz" \
	"$SP_SRCDIR/testdata/profiles/heapprofile-small.heap" \
	"$SP_SRCDIR/testdata/profiles/cpu-example.prof" \
	"$SP_SRCDIR/testdata/profiles/contention-example.txt"; do
	b=$(basename "$src")
	"$SYMPROF" convert --no-symbolize -q "$src" --format raw -o "$tmp/$b.1.raw"
	for ext in otlp otlp.json; do
		"$SYMPROF" convert --no-symbolize -q "$src" -o "$tmp/$b.$ext" &&
			"$SYMPROF" convert --no-symbolize -q "$tmp/$b.$ext" -o "$tmp/$b.$ext.pb.gz" &&
			"$SYMPROF" convert --no-symbolize -q "$tmp/$b.$ext.pb.gz" --format raw -o "$tmp/$b.2.raw"
		cmp -s "$tmp/$b.1.raw" "$tmp/$b.2.raw"
		sp_ok $? "$b -> .$ext -> pprof: the same canonical dump" ||
			diff "$tmp/$b.1.raw" "$tmp/$b.2.raw" | head -n 10 | sed 's/^/#   /'
	done
done

# never 1 subtracted twice, named frames kept unless --resymbolize, kernel frames always
addr=$(nm "$fix/perfbusy" | awk '$3 == "busy_main" { print "0x" $1 }')
$check synth "$tmp/s.otlp" "$fix/perfbusy" "$addr" wrong_name >"$tmp/check" 2>&1 ||
	sed 's/^/#   /' "$tmp/check"
# shellcheck disable=SC2086
sp_run symprof convert $paths "$tmp/s.otlp" -o "$tmp/s.folded"
# (root first: the caller, then the leaf's frames with what is inlined there, the kernel's)
grep -Eq "^busy_main;busy_main(;[a-z_]+)*;kfunc 1$" "$tmp/s.folded"
sp_ok $? "a caller's address at busy_main's first byte names busy_main (no second -1)" ||
	sed 's/^/#   /' "$tmp/s.folded"
grep -q "^wrong_name 1$" "$tmp/s.folded"
sp_ok $? "a frame the profiler named keeps its name" || sed 's/^/#   /' "$tmp/s.folded"
# shellcheck disable=SC2086
sp_run symprof convert $paths --resymbolize "$tmp/s.otlp" -o "$tmp/r.folded"
grep -Eq "^busy_main(;[a-z_]+)* 1$" "$tmp/r.folded" && ! grep -q wrong_name "$tmp/r.folded" &&
	grep -q ";kfunc 1$" "$tmp/r.folded"
sp_ok $? "--resymbolize names it again, and leaves the kernel frame alone" ||
	sed 's/^/#   /' "$tmp/r.folded"

# every writer from OTLP input
for fmt in raw top dot svg flamegraph pprof otlp-json html list disasm speedscope firefox; do
	# shellcheck disable=SC2086
	sp_run symprof convert $paths --format "$fmt" "$tmp/gen/agent.otlp" -o "$tmp/w.$fmt"
	[ "$rc" -eq 0 ] && [ -s "$tmp/w.$fmt" ]
	sp_ok $? "--format $fmt from OTLP" || sp_show_err
done
grep -q "busy_main" "$tmp/w.top"
sp_ok $? "top lists the fixture's functions"
grep -q "busy_main" "$tmp/w.list" && grep -q "busy_main" "$tmp/w.disasm"
sp_ok $? "list and disasm show the fixture's functions" || head -n 5 "$tmp/w.list" | sed 's/^/#   /'
# the viewers' files hold the folded output's stacks (tests/helpers/viewer_check.py)
# shellcheck disable=SC2086
sp_run symprof convert $paths "$tmp/gen/agent.otlp" --format folded
sort "$tmp/out" >"$tmp/w.sorted.folded"
for kind in speedscope firefox; do
	python3 "$SP_SRCDIR/tests/helpers/viewer_check.py" folded $kind "$tmp/w.$kind" 2>&1 |
		sort >"$tmp/w.$kind.folded"
	[ -s "$tmp/w.sorted.folded" ] && cmp -s "$tmp/w.sorted.folded" "$tmp/w.$kind.folded"
	sp_ok $? "$kind from OTLP holds the folded output's stacks and values" ||
		diff "$tmp/w.sorted.folded" "$tmp/w.$kind.folded" | head -n 6 | sed 's/^/#   /'
done

# kernel frames named on the host, beside native ones
if (cd "$fix" && perf record -q --sample-cpu -e cpu-clock -g -o "$tmp/k.data" -- ./perfbusy) \
	>"$tmp/rec.log" 2>&1 &&
	perf script -i "$tmp/k.data" --ns --show-mmap-events \
		-F comm,pid,tid,cpu,time,period,ip,sym,dso >"$tmp/k.txt" 2>/dev/null &&
	grep -q "(\[kernel.kallsyms\])" "$tmp/k.txt" &&
	! grep "(\[kernel.kallsyms\])" "$tmp/k.txt" | grep -q "\[unknown\]" &&
	$gen "$tmp/k.txt" "$tmp/genk" >"$tmp/gen.log" 2>&1; then
	sp_run symprof convert --no-debuginfod -q --annotate --sample-index samples "$tmp/k.data" \
		-o "$tmp/kwant.folded"
	# shellcheck disable=SC2086
	sp_run symprof convert $paths --annotate "$tmp/genk/agent.otlp" -o "$tmp/k.folded"
	# a kernel frame is the kernel's on both sides ([kernel]+0x... and the name perf gave)
	kern()
	{
		sed 's/linux-vdso\.1\.so+/[vdso]+/g; s/\[linux-vdso\.1\.so\]/[vdso]/g; s/^\(\[unknown\];\)\{0,1\}\(0x[0-9a-f]*;\)\{1,\}/[unknown];/
			s/[^;]*_\[k\]/[k]/g' "$1" |
			awk '{ v = $NF; sub(/ [0-9]+$/, ""); n[$0] += v } END { for (s in n) print s, n[s] }' |
			sort
	}
	kern "$tmp/kwant.folded" >"$tmp/kw"
	kern "$tmp/k.folded" >"$tmp/kg"
	cmp -s "$tmp/kg" "$tmp/kw"
	sp_ok $? "kernel frames named on the host beside native ones: the same stacks" ||
		diff "$tmp/kg" "$tmp/kw" | head -n 10 | sed 's/^/#   /'
	name=$(awk '/\(\[kernel.kallsyms\]\)/ { print $2; exit }' "$tmp/k.txt")
	grep -q "$name" "$tmp/k.folded"
	sp_ok $? "... and keep the names the profiler gave them ($name)"
else
	sp_skip "no kernel frames in a perf record here"
	sp_skip "no kernel frames in a perf record here"
fi

sp_done
