#!/bin/sh
# serve_load.sh — a bounded load test of `symprof serve` on loopback (tests/cli/serve_load.py):
# SP_LOAD_CLIENTS clients (8) for SP_LOAD_SECONDS seconds (4), twice: as configured by
# default, then under --max-memory 64M with sessions evicted.
set -eu
SP_SRCDIR=${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
exec python3 "$SP_SRCDIR/tests/cli/serve_load.py"
