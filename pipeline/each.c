/* each.c — `convert --each -j N`: many inputs converted by worker
 * processes that share one warm session.
 *
 * The calling process converts inputs itself, in order, until one has
 * converted: its session is then warm (objects opened, indexes built,
 * address caches filled).  Then it forks N workers (fewer when fewer
 * inputs are left, none when one is left), which inherit that session
 * copy-on-write, and takes no input more itself.  When the first input is
 * large (EACH_COLD_MIN_BYTES) the workers are forked before it instead,
 * each warming a session of its own.  Each worker takes the
 * next input not yet taken from a counter they share, so that a slow input
 * does not leave another worker idle, and sends the input's result to the
 * parent, which hands the results to its caller in the inputs' order as
 * they come (collect).  Everything an input's conversion depends on is the
 * input and the options: the output files are those of -j 1.
 *
 * What is shared at the fork: stdio is flushed before it; no thread runs
 * (the gzip sink's thread ends with its output); the list of temporary
 * outputs is empty and the signal handlers that remove them are
 * inherited; each worker dies with the parent (PR_SET_PDEATHSIG, SIGTERM,
 * so its temporary output is removed) and ends with _exit once no input is
 * left.  A worker killed where no handler runs (SIGKILL, the OOM killer's)
 * cannot remove its own: each keeps the input it is converting and a copy
 * of its list of temporary outputs in memory it shares with the parent,
 * which removes them and names the signal in that input's result.
 */
#include "pipeline/pipeline.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A worker's report of one input: its number, whether it converted, its
 * error's code, the caller's flags, and the length of the error's message,
 * which follows. */
typedef struct {
	int32_t number;
	int32_t ok;
	int32_t code;
	uint32_t flags;
	uint32_t len;
} each_frame;

/* One worker's stream of frames, as read and not yet taken apart. */
typedef struct {
	int fd;
	pid_t pid;
	sp_buf in;
	size_t at; /* in.data[at..] is not taken apart yet */
} worker;

/* What a worker shares with its parent, for the parent to clean up after
 * a worker killed before it could (SIGKILL, the OOM killer's): the input it
 * is converting and its temporary outputs (the mirror of common/fatal.c). */
typedef struct {
	_Atomic int input; /* -1: none */
	sp_pending_mirror pending;
} worker_slot;

typedef struct each_shared {
	_Atomic int take; /* the next input to take */
	worker_slot slot[];
} each_shared;

/* A result a worker sent, kept until those before it are handed over. */
typedef struct {
	bool got;
	int32_t code;
	uint32_t flags;
	char *msg; /* NULL when the input converted */
} result;

typedef struct {
	const sp_pipeline *user; /* the caller's run */
	const sp_each_options *eo;
	int n_inputs;
	int jobs;
	bool paced;        /* jobs not given: workers only when worth it */
	double cpu_prev;   /* CPU seconds at the previous input's end */
	int ok_prev;       /* n_ok then */
	int n_ok, n_failed;
	struct each_shared *shared; /* with the workers: what they take and hold */
	size_t shared_size;
	int slot;          /* in a worker: its slot in shared; -1 otherwise */
	worker *workers;   /* the workers started, in the parent */
	int nw;
	int first;         /* the first input the workers took */
	bool cold;         /* fork the workers before the first input */
	int report_fd;     /* in a worker: where its frames go; -1 otherwise */
} pool;

/* Without jobs, workers start only when the inputs left would cost the
 * parent at least this many CPU seconds at the pace of the last input it
 * converted: below that, starting, feeding and ending them costs about
 * what they save (on 50 small heap dumps, about 1 ms each, -j 2 used 10%
 * more CPU than -j 1 and won no time on a busy machine). */
#define JOBS_MIN_WORK 0.1

static double cpu_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* An input at least this large is work enough to share from the start:
 * the workers are forked before any input, each warming a session of its
 * own, rather than after the parent converted it alone (with 8 inputs of
 * equal size and 2 workers that first one alone would cap the gain at
 * 8 / 4.5 = 1.78x; a session's warming is a fraction of such an input's
 * conversion, and the workers warm theirs at the same time). */
#define EACH_COLD_MIN_BYTES ((uint64_t)4 << 20)

static void warn(const pool *p, const char *what, int err)
{
	if (!p->eo->warning)
		return;
	char *msg = sp_xasprintf("%s: %s", what, strerror(err));
	p->eo->warning(p->eo->ctx, msg);
	free(msg);
}

/* Sends input INPUT's result to the parent (a worker's). */
static void send_frame(const pool *p, int input, const sp_error *err, unsigned flags)
{
	char *msg = err ? sp_error_string(err) : sp_xstrdup("");
	each_frame h = {input, !err, err ? (int32_t)sp_error_root_code(err) : 0, flags,
			(uint32_t)strlen(msg)};
	char *frame = sp_xmalloc(sizeof(h) + h.len);
	memcpy(frame, &h, sizeof(h));
	memcpy(frame + sizeof(h), msg, h.len);
	for (size_t off = 0, n = sizeof(h) + h.len; off < n;) {
		ssize_t r = write(p->report_fd, frame + off, n - off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			_exit(1); /* the parent is gone */
		off += (size_t)r;
	}
	free(frame);
	free(msg);
}

/* The run's input_done: the result goes to the caller, or from a worker
 * to the parent. */
static void pool_done(void *ctx, int input, const sp_error *err)
{
	pool *p = ctx;
	unsigned flags = p->eo->flags ? p->eo->flags(p->eo->ctx, input) : 0;
	*(err ? &p->n_failed : &p->n_ok) += 1;
	if (p->report_fd < 0)
		p->eo->done(p->eo->ctx, input, err, flags);
	else
		send_frame(p, input, err, flags);
}

/* The child's side of a fork (worker K): its frames go to FD. */
static void become_worker(pool *p, int k, int fd, pid_t parent)
{
	for (int j = 0; j < p->nw; j++)
		close(p->workers[j].fd);
	free(p->workers);
	p->workers = NULL;
	p->nw = 0;
	p->report_fd = fd;
	p->slot = k;
	sp_sink_mirror_pending(&p->shared->slot[k].pending);
	/* a parent that is gone cannot report: the worker stops, its temporary
	 * output removed by the signal's handler */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(1); /* it was gone before prctl */
	/* whole lines, so that the workers' messages do not mix mid-line */
	setvbuf(stderr, NULL, _IOLBF, 0);
}

/* Forks NW workers that go on from input FIRST. */
static void start_workers(pool *p, int first, int nw)
{
	size_t size = sizeof(each_shared) + (size_t)nw * sizeof(worker_slot);
	void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		warn(p, "cannot map a shared counter", errno);
		return;
	}
	p->shared = m;
	p->shared_size = size;
	atomic_init(&p->shared->take, first);
	for (int k = 0; k < nw; k++)
		atomic_init(&p->shared->slot[k].input, -1);
	p->first = first;
	p->workers = sp_xcalloc((size_t)nw, sizeof(*p->workers));
	/* nothing buffered is written twice; the session holds no thread now
	 * (the gzip sink's has ended with its output) */
	fflush(stdout);
	fflush(stderr);
	pid_t parent = getpid();
	for (int k = 0; k < nw; k++) {
		int fds[2];
		if (pipe(fds) != 0) {
			warn(p, "cannot make a pipe", errno);
			break;
		}
		pid_t pid = fork();
		if (pid < 0) {
			warn(p, "cannot start a process", errno);
			close(fds[0]);
			close(fds[1]);
			break;
		}
		if (pid == 0) {
			close(fds[0]);
			become_worker(p, k, fds[1], parent);
			return;
		}
		close(fds[1]);
		p->workers[k] = (worker){.fd = fds[0], .pid = pid};
		p->nw = k + 1;
	}
}

/* The run's next: the parent's inputs in order until workers start, then
 * a worker's from the shared counter. */
static int pool_next(void *ctx, int i)
{
	pool *p = ctx;
	if (p->report_fd < 0) {
		int rest = p->n_inputs - (i + 1);
		int nw = p->jobs < rest ? p->jobs : rest;
		double cpu = cpu_seconds(), took = cpu - p->cpu_prev;
		/* the input just done converted, and the session was warm for it */
		bool paced = p->ok_prev > 0 && p->n_ok > p->ok_prev;
		p->cpu_prev = cpu;
		p->ok_prev = p->n_ok;
		bool cold = p->cold && i < 0 && nw >= 2;
		if (!cold && (nw < 2 || !p->n_ok || (p->paced && !paced)))
			return rest > 0 ? i + 1 : -1;
		if (!cold && p->paced && took * rest < JOBS_MIN_WORK) {
			p->jobs = 1; /* not worth it: the parent goes on alone */
			return i + 1;
		}
		start_workers(p, i + 1, nw);
		if (p->report_fd < 0 && !p->nw) {
			p->jobs = 1; /* none started: the parent goes on alone */
			return i + 1;
		}
		if (p->report_fd < 0)
			return -1;
	}
	int k = atomic_fetch_add(&p->shared->take, 1);
	atomic_store(&p->shared->slot[p->slot].input, k < p->n_inputs ? k : -1);
	return k < p->n_inputs ? k : -1;
}

/* Takes apart W's complete frames into RES, by input. */
static void take_frames(pool *p, worker *w, result *res)
{
	while (w->in.len - w->at >= sizeof(each_frame)) {
		each_frame h;
		memcpy(&h, w->in.data + w->at, sizeof(h));
		if (h.len > w->in.len - w->at - sizeof(h))
			return; /* the rest of the message is still to come */
		if (h.number >= p->first && h.number < p->n_inputs && !res[h.number].got)
			res[h.number] = (result){
				.got = true,
				.code = h.code,
				.flags = h.flags,
				.msg = h.ok ? NULL
					    : sp_xstrndup(w->in.data + w->at + sizeof(h), h.len),
			};
		w->at += sizeof(h) + h.len;
	}
}

/* Hands input I's result R (NULL: its worker stopped) to the caller. */
static void hand_over(pool *p, int i, const result *r)
{
	sp_error *err = NULL;
	if (!r)
		err = sp_error_new(SP_E_IO, "its conversion stopped");
	else if (r->msg)
		err = sp_error_new(r->code > 0 && r->code < SP_E_COUNT_ ? (sp_errcode)r->code
									 : SP_E_IO,
				   "%s", r->msg);
	*(err ? &p->n_failed : &p->n_ok) += 1;
	p->eo->done(p->eo->ctx, i, err, r ? r->flags : 0);
	sp_error_free(err);
}

/* Reads every worker's frames as they come (a full pipe would stall it);
 * RES fills in. */
static void read_workers(pool *p, result *res, int *handed)
{
	worker *w = p->workers;
	struct pollfd *pf = sp_xcalloc((size_t)p->nw, sizeof(*pf));
	for (int open_fds = p->nw; open_fds > 0;) {
		for (int k = 0; k < p->nw; k++)
			pf[k] = (struct pollfd){.fd = w[k].fd, .events = POLLIN};
		if (poll(pf, (nfds_t)p->nw, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int k = 0; k < p->nw; k++) {
			if (w[k].fd < 0 || !(pf[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			char buf[4096];
			ssize_t r = read(w[k].fd, buf, sizeof(buf));
			if (r > 0) {
				sp_buf_append(&w[k].in, buf, (size_t)r);
				take_frames(p, &w[k], res);
			} else if (r == 0 || errno != EINTR) {
				close(w[k].fd);
				w[k].fd = -1;
				open_fds--;
			}
		}
		for (; *handed < p->n_inputs && res[*handed].got; ++*handed)
			hand_over(p, *handed, &res[*handed]);
	}
	free(pf);
}

/* Worker K ended with wait status ST: when the input it was converting
 * got no result (it was killed, or died some other way), the temporary
 * outputs it left are removed (SIGKILL, the OOM killer's, runs no handler)
 * and that input's result names the signal, or the exit status, and what
 * was removed. */
static void worker_ended(pool *p, int k, int st, result *res)
{
	const worker_slot *s = &p->shared->slot[k];
	int i = atomic_load(&s->input);
	if (i < p->first || i >= p->n_inputs || res[i].got)
		return;
	sp_buf removed = {0};
	size_t at = 0;
	const char *path;
	while ((path = sp_pending_mirror_next(&s->pending, &at))) {
		if (unlink(path) == 0)
			sp_buf_printf(&removed, "%s%s", removed.len ? ", " : "", path);
	}
	char *how;
	if (WIFSIGNALED(st)) {
		const char *abbrev = sigabbrev_np(WTERMSIG(st));
		how = sp_xasprintf("was killed by SIG%s (%s)", abbrev ? abbrev : "?",
				   strsignal(WTERMSIG(st)));
	} else {
		how = sp_xasprintf("ended with status %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	}
	res[i] = (result){
		.got = true,
		.code = SP_E_IO,
		.msg = sp_xasprintf("the process converting it %s%s%s", how,
				    removed.len ? "; its temporary output removed: " : "",
				    removed.len ? removed.data : ""),
	};
	free(how);
	sp_buf_free(&removed);
}

/* The parent's side once the workers run: their results handed over in
 * the inputs' order as they come, each once those before it are; then
 * the workers waited for.  An input whose result never came (its worker
 * stopped) failed.  Returns how many workers ended otherwise than with
 * status 0. */
static int collect(pool *p)
{
	int handed = p->first, bad = 0;
	result *res = sp_xcalloc((size_t)p->n_inputs, sizeof(*res));
	read_workers(p, res, &handed);
	for (int k = 0; k < p->nw; k++) {
		worker *w = &p->workers[k];
		if (w->fd >= 0)
			close(w->fd);
		int st = 0;
		while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
			;
		bad += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
		worker_ended(p, k, st, res);
		sp_buf_free(&w->in);
	}
	for (; handed < p->n_inputs; handed++)
		hand_over(p, handed, res[handed].got ? &res[handed] : NULL);
	for (int i = 0; i < p->n_inputs; i++)
		free(res[i].msg);
	free(res);
	free(p->workers);
	p->workers = NULL;
	munmap(p->shared, p->shared_size);
	return bad;
}

/* The caller's callbacks, called with the caller's context. */
static void pool_loaded(void *ctx, int input, const char *name, const sp_notes *notes)
{
	const pool *p = ctx;
	if (p->user->loaded)
		p->user->loaded(p->user->ctx, input, name, notes);
}

static void pool_symbolized(void *ctx, int input, const char *name,
			    const sp_symbolize_report *r)
{
	const pool *p = ctx;
	if (p->user->symbolized)
		p->user->symbolized(p->user->ctx, input, name, r);
}

static sp_error *pool_output(void *ctx, const sp_pipeline_output *out)
{
	const pool *p = ctx;
	return p->user->output(p->user->ctx, out);
}

sp_error *sp_each_run(const sp_pipeline *pl, const sp_each_options *eo, const sp_load_input *inputs,
		      int n, int *failed)
{
	pool p = {
		.user = pl,
		.eo = eo,
		.n_inputs = n,
		.jobs = eo->jobs ? eo->jobs : sp_cpus_available(),
		.paced = !eo->jobs,
		.cold = n >= 2 && sp_load_input_bytes(&inputs[0]) >= EACH_COLD_MIN_BYTES,
		.report_fd = -1,
		.slot = -1,
	};
	sp_pipeline run = *pl;
	run.each = true;
	run.keep_going = true;
	run.loaded = pool_loaded;
	run.symbolized = pool_symbolized;
	run.output = pool_output;
	run.input_done = pool_done;
	run.next = p.jobs > 1 ? pool_next : NULL;
	run.ctx = &p;
	sp_error *err = sp_pipeline_run(&run, inputs, n, NULL);
	if (p.report_fd >= 0) { /* a worker: its results are sent */
		close(p.report_fd);
		fflush(stdout);
		fflush(stderr);
		_exit(err || p.n_failed ? 1 : 0);
	}
	int bad = p.nw ? collect(&p) : 0;
	if (failed)
		*failed = p.n_failed + bad;
	return err;
}
