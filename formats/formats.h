/* formats.h — format detection, one reader and one writer per format.
 *
 * Readers are pure: bytes in, sp_profile out.  Each answers in one of three
 * ways:
 *   - NULL and *out set: the input was this format and parsed;
 *   - an error whose root code is SP_E_UNRECOGNIZED: "not mine" (the caller
 *     tries the next reader);
 *   - any other error: "mine but broken", naming NAME, the line or byte
 *     offset, and what was expected.
 * Readers never symbolize and never touch the file system.  Every count
 * read from input is checked against the bytes left before allocating.
 *
 * Writers write to an sp_sink and never open files.
 */
#ifndef SYMPROF_FORMATS_H
#define SYMPROF_FORMATS_H

#include "profile/capture.h"
#include "profile/profile.h"

#include <stdio.h>

typedef enum {
	SP_FMT_UNKNOWN = 0,
	SP_FMT_PPROF,      /* profile.proto, gzip or not */
	SP_FMT_HEAP,       /* gperftools heap / growth / fragmentation text */
	SP_FMT_CPU,        /* gperftools CPU profile (binary) */
	SP_FMT_CONTENTION, /* --- contentionz / mutex / contention */
	SP_FMT_THREAD,     /* --- threadz */
	SP_FMT_GOCOUNT,    /* goroutine / threadcreate count profiles */
	SP_FMT_ADDRSTACKS,        /* symprof raw address stacks */
	SP_FMT_FOLDED,     /* folded stacks "a;b;c 12" */
	SP_FMT_JEMALLOC,   /* jemalloc heap_v2 dump (prof.dump, prof_final, ...) */
	SP_FMT_PERF,       /* perf.data (perf record), file or pipe mode */
	SP_FMT_OTLP,       /* OpenTelemetry profiles: protobuf or JSON, gzip, zstd */
} sp_input_format;

const char *sp_input_format_name(sp_input_format f);

typedef sp_error *(*sp_reader_fn)(const char *name, const uint8_t *data, size_t len,
				  sp_profile **out);

/* Detects and parses: gunzip when the gzip magic is present, then the
 * protobuf reader, then the legacy readers in pprof's order.  Runs
 * sp_profile_check on the result.  *FMT (may be NULL) gets the format. */
sp_error *sp_read_profile(const char *name, const uint8_t *data, size_t len, sp_profile **out,
			  sp_input_format *fmt);
sp_error *sp_read_profile_file(const char *path, sp_profile **out, sp_input_format *fmt);
/* How one input is read.  Zero-initialise; NULL means the defaults. */
typedef struct {
	/* Threads the reading of one input may use, the caller's included (0
	 * or 1: the caller's alone).  A heap profile file uses them all: each
	 * turns chunks of its lines into records, the caller's makes the
	 * profile of them in input order.  The profile, and every error, is
	 * the same whatever the number. */
	int jobs;
} sp_read_options;

/* The same with RO's threads (RO may be NULL).  A perf.data file is read
 * round by round into its profile, nothing done to its samples in between
 * (a caller that unwinds them pulls the rounds itself: sp_perf_open). */
sp_error *sp_read_profile_file_with(const char *path, sp_profile **out, sp_input_format *fmt,
				    const sp_read_options *ro);

/* Individual readers (see each .c file for an example of its input). */
sp_error *sp_pprof_read(const char *name, const uint8_t *data, size_t len, sp_profile **out);
sp_error *sp_heap_read(const char *name, const uint8_t *data, size_t len, sp_profile **out);
sp_error *sp_cpu_read(const char *name, const uint8_t *data, size_t len, sp_profile **out);
sp_error *sp_contention_read(const char *name, const uint8_t *data, size_t len,
			     sp_profile **out);
sp_error *sp_thread_read(const char *name, const uint8_t *data, size_t len, sp_profile **out);
sp_error *sp_gocount_read(const char *name, const uint8_t *data, size_t len, sp_profile **out);
sp_error *sp_addrstacks_read(const char *name, const uint8_t *data, size_t len, sp_profile **out);
sp_error *sp_folded_read(const char *name, const uint8_t *data, size_t len, sp_profile **out);
/* The heap and raw readers also read a file a piece at a time from F
 * (borrowed; from its current position), so that its size does not count
 * in memory: what they make of it does (the raw reader sums identical
 * stacks as it reads them; a heap profile's records stay samples of their
 * own, as pprof keeps them).  A read error is an SP_E_IO error naming
 * NAME. */
sp_error *sp_heap_read_file(const char *name, FILE *f, sp_profile **out);
/* sp_heap_read_file with RO's threads (NULL: one). */
sp_error *sp_heap_read_file_with(const char *name, FILE *f, const sp_read_options *ro,
				 sp_profile **out);
sp_error *sp_addrstacks_read_file(const char *name, FILE *f, sp_profile **out);
sp_error *sp_jemalloc_read(const char *name, const uint8_t *data, size_t len, sp_profile **out);
sp_error *sp_perf_read(const char *name, const uint8_t *data, size_t len, sp_profile **out);
/* OpenTelemetry profiles (otlp.c): ProfilesData or ExportProfilesServiceRequest,
 * one message or a stream of length-prefixed ones, or OTLP/JSON lines; raw,
 * gzip or zstd.  Every message, resource, scope and profile of the input
 * goes into one profile, one column per sample type, with its
 * OpenTelemetry extras (profile.h). */
sp_error *sp_otlp_read(const char *name, const uint8_t *data, size_t len, sp_profile **out);

/* -- perf.data (formats/perf/), pulled a round at a time ---------------------
 *
 *   sp_perf_reader *r;
 *   sp_error *e = sp_perf_open(path, &r);      // r NULL: not perf.data
 *   sp_capture *c;
 *   while (r && !e && !(e = sp_perf_next_round(r, &c)) && c) {
 *           ...                                 // e.g. unwind c's samples
 *           sp_perf_round_to_profile(r);
 *   }
 *   sp_profile *p = r && !e ? sp_perf_profile(r) : NULL;
 *   sp_perf_close(r);
 *
 * A round is what perf wrote between two FINISHED_ROUND records (one flush
 * of its ring buffers): its samples, and before them the maps, threads and
 * events they need.  The reader reads the next round only when asked, and
 * calls nothing of its caller's.  After an error, only sp_perf_close. */
typedef struct sp_perf_reader sp_perf_reader;

/* True when DATA starts with perf.data's magic, in either byte order. */
bool sp_perf_is_perf_data(const uint8_t *data, size_t len);
/* Opens PATH and, when it is perf.data, reads its header (and in file mode
 * its attrs and feature sections) into a reader (*OUT; PATH borrowed until
 * sp_perf_close).  A regular file is mapped (its pages dropped as rounds
 * are done; read with seeks when it cannot be), a pipe (`perf record -o
 * -`) read in one pass; only one record at a time is held in memory.
 * *OUT NULL and no error when PATH cannot be opened or is not perf.data
 * (reading it as another format says why); an error naming PATH, the
 * offset and what was expected when it is perf.data but broken. */
sp_error *sp_perf_open(const char *path, sp_perf_reader **out);
/* The same from a stream F (borrowed, not closed): HEAD (may be NULL)
 * holds the N_HEAD bytes already read from F, which is positioned after
 * them (a pipe cannot go back); without HEAD, F is at the start. */
sp_error *sp_perf_open_stream(const char *path, FILE *f, const uint8_t *head, size_t n_head,
			      sp_perf_reader **out);
/* The same over DATA (LEN bytes, borrowed until sp_perf_close); "not
 * mine" (SP_E_UNRECOGNIZED) when it is not perf.data. */
sp_error *sp_perf_open_memory(const char *name, const uint8_t *data, size_t len,
			      sp_perf_reader **out);
/* Reads the records up to the end of the next round that has samples (or
 * of the data).  *ROUND is the reader's capture (borrowed until
 * sp_perf_close): events, processes and maps, thread names, build ids and
 * the header's host facts read so far, and the samples of this round (and
 * of earlier ones the caller left there).  The caller may replace their
 * callchains (sp_capture_set_chain), set the capture's code_version hook,
 * clear them or leave them; stack copies borrowed from a mapped file stay
 * valid until the next call.  *ROUND NULL when no round is left. */
sp_error *sp_perf_next_round(sp_perf_reader *r, sp_capture **round);
/* Turns the samples held in the capture into the profile's, and clears
 * them (sp_capture_profiler). */
void sp_perf_round_to_profile(sp_perf_reader *r);
/* After the last round, when the file is not as perf record leaves it
 * when it finishes (killed, or cut short), what was read of it: a warning
 * for the user (caller frees); NULL for a whole recording. */
char *sp_perf_warning(const sp_perf_reader *r);
/* The profile of the rounds turned so far, the samples still held first
 * (caller frees; not checked: sp_profile_check).  Once, after the last
 * round. */
sp_profile *sp_perf_profile(sp_perf_reader *r);
/* Every round into the profile, as they come (*OUT, caller frees). */
sp_error *sp_perf_read_rounds(sp_perf_reader *r, sp_profile **out);
/* The capture, the samples left in it holding copies of their stacks
 * (caller frees with sp_capture_free); the reader keeps none.  Then only
 * sp_perf_close. */
sp_capture *sp_perf_take_capture(sp_perf_reader *r);
/* Frees R (NULL: nothing), unmaps its file, closes what it opened. */
void sp_perf_close(sp_perf_reader *r);

/* -- writers ---------------------------------------------------------------- */

/* Serializes P as profile.proto; gzip-compressed when GZIP. */
sp_error *sp_pprof_write(const sp_profile *p, bool gzip, sp_sink *out);

typedef enum {
	SP_OTLP_PROTO = 0, /* a ProfilesData message */
	SP_OTLP_PROTO_GZ,  /* the same, gzip-compressed */
	SP_OTLP_JSON,      /* OTLP/JSON: one object, on one line */
} sp_otlp_encoding;

/* Writes P as one OTLP ProfilesData: from its OpenTelemetry extras when
 * they describe it (what was read from OTLP, symbolized, comes out as it
 * came in, with the lines and functions added), else made from the pprof
 * model as the semantic conventions' pprof mapping says (one profile per
 * sample type, labels as attributes with their units, timestamp and
 * trace labels as timestamps and links). */
sp_error *sp_otlp_write(const sp_profile *p, sp_otlp_encoding enc, sp_sink *out);

typedef struct {
	size_t sample_index; /* column to print; see sp_profile_sample_index */
	bool annotate;       /* append _[k] / _[j] / _[i] to kernel, JIT, inlined frames */
	bool two_sides;      /* "stack before after" (difffolded's form) */
	int jobs;            /* > 1: a large profile's samples are matched to their
				stacks on two threads (the same output) */
} sp_folded_options;

/* Folded stacks: root first, ';'-joined, inline frames expanded, one line
 * per distinct stack, sorted, summed (signed: a difference prints
 * negative values); zero-valued stacks omitted.  With two_sides, the
 * profile is a difference whose base samples are labelled (sp_profile_diff
 * with keep_base): each line is "stack before after", before the base's
 * value (its samples negated back), after the rest; stacks whose two sides
 * are both zero are omitted. */
sp_error *sp_folded_write(const sp_profile *p, const sp_folded_options *opts, sp_sink *out);

/* -- viewer formats (speedscope.c, firefox.c) --------------------------------
 * Files other profilers' viewers open: stacks root first with every inline
 * frame (names as the folded output gives them), one profile or thread per
 * process and thread (the samples' pid/tid labels, when there are any),
 * each sample at its time when it carries one (the SP_TIME_LABEL label:
 * perf.data read for these formats), else the samples in the profile's
 * order, each weighted by its value. */
typedef struct {
	size_t sample_index; /* the value column */
	const char *name;    /* the input, named in the file (NULL: "profile") */
} sp_viewer_options;
/* speedscope's file format (https://www.speedscope.app/file-format-schema.json):
 * one "sampled" profile per thread (or one for the whole profile). */
sp_error *sp_speedscope_write(const sp_profile *p, const sp_viewer_options *o, sp_sink *out);
/* The Firefox Profiler's processed profile format (meta.preprocessedProfileVersion
 * in firefox.c): one thread per thread of the input, presymbolized. */
sp_error *sp_firefox_write(const sp_profile *p, const sp_viewer_options *o, sp_sink *out);

#endif
