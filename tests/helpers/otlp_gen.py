#!/usr/bin/python3
"""otlp_gen.py -- turns a real `perf record` into OTLP profiles as the OpenTelemetry eBPF
profiler's reporter encodes them (spec/OTLP-PROFILES.md; opentelemetry-ebpf-profiler
reporter/internal/pdata/generate.go, processmanager/manager.go, libpf/fileid.go), for the
tests of symprof's OTLP reader.  Written from the spec, with python3-protobuf; nothing of
symprof's code is used.

    perf script -i perf.data --ns --show-mmap-events \\
        -F comm,pid,tid,cpu,time,period,ip,sym,dso > script.txt
    otlp_gen.py script.txt OUTDIR [--no-build-ids]

What the profiler does, and so this does:
  - one ResourceProfiles per process (process.pid, process.executable.path and .name,
    container.id), one ScopeProfiles (the agent's name and version), one Profile of
    sample type samples/count, period type cpu/nanoseconds;
  - samples keyed by stack, thread name, thread id, CPU and link, each with its
    timestamps and no values; attributes thread.name, thread.id, cpu.logical_number;
    a link (trace and span ids) for the worker thread's samples;
  - native frames unsymbolized: a mapping per mapped file range whose memory_start is the
    ELF virtual address of its file offset (load base 0: the executable PT_LOAD holding
    the offset, page-aligned, as FileOffsetToVirtualAddress), limit start + length,
    the file's base name, build ids as attributes (process.executable.build_id.gnu,
    .htlhash: SHA-256 of the first 4 KiB, the last 4 KiB and the 8-byte big-endian
    length, first 16 bytes in hex); locations at ELF virtual addresses, return addresses
    already decremented (the first user frame is the sampled instruction itself, or
    where the process entered the kernel);
    profile.frame.type "native";
  - kernel frames named on the host: one Line with the function name, the mapping
    "vmlinux" at 0 with the kernel's GNU build id, profile.frame.type "kernel";
  - the dictionary's tables with the zero value at index 0, filled in first-seen order.

perf prints a frame of a file as its map-relative address (file offset); a frame of
the vDSO becomes a mapping "linux-vdso.1.so" (the profiler's name); frames perf cannot
place ([unknown]) become locations without a mapping at their run-time address (a
caller's decremented as well).

Writes into OUTDIR:
  agent.otlp          ProfilesData, one message
  agent-export.otlp   ExportProfilesServiceRequest, one message
  agent-stream.otlp   two ExportProfilesServiceRequests (first and second half of the
                      samples in time, each with its own dictionary), each after its
                      4-byte big-endian length, as the collector's file exporter writes
  agent.otlp.json     the same two as OTLP/JSON lines
  agent.otlp.gz       agent.otlp gzipped
  expect.json         per sample: pid, tid, thread name, CPU, timestamp, link (hex),
                      the stack (frame type and, for kernel frames, the name)
With --no-build-ids the mappings carry their htlhash only.
"""
import gzip
import hashlib
import json
import os
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import otlp_proto as op  # noqa: E402

PAGE = 4096
SCHEMA = "https://opentelemetry.io/schemas/1.37.0"
KERNEL_START_SYM = "_stext"


def elf_info(path):
    """(executable PT_LOADs as (offset, vaddr, filesz), GNU build id hex or "")."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise SystemExit("otlp_gen: %s: not a 64-bit little-endian ELF file" % path)
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    loads, build_id = [], ""
    for i in range(phnum):
        p_type, p_flags, p_offset, p_vaddr, _, p_filesz = struct.unpack_from(
            "<IIQQQQ", data, phoff + i * phentsize)
        if p_type == 1 and p_flags & 1:
            loads.append((p_offset, p_vaddr, p_filesz))
        if p_type == 4:  # PT_NOTE
            at, end = p_offset, p_offset + p_filesz
            while at + 12 <= end:
                namesz, descsz, ntype = struct.unpack_from("<III", data, at)
                name = data[at + 12:at + 12 + namesz]
                d0 = at + 12 + ((namesz + 3) & ~3)
                if ntype == 3 and name.rstrip(b"\0") == b"GNU":
                    build_id = data[d0:d0 + descsz].hex()
                at = d0 + ((descsz + 3) & ~3)
    return loads, build_id


def htlhash(path):
    """The profiler's file id: SHA-256 over the first 4096 bytes, the last 4096 bytes
    (overlapping in a smaller file) and the length as 8 big-endian bytes; 16 bytes."""
    with open(path, "rb") as f:
        data = f.read()
    h = hashlib.sha256()
    h.update(data[:4096])
    h.update(data[-4096:] if len(data) >= 4096 else data)
    h.update(len(data).to_bytes(8, "big"))
    return h.digest()[:16].hex()


def fnv128a(s):
    """FNV-1a, 128 bits (the profiler's kernel file id from a build id string)."""
    h = 0x6c62272e07bb014262b821756295c58d
    for b in s.encode():
        h ^= b
        h = (h * 0x0000000001000000000000000000013B) % (1 << 128)
    return "%032x" % h


def offset_to_va(loads, off):
    """FileOffsetToVirtualAddress: the executable PT_LOAD holding OFF (page-aligned)."""
    for p_offset, p_vaddr, p_filesz in loads:
        if p_offset & ~(PAGE - 1) <= off < p_offset + p_filesz:
            return p_vaddr - (p_offset - off)
    return None


MMAP = re.compile(r"PERF_RECORD_MMAP2 (\d+)/(\d+): \[0x([0-9a-f]+)\(0x([0-9a-f]+)\) @ "
                  r"(0x[0-9a-f]+|0) [^\]]*\]: ([rwxsp-]+) (.*)$")
HEAD = re.compile(r"^\s*(\S.*?)\s+(\d+)/(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+(\d+)\s*$")
FRAME = re.compile(r"^\s+([0-9a-f]+) (.*) \((.*)\)$")


def parse_script(path):
    maps, samples, cur = {}, [], None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = MMAP.search(line)
            if m:
                pid = int(m.group(1))
                start, length = int(m.group(3), 16), int(m.group(4), 16)
                pgoff = int(m.group(5), 16)
                if "x" in m.group(6):
                    maps.setdefault(pid, []).append((start, length, pgoff, m.group(7)))
                continue
            m = HEAD.match(line)
            if m:
                cur = {"comm": m.group(1), "pid": int(m.group(2)), "tid": int(m.group(3)),
                       "cpu": int(m.group(4)),
                       "time": int(m.group(5)) * 10**9 + int(m.group(6).ljust(9, "0")),
                       "period": int(m.group(7)), "frames": []}
                samples.append(cur)
                continue
            m = FRAME.match(line)
            if m and cur is not None:
                sym = re.sub(r"\+0x[0-9a-f]+$", "", m.group(2))
                cur["frames"].append((int(m.group(1), 16), sym, m.group(3)))
                continue
            if not line.strip():
                cur = None
    return maps, samples


def kernel_build_id():
    try:
        with open("/sys/kernel/notes", "rb") as f:
            data = f.read()
    except OSError:
        return ""
    at = 0
    while at + 12 <= len(data):
        namesz, descsz, ntype = struct.unpack_from("<III", data, at)
        name = data[at + 12:at + 12 + namesz]
        d0 = at + 12 + ((namesz + 3) & ~3)
        if ntype == 3 and name.rstrip(b"\0") == b"GNU":
            return data[d0:d0 + descsz].hex()
        at = d0 + ((descsz + 3) & ~3)
    return ""


def kernel_start():
    try:
        with open("/proc/kallsyms") as f:
            for line in f:
                a, _, name = line.split()[:3]
                if name == KERNEL_START_SYM:
                    return int(a, 16)
    except (OSError, ValueError):
        pass
    return 0


class Dict:
    """The dictionary being built, like the reporter's ordered sets: index 0 is the
    zero value, then first-seen order."""

    def __init__(self, msg):
        self.d = msg.dictionary
        self.strings, self.attrs, self.maps, self.locs = {"": 0}, {}, {}, {}
        self.funcs, self.stacks, self.links = {}, {}, {}
        self.d.string_table.append("")
        self.d.mapping_table.add()
        self.d.location_table.add()
        self.d.function_table.add()
        self.d.stack_table.add()
        self.d.attribute_table.add()
        link = self.d.link_table.add()
        link.trace_id, link.span_id = bytes(16), bytes(8)

    def s(self, v):
        if v not in self.strings:
            self.strings[v] = len(self.d.string_table)
            self.d.string_table.append(v)
        return self.strings[v]

    def attr(self, key, v):
        k = (key, type(v).__name__, v)
        if k not in self.attrs:
            a = self.d.attribute_table.add()
            a.key_strindex = self.s(key)
            if isinstance(v, int):
                a.value.int_value = v
            else:
                a.value.string_value = v
            self.attrs[k] = len(self.d.attribute_table) - 1
        return self.attrs[k]

    def mapping(self, key, start, limit, off, name, attrs):
        if key not in self.maps:
            m = self.d.mapping_table.add()
            m.memory_start, m.memory_limit, m.file_offset = start, limit, off
            m.filename_strindex = self.s(name)
            m.attribute_indices.extend(self.attr(k, v) for k, v in attrs if v)
            self.maps[key] = len(self.d.mapping_table) - 1
        return self.maps[key]

    def location(self, mi, addr, ftype, fname=None):
        key = (mi, addr, ftype, fname)
        if key not in self.locs:
            loc = self.d.location_table.add()
            loc.mapping_index, loc.address = mi, addr
            if fname is not None:
                fk = (fname, "")
                if fk not in self.funcs:
                    fn = self.d.function_table.add()
                    fn.name_strindex, fn.filename_strindex = self.s(fname), self.s("")
                    self.funcs[fk] = len(self.d.function_table) - 1
                loc.lines.add(function_index=self.funcs[fk])
            loc.attribute_indices.append(self.attr("profile.frame.type", ftype))
            self.locs[key] = len(self.d.location_table) - 1
        return self.locs[key]

    def stack(self, locs):
        key = tuple(locs)
        if key not in self.stacks:
            self.d.stack_table.add().location_indices.extend(locs)
            self.stacks[key] = len(self.d.stack_table) - 1
        return self.stacks[key]

    def link(self, trace, span):
        if (trace, span) not in self.links:
            link = self.d.link_table.add()
            link.trace_id, link.span_id = trace, span
            self.links[(trace, span)] = len(self.d.link_table) - 1
        return self.links[(trace, span)]


def link_of(s):
    """The worker thread's samples carry a link (as an APM agent would make)."""
    if s["comm"] == "pbworker":
        return (hashlib.sha256(b"trace%d" % s["tid"]).digest()[:16],
                hashlib.sha256(b"span%d" % s["tid"]).digest()[:8])
    return None


EPOCH = 1_700_000_000_000_000_000  # the recording's clock starts at boot


def build(maps, samples, cls, build_ids, files):
    msg = cls()
    dic = Dict(msg)
    kbid, kstart = kernel_build_id(), kernel_start()
    by_pid = {}
    for s in samples:
        by_pid.setdefault(s["pid"], []).append(s)
    for pid, ss in by_pid.items():
        exe = next((p for (_, _, _, p) in maps.get(pid, []) if p.startswith("/")), "")
        rp = msg.resource_profiles.add()
        rp.schema_url = SCHEMA
        for k, v in (("container.id", "0c0ffee0" * 8), ("process.pid", pid),
                     ("process.executable.path", exe),
                     ("process.executable.name", os.path.basename(exe))):
            kv = rp.resource.attributes.add(key=k)
            if isinstance(v, int):
                kv.value.int_value = v
            else:
                kv.value.string_value = v
        sp = rp.scope_profiles.add()
        sp.scope.name, sp.scope.version = "opentelemetry-ebpf-profiler", "v0.0.0-symprof-test"
        sp.schema_url = SCHEMA
        prof = sp.profiles.add()
        prof.sample_type.type_strindex = dic.s("samples")
        prof.sample_type.unit_strindex = dic.s("count")
        prof.period_type.type_strindex = dic.s("cpu")
        prof.period_type.unit_strindex = dic.s("nanoseconds")
        prof.period = ss[0]["period"]
        t0 = min(s["time"] for s in ss) + EPOCH
        t1 = max(s["time"] for s in ss) + EPOCH
        prof.time_unix_nano, prof.duration_nano = t0, t1 - t0 + 1
        keyed = {}
        for s in ss:
            locs = []
            user = 0  # the first user frame is where the process was, not a return address
            for addr, sym, dso in s["frames"]:
                if dso == "[unknown]" and addr == 0:
                    continue  # the end of a frame-pointer walk: nothing the profiler sends
                if dso == "[kernel.kallsyms]":
                    mi = dic.mapping(("vmlinux",), 0, 0, 0, "vmlinux",
                                     [("process.executable.build_id.gnu", kbid),
                                      ("process.executable.build_id.htlhash",
                                       fnv128a(kbid) if kbid else "")])
                    locs.append(dic.location(mi, addr - 1 - kstart, "kernel", sym))
                    continue
                m = next(((st, ln, pg, p) for (st, ln, pg, p) in maps.get(pid, [])
                          if os.path.basename(p) == os.path.basename(dso) or p == dso), None)
                first, user = user == 0, user + 1
                if m is None or dso == "[unknown]":
                    # no mapping: the run-time address, a caller's decremented too
                    locs.append(dic.location(0, addr if first else addr - 1, "native"))
                    continue
                st, ln, pg, path = m
                if path == "[vdso]":
                    mi = dic.mapping(("vdso", pid), 0, ln, 0, "linux-vdso.1.so", [])
                    va = addr
                else:
                    loads, bid = files.setdefault(path, elf_info(path) + (htlhash(path),))[:2]
                    hl = files[path][2]
                    start = offset_to_va(loads, pg)
                    va = offset_to_va(loads, addr)
                    if start is None or va is None:
                        locs.append(dic.location(0, addr, "native"))
                        continue
                    attrs = [("process.executable.build_id.gnu", bid if build_ids else ""),
                             ("process.executable.build_id.htlhash", hl)]
                    mi = dic.mapping((path, st, pg), start, start + ln, pg,
                                     os.path.basename(path), attrs)
                # the leaf is the sampled instruction; callers' return addresses - 1
                locs.append(dic.location(mi, va if first else va - 1, "native"))
            link = link_of(s)
            key = (dic.stack(locs), s["comm"], s["tid"], s["cpu"], link)
            keyed.setdefault(key, []).append(s["time"] + EPOCH)
        for (stack, comm, tid, cpu, link), stamps in keyed.items():
            smp = prof.samples.add(stack_index=stack)
            smp.timestamps_unix_nano.extend(stamps)
            if link:
                smp.link_index = dic.link(*link)
            smp.attribute_indices.extend([dic.attr("thread.name", comm),
                                          dic.attr("thread.id", tid),
                                          dic.attr("cpu.logical_number", cpu)])
    return msg


def expectation(samples, maps):
    out = []
    for s in samples:
        link = link_of(s)
        frames = []
        for addr, sym, dso in s["frames"]:
            frames.append(["kernel", sym] if dso == "[kernel.kallsyms]" else ["native", ""])
        out.append({"pid": s["pid"], "tid": s["tid"], "comm": s["comm"], "cpu": s["cpu"],
                    "time": s["time"] + EPOCH,
                    "link": [link[0].hex(), link[1].hex()] if link else None,
                    "frames": frames,
                    "exe": next((p for (_, _, _, p) in maps.get(s["pid"], [])
                                 if p.startswith("/")), "")})
    return out


def main(argv):
    if len(argv) < 3:
        raise SystemExit("usage: otlp_gen.py SCRIPT.txt OUTDIR [--no-build-ids]")
    build_ids = "--no-build-ids" not in argv[3:]
    maps, samples = parse_script(argv[1])
    if not samples:
        raise SystemExit("otlp_gen: no samples in " + argv[1])
    out, files = argv[2], {}
    os.makedirs(out, exist_ok=True)
    one = build(maps, samples, op.ProfilesData, build_ids, files)
    data = one.SerializeToString()
    with open(os.path.join(out, "agent.otlp"), "wb") as f:
        f.write(data)
    with open(os.path.join(out, "agent.otlp.gz"), "wb") as f:
        f.write(gzip.compress(data, mtime=0))
    exp = build(maps, samples, op.ExportProfilesServiceRequest, build_ids, files)
    with open(os.path.join(out, "agent-export.otlp"), "wb") as f:
        f.write(exp.SerializeToString())
    order = sorted(samples, key=lambda s: s["time"])
    half = len(order) // 2
    parts = [build(maps, part, op.ExportProfilesServiceRequest, build_ids, files)
             for part in (order[:half], order[half:]) if part]
    with open(os.path.join(out, "agent-stream.otlp"), "wb") as f:
        for m in parts:
            b = m.SerializeToString()
            f.write(len(b).to_bytes(4, "big") + b)
    with open(os.path.join(out, "agent.otlp.json"), "w") as f:
        for m in parts:
            f.write(op.to_json(m) + "\n")
    with open(os.path.join(out, "expect.json"), "w") as f:
        json.dump(expectation(samples, maps), f)
    print("otlp_gen: %d samples, %d processes, %d mappings, %d locations" % (
        len(samples), len(one.resource_profiles), len(one.dictionary.mapping_table) - 1,
        len(one.dictionary.location_table) - 1))


if __name__ == "__main__":
    main(sys.argv)
