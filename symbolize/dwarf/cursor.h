/* cursor.h — the one bounds-checked reader over DWARF bytes, shared by
 * the raw DIE reader (die.c) and the line-table decoder (lines.c).
 *
 * A cursor covers [p, end) and never moves past END: p <= end always, so
 * sp_cur_left is never negative.  A read that does not fit marks the
 * cursor BAD, returns 0 and leaves it at END (so every later read fails
 * too): a run of reads is checked once, at its end.  The data is
 * little-endian (callers refuse big-endian sections before reading).
 *
 * LEB128 has one overflow rule here, libdw's bound: at most ten bytes,
 * the tenth carrying nothing above bit 63.  Anything longer or wider is
 * BAD: the readers then leave the unit to libdw, which reads it its own
 * way.
 */
#ifndef SYMPROF_SYMBOLIZE_DWCURSOR_H
#define SYMPROF_SYMBOLIZE_DWCURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct {
	const unsigned char *p, *end;
	bool bad;
} sp_cur;

/* The N little-endian bytes at P (N <= 8) as a number; the caller has
 * checked that they are there (sp_cur_fixed checks). */
static inline uint64_t sp_read_le(const unsigned char *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = n; i > 0; i--)
		v = v << 8 | p[i - 1];
	return v;
}

static inline size_t sp_cur_left(const sp_cur *c)
{
	return (size_t)(c->end - c->p);
}

static inline void sp_cur_fail(sp_cur *c)
{
	c->bad = true;
	c->p = c->end;
}

/* Moves past N bytes; false (and BAD) when fewer are left. */
static inline bool sp_cur_skip(sp_cur *c, uint64_t n)
{
	if (sp_cur_left(c) < n) {
		sp_cur_fail(c);
		return false;
	}
	c->p += n;
	return true;
}

/* N little-endian bytes (N <= 8). */
static inline uint64_t sp_cur_fixed(sp_cur *c, size_t n)
{
	if (sp_cur_left(c) < n) {
		sp_cur_fail(c);
		return 0;
	}
	uint64_t v = sp_read_le(c->p, n);
	c->p += n;
	return v;
}

static inline uint64_t sp_cur_uleb(sp_cur *c)
{
	if (c->p < c->end && *c->p < 0x80) /* one byte, as most are */
		return *c->p++;
	uint64_t v = 0;
	for (unsigned shift = 0; c->p < c->end && shift <= 63; shift += 7) {
		unsigned char b = *c->p++;
		if (shift == 63 && (b & 0x7e))
			break;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	sp_cur_fail(c);
	return 0;
}

static inline int64_t sp_cur_sleb(sp_cur *c)
{
	uint64_t v = 0;
	for (unsigned shift = 0; c->p < c->end && shift <= 63; shift += 7) {
		unsigned char b = *c->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			if (shift + 7 < 64 && (b & 0x40))
				v |= ~(uint64_t)0 << (shift + 7);
			return (int64_t)v;
		}
	}
	sp_cur_fail(c);
	return 0;
}

/* A NUL-terminated string, or NULL (BAD) when it runs to END. */
static inline const char *sp_cur_cstr(sp_cur *c)
{
	const unsigned char *nul = c->p < c->end ? memchr(c->p, 0, sp_cur_left(c)) : NULL;
	if (!nul) {
		sp_cur_fail(c);
		return NULL;
	}
	const char *s = (const char *)c->p;
	c->p = nul + 1;
	return s;
}

#endif
