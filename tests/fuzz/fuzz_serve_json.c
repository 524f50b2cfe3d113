/* fuzz_serve_json.c — libFuzzer harness for the request bodies of symprof
 * serve (serve/json_in.c): the first byte chooses the decoder (even:
 * POST /v1/symbolize, odd: POST /symbolicate/v5), the rest is the body.
 * Checked: no crash or leak; a refusal has a status of 400 or 413 and a
 * message; an accepted request keeps to the cap on addresses, every v5
 * frame's module index is -1 or inside its job's memory map, the stacks
 * cover the frames in order, and every /v1/symbolize module has a path or
 * a build id.
 * fuzz-runs: 500000 (executions of each scripts/fuzz CI pass: about 10 s) */
#include "serve/serve.h"

#include "tests/fuzz/check.h"

#include <string.h>

#define MAX_ADDRS 1000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_v5(const sv_v5_request *r)
{
	size_t total = 0;
	for (size_t j = 0; j < r->n_jobs; j++) {
		const sv_v5_job *job = &r->jobs[j];
		total += job->n_frames;
		for (size_t k = 0; k < job->n_frames; k++)
			if (job->frames[k].module < -1 ||
			    (job->frames[k].module >= 0 && (size_t)job->frames[k].module >= job->n_mods))
				SP_FUZZ_FAIL("frame %zu of job %zu: module %lld outside the map", k, j,
					     (long long)job->frames[k].module);
		size_t prev = 0;
		for (size_t s = 0; s < job->n_stacks; s++) {
			if (job->stack_end[s] < prev || job->stack_end[s] > job->n_frames)
				SP_FUZZ_FAIL("stack %zu of job %zu ends at %zu", s, j, job->stack_end[s]);
			prev = job->stack_end[s];
		}
		if (job->n_stacks && prev != job->n_frames)
			SP_FUZZ_FAIL("job %zu: the stacks do not cover its frames", j);
		for (size_t i = 0; i < job->n_mods; i++)
			if (!job->mods[i].debug_name || !*job->mods[i].debug_name ||
			    strchr(job->mods[i].debug_name, '/') || !job->mods[i].debug_id)
				SP_FUZZ_FAIL("job %zu: module %zu has no usable name", j, i);
	}
	if (total > MAX_ADDRS)
		SP_FUZZ_FAIL("%zu frames accepted past the cap of %d", total, MAX_ADDRS);
}

static void check_symbolize(const sv_sym_request *r)
{
	size_t total = 0;
	for (size_t i = 0; i < r->n_mods; i++) {
		const sv_sym_module *m = &r->mods[i];
		if (!m->path && !m->build_id)
			SP_FUZZ_FAIL("module %zu: neither path nor build id", i);
		if (m->kind == SYMPROF_ADDR_RUNTIME && m->map_limit <= m->map_start)
			SP_FUZZ_FAIL("module %zu: an empty mapping accepted", i);
		total += m->n_addrs;
	}
	if (total > MAX_ADDRS)
		SP_FUZZ_FAIL("%zu addresses accepted past the cap of %d", total, MAX_ADDRS);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	const char *body = (const char *)data + 1;
	size_t len = size - 1;
	sv_fail f;
	memset(&f, 0, sizeof(f));
	bool ok;
	if (data[0] & 1) {
		sv_v5_request r;
		ok = sv_parse_v5(body, len, MAX_ADDRS, &r, &f);
		if (ok) {
			check_v5(&r);
			sv_v5_request_clear(&r);
		}
	} else {
		sv_sym_request r;
		ok = sv_parse_symbolize(body, len, MAX_ADDRS, &r, &f);
		if (ok) {
			check_symbolize(&r);
			sv_sym_request_clear(&r);
		}
	}
	if (!ok && ((f.status != 400 && f.status != 413) || !f.msg[0]))
		SP_FUZZ_FAIL("a refusal with status %d and message \"%s\"", f.status, f.msg);
	return 0;
}
