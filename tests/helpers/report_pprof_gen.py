#!/usr/bin/env python3
# report_pprof_gen.py SEED OUTBASE [labels] — writes a random profile twice: as
# profile.proto (OUTBASE.pb.gz, encoded here from the field numbers of
# profile.proto) for go tool pprof, and in the text form read by
# tests/helpers/report_load.c (OUTBASE.txt).  Locations carry up to three inline
# frames and stacks repeat locations (recursion); with "labels", samples
# carry a numeric "bytes" label and string labels at random.
import gzip
import random
import sys

seed, base = int(sys.argv[1]), sys.argv[2]
rnd = random.Random(seed)


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(num, v):
    if isinstance(v, bytes):
        return varint(num << 3 | 2) + varint(len(v)) + v
    return varint(num << 3) + varint(v)


def packed(num, vals):
    body = b"".join(varint(v) for v in vals)
    return varint(num << 3 | 2) + varint(len(body)) + body


strings = [""]


def sid(s):
    if s not in strings:
        strings.append(s)
    return strings.index(s)


pb = bytearray()
txt = ["T cpu nanoseconds"]
pb += field(1, field(1, sid("cpu")) + field(2, sid("nanoseconds")))
nf = rnd.randint(3, 25)
for i in range(1, nf + 1):
    name, file = "fn%02d" % (i - 1), "f%d.c" % (i % 3)
    pb += field(5, field(1, i) + field(2, sid(name)) + field(3, sid(name)) + field(4, sid(file)))
    txt.append("F %d %s %s" % (i, name, file))
pb += field(3, field(1, 1) + field(2, 0x1000) + field(3, 0x100000) + field(5, sid("/bin/prog"))
            + field(7, 1) + field(8, 1) + field(9, 1) + field(10, 1))
txt.append("M /bin/prog")
nl = rnd.randint(3, 40)
for i in range(1, nl + 1):
    lines = [(rnd.randint(1, nf), rnd.randint(1, 50)) for _ in range(rnd.choice([1, 1, 1, 2, 3]))]
    addr = 0x1000 + 16 * i
    pb += field(4, field(1, i) + field(2, 1) + field(3, addr)
                + b"".join(field(4, field(1, f) + field(2, l)) for f, l in lines))
    txt.append("L %d %d %s" % (i, addr, ",".join("%d:%d" % x for x in lines)))
labelled = len(sys.argv) > 3 and sys.argv[3] == "labels"
for _ in range(rnd.randint(1, 60)):
    locs = [rnd.randint(1, nl) for _ in range(rnd.randint(1, 8))]
    v = rnd.choice([1, 10, 100, 1000, 12345]) * rnd.randint(1, 50) * 1000
    labels = []
    if labelled:
        if rnd.random() < 0.7:
            labels.append(("bytes", rnd.choice([16, 64, 1000, 1024, 1536, 4096, 1 << 20, 3000000])))
        if rnd.random() < 0.4:
            labels.append(("t", rnd.choice(["a", "b", "c"])))
        if rnd.random() < 0.2:
            labels.append(("u", rnd.choice(["x", "y"])))
    lab = b""
    for k, val in labels:
        if k == "bytes":
            lab += field(3, field(1, sid(k)) + field(3, val))
        else:
            lab += field(3, field(1, sid(k)) + field(2, sid(val)))
    pb += field(2, packed(1, locs) + packed(2, [v]) + lab)
    txt.append("S %d %s %s" % (v, ",".join(map(str, locs)),
                               ";".join("%s=%s" % kv for kv in labels)))
for s in strings:
    pb += field(6, s.encode())
with open(base + ".pb.gz", "wb") as f:
    f.write(gzip.compress(bytes(pb), mtime=0))
with open(base + ".txt", "w") as f:
    f.write("\n".join(txt) + "\n")
