#!/bin/sh
# cli_min_resolved.sh — `convert --min-resolved PERCENT` exits 3 when fewer frames than
# that, weighted by their samples, resolved (so a CI job fails on a broken symbol setup);
# the output is written all the same.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

fix=$tmp/fix
"$SP_SRCDIR/testdata/src/fixture/build.sh" "$fix" >"$tmp/build.log" 2>&1 ||
	{ sed 's/^/# /' "$tmp/build.log"; sp_bail "fixture does not build"; }
main=$(nm "$fix/fixture" | awk '$3 == "main" { print $1 }')
[ -n "$main" ] || sp_bail "no main in the fixture's symbol table"

# Two samples: 3 x (main, 0x10) and 1 x (0x20).  main resolves in the fixture; 0x10 and
# 0x20 are in no mapping.  Frames by weight: 3 of 3 + 3 + 1 = 7 resolved, 42.86 %.
cat >"$tmp/stacks.txt" <<EOF
# symprof raw stacks v1
addresses: exact
3 @ $(printf '0x%x' $((0x555555554000 + 0x$main + 4))) 0x10
1 @ 0x20
--- Memory map: ---
555555554000-555555600000 r-xp 00000000 08:01 1 $fix/fixture
EOF

sp_run symprof convert -q --min-resolved 42.8 "$tmp/stacks.txt" -o "$tmp/ok.folded"
[ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ] && grep -qx '0x10;main 3' "$tmp/ok.folded"
sp_ok $? "42.9 % resolved, --min-resolved 42.8: exit 0 (got $rc)" || sp_show_err

sp_run symprof convert -q --min-resolved 43 "$tmp/stacks.txt" -o "$tmp/low.folded"
[ "$rc" -eq 3 ]
sp_ok $? "42.9 % resolved, --min-resolved 43: exit 3 (got $rc)"
[ "$(cat "$tmp/err")" = "symprof convert: $tmp/stacks.txt: 42.9% of frames resolved (by sample weight), fewer than --min-resolved 43" ]
sp_ok $? "the message names the input, the share and the threshold" || sp_show_err
cmp -s "$tmp/low.folded" "$tmp/ok.folded"
sp_ok $? "the output is written all the same"

sp_run symprof convert -q --min-resolved 100 --sample-index 0 \
	"$SP_SRCDIR/testdata/profiles/folded-example.folded" -o "$tmp/f.folded"
[ "$rc" -eq 0 ]
sp_ok $? "folded stacks resolve fully: --min-resolved 100 passes (got $rc)"

sp_run symprof convert -q --each --min-resolved 50 -o "$tmp/each" "$tmp/stacks.txt" \
	"$SP_SRCDIR/testdata/profiles/folded-example.folded"
[ "$rc" -eq 3 ] && grep -q "^symprof convert: $tmp/stacks.txt: 42.9% of frames resolved" "$tmp/err" &&
	! grep -q "folded-example.folded: .*% of frames" "$tmp/err" && [ -s "$tmp/each/stacks.txt.pb.gz" ]
sp_ok $? "--each: the input below the threshold is named, the run exits 3" || sp_show_err
# -j 2: the first input converts in the parent, the one below the threshold in a worker
cp "$SP_SRCDIR/testdata/profiles/folded-example.folded" "$tmp/second.folded"
sp_run symprof convert -q --each -j 2 --min-resolved 50 -o "$tmp/each-j" \
	"$SP_SRCDIR/testdata/profiles/folded-example.folded" "$tmp/stacks.txt" "$tmp/second.folded"
[ "$rc" -eq 3 ] && grep -q "^symprof convert: $tmp/stacks.txt: 42.9% of frames resolved" "$tmp/err" &&
	[ "$(grep -c "% of frames" "$tmp/err")" -eq 1 ] && [ "$(ls "$tmp/each-j" | wc -l)" -eq 3 ]
sp_ok $? "--each -j 2: an input below the threshold in a worker: exit 3" || sp_show_err

for bad in 101 -1 x; do
	sp_run symprof convert --min-resolved "$bad" "$tmp/stacks.txt"
	[ "$rc" -eq 2 ] && grep -q 'min-resolved expects a percentage in \[0, 100\]' "$tmp/err"
	sp_ok $? "--min-resolved $bad: usage error" || sp_show_err
done

sp_done
