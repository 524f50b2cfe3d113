/* report_fixture.h — the hand-built profile of the report tests:
 *
 *   main -> work -> helper (inlined into work) -> leaf   60ms
 *   main -> work -> helper                                20ms
 *   main                                                  10ms
 *   main -> libfoo.so+0x1000                               5ms
 *   main -> ns::f<int>&                                    5ms
 *
 * Columns: samples/count (the ms number) and cpu/nanoseconds.
 */
#ifndef SYMPROF_TESTS_REPORT_FIXTURE_H
#define SYMPROF_TESTS_REPORT_FIXTURE_H

#include "profile/profile.h"

#define MS 1000000LL

/* Adds a location with N <= 4 lines (FUNCS[i] at LINES[i], innermost
 * first). */
static inline uint64_t add_loc(sp_profile *p, uint64_t mapping, uint64_t addr,
			       const uint64_t *funcs, const int64_t *lines, size_t n)
{
	sp_line ln[4];
	sp_location l = {.mapping_id = mapping, .address = addr, .lines = ln, .n_lines = n};

	for (size_t i = 0; i < n; i++)
		ln[i] = (sp_line){.function_id = funcs[i], .line = lines[i]};
	return sp_profile_add_location(p, &l)->id;
}

static inline void add_sample(sp_profile *p, int64_t ms, const uint64_t *locs, size_t n)
{
	int64_t v[2] = {ms, ms * MS};

	sp_profile_add_sample(p, v, locs, n, NULL, 0);
}

static inline sp_profile *make_profile(void)
{
	sp_profile *p = sp_profile_new();
	sp_mapping exe = {.memory_start = 0x1000, .memory_limit = 0x4000};
	sp_mapping lib = {.memory_start = 0x4000, .memory_limit = 0x5000, .file_offset = 0x1000};
	uint64_t fmain, fwork, fhelper, fleaf, fother, l1, l2, l3, l4, l5;

	sp_profile_add_sample_type(p, "samples", "count");
	sp_profile_add_sample_type(p, "cpu", "nanoseconds");
	exe.filename = sp_profile_intern(p, "/usr/bin/prog");
	lib.filename = sp_profile_intern(p, "/usr/lib/libfoo.so");
	sp_profile_add_mapping(p, &exe);
	sp_profile_add_mapping(p, &lib);
	fmain = sp_profile_function_for(p, "main", "main", "main.c", 1);
	fwork = sp_profile_function_for(p, "work", "work", "work.c", 1);
	fhelper = sp_profile_function_for(p, "helper", "helper", "work.c", 1);
	fleaf = sp_profile_function_for(p, "leaf", "leaf", "work.c", 1);
	fother = sp_profile_function_for(p, "ns::f<int>&", "_ZN2ns1fIiEE", "other.c", 1);
	l1 = add_loc(p, 1, 0x1000, (uint64_t[]){fmain}, (int64_t[]){10}, 1);
	l2 = add_loc(p, 1, 0x2000, (uint64_t[]){fhelper, fwork}, (int64_t[]){30, 20}, 2);
	l3 = add_loc(p, 1, 0x3000, (uint64_t[]){fleaf}, (int64_t[]){40}, 1);
	l4 = add_loc(p, 2, 0x4000, NULL, NULL, 0);
	l5 = add_loc(p, 1, 0x3800, (uint64_t[]){fother}, (int64_t[]){50}, 1);
	add_sample(p, 60, (uint64_t[]){l3, l2, l1}, 3);
	add_sample(p, 20, (uint64_t[]){l2, l1}, 2);
	add_sample(p, 10, (uint64_t[]){l1}, 1);
	add_sample(p, 5, (uint64_t[]){l4, l1}, 2);
	add_sample(p, 5, (uint64_t[]){l5, l1}, 2);
	return p;
}

#endif
