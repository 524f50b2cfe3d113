/* json_pull.h — a bounded pull parser for JSON text, and the escaping of JSON
 * strings for writers (json_pull.c).  Private to formats/.
 *
 * The parser walks a buffer the caller holds in memory, one value at a
 * time, without building a tree: the caller asks for what it expects next
 * (an object's members, an array's elements, a string, a number) and gets
 * it, or an error that names the input, its line, column and byte offset,
 * and what was expected.  Objects and arrays nest at most MAX_DEPTH deep;
 * strings are decoded into the caller's sp_buf (escapes, \u surrogate
 * pairs to UTF-8), numbers are handed over as their text, checked against
 * JSON's grammar.  Nothing is allocated but the caller's buffers.
 */
#ifndef SYMPROF_FORMATS_JSON_PULL_H
#define SYMPROF_FORMATS_JSON_PULL_H

#include "common/common.h"

#define SP_JSON_MAX_DEPTH 256

typedef enum {
	SP_JSON_END = 0, /* nothing but white space is left */
	SP_JSON_OBJECT,
	SP_JSON_ARRAY,
	SP_JSON_STRING,
	SP_JSON_NUMBER,
	SP_JSON_TRUE,
	SP_JSON_FALSE,
	SP_JSON_NULL,
	SP_JSON_BAD,     /* a byte no value starts with */
} sp_json_type;

typedef struct {
	const char *name;           /* the input, for messages */
	const uint8_t *base, *p, *end;
	unsigned depth, max_depth;
	/* per open object or array: whether a member or element was read */
	bool seen[SP_JSON_MAX_DEPTH + 1];
} sp_json;

/* Starts reading DATA[0..len) (borrowed); MAX_DEPTH 0 or above
 * SP_JSON_MAX_DEPTH means SP_JSON_MAX_DEPTH. */
void sp_json_init(sp_json *j, const char *name, const uint8_t *data, size_t len,
		  unsigned max_depth);
/* The type of the next value (white space skipped), without consuming it. */
sp_json_type sp_json_peek(sp_json *j);
/* Byte offset of the next value (after white space). */
size_t sp_json_offset(sp_json *j);
/* An SP_E_MALFORMED error "NAME: line L, column C (byte O): MESSAGE" for
 * the byte at offset AT. */
sp_error *sp_json_error_at(const sp_json *j, size_t at, const char *fmt, ...) SP_PRINTF(3, 4);

/* Consumes '{'.  Then sp_json_member gives each member's key (into KEY)
 * and leaves the reader at its value, which the caller must consume;
 * false at the closing '}' (consumed) or on error (*ERR set). */
sp_error *sp_json_object(sp_json *j);
bool sp_json_member(sp_json *j, sp_buf *key, sp_error **err);
/* Consumes '['; sp_json_element is true before each element (which the
 * caller consumes), false at ']' or on error. */
sp_error *sp_json_array(sp_json *j);
bool sp_json_element(sp_json *j, sp_error **err);

/* A string, decoded into OUT (reset first; NUL-terminated, may hold
 * NULs: use out->len). */
sp_error *sp_json_get_string(sp_json *j, sp_buf *out);
/* A number: *TEXT and *LEN get its text (borrowed from the input). */
sp_error *sp_json_number(sp_json *j, const char **text, size_t *len);
/* true or false. */
sp_error *sp_json_bool(sp_json *j, bool *out);
/* null. */
sp_error *sp_json_null(sp_json *j);
/* Any value, skipped (nesting bounded as for the others). */
sp_error *sp_json_skip(sp_json *j);

/* Writes S[0..n) as a JSON string (quoted, escaped) to OUT, its bytes from
 * 0x80 up as they are: what sp_json_get_string reads back the same, as the
 * OTLP/JSON round trip needs (common/json.c's sp_json_string, for HTML and
 * the viewers, writes bytes that are not UTF-8 as '?'). */
void sp_json_put_string(sp_sink *out, const char *s, size_t n);

#endif
