/* json.c — JSON string literals for the writers that speak JSON (the HTML
 * report's data, speedscope, the Firefox Profiler's format).  Bytes that are
 * not UTF-8 become '?', so every output parses; '<', '>' and '&' are
 * written as \u escapes, so the text can sit inside an HTML <script>. */
#include "common/common.h"

#include <string.h>

/* The length of the UTF-8 sequence at S (N bytes left), 0 when it is not
 * one (overlong forms, surrogates and values above U+10FFFF included). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned min;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, min = 0x10000;
	else
		return 0;
	if (n < len)
		return 0;
	unsigned v = c & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	return len;
}

void sp_json_string(sp_sink *out, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	sp_sink_putc(out, '"');
	size_t run = 0;
	for (size_t i = 0; i < n;) {
		unsigned char c = u[i];
		size_t len = c >= 0x80 ? utf8_len(u + i, n - i) : 1;
		if (len > 1 || (c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' &&
				c != '&' && c != 0x7f)) {
			i += len;
			continue;
		}
		sp_sink_write(out, s + run, i - run);
		switch (len ? c : 0x100) {
		case '"': sp_sink_puts(out, "\\\""); break;
		case '\\': sp_sink_puts(out, "\\\\"); break;
		case '\n': sp_sink_puts(out, "\\n"); break;
		case '\t': sp_sink_puts(out, "\\t"); break;
		case 0x100: sp_sink_putc(out, '?'); break; /* not UTF-8 */
		default: {
			char e[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0};
			sp_sink_puts(out, e);
		}
		}
		i++;
		run = i;
	}
	sp_sink_write(out, s + run, n - run);
	sp_sink_putc(out, '"');
}

void sp_json_cstr(sp_sink *out, const char *s)
{
	sp_json_string(out, s ? s : "", s ? strlen(s) : 0);
}
