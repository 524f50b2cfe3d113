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

/* Bytes of recorded unwinds kept at most, over all processes (all are
 * dropped when full), and how many with the same pc and sp a sample tries. */
#define MEMO_BYTES (16u << 20)
#define MEMO_TRIES 8

/* Registers an unwind may depend on, as a mask of DWARF numbers 0..16. */
#define ALL_REGS 0x1ffffu
#define REG_BIT(r) (1u << (r))

/* A map reported as a module, with its own descriptor for memory reads. */
typedef struct {
	uint64_t start, limit, pgoff;
	int fd; /* -1: no file behind the map */
} umap;

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
	sp_module **mods;
	size_t n_mods, cap_mods;
	umap *maps;
	size_t n_maps, cap_maps;
	sp_u64map tried; /* capture map index + 1 -> 1 (reported or failed) */
} uproc;

struct sp_unwinder {
	sp_symbolizer *s;
	uproc *procs;
	size_t n_procs, cap_procs;
	sp_u64map proc_of; /* pid -> index + 1 */
	sp_unwind_report report;

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
	uint64_t *chain;
	size_t n_chain, cap_chain;
	size_t n_frames;

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

#endif
