#!/bin/sh
# test_stacks_malformed.sh — the malformed-input corpus of the address-stack
# readers.  For each tests/malformed/<format>/<case>.in with its <case>.expect
# (a piece of the expected message, e.g. "offset 40" or "line 3"), reading it
# with that reader must fail, name the file and say the expected text.  Then
# every case, and every good fixture, is replayed through the format's fuzz
# harness (which aborts on an invalid profile or a crash).
srcdir=${SP_SRCDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
builddir=${SP_BUILDDIR:-.}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
		[ -s "$tmp/err" ] && sed 's/^/#   /' "$tmp/err"
	fi
}

for fmt in cpu contention thread gocount raw folded; do
	cases=0
	for in in "$srcdir"/tests/malformed/$fmt/*.in; do
		[ -e "$in" ] || continue
		exp=${in%.in}.expect
		[ -e "$exp" ] || continue
		cases=$((cases + 1))
		name=$fmt/$(basename "$in")
		"$builddir/tests/helpers/read_stacks" "$fmt" "$in" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		ok $([ "$rc" -eq 1 ]; echo $?) "$name: fails with status 1 (got $rc)"
		grep -Fq -- "$in" "$tmp/err"
		ok $? "$name: the error names the file"
		grep -Fq -- "$(cat "$exp")" "$tmp/err"
		ok $? "$name: the error says \"$(cat "$exp")\""
	done
	[ "$cases" -gt 0 ]
	ok $? "$fmt: $cases malformed cases"
	: >"$tmp/err"
	"$builddir/tests/fuzz/fuzz_$fmt" "$srcdir"/tests/malformed/*/*.in \
		"$srcdir"/testdata/inputs/stacks/* 2>"$tmp/err"
	ok $? "$fmt: fuzz harness survives the whole corpus"
done
# Detection (sp_read_profile_file) finds each good fixture's reader.
d=$srcdir/testdata/inputs/stacks
for pair in cpu_le64.prof:cpu cpu_be32.prof:cpu contention.txt:contention \
	thread.txt:thread goroutine.txt:gocount raw.txt:raw folded.txt:folded; do
	f=${pair%%:*} want=${pair#*:}
	got=$("$builddir/tests/helpers/read_stacks" detect "$d/$f" 2>"$tmp/err")
	[ "$got" = "$want" ]
	ok $? "$f: detected as $want (got \"$got\")"
done
echo "1..$n"
[ "$failed" -eq 0 ]
