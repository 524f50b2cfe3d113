/* report_units.c — values shown with their unit, as pprof's measurement
 * tables do: memory in base 1024 from bytes ("1536" bytes => "1.50kB"),
 * time in base 1000 from nanoseconds ("30000000" ns => "30ms"), anything
 * else as a plain count; and pprof's percentages ("%5.2f%%", "  100%").
 */
#include "formats/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct {
	const char *name;
	const char *aliases[4];
	double factor;
} unit_def;

typedef struct {
	const unit_def *units;
	size_t n;
	size_t def; /* index of the default unit */
} unit_type;

static const unit_def memory_units[] = {
	{"B", {"b", "byte"}, 1},
	{"kB", {"kb", "kbyte", "kilobyte"}, 1024.0},
	{"MB", {"mb", "mbyte", "megabyte"}, 1024.0 * 1024},
	{"GB", {"gb", "gbyte", "gigabyte"}, 1024.0 * 1024 * 1024},
	{"TB", {"tb", "tbyte", "terabyte"}, 1024.0 * 1024 * 1024 * 1024},
	{"PB", {"pb", "pbyte", "petabyte"}, 1024.0 * 1024 * 1024 * 1024 * 1024},
};

static const unit_def time_units[] = {
	{"ns", {"ns", "nanosecond"}, 1},
	{"us", {"\xce\xbcs", "us", "microsecond"}, 1e3},
	{"ms", {"ms", "millisecond"}, 1e6},
	{"s", {"s", "sec", "second"}, 1e9},
	{"hrs", {"hour", "hr"}, 3600e9},
};

static const unit_type unit_types[] = {
	{memory_units, SP_ARRAY_LEN(memory_units), 0},
	{time_units, SP_ARRAY_LEN(time_units), 3},
};

/* Lower-cases S and drops one trailing 's' when longer than two bytes. */
static const unit_def *sniff_unit(const unit_type *t, const char *s)
{
	char buf[32];
	size_t n = strlen(s);

	if (n >= sizeof(buf))
		return NULL;
	for (size_t i = 0; i < n; i++)
		buf[i] = (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] - 'A' + 'a') : s[i];
	if (n > 2 && buf[n - 1] == 's')
		n--;
	buf[n] = 0;
	for (size_t i = 0; i < t->n; i++)
		for (size_t a = 0; a < 4 && t->units[i].aliases[a]; a++)
			if (!strcmp(buf, t->units[i].aliases[a]))
				return &t->units[i];
	return NULL;
}

static bool is_auto(const char *u)
{
	return !strcmp(u, "minimum") || !strcmp(u, "auto");
}

/* VALUE in FROM expressed in TO ("minimum" picks the largest unit giving
 * a value >= 1); *UNIT gets the canonical unit name ("" for counts). */
double sp_report_scale(int64_t value, const char *from, const char *to, const char **unit)
{
	if (value < 0 && value > INT64_MIN)
		return -sp_report_scale(-value, from, to, unit);
	for (size_t t = 0; t < SP_ARRAY_LEN(unit_types); t++) {
		const unit_type *ut = &unit_types[t];
		const unit_def *fu = sniff_unit(ut, from), *tu;
		double v;

		if (!fu)
			continue;
		v = (double)value * fu->factor;
		if (is_auto(to)) {
			const unit_def *best = NULL;

			for (size_t i = 0; i < ut->n; i++)
				if ((!best || ut->units[i].factor >= best->factor) &&
				    v / ut->units[i].factor >= 1.0)
					best = &ut->units[i];
			tu = best ? best : &ut->units[ut->def];
		} else {
			tu = sniff_unit(ut, to);
			if (!tu)
				tu = &ut->units[ut->def];
		}
		*unit = tu->name;
		return v / tu->factor;
	}
	if (!strcmp(to, "count") || !strcmp(to, "sample") || !strcmp(to, "unit") ||
	    is_auto(to))
		*unit = "";
	else
		*unit = to;
	return (double)value;
}

char *sp_report_scaled_label(int64_t value, const char *from, const char *to)
{
	const char *unit;
	double v = sp_report_scale(value, from, to, &unit);
	char buf[64];
	size_t n;

	snprintf(buf, sizeof(buf), "%.2f", v);
	n = strlen(buf);
	if (n >= 3 && !strcmp(buf + n - 3, ".00"))
		buf[n - 3] = 0;
	if (!strcmp(buf, "0") || !strcmp(buf, "-0"))
		return sp_xstrdup("0");
	return sp_xasprintf("%s%s", buf, unit);
}

char *sp_report_value(const sp_report *r, int64_t v)
{
	if (!r->output_unit[0])
		return sp_report_scaled_label(v, r->sample_unit, r->sample_unit);
	return sp_report_scaled_label(v, r->sample_unit, r->output_unit);
}

const char *sp_report_pct(int64_t v, int64_t total, char *buf)
{
	double ratio = 0;

	if (total != 0)
		ratio = fabs((double)v / (double)total) * 100;
	if (ratio >= 99.95 && ratio <= 100.05)
		strcpy(buf, "  100%");
	else if (ratio >= 1.0)
		snprintf(buf, 16, "%5.2f%%", ratio);
	else
		snprintf(buf, 16, "%5.2g%%", ratio);
	return buf;
}

