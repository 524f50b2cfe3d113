/* otlp.c — reads and writes OpenTelemetry profiles (spec/OTLP-PROFILES.md).
 *
 * The input is a serialized ProfilesData (or the collector's
 * ExportProfilesServiceRequest, the same two fields under the same numbers),
 * possibly gzipped or zstd-compressed, one message or the collector file
 * exporter's stream of them (each after a 4-byte big-endian length):
 *
 *   0a 8c 01          resource_profiles {
 *     0a 1c             resource { attributes { key: "process.pid" ... } }
 *     12 6a             scope_profiles { profiles { samples ... } } }
 *   12 f3 05          dictionary { mapping_table { } mapping_table { ... }
 *
 * or the same as OTLP/JSON, one object per line (the protobuf JSON
 * mapping: lowerCamelCase names, 64-bit integers as strings, bytes as
 * base64 but trace, span and profile ids as hex):
 *
 *   {"resourceProfiles":[{"resource":{"attributes":[...]},"scopeProfiles":[...]}],
 *    "dictionary":{"mappingTable":[{}, {"memoryStart":"4096", ...}], ...}}
 *
 * The layout read is opentelemetry-proto's profiles/v1development at commit
 * ac2c4b5d1f3a (2026-08-18), checked against what opentelemetry-ebpf-profiler
 * b442421a32cc (2026-08-21) writes (reporter/internal/pdata/generate.go,
 * libpf/fileid.go, processmanager/manager.go).  The messages are Alpha and
 * their numbers will change once more: OTLP_LAYOUT names the layout in
 * messages about what this is not, and is the place of a second layout.
 *
 * Reading.  Protobuf input is walked field by field against the message
 * descriptors protoc-c made of proto/otlp.proto (wire_check): every wire
 * error names the byte offset, the field and what was expected, and nesting
 * is bounded, before protobuf-c unpacks the message (which says nothing
 * when it fails) through an allocator that counts against the memory
 * budget.  JSON is read into the same structs, against the same
 * descriptors (json_message, over json_pull.c's pull parser).  Then each
 * message is checked and added to the model (conv_*): every dictionary
 * index is bounded, element 0 of every table must be the zero value (index
 * 0 means "none"), and an error names the message's field path and its
 * byte offset (protobuf) or line and column (JSON).  Every message of a
 * file goes into one model (a stream's or a file's messages, resources,
 * scopes and profiles), one column per distinct sample type; the profiles
 * of one scope that are the columns of one pprof profile (the semantic
 * conventions' pprof mapping: equal samples, one sample type each) become
 * one set of multi-value samples.  What the model cannot hold goes to its
 * OpenTelemetry extras (profile.h).  Addresses are kept as they are: the
 * eBPF profiler's return addresses are already decremented, and pprof's
 * are the producer's to adjust.
 *
 * Writing builds the message from the model and its extras (or, for a
 * profile from another format, from the labels: pprof -> OTLP), and packs
 * it through protobuf-c or writes it as OTLP/JSON.
 *
 * This is the only file that includes proto/otlp.pb-c.h.
 */
#include "formats/formats.h"
#include "formats/json_pull.h"
#include "formats/proto/otlp.pb-c.h"

#include <inttypes.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OTLP_LAYOUT "profiles v1development (opentelemetry-proto ac2c4b5d1f3a)"

/* Largest decompressed input accepted (and never more than the budget). */
#define OTLP_MAX_INFLATED ((size_t)2 << 30)
/* Messages nest at most this deep (AnyValue arrays and lists recurse). */
#define OTLP_MAX_DEPTH 64

typedef Otlp__ProfilesData pb_data;
typedef Otlp__ProfilesDictionary pb_dict;
typedef Otlp__AnyValue pb_any;
typedef Otlp__KeyValue pb_kv;

/* ------------------------------------------------------------------------ */
/* Allocation: protobuf-c allocates through the budget.                     */

static void *pb_alloc(void *data, size_t n)
{
	(void)data;
	return sp_xmalloc(n);
}

static void pb_free(void *data, void *ptr)
{
	(void)data;
	free(ptr);
}

static ProtobufCAllocator pb_allocator = {pb_alloc, pb_free, NULL};

/* ------------------------------------------------------------------------ */
/* Wire check                                                               */

typedef struct {
	const char *name;    /* the input */
	const uint8_t *base; /* offsets in messages are relative to it */
} wire;

static sp_error *wire_err(const wire *w, const uint8_t *at, const char *fmt, ...) SP_PRINTF(3, 4);
static sp_error *wire_err(const wire *w, const uint8_t *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = NULL;
	if (vasprintf(&msg, fmt, ap) < 0)
		sp_oom();
	va_end(ap);
	sp_error *e = sp_error_new(SP_E_MALFORMED, "%s: offset %zu: %s", w->name,
				   (size_t)(at - w->base), msg);
	free(msg);
	return e;
}

/* A base-128 varint of at most 10 bytes: 0, or how it failed. */
static const char *varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;
	for (int i = 0; i < 10; i++) {
		if (*p >= end)
			return "truncated varint";
		uint8_t b = *(*p)++;
		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*v = x;
			return NULL;
		}
	}
	return "bad varint (longer than 10 bytes)";
}

static int wire_type_of(ProtobufCType t)
{
	switch (t) {
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_DOUBLE:
		return 1;
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_FIXED32:
	case PROTOBUF_C_TYPE_FLOAT:
		return 5;
	case PROTOBUF_C_TYPE_STRING:
	case PROTOBUF_C_TYPE_BYTES:
	case PROTOBUF_C_TYPE_MESSAGE:
		return 2;
	default:
		return 0;
	}
}

/* One field read by next_field. */
typedef struct {
	const uint8_t *at;   /* its tag */
	uint32_t num;
	int wt;
	uint64_t v;          /* wire types 0, 1, 5 */
	const uint8_t *data; /* wire type 2 */
	size_t len;
} wfield;

/* The next field of the message [*P, END) of type D (for messages), or
 * false at its end or on error (*ERR). */
static bool next_field(const wire *w, const uint8_t **p, const uint8_t *end,
		       const ProtobufCMessageDescriptor *d, wfield *f, sp_error **err)
{
	*err = NULL;
	if (*p >= end)
		return false;
	memset(f, 0, sizeof(*f));
	f->at = *p;
	uint64_t tag;
	const char *why = varint(p, end, &tag);
	if (why) {
		*err = wire_err(w, f->at, "%s in a field tag of %s", why, d->short_name);
		return false;
	}
	if ((tag >> 3) == 0 || (tag >> 3) > 0x1fffffff) {
		*err = wire_err(w, f->at, "invalid field number %" PRIu64 " in %s", tag >> 3,
				d->short_name);
		return false;
	}
	f->num = (uint32_t)(tag >> 3);
	f->wt = (int)(tag & 7);
	const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field(d, f->num);
	const char *fname = fd ? fd->name : "(unknown)";
	size_t left;
	switch (f->wt) {
	case 0:
		if ((why = varint(p, end, &f->v))) {
			*err = wire_err(w, f->at, "field %u (%s.%s): %s", f->num, d->short_name,
					fname, why);
			return false;
		}
		return true;
	case 1:
	case 5: {
		size_t need = f->wt == 1 ? 8 : 4;
		left = (size_t)(end - *p);
		if (left < need) {
			*err = wire_err(w, f->at,
					"field %u (%s.%s): fixed%zu value needs %zu bytes, %zu left",
					f->num, d->short_name, fname, need * 8, need, left);
			return false;
		}
		for (size_t i = 0; i < need; i++)
			f->v |= (uint64_t)(*p)[i] << (8 * i);
		*p += need;
		return true;
	}
	case 2: {
		uint64_t len;
		if ((why = varint(p, end, &len))) {
			*err = wire_err(w, f->at, "field %u (%s.%s): %s in the length prefix",
					f->num, d->short_name, fname, why);
			return false;
		}
		left = (size_t)(end - *p);
		if (len > left) {
			*err = wire_err(w, f->at,
					"field %u (%s.%s): length %" PRIu64
					" exceeds the %zu bytes left",
					f->num, d->short_name, fname, len, left);
			return false;
		}
		f->data = *p;
		f->len = (size_t)len;
		*p += len;
		return true;
	}
	default:
		*err = wire_err(w, f->at, "field %u (%s.%s): wire type %d is not supported",
				f->num, d->short_name, fname, f->wt);
		return false;
	}
}

/* Checks the message [P, P + LEN) against D, and every message in it,
 * nested at most OTLP_MAX_DEPTH deep: what protobuf-c will unpack without
 * complaint.  Unknown fields are allowed (they are skipped). */
static sp_error *wire_check_to(const wire *w, const uint8_t *p, size_t len,
			       const ProtobufCMessageDescriptor *d, int depth, int max_depth);

static sp_error *wire_check(const wire *w, const uint8_t *p, size_t len,
			    const ProtobufCMessageDescriptor *d, int depth)
{
	return wire_check_to(w, p, len, d, depth, OTLP_MAX_DEPTH);
}

/* wire_check, looking no deeper than MAX_DEPTH when it is below
 * OTLP_MAX_DEPTH (what is deeper is not examined). */
static sp_error *wire_check_to(const wire *w, const uint8_t *p, size_t len,
			       const ProtobufCMessageDescriptor *d, int depth, int max_depth)
{
	const uint8_t *end = p + len;
	wfield f;
	sp_error *err = NULL;
	if (depth > max_depth) {
		if (max_depth < OTLP_MAX_DEPTH)
			return NULL;
		return wire_err(w, p, "%s nested more than %d messages deep", d->short_name,
				OTLP_MAX_DEPTH);
	}
	while (next_field(w, &p, end, d, &f, &err)) {
		const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field(d, f.num);
		if (!fd)
			continue;
		int want = wire_type_of(fd->type);
		bool packed = fd->label == PROTOBUF_C_LABEL_REPEATED && want != 2 && f.wt == 2;
		if (f.wt != want && !packed)
			return wire_err(w, f.at,
					"field %u (%s.%s): wire type %d, expected %d%s", f.num,
					d->short_name, fd->name, f.wt, want,
					fd->label == PROTOBUF_C_LABEL_REPEATED && want != 2
						? " or 2 (packed)"
						: "");
		if (packed) {
			const uint8_t *q = f.data, *qend = f.data + f.len;
			if (want != 0 && f.len % (want == 1 ? 8 : 4))
				return wire_err(w, f.at,
						"field %u (%s.%s): packed fixed%d values in %zu "
						"bytes",
						f.num, d->short_name, fd->name, want == 1 ? 64 : 32,
						f.len);
			while (want == 0 && q < qend) {
				uint64_t v;
				const uint8_t *at = q;
				const char *why = varint(&q, qend, &v);
				if (why)
					return wire_err(w, at, "field %u (%s.%s): packed element: %s",
							f.num, d->short_name, fd->name, why);
			}
		} else if (fd->type == PROTOBUF_C_TYPE_MESSAGE) {
			if ((err = wire_check_to(w, f.data, f.len, fd->descriptor, depth + 1,
						 max_depth)))
				return err;
		} else if (fd->type == PROTOBUF_C_TYPE_STRING && memchr(f.data, 0, f.len)) {
			return wire_err(w, f.at, "field %u (%s.%s): a string with a NUL byte",
					f.num, d->short_name, fd->name);
		}
	}
	return err;
}

/* Whether the message [P, P + LEN) looks like a ProfilesData: its first
 * field is resource_profiles or dictionary, whole, and checks out to three
 * levels of nesting.  (A pprof Profile's first field, sample_type, has
 * varints where a ResourceProfiles has messages.) */
static bool looks_like_data(const uint8_t *p, size_t len)
{
	wire w = {"", p};
	wfield f;
	sp_error *err = NULL;
	const uint8_t *q = p;
	if (!next_field(&w, &q, p + len, &otlp__profiles_data__descriptor, &f, &err)) {
		sp_error_free(err);
		return false;
	}
	if ((f.num != 1 && f.num != 2) || f.wt != 2)
		return false;
	const ProtobufCMessageDescriptor *d = f.num == 1 ? &otlp__resource_profiles__descriptor
							 : &otlp__profiles_dictionary__descriptor;
	err = wire_check_to(&w, f.data, f.len, d, 1, 3);
	sp_error_free(err);
	return !err && (f.len > 0 || len == (size_t)(q - p));
}

/* ------------------------------------------------------------------------ */
/* Where a message's fields are: error paths                                */

/* A field of a message and, for a repeated one, which element. */
typedef struct {
	uint32_t field;
	size_t index; /* SIZE_MAX: not repeated */
} step;

#define MAX_STEPS 8
typedef struct {
	step s[MAX_STEPS];
	size_t n;
} fpath;

static fpath path_add(fpath p, uint32_t field, size_t index)
{
	if (p.n < MAX_STEPS)
		p.s[p.n++] = (step){field, index};
	return p;
}

/* snake_case NAME as lowerCamelCase into B. */
static void camel(const char *name, sp_buf *b)
{
	bool up = false;
	for (const char *c = name; *c; c++) {
		if (*c == '_') {
			up = true;
			continue;
		}
		char ch = up && *c >= 'a' && *c <= 'z' ? (char)(*c - 'a' + 'A') : *c;
		sp_buf_append(b, &ch, 1);
		up = false;
	}
}

/* "resource_profiles[0].scope_profiles[1].profiles[0].samples[7].stack_index",
 * camelCased for JSON. */
static char *path_text(const fpath *p, bool json)
{
	sp_buf b = {0};
	const ProtobufCMessageDescriptor *d = &otlp__profiles_data__descriptor;
	for (size_t i = 0; i < p->n; i++) {
		const ProtobufCFieldDescriptor *fd =
			d ? protobuf_c_message_descriptor_get_field(d, p->s[i].field) : NULL;
		if (i)
			sp_buf_puts(&b, ".");
		if (!fd)
			sp_buf_printf(&b, "%u", p->s[i].field);
		else if (json)
			camel(fd->name, &b);
		else
			sp_buf_puts(&b, fd->name);
		if (p->s[i].index != SIZE_MAX)
			sp_buf_printf(&b, "[%zu]", p->s[i].index);
		d = fd && fd->type == PROTOBUF_C_TYPE_MESSAGE ? fd->descriptor : NULL;
	}
	sp_buf_str(&b);
	return sp_buf_take(&b);
}

/* The offset of the field P names in the protobuf message [MSG, MSG + LEN):
 * its tag (for a packed field, the packed field's), or of the deepest step
 * found. */
static size_t locate_pb(const uint8_t *msg, size_t len, const fpath *p)
{
	wire w = {"", msg};
	const uint8_t *q = msg, *end = msg + len;
	const ProtobufCMessageDescriptor *d = &otlp__profiles_data__descriptor;
	size_t at = 0;
	for (size_t i = 0; i < p->n && d; i++) {
		size_t seen = 0;
		wfield f;
		sp_error *err = NULL;
		bool hit = false;
		while (next_field(&w, &q, end, d, &f, &err)) {
			if (f.num != p->s[i].field)
				continue;
			if (p->s[i].index != SIZE_MAX && f.wt == 2 && seen++ < p->s[i].index)
				continue;
			hit = true;
			break;
		}
		sp_error_free(err);
		if (!hit)
			break;
		at = (size_t)(f.at - msg);
		const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field(d, f.num);
		if (!fd || fd->type != PROTOBUF_C_TYPE_MESSAGE || f.wt != 2)
			break;
		d = fd->descriptor;
		q = f.data;
		end = f.data + f.len;
	}
	return at;
}

/* The same for JSON: the byte offset (in J's input) of the value P names in
 * the object starting at START, or of the deepest step found. */
static size_t locate_json(const sp_json *whole, size_t start, const fpath *p)
{
	sp_json j;
	sp_json_init(&j, whole->name, whole->base, (size_t)(whole->end - whole->base), 0);
	j.p = j.base + start;
	size_t at = start;
	sp_buf key = {0}, want = {0};
	const ProtobufCMessageDescriptor *d = &otlp__profiles_data__descriptor;
	sp_error *err = NULL;
	for (size_t i = 0; i < p->n && d; i++) {
		const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field(d, p->s[i].field);
		if (!fd || sp_json_object(&j))
			break;
		sp_buf_reset(&want);
		camel(fd->name, &want);
		sp_buf_str(&want);
		bool hit = false;
		while (sp_json_member(&j, &key, &err)) {
			if (!strcmp(key.data, want.data) || !strcmp(key.data, fd->name)) {
				hit = true;
				break;
			}
			if (sp_json_skip(&j))
				break;
		}
		if (!hit)
			break;
		at = sp_json_offset(&j);
		if (p->s[i].index != SIZE_MAX) {
			if (sp_json_array(&j))
				break;
			size_t k = 0;
			bool found = false;
			while (sp_json_element(&j, &err)) {
				if (k++ == p->s[i].index) {
					found = true;
					break;
				}
				if (sp_json_skip(&j))
					break;
			}
			if (!found)
				break;
			at = sp_json_offset(&j);
		}
		d = fd->type == PROTOBUF_C_TYPE_MESSAGE ? fd->descriptor : NULL;
	}
	sp_error_free(err);
	sp_buf_free(&key);
	sp_buf_free(&want);
	return at;
}

/* ------------------------------------------------------------------------ */
/* JSON into protobuf-c structs                                             */

typedef struct {
	sp_json j;
	sp_buf key, str;
	int depth; /* of messages, bounded as protobuf's are */
} jread;

/* JSON nests a message's fields one level (an object) and a repeated
 * field's elements one more (an array): a message nested OTLP_MAX_DEPTH
 * deep is at most this deep in JSON. */
#define OTLP_JSON_DEPTH (2 * OTLP_MAX_DEPTH + 2)

#define MEMBER(m, off, type) (*(type *)((char *)(m) + (off)))

static ProtobufCMessage *new_message(const ProtobufCMessageDescriptor *d)
{
	ProtobufCMessage *m = sp_xmalloc(d->sizeof_message);
	d->message_init(m);
	return m;
}

/* The field of D that a JSON member named KEY sets: its lowerCamelCase
 * name or its proto name. */
static const ProtobufCFieldDescriptor *json_field(const ProtobufCMessageDescriptor *d,
						  const char *key)
{
	sp_buf b = {0};
	const ProtobufCFieldDescriptor *found = NULL;
	for (unsigned i = 0; i < d->n_fields && !found; i++) {
		sp_buf_reset(&b);
		camel(d->fields[i].name, &b);
		sp_buf_str(&b);
		if (!strcmp(b.data, key) || !strcmp(d->fields[i].name, key))
			found = &d->fields[i];
	}
	sp_buf_free(&b);
	return found;
}

/* OTLP's JSON encoding writes these byte fields as hex, not base64. */
static bool hex_field(const ProtobufCFieldDescriptor *fd)
{
	return !strcmp(fd->name, "trace_id") || !strcmp(fd->name, "span_id") ||
	       !strcmp(fd->name, "profile_id");
}

static int b64_digit(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

/* Decodes S (base64, standard or URL alphabet, padding optional, or hex
 * when HEX) into OUT (allocated; NULL for none).  False when malformed. */
static bool decode_bytes(const sp_buf *s, bool hex, ProtobufCBinaryData *out)
{
	size_t n = s->len;
	out->len = 0;
	out->data = NULL;
	if (!n)
		return true;
	if (hex) {
		if (n % 2)
			return false;
		out->data = sp_xmalloc(n / 2);
		for (size_t i = 0; i < n; i += 2) {
			int hi, lo;
			char c0 = s->data[i], c1 = s->data[i + 1];
			hi = c0 >= '0' && c0 <= '9' ? c0 - '0' : c0 >= 'a' && c0 <= 'f' ? c0 - 'a' + 10 :
			     c0 >= 'A' && c0 <= 'F' ? c0 - 'A' + 10 : -1;
			lo = c1 >= '0' && c1 <= '9' ? c1 - '0' : c1 >= 'a' && c1 <= 'f' ? c1 - 'a' + 10 :
			     c1 >= 'A' && c1 <= 'F' ? c1 - 'A' + 10 : -1;
			if (hi < 0 || lo < 0) {
				free(out->data);
				out->data = NULL;
				return false;
			}
			out->data[out->len++] = (uint8_t)(hi << 4 | lo);
		}
		return true;
	}
	while (n && s->data[n - 1] == '=')
		n--;
	if (n % 4 == 1)
		return false;
	out->data = sp_xmalloc(n / 4 * 3 + 3);
	uint32_t acc = 0;
	int bits = 0;
	for (size_t i = 0; i < n; i++) {
		int d = b64_digit(s->data[i]);
		if (d < 0) {
			free(out->data);
			out->data = NULL;
			out->len = 0;
			return false;
		}
		acc = acc << 6 | (uint32_t)d;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out->data[out->len++] = (uint8_t)(acc >> bits);
		}
	}
	return true;
}

static sp_error *json_message(jread *r, const ProtobufCMessageDescriptor *d, ProtobufCMessage **out);

/* An integer member: a JSON number without fraction, or a string of one. */
static sp_error *json_integer(jread *r, bool is_signed, int bits, uint64_t *out)
{
	const char *t;
	size_t n;
	sp_error *err = NULL;
	size_t at = sp_json_offset(&r->j);
	if (sp_json_peek(&r->j) == SP_JSON_STRING) {
		if ((err = sp_json_get_string(&r->j, &r->str)))
			return err;
		t = r->str.data;
		n = r->str.len;
	} else if ((err = sp_json_number(&r->j, &t, &n))) {
		return err;
	}
	bool ok;
	if (is_signed) {
		int64_t v;
		ok = sp_parse_i64(t, t + n, &v);
		if (ok && bits == 32 && (v < INT32_MIN || v > INT32_MAX))
			ok = false;
		*out = (uint64_t)v;
	} else {
		ok = n > 0 && t[0] != '-' && sp_parse_u64(t, t + n, 10, out);
		if (ok && bits == 32 && *out > UINT32_MAX)
			ok = false;
	}
	if (!ok)
		return sp_json_error_at(&r->j, at, "expected a%s %d-bit integer, found '%.*s'",
					is_signed ? "" : "n unsigned", bits, (int)(n > 40 ? 40 : n),
					t);
	return NULL;
}

static sp_error *json_double(jread *r, double *out)
{
	const char *t;
	size_t n;
	sp_error *err = NULL;
	size_t at = sp_json_offset(&r->j);
	if (sp_json_peek(&r->j) == SP_JSON_STRING) {
		if ((err = sp_json_get_string(&r->j, &r->str)))
			return err;
		if (!strcmp(r->str.data, "NaN"))
			*out = NAN;
		else if (!strcmp(r->str.data, "Infinity"))
			*out = INFINITY;
		else if (!strcmp(r->str.data, "-Infinity"))
			*out = -INFINITY;
		else
			return sp_json_error_at(&r->j, at, "expected a number, found \"%.40s\"",
						r->str.data);
		return NULL;
	}
	if ((err = sp_json_number(&r->j, &t, &n)))
		return err;
	char buf[64];
	if (n >= sizeof(buf))
		return sp_json_error_at(&r->j, at, "a number of %zu characters", n);
	memcpy(buf, t, n);
	buf[n] = 0;
	*out = strtod(buf, NULL);
	return NULL;
}

/* One value of field FD into *SLOT (an element of a repeated field, or the
 * member itself). */
static sp_error *json_value(jread *r, const ProtobufCFieldDescriptor *fd, void *slot)
{
	sp_error *err = NULL;
	uint64_t u;
	size_t at = sp_json_offset(&r->j);
	switch (fd->type) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32:
		if (!(err = json_integer(r, true, 32, &u)))
			*(int32_t *)slot = (int32_t)(int64_t)u;
		return err;
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_FIXED32:
		if (!(err = json_integer(r, false, 32, &u)))
			*(uint32_t *)slot = (uint32_t)u;
		return err;
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
		if (!(err = json_integer(r, true, 64, &u)))
			*(int64_t *)slot = (int64_t)u;
		return err;
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
		return json_integer(r, false, 64, slot);
	case PROTOBUF_C_TYPE_DOUBLE:
		return json_double(r, slot);
	case PROTOBUF_C_TYPE_FLOAT: {
		double d;
		if (!(err = json_double(r, &d)))
			*(float *)slot = (float)d;
		return err;
	}
	case PROTOBUF_C_TYPE_BOOL: {
		bool b;
		if (!(err = sp_json_bool(&r->j, &b)))
			*(protobuf_c_boolean *)slot = b;
		return err;
	}
	case PROTOBUF_C_TYPE_ENUM: {
		const ProtobufCEnumDescriptor *ed = fd->descriptor;
		if (sp_json_peek(&r->j) == SP_JSON_STRING) {
			if ((err = sp_json_get_string(&r->j, &r->str)))
				return err;
			const ProtobufCEnumValue *ev =
				protobuf_c_enum_descriptor_get_value_by_name(ed, r->str.data);
			if (!ev)
				return sp_json_error_at(&r->j, at, "%s has no value named \"%.40s\"",
							ed->short_name, r->str.data);
			*(int *)slot = ev->value;
			return NULL;
		}
		if (!(err = json_integer(r, true, 32, &u)))
			*(int *)slot = (int)(int64_t)u;
		return err;
	}
	case PROTOBUF_C_TYPE_STRING: {
		if ((err = sp_json_get_string(&r->j, &r->str)))
			return err;
		if (memchr(r->str.data, 0, r->str.len))
			return sp_json_error_at(&r->j, at, "a string with a NUL character");
		char *s = sp_xstrndup(r->str.data, r->str.len);
		char **dst = slot;
		if (*dst && *dst != (const char *)fd->default_value)
			free(*dst);
		*dst = s;
		return NULL;
	}
	case PROTOBUF_C_TYPE_BYTES: {
		if ((err = sp_json_get_string(&r->j, &r->str)))
			return err;
		ProtobufCBinaryData b;
		bool hex = hex_field(fd);
		if (!decode_bytes(&r->str, hex, &b))
			return sp_json_error_at(&r->j, at, "expected %s, found \"%.40s\"",
						hex ? "hex digits" : "base64", r->str.data);
		ProtobufCBinaryData *dst = slot;
		free(dst->data);
		*dst = b;
		return NULL;
	}
	case PROTOBUF_C_TYPE_MESSAGE: {
		/* kept also when it failed half-way: freed with its parent */
		ProtobufCMessage *m = NULL;
		err = json_message(r, fd->descriptor, &m);
		ProtobufCMessage **dst = slot;
		if (*dst && (m || !err))
			protobuf_c_message_free_unpacked(*dst, &pb_allocator);
		if (m || !err)
			*dst = m;
		return err;
	}
	}
	return sp_json_error_at(&r->j, at, "field %s: unsupported type", fd->name);
}

static size_t elem_size(ProtobufCType t)
{
	switch (t) {
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_DOUBLE:
		return 8;
	case PROTOBUF_C_TYPE_STRING:
	case PROTOBUF_C_TYPE_MESSAGE:
		return sizeof(void *);
	case PROTOBUF_C_TYPE_BYTES:
		return sizeof(ProtobufCBinaryData);
	case PROTOBUF_C_TYPE_BOOL:
		return sizeof(protobuf_c_boolean);
	case PROTOBUF_C_TYPE_ENUM:
		return sizeof(int);
	default:
		return 4;
	}
}

/* A repeated field: an array of values (null: none). */
static sp_error *json_repeated(jread *r, ProtobufCMessage *m, const ProtobufCFieldDescriptor *fd)
{
	size_t *n = &MEMBER(m, fd->quantifier_offset, size_t);
	void **arr = &MEMBER(m, fd->offset, void *);
	size_t esz = elem_size(fd->type), cap = *n;
	sp_error *err = NULL;
	if (sp_json_peek(&r->j) == SP_JSON_NULL)
		return sp_json_null(&r->j);
	if ((err = sp_json_array(&r->j)))
		return err;
	while (sp_json_element(&r->j, &err)) {
		sp_grow(arr, &cap, *n + 1, esz);
		char *slot = (char *)*arr + *n * esz;
		memset(slot, 0, esz);
		if (fd->type == PROTOBUF_C_TYPE_STRING)
			*(const char **)slot = NULL;
		/* counted before it is read, so a failure frees what it holds */
		(*n)++;
		err = json_value(r, fd, slot);
		if (fd->type == PROTOBUF_C_TYPE_MESSAGE && !*(void **)slot)
			*(void **)slot = new_message(fd->descriptor);
		if (err)
			return err;
	}
	return err;
}

/* A message: an object whose members are D's fields (unknown members are
 * skipped, null means the default), into a new message *OUT (freed by the
 * caller with protobuf_c_message_free_unpacked, also after an error). */
static sp_error *json_message_in(jread *r, const ProtobufCMessageDescriptor *d,
				 ProtobufCMessage **out);

static sp_error *json_message(jread *r, const ProtobufCMessageDescriptor *d, ProtobufCMessage **out)
{
	int depth = r->depth;
	sp_error *err = json_message_in(r, d, out);
	r->depth = depth;
	return err;
}

static sp_error *json_message_in(jread *r, const ProtobufCMessageDescriptor *d,
				 ProtobufCMessage **out)
{
	sp_error *err = NULL;
	*out = NULL;
	if (r->depth >= OTLP_MAX_DEPTH)
		return sp_json_error_at(&r->j, sp_json_offset(&r->j),
					"%s nested more than %d messages deep", d->short_name,
					OTLP_MAX_DEPTH);
	if ((err = sp_json_object(&r->j)))
		return err;
	ProtobufCMessage *m = new_message(d);
	*out = m;
	r->depth++;
	while (sp_json_member(&r->j, &r->key, &err)) {
		const ProtobufCFieldDescriptor *fd = json_field(d, r->key.data);
		if (!fd) {
			if ((err = sp_json_skip(&r->j)))
				return err;
			continue;
		}
		if (fd->label == PROTOBUF_C_LABEL_REPEATED) {
			if ((err = json_repeated(r, m, fd)))
				return err;
			continue;
		}
		if (sp_json_peek(&r->j) == SP_JSON_NULL) {
			if ((err = sp_json_null(&r->j)))
				return err;
			continue;
		}
		if (fd->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
			/* the member of a oneof that was set before goes */
			uint32_t *oneof_case = &MEMBER(m, fd->quantifier_offset, uint32_t);
			if (*oneof_case && *oneof_case != fd->id) {
				const ProtobufCFieldDescriptor *old =
					protobuf_c_message_descriptor_get_field(d, *oneof_case);
				if (old && old->type == PROTOBUF_C_TYPE_STRING)
					free(MEMBER(m, old->offset, char *));
				else if (old && old->type == PROTOBUF_C_TYPE_BYTES)
					free(MEMBER(m, old->offset, ProtobufCBinaryData).data);
				else if (old && old->type == PROTOBUF_C_TYPE_MESSAGE &&
					 MEMBER(m, old->offset, ProtobufCMessage *))
					protobuf_c_message_free_unpacked(
						MEMBER(m, old->offset, ProtobufCMessage *), &pb_allocator);
				memset((char *)m + old->offset, 0, elem_size(old->type));
				*oneof_case = 0;
			}
			if (*oneof_case != fd->id) {
				memset((char *)m + fd->offset, 0, elem_size(fd->type));
				*oneof_case = fd->id;
			}
		}
		if ((err = json_value(r, fd, (char *)m + fd->offset)))
			return err;
	}
	return err;
}

/* ------------------------------------------------------------------------ */
/* Adding a message to the model                                            */

/* Keys the model reads among the attributes (semantic conventions). */
#define KEY_BUILD_ID_GNU "process.executable.build_id.gnu"
#define KEY_BUILD_ID_GO "process.executable.build_id.go"
#define KEY_HAS_FUNCTIONS "pprof.mapping.has_functions"
#define KEY_HAS_FILENAMES "pprof.mapping.has_filenames"
#define KEY_HAS_LINE_NUMBERS "pprof.mapping.has_line_numbers"
#define KEY_HAS_INLINE_FRAMES "pprof.mapping.has_inline_frames"
#define KEY_IS_FOLDED "pprof.location.is_folded"
#define KEY_COMMENT "pprof.profile.comment"
#define KEY_DROP_FRAMES "pprof.profile.drop_frames"
#define KEY_KEEP_FRAMES "pprof.profile.keep_frames"
#define KEY_DOC_URL "pprof.profile.doc_url"
#define KEY_DEFAULT_SAMPLE_TYPE "pprof.scope.default_sample_type"
#define KEY_SAMPLE_TYPE_ORDER "pprof.scope.sample_type_order"

/* What a scope's profiles become: one group of columns, or one group each. */
typedef struct {
	bool zip;
	uint32_t *cols; /* per profile: its column */
} scope_plan;

typedef struct {
	const char *name;
	sp_profile *p;
	sp_otel *o;
	uint32_t origin;      /* the next OTLP sample's */
	bool have_profile;    /* the model's profile fields are set */
	bool have_default;    /* default_sample_type is set */
	bool widened;

	/* the message being added */
	const pb_data *d;
	size_t msg_no;
	const sp_json *json;  /* JSON: the reader (its input); NULL for protobuf */
	const uint8_t *msg;   /* protobuf: the message's bytes */
	size_t msg_len, msg_off;
	const pb_dict *dict;  /* never NULL (an empty one when the message has none) */
	int64_t *mstr;        /* dictionary string -> model string, -1 until needed */
	uint32_t *ostr;       /* dictionary string -> extras string, UINT32_MAX until needed */
	uint64_t map_base, fn_base, loc_base;
	uint64_t zero_fn, zero_loc; /* model ids for index 0, made when needed */
	uint32_t link_base;
	uint32_t *attr;       /* dictionary attribute -> extras attribute */
	sp_otel_run *attr_lab; /* ... -> its labels in lab */
	sp_label *lab;
	size_t n_lab, cap_lab;

	/* scratch */
	sp_label *labels;
	size_t cap_labels;
	uint64_t *locs;
	size_t cap_locs;
	int64_t *values;
	size_t cap_values;
	uint32_t *items;
	size_t cap_items;
	sp_buf text;
} conv;

static const pb_dict empty_dict = OTLP__PROFILES_DICTIONARY__INIT;

static sp_error *conv_err(conv *c, const fpath *path, const char *fmt, ...) SP_PRINTF(3, 4);
static sp_error *conv_err(conv *c, const fpath *path, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = NULL;
	if (vasprintf(&msg, fmt, ap) < 0)
		sp_oom();
	va_end(ap);
	char *where = path_text(path, c->json != NULL);
	sp_error *e;
	if (c->json) {
		size_t at = locate_json(c->json, c->msg_off, path);
		e = sp_json_error_at(c->json, at, "%s: %s", where, msg);
	} else {
		size_t at = c->msg_off + locate_pb(c->msg, c->msg_len, path);
		e = sp_error_new(SP_E_MALFORMED, "%s: offset %zu: %s: %s", c->name, at, where, msg);
	}
	free(where);
	free(msg);
	return e;
}

#define P0 ((fpath){.n = 0})
#define DICT(f, i) path_add(path_add(P0, 2, SIZE_MAX), (f), (i))

/* Checks dictionary index I of a table of N (field F of the message at
 * PATH): 0 is "none" (also when the table is empty). */
static sp_error *check_index(conv *c, const fpath *path, int64_t i, size_t n, const char *table)
{
	if (i >= 0 && ((size_t)i < n || i == 0))
		return NULL;
	return conv_err(c, path, "index %" PRId64 " is outside %s (%zu entries)", i, table, n);
}

static int64_t model_string(conv *c, int32_t i)
{
	if (i <= 0 || (size_t)i >= c->dict->n_string_table)
		return 0;
	if (c->mstr[i] < 0)
		c->mstr[i] = sp_profile_intern(c->p, c->dict->string_table[i]);
	return c->mstr[i];
}

static uint32_t extras_string(conv *c, int32_t i)
{
	if (i <= 0 || (size_t)i >= c->dict->n_string_table)
		return 0;
	if (c->ostr[i] == UINT32_MAX)
		c->ostr[i] = sp_otel_string(c->o, c->dict->string_table[i],
					    strlen(c->dict->string_table[i]));
	return c->ostr[i];
}

static sp_error *string_index(conv *c, const fpath *path, int32_t i)
{
	return check_index(c, path, i, c->dict->n_string_table, "the string table");
}

/* An AnyValue into the extras (NULL: empty). */
static sp_error *add_value(conv *c, const fpath *path, const pb_any *v, uint32_t key, int depth,
			   uint32_t *out)
{
	sp_otel_value x = {.key = key};
	sp_error *err = NULL;
	if (depth > OTLP_MAX_DEPTH)
		return conv_err(c, path, "values nested more than %d deep", OTLP_MAX_DEPTH);
	switch (v ? v->value_case : OTLP__ANY_VALUE__VALUE__NOT_SET) {
	case OTLP__ANY_VALUE__VALUE_STRING_VALUE:
		x.kind = SP_OTEL_STRING;
		x.v.str = sp_otel_string(c->o, v->string_value, strlen(v->string_value));
		break;
	case OTLP__ANY_VALUE__VALUE_STRING_VALUE_STRINDEX:
		if ((err = string_index(c, path, v->string_value_strindex)))
			return err;
		x.kind = SP_OTEL_STRING;
		x.v.str = extras_string(c, v->string_value_strindex);
		break;
	case OTLP__ANY_VALUE__VALUE_BOOL_VALUE:
		x.kind = SP_OTEL_BOOL;
		x.v.b = v->bool_value;
		break;
	case OTLP__ANY_VALUE__VALUE_INT_VALUE:
		x.kind = SP_OTEL_INT;
		x.v.i = v->int_value;
		break;
	case OTLP__ANY_VALUE__VALUE_DOUBLE_VALUE:
		x.kind = SP_OTEL_DOUBLE;
		x.v.d = v->double_value;
		break;
	case OTLP__ANY_VALUE__VALUE_BYTES_VALUE:
		x.kind = SP_OTEL_BYTES;
		x.v.str = sp_otel_string(c->o, (const char *)v->bytes_value.data,
					 v->bytes_value.len);
		break;
	case OTLP__ANY_VALUE__VALUE_ARRAY_VALUE:
	case OTLP__ANY_VALUE__VALUE_KVLIST_VALUE: {
		bool kv = v->value_case == OTLP__ANY_VALUE__VALUE_KVLIST_VALUE;
		size_t n = kv ? (v->kvlist_value ? v->kvlist_value->n_values : 0)
			      : (v->array_value ? v->array_value->n_values : 0);
		uint32_t *el = n ? sp_xreallocarray(NULL, n, sizeof(*el)) : NULL;
		for (size_t i = 0; i < n; i++) {
			uint32_t k = 0;
			const pb_any *e;
			if (kv) {
				const pb_kv *m = v->kvlist_value->values[i];
				if (*m->key || !m->key_strindex) {
					k = sp_otel_string(c->o, m->key, strlen(m->key));
				} else {
					if ((err = string_index(c, path, m->key_strindex))) {
						free(el);
						return err;
					}
					k = extras_string(c, m->key_strindex);
				}
				e = m->value;
			} else {
				e = v->array_value->values[i];
			}
			if ((err = add_value(c, path, e, k, depth + 1, &el[i]))) {
				free(el);
				return err;
			}
		}
		x.kind = kv ? SP_OTEL_KVLIST : SP_OTEL_ARRAY;
		x.v.list = sp_otel_add_items(c->o, el, n);
		free(el);
		break;
	}
	case OTLP__ANY_VALUE__VALUE__NOT_SET:
	default:
		x.kind = SP_OTEL_EMPTY;
		break;
	}
	*out = sp_otel_add_value(c->o, &x);
	return NULL;
}

/* pprof's view of attribute KEY = value V (extras) with UNIT (model
 * strings): appended to the labels pool. */
static void project(conv *c, int64_t key, uint32_t vi, int64_t unit)
{
	const sp_otel *o = c->o;
	const sp_otel_value *v = &o->values[vi];
	uint32_t one = vi;
	const uint32_t *el = &one;
	uint32_t n = 1;
	if (v->kind == SP_OTEL_ARRAY) {
		n = v->v.list.n;
		el = n ? o->items + v->v.list.off : NULL;
	}
	for (uint32_t i = 0; i < n; i++) {
		const sp_otel_value *e = &o->values[el[i]];
		sp_label l = {.key = key};
		size_t len;
		const char *s;
		if (e->kind == SP_OTEL_INT) {
			l.num = e->v.i;
			l.num_unit = unit;
		} else if (e->kind == SP_OTEL_STRING) {
			s = sp_otel_str(o, e->v.str, &len);
			l.str = sp_profile_intern_n(c->p, s, len);
		} else {
			sp_buf_reset(&c->text);
			sp_otel_value_text(o, el[i], &c->text);
			l.str = sp_profile_intern_n(c->p, c->text.data ? c->text.data : "", c->text.len);
		}
		SP_PUSH(c->lab, c->n_lab, c->cap_lab, l);
	}
}

/* The dictionary's attributes into the extras, with their labels. */
static sp_error *add_attributes(conv *c)
{
	const pb_dict *d = c->dict;
	size_t n = d->n_attribute_table;
	sp_error *err = NULL;
	c->attr = sp_xcalloc(n ? n : 1, sizeof(*c->attr));
	c->attr_lab = sp_xcalloc(n ? n : 1, sizeof(*c->attr_lab));
	for (size_t i = 0; i < n; i++) {
		const Otlp__KeyValueAndUnit *a = d->attribute_table[i];
		fpath path = DICT(6, i);
		if (i == 0) {
			if (a->key_strindex || a->unit_strindex ||
			    (a->value && a->value->value_case != OTLP__ANY_VALUE__VALUE__NOT_SET))
				return conv_err(c, &path,
						"must be the zero value (KeyValueAndUnit{}): index "
						"0 means none");
			continue;
		}
		if ((err = string_index(c, &path, a->key_strindex)) ||
		    (err = string_index(c, &path, a->unit_strindex)))
			return err;
		uint32_t v;
		if ((err = add_value(c, &path, a->value, 0, 0, &v)))
			return err;
		c->attr[i] = sp_otel_add_attr(c->o, extras_string(c, a->key_strindex),
					      extras_string(c, a->unit_strindex), v);
		uint32_t start = (uint32_t)c->n_lab;
		project(c, model_string(c, a->key_strindex), v, model_string(c, a->unit_strindex));
		c->attr_lab[i] = (sp_otel_run){start, (uint32_t)(c->n_lab - start)};
	}
	return NULL;
}

/* Attribute indices IDX[0..n) of the element at PATH, checked, as a run of
 * extras attributes. */
static sp_error *attr_run(conv *c, const fpath *path, const int32_t *idx, size_t n,
			  sp_otel_run *out)
{
	sp_error *err = NULL;
	sp_grow(&c->items, &c->cap_items, n, sizeof(*c->items));
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if ((err = check_index(c, path, idx[i], c->dict->n_attribute_table,
				       "the attribute table")))
			return err;
		if (idx[i])
			c->items[k++] = c->attr[idx[i]];
	}
	*out = sp_otel_add_items(c->o, c->items, k);
	return NULL;
}

/* Whether a bool attribute KEY among RUN is true (pprof's flags: an
 * attribute of the key that is not a bool is only an attribute). */
static bool attr_bool(const sp_otel *o, sp_otel_run run, const char *key)
{
	for (uint32_t i = 0; i < run.n; i++) {
		const sp_otel_attr *a = &o->attrs[o->items[run.off + i]];
		if (!strcmp(sp_otel_str(o, a->key, NULL), key) &&
		    o->values[a->value].kind == SP_OTEL_BOOL && o->values[a->value].v.b)
			return true;
	}
	return false;
}

/* The value (extras) of attribute KEY among RUN, or 0. */
static uint32_t attr_value(const sp_otel *o, sp_otel_run run, const char *key)
{
	for (uint32_t i = 0; i < run.n; i++) {
		const sp_otel_attr *a = &o->attrs[o->items[run.off + i]];
		if (!strcmp(sp_otel_str(o, a->key, NULL), key))
			return a->value;
	}
	return 0;
}

static sp_error *add_mappings(conv *c)
{
	const pb_dict *d = c->dict;
	sp_error *err = NULL;
	c->map_base = c->p->n_mappings;
	for (size_t i = 0; i < d->n_mapping_table; i++) {
		const Otlp__Mapping *pm = d->mapping_table[i];
		fpath path = DICT(1, i);
		if (i == 0) {
			if (pm->memory_start || pm->memory_limit || pm->file_offset ||
			    pm->filename_strindex || pm->n_attribute_indices)
				return conv_err(c, &path, "must be the zero value (Mapping{}): index 0 "
							  "means none");
			continue;
		}
		sp_otel_run run;
		if ((err = string_index(c, &path, pm->filename_strindex)) ||
		    (err = attr_run(c, &path, pm->attribute_indices, pm->n_attribute_indices, &run)))
			return err;
		const char *gnu = sp_otel_attr_string(c->o, run, KEY_BUILD_ID_GNU);
		const char *go = sp_otel_attr_string(c->o, run, KEY_BUILD_ID_GO);
		sp_mapping m = {
			.id = c->map_base + i,
			.memory_start = pm->memory_start,
			.memory_limit = pm->memory_limit,
			.file_offset = pm->file_offset,
			.filename = model_string(c, pm->filename_strindex),
			.build_id = sp_profile_intern(c->p, gnu && *gnu ? gnu : go ? go : ""),
			.has_functions = attr_bool(c->o, run, KEY_HAS_FUNCTIONS),
			.has_filenames = attr_bool(c->o, run, KEY_HAS_FILENAMES),
			.has_line_numbers = attr_bool(c->o, run, KEY_HAS_LINE_NUMBERS),
			.has_inline_frames = attr_bool(c->o, run, KEY_HAS_INLINE_FRAMES),
		};
		sp_profile_add_mapping(c->p, &m);
		sp_otel_set_mapping_attrs(c->o, m.id, run);
	}
	return NULL;
}

static sp_error *add_functions(conv *c)
{
	const pb_dict *d = c->dict;
	sp_error *err = NULL;
	c->fn_base = c->p->n_functions;
	for (size_t i = 0; i < d->n_function_table; i++) {
		const Otlp__Function *f = d->function_table[i];
		fpath path = DICT(3, i);
		if (i == 0) {
			if (f->name_strindex || f->system_name_strindex || f->filename_strindex ||
			    f->start_line)
				return conv_err(c, &path, "must be the zero value (Function{}): index "
							  "0 means none");
			continue;
		}
		if ((err = string_index(c, &path, f->name_strindex)) ||
		    (err = string_index(c, &path, f->system_name_strindex)) ||
		    (err = string_index(c, &path, f->filename_strindex)))
			return err;
		sp_function mf = {
			.id = c->fn_base + i,
			.name = model_string(c, f->name_strindex),
			.system_name = model_string(c, f->system_name_strindex),
			.filename = model_string(c, f->filename_strindex),
			.start_line = f->start_line,
		};
		sp_profile_add_function(c->p, &mf);
	}
	return NULL;
}

/* The model function standing for function index I (0: the zero
 * Function, made once per message when a line names it). */
static uint64_t function_id(conv *c, int32_t i)
{
	if (i)
		return c->fn_base + (uint64_t)i;
	if (!c->zero_fn) {
		sp_function f = {.id = c->p->n_functions + 1};
		c->zero_fn = sp_profile_add_function(c->p, &f)->id;
	}
	return c->zero_fn;
}

static sp_error *add_locations(conv *c)
{
	const pb_dict *d = c->dict;
	sp_error *err = NULL;
	sp_line *lines = NULL;
	size_t cap = 0;
	c->loc_base = c->p->n_locations;
	/* the zero function may be made among the locations: ids stay dense
	 * because the locations' own ids are set first */
	for (size_t i = 0; i < d->n_location_table; i++) {
		const Otlp__Location *pl = d->location_table[i];
		fpath path = DICT(2, i);
		if (i == 0) {
			if (pl->mapping_index || pl->address || pl->n_lines || pl->n_attribute_indices) {
				free(lines);
				return conv_err(c, &path, "must be the zero value (Location{}): index "
							  "0 means none");
			}
			continue;
		}
		sp_otel_run run;
		if ((err = check_index(c, &path, pl->mapping_index, d->n_mapping_table,
				       "the mapping table")) ||
		    (err = attr_run(c, &path, pl->attribute_indices, pl->n_attribute_indices, &run))) {
			free(lines);
			return err;
		}
		sp_grow(&lines, &cap, pl->n_lines, sizeof(*lines));
		for (size_t k = 0; k < pl->n_lines; k++) {
			const Otlp__Line *ln = pl->lines[k];
			fpath lp = path_add(path, 3, k);
			if ((err = check_index(c, &lp, ln->function_index, d->n_function_table,
					       "the function table"))) {
				free(lines);
				return err;
			}
			lines[k] = (sp_line){function_id(c, ln->function_index), ln->line, ln->column};
		}
		sp_location l = {
			.id = c->loc_base + i,
			.mapping_id = pl->mapping_index ? c->map_base + (uint64_t)pl->mapping_index : 0,
			.address = pl->address,
			.lines = lines,
			.n_lines = pl->n_lines,
			.is_folded = attr_bool(c->o, run, KEY_IS_FOLDED),
		};
		sp_profile_add_location(c->p, &l);
		sp_otel_set_location_attrs(c->o, l.id, run);
	}
	free(lines);
	return NULL;
}

static uint64_t location_id(conv *c, int32_t i)
{
	if (i)
		return c->loc_base + (uint64_t)i;
	if (!c->zero_loc) {
		sp_location l = {.id = c->p->n_locations + 1};
		c->zero_loc = sp_profile_add_location(c->p, &l)->id;
	}
	return c->zero_loc;
}

static bool zero_bytes(const ProtobufCBinaryData *b)
{
	for (size_t i = 0; i < b->len; i++)
		if (b->data[i])
			return false;
	return true;
}

static sp_error *add_links(conv *c)
{
	const pb_dict *d = c->dict;
	c->link_base = (uint32_t)c->o->n_links;
	for (size_t i = 0; i < d->n_link_table; i++) {
		const Otlp__Link *l = d->link_table[i];
		if (i == 0) {
			if (!zero_bytes(&l->trace_id) || !zero_bytes(&l->span_id)) {
				fpath path = DICT(4, 0);
				return conv_err(c, &path, "must be the zero value (Link{}): index 0 "
							  "means none");
			}
			continue;
		}
		sp_otel_link x = {
			sp_otel_string(c->o, (const char *)l->trace_id.data, l->trace_id.len),
			sp_otel_string(c->o, (const char *)l->span_id.data, l->span_id.len),
		};
		SP_PUSH(c->o->links, c->o->n_links, c->o->cap_links, x);
	}
	return NULL;
}

static sp_error *check_dictionary_rest(conv *c)
{
	const pb_dict *d = c->dict;
	if (d->n_string_table && *d->string_table[0]) {
		fpath path = DICT(5, 0);
		return conv_err(c, &path, "must be \"\": index 0 means none");
	}
	if (d->n_stack_table && d->stack_table[0]->n_location_indices) {
		fpath path = DICT(7, 0);
		return conv_err(c, &path, "must be the zero value (Stack{}): index 0 means none");
	}
	return NULL;
}

/* Grows every sample's values to the model's columns (a column was added
 * after samples were). */
static void widen(sp_profile *p, size_t old)
{
	size_t n = p->n_sample_types;
	for (size_t i = 0; i < p->n_samples; i++) {
		sp_sample *s = &p->samples[i];
		int64_t *v = sp_profile_sample_storage(p, n, sizeof(*v));
		memcpy(v, s->values, old * sizeof(*v));
		sp_sample copy = *s;
		copy.location_ids = NULL;
		copy.labels = NULL;
		sp_sample_free(p, &copy); /* the old values, when malloc'd */
		s->values = v;
	}
}

/* The model column of sample type VT (added when new). */
static uint32_t column(conv *c, const Otlp__ValueType *vt)
{
	int64_t t = vt ? model_string(c, vt->type_strindex) : 0;
	int64_t u = vt ? model_string(c, vt->unit_strindex) : 0;
	sp_profile *p = c->p;
	for (size_t i = 0; i < p->n_sample_types; i++)
		if (p->sample_types[i].type == t && p->sample_types[i].unit == u)
			return (uint32_t)i;
	sp_value_type x = {t, u};
	SP_PUSH(p->sample_types, p->n_sample_types, p->cap_sample_types, x);
	if (p->n_samples)
		widen(p, p->n_sample_types - 1);
	return (uint32_t)(p->n_sample_types - 1);
}

static bool same_ints(const int32_t *a, size_t na, const int32_t *b, size_t nb)
{
	return na == nb && (!na || !memcmp(a, b, na * sizeof(*a)));
}

static bool same_stamps(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
	return na == nb && (!na || !memcmp(a, b, na * sizeof(*a)));
}

static bool same_type(conv *c, const Otlp__ValueType *a, const Otlp__ValueType *b)
{
	const char *s[4] = {"", "", "", ""};
	const int32_t i[4] = {a ? a->type_strindex : 0, a ? a->unit_strindex : 0,
			      b ? b->type_strindex : 0, b ? b->unit_strindex : 0};
	for (int k = 0; k < 4; k++)
		if (i[k] > 0 && (size_t)i[k] < c->dict->n_string_table)
			s[k] = c->dict->string_table[i[k]];
	return !strcmp(s[0], s[2]) && !strcmp(s[1], s[3]);
}

/* Dictionary items are what they hold, not where they are (a dictionary
 * may repeat an item): the writer keeps one of each attribute, stack and
 * link, so the columns of one profile are told apart by content. */

static bool same_value(const sp_otel *o, uint32_t a, uint32_t b, int depth)
{
	if (a == b)
		return true;
	if (a >= o->n_values || b >= o->n_values || depth > OTLP_MAX_DEPTH)
		return false;
	const sp_otel_value *x = &o->values[a], *y = &o->values[b];
	if (x->kind != y->kind || x->key != y->key)
		return false;
	switch ((sp_otel_kind)x->kind) {
	case SP_OTEL_STRING:
	case SP_OTEL_BYTES: return x->v.str == y->v.str; /* interned */
	case SP_OTEL_BOOL: return x->v.b == y->v.b;
	case SP_OTEL_INT: return x->v.i == y->v.i;
	case SP_OTEL_DOUBLE: return !memcmp(&x->v.d, &y->v.d, sizeof(double));
	case SP_OTEL_EMPTY: return true;
	case SP_OTEL_ARRAY:
	case SP_OTEL_KVLIST:
		if (x->v.list.n != y->v.list.n)
			return false;
		for (uint32_t i = 0; i < x->v.list.n; i++)
			if (!same_value(o, o->items[x->v.list.off + i], o->items[y->v.list.off + i],
					depth + 1))
				return false;
		return true;
	}
	return false;
}

/* Attribute indices of the dictionary, in range (checked by the caller);
 * index 0 is none. */
static bool same_attrs(conv *c, const int32_t *a, size_t na, const int32_t *b, size_t nb)
{
	size_t i = 0, j = 0;
	for (;;) {
		while (i < na && !a[i])
			i++;
		while (j < nb && !b[j])
			j++;
		if (i == na || j == nb)
			return i == na && j == nb;
		if (a[i] != b[j]) {
			const sp_otel_attr *x = &c->o->attrs[c->attr[a[i]]];
			const sp_otel_attr *y = &c->o->attrs[c->attr[b[j]]];
			if (x->key != y->key || x->unit != y->unit ||
			    !same_value(c->o, x->value, y->value, 0))
				return false;
		}
		i++;
		j++;
	}
}

/* As check_index: 0 (none) always, else within the table. */
static bool index_ok(int32_t i, size_t n)
{
	return i == 0 || (i > 0 && (size_t)i < n);
}

static bool attrs_ok(const int32_t *a, size_t n, size_t table)
{
	for (size_t i = 0; i < n; i++)
		if (!index_ok(a[i], table))
			return false;
	return true;
}

/* Stack indices in range; index 0 is the empty stack. */
static bool same_stack_index(conv *c, int32_t a, int32_t b)
{
	const pb_dict *d = c->dict;
	if (a == b)
		return true;
	const Otlp__Stack *x = a ? d->stack_table[a] : NULL, *y = b ? d->stack_table[b] : NULL;
	return same_ints(x ? x->location_indices : NULL, x ? x->n_location_indices : 0,
			 y ? y->location_indices : NULL, y ? y->n_location_indices : 0);
}

static bool same_link(conv *c, int32_t a, int32_t b)
{
	const pb_dict *d = c->dict;
	if (a == b)
		return true;
	if (!a || !b)
		return false;
	const Otlp__Link *x = d->link_table[a], *y = d->link_table[b];
	return x->trace_id.len == y->trace_id.len && x->span_id.len == y->span_id.len &&
	       (!x->trace_id.len || !memcmp(x->trace_id.data, y->trace_id.data, x->trace_id.len)) &&
	       (!x->span_id.len || !memcmp(x->span_id.data, y->span_id.data, x->span_id.len));
}

/* Whether the profiles of scope SP are the columns of one pprof profile:
 * two or more, of distinct sample types, whose samples are equal but for
 * their values (an index out of range makes them not: its error comes
 * when the samples are read). */
static bool zippable(conv *c, const Otlp__ScopeProfiles *sp)
{
	const pb_dict *d = c->dict;
	if (sp->n_profiles < 2)
		return false;
	const Otlp__Profile *a = sp->profiles[0];
	for (size_t k = 1; k < sp->n_profiles; k++) {
		const Otlp__Profile *b = sp->profiles[k];
		if (b->n_samples != a->n_samples)
			return false;
		for (size_t j = 0; j < k; j++)
			if (same_type(c, sp->profiles[j]->sample_type, b->sample_type))
				return false;
		for (size_t i = 0; i < a->n_samples; i++) {
			const Otlp__Sample *x = a->samples[i], *y = b->samples[i];
			size_t na = d->n_attribute_table;
			if (!index_ok(x->stack_index, d->n_stack_table) ||
			    !index_ok(y->stack_index, d->n_stack_table) ||
			    !index_ok(x->link_index, d->n_link_table) ||
			    !index_ok(y->link_index, d->n_link_table) ||
			    !attrs_ok(x->attribute_indices, x->n_attribute_indices, na) ||
			    !attrs_ok(y->attribute_indices, y->n_attribute_indices, na))
				return false;
			if (!same_stack_index(c, x->stack_index, y->stack_index) ||
			    !same_link(c, x->link_index, y->link_index) || x->n_values != y->n_values ||
			    !same_attrs(c, x->attribute_indices, x->n_attribute_indices,
					y->attribute_indices, y->n_attribute_indices) ||
			    !same_stamps(x->timestamps_unix_nano, x->n_timestamps_unix_nano,
					 y->timestamps_unix_nano, y->n_timestamps_unix_nano))
				return false;
		}
	}
	return true;
}

/* The scope's pprof.scope.sample_type_order, when it is a permutation of
 * its N profiles: ORDER[k] is the original column of profile k.  (Read
 * from the message: the scope's attributes reach the extras later.) */
static bool sample_type_order(conv *c, const Otlp__InstrumentationScope *scope, size_t n,
			      uint32_t *order)
{
	const Otlp__ArrayValue *a = NULL;
	for (size_t i = 0; scope && i < scope->n_attributes; i++) {
		const pb_kv *kv = scope->attributes[i];
		const char *key = kv->key;
		if (!*key && kv->key_strindex > 0 && (size_t)kv->key_strindex < c->dict->n_string_table)
			key = c->dict->string_table[kv->key_strindex];
		if (!strcmp(key, KEY_SAMPLE_TYPE_ORDER) && kv->value &&
		    kv->value->value_case == OTLP__ANY_VALUE__VALUE_ARRAY_VALUE)
			a = kv->value->array_value;
	}
	if (!a || a->n_values != n)
		return false;
	bool *seen = sp_xcalloc(n ? n : 1, sizeof(bool));
	bool ok = true;
	for (size_t k = 0; k < n && ok; k++) {
		const pb_any *e = a->values[k];
		ok = e->value_case == OTLP__ANY_VALUE__VALUE_INT_VALUE && e->int_value >= 0 &&
		     (uint64_t)e->int_value < n && !seen[e->int_value];
		if (ok) {
			seen[e->int_value] = true;
			order[k] = (uint32_t)e->int_value;
		}
	}
	free(seen);
	return ok;
}

/* The labels of the resource (projected once per resource). */
typedef struct {
	sp_label *v;
	size_t n;
} label_set;

/* KeyValue attributes into the extras (unit 0) and their labels into LS
 * (may be NULL). */
static sp_error *add_kv_list(conv *c, const fpath *path, pb_kv *const *kv, size_t n,
			     sp_otel_run *out, label_set *ls)
{
	sp_error *err = NULL;
	uint32_t *ids = n ? sp_xreallocarray(NULL, n, sizeof(*ids)) : NULL;
	for (size_t i = 0; i < n; i++) {
		uint32_t key;
		int64_t mkey;
		if (*kv[i]->key || !kv[i]->key_strindex) {
			key = sp_otel_string(c->o, kv[i]->key, strlen(kv[i]->key));
			mkey = sp_profile_intern(c->p, kv[i]->key);
		} else {
			if ((err = string_index(c, path, kv[i]->key_strindex))) {
				free(ids);
				return err;
			}
			key = extras_string(c, kv[i]->key_strindex);
			mkey = model_string(c, kv[i]->key_strindex);
		}
		uint32_t v;
		if ((err = add_value(c, path, kv[i]->value, 0, 0, &v))) {
			free(ids);
			return err;
		}
		ids[i] = sp_otel_add_attr(c->o, key, 0, v);
		if (ls) {
			size_t start = c->n_lab;
			project(c, mkey, v, 0);
			for (size_t k = start; k < c->n_lab; k++) {
				ls->v = sp_xreallocarray(ls->v, ls->n + 1, sizeof(*ls->v));
				ls->v[ls->n++] = c->lab[k];
			}
			c->n_lab = start;
		}
	}
	*out = sp_otel_add_items(c->o, ids, n);
	free(ids);
	return NULL;
}

/* The model's profile fields, from the first profile (and scope) read. */
static void profile_fields(conv *c, const Otlp__Profile *pr, const sp_otel_profile *op,
			   const sp_otel_scope *scope)
{
	sp_profile *p = c->p;
	const sp_otel *o = c->o;
	if (!c->have_default) {
		uint32_t v = attr_value(o, scope->attrs, KEY_DEFAULT_SAMPLE_TYPE);
		if (v && o->values[v].kind == SP_OTEL_STRING) {
			size_t n;
			const char *s = sp_otel_str(o, o->values[v].v.str, &n);
			p->default_sample_type = sp_profile_intern_n(p, s, n);
			c->have_default = true;
		}
	}
	if (c->have_profile)
		return;
	c->have_profile = true;
	p->time_nanos = (int64_t)pr->time_unix_nano;
	p->duration_nanos = (int64_t)pr->duration_nano;
	p->period = pr->period;
	if (pr->period_type) {
		p->period_type.type = model_string(c, pr->period_type->type_strindex);
		p->period_type.unit = model_string(c, pr->period_type->unit_strindex);
	}
	const char *keys[3] = {KEY_DROP_FRAMES, KEY_KEEP_FRAMES, KEY_DOC_URL};
	int64_t *fields[3] = {&p->drop_frames, &p->keep_frames, &p->doc_url};
	for (int k = 0; k < 3; k++) {
		const char *s = sp_otel_attr_string(o, op->attrs, keys[k]);
		if (s)
			*fields[k] = sp_profile_intern(p, s);
	}
	uint32_t v = attr_value(o, op->attrs, KEY_COMMENT);
	if (v) {
		const sp_otel_value *cv = &o->values[v];
		uint32_t n = cv->kind == SP_OTEL_ARRAY ? cv->v.list.n : 1;
		for (uint32_t k = 0; k < n; k++) {
			uint32_t e = cv->kind == SP_OTEL_ARRAY ? o->items[cv->v.list.off + k] : v;
			if (o->values[e].kind != SP_OTEL_STRING)
				continue;
			size_t len;
			const char *s = sp_otel_str(o, o->values[e].v.str, &len);
			int64_t si = sp_profile_intern_n(p, s, len);
			SP_PUSH(p->comments, p->n_comments, p->cap_comments, si);
		}
	}
}

/* Adds profile PR (index K of scope SCOPE, at PATH) to the extras. */
static sp_error *add_profile_extras(conv *c, const fpath *path, const Otlp__Profile *pr,
				    uint32_t scope, uint32_t col)
{
	sp_error *err = NULL;
	sp_otel_profile op = {
		.scope = scope,
		.column = col,
		.time_unix_nano = pr->time_unix_nano,
		.duration_nano = pr->duration_nano,
		.period = pr->period,
		.dropped_attributes_count = pr->dropped_attributes_count,
		.original_payload_format = sp_otel_string(c->o, pr->original_payload_format,
							  strlen(pr->original_payload_format)),
		.original_payload = sp_otel_string(c->o, (const char *)pr->original_payload.data,
						   pr->original_payload.len),
		.profile_id = sp_otel_string(c->o, (const char *)pr->profile_id.data,
					     pr->profile_id.len),
	};
	if (pr->period_type) {
		if ((err = string_index(c, path, pr->period_type->type_strindex)) ||
		    (err = string_index(c, path, pr->period_type->unit_strindex)))
			return err;
		op.period_type = extras_string(c, pr->period_type->type_strindex);
		op.period_unit = extras_string(c, pr->period_type->unit_strindex);
	}
	if (pr->sample_type && ((err = string_index(c, path, pr->sample_type->type_strindex)) ||
				(err = string_index(c, path, pr->sample_type->unit_strindex))))
		return err;
	if ((err = attr_run(c, path, pr->attribute_indices, pr->n_attribute_indices, &op.attrs)))
		return err;
	SP_PUSH(c->o->profiles, c->o->n_profiles, c->o->cap_profiles, op);
	profile_fields(c, pr, &c->o->profiles[c->o->n_profiles - 1], &c->o->scopes[scope]);
	return NULL;
}

static void push_label(conv *c, size_t *n, sp_label l)
{
	sp_grow(&c->labels, &c->cap_labels, *n + 1, sizeof(*c->labels));
	c->labels[(*n)++] = l;
}

static void hex_label(conv *c, size_t *n, const char *key, const sp_otel *o, uint32_t s)
{
	size_t len;
	const char *b = sp_otel_str(o, s, &len);
	if (!len)
		return;
	char *hex = sp_hex_string((const uint8_t *)b, len);
	push_label(c, n, (sp_label){.key = sp_profile_intern(c->p, key),
				    .str = sp_profile_intern(c->p, hex)});
	free(hex);
}

/* The samples of the group of profiles PROFS[0..k) of one scope (K > 1 only
 * when zipped), whose columns are COLS; RES the resource's labels; PATHS
 * the profiles' paths. */
static sp_error *add_samples(conv *c, Otlp__Profile *const *profs, const uint32_t *cols, size_t k,
			     const label_set *res, const fpath *ppath)
{
	sp_error *err = NULL;
	sp_profile *p = c->p;
	sp_otel *o = c->o;
	const pb_dict *d = c->dict;
	uint32_t group = (uint32_t)o->n_groups;
	sp_otel_group g = {(uint32_t)(o->n_profiles - k), (uint32_t)k};
	SP_PUSH(o->groups, o->n_groups, o->cap_groups, g);
	int64_t ts_key = sp_profile_intern(p, SP_OTEL_TIMESTAMP_LABEL);
	int64_t ns = sp_profile_intern(p, "nanoseconds");
	sp_grow(&c->values, &c->cap_values, p->n_sample_types, sizeof(*c->values));
	for (size_t i = 0; i < profs[0]->n_samples; i++) {
		const Otlp__Sample *s = profs[0]->samples[i];
		fpath path = path_add(ppath[0], 2, i);
		if ((err = check_index(c, &path, s->stack_index, d->n_stack_table, "the stack table")) ||
		    (err = check_index(c, &path, s->link_index, d->n_link_table, "the link table")))
			return err;
		size_t nv = s->n_values, nt = s->n_timestamps_unix_nano;
		if (!nv && !nt)
			return conv_err(c, &path, "a sample needs values or timestamps");
		if (nv && nt && nv != nt)
			return conv_err(c, &path, "%zu values and %zu timestamps: a sample with both "
						  "has one value per timestamp",
					nv, nt);
		/* its stack */
		size_t nl = 0;
		if (s->stack_index) {
			const Otlp__Stack *st = d->stack_table[s->stack_index];
			fpath sp = DICT(7, (size_t)s->stack_index);
			sp_grow(&c->locs, &c->cap_locs, st->n_location_indices, sizeof(*c->locs));
			for (size_t j = 0; j < st->n_location_indices; j++) {
				if ((err = check_index(c, &sp, st->location_indices[j],
						       d->n_location_table, "the location table")))
					return err;
				c->locs[nl++] = location_id(c, st->location_indices[j]);
			}
		}
		/* its attributes, link and the resource's labels */
		sp_otel_sample os = {.group = group, .origin = c->origin++};
		if ((err = attr_run(c, &path, s->attribute_indices, s->n_attribute_indices, &os.attrs)))
			return err;
		size_t n_base = 0;
		for (size_t j = 0; j < s->n_attribute_indices; j++) {
			sp_otel_run r = c->attr_lab[s->attribute_indices[j]];
			for (uint32_t q = 0; q < r.n; q++)
				push_label(c, &n_base, c->lab[r.off + q]);
		}
		for (size_t j = 0; j < res->n; j++)
			push_label(c, &n_base, res->v[j]);
		if (s->link_index) {
			os.link = c->link_base + (uint32_t)s->link_index;
			const sp_otel_link *l = &o->links[os.link - 1];
			hex_label(c, &n_base, SP_OTEL_TRACE_ID_LABEL, o, l->trace_id);
			hex_label(c, &n_base, SP_OTEL_SPAN_ID_LABEL, o, l->span_id);
		}
		sp_otel_run stamps = sp_otel_add_stamps(o, s->timestamps_unix_nano, nt);
		/* one model sample per observation: the timestamps of a sample
		 * without values count its events */
		size_t n_obs = nv ? nv : 1;
		for (size_t j = 0; j < n_obs; j++) {
			size_t nlab = n_base;
			memset(c->values, 0, p->n_sample_types * sizeof(*c->values));
			for (size_t q = 0; q < k; q++)
				c->values[cols[q]] = nv ? profs[q]->samples[i]->values[j] : (int64_t)nt;
			os.stamps = nv ? (sp_otel_run){stamps.off + (nt ? (uint32_t)j : 0), nt ? 1 : 0}
				       : stamps;
			os.flags = nv ? 0 : SP_OTEL_NO_VALUES;
			for (uint32_t q = 0; q < os.stamps.n; q++)
				push_label(c, &nlab,
					   (sp_label){.key = ts_key,
						      .num = (int64_t)o->stamps[os.stamps.off + q],
						      .num_unit = ns});
			sp_profile_add_sample(p, c->values, c->locs, nl, c->labels, nlab);
			SP_PUSH(o->samples, o->n_samples, o->cap_samples, os);
		}
	}
	return NULL;
}

/* One ResourceProfiles (index RI). */
static sp_error *add_resource(conv *c, size_t ri, const scope_plan *plans)
{
	const Otlp__ResourceProfiles *rp = c->d->resource_profiles[ri];
	fpath rpath = path_add(P0, 1, ri);
	sp_error *err = NULL;
	sp_otel_resource r = {.schema_url = sp_otel_string(c->o, rp->schema_url,
							   strlen(rp->schema_url))};
	label_set res = {0};
	if (rp->resource) {
		fpath path = path_add(rpath, 1, SIZE_MAX);
		r.dropped_attributes_count = rp->resource->dropped_attributes_count;
		if ((err = add_kv_list(c, &path, rp->resource->attributes,
				       rp->resource->n_attributes, &r.attrs, &res)))
			goto out;
		size_t ne = rp->resource->n_entity_refs;
		uint32_t *refs = ne ? sp_xreallocarray(NULL, ne, sizeof(*refs)) : NULL;
		for (size_t i = 0; i < ne; i++) {
			const Otlp__EntityRef *e = rp->resource->entity_refs[i];
			/* {schema_url, type, id_keys, description_keys} as a list */
			uint32_t m[4];
			const char *names[4] = {"schema_url", "type", "id_keys", "description_keys"};
			for (int f = 0; f < 4; f++) {
				sp_otel_value v = {.key = sp_otel_string(c->o, names[f], strlen(names[f]))};
				if (f < 2) {
					const char *s = f ? e->type : e->schema_url;
					v.kind = SP_OTEL_STRING;
					v.v.str = sp_otel_string(c->o, s, strlen(s));
				} else {
					char **ks = f == 2 ? e->id_keys : e->description_keys;
					size_t nk = f == 2 ? e->n_id_keys : e->n_description_keys;
					uint32_t *el = nk ? sp_xreallocarray(NULL, nk, sizeof(*el)) : NULL;
					for (size_t q = 0; q < nk; q++) {
						sp_otel_value sv = {.kind = SP_OTEL_STRING};
						sv.v.str = sp_otel_string(c->o, ks[q], strlen(ks[q]));
						el[q] = sp_otel_add_value(c->o, &sv);
					}
					v.kind = SP_OTEL_ARRAY;
					v.v.list = sp_otel_add_items(c->o, el, nk);
					free(el);
				}
				m[f] = sp_otel_add_value(c->o, &v);
			}
			sp_otel_value lv = {.kind = SP_OTEL_KVLIST, .v.list = sp_otel_add_items(c->o, m, 4)};
			refs[i] = sp_otel_add_value(c->o, &lv);
		}
		r.entity_refs = sp_otel_add_items(c->o, refs, ne);
		free(refs);
	}
	uint32_t res_index = (uint32_t)c->o->n_resources;
	SP_PUSH(c->o->resources, c->o->n_resources, c->o->cap_resources, r);
	for (size_t si = 0; si < rp->n_scope_profiles; si++) {
		const Otlp__ScopeProfiles *sp = rp->scope_profiles[si];
		const scope_plan *plan = &plans[si];
		fpath spath = path_add(rpath, 2, si);
		sp_otel_scope sc = {.resource = res_index,
				    .schema_url = sp_otel_string(c->o, sp->schema_url,
								 strlen(sp->schema_url))};
		if (sp->scope) {
			fpath path = path_add(spath, 1, SIZE_MAX);
			sc.name = sp_otel_string(c->o, sp->scope->name, strlen(sp->scope->name));
			sc.version = sp_otel_string(c->o, sp->scope->version,
						    strlen(sp->scope->version));
			sc.dropped_attributes_count = sp->scope->dropped_attributes_count;
			if ((err = add_kv_list(c, &path, sp->scope->attributes,
					       sp->scope->n_attributes, &sc.attrs, NULL)))
				goto out;
		}
		uint32_t scope_index = (uint32_t)c->o->n_scopes;
		SP_PUSH(c->o->scopes, c->o->n_scopes, c->o->cap_scopes, sc);
		size_t np = sp->n_profiles;
		fpath *paths = sp_xreallocarray(NULL, np ? np : 1, sizeof(*paths));
		for (size_t k = 0; k < np; k++) {
			paths[k] = path_add(spath, 2, k);
			if ((err = add_profile_extras(c, &paths[k], sp->profiles[k], scope_index,
						      plan->cols[k]))) {
				free(paths);
				goto out;
			}
			if (!plan->zip &&
			    (err = add_samples(c, &sp->profiles[k], &plan->cols[k], 1, &res, &paths[k]))) {
				free(paths);
				goto out;
			}
		}
		if (plan->zip)
			err = add_samples(c, sp->profiles, plan->cols, np, &res, paths);
		free(paths);
		if (err)
			goto out;
	}
out:
	free(res.v);
	return err;
}

/* Decides, for every scope of the message, how its profiles become columns
 * (adding the sample types to the model before any sample of the message). */
static sp_error *plan_scopes(conv *c, scope_plan ***out)
{
	const pb_data *d = c->d;
	scope_plan **plans = sp_xcalloc(d->n_resource_profiles ? d->n_resource_profiles : 1,
					sizeof(*plans));
	*out = plans;
	for (size_t ri = 0; ri < d->n_resource_profiles; ri++) {
		const Otlp__ResourceProfiles *rp = d->resource_profiles[ri];
		plans[ri] = sp_xcalloc(rp->n_scope_profiles ? rp->n_scope_profiles : 1,
				       sizeof(*plans[ri]));
		for (size_t si = 0; si < rp->n_scope_profiles; si++) {
			const Otlp__ScopeProfiles *sp = rp->scope_profiles[si];
			scope_plan *pl = &plans[ri][si];
			size_t np = sp->n_profiles;
			pl->cols = sp_xcalloc(np ? np : 1, sizeof(*pl->cols));
			for (size_t k = 0; k < np; k++) {
				const Otlp__ValueType *vt = sp->profiles[k]->sample_type;
				if (vt) {
					fpath path = path_add(path_add(path_add(path_add(P0, 1, ri), 2, si),
								       2, k), 1, SIZE_MAX);
					sp_error *err;
					if ((err = string_index(c, &path, vt->type_strindex)) ||
					    (err = string_index(c, &path, vt->unit_strindex)))
						return err;
				}
			}
			pl->zip = zippable(c, sp);
			/* the columns in the order pprof had them, when the scope says */
			uint32_t *order = sp_xcalloc(np ? np : 1, sizeof(*order));
			bool ordered = pl->zip && sample_type_order(c, sp->scope, np, order);
			for (size_t r = 0; r < np; r++) {
				/* the profile whose original column is R (or profile R) */
				size_t k = r;
				for (size_t q = 0; ordered && q < np; q++)
					if (order[q] == r)
						k = q;
				pl->cols[k] = column(c, sp->profiles[k]->sample_type);
			}
			free(order);
		}
	}
	return NULL;
}

static void free_plans(const pb_data *d, scope_plan **plans)
{
	if (!plans)
		return;
	for (size_t ri = 0; ri < d->n_resource_profiles; ri++) {
		if (!plans[ri])
			continue;
		for (size_t si = 0; si < d->resource_profiles[ri]->n_scope_profiles; si++)
			free(plans[ri][si].cols);
		free(plans[ri]);
	}
	free(plans);
}

static void conv_message_clear(conv *c)
{
	free(c->mstr);
	free(c->ostr);
	free(c->attr);
	free(c->attr_lab);
	c->mstr = NULL;
	c->ostr = NULL;
	c->attr = NULL;
	c->attr_lab = NULL;
	c->n_lab = 0;
	c->zero_fn = c->zero_loc = 0;
}

/* Adds message D to the model. */
static sp_error *conv_message(conv *c, const pb_data *d)
{
	sp_error *err = NULL;
	c->d = d;
	c->dict = d->dictionary ? d->dictionary : &empty_dict;
	size_t ns = c->dict->n_string_table;
	c->mstr = sp_xreallocarray(NULL, ns + 1, sizeof(*c->mstr));
	memset(c->mstr, 0xff, (ns + 1) * sizeof(*c->mstr));
	c->ostr = sp_xreallocarray(NULL, ns + 1, sizeof(*c->ostr));
	memset(c->ostr, 0xff, (ns + 1) * sizeof(*c->ostr));
	scope_plan **plans = NULL;
	if (!(err = check_dictionary_rest(c)) && !(err = add_attributes(c)) &&
	    !(err = add_mappings(c)) && !(err = add_functions(c)) && !(err = add_locations(c)) &&
	    !(err = add_links(c)) && !(err = plan_scopes(c, &plans)))
		for (size_t ri = 0; ri < d->n_resource_profiles && !err; ri++)
			err = add_resource(c, ri, plans[ri]);
	free_plans(d, plans);
	conv_message_clear(c);
	return err;
}

static void conv_free(conv *c)
{
	conv_message_clear(c);
	free(c->lab);
	free(c->labels);
	free(c->locs);
	free(c->values);
	free(c->items);
	sp_buf_free(&c->text);
}

/* ------------------------------------------------------------------------ */
/* Reading                                                                  */

static sp_error *not_mine(const char *name, const char *why)
{
	return sp_error_new(SP_E_UNRECOGNIZED, "%s: not OTLP (%s): %s", name, OTLP_LAYOUT, why);
}

/* One protobuf message [MSG, MSG + LEN) (at OFF in the input BASE) added
 * to C. */
static sp_error *read_pb_message(conv *c, const uint8_t *base, const uint8_t *msg, size_t len)
{
	wire w = {c->name, base};
	sp_error *err = wire_check(&w, msg, len, &otlp__profiles_data__descriptor, 0);
	if (err)
		return err;
	pb_data *d = (pb_data *)protobuf_c_message_unpack(&otlp__profiles_data__descriptor,
							   &pb_allocator, len, msg);
	if (!d)
		return sp_error_new(SP_E_MALFORMED, "%s: offset %zu: the message does not unpack",
				    c->name, (size_t)(msg - base));
	c->json = NULL;
	c->msg = msg;
	c->msg_len = len;
	c->msg_off = (size_t)(msg - base);
	err = conv_message(c, d);
	protobuf_c_message_free_unpacked(&d->base, &pb_allocator);
	c->msg_no++;
	return err;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Whether DATA starts a stream of messages each after its 4-byte
 * big-endian length. */
static bool looks_like_stream(const uint8_t *data, size_t len)
{
	if (len < 4)
		return false;
	uint32_t n = be32(data);
	return n > 0 && n <= len - 4 && looks_like_data(data + 4, n);
}

static sp_error *read_pb(conv *c, const uint8_t *data, size_t len)
{
	/* A message cannot begin with a byte below 8 (field 0): a length
	 * under 128 MiB does. */
	bool stream = data[0] < 8 ? looks_like_stream(data, len) : false;
	if (!stream && !looks_like_data(data, len)) {
		if (!looks_like_stream(data, len))
			return not_mine(c->name, "neither a ProfilesData message nor a stream of "
						 "length-prefixed ones");
		stream = true;
	}
	if (!stream)
		return read_pb_message(c, data, data, len);
	const uint8_t *p = data, *end = data + len;
	sp_error *err = NULL;
	while (p < end && !err) {
		if (end - p < 4)
			return sp_error_new(SP_E_MALFORMED,
					    "%s: offset %zu: %zu bytes left where a 4-byte message "
					    "length was expected",
					    c->name, (size_t)(p - data), (size_t)(end - p));
		uint32_t n = be32(p);
		if (n > (size_t)(end - p) - 4)
			return sp_error_new(SP_E_MALFORMED,
					    "%s: offset %zu: message %zu of %" PRIu32
					    " bytes, but %zu are left",
					    c->name, (size_t)(p - data), c->msg_no + 1, n,
					    (size_t)(end - p) - 4);
		err = read_pb_message(c, data, p + 4, n);
		p += 4 + (size_t)n;
	}
	return err;
}

/* Whether the JSON at J begins an object whose first member is one of
 * ProfilesData's. */
static bool looks_like_json(const sp_json *j)
{
	sp_json t = *j;
	sp_buf key = {0};
	sp_error *err = sp_json_object(&t);
	bool ok = !err && sp_json_peek(&t) == SP_JSON_STRING && !(err = sp_json_get_string(&t, &key)) &&
		  (!strcmp(key.data, "resourceProfiles") || !strcmp(key.data, "resource_profiles") ||
		   !strcmp(key.data, "dictionary"));
	sp_error_free(err);
	sp_buf_free(&key);
	return ok;
}

static sp_error *read_json(conv *c, const uint8_t *data, size_t len)
{
	jread r = {0};
	sp_json_init(&r.j, c->name, data, len, OTLP_JSON_DEPTH);
	if (!looks_like_json(&r.j))
		return not_mine(c->name, "a JSON object that is not a ProfilesData");
	sp_error *err = NULL;
	while (!err && sp_json_peek(&r.j) != SP_JSON_END) {
		size_t at = sp_json_offset(&r.j);
		ProtobufCMessage *m = NULL;
		err = json_message(&r, &otlp__profiles_data__descriptor, &m);
		if (!err) {
			c->json = &r.j;
			c->msg_off = at;
			err = conv_message(c, (pb_data *)m);
			c->msg_no++;
		}
		if (m)
			protobuf_c_message_free_unpacked(m, &pb_allocator);
	}
	sp_buf_free(&r.key);
	sp_buf_free(&r.str);
	return err;
}

static sp_error *read_plain(const char *name, const uint8_t *data, size_t len, sp_profile **out)
{
	size_t ws = 0;
	while (ws < len && (data[ws] == ' ' || data[ws] == '\n' || data[ws] == '\r' ||
			    data[ws] == '\t'))
		ws++;
	if (ws == len)
		return not_mine(name, "the input is empty");
	/* JSON when it begins as a ProfilesData object would: protobuf may begin
	 * with bytes that are white space and '{' too (0x0a, 0x7b) */
	sp_json j;
	sp_json_init(&j, name, data, len, 0);
	bool json = data[ws] == '{' && looks_like_json(&j);
	conv c = {.name = name, .p = sp_profile_new(), .o = sp_otel_new()};
	c.p->otel = c.o;
	sp_error *err = json ? read_json(&c, data, len) : read_pb(&c, data, len);
	conv_free(&c);
	if (!err)
		err = sp_profile_check(c.p, name);
	if (err) {
		sp_profile_free(c.p);
		return err;
	}
	*out = c.p;
	return NULL;
}

static sp_error *put_buf(void *ctx, const uint8_t *data, size_t n)
{
	sp_buf_append(ctx, data, n);
	return NULL;
}

/* zstd data (the collector's and the agent's other compression) read
 * whole: its frames, and nothing after them, under the bomb rule. */
static sp_error *unzstd(const char *name, const uint8_t *in, size_t len, uint8_t **out,
			size_t *outlen)
{
	sp_decompress_limit lim = {.name = name, .limit = OTLP_MAX_INFLATED,
				   .why = "the most an OTLP input may hold"};
	sp_buf b = {0};
	uint8_t chunk[65536];
	sp_decompress_end end;
	sp_error *err = sp_decompress_stream(SP_CODEC_ZSTD, &lim, in, len, chunk, sizeof(chunk),
					     put_buf, &b, &end);
	if (!err && end.status == SP_DZ_CORRUPT)
		err = sp_error_new(SP_E_MALFORMED, "%s: offset %zu: damaged zstd data: %s", name,
				   end.at, end.msg ? end.msg : "?");
	else if (!err && end.status == SP_DZ_CUT)
		err = sp_error_new(SP_E_MALFORMED, "%s: offset %zu: the zstd data ends inside a frame",
				   name, end.at);
	else if (!err && end.status == SP_DZ_TRAILING)
		err = sp_error_new(SP_E_MALFORMED, "%s: offset %zu: %s", name, end.at,
				   end.msg ? end.msg : "not another zstd frame");
	if (err) {
		sp_buf_free(&b);
		return err;
	}
	sp_buf_str(&b);
	*outlen = b.len;
	*out = (uint8_t *)sp_buf_take(&b);
	return NULL;
}

sp_error *sp_otlp_read(const char *name, const uint8_t *data, size_t len, sp_profile **out)
{
	*out = NULL;
	name = name ? name : "profile";
	uint8_t *plain = NULL;
	size_t plen;
	sp_error *err = NULL;
	if (sp_is_gzip(data, len))
		err = sp_gunzip(name, data, len, OTLP_MAX_INFLATED, &plain, &plen);
	else if (sp_codec_sniff(data, len) == SP_CODEC_ZSTD)
		err = unzstd(name, data, len, &plain, &plen);
	if (err)
		return err;
	if (plain) {
		data = plain;
		len = plen;
	}
	err = read_plain(name, data, len, out);
	free(plain);
	return err;
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                  */

/* An attribute of the output's table: attribute ATTR of the extras SRC
 * (the profile's, or the writer's own for what labels and pprof fields
 * become). */
typedef struct {
	const sp_otel *src;
	uint32_t attr;
} out_attr;

/* Model ids to output indices: the ids themselves when they are 1..n in
 * order (as readers number them), else a map. */
typedef struct {
	bool sparse;
	size_t n;
	sp_u64map map;
} id_index;

static void id_index_add(id_index *x, uint64_t id)
{
	x->n++;
	if (!x->sparse && id != x->n) {
		x->sparse = true;
		for (uint64_t k = 1; k < x->n; k++)
			sp_u64map_put(&x->map, k, k);
	}
	if (x->sparse)
		sp_u64map_put(&x->map, id, x->n);
}

/* One output sample of one profile: the model samples IDX[first ..
 * first + n) (n > 1: the observations of one OTLP sample, read apart). */
typedef struct {
	uint32_t first, n;
	uint32_t stack;      /* output index */
	sp_otel_run attrs;   /* output attribute indices (pool aidx) */
	uint32_t link;       /* output index */
	sp_otel_run stamps;  /* timestamps (pool stamps) */
	bool no_values;      /* timestamps only: one event each */
} out_sample;

/* The profiles of one group, and its output samples. */
typedef struct {
	uint32_t *idx;       /* model sample indices */
	size_t n_idx;
	out_sample *s;
	size_t n;
} out_group;

typedef struct {
	const sp_profile *p;
	const sp_otel *o;     /* the profile's extras, NULL when they do not describe it */
	sp_otel *own;         /* the writer's: attributes made from labels and pprof fields */
	sp_strtab strs;       /* the output's string table */
	sp_strtab attr_keys;  /* serialized attributes: index + 1 = output index */
	out_attr *attrs;
	size_t n_attrs, cap_attrs;
	sp_strtab stack_keys; /* serialized stacks: index + 1 = output index */
	sp_strtab link_keys;  /* trace id + span id: index + 1 = output index */
	uint32_t *aidx;       /* runs of output attribute indices */
	size_t n_aidx, cap_aidx;
	uint64_t *stamps;
	size_t n_stamps, cap_stamps;
	sp_otel_run *map_attrs, *loc_attrs; /* per model mapping and location */
	id_index map_index, loc_index, fn_index; /* model id -> output index */
	out_group *groups;
	size_t n_groups;
	/* the writer's resource, scope and profiles when there are no extras */
	sp_otel_run scope_attrs;
	sp_otel_run *col_attrs; /* per column: its profile's attributes */
	sp_buf tmp;
	sp_buf ser;
} writer;

static uint32_t out_str(writer *w, const char *s, size_t n)
{
	return (uint32_t)sp_strtab_intern(&w->strs, s, n);
}

/* Serializes value VI of SRC, recursively, into B (for de-duplication). */
static void ser_value(const sp_otel *src, uint32_t vi, sp_buf *b, int depth)
{
	const sp_otel_value *v = &src->values[vi];
	size_t n;
	const char *s = sp_otel_str(src, v->key, &n);
	uint8_t k = v->kind;
	sp_buf_append(b, &k, 1);
	sp_buf_append(b, &n, sizeof(n));
	sp_buf_append(b, s, n);
	switch ((sp_otel_kind)v->kind) {
	case SP_OTEL_STRING:
	case SP_OTEL_BYTES:
		s = sp_otel_str(src, v->v.str, &n);
		sp_buf_append(b, &n, sizeof(n));
		sp_buf_append(b, s, n);
		break;
	case SP_OTEL_BOOL:
		k = v->v.b;
		sp_buf_append(b, &k, 1);
		break;
	case SP_OTEL_INT:
		sp_buf_append(b, &v->v.i, sizeof(v->v.i));
		break;
	case SP_OTEL_DOUBLE:
		sp_buf_append(b, &v->v.d, sizeof(v->v.d));
		break;
	case SP_OTEL_ARRAY:
	case SP_OTEL_KVLIST:
		sp_buf_append(b, &v->v.list.n, sizeof(v->v.list.n));
		for (uint32_t i = 0; i < v->v.list.n && depth < OTLP_MAX_DEPTH; i++)
			ser_value(src, src->items[v->v.list.off + i], b, depth + 1);
		break;
	case SP_OTEL_EMPTY:
		break;
	}
}

/* The output index of attribute AI of SRC (added when new). */
static uint32_t put_attr(writer *w, const sp_otel *src, uint32_t ai)
{
	const sp_otel_attr *a = &src->attrs[ai];
	size_t n;
	sp_buf_reset(&w->ser);
	const char *s = sp_otel_str(src, a->key, &n);
	sp_buf_append(&w->ser, &n, sizeof(n));
	sp_buf_append(&w->ser, s, n);
	s = sp_otel_str(src, a->unit, &n);
	sp_buf_append(&w->ser, &n, sizeof(n));
	sp_buf_append(&w->ser, s, n);
	ser_value(src, a->value, &w->ser, 0);
	size_t before = w->attr_keys.n;
	size_t i = sp_strtab_intern(&w->attr_keys, w->ser.data, w->ser.len);
	if (w->attr_keys.n != before) {
		out_attr x = {src, ai};
		SP_PUSH(w->attrs, w->n_attrs, w->cap_attrs, x);
	}
	return (uint32_t)i + 1;
}

/* Appends output index X to the run being built from START. */
static void push_aidx(writer *w, uint32_t x)
{
	SP_PUSH(w->aidx, w->n_aidx, w->cap_aidx, x);
}

static sp_otel_run run_from(const writer *w, size_t start)
{
	return (sp_otel_run){(uint32_t)start, (uint32_t)(w->n_aidx - start)};
}

/* The writer's own attribute KEY = string S. */
static uint32_t own_string(writer *w, const char *key, const char *s, size_t n)
{
	sp_otel_value v = {.kind = SP_OTEL_STRING, .v.str = sp_otel_string(w->own, s, n)};
	return sp_otel_add_attr(w->own, sp_otel_string(w->own, key, strlen(key)), 0,
				sp_otel_add_value(w->own, &v));
}

static uint32_t own_bool(writer *w, const char *key)
{
	sp_otel_value v = {.kind = SP_OTEL_BOOL, .v.b = true};
	return sp_otel_add_attr(w->own, sp_otel_string(w->own, key, strlen(key)), 0,
				sp_otel_add_value(w->own, &v));
}

static bool is_hex(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') || (*s >= 'A' && *s <= 'F')))
			return false;
	return true;
}

/* Which of KEYS[0..n) attribute AI of the extras is, as a bool (*VAL its
 * value), or -1: pprof's flags are bool attributes, and an attribute of a
 * flag's key that is not a bool is only an attribute. */
static int flag_of(const sp_otel *o, uint32_t ai, const char *const *keys, int n, bool *val)
{
	const sp_otel_value *v = &o->values[o->attrs[ai].value];
	if (v->kind != SP_OTEL_BOOL)
		return -1;
	const char *k = sp_otel_str(o, o->attrs[ai].key, NULL);
	for (int f = 0; f < n; f++)
		if (!strcmp(k, keys[f])) {
			*val = v->v.b;
			return f;
		}
	return -1;
}

/* The attributes RUN of the extras, with pprof's flags KEYS[0..n) (n <= 4)
 * as the model has them now in HAS (symbolizing sets them).  The reader
 * takes a flag as set when any bool attribute of its key is true
 * (attr_bool), so: a set flag keeps its attributes when one is true, else
 * its first false one becomes true, else a true one is added; a clear flag
 * loses its true ones.  A flag the model has as the extras say writes
 * them as they are. */
static void put_flagged(writer *w, sp_otel_run r, const char *const *keys, const bool *has,
			int n)
{
	const sp_otel *o = w->p->otel;
	bool any[4] = {false, false, false, false}, done[4] = {false, false, false, false};
	bool val;
	for (uint32_t k = 0; k < r.n; k++) {
		int f = flag_of(o, o->items[r.off + k], keys, n, &val);
		if (f >= 0 && val)
			any[f] = true;
	}
	for (uint32_t k = 0; k < r.n; k++) {
		uint32_t ai = o->items[r.off + k];
		int f = flag_of(o, ai, keys, n, &val);
		if (f < 0 || (has[f] && (any[f] || done[f])) || (!has[f] && !val)) {
			push_aidx(w, put_attr(w, o, ai));
		} else if (has[f]) {
			push_aidx(w, put_attr(w, w->own, own_bool(w, keys[f])));
			done[f] = true;
		}
	}
	for (int f = 0; f < n; f++)
		if (has[f] && !any[f] && !done[f])
			push_aidx(w, put_attr(w, w->own, own_bool(w, keys[f])));
}

/* The attributes of each mapping and location: the extras' (pprof's flags
 * taken from the model, which symbolizing may have changed), else made of
 * the model's fields. */
static void entity_attrs(writer *w)
{
	const sp_profile *p = w->p;
	static const char *const flags[4] = {KEY_HAS_FUNCTIONS, KEY_HAS_FILENAMES,
					     KEY_HAS_LINE_NUMBERS, KEY_HAS_INLINE_FRAMES};
	static const char *const folded[1] = {KEY_IS_FOLDED};
	w->map_attrs = sp_xcalloc(p->n_mappings ? p->n_mappings : 1, sizeof(*w->map_attrs));
	for (size_t i = 0; i < p->n_mappings; i++) {
		const sp_mapping *m = &p->mappings[i];
		size_t start = w->n_aidx;
		sp_otel_run r = w->p->otel ? sp_otel_mapping_attrs(w->p->otel, m->id)
					   : (sp_otel_run){0, 0};
		const bool has[4] = {m->has_functions, m->has_filenames, m->has_line_numbers,
				     m->has_inline_frames};
		const char *bid = sp_profile_str(p, m->build_id);
		if (!r.n && *bid)
			push_aidx(w, put_attr(w, w->own,
					      own_string(w, is_hex(bid) ? KEY_BUILD_ID_GNU : KEY_BUILD_ID_GO,
							 bid, strlen(bid))));
		put_flagged(w, r, flags, has, 4);
		w->map_attrs[i] = run_from(w, start);
		id_index_add(&w->map_index, m->id);
	}
	w->loc_attrs = sp_xcalloc(p->n_locations ? p->n_locations : 1, sizeof(*w->loc_attrs));
	for (size_t i = 0; i < p->n_locations; i++) {
		const sp_location *l = &p->locations[i];
		size_t start = w->n_aidx;
		sp_otel_run r = w->p->otel ? sp_otel_location_attrs(w->p->otel, l->id)
					   : (sp_otel_run){0, 0};
		put_flagged(w, r, folded, &l->is_folded, 1);
		w->loc_attrs[i] = run_from(w, start);
		id_index_add(&w->loc_index, l->id);
	}
	for (size_t i = 0; i < p->n_functions; i++)
		id_index_add(&w->fn_index, p->functions[i].id);
}

static uint32_t index_of(const id_index *x, uint64_t id)
{
	uint64_t v = 0;
	if (!x->sparse)
		return id <= x->n ? (uint32_t)id : 0;
	sp_u64map_get(&x->map, id, &v);
	return (uint32_t)v;
}

/* The output stack of sample S. */
static uint32_t put_stack(writer *w, const sp_sample *s)
{
	sp_buf_reset(&w->ser);
	for (size_t i = 0; i < s->n_locations; i++) {
		uint32_t x = index_of(&w->loc_index, s->location_ids[i]);
		sp_buf_append(&w->ser, &x, sizeof(x));
	}
	return (uint32_t)sp_strtab_intern(&w->stack_keys, w->ser.data ? w->ser.data : "",
					  w->ser.len) + 1;
}

static uint32_t put_link(writer *w, const char *trace, size_t nt, const char *span, size_t ns)
{
	sp_buf_reset(&w->ser);
	sp_buf_append(&w->ser, &nt, sizeof(nt));
	sp_buf_append(&w->ser, trace, nt);
	sp_buf_append(&w->ser, span, ns);
	return (uint32_t)sp_strtab_intern(&w->link_keys, w->ser.data, w->ser.len) + 1;
}

static bool same_stack(const sp_sample *a, const sp_sample *b)
{
	return a->n_locations == b->n_locations &&
	       (!a->n_locations ||
		!memcmp(a->location_ids, b->location_ids, a->n_locations * sizeof(uint64_t)));
}

/* With extras: each group's samples, the observations read apart from one
 * OTLP sample joined again. */
static void plan_extras(writer *w)
{
	const sp_profile *p = w->p;
	const sp_otel *o = w->o;
	w->n_groups = o->n_groups;
	w->groups = sp_xcalloc(o->n_groups ? o->n_groups : 1, sizeof(*w->groups));
	size_t *count = sp_xcalloc(o->n_groups ? o->n_groups : 1, sizeof(*count));
	for (size_t i = 0; i < o->n_samples; i++)
		if (o->samples[i].group < o->n_groups)
			count[o->samples[i].group]++;
	for (size_t g = 0; g < o->n_groups; g++)
		w->groups[g].idx = sp_xreallocarray(NULL, count[g] ? count[g] : 1, sizeof(uint32_t));
	for (size_t i = 0; i < o->n_samples; i++) {
		out_group *g = o->samples[i].group < o->n_groups ? &w->groups[o->samples[i].group]
								 : NULL;
		if (g)
			g->idx[g->n_idx++] = (uint32_t)i;
	}
	free(count);
	for (size_t g = 0; g < w->n_groups; g++) {
		out_group *G = &w->groups[g];
		size_t cap = 0;
		for (size_t k = 0; k < G->n_idx;) {
			uint32_t i = G->idx[k];
			const sp_otel_sample *os = &o->samples[i];
			size_t e = k + 1;
			while (e < G->n_idx && o->samples[G->idx[e]].origin == os->origin &&
			       !(os->flags & SP_OTEL_NO_VALUES) &&
			       same_stack(&p->samples[i], &p->samples[G->idx[e]]))
				e++;
			out_sample x = {.first = (uint32_t)k, .n = (uint32_t)(e - k),
					.no_values = (os->flags & SP_OTEL_NO_VALUES) != 0};
			x.stack = p->samples[i].n_locations ? put_stack(w, &p->samples[i]) : 0;
			size_t start = w->n_aidx;
			for (uint32_t q = 0; q < os->attrs.n; q++)
				push_aidx(w, put_attr(w, o, o->items[os->attrs.off + q]));
			x.attrs = run_from(w, start);
			if (os->link && os->link <= o->n_links) {
				size_t nt, ns;
				const char *t = sp_otel_str(o, o->links[os->link - 1].trace_id, &nt);
				const char *s = sp_otel_str(o, o->links[os->link - 1].span_id, &ns);
				x.link = put_link(w, t, nt, s, ns);
			}
			x.stamps.off = (uint32_t)w->n_stamps;
			for (size_t q = k; q < e; q++) {
				const sp_otel_sample *qs = &o->samples[G->idx[q]];
				for (uint32_t t = 0; t < qs->stamps.n; t++)
					SP_PUSH(w->stamps, w->n_stamps, w->cap_stamps,
						o->stamps[qs->stamps.off + t]);
			}
			x.stamps.n = (uint32_t)(w->n_stamps - x.stamps.off);
			SP_PUSH(G->s, G->n, cap, x);
			k = e;
		}
	}
}

static bool hex_of(const char *s, size_t want, uint8_t *out)
{
	if (strlen(s) != 2 * want)
		return false;
	for (size_t i = 0; i < want; i++) {
		unsigned v;
		if (sscanf(s + 2 * i, "%2x", &v) != 1 || !isxdigit((unsigned char)s[2 * i]) ||
		    !isxdigit((unsigned char)s[2 * i + 1]))
			return false;
		out[i] = (uint8_t)v;
	}
	return true;
}

/* Without extras: labels become the sample's attributes, timestamps and
 * link (the reverse of the reader's projection). */
static void sample_from_labels(writer *w, const sp_sample *s, out_sample *x)
{
	const sp_profile *p = w->p;
	size_t n = s->n_labels;
	bool *used = sp_xcalloc(n ? n : 1, sizeof(bool));
	/* timestamps: as the reader projects them, when one OTLP sample can
	 * carry them (one, or as many as the sample counts in every column) */
	size_t nts = 0;
	for (size_t i = 0; i < n; i++)
		nts += !strcmp(sp_profile_str(p, s->labels[i].key), SP_OTEL_TIMESTAMP_LABEL) &&
		       !s->labels[i].str &&
		       !strcmp(sp_profile_str(p, s->labels[i].num_unit), "nanoseconds");
	bool counts = nts > 1 && p->n_sample_types;
	for (size_t c = 0; c < p->n_sample_types; c++)
		counts &= s->values[c] == (int64_t)nts;
	x->stamps.off = (uint32_t)w->n_stamps;
	if (nts == 1 || counts) {
		for (size_t i = 0; i < n; i++)
			if (!strcmp(sp_profile_str(p, s->labels[i].key), SP_OTEL_TIMESTAMP_LABEL) &&
			    !s->labels[i].str &&
			    !strcmp(sp_profile_str(p, s->labels[i].num_unit), "nanoseconds")) {
				used[i] = true;
				SP_PUSH(w->stamps, w->n_stamps, w->cap_stamps,
					(uint64_t)s->labels[i].num);
			}
		x->no_values = counts;
	}
	x->stamps.n = (uint32_t)(w->n_stamps - x->stamps.off);
	/* a link: one trace id of 16 bytes and one span id of 8, in hex */
	int ti = -1, si = -1, nti = 0, nsi = 0;
	for (size_t i = 0; i < n; i++) {
		const char *k = sp_profile_str(p, s->labels[i].key);
		if (!strcmp(k, SP_OTEL_TRACE_ID_LABEL) && s->labels[i].str) {
			ti = (int)i;
			nti++;
		} else if (!strcmp(k, SP_OTEL_SPAN_ID_LABEL) && s->labels[i].str) {
			si = (int)i;
			nsi++;
		}
	}
	uint8_t trace[16], span[8];
	if (nti == 1 && nsi == 1 && hex_of(sp_profile_str(p, s->labels[ti].str), 16, trace) &&
	    hex_of(sp_profile_str(p, s->labels[si].str), 8, span)) {
		used[ti] = used[si] = true;
		x->link = put_link(w, (const char *)trace, 16, (const char *)span, 8);
	}
	/* the rest, by key in first-seen order: strings, and numbers of one
	 * unit, each one attribute (an array when several) */
	size_t start = w->n_aidx;
	uint32_t *el = sp_xreallocarray(NULL, n ? n : 1, sizeof(*el));
	for (size_t i = 0; i < n; i++) {
		if (used[i])
			continue;
		const sp_label *l = &s->labels[i];
		bool str = l->str != 0;
		size_t ne = 0;
		for (size_t k = i; k < n; k++) {
			const sp_label *m = &s->labels[k];
			if (used[k] || m->key != l->key || (m->str != 0) != str ||
			    (!str && m->num_unit != l->num_unit))
				continue;
			used[k] = true;
			sp_otel_value v = {.kind = str ? SP_OTEL_STRING : SP_OTEL_INT};
			if (str) {
				const char *t = sp_profile_str(p, m->str);
				v.v.str = sp_otel_string(w->own, t, strlen(t));
			} else {
				v.v.i = m->num;
			}
			el[ne++] = sp_otel_add_value(w->own, &v);
		}
		uint32_t vi = el[0];
		if (ne > 1) {
			sp_otel_value arr = {.kind = SP_OTEL_ARRAY,
					     .v.list = sp_otel_add_items(w->own, el, ne)};
			vi = sp_otel_add_value(w->own, &arr);
		}
		const char *key = sp_profile_str(p, l->key);
		const char *unit = str ? "" : sp_profile_str(p, l->num_unit);
		uint32_t ai = sp_otel_add_attr(w->own, sp_otel_string(w->own, key, strlen(key)),
					       *unit ? sp_otel_string(w->own, unit, strlen(unit)) : 0,
					       vi);
		push_aidx(w, put_attr(w, w->own, ai));
	}
	x->attrs = run_from(w, start);
	free(el);
	free(used);
}

/* Without extras: one group of every sample, one profile per column. */
static void plan_labels(writer *w)
{
	const sp_profile *p = w->p;
	w->n_groups = 1;
	w->groups = sp_xcalloc(1, sizeof(*w->groups));
	out_group *G = &w->groups[0];
	G->idx = sp_xreallocarray(NULL, p->n_samples ? p->n_samples : 1, sizeof(uint32_t));
	G->s = sp_xreallocarray(NULL, p->n_samples ? p->n_samples : 1, sizeof(*G->s));
	for (size_t i = 0; i < p->n_samples; i++) {
		G->idx[i] = (uint32_t)i;
		out_sample x = {.first = (uint32_t)i, .n = 1};
		x.stack = p->samples[i].n_locations ? put_stack(w, &p->samples[i]) : 0;
		sample_from_labels(w, &p->samples[i], &x);
		G->s[i] = x;
	}
	G->n_idx = G->n = p->n_samples;
	/* pprof's profile fields as the semantic conventions keep them */
	size_t start = w->n_aidx;
	const char *keys[3] = {KEY_DROP_FRAMES, KEY_KEEP_FRAMES, KEY_DOC_URL};
	const int64_t vals[3] = {p->drop_frames, p->keep_frames, p->doc_url};
	for (int k = 0; k < 3; k++)
		if (vals[k]) {
			const char *s = sp_profile_str(p, vals[k]);
			push_aidx(w, put_attr(w, w->own, own_string(w, keys[k], s, strlen(s))));
		}
	if (p->n_comments) {
		uint32_t *el = sp_xreallocarray(NULL, p->n_comments, sizeof(*el));
		for (size_t i = 0; i < p->n_comments; i++) {
			const char *s = sp_profile_str(p, p->comments[i]);
			sp_otel_value v = {.kind = SP_OTEL_STRING,
					   .v.str = sp_otel_string(w->own, s, strlen(s))};
			el[i] = sp_otel_add_value(w->own, &v);
		}
		sp_otel_value arr = {.kind = SP_OTEL_ARRAY,
				     .v.list = sp_otel_add_items(w->own, el, p->n_comments)};
		uint32_t ai = sp_otel_add_attr(w->own,
					       sp_otel_string(w->own, KEY_COMMENT, strlen(KEY_COMMENT)),
					       0, sp_otel_add_value(w->own, &arr));
		push_aidx(w, put_attr(w, w->own, ai));
		free(el);
	}
	sp_otel_run prof_attrs = run_from(w, start);
	w->col_attrs = sp_xcalloc(p->n_sample_types ? p->n_sample_types : 1, sizeof(*w->col_attrs));
	for (size_t c = 0; c < p->n_sample_types; c++)
		w->col_attrs[c] = prof_attrs;
	/* the scope's: the default sample type and the columns' order (inline
	 * KeyValues, not the dictionary's) */
	uint32_t sa[2];
	size_t nsa = 0;
	if (p->default_sample_type) {
		const char *s = sp_profile_str(p, p->default_sample_type);
		sa[nsa++] = own_string(w, KEY_DEFAULT_SAMPLE_TYPE, s, strlen(s));
	}
	if (p->n_sample_types > 1) {
		uint32_t *el = sp_xreallocarray(NULL, p->n_sample_types, sizeof(*el));
		for (size_t c = 0; c < p->n_sample_types; c++) {
			sp_otel_value v = {.kind = SP_OTEL_INT, .v.i = (int64_t)c};
			el[c] = sp_otel_add_value(w->own, &v);
		}
		sp_otel_value arr = {.kind = SP_OTEL_ARRAY,
				     .v.list = sp_otel_add_items(w->own, el, p->n_sample_types)};
		sa[nsa++] = sp_otel_add_attr(w->own,
					     sp_otel_string(w->own, KEY_SAMPLE_TYPE_ORDER,
							    strlen(KEY_SAMPLE_TYPE_ORDER)),
					     0, sp_otel_add_value(w->own, &arr));
		free(el);
	}
	w->scope_attrs = sp_otel_add_items(w->own, sa, nsa);
}

/* -- building messages ------------------------------------------------------ */

/* A string for a protobuf-c struct (the output's string fields are
 * allocated, so that protobuf_c_message_free_unpacked frees them). */
static char *pb_strdup(const char *s, size_t n)
{
	return n ? sp_xstrndup(s, n) : (char *)protobuf_c_empty_string;
}

static ProtobufCBinaryData pb_bytes(const char *s, size_t n)
{
	ProtobufCBinaryData b = {0, NULL};
	if (n) {
		b.data = sp_xmalloc(n);
		memcpy(b.data, s, n);
		b.len = n;
	}
	return b;
}

/* Value VI of SRC as a new AnyValue (strings inline). */
static pb_any *build_any(const sp_otel *src, uint32_t vi, int depth)
{
	pb_any *a = (pb_any *)new_message(&otlp__any_value__descriptor);
	const sp_otel_value *v = &src->values[vi];
	size_t n;
	const char *s;
	switch ((sp_otel_kind)v->kind) {
	case SP_OTEL_STRING:
		s = sp_otel_str(src, v->v.str, &n);
		a->value_case = OTLP__ANY_VALUE__VALUE_STRING_VALUE;
		a->string_value = sp_xstrndup(s, n);
		break;
	case SP_OTEL_BOOL:
		a->value_case = OTLP__ANY_VALUE__VALUE_BOOL_VALUE;
		a->bool_value = v->v.b;
		break;
	case SP_OTEL_INT:
		a->value_case = OTLP__ANY_VALUE__VALUE_INT_VALUE;
		a->int_value = v->v.i;
		break;
	case SP_OTEL_DOUBLE:
		a->value_case = OTLP__ANY_VALUE__VALUE_DOUBLE_VALUE;
		a->double_value = v->v.d;
		break;
	case SP_OTEL_BYTES:
		s = sp_otel_str(src, v->v.str, &n);
		a->value_case = OTLP__ANY_VALUE__VALUE_BYTES_VALUE;
		a->bytes_value = pb_bytes(s, n);
		if (!n) { /* protobuf-c leaves out empty bytes: keep the case */
			a->bytes_value.data = sp_xmalloc(1);
			a->bytes_value.len = 0;
		}
		break;
	case SP_OTEL_ARRAY: {
		Otlp__ArrayValue *arr = (Otlp__ArrayValue *)new_message(&otlp__array_value__descriptor);
		arr->n_values = v->v.list.n;
		arr->values = sp_xreallocarray(NULL, arr->n_values ? arr->n_values : 1,
					       sizeof(*arr->values));
		for (size_t i = 0; i < arr->n_values; i++)
			arr->values[i] = depth < OTLP_MAX_DEPTH
						 ? build_any(src, src->items[v->v.list.off + i], depth + 1)
						 : (pb_any *)new_message(&otlp__any_value__descriptor);
		a->value_case = OTLP__ANY_VALUE__VALUE_ARRAY_VALUE;
		a->array_value = arr;
		break;
	}
	case SP_OTEL_KVLIST: {
		Otlp__KeyValueList *l =
			(Otlp__KeyValueList *)new_message(&otlp__key_value_list__descriptor);
		l->n_values = v->v.list.n;
		l->values = sp_xreallocarray(NULL, l->n_values ? l->n_values : 1, sizeof(*l->values));
		for (size_t i = 0; i < l->n_values; i++) {
			uint32_t e = src->items[v->v.list.off + i];
			pb_kv *kv = (pb_kv *)new_message(&otlp__key_value__descriptor);
			s = sp_otel_str(src, src->values[e].key, &n);
			kv->key = pb_strdup(s, n);
			kv->value = depth < OTLP_MAX_DEPTH ? build_any(src, e, depth + 1) : NULL;
			l->values[i] = kv;
		}
		a->value_case = OTLP__ANY_VALUE__VALUE_KVLIST_VALUE;
		a->kvlist_value = l;
		break;
	}
	case SP_OTEL_EMPTY:
		break;
	}
	return a;
}

/* Attributes RUN (items of SRC: attribute indices) as inline KeyValues. */
static pb_kv **build_kvs(const sp_otel *src, sp_otel_run run, size_t *n)
{
	pb_kv **v = sp_xreallocarray(NULL, run.n ? run.n : 1, sizeof(*v));
	for (uint32_t i = 0; i < run.n; i++) {
		const sp_otel_attr *a = &src->attrs[src->items[run.off + i]];
		size_t len;
		const char *k = sp_otel_str(src, a->key, &len);
		v[i] = (pb_kv *)new_message(&otlp__key_value__descriptor);
		v[i]->key = pb_strdup(k, len);
		v[i]->value = build_any(src, a->value, 0);
	}
	*n = run.n;
	return v;
}

static int32_t *build_idx(const writer *w, sp_otel_run run, size_t *n)
{
	int32_t *v = sp_xreallocarray(NULL, run.n ? run.n : 1, sizeof(*v));
	for (uint32_t i = 0; i < run.n; i++)
		v[i] = (int32_t)w->aidx[run.off + i];
	*n = run.n;
	return v;
}

static Otlp__ValueType *build_vt(writer *w, int64_t type, int64_t unit)
{
	Otlp__ValueType *vt = (Otlp__ValueType *)new_message(&otlp__value_type__descriptor);
	const char *t = sp_profile_str(w->p, type), *u = sp_profile_str(w->p, unit);
	vt->type_strindex = (int32_t)out_str(w, t, strlen(t));
	vt->unit_strindex = (int32_t)out_str(w, u, strlen(u));
	return vt;
}

static Otlp__ValueType *build_vt_extras(writer *w, uint32_t type, uint32_t unit)
{
	Otlp__ValueType *vt = (Otlp__ValueType *)new_message(&otlp__value_type__descriptor);
	size_t n;
	const char *s = sp_otel_str(w->o, type, &n);
	vt->type_strindex = (int32_t)out_str(w, s, n);
	s = sp_otel_str(w->o, unit, &n);
	vt->unit_strindex = (int32_t)out_str(w, s, n);
	return vt;
}

/* Output sample X of group G as it goes into the profile of column COL. */
static Otlp__Sample *build_sample(writer *w, const out_group *G, const out_sample *x, uint32_t col)
{
	Otlp__Sample *s = (Otlp__Sample *)new_message(&otlp__sample__descriptor);
	s->stack_index = (int32_t)x->stack;
	s->attribute_indices = build_idx(w, x->attrs, &s->n_attribute_indices);
	s->link_index = (int32_t)x->link;
	if (!x->no_values) {
		s->n_values = x->n;
		s->values = sp_xreallocarray(NULL, x->n, sizeof(*s->values));
		for (uint32_t k = 0; k < x->n; k++)
			s->values[k] = w->p->samples[G->idx[x->first + k]].values[col];
	}
	s->n_timestamps_unix_nano = x->stamps.n;
	s->timestamps_unix_nano = sp_xreallocarray(NULL, x->stamps.n ? x->stamps.n : 1,
						   sizeof(uint64_t));
	if (x->stamps.n)
		memcpy(s->timestamps_unix_nano, w->stamps + x->stamps.off,
		       x->stamps.n * sizeof(uint64_t));
	return s;
}

/* -- the two encodings ------------------------------------------------------
 * A message is written one element at a time, so that memory holds one
 * sample, location or string at a time and not a copy of the profile in
 * protobuf-c's structs: for protobuf, each nested message's length is
 * measured by a first pass through the same code into a counting buffer. */

typedef struct {
	ProtobufCBuffer base;
	sp_sink *sink;   /* NULL: count only */
	uint64_t count;
} outbuf;

static void outbuf_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	outbuf *o = (outbuf *)b;
	o->count += len;
	if (o->sink)
		sp_sink_write(o->sink, data, len);
}

static void put_varint(outbuf *b, uint64_t v)
{
	uint8_t buf[10];
	size_t n = 0;
	do {
		buf[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	b->base.append(&b->base, n, buf);
}

/* JSON output state. */
typedef struct {
	sp_sink *sink;
	bool json;
	outbuf pb;
	bool first; /* JSON: no comma before the next member or element */
} emit;

static void json_message_out(sp_sink *s, const ProtobufCMessage *m, bool braces);

/* The protobuf JSON mapping of field FD's value at SLOT. */
static void json_value_out(sp_sink *s, const ProtobufCFieldDescriptor *fd, const void *slot)
{
	char buf[64];
	switch (fd->type) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32:
		sp_sink_printf(s, "%" PRId32, *(const int32_t *)slot);
		break;
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_FIXED32:
		sp_sink_printf(s, "%" PRIu32, *(const uint32_t *)slot);
		break;
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
		sp_sink_printf(s, "\"%" PRId64 "\"", *(const int64_t *)slot);
		break;
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
		sp_sink_printf(s, "\"%" PRIu64 "\"", *(const uint64_t *)slot);
		break;
	case PROTOBUF_C_TYPE_DOUBLE:
	case PROTOBUF_C_TYPE_FLOAT: {
		double d = fd->type == PROTOBUF_C_TYPE_FLOAT ? *(const float *)slot
							     : *(const double *)slot;
		if (isnan(d))
			sp_sink_puts(s, "\"NaN\"");
		else if (isinf(d))
			sp_sink_puts(s, d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
		else {
			snprintf(buf, sizeof(buf), "%.17g", d);
			sp_sink_puts(s, buf);
		}
		break;
	}
	case PROTOBUF_C_TYPE_BOOL:
		sp_sink_puts(s, *(const protobuf_c_boolean *)slot ? "true" : "false");
		break;
	case PROTOBUF_C_TYPE_ENUM:
		sp_sink_printf(s, "%d", *(const int *)slot);
		break;
	case PROTOBUF_C_TYPE_STRING: {
		const char *str = *(char *const *)slot;
		sp_json_put_string(s, str, strlen(str));
		break;
	}
	case PROTOBUF_C_TYPE_BYTES: {
		const ProtobufCBinaryData *b = slot;
		static const char b64[] =
			"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
		sp_sink_putc(s, '"');
		if (hex_field(fd)) {
			char *h = sp_hex_string(b->data, b->len);
			sp_sink_puts(s, h);
			free(h);
		} else {
			for (size_t i = 0; i < b->len; i += 3) {
				uint32_t v = (uint32_t)b->data[i] << 16;
				size_t r = b->len - i;
				if (r > 1)
					v |= (uint32_t)b->data[i + 1] << 8;
				if (r > 2)
					v |= b->data[i + 2];
				char q[4] = {b64[v >> 18], b64[v >> 12 & 63], r > 1 ? b64[v >> 6 & 63] : '=',
					     r > 2 ? b64[v & 63] : '='};
				sp_sink_write(s, q, 4);
			}
		}
		sp_sink_putc(s, '"');
		break;
	}
	case PROTOBUF_C_TYPE_MESSAGE:
		json_message_out(s, *(ProtobufCMessage *const *)slot, true);
		break;
	}
}

/* Whether scalar field FD at SLOT holds its default (left out of JSON). */
static bool json_default(const ProtobufCFieldDescriptor *fd, const void *slot)
{
	switch (fd->type) {
	case PROTOBUF_C_TYPE_STRING:
		return !**(char *const *)slot;
	case PROTOBUF_C_TYPE_BYTES:
		return !((const ProtobufCBinaryData *)slot)->len;
	case PROTOBUF_C_TYPE_MESSAGE:
		return !*(void *const *)slot;
	default: {
		static const uint8_t zero[8];
		return !memcmp(slot, zero, elem_size(fd->type));
	}
	}
}

/* M's fields as JSON members (in braces when BRACES), defaults left out
 * as the mapping allows; the members of a oneof only when set. */
static void json_message_out(sp_sink *s, const ProtobufCMessage *m, bool braces)
{
	const ProtobufCMessageDescriptor *d = m->descriptor;
	sp_buf name = {0};
	bool first = true;
	if (braces)
		sp_sink_putc(s, '{');
	for (unsigned i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *fd = &d->fields[i];
		const void *slot = (const char *)m + fd->offset;
		size_t n = 0;
		if (fd->label == PROTOBUF_C_LABEL_REPEATED) {
			n = MEMBER(m, fd->quantifier_offset, size_t);
			if (!n)
				continue;
		} else if (fd->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
			if (MEMBER(m, fd->quantifier_offset, uint32_t) != fd->id)
				continue;
		} else if (json_default(fd, slot)) {
			continue;
		}
		sp_buf_reset(&name);
		camel(fd->name, &name);
		if (!braces || !first)
			sp_sink_putc(s, ',');
		first = false;
		sp_json_put_string(s, name.data, name.len);
		sp_sink_putc(s, ':');
		if (fd->label != PROTOBUF_C_LABEL_REPEATED) {
			json_value_out(s, fd, slot);
			continue;
		}
		const char *arr = *(char *const *)slot;
		size_t esz = elem_size(fd->type);
		sp_sink_putc(s, '[');
		for (size_t k = 0; k < n; k++) {
			if (k)
				sp_sink_putc(s, ',');
			json_value_out(s, fd, arr + k * esz);
		}
		sp_sink_putc(s, ']');
	}
	if (braces)
		sp_sink_putc(s, '}');
	sp_buf_free(&name);
}

/* One element of repeated message field NUM (JSON name NAME). */
static void put_message(emit *e, uint32_t num, const ProtobufCMessage *m)
{
	if (e->json) {
		if (!e->first)
			sp_sink_putc(e->sink, ',');
		e->first = false;
		json_message_out(e->sink, m, true);
		return;
	}
	put_varint(&e->pb, (uint64_t)num << 3 | 2);
	put_varint(&e->pb, protobuf_c_message_get_packed_size(m));
	protobuf_c_message_pack_to_buffer(m, &e->pb.base);
}

/* The fields of M outside a stream of elements: JSON members after those
 * written (a comma first), or packed protobuf. */
static void put_fields(emit *e, const ProtobufCMessage *m)
{
	if (e->json)
		json_message_out(e->sink, m, false);
	else
		protobuf_c_message_pack_to_buffer(m, &e->pb.base);
}

static void free_msg(ProtobufCMessage *m)
{
	protobuf_c_message_free_unpacked(m, &pb_allocator);
}

/* Opens repeated field NUM of LEN bytes (protobuf: one element's tag and
 * length; JSON: "name":[ ). */
static void open_field(emit *e, uint32_t num, const char *jname, uint64_t len, bool comma)
{
	if (e->json) {
		sp_sink_printf(e->sink, "%s\"%s\":[", comma ? "," : "", jname);
		e->first = true;
		return;
	}
	put_varint(&e->pb, (uint64_t)num << 3 | 2);
	put_varint(&e->pb, len);
}

/* Starts table NUM of the dictionary: in JSON "jname":[ (after the previous
 * table's closing bracket unless FIRST); with ZERO, its element 0 as an
 * empty message. */
static void open_table(emit *e, uint32_t num, const char *jname, bool first, bool zero)
{
	if (e->json) {
		sp_sink_printf(e->sink, "%s\"%s\":[%s", first ? "" : "],", jname, zero ? "{}" : "");
		e->first = !zero;
	} else if (zero) {
		put_varint(&e->pb, (uint64_t)num << 3 | 2);
		put_varint(&e->pb, 0);
	}
}

/* mapping_table (1) */
static void put_mappings(writer *w, emit *e)
{
	const sp_profile *p = w->p;
	open_table(e, 1, "mappingTable", true, true);
	for (size_t i = 0; i < p->n_mappings; i++) {
		const sp_mapping *m = &p->mappings[i];
		Otlp__Mapping *o = (Otlp__Mapping *)new_message(&otlp__mapping__descriptor);
		o->memory_start = m->memory_start;
		o->memory_limit = m->memory_limit;
		o->file_offset = m->file_offset;
		const char *f = sp_profile_str(p, m->filename);
		o->filename_strindex = (int32_t)out_str(w, f, strlen(f));
		o->attribute_indices = build_idx(w, w->map_attrs[i], &o->n_attribute_indices);
		put_message(e, 1, &o->base);
		free_msg(&o->base);
	}
}

/* location_table (2) */
static void put_locations(writer *w, emit *e)
{
	const sp_profile *p = w->p;
	open_table(e, 2, "locationTable", false, true);
	for (size_t i = 0; i < p->n_locations; i++) {
		const sp_location *l = &p->locations[i];
		Otlp__Location *o = (Otlp__Location *)new_message(&otlp__location__descriptor);
		o->mapping_index = l->mapping_id ? (int32_t)index_of(&w->map_index, l->mapping_id) : 0;
		o->address = l->address;
		o->n_lines = l->n_lines;
		o->lines = sp_xreallocarray(NULL, l->n_lines ? l->n_lines : 1, sizeof(*o->lines));
		for (size_t k = 0; k < l->n_lines; k++) {
			Otlp__Line *ln = (Otlp__Line *)new_message(&otlp__line__descriptor);
			ln->function_index = (int32_t)index_of(&w->fn_index, l->lines[k].function_id);
			ln->line = l->lines[k].line;
			ln->column = l->lines[k].column;
			o->lines[k] = ln;
		}
		o->attribute_indices = build_idx(w, w->loc_attrs[i], &o->n_attribute_indices);
		put_message(e, 2, &o->base);
		free_msg(&o->base);
	}
}

/* function_table (3) */
static void put_functions(writer *w, emit *e)
{
	const sp_profile *p = w->p;
	open_table(e, 3, "functionTable", false, true);
	for (size_t i = 0; i < p->n_functions; i++) {
		const sp_function *f = &p->functions[i];
		Otlp__Function o = OTLP__FUNCTION__INIT;
		const char *s = sp_profile_str(p, f->name);
		o.name_strindex = (int32_t)out_str(w, s, strlen(s));
		s = sp_profile_str(p, f->system_name);
		o.system_name_strindex = (int32_t)out_str(w, s, strlen(s));
		s = sp_profile_str(p, f->filename);
		o.filename_strindex = (int32_t)out_str(w, s, strlen(s));
		o.start_line = f->start_line;
		put_message(e, 3, &o.base);
	}
}

/* link_table (4): element 0 with ids of 16 and 8 zero bytes, as the
 * message's comment prefers */
static void put_links(writer *w, emit *e)
{
	open_table(e, 4, "linkTable", false, false);
	static const uint8_t zeros[16];
	Otlp__Link zl = OTLP__LINK__INIT;
	zl.trace_id = (ProtobufCBinaryData){16, (uint8_t *)zeros};
	zl.span_id = (ProtobufCBinaryData){8, (uint8_t *)zeros};
	put_message(e, 4, &zl.base);
	for (size_t i = 0; i < w->link_keys.n; i++) {
		const char *k = w->link_keys.strs[i];
		size_t nt;
		memcpy(&nt, k, sizeof(nt));
		Otlp__Link o = OTLP__LINK__INIT;
		o.trace_id = (ProtobufCBinaryData){nt, (uint8_t *)k + sizeof(nt)};
		o.span_id = (ProtobufCBinaryData){w->link_keys.lens[i] - sizeof(nt) - nt,
						  (uint8_t *)k + sizeof(nt) + nt};
		put_message(e, 4, &o.base);
	}
}

/* string_table (5) */
static void put_strings(writer *w, emit *e)
{
	open_table(e, 5, "stringTable", false, false);
	for (size_t i = 0; i < w->strs.n; i++) {
		if (e->json) {
			if (i)
				sp_sink_putc(e->sink, ',');
			sp_json_put_string(e->sink, w->strs.strs[i], w->strs.lens[i]);
		} else {
			put_varint(&e->pb, 5 << 3 | 2);
			put_varint(&e->pb, w->strs.lens[i]);
			e->pb.base.append(&e->pb.base, w->strs.lens[i], (const uint8_t *)w->strs.strs[i]);
		}
	}
}

/* attribute_table (6) */
static void put_attributes(writer *w, emit *e)
{
	open_table(e, 6, "attributeTable", false, true);
	for (size_t i = 0; i < w->n_attrs; i++) {
		const sp_otel *src = w->attrs[i].src;
		const sp_otel_attr *a = &src->attrs[w->attrs[i].attr];
		Otlp__KeyValueAndUnit o = OTLP__KEY_VALUE_AND_UNIT__INIT;
		size_t n;
		const char *s = sp_otel_str(src, a->key, &n);
		o.key_strindex = (int32_t)sp_strtab_find(&w->strs, s, n);
		s = sp_otel_str(src, a->unit, &n);
		o.unit_strindex = a->unit ? (int32_t)sp_strtab_find(&w->strs, s, n) : 0;
		o.value = build_any(src, a->value, 0);
		put_message(e, 6, &o.base);
		free_msg(&o.value->base);
	}
}

/* stack_table (7) */
static void put_stacks(writer *w, emit *e)
{
	open_table(e, 7, "stackTable", false, true);
	for (size_t i = 0; i < w->stack_keys.n; i++) {
		Otlp__Stack o = OTLP__STACK__INIT;
		o.n_location_indices = w->stack_keys.lens[i] / sizeof(uint32_t);
		int32_t *v = sp_xreallocarray(NULL, o.n_location_indices ? o.n_location_indices : 1,
					      sizeof(*v));
		memcpy(v, w->stack_keys.strs[i], o.n_location_indices * sizeof(*v));
		o.location_indices = v;
		put_message(e, 7, &o.base);
		free(v);
	}
}

/* The dictionary (field 2 of ProfilesData); in JSON as "dictionary":{...}. */
static void put_dictionary(writer *w, emit *e)
{
	if (e->json)
		sp_sink_puts(e->sink, "\"dictionary\":{");
	put_mappings(w, e);
	put_locations(w, e);
	put_functions(w, e);
	put_links(w, e);
	put_strings(w, e);
	put_attributes(w, e);
	put_stacks(w, e);
	if (e->json)
		sp_sink_puts(e->sink, "]}");
}

/* The strings every part of the output uses, interned before anything is
 * written (the string table is the dictionary's, written last but one, and
 * the attribute table refers to it). */
static void intern_strings(writer *w)
{
	const sp_profile *p = w->p;
	out_str(w, "", 0);
	for (size_t i = 0; i < p->n_mappings; i++) {
		const char *f = sp_profile_str(p, p->mappings[i].filename);
		out_str(w, f, strlen(f));
	}
	for (size_t i = 0; i < p->n_functions; i++) {
		const int64_t f[3] = {p->functions[i].name, p->functions[i].system_name,
				      p->functions[i].filename};
		for (int k = 0; k < 3; k++) {
			const char *s = sp_profile_str(p, f[k]);
			out_str(w, s, strlen(s));
		}
	}
	for (size_t i = 0; i < w->n_attrs; i++) {
		const sp_otel *src = w->attrs[i].src;
		const sp_otel_attr *a = &src->attrs[w->attrs[i].attr];
		size_t n;
		const char *s = sp_otel_str(src, a->key, &n);
		out_str(w, s, n);
		if (a->unit) {
			s = sp_otel_str(src, a->unit, &n);
			out_str(w, s, n);
		}
	}
	for (size_t c = 0; c < p->n_sample_types; c++) {
		const char *s = sp_profile_str(p, p->sample_types[c].type);
		out_str(w, s, strlen(s));
		s = sp_profile_str(p, p->sample_types[c].unit);
		out_str(w, s, strlen(s));
	}
	const char *s = sp_profile_str(p, p->period_type.type);
	out_str(w, s, strlen(s));
	s = sp_profile_str(p, p->period_type.unit);
	out_str(w, s, strlen(s));
	for (size_t i = 0; w->o && i < w->o->n_profiles; i++) {
		size_t n;
		s = sp_otel_str(w->o, w->o->profiles[i].period_type, &n);
		out_str(w, s, n);
		s = sp_otel_str(w->o, w->o->profiles[i].period_unit, &n);
		out_str(w, s, n);
	}
}

/* The samples of one profile: those of group G in column COL. */
static void put_samples(writer *w, emit *e, const out_group *G, uint32_t col)
{
	for (size_t i = 0; i < G->n; i++) {
		Otlp__Sample *s = build_sample(w, G, &G->s[i], col);
		put_message(e, 2, &s->base);
		free_msg(&s->base);
	}
}

/* The output's tree of resources, scopes and profiles (small: the samples
 * are written from their groups), with each one's protobuf size. */
typedef struct {
	const out_group *G;
	uint32_t col;
	const sp_otel_profile *x; /* extras, or NULL */
	sp_otel_run attrs;        /* output attribute indices */
	Otlp__Profile head, tail; /* sample_type alone; the other fields */
	uint64_t size;
} oprof;

typedef struct {
	Otlp__ScopeProfiles head, tail; /* scope alone; schema_url */
	oprof *p;
	size_t np;
	uint64_t size;
} oscope;

typedef struct {
	Otlp__ResourceProfiles head, tail; /* resource alone; schema_url */
	oscope *s;
	size_t ns;
	uint64_t size;
} ores;

/* Frees the fields of M (a struct of the caller's, not allocated). */
static void free_fields(const ProtobufCMessage *m)
{
	ProtobufCMessage *copy = sp_xmalloc(m->descriptor->sizeof_message);
	memcpy(copy, m, m->descriptor->sizeof_message);
	free_msg(copy);
}

static void build_profile(writer *w, oprof *r)
{
	const sp_profile *p = w->p;
	Otlp__Profile *head = &r->head, *tail = &r->tail;
	*head = (Otlp__Profile)OTLP__PROFILE__INIT;
	*tail = (Otlp__Profile)OTLP__PROFILE__INIT;
	head->sample_type = build_vt(w, p->sample_types[r->col].type, p->sample_types[r->col].unit);
	if (r->x) {
		const sp_otel_profile *x = r->x;
		const sp_otel *o = w->o;
		size_t n;
		const char *s;
		tail->time_unix_nano = x->time_unix_nano;
		tail->duration_nano = x->duration_nano;
		if (x->period_type || x->period_unit)
			tail->period_type = build_vt_extras(w, x->period_type, x->period_unit);
		tail->period = x->period;
		s = sp_otel_str(o, x->profile_id, &n);
		tail->profile_id = pb_bytes(s, n);
		tail->dropped_attributes_count = x->dropped_attributes_count;
		s = sp_otel_str(o, x->original_payload_format, &n);
		tail->original_payload_format = pb_strdup(s, n);
		s = sp_otel_str(o, x->original_payload, &n);
		tail->original_payload = pb_bytes(s, n);
	} else {
		tail->time_unix_nano = (uint64_t)p->time_nanos;
		tail->duration_nano = (uint64_t)p->duration_nanos;
		if (p->period_type.type || p->period_type.unit)
			tail->period_type = build_vt(w, p->period_type.type, p->period_type.unit);
		tail->period = p->period;
	}
	tail->attribute_indices = build_idx(w, r->attrs, &tail->n_attribute_indices);
}

static void build_scope(writer *w, const sp_otel_scope *x, oscope *s)
{
	Otlp__ScopeProfiles *head = &s->head, *tail = &s->tail;
	*head = (Otlp__ScopeProfiles)OTLP__SCOPE_PROFILES__INIT;
	*tail = (Otlp__ScopeProfiles)OTLP__SCOPE_PROFILES__INIT;
	Otlp__InstrumentationScope *is =
		(Otlp__InstrumentationScope *)new_message(&otlp__instrumentation_scope__descriptor);
	size_t n;
	const char *str;
	if (x) {
		str = sp_otel_str(w->o, x->name, &n);
		is->name = pb_strdup(str, n);
		str = sp_otel_str(w->o, x->version, &n);
		is->version = pb_strdup(str, n);
		is->attributes = build_kvs(w->o, x->attrs, &is->n_attributes);
		is->dropped_attributes_count = x->dropped_attributes_count;
		str = sp_otel_str(w->o, x->schema_url, &n);
		tail->schema_url = pb_strdup(str, n);
	} else {
		is->attributes = build_kvs(w->own, w->scope_attrs, &is->n_attributes);
	}
	head->scope = is;
}

static Otlp__Resource *build_resource(writer *w, const sp_otel_resource *x)
{
	Otlp__Resource *r = (Otlp__Resource *)new_message(&otlp__resource__descriptor);
	r->attributes = build_kvs(w->o, x->attrs, &r->n_attributes);
	r->dropped_attributes_count = x->dropped_attributes_count;
	r->n_entity_refs = x->entity_refs.n;
	r->entity_refs = sp_xreallocarray(NULL, x->entity_refs.n ? x->entity_refs.n : 1,
					  sizeof(*r->entity_refs));
	for (uint32_t i = 0; i < x->entity_refs.n; i++) {
		Otlp__EntityRef *er = (Otlp__EntityRef *)new_message(&otlp__entity_ref__descriptor);
		const sp_otel_value *lv = &w->o->values[w->o->items[x->entity_refs.off + i]];
		for (uint32_t f = 0; lv->kind == SP_OTEL_KVLIST && f < lv->v.list.n; f++) {
			const sp_otel_value *m = &w->o->values[w->o->items[lv->v.list.off + f]];
			const char *k = sp_otel_str(w->o, m->key, NULL);
			size_t n;
			if (m->kind == SP_OTEL_STRING) {
				const char *s = sp_otel_str(w->o, m->v.str, &n);
				if (!strcmp(k, "schema_url"))
					er->schema_url = pb_strdup(s, n);
				else if (!strcmp(k, "type"))
					er->type = pb_strdup(s, n);
			} else if (m->kind == SP_OTEL_ARRAY) {
				char **ks = sp_xreallocarray(NULL, m->v.list.n ? m->v.list.n : 1,
							     sizeof(*ks));
				for (uint32_t q = 0; q < m->v.list.n; q++) {
					const sp_otel_value *sv =
						&w->o->values[w->o->items[m->v.list.off + q]];
					const char *s = sp_otel_str(w->o, sv->v.str, &n);
					ks[q] = sp_xstrndup(s, n);
				}
				if (!strcmp(k, "id_keys")) {
					free(er->id_keys);
					er->id_keys = ks;
					er->n_id_keys = m->v.list.n;
				} else {
					free(er->description_keys);
					er->description_keys = ks;
					er->n_description_keys = m->v.list.n;
				}
			}
		}
		r->entity_refs[i] = er;
	}
	return r;
}

/* The tree: with extras, theirs; without, one resource, one scope, one
 * profile per column.  Attributes of profiles are interned here, before
 * anything is written. */
static ores *plan_tree(writer *w, size_t *n_res)
{
	const sp_profile *p = w->p;
	size_t nr = w->o ? w->o->n_resources : 1;
	ores *res = sp_xcalloc(nr ? nr : 1, sizeof(*res));
	for (size_t ri = 0; ri < nr; ri++) {
		ores *R = &res[ri];
		R->head = (Otlp__ResourceProfiles)OTLP__RESOURCE_PROFILES__INIT;
		R->tail = (Otlp__ResourceProfiles)OTLP__RESOURCE_PROFILES__INIT;
		size_t cap = 0;
		if (!w->o) {
			sp_grow(&R->s, &cap, 1, sizeof(*R->s));
			R->ns = 1;
			oscope *S = &R->s[0];
			memset(S, 0, sizeof(*S));
			build_scope(w, NULL, S);
			size_t pcap = 0;
			for (uint32_t c = 0; c < p->n_sample_types; c++) {
				oprof x = {.G = &w->groups[0], .col = c, .attrs = w->col_attrs[c]};
				SP_PUSH(S->p, S->np, pcap, x);
			}
			continue;
		}
		const sp_otel_resource *xr = &w->o->resources[ri];
		R->head.resource = build_resource(w, xr);
		size_t n;
		const char *s = sp_otel_str(w->o, xr->schema_url, &n);
		R->tail.schema_url = pb_strdup(s, n);
		for (size_t si = 0; si < w->o->n_scopes; si++) {
			if (w->o->scopes[si].resource != ri)
				continue;
			oscope S = {0};
			build_scope(w, &w->o->scopes[si], &S);
			size_t pcap = 0;
			for (size_t g = 0; g < w->o->n_groups; g++) {
				const sp_otel_group *G = &w->o->groups[g];
				for (uint32_t k = 0; k < G->n; k++) {
					const sp_otel_profile *xp = &w->o->profiles[G->first + k];
					if (xp->scope != si || xp->column >= p->n_sample_types)
						continue;
					size_t start = w->n_aidx;
					for (uint32_t q = 0; q < xp->attrs.n; q++)
						push_aidx(w, put_attr(w, w->o,
								      w->o->items[xp->attrs.off + q]));
					oprof x = {.G = &w->groups[g], .col = xp->column, .x = xp,
						   .attrs = run_from(w, start)};
					SP_PUSH(S.p, S.np, pcap, x);
				}
			}
			SP_PUSH(R->s, R->ns, cap, S);
		}
	}
	*n_res = nr;
	return res;
}

/* Builds every profile's fields (after the strings of the rest). */
static void build_tree(writer *w, ores *res, size_t nr)
{
	for (size_t ri = 0; ri < nr; ri++)
		for (size_t si = 0; si < res[ri].ns; si++)
			for (size_t k = 0; k < res[ri].s[si].np; k++)
				build_profile(w, &res[ri].s[si].p[k]);
}

static void free_tree(ores *res, size_t nr)
{
	for (size_t ri = 0; ri < nr; ri++) {
		ores *R = &res[ri];
		for (size_t si = 0; si < R->ns; si++) {
			oscope *S = &R->s[si];
			for (size_t k = 0; k < S->np; k++) {
				free_fields(&S->p[k].head.base);
				free_fields(&S->p[k].tail.base);
			}
			free(S->p);
			free_fields(&S->head.base);
			free_fields(&S->tail.base);
		}
		free(R->s);
		free_fields(&R->head.base);
		free_fields(&R->tail.base);
	}
	free(res);
}

/* JSON: members of M after '{' (FIRST: none written yet). */
static void json_members(emit *e, const ProtobufCMessage *m, bool *first)
{
	sp_sink *s = e->sink;
	sp_sink *mem = sp_sink_memory_new();
	json_message_out(mem, m, false); /* ",a:..,b:.." */
	size_t n;
	const uint8_t *d = sp_sink_memory_data(mem, &n);
	if (n) {
		if (*first) {
			d++;
			n--;
		}
		sp_sink_write(s, d, n);
		*first = false;
	}
	sp_sink_free(mem);
}

static uint64_t varint_size(uint64_t v)
{
	uint64_t n = 1;
	for (; v > 0x7f; v >>= 7)
		n++;
	return n;
}

static uint64_t element_size(uint64_t len)
{
	return 1 + varint_size(len) + len;
}

/* Profile R's protobuf bytes (as ScopeProfiles.profiles' element
 * content), or JSON object. */
static void put_profile(writer *w, emit *e, const oprof *r)
{
	if (e->json) {
		bool first = true;
		if (!e->first)
			sp_sink_putc(e->sink, ',');
		sp_sink_putc(e->sink, '{');
		json_members(e, &r->head.base, &first);
		sp_sink_printf(e->sink, "%s\"samples\":[", first ? "" : ",");
		e->first = true;
		put_samples(w, e, r->G, r->col);
		sp_sink_putc(e->sink, ']');
		first = false;
		json_members(e, &r->tail.base, &first);
		sp_sink_putc(e->sink, '}');
		e->first = false;
		return;
	}
	put_fields(e, &r->head.base);
	put_samples(w, e, r->G, r->col);
	put_fields(e, &r->tail.base);
}

/* The sizes of every profile, scope and resource: each profile's samples
 * are encoded once for this. */
static void measure_tree(writer *w, ores *res, size_t nr)
{
	for (size_t ri = 0; ri < nr; ri++) {
		ores *R = &res[ri];
		uint64_t rs = protobuf_c_message_get_packed_size(&R->head.base) +
			      protobuf_c_message_get_packed_size(&R->tail.base);
		for (size_t si = 0; si < R->ns; si++) {
			oscope *S = &R->s[si];
			uint64_t ss = protobuf_c_message_get_packed_size(&S->head.base) +
				      protobuf_c_message_get_packed_size(&S->tail.base);
			for (size_t k = 0; k < S->np; k++) {
				emit m = {.pb = {.base = {.append = outbuf_append}}};
				put_profile(w, &m, &S->p[k]);
				S->p[k].size = m.pb.count;
				ss += element_size(S->p[k].size);
			}
			S->size = ss;
			rs += element_size(ss);
		}
		R->size = rs;
	}
}

static void put_tree(writer *w, emit *e, ores *res, size_t nr)
{
	if (e->json) {
		sp_sink_puts(e->sink, "{\"resourceProfiles\":[");
		for (size_t ri = 0; ri < nr; ri++) {
			ores *R = &res[ri];
			bool first = true;
			sp_sink_puts(e->sink, ri ? ",{" : "{");
			json_members(e, &R->head.base, &first);
			sp_sink_printf(e->sink, "%s\"scopeProfiles\":[", first ? "" : ",");
			for (size_t si = 0; si < R->ns; si++) {
				oscope *S = &R->s[si];
				bool sfirst = true;
				sp_sink_puts(e->sink, si ? ",{" : "{");
				json_members(e, &S->head.base, &sfirst);
				sp_sink_printf(e->sink, "%s\"profiles\":[", sfirst ? "" : ",");
				e->first = true;
				for (size_t k = 0; k < S->np; k++)
					put_profile(w, e, &S->p[k]);
				sp_sink_putc(e->sink, ']');
				sfirst = false;
				json_members(e, &S->tail.base, &sfirst);
				sp_sink_putc(e->sink, '}');
			}
			sp_sink_putc(e->sink, ']');
			first = false;
			json_members(e, &R->tail.base, &first);
			sp_sink_putc(e->sink, '}');
		}
		sp_sink_puts(e->sink, "],");
		put_dictionary(w, e);
		sp_sink_puts(e->sink, "}\n");
		return;
	}
	for (size_t ri = 0; ri < nr; ri++) {
		ores *R = &res[ri];
		open_field(e, 1, "", R->size, false);
		put_fields(e, &R->head.base);
		for (size_t si = 0; si < R->ns; si++) {
			oscope *S = &R->s[si];
			open_field(e, 2, "", S->size, false);
			put_fields(e, &S->head.base);
			for (size_t k = 0; k < S->np; k++) {
				open_field(e, 2, "", S->p[k].size, false);
				put_profile(w, e, &S->p[k]);
			}
			put_fields(e, &S->tail.base);
		}
		put_fields(e, &R->tail.base);
	}
	emit m = {.pb = {.base = {.append = outbuf_append}}};
	put_dictionary(w, &m);
	open_field(e, 2, "", m.pb.count, false);
	put_dictionary(w, e);
}

static void writer_free(writer *w)
{
	sp_otel_free(w->own);
	sp_strtab_free(&w->strs);
	sp_strtab_free(&w->attr_keys);
	sp_strtab_free(&w->stack_keys);
	sp_strtab_free(&w->link_keys);
	free(w->attrs);
	free(w->aidx);
	free(w->stamps);
	free(w->map_attrs);
	free(w->loc_attrs);
	sp_u64map_free(&w->map_index.map);
	sp_u64map_free(&w->loc_index.map);
	sp_u64map_free(&w->fn_index.map);
	for (size_t g = 0; g < w->n_groups; g++) {
		free(w->groups[g].idx);
		free(w->groups[g].s);
	}
	free(w->groups);
	free(w->col_attrs);
	sp_buf_free(&w->tmp);
	sp_buf_free(&w->ser);
}

sp_error *sp_otlp_write(const sp_profile *p, sp_otlp_encoding enc, sp_sink *out)
{
	sp_error *err = sp_profile_check_for_protobuf(p, "OTLP output");
	if (err)
		return err;
	writer w = {.p = p, .o = sp_otel_describes(p) ? p->otel : NULL, .own = sp_otel_new()};
	entity_attrs(&w);
	if (w.o)
		plan_extras(&w);
	else
		plan_labels(&w);
	size_t nr;
	ores *tree = plan_tree(&w, &nr);
	intern_strings(&w);
	build_tree(&w, tree, nr);
	sp_sink *gz = enc == SP_OTLP_PROTO_GZ ? sp_sink_gzip_new(out) : NULL;
	emit e = {.sink = gz ? gz : out, .json = enc == SP_OTLP_JSON,
		  .pb = {.base = {.append = outbuf_append}, .sink = gz ? gz : out}};
	if (!e.json)
		measure_tree(&w, tree, nr);
	put_tree(&w, &e, tree, nr);
	free_tree(tree, nr);
	writer_free(&w);
	if (gz) {
		err = sp_sink_finish(gz);
		sp_sink_free(gz);
		if (err)
			return sp_error_prefix(err, "OTLP output");
	}
	return NULL;
}
