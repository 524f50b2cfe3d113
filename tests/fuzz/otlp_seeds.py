#!/usr/bin/python3
"""otlp_seeds.py DIR -- writes the seeds of fuzz_otlp (DIR/otlp/) and fuzz_otlp_json
(DIR/otlp_json/): small OTLP profiles, made with tests/helpers/otlp_proto.py, that between them
use every message and field the reader knows: attributes of every value kind (nested
arrays and lists, bytes, string indices, units), entity refs, scopes with the pprof
mapping's attributes, profiles that are the columns of one pprof profile and profiles
that are not, samples of the three shapes (values, timestamps, a value per timestamp),
links, mappings with build ids and pprof's flags, locations with lines and frame
types; one message, a stream of two, and gzip and zstd around them.

    tests/fuzz/otlp_seeds.py tests/fuzz/seeds

otlp_seeds.py --malformed DIR writes the malformed inputs DIR/otlp/*.in and
DIR/otlp_json/*.in, each with the words its error must contain (*.expect): where (the
byte offset, or line and column, and the field's path) and what was expected.

    tests/fuzz/otlp_seeds.py --malformed tests/malformed
"""
import gzip
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
import otlp_proto as op  # noqa: E402


def dictionary(d):
    t = d.dictionary
    strings = ["", "samples", "count", "cpu", "nanoseconds", "app", "libc.so.6", "main",
               "work", "app.c", "thread.name", "worker", "profile.frame.type", "native",
               "kernel", "do_syscall", "bytes", "alloc_space", "process.executable.build_id.gnu",
               "process.executable.build_id.htlhash", "pprof.mapping.has_functions", "key"]
    t.string_table.extend(strings)
    s = {v: i for i, v in enumerate(strings)}
    t.mapping_table.add()
    m = t.mapping_table.add(memory_start=0x1000, memory_limit=0x2000, file_offset=0x1000,
                            filename_strindex=s["app"])
    m.attribute_indices.extend([1, 2])
    t.mapping_table.add(memory_start=0x26000, memory_limit=0x17c000, file_offset=0x26000,
                        filename_strindex=s["libc.so.6"]).attribute_indices.append(3)
    t.function_table.add()
    t.function_table.add(name_strindex=s["main"], system_name_strindex=s["main"],
                         filename_strindex=s["app.c"], start_line=3)
    t.function_table.add(name_strindex=s["work"], filename_strindex=s["app.c"])
    t.function_table.add(name_strindex=s["do_syscall"])
    t.location_table.add()
    t.location_table.add(mapping_index=1, address=0x1130).attribute_indices.append(4)
    loc = t.location_table.add(mapping_index=1, address=0x1157)
    loc.lines.add(function_index=2, line=12, column=5)
    loc.lines.add(function_index=1, line=30)
    loc.attribute_indices.append(4)
    t.location_table.add(mapping_index=2, address=0x2724a)
    k = t.location_table.add(address=0x99)
    k.lines.add(function_index=3)
    k.attribute_indices.append(5)
    t.link_table.add(trace_id=bytes(16), span_id=bytes(8))
    t.link_table.add(trace_id=bytes(range(16)), span_id=bytes(range(8, 16)))
    t.attribute_table.add()
    a = t.attribute_table.add(key_strindex=s["process.executable.build_id.gnu"])
    a.value.string_value = "f3367acbd316f015e9d529ddc4a9aceae984a4a5"
    a = t.attribute_table.add(key_strindex=s["pprof.mapping.has_functions"])
    a.value.bool_value = True
    a = t.attribute_table.add(key_strindex=s["process.executable.build_id.htlhash"])
    a.value.string_value = "074a057052f34a27c0b758531573b03d"
    a = t.attribute_table.add(key_strindex=s["profile.frame.type"])
    a.value.string_value_strindex = s["native"]
    a = t.attribute_table.add(key_strindex=s["profile.frame.type"])
    a.value.string_value = "kernel"
    a = t.attribute_table.add(key_strindex=s["thread.name"])
    a.value.string_value_strindex = s["worker"]
    a = t.attribute_table.add(key_strindex=s["bytes"], unit_strindex=s["bytes"])
    a.value.int_value = 4096
    a = t.attribute_table.add(key_strindex=s["key"])
    a.value.double_value = 1.5
    a = t.attribute_table.add(key_strindex=s["key"])
    arr = a.value.array_value.values
    arr.add().int_value = 1
    arr.add().string_value = "two"
    kv = arr.add().kvlist_value.values.add(key="inner")
    kv.value.bytes_value = b"\x00\x01\xff"
    t.stack_table.add()
    t.stack_table.add().location_indices.extend([1, 2, 3])
    t.stack_table.add().location_indices.extend([4, 2, 3])
    return s


def resource(rp, pid):
    for key, v in (("process.pid", pid), ("process.executable.name", "app"),
                   ("container.id", "c0ffee"), ("flag", True), ("ratio", 0.25)):
        kv = rp.resource.attributes.add(key=key)
        if isinstance(v, bool):
            kv.value.bool_value = v
        elif isinstance(v, int):
            kv.value.int_value = v
        elif isinstance(v, float):
            kv.value.double_value = v
        else:
            kv.value.string_value = v
    e = rp.resource.entity_refs.add(schema_url="s", type="process")
    e.id_keys.append("process.pid")
    rp.resource.dropped_attributes_count = 1
    rp.schema_url = "https://opentelemetry.io/schemas/1.37.0"


def agent(msg, s):
    """Like the eBPF profiler: timestamps, no values, thread attributes, a link."""
    rp = msg.resource_profiles.add()
    resource(rp, 42)
    sp = rp.scope_profiles.add()
    sp.scope.name, sp.scope.version = "opentelemetry-ebpf-profiler", "v1"
    p = sp.profiles.add(time_unix_nano=1700000000000000000, duration_nano=10**9, period=50000000)
    p.sample_type.type_strindex, p.sample_type.unit_strindex = s["samples"], s["count"]
    p.period_type.type_strindex, p.period_type.unit_strindex = s["cpu"], s["nanoseconds"]
    p.profile_id = bytes(range(1, 17))
    p.original_payload_format, p.original_payload = "x", b"\x00payload"
    a = p.samples.add(stack_index=1, link_index=1)
    a.attribute_indices.extend([6, 9])
    a.timestamps_unix_nano.extend([1700000000000000001, 1700000000000000002])
    b = p.samples.add(stack_index=2)
    b.attribute_indices.append(8)
    b.timestamps_unix_nano.append(1700000000000000003)
    c = p.samples.add(stack_index=2)
    c.values.extend([5, 7])
    c.timestamps_unix_nano.extend([1700000000000000004, 1700000000000000005])


def columns(msg, s):
    """Like the collector's pprof translator: one profile per sample type."""
    rp = msg.resource_profiles.add()
    sp = rp.scope_profiles.add()
    kv = sp.scope.attributes.add(key="pprof.scope.sample_type_order")
    kv.value.array_value.values.add().int_value = 1
    kv.value.array_value.values.add().int_value = 0
    kv = sp.scope.attributes.add(key="pprof.scope.default_sample_type")
    kv.value.string_value = "alloc_space"
    for t, u in (("alloc_space", "bytes"), ("samples", "count")):
        p = sp.profiles.add(period=1)
        p.sample_type.type_strindex, p.sample_type.unit_strindex = s[t], s[u]
        for st, v in ((1, 10), (2, 20)):
            smp = p.samples.add(stack_index=st)
            smp.values.append(v if t == "samples" else v * 1000)
            smp.attribute_indices.append(7)


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def main(out):
    pb, js = os.path.join(out, "otlp"), os.path.join(out, "otlp_json")
    os.makedirs(pb, exist_ok=True)
    os.makedirs(js, exist_ok=True)
    one = op.ProfilesData()
    s = dictionary(one)
    agent(one, s)
    cols = op.ProfilesData()
    dictionary(cols)
    columns(cols, s)
    both = op.ExportProfilesServiceRequest()
    dictionary(both)
    agent(both, s)
    columns(both, s)
    for name, m in (("agent", one), ("columns", cols), ("both", both)):
        b = m.SerializeToString()
        write(os.path.join(pb, name + ".otlp"), b)
        write(os.path.join(js, name + ".otlp.json"), (op.to_json(m) + "\n").encode())
    stream = b"".join(len(m.SerializeToString()).to_bytes(4, "big") + m.SerializeToString()
                      for m in (one, cols))
    write(os.path.join(pb, "stream.otlp"), stream)
    write(os.path.join(pb, "agent.otlp.gz"), gzip.compress(one.SerializeToString(), mtime=0))
    write(os.path.join(js, "lines.otlp.json"),
          (op.to_json(one) + "\n" + op.to_json(cols) + "\n").encode())
    if shutil.which("zstd"):
        z = subprocess.run(["zstd", "-q", "-c"], input=stream, stdout=subprocess.PIPE,
                           check=True).stdout
        write(os.path.join(pb, "stream.otlp.zst"), z)
    write(os.path.join(pb, "empty-data.otlp"), op.ProfilesData(
        dictionary=op.ProfilesData().dictionary).SerializeToString() or b"\x12\x00")


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def field(num, wt, payload):
    """A field: tag, then a varint, fixed bytes, or a length and bytes."""
    tag = varint(num << 3 | wt)
    if wt == 2:
        return tag + varint(len(payload)) + payload
    return tag + payload


def base():
    """A small valid message: one resource, scope, profile and sample."""
    m = op.ProfilesData()
    d = m.dictionary
    d.string_table.extend(["", "samples", "count", "app"])
    d.mapping_table.add()
    d.mapping_table.add(memory_start=0x1000, memory_limit=0x2000, filename_strindex=3)
    d.location_table.add()
    d.location_table.add(mapping_index=1, address=0x1100)
    d.function_table.add()
    d.link_table.add()
    d.attribute_table.add()
    d.stack_table.add()
    d.stack_table.add().location_indices.append(1)
    p = m.resource_profiles.add().scope_profiles.add().profiles.add()
    p.sample_type.type_strindex, p.sample_type.unit_strindex = 1, 2
    p.samples.add(stack_index=1).values.append(1)
    return m


def sample(m):
    return m.resource_profiles[0].scope_profiles[0].profiles[0].samples[0]


SAMPLE = "resource_profiles[0].scope_profiles[0].profiles[0].samples[0]"
JSAMPLE = "resourceProfiles[0].scopeProfiles[0].profiles[0].samples[0]"


def malformed(out):
    pb, js = os.path.join(out, "otlp"), os.path.join(out, "otlp_json")
    os.makedirs(pb, exist_ok=True)
    os.makedirs(js, exist_ok=True)
    cases = {}

    m = base()
    rp = m.resource_profiles[0].SerializeToString()
    head = field(1, 2, rp)
    cases["cut_dictionary"] = (head + b"\x12\x40" + b"\x2a\x00",
                               "offset %d: field 2 (ProfilesData.dictionary): length 64 "
                               "exceeds the 2 bytes left" % len(head))
    # location_indices (packed int32) sent as fixed64
    bad_stack = field(7, 2, field(1, 1, bytes(8)))
    dict_bytes = field(5, 2, b"") + bad_stack
    at = len(head) + 2 + len(field(5, 2, b"")) + 2
    cases["wire_type"] = (head + field(2, 2, dict_bytes),
                          "offset %d: field 1 (Stack.location_indices): wire type 1, expected "
                          "0 or 2 (packed)" % at)
    cases["group"] = (head + field(2, 2, b"\x0b\x0c"),
                      "offset %d: field 1 (ProfilesDictionary.mapping_table): wire type 3 is "
                      "not supported" % (len(head) + 2))
    nul = field(2, 2, field(5, 2, b"") + field(5, 2, b"a\x00b"))
    cases["nul_string"] = (head + nul, "field 5 (ProfilesDictionary.string_table): a string "
                                       "with a NUL byte")
    v = field(2, 0, b"\x01")  # bool_value
    for _ in range(70):  # AnyValue { array_value { values { ... } } }
        v = field(5, 2, field(1, 2, v))
    kv = field(1, 2, b"k") + field(2, 2, v)
    res = field(1, 2, field(1, 2, kv))  # ResourceProfiles.resource.attributes
    cases["deep_value"] = (field(1, 2, res), "nested more than 64 messages deep")

    m = base()
    m.dictionary.string_table[0] = "x"
    cases["string0"] = (m, 'dictionary.string_table[0]: must be "": index 0 means none')
    m = base()
    m.dictionary.location_table[0].address = 5
    cases["location0"] = (m, "dictionary.location_table[0]: must be the zero value "
                             "(Location{}): index 0 means none")
    m = base()
    m.dictionary.link_table[0].span_id = b"\x01" * 8
    cases["link0"] = (m, "dictionary.link_table[0]: must be the zero value (Link{})")
    m = base()
    sample(m).stack_index = 9
    cases["stack_index"] = (m, SAMPLE + ": index 9 is outside the stack table (2 entries)")
    m = base()
    m.dictionary.stack_table[1].location_indices.append(7)
    cases["location_index"] = (m, "dictionary.stack_table[1]: index 7 is outside the location "
                                  "table (2 entries)")
    m = base()
    m.dictionary.function_table.add(name_strindex=3)
    m.dictionary.location_table[1].lines.add(function_index=4)
    cases["function_index"] = (m, "dictionary.location_table[1].lines[0]: index 4 is outside "
                                  "the function table (2 entries)")
    m = base()
    sample(m).attribute_indices.append(99)
    cases["attribute_index"] = (m, SAMPLE + ": index 99 is outside the attribute table "
                                            "(1 entries)")
    m = base()
    m.dictionary.mapping_table[1].filename_strindex = 50
    cases["string_index"] = (m, "dictionary.mapping_table[1]: index 50 is outside the string "
                                "table (4 entries)")
    m = base()
    sample(m).link_index = -1
    cases["negative_index"] = (m, SAMPLE + ": index -1 is outside the link table (1 entries)")
    m = base()
    del sample(m).values[:]
    cases["no_values"] = (m, SAMPLE + ": a sample needs values or timestamps")
    m = base()
    sample(m).values.append(2)
    sample(m).timestamps_unix_nano.extend([1, 2, 3])
    cases["values_timestamps"] = (m, SAMPLE + ": 2 values and 3 timestamps")
    good = base().SerializeToString()
    stream = len(good).to_bytes(4, "big") + good + (1000).to_bytes(4, "big") + good[:10]
    cases["stream_cut"] = (stream, "offset %d: message 2 of 1000 bytes, but 10 are left"
                                   % (4 + len(good)))
    if shutil.which("zstd"):
        z = bytearray(subprocess.run(["zstd", "-q", "-c"], input=good * 50,
                                     stdout=subprocess.PIPE, check=True).stdout)
        cases["zstd_cut"] = (bytes(z[:len(z) // 2]), "the zstd data ends inside a frame")
    for name, (data, expect) in cases.items():
        if not isinstance(data, bytes):
            data = data.SerializeToString()
        write(os.path.join(pb, name + ".in"), data)
        write(os.path.join(pb, name + ".expect"), (expect + "\n").encode())

    j = json.dumps(json.loads(op.to_json(base())), separators=(",", ":"))
    jcases = {
        "unterminated": (j[:j.index('"stringTable":[') + 15] + '"", "abc',
                         "string not terminated"),
        "bad_escape": (j.replace('"app"', '"a\\qp"'), "unknown escape \\q"),
        "not_integer": (j.replace('"stackIndex":1', '"stackIndex":"x1"'),
                        "expected a 32-bit integer, found 'x1'"),
        "int32_range": (j.replace('"stackIndex":1', '"stackIndex":4294967296'),
                        "expected a 32-bit integer, found '4294967296'"),
        "stack_index": (j.replace('"stackIndex":1', '"stackIndex":5'),
                        JSAMPLE + ": index 5 is outside the stack table (2 entries)"),
        "location0": (j.replace('"locationTable":[{}', '"locationTable":[{"address":"5"}'),
                      "dictionary.locationTable[0]: must be the zero value"),
        "trailing": (j + "\n]\n", "line 2, column 1 (byte %d): expected an object, found ']'"
                     % (len(j) + 1)),
        "missing_colon": ('{"resourceProfiles" []}',
                          "line 1, column 21 (byte 20): expected ':' after the member name"),
        "bad_hex": (j.replace('"dictionary":{', '"dictionary":{"linkTable":[{"traceId":"zz"}],'),
                    'expected hex digits, found "zz"'),
        "bad_base64": (j.replace('"stringTable"', '"attributeTable":[{},{"value":'
                                 '{"bytesValue":"!!!"}}],"stringTable"'),
                       'expected base64, found "!!!"'),
        "lone_surrogate": (j.replace('"app"', '"\\udc00"'), "lone low surrogate \\udc00"),
        "second_line": (j + "\n" + j.replace('"stackIndex":1', '"stackIndex":7'),
                        "line 2, column"),
        "deep": (j.replace('"dictionary":{', '"dictionary":{"attributeTable":[{},{"value":' +
                           '{"arrayValue":{"values":[' * 70 + ']}}' * 70 + '}],'),
                 "nested more than 64 messages deep"),
    }
    for name, (text, expect) in jcases.items():
        write(os.path.join(js, name + ".in"), (text + ("" if name == "unterminated"
                                                       else "\n")).encode())
        write(os.path.join(js, name + ".expect"), (expect + "\n").encode())


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--malformed":
        malformed(sys.argv[2])
    elif len(sys.argv) == 2:
        main(sys.argv[1])
    else:
        raise SystemExit("usage: otlp_seeds.py DIR | --malformed DIR")
