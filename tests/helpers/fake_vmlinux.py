#!/usr/bin/env python3
"""fake_vmlinux.py KALLSYMS NAMES SHIFT OUT.s OUT.ld — the source of a
stand-in vmlinux for the kernel tests, where no vmlinux of the running
kernel can be had: for every function of the file NAMES (one per line) that
KALLSYMS (a /proc/kallsyms copy) lists as a text symbol, a function
fakevm_NAME of the same size at the kernel's address minus SHIFT (hex: the
KASLR shift the test pretends the recording had), plus _stext.  Each
function's first instruction is at line 1000 + k of "vmlinux_fake.c" (k
counting from 1 in address order), so names and lines both tell that the
frame came from this file and not from kallsyms.  OUT.ld gets one
--section-start=SECTION=ADDRESS option per line for ld.
"""
import sys


def main():
    kallsyms, names_file, shift, out_s, out_ld = sys.argv[1:6]
    shift = int(shift, 16)
    with open(names_file) as f:
        want = {line.strip() for line in f if line.strip()}
    syms = []
    with open(kallsyms) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[1] in ("T", "t"):
                syms.append((int(parts[0], 16), parts[2]))
    syms.sort()
    first = {}
    size = {}
    for i, (addr, name) in enumerate(syms):
        if name in first:
            continue
        first[name] = addr
        nxt = next((a for a, _ in syms[i + 1:] if a > addr), None)
        if nxt is not None:
            size[name] = nxt - addr
    stext = first["_stext"]
    asm = ['.file 1 "vmlinux_fake.c"',
           '.section .text,"ax",@progbits', ".globl _stext", "_stext:", "\tnop"]
    ld = ["--section-start=.text=0x%x" % (stext - shift)]
    k = 0
    for addr, name in sorted((a, n) for n, a in first.items()):
        if name not in want or name not in size or addr == stext:
            continue
        k += 1
        asm += ['.section .kt%d,"ax",@progbits' % k,
                ".globl fakevm_%s" % name, ".type fakevm_%s,@function" % name,
                "fakevm_%s:" % name,
                "\t.loc 1 %d" % (1000 + k), "\tnop", "\t.skip %d" % (size[name] - 1),
                ".size fakevm_%s, %d" % (name, size[name])]
        ld.append("--section-start=.kt%d=0x%x" % (k, addr - shift))
    with open(out_s, "w") as f:
        f.write("\n".join(asm) + "\n")
    with open(out_ld, "w") as f:
        f.write("\n".join(ld) + "\n")


main()
