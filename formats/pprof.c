/* pprof.c — reads and writes pprof's profile.proto (spec/FORMATS.md §1).
 *
 * The input is a serialized perftools.profiles.Profile, usually gzipped:
 *
 *   0a 04 08 01 10 02        sample_type { type: 1 unit: 2 }
 *   32 00 32 07 "samples"    string_table: "", "samples",
 *   32 05 "count"            "count"
 *
 * Reading walks the wire format by hand instead of using protobuf-c's
 * unpacker, which fails without saying why: every wire-level error names
 * the byte offset, the field and what was expected, and has the root code
 * SP_E_UNRECOGNIZED so that detection can still try the text formats.  The
 * profile is built straight from the wire data, keeping the file's own
 * string table order so its indices stay valid.  Semantic errors found
 * after a clean decode (dangling or duplicate ids) are "mine but broken".
 *
 * Memory follows what has been read: the Profile message, and each Sample
 * and Location in it, is counted before it is stored, so that each of its
 * arrays is allocated once at its size, and values and location ids go to
 * the profile's sample storage rather than a malloc each.  What remains
 * per message is the model's own struct: a 4-byte sample takes its 40-byte
 * sp_sample and an 8-byte value, 12 times its size (tests/cli/limits.sh
 * bounds it).
 *
 * Writing goes through the structs protoc-c generates from
 * proto/profile.proto; this is the only file that includes protobuf-c.
 */
#include "formats/formats.h"
#include "formats/proto/profile.pb-c.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest decompressed profile accepted when the input is still gzipped. */
#define PPROF_MAX_GUNZIP ((size_t)1 << 31)

/* ------------------------------------------------------------------------ */
/* Wire walking                                                             */

typedef struct {
	const char *name;        /* message name; NULL for Profile */
	const char *const *fields; /* field names by number */
	size_t n_fields;
} msg_desc;

static const char *const profile_fields[] = {
	NULL, "sample_type", "sample", "mapping", "location", "function", "string_table",
	"drop_frames", "keep_frames", "time_nanos", "duration_nanos", "period_type", "period",
	"comment", "default_sample_type", "doc_url",
};
static const char *const value_type_fields[] = {NULL, "type", "unit"};
static const char *const sample_fields[] = {NULL, "location_id", "value", "label"};
static const char *const label_fields[] = {NULL, "key", "str", "num", "num_unit"};
static const char *const mapping_fields[] = {
	NULL, "id", "memory_start", "memory_limit", "file_offset", "filename", "build_id",
	"has_functions", "has_filenames", "has_line_numbers", "has_inline_frames",
};
static const char *const location_fields[] = {NULL, "id", "mapping_id", "address", "line",
					       "is_folded"};
static const char *const line_fields[] = {NULL, "function_id", "line", "column"};
static const char *const function_fields[] = {NULL, "id", "name", "system_name", "filename",
					       "start_line"};

#define DESC(n, f) {n, f, SP_ARRAY_LEN(f)}
static const msg_desc profile_desc = DESC(NULL, profile_fields);
static const msg_desc value_type_desc = DESC("ValueType", value_type_fields);
static const msg_desc sample_desc = DESC("Sample", sample_fields);
static const msg_desc label_desc = DESC("Label", label_fields);
static const msg_desc mapping_desc = DESC("Mapping", mapping_fields);
static const msg_desc location_desc = DESC("Location", location_fields);
static const msg_desc line_desc = DESC("Line", line_fields);
static const msg_desc function_desc = DESC("Function", function_fields);

typedef struct {
	const char *name;     /* input name for messages */
	const uint8_t *base;  /* start of the input: offsets are relative to it */
	sp_profile *p;
	/* by number of values: 1 + the index of the first sample with that
	 * many, 0 for none (checked against the sample types at the end,
	 * which may come after the samples) */
	size_t *first_with;
	size_t cap_first_with;
	bool have_strings;    /* string_table[0] seen */
} reader;

typedef struct {
	const uint8_t *p, *end;
} span;

typedef struct {
	uint32_t num;
	int wt;
	size_t off;               /* offset of the tag */
	uint64_t v;               /* wire types 0, 1, 5 */
	const uint8_t *data;      /* wire type 2 */
	size_t len;
	const msg_desc *md;
} field;

enum { VARINT_OK, VARINT_TRUNCATED, VARINT_TOO_LONG };

/* Plain base-128 varint of at most 10 bytes. */
static int read_varint(span *s, uint64_t *v)
{
	uint64_t x = 0;
	for (int i = 0; i < 10; i++) {
		if (s->p >= s->end)
			return VARINT_TRUNCATED;
		uint8_t b = *s->p++;
		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*v = x;
			return VARINT_OK;
		}
	}
	return VARINT_TOO_LONG;
}

static sp_error *wire_err(const reader *r, size_t off, const char *fmt, ...) SP_PRINTF(3, 4);
static sp_error *wire_err(const reader *r, size_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = NULL;
	if (vasprintf(&msg, fmt, ap) < 0)
		sp_oom();
	va_end(ap);
	sp_error *e = sp_error_new(SP_E_UNRECOGNIZED, "%s: offset %zu: %s", r->name, off, msg);
	free(msg);
	return e;
}

/* "field 2 (sample)" or "field 1 (Sample.location_id)" or "field 9". */
static char *field_label(const msg_desc *md, uint32_t num)
{
	const char *fname = num < md->n_fields ? md->fields[num] : NULL;
	if (!fname)
		return md->name ? sp_xasprintf("field %u of %s", num, md->name)
				: sp_xasprintf("field %u", num);
	if (md->name)
		return sp_xasprintf("field %u (%s.%s)", num, md->name, fname);
	return sp_xasprintf("field %u (%s)", num, fname);
}

static sp_error *field_err(const reader *r, const field *f, size_t off, const char *fmt, ...)
	SP_PRINTF(4, 5);
static sp_error *field_err(const reader *r, const field *f, size_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = NULL;
	if (vasprintf(&msg, fmt, ap) < 0)
		sp_oom();
	va_end(ap);
	char *fl = field_label(f->md, f->num);
	sp_error *e = wire_err(r, off, "%s: %s", fl, msg);
	free(fl);
	free(msg);
	return e;
}

static const char *varint_problem(int rc)
{
	return rc == VARINT_TRUNCATED ? "truncated varint" : "bad varint (longer than 10 bytes)";
}

/* Reads the next field of the message in *S.  Returns false at the end of
 * the message or on error (*ERR set). */
static bool next_field(const reader *r, span *s, const msg_desc *md, field *f, sp_error **err)
{
	*err = NULL;
	if (s->p >= s->end)
		return false;
	memset(f, 0, sizeof(*f));
	f->md = md;
	f->off = (size_t)(s->p - r->base);
	uint64_t tag;
	int rc = read_varint(s, &tag);
	if (rc != VARINT_OK) {
		*err = wire_err(r, f->off, "%s in field tag%s%s", varint_problem(rc),
				md->name ? " of " : "", md->name ? md->name : "");
		return false;
	}
	if ((tag >> 3) == 0 || (tag >> 3) > 0x1fffffff) {
		*err = wire_err(r, f->off, "invalid field number %" PRIu64 "%s%s", tag >> 3,
				md->name ? " in " : "", md->name ? md->name : "");
		return false;
	}
	f->num = (uint32_t)(tag >> 3);
	f->wt = (int)(tag & 7);
	size_t left;
	switch (f->wt) {
	case 0:
		rc = read_varint(s, &f->v);
		if (rc != VARINT_OK) {
			*err = field_err(r, f, f->off, "%s", varint_problem(rc));
			return false;
		}
		return true;
	case 1:
	case 5: {
		size_t need = f->wt == 1 ? 8 : 4;
		left = (size_t)(s->end - s->p);
		if (left < need) {
			*err = field_err(r, f, f->off, "fixed%zu value needs %zu bytes, %zu left",
					 need * 8, need, left);
			return false;
		}
		f->v = 0;
		for (size_t i = 0; i < need; i++)
			f->v |= (uint64_t)s->p[i] << (8 * i);
		s->p += need;
		return true;
	}
	case 2: {
		uint64_t len;
		rc = read_varint(s, &len);
		if (rc != VARINT_OK) {
			*err = field_err(r, f, f->off, "%s in length prefix", varint_problem(rc));
			return false;
		}
		left = (size_t)(s->end - s->p);
		if (len > left) {
			*err = field_err(r, f, f->off, "length %" PRIu64 " exceeds the %zu bytes left",
					 len, left);
			return false;
		}
		f->data = s->p;
		f->len = (size_t)len;
		s->p += len;
		return true;
	}
	case 3:
	case 4:
		*err = field_err(r, f, f->off, "wire type %d (group) is not supported", f->wt);
		return false;
	default:
		*err = field_err(r, f, f->off, "unknown wire type %d", f->wt);
		return false;
	}
}

static sp_error *want_varint(const reader *r, const field *f)
{
	if (f->wt == 0)
		return NULL;
	return field_err(r, f, f->off, "type mismatch: wire type %d, expected varint (0)", f->wt);
}

static sp_error *want_bytes(const reader *r, const field *f)
{
	if (f->wt == 2)
		return NULL;
	return field_err(r, f, f->off,
			 "type mismatch: wire type %d, expected length-delimited (2)", f->wt);
}

/* How many elements the repeated varint field F adds: one unpacked, else
 * the varints that end in its bytes (a truncated last one is an error
 * when it is read); 0 for another wire type (an error too). */
static size_t repeated_count(const field *f)
{
	if (f->wt == 0)
		return 1;
	if (f->wt != 2)
		return 0;
	size_t count = 0;
	for (size_t i = 0; i < f->len; i++)
		count += !(f->data[i] & 0x80);
	return count;
}

/* A repeated varint field, packed (wire type 2) or not (0): appends to
 * ARR at *N, which has room for repeated_count(F) more. */
static sp_error *repeated_varint(const reader *r, const field *f, uint64_t *arr, size_t *n)
{
	if (f->wt == 0) {
		arr[(*n)++] = f->v;
		return NULL;
	}
	if (f->wt != 2)
		return field_err(r, f, f->off,
				 "type mismatch: wire type %d, expected varint (0) or packed (2)",
				 f->wt);
	span s = {f->data, f->data + f->len};
	while (s.p < s.end) {
		size_t at = (size_t)(s.p - r->base);
		uint64_t v;
		int rc = read_varint(&s, &v);
		if (rc != VARINT_OK)
			return field_err(r, f, at, "packed element: %s", varint_problem(rc));
		arr[(*n)++] = v;
	}
	return NULL;
}

/* Counts the elements of the repeated fields of the message at S, before
 * anything is stored, so that each array is allocated once at its size:
 * for field numbers below N_COUNTS, COUNTS[num] gets repeated_count's for
 * those in PACKABLE (a bit per number) and one per length-delimited field
 * for the others (embedded messages).  It stops quietly at a wire error:
 * the decoding pass meets it at the same place, having stored no more
 * than was counted up to there. */
static void count_repeated(const reader *r, span s, const msg_desc *md, unsigned packable,
			   size_t *counts, size_t n_counts)
{
	field f;
	sp_error *err;
	memset(counts, 0, n_counts * sizeof(*counts));
	while (next_field(r, &s, md, &f, &err)) {
		if (f.num >= n_counts)
			continue;
		if (packable >> f.num & 1)
			counts[f.num] += repeated_count(&f);
		else
			counts[f.num] += f.wt == 2;
	}
	sp_error_free(err);
}

/* ------------------------------------------------------------------------ */
/* Messages                                                                 */

#define SPAN(f) ((span){(f)->data, (f)->data + (f)->len})

#define GET_VARINT(dst, type)                                                   \
	do {                                                                    \
		if ((err = want_varint(r, &f)))                                 \
			return err;                                             \
		(dst) = (type)f.v;                                              \
	} while (0)

static sp_error *decode_value_type(const reader *r, span s, sp_value_type *vt)
{
	field f;
	sp_error *err;
	while (next_field(r, &s, &value_type_desc, &f, &err)) {
		switch (f.num) {
		case 1: GET_VARINT(vt->type, int64_t); break;
		case 2: GET_VARINT(vt->unit, int64_t); break;
		}
	}
	return err;
}

static sp_error *decode_label(const reader *r, span s, sp_label *l)
{
	field f;
	sp_error *err;
	while (next_field(r, &s, &label_desc, &f, &err)) {
		switch (f.num) {
		case 1: GET_VARINT(l->key, int64_t); break;
		case 2: GET_VARINT(l->str, int64_t); break;
		case 3: GET_VARINT(l->num, int64_t); break;
		case 4: GET_VARINT(l->num_unit, int64_t); break;
		}
	}
	return err;
}

/* The values, location ids and labels go to the profile's sample storage,
 * one allocation of each per sample (most samples are a few bytes, where
 * malloc's own overhead would be most of the memory). */
static sp_error *decode_sample(const reader *r, span s, sp_sample *out, size_t *n_values)
{
	field f;
	sp_error *err;
	size_t counts[4];
	count_repeated(r, s, &sample_desc, 1u << 1 | 1u << 2, counts, SP_ARRAY_LEN(counts));
	uint64_t *locs = sp_profile_sample_storage(r->p, counts[1], sizeof(uint64_t));
	uint64_t *vals = sp_profile_sample_storage(r->p, counts[2], sizeof(uint64_t));
	out->labels = sp_profile_sample_storage(r->p, counts[3], sizeof(sp_label));
	out->location_ids = locs;
	out->values = (int64_t *)vals;
	size_t n_vals = 0;
	while (next_field(r, &s, &sample_desc, &f, &err)) {
		switch (f.num) {
		case 1:
			err = repeated_varint(r, &f, locs, &out->n_locations);
			break;
		case 2:
			err = repeated_varint(r, &f, vals, &n_vals);
			break;
		case 3: {
			if ((err = want_bytes(r, &f)))
				break;
			sp_label l = {0};
			if ((err = decode_label(r, SPAN(&f), &l)))
				break;
			/* pprof's rule: a label with neither a string nor a
			 * number nor a unit carries nothing and is dropped */
			if (l.str || l.num || l.num_unit)
				out->labels[out->n_labels++] = l;
			break;
		}
		}
		if (err)
			break;
	}
	if (!out->n_labels)
		out->labels = NULL; /* (its room stays in the storage) */
	*n_values = n_vals;
	return err;
}

static sp_error *decode_mapping(const reader *r, span s, sp_mapping *m)
{
	field f;
	sp_error *err;
	while (next_field(r, &s, &mapping_desc, &f, &err)) {
		switch (f.num) {
		case 1: GET_VARINT(m->id, uint64_t); break;
		case 2: GET_VARINT(m->memory_start, uint64_t); break;
		case 3: GET_VARINT(m->memory_limit, uint64_t); break;
		case 4: GET_VARINT(m->file_offset, uint64_t); break;
		case 5: GET_VARINT(m->filename, int64_t); break;
		case 6: GET_VARINT(m->build_id, int64_t); break;
		case 7: GET_VARINT(m->has_functions, bool); break;
		case 8: GET_VARINT(m->has_filenames, bool); break;
		case 9: GET_VARINT(m->has_line_numbers, bool); break;
		case 10: GET_VARINT(m->has_inline_frames, bool); break;
		}
	}
	return err;
}

static sp_error *decode_line(const reader *r, span s, sp_line *l)
{
	field f;
	sp_error *err;
	while (next_field(r, &s, &line_desc, &f, &err)) {
		switch (f.num) {
		case 1: GET_VARINT(l->function_id, uint64_t); break;
		case 2: GET_VARINT(l->line, int64_t); break;
		case 3: GET_VARINT(l->column, int64_t); break;
		}
	}
	return err;
}

static sp_error *decode_location(const reader *r, span s, sp_location *l)
{
	field f;
	sp_error *err;
	size_t counts[5];
	count_repeated(r, s, &location_desc, 0, counts, SP_ARRAY_LEN(counts));
	if (counts[4])
		l->lines = sp_xreallocarray(NULL, counts[4], sizeof(sp_line));
	while (next_field(r, &s, &location_desc, &f, &err)) {
		switch (f.num) {
		case 1: GET_VARINT(l->id, uint64_t); break;
		case 2: GET_VARINT(l->mapping_id, uint64_t); break;
		case 3: GET_VARINT(l->address, uint64_t); break;
		case 4: {
			if ((err = want_bytes(r, &f)))
				return err;
			sp_line ln = {0};
			if ((err = decode_line(r, SPAN(&f), &ln)))
				return err;
			l->lines[l->n_lines++] = ln;
			break;
		}
		case 5: GET_VARINT(l->is_folded, bool); break;
		}
	}
	return err;
}

static sp_error *decode_function(const reader *r, span s, sp_function *fn)
{
	field f;
	sp_error *err;
	while (next_field(r, &s, &function_desc, &f, &err)) {
		switch (f.num) {
		case 1: GET_VARINT(fn->id, uint64_t); break;
		case 2: GET_VARINT(fn->name, int64_t); break;
		case 3: GET_VARINT(fn->system_name, int64_t); break;
		case 4: GET_VARINT(fn->filename, int64_t); break;
		case 5: GET_VARINT(fn->start_line, int64_t); break;
		}
	}
	return err;
}

/* Profile.sample (2): a sample, pushed even when it is malformed so that
 * its arrays are freed with the profile. */
static sp_error *decode_sample_field(reader *r, const field *fp)
{
	sp_profile *p = r->p;
	const field f = *fp;
	sp_error *err;
	if ((err = want_bytes(r, &f)))
		return err;
	sp_sample s = {0};
	size_t nv = 0;
	err = decode_sample(r, SPAN(&f), &s, &nv);
	SP_PUSH(p->samples, p->n_samples, p->cap_samples, s);
	if (nv >= r->cap_first_with) {
		size_t old = r->cap_first_with;
		sp_grow(&r->first_with, &r->cap_first_with, nv + 1, sizeof(size_t));
		memset(r->first_with + old, 0, (r->cap_first_with - old) * sizeof(size_t));
	}
	if (!r->first_with[nv])
		r->first_with[nv] = p->n_samples;
	return err;
}

/* Profile.string_table (6): entry 0 must be "", which the model holds. */
static sp_error *decode_string_field(reader *r, const field *fp)
{
	const field f = *fp;
	sp_error *err;
	if ((err = want_bytes(r, &f)))
		return err;
	if (!r->have_strings) {
		if (f.len != 0)
			return field_err(r, &f, f.off,
					 "string table entry 0 must be \"\", got %zu bytes", f.len);
		r->have_strings = true;
	} else {
		sp_profile_append_string(r->p, (const char *)f.data, f.len);
	}
	return NULL;
}

/* Profile.time_nanos (9): a second one means concatenated profiles. */
static sp_error *decode_time_field(reader *r, const field *fp)
{
	const field f = *fp;
	sp_error *err;
	if ((err = want_varint(r, &f)))
		return err;
	if (r->p->time_nanos != 0) {
		char *fl = field_label(f.md, f.num);
		err = sp_error_new(SP_E_MALFORMED,
				   "%s: offset %zu: %s: a second time_nanos: "
				   "concatenated profiles detected",
				   r->name, f.off, fl);
		free(fl);
		return err;
	}
	r->p->time_nanos = (int64_t)f.v;
	return NULL;
}

static sp_error *decode_profile_field(reader *r, const field *fp)
{
	sp_profile *p = r->p;
	const field f = *fp;
	sp_error *err = NULL;
	switch (f.num) {
	case 1: {
		if ((err = want_bytes(r, &f)))
			return err;
		sp_value_type vt = {0};
		if ((err = decode_value_type(r, SPAN(&f), &vt)))
			return err;
		SP_PUSH(p->sample_types, p->n_sample_types, p->cap_sample_types, vt);
		return NULL;
	}
	case 2: return decode_sample_field(r, &f);
	case 3: {
		if ((err = want_bytes(r, &f)))
			return err;
		sp_mapping m = {0};
		if ((err = decode_mapping(r, SPAN(&f), &m)))
			return err;
		SP_PUSH(p->mappings, p->n_mappings, p->cap_mappings, m);
		return NULL;
	}
	case 4: {
		if ((err = want_bytes(r, &f)))
			return err;
		sp_location l = {0};
		err = decode_location(r, SPAN(&f), &l);
		SP_PUSH(p->locations, p->n_locations, p->cap_locations, l);
		return err;
	}
	case 5: {
		if ((err = want_bytes(r, &f)))
			return err;
		sp_function fn = {0};
		if ((err = decode_function(r, SPAN(&f), &fn)))
			return err;
		SP_PUSH(p->functions, p->n_functions, p->cap_functions, fn);
		return NULL;
	}
	case 6: return decode_string_field(r, &f);
	case 7: GET_VARINT(p->drop_frames, int64_t); return NULL;
	case 8: GET_VARINT(p->keep_frames, int64_t); return NULL;
	case 9: return decode_time_field(r, &f);
	case 10: GET_VARINT(p->duration_nanos, int64_t); return NULL;
	case 11:
		if ((err = want_bytes(r, &f)))
			return err;
		return decode_value_type(r, SPAN(&f), &p->period_type);
	case 12: GET_VARINT(p->period, int64_t); return NULL;
	case 13: {
		/* all of them or none */
		size_t n = p->n_comments;
		sp_grow(&p->comments, &p->cap_comments, n + repeated_count(&f), sizeof(int64_t));
		if (!(err = repeated_varint(r, &f, (uint64_t *)p->comments, &n)))
			p->n_comments = n;
		return err;
	}
	case 14: GET_VARINT(p->default_sample_type, int64_t); return NULL;
	case 15: GET_VARINT(p->doc_url, int64_t); return NULL;
	}
	return NULL; /* unknown fields are skipped */
}

/* ------------------------------------------------------------------------ */
/* After decoding                                                           */

/* The decoder's string rule: every index in [0, n_strings).  Failing it
 * means "not a profile" (pprof falls through to the legacy parsers). */
static sp_error *check_strings(const reader *r)
{
	const sp_profile *p = r->p;
	size_t n = p->n_strings;
#define STR_OK(i) ((i) >= 0 && (uint64_t)(i) < n)
#define BAD_STR(i, ...)                                                                 \
	do {                                                                            \
		char *w_ = sp_xasprintf(__VA_ARGS__);                                   \
		sp_error *e_ = sp_error_new(SP_E_UNRECOGNIZED,                          \
					    "%s: %s: string index %" PRId64             \
					    " out of range (the string table has %zu "  \
					    "entries)",                                 \
					    r->name, w_, (int64_t)(i), n);              \
		free(w_);                                                               \
		return e_;                                                              \
	} while (0)
#define CHECK_STR(i, ...)                      \
	do {                                   \
		if (!STR_OK(i))                \
			BAD_STR(i, __VA_ARGS__); \
	} while (0)

	for (size_t i = 0; i < p->n_sample_types; i++) {
		CHECK_STR(p->sample_types[i].type, "sample_type %zu type", i + 1);
		CHECK_STR(p->sample_types[i].unit, "sample_type %zu unit", i + 1);
	}
	for (size_t i = 0; i < p->n_samples; i++)
		for (size_t j = 0; j < p->samples[i].n_labels; j++) {
			const sp_label *l = &p->samples[i].labels[j];
			CHECK_STR(l->key, "sample %zu label %zu key", i + 1, j + 1);
			CHECK_STR(l->str, "sample %zu label %zu str", i + 1, j + 1);
			CHECK_STR(l->num_unit, "sample %zu label %zu num_unit", i + 1, j + 1);
		}
	for (size_t i = 0; i < p->n_mappings; i++) {
		CHECK_STR(p->mappings[i].filename, "mapping %zu filename", i + 1);
		CHECK_STR(p->mappings[i].build_id, "mapping %zu build_id", i + 1);
	}
	for (size_t i = 0; i < p->n_functions; i++) {
		CHECK_STR(p->functions[i].name, "function %zu name", i + 1);
		CHECK_STR(p->functions[i].system_name, "function %zu system_name", i + 1);
		CHECK_STR(p->functions[i].filename, "function %zu filename", i + 1);
	}
	CHECK_STR(p->drop_frames, "drop_frames");
	CHECK_STR(p->keep_frames, "keep_frames");
	CHECK_STR(p->period_type.type, "period_type type");
	CHECK_STR(p->period_type.unit, "period_type unit");
	for (size_t i = 0; i < p->n_comments; i++)
		CHECK_STR(p->comments[i], "comment %zu", i + 1);
	CHECK_STR(p->default_sample_type, "default_sample_type");
	CHECK_STR(p->doc_url, "doc_url");
	return NULL;
#undef CHECK_STR
#undef BAD_STR
#undef STR_OK
}

/* Makes room for exactly N elements in *ARRP (capacity *CAP), where
 * doubling would reserve up to twice that: what malloc hands out counts
 * against the memory budget, touched or not. */
static void reserve(void *arrp, size_t *cap, size_t n, size_t elsz)
{
	void **arr = arrp;
	if (n <= *cap)
		return;
	*arr = sp_xreallocarray(*arr, n, elsz);
	*cap = n;
}

static sp_error *decode(reader *r, const uint8_t *data, size_t len)
{
	span s = {data, data + len};
	field f;
	sp_error *err;
	/* the arrays of the repeated messages, at their sizes */
	size_t counts[6];
	sp_profile *p = r->p;
	count_repeated(r, s, &profile_desc, 0, counts, SP_ARRAY_LEN(counts));
	reserve(&p->samples, &p->cap_samples, counts[2], sizeof(*p->samples));
	reserve(&p->mappings, &p->cap_mappings, counts[3], sizeof(*p->mappings));
	reserve(&p->locations, &p->cap_locations, counts[4], sizeof(*p->locations));
	reserve(&p->functions, &p->cap_functions, counts[5], sizeof(*p->functions));
	while (next_field(r, &s, &profile_desc, &f, &err))
		if ((err = decode_profile_field(r, &f)))
			return err;
	if (err)
		return err;
	if (!r->have_strings)
		return sp_error_new(SP_E_UNRECOGNIZED,
				    "%s: no string table (field 6): entry 0 must be \"\"", r->name);
	if ((err = check_strings(r)))
		return err;

	size_t first = 0, nv = 0; /* the first sample with another count */
	for (size_t c = 0; c < r->cap_first_with; c++)
		if (c != p->n_sample_types && r->first_with[c] &&
		    (!first || r->first_with[c] < first)) {
			first = r->first_with[c];
			nv = c;
		}
	if (first)
		return sp_error_new(SP_E_INVALID_PROFILE,
				    "%s: malformed profile: sample %zu has %zu values, "
				    "expected %zu (one per sample type)",
				    r->name, first, nv, p->n_sample_types);
	/* a mapping id that names no mapping means "no mapping" */
	for (size_t i = 0; i < p->n_locations; i++)
		if (p->locations[i].mapping_id &&
		    !sp_profile_mapping(p, p->locations[i].mapping_id))
			p->locations[i].mapping_id = 0;
	return sp_profile_check(p, r->name);
}

sp_error *sp_pprof_read(const char *name, const uint8_t *data, size_t len, sp_profile **out)
{
	*out = NULL;
	name = name ? name : "profile";
	uint8_t *plain = NULL;
	if (sp_is_gzip(data, len)) {
		size_t plen;
		sp_error *err = sp_gunzip(name, data, len, PPROF_MAX_GUNZIP, &plain, &plen);
		if (err)
			return err;
		data = plain;
		len = plen;
	}
	if (len == 0) {
		free(plain);
		return sp_error_new(SP_E_MALFORMED, "%s: empty input file", name);
	}
	reader r = {.name = name, .base = data, .p = sp_profile_new()};
	sp_error *err = decode(&r, data, len);
	free(r.first_with);
	free(plain);
	if (err) {
		sp_profile_free(r.p);
		return err;
	}
	*out = r.p;
	return NULL;
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                  */

typedef struct {
	ProtobufCBuffer base;
	sp_sink *sink;
} sink_buffer;

static void sink_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	sink_buffer *sb = (sink_buffer *)b;
	sp_sink_write(sb->sink, data, len);
}

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__ValueType pb_value_type;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Label pb_label;
typedef Perftools__Profiles__Mapping pb_mapping;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;

/* The Profile message is written one element at a time, so that writing
 * needs memory for one sample, mapping, location or function, not a copy
 * of the whole profile in protobuf-c's structs.  protobuf-c packs fields in
 * field-number order and a repeated message as (tag, length, message) per
 * element; the pieces below follow that order, so the bytes are those of
 * packing the whole message at once. */

/* Growable scratch arrays reused from one element to the next. */
typedef struct {
	uint8_t *bytes; /* one encoded sample */
	size_t cap_bytes;
	pb_line *lines;
	pb_line **line_ptrs;
	size_t cap_lines;
} scratch;

static void scratch_lines(scratch *sc, size_t n)
{
	size_t cap = sc->cap_lines;
	sp_grow(&sc->lines, &cap, n, sizeof(*sc->lines));
	sp_grow(&sc->line_ptrs, &sc->cap_lines, n, sizeof(*sc->line_ptrs));
}

static void scratch_free(scratch *sc)
{
	free(sc->bytes);
	free(sc->lines);
	free(sc->line_ptrs);
}

static void put_varint(ProtobufCBuffer *b, uint64_t v)
{
	uint8_t buf[10];
	size_t n = 0;
	do {
		buf[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	b->append(b, n, buf);
}

/* One element of a repeated message field NUM. */
static void put_element(ProtobufCBuffer *b, uint32_t num, const ProtobufCMessage *m)
{
	put_varint(b, (uint64_t)num << 3 | 2);
	put_varint(b, protobuf_c_message_get_packed_size(m));
	protobuf_c_message_pack_to_buffer(m, b);
}

static void fill_value_type(pb_value_type *dst, const sp_value_type *src)
{
	*dst = (pb_value_type)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	dst->type = src->type;
	dst->unit = src->unit;
}

static size_t varint_len(uint64_t v)
{
	size_t n = 1;
	for (; v > 0x7f; v >>= 7)
		n++;
	return n;
}

static uint8_t *varint_to(uint8_t *o, uint64_t v)
{
	for (; v > 0x7f; v >>= 7)
		*o++ = (uint8_t)(v | 0x80);
	*o++ = (uint8_t)v;
	return o;
}

/* A packed repeated varint field NUM of N values (omitted when empty, as
 * protobuf-c does): its size, and its bytes at O (returns the end). */
static size_t packed_len(const uint64_t *v, size_t n, size_t *payload)
{
	size_t len = 0;
	for (size_t i = 0; i < n; i++)
		len += varint_len(v[i]);
	*payload = len;
	return n ? 1 + varint_len(len) + len : 0;
}

static uint8_t *packed_to(uint8_t *o, uint32_t num, const uint64_t *v, size_t n, size_t payload)
{
	if (!n)
		return o;
	*o++ = (uint8_t)(num << 3 | 2);
	o = varint_to(o, payload);
	for (size_t i = 0; i < n; i++)
		o = varint_to(o, v[i]);
	return o;
}

/* A Label's fields: proto3 scalars, written only when not zero. */
static size_t label_len(const sp_label *l)
{
	const int64_t f[4] = {l->key, l->str, l->num, l->num_unit};
	size_t len = 0;
	for (size_t i = 0; i < 4; i++)
		if (f[i])
			len += 1 + varint_len((uint64_t)f[i]);
	return len;
}

static uint8_t *label_to(uint8_t *o, const sp_label *l, size_t len)
{
	const int64_t f[4] = {l->key, l->str, l->num, l->num_unit};
	*o++ = 3 << 3 | 2;
	o = varint_to(o, len);
	for (uint8_t i = 0; i < 4; i++)
		if (f[i]) {
			*o++ = (uint8_t)((i + 1) << 3);
			o = varint_to(o, (uint64_t)f[i]);
		}
	return o;
}

/* Samples are most of a profile, so they are encoded here rather than
 * through protobuf-c's generic packer (which measures, then appends field
 * by field), into one buffer appended at once; the bytes are the ones
 * protobuf-c writes: fields in number order, repeated scalars packed,
 * int64 as 64-bit varints. */
static void put_sample(ProtobufCBuffer *b, scratch *sc, const sp_profile *p, const sp_sample *s)
{
	size_t ids_payload, vals_payload;
	size_t body = packed_len(s->location_ids, s->n_locations, &ids_payload) +
		      packed_len((const uint64_t *)s->values, p->n_sample_types, &vals_payload);
	for (size_t j = 0; j < s->n_labels; j++) {
		size_t l = label_len(&s->labels[j]);
		body += 1 + varint_len(l) + l;
	}
	size_t total = 1 + varint_len(body) + body;
	sp_grow(&sc->bytes, &sc->cap_bytes, total, 1);
	uint8_t *o = sc->bytes;
	*o++ = 2 << 3 | 2; /* Profile.sample */
	o = varint_to(o, body);
	o = packed_to(o, 1, s->location_ids, s->n_locations, ids_payload);
	o = packed_to(o, 2, (const uint64_t *)s->values, p->n_sample_types, vals_payload);
	for (size_t j = 0; j < s->n_labels; j++)
		o = label_to(o, &s->labels[j], label_len(&s->labels[j]));
	b->append(b, (size_t)(o - sc->bytes), sc->bytes);
}

static void put_mapping(ProtobufCBuffer *b, const sp_mapping *m)
{
	pb_mapping o = PERFTOOLS__PROFILES__MAPPING__INIT;
	o.id = m->id;
	o.memory_start = m->memory_start;
	o.memory_limit = m->memory_limit;
	o.file_offset = m->file_offset;
	o.filename = m->filename;
	o.build_id = m->build_id;
	o.has_functions = m->has_functions;
	o.has_filenames = m->has_filenames;
	o.has_line_numbers = m->has_line_numbers;
	o.has_inline_frames = m->has_inline_frames;
	put_element(b, 3, &o.base);
}

static void put_location(ProtobufCBuffer *b, scratch *sc, const sp_location *l)
{
	pb_location o = PERFTOOLS__PROFILES__LOCATION__INIT;
	o.id = l->id;
	o.mapping_id = l->mapping_id;
	o.address = l->address;
	o.is_folded = l->is_folded;
	scratch_lines(sc, l->n_lines);
	o.line = sc->line_ptrs;
	o.n_line = l->n_lines;
	for (size_t j = 0; j < l->n_lines; j++) {
		pb_line *ln = &sc->lines[j];
		*ln = (pb_line)PERFTOOLS__PROFILES__LINE__INIT;
		ln->function_id = l->lines[j].function_id;
		ln->line = l->lines[j].line;
		ln->column = l->lines[j].column;
		o.line[j] = ln;
	}
	put_element(b, 4, &o.base);
}

static void put_function(ProtobufCBuffer *b, const sp_function *f)
{
	pb_function o = PERFTOOLS__PROFILES__FUNCTION__INIT;
	o.id = f->id;
	o.name = f->name;
	o.system_name = f->system_name;
	o.filename = f->filename;
	o.start_line = f->start_line;
	put_element(b, 5, &o.base);
}

/* Field 1 (sample_type), then the elements of fields 2-5, then fields 6-15
 * packed as a Profile that holds only them. */
static void put_profile(ProtobufCBuffer *b, const sp_profile *p)
{
	scratch sc = {0};
	for (size_t i = 0; i < p->n_sample_types; i++) {
		pb_value_type vt;
		fill_value_type(&vt, &p->sample_types[i]);
		put_element(b, 1, &vt.base);
	}
	for (size_t i = 0; i < p->n_samples; i++)
		put_sample(b, &sc, p, &p->samples[i]);
	for (size_t i = 0; i < p->n_mappings; i++)
		put_mapping(b, &p->mappings[i]);
	for (size_t i = 0; i < p->n_locations; i++)
		put_location(b, &sc, &p->locations[i]);
	for (size_t i = 0; i < p->n_functions; i++)
		put_function(b, &p->functions[i]);
	scratch_free(&sc);

	pb_profile rest = PERFTOOLS__PROFILES__PROFILE__INIT;
	rest.n_string_table = p->n_strings;
	rest.string_table = p->strings;
	rest.drop_frames = p->drop_frames;
	rest.keep_frames = p->keep_frames;
	rest.time_nanos = p->time_nanos;
	rest.duration_nanos = p->duration_nanos;
	/* like pprof, period_type only when it says something */
	pb_value_type pt;
	if (p->period_type.type || p->period_type.unit) {
		fill_value_type(&pt, &p->period_type);
		rest.period_type = &pt;
	}
	rest.period = p->period;
	rest.n_comment = p->n_comments;
	rest.comment = p->comments;
	rest.default_sample_type = p->default_sample_type;
	rest.doc_url = p->doc_url;
	protobuf_c_message_pack_to_buffer(&rest.base, b);
}

sp_error *sp_pprof_write(const sp_profile *p, bool gzip, sp_sink *out)
{
	sp_error *err = sp_profile_check_for_protobuf(p, "pprof output");
	if (err)
		return err;
	sp_sink *gz = gzip ? sp_sink_gzip_new(out) : NULL;
	sink_buffer sb = {.base = {.append = sink_append}, .sink = gz ? gz : out};
	put_profile(&sb.base, p);
	if (gz) {
		err = sp_sink_finish(gz);
		sp_sink_free(gz);
		if (err)
			return sp_error_prefix(err, "pprof output");
	}
	return NULL;
}
