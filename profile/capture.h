/* capture.h — a raw capture: what a sampling profiler recorded, before it
 * becomes a profile (DESIGN.md §7 "Raw captures before the model").
 *
 * A capture holds the events that were sampled, the processes with their
 * memory maps (each map valid from the time it was recorded), thread names
 * with their times, and raw samples: pid, tid, time, event, period, the
 * callchain as recorded (context markers included), and — for samples that
 * must be unwound later — the user registers and the copy of the user stack
 * as byte ranges into the capture's byte store, not interpreted here.
 *
 * Readers fill a capture (formats/perf/); sp_capture_profiler turns the
 * samples of a capture whose callchains are complete (frame pointers, or a
 * leaf only) into a profile.  Samples can be handed over in batches
 * (sp_capture_profiler_add, then sp_capture_clear_samples) so that a long
 * recording needs memory for its distinct stacks, not for every sample.
 *
 * Ownership: the capture owns every string and array reachable from it.
 * Pointers returned by lookups are borrowed until the next call that adds
 * to the capture.
 */
#ifndef SYMPROF_PROFILE_CAPTURE_H
#define SYMPROF_PROFILE_CAPTURE_H

#include "profile/profile.h"

/* The process key of kernel maps (perf records them with pid -1). */
#define SP_CAPTURE_KERNEL_PID (-1)

/* Callchain context markers (values of perf's enum perf_callchain_context,
 * as u64): every entry at or above SP_CAPTURE_CONTEXT_MAX is a marker that
 * switches the address space of the entries after it. */
#define SP_CAPTURE_CONTEXT_HV ((uint64_t)-32)
#define SP_CAPTURE_CONTEXT_KERNEL ((uint64_t)-128)
#define SP_CAPTURE_CONTEXT_USER ((uint64_t)-512)
#define SP_CAPTURE_CONTEXT_GUEST ((uint64_t)-2048)
#define SP_CAPTURE_CONTEXT_GUEST_KERNEL ((uint64_t)-2176)
#define SP_CAPTURE_CONTEXT_GUEST_USER ((uint64_t)-2560)
#define SP_CAPTURE_CONTEXT_MAX ((uint64_t)-4095)

/* A byte range [off, off + len) of sp_capture.bytes. */
typedef struct {
	size_t off, len;
} sp_capture_range;

typedef struct {
	char *name;   /* "cpu-clock", "cycles", ... */
	char *unit;   /* "nanoseconds" for cpu-clock and task-clock, else "count" */
	uint32_t type;
	uint64_t config;
	uint64_t sample_type;
	uint64_t sample_regs_user;
	uint64_t period; /* fixed period, 0 in frequency mode */
	uint64_t freq;   /* samples per second in frequency mode, else 0 */
	int32_t clockid; /* the clock of its times (attr.use_clockid: 1 is
			    CLOCK_MONOTONIC), -1 for perf's own clock */
} sp_capture_event;

typedef struct {
	uint64_t start, limit; /* [start, limit) run-time addresses */
	uint64_t pgoff;        /* file offset of start */
	uint64_t time;         /* valid from this time on */
	char *path;            /* as recorded ("" for anonymous) */
	char *build_id;        /* lowercase hex, NULL when not recorded */
	bool exec;             /* executable (only those symbolize) */
} sp_capture_map;

typedef struct {
	int64_t pid; /* SP_CAPTURE_KERNEL_PID for the kernel */
	sp_capture_map *maps;
	size_t n_maps, cap_maps;
	uint64_t *exec_times; /* times of exec(): older maps end there */
	size_t n_exec, cap_exec;
	/* private: the executable maps' indices sorted by start, rebuilt when
	 * maps were added, and the longest of them */
	size_t *by_start;
	size_t n_by_start;
	bool by_start_dirty;
	uint64_t max_len;
	/* private: the times of every map and exec, sorted, when there were
	 * TIMES_OF maps and execs (the profiler's epochs) */
	uint64_t *times;
	size_t times_of;
	/* private: for a map recorded again (push_map), the newest map of
	 * each start, limit and offset (hash -> index + 1); whether maps came
	 * out of time order, and the latest time so far */
	sp_u64map newest;
	bool unordered;
	uint64_t latest;
} sp_capture_process;

typedef struct {
	int64_t pid, tid;
	uint64_t time; /* the name holds from this time on */
	char *comm;
} sp_capture_comm;

typedef struct {
	int64_t pid, tid;
	uint64_t time;
	size_t event;     /* index into sp_capture.events */
	uint64_t ip;
	uint64_t period;
	uint8_t cpumode;  /* PERF_RECORD_MISC_CPUMODE: 1 kernel, 2 user, ... */
	int32_t cpu;      /* the CPU it ran on, -1 when not recorded */
	size_t chain_off; /* callchain: chain[chain_off .. chain_off + n_chain) */
	size_t n_chain;
	bool has_chain;   /* the event records callchains (else leaf only) */
	uint64_t regs_abi;        /* 0 when no user registers were recorded */
	sp_capture_range regs;    /* u64 registers in ascending mask bit order */
	sp_capture_range stack;   /* the valid bytes of the user stack copy */
	const uint8_t *stack_ref; /* NULL: the stack copy is in bytes at stack.off;
				     else its stack.len bytes are here, borrowed
				     from the reader (sp_capture_borrow_stack) */
} sp_capture_sample;

typedef struct {
	int64_t pid;
	char *path;
	char *build_id; /* lowercase hex */
} sp_capture_build_id;

typedef struct sp_capture {
	sp_capture_event *events;
	size_t n_events, cap_events;
	sp_capture_process *procs;
	size_t n_procs, cap_procs;
	sp_u64map proc_index; /* pid (as u64) -> index + 1 */
	sp_capture_comm *comms; /* ordered by (tid, time) */
	size_t n_comms, cap_comms;
	sp_capture_sample *samples;
	size_t n_samples, cap_samples;
	uint64_t *chain; /* callchain entries of every sample */
	size_t n_chain, cap_chain;
	sp_buf bytes;    /* registers and stack copies */
	sp_capture_build_id *build_ids; /* from the file's build-id table */
	size_t n_build_ids, cap_build_ids;

	uint64_t total_samples; /* samples read, including those handed over */
	uint64_t lost;          /* samples the kernel reported as dropped */
	uint64_t cut_chains;    /* samples whose user chain left every map
				   (capture_profile.c: cut at "[unknown]") */
	bool byte_swapped;      /* recorded on a machine of the other byte order */
	char *hostname, *osrelease, *arch; /* NULL when not recorded */
	char **cmdline;
	size_t n_cmdline;
	/* perf record -z: the level and ratio perf gives (0 when not said), the
	 * bytes of compressed data read and of records they gave */
	uint32_t zstd_level, zstd_ratio;
	uint64_t zstd_in, zstd_out;

	/* Optional, set by whoever drives the reader before the samples become
	 * a profile: for code that changed under an address over time (JIT
	 * code freed and recompiled at the same address), which code a user
	 * address of process PID held at TIME, as a version that becomes the
	 * location's code_version (0: the address's name does not depend on
	 * time).  Asked only about samples with a time. */
	uint64_t (*code_version)(void *arg, int64_t pid, uint64_t addr, uint64_t time);
	void *code_version_arg;
	/* Set (by a round hook, before the first samples become the profile's)
	 * to keep every sample's time: each sample with a time is then a
	 * sample of its own, labelled SP_TIME_LABEL (nanoseconds), for the
	 * viewer formats' timelines.  Off: identical stacks are summed. */
	bool sample_times;
} sp_capture;

sp_capture *sp_capture_new(void);
void sp_capture_free(sp_capture *c);

/* Adds an event; strings are copied.  Returns its index. */
size_t sp_capture_add_event(sp_capture *c, const sp_capture_event *ev);
/* Find-or-add the process PID. */
sp_capture_process *sp_capture_process_for(sp_capture *c, int64_t pid);
/* Adds a map to process PID; *M's strings are copied.  A map equal to one
 * still valid at its time is not added again. */
void sp_capture_add_map(sp_capture *c, int64_t pid, const sp_capture_map *m);
/* Process CHILD starts at TIME with a copy of PARENT's maps valid then
 * (fork of a new process; threads share their process's maps). */
void sp_capture_fork(sp_capture *c, int64_t parent, int64_t child, uint64_t time);
/* Process PID exec()ed at TIME: its maps recorded before TIME end there. */
void sp_capture_exec(sp_capture *c, int64_t pid, uint64_t time);
void sp_capture_add_comm(sp_capture *c, int64_t pid, int64_t tid, uint64_t time,
			 const char *comm);
void sp_capture_add_build_id(sp_capture *c, int64_t pid, const char *path, const char *build_id);
/* Appends a sample; CHAIN (N entries) and the REGS / STACK bytes are
 * copied (either may be NULL with length 0).  The copy's ranges and
 * chain_off are set by this call. */
void sp_capture_add_sample(sp_capture *c, const sp_capture_sample *s, const uint64_t *chain,
			   size_t n, const void *regs, size_t regs_len, const void *stack,
			   size_t stack_len);
/* Makes the last sample added refer to the LEN bytes at STACK as its user
 * stack copy instead of holding a copy: a reader that keeps the input
 * mapped saves copying the bytes no unwinder reads.  The caller keeps
 * them valid and unchanged until the samples are cleared or
 * sp_capture_own_stacks is called. */
void sp_capture_borrow_stack(sp_capture *c, const void *stack, size_t len);
/* Copies every borrowed stack of the samples held into the capture's
 * bytes (before the memory they were borrowed from goes away). */
void sp_capture_own_stacks(sp_capture *c);
/* The bytes of sample S's stack copy (stack.len of them; borrowed until
 * the samples are cleared or more are added). */
static inline const uint8_t *sp_capture_stack(const sp_capture *c, const sp_capture_sample *s)
{
	return s->stack_ref ? s->stack_ref : (const uint8_t *)c->bytes.data + s->stack.off;
}
/* Replaces the callchain of sample I with CHAIN (N entries, copied; may
 * alias nothing of C's): an unwinder's answer for a sample that carried
 * registers and a stack copy.  The old entries stay until the samples are
 * cleared. */
void sp_capture_set_chain(sp_capture *c, size_t i, const uint64_t *chain, size_t n);
/* Drops the samples (and their chains and bytes), keeping everything else. */
void sp_capture_clear_samples(sp_capture *c);

/* The executable map of process PID holding ADDR at TIME: among the maps
 * recorded at or before TIME and not ended by an exec() at or before TIME,
 * the latest one.  NULL when none.  Borrowed. */
const sp_capture_map *sp_capture_map_at(sp_capture *c, int64_t pid, uint64_t addr,
					uint64_t time);
/* Builds what map look-ups use for every process now, so that
 * sp_capture_map_at, sp_capture_map_index_at and sp_capture_process_for of
 * a process that has maps only read C until more is added to it: threads
 * may then look up at once. */
void sp_capture_index_maps(sp_capture *c);
/* The index in PR->maps of the map sp_capture_map_at gives (SIZE_MAX:
 * none). */
size_t sp_capture_map_index_at(sp_capture_process *pr, uint64_t addr, uint64_t time);
/* The name of thread TID at TIME ("" when unknown).  Borrowed. */
const char *sp_capture_comm_at(const sp_capture *c, int64_t tid, uint64_t time);

/* -- capture -> profile (capture_profile.c) ----------------------------------
 * For samples whose callchain is complete (frame pointers, or the leaf
 * only): for each event two sample types, its samples (count) and its
 * periods (in its unit): "samples" and EVENT for one event, "samples:EVENT"
 * and EVENT for several (never summed), the first event's periods the
 * default; labels pid, tid and comm;
 * one mapping per map used, never shared between processes; context
 * markers switch address spaces and are never frames; the sample IP and
 * the first address after each marker are kept as they are, every later
 * entry is a return address and becomes address - 1 (spec/FORMATS.md §2.7).
 * Kernel addresses go to the kernel's maps, or to one "[kernel.kallsyms]"
 * mapping when none holds them.  A user address gets the code version
 * c->code_version gives (when set), so one address holding different code
 * at different times becomes different locations.  Identical stacks with identical labels
 * are summed as they are added. */
typedef struct sp_capture_profiler sp_capture_profiler;
/* The label of a sample's time in nanoseconds (sp_capture.sample_times;
 * the name Datadog's profilers give it in pprof files, so theirs are read
 * with their times too). */
#define SP_TIME_LABEL "end_timestamp_ns"

/* The events of C must all be known (their columns are fixed here). */
sp_capture_profiler *sp_capture_profiler_new(const sp_capture *c);
/* Adds every sample of C (call sp_capture_clear_samples afterwards to
 * bound memory). */
void sp_capture_profiler_add(sp_capture_profiler *b, sp_capture *c);
/* The profile (consumes B).  Comments name the recording's host, kernel
 * release, command line and dropped samples when known. */
sp_profile *sp_capture_profiler_finish(sp_capture_profiler *b, const sp_capture *c);
void sp_capture_profiler_free(sp_capture_profiler *b);

#endif
