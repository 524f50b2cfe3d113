#!/bin/sh
# cli_install.sh — `make install` puts symprof where a Debian user looks for it: manual
# pages man can render, bash completion for commands, options and formats, the README
# and format documents under share/doc/symprof.  Every option each command's --help
# prints is in its manual page, in the completion and in the README, so none of them can
# fall behind the program.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

if ! command -v man >/dev/null 2>&1 || ! command -v col >/dev/null 2>&1 ||
	! command -v bash >/dev/null 2>&1; then
	echo "1..0 # SKIP no man, col or bash (scripts/deps installs them)"
	exit 0
fi

inst=$tmp/inst
${MAKE:-make} -C "$SP_BUILDDIR" install DESTDIR="$inst" >"$tmp/install.log" 2>&1
sp_ok $? "make install DESTDIR=..." || sed 's/^/#   /' "$tmp/install.log" | tail -n 20
mandir=$(find "$inst" -type d -name man1 | head -n 1)
mandir=${mandir%/man1}
compl=$(find "$inst" -path '*/share/bash-completion/completions/symprof' -type f)
docdir=$(find "$inst" -path '*/share/doc/symprof' -type d)
if [ -z "$mandir" ] || [ -z "$compl" ] || [ -z "$docdir" ]; then
	sp_bail "installed tree lacks man1, the completion or share/doc/symprof"
fi

# render PAGE-FILE: the page as text, one line per paragraph, no formatting.
render()
{
	MANWIDTH=1000 MANPAGER=cat man -l "$1" 2>"$tmp/man.err" | col -bx
}

for page in symprof.1 symprof-convert.1 symprof-info.1 symprof-symbolize.1 symprof-jit.1 \
	libjitreg.3; do
	sect=${page##*.}
	f=$mandir/man$sect/$page
	render "$f" >"$tmp/page" && [ -s "$tmp/page" ] && [ ! -s "$tmp/man.err" ] &&
		LC_ALL=C groff -man -ww -z "$f" 2>"$tmp/groff.err" && [ ! -s "$tmp/groff.err" ]
	sp_ok $? "$page is installed and renders without warnings" ||
		sed 's/^/#   /' "$tmp/man.err" "$tmp/groff.err"
done

MANPATH=$mandir MANPAGER=cat man symprof 2>"$tmp/err" | col -bx >"$tmp/out"
grep -q '^ *symprof - symbolize and convert profiles offline' "$tmp/out"
sp_ok $? "MANPATH=... man symprof finds the installed page" || sp_show_err
MANPATH=$mandir MANPAGER=cat man 3 libjitreg 2>/dev/null | col -bx | grep -q 'jitreg_register'
sp_ok $? "MANPATH=... man 3 libjitreg finds the library page"

for d in README.md docs/raw-stacks.md; do
	cmp -s "$docdir/${d#docs/}" "$SP_SRCDIR/$d"
	sp_ok $? "share/doc/symprof/${d#docs/} is installed"
done

# complete WORD...: what the installed completion offers for the last word.
complete_words()
{
	bash -c '
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_symprof symprof "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' sh "$compl" "$@"
}

[ "$(complete_words symprof conv)" = convert ]
sp_ok $? "completion: symprof conv -> convert"
[ "$(complete_words symprof convert --form)" = --format ]
sp_ok $? "completion: symprof convert --form -> --format"
[ "$(complete_words symprof convert --format f | sort)" = "$(printf 'firefox\nflamegraph\nfolded\nfolded-diff')" ]
sp_ok $? "completion: --format f -> firefox, flamegraph, folded, folded-diff"
[ "$(complete_words symprof convert --colors h)" = hot ]
sp_ok $? "completion: --colors h -> hot"
[ "$(complete_words symprof info --demangle t)" = templates ]
sp_ok $? "completion: --demangle t -> templates"
[ "$(complete_words symprof jit d)" = dump ]
sp_ok $? "completion: symprof jit d -> dump"
bash -c '. "$1" && complete -p symprof' sh "$compl" | grep -q '_symprof symprof$'
sp_ok $? "completion: sourcing it registers _symprof for symprof"

# help_options CMD...: every option CMD's --help prints, one per line.
help_options()
{
	"$SYMPROF" "$@" --help | grep -oE -- '(^|[][ ,|(])--?[A-Za-z][A-Za-z-]*' |
		sed 's/^[^-]*//' | sort -u
}

# has_word FILE WORD: WORD occurs in FILE, not as part of a longer option.
has_word()
{
	grep -qE -- "(^|[^A-Za-z0-9-])$2([^A-Za-z0-9-]|\$)" "$1"
}

for cmd in convert info symbolize serve "jit dump"; do
	page=symprof-${cmd%% *}.1
	render "$mandir/man1/$page" >"$tmp/page"
	# shellcheck disable=SC2086 # "jit dump" is two words
	complete_words symprof $cmd - >"$tmp/compl"
	# shellcheck disable=SC2086
	help_options $cmd >"$tmp/opts"
	[ -s "$tmp/opts" ] || sp_bail "symprof $cmd --help printed no options"
	for what in page compl readme; do
		f=$tmp/$what
		[ $what = readme ] && f=$SP_SRCDIR/README.md
		missing=
		while read -r opt; do
			has_word "$f" "$opt" || missing="$missing $opt"
		done <"$tmp/opts"
		[ -z "$missing" ]
		sp_ok $? "symprof $cmd: every --help option is in the $what" ||
			sp_diag "missing:$missing"
	done
done

"$SYMPROF" --help | awk '/^commands:/ { on = 1; next } on && !NF { exit } on { print $1 }' >"$tmp/cmds"
missing=
while read -r cmd; do
	complete_words symprof "" | grep -qx -- "$cmd" || missing="$missing $cmd"
	render "$mandir/man1/symprof.1" | grep -qE "^ *$cmd( |\$)" || missing="$missing $cmd(man)"
done <"$tmp/cmds"
[ -s "$tmp/cmds" ] && [ -z "$missing" ]
sp_ok $? "every command of symprof --help is completed and in symprof(1)" ||
	sp_diag "missing:$missing"

# shellcheck disable=SC2016 # the text the README shows
grep -q 'make install' "$SP_SRCDIR/README.md" &&
	grep -qF 'export PATH="$PWD/build:$PATH"' "$SP_SRCDIR/README.md"
sp_ok $? "the README says how to put symprof on PATH"

sp_done
