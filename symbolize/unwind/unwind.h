/* unwind.h — the face of symbolize/unwind/: stack copies of a raw capture
 * (perf record --call-graph dwarf) unwound into callchains with libdwfl.
 */
#ifndef SYMPROF_SYMBOLIZE_UNWIND_H
#define SYMPROF_SYMBOLIZE_UNWIND_H

#include "symbolize/types.h"

/* ------------------------------------------------------------------------ */
/* Unwinding stack copies of a raw capture (unwind.c).                      */

struct sp_capture;

/* Where and why unwinding of some samples stopped before the end of the
 * stack: one row per process, mapping of the last frame found, and
 * reason. */
typedef struct {
	int64_t pid;
	char *path;   /* recorded path of the last frame's mapping; "" for none */
	char *reason;
	size_t count;
	bool error;   /* cut short by an error (a file there that could not be
			 read: descriptors, memory, damage), not by what the
			 recording or the files on this machine hold */
} sp_unwind_stop;

typedef struct {
	size_t n_samples;  /* samples that carried user registers and a stack copy */
	size_t n_complete; /* of those, unwound to the end of the stack */
	size_t n_reused;   /* of those, given an earlier sample's recorded unwind */
	size_t n_errors;   /* of those, cut short by an error (the stops marked so) */
	sp_unwind_stop *stops;
	size_t n_stops, cap_stops;
} sp_unwind_report;

void sp_unwind_report_clear(sp_unwind_report *r);

/* An unwinder for the samples of one capture: one Dwfl per process, its
 * modules the files the session S finds (borrowed until
 * sp_unwinder_free) for the capture's maps, reported at their run-time
 * bases as unwinding meets them. */
typedef struct sp_unwinder sp_unwinder;
sp_unwinder *sp_unwinder_new(sp_symbolizer *s);
/* Lets U unwind the samples of different processes on JOBS threads (the
 * caller's included; 0 or 1: the caller's alone) when the recording, of
 * INPUT_BYTES (0: unknown), is large enough to pay for the threads'
 * sessions: each process stays with one thread for the whole capture, and
 * what comes out (chains, report) is the same whatever JOBS.  Before the
 * first sp_unwinder_run. */
void sp_unwinder_set_jobs(sp_unwinder *u, int jobs, uint64_t input_bytes);
/* Says that C's samples so far end a perf round, when the caller gathers
 * several rounds before sp_unwinder_run: each round's samples are then
 * unwound as a call of their own would (the modules their pcs need
 * reported together, before them). */
void sp_unwinder_round_end(sp_unwinder *u, const struct sp_capture *c);
/* Unwinds every sample of C that carries x86-64 user registers and a
 * stack copy: its callchain becomes its kernel part, then the USER marker
 * and the unwound frames.  Callers' return addresses are kept as they are
 * (the capture's −1 rule applies to them); a caller frame that is itself an
 * exact pc (a signal frame) gets a USER marker of its own before it.  A
 * sample whose unwinding stops early keeps the frames found.  Callable once
 * per batch of samples (a perf round). */
void sp_unwinder_run(sp_unwinder *u, struct sp_capture *c);
/* The counts so far (borrowed until sp_unwinder_free). */
const sp_unwind_report *sp_unwinder_report(const sp_unwinder *u);
void sp_unwinder_free(sp_unwinder *u);

#endif
