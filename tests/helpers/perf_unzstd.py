#!/usr/bin/env python3
"""perf_unzstd.py IN OUT — writes the perf.data IN with its COMPRESSED records
(`perf record -z`) replaced by the records they hold, decompressed by the
zstd command (an implementation independent of symprof's), so that symprof
can read the same recording both ways.  (perf inject 6.1 copies COMPRESSED
records unchanged, so it cannot serve here.)

perf writes one zstd stream that it never ends, flushed after each chunk;
a record may begin in one COMPRESSED record and end in a later one.  The
stream is decompressed once for every prefix ending at a COMPRESSED record,
ended there by an empty last block (zstd -d keeps back the end of an
unfinished frame), which tells how many bytes each COMPRESSED record
completes; the whole
records among them take its place, a partial one waits for the next.
File mode (the data section and the feature sections after it move) and
pipe mode, either byte order (spec/PERF-DATA.md §1, §2, §10)."""
import struct
import subprocess
import sys

COMPRESSED, COMPRESSED2 = 81, 83


# a block header: last block, raw, 0 bytes (RFC 8878 3.1.1.2)
LAST_EMPTY_BLOCK = b'\x01\x00\x00'


def zstd_prefix(stream):
    """The bytes zstd decodes from STREAM, an unfinished frame (perf sets no
    checksum), once ended."""
    r = subprocess.run(['zstd', '-d', '-c', '-q'], input=stream + LAST_EMPTY_BLOCK,
                       capture_output=True)
    if r.returncode != 0:
        sys.exit('zstd -d: ' + r.stderr.decode(errors='replace').strip())
    return r.stdout


def records(data, end, order):
    """The records in DATA up to END as (type, bytes)."""
    off = 0
    while off < end:
        rtype, _, size = struct.unpack_from(order + 'IHH', data, off)
        if size < 8 or off + size > end:
            sys.exit(f'record at {off}: size {size}')
        yield rtype, data[off:off + size]
        off += size


def expand(data, order):
    """DATA's records with every COMPRESSED record replaced by its records."""
    out, stream, plain, done = [], b'', b'', 0
    for rtype, rec in records(data, len(data), order):
        if rtype not in (COMPRESSED, COMPRESSED2):
            out.append(rec)
            continue
        if rtype == COMPRESSED2:
            (n,) = struct.unpack_from(order + 'Q', rec, 8)
            stream += rec[16:16 + n]
        else:
            stream += rec[8:]
        plain = zstd_prefix(stream)
        while len(plain) - done >= 8:
            (size,) = struct.unpack_from(order + 'H', plain, done + 6)
            if len(plain) - done < size:
                break
            out.append(plain[done:done + size])
            done += size
    if done != len(plain):
        sys.exit(f'{len(plain) - done} bytes of a partial record at the end')
    return b''.join(out)


def main():
    src, dst = sys.argv[1:3]
    with open(src, 'rb') as f:
        d = f.read()
    order = '<' if d[:8] == b'PERFILE2' else '>'
    (hsize,) = struct.unpack_from(order + 'Q', d, 8)
    if hsize == 16:
        out = d[:16] + expand(d[16:], order)
    else:
        data_off, data_size = struct.unpack_from(order + 'QQ', d, 40)
        body = expand(d[data_off:data_off + data_size], order)
        delta = len(body) - data_size
        head = bytearray(d[:data_off])
        struct.pack_into(order + 'Q', head, 48, len(body))
        # the feature table: one {offset, size} per set bit, offsets absolute
        bits = struct.unpack_from(order + '4Q', d, 72)
        n = sum(bin(w).count('1') for w in bits)
        table = bytearray(d[data_off + data_size:data_off + data_size + 16 * n])
        for i in range(n):
            (off,) = struct.unpack_from(order + 'Q', table, 16 * i)
            if off >= data_off + data_size:
                struct.pack_into(order + 'Q', table, 16 * i, off + delta)
        out = bytes(head) + body + bytes(table) + d[data_off + data_size + 16 * n:]
    with open(dst, 'wb') as f:
        f.write(out)


if __name__ == '__main__':
    main()
