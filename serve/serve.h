/* serve.h — `symprof serve`: the engine (symprof.h) behind HTTP.
 *
 * The parts, one concern per file:
 *   server.c    the run: listener, signals, graceful stop, access log
 *   http.c      the one wrapper of libmicrohttpd: connections, bodies, caps
 *   json_in.c   the one wrapper of json-c: request bodies into the structs
 *               below (nothing else sees a json_object)
 *   pool.c      sessions per object, least recently used evicted
 *   handlers.c  the endpoints: requests into library calls, answers as JSON
 *   metrics.c   counters and the latency histogram (/metrics)
 *   debugid.c   breakpad debug ids of GNU build ids
 * The command (convert/cmd_serve.c) parses the flags into sp_serve_config.
 */
#ifndef SYMPROF_SERVE_H
#define SYMPROF_SERVE_H

#include "pipeline/symprof.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* -- configuration ------------------------------------------------------------------ */

typedef struct {
	const char *listen;          /* "HOST:PORT" (PORT 0: any free one) or "unix:PATH" */
	symprof_options sym;         /* every session's; max_memory stays 0 (the process's
					budget is set once, before any thread) */
	size_t max_body;             /* bytes of a request body; 0: 64 MiB */
	size_t max_addresses;        /* addresses (frames) of one request; 0: 100000 */
	int max_concurrent;          /* requests answered at once; 0: 4 */
	unsigned request_timeout;    /* seconds: a connection idle, a body being sent, a
					request waiting for its session; 0: 30 */
	unsigned shutdown_timeout;   /* seconds in-flight requests get after SIGTERM; 0: 10 */
	size_t max_sessions;         /* warm sessions kept; 0: 64 */
	const char *access_log;      /* file of JSON lines ("-": stderr); NULL: none */
	bool quiet;                  /* no "listening" line */
} sp_serve_config;

/* Serves until SIGTERM or SIGINT; returns 0, or 1 after printing why it
 * could not start (listener, log file). */
int sp_serve_run(const sp_serve_config *c);

/* -- requests (json_in.c) ------------------------------------------------------------ */

/* What an error in a request body says: a message naming the position (byte
 * offset) or the member, and the HTTP status it earns. */
typedef struct {
	int status;
	char msg[256];
} sv_fail;

/* POST /v1/symbolize: one entry per object. */
typedef struct {
	char *path, *build_id;       /* either may be NULL, not both */
	symprof_addr_kind kind;
	uint64_t map_start, map_limit, map_offset;
	uint32_t pid;
	uint64_t *addrs;
	size_t n_addrs;
} sv_sym_module;

typedef struct {
	sv_sym_module *mods;
	size_t n_mods;
} sv_sym_request;

/* POST /symbolicate/v5: jobs of a memory map and stacks of frames. */
typedef struct {
	char *debug_name, *debug_id;
} sv_v5_module;

typedef struct {
	int64_t module;              /* index in the job's map; -1: none */
	uint64_t offset;
} sv_v5_frame;

typedef struct {
	sv_v5_module *mods;
	size_t n_mods;
	sv_v5_frame *frames;         /* every stack's, one after the other */
	size_t n_frames;
	size_t *stack_end;           /* stack i is frames[stack_end[i-1] .. stack_end[i]) */
	size_t n_stacks;
} sv_v5_job;

typedef struct {
	sv_v5_job *jobs;
	size_t n_jobs;
	bool jobs_form;              /* {"jobs": [...]} rather than one job's members */
} sv_v5_request;

/* Deepest nesting of arrays and objects a body may have. */
#define SV_JSON_MAX_DEPTH 32

/* Decode BODY[0..len); at most MAX_ADDRS addresses (frames) in all.  False
 * with *F filled (400: malformed or not the API's shape, 413: over the
 * addresses' cap) and nothing to free. */
bool sv_parse_symbolize(const char *body, size_t len, size_t max_addrs, sv_sym_request *out,
			sv_fail *f);
void sv_sym_request_clear(sv_sym_request *r);
bool sv_parse_v5(const char *body, size_t len, size_t max_addrs, sv_v5_request *out,
		 sv_fail *f);
void sv_v5_request_clear(sv_v5_request *r);

/* -- debug ids (debugid.c) ----------------------------------------------------------- */

/* The breakpad debug id of the GNU build id HEX (lower or upper case): its
 * first 16 bytes (zero-padded) as a GUID whose first three fields are
 * little-endian, in upper-case hex, then the age 0: 33 characters into
 * OUT[34].  False when HEX is not an even number of hex digits. */
bool sv_debug_id(const char *hex, char out[34]);

/* -- sessions (pool.c) --------------------------------------------------------------- */

typedef struct sv_pool sv_pool;
typedef struct sv_session sv_session;

/* O copied deeply by each session made; HIGH_WATER: bytes of memory in use
 * (sp_mem_in_use) above which idle sessions are freed, least recently used
 * first (0: none); at most MAX_SESSIONS kept. */
sv_pool *sv_pool_new(const symprof_options *o, size_t high_water, size_t max_sessions);
void sv_pool_free(sv_pool *p);
/* The session of KEY, made when missing, locked for the caller alone until
 * sv_pool_release; NULL with *ERR set when it could not be made, or (503)
 * when its lock was not free before DEADLINE (CLOCK_REALTIME). */
sv_session *sv_pool_acquire(sv_pool *p, const char *key, const struct timespec *deadline,
			    char **err, int *status);
symprof_session *sv_session_get(sv_session *s);
void sv_pool_release(sv_pool *p, sv_session *s);
/* Frees idle sessions, least recently used first, while memory in use is
 * above the high water mark or more than the maximum are kept. */
void sv_pool_trim(sv_pool *p);
/* Gauges and counters for /metrics. */
typedef struct {
	size_t open, made, hits, evicted;
} sv_pool_stats;
void sv_pool_stats_get(sv_pool *p, sv_pool_stats *st);

/* -- metrics (metrics.c) -------------------------------------------------------------- */

typedef enum {
	SV_EP_HEALTHZ,
	SV_EP_METRICS,
	SV_EP_SYMBOLIZE,
	SV_EP_V5,
	SV_EP_CONVERT,
	SV_EP_OTHER,
	SV_EP_COUNT
} sv_endpoint;

const char *sv_endpoint_name(sv_endpoint e);
void sv_metrics_request(sv_endpoint e, int status, double seconds, size_t addresses);
void sv_metrics_rejected(const char *limit);
/* A request took (+1) or gave back (-1) one of the --max-concurrent slots. */
void sv_metrics_busy(int delta);
/* The Prometheus text exposition of everything counted, with the pool's
 * gauges and the memory figures (caller frees). */
char *sv_metrics_text(sv_pool *p, size_t *len);

/* -- the endpoints (handlers.c) ------------------------------------------------------- */

typedef struct {
	const sp_serve_config *cfg;
	sv_pool *pool;
	pthread_mutex_t convert_lock;  /* symprof_convert_memory: one at a time */
	pthread_mutex_t debuginfod_lock; /* calls that may ask debuginfod: one at a time */
	bool debuginfod;               /* servers may be asked */
} sv_service;

/* An answer: status, content type (static) and body (malloc'ed). */
typedef struct {
	int status;
	const char *type;
	char *body;
	size_t len;
	size_t addresses;             /* for the access log and the metrics */
	const char *limit;            /* the cap that refused the request, or NULL */
} sv_answer;

/* Answers METHOD PATH with BODY[0..len); FORMAT is ?format= (or NULL). */
void sv_handle(sv_service *sv, const char *method, const char *path, const char *format,
	       const char *body, size_t len, const struct timespec *deadline, sv_answer *a,
	       sv_endpoint *ep);
/* An error answer {"error": MSG, "limit": LIMIT}. */
void sv_answer_error(sv_answer *a, int status, const char *limit, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* -- HTTP (http.c) -------------------------------------------------------------------- */

typedef struct sv_http sv_http;

typedef struct {
	int listen_fd;                 /* bound and listening; owned by the server */
	unsigned idle_timeout;         /* seconds */
	unsigned connection_limit;
	size_t max_body;
	unsigned body_timeout;         /* seconds a request's body may take */
	int max_concurrent;
	sv_service *service;
	int log_fd;                    /* access log, or -1 */
} sv_http_config;

/* Starts the server's threads on C's socket; NULL after printing why. */
sv_http *sv_http_start(const sv_http_config *c);
/* Stops accepting, waits up to TIMEOUT seconds for requests in flight,
 * then ends every connection and thread. */
void sv_http_stop(sv_http *h, unsigned timeout);

#endif
