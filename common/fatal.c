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
#include <signal.h>
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
 * all async-signal-safe. */
static sp_pending_output *volatile pending_head;
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGABRT};

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
	sigemptyset(&set);
	for (size_t i = 0; i < SP_ARRAY_LEN(cleanup_signals); i++)
		sigaddset(&set, cleanup_signals[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

/* Installs the handler once; a signal the process was told to ignore
 * (nohup, background jobs) stays ignored. */
static void install_handlers(void)
{
	static bool installed;
	if (installed)
		return;
	installed = true;
	for (size_t i = 0; i < SP_ARRAY_LEN(cleanup_signals); i++) {
		struct sigaction old, sa;
		if (sigaction(cleanup_signals[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_fatal_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(cleanup_signals[i], &sa, NULL);
	}
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
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
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
	sigprocmask(SIG_SETMASK, &old, NULL);
}

void sp_sink_remove_pending(void)
{
	remove_pending();
}
