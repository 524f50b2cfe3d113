/* stacks.c — summing identical stacks for the address-stack readers.  A
 * gperftools CPU profile repeats a stack whenever its hash table evicted
 * it; a raw or folded file may list a stack on several lines.  Readers add
 * every record as a sample, then call sp_fmt_sum_identical_samples, or sum
 * as they read with sp_stack_sums_add (memory for the distinct stacks,
 * not for the records). */
#include "formats/stacks.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	const sp_profile *p;
	const sp_sample *s;
} sample_key;

static bool same_stack(void *ctx, size_t i)
{
	const sample_key *k = ctx;
	const sp_sample *o = &k->p->samples[i];
	return o->n_locations == k->s->n_locations && o->n_labels == 0 &&
	       (o->n_locations == 0 ||
		memcmp(o->location_ids, k->s->location_ids,
		       o->n_locations * sizeof(uint64_t)) == 0);
}

static uint64_t stack_hash(const sp_sample *s)
{
	uint64_t h = sp_hash_u64(s->n_locations);
	for (size_t i = 0; i < s->n_locations; i++)
		h = sp_hash_combine(h, s->location_ids[i]);
	return h;
}

/* The first overflow of a sum of P's values for sample J plus VALUES, as
 * an error naming NAME, UNIT and WHERE; NULL when every sum fits. */
static sp_error *sum_overflow(const sp_profile *p, size_t j, const int64_t *values,
			      const char *name, const char *unit, uint64_t where)
{
	int64_t sum;
	for (size_t v = 0; v < p->n_sample_types; v++)
		if (__builtin_add_overflow(p->samples[j].values[v], values[v], &sum))
			return sp_error_new(SP_E_MALFORMED,
					    "%s: %s %" PRIu64 ": %s values of this stack "
					    "add up to more than an int64 holds",
					    name, unit, where,
					    sp_profile_str(p, p->sample_types[v].type));
	return NULL;
}

void sp_stack_sums_add(sp_stack_sums *ss, sp_profile *p, const int64_t *values,
		       const uint64_t *locs, size_t n_locs, uint64_t where)
{
	sp_sample s = {.location_ids = (uint64_t *)locs, .n_locations = n_locs};
	uint64_t h = stack_hash(&s);
	sample_key k = {p, &s};
	size_t j = sp_idxset_find(&ss->seen, h, same_stack, &k);
	if (j != SIZE_MAX) {
		sp_error *err = sum_overflow(p, j, values, ss->name, ss->unit, where);
		if (!err) {
			for (size_t v = 0; v < p->n_sample_types; v++)
				p->samples[j].values[v] += values[v];
			return;
		}
		if (!ss->overflow)
			ss->overflow = err;
		else
			sp_error_free(err);
		/* kept apart, as sp_fmt_sum_identical_samples does */
		sp_profile_add_sample(p, values, locs, n_locs, NULL, 0);
		return;
	}
	sp_profile_add_sample(p, values, locs, n_locs, NULL, 0);
	sp_idxset_add(&ss->seen, h, p->n_samples - 1);
}

sp_error *sp_stack_sums_finish(sp_stack_sums *ss)
{
	sp_idxset_free(&ss->seen);
	sp_error *err = ss->overflow;
	ss->overflow = NULL;
	return err;
}

sp_error *sp_fmt_sum_identical_samples(sp_profile *p, const char *name, const char *unit,
				       const uint64_t *where)
{
	sp_idxset seen = {0};
	sp_error *err = NULL;
	size_t kept = 0, i;
	for (i = 0; i < p->n_samples && !err; i++) {
		sp_sample *s = &p->samples[i];
		if (s->n_labels) {
			p->samples[kept++] = *s;
			continue;
		}
		uint64_t h = stack_hash(s);
		sample_key k = {p, s};
		size_t j = sp_idxset_find(&seen, h, same_stack, &k);
		if (j == SIZE_MAX) {
			p->samples[kept] = *s;
			sp_idxset_add(&seen, h, kept);
			kept++;
			continue;
		}
		err = sum_overflow(p, j, s->values, name, unit, where[i]);
		if (err) {
			p->samples[kept++] = *s; /* still owned: freed with P */
			continue;
		}
		for (size_t v = 0; v < p->n_sample_types; v++)
			p->samples[j].values[v] += s->values[v];
		sp_sample_free(p, s);
	}
	/* after an error, the samples not looked at yet stay with P */
	if (i < p->n_samples)
		memmove(&p->samples[kept], &p->samples[i],
			(p->n_samples - i) * sizeof(*p->samples));
	p->n_samples = kept + (p->n_samples - i);
	sp_idxset_free(&seen);
	return err;
}

void sp_fmt_sample_remove_location(sp_sample *s, size_t i)
{
	if (i >= s->n_locations)
		return;
	memmove(&s->location_ids[i], &s->location_ids[i + 1],
		(s->n_locations - i - 1) * sizeof(uint64_t));
	s->n_locations--;
}

