"""otlp_proto.py -- the OpenTelemetry profiles messages for the tests, with python3-protobuf.

Built here, field by field, from the field table of spec/OTLP-PROFILES.md and the
upstream messages it cites (opentelemetry-proto profiles/v1development, common/v1,
resource/v1 and the collector's profiles service), not from symprof's .proto: the tests
encode and decode with their own reading of the format.  The package names are
upstream's, so the messages are upstream's on the wire and in JSON.

    import otlp_proto as op
    data = op.ProfilesData()
    op.to_json(data)        # OTLP/JSON: lowerCamelCase, ids in hex
"""
import base64
import json

from google.protobuf import descriptor_pb2, json_format, message_factory

F = descriptor_pb2.FieldDescriptorProto
OPT, REP = F.LABEL_OPTIONAL, F.LABEL_REPEATED
T = {
    "string": F.TYPE_STRING, "bytes": F.TYPE_BYTES, "bool": F.TYPE_BOOL,
    "int32": F.TYPE_INT32, "int64": F.TYPE_INT64, "uint32": F.TYPE_UINT32,
    "uint64": F.TYPE_UINT64, "fixed64": F.TYPE_FIXED64, "double": F.TYPE_DOUBLE,
}

# (file, package, messages): message = (name, [(field, number, label, type)]), a type
# not in T names a message (".pkg.Name").
COMMON = ".opentelemetry.proto.common.v1."
RESOURCE = ".opentelemetry.proto.resource.v1."
PROFILES = ".opentelemetry.proto.profiles.v1development."
FILES = [
    ("common.proto", "opentelemetry.proto.common.v1", [
        ("AnyValue", [("string_value", 1, OPT, "string"), ("bool_value", 2, OPT, "bool"),
                      ("int_value", 3, OPT, "int64"), ("double_value", 4, OPT, "double"),
                      ("array_value", 5, OPT, COMMON + "ArrayValue"),
                      ("kvlist_value", 6, OPT, COMMON + "KeyValueList"),
                      ("bytes_value", 7, OPT, "bytes"),
                      ("string_value_strindex", 8, OPT, "int32")]),
        ("ArrayValue", [("values", 1, REP, COMMON + "AnyValue")]),
        ("KeyValueList", [("values", 1, REP, COMMON + "KeyValue")]),
        ("KeyValue", [("key", 1, OPT, "string"), ("value", 2, OPT, COMMON + "AnyValue"),
                      ("key_strindex", 3, OPT, "int32")]),
        ("InstrumentationScope", [("name", 1, OPT, "string"), ("version", 2, OPT, "string"),
                                  ("attributes", 3, REP, COMMON + "KeyValue"),
                                  ("dropped_attributes_count", 4, OPT, "uint32")]),
        ("EntityRef", [("schema_url", 1, OPT, "string"), ("type", 2, OPT, "string"),
                       ("id_keys", 3, REP, "string"), ("description_keys", 4, REP, "string")]),
    ]),
    ("resource.proto", "opentelemetry.proto.resource.v1", [
        ("Resource", [("attributes", 1, REP, COMMON + "KeyValue"),
                      ("dropped_attributes_count", 2, OPT, "uint32"),
                      ("entity_refs", 3, REP, COMMON + "EntityRef")]),
    ]),
    ("profiles.proto", "opentelemetry.proto.profiles.v1development", [
        ("ProfilesDictionary", [("mapping_table", 1, REP, PROFILES + "Mapping"),
                                ("location_table", 2, REP, PROFILES + "Location"),
                                ("function_table", 3, REP, PROFILES + "Function"),
                                ("link_table", 4, REP, PROFILES + "Link"),
                                ("string_table", 5, REP, "string"),
                                ("attribute_table", 6, REP, PROFILES + "KeyValueAndUnit"),
                                ("stack_table", 7, REP, PROFILES + "Stack")]),
        ("ProfilesData", [("resource_profiles", 1, REP, PROFILES + "ResourceProfiles"),
                          ("dictionary", 2, OPT, PROFILES + "ProfilesDictionary")]),
        ("ResourceProfiles", [("resource", 1, OPT, RESOURCE + "Resource"),
                              ("scope_profiles", 2, REP, PROFILES + "ScopeProfiles"),
                              ("schema_url", 3, OPT, "string")]),
        ("ScopeProfiles", [("scope", 1, OPT, COMMON + "InstrumentationScope"),
                           ("profiles", 2, REP, PROFILES + "Profile"),
                           ("schema_url", 3, OPT, "string")]),
        ("Profile", [("sample_type", 1, OPT, PROFILES + "ValueType"),
                     ("samples", 2, REP, PROFILES + "Sample"),
                     ("time_unix_nano", 3, OPT, "fixed64"), ("duration_nano", 4, OPT, "uint64"),
                     ("period_type", 5, OPT, PROFILES + "ValueType"), ("period", 6, OPT, "int64"),
                     ("profile_id", 7, OPT, "bytes"),
                     ("dropped_attributes_count", 8, OPT, "uint32"),
                     ("original_payload_format", 9, OPT, "string"),
                     ("original_payload", 10, OPT, "bytes"),
                     ("attribute_indices", 11, REP, "int32")]),
        ("Link", [("trace_id", 1, OPT, "bytes"), ("span_id", 2, OPT, "bytes")]),
        ("ValueType", [("type_strindex", 1, OPT, "int32"), ("unit_strindex", 2, OPT, "int32")]),
        ("Sample", [("stack_index", 1, OPT, "int32"), ("attribute_indices", 2, REP, "int32"),
                    ("link_index", 3, OPT, "int32"), ("values", 4, REP, "int64"),
                    ("timestamps_unix_nano", 5, REP, "fixed64")]),
        ("Mapping", [("memory_start", 1, OPT, "uint64"), ("memory_limit", 2, OPT, "uint64"),
                     ("file_offset", 3, OPT, "uint64"), ("filename_strindex", 4, OPT, "int32"),
                     ("attribute_indices", 5, REP, "int32")]),
        ("Stack", [("location_indices", 1, REP, "int32")]),
        ("Location", [("mapping_index", 1, OPT, "int32"), ("address", 2, OPT, "uint64"),
                      ("lines", 3, REP, PROFILES + "Line"),
                      ("attribute_indices", 4, REP, "int32")]),
        ("Line", [("function_index", 1, OPT, "int32"), ("line", 2, OPT, "int64"),
                  ("column", 3, OPT, "int64")]),
        ("Function", [("name_strindex", 1, OPT, "int32"),
                      ("system_name_strindex", 2, OPT, "int32"),
                      ("filename_strindex", 3, OPT, "int32"), ("start_line", 4, OPT, "int64")]),
        ("KeyValueAndUnit", [("key_strindex", 1, OPT, "int32"),
                             ("value", 2, OPT, COMMON + "AnyValue"),
                             ("unit_strindex", 3, OPT, "int32")]),
    ]),
    ("profiles_service.proto", "opentelemetry.proto.collector.profiles.v1development", [
        ("ExportProfilesServiceRequest", [
            ("resource_profiles", 1, REP, PROFILES + "ResourceProfiles"),
            ("dictionary", 2, OPT, PROFILES + "ProfilesDictionary")]),
    ]),
]
DEPS = {"common.proto": [], "resource.proto": ["common.proto"],
        "profiles.proto": ["common.proto", "resource.proto"],
        "profiles_service.proto": ["profiles.proto"]}


def _build():
    protos = []
    for fname, pkg, messages in FILES:
        fd = descriptor_pb2.FileDescriptorProto(name=fname, package=pkg, syntax="proto3",
                                                dependency=DEPS[fname])
        for mname, fields in messages:
            m = fd.message_type.add(name=mname)
            oneof = mname == "AnyValue"
            if oneof:
                m.oneof_decl.add(name="value")
            for name, number, label, typ in fields:
                f = m.field.add(name=name, number=number, label=label)
                if typ in T:
                    f.type = T[typ]
                else:
                    f.type = F.TYPE_MESSAGE
                    f.type_name = typ
                if oneof:
                    f.oneof_index = 0
        protos.append(fd)
    return message_factory.GetMessages(protos)


_classes = _build()
AnyValue = _classes["opentelemetry.proto.common.v1.AnyValue"]
KeyValue = _classes["opentelemetry.proto.common.v1.KeyValue"]
ProfilesData = _classes["opentelemetry.proto.profiles.v1development.ProfilesData"]
ExportProfilesServiceRequest = _classes[
    "opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest"]

HEX_FIELDS = {"traceId", "spanId", "profileId"}


def _ids(obj, to_hex):
    """OTLP's JSON writes trace, span and profile ids in hex where protobuf's mapping
    writes base64: converts those members, recursively."""
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if k in HEX_FIELDS and isinstance(v, str):
                v = base64.b64decode(v).hex() if to_hex else \
                    base64.b64encode(bytes.fromhex(v)).decode()
            out[k] = _ids(v, to_hex)
        return out
    if isinstance(obj, list):
        return [_ids(v, to_hex) for v in obj]
    return obj


def to_json(msg):
    """MSG as one line of OTLP/JSON."""
    d = json_format.MessageToDict(msg, preserving_proto_field_name=False)
    return json.dumps(_ids(d, True), separators=(",", ":"))


def from_json(line, cls=ProfilesData):
    msg = cls()
    json_format.ParseDict(_ids(json.loads(line), False), msg)
    return msg


def read_any(data):
    """Every ProfilesData in DATA (bytes: one message, a stream of 4-byte big-endian
    length-prefixed ones, or JSON lines)."""
    if data.lstrip()[:1] == b"{":
        return [from_json(l) for l in data.decode().splitlines() if l.strip()]
    if data[:1] and data[0] < 8:
        out, at = [], 0
        while at < len(data):
            n = int.from_bytes(data[at:at + 4], "big")
            m = ProfilesData()
            m.ParseFromString(data[at + 4:at + 4 + n])
            out.append(m)
            at += 4 + n
        return out
    m = ProfilesData()
    m.ParseFromString(data)
    return [m]


def value(v, strings):
    """An AnyValue as a Python value (arrays as tuples, lists as sorted tuples of
    pairs, bytes as bytes)."""
    kind = v.WhichOneof("value")
    if kind is None:
        return None
    if kind == "string_value_strindex":
        return strings[v.string_value_strindex]
    if kind == "array_value":
        return tuple(value(e, strings) for e in v.array_value.values)
    if kind == "kvlist_value":
        return tuple(sorted((kv.key or strings[kv.key_strindex], value(kv.value, strings))
                            for kv in v.kvlist_value.values))
    return getattr(v, kind)
