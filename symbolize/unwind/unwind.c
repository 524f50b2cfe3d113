/* unwind.c — unwinding the user stack copies of a raw capture with
 * libdwfl (spec/PERF-DATA.md §8–9).
 *
 * One Dwfl per process, kept for the whole capture: its modules are the
 * files the session's finder gives for the process's maps (module.c opens
 * and reports them), reported at their run-time bases the first time a
 * frame lands in them, so a process pays for the modules its stacks use.
 * dwfl_attach_state can be called once per Dwfl, so its callbacks read
 * "the sample being unwound" from the unwinder: registers from the sample
 * (perf's x86-64 order mapped to DWARF numbers), memory from the stack
 * copy, else from the bytes of the file mapped at the address.  CFI comes
 * from the module's .eh_frame and from the .debug_frame of its separate
 * debug file, which libdwfl finds through module.c's search.
 *
 * Reusing unwinds.  libdwfl's cost is per frame (module look-up, the CFI
 * program run again, a malloc'ed state), and a profile's samples repeat
 * the same few stacks.  An unwind is a function of the registers it uses,
 * of the words it reads and of the process's modules, so each one is
 * recorded with: the registers present, the values of those its frames'
 * CFI rules can read (the CFA and every register rule of each frame's
 * FDE, in .eh_frame or else .debug_frame; rbp when a frame has neither and
 * libdwfl falls back to the frame-pointer chain), every word read (from
 * the stack copy, or not from it), every map looked up, and the process's
 * module generation.  A later sample of the process reuses the result only
 * when all of these are the same: equal registers, the same words at the
 * same stack addresses, the same maps at the same addresses and no module
 * reported since.  An unwind that reported a module, or met a signal
 * frame, is not recorded.
 */
#include "symbolize/dwarf/dwarf.h"
#include "symbolize/unwind/unwind.h"
#include "symbolize/internal.h"

#include "profile/capture.h"

#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Frames kept per sample at most (perf's default --max-stack is 127). */
#define MAX_FRAMES 512
/* Bytes of recorded unwinds kept at most, over all processes (all are
 * dropped when full), and how many with the same pc and sp a sample tries. */
#define MEMO_BYTES (16u << 20)
#define MEMO_TRIES 8
/* The stack copy bytes prefetched for the sample this many ahead. */
#define PREFETCH_AHEAD 4
#define PREFETCH_BYTES 256
/* Registers an unwind may depend on, as a mask of DWARF numbers 0..16. */
#define ALL_REGS 0x1ffffu
#define REG_BIT(r) (1u << (r))

/* perf's x86 register numbers (asm/perf_regs.h) of DWARF registers 0..16:
 * rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip. */
static const unsigned dwarf_to_perf[17] = {0,  3,  2,  1,  4,  5,  6,  7, 16,
					   17, 18, 19, 20, 21, 22, 23, 8};
enum { PERF_REG_SP = 7, PERF_REG_IP = 8 };

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

/* -- modules ------------------------------------------------------------------ */

/* Reports map M (index MI of the process's maps) into P's Dwfl: false when
 * its file cannot be found or used. */
static bool report_map(sp_unwinder *u, uproc *p, const sp_capture_map *m, size_t mi)
{
	uint64_t seen;
	if (sp_u64map_get(&p->tried, mi + 1, &seen))
		return seen == 2;
	sp_u64map_put(&p->tried, mi + 1, 1);
	p->gen++;
	const char *found;
	const sp_find_log *log;
	sp_error *e = sp_symbolizer_locate(u->s, m->path, m->build_id, &found, &log);
	sp_object *obj = NULL;
	if (!e)
		e = sp_symbolizer_object(u->s, found, NULL, &obj);
	uint64_t base = 0;
	const sp_elf_info *info = obj ? sp_object_info(obj) : NULL;
	if (!e)
		e = sp_mapping_base(info, m->start, m->limit, m->pgoff, m->start, &base);
	if (e) {
		sp_error_free(e);
		return false;
	}
	sp_module *mod = sp_module_new(found, sp_symbolizer_options(u->s), info,
				       sp_symbolizer_finder(u->s));
	Dwfl *dwfl = sp_dwfl_handle(p->dwfl);
	dwfl_report_begin_add(dwfl);
	e = sp_module_open(mod);
	if (!e)
		e = sp_module_report(mod, dwfl, base, true);
	dwfl_report_end(dwfl, NULL, NULL);
	SP_PUSH(p->mods, p->n_mods, p->cap_mods, mod);
	if (e) {
		sp_error_free(e);
		return false;
	}
	umap um = {m->start, m->limit, m->pgoff, sp_object_fd(found, NULL, &e)};
	sp_error_free(e);
	SP_PUSH(p->maps, p->n_maps, p->cap_maps, um);
	sp_u64map_put(&p->tried, mi + 1, 2);
	return true;
}

/* Makes sure the map holding ADDR at the current sample's time is a
 * module; remembers it as the last map met.  False when no map holds ADDR
 * or its file is unusable. */
static bool ensure_module(sp_unwinder *u, uint64_t addr)
{
	const sp_capture_map *m = sp_capture_map_at(u->c, u->cur->pid, addr, u->sample->time);
	u->last_map = m;
	sp_capture_process *pr = m ? sp_capture_process_for(u->c, u->cur->pid) : NULL;
	size_t mi = m ? (size_t)(m - pr->maps) : 0;
	if (u->recording) {
		ulookup l = {addr, m ? mi + 1 : 0};
		SP_PUSH(u->looks, u->n_looks, u->cap_looks, l);
	}
	return m && report_map(u, u->cur, m, mi);
}

/* -- libdwfl callbacks --------------------------------------------------------- */

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	sp_unwinder *u = arg;
	if (*thread_argp)
		return 0;
	*thread_argp = u;
	return (pid_t)u->sample->tid;
}

/* Whether the 8 bytes at ADDR are inside the current sample's stack copy. */
static bool in_stack(const sp_unwinder *u, uint64_t addr)
{
	uint64_t sp = u->regs[7];
	return addr >= sp && addr - sp <= u->stack_len && u->stack_len - (addr - sp) >= 8;
}

/* The word at ADDR: from the stack copy, else from the file behind the
 * map holding it; false when neither has it. */
static bool read_word(sp_unwinder *u, uint64_t addr, uint64_t *result)
{
	uint64_t sp = u->regs[7];
	if (in_stack(u, addr)) {
		memcpy(result, u->stack + (addr - sp), 8);
		return true;
	}
	for (size_t i = 0; i < u->cur->n_maps; i++) {
		const umap *m = &u->cur->maps[i];
		if (addr < m->start || addr >= m->limit || m->fd < 0)
			continue;
		return pread(m->fd, result, 8, (off_t)(addr - m->start + m->pgoff)) == 8;
	}
	if (addr >= sp)
		u->stack_short = true;
	return false;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	(void)dwfl;
	sp_unwinder *u = arg;
	uint64_t w = 0;
	bool ok = read_word(u, addr, &w);
	if (u->recording) {
		uread r = {addr, w, in_stack(u, addr)};
		SP_PUSH(u->reads, u->n_reads, u->cap_reads, r);
	}
	*result = w;
	return ok;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	sp_unwinder *u = arg;
	for (unsigned r = 0; r < 17; r++)
		if (u->have_reg[r] && !dwfl_thread_state_registers(thread, (int)r, 1, &u->regs[r]))
			return false;
	dwfl_thread_state_register_pc(thread, u->regs[16]);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* -- reusing unwinds ------------------------------------------------------------- */

/* The registers (mask of DWARF numbers 0..16) a DWARF expression of N
 * operations reads; every register for an operation not known to read
 * none. */
static uint32_t op_regs(const Dwarf_Op *ops, size_t n)
{
	uint32_t m = 0;
	for (size_t i = 0; i < n; i++) {
		uint8_t a = ops[i].atom;
		uint64_t r;
		if (a >= DW_OP_reg0 && a <= DW_OP_reg31)
			r = a - DW_OP_reg0;
		else if (a >= DW_OP_breg0 && a <= DW_OP_breg31)
			r = a - DW_OP_breg0;
		else if (a == DW_OP_regx || a == DW_OP_bregx)
			r = ops[i].number;
		else if (a == DW_OP_addr || (a >= DW_OP_deref && a <= DW_OP_lit31) ||
			 a == DW_OP_deref_size || a == DW_OP_nop || a == DW_OP_call_frame_cfa ||
			 a == DW_OP_stack_value)
			continue; /* constants, stack and arithmetic, memory, the CFA */
		else
			return ALL_REGS;
		if (r < 17) /* others are never set */
			m |= REG_BIT(r);
	}
	return m;
}

/* The registers libdwfl may read to unwind a frame from ADDR in DWFL: those
 * the CFA and the register rules of its FDE name (.eh_frame first, then
 * .debug_frame, as libdwfl looks), or rbp for the frame-pointer fallback
 * when neither has one.  Only asks what libdwfl asked when it unwound. */
static uint32_t frame_deps(Dwfl *dwfl, uint64_t addr)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
	Dwarf_Frame *f = NULL;
	Dwarf_Addr bias;
	if (mod) {
		Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &bias);
		if (!cfi || dwarf_cfi_addrframe(cfi, addr - bias, &f) != 0) {
			f = NULL;
			cfi = dwfl_module_dwarf_cfi(mod, &bias);
			if (cfi && dwarf_cfi_addrframe(cfi, addr - bias, &f) != 0)
				f = NULL;
		}
	}
	if (!f)
		return REG_BIT(6);
	Dwarf_Op *ops, mem[3];
	size_t n;
	uint32_t m = dwarf_frame_cfa(f, &ops, &n) == 0 ? op_regs(ops, n) : ALL_REGS;
	for (int r = 0; r < 17 && m != ALL_REGS; r++)
		m |= dwarf_frame_register(f, r, mem, &ops, &n) == 0 ? op_regs(ops, n) : ALL_REGS;
	free(f);
	return m;
}

/* A copy of N bytes at P (NULL when N is 0). */
static void *dup_bytes(const void *p, size_t n)
{
	if (!n)
		return NULL;
	void *d = sp_xmalloc(n);
	memcpy(d, p, n);
	return d;
}

static uint64_t memo_key(const sp_unwinder *u, uint32_t have)
{
	return sp_hash_combine(sp_hash_combine(u->regs[16], u->regs[7]), have);
}

static uint32_t have_mask(const sp_unwinder *u)
{
	uint32_t have = 0;
	for (unsigned r = 0; r < 17; r++)
		if (u->have_reg[r])
			have |= REG_BIT(r);
	return have;
}

/* Whether every address maps to the same map at the current sample's time
 * as at TIME, when the process had N_MAPS maps and N_EXEC exec()s: true
 * when it has no others now and both times come after all of them (each
 * map is valid from its time until an exec() after it). */
static bool same_maps(uproc *p, const sp_capture_process *pr, size_t n_maps, size_t n_exec,
		      uint64_t time, uint64_t now)
{
	if (pr->n_maps != n_maps || pr->n_exec != n_exec)
		return false;
	if (p->n_maps_seen != n_maps || p->n_exec_seen != n_exec) {
		p->latest = 0;
		for (size_t i = 0; i < n_maps; i++)
			if (pr->maps[i].time > p->latest)
				p->latest = pr->maps[i].time;
		for (size_t i = 0; i < n_exec; i++)
			if (pr->exec_times[i] > p->latest)
				p->latest = pr->exec_times[i];
		p->n_maps_seen = n_maps;
		p->n_exec_seen = n_exec;
	}
	return time >= p->latest && now >= p->latest;
}

/* Whether entry M holds the unwind of the current sample (see "Reusing
 * unwinds"). */
static bool memo_matches(sp_unwinder *u, uproc *p, const umemo *m, uint32_t have)
{
	if (m->gen != p->gen || m->have != have)
		return false;
	for (unsigned r = 0; r < 17; r++)
		if ((m->deps >> r & 1) && m->regs[r] != u->regs[r])
			return false;
	for (size_t i = 0; i < m->n_reads; i++) {
		const uread *rd = &m->reads[i];
		bool in = in_stack(u, rd->addr);
		if (in != rd->in_stack ||
		    (in && memcmp(u->stack + (rd->addr - u->regs[7]), &rd->value, 8)))
			return false;
	}
	const sp_capture_process *pr = sp_capture_process_for(u->c, p->pid);
	if (same_maps(p, pr, m->n_maps, m->n_exec, m->time, u->sample->time))
		return true;
	for (size_t i = 0; i < m->n_looks; i++) {
		const sp_capture_map *mp = sp_capture_map_at(u->c, p->pid, m->looks[i].addr,
							     u->sample->time);
		if ((mp ? (size_t)(mp - pr->maps) + 1 : 0) != m->looks[i].map)
			return false;
	}
	return true;
}

/* Replays a recorded unwind of the current sample when one matches: its
 * frames go after the chain's USER marker, *WHY is its reason to stop. */
static bool memo_replay(sp_unwinder *u, uproc *p, const char **why)
{
	uint32_t have = have_mask(u);
	uint64_t at;
	if (!sp_u64map_get(&p->memo_of, memo_key(u, have), &at))
		return false;
	for (int k = 0; at && k < MEMO_TRIES; k++, at = p->memo[at - 1].next) {
		const umemo *m = &p->memo[at - 1];
		if (!memo_matches(u, p, m, have))
			continue;
		for (size_t i = 0; i < m->n_chain; i++)
			SP_PUSH(u->chain, u->n_chain, u->cap_chain, m->chain[i]);
		const sp_capture_process *pr = sp_capture_process_for(u->c, p->pid);
		u->last_map = m->last_map ? &pr->maps[m->last_map - 1] : NULL;
		*why = m->why;
		u->report.n_reused++;
		return true;
	}
	return false;
}

static void memo_clear(uproc *p)
{
	for (size_t i = 0; i < p->n_memo; i++) {
		umemo *m = &p->memo[i];
		free(m->reads);
		free(m->looks);
		free(m->chain);
		free(m->why);
	}
	free(p->memo);
	p->memo = NULL;
	p->n_memo = p->cap_memo = 0;
	sp_u64map_free(&p->memo_of);
}

/* Keeps the unwind just run (the chain from USER_AT on, stopped for WHY)
 * for later samples of P. */
static void memo_store(sp_unwinder *u, uproc *p, size_t user_at, const char *why)
{
	uint32_t deps = REG_BIT(7) | REG_BIT(16);
	Dwfl *dwfl = sp_dwfl_handle(p->dwfl);
	for (size_t i = 0; i < u->n_pcs && deps != ALL_REGS; i++)
		deps |= frame_deps(dwfl, u->pcs[i]);
	size_t bytes = sizeof(umemo) + u->n_reads * sizeof(*u->reads) +
		       u->n_looks * sizeof(*u->looks) + (u->n_chain - user_at) * sizeof(*u->chain) +
		       (why ? strlen(why) + 1 : 0);
	if (u->memo_bytes + bytes > MEMO_BYTES) {
		for (size_t i = 0; i < u->n_procs; i++)
			memo_clear(&u->procs[i]);
		u->memo_bytes = 0;
	}
	u->memo_bytes += bytes;
	uint32_t have = have_mask(u);
	umemo m = {.key = memo_key(u, have), .gen = p->gen, .have = have, .deps = deps};
	memcpy(m.regs, u->regs, sizeof(m.regs));
	m.n_reads = u->n_reads;
	m.reads = dup_bytes(u->reads, u->n_reads * sizeof(*u->reads));
	m.n_looks = u->n_looks;
	m.looks = dup_bytes(u->looks, u->n_looks * sizeof(*u->looks));
	m.n_chain = u->n_chain - user_at;
	m.chain = dup_bytes(u->chain + user_at, m.n_chain * sizeof(*u->chain));
	const sp_capture_process *pr = sp_capture_process_for(u->c, p->pid);
	if (u->last_map)
		m.last_map = (size_t)(u->last_map - pr->maps) + 1;
	m.n_maps = pr->n_maps;
	m.n_exec = pr->n_exec;
	m.time = u->sample->time;
	m.why = why ? sp_xstrdup(why) : NULL;
	uint64_t at;
	if (sp_u64map_get(&p->memo_of, m.key, &at))
		m.next = at;
	SP_PUSH(p->memo, p->n_memo, p->cap_memo, m);
	sp_u64map_put(&p->memo_of, m.key, p->n_memo);
}

/* -- one sample ------------------------------------------------------------------ */

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	sp_unwinder *u = arg;
	Dwarf_Addr pc;
	bool activation;
	bool initial = !u->n_cb++;
	if (!dwfl_frame_pc(state, &pc, &activation)) {
		u->rec_ok = false;
		return DWARF_CB_ABORT;
	}
	/* libdwfl unwinds this frame from pc when it is the first one or a
	 * signal frame (activation), else from pc − 1 */
	if (!initial && activation)
		u->rec_ok = false;
	SP_PUSH(u->pcs, u->n_pcs, u->cap_pcs, initial ? pc : pc - 1);
	if (pc == 0 || pc >= SP_CAPTURE_CONTEXT_MAX)
		return DWARF_CB_ABORT;
	/* a caller's exact pc starts a context of its own, so that the
	 * capture's −1 rule leaves it alone */
	if (u->n_frames && activation)
		SP_PUSH(u->chain, u->n_chain, u->cap_chain, SP_CAPTURE_CONTEXT_USER);
	SP_PUSH(u->chain, u->n_chain, u->cap_chain, (uint64_t)pc);
	u->n_frames++;
	if (u->n_frames >= MAX_FRAMES) {
		u->limited = true;
		return DWARF_CB_ABORT;
	}
	/* the module the next step needs: the one holding the call */
	ensure_module(u, activation ? pc : pc - 1);
	return DWARF_CB_OK;
}

static void count_stop(sp_unwinder *u, const char *reason)
{
	sp_unwind_report *r = &u->report;
	const char *path = u->last_map ? u->last_map->path : "";
	for (size_t i = 0; i < r->n_stops; i++) {
		sp_unwind_stop *s = &r->stops[i];
		if (s->pid == u->cur->pid && !strcmp(s->path, path) && !strcmp(s->reason, reason)) {
			s->count++;
			return;
		}
	}
	sp_unwind_stop s = {u->cur->pid, sp_xstrdup(path), sp_xstrdup(reason), 1};
	SP_PUSH(r->stops, r->n_stops, r->cap_stops, s);
}

static uproc *proc_for(sp_unwinder *u, int64_t pid)
{
	uint64_t i;
	if (sp_u64map_get(&u->proc_of, (uint64_t)pid, &i))
		return &u->procs[i - 1];
	uproc p = {.pid = pid};
	SP_PUSH(u->procs, u->n_procs, u->cap_procs, p);
	sp_u64map_put(&u->proc_of, (uint64_t)pid, u->n_procs);
	return &u->procs[u->n_procs - 1];
}

/* Loads the sample's registers into U (DWARF order); false without SP and IP. */
static bool load_regs(sp_unwinder *u, const sp_capture_sample *s)
{
	uint64_t mask = s->event < u->c->n_events ? u->c->events[s->event].sample_regs_user : 0;
	const uint8_t *regs = (const uint8_t *)u->c->bytes.data + s->regs.off;
	size_t n = s->regs.len / 8;
	if (!u->pos_known || u->pos_mask != mask) { /* one event's mask, as a rule */
		for (unsigned r = 0; r < 17; r++) {
			unsigned bit = dwarf_to_perf[r];
			u->reg_pos[r] = mask >> bit & 1
						? (size_t)__builtin_popcountll(mask & ((1ULL << bit) - 1))
						: SIZE_MAX;
		}
		u->pos_mask = mask;
		u->pos_known = true;
	}
	for (unsigned r = 0; r < 17; r++) {
		size_t pos = u->reg_pos[r];
		u->have_reg[r] = pos < n;
		u->regs[r] = 0;
		if (u->have_reg[r])
			memcpy(&u->regs[r], regs + pos * 8, 8);
	}
	return u->have_reg[7] && u->have_reg[16];
}

/* Unwinds sample I of C; returns the reason it stopped early, or NULL. */
static const char *unwind_one(sp_unwinder *u, size_t i)
{
	const sp_capture_sample *s = &u->c->samples[i];
	u->sample = s;
	u->cur = proc_for(u, s->pid);
	u->n_chain = 0;
	u->n_frames = 0;
	u->stack_short = u->limited = false;
	u->last_map = NULL;
	/* the kernel part of the recorded chain stays in front */
	const uint64_t *chain = u->c->chain + s->chain_off;
	for (size_t k = 0; k < s->n_chain && chain[k] != SP_CAPTURE_CONTEXT_USER; k++)
		SP_PUSH(u->chain, u->n_chain, u->cap_chain, chain[k]);
	SP_PUSH(u->chain, u->n_chain, u->cap_chain, SP_CAPTURE_CONTEXT_USER);
	size_t user_at = u->n_chain;
	if (s->regs_abi != 2) {
		SP_PUSH(u->chain, u->n_chain, u->cap_chain, s->ip);
		return "not a 64-bit process";
	}
	if (!load_regs(u, s)) {
		SP_PUSH(u->chain, u->n_chain, u->cap_chain, s->ip);
		return "no SP or IP among the registers";
	}
	u->stack = sp_capture_stack(u->c, s);
	u->stack_len = s->stack.len;

	uproc *p = u->cur;
	const char *why = NULL;
	if (p->attached && memo_replay(u, p, &why))
		return why;
	/* record this unwind; libdwfl's error is its own, not an earlier one's */
	u->recording = u->rec_ok = true;
	u->n_reads = u->n_looks = u->n_pcs = u->n_cb = 0;
	uint64_t gen = p->gen;
	dwfl_errno();
	sp_error *e = NULL;
	if (!p->dwfl && (e = sp_dwfl_new(sp_symbolizer_options(u->s), "unwinding", &p->dwfl)))
		why = "cannot start libdwfl";
	sp_error_free(e);
	bool have_module = !why && ensure_module(u, u->regs[16]);
	if (!why && !p->attached && have_module) {
		p->attached = dwfl_attach_state(sp_dwfl_handle(p->dwfl), NULL, (pid_t)p->pid,
						&thread_callbacks, u);
		if (!p->attached)
			why = dwfl_errmsg(-1);
	}
	if (!why && !have_module)
		why = u->last_map ? "binary not found" : "pc outside any mapping";
	bool ran = !why;
	if (!why) {
		int rc = dwfl_getthread_frames(sp_dwfl_handle(p->dwfl), (pid_t)s->tid, frame_cb, u);
		if (u->limited)
			why = "more than 512 frames";
		else if (rc != 0 && !u->n_frames)
			why = dwfl_errmsg(-1);
		else if (rc != 0) {
			/* the last frame's map (frame_cb looked it up) */
			uint64_t pc = u->chain[u->n_chain - 1];
			why = u->stack_short	 ? "stack copy too short" :
			      !u->last_map	 ? "return address outside any mapping" :
			      !ensure_module(u, pc - 1) ? "binary not found" :
							  dwfl_errmsg(-1);
		}
	}
	if (u->n_chain == user_at) /* not even the first frame */
		SP_PUSH(u->chain, u->n_chain, u->cap_chain, s->ip);
	u->recording = false;
	if (ran && u->rec_ok && gen == p->gen)
		memo_store(u, p, user_at, why);
	return why;
}

/* -- the unwinder ------------------------------------------------------------------ */

/* Asks for the first bytes of sample S's stack copy, which a reused unwind
 * compares a few words of: left in a mapped perf.data file (or copied long
 * before), they are in no cache by now. */
static void prefetch_stack(const sp_capture *c, const sp_capture_sample *s)
{
	if (!s->stack.len)
		return;
	const uint8_t *p = sp_capture_stack(c, s);
	for (size_t at = 0; at < s->stack.len && at < PREFETCH_BYTES; at += 64)
		__builtin_prefetch(p + at);
}

sp_unwinder *sp_unwinder_new(sp_symbolizer *s)
{
	sp_unwinder *u = sp_xcalloc(1, sizeof(*u));
	u->s = s;
	return u;
}

void sp_unwinder_run(sp_unwinder *u, sp_capture *c)
{
	u->c = c;
	for (size_t i = 0; i < c->n_samples; i++) {
		const sp_capture_sample *s = &c->samples[i];
		if (i + PREFETCH_AHEAD < c->n_samples)
			prefetch_stack(c, &c->samples[i + PREFETCH_AHEAD]);
		if (!s->regs_abi || !s->stack.len || s->pid <= 0)
			continue;
		u->report.n_samples++;
		const char *why = unwind_one(u, i);
		if (why)
			count_stop(u, why);
		else
			u->report.n_complete++;
		sp_capture_set_chain(c, i, u->chain, u->n_chain);
	}
	u->c = NULL;
}

const sp_unwind_report *sp_unwinder_report(const sp_unwinder *u)
{
	return &u->report;
}

void sp_unwind_report_clear(sp_unwind_report *r)
{
	for (size_t i = 0; i < r->n_stops; i++) {
		free(r->stops[i].path);
		free(r->stops[i].reason);
	}
	free(r->stops);
	memset(r, 0, sizeof(*r));
}

void sp_unwinder_free(sp_unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->n_procs; i++) {
		uproc *p = &u->procs[i];
		sp_dwfl_free(p->dwfl); /* before the modules it points to */
		for (size_t k = 0; k < p->n_mods; k++)
			sp_module_free(p->mods[k]);
		free(p->mods);
		for (size_t k = 0; k < p->n_maps; k++)
			if (p->maps[k].fd >= 0)
				close(p->maps[k].fd);
		free(p->maps);
		sp_u64map_free(&p->tried);
		memo_clear(p);
	}
	free(u->procs);
	sp_u64map_free(&u->proc_of);
	sp_unwind_report_clear(&u->report);
	free(u->chain);
	free(u->reads);
	free(u->looks);
	free(u->pcs);
	free(u);
}
