#!/usr/bin/env python3
"""generate.py — writes the damaged perf.data inputs of this directory
(CASE.in) and the text each refusal must contain (CASE.expect), plus one
intact recording as a fuzzing seed (tests/fuzz/seeds/perf/small.data).
Run it from this directory after changing a case; the layout follows
spec/PERF-DATA.md §1-§4 (little-endian, file mode unless noted)."""
import os
import struct
import subprocess

IP, TID, TIME, ADDR, READ, CALLCHAIN, ID, CPU, PERIOD = 1, 2, 4, 8, 16, 32, 64, 128, 256
REGS_USER, STACK_USER = 1 << 12, 1 << 13
CTX_USER = (1 << 64) - 512


def attr(sample_type, size=128, regs_mask=0, stack=0):
    a = struct.pack('<IIQQQQQ', 1, size, 0, 4000, sample_type, 0, 1 << 10)
    a += b'\0' * (80 - len(a))
    a += struct.pack('<QIi', regs_mask, stack, 0)
    return a + b'\0' * (size - len(a))


def rec(rtype, body, misc=0, size=None):
    return struct.pack('<IHH', rtype, misc, size if size is not None else 8 + len(body)) + body


def name(s):
    b = s.encode() + b'\0'
    return b + b'\0' * (-len(b) % 8)


def mmap(pid, addr, length, path):
    return rec(1, struct.pack('<IIQQQ', pid, pid, addr, length, 0) + name(path), misc=2)


def sample(chain, pid=7, ip=0x401000, extra=b''):
    body = struct.pack('<QIIQQ', ip, pid, pid, 1, 1000000)
    body += struct.pack('<Q', len(chain)) + b''.join(struct.pack('<Q', c) for c in chain)
    return rec(9, body + extra, misc=2)


def perf_file(records, sample_type=IP | TID | TIME | PERIOD | CALLCHAIN, attr_bytes=None,
              attr_size=None):
    a = attr_bytes if attr_bytes is not None else attr(sample_type)
    attr_size = attr_size if attr_size is not None else len(a) + 16
    attrs_off = 104
    entry = a + struct.pack('<QQ', 0, 0)
    data_off = attrs_off + len(entry)
    data = b''.join(records)
    hdr = b'PERFILE2' + struct.pack('<QQ', 104, attr_size)
    hdr += struct.pack('<QQQQQQ', attrs_off, len(entry), data_off, len(data), 0, 0)
    hdr += struct.pack('<QQQQ', 0, 0, 0, 0)
    return hdr + entry + data


GOOD = [mmap(7, 0x400000, 0x2000, '/bin/prog'),
        sample([CTX_USER, 0x401000, 0x401105])]

cases = {}
whole = perf_file(GOOD)
cases['truncated_header'] = (whole[:50],
                             'offset 0: truncated perf.data header: expected 104 bytes, '
                             'the file has 50 left')
cases['header_size'] = (whole[:8] + struct.pack('<Q', 72) + whole[16:],
                        'offset 8: header size 72: expected 104 (file) or 16 (pipe)')
cases['attr_size_small'] = (perf_file(GOOD, attr_size=40),
                            'offset 16: attr_size 40: expected a multiple of 8 from 80 to 4096')
cases['attr_size_odd'] = (perf_file(GOOD, attr_bytes=attr(IP | TID, size=128)[:4] +
                                    struct.pack('<I', 70) + attr(IP | TID)[8:]),
                          'offset 104: attr.size 70: expected a multiple of 8 of at least 64')
cases['attrs_past_end'] = (whole[:24] + struct.pack('<QQ', 104, 144 << 30) + whole[40:],
                           'offset 24: attrs section [104, +154618822656) runs past the end')
cases['record_size_absurd'] = (perf_file(GOOD + [rec(9, b'\0' * 8, size=0xfff8)]),
                               'record of type 9 and 65528 bytes runs past the end of the data '
                               'section')
cases['record_size_small'] = (perf_file(GOOD + [struct.pack('<IHH', 3, 0, 4) + b'\0' * 4]),
                              'record of type 3 has size 4: expected at least its 8-byte header')
chain_bad = struct.pack('<QIIQQ', 0x401000, 7, 7, 1, 1000000) + struct.pack('<QQ', 1 << 40,
                                                                             CTX_USER)
cases['callchain_past_record'] = (perf_file(GOOD + [rec(9, chain_bad)]),
                                  'callchain of 1099511627776 entries but only 8 bytes left in '
                                  'the 56-byte sample')
st = IP | TID | TIME | PERIOD | CALLCHAIN | REGS_USER | STACK_USER
a = attr(st, regs_mask=0x3, stack=16)
regs = struct.pack('<QQQ', 2, 0x7ffd0000, 0x401000)
cases['stack_dyn_size'] = (perf_file([sample([], extra=regs + struct.pack('<Q', 16) +
                                             b'\1' * 16 + struct.pack('<Q', 24))],
                                     attr_bytes=a),
                           'user stack dyn_size 24 larger than its size 16')
cases['stack_size_past'] = (perf_file([sample([], extra=regs + struct.pack('<Q', 4096) +
                                              b'\1' * 16)], attr_bytes=a),
                            'user stack of 4096 bytes but only 16 bytes left in the sample')
cases['mmap_name_unterminated'] = (perf_file([rec(1, struct.pack('<IIQQQ', 7, 7, 0x400000,
                                                                 0x1000, 0) + b'/bin/pro')]),
                                   'mmap file name is not NUL-terminated within the record')
cases['mmap_wraps'] = (perf_file([mmap(7, 0xfffffffffffff000, 0x2000, '/x')]),
                       'wraps around the address space')


def zstd(data):
    """One zstd frame (the zstd command's; perf writes an unfinished one)."""
    return subprocess.run(['zstd', '-q', '-c', '-1', '--no-check'], input=data,
                          capture_output=True, check=True).stdout


# perf record -z: the records inside COMPRESSED (81) records
ZGOOD = [GOOD[0], rec(81, zstd(GOOD[1]))]
cases['compressed_corrupt'] = (perf_file(GOOD + [rec(81, b'\xde\xad\xbe\xef' * 3)]),
                               'offset 376: corrupt zstd payload in COMPRESSED record: '
                               'Unknown frame descriptor')
cases['compressed_truncated'] = (perf_file([GOOD[0], rec(81, zstd(GOOD[1])[:-6])]),
                                 'offset 304: byte 0 of the data decompressed from COMPRESSED '
                                 'records: the zstd stream of the COMPRESSED records ends inside '
                                 'a block')
cases['compressed_partial'] = (perf_file([GOOD[0], rec(81, zstd(GOOD[1][:-8]))]),
                               'offset 304: byte 0 of the data decompressed from COMPRESSED '
                               'records: truncated record: 64 bytes of it at the end of the '
                               'compressed data')
cases['compressed_nested'] = (perf_file([GOOD[0], rec(81, zstd(rec(81, zstd(GOOD[1]))))]),
                              'offset 304: byte 0 of the data decompressed from COMPRESSED '
                              'records: COMPRESSED record inside compressed data')
pipe = b'PERFILE2' + struct.pack('<Q', 16)
cases['pipe_sample_before_attr'] = (pipe + GOOD[1],
                                    'offset 16: record of type 9 before any event attribute')
# two events told apart by IDENTIFIER; a sample with an id of neither
two = attr(0x10000 | IP | TID | TIME | PERIOD)
hattr = rec(64, two + struct.pack('<Q', 11)) + rec(64, two + struct.pack('<Q', 12))
cases['pipe_unknown_id'] = (pipe + hattr + rec(9, struct.pack('<QQIIQQ', 13, 0x401000, 7, 7, 1,
                                                              1)),
                            'sample id 13 belongs to no event of the file')

here = os.path.dirname(os.path.abspath(__file__))
for case, (data, expect) in cases.items():
    with open(os.path.join(here, case + '.in'), 'wb') as f:
        f.write(data)
    with open(os.path.join(here, case + '.expect'), 'w') as f:
        f.write(expect + '\n')
seeds = os.path.join(here, '..', '..', 'fuzz', 'seeds', 'perf')
os.makedirs(seeds, exist_ok=True)
with open(os.path.join(seeds, 'small.data'), 'wb') as f:
    f.write(perf_file(GOOD))
with open(os.path.join(seeds, 'z.data'), 'wb') as f:
    f.write(perf_file(ZGOOD))
# pipe mode with COMPRESSED2 (83) records {header; u64 size; data; padding}, the
# sample split across two of them
zs = zstd(GOOD[1])
half = len(zs) // 2
zs2 = b''.join(rec(83, struct.pack('<Q', len(z)) + z + b'\0' * (-len(z) % 8))
               for z in (zs[:half], zs[half:]))
with open(os.path.join(seeds, 'zpipe.data'), 'wb') as f:
    f.write(pipe + rec(64, attr(IP | TID | TIME | PERIOD | CALLCHAIN) + struct.pack('<Q', 1)) +
            GOOD[0] + zs2)
with open(os.path.join(seeds, 'pipe.data'), 'wb') as f:
    f.write(pipe + hattr + rec(9, struct.pack('<QQIIQQ', 12, 0x401000, 7, 7, 1, 1)))
