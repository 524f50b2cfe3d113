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
 * The parts: unwind.c (the Dwfl per process, its callbacks, one sample),
 * memo.c (reusing recorded unwinds), modules.c (the modules of a Dwfl),
 * parallel.c (processes unwound on several threads), regs_x86_64.c (perf's
 * registers).
 */
#include "symbolize/unwind/unwindp.h"

#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The stack copy bytes prefetched for the sample this many ahead. */
#define PREFETCH_AHEAD 4

#define PREFETCH_BYTES 256

/* -- modules ------------------------------------------------------------------ */

/* Makes sure the map holding ADDR at the current sample's time is a
 * module (modules.c); remembers it as the last map met, and what it
 * resolved to.  False when no map holds ADDR or its file is unusable. */
static bool ensure_module(sp_unwinder *u, uint64_t addr)
{
	const sp_capture_map *m = sp_capture_map_at(u->c, u->cur->pid, addr, u->sample->time);
	u->last_map = m;
	u->last_mapped = NULL;
	sp_capture_process *pr = m ? sp_capture_process_for(u->c, u->cur->pid) : NULL;
	size_t mi = m ? (size_t)(m - pr->maps) : 0;
	if (u->recording) {
		ulookup l = {addr, m ? mi + 1 : 0};
		SP_PUSH(u->looks, u->n_looks, u->cap_looks, l);
	}
	if (m)
		u->last_mapped = sp_unwind_map_module(u, u->cur, m, mi);
	return u->last_mapped && u->last_mapped->mod && u->cur->mods[u->last_mapped->mod - 1].dm;
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

/* The word at ADDR: from the stack copy, else from the file behind the
 * map holding it; false when neither has it. */
static bool read_word(sp_unwinder *u, uint64_t addr, uint64_t *result)
{
	uint64_t sp = u->regs[7];
	if (sp_unwind_in_stack(u, addr)) {
		memcpy(result, u->stack + (addr - sp), 8);
		return true;
	}
	/* a map whose file unwinding has used: that file's bytes */
	const sp_capture_map *m = sp_capture_map_at(u->c, u->cur->pid, addr, u->sample->time);
	const sp_capture_process *pr = m ? sp_capture_process_for(u->c, u->cur->pid) : NULL;
	const umapped *k = m ? sp_unwind_map_known(u->cur, (size_t)(m - pr->maps)) : NULL;
	if (k && k->mod)
		return sp_unwind_file_word(u, u->cur, k->mod - 1, addr - m->start + m->pgoff, result);
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
		uread r = {addr, w, sp_unwind_in_stack(u, addr)};
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

static void count_stop(sp_unwinder *u, const char *reason, bool error)
{
	sp_unwind_report *r = &u->report;
	const char *path = u->last_map ? u->last_map->path : "";
	r->n_errors += error;
	for (size_t i = 0; i < r->n_stops; i++) {
		sp_unwind_stop *s = &r->stops[i];
		if (s->pid == u->cur->pid && s->error == error && !strcmp(s->path, path) &&
		    !strcmp(s->reason, reason)) {
			s->count++;
			return;
		}
	}
	sp_unwind_stop s = {u->cur->pid, sp_xstrdup(path), sp_xstrdup(reason), 1, error};
	SP_PUSH(r->stops, r->n_stops, r->cap_stops, s);
	sp_grow(&u->stop_first, &u->cap_stop_first, r->n_stops, sizeof(*u->stop_first));
	u->stop_first[r->n_stops - 1] = u->clock;
}

/* Why the map met last gives no module ("binary not found", or the
 * error): *ERROR says whether it is an error. */
static const char *map_failure(const sp_unwinder *u, bool *error)
{
	const umapped *k = u->last_mapped;
	*error = k && !k->mod && k->error;
	if (k && !k->mod)
		return k->why;
	return k ? "the module could not be reported" : "binary not found";
}

/* Unwinds sample I of C at TICK of the clock; returns the reason it
 * stopped early, or NULL (*ERROR: the reason is an error, as a file that
 * could not be read). */
static const char *unwind_one(sp_unwinder *u, size_t i, uint64_t tick, bool *error)
{
	const sp_capture_sample *s = &u->c->samples[i];
	u->sample = s;
	u->cur = sp_unwind_proc_for(u, s->pid, tick);
	u->cur->used = u->clock = tick;
	if (u->trim)
		sp_unwind_trim(u->front, u->cur);
	u->n_chain = 0;
	u->n_frames = 0;
	u->stack_short = u->limited = false;
	u->last_map = NULL;
	u->last_mapped = NULL;
	*error = false;
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
	if (!sp_unwind_load_regs(u, s)) {
		SP_PUSH(u->chain, u->n_chain, u->cap_chain, s->ip);
		return "no SP or IP among the registers";
	}
	u->stack = sp_capture_stack(u->c, s);
	u->stack_len = s->stack.len;

	uproc *p = u->cur;
	const char *why = NULL;
	if (p->attached && sp_unwind_memo_replay(u, p, &why))
		return why;
	/* record this unwind; libdwfl's error is its own, not an earlier one's */
	u->recording = u->rec_ok = true;
	u->n_reads = u->n_looks = u->n_pcs = u->n_cb = 0;
	uint64_t gen = p->gen;
	dwfl_errno();
	if (!sp_unwind_proc_dwfl(u, p, &why))
		*error = true;
	bool have_module = !why && ensure_module(u, u->regs[16]);
	if (!why && !p->attached && have_module) {
		/* given an ELF (the leaf's file), libdwfl opens a backend of the
		 * process's own; without one it borrows the first module's, which
		 * goes when the LRU takes that module out */
		Elf *elf = sp_unwind_module_elf(u, p, u->last_mapped->mod - 1);
		p->attached = dwfl_attach_state(sp_dwfl_handle(p->dwfl), elf, (pid_t)p->pid,
						&thread_callbacks, u);
		if (!p->attached)
			why = dwfl_errmsg(-1);
	}
	if (!why && !have_module)
		why = u->last_map ? map_failure(u, error) : "pc outside any mapping";
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
			      !ensure_module(u, pc - 1) ? map_failure(u, error) :
							  dwfl_errmsg(-1);
		}
	}
	if (u->n_chain == user_at) /* not even the first frame */
		SP_PUSH(u->chain, u->n_chain, u->cap_chain, s->ip);
	u->recording = false;
	if (ran && u->rec_ok && gen == p->gen)
		sp_unwind_memo_store(u, p, user_at, why);
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

sp_unwinder *sp_unwind_unit_new(sp_unwinder *f, sp_symbolizer *s)
{
	sp_unwinder *u = sp_xcalloc(1, sizeof(*u));
	u->s = s;
	u->front = f ? f : u;
	sp_unwind_modules_init(u);
	return u;
}

void sp_unwind_unit_begin(sp_unwinder *u, sp_capture *c)
{
	u->c = c;
	u->n_ans = u->n_ans_chain = 0;
}

void sp_unwind_unit_sample(sp_unwinder *u, size_t k)
{
	sp_capture *c = u->c;
	size_t i = u->own[k].i;
	if (k + PREFETCH_AHEAD < u->n_own)
		prefetch_stack(c, &c->samples[u->own[k + PREFETCH_AHEAD].i]);
	u->report.n_samples++;
	bool error;
	const char *why = unwind_one(u, i, u->own[k].tick, &error);
	if (why)
		count_stop(u, why, error);
	else
		u->report.n_complete++;
	if (!u->keep) {
		sp_capture_set_chain(c, i, u->chain, u->n_chain);
		return;
	}
	uanswer a = {i, u->n_ans_chain, u->n_chain};
	SP_PUSH(u->ans, u->n_ans, u->cap_ans, a);
	sp_grow(&u->ans_chain, &u->cap_ans_chain, u->n_ans_chain + u->n_chain,
		sizeof(*u->ans_chain));
	memcpy(u->ans_chain + u->n_ans_chain, u->chain, u->n_chain * sizeof(*u->chain));
	u->n_ans_chain += u->n_chain;
}

void sp_unwind_unit_run(sp_unwinder *u, sp_capture *c)
{
	sp_unwind_unit_begin(u, c);
	for (size_t r = 0, k = 0; r < u->n_seg; r++) {
		u->clock = u->seg[r].clock;
		sp_unwind_modules_batch(u, c, k, u->seg[r].end);
		for (; k < u->seg[r].end; k++)
			sp_unwind_unit_sample(u, k);
	}
	u->c = NULL;
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

void sp_unwind_unit_free(sp_unwinder *u)
{
	for (size_t i = 0; i < u->n_procs; i++) {
		uproc *p = &u->procs[i];
		sp_unwind_proc_free(u, p); /* its Dwfl before the files it shares */
		sp_unwind_memo_clear(p);
	}
	sp_unwind_modules_free(u);
	free(u->procs);
	sp_u64map_free(&u->proc_of);
	sp_unwind_report_clear(&u->report);
	free(u->stop_first);
	free(u->own);
	free(u->seg);
	free(u->ans);
	free(u->ans_chain);
	free(u->chain);
	free(u->reads);
	free(u->looks);
	free(u->pcs);
	free(u);
}
