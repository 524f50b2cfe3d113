/* memo.c — reusing unwinds (see unwind.c for the unwinder).
 *
 * libdwfl's cost is per frame (module look-up, the CFI
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
#include "symbolize/unwind/unwindp.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

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
		bool in = sp_unwind_in_stack(u, rd->addr);
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
bool sp_unwind_memo_replay(sp_unwinder *u, uproc *p, const char **why)
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

void sp_unwind_memo_clear(uproc *p)
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
	p->memo_bytes = 0;
	sp_u64map_free(&p->memo_of);
}

/* Keeps the unwind just run (the chain from USER_AT on, stopped for WHY)
 * for later samples of P. */
void sp_unwind_memo_store(sp_unwinder *u, uproc *p, size_t user_at, const char *why)
{
	uint32_t deps = REG_BIT(7) | REG_BIT(16);
	Dwfl *dwfl = sp_dwfl_handle(p->dwfl);
	for (size_t i = 0; i < u->n_pcs && deps != ALL_REGS; i++)
		deps |= frame_deps(dwfl, u->pcs[i]);
	size_t bytes = sizeof(umemo) + u->n_reads * sizeof(*u->reads) +
		       u->n_looks * sizeof(*u->looks) + (u->n_chain - user_at) * sizeof(*u->chain) +
		       (why ? strlen(why) + 1 : 0);
	/* the process's own alone (the whole budget at the end of a round:
	 * parallel.c), so that what is dropped when does not depend on the
	 * units the processes were given to */
	if (p->memo_bytes + bytes > MEMO_BYTES) {
		u->memo_bytes -= p->memo_bytes;
		sp_unwind_memo_clear(p);
	}
	u->memo_bytes += bytes;
	p->memo_bytes += bytes;
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
