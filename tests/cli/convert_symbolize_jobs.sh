#!/bin/sh
# convert_symbolize_jobs.sh — `symprof convert -j N` resolves one mapping's addresses on N
# threads (symbolize/jobs.c), each in a session of its own, and every output is byte
# for byte what -j 1 writes.
#
# The profile: raw address stacks over the symprof program itself (a large C program
# whose DWARF has inline chains), mapped at 0x555555554000, its addresses DISTINCT points
# of its .text (a stride prime to .text's size), in STACKS stacks of 1 to 12 frames, with
# addresses of a second, smaller mapping of the same file among them (resolved on the
# command's thread after the first) and addresses of no mapping.  At DISTINCT addresses the work on one thread
# is well above what pays for the other sessions (jobs.c: the share the other threads take
# is worth twice their opening, and PAR_MIN_GAIN_NS more), so -j 3
# opens the program in the other threads, which strace sees; a profile of 1000 addresses
# (below PAR_MIN_ADDRS) is resolved by the command's thread alone.  Outputs: pprof
# (gzipped and not), folded with and without annotations, raw, top, and --no-inline.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

distinct=150000
stacks=20000

self=$SYMPROF
if [ "$(head -c 2 "$self")" = "#!" ]; then
	self=$(dirname "$SYMPROF")/.libs/$(basename "$SYMPROF")
fi
[ -f "$self" ] || sp_bail "no ELF file $self"

# profile N: raw stacks over N distinct addresses of $self's .text, on stdout
profile()
{
	python3 - "$self" "$1" "$stacks" <<'EOF'
import subprocess, sys
path, n, stacks = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
out = subprocess.run(["readelf", "-SlW", path], capture_output=True, text=True).stdout
start = size = seg = None
for line in out.splitlines():
    f = line.replace("[ ", "[").split()
    if f and f[0].startswith("[") and ".text" in f:
        i = f.index(".text")
        start, size = int(f[i + 2], 16), int(f[i + 4], 16)
    if f and f[0] == "LOAD" and "E" in f[6:-1]:  # the executable segment, as mapped
        off, vaddr, memsz = int(f[1], 16), int(f[2], 16), int(f[5], 16)
        seg = (vaddr & ~0xfff, (vaddr + memsz + 0xfff) & ~0xfff, off & ~0xfff)
if start is None or seg is None:
    sys.exit(1)
base, other = 0x555555554000, 0x7f0000000000
stride = 7919
while size % stride == 0:
    stride += 2
print("# symprof raw stacks v1")
print("sample_type: samples/count")
print("addresses: return")
k = s = 0
while s < stacks or k < n:
    frames = []
    for f in range(1 + s % 12):
        a = start + (k % n) * stride % size
        k += 1
        # every 50th frame in the second mapping, every 997th in none
        if k % 997 == 0:
            frames.append(4096 + k)
        elif k % 50 == 0:
            frames.append(other + a + 1)
        else:
            frames.append(base + a + 1)
    print(1 + s % 9, "@", " ".join("0x%x" % a for a in frames))
    s += 1
print("--- Memory map: ---")
for b in base, other:
    print("%x-%x r-xp %08x 08:01 1 %s" % (b + seg[0], b + seg[1], seg[2], path))
EOF
}

profile "$distinct" >"$tmp/big.txt" || sp_bail "no .text in $self"
sp_check "the profile has $distinct distinct addresses or more" \
	test "$(tr ' ' '\n' <"$tmp/big.txt" | grep '^0x' | sort -u | wc -l)" -ge "$distinct"

# same NAME INPUT OUT OPTIONS...: -j 2 and -j 3 write what -j 1 writes to OUT
same()
{
	sm_name=$1 sm_in=$2 sm_out=$3
	shift 3
	sp_symprof convert -j 1 "$@" "$sm_in" -o "$tmp/j1.$sm_out" 2>"$tmp/err1"
	sm_rc1=$?
	for j in 2 3; do
		sp_symprof convert -j "$j" "$@" "$sm_in" -o "$tmp/j$j.$sm_out" 2>"$tmp/err$j"
		sm_rc=$?
		# (the warning about the addresses of no mapping included)
		[ "$sm_rc" -eq 0 ] && [ "$sm_rc1" -eq 0 ] && [ -s "$tmp/j1.$sm_out" ] &&
			cmp -s "$tmp/j1.$sm_out" "$tmp/j$j.$sm_out" && cmp -s "$tmp/err1" "$tmp/err$j"
		sp_ok $? "$sm_name: -j $j writes what -j 1 writes, and says it (status $sm_rc, $sm_rc1)" ||
			{ cmp "$tmp/j1.$sm_out" "$tmp/j$j.$sm_out"; diff "$tmp/err1" "$tmp/err$j"; } 2>&1 | sed 's/^/#   /' 
	done
}

same "pprof, gzipped" "$tmp/big.txt" pb.gz
same "pprof" "$tmp/big.txt" pb
same "folded" "$tmp/big.txt" folded
same "folded, annotated" "$tmp/big.txt" folded --annotate
same "raw" "$tmp/big.txt" raw
same "top" "$tmp/big.txt" txt -f top
same "pprof, --no-inline" "$tmp/big.txt" pb --no-inline

# the profile is named: most locations have functions with files and lines
sp_symprof convert -j 3 "$tmp/big.txt" -o "$tmp/named.folded" 2>/dev/null
sp_check "-j 3: the folded stacks name symprof's functions" grep -q 'sp_symbolize_profile\|main' "$tmp/named.folded"

if strace -f -qq -o /dev/null true 2>/dev/null; then
	# opens THREADS ARGS...: how many opens of $self threads other than the command's make
	# while converting with ARGS
	opens()
	{
		strace -f -qq -e trace=openat -o "$tmp/strace" "$self" convert "$@" -o "$tmp/s.pb" \
			>/dev/null 2>&1
		main=$(head -n 1 "$tmp/strace" | cut -d ' ' -f 1)
		awk -v m="$main" -v f="\"$self\"" '$1 != m && index($0, f)' "$tmp/strace" | wc -l
	}
	o3=$(opens -j 3 "$tmp/big.txt")
	[ "$o3" -ge 1 ]
	sp_ok $? "-j 3 on $distinct addresses: other threads open the program ($o3 opens)"
	o1=$(opens -j 1 "$tmp/big.txt")
	[ "$o1" -eq 0 ]
	sp_ok $? "-j 1: no other thread opens it ($o1 opens)"
	profile 1000 >"$tmp/small.txt"
	o3=$(opens -j 3 "$tmp/small.txt")
	[ "$o3" -eq 0 ]
	sp_ok $? "-j 3 on 1000 addresses: no other thread opens the program ($o3 opens)"
	same "1000 addresses, pprof" "$tmp/small.txt" pb
else
	sp_skip "strace cannot trace here: opens not counted"
fi

sp_done
