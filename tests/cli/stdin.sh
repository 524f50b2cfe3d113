#!/bin/sh
# cli_stdin.sh — `symprof convert -` reads the profile from standard input, compressed or
# not (zcat x.heap.gz | symprof convert - -o x.pb.gz), with the same result as reading
# the file, and names it "standard input" in messages.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

heap=$SP_SRCDIR/testdata/profiles/heap_v2-example.heap
gzip -c "$heap" >"$tmp/x.heap.gz"

sp_symprof convert "$heap" -o "$tmp/file.pb.gz" 2>/dev/null
sp_symprof convert "$heap" -o "$tmp/file.folded" 2>/dev/null
[ -s "$tmp/file.pb.gz" ] && [ -s "$tmp/file.folded" ] || sp_bail "converting $heap failed"

gzip -dc "$tmp/x.heap.gz" | sp_symprof convert - -o "$tmp/x.pb.gz" 2>"$tmp/err"
sp_ok $? "zcat x.heap.gz | symprof convert - -o x.pb.gz" || sp_show_err
cmp -s "$tmp/x.pb.gz" "$tmp/file.pb.gz"
sp_ok $? "the pprof output is the one converting the file gives"
grep -q '^symprof: standard input: /usr/local/bin/demo: ' "$tmp/err"
sp_ok $? "the mapping summary names standard input" || sp_show_err

sp_symprof convert - <"$tmp/x.heap.gz" >"$tmp/out" 2>/dev/null
sp_ok $? "a gzip-compressed profile on standard input, folded to stdout"
cmp -s "$tmp/out" "$tmp/file.folded"
sp_ok $? "the folded stacks are the ones converting the file gives"

printf 'not a profile\n' >"$tmp/junk"
sp_run symprof convert - -o "$tmp/junk.folded" <"$tmp/junk"
[ "$rc" -eq 1 ] && grep -q '^symprof: standard input: unrecognized profile format' "$tmp/err" &&
	[ ! -e "$tmp/junk.folded" ]
sp_ok $? "bad input on standard input: exit 1, named standard input, no output" || sp_show_err

sp_run symprof convert - "$heap" - </dev/null
[ "$rc" -eq 2 ] && grep -q "standard input ('-') can be read only once" "$tmp/err"
sp_ok $? "'-' twice is a usage error" || sp_show_err

mkdir "$tmp/each"
sp_run symprof convert --each -q -o "$tmp/each" - <"$tmp/x.heap.gz"
[ "$rc" -eq 0 ] && cmp -s "$tmp/each/stdin.pb.gz" "$tmp/file.pb.gz"
sp_ok $? "--each names the output of standard input stdin.pb.gz" || sp_show_err

sp_done
