/* server.c — the run of `symprof serve`: the listening socket (TCP or a
 * unix socket), the warm sessions, the HTTP threads, and the end: SIGTERM
 * or SIGINT stop new connections, requests in flight get up to
 * --shutdown-timeout seconds to finish, then every connection ends and the
 * sessions are freed.
 *
 * The signals are blocked before any thread starts, so every thread
 * inherits the mask and the main thread alone takes them, with sigwait.
 * The memory budget is the process's (set by the command before this
 * runs): sessions are evicted when memory in use passes three quarters of
 * it, so requests have room.
 */
#include "serve/serve.h"

#include "common/common.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* Binds and listens on SPEC; prints what it listens on (or why not).
 * Returns the descriptor, or -1. */
static int listen_on(const char *spec, bool quiet)
{
	int fd = -1;
	if (!strncmp(spec, "unix:", 5)) {
		const char *path = spec + 5;
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		if (!*path || strlen(path) >= sizeof(sa.sun_path)) {
			fprintf(stderr, "symprof serve: --listen %s: expected unix:PATH, PATH up to %zu bytes\n",
				spec, sizeof(sa.sun_path) - 1);
			return -1;
		}
		memcpy(sa.sun_path, path, strlen(path) + 1);
		struct stat st;
		/* a socket left by an earlier run is replaced; any other file is not */
		if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
			unlink(path);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 128)) {
			fprintf(stderr, "symprof serve: --listen %s: %s\n", spec, strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		if (!quiet) {
			printf("symprof serve: listening on unix:%s\n", path);
			fflush(stdout);
		}
		return fd;
	}
	const char *colon = strrchr(spec, ':');
	if (!colon || colon == spec || !colon[1]) {
		fprintf(stderr, "symprof serve: --listen %s: expected HOST:PORT or unix:PATH\n", spec);
		return -1;
	}
	char *host = sp_xstrndup(spec, (size_t)(colon - spec));
	if (host[0] == '[' && host[strlen(host) - 1] == ']') { /* [::1]:8080 */
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = '\0';
	}
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
	struct addrinfo *ai = NULL;
	int e = getaddrinfo(host, colon + 1, &hints, &ai);
	if (e) {
		fprintf(stderr, "symprof serve: --listen %s: %s\n", spec, gai_strerror(e));
		free(host);
		return -1;
	}
	int err = 0;
	for (struct addrinfo *p = ai; p && fd < 0; p = p->ai_next) {
		fd = socket(p->ai_family, p->ai_socktype | SOCK_CLOEXEC, p->ai_protocol);
		if (fd < 0) {
			err = errno;
			continue;
		}
		int one = 1;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, p->ai_addr, p->ai_addrlen) || listen(fd, 128)) {
			err = errno;
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(ai);
	if (fd < 0) {
		fprintf(stderr, "symprof serve: --listen %s: %s\n", spec, strerror(err));
		free(host);
		return -1;
	}
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char h[NI_MAXHOST], port[NI_MAXSERV];
	if (!quiet && !getsockname(fd, (struct sockaddr *)&ss, &sl) &&
	    !getnameinfo((struct sockaddr *)&ss, sl, h, sizeof(h), port, sizeof(port),
			 NI_NUMERICHOST | NI_NUMERICSERV)) {
		bool v6 = ss.ss_family == AF_INET6;
		printf("symprof serve: listening on http://%s%s%s:%s\n", v6 ? "[" : "", h,
		       v6 ? "]" : "", port);
		fflush(stdout);
	}
	free(host);
	return fd;
}

int sp_serve_run(const sp_serve_config *c)
{
	sigset_t sigs;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	int log_fd = -1;
	if (c->access_log && !strcmp(c->access_log, "-")) {
		log_fd = STDERR_FILENO;
	} else if (c->access_log) {
		log_fd = open(c->access_log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (log_fd < 0) {
			fprintf(stderr, "symprof serve: --access-log %s: %s\n", c->access_log,
				strerror(errno));
			return 1;
		}
	}
	int fd = listen_on(c->listen, c->quiet);
	if (fd < 0) {
		if (log_fd > STDERR_FILENO)
			close(log_fd);
		return 1;
	}
	size_t limit = sp_mem_limit();
	sv_service sv = {
		.cfg = c,
		.pool = sv_pool_new(&c->sym, limit ? limit / 4 * 3 : 0, c->max_sessions),
	};
	const char *urls = getenv("DEBUGINFOD_URLS");
	sv.debuginfod = !c->sym.no_debuginfod && urls && *urls;
	pthread_mutex_init(&sv.convert_lock, NULL);
	pthread_mutex_init(&sv.debuginfod_lock, NULL);
	sv_http_config hc = {
		.listen_fd = fd,
		.idle_timeout = c->request_timeout,
		.connection_limit = 256,
		.max_body = c->max_body,
		.body_timeout = c->request_timeout,
		.max_concurrent = c->max_concurrent > 0 ? c->max_concurrent : 4,
		.service = &sv,
		.log_fd = log_fd,
	};
	sv_http *h = sv_http_start(&hc);
	int rc = 1;
	if (h) {
		int sig = 0;
		while (sigwait(&sigs, &sig) == 0 && sig == SIGHUP)
			; /* nothing to reload: the sessions hold caches only */
		if (!c->quiet) {
			fprintf(stderr, "symprof serve: %s: finishing requests in flight (up to %us)\n",
				strsignal(sig), c->shutdown_timeout);
		}
		sv_http_stop(h, c->shutdown_timeout);
		rc = 0;
	}
	close(fd);
	if (!strncmp(c->listen, "unix:", 5))
		unlink(c->listen + 5);
	sv_pool_free(sv.pool);
	pthread_mutex_destroy(&sv.convert_lock);
	pthread_mutex_destroy(&sv.debuginfod_lock);
	if (log_fd > STDERR_FILENO)
		close(log_fd);
	return rc;
}
