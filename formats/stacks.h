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

/* The same, as the records are read.  Zero-initialise with NAME and UNIT
 * set; each record goes through sp_stack_sums_add instead of
 * sp_profile_add_sample; then sp_stack_sums_finish, once, returns the
 * error of the first sum that did not fit, as sp_fmt_sum_identical_samples
 * would have (a reader that finds its input broken says so first: that
 * error would have come before the sums), or NULL. */
typedef struct {
	const char *name, *unit;
	sp_idxset seen;
	sp_error *overflow;
} sp_stack_sums;
/* A record of VALUES (one per sample type) over the stack LOCS[0..N_LOCS)
 * and no labels, read at WHERE (a line number or byte offset): a new
 * sample of P, or added to the earlier one with this stack. */
void sp_stack_sums_add(sp_stack_sums *ss, sp_profile *p, const int64_t *values,
		       const uint64_t *locs, size_t n_locs, uint64_t where);
sp_error *sp_stack_sums_finish(sp_stack_sums *ss);

/* Removes location I (0-based) from sample S, shifting the rest down. */
void sp_fmt_sample_remove_location(sp_sample *s, size_t i);

#endif
