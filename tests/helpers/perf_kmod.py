#!/usr/bin/env python3
"""perf_kmod.py OUT RELEASE MODULE START BUILD_ID N CHAIN... — writes a
perf.data (file mode, little-endian, spec/PERF-DATA.md §1-§4) of N
cpu-clock samples in a kernel module, for the kernel tests on machines
where no module can be loaded and sampled: one cpu-clock attr (sample_type
IP|TID|TIME|CALLCHAIN|PERIOD), perf's kernel MMAP of MODULE (pid -1,
[START, START + 0x10000), pgoff 0), then N samples (kernel mode, pid and
tid 42) for each CHAIN given (comma-separated hex addresses, leaf first,
after a PERF_CONTEXT_KERNEL marker), and the features BUILD_ID (MODULE
with BUILD_ID, kernel cpumode, as perf record lists modules hit by
samples) and OSRELEASE (RELEASE).
"""
import struct
import sys

PERF_CONTEXT_KERNEL = (1 << 64) - 128
SAMPLE_TYPE = 0x1 | 0x2 | 0x4 | 0x20 | 0x100  # IP TID TIME CALLCHAIN PERIOD
MISC_KERNEL = 1


def padded(s, align=8):
    b = s.encode() + b"\0"
    return b + b"\0" * (-len(b) % align)


def record(rtype, misc, body):
    return struct.pack("<IHH", rtype, misc, 8 + len(body)) + body


def main():
    out, release, module, start, build_id, n = sys.argv[1:7]
    chains = [[int(a, 16) for a in c.split(",")] for c in sys.argv[7:]]
    start = int(start, 16)
    n = int(n)

    attr = struct.pack("<IIQQQQQ", 1, 128, 0, 4000, SAMPLE_TYPE, 0, 1 << 10)
    attr += b"\0" * (128 - len(attr))

    data = record(1, MISC_KERNEL,
                  struct.pack("<iiQQQ", -1, 0, start, 0x10000, 0) + padded(module))
    time = 1000
    for chain in chains:
        for _ in range(n):
            ips = [PERF_CONTEXT_KERNEL] + chain
            body = struct.pack("<QiiQQQ", chain[0], 42, 42, time, 250000, len(ips))
            body += b"".join(struct.pack("<Q", a) for a in ips)
            data += record(9, MISC_KERNEL, body)
            time += 1

    bid = bytes.fromhex(build_id)
    bid_rec = record(0, MISC_KERNEL | 0x8000,
                     struct.pack("<i", -1) + bid + b"\0" * (20 - len(bid)) +
                     bytes([len(bid), 0, 0, 0]) + padded(module, 64))
    rel = padded(release, 64)
    osrelease = struct.pack("<I", len(rel)) + rel

    header_size = 104
    attrs_at = header_size
    attr_entry = attr + struct.pack("<QQ", 0, 0)  # its ids: none
    data_at = attrs_at + len(attr_entry)
    feat_at = data_at + len(data)
    table = 2 * 16
    bid_at = feat_at + table
    rel_at = bid_at + len(bid_rec)
    flags = (1 << 2) | (1 << 4)  # BUILD_ID, OSRELEASE
    header = b"PERFILE2" + struct.pack("<QQ", header_size, len(attr_entry))
    header += struct.pack("<QQQQQQ", attrs_at, len(attr_entry), data_at, len(data), 0, 0)
    header += struct.pack("<QQQQ", flags, 0, 0, 0)
    assert len(header) == header_size
    feats = struct.pack("<QQQQ", bid_at, len(bid_rec), rel_at, len(osrelease))
    with open(out, "wb") as f:
        f.write(header + attr_entry + data + feats + bid_rec + osrelease)


main()
