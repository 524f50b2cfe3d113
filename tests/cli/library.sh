#!/bin/sh
# library.sh — libsymprof as another program uses it: `make install DESTDIR=...`, then
# examples/symbolize.c built against the installed symprof.h and pkg-config's flags alone
# (shared, and static), and run: for every address of the benchmark's program
# (bench/gen.py, smaller) and of the fixtures it must print the frames `symprof
# symbolize --output-style=LLVM` prints (every frame, demangled, symprof's names), one
# "FUNCTION FILE:LINE" line each.  The installed shared
# library exports symprof_* and nothing else, under its versioned soname, and symprof(3)
# renders.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

command -v pkg-config >/dev/null 2>&1 || { echo "1..0 # SKIP no pkg-config"; exit 0; }
CC=${CC:-cc}
# a sanitizer build's library wants the program built with the same sanitizers
san=$(sed -n 's/^SAN_CFLAGS = //p' "$SP_BUILDDIR/Makefile")

inst=$tmp/inst
${MAKE:-make} -C "$SP_BUILDDIR" install DESTDIR="$inst" >"$tmp/install.log" 2>&1
sp_ok $? "make install DESTDIR=..." || sed 's/^/#   /' "$tmp/install.log" | tail -n 20
pc=$(find "$inst" -name symprof.pc -path '*/pkgconfig/*' | head -n 1)
[ -n "$pc" ] || sp_bail "no symprof.pc installed"
prefix=$(PKG_CONFIG_PATH=${pc%/*} pkg-config --variable=prefix symprof)
# pkg-config --define-variable: the installed tree, not the prefix it was made for
pkgconf()
{
	PKG_CONFIG_PATH=${pc%/*} pkg-config --define-variable=prefix="$inst$prefix" "$@" symprof
}
libdir=$(pkgconf --variable=libdir)
incdir=$(pkgconf --variable=includedir)
cmp -s "$incdir/symprof.h" "$SP_SRCDIR/pipeline/symprof.h"
sp_ok $? "symprof.h is installed in $prefix/include"

# shellcheck disable=SC2046,SC2086 # pkg-config's flags and $san are words
$CC -std=c99 -Wall -Wextra -Werror $san -o "$tmp/ex" "$SP_SRCDIR/examples/symbolize.c" \
	$(pkgconf --cflags --libs) 2>"$tmp/cc.err"
sp_ok $? "examples/symbolize.c builds against the installed header and pkg-config" ||
	sed 's/^/#   /' "$tmp/cc.err"
# the static library: its objects and pkg-config --static's libraries
# shellcheck disable=SC2046,SC2086
$CC -std=c99 $san -o "$tmp/ex-static" "$SP_SRCDIR/examples/symbolize.c" $(pkgconf --cflags) \
	"$libdir/libsymprof.a" $(pkgconf --static --libs | sed 's/-lsymprof\( \|$\)//') \
	2>"$tmp/cc.err"
sp_ok $? "and against libsymprof.a with pkg-config --static" || sed 's/^/#   /' "$tmp/cc.err"
ldd "$tmp/ex-static" | grep -q libsymprof
[ $? -ne 0 ]
sp_ok $? "the static build needs no libsymprof.so"

so=$(find "$libdir" -name 'libsymprof.so.*' -type f | head -n 1)
objdump -p "$so" | grep -q 'SONAME *libsymprof\.so\.0$'
sp_ok $? "the shared library's soname is libsymprof.so.0"
nm -D --defined-only "$so" | awk '$2 ~ /^[TDBVWRi]$/ { print $3 }' | sed 's/@.*//' |
	grep -v '^symprof_' | grep -v '^SYMPROF_' >"$tmp/extra"
[ ! -s "$tmp/extra" ]
sp_ok $? "it exports symprof_* and nothing else" || sed 's/^/#   /' "$tmp/extra" | head

if command -v man >/dev/null 2>&1; then
	mandir=$(find "$inst" -type d -name man3 | head -n 1)
	MANWIDTH=1000 MANPAGER=cat man -l "$mandir/symprof.3" 2>"$tmp/man.err" | grep -q 'symprof_symbolize' &&
		[ ! -s "$tmp/man.err" ] && LC_ALL=C groff -man -ww -z "$mandir/symprof.3" 2>"$tmp/groff.err" &&
		[ ! -s "$tmp/groff.err" ]
	sp_ok $? "symprof.3 is installed and renders without warnings" ||
		sed 's/^/#   /' "$tmp/man.err" "$tmp/groff.err"
else
	sp_skip "no man: symprof.3 not rendered"
fi

# same_frames ELF ADDRLIST: the example's lines against symprof symbolize
# --output-style=LLVM's function and FILE:LINE:COLUMN lines, paired, without the column
# and the blank line after each address.  (The GNU style, -f -i -C, writes addr2line's
# bytes: binutils' choice of names, " (discriminator N)", "?" for line 0.)
same_frames()
{
	# shellcheck disable=SC2046 # the addresses are words
	LD_LIBRARY_PATH=$libdir "$tmp/ex" "$1" $(cat "$2") >"$tmp/got" 2>"$tmp/err"
	r=$?
	# shellcheck disable=SC2046
	"$SYMPROF" symbolize --output-style=LLVM -e "$1" $(cat "$2") | sed '/^$/d' |
		paste -d ' ' - - | sed 's/:[0-9]*$//' >"$tmp/want"
	# shellcheck disable=SC2046
	"$tmp/ex-static" "$1" $(cat "$2") >"$tmp/got-static" 2>>"$tmp/err"
	[ $r -eq 0 ] && [ -s "$tmp/want" ] && cmp -s "$tmp/got" "$tmp/want" &&
		cmp -s "$tmp/got-static" "$tmp/want"
}

check_elf()
{
	what=$1 elf=$2 n=$3
	python3 "$SP_SRCDIR/bench/addrs.py" "$elf" "$n" "$((n / 4))" >"$tmp/addrs" 2>/dev/null
	same_frames "$elf" "$tmp/addrs"
	sp_ok $? "$what: the example's frames are symbolize --output-style=LLVM's ($(wc -l <"$tmp/want") lines for $n addresses)" ||
		{ sed 's/^/#   /' "$tmp/err" | head -n 5; diff "$tmp/want" "$tmp/got" | head -n 10 | sed 's/^/#   /'; }
}

# the benchmark's program, smaller (bench/run.sh builds 16 x 1000)
python3 "$SP_SRCDIR/bench/gen.py" "$tmp/bench" --tus 2 --funcs 60 >/dev/null &&
	${MAKE:-make} -s -C "$tmp/bench" >"$tmp/bench.log" 2>&1
sp_ok $? "built the benchmark's program (bench/gen.py --tus 2 --funcs 60)" ||
	sed 's/^/#   /' "$tmp/bench.log" | tail -n 10
check_elf "bench-exe" "$tmp/bench/bench-exe" 2000
check_elf "libbench.so" "$tmp/bench/libbench.so" 2000

# the fixtures
g++ -O2 -g -o "$tmp/symfix" "$SP_SRCDIR/testdata/src/symbolize/fixture.cc"
sp_ok $? "built testdata/src/symbolize/fixture.cc"
check_elf "symbolize fixture" "$tmp/symfix" 400
fix=$tmp/fix
"$SP_SRCDIR/testdata/src/fixture/build.sh" "$fix" >"$tmp/build.log" 2>&1
sp_ok $? "built the heap fixtures (testdata/src/fixture/build.sh)" ||
	sed 's/^/#   /' "$tmp/build.log" | tail -n 10
for f in fixture fixture-nopie libfixshared.so; do
	check_elf "$f" "$fix/$f" 400
done

# what cannot be had is said, as the command says it
LD_LIBRARY_PATH=$libdir "$tmp/ex" "$tmp/no-such-file" 0x10 >"$tmp/out" 2>"$tmp/err"
r=$?
[ $r -eq 1 ] && [ ! -s "$tmp/out" ] && grep -q 'no-such-file' "$tmp/err"
sp_ok $? "a missing ELF: status 1 and a line naming it" || sp_show_err

sp_done
