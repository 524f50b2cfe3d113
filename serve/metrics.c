/* metrics.c — what /metrics tells, in Prometheus' text exposition format
 * (version 0.0.4): requests by endpoint and status, a latency histogram per
 * endpoint, addresses symbolized, requests refused by a cap, the sessions
 * kept warm (open, made, reused, evicted) and the memory in use against the
 * budget.  Counters are atomics: requests on every thread count without a
 * lock.
 */
#include "serve/serve.h"

#include "common/common.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const endpoint_names[SV_EP_COUNT] = {
	"/healthz", "/metrics", "/v1/symbolize", "/symbolicate/v5", "/v1/convert", "other",
};

const char *sv_endpoint_name(sv_endpoint e)
{
	return endpoint_names[e];
}

/* The statuses the server answers with; anything else counts as "other". */
static const int statuses[] = {200, 400, 404, 405, 408, 413, 415, 422, 500, 503};
#define N_STATUS (SP_ARRAY_LEN(statuses) + 1)

/* Upper bounds of the latency buckets, in seconds. */
static const double buckets[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
				 0.25,  0.5,    1,     2.5,  5,     10};
#define N_BUCKET (SP_ARRAY_LEN(buckets))

static const char *const limits[] = {"max-body", "max-addresses", "max-concurrent",
				     "request-timeout"};
#define N_LIMIT (SP_ARRAY_LEN(limits))

static struct {
	_Atomic uint64_t requests[SV_EP_COUNT][N_STATUS];
	_Atomic uint64_t bucket[SV_EP_COUNT][N_BUCKET + 1]; /* not cumulative; last: +Inf */
	_Atomic uint64_t micros[SV_EP_COUNT];
	_Atomic uint64_t addresses;
	_Atomic uint64_t rejected[N_LIMIT];
	_Atomic int64_t busy;
} m;

void sv_metrics_busy(int delta)
{
	atomic_fetch_add_explicit(&m.busy, delta, memory_order_relaxed);
}

void sv_metrics_request(sv_endpoint e, int status, double seconds, size_t addresses)
{
	size_t si = 0;
	while (si < SP_ARRAY_LEN(statuses) && statuses[si] != status)
		si++;
	size_t b = 0;
	while (b < N_BUCKET && seconds > buckets[b])
		b++;
	atomic_fetch_add_explicit(&m.requests[e][si], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&m.bucket[e][b], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&m.micros[e], (uint64_t)(seconds * 1e6), memory_order_relaxed);
	atomic_fetch_add_explicit(&m.addresses, addresses, memory_order_relaxed);
}

void sv_metrics_rejected(const char *limit)
{
	for (size_t i = 0; i < N_LIMIT; i++)
		if (!strcmp(limits[i], limit))
			atomic_fetch_add_explicit(&m.rejected[i], 1, memory_order_relaxed);
}

static uint64_t get(_Atomic uint64_t *v)
{
	return atomic_load_explicit(v, memory_order_relaxed);
}

char *sv_metrics_text(sv_pool *p, size_t *len)
{
	sp_buf b = {0};
	sp_buf_puts(&b, "# HELP symprof_requests_total Requests answered, by endpoint and status.\n"
			"# TYPE symprof_requests_total counter\n");
	for (size_t e = 0; e < SV_EP_COUNT; e++)
		for (size_t s = 0; s < N_STATUS; s++) {
			uint64_t v = get(&m.requests[e][s]);
			if (!v)
				continue;
			char code[16] = "other";
			if (s < SP_ARRAY_LEN(statuses))
				snprintf(code, sizeof(code), "%d", statuses[s]);
			sp_buf_printf(&b, "symprof_requests_total{endpoint=\"%s\",code=\"%s\"} %" PRIu64 "\n",
				      endpoint_names[e], code, v);
		}
	sp_buf_puts(&b, "# HELP symprof_request_duration_seconds Time from a request's "
			"last byte to its answer.\n"
			"# TYPE symprof_request_duration_seconds histogram\n");
	for (size_t e = 0; e < SV_EP_COUNT; e++) {
		uint64_t cum = 0;
		for (size_t k = 0; k <= N_BUCKET; k++) {
			cum += get(&m.bucket[e][k]);
			if (k < N_BUCKET)
				sp_buf_printf(&b,
					      "symprof_request_duration_seconds_bucket{endpoint=\"%s\","
					      "le=\"%g\"} %" PRIu64 "\n",
					      endpoint_names[e], buckets[k], cum);
			else
				sp_buf_printf(&b,
					      "symprof_request_duration_seconds_bucket{endpoint=\"%s\","
					      "le=\"+Inf\"} %" PRIu64 "\n",
					      endpoint_names[e], cum);
		}
		sp_buf_printf(&b,
			      "symprof_request_duration_seconds_sum{endpoint=\"%s\"} %.6f\n"
			      "symprof_request_duration_seconds_count{endpoint=\"%s\"} %" PRIu64 "\n",
			      endpoint_names[e], (double)get(&m.micros[e]) / 1e6, endpoint_names[e], cum);
	}
	sp_buf_printf(&b,
		      "# HELP symprof_addresses_total Addresses (frames) symbolized.\n"
		      "# TYPE symprof_addresses_total counter\n"
		      "symprof_addresses_total %" PRIu64 "\n",
		      get(&m.addresses));
	sp_buf_puts(&b, "# HELP symprof_rejected_total Requests refused by a cap, by the "
			"option that sets it.\n"
			"# TYPE symprof_rejected_total counter\n");
	for (size_t i = 0; i < N_LIMIT; i++)
		sp_buf_printf(&b, "symprof_rejected_total{limit=\"%s\"} %" PRIu64 "\n", limits[i],
			      get(&m.rejected[i]));
	sp_buf_printf(&b,
		      "# HELP symprof_requests_in_progress Requests holding a --max-concurrent slot.\n"
		      "# TYPE symprof_requests_in_progress gauge\n"
		      "symprof_requests_in_progress %" PRId64 "\n",
		      (int64_t)atomic_load_explicit(&m.busy, memory_order_relaxed));
	sv_pool_stats st;
	sv_pool_stats_get(p, &st);
	sp_buf_printf(&b,
		      "# HELP symprof_sessions_open Sessions (opened objects and their indexes) "
		      "kept warm.\n"
		      "# TYPE symprof_sessions_open gauge\n"
		      "symprof_sessions_open %zu\n"
		      "# HELP symprof_session_hits_total Requests that found their session warm.\n"
		      "# TYPE symprof_session_hits_total counter\n"
		      "symprof_session_hits_total %zu\n"
		      "# HELP symprof_session_misses_total Requests that made their session.\n"
		      "# TYPE symprof_session_misses_total counter\n"
		      "symprof_session_misses_total %zu\n"
		      "# HELP symprof_sessions_evicted_total Sessions freed for memory or count.\n"
		      "# TYPE symprof_sessions_evicted_total counter\n"
		      "symprof_sessions_evicted_total %zu\n"
		      "# HELP symprof_memory_bytes Memory in use as the budget counts it.\n"
		      "# TYPE symprof_memory_bytes gauge\n"
		      "symprof_memory_bytes %zu\n"
		      "# HELP symprof_memory_limit_bytes The budget (--max-memory); 0: none.\n"
		      "# TYPE symprof_memory_limit_bytes gauge\n"
		      "symprof_memory_limit_bytes %zu\n",
		      st.open, st.hits, st.made, st.evicted, sp_mem_in_use(), sp_mem_limit());
	*len = b.len;
	return sp_buf_take(&b);
}
