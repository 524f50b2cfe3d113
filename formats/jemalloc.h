/* jemalloc.h — private pieces of the jemalloc heap profile reader
 * (formats/jemalloc.c), exposed for its table tests.  Not part of the
 * public formats.h API. */
#ifndef SYMPROF_FORMATS_JEMALLOC_H
#define SYMPROF_FORMATS_JEMALLOC_H

#include "profile/profile.h"

/* jeprof's AdjustSamples for heap_v2: an object of average size
 * BYTES/COUNT is sampled with probability 1 - exp(-(BYTES/COUNT)/PERIOD),
 * so COUNT and BYTES are each multiplied by the inverse of that
 * probability and truncated to integers.  PERIOD <= 1 (lg_prof_sample:0)
 * means every allocation was recorded: nothing changes.  So does a pair
 * with a zero count or zero bytes (no average to scale by; jeprof leaves
 * those alone too).  False when a result does not fit an int64. */
bool sp_jemalloc_unsample(int64_t count, int64_t bytes, int64_t period, int64_t *out_count,
			  int64_t *out_bytes);

/* True when PATH names jemalloc's shared library: its last component
 * starts "libjemalloc" and contains ".so" (libjemalloc.so.2,
 * libjemalloc_debug.so, ...). */
bool sp_jemalloc_is_allocator_path(const char *path);

/* Removes from every sample the leaf-most run of frames whose mapping is
 * jemalloc's shared library (sp_jemalloc_is_allocator_path): the
 * profiler's own backtrace and allocation frames, which lie mostly outside
 * any exported symbol and would otherwise be named after a neighbouring
 * one.  A sample whose every frame is in the allocator keeps its stack.
 * Locations that are no longer used stay in the profile.  Run it after the
 * mappings are attached and before symbolization.  Returns the number of
 * samples whose stack changed. */
size_t sp_jemalloc_drop_allocator_frames(sp_profile *p);

#endif
