#!/bin/sh
# cli_filters.sh — --focus, --ignore, --tagfocus and --tagignore on a real tcmalloc heap
# dump of the fixture program, in every output format.
#
# The dump labels each sample with its block size ("bytes"), and every allocation site of
# testdata/src/fixture allocates blocks of its own size ($sp_fixture_sites: "count size leaf"),
# so what each filter keeps is known from the fixture's source.  `go tool pprof` applying
# the same -tagfocus to the unfiltered pprof output is the independent reader.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

sp_fixture_heap "$tmp" || { sed 's/^/# /' "$tmp/build.log"; sp_bail "fixture did not record"; }
heap=$tmp/fixture.heap

# want_sum AWK-CONDITION: the in-use bytes of the sites whose size ($2) passes.
want_sum()
{
	printf '%s\n' "$sp_fixture_sites" | awk "$1 { s += \$1 * \$2 } END { print s + 0 }"
}
# want_leaves AWK-CONDITION: the leaves of those sites, sorted.
want_leaves()
{
	printf '%s\n' "$sp_fixture_sites" | awk "$1 { \$1 = \$2 = \"\"; sub(/^ +/, \"\"); print }" |
		sort
}
# folded FILE: "total leaves..." of a folded file (values summed, leaves sorted).
got_sum()
{
	awk '{ s += $NF } END { print s + 0 }' "$1"
}
got_leaves()
{
	sed 's/ [0-9-]*$//; s/.*;//' "$1" | sort -u
}

sp_run symprof convert -q --demangle templates --format folded "$heap" -o "$tmp/all.folded"
sp_ok "$rc" "unfiltered folded exits 0" || sp_show_err
all=$(got_sum "$tmp/all.folded")

# keeps NAME OPTION AWK-CONDITION: folded output under OPTION (a focus) keeps exactly the
# sites whose size ($2) or leaf ($3) passes the condition.
keeps()
{
	sp_run symprof convert -q --demangle templates --format folded "$2" "$heap" \
		-o "$tmp/f.folded"
	sp_ok "$rc" "$1: exits 0" || sp_show_err
	want=$(want_sum "$3")
	got=$(got_sum "$tmp/f.folded")
	sp_check "$1: folded total $got is the sites' $want bytes" test "$got" = "$want"
	if [ "$(want_leaves "$3")" = "$(got_leaves "$tmp/f.folded")" ]; then
		sp_ok 0 "$1: the leaves are the sites'"
	else
		sp_ok 1 "$1: the leaves are the sites'"
		got_leaves "$tmp/f.folded" | sed 's/^/#   got: /'
	fi
}

# drops NAME OPTION AWK-CONDITION: folded output under OPTION (an ignore) has lost
# exactly the sites that pass the condition (the C library's own allocations stay).
drops()
{
	sp_run symprof convert -q --demangle templates --format folded "$2" "$heap" \
		-o "$tmp/f.folded"
	sp_ok "$rc" "$1: exits 0" || sp_show_err
	want=$((all - $(want_sum "$3")))
	got=$(got_sum "$tmp/f.folded")
	sp_check "$1: folded total $got is the unfiltered $all less the sites' bytes" \
		test "$got" = "$want"
	if [ -z "$(want_leaves "$3" | comm -12 - "$(got_leaves "$tmp/f.folded" >"$tmp/l"; echo "$tmp/l")")" ]; then
		sp_ok 0 "$1: none of the sites' leaves is left"
	else
		sp_ok 1 "$1: none of the sites' leaves is left"
	fi
}

keeps "--tagfocus bytes=3000b" --tagfocus=bytes=3000b '$2 == 3000'
keeps "--tagfocus bytes=4096b:8000b" --tagfocus=bytes=4096b:8000b '$2 >= 4096 && $2 <= 8000'
keeps "--tagfocus bytes=64kb: (64 KiB)" --tagfocus=bytes=64kb: '$2 >= 65536'
keeps "--focus plugin_work" --focus=plugin_work '$3 == "fixplugin::plugin_work"'
drops "--tagignore bytes=4000b:8000b" --tagignore=bytes=4000b:8000b '$2 >= 4000 && $2 <= 8000'
drops "--ignore '^fixture::fill'" '--ignore=^fixture::fill' '$3 ~ /^fixture::fill/'

# The filters apply to pprof and raw output too: the samples they drop are gone.
sp_run symprof convert -q --tagfocus bytes=3000b "$heap" -o "$tmp/f.pb.gz"
sp_ok "$rc" "--tagfocus to pprof exits 0" || sp_show_err
sp_run symprof convert -q --tagfocus bytes=3000b --format raw "$heap"
sp_check "--tagfocus to raw: one sample left" \
	test "$(sed -n '/^Samples:/,/^Locations/p' "$tmp/out" | grep -cE '^ +-?[0-9]+( +-?[0-9]+)*: [0-9]')" = 1
sp_run symprof convert -q "$heap" -o "$tmp/all.pb.gz"
sp_ok "$rc" "unfiltered pprof exits 0" || sp_show_err
if sp_have_go; then
	# go tool pprof's own -tagfocus on the unfiltered profile gives the same traces.
	traces()
	{
		sp_gopprof -traces -sample_index=inuse_space "$@" 2>/dev/null |
			grep -v -e '^File:' -e '^Type:' -e '^Time:' -e '^Active filters' -e '^ *tag' \
				-e '^Build ID:'
	}
	# Ranges in the forms pprof reads, including "4kb:8000" (8000 in kb, as pprof has it).
	for f in tagfocus=bytes=3000b tagfocus=4kb:8000 tagfocus=2kb:4kb tagfocus=bytes=64kb: \
		tagignore=bytes=:4kb tagfocus=bytes=3000; do
		sp_run symprof convert -q "--$f" "$heap" -o "$tmp/f.pb.gz"
		traces "$tmp/f.pb.gz" >"$tmp/ours.traces"
		traces "-$f" "$tmp/all.pb.gz" >"$tmp/go.traces"
		[ "$rc" -eq 0 ] && cmp -s "$tmp/ours.traces" "$tmp/go.traces"
		sp_ok $? "pprof output of --$f = go tool pprof -$f of the whole profile" ||
			diff "$tmp/ours.traces" "$tmp/go.traces" | head -n 10 | sed 's/^/#   /'
	done
	sp_check "bytes=3000 (no unit) keeps nothing, as in pprof" \
		sh -c "! grep -q plugin_work '$tmp/ours.traces'"
else
	sp_skip "go tool pprof not installed"
fi

# Reports say which filters were active.
sp_run symprof convert -q --format top --tagfocus bytes=3000b "$heap"
sp_ok "$rc" "top --tagfocus exits 0" || sp_show_err
sp_check "top lists the tag filter among the active ones" grep -qx '   tagfocus=bytes=3000b' "$tmp/out"
sp_check "top keeps only plugin_work's bytes" grep -q 'fixplugin::plugin_work' "$tmp/out"
sp_check "top has no other allocation site" sh -c "! grep -q 'alloc_in_main' '$tmp/out'"

# A bad filter is a usage error before anything is read.
sp_run symprof convert -q --tagfocus 'thread=(x' "$heap"
sp_check "--tagfocus with an invalid expression: exit 2" test "$rc" = 2
sp_check "--tagfocus with an invalid expression: the message names it" \
	grep -q 'tagfocus: invalid regular expression "(x"' "$tmp/err"
sp_run symprof convert -q --tagignore 'bytes=' "$heap"
sp_check "--tagignore with nothing after KEY=: exit 2" test "$rc" = 2

sp_done
