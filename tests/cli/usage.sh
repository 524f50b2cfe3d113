#!/bin/sh
# cli_usage.sh — a usage error is one line naming the command ("symprof convert: ...")
# and a pointer to --help, never the whole help, with exit status 2; a bad regular
# expression is one of them, and the dialect (POSIX extended, (?i) for case) is stated.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

folded=$SP_SRCDIR/testdata/profiles/folded-example.folded

# usage_error PREFIX MESSAGE ARGS...: symprof ARGS exits 2, and stderr is exactly
# "symprof PREFIX: MESSAGE" and "Try 'symprof PREFIX --help' ...".
usage_error()
{
	ue_cmd=$1
	ue_msg=$2
	shift 2
	sp_run symprof "$@"
	[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 2 ] &&
		[ "$(sed -n 1p "$tmp/err")" = "symprof $ue_cmd: $ue_msg" ] &&
		[ "$(sed -n 2p "$tmp/err")" = "Try 'symprof $ue_cmd --help' for more information." ] &&
		[ ! -s "$tmp/out" ]
	sp_ok $? "symprof $*: exit 2 (got $rc), '$ue_msg' and a pointer to --help" || {
		sp_show_err
		return 1
	}
}

usage_error convert "unknown option '--no-such-option'" convert --no-such-option "$folded"
usage_error convert "unknown option '-x'" convert -qx "$folded"
usage_error convert "option '--each' takes no argument" convert --each=yes "$folded"
usage_error convert "option '--output' needs an argument" convert "$folded" --output
usage_error convert "option '-o' needs an argument" convert "$folded" -o
usage_error convert "no input profile" convert
usage_error convert "unknown format 'svgz'" convert --format svgz "$folded"
usage_error convert "--nodecount expects a number" convert --nodecount x "$folded"
usage_error convert "--demangle expects simple, templates, full or none, got 'all'" \
	convert --demangle all "$folded"
usage_error convert "--path-map expects OLD=NEW, got '/x'" convert --path-map /x "$folded"
usage_error convert "--flat-to expects frame or symbol, got 'leaf'" convert -f top --flat-to leaf "$folded"
usage_error convert "--flat-to applies only to --format dot, pdf, svg, png, top, not folded" \
	convert --flat-to frame "$folded"
usage_error convert "cannot tell the output format from '$tmp/x.bin'; use --format" \
	convert "$folded" -o "$tmp/x.bin"
usage_error info "unknown option '--each'" info --each "$folded"
usage_error info "no input profile" info
usage_error symbolize "unknown option '--no-symbolize'" symbolize --no-symbolize 0x1
usage_error symbolize "--demangle=xyz: expected full, simple, templates or none" symbolize --demangle=xyz
usage_error "jit dump" "give -d DIR and either --pid or --core with --exe" jit dump --pid 1
usage_error "jit dump" "unknown option '-z'" jit dump -z
usage_error jit "unknown subcommand 'load'" jit load
usage_error jit "expected a subcommand: dump" jit

# A bad expression stops the run before any input is read, whatever the output.
for opt in focus ignore; do
	for fmt in top folded; do
		usage_error convert "--$opt: invalid regular expression \"a(b\": Unmatched ( or \\( (POSIX extended, optionally after (?i))" \
			convert --format "$fmt" "--$opt" 'a(b' "$tmp/no-such-input"
	done
done

# (?i) makes the rest of the expression case-insensitive, as pprof users expect.
sp_run symprof convert --format top --focus '(?i)READ_FILE' "$folded"
[ "$rc" -eq 0 ] && grep -q 'accounting for 35, ' "$tmp/out" &&
	grep -qE ' read_file$' "$tmp/out" && ! grep -q 'draw_text' "$tmp/out"
sp_ok $? "--focus '(?i)READ_FILE' keeps the 35 samples through read_file" || sp_show_err
sp_run symprof convert --format top --focus 'READ_FILE' "$folded"
[ "$rc" -eq 0 ] && ! grep -q ' read_file$' "$tmp/out"
sp_ok $? "without (?i) the expression is case-sensitive"

sp_run symprof convert --help
grep -q 'POSIX extended regular expression; a leading (?i) ignores case' "$tmp/out"
sp_ok $? "convert --help states the regular expression dialect"

sp_run symprof nonsense
[ "$rc" -eq 2 ] && [ "$(cat "$tmp/err")" = "symprof: unknown command 'nonsense'
Try 'symprof --help' for more information." ]
sp_ok $? "an unknown command: one line and a pointer to --help" || sp_show_err

sp_done
