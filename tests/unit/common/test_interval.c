/* test_interval.c — the interval table of common/interval.c against a
 * direct scan ("the first range in the given order that holds the
 * address") on nested, overlapping, touching, empty and edge-of-space
 * ranges, hand-made and random; and the mapping index of profile/ built on
 * it against pprof's loop over the mappings, split-mapping rule included. */
#include "profile/profile.h"
#include "tests/helpers/tap.h"

#include <stdlib.h>

static size_t scan(const sp_interval *v, size_t n, uint64_t a)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].start <= a && a < v[i].end)
			return v[i].value;
	return SIZE_MAX;
}

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Every address near a bound of V gives the scan's answer. */
static bool agrees(const sp_interval *v, size_t n, const sp_interval_table *t)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t pts[] = {v[i].start, v[i].end};
		for (int k = 0; k < 2; k++)
			for (int d = -1; d <= 1; d++) {
				uint64_t a = pts[k] + (uint64_t)(int64_t)d;
				if (sp_interval_table_find(t, a) != scan(v, n, a))
					return false;
			}
	}
	return true;
}

static void hand_made(void)
{
	/* JIT-like: one section encloses the others, best = greatest start */
	sp_interval nest[] = {
		{0x1200, 0x1210, 4}, /* inside 3 */
		{0x1100, 0x1400, 3}, /* inside 2 */
		{0x1000, 0x1800, 2}, /* inside 1 */
		{0x1000, 0x1100, 5}, /* same start as 2, listed after it */
		{0x0, 0x10000, 1},   /* encloses everything */
	};
	sp_interval_table t = {0};
	sp_interval_table_build(&t, nest, 5);
	TAP_EQ_U64(sp_interval_table_find(&t, 0x1205), 4, "innermost of four nested ranges");
	TAP_EQ_U64(sp_interval_table_find(&t, 0x1210), 3, "end of the innermost: the next one out");
	TAP_EQ_U64(sp_interval_table_find(&t, 0x10ff), 2, "equal starts: the first given wins");
	TAP_EQ_U64(sp_interval_table_find(&t, 0x1800), 1, "past every inner range: the outer one");
	TAP_EQ_U64(sp_interval_table_find(&t, 0xffff), 1, "last address of the outer range");
	TAP_EQ_U64(sp_interval_table_find(&t, 0x10000), SIZE_MAX, "end is exclusive");
	TAP_OK(agrees(nest, 5, &t), "nested ranges agree with a scan");

	/* overlapping without nesting, touching, empty, the top of the space */
	sp_interval ov[] = {
		{10, 20, 0}, {15, 30, 1}, {30, 40, 2}, {50, 50, 3}, {60, 55, 4},
		{UINT64_MAX - 5, UINT64_MAX, 5}, {5, 12, 6},
	};
	sp_interval_table_build(&t, ov, 7);
	TAP_EQ_U64(sp_interval_table_find(&t, 17), 0, "overlap: the first given wins");
	TAP_EQ_U64(sp_interval_table_find(&t, 25), 1, "overlap: the second past the first");
	TAP_EQ_U64(sp_interval_table_find(&t, 30), 2, "touching ranges: the next one");
	TAP_EQ_U64(sp_interval_table_find(&t, 7), 6, "a later range below an earlier one");
	TAP_EQ_U64(sp_interval_table_find(&t, 50), SIZE_MAX, "an empty range holds nothing");
	TAP_EQ_U64(sp_interval_table_find(&t, 57), SIZE_MAX, "an inverted range holds nothing");
	TAP_EQ_U64(sp_interval_table_find(&t, UINT64_MAX - 1), 5, "a range at the top of the space");
	TAP_EQ_U64(sp_interval_table_find(&t, 4), SIZE_MAX, "below every range");
	TAP_OK(agrees(ov, 7, &t), "overlapping ranges agree with a scan");
	TAP_OK(t.n <= 2 * 7, "at most two runs per range (%zu)", t.n);

	sp_interval_table_build(&t, NULL, 0);
	TAP_EQ_U64(sp_interval_table_find(&t, 0), SIZE_MAX, "an empty table holds nothing");
	sp_interval_table_clear(&t);
	sp_interval_table_clear(&t);
}

static void random_sets(void)
{
	uint64_t s = 0x2545f4914f6cdd1dULL;
	size_t bad = 0, sets = 3000;
	sp_interval v[24];
	sp_interval_table t = {0};
	for (size_t k = 0; k < sets; k++) {
		size_t n = 1 + rng(&s) % 24;
		for (size_t i = 0; i < n; i++) {
			v[i].start = rng(&s) % 64;
			v[i].end = v[i].start + rng(&s) % 40; /* some empty */
			v[i].value = rng(&s) % 8;            /* values repeat */
		}
		sp_interval_table_build(&t, v, n);
		for (uint64_t a = 0; a < 110; a++)
			bad += sp_interval_table_find(&t, a) != scan(v, n, a);
	}
	TAP_EQ_U64(bad, 0, "%zu random sets of nested and overlapping ranges agree with a scan",
		   sets);
	/* one large set: bound searches that jump far in both directions */
	size_t big_n = 3000;
	sp_interval *big = sp_xreallocarray(NULL, big_n, sizeof(*big));
	for (size_t i = 0; i < big_n; i++) {
		big[i].start = rng(&s) % 100000;
		big[i].end = big[i].start + 1 + rng(&s) % (i % 7 ? 300 : 30000);
		big[i].value = i;
	}
	sp_interval_table_build(&t, big, big_n);
	bad = 0;
	for (uint64_t a = 0; a < 131000; a += 7)
		bad += sp_interval_table_find(&t, a) != scan(big, big_n, a);
	TAP_OK(bad == 0 && agrees(big, big_n, &t),
	       "%zu random ranges in random order agree with a scan (%zu differ)", big_n, bad);
	free(big);
	sp_interval_table_clear(&t);
}

/* pprof's loop (and profile/maps.c's): the first mapping that holds A or,
 * through the split-mapping rule, its unencoded first part. */
static size_t pprof_loop(const sp_profile *p, uint64_t a)
{
	for (size_t j = 0; j < p->n_mappings; j++) {
		const sp_mapping *m = &p->mappings[j];
		if (m->memory_start <= a && a < m->memory_limit)
			return j;
		if (m->file_offset != 0 && m->memory_start >= m->file_offset &&
		    m->memory_start - m->file_offset <= a && a < m->memory_start &&
		    m->memory_start < m->memory_limit)
			return j;
	}
	return SIZE_MAX;
}

static void mapping_index(void)
{
	sp_profile *p = sp_profile_new();
	sp_mapping ms[] = {
		{.memory_start = 0x400000, .memory_limit = 0x401000},
		{.memory_start = 0x7f0000002000, .memory_limit = 0x7f0000008000,
		 .file_offset = 0x2000}, /* first part not encoded */
		{.memory_start = 0x7f0000000000, .memory_limit = 0x7f0000004000}, /* overlaps it */
		{.memory_start = 0x500000, .memory_limit = 0x500000},             /* empty */
		{.memory_start = 0x1000, .memory_limit = 0x3000, .file_offset = 0x8000},
	};
	for (size_t i = 0; i < 5; i++) {
		ms[i].id = i + 1;
		sp_profile_add_mapping(p, &ms[i]);
	}
	sp_mapping_index x = {0};
	sp_mapping_index_build(&x, p, true);
	TAP_EQ_U64(sp_mapping_index_find(&x, 0x400fff), 0, "inside the first mapping");
	TAP_EQ_U64(sp_mapping_index_find(&x, 0x7f0000001000), 1,
		   "the unencoded first part of a split mapping comes before a later overlap");
	TAP_EQ_U64(sp_mapping_index_find(&x, 0x7f0000009000), SIZE_MAX, "past every mapping");
	TAP_EQ_U64(sp_mapping_index_find(&x, 0x500000), SIZE_MAX, "an empty mapping holds nothing");
	TAP_EQ_U64(sp_mapping_index_find(&x, 0x800), SIZE_MAX, "offset larger than start: no unencoded part");
	size_t bad = 0;
	for (uint64_t a = 0x7effffffe000; a < 0x7f000000a000; a += 0x100)
		bad += sp_mapping_index_find(&x, a) != pprof_loop(p, a);
	TAP_EQ_U64(bad, 0, "agrees with pprof's loop around the split mapping");
	/* the rewrite pprof does when the unencoded part is hit */
	p->mappings[1].memory_start -= p->mappings[1].file_offset;
	p->mappings[1].file_offset = 0;
	bad = 0;
	for (uint64_t a = 0x7effffffe000; a < 0x7f000000a000; a += 0x100)
		bad += sp_mapping_index_find(&x, a) != pprof_loop(p, a);
	TAP_EQ_U64(bad, 0, "still agrees after the split mapping is rewritten");
	sp_mapping_index x2 = {0};
	sp_mapping_index_build(&x2, p, false);
	TAP_EQ_U64(sp_mapping_index_find(&x2, 0x7f0000001000), 1, "rebuilt without the rule");
	TAP_EQ_U64(sp_mapping_index_find(&x2, 0x2000), 4, "the last mapping");
	sp_mapping_index_clear(&x2);
	sp_mapping_index_clear(&x);
	sp_profile_free(p);
}

int main(void)
{
	hand_made();
	random_sets();
	mapping_index();
	return tap_done();
}
