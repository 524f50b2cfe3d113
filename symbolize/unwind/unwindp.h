/* unwindp.h — private to the files of symbolize/unwind/ (its face is
 * unwind.h): the unwinder's state, a process's Dwfl and recorded unwinds,
 * and what the files call of each other.
 */
#ifndef SYMPROF_SYMBOLIZE_UNWINDP_H
#define SYMPROF_SYMBOLIZE_UNWINDP_H

#include "symbolize/dwarf/dwarf.h"
#include "symbolize/internal.h"
#include "symbolize/unwind/unwind.h"

#include "profile/capture.h"

/* Frames kept per sample at most (perf's default --max-stack is 127). */
#define MAX_FRAMES 512

/* Bytes of recorded unwinds kept at most: a process's are dropped when
 * they alone would pass it, every process's at the end of a round (a
 * perf round) that leaves more; and how many with the same pc and sp a
 * sample tries. */
#define MEMO_BYTES (16u << 20)
#define MEMO_TRIES 8

/* Registers an unwind may depend on, as a mask of DWARF numbers 0..16. */
#define ALL_REGS 0x1ffffu
#define REG_BIT(r) (1u << (r))

/* A file the unwinder has used, in any process: mapped once (module.c's
 * shared image) however many processes and mappings hold it, or why it
 * cannot be used. */
typedef struct {
	sp_module *m;
	char *why;  /* NULL: usable; else why not */
	bool error; /* WHY is an error (a file that could not be read), not a
		       file that is not there or not the recorded one */
} ufile;

/* One file at one base in a process's Dwfl: a module, reported while DM
 * is set (the LRU may take it out and report it again). */
typedef struct {
	size_t file;     /* index into the unwinder's files */
	uint64_t base;
	Dwfl_Module *dm; /* NULL: not in the Dwfl now */
	uint64_t used;   /* the unwinder's clock when last met */
} umod;

/* What a capture map resolved to: a module, or why none. */
typedef struct {
	size_t mod;  /* index into the process's mods + 1; 0: none */
	char *why;   /* without a module: why not */
	bool error;  /* WHY is an error (as ufile's) */
} umapped;

/* A word libdwfl asked for while unwinding, and what it got. */
typedef struct {
	uint64_t addr, value;
	bool in_stack; /* from the stack copy; else from a file, or none */
} uread;

/* An address looked up in the capture's maps, and the map found. */
typedef struct {
	uint64_t addr;
	size_t map; /* index into the process's maps + 1; 0: none */
} ulookup;

/* A recorded unwind (see "Reusing unwinds" above). */
typedef struct {
	uint64_t key;   /* hash of pc, sp and the registers present */
	size_t next;    /* the previous entry with this key + 1; 0: none */
	uint64_t gen;   /* the process's module generation */
	uint32_t have;  /* registers present */
	uint32_t deps;  /* registers whose values were compared */
	uint64_t regs[17];
	uread *reads;
	size_t n_reads;
	ulookup *looks;
	size_t n_looks;
	uint64_t *chain; /* the user part of the callchain */
	size_t n_chain;
	size_t last_map; /* index + 1 of the last map met; 0: none */
	char *why;       /* NULL: unwound to the end of the stack */
	/* the process's maps and exec()s then, and the sample's time */
	size_t n_maps, n_exec;
	uint64_t time;
} umemo;

typedef struct {
	int64_t pid;
	sp_dwfl *dwfl;
	bool attached;
	uint64_t gen; /* maps tried so far (each may have reported a module) */
	/* the capture's maps and exec()s of the process counted when LATEST,
	 * the time of the last of them, was found */
	size_t n_maps_seen, n_exec_seen;
	uint64_t latest;
	umemo *memo;
	size_t n_memo, cap_memo;
	sp_u64map memo_of; /* key -> index + 1 of the newest entry with it */
	size_t memo_bytes; /* held by its recorded unwinds */
	umod *mods;
	size_t n_mods, cap_mods;
	size_t n_live;     /* mods in the Dwfl now */
	sp_u64map mod_of;  /* hash of (file, base) -> index into mods + 1 */
	umapped *mapped;
	size_t n_mapped, cap_mapped;
	sp_u64map map_of;  /* capture map index + 1 -> index into mapped + 1 */
	uint64_t used;     /* the unwinder's clock when last met */
	uint64_t born;     /* ... when first met */
} uproc;

/* A sample a unit unwinds in a round: its index in the capture, and its
 * tick of the unwinder's clock (the samples unwound before it, itself
 * included, over the whole capture and every unit). */
typedef struct {
	size_t i;
	uint64_t tick;
} uown;

/* The perf rounds among a unit's samples: those of round R end at
 * own[seg[R].end]; CLOCK is the unwinder's clock before the round. */
typedef struct {
	size_t end;
	uint64_t clock;
} useg;

/* A unit's answer for sample I, kept for the front (parallel.c): N entries
 * at OFF of the unit's ans_chain. */
typedef struct {
	size_t i, off, n;
} uanswer;

struct sp_unwinder {
	sp_symbolizer *s;
	uproc *procs;
	size_t n_procs, cap_procs;
	sp_u64map proc_of; /* pid -> index + 1 */
	sp_unwind_report report;

	/* the files met (see modules.c) */
	ufile *files;
	size_t n_files, cap_files;
	sp_strtab file_of;  /* paths found, in the order of files */
	uint64_t clock;     /* one tick per sample, for the LRUs */
	size_t debug_fds;   /* separate debug files the Dwfls hold open */
	size_t max_fds;     /* ... before whole processes' Dwfls are ended */
	size_t max_live;    /* modules in one Dwfl at most */
	uint64_t stats_evicted; /* modules taken out by the LRU (for tests) */

	/* the sample being unwound */
	sp_capture *c;
	const sp_capture_sample *sample;
	uproc *cur;
	const uint8_t *stack;
	size_t stack_len;
	uint64_t regs[17];
	bool have_reg[17];
	uint64_t pos_mask; /* the registers' positions in a sample under this mask */
	size_t reg_pos[17]; /* SIZE_MAX: not recorded */
	bool pos_known;
	bool stack_short;  /* a read above the copy failed */
	bool limited;      /* MAX_FRAMES reached */
	const sp_capture_map *last_map;
	const umapped *last_mapped; /* what LAST_MAP resolved to, NULL before */
	uint64_t *chain;
	size_t n_chain, cap_chain;
	size_t n_frames;

	/* units (parallel.c): the unwinder given to the caller is unit 0, the
	 * front; others unwind the samples of processes of their own on threads
	 * of their own, each with a session of its own */
	sp_unwinder *front;     /* the front (itself for the front) */
	struct upar *par;       /* the front's units and threads; NULL while alone */
	sp_unwinder *const *units; /* the front's: every unit, itself first (NULL: */
	size_t n_units;            /* none made: itself alone) */
	bool trim;              /* trim (sp_unwind_trim) before each sample */
	uown *own;              /* the samples of this call it unwinds */
	size_t n_own, cap_own;
	useg *seg;              /* ... by perf round */
	size_t n_seg, cap_seg;
	bool keep;              /* keep answers (ans) instead of setting chains */
	uanswer *ans;
	size_t n_ans, cap_ans;
	uint64_t *ans_chain;
	size_t n_ans_chain, cap_ans_chain;
	uint64_t *stop_first;   /* per report.stops: the tick of its first sample */
	size_t cap_stop_first;

	/* recording the unwind being run (see "Reusing unwinds") */
	size_t memo_bytes; /* held by the processes' recorded unwinds */
	bool recording;
	bool rec_ok;    /* false: not to be reused (a signal frame, no pc) */
	size_t n_cb;    /* frame callbacks so far */
	uread *reads;
	size_t n_reads, cap_reads;
	ulookup *looks;
	size_t n_looks, cap_looks;
	uint64_t *pcs;  /* the address each frame was unwound from */
	size_t n_pcs, cap_pcs;
};

/* Whether the 8 bytes at ADDR are inside the current sample's stack copy. */
static inline bool sp_unwind_in_stack(const sp_unwinder *u, uint64_t addr)
{
	uint64_t sp = u->regs[7];
	return addr >= sp && addr - sp <= u->stack_len && u->stack_len - (addr - sp) >= 8;
}

/* Replays a recorded unwind of the current sample when one matches: its
 * frames go after the chain's USER marker, *WHY is its reason to stop. */
bool sp_unwind_memo_replay(sp_unwinder *u, uproc *p, const char **why);

void sp_unwind_memo_clear(uproc *p);

/* Keeps the unwind just run (the chain from USER_AT on, stopped for WHY)
 * for later samples of P. */
void sp_unwind_memo_store(sp_unwinder *u, uproc *p, size_t user_at, const char *why);

/* Loads the sample's registers into U (DWARF order); false without SP and IP. */
bool sp_unwind_load_regs(sp_unwinder *u, const sp_capture_sample *s);

/* -- modules.c ------------------------------------------------------------ */

/* Sets the LRUs' bounds from the descriptor limit. */
void sp_unwind_modules_init(sp_unwinder *u);
/* Makes map MI of P (M) a module of P's Dwfl, reporting it when it is not
 * one now: what it resolved to (borrowed until sp_unwinder_free). */
const umapped *sp_unwind_map_module(sp_unwinder *u, uproc *p, const sp_capture_map *m,
				    size_t mi);
/* What map MI of P resolved to, NULL when it was never asked for. */
const umapped *sp_unwind_map_known(const uproc *p, size_t mi);
/* The ELF of module MOD of P's file (the shared image; borrowed until
 * sp_unwinder_free). */
Elf *sp_unwind_module_elf(const sp_unwinder *u, const uproc *p, size_t mod);
/* The 8 bytes at file offset OFF of the file of module MOD of P: false
 * beyond its end. */
bool sp_unwind_file_word(const sp_unwinder *u, const uproc *p, size_t mod, uint64_t off,
			 uint64_t *out);
/* Reports, in one round per process, the modules of the maps holding the
 * pcs of the samples of C that U owns from u->own[FROM] to u->own[TO]
 * (those of a perf round), as far as each Dwfl has room. */
void sp_unwind_modules_batch(sp_unwinder *u, sp_capture *c, size_t from, size_t to);
/* Before a sample of P: ends other processes' Dwfls, in every unit of the
 * front F, least recently used first, while the separate debug files they
 * hold pass their bound. */
void sp_unwind_trim(sp_unwinder *f, uproc *p);
/* The separate debug files the Dwfls of every unit of F hold. */
size_t sp_unwind_debug_fds(const sp_unwinder *f);
/* Ends P's Dwfl and forgets its modules (P stays known). */
void sp_unwind_proc_end(sp_unwinder *u, uproc *p);
/* P's Dwfl, made when it has none: NULL with *WHY when libdwfl fails. */
sp_dwfl *sp_unwind_proc_dwfl(sp_unwinder *u, uproc *p, const char **why);
/* The process PID, added when new (first met at TICK). */
uproc *sp_unwind_proc_for(sp_unwinder *u, int64_t pid, uint64_t tick);
/* Frees what modules.c keeps for P, its Dwfl first. */
void sp_unwind_proc_free(sp_unwinder *u, uproc *p);
void sp_unwind_modules_free(sp_unwinder *u);

/* -- unwind.c: a unit (parallel.c deals the samples out) ------------------ */

/* Unwinds the samples U owns in C (u->own, with their ticks), a perf
 * round (u->seg) at a time: its modules, then its samples; each one's
 * chain set in C, or kept in u->ans when u->keep.  The same in steps:
 * begin, for each round the modules then each sample K of u->own in turn,
 * then u->c = NULL. */
void sp_unwind_unit_run(sp_unwinder *u, sp_capture *c);
void sp_unwind_unit_begin(sp_unwinder *u, sp_capture *c);
void sp_unwind_unit_sample(sp_unwinder *u, size_t k);
/* A unit of front F with session S (F itself when F is NULL). */
sp_unwinder *sp_unwind_unit_new(sp_unwinder *f, sp_symbolizer *s);
/* Frees what a unit holds, not the units of a front. */
void sp_unwind_unit_free(sp_unwinder *u);

#endif
