#!/usr/bin/env python3
"""serve.py — 1,000-address symbolization batches three ways, for bench/serve.sh.

    bench/serve.py MODE OBJECT BATCHES [CLIENTS]

MODE serve: starts `symprof serve` (SYMPROF, default ./symprof) on 127.0.0.1,
    sends BATCHES /symbolicate/v5 requests of 1,000 addresses of OBJECT from
    CLIENTS keep-alive clients (default 1), stops it.  The first request of a
    fresh server is the cold one (the object opened and indexed), the rest
    are warm.
MODE cli: runs `symprof symbolize -e OBJECT` once per batch, the 1,000
    addresses on its standard input (a process per batch).
MODE llvm: one long-running `llvm-symbolizer --obj=OBJECT` (LLVM_SYMBOLIZER),
    fed each batch on its standard input, read back up to the batch's last
    answer.
Each mode prints one line: batches, wall seconds, requests/s, p50 and p99 of
the per-batch latency in ms, and the cold (first) batch's ms; serve a second
line with the server's own time per request (its access log), which leaves
out the client's JSON encoding and decoding.  Addresses are
drawn from OBJECT's functions (nm -S) with a fixed seed, each batch its own.
"""
import http.client
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time

SYMPROF = os.environ.get("SYMPROF", "./symprof")
LLVM = os.environ.get("LLVM_SYMBOLIZER", "llvm-symbolizer")


def functions(path):
    out = subprocess.run(["nm", "-S", "--defined-only", path], capture_output=True, check=False).stdout.decode()
    if not out.strip():
        out = subprocess.run(["nm", "-D", "-S", "--defined-only", path], capture_output=True, check=False).stdout.decode()
    spans = []
    for line in out.splitlines():
        p = line.split()
        if len(p) == 4 and p[2] in "TtWi" and int(p[1], 16) > 0:
            spans.append((int(p[0], 16), int(p[1], 16)))
    return spans


def make_batches(path, n):
    spans = functions(path)
    rng = random.Random(1)
    return [[a + rng.randrange(s) for a, s in (rng.choice(spans) for _ in range(1000))] for _ in range(n)]


def build_id(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True, check=False).stdout.decode()
    return re.search(r"Build ID: ([0-9a-f]+)", out).group(1)


def debug_id(bid):
    b = bytes.fromhex(bid)[:16].ljust(16, b"\0")
    return (b[3::-1] + b[5:3:-1] + b[7:5:-1] + b[8:]).hex().upper() + "0"


def report(mode, lat, wall):
    """All batches, then the warm ones (all but the first) alone."""
    first = lat[0] * 1000
    s = sorted(lat)
    w = sorted(lat[1:]) or s
    pct = lambda v, q: v[min(len(v) - 1, int(q * len(v)))] * 1000  # noqa: E731
    print("%s: %d batches in %.2fs: %.1f batches/s, p50 %.2f ms, p99 %.2f ms; warm p50 %.2f ms, "
          "p99 %.2f ms; first (cold) %.2f ms"
          % (mode, len(lat), wall, len(lat) / wall, pct(s, 0.5), pct(s, 0.99), pct(w, 0.5), pct(w, 0.99), first))


def serve(path, batches, clients):
    d = os.path.dirname(os.path.abspath(path))
    log = tempfile.NamedTemporaryFile(prefix="symprof-bench-serve.", suffix=".log", delete=False).name
    p = subprocess.Popen([SYMPROF, "serve", "--listen", "127.0.0.1:0", "--binary-path", d, "--no-debuginfod",
                          "--max-concurrent", str(max(clients, 1)), "--access-log", log],
                         stdout=subprocess.PIPE, text=True)
    port = int(re.search(r":(\d+)$", p.stdout.readline().strip()).group(1))
    name, did = os.path.basename(path), debug_id(build_id(path))
    bodies = [json.dumps({"memoryMap": [[name, did]], "stacks": [[[0, a] for a in b]]}) for b in batches]
    lat = [None] * len(bodies)
    t0 = time.perf_counter()

    def client(k):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        for i in range(k, len(bodies), clients):
            t = time.perf_counter()
            c.request("POST", "/symbolicate/v5", bodies[i], {"Content-Type": "application/json"})
            r = c.getresponse()
            data = r.read()
            if r.status != 200 or not all(json.loads(data)["results"][0]["found_modules"].values()):
                raise SystemExit("status %d: %s" % (r.status, data[:300]))
            lat[i] = time.perf_counter() - t
        c.close()

    if clients <= 1:
        client_count = 1
        clients = 1
        client(0)
    else:
        client_count = clients
        ts = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    wall = time.perf_counter() - t0
    p.terminate()
    p.wait()
    report("serve (%d client%s)" % (client_count, "s" if client_count > 1 else ""), lat, wall)
    # the server's own time per request (access log): without the client's JSON work
    with open(log) as f:
        own = [json.loads(line)["seconds"] for line in f]
    os.unlink(log)
    report("  server side (access log)", own, sum(own))


def cli(path, batches):
    lat = []
    t0 = time.perf_counter()
    for b in batches:
        t = time.perf_counter()
        r = subprocess.run([SYMPROF, "symbolize", "-C", "-e", path], input="".join("0x%x\n" % a for a in b).encode(),
                           capture_output=True, check=False)
        if r.returncode:
            raise SystemExit(r.stderr.decode())
        lat.append(time.perf_counter() - t)
    report("symprof symbolize per batch", lat, time.perf_counter() - t0)


def llvm(path, batches):
    p = subprocess.Popen([LLVM, "--obj=" + path, "--inlining", "--functions=linkage", "--demangle"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    lat = []
    t0 = time.perf_counter()
    for b in batches:
        t = time.perf_counter()
        # a line that is no address comes back as it is: the batch is done
        p.stdin.write(("".join("0x%x\n" % a for a in b) + "MARK\n").encode())
        p.stdin.flush()
        while True:
            line = p.stdout.readline()
            if not line or line == b"MARK\n":
                break
        lat.append(time.perf_counter() - t)
    p.stdin.close()
    p.wait()
    report("llvm-symbolizer long-running", lat, time.perf_counter() - t0)


def main():
    if len(sys.argv) < 4:
        sys.stderr.write(__doc__)
        sys.exit(2)
    mode, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    batches = make_batches(path, n)
    if mode == "serve":
        serve(path, batches, int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    elif mode == "cli":
        cli(path, batches)
    elif mode == "llvm":
        llvm(path, batches)
    else:
        sys.exit(2)


if __name__ == "__main__":
    main()
