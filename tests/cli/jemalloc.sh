#!/bin/sh
# cli_jemalloc.sh — end to end: real jemalloc heap_v2 dumps of testdata/src/fixture/jefixture.cc
# (PIE, linked libfixshared.so, dlopen()ed libfixplugin.so, two threads, a template, an
# inline chain, frees before the dump) converted by symprof to folded stacks and pprof.
#
# Dumps: prof.dump through mallctl with every allocation recorded (lg_prof_sample:0) with
# and without prof_accum, the same with jemalloc's default sampling, prof_final and
# prof_leak at exit, prof_gdump, and a stripped executable with its debug info in a build-id
# tree.  Expected values come from the fixture's own report:
# for every site, blocks allocated and kept, the requested size and nallocx() of it (the
# size class jemalloc reserves and records).  jemalloc's perl jeprof is the independent
# reader of the totals.  Skipped when libjemalloc-dev is not installed.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

if [ ! -f /usr/include/jemalloc/jemalloc.h ]; then
	sp_skip "libjemalloc-dev is not installed"
	sp_done
	exit 0
fi

fix=$tmp/fix
src=$SP_SRCDIR/testdata/src/fixture
mkdir -p "$fix"
flags="-O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -fno-ipa-icf -Wl,--build-id"
CXX=${CXX:-g++}
# shellcheck disable=SC2086,SC2016 # $flags is a list of words; $ORIGIN is for the linker
{
	$CXX $flags -fPIC -shared -o "$fix/libfixshared.so" "$src/fixshared.cc" &&
		$CXX $flags -fPIC -shared -o "$fix/libfixplugin.so" "$src/fixplugin.cc" &&
		$CXX $flags -fPIE -pie -o "$fix/jefixture" "$src/jefixture.cc" -L"$fix" \
			-lfixshared -Wl,-rpath,'$ORIGIN' -ljemalloc -ldl -lpthread
} >"$tmp/build.log" 2>&1 || { sed 's/^/# /' "$tmp/build.log"; sp_bail "jefixture does not build"; }

# record NAME MALLOC_CONF: a prof.dump of the fixture as $tmp/NAME.heap, its site report
# as $tmp/NAME.sites.
record()
{
	(cd "$fix" && env MALLOC_CONF="$2" FIXTURE_JE_DUMP="$tmp/$1.heap" ./jefixture) \
		>"$tmp/$1.sites" 2>"$tmp/$1.stderr" && [ -s "$tmp/$1.heap" ]
}
record exact prof:true,prof_accum:true,lg_prof_sample:0 || sp_bail "no exact dump"
record noaccum prof:true,lg_prof_sample:0 || sp_bail "no dump without prof_accum"
record sampled prof:true,prof_accum:true || sp_bail "no sampled dump"
sp_check "exact dump: heap_v2/1 header then t*:" \
	sh -c "head -n 2 '$tmp/exact.heap' | tr '\n' ' ' | grep -Eq '^heap_v2/1  +t\*: '"
sp_check "sampled dump: default period 2^19" grep -q '^heap_v2/524288$' "$tmp/sampled.heap"

# site NAME FIELD: a number from the fixture's report (2 allocated, 3 kept, 4 size, 5 class)
site()
{
	awk -v s="$1" -v f="$2" '$1 == "site" && $2 == s { print $(f + 1) }' "$tmp/exact.sites"
}
class_of()
{
	site "$1" 5
}

main=';main'
# "leaf-suffix site": the folded suffix of every site (root first; threads start in libc)
sites="$main;jefix::alloc_in_main alloc_in_main
$main;jefix::fill<int> fill_int
$main;jefix::fill<double> fill_double
$main;jefix::outer;jefix::middle;jefix::inner_leaf inner_leaf
;start_thread;jefix::thread_main thread_main
$main;jefix::big_alloc big_alloc
$main;jefix::bulk_alloc bulk_alloc
$main;fixshared::shared_alloc shared_alloc
$main;run_plugin;plugin_entry;fixplugin::plugin_work plugin_work"

sp_run symprof info "$tmp/exact.heap"
sp_ok "$rc" "info reads the exact dump" || sp_show_err
grep -q '^  format: jemalloc$' "$tmp/out" &&
	grep -q '^  sample types: inuse_objects/count inuse_space/bytes (default) alloc_objects/count alloc_space/bytes$' "$tmp/out"
sp_ok $? "info: jemalloc, in-use and allocated columns (prof_accum:true)"
grep -q 'libjemalloc' "$tmp/out"
sp_ok $((!$?)) "info: no mapping of libjemalloc is left (its frames are dropped)"

# folded INDEX FILE: the exact dump as folded stacks of one column
folded()
{
	sp_run symprof convert --demangle templates --sample-index "$1" "$tmp/exact.heap" -o "$tmp/$2"
	sp_ok "$rc" "convert --sample-index $1 exits 0" || sp_show_err
}
folded inuse_space exact.inuse.folded
folded inuse_objects exact.inuse_n.folded
folded alloc_space exact.alloc.folded
folded alloc_objects exact.alloc_n.folded
while read -r suffix name; do
	n=$(site "$name" 3)
	a=$(site "$name" 2)
	c=$(class_of "$name")
	sp_expect_suffix "$tmp/exact.inuse.folded" "$suffix $((n * c))" "in use: $name $n x $c bytes"
	sp_expect_suffix "$tmp/exact.inuse_n.folded" "$suffix $n" "in use: $name $n objects"
	sp_expect_suffix "$tmp/exact.alloc.folded" "$suffix $((a * c))" "allocated: $name $a x $c bytes"
	sp_expect_suffix "$tmp/exact.alloc_n.folded" "$suffix $a" "allocated: $name $a objects"
done <<EOF
$sites
EOF
# freed before the dump: temp_alloc is only in the allocated columns
sp_expect_suffix "$tmp/exact.alloc.folded" "$main;jefix::temp_alloc $((3 * $(class_of temp_alloc)))" \
	"allocated: temp_alloc 3 x $(class_of temp_alloc) bytes, all freed"
grep -q 'temp_alloc' "$tmp/exact.inuse.folded"
sp_ok $((!$?)) "in use: temp_alloc freed everything"

# No allocator frame is left or misnamed: every stack ends in the program, its libraries
# or libc, never in jemalloc's exported neighbours (malloc_usable_size, ...).
alloc_rx='(^|;)(malloc|calloc|malloc_usable_size|mallocx|je_[^;]*|prof_[^;]*|operator new(\[\])?)( [0-9]+$|;)'
sp_check "folded: no allocator frame" sh -c "! grep -Eq '$alloc_rx' '$tmp/exact.inuse.folded'"

# Threads: one pprof sample per thread, labelled, summing to the stack.
sp_run symprof convert --demangle templates --format raw "$tmp/exact.heap"
c=$(class_of thread_main)
for t in first second; do
	n=$(site "thread_$t" 3)
	grep -A1 -E "^ +$n +$((n * c)) +$n +$((n * c)): " "$tmp/out" | grep -q 'thread:\['
	sp_ok $? "raw: the $t thread's $n x $c bytes of thread_main carry a thread label"
done

# jeprof (perl, jemalloc's own reader) agrees on the totals.
total()
{
	awk '{ s += $NF } END { print s + 0 }' "$1"
}
if command -v jeprof >/dev/null 2>&1; then
	for col in inuse alloc; do
		(cd "$fix" && jeprof --text --show_bytes "--${col}_space" ./jefixture \
			"$tmp/exact.heap") >"$tmp/jeprof.$col" 2>/dev/null
		j=$(sed -n 's/^Total: \([0-9]*\) B$/\1/p' "$tmp/jeprof.$col")
		s=$(total "$tmp/exact.$col.folded")
		[ -n "$j" ] && [ "$j" -eq "$s" ]
		sp_ok $? "jeprof agrees on the ${col}_space total (jeprof ${j:-none}, symprof $s)"
	done
else
	sp_skip "jeprof not installed"
fi

# pprof output read back by go tool pprof, names and thread labels included.
sp_run symprof convert --demangle templates "$tmp/exact.heap" -o "$tmp/exact.pb.gz"
sp_ok "$rc" "convert -o exact.pb.gz exits 0" || sp_show_err
if sp_have_go; then
	sp_run sp_gopprof -raw -symbolize=none "$tmp/exact.pb.gz"
	sp_ok "$rc" "go tool pprof -raw reads exact.pb.gz" || sp_show_err
	for f in jefix::alloc_in_main 'jefix::fill<int>' 'jefix::fill<double>' jefix::outer \
		jefix::middle jefix::inner_leaf jefix::thread_main jefix::big_alloc \
		fixshared::shared_alloc fixplugin::plugin_work plugin_entry; do
		grep -Fq -- " $f " "$tmp/out"
		sp_ok $? "exact.pb.gz: go tool pprof -raw shows $f"
	done
	grep -q 'thread:\[' "$tmp/out"
	sp_ok $? "exact.pb.gz: samples carry thread labels"
	c=$(class_of temp_alloc)
	grep -Eq "^ +0 +0 +3 +$((3 * c)): " "$tmp/out" && grep -Fq ' jefix::temp_alloc ' "$tmp/out"
	sp_ok $? "exact.pb.gz: temp_alloc 0 in use, 3 x $c allocated (go tool pprof -raw)"
else
	sp_skip "go not installed: pprof output not read back"
fi

# Without prof_accum the allocated columns are absent, and info says why.
sp_run symprof info "$tmp/noaccum.heap"
grep -q '^  sample types: inuse_objects/count inuse_space/bytes (default)$' "$tmp/out" &&
	grep -q '^  comment: .*without prof_accum:true' "$tmp/out"
sp_ok $? "no prof_accum: in-use columns only, and a comment saying why"
sp_run symprof convert --demangle templates --sample-index alloc_space "$tmp/noaccum.heap"
[ "$rc" -ne 0 ] && grep -q 'alloc_space' "$tmp/err"
sp_ok $? "no prof_accum: --sample-index alloc_space is refused"
sp_run symprof convert --demangle templates "$tmp/noaccum.heap" -o "$tmp/noaccum.folded"
n=$(site big_alloc 3)
sp_expect_suffix "$tmp/noaccum.folded" "$main;jefix::big_alloc $((n * $(class_of big_alloc)))" \
	"no prof_accum: big_alloc in use"

# Default sampling (every 512 KiB on average): bulk_alloc's 64 MiB in 8 KiB blocks is
# about 128 samples, so the unsampled estimate is within 40% (more than 4 standard
# deviations); jeprof, which keeps fractions, agrees on the total within one byte per
# stack.
sp_run symprof convert --demangle templates "$tmp/sampled.heap" -o "$tmp/sampled.folded"
sp_ok "$rc" "convert the sampled dump exits 0" || sp_show_err
sp_run symprof info "$tmp/sampled.heap"
grep -q '^  period: 524288 space/bytes$' "$tmp/out"
sp_ok $? "sampled: period 524288"
want=$(($(site bulk_alloc 3) * $(class_of bulk_alloc)))
got=$(awk -v s="$main;jefix::bulk_alloc" '{
		stack = substr($0, 1, length($0) - length($NF) - 1)
		if (substr(stack, length(stack) - length(s) + 1) == s) print $NF
	}' "$tmp/sampled.folded")
[ -n "$got" ] && [ "$got" -ge $((want * 6 / 10)) ] && [ "$got" -le $((want * 14 / 10)) ]
sp_ok $? "sampled: bulk_alloc about $want bytes (got ${got:-nothing})"
sp_check "sampled: no allocator frame" sh -c "! grep -Eq '$alloc_rx' '$tmp/sampled.folded'"
if command -v jeprof >/dev/null 2>&1; then
	(cd "$fix" && jeprof --text --show_bytes ./jefixture "$tmp/sampled.heap") \
		>"$tmp/jeprof.sampled" 2>/dev/null
	j=$(sed -n 's/^Total: \([0-9]*\) B$/\1/p' "$tmp/jeprof.sampled")
	s=$(total "$tmp/sampled.folded")
	stacks=$(grep -c '^@' "$tmp/sampled.heap")
	[ -n "$j" ] && [ $((j - s)) -ge 0 ] && [ $((j - s)) -le $((2 * stacks)) ]
	sp_ok $? "sampled: jeprof's total ${j:-none} = symprof's $s + truncated fractions"
fi

# A stripped executable whose debug info is in a build-id tree: the same frames and values
# (jeprof names every frame of such a binary after a libc symbol it imports).
bid=$(readelf -n "$fix/jefixture" | sed -n 's/^ *Build ID: *//p')
bdir=$tmp/bt/.build-id/$(printf '%s' "$bid" | cut -c1-2)
if ! { mkdir -p "$bdir" &&
	objcopy --only-keep-debug "$fix/jefixture" "$bdir/$(printf '%s' "$bid" | cut -c3-).debug" &&
	objcopy --strip-all "$fix/jefixture" "$fix/jestripped"; }; then
	sp_bail "cannot strip jefixture"
fi
(cd "$fix" && env MALLOC_CONF=prof:true,prof_accum:true,lg_prof_sample:0 \
	FIXTURE_JE_DUMP="$tmp/stripped.heap" ./jestripped) >/dev/null 2>&1 ||
	sp_bail "no dump of the stripped executable"
sp_run symprof convert --demangle templates --debug-dir "$tmp/bt" --debug-dir /usr/lib/debug "$tmp/stripped.heap" \
	-o "$tmp/stripped.folded"
sp_ok "$rc" "stripped: convert with the build-id tree exits 0" || sp_show_err
while read -r suffix name; do
	n=$(site "$name" 3)
	c=$(class_of "$name")
	sp_expect_suffix "$tmp/stripped.folded" "$suffix $((n * c))" "stripped: $name $n x $c bytes"
done <<EOF
$sites
EOF
sp_run symprof convert --addresses --demangle templates "$tmp/stripped.heap" -o "$tmp/nodebug.folded"
sp_check "stripped, no debug info: the executable's frames stay jestripped+0xOFFSET, none named stderr" \
	sh -c "! grep -q 'stderr' '$tmp/nodebug.folded' && grep -q ';jestripped+0x[0-9a-f]* [0-9]*\$' '$tmp/nodebug.folded'"

# prof_final (and prof_leak) at exit, prof_gdump on every new high-water mark.
(cd "$fix" && env MALLOC_CONF="prof:true,prof_accum:true,lg_prof_sample:0,prof_final:true,prof_leak:true,prof_prefix:$tmp/final" \
	./jefixture) >/dev/null 2>"$tmp/final.stderr"
set -- "$tmp"/final.*.f.heap
sp_check "prof_final wrote one dump" test -f "$1"
grep -q 'Leak' "$tmp/final.stderr"
sp_ok $? "prof_leak reported at exit"
sp_run symprof convert --demangle templates --sample-index inuse_space "$1"
sp_ok "$rc" "convert the prof_final dump exits 0" || sp_show_err
n=$(site big_alloc 3)
sp_expect_suffix "$tmp/out" "$main;jefix::big_alloc $((n * $(class_of big_alloc)))" \
	"prof_final: big_alloc still in use at exit"
(cd "$fix" && env MALLOC_CONF="prof:true,lg_prof_sample:0,prof_gdump:true,prof_prefix:$tmp/gdump" \
	FIXTURE_JE_NO_BULK=1 ./jefixture) >/dev/null 2>&1
ok=0 seen=0
for f in "$tmp"/gdump.*.u*.heap; do
	[ -f "$f" ] || continue
	seen=$((seen + 1))
	sp_symprof convert --demangle templates "$f" -o "$f.folded" 2>/dev/null || ok=1
done
[ "$seen" -gt 0 ] && [ "$ok" -eq 0 ]
sp_ok $? "prof_gdump: all $seen dumps convert"

sp_done
