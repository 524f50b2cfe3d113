/* stacks.h — small helpers shared by the address-stack readers (CPU, raw,
 * folded): summing samples whose stacks are identical.  Private to the
 * formats layer. */
#ifndef SYMPROF_FORMATS_STACKS_H
#define SYMPROF_FORMATS_STACKS_H

#include "profile/profile.h"

/* Merges samples of P that have the same location ids in the same order
 * and no labels: the first one keeps its place and receives the sum of
 * the values (wrapping like int64 arithmetic in pprof); the others are
 * freed.  Sample order is otherwise kept. */
void sp_fmt_sum_identical_samples(sp_profile *p);

/* Removes location I (0-based) from sample S, shifting the rest down. */
void sp_fmt_sample_remove_location(sp_sample *s, size_t i);

/* -- text input ---------------------------------------------------------- */

/* Iterates over the lines of a text: each line without its '\n' and a
 * trailing '\r'.  Zero-initialise with text and end set. */
typedef struct {
	const char *next, *end; /* unread text */
	const char *line;       /* current line, borrowed from the text */
	size_t len;
	size_t lineno;          /* 1-based number of the current line */
	size_t offset;          /* byte offset of the current line */
	const char *base;       /* start of the text, for offsets */
} sp_fmt_lines;

void sp_fmt_lines_init(sp_fmt_lines *it, const char *text, size_t len);
bool sp_fmt_lines_next(sp_fmt_lines *it);

/* The line without leading and trailing blanks. */
void sp_fmt_trim(const char **s, size_t *len);
/* True when the line is blank or (after blanks) starts with '#'. */
bool sp_fmt_blank_or_comment(const char *s, size_t len);
bool sp_fmt_has_prefix(const char *s, size_t len, const char *prefix);
/* True when LINE contains the start of a memory-map section (spec §2.6). */
bool sp_fmt_is_maps_sentinel(const char *s, size_t len);

/* Appends every "0x[0-9a-f]+" token of [s, s+len) to *ADDRS (grown with
 * *CAP), pprof's hexNumberRE.  Returns false when one overflows 64 bits. */
bool sp_fmt_hex_addresses(const char *s, size_t len, uint64_t **addrs, size_t *n, size_t *cap);

/* Skips to the memory-map sentinel from the current line of IT (inclusive)
 * and parses every following line as the memory map of P, then attaches
 * the locations (spec §2.6).  NAME is used in errors. */
sp_error *sp_fmt_parse_trailing_maps(sp_profile *p, sp_fmt_lines *it, const char *name);

#endif
