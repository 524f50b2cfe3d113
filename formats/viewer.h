/* viewer.h — what the viewer formats (speedscope.c, firefox.c) share: a
 * profile's frames, each once, its samples' stacks root first with every
 * inline frame, and its samples per thread in time order (viewer.c).
 * Private to formats/. */
#ifndef SYMPROF_FORMATS_VIEWER_H
#define SYMPROF_FORMATS_VIEWER_H

#include "formats/formats.h"

typedef struct {
	size_t name;   /* into sp_viewer.strings */
	size_t file;   /* into sp_viewer.strings; 0: "" (unknown) */
	int64_t line;  /* the function's first line, 0 when unknown */
	char kind;     /* sp_frame_annotation's mark, 'u' for an address */
	uint64_t address; /* the location's address for an unresolved frame, else 0 */
} sp_vframe;

typedef struct {
	int64_t pid, tid; /* -1 when the samples carry none */
	size_t name;      /* strings index: the thread's name (comm), 0 if none */
	size_t *samples;  /* indices into the profile's samples, by time, then order */
	size_t n;
	uint64_t first_time, last_time; /* SP_TIME_LABEL values, when timed */
} sp_vthread;

typedef struct {
	const sp_profile *p;
	size_t col;
	sp_strtab strings; /* index 0 is "" */
	sp_vframe *frames;
	size_t n_frames, cap_frames;
	size_t *loc_off;   /* location i's frames: loc_frames[loc_off[i] .. loc_off[i+1]) */
	size_t *loc_frames; /* outermost first */
	sp_vthread *threads; /* by pid, then tid */
	size_t n_threads;
	bool timed;        /* every sample written carries a time */
	size_t *stack;     /* the last stack sp_viewer_stack made */
	size_t n_stack, cap_stack;
} sp_viewer;

/* The frames and threads of P, the samples with a positive value in column
 * COL (a difference's base samples, and zero values, are left out).
 * Errors: COL out of range (SP_E_USAGE), an invalid profile. */
sp_error *sp_viewer_new(const sp_profile *p, size_t col, sp_viewer **out);
void sp_viewer_free(sp_viewer *v);
/* Sample S's stack as frame indices, root first (borrowed until the next
 * call); *N gets its length. */
const size_t *sp_viewer_stack(sp_viewer *v, const sp_sample *s, size_t *n);
/* The earliest time of V's timed samples (UINT64_MAX without times). */
uint64_t sp_viewer_first_time(const sp_viewer *v);
/* The unit column COL is in, as speedscope names units ("nanoseconds",
 * "bytes", ...; "none" for counts and others) and the factor that takes a
 * value there (nanoseconds of microseconds: 1000). */
const char *sp_viewer_unit(const sp_profile *p, size_t col, double *factor);

#endif
