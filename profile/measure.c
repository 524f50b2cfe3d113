/* measure.c — pprof's units of measure, for every layer that reads or shows
 * a value with its unit: memory in powers of 1024 from bytes, time in
 * powers of 1000 from nanoseconds (pprof's measurement tables).  A unit is
 * named case-insensitively by any of its aliases, a plural "s" dropped:
 * "bytes", "kB", "milliseconds", "hrs".
 */
#include "profile/profile.h"

#include <string.h>

static const sp_measure_unit memory_units[] = {
	{"B", {"b", "byte"}, 1},
	{"kB", {"kb", "kbyte", "kilobyte"}, 1024.0},
	{"MB", {"mb", "mbyte", "megabyte"}, 1024.0 * 1024},
	{"GB", {"gb", "gbyte", "gigabyte"}, 1024.0 * 1024 * 1024},
	{"TB", {"tb", "tbyte", "terabyte"}, 1024.0 * 1024 * 1024 * 1024},
	{"PB", {"pb", "pbyte", "petabyte"}, 1024.0 * 1024 * 1024 * 1024 * 1024},
};

static const sp_measure_unit time_units[] = {
	{"ns", {"ns", "nanosecond"}, 1},
	{"us", {"\xce\xbcs", "us", "microsecond"}, 1e3},
	{"ms", {"ms", "millisecond"}, 1e6},
	{"s", {"s", "sec", "second"}, 1e9},
	{"hrs", {"hour", "hr"}, 3600e9},
};

const sp_measure_kind sp_measure_kinds[SP_N_MEASURE_KINDS] = {
	{memory_units, SP_ARRAY_LEN(memory_units), 0},
	{time_units, SP_ARRAY_LEN(time_units), 3},
};

const sp_measure_unit *sp_measure_of_kind(const sp_measure_kind *k, const char *s)
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
	for (size_t i = 0; i < k->n; i++)
		for (size_t a = 0; a < 4 && k->units[i].aliases[a]; a++)
			if (!strcmp(buf, k->units[i].aliases[a]))
				return &k->units[i];
	return NULL;
}

const sp_measure_unit *sp_measure_find(const char *s, size_t *kind)
{
	for (size_t k = 0; k < SP_N_MEASURE_KINDS; k++) {
		const sp_measure_unit *u = sp_measure_of_kind(&sp_measure_kinds[k], s);
		if (u) {
			*kind = k;
			return u;
		}
	}
	return NULL;
}
