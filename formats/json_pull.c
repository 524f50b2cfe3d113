/* json_pull.c — the bounded JSON pull parser of json_pull.h, and JSON string
 * escaping for writers.
 *
 * Input it reads (RFC 8259), one value after another:
 *
 *   {"resourceProfiles":[{"scopeProfiles":[...]}],"dictionary":{...}}
 *
 * No tree is built: each call consumes one token or one value, so memory
 * is what the caller keeps.  Errors are positioned (line, column, byte)
 * and say what was expected and what was found.  Strings may hold any
 * byte from 0x80 up (not checked as UTF-8); control characters must be
 * escaped; \u escapes are decoded to UTF-8, surrogate pairs joined and a
 * lone surrogate refused.
 */
#include "formats/json_pull.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sp_json_init(sp_json *j, const char *name, const uint8_t *data, size_t len,
		  unsigned max_depth)
{
	memset(j, 0, sizeof(*j));
	j->name = name ? name : "input";
	j->base = j->p = data;
	j->end = data + len;
	j->max_depth = max_depth && max_depth <= SP_JSON_MAX_DEPTH ? max_depth
								   : SP_JSON_MAX_DEPTH;
}

sp_error *sp_json_error_at(const sp_json *j, size_t at, const char *fmt, ...)
{
	size_t line = 1, col = 1;
	for (const uint8_t *q = j->base; q < j->base + at && q < j->end; q++) {
		if (*q == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	va_list ap;
	va_start(ap, fmt);
	char *msg = NULL;
	if (vasprintf(&msg, fmt, ap) < 0)
		sp_oom();
	va_end(ap);
	sp_error *e = sp_error_new(SP_E_MALFORMED, "%s: line %zu, column %zu (byte %zu): %s",
				   j->name, line, col, at, msg);
	free(msg);
	return e;
}

static void skip_ws(sp_json *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

size_t sp_json_offset(sp_json *j)
{
	skip_ws(j);
	return (size_t)(j->p - j->base);
}

static size_t here(const sp_json *j)
{
	return (size_t)(j->p - j->base);
}

sp_json_type sp_json_peek(sp_json *j)
{
	skip_ws(j);
	if (j->p >= j->end)
		return SP_JSON_END;
	switch (*j->p) {
	case '{': return SP_JSON_OBJECT;
	case '[': return SP_JSON_ARRAY;
	case '"': return SP_JSON_STRING;
	case 't': return SP_JSON_TRUE;
	case 'f': return SP_JSON_FALSE;
	case 'n': return SP_JSON_NULL;
	case '-':
	case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		return SP_JSON_NUMBER;
	default:
		return SP_JSON_BAD;
	}
}

/* What the next bytes are, for "found ..." in messages. */
static const char *found(sp_json *j)
{
	switch (sp_json_peek(j)) {
	case SP_JSON_END: return "the end of the input";
	case SP_JSON_OBJECT: return "an object";
	case SP_JSON_ARRAY: return "an array";
	case SP_JSON_STRING: return "a string";
	case SP_JSON_NUMBER: return "a number";
	case SP_JSON_TRUE:
	case SP_JSON_FALSE: return "a boolean";
	case SP_JSON_NULL: return "null";
	case SP_JSON_BAD: break;
	}
	return *j->p == '}' ? "'}'" : *j->p == ']' ? "']'" : *j->p == ',' ? "','" :
	       *j->p == ':' ? "':'" : "an unexpected character";
}

static sp_error *expected(sp_json *j, const char *what)
{
	const char *f = found(j);
	return sp_json_error_at(j, here(j), "expected %s, found %s", what, f);
}

static sp_error *open(sp_json *j, char c, const char *what)
{
	skip_ws(j);
	if (j->p >= j->end || *j->p != c)
		return expected(j, what);
	if (j->depth >= j->max_depth)
		return sp_json_error_at(j, here(j), "nested more than %u levels deep",
					j->max_depth);
	j->p++;
	j->depth++;
	j->seen[j->depth] = false;
	return NULL;
}

sp_error *sp_json_object(sp_json *j)
{
	return open(j, '{', "an object");
}

sp_error *sp_json_array(sp_json *j)
{
	return open(j, '[', "an array");
}

/* Before the next member or element of the innermost open object or array
 * (closed by CLOSE): true when there is one, false after CLOSE. */
static bool next_in(sp_json *j, char close, const char *what, sp_error **err)
{
	*err = NULL;
	skip_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		j->depth--;
		return false;
	}
	if (j->seen[j->depth]) {
		if (j->p >= j->end || *j->p != ',') {
			char want[64];
			snprintf(want, sizeof(want), "',' or '%c' after %s", close, what);
			*err = expected(j, want);
			return false;
		}
		j->p++;
		skip_ws(j);
	}
	j->seen[j->depth] = true;
	return true;
}

bool sp_json_member(sp_json *j, sp_buf *key, sp_error **err)
{
	if (!next_in(j, '}', "a member", err))
		return false;
	if (sp_json_peek(j) != SP_JSON_STRING) {
		*err = expected(j, "a member name (a string)");
		return false;
	}
	if ((*err = sp_json_get_string(j, key)))
		return false;
	skip_ws(j);
	if (j->p >= j->end || *j->p != ':') {
		*err = expected(j, "':' after the member name");
		return false;
	}
	j->p++;
	return true;
}

bool sp_json_element(sp_json *j, sp_error **err)
{
	if (!next_in(j, ']', "an element", err))
		return false;
	return true;
}

static int hex_digit(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Four hex digits at Q (at least 4 bytes left), or -1. */
static long hex4(const uint8_t *q)
{
	long v = 0;
	for (int i = 0; i < 4; i++) {
		int d = hex_digit(q[i]);
		if (d < 0)
			return -1;
		v = v << 4 | d;
	}
	return v;
}

static void put_utf8(sp_buf *b, unsigned long c)
{
	char u[4];
	size_t n;
	if (c < 0x80) {
		u[0] = (char)c;
		n = 1;
	} else if (c < 0x800) {
		u[0] = (char)(0xc0 | c >> 6);
		u[1] = (char)(0x80 | (c & 0x3f));
		n = 2;
	} else if (c < 0x10000) {
		u[0] = (char)(0xe0 | c >> 12);
		u[1] = (char)(0x80 | (c >> 6 & 0x3f));
		u[2] = (char)(0x80 | (c & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | c >> 18);
		u[1] = (char)(0x80 | (c >> 12 & 0x3f));
		u[2] = (char)(0x80 | (c >> 6 & 0x3f));
		u[3] = (char)(0x80 | (c & 0x3f));
		n = 4;
	}
	sp_buf_append(b, u, n);
}

sp_error *sp_json_get_string(sp_json *j, sp_buf *out)
{
	sp_buf_reset(out);
	sp_buf_append(out, "", 0);
	skip_ws(j);
	if (j->p >= j->end || *j->p != '"')
		return expected(j, "a string");
	size_t start = here(j);
	j->p++;
	for (;;) {
		const uint8_t *run = j->p;
		while (j->p < j->end && *j->p != '"' && *j->p != '\\' && *j->p >= 0x20)
			j->p++;
		sp_buf_append(out, run, (size_t)(j->p - run));
		if (j->p >= j->end)
			return sp_json_error_at(j, start, "string not terminated");
		if (*j->p == '"') {
			j->p++;
			sp_buf_str(out);
			return NULL;
		}
		if (*j->p < 0x20)
			return sp_json_error_at(j, here(j),
						"control character 0x%02x in a string (must be "
						"escaped)",
						*j->p);
		/* a backslash */
		size_t at = here(j);
		if (j->end - j->p < 2)
			return sp_json_error_at(j, at, "string not terminated");
		uint8_t c = j->p[1];
		j->p += 2;
		char lit = 0;
		switch (c) {
		case '"': lit = '"'; break;
		case '\\': lit = '\\'; break;
		case '/': lit = '/'; break;
		case 'b': lit = '\b'; break;
		case 'f': lit = '\f'; break;
		case 'n': lit = '\n'; break;
		case 'r': lit = '\r'; break;
		case 't': lit = '\t'; break;
		case 'u': {
			long u = j->end - j->p >= 4 ? hex4(j->p) : -1;
			if (u < 0)
				return sp_json_error_at(j, at, "\\u needs four hex digits");
			j->p += 4;
			if (u >= 0xdc00 && u <= 0xdfff)
				return sp_json_error_at(j, at, "lone low surrogate \\u%04lx", u);
			if (u >= 0xd800 && u <= 0xdbff) {
				long lo = j->end - j->p >= 6 && j->p[0] == '\\' && j->p[1] == 'u'
						  ? hex4(j->p + 2)
						  : -1;
				if (lo < 0xdc00 || lo > 0xdfff)
					return sp_json_error_at(
						j, at, "high surrogate \\u%04lx without a low one", u);
				j->p += 6;
				u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
			}
			put_utf8(out, (unsigned long)u);
			continue;
		}
		default:
			return sp_json_error_at(j, at, "unknown escape \\%c", c >= 0x20 && c < 0x7f
									   ? c
									   : '?');
		}
		sp_buf_append(out, &lit, 1);
	}
}

static bool digit(const sp_json *j, const uint8_t *q)
{
	return q < j->end && *q >= '0' && *q <= '9';
}

sp_error *sp_json_number(sp_json *j, const char **text, size_t *len)
{
	skip_ws(j);
	const uint8_t *q = j->p;
	if (q < j->end && *q == '-')
		q++;
	if (!digit(j, q))
		return expected(j, "a number");
	if (*q == '0')
		q++;
	else
		while (digit(j, q))
			q++;
	if (q < j->end && *q == '.') {
		q++;
		if (!digit(j, q))
			return sp_json_error_at(j, (size_t)(q - j->base), "expected a digit after '.'");
		while (digit(j, q))
			q++;
	}
	if (q < j->end && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < j->end && (*q == '+' || *q == '-'))
			q++;
		if (!digit(j, q))
			return sp_json_error_at(j, (size_t)(q - j->base),
						"expected a digit in the exponent");
		while (digit(j, q))
			q++;
	}
	*text = (const char *)j->p;
	*len = (size_t)(q - j->p);
	j->p = q;
	return NULL;
}

static bool word(sp_json *j, const char *w)
{
	size_t n = strlen(w);
	skip_ws(j);
	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n) != 0)
		return false;
	j->p += n;
	return true;
}

sp_error *sp_json_bool(sp_json *j, bool *out)
{
	if (word(j, "true"))
		*out = true;
	else if (word(j, "false"))
		*out = false;
	else
		return expected(j, "true or false");
	return NULL;
}

sp_error *sp_json_null(sp_json *j)
{
	return word(j, "null") ? NULL : expected(j, "null");
}

sp_error *sp_json_skip(sp_json *j)
{
	sp_error *err = NULL;
	sp_buf tmp = {0};
	const char *t;
	size_t n;
	bool b;
	switch (sp_json_peek(j)) {
	case SP_JSON_OBJECT:
		if ((err = sp_json_object(j)))
			break;
		while (sp_json_member(j, &tmp, &err))
			if ((err = sp_json_skip(j)))
				break;
		break;
	case SP_JSON_ARRAY:
		if ((err = sp_json_array(j)))
			break;
		while (sp_json_element(j, &err))
			if ((err = sp_json_skip(j)))
				break;
		break;
	case SP_JSON_STRING:
		err = sp_json_get_string(j, &tmp);
		break;
	case SP_JSON_NUMBER:
		err = sp_json_number(j, &t, &n);
		break;
	case SP_JSON_TRUE:
	case SP_JSON_FALSE:
		err = sp_json_bool(j, &b);
		break;
	case SP_JSON_NULL:
		err = sp_json_null(j);
		break;
	case SP_JSON_END:
	case SP_JSON_BAD:
		err = expected(j, "a value");
		break;
	}
	sp_buf_free(&tmp);
	return err;
}

void sp_json_put_string(sp_sink *out, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	sp_sink_putc(out, '"');
	size_t run = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		sp_sink_write(out, s + run, i - run);
		run = i + 1;
		switch (c) {
		case '"': sp_sink_puts(out, "\\\""); break;
		case '\\': sp_sink_puts(out, "\\\\"); break;
		case '\n': sp_sink_puts(out, "\\n"); break;
		case '\r': sp_sink_puts(out, "\\r"); break;
		case '\t': sp_sink_puts(out, "\\t"); break;
		default: {
			char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
			sp_sink_write(out, u, 6);
		}
		}
	}
	sp_sink_write(out, s + run, n - run);
	sp_sink_putc(out, '"');
}
