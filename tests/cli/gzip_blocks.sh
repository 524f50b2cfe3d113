#!/bin/sh
# gzip_blocks.sh — a .pb.gz of several 1 MiB blocks, deflated on the CPUs (common/gzip_sink.c):
# one gzip member (Python's zlib ends the stream at the file's end and gives what gzip -d
# gives), the same bytes on one CPU (taskset) as on all, read by go tool pprof; an output
# of one block is the bytes of zlib's own gzip deflate at level 6.
#
# The input: folded stacks of 150000 distinct three-frame stacks (every leaf its own
# function), whose pprof is several MiB; its sample total is known from how it was written.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

awk 'BEGIN { for (i = 0; i < 150000; i++) printf "main;work_%d;leaf_%d_%x %d\n", i % 97, i, i * 2654435761 % 4294967296, 1 + i % 13 }' \
	>"$tmp/in.folded"
total=$(awk '{ s += $NF } END { print s }' "$tmp/in.folded")

sp_run symprof convert --no-symbolize "$tmp/in.folded" -o "$tmp/all.pb.gz"
gzip -dc "$tmp/all.pb.gz" >"$tmp/plain.pb"
sp_ok $? "gzip -d reads it"
size=$(wc -c <"$tmp/plain.pb")
[ "$size" -gt 3145728 ]
sp_ok $? "the pprof output is more than three blocks ($size bytes)"

python3 - "$tmp/all.pb.gz" "$tmp/plain.pb" <<'PY'
import sys, zlib
data = open(sys.argv[1], "rb").read()
d = zlib.decompressobj(16 + 15)
out = d.decompress(data)
ok = d.eof and d.unused_data == b"" and out == open(sys.argv[2], "rb").read()
sys.exit(0 if ok else 1)
PY
sp_ok $? "one gzip member: zlib ends the stream at the file's end, content as gzip -d's"

if command -v taskset >/dev/null 2>&1 && taskset -c 0 true 2>/dev/null; then
	taskset -c 0 "$SYMPROF" convert --no-symbolize "$tmp/in.folded" -o "$tmp/one.pb.gz" 2>"$tmp/err"
	cmp -s "$tmp/one.pb.gz" "$tmp/all.pb.gz"
	sp_ok $? "on one CPU (taskset -c 0): the same bytes as on $(nproc)"
else
	sp_skip "taskset cannot pin here"
fi

if sp_have_go; then
	sp_gopprof -top -symbolize=none "$tmp/all.pb.gz" >"$tmp/top" 2>"$tmp/err"
	grep -q "of $total total" "$tmp/top" && grep -qE "^ +0 +0% +0% +$total +100% +main$" "$tmp/top"
	sp_ok $? "go tool pprof reads it: the total $total" || sed 's/^/#   /' "$tmp/top" "$tmp/err" | head -n 20
else
	sp_skip "go is not installed"
fi

# a small output is one block: its bytes are zlib's gzip deflate's at level 6
printf 'main;a 3\nmain;b 4\n' >"$tmp/small.folded"
sp_run symprof convert --no-symbolize "$tmp/small.folded" -o "$tmp/small.pb.gz"
python3 - "$tmp/small.pb.gz" <<'PY'
import sys, zlib
got = open(sys.argv[1], "rb").read()
c = zlib.compressobj(6, zlib.DEFLATED, 16 + 15, 8, zlib.Z_DEFAULT_STRATEGY)
want = c.compress(zlib.decompress(got, 16 + 15)) + c.flush()
sys.exit(0 if got == want else 1)
PY
sp_ok $? "one block: the bytes of zlib's own gzip stream at level 6"
sp_done
