#!/bin/sh
# cli_sample_index.sh — --sample-index is checked against the profile (an unknown name
# is an error naming the types it has) and applies to pprof output too: it becomes the
# profile's default sample type, so `go tool pprof` opens on that column.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

# heap_v2-example.heap: one stack, unsampled to 57 objects and 528909 bytes, columns
# objects/count and space/bytes, no default type (pprof then opens on the last, space).
heap=$SP_SRCDIR/testdata/profiles/heap_v2-example.heap
[ -x "$SP_BUILDDIR/tests/helpers/pprof_tool" ] || sp_bail "tests/helpers/pprof_tool is not built (make check builds it)"
dump()
{
	"$SP_BUILDDIR/tests/helpers/pprof_tool" dump "$1" | sed -n '/^Samples:/{n;p;q}'
}

sp_run symprof convert -q "$heap" -o "$tmp/default.pb.gz"
[ "$rc" -eq 0 ] && [ "$(dump "$tmp/default.pb.gz")" = "objects/count space/bytes" ]
sp_ok $? "without --sample-index the pprof output names no default (pprof takes the last)" || sp_diag "$(dump "$tmp/default.pb.gz")"

for idx in inuse_objects objects 0; do
	sp_run symprof convert -q --sample-index "$idx" "$heap" -o "$tmp/objects.pb.gz"
	[ "$rc" -eq 0 ] && [ "$(dump "$tmp/objects.pb.gz")" = "objects/count[dflt] space/bytes" ]
	sp_ok $? "--sample-index $idx: objects is the pprof output's default type" ||
		sp_diag "$(dump "$tmp/objects.pb.gz")"
done

if sp_have_go; then
	sp_gopprof -top "$tmp/objects.pb.gz" >"$tmp/top" 2>/dev/null
	grep -q '^Type: objects$' "$tmp/top" && grep -q 'accounting for 57, 100% of 57 total' "$tmp/top"
	sp_ok $? "go tool pprof -top opens on objects: 57 of 57" || sed 's/^/#   /' "$tmp/top"
	sp_gopprof -top "$tmp/default.pb.gz" >"$tmp/top" 2>/dev/null
	grep -q '^Type: space$' "$tmp/top"
	sp_ok $? "go tool pprof -top opens the default output on space"
else
	sp_skip "go tool pprof: no go"
	sp_skip "go tool pprof: no go"
fi

for fmt in pprof raw folded top; do
	sp_run symprof convert -q --format "$fmt" --sample-index alloc_space "$heap" -o "$tmp/bad.$fmt"
	[ "$rc" -eq 1 ] && [ ! -e "$tmp/bad.$fmt" ] &&
		grep -qF "$heap: sample index alloc_space not in the profile (have: objects space)" "$tmp/err"
	sp_ok $? "--format $fmt --sample-index alloc_space: an error naming the types it has" ||
		sp_show_err
done
sp_run symprof convert -q --sample-index 2 "$heap" -o "$tmp/bad2.pb.gz"
[ "$rc" -eq 1 ] && grep -qF "sample index 2 out of range [0..1]" "$tmp/err"
sp_ok $? "--sample-index 2 of two columns: out of range" || sp_show_err

sp_done
