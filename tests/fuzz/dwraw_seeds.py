#!/usr/bin/env python3
"""dwraw_seeds.py OUTDIR [PROGRAM...] — writes the seeds of tests/fuzz/fuzz_dwraw.c.

Each seed is the harness's input: four little-endian 16-bit lengths (.debug_abbrev,
.debug_ranges, .debug_rnglists, .debug_str), those sections, then .debug_info.  The
units written here by hand cover a pc pair, every plain range-list entry kind, a base
address selection, 4-byte addresses, forms of every size class and an unterminated
child list; each PROGRAM (an executable built with gcc -g) adds one seed made of its
own sections (objcopy --dump-section).
"""
import os
import struct
import subprocess
import sys
import tempfile


def uleb(v):
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def sleb(v):
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        done = (v == 0 and not b & 0x40) or (v == -1 and b & 0x40)
        out.append(b | (0 if done else 0x80))
        if done:
            return bytes(out)


def seed(abbrev=b'', ranges=b'', rnglists=b'', strs=b'', info=b''):
    return struct.pack('<4H', len(abbrev), len(ranges), len(rnglists), len(strs)) + \
        abbrev + ranges + rnglists + strs + info


def abbrev_entry(code, tag, children, attrs):
    out = uleb(code) + uleb(tag) + bytes([1 if children else 0])
    for a in attrs:
        out += uleb(a[0]) + uleb(a[1])
        if a[1] == 0x21:  # DW_FORM_implicit_const
            out += sleb(a[2])
    return out + b'\0\0'


# tags, attributes and forms used below
CU, SUB, INL, VAR = 0x11, 0x2e, 0x1d, 0x34
LOW, HIGH, RANGES, ORIGIN, CFILE, CLINE, NAME, INLINE = 0x11, 0x12, 0x55, 0x31, 0x58, 0x59, 0x03, 0x20
ADDR, DATA1, DATA4, DATA8, REF4, SECOFF, STRING = 0x01, 0x0b, 0x06, 0x07, 0x13, 0x17, 0x08
STRP, EXPRLOC, SDATA, UDATA, FLAGP, BLOCK1, IMPLICIT = 0x0e, 0x18, 0x0d, 0x0f, 0x19, 0x0a, 0x21


def abbrevs(version):
    a = abbrev_entry(1, CU, True, [(LOW, ADDR), (HIGH, DATA8)])
    a += abbrev_entry(2, SUB, True, [(LOW, ADDR), (HIGH, DATA4)])
    a += abbrev_entry(3, INL, False, [(ORIGIN, REF4), (RANGES, SECOFF), (CFILE, DATA1),
                                      (CLINE, DATA1)])
    a += abbrev_entry(4, SUB, False, [(NAME, STRING), (INLINE, DATA1)])
    var = [(NAME, STRP), (0x02, EXPRLOC), (0x1c, SDATA), (0x3f, FLAGP), (0x0b, UDATA),
           (0x5a, BLOCK1)]
    if version >= 5:
        var.append((0x3b, IMPLICIT, -7))
    a += abbrev_entry(5, VAR, False, var)
    return a + b'\0'


def unit(version, asz, body):
    """A compile unit header (32-bit DWARF, abbreviations at 0) and BODY."""
    if version >= 5:
        head = struct.pack('<HBB', version, 1, asz) + struct.pack('<I', 0)
    else:
        head = struct.pack('<HIB', version, 0, asz)
    return struct.pack('<I', len(head) + len(body)) + head + body


def addr(v, asz):
    return struct.pack('<Q' if asz == 8 else '<I', v)


def body(version, asz, ranges_off, terminated=True):
    hlen = 11 if version < 5 else 12  # unit header, length included
    b = uleb(1) + addr(0x1000, asz) + struct.pack('<Q', 0x100)
    origin = hlen + len(b)
    b += uleb(4) + b'f\0' + bytes([3])
    b += uleb(5) + struct.pack('<I', 0) + uleb(2) + b'\x91\x08' + sleb(-42) + uleb(300) + \
        bytes([2, 0xaa, 0xbb])
    b += uleb(2) + addr(0x1000, asz) + struct.pack('<I', 0x80)
    b += uleb(3) + struct.pack('<I', origin) + struct.pack('<I', ranges_off) + bytes([1, 7])
    b += b'\0'  # end of the subprogram's children
    if terminated:
        b += b'\0'  # end of the unit's children
    return b


def ranges_v4(asz):
    esc = 0xffffffffffffffff if asz == 8 else 0xffffffff
    return addr(0x10, asz) + addr(0x20, asz) + addr(esc, asz) + addr(0x2000, asz) + \
        addr(0, asz) + addr(8, asz) + addr(0, asz) + addr(0, asz)


def rnglists_v5():
    entries = b'\x04' + uleb(0x10) + uleb(0x20)              # offset_pair
    entries += b'\x05' + struct.pack('<Q', 0x3000)            # base_address
    entries += b'\x04' + uleb(0) + uleb(4)
    entries += b'\x07' + struct.pack('<Q', 0x4000) + uleb(0x10)  # start_length
    entries += b'\x06' + struct.pack('<QQ', 0x5000, 0x5010)       # start_end
    entries += b'\x00'                                          # end_of_list
    second = b'\x03' + uleb(0) + uleb(8) + b'\x00'               # startx_length: libdw's
    head = struct.pack('<HBBI', 5, 8, 0, 0)
    lists = head + entries + second
    return struct.pack('<I', len(lists)) + lists


def hand_seeds():
    s = {}
    s['hand-dwarf4-ranges'] = seed(abbrevs(4), ranges_v4(8), b'', b'name\0',
                                   unit(4, 8, body(4, 8, 0)))
    s['hand-dwarf3-addr4'] = seed(abbrevs(3), ranges_v4(4), b'', b'name\0',
                                  unit(3, 4, body(3, 4, 0)))
    s['hand-dwarf5-rnglists'] = seed(abbrevs(5), b'', rnglists_v5(), b'name\0',
                                     unit(5, 8, body(5, 8, 12)))
    s['hand-dwarf5-startx'] = seed(abbrevs(5), b'', rnglists_v5(), b'name\0',
                                   unit(5, 8, body(5, 8, 12 + 32)))
    s['hand-dwarf4-unterminated'] = seed(abbrevs(4), ranges_v4(8), b'', b'name\0',
                                         unit(4, 8, body(4, 8, 0, terminated=False)))
    two = unit(4, 8, body(4, 8, 0)) + unit(5, 8, body(5, 8, 12))
    s['hand-two-units'] = seed(abbrevs(5), ranges_v4(8), rnglists_v5(), b'name\0', two)
    return s


def program_seed(path):
    secs = {}
    with tempfile.TemporaryDirectory() as d:
        for name in ('abbrev', 'ranges', 'rnglists', 'str', 'info'):
            out = os.path.join(d, name)
            r = subprocess.run(['objcopy', '--dump-section', '.debug_%s=%s' % (name, out),
                                path, os.path.join(d, 'copy')], capture_output=True)
            secs[name] = open(out, 'rb').read() if r.returncode == 0 and os.path.exists(out) else b''
    return seed(secs['abbrev'], secs['ranges'], secs['rnglists'], secs['str'], secs['info'])


def main():
    outdir = sys.argv[1]
    seeds = hand_seeds()
    for p in sys.argv[2:]:
        seeds['gcc-' + os.path.basename(p)] = program_seed(p)
    for name, data in seeds.items():
        with open(os.path.join(outdir, name), 'wb') as f:
            f.write(data)


main()
