#!/bin/sh
# cli_flamegraph.sh — the flame graph's flamegraph.pl options, read back from the SVG.
#
# The input is a folded profile written here (total 1000 samples), so every width,
# omission and merge below follows from its values:
#   main;a;x 600   main;a;y 300   main;b;x 90   main;c 9   other 1
# Each SVG is parsed with python3's xml.etree (tests' own small reader, below) into
# lines "frame NAME DEPTH VALUE X Y WIDTH HEIGHT FILL", "title T", "subtitle T",
# "svg WIDTH HEIGHT SEARCHCOLOUR", "legend LABEL FILL" and "tip NAME|TOOLTIP".
# Also: --unit on a heap profile (title "inuse_space (bytes)", tooltips in kB),
# determinism, and the usage errors for options the chosen format does not use.
# shellcheck disable=SC2016 # awk conditions are single-quoted on purpose
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP python3 not installed"; exit 0; }

cat >"$tmp/in.folded" <<'EOF'
main;a;x 600
main;a;y 300
main;b;x 90
main;c 9
other 1
EOF
cat >"$tmp/facts.py" <<'EOF'
import sys
import xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
svg = ET.parse(sys.argv[1]).getroot()
print('svg', svg.get('width'), svg.get('height'), svg.get('data-search-color'))
for t in svg.iter(ns + 'text'):
    if t.get('id') in ('title', 'subtitle'):
        print(t.get('id'), t.text or '')
for g in svg.iter(ns + 'g'):
    if g.get('id') == 'kind-legend':
        rects = g.findall(ns + 'rect')
        texts = g.findall(ns + 'text')
        for r, t in zip(rects, texts):
            print('legend', t.text, r.get('fill'))
    if g.get('class') == 'f':
        r = g.find(ns + 'rect')
        print('frame', g.get('data-n'), g.get('data-d'), g.get('data-v'), r.get('x'),
              r.get('y'), r.get('width'), r.get('height'), r.get('fill'))
        print('tip', g.get('data-n') + '|' + g.find(ns + 'title').text)
EOF

# flame NAME OPTIONS...: converts the input with OPTIONS into $tmp/NAME.svg and its
# facts into $tmp/NAME.facts.
flame()
{
	fl_name=$1
	shift
	sp_run symprof convert -q --format flamegraph "$@" -o "$tmp/$fl_name.svg"
	sp_ok "$rc" "convert --format flamegraph $*" || sp_show_err
	python3 "$tmp/facts.py" "$tmp/$fl_name.svg" >"$tmp/$fl_name.facts"
	sp_ok $? "$fl_name: the SVG parses as XML"
}
# fact FILE AWK-CONDITION: some line of FILE.facts meets the condition.
fact()
{
	awk "$2 { found = 1 } END { exit !found }" "$tmp/$1.facts"
}

# (a) title, subtitle, image width, frame height
flame sized "$tmp/in.folded" --title "My title" --subtitle "A subtitle" --width 1000 --height 20
fact sized '$1 == "title" && $0 == "title My title"'
sp_ok $? "--title: the title text"
fact sized '$1 == "subtitle" && $0 == "subtitle A subtitle"'
sp_ok $? "--subtitle: the subtitle text"
fact sized '$1 == "svg" && $2 == 1000'
sp_ok $? "--width 1000: the svg is 1000 wide"
! fact sized '$1 == "frame" && $8 != 19'
sp_ok $? "--height 20: every frame rect is 19 high (one pixel between rows)"
# root 1000 of 1000 spans 1000 - 2 * 10 px; main;a 900 -> 882 px
fact sized '$1 == "frame" && $2 == "all" && $7 == "980.00"' &&
	fact sized '$1 == "frame" && $2 == "a" && $7 == "882.00"'
sp_ok $? "--width 1000: the root spans 980 px, a (900 of 1000) 882 px"
y_all=$(awk '$1 == "frame" && $2 == "all" { print $6 }' "$tmp/sized.facts")
y_main=$(awk '$1 == "frame" && $2 == "main" { print $6 }' "$tmp/sized.facts")
awk -v a="$y_all" -v m="$y_main" 'BEGIN { exit !(a - m == 20) }'
sp_ok $? "--height 20: rows 20 px apart, root at the bottom (y $y_all, main $y_main)"

flame plain "$tmp/in.folded"
fact plain '$1 == "title" && $0 == "title samples (count)"'
sp_ok $? "default title: sample type and unit"
! grep -q '^subtitle' "$tmp/plain.facts" && fact plain '$1 == "svg" && $2 == 1200'
sp_ok $? "defaults: no subtitle, 1200 wide"
! fact plain '$1 == "frame" && $8 != 15'
sp_ok $? "default frame height 16: rects 15 high"

# (b) --minwidth: width = 1180 * value / 1000 px by default
fact plain '$1 == "frame" && $2 == "other"'
sp_ok $? "default minwidth (0.1% of the total): other (1 of 1000) is drawn"
flame min5 "$tmp/in.folded" --minwidth 5
! fact min5 '$1 == "frame" && $2 == "other"' && fact min5 '$1 == "frame" && $2 == "c"'
sp_ok $? "--minwidth 5: other (1.18 px) left out, c (10.62 px) drawn"
flame min11 "$tmp/in.folded" --minwidth 11
! fact min11 '$1 == "frame" && $2 == "c"' && fact min11 '$1 == "frame" && $2 == "b"' &&
	fact min11 '$1 == "frame" && $2 == "x" && $4 == 90'
sp_ok $? "--minwidth 11: c (10.62 px) left out, b and its x (106.2 px) drawn"
flame minpct "$tmp/in.folded" --minwidth 1%
! fact minpct '$1 == "frame" && ($2 == "c" || $2 == "other")' &&
	fact minpct '$1 == "frame" && $2 == "b"'
sp_ok $? "--minwidth 1%: c (0.9%) and other left out, b (9%) drawn"

# (c) --inverted: the root at the top
flame icicle "$tmp/in.folded" --inverted
y_all=$(awk '$1 == "frame" && $2 == "all" { print $6 }' "$tmp/icicle.facts")
y_main=$(awk '$1 == "frame" && $2 == "main" { print $6 }' "$tmp/icicle.facts")
y_a=$(awk '$1 == "frame" && $2 == "a" { print $6 }' "$tmp/icicle.facts")
awk -v r="$y_all" -v m="$y_main" -v a="$y_a" 'BEGIN { exit !(r < m && m < a) }'
sp_ok $? "--inverted: root above main above a (y $y_all < $y_main < $y_a)"

# (d) --reverse: stacks leaf first, merged by leaf
flame rev "$tmp/in.folded" --reverse
fact rev '$1 == "frame" && $2 == "x" && $3 == 1 && $4 == 690' &&
	[ "$(awk '$1 == "frame" && $2 == "x"' "$tmp/rev.facts" | wc -l)" -eq 1 ]
sp_ok $? "--reverse: x is one frame over the root with 600 + 90"
fact rev '$1 == "frame" && $2 == "a" && $3 == 2 && $4 == 600' &&
	fact rev '$1 == "frame" && $2 == "b" && $3 == 2 && $4 == 90' &&
	fact rev '$1 == "frame" && $2 == "main" && $3 == 3 && $4 == 600'
sp_ok $? "--reverse: x's callers a (600) and b (90), then main"
[ "$(awk '$1 == "frame" && $2 == "x"' "$tmp/plain.facts" | wc -l)" -eq 2 ] &&
	fact plain '$1 == "frame" && $2 == "main" && $3 == 1 && $4 == 999'
sp_ok $? "without --reverse: x twice (under a and b), main 999 over the root"

# (e) colours and the legend
for k in inline JIT kernel unresolved; do
	fact plain "\$1 == \"legend\" && \$2 == \"$k\""
	sp_ok $? "the default palette has a legend entry '$k'"
done
hue()
{
	awk -v n="$2" '$1 == "frame" && $2 == n { print $9; exit }' "$tmp/$1.facts" |
		sed 's/rgb(\(.*\))/\1/; s/,/ /g'
}
flame hot "$tmp/in.folded" --colors hot
! grep -q '^legend' "$tmp/hot.facts"
sp_ok $? "--colors hot: no kind legend"
# shellcheck disable=SC2046 # three words
set -- $(hue hot main)
[ "$#" -eq 3 ] && [ "$1" -ge 205 ] && [ "$2" -le 230 ] && [ "$3" -le 55 ]
sp_ok $? "--colors hot: main is warm: rgb($*)"
flame mem "$tmp/in.folded" --colors mem
# shellcheck disable=SC2046 # three words
set -- $(hue mem main)
[ "$#" -eq 3 ] && [ "$1" -eq 0 ] && [ "$2" -ge 190 ]
sp_ok $? "--colors mem: main is green-blue: rgb($*)"
flame io "$tmp/in.folded" --colors io
# shellcheck disable=SC2046 # three words
set -- $(hue io main)
[ "$#" -eq 3 ] && [ "$1" -eq "$2" ] && [ "$3" -ge 190 ]
sp_ok $? "--colors io: main is blue: rgb($*)"
flame again "$tmp/in.folded"
sp_check "same input, same bytes" cmp -s "$tmp/plain.svg" "$tmp/again.svg"

# (f) tooltips, --countname, --search-color
fact plain '$1 == "tip" && $0 == "tip x|x (600 samples, 60.00%)"'
sp_ok $? "tooltip: value in samples and share"
flame counted "$tmp/in.folded" --countname widgets --search-color '#00ff00'
fact counted '$1 == "tip" && $0 == "tip a|a (900 widgets, 90.00%)"'
sp_ok $? "--countname widgets: the tooltip's word"
fact counted '$1 == "svg" && $4 == "#00ff00"' && grep -q "setAttribute('fill', SEARCH)" "$tmp/counted.svg"
sp_ok $? "--search-color: the colour the search script paints with"
fact plain '$1 == "svg" && $4 == "rgb(230,0,230)"'
sp_ok $? "default search colour rgb(230,0,230)"

# (g) --unit on a heap profile: 12288 bytes in use
heap=$SP_SRCDIR/testdata/profiles/heapprofile-small.heap
flame heap "$heap" --no-symbolize
fact heap '$1 == "title" && $0 == "title inuse_space (bytes)"' &&
	fact heap '$1 == "tip" && $0 == "tip all|all (12288 bytes, 100.00%)"'
sp_ok $? "heap: title inuse_space (bytes), tooltip in bytes"
flame heapkb "$heap" --no-symbolize --unit kB
fact heapkb '$1 == "title" && $0 == "title inuse_space (kB)"' &&
	fact heapkb '$1 == "tip" && $0 == "tip all|all (12 kB, 100.00%)"' &&
	fact heapkb '$1 == "tip" && /\(8 kB, 66.67%\)$/'
sp_ok $? "--unit kB: title inuse_space (kB), tooltips 12 kB (100%) and 8 kB (66.67%)"
# unresolved frames (--no-symbolize) are grey
# shellcheck disable=SC2046 # three words
set -- $(hue heap "demo+0x1234")
[ "$#" -eq 3 ] && [ "$1" -eq "$2" ] && [ "$2" -eq "$3" ] && [ "$1" -ge 160 ] && [ "$1" -le 200 ]
sp_ok $? "an unresolved frame is grey: rgb($*)"

# (h) options the format does not use are refused: one line, exit 2
refused()
{
	rf_msg=$1
	shift
	sp_run symprof convert -q "$@"
	[ "$rc" -eq 2 ] && [ "$(sed -n 1p "$tmp/err")" = "symprof convert: $rf_msg" ] &&
		[ "$(wc -l <"$tmp/err")" -eq 2 ] && [ ! -s "$tmp/out" ]
	sp_ok $? "$*: exit 2 (got $rc), '$rf_msg'" || sp_show_err
}
for opt in "--subtitle s" "--width 800" "--height 20" "--minwidth 1" "--colors hot" \
	"--reverse" "--inverted" "--countname n" "--search-color red"; do
	# shellcheck disable=SC2086 # option and argument are words
	refused "${opt%% *} applies only to --format flamegraph, not folded" \
		$opt "$tmp/in.folded" --format folded
done
refused "--width applies only to --format flamegraph, not top" \
	--width 800 "$tmp/in.folded" --format top
refused "--nodecount applies only to --format dot, pdf, svg, png, top, html, list, disasm, not flamegraph" \
	--nodecount 3 "$tmp/in.folded" --format flamegraph
refused "--annotate applies only to --format folded, folded-diff, not top" \
	--annotate "$tmp/in.folded" --format top
refused "--title applies only to --format dot, pdf, svg, png, flamegraph, html, not folded" \
	--title t "$tmp/in.folded"
refused "--colors expects java, hot, mem or io, got 'rainbow'" \
	--colors rainbow "$tmp/in.folded" --format flamegraph
refused "--width expects a number from 200 to 100000, got '12'" \
	--width 12 "$tmp/in.folded" --format flamegraph
refused "--minwidth expects pixels (0.1) or a percentage of the total (0.5%), got 'x%'" \
	--minwidth x% "$tmp/in.folded" --format flamegraph
refused "--search-color expects a colour such as 'rgb(230,0,230)', '#e600e6' or 'magenta', got 'a\"b'" \
	--search-color 'a"b' "$tmp/in.folded" --format flamegraph

# A stack deeper than the graph draws (4096 frames above the root): 5000 frames of
# deep;d1;...;d4999 with 7 samples, beside a shallow stack.  The graph stops at depth
# 4096 with one frame saying so, carrying the 7 samples; the shallow stack is whole.
awk 'BEGIN { s = "deep"; for (i = 1; i < 5000; i++) s = s ";d" i; print s, 7; print "main;a 3" }' \
	>"$tmp/deep.folded"
flame deep "$tmp/deep.folded"
grep -q '^frame \[deeper frames not drawn\] 4096 7 ' "$tmp/deep.facts"
sp_ok $? "deep stack: one '[deeper frames not drawn]' frame at depth 4096 with its 7 samples"
sp_check "deep stack: frames up to d4094 drawn, none deeper" \
	sh -c "grep -q 'data-n=\"d4094\"' '$tmp/deep.svg' && ! grep -q 'data-n=\"d4095\"' '$tmp/deep.svg'"
fact deep '$1 == "frame" && $2 == "a" && $3 == 2 && $4 == 3'
sp_ok $? "deep stack: the shallow stack main;a keeps its 3 samples"

sp_done
