/* http.c — HTTP/1.1 for `symprof serve` through libmicrohttpd (the one file
 * that includes it).
 *
 * A thread per connection (MHD_USE_THREAD_PER_CONNECTION), at most
 * 256 of them (server.c), so a slow client holds its own thread and
 * nothing else; the engine work runs on at most --max-concurrent of them at
 * once (a semaphore: a request waits for a slot up to --request-timeout,
 * then gets 503 naming the cap).  A body is collected into memory up to
 * --max-body bytes (a declared Content-Length above it is refused at once
 * with 413, a chunked body when it passes it) and must arrive within
 * --request-timeout; a connection idle that long is closed by the library.
 * Each answer is counted (metrics.c) and, with an access log, written as
 * one JSON line.
 */
#include "serve/serve.h"

#include "common/common.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct sv_http {
	struct MHD_Daemon *d;
	sv_http_config c;
	sem_t slots;
	_Atomic int in_flight;       /* requests between their first byte and answer */
	pthread_mutex_t log_lock;
};

/* One request's state, from its first call to its answer. */
typedef struct {
	sp_buf body;
	struct timespec start;       /* headers read */
	bool too_big, too_slow;
	bool answered;
} request;

static double since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void remote_of(struct MHD_Connection *c, char *out, size_t n)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	snprintf(out, n, "unix");
	if (!ci || !ci->client_addr)
		return;
	const struct sockaddr *sa = ci->client_addr;
	socklen_t len = sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
			: sa->sa_family == AF_INET ? sizeof(struct sockaddr_in)
						   : 0;
	if (len && getnameinfo(sa, len, out, (socklen_t)n, NULL, 0, NI_NUMERICHOST))
		snprintf(out, n, "?");
}

static void access_log(sv_http *h, struct MHD_Connection *c, const char *method, const char *url,
		       const sv_answer *a, size_t in, double seconds)
{
	if (h->c.log_fd < 0)
		return;
	char remote[64], when[32];
	remote_of(c, remote, sizeof(remote));
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	sp_sink *s = sp_sink_memory_new();
	sp_sink_printf(s, "{\"time\":\"%s\",\"remote\":", when);
	sp_json_cstr(s, remote);
	sp_sink_puts(s, ",\"method\":");
	sp_json_cstr(s, method);
	sp_sink_puts(s, ",\"path\":");
	sp_json_cstr(s, url);
	sp_sink_printf(s,
		       ",\"status\":%d,\"bytes_in\":%zu,\"bytes_out\":%zu,\"addresses\":%zu,"
		       "\"seconds\":%.6f",
		       a->status, in, a->len, a->addresses, seconds);
	if (a->limit) {
		sp_sink_puts(s, ",\"limit\":");
		sp_json_cstr(s, a->limit);
	}
	sp_sink_puts(s, "}\n");
	size_t n;
	const uint8_t *d = sp_sink_memory_data(s, &n);
	pthread_mutex_lock(&h->log_lock);
	for (size_t off = 0; off < n;) {
		ssize_t w = write(h->c.log_fd, d + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	pthread_mutex_unlock(&h->log_lock);
	sp_sink_free(s);
}

/* Queues A on C (consumes its body), counts and logs it. */
static enum MHD_Result send_answer(sv_http *h, struct MHD_Connection *c, const char *method,
				   const char *url, request *rq, sv_answer *a, sv_endpoint ep)
{
	double secs = since(&rq->start);
	sv_metrics_request(ep, a->status, secs, a->addresses);
	if (a->limit)
		sv_metrics_rejected(a->limit);
	access_log(h, c, method, url, a, rq->body.len, secs);
	struct MHD_Response *r = MHD_create_response_from_buffer(a->len, a->body,
								 MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(a->body);
		return MHD_NO;
	}
	a->body = NULL;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, a->type);
	if (a->status == 503)
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1");
	enum MHD_Result ret = MHD_queue_response(c, (unsigned)a->status, r);
	MHD_destroy_response(r);
	rq->answered = true;
	return ret;
}

static enum MHD_Result refuse(sv_http *h, struct MHD_Connection *c, const char *method,
			      const char *url, request *rq, int status, const char *limit,
			      const char *msg)
{
	sv_answer a = {0};
	sv_answer_error(&a, status, limit, "%s", msg);
	sv_endpoint ep = SV_EP_OTHER;
	return send_answer(h, c, method, url, rq, &a, ep);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	(void)version;
	sv_http *h = cls;
	request *rq = *con_cls;
	char msg[160];
	if (!rq) {
		rq = sp_xcalloc(1, sizeof(*rq));
		clock_gettime(CLOCK_MONOTONIC, &rq->start);
		*con_cls = rq;
		atomic_fetch_add(&h->in_flight, 1);
		const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							     MHD_HTTP_HEADER_CONTENT_LENGTH);
		uint64_t n;
		if (cl && sp_parse_u64(cl, cl + strlen(cl), 10, &n) && n > h->c.max_body) {
			snprintf(msg, sizeof(msg),
				 "request body of %llu bytes: more than --max-body=%zu",
				 (unsigned long long)n, h->c.max_body);
			return refuse(h, c, method, url, rq, 413, "max-body", msg);
		}
		return MHD_YES;
	}
	if (rq->answered) { /* refused before its body: let the library drop it */
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (*upload_data_size) {
		if (h->c.body_timeout && since(&rq->start) > h->c.body_timeout) {
			snprintf(msg, sizeof(msg),
				 "request body still arriving after --request-timeout=%us",
				 h->c.body_timeout);
			*upload_data_size = 0;
			return refuse(h, c, method, url, rq, 408, "request-timeout", msg);
		}
		if (rq->body.len + *upload_data_size > h->c.max_body) {
			snprintf(msg, sizeof(msg), "request body: more than --max-body=%zu bytes",
				 h->c.max_body);
			*upload_data_size = 0;
			return refuse(h, c, method, url, rq, 413, "max-body", msg);
		}
		sp_buf_append(&rq->body, upload_data, *upload_data_size);
		*upload_data_size = 0;
		return MHD_YES;
	}
	/* the whole request is here */
	struct timespec deadline;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += h->c.body_timeout ? h->c.body_timeout : 30;
	sv_answer a = {0};
	sv_endpoint ep = SV_EP_OTHER;
	bool engine = strcmp(url, "/healthz") && strcmp(url, "/metrics");
	if (engine && sem_timedwait(&h->slots, &deadline)) {
		snprintf(msg, sizeof(msg),
			 "all --max-concurrent=%d request slots stayed busy past "
			 "--request-timeout",
			 h->c.max_concurrent);
		return refuse(h, c, method, url, rq, 503, "max-concurrent", msg);
	}
	const char *format = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "format");
	clock_gettime(CLOCK_MONOTONIC, &rq->start);
	if (engine)
		sv_metrics_busy(1);
	sv_handle(h->c.service, method, url, format, rq->body.data ? rq->body.data : "",
		  rq->body.len, &deadline, &a, &ep);
	if (engine) {
		sv_metrics_busy(-1);
		sem_post(&h->slots);
	}
	return send_answer(h, c, method, url, rq, &a, ep);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	(void)c;
	(void)toe;
	sv_http *h = cls;
	request *rq = *con_cls;
	if (!rq)
		return;
	sp_buf_free(&rq->body);
	free(rq);
	*con_cls = NULL;
	atomic_fetch_sub(&h->in_flight, 1);
}

static void on_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	char line[256];
	vsnprintf(line, sizeof(line), fmt, ap);
	size_t n = strlen(line);
	while (n && line[n - 1] == '\n')
		line[--n] = '\0';
	fprintf(stderr, "symprof serve: http: %s\n", line);
}

sv_http *sv_http_start(const sv_http_config *c)
{
	sv_http *h = sp_xcalloc(1, sizeof(*h));
	h->c = *c;
	sem_init(&h->slots, 0, (unsigned)(c->max_concurrent > 0 ? c->max_concurrent : 1));
	pthread_mutex_init(&h->log_lock, NULL);
	h->d = MHD_start_daemon(
		MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC |
			MHD_USE_ERROR_LOG | MHD_USE_POLL,
		0, NULL, NULL, on_request, h, MHD_OPTION_EXTERNAL_LOGGER, on_log, NULL,
		MHD_OPTION_LISTEN_SOCKET, c->listen_fd, MHD_OPTION_CONNECTION_TIMEOUT,
		c->idle_timeout, MHD_OPTION_CONNECTION_LIMIT, c->connection_limit,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, h, MHD_OPTION_END);
	if (!h->d) {
		fprintf(stderr, "symprof serve: the HTTP server did not start\n");
		sem_destroy(&h->slots);
		pthread_mutex_destroy(&h->log_lock);
		free(h);
		return NULL;
	}
	return h;
}

void sv_http_stop(sv_http *h, unsigned timeout)
{
	if (!h)
		return;
	MHD_quiesce_daemon(h->d); /* no new connections; the socket stays the caller's */
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (atomic_load(&h->in_flight) > 0 && since(&t0) < timeout)
		usleep(10000);
	MHD_stop_daemon(h->d);
	sem_destroy(&h->slots);
	pthread_mutex_destroy(&h->log_lock);
	free(h);
}
