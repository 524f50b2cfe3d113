#!/bin/sh
# cli_reports.sh — end to end: graphs and reports of a real heap dump of the fixture
# program (testdata/src/fixture), made by `symprof convert` in one command each.
#
# The values are restated from testdata/src/fixture/fixture.h (count x size per allocation
# site) and the dump's own header (the total); graphviz (`dot`), poppler (`pdftoppm`,
# `pdftotext`), python3's XML parser and `go tool pprof` are the independent readers.
#   DOT      read back by `dot -Tsvg`; nodes and edges as go tool pprof -dot draws them
#            from symprof's pprof output of the same dump, for several option sets
#   PDF/SVG/PNG  magic bytes; the PDF's first page rasterized has ink and its text the
#            function names; the SVG is well-formed XML naming every allocation site
#   top      one exact row (flat, flat%, cum, cum%) per allocation site; the same table
#            as go tool pprof -top
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

sp_fixture_heap "$tmp" || { sed 's/^/# /' "$tmp/build.log"; sp_bail "fixture dump not recorded"; }
dump=$tmp/fixture.heap
# "heap profile: <inuse objects>: <inuse bytes> [...] @ heapprofile": the default
# sample type is inuse_space, so the total of every report is the inuse bytes.
total=$(sed -n '1s/^heap profile: *[0-9]*: *\([0-9]*\) .*/\1/p' "$dump")
[ -n "$total" ] || sp_bail "no total in the dump header"

# Every allocation site of fixture.h, then its callers that allocate nothing themselves
# (cum only): fixture::outer and fixture::middle hold the inlined inner_leaf's bytes,
# plugin_entry holds plugin_work's.
sites=$sp_fixture_sites
callers="7000 fixture::outer
7000 fixture::middle (inline)
12000 plugin_entry"

# pprof's renderings of a byte count in kB and of a share of the total (report.go,
# measurement.go): two decimals without trailing zeros; "100%", "%.2f%%" or "%.2g%%".
kb()
{
	awk -v b="$1" 'BEGIN { s = sprintf("%.2f", b / 1024); sub(/\.?0+$/, "", s); print s "kB" }'
}
pct()
{
	awk -v v="$1" -v t="$total" 'BEGIN {
		r = t ? 100 * v / t : 0; if (r < 0) r = -r
		if (r >= 99.95 && r <= 100.05) print "100%"
		else if (r >= 1) printf "%.2f%%\n", r
		else printf "%.2g%%\n", r }'
}

# --- top ----------------------------------------------------------------------------
sp_run symprof convert --demangle templates --unit kB "$dump" -o "$tmp/top.txt"
sp_ok "$rc" "convert -o top.txt exits 0" || sp_show_err
grep -q "^Type: inuse_space$" "$tmp/top.txt" &&
	grep -q "of $(kb "$total") total$" "$tmp/top.txt"
sp_ok $? "top: header names inuse_space and the dump's total $(kb "$total")" ||
	head -n 5 "$tmp/top.txt" | sed 's/^/#   /'
# row NAME FLAT CUM: the row of NAME has these values and percentages
row()
{
	r_flat=$2
	r_cum=$3
	want_flat=$(kb "$r_flat")
	want_cum=$(kb "$r_cum")
	[ "$r_flat" -eq 0 ] && want_flat=0
	want="$want_flat $(pct "$r_flat") $want_cum $(pct "$r_cum") $1"
	got=$(awk -v n="$1" '
		{ name = $0; sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+  /, "", name) }
		name == n { print $1, $2, $4, $5, name }' "$tmp/top.txt")
	[ "$got" = "$want" ]
	sp_ok $? "top: $want" || sp_diag "got: ${got:-no row}"
}
while read -r n size leaf; do
	b=$((n * size))
	case $leaf in fixture::inner_leaf) leaf="$leaf (inline)" ;; esac
	row "$leaf" "$b" "$b"
done <<EOF
$sites
EOF
while read -r b name; do
	row "$name" 0 "$b"
done <<EOF
$callers
EOF
sp_run symprof convert --demangle templates --format top "$dump"
cmp -s "$tmp/out" "$tmp/top.txt"
sp_ok $? "--format top to stdout is the .txt output"

# --- DOT ----------------------------------------------------------------------------
sp_run symprof convert "$dump" -o "$tmp/g.dot"
sp_ok "$rc" "convert -o g.dot exits 0" || sp_show_err
sp_run dot -Tsvg "$tmp/g.dot"
[ "$rc" -eq 0 ] && grep -q '<svg' "$tmp/out"
sp_ok $? "graphviz reads the DOT back (dot -Tsvg)" || sp_show_err
for f in fixture big_alloc inner_leaf plugin_work; do
	grep -q "label=\"[^\"]*$f" "$tmp/g.dot"
	sp_ok $? "DOT labels name $f"
done
sp_run symprof convert "$dump" -o "$tmp/again.dot"
cmp -s "$tmp/again.dot" "$tmp/g.dot"
sp_ok $? "two conversions to DOT give identical bytes"

# Against go tool pprof on our pprof output of the same dump.
if sp_have_go; then
	sp_run symprof convert "$dump" -o "$tmp/g.pb.gz"
	for opts in "" "--nodecount 5" "--lines" "--focus plugin" "--ignore big_alloc" \
		"--sample-index alloc_objects" "--nodefraction 0.001" "--edgefraction 0.01" \
		"--files" "--functions" "--unit MB"; do
		sp_reports_agree "$dump" "$tmp/g.pb.gz" "$opts"
	done
else
	sp_skip "go not installed: DOT and top not compared with go tool pprof"
fi

# --- merge of two real dumps (each PIE run has its own load addresses) ---------------
(cd "$tmp/fix" && env HEAPPROFILE="$tmp/second" ./fixture) >/dev/null 2>&1 &&
	mv "$tmp/second.0001.heap" "$tmp/second.heap" || sp_bail "second fixture dump not recorded"
sp_run symprof convert --unit kB --format top "$dump" "$tmp/second.heap"
grep -Eq "^ +2048kB +[0-9.]+% +[0-9.]+% +2048kB +[0-9.]+%  fixture::big_alloc$" "$tmp/out"
sp_ok $? "merged top: fixture::big_alloc twice 16 x 64 KiB = 2048kB" || sp_show_err
if sp_have_go; then
	sp_run symprof convert "$dump" "$tmp/second.heap" -o "$tmp/merged.pb.gz"
	sp_run symprof convert "$tmp/second.heap" -o "$tmp/second.pb.gz"
	sp_gopprof -top -symbolize=none "$tmp/merged.pb.gz" >"$tmp/ours.top" 2>"$tmp/err"
	sp_gopprof -top -symbolize=none "$tmp/g.pb.gz" "$tmp/second.pb.gz" >"$tmp/theirs.top" 2>>"$tmp/err"
	[ -s "$tmp/ours.top" ] && cmp -s "$tmp/ours.top" "$tmp/theirs.top"
	sp_ok $? "merged pprof: go tool pprof -top of it = go's own merge of the two conversions" ||
		diff "$tmp/ours.top" "$tmp/theirs.top" | head -n 8 | sed 's/^/#   /'
fi

# --- PDF, SVG, PNG ------------------------------------------------------------------
magic()
{
	[ "$(head -c "$2" "$1" | od -An -tx1 | tr -d ' \n')" = "$3" ]
}
for ext in pdf svg png; do
	sp_run symprof convert --demangle templates "$dump" -o "$tmp/g.$ext"
	sp_ok "$rc" "convert -o g.$ext exits 0" || sp_show_err
done
sp_check "PDF starts with %PDF-" magic "$tmp/g.pdf" 5 255044462d
# --format wins over the extension of -o.
sp_run symprof convert --format pdf "$dump" -o "$tmp/g.out"
sp_check "--format pdf -o g.out writes a PDF" magic "$tmp/g.out" 5 255044462d
sp_run symprof convert "$dump" -o "$tmp/f.flame.svg"
sp_run symprof convert --format flamegraph "$dump" -o "$tmp/f.svg"
sp_check "--format flamegraph -o f.svg is what -o f.flame.svg writes" cmp -s "$tmp/f.svg" "$tmp/f.flame.svg"
sp_check "PNG has the PNG signature" magic "$tmp/g.png" 8 89504e470d0a1a0a
sp_check "SVG is an XML document" grep -q '<svg' "$tmp/g.svg"
if command -v python3 >/dev/null 2>&1; then
	ink()
	{
		# shellcheck disable=SC2046 # three numbers
		set -- $(python3 "$SP_SRCDIR/tests/helpers/png_ink.py" "$1" 2>/dev/null)
		[ $# -eq 3 ] && [ "$3" -gt 5000 ] && [ "$3" -gt $(($1 * $2 / 50)) ]
	}
	if command -v pdftoppm >/dev/null 2>&1; then
		pdftoppm -png -r 50 -f 1 -l 1 -singlefile "$tmp/g.pdf" "$tmp/page" 2>/dev/null
		sp_check "PDF page 1 rasterized has ink on over 2% of its pixels" ink "$tmp/page.png"
	else
		sp_skip "pdftoppm not installed"
	fi
	sp_check "PNG has ink on over 2% of its pixels" ink "$tmp/g.png"
	# Every text and tooltip of the SVG, one per line, read by an XML parser.
	python3 - "$tmp/g.svg" >"$tmp/svg.txt" 2>"$tmp/err" <<'EOF'
import sys
import xml.etree.ElementTree as ET
for e in ET.parse(sys.argv[1]).iter():
    if e.text and e.text.strip():
        print(e.text.strip())
    for k, v in e.attrib.items():
        if k.endswith("title"):
            print(v)
EOF
	sp_ok $? "SVG is well-formed XML" || sp_show_err
	while read -r n size leaf; do
		grep -Fq -- "$leaf ($(kb $((n * size))))" "$tmp/svg.txt"
		sp_ok $? "SVG: tooltip of $leaf with its $(kb $((n * size)))"
	done <<EOF
$sites
EOF
else
	sp_skip "python3 not installed: images not inspected"
fi
if command -v pdftotext >/dev/null 2>&1; then
	pdftotext "$tmp/g.pdf" "$tmp/pdf.txt" 2>/dev/null
	for f in big_alloc inner_leaf plugin_work alloc_in_main "fill<double>"; do
		grep -Fq -- "$f" "$tmp/pdf.txt"
		sp_ok $? "PDF text names $f"
	done
	grep -Fq "$(kb 1048576) ($(pct 1048576))" "$tmp/pdf.txt"
	sp_ok $? "PDF text: big_alloc's $(kb 1048576) ($(pct 1048576))"
else
	sp_skip "pdftotext not installed"
fi
sp_done
