#!/bin/sh
# serve.sh — `symprof serve` end to end over HTTP: the checks are tests/cli/serve.py's
# (real clients, curl and Python's http.client, on 127.0.0.1 and a unix socket).
set -eu
SP_SRCDIR=${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
if ! command -v curl >/dev/null 2>&1; then
	echo "1..0 # SKIP curl is not installed"
	exit 0
fi
exec python3 "$SP_SRCDIR/tests/cli/serve.py"
