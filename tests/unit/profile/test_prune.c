/* test_prune.c — drop_frames / keep_frames (spec §1.4) on hand-built
 * profiles: the heap reader's allocator expression, inline chains cut
 * from the outermost frame inward, samples cut only after a user frame,
 * name simplification and keep_frames. */
#include "formats/formats.h"
#include "tests/helpers/tap.h"

#include <stdlib.h>
#include <string.h>

static uint64_t loc(sp_profile *p, uint64_t addr, const char *const *names, size_t n)
{
	sp_line lines[4];
	for (size_t i = 0; i < n; i++)
		lines[i] = (sp_line){.function_id = sp_profile_function_for(p, names[i], names[i],
									    "x.cc", 0),
				     .line = (int64_t)i + 1};
	sp_location l = {.address = addr, .lines = lines, .n_lines = n};
	return sp_profile_add_location(p, &l)->id;
}

#define LOC(p, addr, ...)                                                    \
	loc(p, addr, (const char *const[]){__VA_ARGS__},                     \
	    sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))

static void sample(sp_profile *p, const uint64_t *ids, size_t n)
{
	int64_t v = 1;
	sp_profile_add_sample(p, &v, ids, n, NULL, 0);
}

static bool stack_is(const sp_profile *p, size_t i, const uint64_t *want, size_t n)
{
	const sp_sample *s = &p->samples[i];
	if (s->n_locations != n)
		return false;
	for (size_t j = 0; j < n; j++)
		if (s->location_ids[j] != want[j])
			return false;
	return true;
}

static char *heap_drop_frames(void)
{
	const char *text = "heap profile: 1: 1 [1: 1] @ heapprofile\n1: 1 [1: 1] @ 0x1\n";
	sp_profile *h = NULL;
	sp_error *e = sp_heap_read("t", (const uint8_t *)text, strlen(text), &h);
	char *re = sp_xstrdup(e ? "" : sp_profile_str(h, h->drop_frames));
	sp_error_free(e);
	sp_profile_free(h);
	return re;
}

/* An empty profile with the heap reader's drop_frames. */
static sp_profile *heap_profile(void)
{
	sp_profile *p = sp_profile_new();
	sp_profile_add_sample_type(p, "space", "bytes");
	char *re = heap_drop_frames();
	p->drop_frames = sp_profile_intern(p, re);
	free(re);
	return p;
}

static void test_allocator(void)
{
	sp_profile *p = heap_profile();
	uint64_t main_ = LOC(p, 0x10, "main");
	uint64_t work = LOC(p, 0x20, "work");
	uint64_t opnew = LOC(p, 0x30, "operator new(unsigned long)");
	uint64_t mal = LOC(p, 0x40, "malloc");
	uint64_t tc = LOC(p, 0x50, "tcmalloc::allocate_full_malloc_oom(unsigned long)");
	/* lines[0] innermost: malloc inlined into alloc_wrapper */
	uint64_t inl = LOC(p, 0x60, "malloc", "alloc_wrapper");
	/* the outermost frame matches: the whole location goes */
	uint64_t whole = LOC(p, 0x70, "helper", "operator new[]");
	static const char *const alloc_names[] = {
		"tc_newarray_nothrow", "__libc_malloc", "std::allocator<int>::allocate",
		"posix_memalign", "operator delete(void*, unsigned long)", "calloc", "realloc",
		"free", "aligned_alloc", "MallocHook::InvokeNewHookSlow(void const*, unsigned long)",
		"__builtin_vec_new", "(anonymous namespace)::do_malloc(unsigned long)", "valloc",
		"operator new[](unsigned long, std::nothrow_t const&)", "mmap", "sbrk",
		"__gnu_cxx::new_allocator<char>::allocate"};
	uint64_t others[SP_ARRAY_LEN(alloc_names)];
	for (size_t i = 0; i < SP_ARRAY_LEN(alloc_names); i++)
		others[i] = loc(p, 0x80 + i, &alloc_names[i], 1);
	uint64_t user_like = LOC(p, 0x100, "my_malloc_wrapper");

	sample(p, (uint64_t[]){tc, mal, opnew, work, main_}, 5);
	sample(p, (uint64_t[]){mal, opnew}, 2);
	sample(p, (uint64_t[]){inl, work, main_}, 3);
	sample(p, (uint64_t[]){mal, main_, opnew}, 3);
	sample(p, (uint64_t[]){whole, main_}, 2);
	sample(p, (uint64_t[]){user_like, main_}, 2);
	for (size_t i = 0; i < SP_ARRAY_LEN(alloc_names); i++)
		sample(p, (uint64_t[]){others[i], main_}, 2);
	sp_profile_prune_frames(p, NULL, NULL);

	TAP_OK(stack_is(p, 0, (uint64_t[]){work, main_}, 2), "allocator frames cut at the leaf");
	TAP_OK(stack_is(p, 1, (uint64_t[]){mal, opnew}, 2), "no user frame: stack kept whole");
	TAP_OK(stack_is(p, 2, (uint64_t[]){inl, work, main_}, 3),
	       "partly matching location kept");
	const sp_location *l = sp_profile_location(p, inl);
	TAP_OK(l->n_lines == 1 &&
		       !strcmp(sp_profile_str(p, sp_profile_function(p, l->lines[0].function_id)->name),
			       "alloc_wrapper"),
	       "inline chain cut: only the frames outside the match remain");
	TAP_OK(stack_is(p, 3, (uint64_t[]){main_, opnew}, 2),
	       "matching root frames before the first user frame stay");
	TAP_OK(stack_is(p, 4, (uint64_t[]){main_}, 1), "outermost line matched: location dropped");
	TAP_OK(stack_is(p, 5, (uint64_t[]){user_like, main_}, 2), "my_malloc_wrapper kept");
	for (size_t i = 0; i < SP_ARRAY_LEN(alloc_names); i++)
		TAP_OK(stack_is(p, 6 + i, (uint64_t[]){main_}, 1), "allocator frame \"%s\" dropped",
		       alloc_names[i]);
	TAP_EQ_U64(sp_profile_location(p, whole)->n_lines, 2, "wholly pruned location untouched");
	TAP_OK(sp_profile_check(p, "t") == NULL, "still valid");
	sp_profile_free(p);
}

/* Samples sharing their stack's array (a heap reader's) are cut as each
 * sample with its own copy is, the array itself left whole; two shared
 * arrays of the same length, cut differently. */
static void test_shared(void)
{
	sp_profile *p = heap_profile();
	uint64_t main_ = LOC(p, 0x10, "main");
	uint64_t work = LOC(p, 0x20, "work");
	uint64_t mal = LOC(p, 0x40, "malloc");
	uint64_t *a = sp_profile_sample_storage(p, 3, sizeof(uint64_t));
	uint64_t *b = sp_profile_sample_storage(p, 3, sizeof(uint64_t));
	memcpy(a, (uint64_t[]){mal, work, main_}, 3 * sizeof(uint64_t));
	memcpy(b, (uint64_t[]){work, mal, main_}, 3 * sizeof(uint64_t));
	int64_t v = 1;
	for (int i = 0; i < 6; i++) {
		sp_profile_add_sample_shared(p, &v, i % 3 == 2 ? b : a, 3, NULL, 0);
		sample(p, (uint64_t[]){mal, work, main_}, 3);
	}
	sp_profile_prune_frames(p, NULL, NULL);
	size_t right = 0;
	for (size_t i = 0; i < p->n_samples; i++)
		right += i % 6 == 4 ? stack_is(p, i, (uint64_t[]){main_}, 1)
				    : stack_is(p, i, (uint64_t[]){work, main_}, 2);
	TAP_OK(right == p->n_samples,
	       "shared and own arrays: malloc;work;main -> work;main, work;malloc;main -> main "
	       "(%zu of %zu)",
	       right, p->n_samples);
	TAP_OK(a[0] == mal && a[1] == work && a[2] == main_ && b[0] == work,
	       "the shared arrays themselves unchanged");
	sp_profile_free(p);
}

static void test_names(void)
{
	static const struct {
		const char *name;
		bool dropped;
	} rows[] = {
		{"foo", true},
		{".foo", true},               /* PPC64 ELFv1 dot */
		{"foo(int) const", true},     /* argument list cut */
		{"foobar", false},            /* full match only */
		{"xfoo", false},
		{"(anonymous namespace)::bar(int)", true},
		{"X::operator()(int)", true},
		{"fine", false},              /* keep_frames wins */
	};
	sp_profile *p = sp_profile_new();
	sp_profile_add_sample_type(p, "n", "count");
	p->drop_frames = sp_profile_intern(p, "foo|\\(anonymous namespace\\)::bar|X::operator\\(\\)|fi.*");
	p->keep_frames = sp_profile_intern(p, "fine");
	uint64_t main_ = LOC(p, 0x1, "main");
	for (size_t i = 0; i < SP_ARRAY_LEN(rows); i++) {
		uint64_t l = LOC(p, 0x100 + i, rows[i].name);
		sample(p, (uint64_t[]){l, main_}, 2);
	}
	sp_profile_prune_frames(p, NULL, NULL);
	for (size_t i = 0; i < SP_ARRAY_LEN(rows); i++)
		TAP_OK((p->samples[i].n_locations == 1) == rows[i].dropped, "\"%s\" %s",
		       rows[i].name, rows[i].dropped ? "dropped" : "kept");
	sp_profile_free(p);

	/* no drop_frames: nothing happens */
	p = sp_profile_new();
	sp_profile_add_sample_type(p, "n", "count");
	uint64_t a = LOC(p, 0x1, "main"), b = LOC(p, 0x2, "malloc");
	sample(p, (uint64_t[]){b, a}, 2);
	sp_profile_prune_frames(p, NULL, NULL);
	TAP_EQ_U64(p->samples[0].n_locations, 2, "empty drop_frames is a no-op");
	p->drop_frames = sp_profile_intern(p, "(unclosed");
	sp_profile_prune_frames(p, NULL, NULL);
	TAP_EQ_U64(p->samples[0].n_locations, 2, "bad expression prunes nothing");
	sp_profile_free(p);
}

/* Stands for the demangler: the two raw names the test uses. */
static char *fake_demangle(const char *raw, void *ctx)
{
	(*(int *)ctx)++;
	if (!strcmp(raw, "_Znwm"))
		return sp_xstrdup("operator new");
	if (!strcmp(raw, "_Z4workv"))
		return sp_xstrdup("work");
	return NULL;
}

/* Raw names (--demangle none) lose the same frames as demangled ones: a
 * function is tested by its name, its system name and the demangled form. */
static void test_raw_names(void)
{
	sp_profile *p = heap_profile();
	uint64_t main_ = LOC(p, 0x10, "main");
	uint64_t work = LOC(p, 0x20, "_Z4workv");
	uint64_t opnew = LOC(p, 0x30, "_Znwm");
	/* demangled name, raw system name: the name decides */
	sp_line nl = {.function_id = sp_profile_function_for(p, "operator new", "_Znwm", "", 0)};
	sp_location l = {.address = 0x40, .lines = &nl, .n_lines = 1};
	uint64_t named = sp_profile_add_location(p, &l)->id;
	/* a name that no longer matches, its raw system name does */
	nl.function_id = sp_profile_function_for(p, "renamed", "malloc", "", 0);
	l.address = 0x50;
	uint64_t sysname = sp_profile_add_location(p, &l)->id;
	sample(p, (uint64_t[]){opnew, work, main_}, 3);
	sample(p, (uint64_t[]){named, work, main_}, 3);
	sample(p, (uint64_t[]){sysname, main_}, 2);

	int calls = 0;
	sp_profile_prune_frames(p, fake_demangle, &calls);
	TAP_OK(stack_is(p, 0, (uint64_t[]){work, main_}, 2),
	       "raw _Znwm dropped through its demangled form");
	TAP_OK(stack_is(p, 1, (uint64_t[]){work, main_}, 2), "demangled operator new dropped");
	TAP_OK(stack_is(p, 2, (uint64_t[]){main_}, 1), "system name malloc dropped");
	TAP_OK(calls > 0, "the demangler was asked (%d calls)", calls);
	sp_profile_free(p);

	/* without a demangler a raw name is only its own name */
	p = heap_profile();
	main_ = LOC(p, 0x10, "main");
	opnew = LOC(p, 0x30, "_Znwm");
	sample(p, (uint64_t[]){opnew, main_}, 2);
	sp_profile_prune_frames(p, NULL, NULL);
	TAP_OK(stack_is(p, 0, (uint64_t[]){opnew, main_}, 2), "no demangler: _Znwm kept");
	sp_profile_free(p);
}

int main(void)
{
	test_shared();
	test_allocator();
	test_names();
	test_raw_names();
	return tap_done();
}
