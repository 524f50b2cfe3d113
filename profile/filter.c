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

#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One -tagfocus or -tagignore: a numeric range or a list of expressions,
 * for one label key or any. */
typedef struct {
	char *key; /* NULL => any key */
	bool range;
	/* range: bounds in UNIT (has_lo / has_hi when given) */
	bool has_lo, has_hi;
	double lo, hi;
	const sp_measure_unit *unit; /* of the bounds; NULL: none, or not one of units.c */
	size_t kind;         /* UNIT's */
	/* expressions */
	regex_t *re;
	size_t n_re;
} tag_filter;

struct sp_sample_filter {
	const sp_profile *p;
	bool *focus;  /* per location index; NULL => no focus */
	bool *ignore; /* per location index; NULL => no ignore */
	tag_filter *tagfocus, *tagignore;
};

/* V in unit FROM expressed in unit TO when both are of one kind (units.c);
 * else V. */
static double convert_unit(int64_t v, const char *from, const char *to)
{
	size_t ka, kb;
	const sp_measure_unit *a = sp_measure_find(from, &ka), *b = sp_measure_find(to, &kb);
	if (!a || !b || ka != kb)
		return (double)v;
	return (double)v * a->factor / b->factor;
}

/* One bound "[+-]DIGITS[letters]" at *S: its value and unit; S moves past. */
static bool parse_bound(const char **s, double *v, char *unit, size_t unit_size)
{
	const char *p = *s;
	if (*p == '+' || *p == '-')
		p++;
	if (*p < '0' || *p > '9')
		return false;
	errno = 0;
	char *end;
	long long n = strtoll(*s, &end, 10);
	if (errno)
		return false;
	size_t k = 0;
	while (isalpha((unsigned char)*end) && k + 1 < unit_size)
		unit[k++] = *end++;
	unit[k] = '\0';
	if (isalpha((unsigned char)*end))
		return false;
	*v = (double)n;
	*s = end;
	return true;
}

/* A range filter N, N:, :N or N:M (both bounds then in N's unit). */
static bool parse_range(const char *src, tag_filter *t)
{
	char u1[32] = "", u2[32] = "";
	const char *p = src;
	double a = 0, b = 0;
	bool lo = false, hi = false;

	if (*p == ':') {
		p++;
		if (!parse_bound(&p, &b, u2, sizeof(u2)) || *p)
			return false;
		hi = true;
	} else {
		if (!parse_bound(&p, &a, u1, sizeof(u1)))
			return false;
		lo = true;
		if (*p == '\0') {
			hi = true; /* N alone: exactly N */
			b = a;
			strcpy(u2, u1);
		} else if (*p++ == ':') {
			if (*p) {
				if (!parse_bound(&p, &b, u2, sizeof(u2)) || *p)
					return false;
				hi = true;
			}
		} else {
			return false;
		}
	}
	t->range = true;
	t->has_lo = lo;
	t->has_hi = hi;
	t->unit = sp_measure_find(lo ? u1 : u2, &t->kind);
	t->lo = a;
	/* the upper bound in the lower one's unit */
	t->hi = lo && hi && strcmp(u1, u2) != 0 ? convert_unit((int64_t)b, u2, u1) : b;
	return true;
}

static void tag_filter_free(tag_filter *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n_re; i++)
		regfree(&t->re[i]);
	free(t->re);
	free(t->key);
	free(t);
}

static sp_error *tag_filter_new(const char *what, const char *src, tag_filter **out)
{
	tag_filter *t = sp_xcalloc(1, sizeof(*t));
	const char *eq = strchr(src, '=');
	const char *value = src;
	sp_error *err = NULL;

	if (eq) {
		t->key = sp_xstrndup(src, (size_t)(eq - src));
		value = eq + 1;
	}
	if (!parse_range(value, t)) {
		char *list = sp_xstrdup(value), *save = NULL;
		for (char *r = strtok_r(list, ",", &save); r && !err; r = strtok_r(NULL, ",", &save)) {
			t->re = sp_xreallocarray(t->re, t->n_re + 1, sizeof(*t->re));
			if (!(err = sp_regex_compile(what, r, &t->re[t->n_re])))
				t->n_re++;
		}
		free(list);
		if (!err && t->n_re == 0)
			err = sp_error_new(SP_E_USAGE, "%s: expected [KEY=]RANGE or [KEY=]REGEX, got \"%s\"",
					   what, src);
	}
	if (err) {
		tag_filter_free(t);
		return err;
	}
	*out = t;
	return NULL;
}

/* A numeric label's unit: its own, else "bytes" for the key "bytes" (as pprof infers). */
static const char *label_unit(const sp_profile *p, const sp_label *l)
{
	const char *u = sp_profile_str(p, l->num_unit);
	if (!*u && !strcmp(sp_profile_str(p, l->key), "bytes"))
		return "bytes";
	return u;
}

/* A label is compared with a range when their units are of one kind
 * (converted), or when neither has a unit of a known kind (as they are):
 * "3000" does not match a label in bytes, "3000b" does. */
static bool range_matches(const tag_filter *t, const sp_profile *p, const sp_label *l)
{
	size_t kind;
	const sp_measure_unit *u = sp_measure_find(label_unit(p, l), &kind);
	if (!u != !t->unit || (u && kind != t->kind))
		return false;
	double v = u ? (double)l->num * u->factor / t->unit->factor : (double)l->num;
	return (!t->has_lo || v >= t->lo) && (!t->has_hi || v <= t->hi);
}

static bool tag_matches(const tag_filter *t, const sp_profile *p, const sp_sample *s)
{
	if (t->range) {
		for (size_t i = 0; i < s->n_labels; i++) {
			const sp_label *l = &s->labels[i];
			if (l->str || (t->key && strcmp(sp_profile_str(p, l->key), t->key) != 0))
				continue;
			if (range_matches(t, p, l))
				return true;
		}
		return false;
	}
	if (t->key) {
		/* any expression matching any value of KEY */
		for (size_t i = 0; i < s->n_labels; i++) {
			const sp_label *l = &s->labels[i];
			if (!l->str || strcmp(sp_profile_str(p, l->key), t->key) != 0)
				continue;
			for (size_t k = 0; k < t->n_re; k++)
				if (!regexec(&t->re[k], sp_profile_str(p, l->str), 0, NULL, 0))
					return true;
		}
		return false;
	}
	/* every expression matching some "key:value" */
	for (size_t k = 0; k < t->n_re; k++) {
		bool hit = false;
		for (size_t i = 0; i < s->n_labels && !hit; i++) {
			const sp_label *l = &s->labels[i];
			if (!l->str)
				continue;
			char *kv = sp_xasprintf("%s:%s", sp_profile_str(p, l->key),
						sp_profile_str(p, l->str));
			hit = !regexec(&t->re[k], kv, 0, NULL, 0);
			free(kv);
		}
		if (!hit)
			return false;
	}
	return true;
}

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

sp_error *sp_sample_filter_tags(sp_sample_filter *f, const char *tagfocus,
				const char *tagignore)
{
	sp_error *err = NULL;
	if (tagfocus && tagfocus[0])
		err = tag_filter_new("tagfocus", tagfocus, &f->tagfocus);
	if (!err && tagignore && tagignore[0])
		err = tag_filter_new("tagignore", tagignore, &f->tagignore);
	return err;
}

bool sp_sample_filter_active(const sp_sample_filter *f)
{
	return f->focus || f->ignore || f->tagfocus || f->tagignore;
}

static bool keep_sample(const sp_sample *s, const void *ctx)
{
	return sp_sample_filter_keep(ctx, s);
}

void sp_sample_filter_apply(const sp_sample_filter *f, sp_profile *p)
{
	if (sp_sample_filter_active(f))
		sp_profile_retain_samples(p, keep_sample, f);
}

bool sp_sample_filter_keep(const sp_sample_filter *f, const sp_sample *s)
{
	bool focused = !f->focus;

	if (f->tagfocus && !tag_matches(f->tagfocus, f->p, s))
		return false;
	if (f->tagignore && tag_matches(f->tagignore, f->p, s))
		return false;
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
	tag_filter_free(f->tagfocus);
	tag_filter_free(f->tagignore);
	free(f);
}
