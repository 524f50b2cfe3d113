#!/bin/sh
# cli_perf_kernel.sh — kernel frames of perf.data named from the kernel's own files, found
# by build id: a kernel module (.ko) and a vmlinux, preferred over a kallsyms copy.
#
# Modules.  No module can be loaded or sampled where these tests run (the kernel may be
# monolithic, without /lib/modules), so testdata/src/perf/kmod.c is built as a .ko is (cc -c -g
# -O2, then ld -r --build-id) and tests/helpers/perf_kmod.py writes a perf.data of its samples:
# perf's kernel MMAP of /lib/modules/REL/kernel/drivers/fake/fakemod.ko at START, the
# module's build id in the BUILD_ID table, OSRELEASE REL, and samples whose kernel
# callchain is mod_helper+1, the return address in mod_leaf (after the call of the inlined
# mod_inner) and the one in mod_entry (addresses from objdump of the .ko: the map starts at
# the module's .text).  What must hold:
#   - with the .ko under --debug-dir D at D/lib/modules/REL/kernel/..., at
#     D/.build-id/xx/rest.debug, or (a module perf recorded as "[fakemod]") anywhere under
#     D/lib/modules/REL, every sample is mod_entry;mod_leaf;mod_inner;mod_helper (the
#     inline frame from DWARF), at the lines of kmod.c that hold those statements;
#   - perf script --symfs D names the same out-of-line functions at the same addresses;
#   - a .ko with another build id at the same place is not used: info says build-id
#     mismatch and the frames stay addresses.
# vmlinux.  A recording of dd (most of its time in read/write system calls) with -g has
# kernel frames; no vmlinux of the running kernel exists here, so tests/helpers/fake_vmlinux.py
# writes one: for each kernel function perf script names, fakevm_NAME of its size at its
# kallsyms address minus 0x200000 (as if the recording had a KASLR shift of 2 MiB), with
# a line of "vmlinux_fake.c" each, linked with the recording's [kernel.kallsyms] build id
# (which is /sys/kernel/notes' when readable).  What must hold:
#   - found at D/.build-id/xx/rest.debug or D/boot/vmlinux-RELEASE, every kernel frame
#     perf script gives as NAME is fakevm_NAME in symprof's stacks, with the same counts (up
#     to 2 samples may differ: perf names a return address as it is, symprof the call
#     before it, so after a call that ends a function the two name different
#     functions, spec/PERF-DATA.md §7), and
#     top --lines gives vmlinux_fake.c lines; given --kallsyms /proc/kallsyms too, the
#     vmlinux still names them;
#   - a vmlinux of another build id is refused (info: build-id mismatch) and kallsyms
#     names the frames.
# The kallsyms check by build id: /proc/kallsyms of the recording's kernel draws no note
# (its build id is /sys/kernel/notes'); a copy with FILE.buildid or FILE.notes (a copy of
# /sys/kernel/notes) of another build draws a warning and a line in info, and of the
# recording's build none.
# Compressed modules: the fixture as .ko.xz, .ko.zst and .ko.gz (see below).
# Not testable here: a real vmlinux or module with full DWARF (inline frames in kernel
# code come only from the module fixture), and debuginfod for kernel build ids.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

if [ "$(uname -m)" != x86_64 ]; then
	echo "1..0 # SKIP the fixtures are x86-64"
	exit 0
fi
for t in python3 objdump ld; do
	command -v $t >/dev/null 2>&1 || { echo "1..0 # SKIP no $t"; exit 0; }
done

# -- a module ------------------------------------------------------------------------
rel=6.1.0-kmodtest
modpath=/lib/modules/$rel/kernel/drivers/fake/fakemod.ko
start=ffffffffc0a00000
${CC:-cc} -c -g -O2 -o "$tmp/kmod.o" "$SP_SRCDIR/testdata/src/perf/kmod.c" &&
	ld -r --build-id=sha1 -o "$tmp/fakemod.ko" "$tmp/kmod.o" ||
	sp_bail "the module fixture does not build"
bid=$(readelf -n "$tmp/fakemod.ko" | awk '/Build ID/ { print $3 }')
# the address after the call in function $1 of the .ko, as an offset
ret_in()
{
	objdump -d --no-show-raw-insn "$tmp/fakemod.ko" | awk -v fn="<$1>:" '
		$2 == fn { f = 1; next } /^[0-9a-f]+ </ { f = 0 }
		f && c { sub(":", "", $1); print $1; exit } f && /call/ { c = 1 }'
}
off_leaf=$(ret_in mod_leaf)
off_entry=$(ret_in mod_entry)
off_helper=$(nm "$tmp/fakemod.ko" | awk '$3 == "mod_helper" { print $1 }')
[ -n "$off_leaf" ] && [ -n "$off_entry" ] && [ -n "$off_helper" ] ||
	sp_bail "no call sites in the module fixture"
# (the shell's arithmetic is signed 64-bit: the module sits in the top 4 GiB)
hex() { printf 'ffffffff%08x' "$((0x${start#ffffffff} + 0x$1 + ${2:-0}))"; }
chain=$(hex "$off_helper" 1),$(hex "$off_leaf"),$(hex "$off_entry")
python3 "$SP_SRCDIR/tests/helpers/perf_kmod.py" "$tmp/mod.data" "$rel" "$modpath" "$start" "$bid" 5 \
	"$chain" || sp_bail "perf_kmod.py failed"
# the lines of kmod.c's statements
line_of() { grep -n "$1" "$SP_SRCDIR/testdata/src/perf/kmod.c" | head -n 1 | cut -d: -f1; }
l_helper=$(line_of '__asm__ volatile') # (mod_helper+1 is in its first statement)
l_inner=$(line_of 'return mod_helper(x)')
l_leaf=$(line_of 'return mod_inner(x)')
l_entry=$(line_of 'return mod_leaf(x)')

mod_check()
{
	what=$1
	shift
	sp_run symprof convert -q --sample-index samples "$@" "$tmp/mod.data" -o "$tmp/mod.folded"
	[ "$rc" -eq 0 ] && [ "$(cat "$tmp/mod.folded")" = "mod_entry;mod_leaf;mod_inner;mod_helper 5" ]
	sp_ok $? "module $what: mod_entry;mod_leaf;mod_inner;mod_helper, inline frame included" ||
		{ sp_show_err; sed 's/^/#   /' "$tmp/mod.folded"; }
}

mkdir -p "$tmp/d1/lib/modules/$rel/kernel/drivers/fake"
cp "$tmp/fakemod.ko" "$tmp/d1$modpath"
mod_check "at --debug-dir D + its recorded path" --debug-dir "$tmp/d1"
sp_run symprof convert -q --format top --lines --debug-dir "$tmp/d1" "$tmp/mod.data" \
	-o "$tmp/mod.top"
for f in "mod_helper .*kmod.c:$l_helper" "mod_inner .*kmod.c:$l_inner (inline)" \
	"mod_leaf .*kmod.c:$l_leaf" "mod_entry .*kmod.c:$l_entry"; do
	grep -q " $f\$" "$tmp/mod.top"
	sp_ok $? "module: top --lines has $f" || sed 's/^/#   /' "$tmp/mod.top"
done
sp_run symprof info --debug-dir "$tmp/d1" "$tmp/mod.data"
grep -q "file: $tmp/d1$modpath" "$tmp/out" && grep -q "build id: $bid" "$tmp/out"
sp_ok $? "module: info names the file found and the recorded build id" || sed 's/^/#   /' "$tmp/out"
if command -v perf >/dev/null 2>&1; then
	perf script --symfs "$tmp/d1" -F ip,sym -i "$tmp/mod.data" 2>/dev/null |
		awk 'NF == 2 { s = s $2 ";" } /^$/ { if (s != "") print s; s = "" }
			END { if (s != "") print s }' | sort | uniq -c |
		awk '{ print $2 " " $1 }' >"$tmp/perf.stacks"
	printf 'mod_helper;mod_leaf;mod_entry; 5\n' >"$tmp/want"
	cmp -s "$tmp/want" "$tmp/perf.stacks"
	sp_ok $? "module: perf script --symfs names the same functions at those addresses" ||
		sed 's/^/#   /' "$tmp/perf.stacks"
else
	sp_skip "no perf to compare with"
fi

mkdir -p "$tmp/d2/.build-id/$(echo "$bid" | cut -c1-2)"
cp "$tmp/fakemod.ko" "$tmp/d2/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).debug"
mod_check "in D/.build-id" --debug-dir "$tmp/d2"

python3 "$SP_SRCDIR/tests/helpers/perf_kmod.py" "$tmp/mod.data" "$rel" "[fakemod]" "$start" "$bid" 5 \
	"$chain" || sp_bail "perf_kmod.py failed"
mkdir -p "$tmp/d3/lib/modules/$rel/extra/deeper"
cp "$tmp/fakemod.ko" "$tmp/d3/lib/modules/$rel/extra/deeper/"
mod_check "recorded as [fakemod], found under D/lib/modules/RELEASE" --debug-dir "$tmp/d3"

${CC:-cc} -c -g -O1 -DOTHER_BUILD -o "$tmp/other.o" "$SP_SRCDIR/testdata/src/perf/kmod.c" &&
	ld -r --build-id=sha1 -o "$tmp/d3/lib/modules/$rel/extra/deeper/fakemod.ko" "$tmp/other.o"
sp_run symprof convert -q --sample-index samples --debug-dir "$tmp/d3" "$tmp/mod.data" \
	-o "$tmp/mod.folded"
! grep -q mod_ "$tmp/mod.folded"
sp_ok $? "module of another build: not used, frames stay addresses" || sed 's/^/#   /' "$tmp/mod.folded"
sp_run symprof info --debug-dir "$tmp/d3" "$tmp/mod.data"
grep -q "unresolved 3: build-id mismatch" "$tmp/out"
sp_ok $? "module of another build: info says build-id mismatch" || sed 's/^/#   /' "$tmp/out"

# Compressed modules, as distributions install them: recorded with their .ko.xz, .ko.zst
# or .ko.gz path, found there (or, recorded as "[fakemod]", anywhere under
# D/lib/modules/REL), decompressed in memory, the same frames; a stripped compressed
# module with its debug file NAME.ko.debug beside it; a cut file named with the offset.
for z in xz zst gz; do
	case $z in
	xz) pack="xz -c" ;;
	zst) pack="zstd -q -c" ;;
	gz) pack="gzip -c" ;;
	esac
	if ! command -v "${pack%% *}" >/dev/null 2>&1; then
		sp_skip "no ${pack%% *}: modules compressed as .ko.$z"
		continue
	fi
	mkdir -p "$tmp/z$z/lib/modules/$rel/kernel/drivers/fake" "$tmp/t$z/lib/modules/$rel/updates"
	$pack "$tmp/fakemod.ko" >"$tmp/z$z$modpath.$z"
	python3 "$SP_SRCDIR/tests/helpers/perf_kmod.py" "$tmp/mod.data" "$rel" "$modpath.$z" "$start" \
		"$bid" 5 "$chain" || sp_bail "perf_kmod.py failed"
	mod_check "compressed as .ko.$z, at its recorded path" --debug-dir "$tmp/z$z"
	# stripped, with the debug file beside it
	strip --strip-debug -o "$tmp/stripped.ko" "$tmp/fakemod.ko"
	mkdir -p "$tmp/s$z/lib/modules/$rel/kernel/drivers/fake"
	$pack "$tmp/stripped.ko" >"$tmp/s$z$modpath.$z"
	cp "$tmp/fakemod.ko" "$tmp/s$z$modpath.debug"
	mod_check "stripped .ko.$z with fakemod.ko.debug beside it" --debug-dir "$tmp/s$z"
	# cut: the error names the file and where its data ends
	size=$(wc -c <"$tmp/z$z$modpath.$z")
	head -c $((size / 2)) "$tmp/z$z$modpath.$z" >"$tmp/cut.$z"
	mv "$tmp/cut.$z" "$tmp/z$z$modpath.$z"
	sp_run symprof info --debug-dir "$tmp/z$z" "$tmp/mod.data"
	grep -qF "tried: $tmp/z$z$modpath.$z (failed: ${pack%% *} data ends at byte $((size / 2)), before its stream's end" \
		"$tmp/out"
	sp_ok $? "a cut .ko.$z: info names the file and the offset where its data ends" ||
		sed 's/^/#   /' "$tmp/out"
	python3 "$SP_SRCDIR/tests/helpers/perf_kmod.py" "$tmp/mod.data" "$rel" "[fakemod]" "$start" \
		"$bid" 5 "$chain" || sp_bail "perf_kmod.py failed"
	$pack "$tmp/fakemod.ko" >"$tmp/t$z/lib/modules/$rel/updates/fakemod.ko.$z"
	mod_check "recorded as [fakemod], found as updates/fakemod.ko.$z" --debug-dir "$tmp/t$z"
done

# -- vmlinux ---------------------------------------------------------------------------
if ! command -v perf >/dev/null 2>&1; then
	sp_skip "perf is not installed: no recording with kernel frames"
	sp_done
fi
if ! perf record -q -e cpu-clock -g -o "$tmp/k.data" -- \
	dd if=/dev/zero of=/dev/null bs=64 count=200000 >"$tmp/rec.log" 2>&1; then
	sp_skip "perf record does not work here: $(head -n 1 "$tmp/rec.log")"
	sp_done
fi
kbid=$(perf buildid-list -i "$tmp/k.data" 2>/dev/null | awk '$2 == "[kernel.kallsyms]" { print $1 }')
krel=$(perf report -i "$tmp/k.data" --header-only 2>/dev/null |
	awk -F' : ' '/^# os release/ { print $2; exit }')
perf script -i "$tmp/k.data" -F ip,sym 2>/dev/null |
	awk '$1 ~ /^ffffffff/ && $2 != "[unknown]" { print $2 }' | sort >"$tmp/kall"
sort -u "$tmp/kall" >"$tmp/knames"
ktop=$(uniq -c "$tmp/kall" | sort -rn | awk '{ print $2; exit }') # the most frequent
if [ -z "$kbid" ] || [ ! -s "$tmp/knames" ] || ! grep -q ' T _stext$' /proc/kallsyms; then
	sp_skip "no kernel frames with names and a kernel build id in this recording"
	sp_done
fi
if [ -r /sys/kernel/notes ]; then
	nbid=$(python3 -c '
import struct, sys
d = open("/sys/kernel/notes", "rb").read()
i = 0
while i + 12 <= len(d):
    nsz, dsz, typ = struct.unpack_from("<III", d, i)
    name = d[i + 12:i + 12 + nsz]
    desc = i + 12 + (nsz + 3) // 4 * 4
    if typ == 3 and name.rstrip(b"\0") == b"GNU":
        print(d[desc:desc + dsz].hex())
    i = desc + (dsz + 3) // 4 * 4')
	sp_check "the recording's [kernel.kallsyms] build id is /sys/kernel/notes' ($kbid)" \
		[ "$kbid" = "$nbid" ]
fi
python3 "$SP_SRCDIR/tests/helpers/fake_vmlinux.py" /proc/kallsyms "$tmp/knames" 200000 \
	"$tmp/vm.s" "$tmp/vm.ld" && as -o "$tmp/vm.o" "$tmp/vm.s" &&
	ld -o "$tmp/vmlinux" --build-id="0x$kbid" -e 0 $(cat "$tmp/vm.ld") "$tmp/vm.o" ||
	sp_bail "the stand-in vmlinux does not build"

vocab=$(tr '\n' ' ' <"$tmp/knames")
sp_perf_stacks "$tmp/k.data" | awk '{ n = split($1, f, ";"); s = ""
	for (i = 1; i <= n; i++) s = s (i > 1 ? ";" : "") (f[i] == "-" ? "-" : "fakevm_" f[i])
	print s, $2 }' | sort >"$tmp/perf.stacks"
vocab=$(sed 's/^/fakevm_/' "$tmp/knames" | tr '\n' ' ')

vm_check()
{
	what=$1
	shift
	sp_run symprof convert -q --sample-index samples "$@" "$tmp/k.data" -o "$tmp/k.folded"
	sp_folded_stacks "$tmp/k.folded" >"$tmp/ours.stacks"
	# samples whose stacks differ (a sample counted in one stack by perf and in
	# another by symprof counts twice)
	moved=$(awk 'FNR == NR { p[$1] = $2; next } { o[$1] = $2 }
		END { for (k in p) d += (p[k] > o[k] ? p[k] - o[k] : o[k] - p[k])
		      for (k in o) if (!(k in p)) d += o[k]; print d + 0 }' \
		"$tmp/perf.stacks" "$tmp/ours.stacks")
	[ "$rc" -eq 0 ] && grep -q fakevm_ "$tmp/ours.stacks" && [ "$moved" -le 4 ]
	sp_ok $? "vmlinux $what: every kernel frame perf names NAME is fakevm_NAME, same counts ($moved differ)" ||
		{ sp_show_err; sp_diag "perf:" "$(head -n 20 "$tmp/perf.stacks")" \
			"symprof:" "$(head -n 20 "$tmp/ours.stacks")"; }
}

k2=$(echo "$kbid" | cut -c1-2)
mkdir -p "$tmp/v1/.build-id/$k2"
cp "$tmp/vmlinux" "$tmp/v1/.build-id/$k2/$(echo "$kbid" | cut -c3-).debug"
vm_check "in D/.build-id (KASLR shift 2 MiB)" --debug-dir "$tmp/v1"
sp_run symprof convert -q --format top --lines --debug-dir "$tmp/v1" "$tmp/k.data" -o "$tmp/k.top"
grep -q ' fakevm_[a-z_0-9.]* .*vmlinux_fake.c:1[0-9][0-9][0-9]$' "$tmp/k.top"
sp_ok $? "vmlinux: top --lines gives its lines" || sed 's/^/#   /' "$tmp/k.top"
vm_check "and --kallsyms /proc/kallsyms: the vmlinux still names them" --debug-dir "$tmp/v1" \
	--kallsyms /proc/kallsyms
mkdir -p "$tmp/v2/boot"
cp "$tmp/vmlinux" "$tmp/v2/boot/vmlinux-$krel"
vm_check "at D/boot/vmlinux-RELEASE" --debug-dir "$tmp/v2"

ld -o "$tmp/v2/boot/vmlinux-$krel" --build-id=0x0123456789abcdef0123456789abcdef01234567 -e 0 \
	$(cat "$tmp/vm.ld") "$tmp/vm.o"
sp_run symprof info --debug-dir "$tmp/v2" "$tmp/k.data"
grep -q 'build-id mismatch' "$tmp/out"
sp_ok $? "vmlinux of another build id: refused, info says build-id mismatch" || sed 's/^/#   /' "$tmp/out"
sp_run symprof convert -q --sample-index samples --debug-dir "$tmp/v2" --kallsyms /proc/kallsyms \
	"$tmp/k.data" -o "$tmp/k.folded"
! grep -q 'fakevm_' "$tmp/k.folded" && grep -q ";$ktop[; ]" "$tmp/k.folded"
sp_ok $? "vmlinux of another build id: kallsyms names the kernel frames ($ktop)" || sed 's/^/#   /' "$tmp/k.folded"

# -- the kallsyms copy's kernel build id ---------------------------------------------
sp_run symprof info --kallsyms /proc/kallsyms "$tmp/k.data"
[ "$rc" -eq 0 ] && ! grep -q 'kallsyms:' "$tmp/out" && ! grep -q warning "$tmp/err"
sp_ok $? "/proc/kallsyms of the recording's kernel (release and /sys/kernel/notes): no note" ||
	{ sp_show_err; grep kallsyms "$tmp/out" | sed 's/^/#   /'; }
cp /proc/kallsyms "$tmp/ks"
printf '%s\n' "$krel" >"$tmp/ks.osrelease"
printf '0123456789abcdef0123456789abcdef01234567\n' >"$tmp/ks.buildid"
sp_run symprof convert -q --kallsyms "$tmp/ks" "$tmp/k.data" -o "$tmp/ks.folded"
grep -q "warning: .*ks is of kernel build id 0123456789abcdef0123456789abcdef01234567 (its .buildid), the recording's is $kbid" "$tmp/err"
sp_ok $? "a copy whose .buildid is another build of the same release: a warning naming both" ||
	sp_show_err
sp_run symprof info --kallsyms "$tmp/ks" "$tmp/k.data"
grep -q "^  kallsyms: .*build id 0123456789abcdef0123456789abcdef01234567.*$kbid" "$tmp/out"
sp_ok $? "... and a line in info" || grep kallsyms "$tmp/out" | sed 's/^/#   /'
printf '%s\n' "$kbid" >"$tmp/ks.buildid"
sp_run symprof info --kallsyms "$tmp/ks" "$tmp/k.data"
! grep -q 'kallsyms:' "$tmp/out" && ! grep -q warning "$tmp/err"
sp_ok $? "a copy whose .buildid is the recording's: no note" || sp_show_err
rm "$tmp/ks.buildid"
if [ -r /sys/kernel/notes ]; then
	cp /sys/kernel/notes "$tmp/ks.notes"
	sp_run symprof info --kallsyms "$tmp/ks" "$tmp/k.data"
	! grep -q 'kallsyms:' "$tmp/out" && ! grep -q warning "$tmp/err"
	sp_ok $? "a copy with a copy of /sys/kernel/notes as .notes: no note" || sp_show_err
	python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read())
i = d.find(b"GNU\0")
d[i + 4] ^= 0xff
open(sys.argv[1], "wb").write(d)' "$tmp/ks.notes"
	sp_run symprof info --kallsyms "$tmp/ks" "$tmp/k.data"
	grep -q "^  kallsyms: .*(its .notes), the recording's is $kbid" "$tmp/out" &&
		grep -q warning "$tmp/err"
	sp_ok $? "a .notes of another build: a warning and a line in info" ||
		grep kallsyms "$tmp/out" | sed 's/^/#   /'
else
	sp_skip "no /sys/kernel/notes to copy"
fi

sp_done
