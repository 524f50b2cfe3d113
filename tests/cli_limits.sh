#!/bin/sh
# cli_limits.sh — values and sizes past what symprof holds are refused with a message
# naming the input, never wrapped, never an abort, and nothing is left behind.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/tests/cli_lib.sh"

# refused WHAT EXPECTED-TEXT: the last sp_run exited 1 and said EXPECTED-TEXT.
refused()
{
	if [ "$rc" -eq 1 ] && grep -qF -- "$2" "$tmp/err"; then
		sp_ok 0 "$1"
	else
		sp_ok 1 "$1"
		sp_diag "exit $rc, want 1 and \"$2\""
		sp_show_err
	fi
}

# no_output FILE: neither FILE nor a temporary file beside it exists.
no_output()
{
	[ ! -e "$1" ] && ! ls -a "$(dirname "$1")" | grep -q "^$(basename "$1")\\.tmp\\."
}

# --- sums of int64 values (profile/profile.h: refused, never wrapped) -----------------
max=9223372036854775807
printf 'main;work %s\n' "$max" >"$tmp/a.folded"
printf 'main;work 1\n' >"$tmp/b.folded"
sp_run symprof convert -q "$tmp/a.folded" "$tmp/b.folded" -o "$tmp/merged.folded"
refused "merging two profiles whose equal stacks add up past 2^63-1 is refused" \
	"merging profile 2: the samples values of sample 1 add up to more than an int64 holds"
sp_check "... and writes nothing" no_output "$tmp/merged.folded"

printf 'main;work %s\nmain;idle 1\n' "$max" >"$tmp/c.folded"
sp_run symprof convert -q "$tmp/c.folded" -o "$tmp/c.flame.svg"
refused "a flame graph whose total passes 2^63-1 is refused" \
	"flame graph: the samples values add up to more than an int64 holds"
sp_check "... and writes nothing" no_output "$tmp/c.flame.svg"
sp_run symprof convert -q "$tmp/c.folded" -o "$tmp/c.folded.out" --format folded
sp_ok "$rc" "the same profile as folded stacks (no sum needed) is written" || sp_show_err

sp_done
