/* number.c — strict number parsing, and sizes as people read them.  Calls
 * nothing of symprof's: every file of common/ may use it. */
#include "common/common.h"

#include <stdio.h>
#include <string.h>

bool sp_parse_u64(const char *s, const char *end, int base, uint64_t *out)
{
	if (base == 16 && end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (s >= end)
		return false;
	/* one division per number, not per digit: V * BASE + D overflows
	 * exactly when V > MAX / BASE, or V == MAX / BASE and D > MAX % BASE */
	const uint64_t lim = UINT64_MAX / (unsigned)base;
	const unsigned rem = (unsigned)(UINT64_MAX % (unsigned)base);
	uint64_t v = 0;
	for (; s < end; s++) {
		unsigned d;
		char c = *s;
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return false;
		if (v > lim || (v == lim && d > rem))
			return false;
		v = v * (unsigned)base + d;
	}
	*out = v;
	return true;
}

bool sp_parse_i64(const char *s, const char *end, int64_t *out)
{
	bool neg = false;
	if (s < end && (*s == '-' || *s == '+')) {
		neg = *s == '-';
		s++;
	}
	uint64_t v;
	if (!sp_parse_u64(s, end, 10, &v))
		return false;
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1)
			return false;
		*out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	} else {
		if (v > (uint64_t)INT64_MAX)
			return false;
		*out = (int64_t)v;
	}
	return true;
}

bool sp_mem_parse_size(const char *s, size_t *out)
{
	size_t n = strlen(s), shift = 0;
	if (n && (s[n - 1] == 'B' || s[n - 1] == 'b') && n > 1 &&
	    strchr("kKmMgGtT", s[n - 2]))
		n--;
	if (n) {
		switch (s[n - 1]) {
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		case 't': case 'T': shift = 40; break;
		default: break;
		}
	}
	uint64_t v;
	if (!sp_parse_u64(s, s + n - (shift ? 1 : 0), 10, &v) || v > (SIZE_MAX >> shift))
		return false;
	*out = (size_t)v << shift;
	return true;
}

void sp_format_size(char *buf, size_t n, size_t bytes)
{
	if (bytes >= ((size_t)1 << 30) && bytes % ((size_t)1 << 30) == 0)
		snprintf(buf, n, "%zu GiB", bytes >> 30);
	else if (bytes >= ((size_t)1 << 20) && bytes % ((size_t)1 << 20) == 0)
		snprintf(buf, n, "%zu MiB", bytes >> 20);
	else
		snprintf(buf, n, "%zu bytes", bytes);
}
