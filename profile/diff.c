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

sp_error *sp_profile_diff(sp_profile *p, sp_profile *base, bool keep_base, sp_profile **out)
{
	*out = NULL;
	if (!sp_profile_same_kind(p, base)) {
		char *a = sp_profile_kind_string(p), *b = sp_profile_kind_string(base);
		sp_error *err = sp_error_new(SP_E_USAGE,
					     "cannot subtract the base: profile kinds differ: %s "
					     "vs base %s",
					     a, b);
		free(a);
		free(b);
		return err;
	}
	sp_profile *neg = NULL, *diff = NULL;
	sp_error *err = sp_profile_merge(&base, 1, &neg); /* a copy to change */
	if (err)
		return sp_error_prefix(err, "base");
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
