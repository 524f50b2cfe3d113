/* parallel.c — the samples of different processes unwound on several
 * threads (see unwind.c for the unwinder).
 *
 * What unwinding keeps is per process (its Dwfl, its modules, its recorded
 * unwinds), so processes are dealt out to units: the unwinder the caller
 * holds is unit 0, the front; each other unit is an unwinder of its own
 * with a session of its own (sp_symbolizer_new_worker: libdw handles are
 * not shared between threads, so each unit opens and maps the files its
 * processes use) and a thread of its own.  A process is given to a unit
 * in the round of its first samples (the unit with the fewest samples of
 * that round), and stays with it for the whole capture.  A unit's thread
 * runs it, or the front's when it comes to it first (on a machine whose
 * cores are busy, the front does not wait for a thread that has not
 * started: a unit is taken up once, under the lock, and what it holds is
 * used by one thread at a time, never by two at once).  A round's samples are unwound
 * by their units at once, each unit keeping its answers; then the front
 * sets them into the capture in the samples' order and merges the units'
 * reports (sums, and the stops in the order of their first samples).
 *
 * What comes out never depends on the units: every rule that involved
 * several processes is one of the data alone.
 *   - The clock of the LRUs is the count of samples unwound, over the
 *     capture: a sample's tick is the same whoever unwinds it.
 *   - Recorded unwinds: a process that alone passes MEMO_BYTES drops its
 *     own (memo.c); at the end of a round, when all of them together pass
 *     it, every process drops its own.
 *   - Descriptors: the Dwfls of the processes least recently unwound are
 *     ended, in every unit, before a sample, while the separate debug files
 *     of every unit pass max_fds.  A round in which that cannot happen (the
 *     files held, and the most each of its processes can hold, 2 per live
 *     module, within the bound) runs at once on the units, without the
 *     check; any other round runs on the calling thread, sample after
 *     sample in their order, as one unwinder would.
 *   - The capture: its processes' map indices are built before the units
 *     start (sp_capture_index_maps), so that the units only read it.
 * Units start only with several threads allowed and a recording large
 * enough (PAR_MIN_BYTES): a unit costs a session, and opening again every
 * file its processes share with others'.
 */
#include "symbolize/unwind/unwindp.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Recordings smaller than this stay on the calling thread. */
#define PAR_MIN_BYTES ((uint64_t)4 << 20)

/* Units at most. */
#define UNITS_MAX 64

typedef struct upar upar;

typedef struct {
	upar *par;
	size_t k;
} uthread;

struct upar {
	size_t jobs;              /* units at most */
	bool spread;              /* processes may go to other units than 0 */
	sp_unwinder **units;      /* [0] the front */
	sp_symbolizer **sessions; /* [k] unit k's own ([0]: the caller's, NULL) */
	size_t n_units;
	sp_u64map owner;          /* pid -> unit + 1 */
	uint64_t ticks;           /* samples unwound so far: the clock */
	size_t *bounds;           /* sample counts of C at the ends of perf rounds */
	size_t n_bounds, cap_bounds;
	sp_unwind_report merged;  /* with several units */
	/* the threads of units 1.. */
	uthread *args;
	pthread_t *tids;
	bool *started;
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	uint64_t round;           /* rounds started */
	uint64_t *todo;           /* [k]: the last round unit k was given */
	uint64_t *taken;          /* [k]: the last round unit k was taken up in,
				     by its thread or by the front's */
	size_t running;           /* units of the round not done */
	bool quit;
	sp_capture *c;
};

static upar *par_of(sp_unwinder *u)
{
	if (u->par)
		return u->par;
	upar *par = sp_xcalloc(1, sizeof(*par));
	par->jobs = 1;
	par->units = sp_xcalloc(UNITS_MAX, sizeof(*par->units));
	par->sessions = sp_xcalloc(UNITS_MAX, sizeof(*par->sessions));
	par->args = sp_xcalloc(UNITS_MAX, sizeof(*par->args));
	par->tids = sp_xcalloc(UNITS_MAX, sizeof(*par->tids));
	par->started = sp_xcalloc(UNITS_MAX, sizeof(*par->started));
	par->todo = sp_xcalloc(UNITS_MAX, sizeof(*par->todo));
	par->taken = sp_xcalloc(UNITS_MAX, sizeof(*par->taken));
	par->units[0] = u;
	par->n_units = 1;
	u->units = par->units;
	u->n_units = 1;
	pthread_mutex_init(&par->mu, NULL);
	pthread_cond_init(&par->go, NULL);
	pthread_cond_init(&par->done, NULL);
	u->par = par;
	return par;
}

void sp_unwinder_set_jobs(sp_unwinder *u, int jobs, uint64_t input_bytes)
{
	upar *par = par_of(u);
	par->jobs = jobs < 1 ? 1 : jobs > UNITS_MAX ? UNITS_MAX : (size_t)jobs;
	par->spread = par->jobs > 1 && input_bytes >= PAR_MIN_BYTES;
}

void sp_unwinder_round_end(sp_unwinder *u, const sp_capture *c)
{
	upar *par = par_of(u);
	if (!par->n_bounds || par->bounds[par->n_bounds - 1] < c->n_samples)
		SP_PUSH(par->bounds, par->n_bounds, par->cap_bounds, c->n_samples);
}

/* -- the units' threads --------------------------------------------------------- */

static void *unit_main(void *arg)
{
	uthread *t = arg;
	upar *par = t->par;
	uint64_t seen = 0;
	pthread_mutex_lock(&par->mu);
	for (;;) {
		/* the unit is the front's between the rounds it is given */
		while (!par->quit && par->todo[t->k] == seen)
			pthread_cond_wait(&par->go, &par->mu);
		if (par->quit)
			break;
		seen = par->todo[t->k];
		if (par->taken[t->k] == seen)
			continue; /* the front took it up, this thread being late */
		par->taken[t->k] = seen;
		sp_unwinder *u = par->units[t->k];
		pthread_mutex_unlock(&par->mu);
		sp_unwind_unit_run(u, par->c);
		pthread_mutex_lock(&par->mu);
		if (!--par->running)
			pthread_cond_signal(&par->done);
	}
	pthread_mutex_unlock(&par->mu);
	return NULL;
}

/* Unit K, made with its session and its thread (none when it cannot be
 * started: the front then runs the unit itself). */
static void add_unit(sp_unwinder *f, upar *par)
{
	size_t k = par->n_units++;
	f->n_units = par->n_units;
	par->sessions[k] = sp_symbolizer_new_worker(f->s);
	par->units[k] = sp_unwind_unit_new(f, par->sessions[k]);
	par->args[k] = (uthread){par, k};
	par->started[k] = pthread_create(&par->tids[k], NULL, unit_main, &par->args[k]) == 0;
}

/* The unit a new process goes to: the one with the fewest samples of this
 * round (LOAD) among the JOBS allowed, made when it is not yet. */
static size_t unit_new(sp_unwinder *f, upar *par, const uint64_t *load)
{
	size_t best = 0;
	if (par->spread)
		for (size_t k = 1; k < par->jobs && k <= par->n_units; k++)
			if (load[k] < load[best])
				best = k;
	if (best == par->n_units)
		add_unit(f, par);
	return best;
}

/* Ends the units other than the front, and their threads. */
static void units_free(sp_unwinder *u, upar *par)
{
	pthread_mutex_lock(&par->mu);
	par->quit = true;
	pthread_cond_broadcast(&par->go);
	pthread_mutex_unlock(&par->mu);
	for (size_t k = 1; k < par->n_units; k++) {
		if (par->started[k])
			pthread_join(par->tids[k], NULL);
		sp_unwind_unit_free(par->units[k]); /* before the session it borrows */
		sp_symbolizer_pass_notes(u->s, par->sessions[k]);
		sp_symbolizer_free(par->sessions[k]);
	}
	pthread_mutex_destroy(&par->mu);
	pthread_cond_destroy(&par->go);
	pthread_cond_destroy(&par->done);
	sp_u64map_free(&par->owner);
	free(par->merged.stops);
	free(par->units);
	free(par->sessions);
	free(par->args);
	free(par->tids);
	free(par->started);
	free(par->todo);
	free(par->taken);
	free(par->bounds);
	free(par);
	u->par = NULL;
	u->units = NULL;
	u->n_units = 0;
}

sp_unwinder *sp_unwinder_new(sp_symbolizer *s)
{
	return sp_unwind_unit_new(NULL, s);
}

void sp_unwinder_free(sp_unwinder *u)
{
	if (!u)
		return;
	upar *par = u->par;
	if (par)
		units_free(u, par);
	sp_unwind_unit_free(u);
}

/* -- rules over every unit -------------------------------------------------------- */

/* At the end of a round: every recorded unwind dropped when all of them
 * pass the budget. */
static void memo_budget(upar *par)
{
	size_t total = 0;
	for (size_t k = 0; k < par->n_units; k++)
		total += par->units[k]->memo_bytes;
	if (total <= MEMO_BYTES)
		return;
	for (size_t k = 0; k < par->n_units; k++) {
		sp_unwinder *u = par->units[k];
		for (size_t i = 0; i < u->n_procs; i++)
			sp_unwind_memo_clear(&u->procs[i]);
		u->memo_bytes = 0;
	}
}

typedef struct {
	const sp_unwind_stop *stop;
	uint64_t first;
} stop_ref;

static int cmp_stop_ref(const void *a, const void *b)
{
	uint64_t x = ((const stop_ref *)a)->first, y = ((const stop_ref *)b)->first;
	return x < y ? -1 : x > y;
}

/* The units' reports as one: the counts summed, the stops in the order of
 * their first samples (as one unwinder lists them).  The strings stay the
 * units'. */
static void merge_reports(upar *par)
{
	sp_unwind_report *m = &par->merged;
	free(m->stops);
	memset(m, 0, sizeof(*m));
	size_t n = 0;
	for (size_t k = 0; k < par->n_units; k++)
		n += par->units[k]->report.n_stops;
	stop_ref *refs = sp_xreallocarray(NULL, n ? n : 1, sizeof(*refs));
	n = 0;
	for (size_t k = 0; k < par->n_units; k++) {
		const sp_unwinder *u = par->units[k];
		const sp_unwind_report *r = &u->report;
		m->n_samples += r->n_samples;
		m->n_complete += r->n_complete;
		m->n_reused += r->n_reused;
		m->n_errors += r->n_errors;
		for (size_t i = 0; i < r->n_stops; i++)
			refs[n++] = (stop_ref){&r->stops[i], u->stop_first[i]};
	}
	qsort(refs, n, sizeof(*refs), cmp_stop_ref);
	m->stops = sp_xreallocarray(NULL, n ? n : 1, sizeof(*m->stops));
	for (size_t i = 0; i < n; i++)
		m->stops[i] = *refs[i].stop;
	m->n_stops = m->cap_stops = n;
	free(refs);
}

const sp_unwind_report *sp_unwinder_report(const sp_unwinder *u)
{
	return u->par && u->par->n_units > 1 ? &u->par->merged : &u->report;
}

/* -- a round ------------------------------------------------------------------------ */

/* The most modules process PID of C can have in its Dwfl: one per
 * executable map at most, max_live at most. */
static size_t proc_modules(const sp_unwinder *f, const sp_capture *c, int64_t pid)
{
	uint64_t i;
	if (!sp_u64map_get(&c->proc_index, (uint64_t)pid, &i))
		return 0;
	const sp_capture_process *pr = &c->procs[i - 1];
	size_t n = 0;
	for (size_t m = 0; m < pr->n_maps && n < f->max_live; m++)
		n += pr->maps[m].exec;
	return n;
}

/* A process of a round: its samples there, and its unit. */
typedef struct {
	int64_t pid;
	size_t n;
	size_t unit; /* SIZE_MAX: new */
} rproc;

static int cmp_rproc_new(const void *a, const void *b)
{
	const rproc *x = a, *y = b;
	return x->n != y->n ? (x->n > y->n ? -1 : 1) : (x->pid > y->pid) - (x->pid < y->pid);
}

/* The samples of C each unit unwinds, with their ticks (a process new
 * this round given to a unit first: the processes with the most samples
 * first, each to the unit with the fewest samples of the round so far, a
 * new one counted as the busiest process of the round);
 * whether the round cannot pass the bound on descriptors (see above). */
static bool deal(sp_unwinder *f, upar *par, sp_capture *c)
{
	for (size_t k = 0; k < par->n_units; k++)
		par->units[k]->n_own = 0;
	sp_u64map of = {0}; /* pid -> index into procs + 1 */
	rproc *procs = NULL;
	size_t n_procs = 0, cap_procs = 0, n_new = 0;
	uint64_t v;
	for (size_t i = 0; i < c->n_samples; i++) {
		const sp_capture_sample *s = &c->samples[i];
		if (!s->regs_abi || !s->stack.len || s->pid <= 0)
			continue;
		if (sp_u64map_get(&of, (uint64_t)s->pid, &v)) {
			procs[v - 1].n++;
			continue;
		}
		rproc r = {s->pid, 1, SIZE_MAX};
		if (sp_u64map_get(&par->owner, (uint64_t)s->pid, &v))
			r.unit = v - 1;
		else
			n_new++;
		SP_PUSH(procs, n_procs, cap_procs, r);
		sp_u64map_put(&of, (uint64_t)s->pid, n_procs);
	}
	uint64_t load[UNITS_MAX] = {0}, most = 0;
	size_t could = 0; /* descriptors the round's processes could hold */
	for (size_t i = 0; i < n_procs; i++) {
		if (procs[i].unit != SIZE_MAX)
			load[procs[i].unit] += procs[i].n;
		most = procs[i].n > most ? procs[i].n : most;
		could += 2 * proc_modules(f, c, procs[i].pid);
	}
	/* a process just started has few samples in its first round, whatever
	 * it does later: it weighs as much as the busiest of the round */
	if (n_new) { /* the new ones at the end, the busiest first */
		rproc *sorted = sp_xreallocarray(NULL, n_new, sizeof(*sorted));
		size_t m = 0;
		for (size_t i = 0; i < n_procs; i++)
			if (procs[i].unit == SIZE_MAX)
				sorted[m++] = procs[i];
		qsort(sorted, m, sizeof(*sorted), cmp_rproc_new);
		for (size_t i = 0; i < m; i++) {
			size_t k = unit_new(f, par, load);
			load[k] += most;
			sp_u64map_put(&par->owner, (uint64_t)sorted[i].pid, k + 1);
			sp_u64map_get(&of, (uint64_t)sorted[i].pid, &v);
			procs[v - 1].unit = k;
		}
		free(sorted);
	}
	for (size_t k = 0; k < par->n_units; k++)
		par->units[k]->n_seg = 0;
	if (!par->n_bounds || par->bounds[par->n_bounds - 1] < c->n_samples)
		SP_PUSH(par->bounds, par->n_bounds, par->cap_bounds, c->n_samples);
	for (size_t r = 0, i = 0; r < par->n_bounds; r++) {
		useg seg = {0, par->ticks}; /* the clock before the round */
		for (; i < par->bounds[r] && i < c->n_samples; i++) {
			const sp_capture_sample *s = &c->samples[i];
			if (!s->regs_abi || !s->stack.len || s->pid <= 0)
				continue;
			sp_u64map_get(&of, (uint64_t)s->pid, &v);
			sp_unwinder *u = par->units[procs[v - 1].unit];
			uown o = {i, ++par->ticks};
			SP_PUSH(u->own, u->n_own, u->cap_own, o);
		}
		for (size_t k = 0; k < par->n_units; k++) {
			sp_unwinder *u = par->units[k];
			seg.end = u->n_own;
			SP_PUSH(u->seg, u->n_seg, u->cap_seg, seg);
		}
	}
	sp_u64map_free(&of);
	free(procs);
	size_t held = sp_unwind_debug_fds(f);
	return held <= f->max_fds && could <= f->max_fds - held;
}

/* A call in which descriptors may need ending: a perf round at a time, its
 * modules, then every sample in its turn on this thread, before each the
 * check over every unit. */
static void run_in_order(upar *par, sp_capture *c)
{
	size_t *at = sp_xcalloc(par->n_units, sizeof(*at));
	for (size_t k = 0; k < par->n_units; k++) {
		sp_unwinder *u = par->units[k];
		u->trim = true;
		u->keep = false;
		sp_unwind_unit_begin(u, c);
	}
	for (size_t r = 0; r < par->units[0]->n_seg; r++) {
		for (size_t k = 0; k < par->n_units; k++) {
			sp_unwinder *u = par->units[k];
			u->clock = u->seg[r].clock;
			sp_unwind_modules_batch(u, c, at[k], u->seg[r].end);
		}
		for (;;) {
			size_t next = SIZE_MAX;
			for (size_t k = 0; k < par->n_units; k++) {
				sp_unwinder *u = par->units[k];
				if (at[k] < u->seg[r].end &&
				    (next == SIZE_MAX ||
				     u->own[at[k]].i < par->units[next]->own[at[next]].i))
					next = k;
			}
			if (next == SIZE_MAX)
				break;
			sp_unwind_unit_sample(par->units[next], at[next]++);
		}
	}
	for (size_t k = 0; k < par->n_units; k++)
		par->units[k]->c = NULL;
	free(at);
}

/* The units' answers set into C, in the samples' order. */
static void set_answers(upar *par, sp_capture *c)
{
	size_t *at = sp_xcalloc(par->n_units, sizeof(*at));
	for (;;) {
		size_t next = SIZE_MAX;
		for (size_t k = 0; k < par->n_units; k++) {
			sp_unwinder *u = par->units[k];
			if (at[k] < u->n_ans &&
			    (next == SIZE_MAX || u->ans[at[k]].i < par->units[next]->ans[at[next]].i))
				next = k;
		}
		if (next == SIZE_MAX)
			break;
		sp_unwinder *u = par->units[next];
		const uanswer *a = &u->ans[at[next]++];
		sp_capture_set_chain(c, a->i, u->ans_chain + a->off, a->n);
	}
	free(at);
}

/* A round on the units at once: unit 0 on this thread, the others on
 * theirs. */
static void run_at_once(upar *par, sp_capture *c)
{
	sp_capture_index_maps(c); /* the units only read the capture from here */
	for (size_t k = 0; k < par->n_units; k++) {
		sp_unwinder *u = par->units[k];
		u->trim = false;
		u->keep = true;
		u->n_ans = u->n_ans_chain = 0; /* (a unit without samples is not run) */
	}
	pthread_mutex_lock(&par->mu);
	par->c = c;
	par->round++;
	par->running = 0;
	for (size_t k = 1; k < par->n_units; k++)
		if (par->units[k]->n_own && par->started[k]) {
			par->todo[k] = par->round;
			par->running++;
		}
	pthread_cond_broadcast(&par->go);
	pthread_mutex_unlock(&par->mu);
	for (size_t k = 0; k < par->n_units; k++)
		if ((!k || !par->started[k]) && par->units[k]->n_own)
			sp_unwind_unit_run(par->units[k], c);
	/* a unit whose thread has not taken it up yet (none free to run it)
	 * is run here: the round never waits on a thread that has not
	 * started, and a unit is never run by two at once */
	pthread_mutex_lock(&par->mu);
	for (size_t k = 1; k < par->n_units; k++) {
		if (par->todo[k] != par->round || par->taken[k] == par->round)
			continue;
		par->taken[k] = par->round;
		pthread_mutex_unlock(&par->mu);
		sp_unwind_unit_run(par->units[k], c);
		pthread_mutex_lock(&par->mu);
		par->running--;
	}
	while (par->running)
		pthread_cond_wait(&par->done, &par->mu);
	par->c = NULL;
	pthread_mutex_unlock(&par->mu);
	set_answers(par, c);
}

void sp_unwinder_run(sp_unwinder *u, sp_capture *c)
{
	upar *par = par_of(u);
	bool room = deal(u, par, c);
	size_t busy = 0;
	for (size_t k = 0; k < par->n_units; k++)
		busy += par->units[k]->n_own > 0;
	if (!room) {
		run_in_order(par, c);
	} else if (busy > 1 || (busy == 1 && !u->n_own)) {
		run_at_once(par, c);
	} else { /* the front's samples alone */
		u->trim = false;
		u->keep = false;
		sp_unwind_unit_run(u, c);
	}
	par->n_bounds = 0;
	memo_budget(par);
	if (par->n_units > 1)
		merge_reports(par);
}
