/* prune.c — drop_frames / keep_frames (spec/FORMATS.md §1.4, pprof's
 * Prune).  Both are full-match regular expressions (compiled as
 * "^(" re ")$", POSIX extended syntax, which for anchored matching agrees
 * with RE2 on the expressions profiles carry) tested against a simplified
 * function name.  Within a location the inline chain is scanned from the
 * outermost frame inward and cut at the first match; within a sample the
 * stack is scanned from the root and cut at the first matching location
 * after the first user frame, so allocator or profiler frames at the leaf
 * disappear while a stack made only of such frames is kept whole. */
#include "profile/profile.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

/* pprof's simplifyFunc: drop a leading '.' (PPC64 ELFv1), then cut at the
 * first '(' that does not start "(anonymous namespace)" or "operator()". */
static char *simplify(const char *name)
{
	if (*name == '.')
		name++;
	size_t n = strlen(name);
	for (size_t i = 0; i < n;) {
		if (strncmp(name + i, "(anonymous namespace)", 21) == 0) {
			i += 21;
		} else if (strncmp(name + i, "operator()", 10) == 0) {
			i += 10;
		} else if (name[i] == '(') {
			n = i;
			break;
		} else {
			i++;
		}
	}
	return sp_xstrndup(name, n);
}

static bool compile(const sp_profile *p, int64_t idx, regex_t *re)
{
	char *pat = sp_xasprintf("^(%s)$", sp_profile_str(p, idx));
	int rc = regcomp(re, pat, REG_EXTENDED | REG_NOSUB);
	free(pat);
	return rc == 0;
}

typedef struct {
	const sp_profile *p;
	regex_t drop, keep;
	bool has_keep;
	sp_name_fn demangle;
	void *ctx;
	sp_u64map cache; /* function id -> 1 + matched */
} pruner;

/* Whether NAME, simplified, is dropped and not kept. */
static bool name_dropped(pruner *pr, const char *name)
{
	char *s = simplify(name);
	bool match = regexec(&pr->drop, s, 0, NULL, 0) == 0 &&
		     !(pr->has_keep && regexec(&pr->keep, s, 0, NULL, 0) == 0);
	free(s);
	return match;
}

static bool prune_from_here(pruner *pr, uint64_t function_id)
{
	uint64_t v;
	if (sp_u64map_get(&pr->cache, function_id, &v))
		return v == 2;
	const sp_function *f = sp_profile_function(pr->p, function_id);
	bool match = false;
	if (f) {
		const char *name = sp_profile_str(pr->p, f->name);
		const char *raw = sp_profile_str(pr->p, f->system_name);
		match = (*name && name_dropped(pr, name)) ||
			(*raw && strcmp(raw, name) != 0 && name_dropped(pr, raw));
		if (!match && *raw && pr->demangle) {
			char *d = pr->demangle(raw, pr->ctx);
			match = d && strcmp(d, name) != 0 && name_dropped(pr, d);
			free(d);
		}
	}
	sp_u64map_put(&pr->cache, function_id, match ? 2 : 1);
	return match;
}

void sp_profile_prune_frames(sp_profile *p, sp_name_fn demangle, void *ctx)
{
	if (!p->drop_frames || !*sp_profile_str(p, p->drop_frames))
		return;
	pruner pr = {.p = p, .demangle = demangle, .ctx = ctx};
	/* An expression that does not compile prunes nothing (pprof refuses
	 * the profile; a conversion is more useful than none). */
	if (!compile(p, p->drop_frames, &pr.drop))
		return;
	if (p->keep_frames && *sp_profile_str(p, p->keep_frames)) {
		if (!compile(p, p->keep_frames, &pr.keep)) {
			regfree(&pr.drop);
			return;
		}
		pr.has_keep = true;
	}

	sp_u64map prune = {0}; /* location id -> 1 whole location, 2 beneath */
	for (size_t i = 0; i < p->n_locations; i++) {
		sp_location *l = &p->locations[i];
		size_t j = l->n_lines;
		bool found = false;
		while (j-- > 0) {
			if (prune_from_here(&pr, l->lines[j].function_id)) {
				found = true;
				break;
			}
		}
		if (!found)
			continue;
		if (j == l->n_lines - 1) {
			sp_u64map_put(&prune, l->id, 1);
		} else {
			/* keep the frames outside the match */
			memmove(l->lines, l->lines + j + 1, (l->n_lines - j - 1) * sizeof(sp_line));
			l->n_lines -= j + 1;
			sp_u64map_put(&prune, l->id, 2);
		}
	}

	/* the samples of a stack that share its array of ids share its cut:
	 * worked out once, kept with the array */
	sp_ids_seen seen = {0};
	for (size_t i = 0; i < p->n_samples; i++) {
		sp_sample *s = &p->samples[i];
		size_t *known = NULL;
		if (s->n_locations &&
		    sp_ids_seen_add(&seen, s->location_ids, s->n_locations, &known)) {
			if (*known)
				sp_sample_drop_leaves(p, s, *known);
			continue;
		}
		size_t cut = 0;
		bool found_user = false;
		for (size_t k = s->n_locations; k-- > 0;) {
			uint64_t how = 0;
			sp_u64map_get(&prune, s->location_ids[k], &how);
			if (!how) {
				found_user = true;
				continue;
			}
			if (!found_user)
				continue;
			cut = how == 1 ? k + 1 : k; /* leaf-ward entries dropped */
			break;
		}
		if (known)
			*known = cut;
		if (cut)
			sp_sample_drop_leaves(p, s, cut);
	}
	sp_ids_seen_free(&seen);
	sp_u64map_free(&prune);
	sp_u64map_free(&pr.cache);
	regfree(&pr.drop);
	if (pr.has_keep)
		regfree(&pr.keep);
}
