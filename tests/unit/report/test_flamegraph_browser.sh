#!/bin/sh
# test_flamegraph_browser.sh — flame graphs opened in headless Chromium.
#
# (a) The small synthetic graph of tests/helpers/report_sample, loaded with "#zoom=work": the
#     dumped DOM shows the zoom (work spans the width, its caller main is a parent, the
#     other frames are hidden).
# (b) The flame graph `symprof convert` makes from a real heap dump of the fixture
#     (testdata/src/fixture), driven over the DevTools protocol (tests/helpers/flamegraph_cdp.py): every
#     allocation site of fixture.h is drawn (the middle of its box hits it) with a width
#     in proportion to its bytes; a real mouse click on fixture::outer zooms on it: outer
#     and its inlined callees span the width, main becomes a parent, big_alloc is hidden.
# (c) An icicle graph (--inverted) with --search-color, loaded with "#search=parse":
#     the matches are painted in that colour, the others keep theirs, and the share of
#     the matches (45 + 10 of 100 samples) is shown.
# The browser runs without network, with a new profile, each run bounded in time.
# Installs nothing; skips when Chromium or python3 is absent.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}/tests/helpers/cli_lib.sh"

chromium=$(sp_chromium) || { echo "1..0 # SKIP chromium not installed"; exit 0; }
command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP python3 not installed"; exit 0; }
flags="--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
--disable-background-networking --disable-component-update --disable-sync"

# (a) synthetic graph, zoom from the URL fragment.
"$SP_BUILDDIR/tests/helpers/report_sample" flame >"$tmp/f.svg"
# shellcheck disable=SC2086 # flags are words
timeout 60 "$chromium" $flags --user-data-dir="$tmp/profile" --virtual-time-budget=2000 \
	--dump-dom "file://$tmp/f.svg#zoom=work" >"$tmp/dom.xml" 2>/dev/null
dom_has()
{
	grep -q -- "$2" "$tmp/dom.xml"
	sp_ok $? "synthetic: $1"
}
dom_has "zoom applied from the URL fragment" 'data-zoom="work"'
dom_has "zoomed frame spans the width" 'data-n="work"[^>]*>.*<rect x="10" [^>]*width="1180"'
dom_has "caller marked as parent" 'class="f parent"[^>]*data-n="main"'
dom_has "frames outside the zoom hidden" 'class="f hide"[^>]*data-n="libfoo.so+0x1000'

# (b) real fixture dump.
sp_fixture_heap "$tmp" || { sed 's/^/# /' "$tmp/build.log"; sp_bail "fixture dump not recorded"; }
sp_run symprof convert --demangle templates "$tmp/fixture.heap" -o "$tmp/fixture.flame.svg"
sp_ok "$rc" "convert fixture dump -o fixture.flame.svg" || sp_show_err
python3 "$SP_SRCDIR/tests/helpers/flamegraph_cdp.py" "$chromium" "$tmp/fixture.flame.svg" \
	fixture::outer ${SP_SHOTS:+"$SP_SHOTS"} >"$tmp/cdp" 2>"$tmp/err"
sp_ok $? "Chromium opens the flame graph and takes a click" || sp_show_err

# field F of the widest line "KIND<TAB>NAME..." (widths are field 5 before, 4 after)
field()
{
	awk -F '\t' -v k="$1" -v n="$2" -v f="$3" -v wf="$4" '
		$1 == k && $2 == n && (!seen || $wf + 0 > best) { best = $wf + 0; v = $f; seen = 1 }
		END { if (!seen) exit 1; print v }' "$tmp/cdp"
}
big_w=$(field before fixture::big_alloc 5 5) || big_w=0
while read -r n size leaf; do
	bytes=$((n * size))
	w=$(field before "$leaf" 5 5) && shown=$(field before "$leaf" 7 5) && [ "$shown" = 1 ]
	sp_ok $? "$leaf is drawn and on top at the middle of its box" || continue
	# width in proportion to the bytes, within rounding of the 2-decimal widths
	awk -v w="$w" -v b="$big_w" -v v="$bytes" \
		'BEGIN { d = w - b * v / 1048576; exit !(b > 900 && d < 0.03 && d > -0.03) }'
	sp_ok $? "$leaf: width $w is $bytes/1048576 of big_alloc's $big_w"
done <<EOF
$sp_fixture_sites
EOF
for f in main fixture::outer fixture::middle; do
	[ "$(field before "$f" 7 5)" = 1 ]
	sp_ok $? "$f is drawn"
done

# After the click on fixture::outer (7 x 1000 bytes, all in the inlined inner_leaf).
grep -q "$(printf '^zoom\tfixture::outer$')" "$tmp/cdp"
sp_ok $? "click zoomed on fixture::outer" || grep '^zoom' "$tmp/cdp" | sed 's/^/#   /'
for f in fixture::outer fixture::middle fixture::inner_leaf; do
	[ "$(field after "$f" 3 4)" = 10.00 ] && [ "$(field after "$f" 4 4)" = 1180.00 ]
	sp_ok $? "after the click $f spans the width" ||
		grep -F "$(printf 'after\t%s\t' "$f")" "$tmp/cdp" | sed 's/^/#   /'
done
case $(field after main 5 4) in
*parent*) sp_ok 0 "after the click main is drawn as a parent" ;;
*) sp_ok 1 "after the click main is drawn as a parent" ;;
esac
case $(field after fixture::big_alloc 5 4) in
*hide*) sp_ok 0 "after the click fixture::big_alloc is hidden" ;;
*) sp_ok 1 "after the click fixture::big_alloc is hidden" ;;
esac

# (c) search colour and icicle layout, from the URL fragment.
printf 'main;parse;read 45\nmain;parse 10\nmain;draw 45\n' >"$tmp/s.folded"
sp_run symprof convert -q "$tmp/s.folded" --inverted --search-color '#00ff00' -o "$tmp/s.flame.svg"
sp_ok "$rc" "convert --inverted --search-color" || sp_show_err
# shellcheck disable=SC2086 # flags are words
timeout 60 "$chromium" $flags --user-data-dir="$tmp/profile" --virtual-time-budget=2000 \
	--dump-dom "file://$tmp/s.flame.svg#search=parse" >"$tmp/dom.xml" 2>/dev/null
grep -q 'data-n="parse"[^>]*>.*<rect [^>]*fill="#00ff00"' "$tmp/dom.xml"
sp_ok $? "search matches painted in the --search-color"
! grep -q 'data-n="draw"[^>]*>.*<rect [^>]*fill="#00ff00"' "$tmp/dom.xml"
sp_ok $? "search: other frames keep their colour"
grep -q 'data-matched="Matched: 55.0%"' "$tmp/dom.xml"
sp_ok $? "search: the share of the matches"
sp_done
