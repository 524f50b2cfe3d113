/* test_diff.c — sp_profile_diff as pprof's -base and -diff_base compute a
 * difference: the base negated and merged in.  Stacks in both carry their
 * change, stacks only in the base come out negative, cancelled stacks
 * disappear with -base, base samples stay apart (labelled) with
 * -diff_base, and profiles of different kinds are refused. */
#include "profile/profile.h"
#include "tests/helpers/tap.h"

#include <stdlib.h>
#include <string.h>

/* A heap profile of one binary: "main;alloc" with A objects of 32 bytes,
 * "main" with M objects of 8 bytes (a zero count leaves the stack out). */
static sp_profile *heap(int64_t a, int64_t m)
{
	sp_profile *p = sp_profile_new();
	sp_profile_add_sample_type(p, "inuse_objects", "count");
	sp_profile_add_sample_type(p, "inuse_space", "bytes");
	p->period_type.type = sp_profile_intern(p, "space");
	p->period_type.unit = sp_profile_intern(p, "bytes");
	sp_mapping mp = {.memory_start = 0x400000, .memory_limit = 0x410000,
			 .filename = sp_profile_intern(p, "/bin/app")};
	sp_profile_add_mapping(p, &mp);
	uint64_t fa = sp_profile_function_for(p, "alloc", "alloc", "a.c", 1);
	uint64_t fm = sp_profile_function_for(p, "main", "main", "a.c", 20);
	sp_line la[] = {{fa, 3, 0}}, lm[] = {{fm, 25, 0}};
	sp_location l1 = {.mapping_id = 1, .address = 0x401000, .lines = la, .n_lines = 1};
	sp_location l2 = {.mapping_id = 1, .address = 0x402000, .lines = lm, .n_lines = 1};
	sp_profile_add_location(p, &l1);
	sp_profile_add_location(p, &l2);
	uint64_t st[] = {1, 2}, st2[] = {2};
	int64_t v1[] = {a, 32 * a}, v2[] = {m, 8 * m};
	if (a)
		sp_profile_add_sample(p, v1, st, 2, NULL, 0);
	if (m)
		sp_profile_add_sample(p, v2, st2, 1, NULL, 0);
	return p;
}

/* The sample whose leaf is location LEAF and whose base-ness is BASE. */
static const sp_sample *find(const sp_profile *p, uint64_t leaf_fn_line, bool base)
{
	for (size_t i = 0; i < p->n_samples; i++) {
		const sp_sample *s = &p->samples[i];
		const sp_location *l = sp_profile_location(p, s->location_ids[0]);
		if (l && l->n_lines && l->lines[0].line == (int64_t)leaf_fn_line &&
		    sp_sample_is_base(p, s) == base)
			return s;
	}
	return NULL;
}

static void test_base(void)
{
	/* dump 2: 5 allocs live, 1 main object; base dump 1: 2 allocs, 4 main */
	sp_profile *p = heap(5, 1), *b = heap(2, 4), *d = NULL;
	sp_error *err = sp_profile_diff(p, b, false, &d);
	TAP_OK(!err && d, "--base: the difference is computed");
	if (d) {
		const sp_sample *sa = find(d, 3, false), *sm = find(d, 25, false);
		TAP_OK(d->n_samples == 2, "two stacks");
		TAP_OK(sa && sa->values[0] == 3 && sa->values[1] == 96, "alloc grew by 3, 96 bytes");
		TAP_OK(sm && sm->values[0] == -3 && sm->values[1] == -24,
		       "main shrank by 3 objects, -24 bytes");
		TAP_OK(!sp_profile_has_base(d), "no pprof::base label with --base");
		TAP_OK(!sp_profile_check(d, "diff"), "the difference is a valid profile");
	}
	sp_profile_free(d);
	TAP_OK(p->n_samples == 2 && p->samples[0].values[0] == 5 && b->samples[0].values[0] == 2,
	       "inputs are not modified");

	/* a stack only in the base is negative; one that cancels is dropped */
	sp_profile *p2 = heap(0, 4), *b2 = heap(7, 4);
	err = sp_profile_diff(p2, b2, false, &d);
	TAP_OK(!err && d && d->n_samples == 1, "a cancelled stack is dropped");
	if (d && d->n_samples == 1) {
		const sp_sample *sa = find(d, 3, false);
		TAP_OK(sa && sa->values[0] == -7 && sa->values[1] == -224,
		       "a stack only in the base is negative");
	}
	sp_profile_free(d);
	err = sp_profile_diff(p, p, false, &d);
	TAP_OK(!err && d && d->n_samples == 0, "a profile minus itself is empty");
	sp_profile_free(d);
	sp_profile_free(p2);
	sp_profile_free(b2);
	sp_profile_free(p);
	sp_profile_free(b);
}

static void test_diff_base(void)
{
	sp_profile *p = heap(5, 4), *b = heap(2, 4), *d = NULL;
	sp_error *err = sp_profile_diff(p, b, true, &d);
	TAP_OK(!err && d && d->n_samples == 4, "--diff-base keeps four samples");
	if (d) {
		const sp_sample *na = find(d, 3, false), *ba = find(d, 3, true),
				*nm = find(d, 25, false), *bm = find(d, 25, true);
		TAP_OK(na && na->values[0] == 5 && ba && ba->values[0] == -2,
		       "alloc: 5 new, -2 base");
		TAP_OK(nm && nm->values[1] == 32 && bm && bm->values[1] == -32,
		       "main: an unchanged stack keeps both sides");
		TAP_OK(sp_profile_has_base(d), "base samples are labelled");
		if (ba && ba->n_labels == 1) {
			TAP_EQ_STR(sp_profile_str(d, ba->labels[0].key), "pprof::base", "label key");
			TAP_EQ_STR(sp_profile_str(d, ba->labels[0].str), "true", "label value");
		}
		TAP_OK(!sp_profile_check(d, "diff"), "the difference is a valid profile");
	}
	sp_profile_free(d);
	sp_profile_free(p);
	sp_profile_free(b);
}

static void test_kinds(void)
{
	sp_profile *p = heap(1, 1), *cpu = sp_profile_new(), *d = NULL;
	sp_profile_add_sample_type(cpu, "samples", "count");
	sp_profile_add_sample_type(cpu, "cpu", "nanoseconds");
	sp_error *err = sp_profile_diff(p, cpu, false, &d);
	TAP_OK(err && !d, "a heap profile minus a CPU profile is refused");
	if (err) {
		char *s = sp_error_string(err);
		TAP_OK(strstr(s, "no sample type in common") && strstr(s, "inuse_space/bytes") &&
			       strstr(s, "cpu/nanoseconds"),
		       "the error names both kinds: %s", s);
		free(s);
		sp_error_free(err);
	}
	sp_profile_free(p);
	sp_profile_free(cpu);
}

int main(void)
{
	test_base();
	test_diff_base();
	test_kinds();
	return tap_done();
}
