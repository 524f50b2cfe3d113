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

#endif
