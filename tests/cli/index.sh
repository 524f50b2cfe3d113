#!/bin/sh
# index.sh — `symprof index` and --index-dir end to end.
#
# Fixtures built here: testdata/src/symbolize/fixture.cc (-O2 -g) and a copy of it without
# its debug info (strip --strip-debug: the same build id, the symbol table alone), the heap
# fixture (testdata/src/fixture/build.sh) with one tcmalloc heap dump, and the Go fixture
# linked with -s -w (names and lines from its pc-line table alone).  Build ids come from
# readelf, never from symprof.  The reference for every answer is symprof without an index
# on the file with its debug info (the resolver the index is made from, itself checked
# against the sources and llvm-symbolizer by tests/unit/symbolize/test_dwarf.c); answered
# from an index, the copy without debug info must give the same bytes, which it cannot
# from its symbol table alone.  Then --index-dir: filled by the first run (fresh), and a
# foreign (another build's), stale (another revision), damaged (cut short, a byte changed)
# index in its place is not used and is written again; eight runs writing one index at
# once; `convert` and `info` with indexes; `serve` answering from one (its /v1/symbolize
# bodies compared, with curl over a unix socket); refusals and their messages.
. "$(dirname "$0")/../../tests/helpers/cli_lib.sh"

fx=$SP_SRCDIR/testdata/src/symbolize/fixture.cc
g++ -O2 -g -o "$tmp/fixture" "$fx" && strip --strip-debug -o "$tmp/bare" "$tmp/fixture" &&
	g++ -O1 -g -o "$tmp/other" "$fx" "$SP_SRCDIR/testdata/src/symbolize/fixture_b.cc"
sp_ok $? "built the fixture, a copy without debug info and another build" ||
	{ sp_done; exit; }
bid()
{
	readelf -n "$1" | awk '/Build ID:/ { print $3 }'
}
id=$(bid "$tmp/fixture")
oid=$(bid "$tmp/other")
[ -n "$id" ] && [ "$id" = "$(bid "$tmp/bare")" ] && [ -n "$oid" ] && [ "$oid" != "$id" ]
sp_ok $? "build ids: $id (both copies), $oid"

# text_addrs FILE STEP MARGIN: every STEP-th address of FILE's .text, MARGIN bytes either side
text_addrs()
{
	readelf -SW "$1" | awk '{
		for (i = 1; i <= NF; i++) if ($i == ".text") { print $(i + 2), $(i + 4); exit }
	}' | python3 -c '
import sys
step, margin = int(sys.argv[1]), int(sys.argv[2])
a, s = (int(x, 16) for x in sys.stdin.read().split())
for v in range(a - margin, a + s + margin, step):
    print(hex(v))' "$2" "$3"
}
text_addrs "$tmp/fixture" 1 16 >"$tmp/addrs"
[ "$(wc -l <"$tmp/addrs")" -gt 1000 ]
sp_ok $? "$(wc -l <"$tmp/addrs") addresses of .text"

# --- symprof index ---------------------------------------------------------------------
sp_run symprof index -o "$tmp/ix" "$tmp/fixture"
[ "$rc" -eq 0 ] && [ -s "$tmp/ix/$id.spx" ] && grep -q "$tmp/ix/$id.spx: .* from DWARF" "$tmp/out"
sp_ok $? "symprof index writes DIR/BUILDID.spx and says it is from DWARF" ||
	{ sp_show_err; sed 's/^/#   /' "$tmp/out"; }
sp_run symprof index --check "$tmp/ix/$id.spx"
[ "$rc" -eq 0 ] && grep -q "ok: build id $id," "$tmp/out"
sp_ok $? "symprof index --check: whole, of build id $id" || sp_show_err

# the copy without debug info answers from the index exactly as the file with it
for opts in "-a" "-a -C" "-a -p -s -C" "--json" "--output-style=LLVM -C" \
	"--output-style=JSON --demangle=simple"; do
	# shellcheck disable=SC2086 # the options are words
	sp_run symprof symbolize $opts -e "$tmp/fixture" <"$tmp/addrs"
	mv "$tmp/out" "$tmp/ref"
	# shellcheck disable=SC2086
	sp_run symprof symbolize $opts -e "$tmp/bare" --index-dir "$tmp/ix" <"$tmp/addrs"
	sed "s|\"ModuleName\":\"$tmp/bare\"|\"ModuleName\":\"$tmp/fixture\"|" "$tmp/out" >"$tmp/got"
	[ "$rc" -eq 0 ] && [ -s "$tmp/ref" ] && cmp -s "$tmp/ref" "$tmp/got" && [ ! -s "$tmp/err" ]
	sp_ok $? "symbolize $opts: the copy without debug info, from the index, as the file with it" ||
		{ diff "$tmp/ref" "$tmp/got" | head -n 6 | sed 's/^/#   /'; sp_show_err; }
done
sp_run symprof symbolize -a -e "$tmp/bare" <"$tmp/addrs"
! cmp -s "$tmp/ref" "$tmp/out"
sp_ok $? "(without the index the copy answers otherwise: the index answered)"

# --- --index-dir fills itself ------------------------------------------------------------
sp_run symprof symbolize -a -e "$tmp/fixture" <"$tmp/addrs"
mv "$tmp/out" "$tmp/ref"
sp_run symprof symbolize -a -e "$tmp/fixture" --index-dir "$tmp/d" <"$tmp/addrs"
[ "$rc" -eq 0 ] && cmp -s "$tmp/ref" "$tmp/out" && [ ! -s "$tmp/err" ]
sp_ok $? "fresh: the first run answers as without an index" || sp_show_err
cmp -s "$tmp/d/$id.spx" "$tmp/ix/$id.spx"
sp_ok $? "... and leaves the index, the same bytes symprof index wrote"
sp_run symprof symbolize -a -e "$tmp/fixture" --index-dir "$tmp/d" <"$tmp/addrs"
[ "$rc" -eq 0 ] && cmp -s "$tmp/ref" "$tmp/out"
sp_ok $? "the second run answers from it, the same"

# rewritten DESC: a run with the index in its state answers as the reference, and leaves
# a whole index of the right build behind
rewritten()
{
	sp_run symprof symbolize -a -e "$tmp/fixture" --index-dir "$tmp/d" <"$tmp/addrs"
	[ "$rc" -eq 0 ] && cmp -s "$tmp/ref" "$tmp/out" && [ ! -s "$tmp/err" ]
	sp_ok $? "$1: answers as without an index" || sp_show_err
	sp_run symprof index --check "$tmp/d/$id.spx"
	[ "$rc" -eq 0 ] && grep -q "ok: build id $id," "$tmp/out" && cmp -s "$tmp/d/$id.spx" "$tmp/ix/$id.spx"
	sp_ok $? "$1: written again" || sp_show_err
}

sp_run symprof index -q -o "$tmp/d" "$tmp/other"
cp "$tmp/d/$oid.spx" "$tmp/d/$id.spx"
sp_run symprof index --check "$tmp/d/$id.spx"
grep -q "ok: build id $oid," "$tmp/out"
sp_ok $? "foreign: another build's index under this build's name"
rewritten "foreign"

head -c 3000 "$tmp/ix/$id.spx" >"$tmp/d/$id.spx"
sp_run symprof index --check "$tmp/d/$id.spx"
[ "$rc" -eq 1 ] && grep -q "$tmp/d/$id.spx: offset 16: its size field says" "$tmp/err"
sp_ok $? "damaged (cut short): --check names the file and the size field" || sp_show_err
rewritten "damaged, cut short"

cp "$tmp/ix/$id.spx" "$tmp/d/$id.spx"
size=$(wc -c <"$tmp/d/$id.spx")
printf '\377' | dd of="$tmp/d/$id.spx" bs=1 seek=$((size - 100)) conv=notrunc 2>/dev/null
sp_run symprof index --check "$tmp/d/$id.spx"
[ "$rc" -eq 1 ] && grep -q "does not match its checksum: the file is damaged" "$tmp/err"
sp_ok $? "damaged (a byte changed): --check finds the page" || sp_show_err
rewritten "damaged, a byte changed"

# stale: the answers' revision (bytes 12-15) changed, checksums made again
python3 - "$tmp/d/$id.spx" <<'EOF'
import struct, sys
def crc32c(data, crc=0):
    crc ^= 0xffffffff
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82f63b78 if crc & 1 else 0)
    return crc ^ 0xffffffff
d = bytearray(open(sys.argv[1], 'rb').read())
d[12] += 1
h, = struct.unpack_from('<I', d, 24)
nsec, lid = struct.unpack_from('<IH', d, 40)
crcs = 64 + (lid + 7) // 8 * 8 + 24 * nsec
for p, at in enumerate(range(h, len(d), 4096)):
    struct.pack_into('<I', d, crcs + 4 * p, crc32c(d[at:at + 4096]))
struct.pack_into('<I', d, 28, 0)
struct.pack_into('<I', d, 28, crc32c(d[:h]))
open(sys.argv[1], 'wb').write(d)
EOF
sp_run symprof index --check "$tmp/d/$id.spx"
[ "$rc" -eq 1 ] && grep -q "stale: made by a symprof whose answers were revision" "$tmp/err"
sp_ok $? "stale: --check says so" || sp_show_err
rewritten "stale"

# --- eight runs writing one index at once --------------------------------------------------
pids=
for k in 1 2 3 4 5 6 7 8; do
	"$SYMPROF" symbolize -a -e "$tmp/fixture" --index-dir "$tmp/race" <"$tmp/addrs" \
		>"$tmp/race.$k" 2>"$tmp/race.$k.err" &
	pids="$pids $!"
done
st=0
for p in $pids; do
	wait "$p" || st=1
done
for k in 1 2 3 4 5 6 7 8; do
	cmp -s "$tmp/ref" "$tmp/race.$k" && [ ! -s "$tmp/race.$k.err" ] || st=1
done
sp_ok $st "eight runs writing one index at once: each answers as without an index"
cmp -s "$tmp/race/$id.spx" "$tmp/ix/$id.spx" && [ -z "$(find "$tmp/race" -type f ! -name '*.spx')" ]
sp_ok $? "the index they leave is whole, no temporary file left" || find "$tmp/race" | sed 's/^/#   /'

# --- convert and info ----------------------------------------------------------------------
if sh "$SP_SRCDIR/testdata/src/fixture/build.sh" "$tmp/heapfx" >"$tmp/build.log" 2>&1 &&
	sp_record_heap "$tmp/heapfx" fixture; then
	sp_ok 0 "built the heap fixture and recorded a dump"
	sp_run symprof convert --format raw -o "$tmp/ref.raw" "$tmp/fixture.heap"
	cp "$tmp/err" "$tmp/ref.err"
	for run in filling using; do
		sp_run symprof convert --format raw --index-dir "$tmp/cv" -o "$tmp/got.raw" "$tmp/fixture.heap"
		[ "$rc" -eq 0 ] && cmp -s "$tmp/ref.raw" "$tmp/got.raw" && cmp -s "$tmp/ref.err" "$tmp/err"
		sp_ok $? "convert, $run the indexes: the same profile and summary as without" ||
			{ diff "$tmp/ref.raw" "$tmp/got.raw" | head -n 6 | sed 's/^/#   /'; sp_show_err; }
	done
	sp_run symprof convert --format raw --index-dir /proc/version/x -o "$tmp/got.raw" \
		"$tmp/fixture.heap"
	[ "$rc" -eq 0 ] && cmp -s "$tmp/ref.raw" "$tmp/got.raw" &&
		grep -q "symprof convert: warning: symbol index /proc/version/x/" "$tmp/err"
	sp_ok $? "convert, an index that cannot be written: the same profile, and a warning" ||
		sp_show_err
	fid=$(bid "$tmp/heapfx/fixture")
	lid=$(bid "$tmp/heapfx/libfixshared.so")
	[ -s "$tmp/cv/$fid.spx" ] && [ -s "$tmp/cv/$lid.spx" ]
	sp_ok $? "the fixture's and its library's indexes were written"
	sp_run symprof info --index-dir "$tmp/cv" "$tmp/fixture.heap"
	grep -q "symbol index: $tmp/cv/$fid.spx" "$tmp/out" &&
		grep -q "symbol index: $tmp/cv/$lid.spx" "$tmp/out"
	sp_ok $? "info names the indexes the mappings used" || sed 's/^/#   /' "$tmp/out"
else
	sp_skip "the heap fixture could not be built (libtcmalloc?)"
fi

# --- symprof serve ----------------------------------------------------------------------------
# serve_answers NAME FILE [OPTIONS]: a server on a unix socket answers /v1/symbolize for every
# 7th address of $tmp/addrs in FILE; its JSON body, FILE's path made "F", in $tmp/NAME.json
serve_answers()
{
	name=$1 file=$2
	shift 2
	rm -f "$tmp/sock"
	# (a loaded machine and a sanitizer build make answers slow: no time cap here)
	"$SYMPROF" serve --listen "unix:$tmp/sock" --request-timeout 600 "$@" \
		>"$tmp/serve.out" 2>"$tmp/serve.err" &
	spid=$!
	i=0
	while [ $i -lt 3000 ] && ! grep -q 'listening on' "$tmp/serve.out"; do
		sleep 0.1
		i=$((i + 1))
	done
	list=$(awk 'NR % 7 == 1 { printf "%s\"%s\"", n++ ? "," : "", $1 }' "$tmp/addrs")
	curl -s --retry 10 --retry-connrefused --unix-socket "$tmp/sock" \
		-H 'Content-Type: application/json' \
		-d "{\"modules\":[{\"path\":\"$file\",\"addresses\":[$list]}]}" \
		http://localhost/v1/symbolize | sed "s|$file|F|g" >"$tmp/$name.json"
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
}
if command -v curl >/dev/null 2>&1; then
	serve_answers serve_ref "$tmp/fixture"
	serve_answers serve_ix "$tmp/bare" --index-dir "$tmp/ix"
	serve_answers serve_bare "$tmp/bare"
	[ -s "$tmp/serve_ref.json" ] && grep -q '"frames"' "$tmp/serve_ref.json" &&
		cmp -s "$tmp/serve_ref.json" "$tmp/serve_ix.json" &&
		! cmp -s "$tmp/serve_ref.json" "$tmp/serve_bare.json"
	sp_ok $? "serve --index-dir: the copy without debug info answered from the index as the file with it" ||
		{ head -c 600 "$tmp/serve_ix.json" | sed 's/^/#   /'; sed 's/^/#   /' "$tmp/serve.err"; }
else
	sp_skip "curl is not installed"
fi

# --- Go: names and lines from the pc-line table alone --------------------------------------
if sp_have_go; then
	cp -R "$SP_SRCDIR/testdata/src/gofix" "$tmp/gofix" && chmod -R u+w "$tmp/gofix" &&
		(cd "$tmp/gofix" && HOME=$tmp/gohome GOCACHE=$tmp/gocache GOPATH=$tmp/gopath \
			GOFLAGS='' GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=0 \
			go build -ldflags='-w -s' -o "$tmp/gostripped" .) >"$tmp/gobuild.log" 2>&1
	sp_ok $? "built the Go fixture with -s -w"
	text_addrs "$tmp/gostripped" 3 0 >"$tmp/goaddrs"
	sp_run symprof symbolize -a -C -e "$tmp/gostripped" <"$tmp/goaddrs"
	mv "$tmp/out" "$tmp/goref"
	sp_run symprof index -o "$tmp/goix" "$tmp/gostripped"
	grep -q "from Go's pc-line table" "$tmp/out"
	sp_ok $? "symprof index: from Go's pc-line table" || sed 's/^/#   /' "$tmp/out"
	sp_run symprof symbolize -a -C -e "$tmp/gostripped" --index-dir "$tmp/goix" <"$tmp/goaddrs"
	[ "$rc" -eq 0 ] && [ -s "$tmp/goref" ] && cmp -s "$tmp/goref" "$tmp/out"
	sp_ok $? "Go: every third address of .text from the index as from the table" ||
		diff "$tmp/goref" "$tmp/out" | head -n 6 | sed 's/^/#   /'
else
	sp_skip "go not installed"
fi

# --- refusals --------------------------------------------------------------------------------
sp_run symprof index
[ "$rc" -eq 2 ] && grep -q "symprof index: expected ELF files to index" "$tmp/err"
sp_ok $? "no file: a usage error" || sp_show_err
printf 'int main(void) { return 0; }\n' >"$tmp/nobid.c"
gcc -Wl,--build-id=none -o "$tmp/nobid" "$tmp/nobid.c"
sp_run symprof index -o "$tmp/ix" "$tmp/nobid" "$SP_SRCDIR/README.md" "$tmp/fixture"
[ "$rc" -eq 1 ] && grep -q "$tmp/nobid: no build id" "$tmp/err" &&
	grep -q "README.md" "$tmp/err" && grep -q "$tmp/ix/$id.spx" "$tmp/out"
sp_ok $? "no build id, not ELF: each said, the others still indexed, exit 1" || sp_show_err
printf 'not an index at all\n' >"$tmp/junk.spx"
sp_run symprof index --check "$tmp/junk.spx"
[ "$rc" -eq 1 ] && grep -q "$tmp/junk.spx: not a symbol index" "$tmp/err"
sp_ok $? "--check of something else: not a symbol index" || sp_show_err
sp_run symprof symbolize -a -e "$tmp/fixture" --index-dir /proc/version/x <"$tmp/addrs"
[ "$rc" -eq 0 ] && cmp -s "$tmp/ref" "$tmp/out" && grep -q "warning: symbol index /proc/version/x/$id.spx" "$tmp/err"
sp_ok $? "an index that cannot be written: the answers all the same, and a warning" || sp_show_err

sp_done
