/* capture_profile.c — a capture's samples whose callchains are complete
 * (frame pointers, or the leaf only; unwound ones once an unwinder replaced
 * their chains) turned into a profile, a batch at a time.  See capture.h
 * for the rules; the −1 rule is spec/FORMATS.md §2.7, the context markers
 * spec/PERF-DATA.md §6. */
#include "profile/capture.h"

#include <stdlib.h>
#include <string.h>

/* The location an address of one process resolved to, for that process's
 * maps and execs at one epoch (see epoch_of). */
typedef struct {
	uint64_t addr, epoch, pi1, gen; /* pi1: process index + 1; 0: free */
	uint64_t loc;
} frame_slot;

enum { FRAME_BITS = 14, FRAME_SLOTS = 1 << FRAME_BITS };

typedef struct {
	uint64_t pi1, gen, epoch;
} frame_key;

struct sp_capture_profiler {
	frame_slot *frames; /* direct-mapped, FRAME_SLOTS */
	frame_key user_key, kernel_key; /* the sample's; gen UINT64_MAX: not yet */
	sp_profile *p;
	size_t n_events;
	sp_u64map mapping_of; /* (process index << 32 | map index) + 1 -> mapping id */
	uint64_t kernel_fallback; /* mapping id of "[kernel.kallsyms]", 0 until used */
	sp_idxset seen;           /* distinct (stack, labels) -> sample index */
	int64_t *values;
	uint64_t *locs;
	size_t n_locs, cap_locs;
	int64_t k_pid, k_tid, k_comm, k_cpu;
	uint64_t unknown_loc; /* the "[unknown]" frame, 0 until used */
	int64_t k_time, u_ns; /* sample_times: the label's key and unit */
	bool times;
};

sp_capture_profiler *sp_capture_profiler_new(const sp_capture *c)
{
	sp_capture_profiler *b = sp_xcalloc(1, sizeof(*b));
	b->p = sp_profile_new();
	b->n_events = c->n_events;
	/* Each event its own two columns, its samples then its periods: one
	 * event's "samples", several events' "samples:EVENT" (perf report
	 * and stackcollapse-perf keep events apart: never summed). */
	if (!c->n_events)
		sp_profile_add_sample_type(b->p, "samples", "count");
	for (size_t i = 0; i < c->n_events; i++) {
		/* a second event of the same name gets a column of its own name */
		size_t same = 0;
		for (size_t j = 0; j < i; j++)
			same += !strcmp(c->events[j].name, c->events[i].name);
		char *name = same ? sp_xasprintf("%s-%zu", c->events[i].name, same + 1) :
				    sp_xstrdup(c->events[i].name);
		char *count = c->n_events > 1 ? sp_xasprintf("samples:%s", name) : sp_xstrdup("samples");
		sp_profile_add_sample_type(b->p, count, "count");
		sp_profile_add_sample_type(b->p, name, c->events[i].unit);
		free(count);
		free(name);
	}
	if (c->n_events) {
		const sp_capture_event *e0 = &c->events[0];
		b->p->default_sample_type = sp_profile_intern(b->p, e0->name);
		b->p->period_type.type = sp_profile_intern(b->p, e0->name);
		b->p->period_type.unit = sp_profile_intern(b->p, e0->unit);
		b->p->period = (int64_t)e0->period;
		/* a clock sampled at a frequency: its nominal period in ns */
		if (!e0->period && e0->freq && !strcmp(e0->unit, "nanoseconds"))
			b->p->period = (int64_t)(1000000000 / e0->freq);
	}
	b->values = sp_xcalloc(b->p->n_sample_types, sizeof(int64_t));
	b->k_pid = sp_profile_intern(b->p, "pid");
	b->k_tid = sp_profile_intern(b->p, "tid");
	b->k_comm = sp_profile_intern(b->p, "comm");
	b->k_cpu = sp_profile_intern(b->p, "cpu");
	b->times = c->sample_times;
	if (b->times) {
		b->k_time = sp_profile_intern(b->p, SP_TIME_LABEL);
		b->u_ns = sp_profile_intern(b->p, "nanoseconds");
	}
	return b;
}

void sp_capture_profiler_free(sp_capture_profiler *b)
{
	if (!b)
		return;
	sp_profile_free(b->p);
	sp_u64map_free(&b->mapping_of);
	sp_idxset_free(&b->seen);
	free(b->frames);
	free(b->values);
	free(b->locs);
	free(b);
}

static uint64_t kernel_fallback(sp_capture_profiler *b)
{
	if (!b->kernel_fallback) {
		sp_mapping m = {.memory_start = SP_KERNEL_HALF, .memory_limit = UINT64_MAX,
				.filename = sp_profile_intern(b->p, "[kernel.kallsyms]")};
		b->kernel_fallback = sp_profile_add_mapping(b->p, &m)->id;
	}
	return b->kernel_fallback;
}

/* Whether the build-id table's PATH is the object of a map recorded as
 * MAP_PATH: the same name, or the kernel, whose map perf names after its
 * relocation symbol ("[kernel.kallsyms]_text") and its table entry not. */
static bool same_object(const char *path, const char *map_path)
{
	static const char kernel[] = "[kernel.kallsyms]";
	return !strcmp(path, map_path) ||
	       (!strcmp(path, kernel) && !strncmp(map_path, kernel, sizeof(kernel) - 1));
}

/* The mapping id for ADDR in process PID at TIME (0: no map holds it). */
static uint64_t mapping_for(sp_capture_profiler *b, sp_capture *c, int64_t pid,
			    uint64_t addr, uint64_t time)
{
	uint64_t pi;
	if (!sp_u64map_get(&c->proc_index, (uint64_t)pid, &pi))
		return pid == SP_CAPTURE_KERNEL_PID ? kernel_fallback(b) : 0;
	sp_capture_process *pr = &c->procs[pi - 1];
	size_t mi = sp_capture_map_index_at(pr, addr, time);
	if (mi == SIZE_MAX)
		return pid == SP_CAPTURE_KERNEL_PID ? kernel_fallback(b) : 0;
	uint64_t key = ((pi - 1) << 32 | mi) + 1, id;
	if (sp_u64map_get(&b->mapping_of, key, &id))
		return id;
	const sp_capture_map *cm = &pr->maps[mi];
	const char *bid = cm->build_id;
	for (size_t i = 0; !bid && i < c->n_build_ids; i++)
		if (same_object(c->build_ids[i].path, cm->path) &&
		    (c->build_ids[i].pid == pid || c->build_ids[i].pid == -1 ||
		     pid == SP_CAPTURE_KERNEL_PID))
			bid = c->build_ids[i].build_id;
	sp_mapping m = {.memory_start = cm->start, .memory_limit = cm->limit,
			.file_offset = cm->pgoff, .filename = sp_profile_intern(b->p, cm->path),
			.build_id = bid ? sp_profile_intern(b->p, bid) : 0,
			.pid = pid > 0 && pid <= UINT32_MAX ? (uint32_t)pid : 0};
	id = sp_profile_add_mapping(b->p, &m)->id;
	sp_u64map_put(&b->mapping_of, key, id);
	return id;
}

static bool is_kernel_context(uint64_t ctx)
{
	return ctx == SP_CAPTURE_CONTEXT_KERNEL;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* How many of PR's maps and execs have a time at or before TIME.  Which
 * map holds an address at TIME depends on TIME only through which maps and
 * execs are at or before it (sp_capture_map_index_at), so two times of
 * one epoch give every address the same map. */
static uint64_t epoch_of(sp_capture_process *pr, uint64_t time)
{
	size_t n = pr->n_maps + pr->n_exec;
	if (pr->times_of != n || (!pr->times && n)) {
		pr->times = sp_xreallocarray(pr->times, n ? n : 1, sizeof(*pr->times));
		for (size_t i = 0; i < pr->n_maps; i++)
			pr->times[i] = pr->maps[i].time;
		for (size_t i = 0; i < pr->n_exec; i++)
			pr->times[pr->n_maps + i] = pr->exec_times[i];
		qsort(pr->times, n, sizeof(*pr->times), u64_cmp);
		pr->times_of = n;
	}
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pr->times[mid] <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A process's place in the frame cache at one sample's time: its index
 * + 1 (0: no such process), the number of its maps and execs, and its
 * epoch at that time. */
static frame_key frame_key_of(sp_capture *c, int64_t pid, uint64_t time)
{
	uint64_t pi;
	if (!sp_u64map_get(&c->proc_index, (uint64_t)pid, &pi))
		return (frame_key){0, 0, 0};
	sp_capture_process *pr = &c->procs[pi - 1];
	return (frame_key){pi, pr->n_maps + pr->n_exec, epoch_of(pr, time)};
}

/* The location of ADDR in process PID at TIME without a code version (K:
 * frame_key_of that process and time): the mapping that holds it then, and
 * the line-less location of the two, remembered for the process's epoch
 * (locations get lines only after the profile is made, so the answer
 * stays). */
static uint64_t location_at(sp_capture_profiler *b, sp_capture *c, const frame_key *k,
			    int64_t pid, uint64_t addr, uint64_t time)
{
	if (!k->pi1)
		return sp_profile_location_for_code(b->p, mapping_for(b, c, pid, addr, time),
						    addr, 0);
	if (!b->frames)
		b->frames = sp_xcalloc(FRAME_SLOTS, sizeof(*b->frames));
	/* Fibonacci hashing of the three; the top bits pick the slot */
	uint64_t h = (addr ^ k->epoch << 40 ^ k->pi1 << 20) * 0x9e3779b97f4a7c15ULL;
	frame_slot *f = &b->frames[h >> (64 - FRAME_BITS)];
	if (f->pi1 == k->pi1 && f->addr == addr && f->epoch == k->epoch && f->gen == k->gen)
		return f->loc;
	uint64_t loc =
		sp_profile_location_for_code(b->p, mapping_for(b, c, pid, addr, time), addr, 0);
	*f = (frame_slot){addr, k->epoch, k->pi1, k->gen, loc};
	return loc;
}

/* Appends the location of ADDR (already adjusted) in the address space
 * CTX of sample S. */
static void add_frame(sp_capture_profiler *b, sp_capture *c, const sp_capture_sample *s,
		      uint64_t ctx, uint64_t addr)
{
	bool user = ctx == SP_CAPTURE_CONTEXT_USER;
	if (is_kernel_context(ctx) || (user && !(c->code_version && s->time))) {
		int64_t pid = user ? s->pid : SP_CAPTURE_KERNEL_PID;
		frame_key *k = user ? &b->user_key : &b->kernel_key;
		if (k->gen == UINT64_MAX)
			*k = frame_key_of(c, pid, s->time);
		uint64_t loc = location_at(b, c, k, pid, addr, s->time);
		SP_PUSH(b->locs, b->n_locs, b->cap_locs, loc);
		return;
	}
	uint64_t mid = 0;
	if (is_kernel_context(ctx))
		mid = mapping_for(b, c, SP_CAPTURE_KERNEL_PID, addr, s->time);
	else if (ctx == SP_CAPTURE_CONTEXT_USER)
		mid = mapping_for(b, c, s->pid, addr, s->time);
	/* hypervisor and guest addresses: no map of ours holds them */
	uint64_t version = 0;
	if (ctx == SP_CAPTURE_CONTEXT_USER && c->code_version && s->time)
		version = c->code_version(c->code_version_arg, s->pid, addr, s->time);
	uint64_t loc = sp_profile_location_for_code(b->p, mid, addr, version);
	SP_PUSH(b->locs, b->n_locs, b->cap_locs, loc);
}

typedef struct {
	const sp_profile *p;
	const uint64_t *locs;
	size_t n;
	const sp_label *labels;
	size_t n_labels;
} sample_key;

static bool same_sample(void *ctx, size_t idx)
{
	const sample_key *k = ctx;
	const sp_sample *s = &k->p->samples[idx];
	return s->n_locations == k->n &&
	       (!k->n || !memcmp(s->location_ids, k->locs, k->n * sizeof(*k->locs))) &&
	       s->n_labels == k->n_labels &&
	       !memcmp(s->labels, k->labels, k->n_labels * sizeof(sp_label));
}

/* Whether the user address just added (the last of B's locations) is in
 * no map of process PID, a process with maps: a frame-pointer walk through
 * code built without frame pointers reads junk from there on, and perf
 * report's [unknown] frames are those. */
static bool left_maps(sp_capture_profiler *b, sp_capture *c, int64_t pid)
{
	const sp_location *l = sp_profile_location(b->p, b->locs[b->n_locs - 1]);
	uint64_t pi;
	if (!l || l->mapping_id || !sp_u64map_get(&c->proc_index, (uint64_t)pid, &pi))
		return false;
	return c->procs[pi - 1].n_maps > 0;
}

/* The one frame a chain is cut into where it left every map. */
static uint64_t unknown_frame(sp_capture_profiler *b)
{
	if (!b->unknown_loc) {
		sp_line line = {.function_id = sp_profile_function_for(b->p, "[unknown]",
									 "[unknown]", "", 0)};
		sp_location l = {.lines = &line, .n_lines = 1};
		b->unknown_loc = sp_profile_add_location(b->p, &l)->id;
	}
	return b->unknown_loc;
}

static void add_one(sp_capture_profiler *b, sp_capture *c, const sp_capture_sample *s)
{
	uint8_t mode = s->cpumode & 7;
	uint64_t ctx = mode == 1 ? SP_CAPTURE_CONTEXT_KERNEL :
		       mode == 2 ? SP_CAPTURE_CONTEXT_USER :
		       mode == 3 ? SP_CAPTURE_CONTEXT_HV :
		       mode == 4 ? SP_CAPTURE_CONTEXT_GUEST_KERNEL :
		       mode == 5 ? SP_CAPTURE_CONTEXT_GUEST_USER :
		       s->ip >= (1ULL << 63) ? SP_CAPTURE_CONTEXT_KERNEL : SP_CAPTURE_CONTEXT_USER;
	b->n_locs = 0;
	b->user_key.gen = b->kernel_key.gen = UINT64_MAX;
	const uint64_t *chain = s->n_chain ? c->chain + s->chain_off : NULL;
	size_t n_addr = 0;
	bool first = true;
	for (size_t i = 0; i < s->n_chain; i++) {
		uint64_t e = chain[i];
		if (e >= SP_CAPTURE_CONTEXT_MAX) {
			ctx = e;
			first = true;
			continue;
		}
		if (e == 0) /* the end of a frame-pointer walk, not an address */
			continue;
		add_frame(b, c, s, ctx, first ? e : e - 1);
		if (!first && ctx == SP_CAPTURE_CONTEXT_USER && left_maps(b, c, s->pid)) {
			b->locs[b->n_locs - 1] = unknown_frame(b);
			c->cut_chains++;
			n_addr++;
			break;
		}
		first = false;
		n_addr++;
	}
	/* no callchain recorded, or an empty one (user part left to an
	 * unwinder): the sample IP is the leaf */
	if (n_addr == 0 && s->ip)
		add_frame(b, c, s, ctx, s->ip);

	/* no comm label for a thread never named (an empty string label
	 * would read back as a number) */
	int64_t comm = sp_profile_intern(b->p, sp_capture_comm_at(c, s->tid, s->time));
	sp_label labels[5] = {
		{.key = b->k_pid, .num = s->pid},
		{.key = b->k_tid, .num = s->tid},
		{.key = b->k_comm, .str = comm},
	};
	size_t n_labels = comm ? 3 : 2;
	if (s->cpu >= 0)
		labels[n_labels++] = (sp_label){.key = b->k_cpu, .num = s->cpu};
	if (b->times && s->time)
		labels[n_labels++] = (sp_label){.key = b->k_time, .num = (int64_t)s->time,
						.num_unit = b->u_ns};
	sample_key k = {b->p, b->locs, b->n_locs, labels, n_labels};
	uint64_t h = sp_hash_bytes(b->locs, b->n_locs * sizeof(uint64_t),
				   sp_hash_bytes(labels, n_labels * sizeof(sp_label), 0));
	size_t j = sp_idxset_find(&b->seen, h, same_sample, &k);
	if (j == SIZE_MAX) {
		memset(b->values, 0, b->p->n_sample_types * sizeof(int64_t));
		sp_profile_add_sample(b->p, b->values, b->locs, b->n_locs, labels, n_labels);
		j = b->p->n_samples - 1;
		sp_idxset_add(&b->seen, h, j);
	}
	int64_t *v = b->p->samples[j].values;
	if (s->event < b->n_events) {
		v[2 * s->event] += 1;
		v[2 * s->event + 1] = (int64_t)((uint64_t)v[2 * s->event + 1] + s->period);
	}
}

void sp_capture_profiler_add(sp_capture_profiler *b, sp_capture *c)
{
	for (size_t i = 0; i < c->n_samples; i++)
		add_one(b, c, &c->samples[i]);
}

/* Whether M looks like a program rather than a library, the kernel or an
 * anonymous region. */
static bool is_program(const sp_profile *p, const sp_mapping *m)
{
	const char *f = sp_profile_str(p, m->filename);
	const char *base = strrchr(f, '/');
	base = base ? base + 1 : f;
	return !sp_mapping_unsymbolizable(p, m) && !strstr(base, ".so");
}

/* The index of the first mapping of the busiest program: the one in the
 * stacks of the most samples (its mappings in every process together; a
 * shell or a launcher exec'd first weighs what its own samples weigh),
 * the first mapped among equals; n_mappings when none is a program. */
static size_t busiest_program(const sp_profile *p)
{
	size_t best = p->n_mappings;
	if (!p->n_mappings)
		return best;
	/* per mapping: its program's first mapping, and the samples seen */
	size_t *first = sp_xcalloc(p->n_mappings, sizeof(*first));
	uint64_t *weight = sp_xcalloc(p->n_mappings, sizeof(*weight));
	size_t *seen = sp_xcalloc(p->n_mappings, sizeof(*seen));
	for (size_t i = 0; i < p->n_mappings; i++) {
		first[i] = SIZE_MAX;
		if (!is_program(p, &p->mappings[i]))
			continue;
		first[i] = i;
		for (size_t j = 0; j < i; j++)
			if (first[j] == j && p->mappings[j].filename == p->mappings[i].filename) {
				first[i] = j;
				break;
			}
	}
	for (size_t s = 0; s < p->n_samples; s++) {
		const sp_sample *x = &p->samples[s];
		uint64_t n = 0; /* every event's samples (the even columns) */
		for (size_t v = 0; v < p->n_sample_types; v += 2)
			n += (uint64_t)x->values[v];
		for (size_t k = 0; k < x->n_locations; k++) {
			const sp_location *l = sp_profile_location(p, x->location_ids[k]);
			const sp_mapping *m = l && l->mapping_id ? sp_profile_mapping(p, l->mapping_id)
								 : NULL;
			size_t mi = m ? (size_t)(m - p->mappings) : SIZE_MAX;
			if (mi == SIZE_MAX || first[mi] == SIZE_MAX || seen[first[mi]] == s + 1)
				continue;
			seen[first[mi]] = s + 1; /* once per sample */
			weight[first[mi]] += n;
		}
	}
	for (size_t i = 0; i < p->n_mappings; i++)
		if (first[i] == i && (best == p->n_mappings || weight[i] > weight[best]))
			best = i;
	free(first);
	free(weight);
	free(seen);
	return best;
}

/* pprof takes the first mapping for the main binary: the busiest program's
 * first mapping moves to the front and ids follow the new order. */
static void main_binary_first(sp_profile *p)
{
	size_t j = busiest_program(p);
	if (j == 0 || j == p->n_mappings)
		return;
	sp_mapping main = p->mappings[j];
	memmove(p->mappings + 1, p->mappings, j * sizeof(*p->mappings));
	p->mappings[0] = main;
	sp_u64map renum = {0};
	for (size_t i = 0; i < p->n_mappings; i++) {
		sp_u64map_put(&renum, p->mappings[i].id, i + 1);
		p->mappings[i].id = i + 1;
	}
	for (size_t i = 0; i < p->n_locations; i++) {
		uint64_t id;
		if (p->locations[i].mapping_id &&
		    sp_u64map_get(&renum, p->locations[i].mapping_id, &id))
			p->locations[i].mapping_id = id;
	}
	sp_u64map_free(&renum);
	sp_profile_reindex(p);
}

sp_profile *sp_capture_profiler_finish(sp_capture_profiler *b, const sp_capture *c)
{
	sp_profile *p = b->p;
	b->p = NULL;
	main_binary_first(p);
	if (c->hostname || c->osrelease || c->arch) {
		char *s = sp_xasprintf("perf.data: host %s, kernel %s, arch %s",
				       c->hostname ? c->hostname : "?",
				       c->osrelease ? c->osrelease : "?", c->arch ? c->arch : "?");
		sp_profile_add_comment(p, s);
		free(s);
	}
	if (c->n_cmdline) {
		sp_buf cmd = {0};
		sp_buf_puts(&cmd, "command:");
		for (size_t i = 0; i < c->n_cmdline; i++) {
			sp_buf_puts(&cmd, " ");
			sp_buf_puts(&cmd, c->cmdline[i]);
		}
		sp_profile_add_comment(p, sp_buf_str(&cmd));
		sp_buf_free(&cmd);
	}
	if (c->cut_chains) {
		char *s = sp_xasprintf("frame-pointer chains cut at [unknown]: %llu (they left "
				       "every mapping: code without frame pointers)",
				       (unsigned long long)c->cut_chains);
		sp_profile_add_comment(p, s);
		free(s);
	}
	if (c->lost) {
		char *s = sp_xasprintf("lost samples: %llu", (unsigned long long)c->lost);
		sp_profile_add_comment(p, s);
		free(s);
	}
	if (c->zstd_in) {
		char *s = sp_xasprintf("perf.data: zstd-compressed records (perf record -z, level "
				       "%u, ratio %u): %llu bytes decompressed to %llu", c->zstd_level,
				       c->zstd_ratio, (unsigned long long)c->zstd_in,
				       (unsigned long long)c->zstd_out);
		sp_profile_add_comment(p, s);
		free(s);
	}
	sp_capture_profiler_free(b);
	return p;
}
