#!/bin/sh
# cli_binary_arg.sh — pprof's habit `symprof convert ./prog prog.0001.heap`: an ELF file
# among the inputs is the main binary, not a profile; stderr says so, and the binary is
# found in its directory although the recorded path no longer exists.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

fix=$tmp/fix
"$SP_SRCDIR/testdata/src/fixture/build.sh" "$fix" >"$tmp/build.log" 2>&1 ||
	{ sed 's/^/# /' "$tmp/build.log"; sp_bail "fixture does not build"; }
sp_record_heap "$fix" fixture || sp_bail "fixture did not write a heap profile"

# The program moves after recording: its recorded path is gone.
mkdir "$tmp/moved"
mv "$fix/fixture" "$tmp/moved/fixture"

# fixture.h: main allocates 10 blocks of 4096 bytes through fixture::alloc_in_main.
site=';main;fixture::alloc_in_main 40960'

sp_run symprof convert -q "$tmp/fixture.heap"
[ "$rc" -eq 0 ] && ! sp_has_line_ending "$tmp/out" "$site"
sp_ok $? "without the binary the main program's frames do not resolve" || sp_show_err

sp_run symprof convert -q "$tmp/moved/fixture" "$tmp/fixture.heap"
[ "$rc" -eq 0 ]
sp_ok $? "symprof convert BINARY PROFILE: exit 0 (got $rc)" || sp_show_err
sp_expect_suffix "$tmp/out" "$site" "the binary given first resolves main's frames"
[ "$(cat "$tmp/err")" = "symprof convert: $tmp/moved/fixture is an ELF file, taken as the main binary (its directory $tmp/moved is searched first, as with --binary-path)" ]
sp_ok $? "stderr says the ELF file was taken as the main binary" || sp_show_err

cp "$tmp/out" "$tmp/first.folded"
sp_run symprof convert -q "$tmp/fixture.heap" "$tmp/moved/fixture"
[ "$rc" -eq 0 ] && cmp -s "$tmp/out" "$tmp/first.folded"
sp_ok $? "the binary after the profile works the same" || sp_show_err

sp_run symprof convert -q "$tmp/moved/fixture"
[ "$rc" -eq 2 ] && grep -q "no input profile, only the binary $tmp/moved/fixture" "$tmp/err"
sp_ok $? "only a binary: usage error" || sp_show_err
sp_run symprof convert -q "$tmp/moved/fixture" "$fix/fixture-nopie" "$tmp/fixture.heap"
[ "$rc" -eq 2 ] && grep -q "two ELF files among the inputs" "$tmp/err"
sp_ok $? "two binaries: usage error" || sp_show_err

sp_done
