#!/usr/bin/python3
"""otlpgen.py OUT [--locations N] [--files N] [--processes N] [--seed S] -- an OTLP batch
as the OpenTelemetry eBPF profiler sends one from a busy host, for bench/otlp.sh.

The host runs PROCESSES processes (default 40), each mapping the C library, the C++
runtime and a draw of the machine's other shared libraries: FILES distinct files in all
(default 60: the largest shared libraries with a GNU build id under the system library
directory, the LLVM, ICU, Python, GTK and crypto libraries among them).  Every mapping is
as the profiler makes it (ELF virtual addresses from the file's executable PT_LOAD, the
base name, build id and file id as attributes); native locations are unnamed, at ELF
virtual addresses inside the files' functions (their .dynsym and .symtab), chosen at
random, LOCATIONS of them (default 1,000,000) in all.  Samples of CPU time (timestamps,
thread attributes, no values) have stacks 8 to 40 frames deep drawn so that every
location is used; a tenth of the stacks begin with two kernel frames named on the host.
One ResourceProfiles per process, one dictionary: one ExportProfilesServiceRequest, as
the collector receives it.

Deterministic for a seed (default 1).  Prints how many files, mappings, locations and
samples it wrote, and writes OUT.files: the files the batch maps, one a line.
"""
import argparse
import glob
import hashlib
import os
import random
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "helpers"))
import otlp_gen  # noqa: E402
import otlp_proto as op  # noqa: E402


def functions(path):
    """(start, size) of the sized FUNC symbols of .dynsym and .symtab, as ELF addresses."""
    with open(path, "rb") as f:
        data = f.read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3a)
    secs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    out = set()
    for name, typ, flags, addr, off, size, link, info, align, entsize in secs:
        if typ not in (2, 11) or not entsize:  # SHT_SYMTAB, SHT_DYNSYM
            continue
        for k in range(size // entsize):
            _, st_info, _, shndx, value, sz = struct.unpack_from("<IBBHQQ", data, off + k * entsize)
            if st_info & 0xf == 2 and sz >= 4 and shndx:
                out.add((value, sz))
    return sorted(out)


def candidates(n):
    libs = []
    for path in glob.glob("/usr/lib/x86_64-linux-gnu/*.so*"):
        if os.path.islink(path) or not os.path.isfile(path):
            continue
        try:
            loads, bid = otlp_gen.elf_info(path)
        except (SystemExit, struct.error, OSError):
            continue
        if bid and loads:
            libs.append((os.path.getsize(path), path))
    libs.sort(reverse=True)
    chosen = [p for _, p in libs[:n]]
    for must in ("/usr/lib/x86_64-linux-gnu/libc.so.6",):
        if must not in chosen and os.path.exists(must):
            chosen[-1] = must
    return chosen


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--locations", type=int, default=1_000_000)
    ap.add_argument("--files", type=int, default=60)
    ap.add_argument("--processes", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    files = candidates(a.files)
    info = {}
    for path in files:
        loads, bid = otlp_gen.elf_info(path)
        seg = max(loads, key=lambda l: l[2])  # the text segment
        funcs = [f for f in functions(path) if seg[1] <= f[0] and f[0] + f[1] <= seg[1] + seg[2]]
        if not funcs:
            funcs = [(seg[1] + 16 * i, 16) for i in range(max(1, seg[2] // 16))]
        info[path] = (seg, bid, otlp_gen.htlhash(path), funcs)

    msg = op.ExportProfilesServiceRequest()
    dic = otlp_gen.Dict(msg)
    # the processes: each maps libc, libstdc++ and a draw of the others
    common = [p for p in files if os.path.basename(p).startswith(("libc.so", "libstdc++"))]
    procs = []
    for i in range(a.processes):
        others = rnd.sample([p for p in files if p not in common],
                            min(len(files) - len(common), rnd.randint(8, 25)))
        procs.append(common + others)
    used = set(p for ps in procs for p in ps)
    # every file some process maps; locations spread over them by their functions
    weights = {p: len(info[p][3]) for p in used}
    total_w = sum(weights.values())
    per_file = {p: max(50, a.locations * weights[p] // total_w) for p in used}
    locs = {}
    for p in sorted(used):
        seg, bid, hl, funcs = info[p]
        pg = seg[0] & ~(otlp_gen.PAGE - 1)
        start = otlp_gen.offset_to_va([seg], pg)
        mi = dic.mapping((p,), start, seg[1] + seg[2], pg, os.path.basename(p),
                         [("process.executable.build_id.gnu", bid),
                          ("process.executable.build_id.htlhash", hl)])
        seen, want = set(), min(per_file[p], sum(sz for _, sz in funcs))
        while len(seen) < want:
            fstart, fsize = funcs[rnd.randrange(len(funcs))]
            seen.add(fstart + rnd.randrange(fsize))
        locs[p] = [dic.location(mi, addr, "native") for addr in sorted(seen)]
    kmap = dic.mapping(("vmlinux",), 0, 0, 0, "vmlinux",
                       [("process.executable.build_id.gnu", "ab" * 20)])
    kernel = [dic.location(kmap, 0x1000 + 16 * i, "kernel", "kfunc_%d" % i) for i in range(200)]
    n_locs = sum(len(v) for v in locs.values())
    # every location goes to one process that maps its file; each process's stacks use
    # all of its own once, and a third of their frames again (hot code)
    mine = {i: [] for i in range(len(procs))}
    for p, v in locs.items():
        users = [i for i, ps in enumerate(procs) if p in ps]
        for k, loc in enumerate(v):
            mine[users[k % len(users)]].append(loc)
    n_samples, t = 0, 1_700_000_000_000_000_000
    for i, maps in enumerate(procs):
        pid = 1000 + i
        rp = msg.resource_profiles.add()
        for k, v in (("process.pid", pid), ("process.executable.name", "svc%d" % pid),
                     ("container.id", hashlib.sha256(b"%d" % (pid % 7)).hexdigest())):
            kv = rp.resource.attributes.add(key=k)
            if isinstance(v, int):
                kv.value.int_value = v
            else:
                kv.value.string_value = v
        sp = rp.scope_profiles.add()
        sp.scope.name = "opentelemetry-ebpf-profiler"
        prof = sp.profiles.add(time_unix_nano=t, duration_nano=5_000_000_000, period=50_000_000)
        prof.sample_type.type_strindex = dic.s("samples")
        prof.sample_type.unit_strindex = dic.s("count")
        prof.period_type.type_strindex = dic.s("cpu")
        prof.period_type.unit_strindex = dic.s("nanoseconds")
        pool = mine[i]
        rnd.shuffle(pool)
        hot = pool[:max(1, len(pool) // 50)]
        while pool:
            depth = rnd.randint(8, 40)
            stack = [kernel[rnd.randrange(200)], kernel[rnd.randrange(200)]] \
                if rnd.random() < 0.1 else []
            for _ in range(depth):
                if pool and rnd.random() < 0.7:
                    stack.append(pool.pop())
                else:
                    stack.append(hot[rnd.randrange(len(hot))])
            s = prof.samples.add(stack_index=dic.stack(stack))
            s.timestamps_unix_nano.extend(t + rnd.randrange(5_000_000_000)
                                          for _ in range(rnd.randint(1, 4)))
            tid = pid * 10 + rnd.randrange(8)
            s.attribute_indices.extend([dic.attr("thread.name", "worker-%d" % (tid % 8)),
                                        dic.attr("thread.id", tid),
                                        dic.attr("cpu.logical_number", rnd.randrange(64))])
            n_samples += 1
    with open(a.out, "wb") as f:
        f.write(msg.SerializeToString())
    with open(a.out + ".files", "w") as f:
        f.write("".join(p + "\n" for p in sorted(used)))
    print("otlpgen: %d files, %d mappings, %d locations, %d samples, %d bytes"
          % (len(used), len(msg.dictionary.mapping_table) - 1, n_locs + len(kernel), n_samples,
             os.path.getsize(a.out)))


if __name__ == "__main__":
    main()
