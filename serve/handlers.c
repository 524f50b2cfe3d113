/* handlers.c — the endpoints of `symprof serve`: a request decoded
 * (json_in.c), the library called on the warm session of each object
 * (pool.c), the answer written as JSON.
 *
 *   GET  /healthz          {"status":"ok"}
 *   GET  /metrics          Prometheus text (metrics.c)
 *   POST /v1/symbolize     {"modules":[{"build_id","path","kind","addresses",..}]}
 *                          -> {"modules":[{.., "addresses":[{"address","reason",
 *                              "symbol","symbol_offset",
 *                              "frames":[{"function","raw","file","line","column",
 *                              "start_line","inlined"}]}]}]}
 *   POST /symbolicate/v5   Mozilla's Tecken API (see below)
 *   POST /v1/convert?format=F   a profile in, the converted bytes out
 *
 * Frames are those of symprof_symbolize (innermost first), the fields named
 * as `symprof symbolize --json` names them.
 */
#include "serve/serve.h"

#include "common/common.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void sv_answer_error(sv_answer *a, int status, const char *limit, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sp_sink *s = sp_sink_memory_new();
	sp_sink_puts(s, "{\"error\":");
	sp_json_cstr(s, msg);
	if (limit) {
		sp_sink_puts(s, ",\"limit\":");
		sp_json_cstr(s, limit);
	}
	sp_sink_puts(s, "}\n");
	size_t n;
	const uint8_t *d = sp_sink_memory_data(s, &n);
	free(a->body);
	a->body = sp_xstrndup((const char *)d, n);
	a->len = n;
	a->status = status;
	a->type = "application/json";
	a->limit = limit;
	sp_sink_free(s);
}

static void answer_sink(sv_answer *a, sp_sink *s)
{
	size_t n;
	const uint8_t *d = sp_sink_memory_data(s, &n);
	a->body = sp_xstrndup((const char *)d, n);
	a->len = n;
	a->status = 200;
	a->type = "application/json";
	sp_sink_free(s);
}

/* symprof_symbolize on the session of KEY; NULL with A set to an error. */
static symprof_symbols *symbolize(sv_service *sv, const char *key, const symprof_target *t,
				  const uint64_t *addrs, size_t n,
				  const struct timespec *deadline, sv_answer *a)
{
	char *err = NULL;
	int status = 500;
	sv_session *ss = sv_pool_acquire(sv->pool, key, deadline, &err, &status);
	if (!ss) {
		sv_answer_error(a, status, status == 503 ? "request-timeout" : NULL, "%s", err);
		free(err);
		return NULL;
	}
	symprof_symbols *r = NULL;
	if (sv->debuginfod)
		pthread_mutex_lock(&sv->debuginfod_lock);
	symprof_error *e = symprof_symbolize(sv_session_get(ss), t, addrs, n, &r);
	if (sv->debuginfod)
		pthread_mutex_unlock(&sv->debuginfod_lock);
	sv_pool_release(sv->pool, ss);
	if (e) {
		sv_answer_error(a, symprof_error_code(e) == SYMPROF_E_USAGE ? 400 : 500, NULL, "%s",
				symprof_error_message(e));
		symprof_error_free(e);
		return NULL;
	}
	return r;
}

static void put_hex(sp_sink *s, uint64_t v)
{
	sp_sink_printf(s, "\"0x%" PRIx64 "\"", v);
}

static void put_str_or_null(sp_sink *s, const char *v)
{
	if (v)
		sp_json_cstr(s, v);
	else
		sp_sink_puts(s, "null");
}

static void put_frames(sp_sink *s, const symprof_location *l)
{
	sp_sink_putc(s, '[');
	for (size_t k = 0; k < l->n_frames; k++) {
		const symprof_frame *f = &l->frames[k];
		sp_sink_puts(s, k ? ",{\"function\":" : "{\"function\":");
		put_str_or_null(s, f->function);
		sp_sink_puts(s, ",\"raw\":");
		put_str_or_null(s, f->linkage_name);
		sp_sink_puts(s, ",\"file\":");
		put_str_or_null(s, f->file);
		sp_sink_printf(s,
			       ",\"line\":%" PRId64 ",\"column\":%" PRId64 ",\"start_line\":%" PRId64
			       ",\"inlined\":%s}",
			       f->line, f->column, f->start_line, f->inlined ? "true" : "false");
	}
	sp_sink_putc(s, ']');
}

static void put_report(sp_sink *s, const symprof_mapping_report *r)
{
	sp_sink_puts(s, "\"used_path\":");
	put_str_or_null(s, r->used_path);
	sp_sink_puts(s, ",\"debug_path\":");
	put_str_or_null(s, r->debug_path);
	sp_sink_puts(s, ",\"found_build_id\":");
	put_str_or_null(s, r->build_id);
	sp_sink_printf(s, ",\"resolved\":%zu,\"unresolved\":{", r->n_resolved);
	for (size_t i = 0; i < r->n_unresolved; i++) {
		if (i)
			sp_sink_putc(s, ',');
		sp_json_cstr(s, symprof_reason_string(r->unresolved[i].reason));
		sp_sink_printf(s, ":%zu", r->unresolved[i].count);
	}
	sp_sink_puts(s, "},\"detail\":");
	put_str_or_null(s, r->detail);
	sp_sink_puts(s, ",\"tried\":[");
	for (size_t i = 0; i < r->n_tried; i++) {
		sp_sink_puts(s, i ? ",{\"path\":" : "{\"path\":");
		put_str_or_null(s, r->tried[i].path);
		sp_sink_puts(s, ",\"outcome\":");
		put_str_or_null(s, r->tried[i].outcome);
		sp_sink_putc(s, '}');
	}
	sp_sink_putc(s, ']');
}

static const char *kind_name(symprof_addr_kind k)
{
	switch (k) {
	case SYMPROF_ADDR_VADDR: return "elf_va";
	case SYMPROF_ADDR_RUNTIME: return "runtime";
	case SYMPROF_ADDR_FILE_OFFSET: return "file_offset";
	case SYMPROF_ADDR_RELATIVE: return "relative";
	}
	return "?";
}

static void do_symbolize(sv_service *sv, const char *body, size_t len,
			 const struct timespec *deadline, sv_answer *a)
{
	sv_sym_request rq;
	sv_fail f;
	if (!sv_parse_symbolize(body, len, sv->cfg->max_addresses, &rq, &f)) {
		sv_answer_error(a, f.status, f.status == 413 ? "max-addresses" : NULL, "%s", f.msg);
		return;
	}
	sp_sink *s = sp_sink_memory_new();
	sp_sink_puts(s, "{\"modules\":[");
	for (size_t i = 0; i < rq.n_mods; i++) {
		const sv_sym_module *m = &rq.mods[i];
		symprof_target t = {
			.size = sizeof(t),
			.path = m->path,
			.build_id = m->build_id,
			.kind = m->kind,
			.map_start = m->map_start,
			.map_limit = m->map_limit,
			.map_offset = m->map_offset,
			.pid = m->pid,
		};
		char *key = m->build_id ? sp_xasprintf("build-id:%s", m->build_id)
					: sp_xasprintf("path:%s", m->path);
		symprof_symbols *r = symbolize(sv, key, &t, m->addrs, m->n_addrs, deadline, a);
		free(key);
		if (!r) {
			sp_sink_free(s);
			sv_sym_request_clear(&rq);
			return;
		}
		a->addresses += m->n_addrs;
		sp_sink_puts(s, i ? ",{\"path\":" : "{\"path\":");
		put_str_or_null(s, m->path);
		sp_sink_puts(s, ",\"build_id\":");
		put_str_or_null(s, m->build_id);
		sp_sink_printf(s, ",\"kind\":\"%s\",", kind_name(m->kind));
		put_report(s, &r->report);
		sp_sink_puts(s, ",\"addresses\":[");
		for (size_t k = 0; k < r->n_locations; k++) {
			const symprof_location *l = &r->locations[k];
			sp_sink_puts(s, k ? ",{\"address\":" : "{\"address\":");
			put_hex(s, l->address);
			sp_sink_puts(s, ",\"reason\":");
			sp_json_cstr(s, symprof_reason_string(l->reason));
			sp_sink_puts(s, ",\"symbol\":");
			put_str_or_null(s, l->symbol);
			sp_sink_puts(s, ",\"symbol_offset\":");
			put_hex(s, l->symbol_offset);
			sp_sink_puts(s, ",\"frames\":");
			put_frames(s, l);
			sp_sink_putc(s, '}');
		}
		sp_sink_puts(s, "]}");
		symprof_symbols_free(r);
	}
	sp_sink_puts(s, "]}\n");
	sv_sym_request_clear(&rq);
	answer_sink(a, s);
}

/* -- /symbolicate/v5 ----------------------------------------------------------------
 *
 * Tecken's answer: {"results": [{"stacks": [[FRAME, ...], ...], "found_modules":
 * {"NAME/ID": true | false | null}}, ...]}, one result per job, where FRAME is
 * {"frame": i, "module_offset": "0x..", "module": NAME, "function": ..,
 * "function_offset": "0x..", "file": .., "line": .., "inlines": [{"function",
 * "file", "line"}, ...]}
 * (function and the rest only when found).  As samply does for ELF objects,
 * a module is a file named debugName found through --binary-path,
 * --path-map and --sysroot, accepted when its build id's debug id is the
 * one asked for; module offsets are relative to where its file offset 0 is
 * loaded (symprof symbolize --relative); the outermost frame of an address
 * gives "function", "file" and "line" (its call site when code was inlined
 * into it) and the inlined ones, innermost first, are "inlines".
 * "function_offset" is the address's offset in the symbol holding it (the
 * location's symbol, symprof symbolize -S's NAME+0xOFF), given when a
 * symbol holds it; inlines have none, as in Tecken's answers.
 */

typedef struct {
	symprof_symbols *r;          /* NULL: not found */
	uint64_t *addrs;
	size_t n;
	int state;                   /* 0: not used, 1: found, 2: not found */
} v5_module_state;

static size_t find_addr(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Symbolizes the addresses of module I of JOB into ST; false after an error
 * answer in A. */
static bool v5_module(sv_service *sv, const sv_v5_job *job, size_t i,
		      const struct timespec *deadline, v5_module_state *st, sv_answer *a)
{
	size_t n = 0;
	for (size_t k = 0; k < job->n_frames; k++)
		n += job->frames[k].module == (int64_t)i;
	if (!n)
		return true;
	st->addrs = sp_xcalloc(n, sizeof(*st->addrs));
	for (size_t k = 0; k < job->n_frames; k++)
		if (job->frames[k].module == (int64_t)i)
			st->addrs[st->n++] = job->frames[k].offset;
	qsort(st->addrs, st->n, sizeof(*st->addrs), cmp_u64);
	size_t u = 0;
	for (size_t k = 0; k < st->n; k++)
		if (!u || st->addrs[u - 1] != st->addrs[k])
			st->addrs[u++] = st->addrs[k];
	st->n = u;
	const sv_v5_module *m = &job->mods[i];
	symprof_target t = {.size = sizeof(t), .path = m->debug_name, .kind = SYMPROF_ADDR_RELATIVE};
	char *key = sp_xasprintf("debug-id:%s/%s", m->debug_name, m->debug_id);
	st->r = symbolize(sv, key, &t, st->addrs, st->n, deadline, a);
	free(key);
	if (!st->r)
		return false;
	a->addresses += st->n;
	char id[34];
	const char *bid = st->r->report.build_id;
	if (!st->r->report.used_path || !bid || !sv_debug_id(bid, id) ||
	    strcasecmp(id, m->debug_id)) {
		symprof_symbols_free(st->r);
		st->r = NULL;
		st->state = 2;
	} else {
		st->state = 1;
	}
	return true;
}

static void v5_frame(sp_sink *s, const sv_v5_job *job, const v5_module_state *ms, size_t idx,
		     size_t k)
{
	const sv_v5_frame *fr = &job->frames[k];
	sp_sink_printf(s, "{\"frame\":%zu,\"module_offset\":", idx);
	put_hex(s, fr->offset);
	if (fr->module < 0) {
		sp_sink_putc(s, '}');
		return;
	}
	const v5_module_state *st = &ms[fr->module];
	sp_sink_puts(s, ",\"module\":");
	sp_json_cstr(s, job->mods[fr->module].debug_name);
	const symprof_location *l =
		st->r ? &st->r->locations[find_addr(st->addrs, st->n, fr->offset)] : NULL;
	if (l && l->n_frames) {
		const symprof_frame *outer = &l->frames[l->n_frames - 1];
		sp_sink_puts(s, ",\"function\":");
		put_str_or_null(s, outer->function ? outer->function : outer->linkage_name);
		if (l->symbol) {
			sp_sink_puts(s, ",\"function_offset\":");
			put_hex(s, l->symbol_offset);
		}
		if (outer->file) {
			sp_sink_puts(s, ",\"file\":");
			sp_json_cstr(s, outer->file);
		}
		if (outer->line)
			sp_sink_printf(s, ",\"line\":%" PRId64, outer->line);
		if (l->n_frames > 1) {
			sp_sink_puts(s, ",\"inlines\":[");
			for (size_t j = 0; j + 1 < l->n_frames; j++) {
				const symprof_frame *f = &l->frames[j];
				sp_sink_puts(s, j ? ",{\"function\":" : "{\"function\":");
				put_str_or_null(s, f->function ? f->function : f->linkage_name);
				if (f->file) {
					sp_sink_puts(s, ",\"file\":");
					sp_json_cstr(s, f->file);
				}
				if (f->line)
					sp_sink_printf(s, ",\"line\":%" PRId64, f->line);
				sp_sink_putc(s, '}');
			}
			sp_sink_putc(s, ']');
		}
	}
	sp_sink_putc(s, '}');
}

static void do_v5(sv_service *sv, const char *body, size_t len, const struct timespec *deadline,
		  sv_answer *a)
{
	sv_v5_request rq;
	sv_fail f;
	if (!sv_parse_v5(body, len, sv->cfg->max_addresses, &rq, &f)) {
		sv_answer_error(a, f.status, f.status == 413 ? "max-addresses" : NULL, "%s", f.msg);
		return;
	}
	sp_sink *s = sp_sink_memory_new();
	sp_sink_puts(s, "{\"results\":[");
	bool ok = true;
	for (size_t j = 0; ok && j < rq.n_jobs; j++) {
		const sv_v5_job *job = &rq.jobs[j];
		v5_module_state *ms = sp_xcalloc(job->n_mods ? job->n_mods : 1, sizeof(*ms));
		for (size_t i = 0; ok && i < job->n_mods; i++)
			ok = v5_module(sv, job, i, deadline, &ms[i], a);
		if (ok) {
			sp_sink_puts(s, j ? ",{\"stacks\":[" : "{\"stacks\":[");
			size_t begin = 0;
			for (size_t st = 0; st < job->n_stacks; st++) {
				sp_sink_puts(s, st ? ",[" : "[");
				for (size_t k = begin; k < job->stack_end[st]; k++) {
					if (k > begin)
						sp_sink_putc(s, ',');
					v5_frame(s, job, ms, k - begin, k);
				}
				sp_sink_putc(s, ']');
				begin = job->stack_end[st];
			}
			sp_sink_puts(s, "],\"found_modules\":{");
			for (size_t i = 0; i < job->n_mods; i++) {
				if (i)
					sp_sink_putc(s, ',');
				char *k = sp_xasprintf("%s/%s", job->mods[i].debug_name,
						       job->mods[i].debug_id);
				sp_json_cstr(s, k);
				free(k);
				sp_sink_puts(s, ms[i].state == 1	 ? ":true"
						: ms[i].state == 2 ? ":false"
								   : ":null");
			}
			sp_sink_puts(s, "}}");
		}
		for (size_t i = 0; i < job->n_mods; i++) {
			symprof_symbols_free(ms[i].r);
			free(ms[i].addrs);
		}
		free(ms);
	}
	sp_sink_puts(s, "]}\n");
	sv_v5_request_clear(&rq);
	if (ok)
		answer_sink(a, s);
	else
		sp_sink_free(s);
}

/* -- /v1/convert ------------------------------------------------------------------- */

static const char *content_type(const char *format)
{
	static const struct {
		const char *format, *type;
	} types[] = {
		{"svg", "image/svg+xml"},       {"png", "image/png"},
		{"pdf", "application/pdf"},     {"html", "text/html; charset=utf-8"},
		{"flamegraph", "image/svg+xml"}, {"speedscope", "application/json"},
		{"firefox", "application/json"}, {"pprof", "application/octet-stream"},
	};
	for (size_t i = 0; format && i < SP_ARRAY_LEN(types); i++)
		if (!strcmp(types[i].format, format))
			return types[i].type;
	return format && strcmp(format, "pprof") ? "text/plain; charset=utf-8"
						 : "application/octet-stream";
}

static sp_error *count_bytes(void *ctx, const uint8_t *data, size_t n)
{
	(void)data;
	*(size_t *)ctx += n;
	return NULL;
}

/* A compressed body is decompressed once without keeping its output, up to
 * a quarter of the memory budget: a bomb is refused here, at the cost of
 * its CPU time, before the library's reader (whose bound is the whole
 * budget, which ends the process) holds it.  NULL, or the refusal. */
static sp_error *check_bomb(const char *body, size_t len)
{
	sp_codec codec = sp_codec_sniff((const uint8_t *)body, len);
	size_t limit = sp_mem_limit() / 4, out = 0;
	if (codec == SP_CODEC_NONE || !limit)
		return NULL;
	sp_decompress_limit lim = {
		.name = "request body",
		.limit = limit,
		.why = "a quarter of --max-memory, the most a request's profile may inflate to",
	};
	uint8_t *buf = sp_xmalloc(65536);
	sp_decompress_end end;
	sp_error *e = sp_decompress_stream(codec, &lim, (const uint8_t *)body, len, buf, 65536,
					   count_bytes, &out, &end);
	free(buf);
	return e; /* how the data ends is the reader's to say */
}

static void do_convert(sv_service *sv, const char *format, const char *body, size_t len,
		       const struct timespec *deadline, sv_answer *a)
{
	sp_error *bomb = check_bomb(body, len);
	if (bomb) {
		char *msg = sp_error_string(bomb);
		bool limit = sp_error_root_code(bomb) == SP_E_LIMIT;
		sv_answer_error(a, limit ? 413 : 400, limit ? "max-memory" : NULL, "%s", msg);
		free(msg);
		sp_error_free(bomb);
		return;
	}
	char *err = NULL;
	int status = 500;
	sv_session *ss = sv_pool_acquire(sv->pool, "convert", deadline, &err, &status);
	if (!ss) {
		sv_answer_error(a, status, status == 503 ? "request-timeout" : NULL, "%s", err);
		free(err);
		return;
	}
	symprof_convert_options o = {.size = sizeof(o), .format = format ? format : "pprof"};
	void *out = NULL;
	size_t out_len = 0;
	pthread_mutex_lock(&sv->convert_lock);
	if (sv->debuginfod)
		pthread_mutex_lock(&sv->debuginfod_lock);
	symprof_error *e = symprof_convert_memory(sv_session_get(ss), &o, body, len,
						  "request body", &out, &out_len, NULL);
	if (sv->debuginfod)
		pthread_mutex_unlock(&sv->debuginfod_lock);
	pthread_mutex_unlock(&sv->convert_lock);
	sv_pool_release(sv->pool, ss);
	if (e) {
		int code = 500;
		switch (symprof_error_code(e)) {
		case SYMPROF_E_UNRECOGNIZED: code = 415; break;
		case SYMPROF_E_MALFORMED:
		case SYMPROF_E_INVALID_PROFILE:
		case SYMPROF_E_USAGE:
		case SYMPROF_E_ZLIB: code = 400; break;
		case SYMPROF_E_LIMIT: code = 413; break;
		default: break;
		}
		sv_answer_error(a, code, code == 413 ? "max-memory" : NULL, "%s",
				symprof_error_message(e));
		symprof_error_free(e);
		symprof_free(out);
		return;
	}
	a->status = 200;
	a->type = content_type(o.format);
	a->body = sp_xmalloc(out_len ? out_len : 1);
	if (out_len)
		memcpy(a->body, out, out_len);
	a->len = out_len;
	symprof_free(out);
}

void sv_handle(sv_service *sv, const char *method, const char *path, const char *format,
	       const char *body, size_t len, const struct timespec *deadline, sv_answer *a,
	       sv_endpoint *ep)
{
	static const struct {
		const char *path, *method;
		sv_endpoint ep;
	} routes[] = {
		{"/healthz", "GET", SV_EP_HEALTHZ},
		{"/metrics", "GET", SV_EP_METRICS},
		{"/v1/symbolize", "POST", SV_EP_SYMBOLIZE},
		{"/symbolicate/v5", "POST", SV_EP_V5},
		{"/v1/convert", "POST", SV_EP_CONVERT},
	};
	size_t i = 0;
	while (i < SP_ARRAY_LEN(routes) && strcmp(routes[i].path, path))
		i++;
	*ep = i < SP_ARRAY_LEN(routes) ? routes[i].ep : SV_EP_OTHER;
	if (i == SP_ARRAY_LEN(routes)) {
		sv_answer_error(a, 404, NULL,
				"no such endpoint: %.200s (GET /healthz, GET /metrics, POST "
				"/v1/symbolize, POST /symbolicate/v5, POST /v1/convert)",
				path);
		return;
	}
	if (strcmp(method, routes[i].method) &&
	    !(!strcmp(method, "HEAD") && !strcmp(routes[i].method, "GET"))) {
		sv_answer_error(a, 405, NULL, "%s expects %s, not %.20s", path, routes[i].method,
				method);
		return;
	}
	switch (*ep) {
	case SV_EP_HEALTHZ:
		a->status = 200;
		a->type = "application/json";
		a->body = sp_xstrdup("{\"status\":\"ok\"}\n");
		a->len = strlen(a->body);
		break;
	case SV_EP_METRICS:
		a->status = 200;
		a->type = "text/plain; version=0.0.4; charset=utf-8";
		a->body = sv_metrics_text(sv->pool, &a->len);
		break;
	case SV_EP_SYMBOLIZE: do_symbolize(sv, body, len, deadline, a); break;
	case SV_EP_V5: do_v5(sv, body, len, deadline, a); break;
	case SV_EP_CONVERT: do_convert(sv, format, body, len, deadline, a); break;
	default: break;
	}
}
