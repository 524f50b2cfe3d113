#!/bin/sh
# cli_malformed.sh — every malformed input ends in a clear error and writes nothing.
#
# For each tests/malformed/<format>/<case>.in with a sibling <case>.expect (a piece of the
# expected message, e.g. "line 3" or "offset 12"): `symprof convert --no-symbolize` must
# exit 1, name the input file and say the expected text on stderr, and create no output.
# jitdump files are not profiles but a name source: tests/malformed/perfjit/<case>.in
# goes to `symprof symbolize --jitdump <case>.in 0x1` instead.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

n_cases=0
for in in "$SP_SRCDIR"/tests/malformed/*/*.in; do
	[ -e "$in" ] || continue
	exp=${in%.in}.expect
	[ -e "$exp" ] || continue
	case $in in */serve_json/*) continue ;; esac # request bodies: tests/cli/serve.py
	n_cases=$((n_cases + 1))
	case_name=${in#"$SP_SRCDIR"/tests/malformed/}
	want=$(cat "$exp")
	out=$tmp/out.pb.gz
	rm -f "$out"
	case $case_name in
	perfjit/*) sp_run symprof symbolize -f -i --jitdump "$in" 0x1 ;;
	*) sp_run symprof convert --no-symbolize "$in" -o "$out" ;;
	esac
	[ "$rc" -eq 1 ]
	sp_ok $? "$case_name: exit status 1 (got $rc)" || sp_show_err
	grep -Fq -- "$in" "$tmp/err"
	sp_ok $? "$case_name: stderr names the file" || sp_show_err
	grep -Fq -- "$want" "$tmp/err"
	sp_ok $? "$case_name: stderr says \"$want\"" || sp_show_err
	extra=
	for f in "$tmp"/* "$tmp"/.[!.]*; do
		case $f in "$tmp/out" | "$tmp/err" | "$tmp/perf" | "$tmp/*" | "$tmp/.[!.]*") ;; *) extra="$extra $f" ;; esac
	done
	[ ! -e "$out" ] && [ -z "$extra" ]
	sp_ok $? "$case_name: no output file created" || sp_diag "left:$extra"
	# shellcheck disable=SC2086 # a list of paths without spaces
	[ -z "$extra" ] || rm -rf $extra
done
[ "$n_cases" -gt 0 ]
sp_ok $? "found $n_cases malformed cases"
sp_done
