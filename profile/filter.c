/* filter.c — focus and ignore: which samples a report keeps, by regular
 * expressions over the names of their locations (pprof's -focus and
 * -ignore).  A sample is kept when no location on its stack matches the
 * ignore expression and, with a focus expression, at least one does.
 * A location matches by any inline frame's function name or source file,
 * by its mapping's file, and when unsymbolized by its address name, e.g.
 * focus "^alloc" keeps every stack through alloc_in_main, ignore
 * "libc\.so" drops every stack through the C library.
 */
#include "profile/profile.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sp_sample_filter {
	const sp_profile *p;
	bool *focus;  /* per location index; NULL => no focus */
	bool *ignore; /* per location index; NULL => no ignore */
};

sp_error *sp_regex_compile(const char *what, const char *src, regex_t *re)
{
	int flags = REG_EXTENDED | REG_NOSUB;
	const char *pat = src;
	char msg[256];

	if (!strncmp(pat, "(?i)", 4)) {
		flags |= REG_ICASE;
		pat += 4;
	}
	int rc = regcomp(re, pat, flags);
	if (rc == 0)
		return NULL;
	regerror(rc, re, msg, sizeof(msg));
	return sp_error_new(SP_E_USAGE,
			    "%s: invalid regular expression \"%s\": %s (POSIX extended, "
			    "optionally after (?i))",
			    what, src, msg);
}

/* pprof's Location.matchesName: a function name or file of any inline
 * frame, or the mapping's file; unsymbolized locations also by address. */
static bool location_matches(const sp_profile *p, const sp_location *l, const regex_t *re)
{
	const sp_mapping *m = l->mapping_id ? sp_profile_mapping(p, l->mapping_id) : NULL;

	for (size_t i = 0; i < l->n_lines; i++) {
		const sp_function *f = sp_profile_function(p, l->lines[i].function_id);

		if (f && (!regexec(re, sp_profile_str(p, f->name), 0, NULL, 0) ||
			  !regexec(re, sp_profile_str(p, f->filename), 0, NULL, 0)))
			return true;
	}
	if (m && !regexec(re, sp_profile_str(p, m->filename), 0, NULL, 0))
		return true;
	if (l->n_lines == 0) {
		char *name = sp_location_address_name(p, l);
		bool hit = !regexec(re, name, 0, NULL, 0);

		free(name);
		return hit;
	}
	return false;
}

static bool *match_locations(const sp_profile *p, const regex_t *re)
{
	bool *v = sp_xcalloc(p->n_locations ? p->n_locations : 1, sizeof(*v));

	for (size_t i = 0; i < p->n_locations; i++)
		v[i] = location_matches(p, &p->locations[i], re);
	return v;
}

sp_error *sp_sample_filter_new(const sp_profile *p, const char *focus, const char *ignore,
			       sp_sample_filter **out)
{
	sp_sample_filter *f = sp_xcalloc(1, sizeof(*f));
	regex_t re;
	sp_error *err;

	f->p = p;
	if (focus && focus[0]) {
		if ((err = sp_regex_compile("focus", focus, &re)))
			goto fail;
		f->focus = match_locations(p, &re);
		regfree(&re);
	}
	if (ignore && ignore[0]) {
		if ((err = sp_regex_compile("ignore", ignore, &re)))
			goto fail;
		f->ignore = match_locations(p, &re);
		regfree(&re);
	}
	*out = f;
	return NULL;
fail:
	sp_sample_filter_free(f);
	return err;
}

bool sp_sample_filter_keep(const sp_sample_filter *f, const sp_sample *s)
{
	bool focused = !f->focus;

	if (!f->focus && !f->ignore)
		return true;
	for (size_t i = 0; i < s->n_locations; i++) {
		const sp_location *l = sp_profile_location(f->p, s->location_ids[i]);
		size_t li;

		if (!l)
			continue;
		li = (size_t)(l - f->p->locations);
		if (f->ignore && f->ignore[li])
			return false;
		if (f->focus && f->focus[li])
			focused = true;
	}
	return focused;
}

void sp_sample_filter_free(sp_sample_filter *f)
{
	if (!f)
		return;
	free(f->focus);
	free(f->ignore);
	free(f);
}
