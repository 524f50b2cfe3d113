/* values.c — values shown with their unit, through pprof's
 * measurement tables (profile/units.c): memory in base 1024 from bytes
 * ("1536" bytes => "1.50kB"), time in base 1000 from nanoseconds
 * ("30000000" ns => "30ms"), anything else as a plain count; and pprof's percentages ("%5.2f%%", "  100%").
 */
#include "report/reportp.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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
	for (size_t t = 0; t < SP_N_MEASURE_KINDS; t++) {
		const sp_measure_kind *ut = &sp_measure_kinds[t];
		const sp_measure_unit *fu = sp_measure_of_kind(ut, from), *tu;
		double v;

		if (!fu)
			continue;
		v = (double)value * fu->factor;
		if (is_auto(to)) {
			const sp_measure_unit *best = NULL;

			for (size_t i = 0; i < ut->n; i++)
				if ((!best || ut->units[i].factor >= best->factor) &&
				    v / ut->units[i].factor >= 1.0)
					best = &ut->units[i];
			tu = best ? best : &ut->units[ut->def];
		} else {
			tu = sp_measure_of_kind(ut, to);
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

