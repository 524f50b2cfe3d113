#!/bin/sh
# cli_report_overflow.sh — reports of values near the 64-bit limit (issue 11, finding 5).
#
# The report totals |value| over all samples in 64 bits.  A profile whose values do not
# total within 2^63-1 (or holds -2^63) is refused with an error naming the input, the
# sample type and the sample where the total overflows, instead of printing a wrapped
# total ("-2 total") and exiting 0.  Just below the limit every sum fits, and the DOT
# edge attributes, computed as weight * 100 / total, are those of the formula (dot.c):
# weight 1 + min(100 * w / total, 100), pen width 1 + min(5 * w / total, 5).
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

max=9223372036854775807 # 2^63-1

# Two stacks of 2^63-1 each: their total is 2^64-2.
printf 'main;a %s\nmain;b %s\n' "$max" "$max" >"$tmp/twice.folded"
# 2^63-1 - 807 + 1000: over the limit by 193.
printf 'main;a 9223372036854775000\nmain;b 1000\n' >"$tmp/over.folded"
# Raw stacks carry signed values: -2^63 has no absolute value in 64 bits.
printf '# symprof raw stacks v1\n-9223372036854775808 @ 0x401005 0x402010\n' >"$tmp/min.raw"
# 2^62 + (2^62-1) = 2^63-1: exactly at the limit.
printf 'main;a 4611686018427387904\nmain;b 4611686018427387903\n' >"$tmp/edge.folded"

# refused INPUT FORMAT SAMPLE VALUE: the conversion fails and says why.
refused()
{
	sp_run symprof convert --no-symbolize --format "$2" "$tmp/$1" -o "$tmp/out.$2"
	[ "$rc" -ne 0 ]
	sp_ok $? "$1 --format $2: refused (exit $rc)" || head -n 3 "$tmp/out.$2" | sp_diag
	want="symprof: $tmp/$1: report: the values of sample type \"samples\" add up to more than 2^63-1 at sample $3 of"
	grep -qF "$want" "$tmp/err" && grep -qF "(value $4); too large to total" "$tmp/err"
	sp_ok $? "$1 --format $2: the error names the input, the sample and its value" ||
		sp_show_err
	[ ! -e "$tmp/out.$2" ]
	sp_ok $? "$1 --format $2: no output file left"
}
for fmt in top dot svg; do
	refused twice.folded "$fmt" 2 "$max"
done
refused over.folded top 2 1000
refused over.folded dot 2 1000
refused min.raw top 1 -9223372036854775808
refused min.raw dot 1 -9223372036854775808

# At the limit: a report, no sanitizer complaint, the exact total.
sp_run symprof convert --format top "$tmp/edge.folded"
sp_ok "$rc" "edge.folded --format top: exits 0" || sp_show_err
! grep -q "runtime error" "$tmp/err"
sp_ok $? "edge.folded --format top: no undefined behaviour reported" || sp_show_err
# The total is shown as %.2f of the double nearest 2^63-1, which is 2^63.
grep -qx "Showing nodes accounting for 9223372036854775808, 100% of 9223372036854775808 total" \
	"$tmp/out"
sp_ok $? "edge.folded --format top: the total, positive" || sed -n 2p "$tmp/out" | sp_diag
awk '$NF == "a" && $2 == "50.00%" && $5 == "50.00%" { a = 1 }
	$NF == "b" && $2 == "50.00%" && $3 == "100%" { b = 1 }
	$NF == "main" && $5 == "100%" { m = 1 }
	END { exit !(a && b && m) }' "$tmp/out"
sp_ok $? "edge.folded --format top: a and b 50% each, main 100% cum" || sp_diag "$(cat "$tmp/out")"

sp_run symprof convert --format dot "$tmp/edge.folded" -o "$tmp/edge.dot"
sp_ok "$rc" "edge.folded --format dot: exits 0" || sp_show_err
! grep -q "runtime error" "$tmp/err"
sp_ok $? "edge.folded --format dot: no undefined behaviour reported" || sp_show_err
# stmt HEAD: statement HEAD of the DOT text ("N1", "N3 -> N1"), attributes and all, on
# one line (graphviz writes one attribute per line).
stmt()
{
	tr -d '\n\t' <"$tmp/edge.dot" | tr ';' '\n' | grep -F "$1[" | head -n 1
}
# edge_attrs LEAF: the statement of the edge main -> LEAF.
edge_attrs()
{
	tr -d '\n\t' <"$tmp/edge.dot" | tr ';' '\n' | grep -F "tooltip=\"main -> $1 (" | head -n 1
}
# a: 2^62 * 100 / (2^63-1) = 50.000... => weight 51; * 5 => 2.5 => pen width 3.
edge_attrs a | grep -q "penwidth=3.*weight=51"
sp_ok $? "edge.folded dot: main -> a has weight=51 and penwidth=3" || sp_diag "$(edge_attrs a)"
# b: (2^62-1) * 100 / (2^63-1) = 49.999... => weight 50.
edge_attrs b | grep -q "penwidth=3.*weight=50"
sp_ok $? "edge.folded dot: main -> b has weight=50 and penwidth=3" || sp_diag "$(edge_attrs b)"
# The heavier leaf a comes first (N1): its entropy score saturates, it does not wrap.
stmt N1 | grep -qF 'label="a\n'
sp_ok $? "edge.folded dot: a is N1" || sp_diag "$(stmt N1)"

sp_done
