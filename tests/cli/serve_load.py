#!/usr/bin/env python3
"""serve_load.py — a bounded load test of `symprof serve` on loopback (run by
tests/cli/serve_load.sh; speaks TAP).

N clients (SP_LOAD_CLIENTS, default 8) send 1,000-address /symbolicate/v5
batches for M seconds (SP_LOAD_SECONDS, default 4) over keep-alive
connections, across three objects (the fixture program, its library and the
symprof executable, whose DWARF is large).  Every answer must be 200 and the
same as the first answer to the same batch, which is checked against
`symprof symbolize`; p50/p99 latency, requests/s and the server's peak RSS
are printed.  Then the same with --max-memory 64M and --max-sessions 2, so
sessions are evicted while answers stay right.
"""
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import shutil

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve  # noqa: E402  (the helpers of tests/cli/serve.py)
from serve import ok, run, Server, build_id, debug_id, functions, cli_frames, SRC, SYMPROF  # noqa: E402


def real_exe(path):
    """The program behind a libtool wrapper script (the object symbolized)."""
    with open(path, "rb") as f:
        if f.read(2) != b"#!":
            return path
    lt = os.path.join(os.path.dirname(path), ".libs", os.path.basename(path))
    if os.path.exists(lt):
        return lt
    lt = os.path.join(os.path.dirname(path), ".libs", "lt-" + os.path.basename(path))
    return lt if os.path.exists(lt) else path


def peak_rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def batches(objs, rng):
    """Per object, a 1,000-address v5 batch over its functions, and the expected frames."""
    out = []
    for path in objs:
        fn = functions(path)
        spans = [(a, s) for a, s in fn.values() if s > 0]
        addrs = [a + rng.randrange(s) for a, s in (rng.choice(spans) for _ in range(1000))]
        name = os.path.basename(path)
        req = {"memoryMap": [[name, debug_id(build_id(path))]], "stacks": [[[0, a] for a in addrs]]}
        expect = cli_frames(path, sorted(set(addrs)))
        out.append((json.dumps(req), addrs, expect))
    return out


def check_answer(res, addrs, expect):
    frames = res["results"][0]["stacks"][0]
    for k, a in enumerate(addrs):
        e = expect[a]
        f = frames[k]
        if bool(e) != ("function" in f):
            return "address 0x%x: %r vs %r" % (a, f, e)
        if e and (f["function"] != e[-1]["function"] or len(f.get("inlines", [])) != len(e) - 1):
            return "address 0x%x: %r vs %r" % (a, f, e)
    return None


def load(srv, work, clients, seconds):
    lat, errors = [], []
    lock = threading.Lock()
    stop = time.time() + seconds

    def client(k):
        rng = random.Random(k)
        c = srv.conn()
        mine = []
        try:
            while time.time() < stop:
                body, addrs, expect = rng.choice(work)
                t0 = time.perf_counter()
                c.request("POST", "/symbolicate/v5", body, {"Content-Type": "application/json"})
                r = c.getresponse()
                data = r.read()
                mine.append(time.perf_counter() - t0)
                if r.status != 200:
                    errors.append((k, r.status, data[:200]))
                    continue
                why = check_answer(json.loads(data), addrs, expect)
                if why:
                    errors.append((k, why))
        except Exception as e:  # noqa: BLE001 - reported as a failure
            errors.append((k, repr(e)))
        finally:
            c.close()
            with lock:
                lat.extend(mine)

    ts = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    t0 = time.time()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    wall = time.time() - t0
    lat.sort()
    p = (lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] * 1000) if lat else (lambda q: 0)
    return len(lat), wall, p(0.5), p(0.99), errors


def main():
    clients = int(os.environ.get("SP_LOAD_CLIENTS", "8"))
    seconds = float(os.environ.get("SP_LOAD_SECONDS", "4"))
    tmp = tempfile.mkdtemp(prefix="symprof-load.")
    try:
        bins = os.path.join(tmp, "bin")
        os.makedirs(bins)
        app, lib = os.path.join(bins, "app"), os.path.join(bins, "libserve.so")
        for cmd in (["gcc", "-g", "-O2", "-o", app, os.path.join(SRC, "testdata/src/serve/app.c")],
                    ["gcc", "-g", "-O2", "-fPIC", "-shared", "-o", lib, os.path.join(SRC, "testdata/src/serve/lib.c")]):
            if run(*cmd).returncode:
                print("Bail out! cannot build the fixtures")
                sys.exit(1)
        exe = os.path.join(bins, "symprof")
        shutil.copy(real_exe(SYMPROF), exe)
        work = batches([app, lib, exe], random.Random(1))
        for budget in ([], ["--max-memory", "64M", "--max-sessions", "2"]):
            srv = Server(tmp, "--binary-path", bins, "--no-debuginfod", "--max-concurrent", "2", *budget)
            n, wall, p50, p99, errors = load(srv, work, clients, seconds)
            rss = peak_rss_kib(srv.p.pid)
            st, _, b = srv.request("GET", "/metrics")
            ev = [l for l in b.decode().splitlines() if l.startswith("symprof_sessions_evicted_total")]
            what = "budget 64M, 2 sessions" if budget else "default budget"
            print("# %s: %d clients, %d requests of 1000 addresses in %.1fs: %.1f requests/s, p50 %.1f ms, "
                  "p99 %.1f ms, peak RSS %.1f MiB, %s" % (what, clients, n, wall, n / wall, p50, p99, rss / 1024.0,
                                                          ev[0] if ev else "?"))
            ok(n > 0 and not errors, "%s: %d requests, no errors, every answer == symprof symbolize" % (what, n),
               errors[:5])
            if budget:
                ok(ev and int(ev[0].split()[1]) > 0, "%s: sessions were evicted" % what, ev)
            ok(srv.stop() == 0, "%s: SIGTERM ends it with status 0" % what, srv.stderr())
    finally:
        for srv in serve.servers:
            if srv.p.poll() is None:
                srv.p.kill()
                srv.p.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    print("1..%d" % serve.n)
    sys.exit(1 if serve.failed else 0)


if __name__ == "__main__":
    main()
