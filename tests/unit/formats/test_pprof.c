/* test_pprof.c — the pprof protobuf reader and writer: the exact bytes of a
 * tiny profile (spec/FORMATS.md §1.2), a round trip of a rich profile,
 * wire-level details (packed and unpacked repeats, 10-byte negatives,
 * unknown fields), reader errors with their exact positioned messages, and
 * the malformed-input corpus in tests/malformed/pprof. */
#include "formats/formats.h"
#include "tests/helpers/tap.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

/* -- a tiny wire encoder, so inputs are written byte by byte from the spec */

typedef struct {
	uint8_t b[4096];
	size_t n;
} wire;

static void put(wire *w, const void *d, size_t n)
{
	memcpy(w->b + w->n, d, n);
	w->n += n;
}

static void varint(wire *w, uint64_t v)
{
	while (v >= 0x80) {
		w->b[w->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	w->b[w->n++] = (uint8_t)v;
}

static void tag(wire *w, unsigned num, unsigned wt)
{
	varint(w, (uint64_t)num << 3 | wt);
}

static void vfield(wire *w, unsigned num, uint64_t v)
{
	tag(w, num, 0);
	varint(w, v);
}

static void bfield(wire *w, unsigned num, const void *d, size_t n)
{
	tag(w, num, 2);
	varint(w, n);
	put(w, d, n);
}

static void sfield(wire *w, unsigned num, const char *s)
{
	bfield(w, num, s, strlen(s));
}

static void msgfield(wire *w, unsigned num, const wire *m)
{
	bfield(w, num, m->b, m->n);
}

/* -- helpers --------------------------------------------------------------- */

static char *dump(const sp_profile *p)
{
	sp_sink *s = sp_sink_memory_new();
	sp_profile_dump(p, s);
	size_t n;
	const uint8_t *d = sp_sink_memory_data(s, &n);
	char *r = sp_xstrndup((const char *)d, n);
	sp_sink_free(s);
	return r;
}

static uint8_t *write_pb(const sp_profile *p, bool gzip, size_t *len)
{
	sp_sink *s = sp_sink_memory_new();
	sp_error *err = sp_pprof_write(p, gzip, s);
	if (!err)
		err = sp_sink_finish(s);
	uint8_t *r = NULL;
	*len = 0;
	if (!err) {
		const uint8_t *d = sp_sink_memory_data(s, len);
		r = sp_xmalloc(*len + 1);
		memcpy(r, d, *len);
	} else {
		char *m = sp_error_string(err);
		printf("# write failed: %s\n", m);
		free(m);
		sp_error_free(err);
	}
	sp_sink_free(s);
	return r;
}

/* Reads W and expects the error MSG (full text) with root code CODE. */
static void expect_error(const wire *w, sp_errcode code, const char *msg, const char *what)
{
	sp_profile *p = NULL;
	sp_error *err = sp_pprof_read("t.pb", w->b, w->n, &p);
	char *s = err ? sp_error_string(err) : NULL;
	TAP_EQ_STR(s, msg, "%s: message", what);
	TAP_OK(err && sp_error_root_code(err) == code && !p, "%s: code %s", what,
	       sp_errcode_str(code));
	free(s);
	sp_error_free(err);
	sp_profile_free(p);
}

static sp_profile *read_ok(const wire *w, const char *what)
{
	sp_profile *p = NULL;
	sp_error *err = sp_pprof_read("t.pb", w->b, w->n, &p);
	char *s = err ? sp_error_string(err) : NULL;
	TAP_OK(!err && p, "%s reads (%s)", what, s ? s : "ok");
	free(s);
	sp_error_free(err);
	return p;
}

/* -- (a) exact bytes ------------------------------------------------------- */

static void test_tiny_bytes(void)
{
	/* spec §1.2, verified against pprof: one sample_type samples/count is
	 * 0a 04 08 01 10 02 | 32 00 | 32 07 "samples" | 32 05 "count" | 70 00.
	 * pprof always writes field 14 (default_sample_type); protobuf-c omits
	 * proto3 zero scalars, so our bytes end before the "70 00", which
	 * decodes to the same profile. */
	static const uint8_t want[] = {0x0a, 0x04, 0x08, 0x01, 0x10, 0x02, 0x32, 0x00, 0x32, 0x07,
				       's',  'a',  'm',  'p',  'l',  'e',  's',  0x32, 0x05, 'c',
				       'o',  'u',  'n',  't'};
	sp_profile *p = sp_profile_new();
	sp_profile_add_sample_type(p, "samples", "count");
	size_t n;
	uint8_t *got = write_pb(p, false, &n);
	TAP_OK(got && n == sizeof(want) && !memcmp(got, want, sizeof(want)),
	       "tiny profile bytes match pprof's up to field 14 (%zu bytes)", n);
	free(got);

	/* pprof's own bytes, with the trailing 70 00, read to the same dump */
	wire w = {0};
	put(&w, want, sizeof(want));
	put(&w, "\x70\x00", 2);
	sp_profile *q = read_ok(&w, "pprof's tiny profile");
	if (q) {
		char *a = dump(p), *b = dump(q);
		TAP_EQ_STR(b, a, "pprof's tiny profile dumps like ours");
		free(a);
		free(b);
	}
	sp_profile_free(q);
	sp_profile_free(p);
}

/* -- (b) round trip ---------------------------------------------------------- */

static sp_profile *rich_profile(void)
{
	sp_profile *p = sp_profile_new();
	sp_profile_add_sample_type(p, "alloc_objects", "count");
	sp_profile_add_sample_type(p, "alloc_space", "bytes");
	p->period_type.type = sp_profile_intern(p, "space");
	p->period_type.unit = sp_profile_intern(p, "bytes");
	p->period = 524288;
	p->time_nanos = 1700000000123456789LL;
	p->duration_nanos = 5000000000LL;
	sp_profile_add_comment(p, "first comment");
	sp_profile_add_comment(p, "second; with punctuation");
	p->drop_frames = sp_profile_intern(p, "malloc|free");
	p->keep_frames = sp_profile_intern(p, "keep_me");
	p->default_sample_type = sp_profile_intern(p, "alloc_space");
	p->doc_url = sp_profile_intern(p, "https://example.com/doc");

	sp_mapping m1 = {
		.memory_start = 0x400000, .memory_limit = 0x500000, .file_offset = 0,
		.filename = sp_profile_intern(p, "/usr/bin/app"),
		.build_id = sp_profile_intern(p, "abcdef0123456789"),
		.has_functions = true, .has_filenames = true, .has_line_numbers = true,
		.has_inline_frames = true,
	};
	sp_mapping m2 = {
		.memory_start = 0x7f0000001000, .memory_limit = 0x7f0000200000,
		.file_offset = 0x1000, .filename = sp_profile_intern(p, "/lib/libc.so.6"),
		.has_functions = true,
	};
	sp_profile_add_mapping(p, &m1);
	sp_profile_add_mapping(p, &m2);
	uint64_t f_main = sp_profile_function_for(p, "main", "main", "app.c", 10);
	uint64_t f_help = sp_profile_function_for(p, "helper()", "_Z6helperv", "app.c", 3);
	uint64_t f_libc = sp_profile_function_for(p, "malloc", "malloc", "", 0);
	sp_line inl[] = {{f_help, 5, 7}, {f_main, 12, 3}};
	sp_location l1 = {.mapping_id = 1, .address = 0x401234, .lines = inl, .n_lines = 2};
	sp_line one[] = {{f_libc, 0, 0}};
	sp_location l2 = {.mapping_id = 2, .address = 0x7f0000001500, .lines = one, .n_lines = 1,
			  .is_folded = true};
	sp_location l3 = {.address = 0xdead};
	sp_profile_add_location(p, &l1);
	sp_profile_add_location(p, &l2);
	sp_profile_add_location(p, &l3);

	int64_t v1[] = {1, 512}, v2[] = {-3, -1024}, v3[] = {7, 0};
	uint64_t s1[] = {2, 1}, s2[] = {1}, s3[] = {3, 2, 1};
	sp_label lab[] = {
		sp_label_str(p, "thread", "worker-1"),
		sp_label_num(p, "bytes", 4096, "bytes"),
		sp_label_num(p, "count", 3, NULL),
	};
	sp_profile_add_sample(p, v1, s1, 2, lab, 3);
	sp_profile_add_sample(p, v2, s2, 1, NULL, 0);
	sp_profile_add_sample(p, v3, s3, 3, lab, 1);
	return p;
}

static void test_round_trip(void)
{
	sp_profile *p = rich_profile();
	sp_error *err = sp_profile_check(p, "rich");
	TAP_OK(!err, "rich profile is valid");
	sp_error_free(err);
	char *want = dump(p);
	for (int gz = 0; gz < 2; gz++) {
		size_t n, n2;
		uint8_t *b = write_pb(p, gz, &n);
		uint8_t *b2 = write_pb(p, gz, &n2);
		TAP_OK(b && b2 && n == n2 && !memcmp(b, b2, n), "%s: same bytes twice",
		       gz ? "gzip" : "plain");
		TAP_OK(b && (gz ? sp_is_gzip(b, n) : !sp_is_gzip(b, n)), "%s: gzip magic %s",
		       gz ? "gzip" : "plain", gz ? "present" : "absent");
		sp_profile *q = NULL;
		err = b ? sp_pprof_read("rt.pb", b, n, &q) : NULL;
		TAP_OK(b && !err && q, "%s: reads back", gz ? "gzip" : "plain");
		if (q) {
			char *got = dump(q);
			TAP_EQ_STR(got, want, "%s: dump identical after round trip",
				   gz ? "gzip" : "plain");
			free(got);
			bool same = q->n_strings == p->n_strings;
			for (size_t i = 0; same && i < p->n_strings; i++)
				same = !strcmp(q->strings[i], p->strings[i]);
			TAP_OK(same, "%s: string table kept in order", gz ? "gzip" : "plain");
			TAP_EQ_U64(q->samples[1].values[0], (uint64_t)-3, "negative value kept");
		}
		sp_error_free(err);
		sp_profile_free(q);
		free(b);
		free(b2);
	}
	free(want);
	sp_profile_free(p);
}

/* -- wire details -------------------------------------------------------------- */

/* strings: 0 "", 1 "cpu", 2 "ns", 3 "k", 4 "v", 5 "u" */
static void put_strings(wire *w)
{
	sfield(w, 6, "");
	sfield(w, 6, "cpu");
	sfield(w, 6, "ns");
	sfield(w, 6, "k");
	sfield(w, 6, "v");
	sfield(w, 6, "u");
}

static void put_value_type(wire *w, unsigned num, uint64_t type, uint64_t unit)
{
	wire vt = {0};
	vfield(&vt, 1, type);
	vfield(&vt, 2, unit);
	msgfield(w, num, &vt);
}

static void test_wire_details(void)
{
	/* the same two samples, values and location ids packed in one file and
	 * one tagged varint each in the other */
	wire packed = {0}, plain = {0};
	for (int k = 0; k < 2; k++) {
		wire *w = k ? &plain : &packed;
		put_value_type(w, 1, 1, 2);
		put_value_type(w, 1, 3, 2);
		wire s = {0};
		if (k) {
			vfield(&s, 1, 1);
			vfield(&s, 1, 2);
			vfield(&s, 2, 5);
			vfield(&s, 2, (uint64_t)-1);
		} else {
			wire pk = {0};
			varint(&pk, 1);
			varint(&pk, 2);
			msgfield(&s, 1, &pk);
			pk.n = 0;
			varint(&pk, 5);
			varint(&pk, (uint64_t)-1);
			TAP_EQ_U64(pk.n, 11, "-1 takes 10 bytes as an int64 varint");
			msgfield(&s, 2, &pk);
		}
		msgfield(w, 2, &s);
		wire loc = {0};
		vfield(&loc, 1, 1);
		vfield(&loc, 3, 0x1000);
		vfield(&loc, 2, 99); /* names no mapping */
		msgfield(w, 4, &loc);
		loc.n = 0;
		vfield(&loc, 1, 2);
		msgfield(w, 4, &loc);
		/* unknown fields of every wire type are skipped */
		vfield(w, 20, 12345);
		tag(w, 21, 5);
		put(w, "\1\2\3\4", 4);
		tag(w, 22, 1);
		put(w, "\1\2\3\4\5\6\7\10", 8);
		sfield(w, 23, "ignored");
		put_strings(w);
	}
	sp_profile *a = read_ok(&packed, "packed repeats");
	sp_profile *b = read_ok(&plain, "unpacked repeats");
	if (a && b) {
		char *da = dump(a), *db = dump(b);
		TAP_EQ_STR(da, db, "packed and unpacked decode alike");
		free(da);
		free(db);
		TAP_OK(a->n_samples == 1 && a->samples[0].n_locations == 2 &&
			       a->samples[0].location_ids[1] == 2 && a->samples[0].values[0] == 5 &&
			       a->samples[0].values[1] == -1,
		       "sample decoded: locations 1 2, values 5 -1");
		TAP_EQ_U64(a->locations[0].mapping_id, 0, "dangling mapping_id becomes 0");
		TAP_EQ_U64(a->n_strings, 6, "string table of 6 entries");
	}
	sp_profile_free(a);
	sp_profile_free(b);

	/* labels: str != 0 => string; else num or unit => numeric; else dropped */
	wire w = {0};
	put_value_type(&w, 1, 1, 2);
	wire s = {0}, l = {0};
	vfield(&s, 2, 1);
	vfield(&l, 1, 3);
	vfield(&l, 2, 4);
	msgfield(&s, 3, &l); /* k:[v] */
	l.n = 0;
	vfield(&l, 1, 3);
	vfield(&l, 4, 5);
	msgfield(&s, 3, &l); /* k:[0 u] kept: unit set */
	l.n = 0;
	vfield(&l, 1, 3);
	msgfield(&s, 3, &l); /* nothing but a key: dropped */
	l.n = 0;
	vfield(&l, 1, 4);
	vfield(&l, 3, 0);
	msgfield(&s, 3, &l); /* num 0 without unit: dropped */
	msgfield(&w, 2, &s);
	put_strings(&w);
	sp_profile *p = read_ok(&w, "labels");
	if (p) {
		const sp_sample *sm = &p->samples[0];
		TAP_EQ_U64(sm->n_labels, 2, "empty labels dropped, two kept");
		TAP_OK(sm->n_labels == 2 && sm->labels[0].str == 4 && sm->labels[1].str == 0 &&
			       sm->labels[1].num_unit == 5,
		       "string label and unit-only numeric label kept");
	}
	sp_profile_free(p);
}

/* -- (c) errors ------------------------------------------------------------------- */

static void test_errors(void)
{
	wire w = {0};
	expect_error(&w, SP_E_MALFORMED, "t.pb: empty input file", "empty input");

	w.n = 0;
	sfield(&w, 6, "");
	tag(&w, 2, 2);
	varint(&w, 4000); /* a0 1f */
	put(&w, "abc", 3);
	expect_error(&w, SP_E_UNRECOGNIZED,
		     "t.pb: offset 2: field 2 (sample): length 4000 exceeds the 3 bytes left",
		     "length beyond the data");

	w.n = 0;
	tag(&w, 9, 0);
	put(&w, "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01", 11);
	expect_error(&w, SP_E_UNRECOGNIZED,
		     "t.pb: offset 0: field 9 (time_nanos): bad varint (longer than 10 bytes)",
		     "11-byte varint");

	w.n = 0;
	sfield(&w, 6, "");
	put(&w, "\x80", 1);
	expect_error(&w, SP_E_UNRECOGNIZED, "t.pb: offset 2: truncated varint in field tag",
		     "truncated tag");

	w.n = 0;
	tag(&w, 1, 3);
	expect_error(&w, SP_E_UNRECOGNIZED,
		     "t.pb: offset 0: field 1 (sample_type): wire type 3 (group) is not supported",
		     "group");

	w.n = 0;
	sfield(&w, 6, "");
	bfield(&w, 9, "", 0);
	expect_error(&w, SP_E_UNRECOGNIZED,
		     "t.pb: offset 2: field 9 (time_nanos): type mismatch: wire type 2, "
		     "expected varint (0)",
		     "known field, wrong wire type");

	w.n = 0;
	sfield(&w, 6, "");
	wire s = {0};
	tag(&s, 1, 1);
	put(&s, "\0\0\0\0\0\0\0\0", 8);
	msgfield(&w, 2, &s);
	expect_error(&w, SP_E_UNRECOGNIZED,
		     "t.pb: offset 4: field 1 (Sample.location_id): type mismatch: wire type 1, "
		     "expected varint (0) or packed (2)",
		     "nested field, wrong wire type");

	w.n = 0;
	sfield(&w, 6, "xy");
	expect_error(&w, SP_E_UNRECOGNIZED,
		     "t.pb: offset 0: field 6 (string_table): string table entry 0 must be \"\", "
		     "got 2 bytes",
		     "first string not empty");

	w.n = 0;
	vfield(&w, 12, 100);
	expect_error(&w, SP_E_UNRECOGNIZED, "t.pb: no string table (field 6): entry 0 must be \"\"",
		     "no string table");

	w.n = 0;
	put_value_type(&w, 1, 5, 0);
	sfield(&w, 6, "");
	expect_error(&w, SP_E_UNRECOGNIZED,
		     "t.pb: sample_type 1 type: string index 5 out of range (the string table "
		     "has 1 entries)",
		     "string index out of range");

	w.n = 0;
	sfield(&w, 6, "");
	vfield(&w, 9, 1);
	vfield(&w, 9, 2);
	expect_error(&w, SP_E_MALFORMED,
		     "t.pb: offset 4: field 9 (time_nanos): a second time_nanos: concatenated "
		     "profiles detected",
		     "concatenated profiles");

	/* semantic errors after a clean decode: mine but broken */
	w.n = 0;
	put_strings(&w);
	put_value_type(&w, 1, 1, 2);
	s.n = 0;
	vfield(&s, 1, 7);
	vfield(&s, 2, 1);
	msgfield(&w, 2, &s);
	expect_error(&w, SP_E_INVALID_PROFILE,
		     "t.pb: malformed profile: sample 1 has nil location (id 7)",
		     "dangling location id");

	w.n = 0;
	put_strings(&w);
	put_value_type(&w, 1, 1, 2);
	s.n = 0;
	vfield(&s, 2, 1);
	vfield(&s, 2, 2);
	msgfield(&w, 2, &s);
	expect_error(&w, SP_E_INVALID_PROFILE,
		     "t.pb: malformed profile: sample 1 has 2 values, expected 1 (one per sample "
		     "type)",
		     "value count");

	w.n = 0;
	put_strings(&w);
	wire f = {0};
	vfield(&f, 2, 1);
	msgfield(&w, 5, &f);
	expect_error(&w, SP_E_INVALID_PROFILE,
		     "t.pb: malformed profile: function #1 has reserved id 0", "function id 0");
}

/* -- corpus ------------------------------------------------------------------------ */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_corpus(void)
{
	const char *src = getenv("SP_SRCDIR");
	char *dir = sp_xasprintf("%s/tests/malformed/pprof", src ? src : ".");
	DIR *d = opendir(dir);
	TAP_OK(d != NULL, "corpus directory %s", dir);
	char **names = NULL;
	size_t n = 0, cap = 0;
	for (struct dirent *e; d && (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len > 3 && !strcmp(e->d_name + len - 3, ".in"))
			SP_PUSH(names, n, cap, sp_xstrndup(e->d_name, len - 3));
	}
	if (d)
		closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	TAP_OK(n >= 5, "corpus has %zu cases", n);
	for (size_t i = 0; i < n; i++) {
		char *in = sp_xasprintf("%s/%s.in", dir, names[i]);
		char *ex = sp_xasprintf("%s/%s.expect", dir, names[i]);
		uint8_t *data = NULL, *want = NULL;
		size_t len = 0, wlen = 0;
		sp_error *e1 = sp_read_file(in, &data, &len);
		sp_error *e2 = sp_read_file(ex, &want, &wlen);
		while (wlen && (want[wlen - 1] == '\n'))
			want[--wlen] = 0;
		sp_profile *p = NULL;
		sp_error *err = (!e1 && !e2) ? sp_pprof_read(names[i], data, len, &p) : NULL;
		char *msg = err ? sp_error_string(err) : NULL;
		TAP_OK(msg && strstr(msg, (char *)want), "corpus %s: error contains \"%s\"",
		       names[i], want ? (char *)want : "?");
		if (msg && !strstr(msg, (char *)want))
			printf("#   got: %s\n", msg);
		free(msg);
		sp_error_free(err);
		sp_error_free(e1);
		sp_error_free(e2);
		sp_profile_free(p);
		free(data);
		free(want);
		free(in);
		free(ex);
		free(names[i]);
	}
	free(names);
	free(dir);
}

int main(void)
{
	test_tiny_bytes();
	test_round_trip();
	test_wire_details();
	test_errors();
	test_corpus();
	return tap_done();
}
