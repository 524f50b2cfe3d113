#!/bin/sh
# test_otlp_proto.sh — formats/proto/otlp.proto (what symprof's C code is generated from)
# and tests/helpers/otlp_proto.py (what the tests make and read OTLP with) are two transcriptions
# of the spec's field table, written apart: protoc compiles the first, and every message
# and field of the second must be in it with the same number, type and repetition.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}/tests/helpers/cli_lib.sh"

PY=
for py in python3 /usr/bin/python3; do
	"$py" -c 'import google.protobuf' 2>/dev/null && { PY=$py; break; }
done
if [ -z "$PY" ] || ! command -v protoc >/dev/null 2>&1; then
	echo "1..0 # SKIP needs python3-protobuf and protoc (protobuf-compiler)"
	exit 0
fi
protoc --descriptor_set_out="$tmp/otlp.fds" -I"$SP_SRCDIR/formats/proto" \
	"$SP_SRCDIR/formats/proto/otlp.proto" 2>"$tmp/err"
sp_ok $? "protoc compiles otlp.proto" || sp_show_err
$PY "$SP_SRCDIR/tests/helpers/otlp_check.py" proto-table "$tmp/otlp.fds" >"$tmp/out" 2>&1
sp_ok $? "the .proto and the tests' table agree: $(tail -n 1 "$tmp/out")" ||
	sed 's/^/#   /' "$tmp/out"
sp_done
