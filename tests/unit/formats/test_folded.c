/* test_folded.c — the folded-stacks writer (DESIGN.md §4, spec §4.1) on a
 * hand-built profile: root-first order with inline chains expanded,
 * unresolved frames as hex, stacks summed across samples, zero sums
 * omitted, the value column chosen by index (default: the last), the
 * _[i]/_[j]/_[k] annotations, the escaping of names, and a difference
 * (signed, and two-sided "stack before after"); and the same output and
 * errors when the samples are matched to their stacks on two threads. */
#include "formats/formats.h"
#include "tests/helpers/tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t fn(sp_profile *p, const char *name)
{
	return sp_profile_function_for(p, name, name, "a.cc", 1);
}

static uint64_t loc(sp_profile *p, uint64_t mapping, uint64_t addr, const char *inner,
		    const char *outer)
{
	sp_line lines[2];
	size_t n = 0;
	if (inner)
		lines[n++] = (sp_line){.function_id = fn(p, inner), .line = 10};
	if (outer)
		lines[n++] = (sp_line){.function_id = fn(p, outer), .line = 20};
	sp_location l = {.mapping_id = mapping, .address = addr, .lines = lines, .n_lines = n};
	return sp_profile_add_location(p, &l)->id;
}

static void sample(sp_profile *p, int64_t a, int64_t b, const uint64_t *ids, size_t n)
{
	int64_t v[2] = {a, b};
	sp_profile_add_sample(p, v, ids, n, NULL, 0);
}

static sp_profile *build(void)
{
	sp_profile *p = sp_profile_new();
	sp_profile_add_sample_type(p, "alloc_space", "bytes");
	sp_profile_add_sample_type(p, "inuse_space", "bytes");
	const char *files[] = {"/bin/app", "[jit]", "[kernel.kallsyms]_text"};
	for (size_t i = 0; i < 3; i++) {
		sp_mapping m = {.memory_start = 0x1000 * (i + 1), .memory_limit = 0x1000 * (i + 2),
				.filename = sp_profile_intern(p, files[i])};
		sp_profile_add_mapping(p, &m);
	}
	uint64_t L1 = loc(p, 1, 0x1000, "main", NULL);
	uint64_t L2 = loc(p, 1, 0x1100, "inl_inner", "run");
	uint64_t L3 = loc(p, 1, 0x7f00dead, NULL, NULL);
	uint64_t L4 = loc(p, 2, 0x2000, "jitted", NULL);
	uint64_t L5 = loc(p, 3, 0xffffffff81000000, NULL, NULL);
	uint64_t L6 = loc(p, 1, 0x1200, "foo 2", NULL);
	uint64_t L7 = loc(p, 1, 0x1300, "std::map<int; int>::find", NULL);
	uint64_t L8 = loc(p, 1, 0x1400, "weird\nname\tx\r", NULL);
	uint64_t L9 = loc(p, 3, 0x3100, "do_syscall", NULL);
	sample(p, 10, 1, (uint64_t[]){L2, L1}, 2);
	sample(p, 5, 2, (uint64_t[]){L2, L1}, 2);
	sample(p, 7, 0, (uint64_t[]){L3, L1}, 2);
	sample(p, 1, 1, (uint64_t[]){L5, L9, L4, L1}, 4);
	sample(p, 2, 2, (uint64_t[]){L6, L7, L8, L1}, 4);
	sample(p, 4, 4, (uint64_t[]){L1}, 1);
	sample(p, -4, -4, (uint64_t[]){L1}, 1);
	return p;
}

static void check(const sp_profile *p, const sp_folded_options *o, const char *want,
		  const char *what)
{
	sp_sink *s = sp_sink_memory_new();
	sp_error *e = sp_folded_write(p, o, s);
	TAP_OK(e == NULL, "%s: writes", what);
	sp_error_free(e);
	size_t n;
	const uint8_t *d = sp_sink_memory_data(s, &n);
	char *got = sp_xstrndup((const char *)d, n);
	TAP_EQ_STR(got, want, "%s: output", what);
	free(got);
	sp_sink_free(s);
}

/* Stacks of different locations that print alike are one line, summed
 * (and left out when the sum is 0); lines sort bytewise as whole lines, so
 * when one stack's text is a prefix of another's its value takes part. */
static void test_merge_and_order(void)
{
	sp_profile *p = sp_profile_new();
	sp_profile_add_sample_type(p, "a", "count");
	sp_profile_add_sample_type(p, "b", "count");
	sp_mapping m = {.memory_start = 0x1000, .memory_limit = 0x2000,
			.filename = sp_profile_intern(p, "/bin/app")};
	sp_profile_add_mapping(p, &m);
	uint64_t a1 = loc(p, 1, 0x1000, "a", NULL), a2 = loc(p, 1, 0x1010, "a", NULL);
	uint64_t a5x = loc(p, 1, 0x1020, "a 5x", NULL), ac = loc(p, 1, 0x1030, "a\x01", NULL);
	uint64_t d1 = loc(p, 1, 0x1040, "d", NULL), d2 = loc(p, 1, 0x1050, "d", NULL);
	sample(p, 5, 2, &a1, 1);
	sample(p, 3, 3, &a5x, 1);
	sample(p, 1, 1, &d1, 1);
	sample(p, 4, 1, &a2, 1);
	sample(p, 1, 1, &ac, 1);
	sample(p, -1, 1, &d2, 1);
	sp_folded_options o = {.sample_index = 0};
	check(p, &o, "a\x01 1\na 5x 3\na 9\n", "alike stacks summed, 'a 9' after 'a 5x 3'");
	o.sample_index = 1;
	check(p, &o, "a\x01 1\na 3\na 5x 3\nd 2\n", "alike stacks summed, 'a 3' before 'a 5x 3'");
	sp_profile_free(p);
}

/* heap text -> (frames filled in as a symbolizer would) -> prune -> folded */
static void test_heap_pipeline(void)
{
	const char *text = "heap profile: 2: 18432 [2: 18432] @ heap_v2/524288\n"
			   "1: 9216 [1: 9216] @ 0x1001 0x2001 0x3001\n"
			   "1: 9216 [1: 9216] @ 0x1001 0x2101 0x3001\n";
	sp_profile *p = NULL;
	sp_error *e = sp_heap_read("t", (const uint8_t *)text, strlen(text), &p);
	TAP_OK(!e && p && p->n_locations == 4, "heap profile read");
	sp_error_free(e);
	if (!p)
		return;
	static const struct {
		uint64_t addr;
		const char *inner, *outer;
	} frames[] = {
		{0x1000, "malloc", NULL},                  /* leaf, adjusted by -1 */
		{0x2000, "std::vector<int>::push_back", "fill"}, /* inlined into fill */
		{0x2100, "operator new(unsigned long)", "grow"}, /* allocator inlined */
		{0x3000, "main", NULL},
	};
	for (size_t i = 0; i < p->n_locations; i++) {
		sp_location *l = &p->locations[i];
		for (size_t j = 0; j < SP_ARRAY_LEN(frames); j++) {
			if (frames[j].addr != l->address)
				continue;
			size_t n = frames[j].outer ? 2 : 1;
			l->lines = sp_xreallocarray(NULL, n, sizeof(sp_line));
			l->lines[0] = (sp_line){.function_id = fn(p, frames[j].inner)};
			if (n == 2)
				l->lines[1] = (sp_line){.function_id = fn(p, frames[j].outer)};
			l->n_lines = n;
		}
	}
	sp_profile_prune_frames(p, NULL, NULL);
	check(p, NULL,
	      "main;fill;std::vector<int>::push_back 528909\n"
	      "main;grow 528909\n",
	      "heap_v2 pruned of allocator frames");
	sp_profile_free(p);
}

/* What the writer makes of P with O: the output, or the error's text. */
static char *folded_string(const sp_profile *p, const sp_folded_options *o)
{
	sp_sink *s = sp_sink_memory_new();
	sp_error *e = sp_folded_write(p, o, s);
	size_t n;
	const uint8_t *d = sp_sink_memory_data(s, &n);
	char *got = e ? sp_error_string(e) : sp_xstrndup((const char *)d, n);
	sp_error_free(e);
	sp_sink_free(s);
	return got;
}

/* N samples over 64 locations (48 names, so some stacks print alike), the
 * stacks of the first half repeating every 997 samples, of the second
 * every 1499 (stacks of the first half met again, and new ones); sample
 * OVER gets INT64_MAX, sample UNKNOWN a location that is not there. */
static sp_profile *many_samples(size_t n, size_t over, size_t unknown)
{
	sp_profile *p = sp_profile_new();
	sp_profile_add_sample_type(p, "objects", "count");
	sp_mapping m = {.memory_start = 0x1000, .memory_limit = 0x100000,
			.filename = sp_profile_intern(p, "/bin/app")};
	sp_profile_add_mapping(p, &m);
	uint64_t ids[64];
	for (size_t i = 0; i < 64; i++) {
		char name[16];
		snprintf(name, sizeof(name), "f%zu", i % 48);
		ids[i] = loc(p, 1, 0x1000 + i * 16, name, NULL);
	}
	for (size_t i = 0; i < n; i++) {
		size_t st = i < n / 2 ? i % 997 : i % 1499, depth = 1 + st % 5;
		uint64_t stack[5];
		for (size_t j = 0; j < depth; j++)
			stack[j] = i == unknown && j == 0 ? 9999 : ids[(st * 7 + j * 3) % 64];
		int64_t v = i == over ? INT64_MAX : (int64_t)(i % 3) - 1;
		sp_profile_add_sample(p, &v, stack, depth, NULL, 0);
	}
	return p;
}

/* With jobs = 2 and enough samples the two halves are matched to their
 * stacks on two threads: the output, or the first error in sample order,
 * is what one pass gives. */
static void test_two_threads(void)
{
	static const struct {
		size_t over, unknown;
		const char *want; /* start of the output or error */
	} rows[] = {
		{SIZE_MAX, SIZE_MAX, "f"},
		{90001, SIZE_MAX, "folded output: sum of values overflows"},
		{90001, 100003, "folded output: sum of values overflows"},
		{100003, 90001, "folded output: sample 90002 has unknown location 9999"},
		{SIZE_MAX, 20001, "folded output: sample 20002 has unknown location 9999"},
	};
	for (size_t r = 0; r < SP_ARRAY_LEN(rows); r++) {
		sp_profile *p = many_samples(140000, rows[r].over, rows[r].unknown);
		sp_folded_options one = {.sample_index = 0}, two = {.sample_index = 0, .jobs = 2};
		char *a = folded_string(p, &one), *b = folded_string(p, &two);
		TAP_OK(!strcmp(a, b) && !strncmp(a, rows[r].want, strlen(rows[r].want)),
		       "row %zu: two threads write what one does (%.60s)", r, b);
		free(a);
		free(b);
		sp_profile_free(p);
	}
}

int main(void)
{
	test_heap_pipeline();
	test_two_threads();
	test_merge_and_order();

	sp_profile *p = build();
	TAP_OK(sp_profile_check(p, "t") == NULL, "fixture profile is valid");

	check(p, NULL,
	      "main;jitted;do_syscall;0xffffffff81000000 1\n"
	      "main;run;inl_inner 3\n"
	      "main;weird name x ;std::map<int: int>::find;foo_2 2\n",
	      "default column is the last");

	sp_folded_options o = {.sample_index = 0};
	check(p, &o,
	      "main;0x7f00dead 7\n"
	      "main;jitted;do_syscall;0xffffffff81000000 1\n"
	      "main;run;inl_inner 15\n"
	      "main;weird name x ;std::map<int: int>::find;foo_2 2\n",
	      "column 0, summed");

	o.annotate = true;
	check(p, &o,
	      "main;0x7f00dead 7\n"
	      "main;jitted_[j];do_syscall_[k];0xffffffff81000000_[k] 1\n"
	      "main;run;inl_inner_[i] 15\n"
	      "main;weird name x ;std::map<int: int>::find;foo_2 2\n",
	      "annotated");

	/* the annotation table the folded output and the flame graph share:
	 * an inlined frame is 'i' whatever its mapping, the outermost gets its
	 * code kind */
	uint64_t inl_jit = loc(p, 2, 0x2100, "inl_in_jit", "jit_outer");
	uint64_t inl_k = loc(p, 3, 0x3200, "inl_in_kernel", "kernel_outer");
	const struct {
		uint64_t id;
		size_t line;
		char want;
	} rows[] = {
		{1, 0, 0},         /* main in /bin/app */
		{inl_jit, 0, 'i'}, {inl_jit, 1, 'j'}, {inl_k, 0, 'i'}, {inl_k, 1, 'k'},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const sp_location *l = sp_profile_location(p, rows[i].id);
		TAP_OK(sp_frame_annotation(p, l, rows[i].line) == rows[i].want,
		       "annotation row %zu: '%c'", i, rows[i].want ? rows[i].want : '0');
	}

	o = (sp_folded_options){.sample_index = 2};
	sp_sink *s = sp_sink_memory_new();
	sp_error *e = sp_folded_write(p, &o, s);
	TAP_OK(e && e->code == SP_E_USAGE, "column out of range is an error");
	sp_error_free(e);
	sp_sink_free(s);

	/* a default_sample_type naming column 0 */
	p->default_sample_type = sp_profile_intern(p, "alloc_space");
	check(p, NULL,
	      "main;0x7f00dead 7\n"
	      "main;jitted;do_syscall;0xffffffff81000000 1\n"
	      "main;run;inl_inner 15\n"
	      "main;weird name x ;std::map<int: int>::find;foo_2 2\n",
	      "default_sample_type honoured");
	sp_profile_free(p);

	/* a difference: signed sums; two sides from the base's labelled samples */
	p = sp_profile_new();
	sp_profile_add_sample_type(p, "inuse_space", "bytes");
	sp_mapping m = {.memory_start = 0x1000, .memory_limit = 0x2000,
			.filename = sp_profile_intern(p, "/bin/app")};
	sp_profile_add_mapping(p, &m);
	uint64_t lm = loc(p, 1, 0x1000, "main", NULL), la = loc(p, 1, 0x1100, "grow", NULL),
		 lf = loc(p, 1, 0x1200, "freed", NULL);
	sp_label base = sp_label_str(p, SP_BASE_LABEL, "true");
	sp_profile_add_sample(p, (int64_t[]){300}, (uint64_t[]){la, lm}, 2, NULL, 0);
	sp_profile_add_sample(p, (int64_t[]){-100}, (uint64_t[]){la, lm}, 2, &base, 1);
	sp_profile_add_sample(p, (int64_t[]){-64}, (uint64_t[]){lf, lm}, 2, &base, 1);
	sp_profile_add_sample(p, (int64_t[]){8}, (uint64_t[]){lm}, 1, NULL, 0);
	sp_profile_add_sample(p, (int64_t[]){-8}, (uint64_t[]){lm}, 1, &base, 1);
	check(p, NULL, "main;freed -64\nmain;grow 200\n",
	      "difference: signed sums, unchanged stack left out");
	o = (sp_folded_options){.sample_index = 0, .two_sides = true};
	check(p, &o, "main 8 8\nmain;freed 64 0\nmain;grow 100 300\n",
	      "two sides: before after, base negated back");
	sp_profile_free(p);

	/* an empty profile writes nothing */
	p = sp_profile_new();
	sp_profile_add_sample_type(p, "n", "count");
	check(p, NULL, "", "empty profile");
	sp_profile_free(p);
	return tap_done();
}
