/* capture.c — the raw capture: processes and their maps over time, thread
 * names, build ids and raw samples (see capture.h).  Turning a capture
 * into a profile is capture_profile.c's. */
#include "profile/capture.h"

#include <stdlib.h>
#include <string.h>

sp_capture *sp_capture_new(void)
{
	return sp_xcalloc(1, sizeof(sp_capture));
}

static void free_process(sp_capture_process *pr)
{
	for (size_t i = 0; i < pr->n_maps; i++) {
		free(pr->maps[i].path);
		free(pr->maps[i].build_id);
	}
	free(pr->maps);
	free(pr->exec_times);
	free(pr->by_start);
	free(pr->times);
	sp_u64map_free(&pr->newest);
}

void sp_capture_free(sp_capture *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_events; i++) {
		free(c->events[i].name);
		free(c->events[i].unit);
	}
	free(c->events);
	for (size_t i = 0; i < c->n_procs; i++)
		free_process(&c->procs[i]);
	free(c->procs);
	sp_u64map_free(&c->proc_index);
	for (size_t i = 0; i < c->n_comms; i++)
		free(c->comms[i].comm);
	free(c->comms);
	free(c->samples);
	free(c->chain);
	sp_buf_free(&c->bytes);
	for (size_t i = 0; i < c->n_build_ids; i++) {
		free(c->build_ids[i].path);
		free(c->build_ids[i].build_id);
	}
	free(c->build_ids);
	free(c->hostname);
	free(c->osrelease);
	free(c->arch);
	for (size_t i = 0; i < c->n_cmdline; i++)
		free(c->cmdline[i]);
	free(c->cmdline);
	free(c);
}

size_t sp_capture_add_event(sp_capture *c, const sp_capture_event *ev)
{
	sp_capture_event e = *ev;
	e.name = sp_xstrdup(ev->name ? ev->name : "");
	e.unit = sp_xstrdup(ev->unit ? ev->unit : "count");
	SP_PUSH(c->events, c->n_events, c->cap_events, e);
	return c->n_events - 1;
}

sp_capture_process *sp_capture_process_for(sp_capture *c, int64_t pid)
{
	uint64_t i;
	if (sp_u64map_get(&c->proc_index, (uint64_t)pid, &i))
		return &c->procs[i - 1];
	sp_capture_process pr = {.pid = pid};
	SP_PUSH(c->procs, c->n_procs, c->cap_procs, pr);
	sp_u64map_put(&c->proc_index, (uint64_t)pid, c->n_procs);
	return &c->procs[c->n_procs - 1];
}

static const sp_capture_process *process_get(const sp_capture *c, int64_t pid)
{
	uint64_t i;
	return sp_u64map_get(&c->proc_index, (uint64_t)pid, &i) ? &c->procs[i - 1] : NULL;
}

/* Whether an exec() of PR in (since, time] ended a map recorded at SINCE. */
static bool ended_by_exec(const sp_capture_process *pr, uint64_t since, uint64_t time)
{
	for (size_t i = 0; i < pr->n_exec; i++)
		if (pr->exec_times[i] > since && pr->exec_times[i] <= time)
			return true;
	return false;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool same_map(const sp_capture_process *pr, const sp_capture_map *o,
		     const sp_capture_map *m)
{
	return o->start == m->start && o->limit == m->limit && o->pgoff == m->pgoff &&
	       o->exec == m->exec && o->time <= m->time && same_str(o->path, m->path) &&
	       same_str(o->build_id, m->build_id) && !ended_by_exec(pr, o->time, m->time);
}

static void push_map(sp_capture_process *pr, const sp_capture_map *m)
{
	/* a map recorded again (perf re-synthesizes, a library is reloaded
	 * at the same place) adds nothing while the first is still valid and
	 * nothing recorded since covers any of its range.  The newest map of
	 * the same place is found by hash; only when it differs otherwise are
	 * all of them compared.  With maps in time order, those recorded since
	 * come after it: a process's N maps cost N, not N². */
	uint64_t key = sp_hash_combine(sp_hash_combine(m->start, m->limit), m->pgoff), at;
	const sp_capture_map *same = NULL;
	size_t from = 0;
	if (sp_u64map_get(&pr->newest, key, &at)) {
		if (same_map(pr, &pr->maps[at - 1], m))
			same = &pr->maps[at - 1];
		for (size_t i = pr->n_maps; !same && i-- > 0;)
			if (same_map(pr, &pr->maps[i], m))
				same = &pr->maps[i];
		if (same && !pr->unordered)
			from = (size_t)(same - pr->maps) + 1;
	}
	for (size_t i = from; same && i < pr->n_maps; i++) {
		const sp_capture_map *o = &pr->maps[i];
		if (o->start < m->limit && m->start < o->limit && o->time > same->time &&
		    o->time <= m->time)
			same = NULL;
	}
	if (same)
		return;
	sp_capture_map copy = *m;
	copy.path = sp_xstrdup(m->path ? m->path : "");
	copy.build_id = m->build_id ? sp_xstrdup(m->build_id) : NULL;
	SP_PUSH(pr->maps, pr->n_maps, pr->cap_maps, copy);
	pr->by_start_dirty = true;
	sp_u64map_put(&pr->newest, key, pr->n_maps);
	pr->unordered |= m->time < pr->latest;
	if (m->time > pr->latest)
		pr->latest = m->time;
}

void sp_capture_add_map(sp_capture *c, int64_t pid, const sp_capture_map *m)
{
	push_map(sp_capture_process_for(c, pid), m);
}

void sp_capture_fork(sp_capture *c, int64_t parent, int64_t child, uint64_t time)
{
	if (parent == child)
		return;
	sp_capture_process *ch = sp_capture_process_for(c, child);
	const sp_capture_process *pa = process_get(c, parent); /* after: PUSH may move */
	if (!pa)
		return;
	for (size_t i = 0; i < pa->n_maps; i++)
		if (pa->maps[i].time <= time)
			push_map(ch, &pa->maps[i]);
	for (size_t i = 0; i < pa->n_exec; i++)
		if (pa->exec_times[i] <= time)
			SP_PUSH(ch->exec_times, ch->n_exec, ch->cap_exec, pa->exec_times[i]);
}

void sp_capture_exec(sp_capture *c, int64_t pid, uint64_t time)
{
	sp_capture_process *pr = sp_capture_process_for(c, pid);
	for (size_t i = 0; i < pr->n_exec; i++)
		if (pr->exec_times[i] == time)
			return; /* recorded again */
	SP_PUSH(pr->exec_times, pr->n_exec, pr->cap_exec, time);
}

static int comm_cmp(const void *a, const void *b)
{
	const sp_capture_comm *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return 0;
}

void sp_capture_add_comm(sp_capture *c, int64_t pid, int64_t tid, uint64_t time,
			 const char *comm)
{
	/* kept ordered by (tid, time): names arrive mostly in order, so the
	 * place is found from the end */
	sp_capture_comm e = {.pid = pid, .tid = tid, .time = time};
	size_t at = c->n_comms;
	while (at > 0 && comm_cmp(&c->comms[at - 1], &e) > 0)
		at--;
	if (at > 0 && !comm_cmp(&c->comms[at - 1], &e) && !strcmp(c->comms[at - 1].comm, comm))
		return; /* the same name recorded again */
	e.comm = sp_xstrdup(comm);
	sp_grow(&c->comms, &c->cap_comms, c->n_comms + 1, sizeof(*c->comms));
	memmove(c->comms + at + 1, c->comms + at, (c->n_comms - at) * sizeof(*c->comms));
	c->comms[at] = e;
	c->n_comms++;
}

void sp_capture_add_build_id(sp_capture *c, int64_t pid, const char *path, const char *build_id)
{
	sp_capture_build_id b = {.pid = pid, .path = sp_xstrdup(path),
				 .build_id = sp_xstrdup(build_id)};
	SP_PUSH(c->build_ids, c->n_build_ids, c->cap_build_ids, b);
}

void sp_capture_add_sample(sp_capture *c, const sp_capture_sample *s, const uint64_t *chain,
			   size_t n, const void *regs, size_t regs_len, const void *stack,
			   size_t stack_len)
{
	sp_capture_sample copy = *s;
	copy.chain_off = c->n_chain;
	copy.n_chain = n;
	if (n) {
		sp_grow(&c->chain, &c->cap_chain, c->n_chain + n, sizeof(uint64_t));
		memcpy(c->chain + c->n_chain, chain, n * sizeof(uint64_t));
		c->n_chain += n;
	}
	copy.regs = (sp_capture_range){c->bytes.len, regs_len};
	if (regs_len)
		sp_buf_append(&c->bytes, regs, regs_len);
	copy.stack = (sp_capture_range){c->bytes.len, stack_len};
	copy.stack_ref = NULL;
	if (stack_len)
		sp_buf_append(&c->bytes, stack, stack_len);
	SP_PUSH(c->samples, c->n_samples, c->cap_samples, copy);
	c->total_samples++;
}

void sp_capture_borrow_stack(sp_capture *c, const void *stack, size_t len)
{
	sp_capture_sample *s = &c->samples[c->n_samples - 1];
	s->stack = (sp_capture_range){0, len};
	s->stack_ref = len ? stack : NULL;
}

void sp_capture_own_stacks(sp_capture *c)
{
	for (size_t i = 0; i < c->n_samples; i++) {
		sp_capture_sample *s = &c->samples[i];
		if (!s->stack_ref)
			continue;
		s->stack.off = c->bytes.len;
		sp_buf_append(&c->bytes, s->stack_ref, s->stack.len);
		s->stack_ref = NULL;
	}
}

void sp_capture_set_chain(sp_capture *c, size_t i, const uint64_t *chain, size_t n)
{
	sp_grow(&c->chain, &c->cap_chain, c->n_chain + n, sizeof(uint64_t));
	if (n)
		memcpy(c->chain + c->n_chain, chain, n * sizeof(uint64_t));
	c->samples[i].chain_off = c->n_chain;
	c->samples[i].n_chain = n;
	c->n_chain += n;
}

void sp_capture_clear_samples(sp_capture *c)
{
	c->n_samples = 0;
	c->n_chain = 0;
	c->bytes.len = 0;
}

static const sp_capture_map *sort_maps;

static int by_start_cmp(const void *a, const void *b)
{
	const size_t *x = a, *y = b;
	uint64_t s = sort_maps[*x].start, t = sort_maps[*y].start;
	if (s != t)
		return s < t ? -1 : 1;
	return *x < *y ? -1 : *x > *y;
}

static void index_maps(sp_capture_process *pr)
{
	pr->by_start = sp_xreallocarray(pr->by_start, pr->n_maps ? pr->n_maps : 1,
					sizeof(size_t));
	pr->n_by_start = 0;
	pr->max_len = 0;
	for (size_t i = 0; i < pr->n_maps; i++) {
		const sp_capture_map *m = &pr->maps[i];
		if (!m->exec)
			continue;
		pr->by_start[pr->n_by_start++] = i;
		if (m->limit - m->start > pr->max_len)
			pr->max_len = m->limit - m->start;
	}
	sort_maps = pr->maps; /* qsort has no context argument */
	qsort(pr->by_start, pr->n_by_start, sizeof(size_t), by_start_cmp);
	sort_maps = NULL;
	pr->by_start_dirty = false;
}

void sp_capture_index_maps(sp_capture *c)
{
	for (size_t i = 0; i < c->n_procs; i++)
		if (c->procs[i].by_start_dirty)
			index_maps(&c->procs[i]);
}

size_t sp_capture_map_index_at(sp_capture_process *pr, uint64_t addr, uint64_t time)
{
	if (pr->by_start_dirty)
		index_maps(pr);
	/* the maps starting at or below ADDR, from the nearest down to those
	 * too far below to reach it */
	size_t lo = 0, hi = pr->n_by_start;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pr->maps[pr->by_start[mid]].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t best = SIZE_MAX;
	for (size_t k = lo; k-- > 0;) {
		size_t i = pr->by_start[k];
		const sp_capture_map *m = &pr->maps[i];
		if (addr - m->start >= pr->max_len)
			break;
		if (addr >= m->limit || m->time > time)
			continue;
		if (ended_by_exec(pr, m->time, time))
			continue;
		/* the latest wins; among equal times the one recorded last */
		if (best == SIZE_MAX || m->time > pr->maps[best].time ||
		    (m->time == pr->maps[best].time && i > best))
			best = i;
	}
	return best;
}

const sp_capture_map *sp_capture_map_at(sp_capture *c, int64_t pid, uint64_t addr,
					uint64_t time)
{
	sp_capture_process *pr = (sp_capture_process *)process_get(c, pid);
	if (!pr)
		return NULL;
	size_t i = sp_capture_map_index_at(pr, addr, time);
	return i == SIZE_MAX ? NULL : &pr->maps[i];
}

const char *sp_capture_comm_at(const sp_capture *c, int64_t tid, uint64_t time)
{
	static const char none[] = "";
	size_t lo = 0, hi = c->n_comms;
	/* first entry with (tid, time) > (TID, TIME) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const sp_capture_comm *m = &c->comms[mid];
		if (m->tid < tid || (m->tid == tid && m->time <= time))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && c->comms[lo - 1].tid == tid)
		return c->comms[lo - 1].comm;
	/* named only after TIME (a thread sampled before its COMM arrived):
	 * its first name is still the best answer */
	if (lo < c->n_comms && c->comms[lo].tid == tid)
		return c->comms[lo].comm;
	return none;
}
