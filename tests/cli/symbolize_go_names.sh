#!/bin/sh
# symbolize_go_names.sh — Go code named as Go's own tools name it, from DWARF too.
#   - An assembly function's symbol carries its ABI wrapper's suffix
#     (internal/bytealg.IndexByteString.abi0); the pc-line table, `go tool addr2line` and
#     the stripped build's answers do not: one function has one name, the suffix stays
#     in the frame's system name (--json "raw").
#   - A -trimpath build's units have DW_AT_comp_dir "." and relative file names, which
#     Go prints as they are (runtime/proc.go), not as ./runtime/proc.go.
# The testdata/src/gofix fixture is built with DWARF, plain and -trimpath; at every
# function's entry the outermost function and the innermost file:line must be
# go tool addr2line's (>= 99%, and every assembly function's).
. "$(dirname "$0")/../../tests/helpers/cli_lib.sh"

if ! sp_have_go; then
	sp_skip "go not installed: Go names"
	sp_done
	exit
fi
goenv()
{
	HOME=$tmp/gohome GOCACHE=$tmp/gocache GOPATH=$tmp/gopath GOFLAGS='' GOPROXY=off \
		GOTOOLCHAIN=local CGO_ENABLED=0 "$@"
}
cp -R "$SP_SRCDIR/testdata/src/gofix" "$tmp/gofix" && chmod -R u+w "$tmp/gofix"
(cd "$tmp/gofix" && goenv go build -o "$tmp/plain" . && goenv go build -trimpath -o "$tmp/trim" .) \
	>"$tmp/build.log" 2>&1
sp_ok $? "built the Go fixture with DWARF, plain and -trimpath" ||
	{ sed 's/^/#   /' "$tmp/build.log"; sp_done; exit; }

for b in plain trim; do
	goenv go tool nm "$tmp/$b" | awk '$2 == "T" { print "0x" $1, $3 }' | sort -u >"$tmp/$b.syms"
	cut -d' ' -f1 "$tmp/$b.syms" >"$tmp/$b.addrs"
	n=$(wc -l <"$tmp/$b.addrs")
	goenv go tool addr2line "$tmp/$b" <"$tmp/$b.addrs" | paste -d ' ' - - >"$tmp/$b.go"
	# ours: the outermost frame's function, the innermost frame's file:line
	sp_run symprof symbolize -a -f -i -e "$tmp/$b" <"$tmp/$b.addrs"
	awk 'function flush() { if (have) print fn " " first }
		/^0x/ { flush(); have = 1; first = ""; k = 0; next }
		{ k++; if (k % 2) fn = $0; else if (first == "") first = $0 }
		END { flush() }' "$tmp/out" >"$tmp/$b.ours"
	same=$(paste -d '\n' "$tmp/$b.ours" "$tmp/$b.go" | awk 'NR % 2 { a = $0; next } a == $0 { n++ } END { print n + 0 }')
	awk -v s="$same" -v n="$n" 'BEGIN { exit !(n > 100 && s * 100 >= n * 99) }'
	sp_ok $? "$b: outermost function and innermost file:line as go tool addr2line's: $same of $n" ||
		paste -d '\n' "$tmp/$b.ours" "$tmp/$b.go" |
		awk 'NR % 2 { a = $0; next } a != $0 { print "ours: " a; print "go:   " $0 }' |
			head -n 10 | sed 's/^/#   /'
	paste -d ' ' "$tmp/$b.syms" "$tmp/$b.ours" | grep '\.abi0 ' | cut -d' ' -f1 >"$tmp/$b.abi0"
	na=$(wc -l <"$tmp/$b.abi0")
	paste -d '\n' "$tmp/$b.ours" "$tmp/$b.go" | awk 'NR % 2 { a = $0; next } { print a "\t" $0 }' |
		paste "$tmp/$b.syms" - | grep '\.abi0	' | awk -F '\t' '$2 != $3' >"$tmp/$b.bad"
	[ "$na" -gt 5 ] && [ ! -s "$tmp/$b.bad" ]
	sp_ok $? "$b: all $na assembly functions named without .abi0, as go tool addr2line" ||
		head -n 5 "$tmp/$b.bad" | sed 's/^/#   /'
done

# the suffix stays in the system name
a=$(awk '/IndexByteString\.abi0$/ { print $1 }' "$tmp/trim.syms")
sp_run symprof symbolize --json -e "$tmp/trim" "$a"
grep -Fq '"function":"internal/bytealg.IndexByteString","raw":"internal/bytealg.IndexByteString.abi0","file":"internal/bytealg/indexbyte_amd64.s"' "$tmp/out"
sp_ok $? "-trimpath: IndexByteString, its symbol in raw, its file as Go prints it" ||
	sed 's/^/#   /' "$tmp/out"
! grep -q '^\./' "$tmp/trim.ours" && grep -q ' runtime/' "$tmp/trim.ours"
sp_ok $? "-trimpath: no file name starts with ./"

sp_done
