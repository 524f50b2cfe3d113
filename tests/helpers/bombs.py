#!/usr/bin/env python3
"""bombs.py -- resource bombs for tests/cli/limits.sh, tests/cli/debuginfo.sh and
bench/bombs.sh.

  bombs.py pprof MIB OUT
      A pprof "bomb": gzip -9 of MIB MiB of 4-byte samples (field 2, one value each)
      after a header declaring one sample type.  Every sample is valid: it is the
      number of them that is the attack.  64 KiB of gzip for 64 MiB.
  bombs.py server MODE PORTFILE LOG [SECONDS]
      A debuginfod server on 127.0.0.1 that answers every request with status 200 and
      then hurts, by MODE: drip announces 100 kB and sends 20 bytes every 0.1 s; huge
      sends an endless body without a length (64 KiB chunks of an ELF magic and
      zeros); biglen announces 3 GiB and sends the same; garbage sends 4 kB that are
      not ELF.  The port is written to PORTFILE once it listens; each request's path is
      appended to LOG when it comes, and "PATH BYTES" to LOG.sent when its answer ends
      (the client gone, or the server's time up).  With SECONDS the server stops after
      that long, answers included; without, it runs until killed.

Inputs whose size is the attack on an algorithm (each address is where the generator
put it, so a reader of the output can check every frame):

  bombs.py maps LINES MAPS RAW
      A memory map of LINES lines for --maps, every other one a "dirNNNNNN = /opt/vM"
      definition (M = 7 N) of fixed width, the next a map line of libN.so under
      $dirNNNNNN at 0x100000 + N * 0x10000; and raw stacks with one address, 0x10 into
      each mapping.
  bombs.py mappings N RAW
      Raw stacks of one address each, each in its own one of N mappings
      (/opt/m/libK.so at 0x10000000 + K * 0x10000), in an order unrelated to the map's
      (address I is in mapping 7919 I mod N: each once when N is prime to 7919)."""
import gzip
import http.server
import os
import socketserver
import sys
import time


def pprof(mib, path):
    head = b'\x0a\x04\x08\x01\x10\x02' + b'\x32\x00' + b'\x32\x07samples' + b'\x32\x05count'
    unit = b'\x12\x02\x10\x01'
    n = ((mib << 20) - len(head)) // len(unit)
    with gzip.open(path, 'wb', compresslevel=9) as f:
        f.write(head)
        chunk = unit * 65536
        for _ in range(n // 65536):
            f.write(chunk)
        f.write(unit * (n % 65536))


def maps(lines, maps_path, raw_path):
    with open(maps_path, 'w') as m, open(raw_path, 'w') as r:
        r.write('# symprof raw stacks v1\n')
        for i in range(lines // 2):
            lo = 0x100000 + i * 0x10000
            m.write('dir%06u = /opt/v%u\n' % (i, i * 7))
            m.write('%x-%x r-xp 00000000 08:01 %u $dir%06u/lib%u.so\n' % (lo, lo + 0x8000, i + 1, i, i))
            r.write('1 @ 0x%x\n' % (lo + 0x10))


def mappings(n, raw_path):
    with open(raw_path, 'w') as r:
        r.write('# symprof raw stacks v1\n')
        for i in range(n):
            r.write('1 @ 0x%x\n' % (0x10000000 + ((i * 7919) % n) * 0x10000 + 0x10))
        r.write('--- Memory map: ---\n')
        for k in range(n):
            lo = 0x10000000 + k * 0x10000
            r.write('%x-%x r-xp 00000000 08:01 %d /opt/m/lib%d.so\n' % (lo, lo + 0x8000, k + 1, k))


def server(mode, portfile, log, seconds):
    end = time.monotonic() + seconds if seconds else None

    def running():
        return end is None or time.monotonic() < end

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, *a):
            pass

        def do_GET(self):
            with open(log, "a") as f:
                f.write(self.path + "\n")
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            if mode == "drip":
                self.send_header("Content-Length", "100000")
            elif mode == "biglen":
                self.send_header("Content-Length", str(3 << 30))
            elif mode == "garbage":
                self.send_header("Content-Length", "4096")
            self.end_headers()
            sent = 0
            try:
                if mode == "garbage":
                    self.wfile.write(b"not an ELF file\n" * 256)
                    sent = 4096
                else:
                    chunk = b"\x7fELF" + b"\0" * 65532
                    while running():
                        if mode == "drip":
                            self.wfile.write(b"x" * 20)
                            self.wfile.flush()
                            sent += 20
                            time.sleep(0.1)
                        else:
                            self.wfile.write(chunk)
                            sent += len(chunk)
            except OSError:
                pass
            with open(log + ".sent", "a") as f:
                f.write("%s %d\n" % (self.path, sent))

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True

    srv = Server(("127.0.0.1", 0), Handler)
    with open(portfile + ".tmp", "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(portfile + ".tmp", portfile)
    srv.timeout = 0.5
    while running():
        srv.handle_request()


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "pprof":
        pprof(int(sys.argv[2]), sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "maps":
        maps(int(sys.argv[2]), sys.argv[3], sys.argv[4])
    elif len(sys.argv) == 4 and sys.argv[1] == "mappings":
        mappings(int(sys.argv[2]), sys.argv[3])
    elif len(sys.argv) in (5, 6) and sys.argv[1] == "server":
        server(sys.argv[2], sys.argv[3], sys.argv[4],
               float(sys.argv[5]) if len(sys.argv) == 6 else None)
    else:
        sys.exit(__doc__)
