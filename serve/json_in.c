/* json_in.c — request bodies of `symprof serve`, read with json-c (the one
 * file that includes it).
 *
 *   POST /v1/symbolize
 *     {"modules": [{"build_id": "ab12...", "path": "/usr/lib/libc.so.6",
 *                   "kind": "elf_va" | "file_offset" | "relative" | "runtime",
 *                   "mapping": {"start": "0x7f..", "limit": "0x7f..", "offset": 0},
 *                   "pid": 123, "addresses": ["0x1139", 4409]}]}
 *   POST /symbolicate/v5 (Mozilla's Tecken API)
 *     {"memoryMap": [["libc.so.6", "<debug id>"]], "stacks": [[[0, 4409], [-1, 12]]]}
 *     or {"jobs": [ <that object>, ... ]}
 *
 * json-c rather than formats/json_pull.c: the body is small and whole in
 * memory, json-c's tokenizer bounds the nesting depth itself, and it is the
 * library debuginfod reads its JSON with.  Before json-c sees a body, the
 * number of values it can hold (commas, brackets, braces) is checked against
 * the cap on addresses, so a body of a million empty arrays costs no more
 * than its bytes.  Addresses are numbers (integers, 0 .. 2^64-1) or strings
 * of hex digits with an optional "0x".
 */
#include "serve/serve.h"

#include "common/common.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool fail(sv_fail *f, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool fail(sv_fail *f, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	f->status = status;
	vsnprintf(f->msg, sizeof(f->msg), fmt, ap);
	va_end(ap);
	return false;
}

/* Values a body can hold at most: one more than its separators. */
static size_t value_bound(const char *s, size_t n)
{
	size_t k = 1;
	for (size_t i = 0; i < n; i++)
		k += s[i] == ',' || s[i] == '[' || s[i] == '{';
	return k;
}

/* Parses BODY into *OUT (caller puts it). */
static bool parse(const char *body, size_t len, size_t max_addrs, json_object **out, sv_fail *f)
{
	*out = NULL;
	if (len > INT_MAX)
		return fail(f, 413, "request body: %zu bytes, more than JSON bodies may have", len);
	/* a request holds about four values per address at most (two arrays
	 * and two numbers per Tecken frame), plus its modules' members */
	size_t bound = value_bound(body, len);
	if (max_addrs && bound / 4 > max_addrs + 1024)
		return fail(f, 413,
			    "request body: up to %zu JSON values, more than --max-addresses=%zu "
			    "allows",
			    bound, max_addrs);
	json_tokener *tok = json_tokener_new_ex(SV_JSON_MAX_DEPTH);
	if (!tok)
		sp_oom();
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	json_object *o = json_tokener_parse_ex(tok, body, (int)len);
	enum json_tokener_error e = json_tokener_get_error(tok);
	size_t end = json_tokener_get_parse_end(tok);
	if (e == json_tokener_continue) {
		json_tokener_free(tok);
		return fail(f, 400, "request body: JSON ends early at byte %zu", len);
	}
	if (e != json_tokener_success) {
		json_tokener_free(tok);
		if (e == json_tokener_error_depth)
			return fail(f, 400,
				    "request body: malformed JSON at byte %zu: nested deeper than %d "
				    "levels",
				    end, SV_JSON_MAX_DEPTH);
		return fail(f, 400, "request body: malformed JSON at byte %zu: %s", end,
			    json_tokener_error_desc(e));
	}
	json_tokener_free(tok);
	for (; end < len; end++) {
		if (body[end] != ' ' && body[end] != '\t' && body[end] != '\n' && body[end] != '\r') {
			json_object_put(o);
			return fail(f, 400, "request body: more after the JSON value, at byte %zu", end);
		}
	}
	if (!json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return fail(f, 400, "request body: expected a JSON object");
	}
	*out = o;
	return true;
}

/* An address: a non-negative integer, or a string of hex digits. */
static bool address(json_object *v, uint64_t *out)
{
	if (json_object_is_type(v, json_type_int)) {
		const char *s = json_object_get_string(v);
		return s && sp_parse_u64(s, s + strlen(s), 10, out);
	}
	if (json_object_is_type(v, json_type_string)) {
		const char *s = json_object_get_string(v);
		size_t n = (size_t)json_object_get_string_len(v);
		if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
			s += 2, n -= 2;
		if (!n || n > 16 || memchr(s, 'x', n) || memchr(s, 'X', n))
			return false;
		return sp_parse_u64(s, s + n, 16, out);
	}
	return false;
}

/* An optional string member; false (F filled) when it is there but no
 * string, or holds a NUL. */
static bool opt_string(json_object *o, const char *key, const char *where, char **out,
		       sv_fail *f)
{
	json_object *v;
	*out = NULL;
	if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
		return true;
	if (!json_object_is_type(v, json_type_string))
		return fail(f, 400, "%s.%s: expected a string", where, key);
	const char *s = json_object_get_string(v);
	size_t n = (size_t)json_object_get_string_len(v);
	if (memchr(s, '\0', n) || !n)
		return fail(f, 400, "%s.%s: expected a non-empty string without NUL", where, key);
	*out = sp_xstrndup(s, n);
	return true;
}

static bool opt_u64(json_object *o, const char *key, const char *where, uint64_t *out,
		    sv_fail *f)
{
	json_object *v;
	if (!json_object_object_get_ex(o, key, &v))
		return true;
	if (!address(v, out))
		return fail(f, 400, "%s.%s: expected an integer from 0 to 2^64-1 or a hex string",
			    where, key);
	return true;
}

static const struct {
	const char *name;
	symprof_addr_kind kind;
} kinds[] = {
	{"elf_va", SYMPROF_ADDR_VADDR},
	{"file_offset", SYMPROF_ADDR_FILE_OFFSET},
	{"relative", SYMPROF_ADDR_RELATIVE},
	{"runtime", SYMPROF_ADDR_RUNTIME},
};

static bool sym_module(json_object *m, size_t i, size_t *total, size_t max_addrs,
		       sv_sym_module *out, sv_fail *f)
{
	char where[48];
	snprintf(where, sizeof(where), "modules[%zu]", i);
	if (!json_object_is_type(m, json_type_object))
		return fail(f, 400, "%s: expected an object", where);
	if (!opt_string(m, "path", where, &out->path, f) ||
	    !opt_string(m, "build_id", where, &out->build_id, f))
		return false;
	if (!out->path && !out->build_id)
		return fail(f, 400, "%s: expected \"build_id\" or \"path\" (or both)", where);
	if (out->build_id) {
		size_t n = strlen(out->build_id);
		for (size_t k = 0; k < n; k++)
			if (!strchr("0123456789abcdefABCDEF", out->build_id[k]))
				return fail(f, 400, "%s.build_id: expected hex digits", where);
		if (n % 2)
			return fail(f, 400, "%s.build_id: expected an even number of hex digits",
				    where);
	}
	json_object *v;
	out->kind = SYMPROF_ADDR_VADDR;
	if (json_object_object_get_ex(m, "kind", &v)) {
		const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v)
									  : NULL;
		size_t k = 0;
		while (s && k < SP_ARRAY_LEN(kinds) && strcmp(s, kinds[k].name))
			k++;
		if (!s || k == SP_ARRAY_LEN(kinds))
			return fail(f, 400,
				    "%s.kind: expected \"elf_va\", \"file_offset\", \"relative\" or "
				    "\"runtime\"",
				    where);
		out->kind = kinds[k].kind;
	}
	if (out->kind == SYMPROF_ADDR_RUNTIME) {
		json_object *mp;
		char mw[64];
		snprintf(mw, sizeof(mw), "%s.mapping", where);
		if (!json_object_object_get_ex(m, "mapping", &mp) ||
		    !json_object_is_type(mp, json_type_object))
			return fail(f, 400, "%s: kind runtime needs a \"mapping\" object", where);
		if (!json_object_object_get_ex(mp, "start", &v) ||
		    !json_object_object_get_ex(mp, "limit", &v))
			return fail(f, 400, "%s: expected \"start\" and \"limit\"", mw);
		if (!opt_u64(mp, "start", mw, &out->map_start, f) ||
		    !opt_u64(mp, "limit", mw, &out->map_limit, f) ||
		    !opt_u64(mp, "offset", mw, &out->map_offset, f))
			return false;
		if (out->map_limit <= out->map_start)
			return fail(f, 400, "%s: \"limit\" must be above \"start\"", mw);
		uint64_t pid = 0;
		if (!opt_u64(m, "pid", where, &pid, f))
			return false;
		if (pid > UINT32_MAX)
			return fail(f, 400, "%s.pid: expected a process id", where);
		out->pid = (uint32_t)pid;
	}
	if (!json_object_object_get_ex(m, "addresses", &v) || !json_object_is_type(v, json_type_array))
		return fail(f, 400, "%s: expected an \"addresses\" array", where);
	size_t n = json_object_array_length(v);
	if (max_addrs && n > max_addrs - *total)
		return fail(f, 413, "more than --max-addresses=%zu addresses in the request",
			    max_addrs);
	*total += n;
	out->addrs = sp_xcalloc(n ? n : 1, sizeof(*out->addrs));
	out->n_addrs = n;
	for (size_t k = 0; k < n; k++)
		if (!address(json_object_array_get_idx(v, k), &out->addrs[k]))
			return fail(f, 400,
				    "%s.addresses[%zu]: expected an integer from 0 to 2^64-1 or a "
				    "hex string",
				    where, k);
	return true;
}

bool sv_parse_symbolize(const char *body, size_t len, size_t max_addrs, sv_sym_request *out,
			sv_fail *f)
{
	memset(out, 0, sizeof(*out));
	json_object *o, *mods;
	if (!parse(body, len, max_addrs, &o, f))
		return false;
	bool ok = false;
	size_t total = 0;
	if (!json_object_object_get_ex(o, "modules", &mods) ||
	    !json_object_is_type(mods, json_type_array)) {
		fail(f, 400, "request: expected a \"modules\" array");
		goto out;
	}
	size_t n = json_object_array_length(mods);
	if (max_addrs && n > max_addrs) {
		fail(f, 413, "more than --max-addresses=%zu modules in the request", max_addrs);
		goto out;
	}
	out->mods = sp_xcalloc(n ? n : 1, sizeof(*out->mods));
	out->n_mods = n;
	for (size_t i = 0; i < n; i++)
		if (!sym_module(json_object_array_get_idx(mods, i), i, &total, max_addrs,
				&out->mods[i], f))
			goto out;
	ok = true;
out:
	json_object_put(o);
	if (!ok)
		sv_sym_request_clear(out);
	return ok;
}

void sv_sym_request_clear(sv_sym_request *r)
{
	for (size_t i = 0; i < r->n_mods; i++) {
		free(r->mods[i].path);
		free(r->mods[i].build_id);
		free(r->mods[i].addrs);
	}
	free(r->mods);
	memset(r, 0, sizeof(*r));
}

/* -- /symbolicate/v5 ---------------------------------------------------------------- */

static bool v5_job(json_object *o, const char *where, size_t *total, size_t max_addrs,
		   sv_v5_job *job, sv_fail *f)
{
	json_object *map, *stacks;
	if (!json_object_is_type(o, json_type_object))
		return fail(f, 400, "%s: expected an object", where);
	if (!json_object_object_get_ex(o, "memoryMap", &map) ||
	    !json_object_is_type(map, json_type_array))
		return fail(f, 400, "%s: expected a \"memoryMap\" array", where);
	if (!json_object_object_get_ex(o, "stacks", &stacks) ||
	    !json_object_is_type(stacks, json_type_array))
		return fail(f, 400, "%s: expected a \"stacks\" array", where);
	size_t nm = json_object_array_length(map);
	job->mods = sp_xcalloc(nm ? nm : 1, sizeof(*job->mods));
	job->n_mods = nm;
	for (size_t i = 0; i < nm; i++) {
		json_object *e = json_object_array_get_idx(map, i);
		json_object *a, *b;
		if (!json_object_is_type(e, json_type_array) || json_object_array_length(e) != 2 ||
		    !json_object_is_type(a = json_object_array_get_idx(e, 0), json_type_string) ||
		    !json_object_is_type(b = json_object_array_get_idx(e, 1), json_type_string))
			return fail(f, 400,
				    "%s.memoryMap[%zu]: expected [debugName, debugId], two strings",
				    where, i);
		const char *name = json_object_get_string(a), *id = json_object_get_string(b);
		size_t nl = (size_t)json_object_get_string_len(a);
		size_t il = (size_t)json_object_get_string_len(b);
		if (!nl || memchr(name, '\0', nl) || memchr(name, '/', nl) || !strcmp(name, "..") ||
		    !strcmp(name, "."))
			return fail(f, 400,
				    "%s.memoryMap[%zu]: debugName: expected a file name (no '/')",
				    where, i);
		if (memchr(id, '\0', il))
			return fail(f, 400, "%s.memoryMap[%zu]: debugId holds a NUL", where, i);
		job->mods[i].debug_name = sp_xstrndup(name, nl);
		job->mods[i].debug_id = sp_xstrndup(id, il);
	}
	size_t ns = json_object_array_length(stacks);
	job->stack_end = sp_xcalloc(ns ? ns : 1, sizeof(*job->stack_end));
	job->n_stacks = ns;
	size_t cap = 0;
	for (size_t s = 0; s < ns; s++) {
		json_object *st = json_object_array_get_idx(stacks, s);
		if (!json_object_is_type(st, json_type_array))
			return fail(f, 400, "%s.stacks[%zu]: expected an array of frames", where, s);
		size_t nf = json_object_array_length(st);
		if (max_addrs && nf > max_addrs - *total)
			return fail(f, 413, "more than --max-addresses=%zu frames in the request",
				    max_addrs);
		*total += nf;
		sp_grow(&job->frames, &cap, job->n_frames + nf, sizeof(*job->frames));
		for (size_t k = 0; k < nf; k++) {
			json_object *fr = json_object_array_get_idx(st, k), *mi, *off;
			sv_v5_frame *out = &job->frames[job->n_frames + k];
			if (!json_object_is_type(fr, json_type_array) ||
			    json_object_array_length(fr) != 2 ||
			    !json_object_is_type(mi = json_object_array_get_idx(fr, 0), json_type_int))
				return fail(f, 400,
					    "%s.stacks[%zu][%zu]: expected [moduleIndex, moduleOffset]",
					    where, s, k);
			int64_t m = json_object_get_int64(mi);
			if (m < -1 || (m >= 0 && (uint64_t)m >= nm))
				return fail(f, 400,
					    "%s.stacks[%zu][%zu]: module index %" PRId64
					    " is not in the memoryMap (%zu entries)",
					    where, s, k, m, nm);
			off = json_object_array_get_idx(fr, 1);
			if (!address(off, &out->offset))
				return fail(f, 400,
					    "%s.stacks[%zu][%zu]: module offset: expected an integer "
					    "from 0 to 2^64-1",
					    where, s, k);
			out->module = m;
		}
		job->n_frames += nf;
		job->stack_end[s] = job->n_frames;
	}
	return true;
}

bool sv_parse_v5(const char *body, size_t len, size_t max_addrs, sv_v5_request *out,
		 sv_fail *f)
{
	memset(out, 0, sizeof(*out));
	json_object *o, *jobs;
	if (!parse(body, len, max_addrs, &o, f))
		return false;
	bool ok = false;
	size_t total = 0;
	if (json_object_object_get_ex(o, "jobs", &jobs)) {
		if (!json_object_is_type(jobs, json_type_array)) {
			fail(f, 400, "request: \"jobs\": expected an array");
			goto out;
		}
		size_t n = json_object_array_length(jobs);
		if (max_addrs && n > max_addrs) {
			fail(f, 413, "more than --max-addresses=%zu jobs in the request", max_addrs);
			goto out;
		}
		out->jobs_form = true;
		out->jobs = sp_xcalloc(n ? n : 1, sizeof(*out->jobs));
		out->n_jobs = n;
		for (size_t i = 0; i < n; i++) {
			char where[32];
			snprintf(where, sizeof(where), "jobs[%zu]", i);
			if (!v5_job(json_object_array_get_idx(jobs, i), where, &total, max_addrs,
				    &out->jobs[i], f))
				goto out;
		}
	} else {
		out->jobs = sp_xcalloc(1, sizeof(*out->jobs));
		out->n_jobs = 1;
		if (!v5_job(o, "request", &total, max_addrs, &out->jobs[0], f))
			goto out;
	}
	ok = true;
out:
	json_object_put(o);
	if (!ok)
		sv_v5_request_clear(out);
	return ok;
}

void sv_v5_request_clear(sv_v5_request *r)
{
	for (size_t j = 0; j < r->n_jobs; j++) {
		sv_v5_job *job = &r->jobs[j];
		for (size_t i = 0; i < job->n_mods; i++) {
			free(job->mods[i].debug_name);
			free(job->mods[i].debug_id);
		}
		free(job->mods);
		free(job->frames);
		free(job->stack_end);
	}
	free(r->jobs);
	memset(r, 0, sizeof(*r));
}
