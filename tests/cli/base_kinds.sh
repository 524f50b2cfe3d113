#!/bin/sh
# base_kinds.sh — README's "what grew between two dumps" when the earlier tcmalloc dump had
# no frees yet: it reads as objects/space (2 sample types), the later one as alloc_* and
# inuse_* (4).  Written here as heapprofile dumps of one stack:
#   earlier  2 blocks, 8192 bytes in use, as many allocated (no frees: 2 columns)
#   later    3 blocks, 12288 bytes in use, 5 and 20480 allocated
# What must hold: --base subtracts by name and unit (space is inuse_space, objects
# inuse_objects): inuse_space grew by 12288 - 8192 = 4096 on that stack, inuse_objects by
# 1; alloc_space, which the earlier dump lacks, counts from 0 (20480); a base with no type
# in common (a CPU profile) is refused naming both lists.  And --each -o a/b/c creates
# the missing parents as mkdir -p does.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

cat >"$tmp/early.heap" <<'EOT'
heap profile:      2:     8192 [     2:     8192] @ heapprofile
     2:     8192 [     2:     8192] @ 0x00401235 0x00401456

MAPPED_LIBRARIES:
00400000-00402000 r-xp 00000000 00:00 0 /usr/local/bin/demo
EOT
cat >"$tmp/late.heap" <<'EOT'
heap profile:      3:    12288 [     5:    20480] @ heapprofile
     3:    12288 [     5:    20480] @ 0x00401235 0x00401456

MAPPED_LIBRARIES:
00400000-00402000 r-xp 00000000 00:00 0 /usr/local/bin/demo
EOT
sp_run symprof info --no-symbolize "$tmp/early.heap"
grep -q 'sample types: objects/count space/bytes' "$tmp/out" ||
	sp_bail "the earlier dump does not read as objects/space: $(grep 'sample types' "$tmp/out")"

sp_run symprof convert --no-symbolize "$tmp/late.heap" --base "$tmp/early.heap"
[ "$rc" -eq 0 ] && [ "$(awk '{ print $NF }' "$tmp/out")" = 4096 ]
sp_ok $? "--base of a dump without frees: inuse_space grew by 4096" || { sp_show_err; cat "$tmp/out"; }
sp_run symprof convert --no-symbolize --sample-index inuse_objects "$tmp/late.heap" \
	--base "$tmp/early.heap"
[ "$rc" -eq 0 ] && [ "$(awk '{ print $NF }' "$tmp/out")" = 1 ]
sp_ok $? "inuse_objects grew by 1" || sp_show_err
sp_run symprof convert --no-symbolize --sample-index alloc_space "$tmp/late.heap" \
	--base "$tmp/early.heap"
[ "$rc" -eq 0 ] && [ "$(awk '{ print $NF }' "$tmp/out")" = 20480 ]
sp_ok $? "alloc_space, which the base lacks, counts from 0" || sp_show_err
sp_run symprof convert --no-symbolize "$tmp/late.heap" --base "$tmp/late.heap" -o "$tmp/zero.pb.gz"
sp_ok "$rc" "the same kinds still subtract" || sp_show_err

sp_run symprof convert --no-symbolize "$tmp/late.heap" \
	--base "$SP_SRCDIR/testdata/profiles/cpu-example.prof"
[ "$rc" -ne 0 ] && grep -q 'no sample type in common' "$tmp/err" &&
	grep -q 'inuse_space' "$tmp/err" && grep -q 'cpu' "$tmp/err"
sp_ok $? "a base with no type in common is refused, naming both lists" || sp_show_err

sp_run symprof convert --no-symbolize --each -o "$tmp/each/new/dir" "$tmp/late.heap"
[ "$rc" -eq 0 ] && [ -s "$tmp/each/new/dir/late.heap.pb.gz" ]
sp_ok $? "--each -o out/new/dir creates the missing parents" || sp_show_err

sp_done
