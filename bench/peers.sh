#!/bin/sh
# peers.sh — build the test suite's fixture binaries into WORKDIR and compare
# `symprof symbolize` with addr2line, eu-addr2line and llvm-symbolizer on each of them
# (bench/peers.py: where symprof's frames equal a peer's, and byte for byte the GNU and
# LLVM output styles).
#
#   SYMPROF=build/symprof sh bench/peers.sh [-w WORKDIR] [-m MAX] [-j FILE] [-b]
#
# -m: addresses per file (default 2000); -j: the counts and lists as JSON; -b: the
# frames only, not the bytes.  The fixtures are those the tests build at test time from
# testdata/src (the heap, CPU, perf and unwind programs and their libraries, the
# resolver's fixture as gcc and clang build it, DWARF 4 and 5, the Go fixture with and
# without DWARF and -trimpath, the symbol-table, discarded-code and split-unit objects).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../testdata/src
work=/tmp/symprof-peers max=2000 json= bytes=
while getopts w:m:j:b o; do
	case $o in
	w) work=$OPTARG ;;
	m) max=$OPTARG ;;
	j) json=$OPTARG ;;
	b) bytes=--no-bytes ;;
	*) sed -n '2,15p' "$0" >&2; exit 2 ;;
	esac
done
: "${SYMPROF:=./symprof}"
SYMPROF=$(cd "$(dirname "$SYMPROF")" && pwd)/$(basename "$SYMPROF")
mkdir -p "$work"
b=$work/bin
if [ ! -f "$b/.done" ]; then
	rm -rf "$b"
	mkdir -p "$b"
	sh "$src/fixture/build.sh" "$b" >&2
	sh "$src/perf/build.sh" "$b" >&2
	sh "$src/unwind/build.sh" "$b" >&2
	for c in g++ clang++; do
		for d in 4 5; do
			$c -O2 -g -gdwarf-$d -o "$b/resolver-$c-dwarf$d" "$src/symbolize/fixture.cc"
		done
	done
	g++ -O2 -g -no-pie -o "$b/resolver-nopie" "$src/symbolize/fixture.cc"
	gcc -O2 -g -o "$b/demo" "$src/demo/demo.c" -lpthread 2>/dev/null || true
	gcc -O2 -g -ffreestanding -nostdlib -static -Wl,-e,entry -o "$b/gnuform" "$src/gnuform/gnuform.c"
	gcc -c "$src/symtab/rules.s" -o "$b/rules.o"
	gcc -nostdlib -static -Wl,-e,0 -Wl,--build-id=none -Wl,--section-start=.text=0x401000 \
		"$src/symtab/rules.s" -o "$b/rules.exe"
	if command -v yaml2obj >/dev/null 2>&1; then
		yaml2obj "$src/discarded/discarded.yaml" -o "$b/discarded"
		yaml2obj --docnum=2 "$src/discarded/discarded.yaml" -o "$b/discarded-rnglists"
	fi
	if command -v llvm-mc >/dev/null 2>&1; then
		llvm-mc --dwarf-version=5 -filetype=obj -triple x86_64-pc-linux \
			"$src/splitinline/splitinline.s" -o "$b/splitinline.o"
	fi
	if command -v go >/dev/null 2>&1; then
		cp -R "$src/gofix" "$work/gofix"
		(cd "$work/gofix" && export HOME="$work/gohome" GOCACHE="$work/gocache" \
			GOPATH="$work/gopath" GOFLAGS= GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=0 &&
			go build -o "$b/gofix" . && go build -trimpath -o "$b/gofix-trimpath" . &&
			go build -ldflags='-s -w' -o "$b/gofix-stripped" .) >&2
	fi
	touch "$b/.done"
fi
set --
for f in "$b"/*; do
	[ -f "$f" ] && [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] && set -- "$@" "$f"
done
python3 "$here/peers.py" --symprof "$SYMPROF" --max "$max" ${json:+--json "$json"} $bytes "$@"
