#!/usr/bin/python3
"""otlp_check.py -- the Python side of tests/cli/otlp.sh: reads OTLP with python3-protobuf
(tests/helpers/otlp_proto.py) and go tool pprof's -raw text, independently of symprof's code.

  otlp_check.py written ORIG BACK
      BACK (what symprof wrote after symbolizing ORIG) keeps every resource and scope
      with its attributes, every profile's fields, and every sample with its attributes,
      link and timestamps (the same multiset); every mapping and location keeps its
      attributes (pprof's flags may be added); native locations of files have lines
      now, each naming a function (all but a few: a PLT stub has no symbol).  Prints
      what differs.
  otlp_check.py pprof-raw ORIG RAW
      RAW (`go tool pprof -raw` of what symprof wrote as pprof from ORIG) has the samples
      of ORIG: for every sample, its count (its number of timestamps) and its labels
      (its attributes, its resource's, its link's ids, its timestamps), as a multiset;
      but a numeric label 0 without a unit, which pprof's format cannot carry.
  otlp_check.py proto-table SET
      the messages of SET (protoc --descriptor_set_out of formats/proto/otlp.proto, what
      symprof's C code is generated from) and tests/helpers/otlp_proto.py's table, two
      transcriptions of the spec, agree field by field: name, number, type, repeated.
  otlp_check.py synth OUT FILE VADDR NAME
      writes OUT: one sample whose leaf is a native frame at ELF address VADDR + 8 of FILE
      (its base name the mapping's), called from a frame at VADDR exactly, as a return
      address already decremented looks when the call was the function's first
      instruction, and a location named NAME (a Go frame the profiler named, wrongly),
      and a kernel frame named "kfunc".
"""
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import otlp_proto as op  # noqa: E402


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        import gzip
        data = gzip.decompress(data)
    return op.read_any(data)


def attrs(d, idx):
    s = d.dictionary.string_table
    out = []
    for i in idx:
        a = d.dictionary.attribute_table[i]
        out.append((s[a.key_strindex], op.value(a.value, s), s[a.unit_strindex]))
    return tuple(sorted(out, key=repr))


def kvs(d, kv_list):
    s = d.dictionary.string_table
    return tuple(sorted(((kv.key or s[kv.key_strindex], op.value(kv.value, s))
                         for kv in kv_list), key=repr))


def samples(msgs):
    """Every sample as (resource attrs, scope, sample type, attrs, link, timestamps,
    values), over every message."""
    out = []
    for d in msgs:
        s = d.dictionary.string_table
        for rp in d.resource_profiles:
            res = kvs(d, rp.resource.attributes)
            for sp in rp.scope_profiles:
                scope = (sp.scope.name, sp.scope.version)
                for p in sp.profiles:
                    st = (s[p.sample_type.type_strindex], s[p.sample_type.unit_strindex])
                    for smp in p.samples:
                        ln = d.dictionary.link_table[smp.link_index]
                        link = (ln.trace_id.hex(), ln.span_id.hex()) if smp.link_index else None
                        out.append((res, scope, st, attrs(d, smp.attribute_indices), link,
                                    tuple(sorted(smp.timestamps_unix_nano)),
                                    tuple(smp.values)))
    return out


def profiles(msgs):
    out = []
    for d in msgs:
        s = d.dictionary.string_table
        for rp in d.resource_profiles:
            for sp in rp.scope_profiles:
                for p in sp.profiles:
                    out.append((rp.schema_url, sp.schema_url, p.time_unix_nano, p.duration_nano,
                                p.period, s[p.period_type.type_strindex],
                                s[p.period_type.unit_strindex], p.profile_id,
                                attrs(d, p.attribute_indices)))
    return sorted(out, key=repr)


def written(orig_path, back_path):
    orig, back = load(orig_path), load(back_path)
    bad = []
    so, sb = collections.Counter(samples(orig)), collections.Counter(samples(back))
    if so != sb:
        bad.append("samples differ: %d only in the original, %d only in the output"
                   % (sum((so - sb).values()), sum((sb - so).values())))
        for x in list((so - sb).elements())[:3]:
            bad.append("  lost: %r" % (x,))
        for x in list((sb - so).elements())[:3]:
            bad.append("  new:  %r" % (x,))
    if profiles(orig) != profiles(back):
        bad.append("profiles' fields differ")
    # mappings and locations by what they are: their attributes kept
    def entities(msgs):
        maps, locs = collections.Counter(), collections.Counter()
        for d in msgs:
            s = d.dictionary.string_table
            for m in d.dictionary.mapping_table[1:]:
                a = tuple(x for x in attrs(d, m.attribute_indices)
                          if not x[0].startswith("pprof.mapping."))
                maps[(m.memory_start, m.memory_limit, m.file_offset, s[m.filename_strindex], a)] += 1
            for l in d.dictionary.location_table[1:]:
                mp = d.dictionary.mapping_table[l.mapping_index]
                locs[(s[mp.filename_strindex], l.address, attrs(d, l.attribute_indices))] += 1
        return maps, locs
    mo, lo = entities(orig)
    mb, lb = entities(back)
    if set(mo) != set(mb):
        bad.append("mappings differ: %r" % (set(mo) ^ set(mb),))
    if set(lo) != set(lb):
        bad.append("locations differ: %r" % (list(set(lo) ^ set(lb))[:3],))
    named = unnamed = 0
    for d in back:
        s = d.dictionary.string_table
        for l in d.dictionary.location_table[1:]:
            a = dict((k, v) for k, v, _ in attrs(d, l.attribute_indices))
            mp = d.dictionary.mapping_table[l.mapping_index]
            fname = s[mp.filename_strindex]
            if a.get("profile.frame.type") != "native" or not l.mapping_index or \
                    fname.startswith("linux-vdso"):
                continue
            if l.lines and all(s[d.dictionary.function_table[ln.function_index].name_strindex]
                               for ln in l.lines):
                named += 1
            else:
                unnamed += 1
    if not named or unnamed * 4 > named:
        bad.append("%d native locations named, %d not" % (named, unnamed))
    for b in bad:
        print(b)
    print("%d samples, %d native locations named, %d not" % (len(sb), named, unnamed))
    return 1 if bad else 0


SAMPLE_LINE = re.compile(r"^\s*(-?\d+(?:\s+-?\d+)*):\s")
LABEL = re.compile(r"([^\s:\[]+):\[([^\]]*)\]")


def parse_raw(path):
    """go tool pprof -raw: the samples with their labels, as (count, labels)."""
    out, cur, in_samples = [], None, False
    with open(path) as f:
        for line in f:
            if line.startswith("Samples:"):
                in_samples = True
                continue
            if line.startswith("Locations"):
                break
            if not in_samples:
                continue
            m = SAMPLE_LINE.match(line)
            if m:
                cur = [int(m.group(1).split()[0]), []]
                out.append(cur)
                continue
            if cur is None:
                continue
            for key, val in LABEL.findall(line):
                words = val.split()
                if words and re.fullmatch(r"-?\d+", words[0]):
                    # numeric: "N unit N unit ..." or "N N ..."
                    nums = [w for w in words if re.fullmatch(r"-?\d+", w)]
                    cur[1].extend((key, int(n)) for n in nums)
                else:
                    cur[1].extend((key, w) for w in words)
    return collections.Counter((c, tuple(sorted(l, key=repr))) for c, l in out)


def pprof_raw(orig_path, raw_path):
    want = collections.Counter()
    for res, scope, st, a, link, stamps, values in samples(load(orig_path)):
        labels = []
        for k, v, unit in list(a) + [(k, v, "") for k, v in res]:
            # pprof drops a numeric label 0 without a unit (google/pprof's decoder, and
            # so symprof's): it cannot say it
            if isinstance(v, int) and not isinstance(v, bool) and v == 0 and not unit:
                continue
            labels.append((k, v if isinstance(v, (int, str)) else str(v)))
        if link:
            labels += [("trace_id", link[0]), ("span_id", link[1])]
        labels += [("timestamp_unix_nano", t) for t in stamps]
        count = sum(values) if values else len(stamps)
        want[(count, tuple(sorted(labels, key=repr)))] += 1
    got = parse_raw(raw_path)
    if want != got:
        print("go tool pprof -raw differs: %d samples only expected, %d only found"
              % (sum((want - got).values()), sum((got - want).values())))
        for x in list((want - got).elements())[:2]:
            print("  expected: %r" % (x,))
        for x in list((got - want).elements())[:2]:
            print("  found:    %r" % (x,))
        return 1
    print("%d samples with their counts and labels" % sum(got.values()))
    return 0


def synth(out, file, vaddr, name):
    import otlp_gen
    vaddr = int(vaddr, 0)
    loads, _ = otlp_gen.elf_info(file)
    # the mapping of the executable segment holding VADDR, as the profiler makes it
    seg = next(l for l in loads if l[1] <= vaddr < l[1] + l[2])
    pgoff = seg[0] & ~(otlp_gen.PAGE - 1)
    start = otlp_gen.offset_to_va(loads, pgoff)
    m = op.ProfilesData()
    d = m.dictionary
    d.string_table.extend(["", "samples", "count", os.path.basename(file), "profile.frame.type",
                           "native", "go", "kernel", name, "kfunc", "vmlinux"])
    d.mapping_table.add()
    d.mapping_table.add(memory_start=start, memory_limit=seg[1] + seg[2], file_offset=pgoff,
                        filename_strindex=3)
    d.mapping_table.add(filename_strindex=10)
    d.function_table.add()
    d.function_table.add(name_strindex=8)
    d.function_table.add(name_strindex=9)
    d.attribute_table.add()
    for i, t in ((1, 5), (2, 6), (3, 7)):
        a = d.attribute_table.add(key_strindex=4)
        a.value.string_value_strindex = t
    d.location_table.add()
    d.location_table.add(mapping_index=1, address=vaddr + 8).attribute_indices.append(1)
    d.location_table.add(mapping_index=1, address=vaddr).attribute_indices.append(1)
    g = d.location_table.add(mapping_index=1, address=vaddr + 8)
    g.lines.add(function_index=1)
    g.attribute_indices.append(2)
    k = d.location_table.add(mapping_index=2, address=0x1234)
    k.lines.add(function_index=2)
    k.attribute_indices.append(3)
    d.link_table.add()
    d.stack_table.add()
    d.stack_table.add().location_indices.extend([4, 1, 2])
    d.stack_table.add().location_indices.append(3)
    p = m.resource_profiles.add().scope_profiles.add().profiles.add()
    p.sample_type.type_strindex, p.sample_type.unit_strindex = 1, 2
    p.samples.add(stack_index=1).values.append(1)
    p.samples.add(stack_index=2).values.append(1)
    with open(out, "wb") as f:
        f.write(m.SerializeToString())
    return 0


def proto_table(path):
    from google.protobuf import descriptor_pb2
    fds = descriptor_pb2.FileDescriptorSet()
    with open(path, "rb") as f:
        fds.ParseFromString(f.read())
    c_side = {}
    for fd in fds.file:
        for m in fd.message_type:
            c_side[m.name] = {f.name: (f.number, f.type, f.label == f.LABEL_REPEATED,
                                       f.type_name.split(".")[-1]) for f in m.field}
    bad, n = [], 0
    for _, _, messages in op.FILES:
        for name, fields in messages:
            got = c_side.get(name)
            if got is None:
                if name != "ExportProfilesServiceRequest":  # read as ProfilesData
                    bad.append("%s: not in the .proto" % name)
                continue
            want = {}
            for fname, num, label, typ in fields:
                t = op.T.get(typ, op.F.TYPE_MESSAGE)
                want[fname] = (num, t, label == op.REP,
                               typ.split(".")[-1] if t == op.F.TYPE_MESSAGE else "")
            for fname in sorted(set(want) | set(got)):
                n += 1
                if want.get(fname) != got.get(fname):
                    bad.append("%s.%s: python %r, .proto %r" % (name, fname, want.get(fname),
                                                                 got.get(fname)))
    for b in bad:
        print(b)
    print("%d fields compared" % n)
    return 1 if bad else 0


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "written" and len(sys.argv) == 4:
        sys.exit(written(sys.argv[2], sys.argv[3]))
    if cmd == "pprof-raw" and len(sys.argv) == 4:
        sys.exit(pprof_raw(sys.argv[2], sys.argv[3]))
    if cmd == "proto-table" and len(sys.argv) == 3:
        sys.exit(proto_table(sys.argv[2]))
    if cmd == "synth" and len(sys.argv) == 6:
        sys.exit(synth(*sys.argv[2:]))
    raise SystemExit(__doc__)
