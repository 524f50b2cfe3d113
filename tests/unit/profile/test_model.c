/* test_model.c — interning, find-or-add, lookups (dense ids and not),
 * sample index choice, sample storage. */
#include "profile/profile.h"
#include "tests/helpers/tap.h"

#include <stdlib.h>
#include <string.h>

/* keep every other sample */
static bool odd(const sp_sample *s, const void *ctx)
{
	(void)ctx;
	return s->values[0] & 1;
}

/* Samples whose arrays lie in the profile's sample storage (several blocks
 * of it) beside samples that own theirs: each is freed the right way, which
 * ASan and valgrind check, and storage is zeroed and 8-byte aligned. */
static void sample_storage(void)
{
	sp_profile *p = sp_profile_new();
	sp_profile_add_sample_type(p, "samples", "count");
	TAP_OK(sp_profile_sample_storage(p, 0, 8) == NULL, "no storage for no elements");
	size_t n = 200000, zeroed = 0, aligned = 0;
	for (size_t i = 0; i < n; i++) {
		if (i % 3 == 0) {
			int64_t v = (int64_t)i;
			uint64_t loc = i;
			sp_profile_add_sample(p, &v, &loc, 1, NULL, 0);
			continue;
		}
		size_t nl = i % 5; /* sizes not a multiple of 8 bytes too */
		uint32_t *odd_size = sp_profile_sample_storage(p, 1 + i % 3, sizeof(uint32_t));
		zeroed += odd_size[0] == 0;
		aligned += ((uintptr_t)odd_size & 7) == 0;
		sp_sample s = {0};
		s.values = sp_profile_sample_storage(p, 1, sizeof(int64_t));
		s.location_ids = sp_profile_sample_storage(p, nl, sizeof(uint64_t));
		zeroed += s.values[0] == 0;
		aligned += ((uintptr_t)s.values & 7) == 0;
		s.values[0] = (int64_t)i;
		for (size_t k = 0; k < nl; k++)
			s.location_ids[k] = k + 1;
		s.n_locations = nl;
		SP_PUSH(p->samples, p->n_samples, p->cap_samples, s);
	}
	size_t stored = n - (n + 2) / 3;
	TAP_OK(zeroed == 2 * stored && aligned == 2 * stored,
	       "storage comes zeroed and 8-byte aligned (%zu of %zu, %zu)", zeroed, 2 * stored,
	       aligned);
	sp_profile_retain_samples(p, odd, NULL);
	TAP_EQ_U64(p->n_samples, n / 2, "half the samples kept");
	sp_sample_free(p, &p->samples[0]);
	p->samples[0] = p->samples[--p->n_samples];
	sp_profile_free(p);
}

/* Ids 1..n in order are looked up without a map; any other order, and
 * duplicates (the first one is found, the check refuses them), with one. */
static void dense_ids(void)
{
	sp_profile *p = sp_profile_new();
	for (uint64_t id = 1; id <= 3; id++)
		sp_profile_add_function(p, &(sp_function){.id = id, .start_line = (int64_t)id});
	TAP_OK(sp_profile_function(p, 2) == &p->functions[1] && !sp_profile_function(p, 4) &&
		       !sp_profile_function(p, 0),
	       "dense ids: element id - 1, none past the end, none for 0");
	sp_profile_add_function(p, &(sp_function){.id = 9});
	TAP_OK(sp_profile_function(p, 9) == &p->functions[3] &&
		       sp_profile_function(p, 3) == &p->functions[2] && !sp_profile_function(p, 4),
	       "an id out of order: every element found through the map");
	sp_profile_add_function(p, &(sp_function){.id = 2});
	TAP_OK(sp_profile_function(p, 2) == &p->functions[1], "a repeated id finds the first");
	sp_error *e = sp_profile_check(p, "t");
	char *msg = e ? sp_error_string(e) : NULL;
	TAP_OK(msg && strstr(msg, "multiple functions with id 2"), "the check refuses it: %s",
	       msg ? msg : "(no error)");
	free(msg);
	sp_error_free(e);
	p->n_functions = 3; /* removed: the map must go */
	sp_profile_reindex(p);
	TAP_OK(sp_profile_function(p, 1) == &p->functions[0] && !sp_profile_function(p, 9) &&
		       !sp_profile_check(p, "t"),
	       "dense again after reindex, and valid");
	sp_profile_free(p);
}

/* sp_ids_seen: an array is seen again by its address and length, past
 * the table's growth and up to SP_IDS_SEEN_MAX; then new arrays are not
 * remembered. */
static void ids_seen(void)
{
	size_t n = SP_IDS_SEEN_MAX + 10;
	uint64_t *ids = sp_xcalloc(n, sizeof(*ids));
	sp_ids_seen t = {0};
	size_t first = 0, again = 0;
	for (size_t i = 0; i < SP_IDS_SEEN_MAX; i++)
		first += !sp_ids_seen_add(&t, ids + i, 1, NULL);
	for (size_t i = 0; i < SP_IDS_SEEN_MAX; i++)
		again += sp_ids_seen_add(&t, ids + i, 1, NULL);
	TAP_OK(first == SP_IDS_SEEN_MAX && again == SP_IDS_SEEN_MAX,
	       "%zu arrays new once, then seen (%zu, %zu)", (size_t)SP_IDS_SEEN_MAX, first, again);
	TAP_OK(!sp_ids_seen_add(&t, ids, 2, NULL) && !sp_ids_seen_add(&t, ids + n - 1, 1, NULL) &&
		       !sp_ids_seen_add(&t, ids + n - 1, 1, NULL),
	       "another length is another array; past the limit none is remembered");
	size_t *kept = NULL, *again_kept = NULL, *none = &n;
	sp_ids_seen_add(&t, ids + 5, 1, &kept);
	*kept = 42;
	sp_ids_seen_add(&t, ids + n - 1, 1, &none);
	TAP_OK(sp_ids_seen_add(&t, ids + 5, 1, &again_kept) && *again_kept == 42 && !none,
	       "a value kept with a remembered array; none for one not remembered");
	sp_ids_seen_free(&t);
	free(ids);

	/* the check looks at a shared array once and still names the first
	 * sample that holds a bad id */
	sp_profile *p = sp_profile_new();
	sp_profile_add_sample_type(p, "samples", "count");
	sp_mapping m = {.memory_start = 0x1000, .memory_limit = 0x2000};
	sp_profile_add_mapping(p, &m);
	uint64_t good[2] = {sp_profile_location_for_address(p, 1, 0x1100),
			    sp_profile_location_for_address(p, 1, 0x1200)};
	uint64_t *shared = sp_profile_sample_storage(p, 2, sizeof(uint64_t));
	memcpy(shared, good, sizeof(good));
	int64_t v = 1;
	for (int i = 0; i < 3; i++)
		sp_profile_add_sample_shared(p, &v, shared, 2, NULL, 0);
	TAP_OK(!sp_profile_check(p, "t"), "samples sharing a good array: valid");
	uint64_t *bad = sp_profile_sample_storage(p, 2, sizeof(uint64_t));
	bad[0] = good[0];
	bad[1] = 99;
	sp_profile_add_sample_shared(p, &v, bad, 2, NULL, 0);
	sp_profile_add_sample_shared(p, &v, bad, 2, NULL, 0);
	sp_error *e = sp_profile_check(p, "t");
	char *msg = e ? sp_error_string(e) : NULL;
	TAP_EQ_STR(msg ? msg : "(no error)", "t: malformed profile: sample 4 has nil location (id 99)",
		   "the first sample sharing a bad array is named");
	free(msg);
	sp_error_free(e);
	sp_profile_free(p);
}

int main(void)
{
	sample_storage();
	dense_ids();
	ids_seen();
	sp_profile *p = sp_profile_new();
	TAP_EQ_STR(sp_profile_str(p, 0), "", "string 0 is empty");
	int64_t a = sp_profile_intern(p, "alloc");
	TAP_OK(a == 1 && sp_profile_intern(p, "alloc") == a, "interning de-duplicates");
	TAP_EQ_STR(sp_profile_str(p, 99), "", "out of range string is empty");

	sp_profile_add_sample_type(p, "objects", "count");
	sp_profile_add_sample_type(p, "space", "bytes");
	sp_mapping m = {.memory_start = 0x1000, .memory_limit = 0x2000};
	sp_profile_add_mapping(p, &m);
	uint64_t l1 = sp_profile_location_for_address(p, 1, 0x1100);
	uint64_t l2 = sp_profile_location_for_address(p, 1, 0x1200);
	TAP_OK(l1 == 1 && l2 == 2, "first-seen location ids");
	TAP_EQ_U64(sp_profile_location_for_address(p, 1, 0x1100), l1, "location found again");
	uint64_t f1 = sp_profile_function_for(p, "main", "main", "m.c", 3);
	TAP_EQ_U64(sp_profile_function_for(p, "main", "main", "m.c", 3), f1, "function found again");
	TAP_OK(sp_profile_function_for(p, "main", "main", "m.c", 4) != f1, "start line matters");
	TAP_OK(sp_profile_location(p, l2)->address == 0x1200, "location by id");
	TAP_OK(sp_profile_mapping_for_address(p, 0x1fff) != NULL, "address in mapping");
	TAP_OK(sp_profile_mapping_for_address(p, 0x2000) == NULL, "limit exclusive");

	/* ids rewritten in place: lookups see them after sp_profile_reindex */
	sp_mapping m2 = {.memory_start = 0x3000, .memory_limit = 0x4000};
	sp_profile_add_mapping(p, &m2);
	TAP_OK(sp_profile_mapping(p, 2) == &p->mappings[1], "second mapping by id");
	p->mappings[0].id = 2;
	p->mappings[1].id = 1;
	sp_profile_reindex(p);
	TAP_OK(sp_profile_mapping(p, 1) == &p->mappings[1] &&
		       sp_profile_mapping(p, 2) == &p->mappings[0],
	       "swapped mapping ids found after reindex");
	p->n_mappings = 1;
	sp_profile_reindex(p);
	TAP_OK(sp_profile_mapping(p, 1) == NULL && sp_profile_mapping(p, 2) == &p->mappings[0],
	       "a removed mapping is not found after reindex");
	TAP_OK(sp_profile_location(p, l2)->address == 0x1200 &&
		       sp_profile_function(p, f1) != NULL,
	       "locations and functions found again after reindex");

	/* code kinds: the address, then the mapping's name */
	const struct {
		const char *file; /* NULL: no mapping */
		uint64_t addr;
		sp_code_kind want;
	} kinds[] = {
		{NULL, 0x1000, SP_CODE_ANONYMOUS},
		{"", 0x1000, SP_CODE_ANONYMOUS},
		{NULL, 0xffffffff81000000, SP_CODE_KERNEL},
		{"/bin/app", 0xffffffff81000000, SP_CODE_KERNEL},
		{"/bin/app", 0x1000, SP_CODE_FILE},
		{"[kernel.kallsyms]", 0x1000, SP_CODE_KERNEL},
		{"[kernel.kallsyms]_text", 0x1000, SP_CODE_KERNEL},
		{"[jit]", 0x1000, SP_CODE_JIT},
		{"/tmp/[jit]", 0x1000, SP_CODE_FILE},
		{"[vdso]", 0x1000, SP_CODE_FILE},
	};
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		sp_mapping km = {.filename = kinds[i].file ? sp_profile_intern(p, kinds[i].file) : 0};
		TAP_OK(sp_code_kind_of(p, kinds[i].file ? &km : NULL, kinds[i].addr) ==
			       kinds[i].want,
		       "code kind of %#llx in %s", (unsigned long long)kinds[i].addr,
		       kinds[i].file ? kinds[i].file : "no mapping");
	}
	sp_mapping named = {0};
	sp_mapping_set_kind(p, &named, SP_CODE_JIT);
	TAP_OK(sp_code_kind_of(p, &named, 0x1000) == SP_CODE_JIT, "a mapping named JIT is JIT");
	sp_mapping_set_kind(p, &named, SP_CODE_KERNEL);
	TAP_OK(sp_code_kind_of(p, &named, 0x1000) == SP_CODE_KERNEL,
	       "a mapping named kernel is kernel");
	TAP_EQ_STR(sp_profile_str(p, named.filename), "[kernel.kallsyms]", "perf's kernel name");

	size_t idx;
	TAP_OK(!sp_profile_sample_index(p, NULL, &idx) && idx == 1, "default is last column");
	TAP_OK(!sp_profile_sample_index(p, "inuse_space", &idx) && idx == 1, "inuse_ prefix");
	TAP_OK(!sp_profile_sample_index(p, "0", &idx) && idx == 0, "numeric index");
	sp_error *e = sp_profile_sample_index(p, "5", &idx);
	TAP_OK(e != NULL, "numeric index out of range");
	sp_error_free(e);
	e = sp_profile_sample_index(p, "cycles", &idx);
	TAP_OK(e != NULL, "unknown name");
	sp_error_free(e);
	p->default_sample_type = sp_profile_intern(p, "objects");
	TAP_OK(!sp_profile_sample_index(p, "", &idx) && idx == 0, "default_sample_type honoured");
	sp_profile_free(p);
	sp_profile_free(NULL);
	return tap_done();
}
