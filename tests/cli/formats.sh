#!/bin/sh
# cli_formats.sh — every legacy input format through `symprof convert`, and batches.
#
# Inputs are written here from the examples of the spec (FORMATS.md): the CPU profile of
# 3 in its four word-size / byte-order variants, contention (2.3), thread (2.4) and Go
# count (2.5) profiles, raw address stacks (docs/raw-stacks.md) of a small program built
# here, with the map inside the file or given with --maps, with kernel frames named from
# a kallsyms copy, and folded stacks.  Expected values are the spec's; where google/pprof
# reads the format, `go tool pprof -raw` of symprof's pprof agrees sample by sample with
# `go tool pprof -raw -symbolize=none` of the original file.  Then merges (values summed,
# kinds checked) and --each (one output per input).
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"
. "$SP_SRCDIR/tests/cli/samples.sh"

# folded_is FILE EXPECTED DESCRIPTION: FILE holds exactly the lines of EXPECTED.
folded_is()
{
	printf '%s\n' "$2" >"$tmp/want"
	if cmp -s "$tmp/want" "$1"; then
		sp_ok 0 "$3"
	else
		sp_ok 1 "$3"
		diff "$tmp/want" "$1" | head -n 10 | sed 's/^/#   /'
	fi
}

# convert_to WHAT INPUT OUTPUT OPTIONS...: one TAP case for the exit status.
convert_to()
{
	cv_what=$1 cv_in=$2 cv_out=$3
	shift 3
	sp_run symprof convert -q "$@" "$cv_in" -o "$cv_out"
	sp_ok "$rc" "$cv_what: convert -o $(basename "$cv_out") exits 0" || sp_show_err
}

go_agrees()
{
	if sp_have_go; then
		sp_same_samples "$@"
	else
		sp_skip "go not installed: $1 not compared with go tool pprof"
	fi
}

map_line='00400000-00404000 r-xp 00000000 08:01 1234 /usr/bin/prog'

# --- CPU profiles (spec 3 worked example) in the four variants -------------------------
# 0 3 0 10000 0 | 5 3 0x401005 0x402010 0x403020 | 2 2 0x401006 0x401006 | 0 1 0 + map
# -> [5, 50000000] @ 0x401005 0x40200f 0x40301f and [2, 20000000] @ 0x401006.
python3 - "$tmp" "$map_line" <<'EOF' || sp_bail "cannot write the CPU profiles"
import struct, sys
words = [0, 3, 0, 10000, 0, 5, 3, 0x401005, 0x402010, 0x403020,
         2, 2, 0x401006, 0x401006, 0, 1, 0]
for name, fmt in (("le64", "<Q"), ("be64", ">Q"), ("le32", "<I"), ("be32", ">I")):
    with open(f"{sys.argv[1]}/cpu_{name}.prof", "wb") as f:
        f.write(b"".join(struct.pack(fmt, w) for w in words))
        f.write(sys.argv[2].encode() + b"\n")
EOF
cpu_ns='prog+0x1006 20000000
prog+0x301f;prog+0x200f;prog+0x1005 50000000'
cpu_count='prog+0x1006 2
prog+0x301f;prog+0x200f;prog+0x1005 5'
for v in le64 be64 le32 be32; do
	convert_to "CPU $v" "$tmp/cpu_$v.prof" "$tmp/cpu_$v.folded" --no-symbolize \
		--sample-index cpu
	folded_is "$tmp/cpu_$v.folded" "$cpu_ns" "CPU $v: cpu/nanoseconds as in spec 3"
	convert_to "CPU $v" "$tmp/cpu_$v.prof" "$tmp/cpu_$v.n.folded" --no-symbolize
	folded_is "$tmp/cpu_$v.n.folded" "$cpu_count" \
		"CPU $v: folded by default counts samples, as in spec 3"
	convert_to "CPU $v" "$tmp/cpu_$v.prof" "$tmp/cpu_$v.pb.gz"
	go_agrees "CPU $v" "$tmp/cpu_$v.prof" "$tmp/cpu_$v.pb.gz"
done

# --- contention (spec 2.3): 19490304 cycles, 27, period 100, 3.201 GHz -> [2700, 608881724]
cat >"$tmp/contention.txt" <<EOF
--- contentionz 1 ---
cycles/second = 3201000000
sampling period = 100
ms since reset = 6000
19490304 27 @ 0x401005 0x402010 0x403020
--- Memory map: ---
$map_line
EOF
convert_to contention "$tmp/contention.txt" "$tmp/contention.folded" --no-symbolize
folded_is "$tmp/contention.folded" 'prog+0x301f;prog+0x200f;prog+0x1004 608881724' \
	"contention: delay 608881724 ns, every frame moved back by 1 (spec 2.3, 2.7)"
convert_to contention "$tmp/contention.txt" "$tmp/contention.n.folded" --no-symbolize \
	--sample-index contentions
folded_is "$tmp/contention.n.folded" 'prog+0x301f;prog+0x200f;prog+0x1004 2700' \
	"contention: 27 contentions x period 100 = 2700"
convert_to contention "$tmp/contention.txt" "$tmp/contention.pb.gz"
go_agrees contention "$tmp/contention.txt" "$tmp/contention.pb.gz"
# "ms since reset = 6000" is the profile's duration: the top table's header says it
# as pprof does, with the delay's share of it (608881724 ns of 6 s).
sp_run symprof convert -q --no-symbolize --format top "$tmp/contention.txt"
grep -qx 'Duration: 6s, Total samples = 608.88ms (10.15%)' "$tmp/out"
sp_ok $? "contention: top header gives the duration and the delay's share" || sed 's/^/#   /' "$tmp/out"
if sp_have_go; then
	sed '/^Showing nodes/q' "$tmp/out" >"$tmp/ours.hdr"
	sp_gopprof -top -symbolize=none "$tmp/contention.txt" 2>/dev/null | sed '/^Showing nodes/q' >"$tmp/go.hdr"
	cmp -s "$tmp/ours.hdr" "$tmp/go.hdr"
	sp_ok $? "contention: top header lines as go tool pprof -top prints them" ||
		diff "$tmp/ours.hdr" "$tmp/go.hdr" | sed 's/^/#   /'
fi

# --- thread profile (spec 2.4): "same as previous thread" counts the stack again;
# the leaf (PC) stays, callers move back by 1.
cat >"$tmp/thread.txt" <<EOF
--- threadz 3 ---

--- Thread 7f12 (name: main/4711) stack: ---
  PC: 0x401005
  0x402010 0x403020
--- Thread 7f13 (name: worker/4712) stack: ---
  same as previous thread
--- Thread 7f14 (name: io/4713) stack: ---
  PC: 0x401200
--- Memory map: ---
$map_line
EOF
convert_to thread "$tmp/thread.txt" "$tmp/thread.folded" --no-symbolize
folded_is "$tmp/thread.folded" 'prog+0x1200 1
prog+0x301f;prog+0x200f;prog+0x1005 2' "thread: one count per thread, the repeated stack twice"
convert_to thread "$tmp/thread.txt" "$tmp/thread.pb.gz"
go_agrees thread "$tmp/thread.txt" "$tmp/thread.pb.gz"

# --- Go count profile (spec 2.5): every frame moved back by 1.
cat >"$tmp/goroutine.txt" <<EOF
goroutine profile: total 5
3 @ 0x401005 0x402010
2 @ 0x401100
--- Memory map: ---
$map_line
EOF
convert_to goroutine "$tmp/goroutine.txt" "$tmp/goroutine.folded" --no-symbolize
folded_is "$tmp/goroutine.folded" 'prog+0x10ff 2
prog+0x200f;prog+0x1004 3' "goroutine: counts 3 and 2, frames moved back by 1"
convert_to goroutine "$tmp/goroutine.txt" "$tmp/goroutine.pb.gz"
if sp_have_go; then
	sp_run sp_gopprof -raw "$tmp/goroutine.pb.gz"
	grep -q '^goroutine/count' "$tmp/out"
	sp_ok $? "goroutine: sample type goroutine/count"
fi
go_agrees goroutine "$tmp/goroutine.txt" "$tmp/goroutine.pb.gz"

# --- unsymbolized pprof input (what an eBPF agent writes): symprof's own
# --no-symbolize output read back.
convert_to "pprof input" "$tmp/cpu_le64.prof" "$tmp/unsym.pb.gz" --no-symbolize
convert_to "pprof input" "$tmp/unsym.pb.gz" "$tmp/unsym.folded" --no-symbolize --sample-index cpu
folded_is "$tmp/unsym.folded" "$cpu_ns" "pprof input: the CPU example's values"
convert_to "pprof input" "$tmp/unsym.pb.gz" "$tmp/unsym2.pb.gz"
go_agrees "pprof input" "$tmp/unsym.pb.gz" "$tmp/unsym2.pb.gz"

# --- raw address stacks of a real program --------------------------------------------
cat >"$tmp/prog.c" <<'EOF'
__attribute__((noinline)) int leaf_fn(int x) { return x * 3 + 1; }
__attribute__((noinline)) int mid_fn(int x) { return leaf_fn(x) + 2; }
int main(int argc, char **argv) { (void)argv; return mid_fn(argc); }
EOF
${CC:-cc} -O1 -g -fno-pie -no-pie -o "$tmp/prog" "$tmp/prog.c" 2>"$tmp/err" ||
	{ sp_show_err; sp_bail "cannot build the raw-stacks program"; }
sym() { nm "$tmp/prog" | awk -v n="$1" '$3 == n { print $1 }'; }
leaf=$((0x$(sym leaf_fn))) mid=$((0x$(sym mid_fn))) main=$((0x$(sym main)))
# The leaf is kept; callers are return addresses (+2 here), moved back by 1 into the
# function.  Kernel frames (leaf first) above mid_fn name kallsyms entries.
printf '# symprof raw stacks v1\nsample_type: samples/count\naddresses: return\n' \
	>"$tmp/raw_nomap.txt"
printf '3 @ 0x%x 0x%x 0x%x\n2 @ 0x%x 0x%x\n1 @ 0xffffffff81000110 0xffffffff81000210 0x%x 0x%x\n' \
	$((leaf + 1)) $((mid + 2)) $((main + 2)) $((mid + 1)) $((main + 2)) \
	$((mid + 2)) $((main + 2)) >>"$tmp/raw_nomap.txt"
printf '00400000-00401000 r--p 00000000 08:01 1 %s\n00401000-00402000 r-xp 00001000 08:01 1 %s\n' \
	"$tmp/prog" "$tmp/prog" >"$tmp/maps.txt"
{ cat "$tmp/raw_nomap.txt"; echo '--- Memory map: ---'; cat "$tmp/maps.txt"; } >"$tmp/raw.txt"
printf '%s\n' 'ffffffff81000000 T _stext' 'ffffffff81000100 T do_syscall_64' \
	'ffffffff81000200 T entry_SYSCALL_64' 'ffffffff81000300 t local_fn' >"$tmp/kallsyms"

raw_user='main;mid_fn 2
main;mid_fn;0xffffffff8100020f;0xffffffff81000110 1
main;mid_fn;leaf_fn 3'
convert_to "raw, map in the file" "$tmp/raw.txt" "$tmp/raw.folded"
folded_is "$tmp/raw.folded" "$raw_user" "raw, map in the file: user frames named, values summed"
convert_to "raw, --maps FILE" "$tmp/raw_nomap.txt" "$tmp/raw_maps.folded" --maps "$tmp/maps.txt"
folded_is "$tmp/raw_maps.folded" "$raw_user" "raw, --maps FILE: the same stacks as with the map inside"
convert_to "raw, no map" "$tmp/raw_nomap.txt" "$tmp/raw_none.folded"
folded_is "$tmp/raw_none.folded" "$(printf '0x%x;0x%x 2\n0x%x;0x%x;0x%x 3\n0x%x;0x%x;0xffffffff8100020f;0xffffffff81000110 1' \
	$((main + 1)) $((mid + 1)) $((main + 1)) $((mid + 1)) $((leaf + 1)) $((main + 1)) $((mid + 1)))" \
	"raw, no map: addresses only, callers moved back by 1"
convert_to "raw, --kallsyms" "$tmp/raw.txt" "$tmp/raw_k.folded" --kallsyms "$tmp/kallsyms"
folded_is "$tmp/raw_k.folded" 'main;mid_fn 2
main;mid_fn;entry_SYSCALL_64;do_syscall_64 1
main;mid_fn;leaf_fn 3' "raw, --kallsyms: kernel frames named"
convert_to "raw, --kallsyms --annotate" "$tmp/raw.txt" "$tmp/raw_ka.folded" \
	--kallsyms "$tmp/kallsyms" --annotate
folded_is "$tmp/raw_ka.folded" 'main;mid_fn 2
main;mid_fn;entry_SYSCALL_64_[k];do_syscall_64_[k] 1
main;mid_fn;leaf_fn 3' "raw, --kallsyms --annotate: kernel frames end in _[k], user frames unmarked"
# Kernel addresses lie outside the recorded map: their mapping is the placeholder, which
# takes the kernel's name once kallsyms named them (not "[jit]").
sp_run symprof convert -q --kallsyms "$tmp/kallsyms" --format raw "$tmp/raw.txt"
kmap=$(awk '/ do_syscall_64 / { for (i = 1; i <= NF; i++) if ($i ~ /^M=/) print substr($i, 3) }' "$tmp/out")
[ -n "$kmap" ] && grep -Eq "^$kmap: 0x0/0xffffffffffffffff/0x0 \[kernel\.kallsyms\]" "$tmp/out" &&
	! grep -Fq '[jit]' "$tmp/out"
sp_ok $? "raw, --kallsyms: kernel frames in a [kernel.kallsyms] mapping" || sed 's/^/#   /' "$tmp/out"
convert_to "raw, --kallsyms" "$tmp/raw.txt" "$tmp/raw_k.pb.gz" --kallsyms "$tmp/kallsyms"
if sp_have_go; then
	sp_run sp_gopprof -raw "$tmp/raw_k.pb.gz"
	grep -Fq ' do_syscall_64 ' "$tmp/out" && grep -Fq ' leaf_fn ' "$tmp/out"
	sp_ok $? "raw, --kallsyms: go tool pprof reads kernel and user names from our pprof" ||
		sp_show_err
fi

# --- folded input: folded -> pprof -> folded keeps every stack and value -------------
printf '%s\n' 'main;run;work 30' 'main;(anonymous namespace)::parse 12' 'main;run;work 5' \
	'std::thread::run;worker<int>::loop 7' >"$tmp/in.folded"
convert_to "folded input" "$tmp/in.folded" "$tmp/in.pb.gz"
convert_to "folded input" "$tmp/in.pb.gz" "$tmp/back.folded"
folded_is "$tmp/back.folded" 'main;(anonymous namespace)::parse 12
main;run;work 35
std::thread::run;worker<int>::loop 7' "folded -> pprof -> folded: same stacks, duplicates summed"
if sp_have_go; then
	sp_run sp_gopprof -raw "$tmp/in.pb.gz"
	grep -Fq '(worker<int>::loop)' "$tmp/out" && grep -Eq '^ +35: ' "$tmp/out"
	sp_ok $? "folded -> pprof: go tool pprof reads the names and the summed 35"
fi

# --- merging -------------------------------------------------------------------------
# Four CPU files merged: the sum of their separate conversions (here 4 x the example).
sp_run symprof convert -q "$tmp/cpu_le64.prof" "$tmp/cpu_be64.prof" "$tmp/cpu_le32.prof" \
	"$tmp/cpu_be32.prof" -o "$tmp/merged.pb.gz"
sp_ok "$rc" "merge of four CPU profiles exits 0" || sp_show_err
convert_to merged "$tmp/merged.pb.gz" "$tmp/merged.folded" --no-symbolize --sample-index cpu
cat "$tmp/cpu_le64.folded" "$tmp/cpu_be64.folded" "$tmp/cpu_le32.folded" "$tmp/cpu_be32.folded" |
	awk '{ v = $NF; s = $0; sub(/ [0-9]+$/, "", s); sum[s] += v }
		END { for (s in sum) print s, sum[s] }' | LC_ALL=C sort >"$tmp/sum.folded"
folded_is "$tmp/merged.folded" "$(cat "$tmp/sum.folded")" \
	"merged values = sum of the four separate conversions"
folded_is "$tmp/merged.folded" 'prog+0x1006 80000000
prog+0x301f;prog+0x200f;prog+0x1005 200000000' "merged values = 4 x spec 3's"
if sp_have_go; then
	sp_run sp_gopprof -raw "$tmp/merged.pb.gz"
	grep -Eq '^ +20 +200000000: ' "$tmp/out" && grep -Eq '^ +8 +80000000: ' "$tmp/out"
	sp_ok $? "merged: go tool pprof reads [20, 200000000] and [8, 80000000]"
fi
# Symbolized inputs: the same raw file twice merges into doubled named stacks.
cp "$tmp/raw.txt" "$tmp/raw2.txt"
sp_run symprof convert -q "$tmp/raw.txt" "$tmp/raw2.txt" -o "$tmp/raw_merged.folded"
folded_is "$tmp/raw_merged.folded" 'main;mid_fn 4
main;mid_fn;0xffffffff8100020f;0xffffffff81000110 2
main;mid_fn;leaf_fn 6' "merge of two raw files: named stacks, values doubled"
# Different kinds: a clear error naming both files, exit 1, nothing written.
sp_run symprof convert -q "$tmp/cpu_le64.prof" "$tmp/contention.txt" -o "$tmp/mixed.pb.gz"
[ "$rc" -eq 1 ] && grep -q 'contention.txt: cannot merge with .*cpu_le64.prof: profile kinds differ' "$tmp/err" &&
	grep -Fq 'contentions/count' "$tmp/err" && grep -Fq 'samples/count cpu/nanoseconds' "$tmp/err"
sp_ok $? "merge of CPU and contention: exit 1, error names both files and kinds" || sp_show_err
[ ! -e "$tmp/mixed.pb.gz" ]
sp_ok $? "merge of CPU and contention: no output written"

# --- --each ----------------------------------------------------------------------------
mkdir "$tmp/each" "$tmp/eachf"
inputs="cpu_le64.prof cpu_be32.prof contention.txt thread.txt goroutine.txt raw.txt"
set --
for f in $inputs; do set -- "$@" "$tmp/$f"; done
sp_run symprof convert -q --each -o "$tmp/each" "$@"
sp_ok "$rc" "--each -o DIR over six inputs of five kinds exits 0" || sp_show_err
[ "$(ls "$tmp/each" | wc -l)" -eq 6 ]
sp_ok $? "--each: one output per input ($(ls "$tmp/each" | wc -l) files)"
for f in $inputs; do
	sp_run symprof convert -q "$tmp/$f" -o "$tmp/alone.pb.gz"
	cmp -s "$tmp/each/$f.pb.gz" "$tmp/alone.pb.gz"
	sp_ok $? "--each: $f.pb.gz is what converting $f alone writes"
done
sp_run symprof convert -q --each --format folded -o "$tmp/eachf" "$@"
n_folded=0
for f in $inputs; do [ -s "$tmp/eachf/$f.folded" ] && n_folded=$((n_folded + 1)); done
[ "$n_folded" -eq 6 ] && [ "$(ls "$tmp/eachf" | wc -l)" -eq 6 ]
sp_ok $? "--each --format folded writes the six NAME.folded files (got $n_folded)"
cmp -s "$tmp/eachf/raw.txt.folded" "$tmp/raw.folded"
sp_ok $? "--each --format folded: raw.txt.folded as converted alone"
mkdir "$tmp/a" "$tmp/b" "$tmp/clash"
cp "$tmp/cpu_le64.prof" "$tmp/a/x.prof"
cp "$tmp/cpu_be32.prof" "$tmp/b/x.prof"
sp_run symprof convert -q --each -o "$tmp/clash" "$tmp/a/x.prof" "$tmp/b/x.prof"
[ "$rc" -eq 2 ] && grep -q 'would both be written' "$tmp/err" && [ -z "$(ls -A "$tmp/clash")" ]
sp_ok $? "--each: two inputs with one output name are refused before any is written"
sp_run symprof convert -q --each -o "$tmp/cpu_le64.prof" "$tmp/cpu_le64.prof"
[ "$rc" -eq 2 ] && grep -q 'is not a directory' "$tmp/err"
sp_ok $? "--each -o NOT-A-DIRECTORY: usage error"

sp_done
