#!/bin/sh
# cli_golden.sh — golden outputs of the readers and writers, plus a pprof round trip.
#
# For every line "[@formats] <input> [options...]" of testdata/golden/LIST, `symprof
# convert [options] --no-symbolize --format F` of testdata/profiles/<input>, for F in
# raw and folded or the formats named, must equal testdata/golden/<input>.<optname>.<F>
# (regenerate: ./scripts/update-goldens).
# Writing pprof and reading it back must give the same raw dump.  The spec's worked
# heap_v2 example is also checked against the numbers in spec/FORMATS.md 2.2.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

golden=$SP_SRCDIR/testdata/golden
while read -r line; do
	sp_golden_case "$line" || continue
	input=$sp_g_input
	# shellcheck disable=SC2086 # options are words
	set -- $sp_g_opts
	name=$input.$(sp_optname "$@")
	for fmt in $sp_g_formats; do
		want=$golden/$name.$fmt
		sp_golden_convert "$fmt" "$input" "$@" >"$tmp/got" 2>"$tmp/err"
		rc=$?
		if [ "$rc" -ne 0 ]; then
			sp_ok 1 "$name.$fmt: convert exits 0 (got $rc)"
			sp_show_err
		elif [ ! -e "$want" ]; then
			sp_ok 1 "$name.$fmt: golden file missing (run scripts/update-goldens)"
		elif cmp -s "$tmp/got" "$want"; then
			sp_ok 0 "$name.$fmt matches the golden file"
		else
			sp_ok 1 "$name.$fmt matches the golden file"
			diff -u "$want" "$tmp/got" | head -n 30 | sed 's/^/#   /'
		fi
	done
done <"$golden/LIST"

# Round trip: read -> pprof -> read gives the same canonical dump.
for p in "$SP_SRCDIR"/testdata/profiles/*; do
	case $p in */README) continue ;; esac
	b=$(basename "$p")
	sp_run symprof convert --no-symbolize --format raw "$p"
	cp "$tmp/out" "$tmp/a.raw"
	sp_run symprof convert --no-symbolize "$p" -o "$tmp/rt.pb.gz"
	ok1=$rc
	sp_run symprof convert --no-symbolize --format raw "$tmp/rt.pb.gz"
	[ "$ok1" -eq 0 ] && [ "$rc" -eq 0 ] && [ -s "$tmp/a.raw" ] && cmp -s "$tmp/out" "$tmp/a.raw"
	sp_ok $? "$b: pprof round trip keeps the raw dump" || diff -u "$tmp/a.raw" "$tmp/out" | head -n 20 | sed 's/^/#   /'
	rm -f "$tmp/rt.pb.gz"
done

# spec/FORMATS.md 2.2: 1 object / 9216 B at R = 524288 unsamples to 57 / 528909; the PCs
# are return addresses, so every frame is the address minus one (spec 2.7), root first,
# named by its file and the offset in it (demo maps offset 0x1000 at 0x401000, libdemo.so.1
# offset 0 at 0x7f0000000000).
ex=$SP_SRCDIR/testdata/profiles/heap_v2-example.heap
sp_run symprof convert --no-symbolize "$ex"
[ "$(cat "$tmp/out")" = "demo+0x10ff;demo+0x1455;libdemo.so.1+0x1233 528909" ]
sp_ok $? "heap_v2 example: folded space is 528909 (spec 2.2)" || sp_diag "got: $(cat "$tmp/out")"
sp_run symprof convert --no-symbolize --sample-index objects "$ex"
[ "$(cat "$tmp/out")" = "demo+0x10ff;demo+0x1455;libdemo.so.1+0x1233 57" ]
sp_ok $? "heap_v2 example: folded objects is 57 (spec 2.2)" || sp_diag "got: $(cat "$tmp/out")"
if sp_have_go; then
	sp_run symprof convert --no-symbolize "$ex" -o "$tmp/ex.pb.gz"
	sp_run sp_gopprof -raw -symbolize=none "$tmp/ex.pb.gz"
	grep -Eq '^ +57 +528909: ' "$tmp/out"
	sp_ok $? "heap_v2 example: go tool pprof reads 57 528909 from our pprof" || sp_show_err
	# Independent check of the example itself: go tool pprof unsamples it the same way.
	sp_run sp_gopprof -raw -symbolize=none "$ex"
	grep -Eq '^ +57 +528909: ' "$tmp/out"
	sp_ok $? "heap_v2 example: go tool pprof reads 57 528909 from the input" || sp_show_err
fi
sp_done
