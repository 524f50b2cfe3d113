#!/bin/sh
# test_htlhash.sh — the eBPF profiler's file id (htlhash) of files of 0, 1, 4095, 4096,
# 8191, 8192 and 1 MiB bytes, as symprof computes it (tests/helpers/htlhash_tool), against the
# algorithm's definition computed by Python's hashlib: SHA-256 of the first min(size,
# 4096) bytes, the last min(size, 4096) bytes and the size as 8 big-endian bytes, the
# first 16 bytes of the digest in lower-case hex (opentelemetry-ebpf-profiler
# libpf/fileid.go).  The files' bytes differ at every offset (a counter), so a head or
# tail taken from the wrong place changes the id.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}/tests/helpers/cli_lib.sh"

command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP no python3"; exit 0; }
tool=$SP_BUILDDIR/tests/helpers/htlhash_tool
for size in 0 1 4095 4096 8191 8192 1048576; do
	python3 -c "import sys; n = $size; sys.stdout.buffer.write(bytes((i * 7 + i // 251) & 255 for i in range(n)))" \
		>"$tmp/f$size"
done
python3 - "$tmp" >"$tmp/want" <<'PY'
import hashlib, sys
for size in (0, 1, 4095, 4096, 8191, 8192, 1048576):
    path = "%s/f%d" % (sys.argv[1], size)
    data = open(path, "rb").read()
    h = hashlib.sha256(data[:4096] + data[max(0, len(data) - 4096):] + len(data).to_bytes(8, "big"))
    print(h.hexdigest()[:32], path)
PY
"$tool" "$tmp"/f0 "$tmp"/f1 "$tmp"/f4095 "$tmp"/f4096 "$tmp"/f8191 "$tmp"/f8192 "$tmp"/f1048576 \
	>"$tmp/got" 2>"$tmp/err"
sp_ok $? "htlhash_tool hashes all seven files" || sed 's/^/# /' "$tmp/err"
while read -r want path; do
	got=$(awk -v p="$path" '$2 == p { print $1 }' "$tmp/got")
	[ "$got" = "$want" ]
	sp_ok $? "$(wc -c <"$path" | tr -d ' ') bytes: $got, as the definition gives ($want)"
done <"$tmp/want"
sp_done
