/* fatal.c — how the process ends when it must: the input its last message
 * names, the temporary outputs it removes, and the signals that end it.
 *
 * This is the bottom of common/: it calls nothing of symprof's, so the
 * paths that end the process (memory exhausted in mem.c, a signal, a
 * mapped file cut short) reach it without calling back into what they
 * interrupted.  Everything here belongs to the process, not to a session:
 * signals do.
 */
#include "common/common.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the input being read or written, named in the last message */
static const char *input_name;

void sp_mem_set_input(const char *name)
{
	input_name = name;
}

const char *sp_mem_input(void)
{
	return input_name;
}

/* Every temporary output not yet renamed into place is on this list, so that
 * a signal that ends the process removes it.  The list is changed only with
 * those signals blocked, and the handler only reads it, unlinks and re-raises:
 * all async-signal-safe.
 *
 * Every signal whose default action ends the process is handled (SIGKILL
 * and SIGSTOP cannot be), SIGBUS by on_bus_error; the faults (SIGSEGV,
 * SIGILL, SIGFPE, SIGTRAP, SIGSYS) only when nobody else handles them (a
 * sanitizer does, and reports).  The command ignores SIGPIPE and SIGXFSZ
 * (main.c), so that a write to a closed pipe or past the file-size limit
 * fails with EPIPE or EFBIG and the error says so; a program using the
 * library that does not gets them handled here like the others.  A signal
 * that comes while the list changes, or between a temporary file's creation
 * and its place on the list, waits until the list is whole: all of them
 * are blocked then, and helper threads (the gzip sink's) block them for
 * good (sp_signals_block_in_thread), so that none runs the handler while
 * the list changes. */
static sp_pending_output *volatile pending_head;
static const int cleanup_signals[] = {
	SIGHUP,	 SIGINT,  SIGQUIT,   SIGABRT, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM,
	SIGSTKFLT, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO,   SIGPWR,
};
static const int fault_signals[] = {SIGSEGV, SIGILL, SIGFPE, SIGTRAP, SIGSYS};

/* The signals the handlers of this file handle: every one whose default
 * ends the process (real-time ones too), SIGBUS among them. */
static void fatal_signal_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < SP_ARRAY_LEN(cleanup_signals); i++)
		sigaddset(set, cleanup_signals[i]);
	for (size_t i = 0; i < SP_ARRAY_LEN(fault_signals); i++)
		sigaddset(set, fault_signals[i]);
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		sigaddset(set, s);
	sigaddset(set, SIGBUS);
}

static void remove_pending(void)
{
	for (sp_pending_output *t = pending_head; t; t = t->next)
		unlink(t->path);
}

static void on_fatal_signal(int sig)
{
	remove_pending();
	/* the default action happens once the handler returns and SIG is
	 * unblocked */
	signal(sig, SIG_DFL);
	raise(sig);
}

static void block_cleanup_signals(sigset_t *old)
{
	sigset_t set;
	fatal_signal_set(&set);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

void sp_signals_block_in_thread(void)
{
	sigset_t set;
	fatal_signal_set(&set);
	/* a fault of this thread's own still kills the process */
	for (size_t i = 0; i < SP_ARRAY_LEN(fault_signals); i++)
		sigdelset(&set, fault_signals[i]);
	sigdelset(&set, SIGBUS);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

/* Handles SIG with on_fatal_signal unless it is ignored (nohup, background
 * jobs: it stays so) or, with ONLY_DEFAULT, handled by someone else. */
static void handle(int sig, bool only_default)
{
	struct sigaction old, sa;
	if (sigaction(sig, NULL, &old) != 0 || old.sa_handler == SIG_IGN ||
	    (only_default && ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)))
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

/* Installs the handlers once. */
static void install_handlers(void)
{
	static bool installed;
	if (installed)
		return;
	installed = true;
	for (size_t i = 0; i < SP_ARRAY_LEN(cleanup_signals); i++)
		handle(cleanup_signals[i], false);
	for (size_t i = 0; i < SP_ARRAY_LEN(fault_signals); i++)
		handle(fault_signals[i], true);
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		handle(s, false);
}

static void say(const char *s)
{
	for (size_t n = strlen(s); n > 0;) {
		ssize_t w = write(STDERR_FILENO, s, n);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void on_bus_error(int sig)
{
	(void)sig;
	const char *in = input_name;
	say("symprof: ");
	say(in ? in : "an input");
	say(": a file being read became shorter under the program (SIGBUS)\n");
	remove_pending();
	_exit(1);
}

void sp_catch_bus_error(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_bus_error;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

/* A copy of the list's paths in memory another process reads (see
 * sp_sink_mirror_pending), or NULL. */
static sp_pending_mirror *mirror;

/* Writes the list's paths into the half of the mirror not being read, then
 * makes it the one read: a reader never sees one half-written.  Called
 * with the cleanup signals blocked. */
static void mirror_update(void)
{
	if (!mirror)
		return;
	unsigned next = atomic_load_explicit(&mirror->seq, memory_order_relaxed) + 1;
	char *out = mirror->paths[next & 1];
	size_t at = 0, cap = sizeof(mirror->paths[0]);
	for (sp_pending_output *t = pending_head; t; t = t->next) {
		size_t n = strlen(t->path) + 1;
		if (n < cap - at) { /* (one that does not fit is left out) */
			memcpy(out + at, t->path, n);
			at += n;
		}
	}
	out[at] = '\0';
	atomic_store_explicit(&mirror->seq, next, memory_order_release);
}

void sp_sink_mirror_pending(sp_pending_mirror *m)
{
	sigset_t old;
	block_cleanup_signals(&old);
	mirror = m;
	if (m) {
		atomic_store_explicit(&m->seq, 0, memory_order_relaxed);
		m->paths[0][0] = '\0';
		mirror_update();
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

const char *sp_pending_mirror_next(const sp_pending_mirror *m, size_t *at)
{
	unsigned seq = atomic_load_explicit(&((sp_pending_mirror *)m)->seq, memory_order_acquire);
	const char *p = m->paths[seq & 1];
	size_t cap = sizeof(m->paths[0]);
	if (*at >= cap || !p[*at] || !memchr(p + *at, '\0', cap - *at))
		return NULL;
	const char *path = p + *at;
	*at += strlen(path) + 1;
	return path;
}

int sp_pending_create(sp_pending_output *t, char *path_template)
{
	/* from its creation on, a signal removes the temporary file */
	sigset_t old;
	block_cleanup_signals(&old);
	int fd = mkstemp(path_template);
	int saved = errno;
	if (fd >= 0) {
		install_handlers();
		t->path = path_template;
		t->prev = NULL;
		t->next = pending_head;
		if (pending_head)
			pending_head->prev = t;
		pending_head = t;
		mirror_update();
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = saved;
	return fd;
}

void sp_pending_remove(sp_pending_output *t)
{
	if (!t->path)
		return;
	sigset_t old;
	block_cleanup_signals(&old);
	if (t->prev)
		t->prev->next = t->next;
	else
		pending_head = t->next;
	if (t->next)
		t->next->prev = t->prev;
	t->path = NULL;
	mirror_update();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void sp_sink_remove_pending(void)
{
	remove_pending();
}
