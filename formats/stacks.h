/* stacks.h — small helpers shared by the address-stack readers (CPU, raw,
 * folded): summing samples whose stacks are identical.  Private to the
 * formats layer. */
#ifndef SYMPROF_FORMATS_STACKS_H
#define SYMPROF_FORMATS_STACKS_H

#include "profile/profile.h"

/* Merges samples of P that have the same location ids in the same order
 * and no labels: the first one keeps its place and receives the sum of
 * the values; the others are freed.  Sample order is otherwise kept.  A
 * sum that does not fit an int64 is refused (profile.h): the error names
 * NAME and "UNIT WHERE[i]" of the sample i that made it overflow (WHERE
 * holds one line number or byte offset per sample, as read). */
sp_error *sp_fmt_sum_identical_samples(sp_profile *p, const char *name, const char *unit,
				       const uint64_t *where);

/* Removes location I (0-based) from sample S, shifting the rest down. */
void sp_fmt_sample_remove_location(sp_sample *s, size_t i);

#endif
