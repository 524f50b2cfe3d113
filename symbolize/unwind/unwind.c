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
 * memo.c (reusing recorded unwinds), regs_x86_64.c (perf's registers).
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

/* The word at ADDR: from the stack copy, else from the file behind the
 * map holding it; false when neither has it. */
static bool read_word(sp_unwinder *u, uint64_t addr, uint64_t *result)
{
	uint64_t sp = u->regs[7];
	if (sp_unwind_in_stack(u, addr)) {
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
		sp_unwind_memo_clear(p);
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
