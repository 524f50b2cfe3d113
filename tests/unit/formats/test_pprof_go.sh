#!/bin/sh
# test_pprof_go.sh — what symprof writes as pprof, go tool pprof reads:
# pprof_tool writes a fixed profile; `go tool pprof -raw` must print the
# same sample lines as our own reader's dump, and the function names,
# build id and sample types written by pprof_tool.
tool="${SP_BUILDDIR:-.}/tests/helpers/pprof_tool"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; failed=1; }
check() { if eval "$1"; then ok "$2"; else notok "$2"; fi; }
failed=0

check '"$tool" write "$tmp/p.pb.gz"' "pprof_tool writes a gzipped profile"
check '"$tool" dump "$tmp/p.pb.gz" >"$tmp/ours.txt"' "our reader reads it back"

if ! command -v go >/dev/null 2>&1; then
	for what in "go tool pprof -raw reads it" "same sample lines" "labels" \
		"function names" "build id" "sample types" "merged profile read by go" \
		"merged values doubled"; do
		n=$((n + 1)); echo "ok $n # SKIP go not installed: $what"
	done
	echo "1..$n"
	exit 0
fi

export HOME="$tmp/home" GOCACHE="$tmp/gocache" GOTOOLCHAIN=local
mkdir -p "$HOME" "$GOCACHE"
check 'go tool pprof -raw "$tmp/p.pb.gz" >"$tmp/go.txt" 2>"$tmp/go.err"' \
	"go tool pprof -raw reads it"
# sample lines: " %10d" per value, ": ", location ids
samples() { sed -n '/^Samples:/,/^Locations/p' "$1" | grep -E '^( +-?[0-9]+)+: '; }
samples "$tmp/go.txt" >"$tmp/go.samples"
samples "$tmp/ours.txt" >"$tmp/ours.samples"
check 'test -s "$tmp/go.samples" && cmp -s "$tmp/go.samples" "$tmp/ours.samples" &&
	grep -qxE " +3 +30000000: 1 2 " "$tmp/go.samples" &&
	grep -qxE " +1 +10000000: 2 " "$tmp/go.samples" &&
	grep -qxE " +-2 +-20000000: 2 " "$tmp/go.samples"' \
	"same sample lines (3/30000000, 1/10000000, -2/-20000000)"
check 'grep -qx " *thread:\[worker\]" "$tmp/go.txt" &&
	grep -qx " *request:\[4096 bytes\]" "$tmp/go.txt"' "string and numeric labels"
check 'grep -q " inlined_helper app.h:4" "$tmp/go.txt" && grep -q " compute app.c:12" "$tmp/go.txt" &&
	grep -q " main app.c:33" "$tmp/go.txt"' "function names and lines"
check 'grep -q "/opt/fixture/app 0123456789abcdef" "$tmp/go.txt"' "build id"
check 'grep -q "^samples/count cpu/nanoseconds\[dflt\]" "$tmp/go.txt"' "sample types"
# merging the profile with itself doubles every value, as go reads it
check '"$tool" merge "$tmp/m.pb.gz" "$tmp/p.pb.gz" "$tmp/p.pb.gz" &&
	go tool pprof -raw "$tmp/m.pb.gz" >"$tmp/gm.txt" 2>>"$tmp/go.err"' "merged profile read by go"
samples "$tmp/gm.txt" >"$tmp/gm.samples"
check 'test "$(wc -l <"$tmp/gm.samples")" = 3 &&
	grep -qxE " +6 +60000000: 1 2 " "$tmp/gm.samples" &&
	grep -qxE " +2 +20000000: 2 " "$tmp/gm.samples" &&
	grep -qxE " +-4 +-40000000: 2 " "$tmp/gm.samples"' "merged values doubled"
if [ "$failed" != 0 ]; then
	sed 's/^/# go: /' "$tmp/go.txt" "$tmp/go.err"
	sed 's/^/# ours: /' "$tmp/ours.txt"
fi
echo "1..$n"
