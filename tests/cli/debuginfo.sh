#!/bin/sh
# cli_debuginfo.sh — end to end: finding binaries and debug info the way gdb,
# distributions and debuginfod do (DESIGN.md §3 "Finding files", spec/FORMATS.md §6.4–6.6).
#
# The fixture (testdata/src/fixture) is built once and ONE real tcmalloc heap dump of its PIE
# build is recorded.  Converting that dump with the unstripped binaries in place gives the
# reference folded stacks; tests/cli/heap.sh checks those same frames against the fixture
# source (fixture.h, fixture.cc), so here the reference stands for the source.  Each
# variant then changes the files on disk (stripped + separate debug info in each place a
# debugger looks, MiniDebugInfo, compressed sections, a sysroot or path-mapped copy, a
# binary rebuilt after recording, a debuginfod server) and converts THE SAME dump: the
# folded output must be identical to the reference, byte for byte, inline frames included
# (MiniDebugInfo has names only, so there it must equal the reference with --no-inline).
# Build ids come from readelf and `go tool buildid`, never from symprof.
#
# elfutils 0.188's debuginfod listens on every address, so when the system allows it the
# whole script runs in a private network namespace whose only interface is loopback; the
# server is then reachable at 127.0.0.1 and nowhere else.  Without one, the server tests
# are skipped (the unreachable-server timing tests still run: they only talk to
# 127.0.0.1).

if [ -z "${SP_NETNS:-}" ]; then
	SP_NETNS=none
	if command -v unshare >/dev/null 2>&1 && command -v ip >/dev/null 2>&1 &&
		unshare -rn true 2>/dev/null; then
		SP_NETNS=private
		export SP_NETNS
		exec unshare -rn /bin/sh "$0" "$@"
	fi
fi
if [ "$SP_NETNS" = private ]; then
	ip link set lo up 2>/dev/null || SP_NETNS=down
fi

. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

# Background processes of this script, killed on every way out.
sp_pids=
cleanup()
{
	# shellcheck disable=SC2086 # one word per pid
	sp_kill_children $sp_pids
	for p in $sp_pids; do
		wait "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# No debuginfod unless a test asks for it; its cache stays in the test directory.
unset DEBUGINFOD_URLS DEBUGINFOD_TIMEOUT DEBUGINFOD_RETRY_LIMIT DEBUGINFOD_PROGRESS
DEBUGINFOD_CACHE_PATH=$tmp/dcache
export DEBUGINFOD_CACHE_PATH

# The binaries' directory as the kernel names it in the maps (no symbolic links).
mkdir "$tmp/fix"
fix=$(cd "$tmp/fix" && pwd -P)
fixp=$fix
libs="fixture libfixshared.so libfixplugin.so"
"$SP_SRCDIR/testdata/src/fixture/build.sh" "$fix" >"$tmp/build.log" 2>&1 ||
	{ sed 's/^/# /' "$tmp/build.log"; sp_bail "fixture does not build"; }
sp_record_heap "$fix" fixture || sp_bail "fixture did not write a heap profile"
cp -a "$fix" "$tmp/orig"

# GNU build id of an ELF file, read by readelf.
build_id()
{
	readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3; exit }'
}

# Separate debug files of every binary, made like distributions make them.
mkdir "$tmp/dbg"
for f in $libs; do
	objcopy --only-keep-debug "$fix/$f" "$tmp/dbg/$f.debug" ||
		sp_bail "objcopy --only-keep-debug $f failed"
done

# The binaries at the recorded paths as built (every variant starts from here).
reset_fix()
{
	rm -rf "$fix"
	cp -a "$tmp/orig" "$fix"
}

# strip_fix [link]: strip --strip-all every binary (only .dynsym is left: the main
# program's own functions are not in it), and with "link" add a .gnu_debuglink to the
# debug file made above (its name and CRC).
strip_fix()
{
	for f in $libs; do
		strip --strip-all "$fix/$f" || return 1
		if [ "${1:-}" = link ]; then
			objcopy --add-gnu-debuglink="$tmp/dbg/$f.debug" "$fix/$f" || return 1
		fi
	done
}

# same_as REFERENCE DESCRIPTION [OPTIONS...]: convert the dump with OPTIONS; the folded
# output must be REFERENCE's bytes.
same_as()
{
	sa_ref=$1
	sa_desc=$2
	shift 2
	sp_run symprof convert "$@" "$tmp/fixture.heap"
	if [ "$rc" -eq 0 ] && cmp -s "$tmp/out" "$sa_ref"; then
		sp_ok 0 "$sa_desc"
	else
		sp_ok 1 "$sa_desc"
		sp_diag "exit status $rc; diff against the reference:"
		diff "$sa_ref" "$tmp/out" | head -n 10 | sed 's/^/#   /'
		sp_show_err
	fi
}

same()
{
	same_as "$tmp/ref.folded" "$@"
}

# info_has DESCRIPTION LINE [OPTIONS...]: `symprof info` of the dump prints LINE.
info_has()
{
	ih_desc=$1
	ih_line=$2
	shift 2
	sp_run symprof info "$@" "$tmp/fixture.heap"
	if grep -Fqx -- "$ih_line" "$tmp/out"; then
		sp_ok 0 "$ih_desc"
	else
		sp_ok 1 "$ih_desc"
		sp_diag "want the line: $ih_line"
		grep -E 'mapping|debug info|tried' "$tmp/out" | grep -F -A8 "$fix/fixture" |
			head -n 12 | sed 's/^/#   have: /'
	fi
}

# The reference.
sp_run symprof convert "$tmp/fixture.heap"
[ "$rc" -eq 0 ] && cp "$tmp/out" "$tmp/ref.folded" &&
	sp_has_line_ending "$tmp/ref.folded" ";main;fixture::outer;fixture::middle;fixture::inner_leaf 7000" &&
	sp_has_line_ending "$tmp/ref.folded" ";main;fixshared::shared_alloc 12288" &&
	sp_has_line_ending "$tmp/ref.folded" ";main;run_plugin;plugin_entry;fixplugin::plugin_work 12000"
sp_ok $? "reference: the unstripped build gives the fixture's frames, inline chain included" ||
	sp_bail "no reference conversion"
sp_run symprof convert --no-inline "$tmp/fixture.heap"
cp "$tmp/out" "$tmp/ref-noinline.folded"

# Control: stripped, no debug info anywhere, the main program's frames are addresses.
reset_fix
strip_fix link
sp_run symprof convert "$tmp/fixture.heap"
[ "$rc" -eq 0 ] && ! grep -Fq 'fixture::alloc_in_main' "$tmp/out" &&
	grep -Fq 'fixshared::shared_alloc' "$tmp/out" # exported: still in .dynsym
sp_ok $? "stripped without debug files: main's own functions are not named"
# The summary names the fix: a separate debug file for a file of the user's, the
# distribution's debug package for a file where distributions install theirs (the dump's
# paths rewritten under /usr/lib, the files found there through --path-map).
grep -F ": $fix/fixture: " "$tmp/err" | grep -Fq '(no symbols); fix: --debug-dir DIR holding its separate debug file'
sp_ok $? "stripped without debug files: the summary says --debug-dir" || sp_show_err
sed "s|$fix/|/usr/lib/symprof-fixture/|g" "$tmp/fixture.heap" >"$tmp/system.heap"
sp_run symprof convert --path-map "/usr/lib/symprof-fixture=$fix" "$tmp/system.heap"
grep -F ': /usr/lib/symprof-fixture/fixture: ' "$tmp/err" |
	grep -Fq '(no symbols); fix: install its debug symbols: on Debian the -dbgsym (or -dbg) package of the one `dpkg -S /usr/lib/symprof-fixture/fixture` names'
sp_ok $? "stripped system file: the summary names the Debian debug package" || sp_show_err

# (1) .gnu_debuglink in the binary's directory, in its .debug/, and under a debug dir.
cp "$tmp"/dbg/*.debug "$fix/"
same "debuglink, debug file next to the binary: same frames"
info_has "debuglink next to the binary: info names the debug file" \
	"    debug info: $fix/fixture.debug"
rm -f "$fix"/*.debug
mkdir "$fix/.debug"
cp "$tmp"/dbg/*.debug "$fix/.debug/"
same "debuglink, debug file in .debug/: same frames"
info_has "debuglink in .debug/: info names the debug file" \
	"    debug info: $fix/.debug/fixture.debug"
rm -rf "$fix/.debug"
mkdir -p "$tmp/dd$fixp"
cp "$tmp"/dbg/*.debug "$tmp/dd$fixp/"
# --debug-dir replaces the default /usr/lib/debug; give it back for the system libraries.
same "debuglink, debug file in --debug-dir DIR/<binary dir>/: same frames" \
	--debug-dir "$tmp/dd" --debug-dir /usr/lib/debug
info_has "debuglink under --debug-dir: info names the debug file" \
	"    debug info: $tmp/dd$fixp/fixture.debug" --debug-dir "$tmp/dd" --debug-dir /usr/lib/debug

# (2) build-id tree in a non-default debug dir, binaries without a debuglink.
reset_fix
strip_fix
for f in $libs; do
	b=$(build_id "$tmp/orig/$f")
	[ -n "$b" ] || sp_bail "no build id in $f"
	rest=${b#??}
	mkdir -p "$tmp/bt/.build-id/${b%"$rest"}"
	cp "$tmp/dbg/$f.debug" "$tmp/bt/.build-id/${b%"$rest"}/$rest.debug"
done
same "build-id tree under --debug-dir: same frames" --debug-dir "$tmp/bt" --debug-dir /usr/lib/debug
b=$(build_id "$tmp/orig/fixture")
rest=${b#??}
info_has "build-id tree: info names DIR/.build-id/xx/rest.debug" \
	"    debug info: $tmp/bt/.build-id/${b%"$rest"}/$rest.debug" \
	--debug-dir "$tmp/bt" --debug-dir /usr/lib/debug
same_as "$tmp/ref-noinline.folded" "build-id tree, --no-inline: same as the reference's" \
	--no-inline --debug-dir "$tmp/bt" --debug-dir /usr/lib/debug
# symprof symbolize finds the tree too: the stripped fixture's alloc_in_main by the
# address and name nm reads from the unstripped build.
sym=$(nm "$tmp/orig/fixture" | awk '$2 ~ /^[Tt]$/ && $3 ~ /alloc_in_main/ { print $1, $3; exit }')
# shellcheck disable=SC2086 # address and name
set -- $sym
sp_run symprof symbolize -f -i -e "$fix/fixture" --debug-dir "$tmp/bt" "$1"
[ -n "$2" ] && [ "$(head -n 1 "$tmp/out")" = "$2" ] && grep -q 'fixture.cc:[0-9]' "$tmp/out"
sp_ok $? "build-id tree: symbolize -e of the stripped binary gives $2 and its line"

# (3) MiniDebugInfo, as Fedora builds it: the function symbols that are not in .dynsym,
# in a .symtab-only ELF, xz-compressed into .gnu_debugdata.  Names, no lines.
minidebuginfo()
{
	for f in $libs; do
		m=$tmp/mdi/$f
		nm -D --format=posix --defined-only "$tmp/orig/$f" | awk '{ print $1 }' |
			sort >"$m.dynsyms" &&
			nm --format=posix --defined-only "$tmp/orig/$f" |
			awk '$2 ~ /^[TtWw]$/ { print $1 }' | sort >"$m.funcsyms" &&
			comm -13 "$m.dynsyms" "$m.funcsyms" >"$m.keep" &&
			objcopy -S --remove-section .gdb_index --remove-section .comment \
				--keep-symbols="$m.keep" "$tmp/dbg/$f.debug" "$m.mini" &&
			xz -f "$m.mini" &&
			objcopy --add-section .gnu_debugdata="$m.mini.xz" "$fix/$f" || return 1
	done
}
if command -v xz >/dev/null 2>&1; then
	reset_fix
	strip_fix
	mkdir "$tmp/mdi"
	minidebuginfo && readelf -S "$fix/fixture" | grep -Fq .gnu_debugdata
	sp_ok $? "MiniDebugInfo: the stripped binaries carry .gnu_debugdata"
	# --no-inline on both sides: the system libraries keep their DWARF.
	same_as "$tmp/ref-noinline.folded" \
		"MiniDebugInfo: every frame named as in the reference (outermost functions)" --no-inline
else
	sp_skip "xz not installed: no MiniDebugInfo variant"
	sp_skip "xz not installed: no MiniDebugInfo variant"
fi

# (4) compressed debug sections: zlib always, zstd where objcopy and libdw both can.
compressed()
{
	reset_fix
	for f in $libs; do
		objcopy --compress-debug-sections="$1" "$fix/$f" || return 1
	done
	readelf -St "$fix/fixture" | grep -A3 '\.debug_info' | grep -q COMPRESSED
}
if compressed zlib; then
	sp_ok 0 "zlib: .debug_info is SHF_COMPRESSED"
	same "zlib-compressed debug sections: same frames"
else
	sp_ok 1 "zlib: objcopy --compress-debug-sections=zlib compresses .debug_info"
	sp_skip "no zlib variant"
fi
# The same with the build-id tree's separate debug files compressed, and one address per
# run: .debug_info and .debug_line are then inflated only up to the unit .debug_aranges
# names, so each function of the fixture (every unit) is asked for alone, and must get
# what the uncompressed tree gives.
reset_fix
strip_fix
rm -rf "$tmp/btz"
cp -a "$tmp/bt" "$tmp/btz"
for d in "$tmp"/btz/.build-id/*/*.debug; do
	objcopy --compress-debug-sections=zlib "$d" || break
done
b=$(build_id "$tmp/orig/fixture")
readelf -St "$tmp/btz/.build-id/$(echo "$b" | cut -c1-2)/${b#??}.debug" |
	grep -A3 '\.debug_info' | grep -q COMPRESSED &&
	readelf -S "$tmp/bt/.build-id/$(echo "$b" | cut -c1-2)/${b#??}.debug" | grep -q debug_aranges
sp_ok $? "zlib, build-id tree: the debug files' .debug_info is compressed, with .debug_aranges"
same "zlib, build-id tree: same frames" --debug-dir "$tmp/btz" --debug-dir /usr/lib/debug
n=0 bad=
for a in $(nm "$tmp/orig/fixture" | awk '$2 ~ /^[Tt]$/ { print "0x" $1 }'); do
	n=$((n + 1))
	sp_run symprof symbolize -f -i -e "$fix/fixture" --debug-dir "$tmp/bt" "$a"
	cp "$tmp/out" "$tmp/one.plain"
	sp_run symprof symbolize -f -i -e "$fix/fixture" --debug-dir "$tmp/btz" "$a"
	cmp -s "$tmp/out" "$tmp/one.plain" || bad="$bad $a"
done
[ "$n" -gt 10 ] && [ -z "$bad" ]
sp_ok $? "zlib, build-id tree, one address a run: $n functions as uncompressed (differ:${bad:- none})"
if ! objcopy --help 2>/dev/null | grep -q 'compress-debug-sections.*zstd'; then
	sp_skip "objcopy cannot compress with zstd"
	sp_skip "objcopy cannot compress with zstd"
	sp_skip "objcopy cannot compress with zstd"
	sp_skip "objcopy cannot compress with zstd"
elif ! compressed zstd; then
	sp_ok 1 "zstd: objcopy --compress-debug-sections=zstd compresses .debug_info"
	sp_skip "no zstd variant"
	sp_skip "no zstd variant"
	sp_skip "no zstd variant"
else
	# libdw cannot read these itself before 0.189: we inflate them for it.
	# ch_type, the first word of the section, is ELFCOMPRESS_ZSTD (2).
	zoff=$(readelf -St "$fix/fixture" | grep -A1 '\] \.debug_info$' | awk 'NR == 2 { print $3 }')
	ztype=$(od -An -tu4 -N4 -j $((0x$zoff)) "$fix/fixture" | tr -d ' ')
	[ "$ztype" = 2 ]
	sp_ok $? "zstd: .debug_info is SHF_COMPRESSED with ch_type 2 (have ${ztype:-none})"
	same "zstd-compressed debug sections: same frames"
	# A compression type nobody reads (7): a reason with the file and
	# section named, in `symprof info` and in convert's summary.
	printf '\007' | dd of="$fix/fixture" bs=1 seek=$((0x$zoff)) conv=notrunc 2>/dev/null
	want="fixture: section .debug_info: compression type 7 cannot be read (zlib and zstd can)"
	sp_run symprof info "$tmp/fixture.heap"
	grep -F -- "detail: " "$tmp/out" | grep -Fq -- "$want"
	sp_ok $? "unknown ch_type: symprof info gives the reason"
	sp_run symprof convert "$tmp/fixture.heap"
	grep -Fq -- "$want" "$tmp/err"
	sp_ok $? "unknown ch_type: convert's summary gives the reason"
fi

# (5) a sysroot copy at another path, and --path-map.  The recorded paths are gone; the
# system libraries' files come from the sysroot too (through a link to /usr).
rm -rf "$fix"
mkdir -p "$tmp/sysroot$fixp"
cp -a "$tmp/orig/." "$tmp/sysroot$fixp/"
ln -s /usr "$tmp/sysroot/usr"
same "--sysroot: same frames from the copy" --sysroot "$tmp/sysroot"
info_has "--sysroot: info shows the file used in the sysroot" \
	"    file: $tmp/sysroot$fixp/fixture" --sysroot "$tmp/sysroot"
(cd "$tmp/sysroot$fixp" && for f in $libs; do
	strip --strip-all "$f" && objcopy --add-gnu-debuglink="$tmp/dbg/$f.debug" "$f" || exit 1
done && mkdir .debug && cp "$tmp"/dbg/*.debug .debug/)
same "--sysroot, stripped + debuglink in the copy's .debug/: same frames" --sysroot "$tmp/sysroot"
rm -rf "$tmp/sysroot"
mkdir -p "$tmp/elsewhere"
cp -a "$tmp/orig/." "$tmp/elsewhere/"
same "--path-map OLD=NEW: same frames" --path-map "$fix=$tmp/elsewhere"
info_has "--path-map: info shows the file used at its new place" \
	"    file: $tmp/elsewhere/fixture" --path-map "$fix=$tmp/elsewhere"
mkdir -p "$tmp/sr2/opt"
mv "$tmp/elsewhere" "$tmp/sr2/opt/fix"
ln -s /usr "$tmp/sr2/usr"
same "--path-map OLD=/opt/fix then --sysroot: same frames" \
	--path-map "$fix=/opt/fix" --sysroot "$tmp/sr2"
rm -rf "$tmp/sr2"

# (6) a binary rebuilt after recording.  tcmalloc's maps lines carry no build ids, so the
# dump's library lines are rewritten in pprof's brief form, which does (spec §2.6):
# "START-END PERMS PATH (@OFFSET) BUILDID", with the build ids of the recorded files.
reset_fix
awk -v dir="$fix" -v b1="$(build_id "$fix/fixture")" -v b2="$(build_id "$fix/libfixshared.so")" \
	-v b3="$(build_id "$fix/libfixplugin.so")" '
	/^MAPPED_LIBRARIES:/ { maps = 1; print; next }
	maps && $6 == dir "/fixture" { print $1, $2, $6, "(@" $3 ")", b1; next }
	maps && $6 == dir "/libfixshared.so" { print $1, $2, $6, "(@" $3 ")", b2; next }
	maps && $6 == dir "/libfixplugin.so" { print $1, $2, $6, "(@" $3 ")", b3; next }
	{ print }' "$tmp/fixture.heap" >"$tmp/bid.heap"
grep -Eq "^[0-9a-f]+-[0-9a-f]+ r-xp $fix/libfixshared.so \\(@[0-9a-f]+\\) [0-9a-f]{40}\$" "$tmp/bid.heap"
sp_ok $? "the dump with build ids has brief maps lines"
sp_run symprof convert "$tmp/bid.heap"
cmp -s "$tmp/out" "$tmp/ref.folded"
sp_ok $? "dump with build ids, files as recorded: same frames"
sed 's/malloc(FIX_SHARED_SZ)/malloc(FIX_SHARED_SZ + 16)/' "$SP_SRCDIR/testdata/src/fixture/fixshared.cc" \
	>"$tmp/fixshared2.cc"
mkdir "$tmp/new"
# shellcheck disable=SC2086 # the flags of testdata/src/fixture/build.sh
${CXX:-g++} -O2 -g -fno-optimize-sibling-calls -fno-ipa-icf -Wl,--build-id -fPIC -shared \
	-I"$SP_SRCDIR/testdata/src/fixture" -o "$tmp/new/libfixshared.so" "$tmp/fixshared2.cc" \
	>"$tmp/build2.log" 2>&1 || { sed 's/^/# /' "$tmp/build2.log"; sp_bail "rebuilt library does not build"; }
old_bid=$(build_id "$fix/libfixshared.so")
new_bid=$(build_id "$tmp/new/libfixshared.so")
[ -n "$new_bid" ] && [ "$new_bid" != "$old_bid" ]
sp_ok $? "rebuilt libfixshared.so has another build id ($new_bid)"
mv "$tmp/new/libfixshared.so" "$fix/libfixshared.so"
sp_run symprof convert --addresses "$tmp/bid.heap"
cp "$tmp/out" "$tmp/mismatch.folded"
cp "$tmp/err" "$tmp/mismatch.err"
[ "$rc" -eq 0 ] && ! grep -Fq fixshared:: "$tmp/mismatch.folded" &&
	grep -Eq ';main;libfixshared\.so\+0x[0-9a-f]+ 12288$' "$tmp/mismatch.folded"
sp_ok $? "replaced library: its frame stays libfixshared.so+0xOFFSET"
grep -v ';main;fixshared::shared_alloc 12288$' "$tmp/ref.folded" >"$tmp/ref-noshared"
grep -Ev ';main;libfixshared\.so\+0x[0-9a-f]+ 12288$' "$tmp/mismatch.folded" | cmp -s - "$tmp/ref-noshared"
sp_ok $? "replaced library: every other stack as in the reference"
grep -F "$fix/libfixshared.so" "$tmp/mismatch.err" | grep -Fq 'build-id mismatch'
sp_ok $? "replaced library: stderr says build-id mismatch for it" || sed 's/^/#   /' "$tmp/mismatch.err"
sp_run symprof info "$tmp/bid.heap"
grep -Fqx "    tried: $fix/libfixshared.so (build-id mismatch)" "$tmp/out"
sp_ok $? "replaced library: info lists the recorded path with build-id mismatch"

# (7) every place tried, and why each was rejected.  The library: a text file in a
# --binary-path dir (not ELF), nothing under DIR/<build id>/ (missing), the rebuilt file
# at the recorded path (build-id mismatch).  The main program, stripped with a
# debuglink: another file's debug info at its build-id path (build-id mismatch), a debug
# file of the same build with other bytes next to it (bad CRC), a text file in .debug/
# (not ELF), nothing under the debug dir (missing).
mkdir -p "$tmp/bp"
echo 'not an ELF file' >"$tmp/bp/libfixshared.so"
sp_run symprof info --binary-path "$tmp/bp" "$tmp/bid.heap"
for l in "$tmp/bp/libfixshared.so (not ELF)" "$tmp/bp/$old_bid/libfixshared.so (missing)" \
	"$fix/libfixshared.so (build-id mismatch)"; do
	grep -Fqx "    tried: $l" "$tmp/out"
	sp_ok $? "info, missing library: tried $l"
done
sp_run symprof convert --binary-path "$tmp/bp" "$tmp/bid.heap"
grep -F "$fix/libfixshared.so" "$tmp/err" | grep -Fq 'build-id mismatch'
sp_ok $? "info, missing library: summary still says build-id mismatch"
mv "$tmp/orig/libfixshared.so" "$tmp/orig/libfixshared.so.keep"
cp "$fix/libfixshared.so" "$tmp/orig/libfixshared.so" # the rebuilt one stays in place
reset_fix
strip --strip-all "$fix/fixture"
objcopy --add-gnu-debuglink="$tmp/dbg/fixture.debug" "$fix/fixture"
echo junk >"$tmp/junk"
objcopy --add-section .symprof_junk="$tmp/junk" "$tmp/dbg/fixture.debug" "$fix/fixture.debug"
mkdir "$fix/.debug"
echo 'not an ELF file' >"$fix/.debug/fixture.debug"
fb=$(build_id "$tmp/orig/fixture")
rest=${fb#??}
mkdir -p "$tmp/d8/.build-id/${fb%"$rest"}"
cp "$tmp/dbg/libfixplugin.so.debug" "$tmp/d8/.build-id/${fb%"$rest"}/$rest.debug"
sp_run symprof info --debug-dir "$tmp/d8" "$tmp/bid.heap"
for l in "$tmp/d8/.build-id/${fb%"$rest"}/$rest.debug (build-id mismatch)" \
	"$fix/fixture.debug (bad CRC)" "$fix/.debug/fixture.debug (not ELF)" \
	"$tmp/d8$fixp/fixture.debug (missing)"; do
	grep -Fqx "    tried: $l" "$tmp/out"
	sp_ok $? "info, no usable debug file: tried $l"
done
if grep -A3 "offset 0x[0-9a-f]* $fix/fixture\$" "$tmp/out" | grep -q '^    debug info:'; then
	sp_ok 1 "info, no usable debug file: none is named as used"
else
	sp_ok 0 "info, no usable debug file: none is named as used"
fi
# libdw asks for the debug file once for DWARF and again for the symbol table: each
# place is still tried, and listed, once per mapping.
awk '/^  mapping / { delete seen } /^    tried: / && seen[$0]++ { print "#   again: " $0; bad = 1 }
	END { exit bad }' "$tmp/out"
sp_ok $? "info, no usable debug file: every place listed once"
mv "$tmp/orig/libfixshared.so.keep" "$tmp/orig/libfixshared.so"

# (8) a Go binary: identified by its Go build id (`go tool buildid` is the reference).
go_env()
{
	HOME=$tmp/gohome GOCACHE=$tmp/gocache GOPATH=$tmp/gopath GOFLAGS='' GOPROXY=off \
		GOTOOLCHAIN=local CGO_ENABLED=0 "$@"
}
if sp_have_go; then
	mkdir "$tmp/go"
	cat >"$tmp/go/main.go" <<'EOF'
package main

import "os"

//go:noinline
func leaf(n int) int { return n * 3 }

func main() { os.Exit(leaf(len(os.Args)) - 3) }
EOF
	printf 'module fixgo\n\ngo 1.18\n' >"$tmp/go/go.mod"
	if (cd "$tmp/go" && go_env go build -o gobin .) >"$tmp/gobuild.log" 2>&1; then
		gobid=$(go_env go tool buildid "$tmp/go/gobin" 2>/dev/null)
		leaf=$(nm "$tmp/go/gobin" | awk '$3 == "main.leaf" { print $1 }')
		mainf=$(nm "$tmp/go/gobin" | awk '$3 == "main.main" { print $1 }')
		seg=$(readelf -lW "$tmp/go/gobin" | awk '$1 == "LOAD" && / R E / { print $2, $3, $6; exit }')
		# shellcheck disable=SC2086 # three words
		set -- $seg
		# A one-sample heap profile whose only mapping is the Go program's text segment.
		awk -v off="$1" -v va="$2" -v sz="$3" -v leaf="$leaf" -v mainf="$mainf" -v path="$tmp/go/gobin" '
			function hex(s) { s = tolower(s); sub(/^0x/, "", s); n = 0
				for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
				return n }
			BEGIN {
				printf "heap profile:    1:     8 [    1:     8] @ heapprofile\n"
				printf "     1:        8 [     1:        8] @ 0x%x 0x%x\n\n", hex(leaf) + 4, hex(mainf) + 8
				printf "MAPPED_LIBRARIES:\n%x-%x r-xp %08x 00:00 0 %s\n", hex(va), hex(va) + hex(sz), hex(off), path
			}' >"$tmp/go.heap"
		sp_run symprof info "$tmp/go.heap"
		[ -n "$gobid" ] && grep -Fqx "    build id: $gobid" "$tmp/out"
		sp_ok $? "Go binary: info shows its Go build id ($gobid)" || sed 's/^/#   /' "$tmp/out"
		grep -Eq '^    resolved 2 of 2 addresses$' "$tmp/out"
		sp_ok $? "Go binary: both addresses resolve"
		sp_run symprof convert "$tmp/go.heap"
		grep -Eq '(^|;)main\.main;main\.leaf 8$' "$tmp/out"
		sp_ok $? "Go binary: folded stack main.main;main.leaf" || sed 's/^/#   /' "$tmp/out"
		sp_run symprof symbolize -f -i -e "$tmp/go/gobin" "$leaf"
		[ "$(head -n 1 "$tmp/out")" = main.leaf ]
		sp_ok $? "Go binary: symbolize -e names main.leaf"
	else
		sed 's/^/# /' "$tmp/gobuild.log" | head -n 5
		sp_skip "go build failed (offline?): no Go binary"
	fi
else
	sp_skip "go not installed: no Go binary"
fi

# (9) debuginfod: a real server on 127.0.0.1, in the private network namespace.
# wall CMD...: runs CMD as sp_run does and leaves its wall time in $t (seconds).
wall()
{
	w_t0=$(date +%s.%N)
	sp_run "$@"
	w_t1=$(date +%s.%N)
	t=$(awk -v a="$w_t0" -v b="$w_t1" 'BEGIN { printf "%.2f", b - a }')
}

# within BASE EXTRA: the last wall time $t is below BASE + EXTRA seconds (BASE is the
# same conversion without debuginfod, so a slow host or valgrind does not count).
within()
{
	awk -v t="$t" -v base="$1" -v extra="$2" 'BEGIN { exit !(t + 0 < base + extra) }'
}

dfd_port=
start_debuginfod()
{
	mkdir -p "$tmp/srv"
	for try in 1 2 3 4 5; do
		port=$(awk -v s="$$$try" 'BEGIN { srand(s); printf "%d", 20000 + int(rand() * 40000) }')
		debuginfod -F -p "$port" -d "$tmp/dfd.sqlite" -t 0 -g 0 -c 1 "$tmp/srv" \
			>"$tmp/dfd.log" 2>&1 &
		pid=$!
		i=0
		while [ $i -lt 60 ]; do # at most 30 s until every file is served
			if ! kill -0 "$pid" 2>/dev/null; then
				break
			fi
			ok=1
			for b in "$@"; do
				curl -sf -o /dev/null --max-time 2 "http://127.0.0.1:$port/buildid/$b" || ok=0
			done
			if [ $ok -eq 1 ]; then
				sp_pids="$sp_pids $pid"
				dfd_port=$port
				return 0
			fi
			sleep 0.5
			i=$((i + 1))
		done
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	return 1
}

if [ "$SP_NETNS" != private ]; then
	for i in 1 2 3; do
		sp_skip "no private network namespace ($SP_NETNS): no debuginfod server started"
	done
elif ! command -v debuginfod >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1; then
	for i in 1 2 3; do
		sp_skip "debuginfod or curl not installed"
	done
else
	# The server holds the stripped binaries (executables) and their debug files.
	reset_fix
	strip_fix
	mkdir -p "$tmp/srv/exe"
	cp "$tmp"/dbg/*.debug "$tmp/srv/"
	for f in $libs; do cp "$fix/$f" "$tmp/srv/exe/$f"; done
	want=
	for f in $libs; do
		b=$(build_id "$tmp/orig/$f")
		want="$want $b/debuginfo $b/executable"
	done
	# shellcheck disable=SC2086 # a list of URL paths
	if start_debuginfod $want; then
		sp_ok 0 "debuginfod serves the debug files and executables on 127.0.0.1:$dfd_port"
		export DEBUGINFOD_URLS="http://127.0.0.1:$dfd_port"
		same "debuginfod: stripped binaries, debug info fetched: same frames"
		[ -n "$(ls "$DEBUGINFOD_CACHE_PATH"/"$(build_id "$tmp/orig/fixture")"/debuginfo 2>/dev/null)" ]
		sp_ok $? "debuginfod: the fixture's debug info is in DEBUGINFOD_CACHE_PATH"
		rm -rf "$fix"
		sp_run symprof convert "$tmp/bid.heap"
		cmp -s "$tmp/out" "$tmp/ref.folded"
		sp_ok $? "debuginfod: binaries gone, executables and debug info fetched: same frames" ||
			{ diff "$tmp/ref.folded" "$tmp/out" | head -n 5 | sed 's/^/#   /'; sp_show_err; }
		reset_fix
		strip_fix
		sp_run symprof convert --no-debuginfod "$tmp/fixture.heap"
		! grep -Fq 'fixture::alloc_in_main' "$tmp/out"
		sp_ok $? "--no-debuginfod: the server is not asked"
		sp_run symprof info --no-debuginfod "$tmp/fixture.heap"
		[ "$rc" -eq 0 ] && ! grep -Fq 'tried: debuginfod:' "$tmp/out"
		sp_ok $? "info --no-debuginfod: no debuginfod place tried"
		# symbolize -e of the stripped fixture: alloc_in_main (address and name from nm
		# on the unstripped build) through the server, and not with --no-debuginfod.
		sym=$(nm "$tmp/orig/fixture" |
			awk '$2 ~ /^[Tt]$/ && $3 ~ /alloc_in_main/ { print $1, $3; exit }')
		# shellcheck disable=SC2086 # address and name
		set -- $sym
		sp_run symprof symbolize -f -i -e "$fix/fixture" "$1"
		[ -n "$2" ] && [ "$(head -n 1 "$tmp/out")" = "$2" ]
		sp_ok $? "symbolize -e, stripped: $2 through debuginfod"
		sp_run symprof symbolize -f -i --no-debuginfod -e "$fix/fixture" "$1"
		[ "$(head -n 1 "$tmp/out")" != "$2" ]
		sp_ok $? "symbolize --no-debuginfod -e, stripped: not named"
		unset DEBUGINFOD_URLS
	else
		sed 's/^/# /' "$tmp/dfd.log" | tail -n 5
		sp_ok 1 "debuginfod serves the debug files and executables on 127.0.0.1"
		sp_skip "no debuginfod server"
		sp_skip "no debuginfod server"
		sp_skip "no debuginfod server"
		sp_skip "no debuginfod server"
	fi
fi

# Unreachable servers cost one bounded wait per run, not one per lookup: 40 mappings of
# missing files, each with a build id debuginfod would be asked about, 5 addresses each.
awk 'BEGIN {
	n = 40
	printf "heap profile: %d: %d [%d: %d] @ heapprofile\n", n, n * 8, n, n * 8
	for (i = 1; i <= n; i++) {
		printf "1: 8 [1: 8] @"
		for (k = 0; k < 5; k++)
			printf " 0x%x", (i * 16 + 1) * 65536 + k * 64 + 16
		printf "\n"
	}
	printf "\nMAPPED_LIBRARIES:\n"
	for (i = 1; i <= n; i++)
		printf "%x-%x r-xp /nonexistent-symprof/lib%d.so (@0) %040x\n",
			(i * 16 + 1) * 65536, (i * 16 + 2) * 65536, i, i * 7919 + 1
}' >"$tmp/many.heap"
n_dfd()
{
	grep -c '^    tried: debuginfod:' "$tmp/out"
}
wall symprof convert "$tmp/many.heap"
base_many=$t
reset_fix
strip_fix link
wall symprof convert "$tmp/fixture.heap"
base_fix=$t
DEBUGINFOD_URLS=http://127.0.0.1:1
export DEBUGINFOD_URLS
wall symprof convert "$tmp/many.heap"
[ "$rc" -eq 0 ] && within "$base_many" 2
sp_ok $? "connection refused: 200 addresses in 40 mappings take ${t}s (< ${base_many}s without debuginfod + 2 s)"
sp_run symprof info "$tmp/many.heap"
[ "$(n_dfd)" -eq 1 ]
sp_ok $? "connection refused: debuginfod asked once, then not again (got $(n_dfd))"

if command -v python3 >/dev/null 2>&1; then
	# A listener that accepts connections and never answers (gone after 90 s anyway).
	cat >"$tmp/hang.py" <<'EOF'
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.bind(("127.0.0.1", 0))
s.listen(128)
s.settimeout(0.5)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % s.getsockname()[1])
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
held = []
end = time.monotonic() + 90
while time.monotonic() < end:
    try:
        held.append(s.accept()[0])
    except socket.timeout:
        pass
EOF
	# wait_port FILE: the port a server of ours writes to FILE once it listens.
	wait_port()
	{
		i=0
		while [ ! -s "$1" ] && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		cat "$1" 2>/dev/null
	}
	python3 "$tmp/hang.py" "$tmp/hang.port" &
	sp_pids="$sp_pids $!"
	hp=$(wait_port "$tmp/hang.port")
	if [ -n "$hp" ]; then
		DEBUGINFOD_URLS=http://127.0.0.1:$hp
		DEBUGINFOD_CACHE_PATH=$tmp/dcache2
		DEBUGINFOD_TIMEOUT=2
		export DEBUGINFOD_TIMEOUT
		wall symprof convert "$tmp/many.heap"
		[ "$rc" -eq 0 ] && within "$base_many" 4
		sp_ok $? "silent server, DEBUGINFOD_TIMEOUT=2: conversion takes ${t}s (< ${base_many}s + 2 s + 2 s)"
		# one line on stderr while the server is asked, naming it and the build id
		grep -Fqx "symprof: asking debuginfod (http://127.0.0.1:$hp) for the executable of $(printf %040x 7920)" "$tmp/err" &&
			[ "$(grep -c '^symprof: asking debuginfod' "$tmp/err")" -eq 1 ]
		sp_ok $? "silent server: stderr names the server and the build id once"
		DEBUGINFOD_CACHE_PATH=$tmp/dcache7
		sp_run symprof convert -q "$tmp/many.heap"
		! grep -q 'asking debuginfod' "$tmp/err"
		sp_ok $? "silent server, -q: no line about debuginfod on stderr"
		DEBUGINFOD_CACHE_PATH=$tmp/dcache3
		sp_run symprof info "$tmp/many.heap"
		[ "$(n_dfd)" -eq 1 ] &&
			grep -Fq "/executable from http://127.0.0.1:$hp (timed out after 2 s)" "$tmp/out"
		sp_ok $? "silent server: debuginfod asked once, info names the server and the timeout (got $(n_dfd))"
		# The stripped fixture: its three binaries' debug info is asked for once.
		DEBUGINFOD_CACHE_PATH=$tmp/dcache5
		wall symprof convert "$tmp/fixture.heap"
		[ "$rc" -eq 0 ] && within "$base_fix" 4 && ! grep -Fq 'fixture::alloc_in_main' "$tmp/out"
		sp_ok $? "silent server, stripped fixture: conversion takes ${t}s (< ${base_fix}s + 2 s + 2 s)"
		DEBUGINFOD_CACHE_PATH=$tmp/dcache6
		sp_run symprof info "$tmp/fixture.heap"
		[ "$(n_dfd)" -eq 1 ] && grep -Fq '/debuginfo from http://127.0.0.1:'"$hp"' (timed out after 2 s)' "$tmp/out"
		sp_ok $? "silent server, stripped fixture: debuginfod asked once (got $(n_dfd))"
		unset DEBUGINFOD_TIMEOUT
		DEBUGINFOD_CACHE_PATH=$tmp/dcache4
		wall symprof convert "$tmp/many.heap"
		[ "$rc" -eq 0 ] && within "$base_many" 7.5
		sp_ok $? "silent server, default bound 5 s: conversion takes ${t}s (< ${base_many}s + 5 s + 2.5 s)"
	else
		sp_ok 1 "the silent listener started"
	fi

	# Servers that answer and then hurt (tests/helpers/bombs.py): MODE drip sends headers
	# announcing 100 kB and then 200 bytes/s; huge sends an endless body without a length,
	# biglen announces 3 GiB; garbage sends 4 kB that are not ELF.  Each request's path is
	# logged.
	# hostile MODE: starts the server, leaves its URL in DEBUGINFOD_URLS, an empty cache
	# in DEBUGINFOD_CACHE_PATH and its request log in $tmp/MODE.log.
	hostile()
	{
		rm -f "$tmp/$1.port" "$tmp/$1.log"
		: >"$tmp/$1.log"
		python3 "$SP_SRCDIR/tests/helpers/bombs.py" server "$1" "$tmp/$1.port" "$tmp/$1.log" 120 &
		sp_pids="$sp_pids $!"
		port=$(wait_port "$tmp/$1.port")
		DEBUGINFOD_URLS=http://127.0.0.1:$port
		DEBUGINFOD_CACHE_PATH=$tmp/cache-$1
		[ -n "$port" ]
	}
	# cached: the non-empty files the debuginfod cache holds for build ids (libdebuginfod
	# keeps empty ones as its record of failed queries, and its settings at the top).
	cached()
	{
		find "$DEBUGINFOD_CACHE_PATH" -mindepth 2 -type f -size +0 2>/dev/null | wc -l
	}
	requests()
	{
		wc -l <"$tmp/$1.log"
	}
	DEBUGINFOD_TIMEOUT=10
	export DEBUGINFOD_TIMEOUT DEBUGINFOD_MAXTIME DEBUGINFOD_MAXSIZE
	if hostile drip; then
		# Before: 3 attempts of DEBUGINFOD_MAXTIME each for one build id (270 s with the
		# defaults); one deadline covers them now.
		DEBUGINFOD_MAXTIME=3
		wall symprof convert "$tmp/many.heap"
		[ "$rc" -eq 0 ] && within "$base_many" 5
		sp_ok $? "server dripping 200 B/s, DEBUGINFOD_MAXTIME=3: conversion takes ${t}s (< ${base_many}s + 3 s + 2 s)"
		[ "$(requests drip)" -le 3 ] && [ "$(cached)" -eq 0 ]
		sp_ok $? "dripping server: one build id asked about ($(requests drip) requests), nothing cached ($(cached) files)"
		unset DEBUGINFOD_MAXTIME
		# Before: libdebuginfod's two retries made it three DEBUGINFOD_TIMEOUTs.
		DEBUGINFOD_TIMEOUT=2
		DEBUGINFOD_CACHE_PATH=$tmp/cache-drip2
		: >"$tmp/drip.log"
		wall symprof convert "$tmp/many.heap"
		[ "$rc" -eq 0 ] && within "$base_many" 4 && [ "$(requests drip)" -eq 1 ]
		sp_ok $? "dripping server, DEBUGINFOD_TIMEOUT=2: one attempt, ${t}s (< ${base_many}s + 2 s + 2 s; $(requests drip) requests)"
		DEBUGINFOD_TIMEOUT=10
	else
		sp_ok 1 "the dripping server started"
		sp_skip "no dripping server"
		sp_skip "no dripping server"
	fi
	for mode in huge biglen; do
		if hostile $mode; then
			# Before: 3 GiB bodies were cached whole, for as many build ids as the
			# profile names.
			DEBUGINFOD_MAXSIZE=2000000
			wall symprof convert "$tmp/many.heap"
			[ "$rc" -eq 0 ] && within "$base_many" 5 && [ "$(cached)" -eq 0 ]
			sp_ok $? "$mode body, DEBUGINFOD_MAXSIZE=2000000: refused in ${t}s, nothing cached ($(cached) files)"
			[ "$(requests $mode)" -le 3 ]
			sp_ok $? "$mode body: one build id asked about ($(requests $mode) requests)"
			unset DEBUGINFOD_MAXSIZE
		else
			sp_ok 1 "the $mode server started"
			sp_skip "no $mode server"
		fi
	done
	if hostile garbage; then
		wall symprof convert "$tmp/many.heap"
		[ "$rc" -eq 0 ] && [ "$(requests garbage)" -ge 40 ] && [ "$(cached)" -eq 0 ]
		sp_ok $? "a server sending files that are not ELF: all $(requests garbage) removed from the cache ($(cached) left)"
	else
		sp_ok 1 "the garbage server started"
	fi
	unset DEBUGINFOD_TIMEOUT
else
	sp_skip "python3 not installed: no silent-server timing"
fi
unset DEBUGINFOD_URLS

sp_done
