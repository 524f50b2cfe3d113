/* select.c — perf report's sample selections as one model operation, over
 * the labels a perf.data recording gives its samples (capture_profile.c):
 *
 *   pids, tids   "1234,1240"            pid / tid labels, any of the list
 *   comms        "xz,python3"           comm label, one of the names exactly
 *   cpus         "0-2,5"                cpu label, in one of the ranges
 *   time         "START,STOP"           end_timestamp_ns between the two (in
 *                                       seconds, as perf script prints them;
 *                                       either may be empty: open)
 *                "10%/2", "0%-10%,50%-60%"  slices of the time from the first
 *                                       sample to the last: the 2nd tenth;
 *                                       from 0 to 10% and from 50 to 60%
 *
 * as `perf report --pid/--tid/--comm/--cpu/--time` read them.  A sample is
 * kept when it passes every selection given.  A selection of a label no
 * sample has is an error naming it (a recording without times or CPUs).
 */
#include "profile/profile.h"
#include "profile/capture.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	double lo, hi; /* inclusive; in the label's values */
} range;

typedef struct {
	int64_t key;      /* label key (string index), 0: not asked */
	bool strings;     /* names (comm) rather than numbers */
	range *r;         /* numbers */
	size_t n_r;
	int64_t *names;   /* string indexes */
	size_t n_names;
} selection;

typedef struct {
	selection s[5];
} select_ctx;

static void add_range(selection *s, double lo, double hi)
{
	size_t cap = s->n_r;
	SP_PUSH(s->r, s->n_r, cap, ((range){lo, hi}));
}

/* A decimal number at *P (moved past it): an integer, or with a fraction
 * (seconds.nanoseconds, taken to the nanosecond when SCALE is 1e9). */
static bool number(const char **p, double scale, double *v)
{
	const char *s = *p;
	char *end;
	errno = 0;
	unsigned long long whole = strtoull(s, &end, 10);
	if (end == s || errno || *s == '-' || *s == '+')
		return false;
	double frac = 0, f = 0.1;
	if (*end == '.') {
		end++;
		for (; *end >= '0' && *end <= '9'; end++, f /= 10)
			frac += (*end - '0') * f;
	}
	*v = (double)whole * scale + frac * scale;
	*p = end;
	return true;
}

/* "A,B-C,..." of integers into S's ranges; WHAT names the option. */
static sp_error *int_list(const char *what, const char *src, selection *s)
{
	const char *p = src;
	while (*p) {
		double lo, hi;
		if (!number(&p, 1, &lo))
			return sp_error_new(SP_E_USAGE, "%s %s: expected numbers separated by "
					    "commas (ranges A-B allowed)", what, src);
		hi = lo;
		if (*p == '-') {
			p++;
			if (!number(&p, 1, &hi) || hi < lo)
				return sp_error_new(SP_E_USAGE, "%s %s: expected a range A-B with "
						    "A <= B", what, src);
		}
		add_range(s, lo, hi);
		if (*p == ',')
			p++;
		else if (*p)
			return sp_error_new(SP_E_USAGE, "%s %s: unexpected \"%s\"", what, src, p);
	}
	if (!s->n_r)
		return sp_error_new(SP_E_USAGE, "%s: an empty list", what);
	return NULL;
}

/* The first and last sample times of P (label KEY); false when no sample
 * has one. */
static bool time_span(const sp_profile *p, int64_t key, double *first, double *last)
{
	bool any = false;
	for (size_t i = 0; i < p->n_samples; i++)
		for (size_t k = 0; k < p->samples[i].n_labels; k++) {
			const sp_label *l = &p->samples[i].labels[k];
			if (l->key != key || l->str)
				continue;
			double t = (double)l->num;
			if (!any || t < *first)
				*first = t;
			if (!any || t > *last)
				*last = t;
			any = true;
		}
	return any;
}

/* perf's --time: START,STOP in seconds, or percent slices of the span. */
static sp_error *time_ranges(const sp_profile *p, const char *src, selection *s)
{
	double first = 0, last = 0;
	if (!time_span(p, s->key, &first, &last))
		return sp_error_new(SP_E_USAGE, "--time %s: the samples have no times (perf record "
				    "without -T or PERF_SAMPLE_TIME?)", src);
	const char *q = src;
	if (!strchr(src, '%')) {
		double lo = 0, hi = 1e300;
		if (*q != ',' && !number(&q, 1e9, &lo))
			goto bad;
		if (*q != ',')
			goto bad;
		q++;
		if (*q && !number(&q, 1e9, &hi))
			goto bad;
		if (*q || hi < lo)
			goto bad;
		add_range(s, lo, hi);
		return NULL;
	}
	double span = last - first;
	while (*q) {
		double a, b;
		if (!number(&q, 1, &a) || *q++ != '%')
			goto bad;
		if (*q == '/') {
			double n;
			q++;
			if (!number(&q, 1, &n) || n < 1 || a <= 0 || a > 100 || (n - 1) * a >= 100)
				goto bad;
			b = a * n;
			a = a * (n - 1);
		} else if (*q == '-') {
			q++;
			if (!number(&q, 1, &b) || *q++ != '%' || b < a || b > 100)
				goto bad;
		} else {
			goto bad;
		}
		add_range(s, first + span * a / 100, first + span * b / 100);
		if (*q == ',')
			q++;
		else if (*q)
			goto bad;
	}
	return NULL;
bad:
	return sp_error_new(SP_E_USAGE, "--time %s: expected START,STOP in seconds (either may be "
			    "empty), or percent slices: P%%/N (the Nth slice of P%%), A%%-B%%, "
			    "separated by commas", src);
}

static bool passes(const selection *s, const sp_sample *x)
{
	if (!s->key)
		return true;
	for (size_t k = 0; k < x->n_labels; k++) {
		const sp_label *l = &x->labels[k];
		if (l->key != s->key)
			continue;
		if (s->strings) {
			for (size_t i = 0; i < s->n_names; i++)
				if (l->str == s->names[i])
					return true;
		} else if (!l->str) {
			for (size_t i = 0; i < s->n_r; i++)
				if ((double)l->num >= s->r[i].lo && (double)l->num <= s->r[i].hi)
					return true;
		}
	}
	return false;
}

static bool keep(const sp_sample *x, const void *arg)
{
	const select_ctx *c = arg;
	for (size_t i = 0; i < SP_ARRAY_LEN(c->s); i++)
		if (!passes(&c->s[i], x))
			return false;
	return true;
}

/* Whether some sample of P has a label KEY. */
static bool has_label(const sp_profile *p, int64_t key)
{
	for (size_t i = 0; i < p->n_samples; i++)
		for (size_t k = 0; k < p->samples[i].n_labels; k++)
			if (p->samples[i].labels[k].key == key)
				return true;
	return false;
}

sp_error *sp_profile_select(sp_profile *p, const sp_profile_selection *sel)
{
	select_ctx c = {0};
	const char *src[5] = {sel->pids, sel->tids, sel->comms, sel->cpus, sel->time};
	static const char *const keys[5] = {"pid", "tid", "comm", "cpu", SP_TIME_LABEL};
	static const char *const opts[5] = {"--pid", "--tid", "--comm", "--cpu", "--time"};
	sp_error *e = NULL;
	bool any = false;
	for (size_t i = 0; i < 5 && !e; i++) {
		if (!src[i] || !*src[i])
			continue;
		any = true;
		selection *s = &c.s[i];
		s->key = sp_profile_intern(p, keys[i]);
		if (p->n_samples && !has_label(p, s->key)) {
			e = sp_error_new(SP_E_USAGE, "%s: the samples have no %s label%s", opts[i],
					 keys[i], i == 3 ? " (perf record without -C or "
							   "PERF_SAMPLE_CPU?)" : "");
			break;
		}
		if (i == 2) {
			s->strings = true;
			char *names = sp_xstrdup(src[i]), *save = NULL;
			size_t cap = 0;
			for (char *t = strtok_r(names, ",", &save); t; t = strtok_r(NULL, ",", &save))
				SP_PUSH(s->names, s->n_names, cap, sp_profile_intern(p, t));
			free(names);
		} else if (i == 4) {
			e = time_ranges(p, src[i], s);
		} else {
			e = int_list(opts[i], src[i], s);
		}
	}
	if (!e && any)
		sp_profile_retain_samples(p, keep, &c);
	for (size_t i = 0; i < 5; i++) {
		free(c.s[i].r);
		free(c.s[i].names);
	}
	return e;
}
