#!/bin/sh
# compare-pipeline.sh OLD NEW — runs two symprof binaries over the same
# inputs and compares every output byte for byte (stdout, stderr, exit
# status, written files).  Prints one line per case, "same" or "DIFF",
# and exits 1 when any case differs.
#
# Inputs, all made here from the sources (nothing but OLD and NEW is
# needed besides gcc/g++, nm, readelf and objcopy):
#   - testdata/profiles/*: convert to pprof, folded (with and without
#     --annotate), raw, top, dot and flamegraph; `info`;
#   - raw-stacks profiles over fixture binaries built here (PIE, non-PIE,
#     a shared library), a stripped copy, a file that is not there,
#     kernel addresses with --kallsyms, JIT code with --jit-dir and
#     --perf-map: every format, `info`, merges of two inputs and --each;
#   - `symprof symbolize` over large address lists of the fixtures with
#     -a, -C, --demangle=STYLE, --json, --relative, arguments instead of
#     stdin, and the JIT, perf-map and kallsyms sources.
# SRCDIR (default: the tree this script is in) locates the sources;
# SIZE (default 300000) is the length of the big address lists.
set -u
old=${1:?usage: compare-pipeline.sh OLD NEW}
new=${2:?usage: compare-pipeline.sh OLD NEW}
src=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
size=${SIZE:-300000}
for b in "$old" "$new"; do
	[ -x "$b" ] || { echo "compare-pipeline.sh: $b is not executable" >&2; exit 2; }
done
tmp=$(mktemp -d /tmp/sp-compare-XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
ndiff=0 ncase=0

# run NAME ARGS...: one case; "@OUT" in ARGS names a per-binary output
# file, "@DIR" a per-binary directory; stdin from $stdin (default none).
stdin=/dev/null
run() {
	name=$1
	shift
	for side in old new; do
		eval "bin=\$$side"
		d="$tmp/run.$side"
		rm -rf "$d"
		mkdir -p "$d/dir"
		args=""
		for a in "$@"; do
			case $a in
			@OUT) a="$tmp/out" ;;
			@DIR) a="$tmp/outdir" ;;
			esac
			args="$args $(printf "'%s'" "$a")"
		done
		rm -rf "$tmp/out" "$tmp/outdir"
		mkdir "$tmp/outdir"
		eval "\"\$bin\" $args" <"$stdin" >"$d/stdout" 2>"$d/stderr"
		echo "$?" >"$d/rc"
		[ -e "$tmp/out" ] && cp "$tmp/out" "$d/out"
		cp -r "$tmp/outdir/." "$d/dir/"
	done
	ncase=$((ncase + 1))
	if diff -r "$tmp/run.old" "$tmp/run.new" >/dev/null; then
		echo "same  $name"
	else
		echo "DIFF  $name"
		ndiff=$((ndiff + 1))
	fi
}

# -- hand-written profiles ----------------------------------------------------
for p in "$src"/testdata/profiles/*; do
	case $p in */README) continue ;; esac
	b=$(basename "$p")
	for f in pprof folded raw top dot flamegraph; do
		run "convert $b --format $f" convert "$p" --format "$f" -o @OUT
	done
	run "convert $b --annotate" convert --annotate "$p" --format folded
	run "convert $b --no-symbolize raw" convert --no-symbolize "$p" --format raw
	run "info $b" info "$p"
done

# -- fixture binaries -----------------------------------------------------------
fx="$tmp/fx"
mkdir -p "$fx"
cat >"$fx/lib.c" <<'EOF'
__attribute__((noinline)) long lib_leaf(long x) { return x * 7 + 1; }
__attribute__((noinline)) long lib_mid(long x) { return lib_leaf(x) + lib_leaf(x + 1); }
EOF
g++ -O2 -g -Wl,--build-id -o "$fx/pie" "$src/testdata/src/symbolize/fixture.cc" &&
	g++ -O2 -g -no-pie -Wl,--build-id -o "$fx/exec" "$src/testdata/src/symbolize/fixture.cc" &&
	gcc -O2 -g -shared -fPIC -Wl,--build-id -o "$fx/libx.so" "$fx/lib.c" &&
	gcc -c -g -O2 -ffunction-sections -o "$fx/jit.o" "$src/testdata/src/jit/jitfuncs.c" ||
	{ echo "compare-pipeline.sh: fixtures do not compile" >&2; exit 2; }
strip -o "$fx/pie-stripped" "$fx/pie"

# function entries (symbol-file addresses) of an ELF: "ADDR SIZE"
funcs() { nm -S --defined-only "$1" | awk 'NF == 4 && $3 ~ /^[tTwW]$/ {print $1, $2}'; }
funcs "$fx/pie" >"$fx/pie.funcs"
funcs "$fx/exec" >"$fx/exec.funcs"
funcs "$fx/libx.so" >"$fx/lib.funcs"

# JIT object: its code sections placed at run-time addresses, .elf + .meta.
mkdir -p "$fx/jd"
jitbase=$((0x7f5500000000))
set --
i=0
meta="{\"sections\":["
sep=""
for s in $(readelf -SW "$fx/jit.o" | sed -n 's/^ *\[ *[0-9]*\] \(\.text\.[a-z_]*\) .*/\1/p'); do
	a=$((jitbase + i * 0x1000))
	set -- "$@" --change-section-address "$s=$a"
	sz=$(readelf -SW "$fx/jit.o" | awk -v n="$s" '{for (k = 1; k <= NF; k++) if ($k == n) print $(k + 4)}')
	meta="$meta$sep{\"name\":\"$s\",\"start\":$a,\"size\":$((0x$sz))}"
	sep=","
	i=$((i + 1))
done
objcopy "$@" "$fx/jit.o" "$fx/jd/obj.elf" 2>/dev/null
echo "$meta]}" >"$fx/jd/obj.meta"
jit_end=$((jitbase + i * 0x1000))

# perf map over the JIT range (names for its first half) and kallsyms.
printf '%x 40 perf_first\n%x 80 perf_second\n' $((jitbase + 0x10)) $((jitbase + 0x1000)) >"$fx/perf.map"
cat >"$fx/kallsyms" <<'EOF'
ffffffff81000000 T _stext
ffffffff81000100 T do_syscall_64
ffffffff81000400 t page_fault
ffffffff81001000 T schedule
ffffffffc0000000 t mod_func	[mymod]
EOF

# raw-stacks profiles: stacks of return addresses drawn from the fixtures
pie_load=$((0x555555554000))
lib_load=$((0x7f4400000000))
lib_seg=$(readelf -lW "$fx/libx.so" | awk '$1 == "LOAD" && / R E / {print $2, $3; exit}')
pie_seg=$(readelf -lW "$fx/pie" | awk '$1 == "LOAD" && / R E / {print $2, $3; exit}')
exec_seg=$(readelf -lW "$fx/exec" | awk '$1 == "LOAD" && / R E / {print $2, $3, $4; exit}')
mkprofile() { # OUT PIEPATH LIBPATH SEED
	python3 - "$fx" "$@" "$pie_load" "$lib_load" "$jitbase" "$jit_end" "$pie_seg" "$lib_seg" "$exec_seg" <<'PY'
import random, sys
fx, out, pie, lib, seed, pl, ll, jb, je = sys.argv[1:10]
pseg, lseg, eseg = (x.split() for x in sys.argv[10:13])
pl, ll, jb, je = int(pl), int(ll), int(jb), int(je)
def funcs(name, add):
    return [int(a, 16) + add(int(z, 16)) for a, z in (l.split() for l in open(f"{fx}/{name}.funcs"))]
pa = funcs("pie", lambda z: z // 2)
ea = funcs("exec", lambda z: z // 2)
la = funcs("lib", lambda z: 3)
rnd = random.Random(int(seed))
print("# symprof raw stacks v1\nsample_type: samples/count cpu/nanoseconds\n"
      "period: cpu/nanoseconds 10000000\naddresses: return", file=open(out, "w"))
with open(out, "a") as f:
    for s in range(400):
        line = f"{rnd.randint(1, 5)} {rnd.randint(1, 9)}0000000 @"
        for k in range(rnd.randint(1, 12)):
            r = rnd.random()
            if r < 0.45: a = pl + rnd.choice(pa)
            elif r < 0.6: a = ll + rnd.choice(la)
            elif r < 0.7: a = rnd.choice(ea)
            elif r < 0.8: a = rnd.randrange(jb, je)
            elif r < 0.87: a = 0xffffffff81000000 + rnd.randrange(0x1400)
            elif r < 0.9: a = 0xffffffffc0000010
            elif r < 0.95: a = 0x7f6600001000 + rnd.randrange(0x800)
            else: a = 0x10000 + rnd.randrange(0x100)
            line += f" {a:#x}"
        print(line, file=f)
    print("--- Memory map: ---", file=f)
    eo, ev = int(eseg[0], 16), int(eseg[1], 16)
    po, lo = int(pseg[0], 16), int(lseg[0], 16)
    print(f"{ev:x}-{ev + 0x100000:x} r-xp {eo:08x} 08:01 11 {fx}/exec", file=f)
    print(f"{pl + po:x}-{pl + po + 0x100000:x} r-xp {po:08x} 08:01 12 {pie}", file=f)
    print(f"{ll + lo:x}-{ll + lo + 0x10000:x} r-xp {lo:08x} 08:01 13 {lib}", file=f)
    print(f"{jb:x}-{je:x} r-xp 00000000 00:00 0", file=f)
    print("7f6600000000-7f6600002000 r-xp 00000000 00:00 0 /memfd:jit (deleted)", file=f)
PY
}
mkprofile "$fx/a.raw" "$fx/pie" "$fx/libx.so" 1
mkprofile "$fx/b.raw" "$fx/pie" "$fx/libx.so" 2
mkprofile "$fx/missing.raw" "$fx/no-such-file" "$fx/libx.so" 3
mkprofile "$fx/stripped.raw" "$fx/pie-stripped" "$fx/libx.so" 4
mkdir -p "$fx/bp"
cp "$fx/pie" "$fx/bp/pie-moved"
mkprofile "$fx/moved.raw" "/elsewhere/pie-moved" "$fx/libx.so" 5

srcs="--jit-dir $fx/jd --perf-map $fx/perf.map --kallsyms $fx/kallsyms"
for p in a missing stripped; do
	for f in pprof folded raw top dot flamegraph; do
		run "convert $p.raw --format $f" convert "$fx/$p.raw" --format "$f" -o @OUT
		# shellcheck disable=SC2086 # $srcs is a list of options
		run "convert $p.raw sources --format $f" convert $srcs "$fx/$p.raw" --format "$f" -o @OUT
	done
	# shellcheck disable=SC2086
	run "convert $p.raw sources --annotate" convert --annotate $srcs "$fx/$p.raw"
	run "convert $p.raw --annotate" convert --annotate "$fx/$p.raw"
	# shellcheck disable=SC2086
	run "info $p.raw sources" info $srcs "$fx/$p.raw"
	run "info $p.raw" info "$fx/$p.raw"
done
run "convert a.raw --perf-map only" convert --annotate --perf-map "$fx/perf.map" "$fx/a.raw"
run "convert a.raw --kallsyms only" convert --annotate --kallsyms "$fx/kallsyms" "$fx/a.raw"
run "convert a.raw --jit-dir only" convert --annotate --jit-dir "$fx/jd" "$fx/a.raw" -o @OUT --format pprof
run "convert a.raw --no-inline --demangle none" convert --no-inline --demangle none "$fx/a.raw"
run "convert a.raw --demangle full --lines top" convert --demangle full --lines --format top "$fx/a.raw"
run "convert moved.raw --binary-path" convert --binary-path "$fx/bp" "$fx/moved.raw" --format raw
run "convert moved.raw --path-map" convert --path-map "/elsewhere=$fx/bp" "$fx/moved.raw" --format raw
run "info moved.raw --sysroot" info --sysroot "$fx" "$fx/moved.raw"
# shellcheck disable=SC2086
run "convert merge a b sources" convert $srcs "$fx/a.raw" "$fx/b.raw" -o @OUT --format pprof
run "convert merge a b missing" convert "$fx/a.raw" "$fx/b.raw" "$fx/missing.raw" --format folded
# shellcheck disable=SC2086
run "convert --each a b stripped" convert --each $srcs "$fx/a.raw" "$fx/b.raw" "$fx/stripped.raw" -o @DIR --format folded
run "info a b missing" info "$fx/a.raw" "$fx/b.raw" "$fx/missing.raw"
run "convert raw-example --maps" convert --maps "$fx/a.raw" "$src/testdata/profiles/raw-example.txt" --format raw

# -- symprof symbolize ----------------------------------------------------------
# address lists: profile-like (hot addresses repeat), every byte of some
# functions, out-of-range and malformed lines mixed in
mklist() { # FUNCS OUT ADD SEED
	python3 - "$@" "$size" <<'PY'
import random, sys
funcs, out, add, seed, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
fs = [(int(a, 16), int(z, 16)) for a, z in (l.split() for l in open(funcs))]
rnd = random.Random(seed)
pool = [rnd.choice(fs)[0] + rnd.randrange(64) for _ in range(2000)]
with open(out, "w") as f:
    for i in range(n):
        r = rnd.random()
        if r < 0.7: a = pool[int(2000 * rnd.random() * rnd.random())]
        elif r < 0.98:
            s, z = rnd.choice(fs)
            a = s + rnd.randrange(z + 1)
        elif r < 0.99: a = 0x7fff0000 + rnd.randrange(100)
        else:
            f.write("garbage\n" if rnd.random() < 0.5 else f" 0X{fs[0][0]:X}\r\n")
            continue
        f.write(f"{a + add:#x}\n")
PY
}
mklist "$fx/pie.funcs" "$fx/pie.addrs" 0 1
mklist "$fx/exec.funcs" "$fx/exec.addrs" 0 2
set -- $exec_seg
mklist "$fx/exec.funcs" "$fx/exec.rel" $(($1 - $2)) 3
python3 - "$fx" "$jitbase" "$jit_end" "$size" <<'PY'
import random, sys
fx, jb, je, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
pie = open(f"{fx}/pie.addrs").read().splitlines()
rnd = random.Random(4)
with open(f"{fx}/mixed.addrs", "w") as f:
    for i in range(n // 3):
        r = rnd.random()
        if r < 0.2: f.write(f"{rnd.randrange(jb, je):#x}\n")
        elif r < 0.3: f.write(f"{0xffffffff81000000 + rnd.randrange(0x1400):#x}\n")
        else: f.write(pie[(i * 7919) % len(pie)] + "\n")
PY

sym() { # NAME LIST ARGS...
	name=$1 stdin=$2
	shift 2
	run "symbolize $name" symbolize "$@"
	stdin=/dev/null
}
for opts in "" "-a" "-C" "-a -C" "--demangle=templates" "--json" "--json -C" "-a --cache-max=4096"; do
	# shellcheck disable=SC2086 # $opts is a list of options
	sym "pie $opts" "$fx/pie.addrs" -e "$fx/pie" $opts
done
sym "exec -a" "$fx/exec.addrs" -e "$fx/exec" -a
sym "exec --relative -a" "$fx/exec.rel" -e "$fx/exec" --relative -a
sym "exec --relative --json" "$fx/exec.rel" -e "$fx/exec" --relative --json
sym "pie --relative -a -C" "$fx/pie.addrs" -e "$fx/pie" --relative -a -C
sym "lib --relative" "$fx/pie.addrs" -e "$fx/libx.so" --relative
sym "stripped -a" "$fx/pie.addrs" -e "$fx/pie-stripped" -a
# shellcheck disable=SC2086
sym "mixed sources -e pie -a -C" "$fx/mixed.addrs" $srcs -e "$fx/pie" -a -C
# shellcheck disable=SC2086
sym "mixed sources --json" "$fx/mixed.addrs" $srcs --json
sym "mixed --jit-dir -a" "$fx/mixed.addrs" --jit-dir "$fx/jd" -a
sym "mixed --perf-map -a" "$fx/mixed.addrs" --perf-map "$fx/perf.map" -a
sym "mixed --kallsyms -e pie" "$fx/mixed.addrs" --kallsyms "$fx/kallsyms" -e "$fx/pie"
sym "--binary-path -e pie-moved" "$fx/pie.addrs" --binary-path "$fx/bp" -e /elsewhere/pie-moved -a
sym "--path-map" "$fx/pie.addrs" --path-map "/elsewhere=$fx/bp" -e /elsewhere/pie-moved
first=$(head -1 "$fx/pie.funcs" | cut -d' ' -f1)
sym "arguments" /dev/null -e "$fx/pie" -a "0x$first" "$first" zz 0x7fff00000000
sym "--relative without -e" /dev/null --jit-dir "$fx/jd" --relative 0x10
sym "missing -e" /dev/null -e "$fx/no-such-file" 0x10
sym "missing --jit-dir" /dev/null --jit-dir "$fx/no-such-dir" 0x10

echo "$ncase cases, $ndiff differ"
[ "$ndiff" = 0 ]
