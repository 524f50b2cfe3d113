/* diff.c — the difference of two profiles, computed as pprof computes its
 * -base and -diff_base views: the base's values are negated and the base is
 * merged into the profile (merge.c's identity rules), so a stack present in
 * both sums to its change, a stack only in the base comes out negative and
 * one only in the profile keeps its value.
 *
 * With keep_base every negated sample also gets the label pprof::base=true:
 * it then never sums with a sample of the profile (labels are part of a
 * sample's identity), a pprof reader shows base and profile side by side,
 * and writers that draw both sides (folded-diff, the differential flame
 * graph) tell them apart with sp_sample_is_base.  Summing every sample of
 * such a profile still gives the difference.  As pprof's merge does, a
 * sample whose values all sum to zero is dropped. */
#include "profile/profile.h"

#include <stdlib.h>
#include <string.h>

bool sp_sample_is_base(const sp_profile *p, const sp_sample *s)
{
	for (size_t i = 0; i < s->n_labels; i++)
		if (s->labels[i].str && !strcmp(sp_profile_str(p, s->labels[i].key), SP_BASE_LABEL) &&
		    !strcmp(sp_profile_str(p, s->labels[i].str), "true"))
			return true;
	return false;
}

bool sp_profile_has_base(const sp_profile *p)
{
	for (size_t i = 0; i < p->n_samples; i++)
		if (sp_sample_is_base(p, &p->samples[i]))
			return true;
	return false;
}

/* Negates every value of P in place (two's complement, so INT64_MIN does
 * not overflow) and, with LABEL, marks every sample as a base sample. */
static void negate(sp_profile *p, bool label)
{
	sp_label base = sp_label_str(p, SP_BASE_LABEL, "true");
	for (size_t i = 0; i < p->n_samples; i++) {
		sp_sample *s = &p->samples[i];
		for (size_t k = 0; k < p->n_sample_types; k++)
			s->values[k] = (int64_t)(0 - (uint64_t)s->values[k]);
		if (label && !sp_sample_is_base(p, s)) {
			sp_sample_add_label(p, s, &base);
		}
	}
}

static bool has_zero_sample(const sp_profile *p)
{
	for (size_t i = 0; i < p->n_samples; i++) {
		bool zero = true;
		for (size_t k = 0; k < p->n_sample_types && zero; k++)
			zero = p->samples[i].values[k] == 0;
		if (zero)
			return true;
	}
	return false;
}

/* The column of BASE of P's sample type I (by name and unit), or SIZE_MAX. */
static size_t column_of(const sp_profile *p, size_t i, const sp_profile *base)
{
	const char *t = sp_profile_str(p, p->sample_types[i].type);
	const char *u = sp_profile_str(p, p->sample_types[i].unit);
	for (size_t k = 0; k < base->n_sample_types; k++) {
		const char *bt = sp_profile_str(base, base->sample_types[k].type);
		/* a heap dump without allocation columns has objects and space:
		 * what is in use, inuse_objects and inuse_space of a later one */
		bool same = !strcmp(t, bt) || (!strncmp(t, "inuse_", 6) && !strcmp(t + 6, bt)) ||
			    (!strncmp(bt, "inuse_", 6) && !strcmp(bt + 6, t));
		if (same && !strcmp(u, sp_profile_str(base, base->sample_types[k].unit)))
			return k;
	}
	return SIZE_MAX;
}

sp_error *sp_profile_base_check(const sp_profile *p, const sp_profile *base)
{
	for (size_t i = 0; i < p->n_sample_types; i++)
		if (column_of(p, i, base) != SIZE_MAX)
			return NULL;
	char *a = sp_profile_kind_string(p), *b = sp_profile_kind_string(base);
	sp_error *err = sp_error_new(SP_E_USAGE,
				     "cannot subtract the base: no sample type in common (name and "
				     "unit): %s vs base %s",
				     a, b);
	free(a);
	free(b);
	return err;
}

/* Gives BASE (a copy of the caller's) P's sample types and period type:
 * each column taken from BASE's of the same name and unit, 0 where it has
 * none (an earlier tcmalloc dump without frees has 2 types, a later one
 * 4, google-pprof --base subtracts them all the same). */
static void conform(sp_profile *base, const sp_profile *p)
{
	size_t n = p->n_sample_types, n_old = base->n_samples;
	size_t *col = sp_xcalloc(n ? n : 1, sizeof(*col));
	for (size_t i = 0; i < n; i++)
		col[i] = column_of(p, i, base);
	sp_sample *old = sp_xreallocarray(NULL, n_old ? n_old : 1, sizeof(*old));
	memcpy(old, base->samples, n_old * sizeof(*old));
	base->n_sample_types = 0;
	for (size_t i = 0; i < n; i++)
		sp_profile_add_sample_type(base, sp_profile_str(p, p->sample_types[i].type),
					   sp_profile_str(p, p->sample_types[i].unit));
	base->period_type.type = sp_profile_intern(base, sp_profile_str(p, p->period_type.type));
	base->period_type.unit = sp_profile_intern(base, sp_profile_str(p, p->period_type.unit));
	base->n_samples = 0;
	int64_t *v = sp_xcalloc(n ? n : 1, sizeof(*v));
	for (size_t s = 0; s < n_old; s++) {
		for (size_t i = 0; i < n; i++)
			v[i] = col[i] == SIZE_MAX ? 0 : old[s].values[col[i]];
		sp_profile_add_sample(base, v, old[s].location_ids, old[s].n_locations, old[s].labels,
				      old[s].n_labels);
		sp_sample_free(base, &old[s]);
	}
	free(v);
	free(old);
	free(col);
}

sp_error *sp_profile_diff(sp_profile *p, sp_profile *base, bool keep_base, sp_profile **out)
{
	*out = NULL;
	sp_error *err = sp_profile_base_check(p, base);
	if (err)
		return err;
	sp_profile *neg = NULL, *diff = NULL;
	err = sp_profile_merge(&base, 1, &neg); /* a copy to change */
	if (err)
		return sp_error_prefix(err, "base");
	if (!sp_profile_same_kind(p, neg))
		conform(neg, p);
	negate(neg, keep_base);
	sp_profile *both[] = {p, neg};
	err = sp_profile_merge(both, 2, &diff);
	sp_profile_free(neg);
	if (!err && has_zero_sample(diff)) {
		/* merging one profile drops its zero samples */
		sp_profile *once = diff;
		err = sp_profile_merge(&once, 1, &diff);
		sp_profile_free(once);
	}
	if (err)
		return err;
	*out = diff;
	return NULL;
}
