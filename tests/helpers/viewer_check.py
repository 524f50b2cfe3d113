#!/usr/bin/env python3
# viewer_check.py ASPECT ARGS... — reads symprof's speedscope and Firefox Profiler files
# back, independently of symprof, for tests/cli_viewers.sh.  Exit status 1 with a message
# when a check fails.
#
#   schema SCHEMA FILE          FILE is valid under speedscope's JSON schema (python3-jsonschema)
#   firefox FILE                FILE is a processed profile of version 47 as the profiler's
#                               changelog and types describe it: meta fields, every thread's
#                               tables with columns of one length, indices in range, each
#                               stack's prefix an earlier stack, pid a string, times in order
#   folded speedscope|firefox FILE
#                               prints the stacks the file holds as folded lines
#                               ("root;...;leaf N", summed, sorted), every thread together
#   threads speedscope|firefox FILE
#                               prints "TID SAMPLES NAME" per thread (speedscope: from the
#                               profile's name "... (pid P, tid T)")
#   times FILE PERFSCRIPT       the Firefox file's sample times per thread equal perf script's
#                               ("TID TIME" lines, seconds), after the earliest sample, to 2 us
import json
import re
import sys


def fail(msg):
    sys.stderr.write("viewer_check: %s\n" % msg)
    sys.exit(1)


def load(path):
    with open(path) as f:
        return json.load(f)


def check_schema(schema_path, path):
    try:
        import jsonschema
    except ImportError:
        print("skip: python3-jsonschema is not installed")
        sys.exit(77)
    schema = load(schema_path)
    jsonschema.validate(load(path), schema)


TABLES = {
    "samples": ["stack", "time", "weight", "weightType", "length"],
    "markers": ["data", "name", "startTime", "endTime", "phase", "category", "length"],
    "stackTable": ["frame", "prefix", "category", "subcategory", "length"],
    "frameTable": ["address", "inlineDepth", "category", "subcategory", "func", "nativeSymbol",
                   "innerWindowID", "implementation", "line", "column", "length"],
    "funcTable": ["isJS", "relevantForJS", "name", "resource", "fileName", "lineNumber",
                  "columnNumber", "length"],
    "resourceTable": ["lib", "name", "host", "type", "length"],
    "nativeSymbols": ["libIndex", "address", "name", "functionSize", "length"],
}
META = ["interval", "startTime", "processType", "product", "stackwalk", "version",
        "preprocessedProfileVersion", "categories", "markerSchema"]
THREAD = ["processType", "processStartupTime", "processShutdownTime", "registerTime",
          "unregisterTime", "pausedRanges", "name", "isMainThread", "pid", "tid", "stringArray"]


def check_firefox(path):
    p = load(path)
    meta = p.get("meta") or fail("no meta")
    for k in META:
        if k not in meta:
            fail("meta.%s missing" % k)
    if meta["preprocessedProfileVersion"] != 47:
        fail("preprocessedProfileVersion %r, not 47" % meta["preprocessedProfileVersion"])
    cats = meta["categories"]
    for k in ("libs", "threads"):
        if not isinstance(p.get(k), list):
            fail("%s is not a list" % k)
    if not p["threads"]:
        fail("no thread")
    for t in p["threads"]:
        for k in THREAD:
            if k not in t:
                fail("thread %r: %s missing" % (t.get("name"), k))
        if not isinstance(t["pid"], str) or not isinstance(t["isMainThread"], bool):
            fail("thread %r: pid must be a string (v47), isMainThread a boolean" % t["name"])
        for tab, cols in TABLES.items():
            d = t.get(tab) or fail("thread %r: no %s" % (t["name"], tab))
            for c in cols:
                if c not in d:
                    fail("%s.%s missing" % (tab, c))
                if isinstance(d[c], list) and len(d[c]) != d["length"]:
                    fail("%s.%s has %d entries, length %d" % (tab, c, len(d[c]), d["length"]))
        s, st, fr, fu = t["samples"], t["stackTable"], t["frameTable"], t["funcTable"]
        n_str = len(t["stringArray"])
        if s["weightType"] not in ("samples", "tracing-ms", "bytes"):
            fail("weightType %r" % s["weightType"])
        for i, x in enumerate(s["stack"]):
            if x is not None and not 0 <= x < st["length"]:
                fail("sample %d: stack %r out of range" % (i, x))
        if any(b < a for a, b in zip(s["time"], s["time"][1:])):
            fail("thread %r: sample times go back" % t["name"])
        for i in range(st["length"]):
            if not 0 <= st["frame"][i] < fr["length"]:
                fail("stack %d: frame out of range" % i)
            pr = st["prefix"][i]
            if pr is not None and not 0 <= pr < i:
                fail("stack %d: prefix %r is not an earlier stack" % (i, pr))
            if not 0 <= st["category"][i] < len(cats):
                fail("stack %d: category out of range" % i)
        for i in range(fr["length"]):
            if not 0 <= fr["func"][i] < fu["length"]:
                fail("frame %d: func out of range" % i)
        for i in range(fu["length"]):
            if not 0 <= fu["name"][i] < n_str:
                fail("func %d: name out of range" % i)
            fn = fu["fileName"][i]
            if fn is not None and not 0 <= fn < n_str:
                fail("func %d: fileName out of range" % i)


def folded(kind, path):
    p = load(path)
    out = {}

    def add(stack, w):
        key = ";".join(stack)
        out[key] = out.get(key, 0) + w

    if kind == "speedscope":
        frames = p["shared"]["frames"]
        for prof in p["profiles"]:
            for st, w in zip(prof["samples"], prof["weights"]):
                add([frames[i]["name"] for i in st], w)
    else:
        for t in p["threads"]:
            s, st, fr, fu, strs = (t["samples"], t["stackTable"], t["frameTable"],
                                   t["funcTable"], t["stringArray"])
            w = s["weight"] or [1] * s["length"]
            for x, wt in zip(s["stack"], w):
                names = []
                while x is not None:
                    names.append(strs[fu["name"][fr["func"][st["frame"][x]]]])
                    x = st["prefix"][x]
                add(list(reversed(names)), wt)
    for k in sorted(out):
        print("%s %s" % (k, int(out[k]) if float(out[k]).is_integer() else out[k]))


def threads(kind, path):
    p = load(path)
    if kind == "speedscope":
        for prof in p["profiles"]:
            m = re.match(r"^(.*?) ?\(pid (-?\d+), tid (-?\d+)\)$", prof["name"])
            if not m:
                fail("profile name %r" % prof["name"])
            print(m.group(3), len(prof["samples"]), m.group(1))
    else:
        for t in p["threads"]:
            print(t["tid"], t["samples"]["length"], t["name"])


def times(path, script):
    p = load(path)
    want = {}
    for line in open(script):
        tid, tm = line.split()
        want.setdefault(int(tid), []).append(float(tm))
    t0 = min(min(v) for v in want.values())
    for t in p["threads"]:
        got = t["samples"]["time"]
        ref = sorted((x - t0) * 1000.0 for x in want.get(t["tid"], []))
        if len(got) != len(ref):
            fail("thread %d: %d samples, perf script %d" % (t["tid"], len(got), len(ref)))
        for i, (a, b) in enumerate(zip(got, ref)):
            if abs(a - b) > 0.002:
                fail("thread %d sample %d: time %.6f ms, perf script %.6f ms" % (t["tid"], i, a, b))
    print(sum(len(v) for v in want.values()))


def main():
    a = sys.argv[1]
    if a == "schema":
        check_schema(sys.argv[2], sys.argv[3])
    elif a == "firefox":
        check_firefox(sys.argv[2])
    elif a == "folded":
        folded(sys.argv[2], sys.argv[3])
    elif a == "threads":
        threads(sys.argv[2], sys.argv[3])
    elif a == "times":
        times(sys.argv[2], sys.argv[3])
    else:
        fail("unknown aspect %s" % a)


main()
