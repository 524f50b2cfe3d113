#!/usr/bin/env python3
# report_cdp.py CHROMIUM HTML FUNCTION SEARCH SHOTDIR — opens symprof's HTML report in
# headless Chromium over the DevTools protocol (the Browser of tests/flamegraph_cdp.py:
# a pipe, no network) and drives it as a person would, with real mouse clicks and typing:
#
#   1. the flame graph: a click in the middle of FUNCTION's widest frame (it zooms there
#      and selects the function);
#   2. the "source" and "disassembly" buttons of the selected function, then the Top tab
#      and a click on its "cum" header, the callers/callees tab and the icicle tab;
#   3. the flame graph again: SEARCH typed into the search box.
#
# A PNG of every view is written to SHOTDIR (flame, source, disasm, top, sandwich,
# icicle, search).  Prints tab-separated lines for the calling test:
#   zoom NAME / selected NAME              after the click
#   source LINE FLAT CUM                   every source row with values (and "srctotal FLAT CUM")
#   inline DEPTH FN LINE FLAT CUM          every inline row
#   insn ADDR FLAT CUM TARGET              every instruction (and "asmtotal FLAT CUM")
#   top NAME FLAT CUM                      the top table in the order shown after the click
#   sandwich FLAT CUM                      the selected function's values there
#   matched VALUE SHARE                    the search's matched value and share (percent)
#   total AFTER BASE                       the tree's root (BASE: -1 without a base)
#   errors N                               console errors and exceptions seen (each also
#                                          as "error TEXT")
# Exit status 1 with a message on stderr when the browser or the page fails.
import base64
import os
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flamegraph_cdp import Browser, fail  # noqa: E402

LIMIT = 150


def click_at(b, x, y):
    for kind, extra in (("mouseMoved", {}), ("mousePressed", {"clickCount": 1}),
                        ("mouseReleased", {"clickCount": 1})):
        p = {"type": kind, "x": x, "y": y, "button": "left" if extra else "none"}
        p.update(extra)
        b.call("Input.dispatchMouseEvent", p)
    settle(b)


def settle(b):
    b.eval("new Promise(function (r) { requestAnimationFrame(function () { setTimeout(r, 50); }); })")


def click_element(b, selector):
    box = b.eval("(function () { var e = document.querySelector(%r); if (!e) return null;"
                 " e.scrollIntoView({block: 'center'}); var r = e.getBoundingClientRect();"
                 " return [r.left + r.width / 2, r.top + r.height / 2]; })()" % selector)
    if not box:
        fail("no element %s" % selector)
    click_at(b, box[0], box[1])


def rows(b, selector, attrs):
    return b.eval("Array.prototype.map.call(document.querySelectorAll(%r), function (e) {"
                  " return %r.map(function (a) { return e.getAttribute(a); }); })" % (selector, attrs))


def main():
    chromium, html, func, search, shots = sys.argv[1:6]
    html = os.path.abspath(html)
    signal.signal(signal.SIGALRM, lambda *_: fail("gave up after %d seconds" % LIMIT))
    signal.alarm(LIMIT)
    with tempfile.TemporaryDirectory() as profile:
        b = Browser(chromium, profile)
        try:
            run(b, html, func, search, shots)
        finally:
            b.close()


def run(b, html, func, search, shots):
    targets = b.call("Target.getTargets", session=False)["targetInfos"]
    pages = [t for t in targets if t["type"] == "page"]
    if not pages:
        fail("no page target")
    b.session = b.call("Target.attachToTarget", {"targetId": pages[0]["targetId"],
                                                 "flatten": True}, session=False)["sessionId"]
    b.call("Page.enable")
    b.call("Runtime.enable")
    b.call("Log.enable")
    b.call("Emulation.setDeviceMetricsOverride", {"width": 1200, "height": 900,
                                                  "deviceScaleFactor": 1, "mobile": False})
    t0 = time.monotonic()
    b.call("Page.navigate", {"url": "file://" + html})
    b.wait_event("Page.loadEventFired")
    ready = b.eval("document.documentElement.getAttribute('data-ready')")
    out = ["load\t%.3f" % (time.monotonic() - t0)]
    if ready != "1":
        fail("the page script did not finish")
    settle(b)
    def shot(name):
        # the page below its header: what the view itself draws
        top = b.eval("document.querySelector('main').getBoundingClientRect().top")
        r = b.call("Page.captureScreenshot", {"format": "png", "clip": {
            "x": 0, "y": top, "width": 1200, "height": 900 - top, "scale": 1}})
        with open(os.path.join(shots, name + ".png"), "wb") as f:
            f.write(base64.b64decode(r["data"]))
    shot("flame")
    box = b.eval("symprof.frameBox(%r)" % func)
    if not box:
        fail("no frame named %r is drawn" % func)
    click_at(b, box["x"] + box["w"] / 2, box["y"] + box["h"] / 2)
    st = b.eval("symprof.state()")
    out.append("zoom\t%s" % b.eval("document.documentElement.getAttribute('data-zoom') || ''"))
    out.append("selected\t%s" % (st["fn"] or ""))
    shot("zoomed")
    click_element(b, "#sp-open-source")
    shot("source")
    for line, flat, cum in rows(b, "#sp-view-source tr.ln", ["data-line", "data-flat", "data-cum"]):
        if flat != "0" or cum != "0":
            out.append("source\t%s\t%s\t%s" % (line, flat, cum))
    for d, fn, line, flat, cum in rows(b, "#sp-view-source tr.inl",
                                       ["data-depth", "data-fn", "data-line", "data-flat", "data-cum"]):
        out.append("inline\t%s\t%s\t%s\t%s\t%s" % (d, fn, line, flat, cum))
    for flat, cum in rows(b, "#sp-view-source p.note", ["data-flat", "data-cum"]):
        out.append("srctotal\t%s\t%s" % (flat, cum))
    click_element(b, "#sp-tab-disasm")
    shot("disasm")
    for addr, flat, cum, cls in rows(b, "#sp-view-disasm tbody tr",
                                     ["data-addr", "data-flat", "data-cum", "class"]):
        out.append("insn\t%s\t%s\t%s\t%d" % (addr, flat, cum, "tgt" in (cls or "")))
    for flat, cum in rows(b, "#sp-view-disasm p.note", ["data-flat", "data-cum"]):
        out.append("asmtotal\t%s\t%s" % (flat, cum))
    click_element(b, "#sp-tab-top")
    click_element(b, "#sp-top th[data-key=cum]")
    shot("top")
    for name, flat, cum in rows(b, "#sp-top tbody tr", ["data-name", "data-flat", "data-cum"]):
        out.append("top\t%s\t%s\t%s" % (name, flat, cum))
    click_element(b, "#sp-tab-sandwich")
    shot("sandwich")
    for flat, cum in rows(b, "#sp-sw-values", ["data-flat", "data-cum"]):
        out.append("sandwich\t%s\t%s" % (flat, cum))
    click_element(b, "#sp-tab-icicle")
    shot("icicle")
    click_element(b, "#sp-tab-flame")
    click_element(b, "#sp-reset")
    click_element(b, "#sp-search")
    b.call("Input.insertText", {"text": search})
    settle(b)
    shot("search")
    m = b.eval("[document.getElementById('sp-matched').getAttribute('data-value'),"
               " document.getElementById('sp-matched').getAttribute('data-share')]")
    out.append("matched\t%s\t%s" % (m[0], m[1]))
    tot = b.eval("[symprof.data.tree.v[0], symprof.data.tree.b ? symprof.data.tree.b[0] : -1]")
    out.append("total\t%s\t%s" % (tot[0], tot[1]))
    errors = []
    for e in b.events:
        m = e.get("method")
        p = e.get("params", {})
        if m == "Runtime.exceptionThrown":
            errors.append(str(p.get("exceptionDetails", {}).get("text")))
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            errors.append(" ".join(str(a.get("value")) for a in p.get("args", [])))
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            errors.append(p["entry"].get("text", ""))
    for e in errors:
        out.append("error\t%s" % e.replace("\n", " "))
    out.append("errors\t%d" % len(errors))
    print("\n".join(out))


main()
