/* test_json_pull.c — the JSON pull parser (formats/json_pull.c): values of every kind,
 * escapes and surrogate pairs (RFC 8259), the nesting bound, and errors
 * that name the line, column and byte and what was expected. */
#include "formats/json_pull.h"
#include "tests/helpers/tap.h"

#include <stdlib.h>

static void init(sp_json *j, const char *text, unsigned depth)
{
	sp_json_init(j, "t.json", (const uint8_t *)text, strlen(text), depth);
}

/* The error message of E (freed), or "" for none. */
static char *msg(sp_error *e)
{
	char *m = e ? sp_error_string(e) : sp_xstrdup("");
	sp_error_free(e);
	return m;
}

static void check_error(const char *text, const char *want, const char *what)
{
	sp_json j;
	init(&j, text, 0);
	char *m = msg(sp_json_skip(&j));
	if (!TAP_OK(strstr(m, want) != NULL, "%s", what))
		printf("#   got: %s\n#   want: %s\n", m, want);
	free(m);
}

int main(void)
{
	sp_json j;
	sp_buf key = {0}, str = {0};
	sp_error *err = NULL;

	init(&j, " {\"a\": [1, -2.5e3, \"x\"], \"b\": {\"c\": true}, \"d\": null} ", 0);
	TAP_OK(sp_json_peek(&j) == SP_JSON_OBJECT, "peek sees an object after white space");
	TAP_OK(!sp_json_object(&j), "an object opens");
	TAP_OK(sp_json_member(&j, &key, &err), "first member");
	TAP_EQ_STR(key.data, "a", "its key");
	TAP_OK(!sp_json_array(&j), "an array");
	const char *t;
	size_t n;
	int k = 0;
	while (sp_json_element(&j, &err)) {
		if (k < 2) {
			TAP_OK(!sp_json_number(&j, &t, &n), "element %d is a number", k);
			TAP_OK(n == (k ? 6u : 1u) && !memcmp(t, k ? "-2.5e3" : "1", n),
			       "its text is as written");
		} else {
			TAP_OK(!sp_json_get_string(&j, &str), "element 2 is a string");
			TAP_EQ_STR(str.data, "x", "its value");
		}
		k++;
	}
	TAP_OK(k == 3 && !err, "three elements, then the array closes");
	TAP_OK(sp_json_member(&j, &key, &err) && !strcmp(key.data, "b"), "second member");
	TAP_OK(!sp_json_skip(&j), "an object skipped whole");
	TAP_OK(sp_json_member(&j, &key, &err) && !strcmp(key.data, "d"), "third member");
	TAP_OK(!sp_json_null(&j), "null");
	TAP_OK(!sp_json_member(&j, &key, &err) && !err, "the object closes");
	TAP_OK(sp_json_peek(&j) == SP_JSON_END, "nothing but white space after it");

	/* escapes: all of RFC 8259's, \u as UTF-8, a surrogate pair joined */
	init(&j, "\"q\\\"b\\\\s\\/f\\b\\f\\n\\r\\t\\u00e9\\u20ac\\ud83d\\ude00\\u0000\"", 0);
	TAP_OK(!sp_json_get_string(&j, &str), "a string of every escape");
	const char want[] = "q\"b\\s/f\b\f\n\r\t\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
	TAP_OK(str.len == sizeof(want) && !memcmp(str.data, want, sizeof(want) - 1) &&
		       str.data[sizeof(want) - 1] == 0,
	       "decoded to UTF-8, U+1F600 from its surrogates, U+0000 kept (%zu bytes)", str.len);

	/* depth: as deep as allowed, and one more */
	init(&j, "[[[[]]]]", 4);
	TAP_OK(!(err = sp_json_skip(&j)), "4 levels with a bound of 4");
	sp_error_free(err);
	init(&j, "[[[[[]]]]]", 4);
	char *m = msg(sp_json_skip(&j));
	TAP_OK(strstr(m, "line 1, column 5 (byte 4): nested more than 4 levels deep") != NULL,
	       "a fifth level is refused where it opens: %s", m);
	free(m);

	check_error("{\"a\" 1}", "t.json: line 1, column 6 (byte 5): expected ':' after the member name, found a number",
		    "a missing colon");
	check_error("[1,\n 2\n 3]", "line 3, column 2 (byte 8): expected ',' or ']' after an element, found a number",
		    "a missing comma, on line 3");
	check_error("\"ab\ncd\"", "line 1, column 4 (byte 3): control character 0x0a in a string",
		    "a raw newline in a string");
	check_error("\"abc", "line 1, column 1 (byte 0): string not terminated",
		    "an unterminated string, at its start");
	check_error("\"\\x\"", "byte 1): unknown escape \\x", "an unknown escape");
	check_error("\"\\u12\"", "byte 1): \\u needs four hex digits", "a short \\u");
	check_error("\"\\udc00\"", "lone low surrogate \\udc00", "a low surrogate alone");
	check_error("\"\\ud800x\"", "high surrogate \\ud800 without a low one", "a high surrogate alone");
	check_error("-", "expected a number", "a minus alone");
	check_error("1.", "byte 2): expected a digit after '.'", "a fraction without digits");
	check_error("1e+", "byte 3): expected a digit in the exponent", "an exponent without digits");
	check_error("tru", "expected true or false", "a cut literal");
	check_error("}", "expected a value, found '}'", "a closing brace for a value");
	check_error("", "expected a value, found the end of the input", "nothing");

	sp_buf_free(&key);
	sp_buf_free(&str);
	return tap_done();
}
