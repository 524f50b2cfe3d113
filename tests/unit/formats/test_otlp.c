/* test_otlp.c — the OTLP profiles reader and writer (formats/otlp.c) and the
 * model's OpenTelemetry extras (profile/otel.c):
 *   - pprof -> OTLP -> pprof keeps a rich profile whole in the canonical dump
 *     (several sample types, labels with units, repeated keys, timestamp and
 *     trace labels, pprof's profile fields and flags), through protobuf,
 *     gzip and JSON;
 *   - a profile read from OTLP (tests/fuzz/seeds/otlp/both.otlp, made by
 *     tests/fuzz/otlp_seeds.py with python3-protobuf) has the model and the
 *     extras its generator put in, and OTLP -> model -> OTLP keeps them;
 *   - samples dropped by a filter leave the extras in step, and what is
 *     written then is what is left;
 *   - the pprof semantic conventions' columns come back in their order.
 * The malformed corpora (tests/malformed/otlp*) are test_malformed's. */
#include "formats/formats.h"
#include "tests/helpers/tap.h"

#include <stdlib.h>
#include <string.h>

static char *dump(const sp_profile *p)
{
	sp_sink *s = sp_sink_memory_new();
	sp_profile_dump(p, s);
	size_t n;
	const uint8_t *d = sp_sink_memory_data(s, &n);
	char *c = sp_xstrndup((const char *)d, n);
	sp_sink_free(s);
	return c;
}

/* P written in ENC and read back (NULL and a failed case on error). */
static sp_profile *again(const sp_profile *p, sp_otlp_encoding enc, const char *what)
{
	sp_sink *s = sp_sink_memory_new();
	sp_error *e = sp_otlp_write(p, enc, s);
	sp_profile *q = NULL;
	if (!e) {
		size_t n;
		const uint8_t *d = sp_sink_memory_data(s, &n);
		e = sp_read_profile(what, d, n, &q, NULL);
	}
	if (e) {
		char *m = sp_error_string(e);
		TAP_OK(false, "%s: written and read back: %s", what, m);
		free(m);
		sp_error_free(e);
	}
	sp_sink_free(s);
	return q;
}

static sp_profile *through_pprof(const sp_profile *p)
{
	sp_sink *s = sp_sink_memory_new();
	sp_profile *q = NULL;
	sp_error *e = sp_pprof_write(p, false, s);
	if (!e) {
		size_t n;
		const uint8_t *d = sp_sink_memory_data(s, &n);
		e = sp_pprof_read("pprof", d, n, &q);
	}
	TAP_OK(!e, "written as pprof and read back");
	sp_error_free(e);
	sp_sink_free(s);
	return q;
}

static sp_profile *rich(void)
{
	sp_profile *p = sp_profile_new();
	sp_profile_add_sample_type(p, "samples", "count");
	sp_profile_add_sample_type(p, "alloc_space", "bytes");
	p->default_sample_type = sp_profile_intern(p, "alloc_space");
	p->drop_frames = sp_profile_intern(p, "malloc|free");
	p->keep_frames = sp_profile_intern(p, "keepme");
	p->doc_url = sp_profile_intern(p, "https://example.com/doc");
	sp_profile_add_comment(p, "first comment");
	sp_profile_add_comment(p, "second");
	p->period_type.type = sp_profile_intern(p, "space");
	p->period_type.unit = sp_profile_intern(p, "bytes");
	p->period = 524288;
	p->time_nanos = 1700000000123456789;
	p->duration_nanos = 10000000000;
	sp_mapping m = {.memory_start = 0x400000, .memory_limit = 0x500000, .file_offset = 0,
			.filename = sp_profile_intern(p, "/usr/bin/app"),
			.build_id = sp_profile_intern(p, "f3367acbd316f015e9d529ddc4a9aceae984a4a5"),
			.has_functions = true, .has_line_numbers = true};
	sp_profile_add_mapping(p, &m);
	sp_mapping go = {.memory_start = 0x7f0000000000, .memory_limit = 0x7f0000100000,
			 .file_offset = 0x1000, .filename = sp_profile_intern(p, "/lib/libgo.so"),
			 .build_id = sp_profile_intern(p, "abc/def_ghi-jkl")};
	sp_profile_add_mapping(p, &go);
	uint64_t f1 = sp_profile_function_for(p, "ns::work", "_ZN2ns4workEv", "work.cc", 10);
	uint64_t f2 = sp_profile_function_for(p, "main", "main", "main.cc", 3);
	sp_line inl[2] = {{f1, 12, 7}, {f2, 30, 0}};
	sp_location l1 = {.mapping_id = 1, .address = 0x401234, .lines = inl, .n_lines = 2};
	sp_profile_add_location(p, &l1);
	sp_location l2 = {.mapping_id = 1, .address = 0x401300, .is_folded = true, .lines = inl + 1,
			  .n_lines = 1};
	sp_profile_add_location(p, &l2);
	sp_location l3 = {.mapping_id = 2, .address = 0x7f0000001234};
	sp_profile_add_location(p, &l3);

	uint64_t s1[] = {1, 2}, s2[] = {3, 2};
	sp_label la[] = {
		sp_label_str(p, "thread", "worker"),
		sp_label_num(p, "bytes", 4096, "bytes"),
		sp_label_str(p, "tag", "a"),
		sp_label_str(p, "tag", "b"),
		sp_label_num(p, "n", -5, NULL),
	};
	int64_t v1[] = {3, 12288};
	sp_profile_add_sample(p, v1, s1, 2, la, SP_ARRAY_LEN(la));
	/* as OTLP -> pprof writes them: timestamps, a trace */
	sp_label lb[] = {
		sp_label_num(p, SP_OTEL_TIMESTAMP_LABEL, 1700000000000000001, "nanoseconds"),
		sp_label_num(p, SP_OTEL_TIMESTAMP_LABEL, 1700000000000000002, "nanoseconds"),
		sp_label_str(p, SP_OTEL_TRACE_ID_LABEL, "000102030405060708090a0b0c0d0e0f"),
		sp_label_str(p, SP_OTEL_SPAN_ID_LABEL, "08090a0b0c0d0e0f"),
	};
	int64_t v2[] = {2, 2};
	sp_profile_add_sample(p, v2, s2, 2, lb, SP_ARRAY_LEN(lb));
	sp_label lc[] = {sp_label_num(p, SP_OTEL_TIMESTAMP_LABEL, 1700000000000000009,
				      "nanoseconds")};
	int64_t v3[] = {1, 100};
	sp_profile_add_sample(p, v3, s2, 2, lc, 1);
	/* two timestamps the values do not count: they stay labels */
	sp_label ld[] = {sp_label_num(p, SP_OTEL_TIMESTAMP_LABEL, 5, "nanoseconds"),
			 sp_label_num(p, SP_OTEL_TIMESTAMP_LABEL, 6, "nanoseconds")};
	int64_t v4[] = {7, 7000};
	sp_profile_add_sample(p, v4, s1, 1, ld, 2);
	int64_t v5[] = {0, 0};
	sp_profile_add_sample(p, v5, NULL, 0, NULL, 0);
	return p;
}

static void pprof_round_trip(void)
{
	sp_profile *p = rich();
	char *want = dump(p);
	const sp_otlp_encoding encs[] = {SP_OTLP_PROTO, SP_OTLP_PROTO_GZ, SP_OTLP_JSON};
	const char *names[] = {"protobuf", "gzip", "JSON"};
	for (int k = 0; k < 3; k++) {
		sp_profile *o = again(p, encs[k], names[k]);
		if (!o)
			continue;
		TAP_OK(o->otel && sp_otel_describes(o), "%s: the OTLP read has extras", names[k]);
		sp_profile *q = through_pprof(o);
		char *got = q ? dump(q) : sp_xstrdup("");
		if (!TAP_OK(!strcmp(got, want), "pprof -> OTLP (%s) -> pprof: the same canonical "
						 "dump", names[k]))
			printf("# want:\n%s# got:\n%s", want, got);
		free(got);
		sp_profile_free(q);
		sp_profile_free(o);
	}
	free(want);
	sp_profile_free(p);
}

/* The seed's facts, as tests/fuzz/otlp_seeds.py made it. */
static void seed_facts(const sp_profile *p, const char *d)
{
	TAP_OK(p->n_sample_types == 2, "two columns: samples/count and alloc_space/bytes");
	TAP_OK(p->n_samples == 6, "six model samples (one OTLP sample's two observations apart)");
	TAP_OK(strstr(d, "samples/count alloc_space/bytes[dflt]") != NULL,
	       "the scope's default sample type");
	TAP_OK(strstr(d, "         10      10000: 1 2 3 \n") != NULL,
	       "two profiles of one scope are the columns of one sample (10, 10000)");
	TAP_OK(strstr(d, "          5          0: 4 2 3 \n") &&
		       strstr(d, "          7          0: 4 2 3 \n"),
	       "a value per timestamp: one model sample each");
	TAP_OK(strstr(d, "trace_id:[000102030405060708090a0b0c0d0e0f]") &&
		       strstr(d, "span_id:[08090a0b0c0d0e0f]"),
	       "the link as labels, in hex");
	TAP_OK(strstr(d, "timestamp_unix_nano:[1700000000000000001 nanoseconds]") != NULL,
	       "timestamps as labels");
	TAP_OK(strstr(d, "bytes:[4096 bytes]") != NULL, "an integer attribute with its unit");
	TAP_OK(strstr(d, "container.id:[c0ffee]") && strstr(d, "process.pid:[42]"),
	       "the resource's attributes on its samples");
	TAP_OK(strstr(d, "key:[{inner: 0001ff}]") != NULL, "a list value as its text");
	TAP_OK(strstr(d, "f3367acbd316f015e9d529ddc4a9aceae984a4a5[FN]") != NULL,
	       "the GNU build id and pprof's has_functions on the mapping");
	TAP_OK(strstr(d, "     2: 0x1157 M=1 work app.c:12:5") != NULL, "an inline chain kept");
	TAP_OK(strstr(d, "id=0102030405060708090a0b0c0d0e0f10 payload_format=x payload=007061796c6f6164"),
	       "the profile id and original payload in the extras");
	TAP_OK(strstr(d, "entity={schema_url: \"s\", type: \"process\", id_keys: [\"process.pid\"]"),
	       "the resource's entity ref");
	TAP_OK(strstr(d, "location 4: profile.frame.type=\"kernel\"") != NULL, "frame types");
	const sp_location *k = sp_profile_location(p, 4);
	TAP_OK(k && sp_location_kind(p, k) == SP_CODE_KERNEL, "a kernel frame is the kernel's kind");
	TAP_EQ_STR(sp_mapping_otel_string(p, 2, "process.executable.build_id.htlhash"),
		   "074a057052f34a27c0b758531573b03d", "the htlhash of mapping 2");
}

static bool keep_not_second(const sp_sample *s, const void *ctx)
{
	return s != (const sp_sample *)ctx;
}

static void otlp_round_trip(void)
{
	const char *src = getenv("SP_SRCDIR");
	char *path = sp_xasprintf("%s/tests/fuzz/seeds/otlp/both.otlp", src && *src ? src : ".");
	sp_profile *p = NULL;
	sp_input_format fmt;
	sp_error *e = sp_read_profile_file(path, &p, &fmt);
	TAP_OK(!e && fmt == SP_FMT_OTLP, "the seed reads as OTLP");
	sp_error_free(e);
	free(path);
	if (!p)
		return;
	char *d = dump(p);
	seed_facts(p, d);
	const sp_otlp_encoding encs[] = {SP_OTLP_PROTO, SP_OTLP_PROTO_GZ, SP_OTLP_JSON};
	for (int k = 0; k < 3; k++) {
		sp_profile *q = again(p, encs[k], "again");
		char *d2 = q ? dump(q) : sp_xstrdup("");
		if (!TAP_OK(!strcmp(d, d2), "OTLP -> model -> OTLP (%d) -> model: the same dump, extras "
					   "and all", k))
			printf("# want:\n%s# got:\n%s", d, d2);
		free(d2);
		sp_profile_free(q);
	}
	free(d);

	/* a filter drops the second sample: the extras follow */
	sp_profile_retain_samples(p, keep_not_second, &p->samples[1]);
	TAP_OK(sp_otel_describes(p) && p->otel->n_samples == 5, "the extras follow a filter");
	d = dump(p);
	TAP_OK(!strstr(d, "key=1.5 (double)"), "the dropped sample's attributes are gone");
	sp_profile *q = again(p, SP_OTLP_PROTO, "filtered");
	char *d2 = q ? dump(q) : sp_xstrdup("");
	if (!TAP_OK(!strcmp(d, d2), "and what is written is what is left"))
		printf("# want:\n%s# got:\n%s", d, d2);
	free(d2);
	free(d);
	sp_profile_free(q);

	/* extras out of step: the writer works from the labels */
	p->otel->n_samples--;
	TAP_OK(!sp_otel_describes(p), "extras that do not describe the samples are not trusted");
	q = again(p, SP_OTLP_PROTO, "out of step");
	TAP_OK(q && q->n_samples == p->n_samples, "... and the labels make the OTLP samples");
	sp_profile_free(q);
	sp_profile_free(p);
}

int main(void)
{
	pprof_round_trip();
	otlp_round_trip();
	return tap_done();
}
