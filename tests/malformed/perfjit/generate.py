#!/usr/bin/env python3
"""generate.py — writes the damaged jitdump files of this directory (CASE.in)
and the text each refusal must contain (CASE.expect), plus intact files as
fuzzing seeds (tests/fuzz/seeds/perfjit/).  Run it from this directory after
changing a case; the layout follows spec/FORMATS.md §5.2 (little-endian
unless noted).  tests/cli/malformed.sh gives each CASE.in to
`symprof symbolize --jitdump`."""
import os
import struct

MAGIC = 0x4A695444


def header(pid=42, version=1, size=40, flags=0, bo='<'):
    return struct.pack(bo + 'IIIIIIQQ', MAGIC, version, size, 62, 0, pid, 1000, flags)


def rec(rid, body, size=None, bo='<', time=2000):
    return struct.pack(bo + 'IIQ', rid, size if size is not None else 16 + len(body), time) + body


def load(addr, code, index, name, bo='<', pid=42, time=2000):
    body = struct.pack(bo + 'IIQQQQ', pid, pid, addr, addr, len(code), index)
    return rec(0, body + name.encode() + b'\0' + code, bo=bo, time=time)


def move(old, new, size, index, bo='<', pid=42, time=2000):
    return rec(1, struct.pack(bo + 'IIQQQQQ', pid, pid, new, old, new, size, index), bo=bo,
               time=time)


def debug(addr, entries, bo='<'):
    body = struct.pack(bo + 'QQ', addr, len(entries))
    for a, line, f in entries:
        body += struct.pack(bo + 'QiI', a, line, 0) + f + b'\0'
    return rec(2, body, bo=bo)


CODE = bytes(range(0x20))
GOOD_DEBUG = debug(0x10000, [(0x10000, 5, b'f.js'), (0x10010, 6, b'\xff')])
GOOD = (header() + GOOD_DEBUG + load(0x10000, CODE, 1, 'js_fn') +
        load(0x10100, CODE, 2, 'other') + move(0x10000, 0x20000, len(CODE), 1) + rec(3, b''))

cases = {
    'truncated_header': (GOOD[:30], 'offset 30: expected a 40-byte jitdump header'),
    'version': (header(version=2) + rec(3, b''), 'offset 4: expected jitdump version 1, got 2'),
    'header_size': (header(size=12), 'offset 8: expected a header size from 40'),
    'flags': (header(flags=6), 'offset 32: expected no flag but bit 0'),
    'record_prefix_cut': (header() + b'\0' * 10,
                          'offset 40: expected a 16-byte record header, 10 bytes left'),
    'record_size_small': (header() + rec(0, b'', size=8),
                          'offset 44: expected a record size from 16 to the 16 bytes left, got 8'),
    'record_size_absurd': (header() + rec(7, b'x' * 8, size=0xfffffff0),
                           'offset 44: expected a record size from 16 to the 24 bytes left'),
    'load_short': (header() + rec(0, b'\0' * 20), 'expected a JIT_CODE_LOAD record of at least 57 bytes'),
    'load_code_size': (header() + rec(0, struct.pack('<IIQQQQ', 42, 42, 0, 0x1000, 1 << 40, 1) + b'f\0'),
                       'offset 80: expected a code size of at most the 1 bytes after the name'),
    'load_name_unterminated': (header() + rec(0, struct.pack('<IIQQQQ', 42, 42, 0, 0x1000, 2, 1) + b'fn\x90\x90'),
                               'offset 96: expected a NUL-terminated function name before the 2 code bytes'),
    'load_wraps': (header() + load((1 << 64) - 8, CODE, 1, 'f'),
                   'offset 72: expected code_addr and code size to stay below 2^64'),
    'move_unknown_index': (header() + load(0x1000, CODE, 1, 'f') + move(0x1000, 0x2000, 0x20, 9),
                           'JIT_CODE_MOVE of code index 9, expected an earlier JIT_CODE_LOAD'),
    'move_short': (header() + rec(1, b'\0' * 40), 'expected a JIT_CODE_MOVE record of at least 64 bytes'),
    'debug_nr_absurd': (header() + rec(2, struct.pack('<QQ', 0x1000, 1 << 60) + b'\0' * 17),
                        'offset 64: expected at most 1 debug entries in the 17 bytes left'),
    'debug_name_unterminated': (header() + rec(2, struct.pack('<QQQiI', 0x1000, 1, 0x1000, 3, 0) + b'abc'),
                                'offset 88: expected a NUL-terminated file name in debug entry 1'),
    'debug_first_same': (header() + debug(0x1000, [(0x1000, 3, b'\xff')]),
                         'debug entry 1 says "same file as the entry before"'),
    'debug_short': (header() + rec(2, b'\0' * 8), 'expected a JIT_CODE_DEBUG_INFO record of at least 32 bytes'),
}

for name, (data, expect) in cases.items():
    with open(name + '.in', 'wb') as f:
        f.write(data)
    with open(name + '.expect', 'w') as f:
        f.write(expect + '\n')

seeds = os.path.join('..', '..', 'fuzz', 'seeds', 'perfjit')
os.makedirs(seeds, exist_ok=True)
with open(os.path.join(seeds, 'le.dump'), 'wb') as f:
    f.write(GOOD)
with open(os.path.join(seeds, 'be.dump'), 'wb') as f:
    f.write(header(bo='>') + debug(0x10000, [(0x10000, 5, b'f.js'), (0x10010, 6, b'\xff')], bo='>') +
            load(0x10000, CODE, 1, 'js_fn', bo='>') + rec(4, b'\0' * 24, bo='>') +
            move(0x10000, 0x20000, len(CODE), 1, bo='>'))
# addresses reused over time: which code a time sees
with open(os.path.join(seeds, 'reused.dump'), 'wb') as f:
    f.write(header() + load(0x10000, CODE, 1, 'first', time=5) +
            load(0x10008, CODE[:0x10], 2, 'second', time=1000) +
            move(0x10000, 0x20000, len(CODE), 1, time=500) +
            load(0x20010, CODE[:4], 3, 'third', time=1))
