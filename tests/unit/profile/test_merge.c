/* test_merge.c — sp_profile_merge with pprof's identity rules (spec/
 * FORMATS.md §1.3 "Merge"): doubling, compaction, incompatible profiles,
 * and one case per identity rule. */
#include "profile/profile.h"
#include "tests/helpers/tap.h"

#include <stdlib.h>
#include <string.h>

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

/* A small heap-like profile; values scaled by K. */
static sp_profile *heap_profile(int64_t k)
{
	sp_profile *p = sp_profile_new();
	sp_profile_add_sample_type(p, "alloc_objects", "count");
	sp_profile_add_sample_type(p, "alloc_space", "bytes");
	p->period_type.type = sp_profile_intern(p, "space");
	p->period_type.unit = sp_profile_intern(p, "bytes");
	p->period = 100;
	sp_mapping m = {.memory_start = 0x400000, .memory_limit = 0x410000,
			.filename = sp_profile_intern(p, "/bin/app"),
			.build_id = sp_profile_intern(p, "feedface")};
	sp_profile_add_mapping(p, &m);
	uint64_t fa = sp_profile_function_for(p, "alloc", "alloc", "a.c", 1);
	uint64_t fm = sp_profile_function_for(p, "main", "main", "a.c", 20);
	sp_line la[] = {{fa, 3, 0}}, lm[] = {{fm, 25, 4}};
	sp_location l1 = {.mapping_id = 1, .address = 0x401000, .lines = la, .n_lines = 1};
	sp_location l2 = {.mapping_id = 1, .address = 0x402000, .lines = lm, .n_lines = 1};
	sp_profile_add_location(p, &l1);
	sp_profile_add_location(p, &l2);
	uint64_t st[] = {1, 2}, st2[] = {2};
	int64_t v1[] = {2 * k, 64 * k}, v2[] = {1 * k, 8 * k};
	sp_label lab = sp_label_num(p, "bytes", 32, "bytes");
	sp_profile_add_sample(p, v1, st, 2, &lab, 1);
	sp_profile_add_sample(p, v2, st2, 1, NULL, 0);
	return p;
}

static sp_profile *merge2(sp_profile *a, sp_profile *b, sp_error **err)
{
	sp_profile *in[] = {a, b}, *out = NULL;
	*err = sp_profile_merge(in, b ? 2 : 1, &out);
	return out;
}

static void test_doubling(void)
{
	sp_profile *a = heap_profile(1), *b = heap_profile(1), *twice = heap_profile(2);
	char *da = dump(a);
	sp_error *err;
	sp_profile *m = merge2(a, b, &err);
	TAP_OK(!err && m, "two copies merge");
	sp_profile *c = merge2(twice, NULL, &err);
	TAP_OK(!err && c, "one profile compacts");
	if (m && c) {
		char *dm = dump(m), *dc = dump(c);
		TAP_EQ_STR(dm, dc, "merging two copies doubles every value");
		free(dm);
		free(dc);
		TAP_OK(m->n_samples == 2 && m->samples[0].values[0] == 4 &&
			       m->samples[0].values[1] == 128 && m->samples[1].values[1] == 16,
		       "sample values 2+2, 64+64, 8+8");
		TAP_OK(m->n_locations == 2 && m->n_functions == 2 && m->n_mappings == 1,
		       "locations, functions and the mapping are not duplicated");
	}
	char *da2 = dump(a);
	TAP_EQ_STR(da2, da, "inputs are not modified");
	free(da);
	free(da2);
	sp_profile_free(m);
	sp_profile_free(c);
	sp_profile_free(a);
	sp_profile_free(b);
	sp_profile_free(twice);
}

static void test_incompatible(void)
{
	sp_profile *a = heap_profile(1), *b = sp_profile_new();
	sp_profile_add_sample_type(b, "cpu", "nanoseconds");
	sp_error *err;
	sp_profile *m = merge2(a, b, &err);
	char *s = err ? sp_error_string(err) : NULL;
	TAP_EQ_STR(s, "cannot merge profile 2: sample types differ: "
		      "[alloc_objects/count alloc_space/bytes] vs [cpu/nanoseconds]",
		   "different sample types are refused");
	TAP_OK(!m, "no result on error");
	free(s);
	sp_error_free(err);
	sp_profile_free(b);

	b = heap_profile(1);
	b->period_type.unit = sp_profile_intern(b, "kilobytes");
	m = merge2(a, b, &err);
	s = err ? sp_error_string(err) : NULL;
	TAP_EQ_STR(s, "cannot merge profile 2: period types differ: space/bytes vs space/kilobytes",
		   "different period types are refused");
	free(s);
	sp_error_free(err);
	sp_profile_free(m);
	sp_profile_free(a);
	sp_profile_free(b);
}

/* One location per profile inside one mapping; returns the profile. */
static sp_profile *one_frame(const char *file, const char *build_id, uint64_t start,
			     uint64_t size, uint64_t offset, uint64_t addr, int64_t start_line,
			     int64_t value)
{
	sp_profile *p = sp_profile_new();
	sp_profile_add_sample_type(p, "samples", "count");
	sp_mapping m = {.memory_start = start, .memory_limit = start + size,
			.file_offset = offset, .filename = sp_profile_intern(p, file),
			.build_id = sp_profile_intern(p, build_id)};
	sp_profile_add_mapping(p, &m);
	uint64_t f = sp_profile_function_for(p, "work", "work", "w.c", start_line);
	sp_line ln = {f, 7, 0};
	sp_location l = {.mapping_id = 1, .address = addr, .lines = &ln, .n_lines = 1};
	sp_profile_add_location(p, &l);
	uint64_t loc = 1;
	sp_profile_add_sample(p, &value, &loc, 1, NULL, 0);
	return p;
}

static void check_merge(sp_profile *a, sp_profile *b, size_t n_mappings, size_t n_locations,
			size_t n_functions, size_t n_samples, const char *what)
{
	sp_error *err;
	sp_profile *m = merge2(a, b, &err);
	TAP_OK(m && m->n_mappings == n_mappings && m->n_locations == n_locations &&
		       m->n_functions == n_functions && m->n_samples == n_samples,
	       "%s: %zu mapping(s), %zu location(s), %zu function(s), %zu sample(s)", what,
	       n_mappings, n_locations, n_functions, n_samples);
	if (m && m->n_samples == 1)
		TAP_EQ_U64(m->samples[0].values[0], 5, "%s: values summed", what);
	sp_error_free(err);
	sp_profile_free(m);
	sp_profile_free(a);
	sp_profile_free(b);
}

static void test_identity(void)
{
	/* same build id, other path and load address: one mapping; the
	 * location is the same offset into it */
	sp_profile *a = one_frame("/a/app", "b1", 0x400000, 0x10000, 0, 0x401000, 1, 2);
	sp_profile *b = one_frame("/b/app", "b1", 0x800000, 0x10000, 0, 0x801000, 1, 3);
	sp_error *err;
	sp_profile *m = merge2(a, b, &err);
	TAP_OK(m && m->n_mappings == 1 && m->n_locations == 1 && m->n_samples == 1 &&
		       m->mappings[0].memory_start == 0x400000 &&
		       m->locations[0].address == 0x401000 && m->samples[0].values[0] == 5,
	       "build id identifies a mapping; first start kept; address rebased");
	sp_error_free(err);
	sp_profile_free(m);
	sp_profile_free(a);
	sp_profile_free(b);

	check_merge(one_frame("/app", "", 0x1000, 0x1800, 0, 0x1100, 1, 2),
		    one_frame("/app", "", 0x1000, 0x2000, 0, 0x1100, 1, 3), 1, 1, 1, 1,
		    "sizes equal after rounding up to 4 KiB");
	check_merge(one_frame("/app", "", 0x1000, 0x1000, 0, 0x1100, 1, 2),
		    one_frame("/app", "", 0x1000, 0x2000, 0, 0x1100, 1, 3), 2, 2, 1, 2,
		    "sizes differing after rounding");
	check_merge(one_frame("/app", "", 0x1000, 0x1000, 0, 0x1100, 1, 2),
		    one_frame("/app", "", 0x1000, 0x1000, 0x1000, 0x1100, 1, 3), 2, 2, 1, 2,
		    "different file offsets");
	check_merge(one_frame("/app", "b1", 0x1000, 0x1000, 0, 0x1100, 1, 2),
		    one_frame("/app", "b2", 0x1000, 0x1000, 0, 0x1100, 1, 3), 2, 2, 1, 2,
		    "different build ids");
	check_merge(one_frame("/app", "", 0x1000, 0x1000, 0, 0x1100, 1, 2),
		    one_frame("/app", "", 0x1000, 0x1000, 0, 0x1100, 2, 3), 1, 2, 2, 2,
		    "functions differing in start_line");
	check_merge(one_frame("/app", "", 0x1000, 0x1000, 0, 0x1100, 1, 2),
		    one_frame("/app", "", 0x1000, 0x1000, 0, 0x1104, 1, 3), 1, 2, 1, 2,
		    "different addresses");
}

static void test_compact(void)
{
	/* duplicate locations and samples, a zero sample, unused functions */
	sp_profile *p = sp_profile_new();
	sp_profile_add_sample_type(p, "samples", "count");
	sp_mapping m = {.id = 7, .memory_start = 0x1000, .memory_limit = 0x2000,
			.filename = sp_profile_intern(p, "/bin/main")};
	sp_profile_add_mapping(p, &m);
	sp_function f = {.id = 30, .name = sp_profile_intern(p, "unused")};
	sp_profile_add_function(p, &f);
	sp_location l = {.id = 10, .mapping_id = 7, .address = 0x1100};
	sp_profile_add_location(p, &l);
	l.id = 20;
	sp_profile_add_location(p, &l);
	l.id = 40;
	l.address = 0x1200;
	sp_profile_add_location(p, &l);
	uint64_t s10 = 10, s20 = 20, s40 = 40;
	int64_t one = 1, zero = 0;
	sp_label k1 = sp_label_str(p, "k", "1"), k2 = sp_label_str(p, "k2", "2");
	sp_label ab[] = {k1, k2}, ba[] = {k2, k1};
	sp_profile_add_sample(p, &one, &s40, 1, NULL, 0); /* zero'd below */
	sp_profile_add_sample(p, &one, &s10, 1, ab, 2);
	sp_profile_add_sample(p, &one, &s20, 1, ba, 2);
	sp_profile_add_sample(p, &one, &s20, 1, NULL, 0);
	p->samples[0].values[0] = zero;
	p->time_nanos = 50;
	p->duration_nanos = 10;
	sp_profile_add_comment(p, "c1");

	sp_profile *q = sp_profile_new();
	sp_profile_add_sample_type(q, "samples", "count");
	q->time_nanos = 20;
	q->duration_nanos = 5;
	q->period = 9;
	q->default_sample_type = sp_profile_intern(q, "samples");
	sp_profile_add_comment(q, "c1");
	sp_profile_add_comment(q, "c2");

	sp_error *err;
	sp_profile *c = merge2(p, q, &err);
	TAP_OK(!err && c, "compaction merges");
	if (c) {
		TAP_EQ_U64(c->n_locations, 1, "two locations at one address become one");
		TAP_EQ_U64(c->locations[0].id, 1, "new ids start at 1");
		TAP_EQ_U64(c->n_samples, 2, "labels in either order are one key; zero sample dropped");
		TAP_OK(c->n_samples == 2 && c->samples[0].values[0] == 2 &&
			       c->samples[0].n_labels == 2 && c->samples[1].values[0] == 1,
		       "labelled samples summed, unlabelled kept apart");
		TAP_EQ_U64(c->n_functions, 0, "unreferenced function dropped");
		TAP_OK(c->n_mappings == 1 && c->mappings[0].id == 1, "main mapping kept, id 1");
		TAP_EQ_U64(c->time_nanos, 20, "earliest time");
		TAP_EQ_U64(c->duration_nanos, 15, "durations summed");
		TAP_EQ_U64(c->period, 9, "largest period");
		TAP_OK(c->n_comments == 2 &&
			       !strcmp(sp_profile_str(c, c->comments[0]), "c1") &&
			       !strcmp(sp_profile_str(c, c->comments[1]), "c2"),
		       "comments de-duplicated in order");
		TAP_EQ_STR(sp_profile_str(c, c->default_sample_type), "samples",
			   "default sample type from the first that has one");
		sp_error *ce = sp_profile_check(c, "merged");
		TAP_OK(!ce, "result is valid");
		sp_error_free(ce);
	}
	sp_error_free(err);
	sp_profile_free(c);
	sp_profile_free(p);
	sp_profile_free(q);
}

int main(void)
{
	test_doubling();
	test_incompatible();
	test_identity();
	test_compact();
	return tap_done();
}
