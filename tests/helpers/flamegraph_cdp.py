#!/usr/bin/env python3
# flamegraph_cdp.py CHROMIUM SVG CLICK [SHOTDIR] — opens a flame graph SVG in
# headless Chromium, driven over the DevTools protocol on a pipe
# (--remote-debugging-pipe: NUL-terminated JSON, commands on fd 3, replies on
# fd 4), and reports what the page draws, for the calling test to check.
#
# Prints tab-separated lines:
#   before NAME X Y WIDTH HEIGHT SHOWN   every frame after load; SHOWN is 1 when
#                                        the point at the middle of its box hits
#                                        that frame (it is drawn and on top)
#   click NAME X Y                       a real left click at the middle of the
#                                        widest frame named CLICK
#   after NAME X WIDTH CLASS             every frame once the click was handled
#   zoom NAME                            the root element's data-zoom attribute
# With SHOTDIR, PNG screenshots before.png and after.png are written there.
# Never touches the network (a file: URL, networking features disabled); every
# wait is bounded and the whole run is killed after 120 seconds.  Exit status 1
# with a message on stderr when the browser fails.
import base64
import fcntl
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time

LIMIT = 120


def fail(msg):
    sys.stderr.write("flamegraph_cdp: %s\n" % msg)
    sys.exit(1)


class Browser:
    def __init__(self, chromium, profile):
        to_r, self.to_w = os.pipe()
        self.from_r, from_w = os.pipe()
        # Above 4, so that moving them onto 3 and 4 cannot close one of them.
        to_r, from_w = [self._high(fd) for fd in (to_r, from_w)]
        args = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-extensions",
                "--hide-scrollbars", "--user-data-dir=" + profile,
                "--remote-debugging-pipe", "about:blank"]
        # A small exec wrapper puts the two pipe ends on the descriptors Chromium uses.
        wrap = ("import os, sys\n"
                "os.dup2(int(sys.argv[1]), 3)\n"
                "os.dup2(int(sys.argv[2]), 4)\n"
                "os.close(int(sys.argv[1])); os.close(int(sys.argv[2]))\n"
                "os.execv(sys.argv[3], sys.argv[3:])\n")
        self.proc = subprocess.Popen([sys.executable, "-c", wrap, str(to_r), str(from_w)] + args,
                                     pass_fds=(to_r, from_w), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        os.close(to_r)
        os.close(from_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    @staticmethod
    def _high(fd):
        new = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(fd)
        return new

    def close(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass
        self.proc.wait()

    def _read_message(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                fail("timed out waiting for the browser")
            r, _, _ = select.select([self.from_r], [], [], left)
            if r:
                chunk = os.read(self.from_r, 65536)
                if not chunk:
                    fail("the browser closed its pipe (exit status %s)" % self.proc.poll())
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, timeout=30, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    fail("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def wait_event(self, method, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            for i, m in enumerate(self.events):
                if m["method"] == method:
                    del self.events[i]
                    return m
            self.events.append(self._read_message(deadline))

    def eval(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            fail("script error: %s" % r["exceptionDetails"])
        return r["result"].get("value")

    def shot(self, path):
        r = self.call("Page.captureScreenshot", {"format": "png"})
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))


# Every frame: name, box, class, and whether the middle of the box hits it.
FRAMES = """(function () {
  return Array.prototype.map.call(document.querySelectorAll('g.f'), function (g) {
    var b = g.querySelector('rect').getBoundingClientRect(), x = b.left + b.width / 2,
        y = b.top + b.height / 2, e = b.width > 0 ? document.elementFromPoint(x, y) : null;
    return [g.getAttribute('data-n'), b.left, b.top, b.width, b.height,
            e !== null && g.contains(e), g.getAttribute('class')];
  });
})()"""


def main():
    if len(sys.argv) < 4:
        fail("usage: flamegraph_cdp.py CHROMIUM SVG CLICK [SHOTDIR]")
    chromium, svg, click = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
    shots = sys.argv[4] if len(sys.argv) > 4 else None
    signal.signal(signal.SIGALRM, lambda *_: fail("gave up after %d seconds" % LIMIT))
    signal.alarm(LIMIT)
    with tempfile.TemporaryDirectory() as profile:
        b = Browser(chromium, profile)
        try:
            run(b, svg, click, shots)
        finally:
            b.close()


def run(b, svg, click, shots):
    targets = b.call("Target.getTargets", session=False)["targetInfos"]
    pages = [t for t in targets if t["type"] == "page"]
    if not pages:
        fail("no page target")
    b.session = b.call("Target.attachToTarget", {"targetId": pages[0]["targetId"],
                                                 "flatten": True}, session=False)["sessionId"]
    b.call("Page.enable")
    b.call("Emulation.setDeviceMetricsOverride", {"width": 1200, "height": 800,
                                                  "deviceScaleFactor": 1, "mobile": False})
    b.call("Page.navigate", {"url": "file://" + svg})
    b.wait_event("Page.loadEventFired")
    # Let the page's own load handler finish.
    b.eval("new Promise(function (r) { setTimeout(r, 100); })")
    before = b.eval(FRAMES)
    out = []
    for name, x, y, w, h, shown, _ in before:
        out.append("before\t%s\t%.2f\t%.2f\t%.2f\t%.2f\t%d" % (name, x, y, w, h, shown))
    if shots:
        b.shot(os.path.join(shots, "before.png"))
    target = [f for f in before if f[0] == click]
    if not target:
        fail("no frame named %r" % click)
    _, x, y, w, h, _, _ = max(target, key=lambda f: f[3])
    cx, cy = x + w / 2, y + h / 2
    out.append("click\t%s\t%.2f\t%.2f" % (click, cx, cy))
    for kind, extra in (("mouseMoved", {}), ("mousePressed", {"clickCount": 1}),
                        ("mouseReleased", {"clickCount": 1})):
        p = {"type": kind, "x": cx, "y": cy, "button": "left" if extra else "none"}
        p.update(extra)
        b.call("Input.dispatchMouseEvent", p)
    b.eval("new Promise(function (r) { requestAnimationFrame(function () { setTimeout(r, 50); }); })")
    for name, x, _, w, _, _, cls in b.eval(FRAMES):
        out.append("after\t%s\t%.2f\t%.2f\t%s" % (name, x, w, cls))
    out.append("zoom\t%s" % b.eval("document.documentElement.getAttribute('data-zoom') || ''"))
    if shots:
        b.shot(os.path.join(shots, "after.png"))
    print("\n".join(out))


if __name__ == "__main__":
    main()
