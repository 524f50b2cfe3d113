#!/usr/bin/env python3
# page_load.py CHROMIUM FILE [RUNS] — how long headless Chromium takes to open FILE (an
# HTML report or a flame graph SVG) from file://, without network (or an http:// URL on
# this machine, such as go tool pprof -http's page), each run in a new
# browser profile: the page's load event end and first contentful paint (milliseconds
# after navigation start, from the page's own performance entries) and, for symprof's
# HTML report, whether its script finished (data-ready).  Prints one line per run and the
# medians.  Uses the DevTools pipe of tests/helpers/flamegraph_cdp.py.
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "helpers"))
from flamegraph_cdp import Browser, fail  # noqa: E402

TIMES = """(function () {
  var n = performance.getEntriesByType('navigation')[0], p = performance.getEntriesByType('paint');
  var fcp = p.filter(function (e) { return e.name === 'first-contentful-paint'; })[0];
  return [n.loadEventEnd, fcp ? fcp.startTime : -1,
          document.documentElement.getAttribute('data-ready') || ''];
})()"""


def once(chromium, path):
    with tempfile.TemporaryDirectory() as profile:
        b = Browser(chromium, profile)
        try:
            t = b.call("Target.getTargets", session=False)["targetInfos"]
            page = [x for x in t if x["type"] == "page"][0]
            b.session = b.call("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True},
                               session=False)["sessionId"]
            b.call("Page.enable")
            b.call("Emulation.setDeviceMetricsOverride", {"width": 1200, "height": 900,
                                                          "deviceScaleFactor": 1, "mobile": False})
            url = path if path.startswith("http://") else "file://" + os.path.abspath(path)
            b.call("Page.navigate", {"url": url}, timeout=60)
            b.wait_event("Page.loadEventFired", timeout=60)
            b.eval("new Promise(function (r) { requestAnimationFrame(function () { setTimeout(r, 100); }); })")
            return b.eval(TIMES)
        finally:
            b.close()


def main():
    if len(sys.argv) < 3:
        fail("usage: page_load.py CHROMIUM FILE [RUNS]")
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    loads, paints = [], []
    for i in range(runs):
        load, fcp, ready = once(sys.argv[1], sys.argv[2])
        print("run %d: load %.0f ms, first contentful paint %.0f ms%s" %
              (i + 1, load, fcp, ", script done" if ready == "1" else ""))
        loads.append(load)
        paints.append(fcp)
    print("median: load %.0f ms, first contentful paint %.0f ms" %
          (statistics.median(loads), statistics.median(paints)))


main()
