#!/bin/sh
# compare-builds.sh OLD_SYMPROF NEW_SYMPROF — the two binaries must give
# byte-identical output over the same inputs.  Prints one line per case
# ("same" or "DIFFERENT", with the case's name) and exits 1 on any
# difference.
#
# Cases:
#   - `symbolize` of every address of .text of each target, with several
#     option sets (the forms of addr2line, eu-addr2line and llvm-symbolizer:
#     OLD must know them, as main does since they came), and of lines that
#     name symbols and sections.  Targets: the fixtures of
#     testdata/src/fixture (built here with testdata/src/fixture/build.sh),
#     testdata/src/symbolize/fixture.cc built -O2
#     with g++ as DWARF 4 and 5 and with clang++ as DWARF 5, and a copy of
#     NEW_SYMPROF itself (a large C program with libdw's DWARF 5);
#   - `convert` of every profile in testdata/profiles (symbolization finds
#     nothing there: this checks the readers and writers), and of raw
#     stacks drawn from the fixtures' .text with a memory map naming them,
#     to pprof, folded (plain and annotated), raw and top, with the
#     symbolization options.
#
# Environment: KEEP=1 keeps the work directory (its path is printed);
# STEP=N takes every Nth address of .text instead of every one;
# TARGETS="FILE..." adds ELF files to symbolize (e.g. the test programs
# under build/tests).
set -u
old=${1:?usage: compare-builds.sh OLD_SYMPROF NEW_SYMPROF}
new=${2:?usage: compare-builds.sh OLD_SYMPROF NEW_SYMPROF}
top=$(cd "$(dirname "$0")/.." && pwd)
step=${STEP:-1}
work=$(mktemp -d "${TMPDIR:-/tmp}/compare-builds.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then
	echo "work directory: $work"
else
	trap 'rm -rf "$work"' EXIT
fi
bad=0

# run CASE ARGS... — runs both binaries with ARGS (stdin from $work/in when
# present), compares stdout, stderr and the exit status.
run() {
	name=$1
	shift
	for which in old new; do
		eval "bin=\$$which"
		if [ -f "$work/in" ]; then
			"$bin" "$@" <"$work/in" >"$work/$which.out" 2>"$work/$which.err"
		else
			"$bin" "$@" </dev/null >"$work/$which.out" 2>"$work/$which.err"
		fi
		echo "$?" >"$work/$which.rc"
		# an output file named by -o is compared too
		if [ -f "$work/o" ]; then
			mv "$work/o" "$work/$which.o"
		else
			: >"$work/$which.o"
		fi
	done
	if cmp -s "$work/old.out" "$work/new.out" && cmp -s "$work/old.err" "$work/new.err" &&
		cmp -s "$work/old.rc" "$work/new.rc" && cmp -s "$work/old.o" "$work/new.o"; then
		echo "same       $name ($(wc -l <"$work/new.out") lines)"
	else
		echo "DIFFERENT  $name"
		bad=1
	fi
}

# text_addrs FILE — every STEP-th address of FILE's .text, one per line.
text_addrs() {
	python3 -c '
import subprocess, sys
for line in subprocess.run(["readelf", "-SW", sys.argv[1]], capture_output=True,
                           text=True).stdout.splitlines():
    f = line.replace("[ ", "[").split()
    if ".text" in f:
        i = f.index(".text")
        lo, n = int(f[i + 2], 16), int(f[i + 4], 16)
        sys.stdout.write("".join("0x%x\n" % a for a in range(lo, lo + n, int(sys.argv[2]))))
' "$1" "$step"
}

# --- targets ---------------------------------------------------------------
mkdir -p "$work/fx" "$work/t"
if ! sh "$top/testdata/src/fixture/build.sh" "$work/fx" >"$work/fx.log" 2>&1; then
	echo "cannot build testdata/src/fixture (see $work/fx.log)" >&2
	exit 2
fi
targets="$work/fx/fixture $work/fx/fixture-nopie $work/fx/libfixshared.so $work/fx/busy"
src=$top/testdata/src/symbolize/fixture.cc
for v in 4 5; do
	g++ -O2 -g -gdwarf-$v -o "$work/t/fixture-g++-dwarf$v" "$src" &&
		targets="$targets $work/t/fixture-g++-dwarf$v"
done
if command -v clang++ >/dev/null 2>&1; then
	clang++ -O2 -g -gdwarf-5 -o "$work/t/fixture-clang-dwarf5" "$src" &&
		targets="$targets $work/t/fixture-clang-dwarf5"
fi
cp "$new" "$work/t/symprof"
targets="$targets $work/t/symprof ${TARGETS:-}"

# --- symbolize ---------------------------------------------------------------
for t in $targets; do
	text_addrs "$t" >"$work/in"
	if [ ! -s "$work/in" ]; then
		echo "DIFFERENT  $(basename "$t"): no .text found"
		bad=1
		continue
	fi
	for opts in "" "-C" "--demangle=templates" "-a --json" "-a -C --json" "-f -i --relative" \
		"-a -f -i -C" "-a -f -i -p -s" "-S" "-f -x" "--output-style=LLVM" \
		"--output-style=LLVM --no-inlines" "--output-style=JSON" "-a --section=.text"; do
		# shellcheck disable=SC2086 # $opts is a list of words
		run "symbolize $(basename "$t") ${opts:-(no options)}" symbolize -e "$t" $opts
	done
	# names for addresses (eu-addr2line's NAME, NAME+OFF, (SECTION)+OFF): the
	# first functions of the symbol table, a byte on, and a name that is none
	nm --defined-only "$t" 2>/dev/null | awk '$2 ~ /^[tT]$/ { print $3 }' | head -n 200 |
		awk '{ print $1; print $1 "+1"; print "(.text)+" NR * 16 } END { print "no_such_symbol" }' \
		>"$work/in"
	run "symbolize $(basename "$t") -f -i (names)" symbolize -e "$t" -f -i
	run "symbolize $(basename "$t") -f -i -j 2 (names)" symbolize -e "$t" -f -i -j 2
done
rm -f "$work/in"

# --- convert -------------------------------------------------------------------
# raw stacks over the PIE fixture mapped at 0x555555554000 and its shared
# library at 0x7f0000000000: 2000 stacks of 1 to 12 frames from .text
python3 - "$work/fx/fixture" "$work/fx/libfixshared.so" >"$work/raw.txt" <<'EOF'
import random, subprocess, sys
def text(path):
    for line in subprocess.run(["readelf", "-SW", path], capture_output=True,
                               text=True).stdout.splitlines():
        f = line.replace("[ ", "[").split()
        if ".text" in f:
            i = f.index(".text")
            return int(f[i + 2], 16), int(f[i + 4], 16)
exe, lib = sys.argv[1], sys.argv[2]
(elo, en), (llo, ln) = text(exe), text(lib)
ebase, lbase = 0x555555554000, 0x7f0000000000
rnd = random.Random(12)
print("# symprof raw stacks v1")
print("sample_type: samples/count")
print("addresses: return")
for _ in range(2000):
    frames = []
    for _ in range(rnd.randint(1, 12)):
        if rnd.random() < 0.7:
            frames.append(ebase + elo + rnd.randrange(en))
        else:
            frames.append(lbase + llo + rnd.randrange(ln))
    print(rnd.randint(1, 9), "@", " ".join("0x%x" % a for a in frames))
print("--- Memory map: ---")
print("%x-%x r-xp 00000000 08:01 1 %s" % (ebase, ebase + 0x400000, exe))
print("%x-%x r-xp 00000000 08:01 2 %s" % (lbase, lbase + 0x400000, lib))
EOF
profiles="$work/raw.txt"
for p in "$top"/testdata/profiles/*; do
	case $p in */README) continue ;; esac
	profiles="$profiles $p"
done
for p in $profiles; do
	for opts in "" "--demangle full" "--demangle none --no-inline" "--no-symbolize"; do
		for fmt in pprof folded folded-annotate raw top; do
			case $fmt in
			pprof) args="--format pprof -o $work/o" ;;
			folded-annotate) args="--format folded --annotate" ;;
			*) args="--format $fmt" ;;
			esac
			# shellcheck disable=SC2086 # $opts and $args are lists of words
			run "convert $(basename "$p") $fmt ${opts:-(no options)}" convert -q $opts $args "$p"
		done
	done
done

exit $bad
