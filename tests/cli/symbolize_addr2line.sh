#!/bin/sh
# symbolize_cli.sh — `symprof symbolize` against binutils addr2line on the
# fixture testdata/src/symbolize/fixture.cc (built at test time), plus the JSON,
# --relative, streaming and error paths.  Speaks TAP.
set -u
: "${SP_SRCDIR:=..}" "${SYMPROF:=./symprof}"
src="$SP_SRCDIR/testdata/src/symbolize/fixture.cc"
tmp=$(mktemp -d /tmp/sp-symcli-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi; }

g++ -O2 -g -o "$tmp/pie" "$src"; ok $? "compiled the PIE fixture"
g++ -O2 -g -no-pie -o "$tmp/exec" "$src"; ok $? "compiled the non-PIE fixture"

# Function entries: the same frames as addr2line -f -i -a, names raw and demangled.
# (functions with a size: the fixture's own, with DWARF)
nm -S --defined-only "$tmp/pie" | awk 'NF == 4 && $3 ~ /^[tT]$/ && $4 != "_start" {print "0x" $1}' >"$tmp/addrs"
cnt=$(wc -l <"$tmp/addrs")
[ "$cnt" -gt 15 ]; ok $? "fixture has $cnt function entries"
addr2line -f -i -a -e "$tmp/pie" <"$tmp/addrs" >"$tmp/want" 2>/dev/null
"$SYMPROF" symbolize -f -i -e "$tmp/pie" -a <"$tmp/addrs" >"$tmp/got"
ok $? "symbolize from stdin exits 0"
cp "$tmp/want" "$tmp/want2"
diff "$tmp/want2" "$tmp/got" >"$tmp/diff"; r=$?
[ $r = 0 ] || sed 's/^/# /' "$tmp/diff" | head -20
ok $r "raw names and lines equal addr2line's at every function entry"
addr2line -f -i -a -C -e "$tmp/pie" <"$tmp/addrs" >"$tmp/wantC"
"$SYMPROF" symbolize -f -i -e "$tmp/pie" -a -C <"$tmp/addrs" >"$tmp/gotC"
diff "$tmp/wantC" "$tmp/gotC" >"$tmp/diff"; r=$?
[ $r = 0 ] || sed 's/^/# /' "$tmp/diff" | head -20
ok $r "-C output equals addr2line -C"

# Arguments instead of stdin, hex without 0x.
a=$(nm "$tmp/pie" | awk '$3 == "_ZN5outer5inner6Widget7computeEi" {print $1}')
out=$("$SYMPROF" symbolize -f -i -e "$tmp/pie" "$a" | head -1)
[ "$out" = "_ZN5outer5inner6Widget7computeEi" ]; ok $? "address argument without 0x: $out"

# Unknown address.
out=$("$SYMPROF" symbolize -f -i -e "$tmp/pie" -a 0x7fff00000000 | tr '\n' ' ')
[ "$out" = "0x00007fff00000000 ?? ??:0 " ]; ok $? "unknown address prints ?? and ??:0"

# --relative: offsets from where file offset 0 is loaded (0x400000 here).
b=$(nm "$tmp/exec" | awk '$3 == "_ZN5outer5inner6Widget7computeEi" {print $1}')
rel=$(printf '%x' $((0x$b - 0x400000)))
want=$("$SYMPROF" symbolize -f -i -e "$tmp/exec" "0x$b")
got=$("$SYMPROF" symbolize -f -i -e "$tmp/exec" --relative "0x$rel")
[ -n "$want" ] && [ "$want" = "$got" ]; ok $? "--relative 0x$rel is 0x$b in the non-PIE"
got=$("$SYMPROF" symbolize -f -i -e "$tmp/pie" --relative "0x$a")
[ "$got" = "$("$SYMPROF" symbolize -f -i -e "$tmp/pie" "0x$a")" ]; ok $? "--relative is the identity for this PIE"

# JSON: every line parses, frames innermost first, the outermost not inlined.
"$SYMPROF" symbolize -e "$tmp/pie" --json -C <"$tmp/addrs" >"$tmp/json"
python3 - "$tmp/json" "$cnt" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == int(sys.argv[2]), len(lines)
for l in lines:
    o = json.loads(l)
    fr = o["frames"]
    assert fr and not fr[-1]["inlined"] and all(f["inlined"] for f in fr[:-1]), l
    for f in fr:
        assert set(f) >= {"function", "raw", "file", "line", "column", "inlined"}, l
PY
ok $? "--json: one object per address with every frame"

# Batches: more lines than one batch holds, the same addresses many times
# in shuffled order, written in odd but valid forms (0X, no 0x, leading
# zeros, spaces, CRLF, no newline at the end): the same frames as
# addr2line gives for the canonical list, in input order.
awk 'BEGIN {srand(7)} {for (i = 0; i < 3600; i++) print rand() " " $0}' "$tmp/addrs" |
	sort | cut -d' ' -f2 >"$tmp/many"
awk '{n = NR % 5
      if (n == 0) print "0X" substr($0, 3)
      else if (n == 1) print substr($0, 3)
      else if (n == 2) printf "  0x0000000000000000%s\r\n", substr($0, 3)
      else if (n == 3) printf "\t%s \n", $0
      else print}' "$tmp/many" | head -c -1 >"$tmp/odd"
addr2line -f -i -a -e "$tmp/pie" <"$tmp/many" >"$tmp/want"
"$SYMPROF" symbolize -f -i -e "$tmp/pie" -a <"$tmp/odd" >"$tmp/got"; r=$?
lines=$(wc -l <"$tmp/many")
[ $r = 0 ] && [ "$lines" -gt 70000 ] && cmp -s "$tmp/want" "$tmp/got"
ok $? "$lines lines in odd forms answer as addr2line's, in order"
# With little or no room for kept answers (--cache-max), the same.
for max in 0 3000; do
	"$SYMPROF" symbolize -f -i -e "$tmp/pie" -a --cache-max=$max <"$tmp/odd" >"$tmp/got"; r=$?
	[ $r = 0 ] && cmp -s "$tmp/want" "$tmp/got"
	ok $? "--cache-max=$max: the same answers"
done
# 70000 distinct addresses first (no repeats: after a trial the kept answers are
# dropped), then the repeated list: the same answers as addr2line's and as without any
# kept answers.
{ awk 'BEGIN { for (i = 0; i < 70000; i++) printf "0x%x\n", 268435456 + 16 * i }'
  cat "$tmp/many"; } >"$tmp/distinct"
"$SYMPROF" symbolize -f -i -e "$tmp/pie" -a <"$tmp/distinct" >"$tmp/got"; r=$?
"$SYMPROF" symbolize -f -i -e "$tmp/pie" -a --cache-max=0 <"$tmp/distinct" >"$tmp/got0"
[ $r = 0 ] && cmp -s "$tmp/got" "$tmp/got0" &&
	tail -n "$(wc -l <"$tmp/want")" "$tmp/got" | cmp -s - "$tmp/want"
ok $? "70000 distinct addresses, then repeats: the same answers"
"$SYMPROF" symbolize -f -i -e "$tmp/pie" --cache-max=lots 0x10 >/dev/null 2>"$tmp/err"; r=$?
[ $r = 2 ] && grep -q -- "--cache-max=lots" "$tmp/err"; ok $? "a bad --cache-max is a usage error"

# Lines that are no address print ?? (with -a, the line itself); a line
# longer than the read block is one line.
{ echo "0x$a"; echo; echo "zz"; echo "0x"; echo "0x10000000000000000";
  head -c 3000000 /dev/zero | tr '\0' 'q'; echo; echo "0x$a"; } >"$tmp/bad"
"$SYMPROF" symbolize -f -i -e "$tmp/pie" -a <"$tmp/bad" | cut -c1-40 >"$tmp/got"
want="$(printf '0x%016x' 0x$a) _ZN5outer5inner6Widget7computeEi"
want="$want $(sed -n 3p "$tmp/got")  ?? ??:0 zz ?? ??:0 0x ?? ??:0 0x10000000000000000 ?? ??:0 qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq ?? ??:0 $want"
got=$(tr '\n' ' ' <"$tmp/got")
case "$got" in "$want"*) r=0 ;; *) r=1; echo "# got: $got" | cut -c1-400 ;; esac
ok $r "lines that are no address print ?? and the line, a 3 MB line included"

# Streaming: a co-process gets each answer before sending the next line.
mkfifo "$tmp/in" "$tmp/out"
"$SYMPROF" symbolize -f -i -e "$tmp/pie" -a <"$tmp/in" >"$tmp/out" &
pid=$!
# a hang fails instead of blocking (its sleep must not hold the test output open)
(sleep 30; kill $pid 2>/dev/null) >/dev/null 2>&1 </dev/null & dog=$!
exec 3>"$tmp/in" 4<"$tmp/out"
echo "0x$a" >&3
IFS= read -r l1 <&4; IFS= read -r l2 <&4; IFS= read -r _ <&4
echo "0x$a" >&3
IFS= read -r l3 <&4
exec 3>&-
cat <&4 >/dev/null; exec 4<&-
wait $pid
kill $dog 2>/dev/null
[ "$l2" = "_ZN5outer5inner6Widget7computeEi" ] && [ "$l3" = "$l1" ]
ok $? "answers stream through a pipe before stdin closes"

# -e names a recorded path: --sysroot and --path-map find the copy elsewhere.
mkdir -p "$tmp/root/opt/bin" "$tmp/moved"
cp "$tmp/pie" "$tmp/root/opt/bin/app" && cp "$tmp/pie" "$tmp/moved/app"
want=$("$SYMPROF" symbolize -f -i -e "$tmp/pie" "0x$a" | head -1)
got=$("$SYMPROF" symbolize -f -i --sysroot "$tmp/root" -e /opt/bin/app "0x$a" | head -1)
[ "$want" = _ZN5outer5inner6Widget7computeEi ] && [ "$got" = "$want" ]
ok $? "--sysroot: /opt/bin/app is found under the sysroot"
got=$("$SYMPROF" symbolize -f -i --path-map /srv/build="$tmp/moved" -e /srv/build/app "0x$a" | head -1)
[ "$got" = "$want" ]; ok $? "--path-map: /srv/build/app is found at its new place"
"$SYMPROF" symbolize -f -i --sysroot "$tmp/nowhere" -e /opt/bin/app "0x$a" >/dev/null 2>"$tmp/err"; r=$?
[ $r = 1 ] && grep -q "tried $tmp/nowhere/opt/bin/app" "$tmp/err"
ok $? "--sysroot without the file: exit 1, the place tried is named"

# Errors.
"$SYMPROF" symbolize -f -i -e "$tmp/missing" 0x10 2>"$tmp/err"; r=$?
[ $r != 0 ] && grep -q "$tmp/missing" "$tmp/err"; ok $? "missing file: non-zero exit naming the file"
"$SYMPROF" symbolize -f -i -e "$tmp/pie" --demangle=bogus 0x10 2>/dev/null; r=$?
[ $r = 2 ]; ok $? "bad demangle style is a usage error"

echo "1..$n"
exit $failed
