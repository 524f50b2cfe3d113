#!/bin/sh
# cli_mismatch.sh — a binary rebuilt after its heap dump is refused, not used silently.
#
# gperftools dumps record no build ids.  The fixture (testdata/src/fixture) is built, run under
# libtcmalloc to write a heap dump, then rebuilt with FIXTURE_CFLAGS=-DFIXTURE_GROWN, which
# puts 8 KiB more code in alloc_in_main: the text segment grows from one page to three and
# every later segment moves.  The recorded mapping of the main binary (one page of text)
# no longer matches the file: its frames stay addresses, the summary and `info` say "file
# does not match the recorded mapping", and --force-mismatch uses the file anyway.  The
# libraries, not rebuilt, still resolve.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

fix=$tmp/fix
"$SP_SRCDIR/testdata/src/fixture/build.sh" "$fix" >"$tmp/build.log" 2>&1 ||
	{ sed 's/^/# /' "$tmp/build.log"; sp_bail "fixture does not build"; }
sp_record_heap "$fix" fixture || sp_bail "fixture did not write a heap profile"
sp_record_heap "$fix" fixture-nopie || sp_bail "fixture-nopie did not write a heap profile"

# Before the rebuild: every frame resolves, nothing is called a mismatch.
sp_run symprof convert "$tmp/fixture.heap"
grep -q ';main;fixture::alloc_in_main 40960$' "$tmp/out" && ! grep -q 'does not match' "$tmp/err"
sp_ok $? "the binary that ran matches its mapping" || sp_show_err
sp_run symprof convert "$tmp/fixture-nopie.heap"
grep -q ';main;fixture::alloc_in_main 40960$' "$tmp/out" && ! grep -q 'does not match' "$tmp/err"
sp_ok $? "the non-PIE binary that ran matches its mapping" || sp_show_err

FIXTURE_CFLAGS=-DFIXTURE_GROWN "$SP_SRCDIR/testdata/src/fixture/build.sh" "$fix" \
	>"$tmp/build.log" 2>&1 || sp_bail "grown fixture does not build"
text_pages()
{
	# shellcheck disable=SC2046 # two words: file offset and memory size
	set -- $(readelf -lW "$1" | awk '$1 == "LOAD" && / R E / { print $2, $6; exit }')
	echo $((($1 + $2 + 4095) / 4096 - $1 / 4096))
}
sp_check "the rebuilt text segment spans 3 pages (was 1)" [ "$(text_pages "$fix/fixture")" = 3 ]

for prog in fixture fixture-nopie; do
	sp_run symprof convert --addresses "$tmp/$prog.heap"
	sp_ok "$rc" "$prog: convert with a rebuilt binary still exits 0" || sp_show_err
	grep -q ": $fix/$prog: 21 of 21 addresses unresolved (file does not match the recorded mapping; " "$tmp/err"
	sp_ok $? "$prog: the summary says the file does not match the recorded mapping" ||
		sp_show_err
	! grep -q 'fixture::' "$tmp/out" && grep -Eq "^$prog\\+0x[0-9a-f]+;__libc_start_main;__libc_start_call_main;$prog\\+0x[0-9a-f]+;$prog\\+0x[0-9a-f]+ 40960\$" "$tmp/out"
	sp_ok $? "$prog: its frames stay $prog+0xOFFSET (no name from the rebuilt file)"
	grep -q ';fixshared::shared_alloc 12288$' "$tmp/out" &&
		grep -q ';fixplugin::plugin_work 12000$' "$tmp/out"
	sp_ok $? "$prog: the libraries, unchanged, still resolve"

	sp_run symprof info "$tmp/$prog.heap"
	awk '/^  mapping 1:/ { m = 1; next } /^  mapping/ { m = 0 } m' "$tmp/out" >"$tmp/m1"
	grep -q 'unresolved 21: file does not match the recorded mapping' "$tmp/m1" &&
		grep -q "detail: $fix/$prog: the mapping's size is not the executable segment's" "$tmp/m1" &&
		grep -q -- '--force-mismatch uses it anyway' "$tmp/m1"
	sp_ok $? "$prog: info says why, and how to use the file anyway" ||
		sed 's/^/#   /' "$tmp/m1"

	sp_run symprof convert -q --force-mismatch "$tmp/$prog.heap"
	[ "$rc" -eq 0 ] && ! grep -Eq "(^|;)$prog\\+0x" "$tmp/out" && grep -q ';main;' "$tmp/out"
	sp_ok $? "$prog: --force-mismatch symbolizes against the file anyway" || sp_show_err
done

sp_done
