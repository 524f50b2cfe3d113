#!/usr/bin/env python3
"""serve.py — `symprof serve` end to end (run by tests/cli/serve.sh; speaks TAP).

Fixtures are built here from testdata/src/serve/.  Every endpoint is asked by
two real clients, curl and Python's http.client, over TCP on 127.0.0.1 and
over a unix socket.  Expected answers come from how the fixtures were made
and from independent tools: function names and inline chains from nm and
binutils' addr2line, build ids from readelf, debug ids computed here from
them as breakpad does; and frames are compared with `symprof symbolize
--json` on the same addresses, /v1/convert bytes with `symprof convert`.
Then each cap is hit on purpose (body size, addresses, nesting, a body
that never ends, a slow client), and the server must answer the next
request; at the end SIGTERM must stop it with status 0.
"""
import gzip
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

SRC = os.environ.get("SP_SRCDIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("SP_BUILDDIR") or os.path.join(SRC, "build")
SYMPROF = os.environ.get("SYMPROF") or os.path.join(BUILD, "symprof")

n = 0
failed = 0
servers = []  # every server started: none outlives the test, whatever happens


def ok(cond, what, diag=None):
    global n, failed
    n += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n, what))
    if not cond:
        failed += 1
        if diag is not None:
            for line in str(diag).splitlines()[:40]:
                print("# " + line)
    sys.stdout.flush()
    return cond


def run(*cmd, **kw):
    return subprocess.run(list(cmd), capture_output=True, check=False, **kw)


class Server:
    """symprof serve on 127.0.0.1:0 (or a unix socket), its port read from stdout."""

    def __init__(self, tmp, *args, unix=None, log=None):
        self.unix = unix
        listen = "unix:" + unix if unix else "127.0.0.1:0"
        cmd = [SYMPROF, "serve", "--listen", listen] + list(args)
        if log:
            cmd += ["--access-log", log]
        self.err = open(os.path.join(tmp, "serve-%d.err" % id(self)), "w+")
        self.p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=self.err, text=True)
        servers.append(self)
        line = self.p.stdout.readline()
        m = re.search(r"listening on (?:http://127\.0\.0\.1:(\d+)|unix:(.*))$", line.strip())
        if not m:
            self.p.kill()
            raise SystemExit("Bail out! symprof serve did not start: %r %s" % (line, self.stderr()))
        self.port = int(m.group(1)) if m.group(1) else None

    def stderr(self):
        self.err.seek(0)
        return self.err.read()

    def conn(self, timeout=30):
        if self.unix:
            return UnixConnection(self.unix, timeout)
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def request(self, method, path, body=None, headers=None):
        c = self.conn()
        try:
            c.request(method, path, body=body, headers=headers or {})
            r = c.getresponse()
            return r.status, r.getheader("Content-Type"), r.read()
        finally:
            c.close()

    def json(self, path, obj):
        st, _, body = self.request("POST", path, json.dumps(obj), {"Content-Type": "application/json"})
        try:
            return st, json.loads(body)
        except ValueError:
            return st, body

    def curl(self, *args, **kw):
        base = ["curl", "-sS", "--max-time", "30"]
        if self.unix:
            base += ["--unix-socket", self.unix]
            host = "http://localhost"
        else:
            host = "http://127.0.0.1:%d" % self.port
        args = [a.replace("URL", host) for a in args]
        return run(*(base + args), **kw)

    def stop(self, sig=signal.SIGTERM):
        self.p.send_signal(sig)
        try:
            return self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            return None


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout):
        super().__init__("localhost", timeout=timeout)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.path)


def build_id(path):
    out = run("readelf", "-n", path).stdout.decode()
    return re.search(r"Build ID: ([0-9a-f]+)", out).group(1)


def debug_id(bid):
    """breakpad's: the first 16 bytes as a GUID, its first three fields little-endian."""
    b = bytes.fromhex(bid)[:16].ljust(16, b"\0")
    g = b[3::-1] + b[5:3:-1] + b[7:5:-1] + b[8:]
    return g.hex().upper() + "0"


def functions(path):
    """name -> (address, size) of the defined functions, from nm."""
    out = run("nm", "-S", "--defined-only", path).stdout.decode()
    f = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "Tt":
            f[parts[3]] = (int(parts[0], 16), int(parts[1], 16))
    return f


def addr2line_chains(path, addrs):
    """innermost-first function names of each address, from binutils' addr2line."""
    out = run("addr2line", "-f", "-i", "-a", "-e", path, *["0x%x" % a for a in addrs]).stdout.decode()
    chains, cur = [], None
    lines = out.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("0x"):
            cur = []
            chains.append(cur)
            i += 1
            continue
        cur.append(lines[i])
        i += 2
    return chains


def cli_frames(path, addrs):
    """symprof symbolize --json -C on the same addresses: address -> frames."""
    r = run(SYMPROF, "symbolize", "-C", "--json", "-e", path, *["0x%x" % a for a in addrs])
    res = {}
    for line in r.stdout.decode().splitlines():
        o = json.loads(line)
        res[int(o["address"], 16)] = o["frames"]
    return res


def cli_symbols(path, addrs):
    """symprof symbolize -S -C: address -> (NAME, OFF) from its NAME+0xOFF line (None: ??)."""
    r = run(SYMPROF, "symbolize", "-a", "-S", "-C", "-e", path, *["0x%x" % a for a in addrs])
    lines = r.stdout.decode().splitlines()
    res = {}
    for i, line in enumerate(lines):
        if re.fullmatch(r"0x[0-9a-f]+", line) and i + 1 < len(lines):
            m = re.fullmatch(r"(.+?)(?:\+(0x[0-9a-f]+))?", lines[i + 1])
            res[int(line, 16)] = None if lines[i + 1] == "??" else (m.group(1), int(m.group(2) or "0", 16))
    return res


def nm_symbols(fn, addrs):
    """address -> (NAME, address - value) of the nm function holding it."""
    res = {}
    for a in addrs:
        for name, (v, size) in fn.items():
            if v <= a < v + size:
                res[a] = (name, a - v)
    return res


def main():
    tmp = tempfile.mkdtemp(prefix="symprof-serve.")
    try:
        body(tmp)
    finally:
        for srv in servers:
            if srv.p.poll() is None:
                srv.p.kill()
                srv.p.wait()
        if not os.environ.get("SP_KEEP_TMP"):
            shutil.rmtree(tmp, ignore_errors=True)
    print("1..%d" % n)
    sys.exit(1 if failed else 0)


def body(tmp):
    bins = os.path.join(tmp, "bin")
    os.makedirs(bins)
    app, lib = os.path.join(bins, "app"), os.path.join(bins, "libserve.so")
    for cmd in (["gcc", "-g", "-O2", "-Wl,--build-id", "-o", app, os.path.join(SRC, "testdata/src/serve/app.c")],
                ["gcc", "-g", "-O2", "-fPIC", "-shared", "-Wl,--build-id", "-o", lib,
                 os.path.join(SRC, "testdata/src/serve/lib.c")]):
        r = run(*cmd)
        if r.returncode:
            print("Bail out! %s: %s" % (" ".join(cmd), r.stderr.decode()))
            sys.exit(1)
    fn = functions(app)
    # every byte of the fixture's functions: inlined code included
    addrs = sorted({a + k for name in ("serve_mid", "serve_top", "main") for a, s in [fn[name]] for k in range(s)})
    expect_cli = cli_frames(app, addrs)
    expect_sym = cli_symbols(app, addrs)
    nm_sym = nm_symbols({k: fn[k] for k in ("serve_mid", "serve_top", "main")}, addrs)
    ok(len(nm_sym) == len(addrs) and expect_sym == nm_sym,
       "symprof symbolize -S: NAME+0xOFF == nm's function and address - value, every byte (%d)" % len(addrs),
       [(hex(a), expect_sym.get(a), nm_sym.get(a)) for a in addrs if expect_sym.get(a) != nm_sym.get(a)][:5])
    chains = addr2line_chains(app, addrs)
    # a build-id tree, as distributions install debug files: app found by build id alone
    bid = build_id(app)
    tree = os.path.join(tmp, "debug", ".build-id", bid[:2])
    os.makedirs(tree)
    os.symlink(app, os.path.join(tree, bid[2:]))
    log = os.path.join(tmp, "access.log")
    srv = Server(tmp, "--binary-path", bins, "--debug-dir", os.path.join(tmp, "debug"), "--no-debuginfod", "--max-addresses", "5000",
                 "--max-body", "1M", "--request-timeout", "2", log=log)

    # -- /healthz, both clients
    st, ctype, b = srv.request("GET", "/healthz")
    ok(st == 200 and json.loads(b) == {"status": "ok"}, "http.client: GET /healthz is 200 ok", b)
    r = srv.curl("-f", "URL/healthz")
    ok(r.returncode == 0 and json.loads(r.stdout) == {"status": "ok"}, "curl: GET /healthz", r.stderr)

    # -- /v1/symbolize against symprof symbolize and addr2line
    st, res = srv.json("/v1/symbolize", {"modules": [{"path": app, "addresses": ["0x%x" % a for a in addrs]}]})
    ok(st == 200 and len(res["modules"]) == 1 and len(res["modules"][0]["addresses"]) == len(addrs),
       "/v1/symbolize answers %d addresses" % len(addrs), res)
    m = res["modules"][0] if st == 200 else {"addresses": []}
    got = {int(x["address"], 16): x["frames"] for x in m["addresses"]}
    ok(got == expect_cli, "/v1/symbolize frames == symprof symbolize --json -C, address by address",
       [(hex(a), got.get(a), expect_cli.get(a)) for a in addrs if got.get(a) != expect_cli.get(a)][:5])
    syms = {int(x["address"], 16): (x.get("symbol"), int(x.get("symbol_offset", "-0x1"), 16)) for x in m["addresses"]}
    ok(syms == nm_sym, "/v1/symbolize symbol, symbol_offset == nm (and symbolize -S), every byte",
       [(hex(a), syms.get(a), nm_sym.get(a)) for a in addrs if syms.get(a) != nm_sym.get(a)][:5])
    ours = [[f["function"] for f in got.get(a, [])] for a in addrs]
    ok(ours == chains, "/v1/symbolize inline chains == addr2line -f -i",
       [(hex(a), o, c) for a, o, c in zip(addrs, ours, chains) if o != c][:5])
    inl = [a for a in addrs if len(got.get(a, [])) > 1]
    ok(inl and all(got[a][0]["function"] == "serve_leaf" and got[a][-1]["function"] == "serve_mid" for a in inl),
       "inlined serve_leaf is innermost under serve_mid (%d addresses)" % len(inl))
    ok(m.get("found_build_id") == build_id(app), "the report names the build id readelf reads", m.get("found_build_id"))

    # by build id, through the build-id tree of --debug-dir
    st, res = srv.json("/v1/symbolize", {"modules": [{"build_id": bid, "addresses": [fn["serve_top"][0]]}]})
    ok(st == 200 and res["modules"][0]["addresses"][0]["frames"][0]["function"] == "serve_top",
       "/v1/symbolize by build id alone finds the object", res)
    # file offsets, relative addresses and run-time addresses of a mapping
    base = 0x7f0000000000
    top = fn["serve_top"][0]
    st, res = srv.json("/v1/symbolize", {"modules": [
        {"path": app, "kind": "relative", "addresses": [top]},
        {"path": app, "kind": "runtime", "mapping": {"start": base, "limit": base + 0x100000, "offset": 0},
         "addresses": [base + top]}]})
    ok(st == 200 and all(mm["addresses"][0]["frames"][-1]["function"] == "serve_top" for mm in res["modules"]),
       "/v1/symbolize kinds relative and runtime (PIE mapped at 0x7f0000000000)", res)
    # unresolved: per-module reasons
    st, res = srv.json("/v1/symbolize", {"modules": [{"path": "/nonexistent/ghost", "addresses": [1, 2]}]})
    ok(st == 200 and res["modules"][0]["unresolved"].get("file not found") == 2 and
       all(x["reason"] == "file not found" for x in res["modules"][0]["addresses"]),
       "a missing object: 200 with reason 'file not found' per address", res)
    # curl, the same request
    req = json.dumps({"modules": [{"path": app, "addresses": ["0x%x" % a for a in addrs]}]})
    r = srv.curl("-f", "-H", "Content-Type: application/json", "--data-binary", req, "URL/v1/symbolize")
    ok(r.returncode == 0 and {int(x["address"], 16): x["frames"] for x in json.loads(r.stdout)["modules"][0]["addresses"]} == expect_cli,
       "curl: POST /v1/symbolize == symprof symbolize", r.stderr)

    # -- /symbolicate/v5 (Tecken)
    did = debug_id(bid)
    lib_fn = functions(lib)
    stacks = [[[0, a] for a in addrs[:50]] + [[1, lib_fn["serve_lib_two"][0]], [-1, 4096], [2, 16]]]
    v5 = {"memoryMap": [["app", did], ["libserve.so", debug_id(build_id(lib))], ["app", "0" * 33]], "stacks": stacks}
    st, res = srv.json("/symbolicate/v5", v5)
    good = st == 200 and len(res.get("results", [])) == 1
    ok(good, "/symbolicate/v5 answers one result", res)
    if good:
        r0 = res["results"][0]
        ok(r0["found_modules"] == {"app/" + did: True, "libserve.so/" + debug_id(build_id(lib)): True,
                                   "app/" + "0" * 33: False},
           "found_modules: both fixtures found by debug id, a wrong id not", r0["found_modules"])
        frames = r0["stacks"][0]
        okv = len(frames) == len(stacks[0])
        for k, a in enumerate(addrs[:50]):
            fr, exp = frames[k], expect_cli[a]
            want = {"frame": k, "module_offset": "0x%x" % a, "module": "app"}
            if exp:
                want["function"] = exp[-1]["function"]
                if expect_sym.get(a):
                    want["function_offset"] = "0x%x" % expect_sym[a][1]
                if exp[-1]["file"]:
                    want["file"] = exp[-1]["file"]
                if exp[-1]["line"]:
                    want["line"] = exp[-1]["line"]
                if len(exp) > 1:
                    want["inlines"] = [dict((key, f[key]) for key in ("function", "file", "line") if f[key]) for f in exp[:-1]]
            if fr != want:
                okv = False
                print("# frame %d: %r != %r" % (k, fr, want))
                break
        ok(okv, "/symbolicate/v5 frames: outermost function, inlines innermost first, as symprof symbolize says")
        ok(frames[50].get("function") == "serve_lib_two", "/symbolicate/v5: the shared library's frame", frames[50])
        ok(frames[51] == {"frame": 51, "module_offset": "0x1000"}, "module index -1: the offset alone", frames[51])
        ok("function" not in frames[52] and frames[52]["module"] == "app", "a wrong debug id: no function", frames[52])
    # function_offset on every byte of the fixture's functions: symbolize -S's and nm's offset,
    # on the outermost frame only (inlines carry none, as in Tecken's answers)
    st, res = srv.json("/symbolicate/v5", {"memoryMap": [["app", did]], "stacks": [[[0, a] for a in addrs]]})
    frames = res["results"][0]["stacks"][0] if st == 200 else []
    got_off = {int(f["module_offset"], 16): f.get("function_offset") for f in frames}
    want_off = {a: "0x%x" % nm_sym[a][1] for a in addrs if a in nm_sym}
    cli_off = {a: "0x%x" % expect_sym[a][1] for a in addrs if expect_sym.get(a)}
    ok(len(frames) == len(addrs) and got_off == want_off and got_off == cli_off,
       "/symbolicate/v5 function_offset == address - nm's value == symbolize -S's +0xOFF, every byte (%d)" % len(addrs),
       [(hex(a), got_off.get(a), want_off.get(a), cli_off.get(a)) for a in addrs
        if not (got_off.get(a) == want_off.get(a) == cli_off.get(a))][:5])
    ok(frames and all("function_offset" not in i for f in frames for i in f.get("inlines", [])) and
       any(f.get("inlines") for f in frames),
       "/symbolicate/v5 inlines carry no function_offset", [f for f in frames if f.get("inlines")][:2])
    st, res = srv.json("/symbolicate/v5", {"jobs": [v5, {"memoryMap": [], "stacks": [[]]}]})
    ok(st == 200 and len(res["results"]) == 2 and res["results"][1] == {"stacks": [[]], "found_modules": {}},
       "/symbolicate/v5 with jobs: one result per job", res)
    r = srv.curl("-f", "--data-binary", json.dumps(v5), "URL/symbolicate/v5")
    ok(r.returncode == 0 and json.loads(r.stdout)["results"][0]["found_modules"]["app/" + did] is True,
       "curl: POST /symbolicate/v5", r.stderr)

    # -- /v1/convert, byte-identical to symprof convert
    prof = os.path.join(SRC, "testdata/profiles/heap_v2-example.heap")
    for fmt in ("folded", "pprof", "top"):
        want = run(SYMPROF, "convert", "-q", "--demangle", "full", "--no-debuginfod", "--binary-path", bins,
                   "--format", fmt, prof, "-o", "-").stdout
        with open(prof, "rb") as f:
            st, ctype, got = srv.request("POST", "/v1/convert?format=" + fmt, f.read())
        ok(st == 200 and got == want and len(want) > 0,
           "/v1/convert?format=%s: the bytes of symprof convert (%d bytes)" % (fmt, len(want)), got[:200])
    r = srv.curl("-f", "--data-binary", "@" + prof, "URL/v1/convert?format=folded")
    want = run(SYMPROF, "convert", "-q", "--demangle", "full", "--no-debuginfod", "--binary-path", bins,
               "--format", "folded", prof, "-o", "-").stdout
    ok(r.returncode == 0 and r.stdout == want, "curl: POST /v1/convert --data-binary @file", r.stderr)
    st, _, b = srv.request("POST", "/v1/convert?format=folded", b"this is no profile\n")
    ok(st in (400, 415) and b"error" in b, "/v1/convert of no profile: 4xx with an error", (st, b))

    # -- caps and hostile clients; the server answers after each
    def alive(what):
        st, _, b = srv.request("GET", "/healthz")
        ok(st == 200, "still answering after " + what, b)

    st, res = srv.json("/v1/symbolize", {"modules": [{"path": app, "addresses": list(range(6000))}]})
    ok(st == 413 and res.get("limit") == "max-addresses" and "--max-addresses=5000" in res.get("error", ""),
       "6000 addresses over --max-addresses 5000: 413 naming the cap", res)
    st, res = srv.json("/symbolicate/v5", {"memoryMap": [["app", did]], "stacks": [[[0, 1]] * 3000, [[0, 1]] * 3000]})
    ok(st == 413 and res.get("limit") == "max-addresses", "/symbolicate/v5 over --max-addresses: 413", res)
    # declared too large: refused before the body is sent
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=20)
    s.sendall(b"POST /v1/symbolize HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % (1 << 20 | 1))
    reply = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        reply += chunk
        if b"}" in reply:
            break
    s.close()
    ok(reply.startswith(b"HTTP/1.1 413") and b'"limit":"max-body"' in reply,
       "a body over --max-body (Content-Length): 413 before it is sent", reply)
    alive("a body over --max-body")
    r = srv.curl("-H", "Transfer-Encoding: chunked", "--data-binary", "@-", "-w", "%{http_code}", "-o", os.devnull,
                 "URL/v1/convert", input=b"y" * (2 << 20))
    ok(r.stdout.decode().strip() != "200", "a chunked body over --max-body: 413 or the connection closed",
       r.stdout + r.stderr)
    alive("a chunked body over --max-body")
    st, res = srv.json("/v1/symbolize", {"modules": [[[[[]]]]]})
    ok(st == 400 and "modules[0]" in res.get("error", ""), "a module that is no object: 400 naming modules[0]", res)
    st, _, b = srv.request("POST", "/v1/symbolize", b'{"modules":' + b"[" * 100 + b"]" * 100 + b"}")
    ok(st == 400 and b"nested deeper than" in b, "JSON nested 100 deep: 400", b)
    st, _, b = srv.request("POST", "/symbolicate/v5", b'{"memoryMap": [["app", "x"]], "stacks": [[[0, 1]]')
    ok(st == 400 and b"JSON ends early" in b, "truncated JSON: 400", b)
    st, _, b = srv.request("POST", "/symbolicate/v5", b'{"memoryMap": [], "stacks": [[[0, 1]]]}')
    ok(st == 400 and b"not in the memoryMap" in b, "a module index outside the memoryMap: 400", b)
    st, _, b = srv.request("POST", "/v1/symbolize", b'{"modules": [{"path": "x", "addresses": [-1]}]}')
    ok(st == 400 and b"addresses[0]" in b, "a negative address: 400 naming it", b)
    st, _, b = srv.request("POST", "/v1/symbolize", b'{"modules": []} trailing')
    ok(st == 400 and b"at byte" in b, "bytes after the JSON value: 400 with the position", b)
    st, _, b = srv.request("GET", "/v1/symbolize")
    ok(st == 405, "GET /v1/symbolize: 405", b)
    st, _, b = srv.request("GET", "/nowhere")
    ok(st == 404, "an unknown path: 404", b)
    # tests/malformed/serve_json/: the first byte chooses the endpoint (as for the fuzz
    # harness), the .expect is a piece of the 400's message
    mdir = os.path.join(SRC, "tests/malformed/serve_json")
    cases = sorted(x[:-3] for x in os.listdir(mdir) if x.endswith(".in"))
    for case in cases:
        data = open(os.path.join(mdir, case + ".in"), "rb").read()
        want = open(os.path.join(mdir, case + ".expect"), "rb").read().strip()
        ep = "/symbolicate/v5" if data[0] & 1 else "/v1/symbolize"
        st, _, b = srv.request("POST", ep, data[1:])
        try:
            msg = json.loads(b)["error"]
        except (ValueError, KeyError):
            msg = ""
        ok(st == 400 and want.decode() in msg, "malformed serve_json/%s: 400 saying %r" % (case, want.decode()), b)
    ok(len(cases) >= 10, "found %d malformed request bodies" % len(cases))
    alive("malformed requests")

    # a body that never ends: declared, then trickled past --request-timeout 2
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=20)
    s.sendall(b"POST /v1/symbolize HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n{")
    t0 = time.time()
    reply = b""
    try:
        while time.time() - t0 < 10:
            s.sendall(b" ")
            time.sleep(0.3)
    except OSError:
        pass
    try:
        reply = s.recv(4096)
    except OSError:
        pass
    s.close()
    ok(time.time() - t0 < 10 and (reply.startswith(b"HTTP/1.1 408") or reply == b""),
       "a body still arriving after --request-timeout: 408 or closed within 10s", reply[:200])
    alive("a body that never ends")
    # slow clients: 40 connections holding half a request line cost 40 connections
    slow = []
    for _ in range(40):
        c = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
        c.sendall(b"POST /v1/symb")
        slow.append(c)
    st, _, b = srv.request("GET", "/healthz")
    ok(st == 200, "40 slowloris connections open: /healthz still answers", b)
    st, res = srv.json("/v1/symbolize", {"modules": [{"path": app, "addresses": [top]}]})
    ok(st == 200 and res["modules"][0]["addresses"][0]["frames"][-1]["function"] == "serve_top",
       "40 slowloris connections open: /v1/symbolize still answers", res)
    for c in slow:
        c.close()

    # -- concurrency: 8 clients at once, the same answers
    errors = []

    def client(k):
        try:
            for _ in range(5):
                st, res = srv.json("/v1/symbolize", {"modules": [{"path": app, "addresses": ["0x%x" % a for a in addrs]}]})
                g = {int(x["address"], 16): x["frames"] for x in res["modules"][0]["addresses"]}
                if st != 200 or g != expect_cli:
                    errors.append((k, st))
        except Exception as e:  # noqa: BLE001 - reported as a failure
            errors.append((k, repr(e)))
    ts = [threading.Thread(target=client, args=(k,)) for k in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    ok(not errors, "8 concurrent clients x 5 requests: every answer == symprof symbolize", errors[:5])

    # -- /metrics
    st, ctype, b = srv.request("GET", "/metrics")
    text = b.decode()
    ok(st == 200 and ctype.startswith("text/plain; version=0.0.4"), "/metrics: Prometheus text", ctype)
    mm = re.search(r'^symprof_requests_total\{endpoint="/v1/symbolize",code="200"\} (\d+)$', text, re.M)
    ok(mm and int(mm.group(1)) >= 46, "/metrics counts the /v1/symbolize answers", mm and mm.group(0))
    ok(re.search(r'^symprof_rejected_total\{limit="max-addresses"\} 2$', text, re.M),
       "/metrics counts the 2 requests refused by --max-addresses")
    ok(re.search(r'^symprof_request_duration_seconds_bucket\{endpoint="/v1/symbolize",le="\+Inf"\} \d+$', text, re.M)
       and re.search(r"^symprof_sessions_open [1-9]", text, re.M) and re.search(r"^symprof_memory_bytes [1-9]", text, re.M),
       "/metrics: latency histogram, sessions open, memory")

    # -- the end: SIGTERM while a request is half sent; it is answered, then status 0
    req = json.dumps({"modules": [{"path": app, "addresses": [top]}]}).encode()
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=20)
    s.sendall(b"POST /v1/symbolize HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: %d\r\n\r\n" % len(req)
              + req[:10])
    time.sleep(0.3)
    srv.p.send_signal(signal.SIGTERM)
    time.sleep(0.5)
    s.sendall(req[10:])
    reply = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        reply += chunk
    s.close()
    head, _, payload = reply.partition(b"\r\n\r\n")
    try:
        fr = json.loads(payload)["modules"][0]["addresses"][0]["frames"][-1]["function"]
    except (ValueError, KeyError, IndexError):
        fr = None
    ok(head.startswith(b"HTTP/1.1 200") and fr == "serve_top",
       "SIGTERM with a request in flight: it is still answered", reply[:300])
    rc = srv.stop()
    ok(rc == 0, "SIGTERM: symprof serve exits 0", srv.stderr())
    lines = open(log).read().splitlines()
    recs = [json.loads(x) for x in lines]
    ok(len(recs) >= 40 and all({"time", "remote", "method", "path", "status", "seconds"} <= set(x) for x in recs),
       "access log: a JSON object per request (%d)" % len(recs))
    ok(any(x["status"] == 413 and x.get("limit") == "max-body" for x in recs), "access log: the refusal names its cap")

    # -- a unix socket, a memory budget and a single warm session: evicted in turn
    path = os.path.join(tmp, "s.sock")
    usrv = Server(tmp, "--binary-path", bins, "--no-debuginfod", "--max-sessions", "1", "--max-memory", "64M", unix=path)
    r = usrv.curl("-f", "URL/healthz")
    ok(r.returncode == 0 and json.loads(r.stdout) == {"status": "ok"}, "unix socket: curl --unix-socket /healthz", r.stderr)
    good = True
    for k in range(6):
        target, name = (app, "serve_top") if k % 2 == 0 else (lib, "serve_lib_two")
        f = functions(target)[name][0]
        st, res = usrv.json("/v1/symbolize", {"modules": [{"path": target, "addresses": [f]}]})
        good &= st == 200 and res["modules"][0]["addresses"][0]["frames"][-1]["function"] == name
    ok(good, "unix socket, http.client: two objects in turn under --max-sessions 1, answers right")
    # a profile bomb: 64 MiB of zeros in 64 KiB of gzip, under a 64M budget
    bomb = gzip.compress(b"\0" * (64 << 20), 9)
    st, _, b = usrv.request("POST", "/v1/convert?format=folded", bomb)
    ok(st == 413 and json.loads(b).get("limit") == "max-memory" and b"decompresses to more than 16 MiB" in b,
       "a gzip bomb (%d bytes) under --max-memory 64M: 413, not the process's end" % len(bomb), b)
    st, _, b = usrv.request("GET", "/healthz")
    ok(st == 200, "still answering after a profile bomb", b)
    st, _, b = usrv.request("GET", "/metrics")
    ev = re.search(r"^symprof_sessions_evicted_total (\d+)$", b.decode(), re.M)
    ok(ev and int(ev.group(1)) >= 5, "each turn evicted the other object's session", ev and ev.group(0))
    ok(usrv.stop(signal.SIGINT) == 0 and not os.path.exists(path), "SIGINT: exits 0 and removes its socket")

    # --max-concurrent 1: a request that holds the slot (a gzip bomb being measured:
    # 9 GiB of zeros in concatenated members, refused past a quarter of a 32G budget,
    # which takes seconds) makes the next one wait past --request-timeout 1: 503
    csrv = Server(tmp, "--no-debuginfod", "--max-concurrent", "1", "--request-timeout", "1",
                  "--max-memory", "32G", "--binary-path", bins)
    member = gzip.compress(b"\0" * (64 << 20), 1)
    held = {}

    def hold():
        held["reply"] = csrv.request("POST", "/v1/convert?format=folded", member * 144)
    t = threading.Thread(target=hold)
    t.start()
    # the bomb's body sent, its request holds the slot: /metrics says so
    t0 = time.time()
    while time.time() - t0 < 30:
        st, _, b = csrv.request("GET", "/metrics")
        if re.search(rb"^symprof_requests_in_progress 1$", b, re.M):
            break
        time.sleep(0.02)
    t0 = time.time()
    st, res = csrv.json("/v1/symbolize", {"modules": [{"path": app, "addresses": [top]}]})
    waited = time.time() - t0
    t.join()
    ok(st == 503 and res.get("limit") == "max-concurrent" and "--max-concurrent=1" in res.get("error", "")
       and 0.9 < waited < 5, "a request finding --max-concurrent 1 busy past --request-timeout 1: 503 (%.1fs)" % waited,
       (st, res, waited))
    ok(held.get("reply", (0,))[0] == 413, "the request that held the slot: 413 (the bomb)", held.get("reply"))
    st, res = csrv.json("/v1/symbolize", {"modules": [{"path": app, "addresses": [top]}]})
    ok(st == 200, "the slot free again: 200", res)
    ok(csrv.stop() == 0, "--max-concurrent server: SIGTERM, status 0", csrv.stderr())

    r = run(SYMPROF, "serve")
    ok(r.returncode == 2 and b"--listen" in r.stderr, "serve without --listen: usage error 2", r.stderr)
    r = run(SYMPROF, "serve", "--listen", "127.0.0.1:notaport")
    ok(r.returncode == 1 and b"--listen 127.0.0.1:notaport" in r.stderr, "a bad --listen: status 1 naming it", r.stderr)


if __name__ == "__main__":
    main()
