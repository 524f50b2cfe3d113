/* viewer.c — the frames, stacks and threads the viewer formats share
 * (viewer.h).  A frame is a function (its name and file) with its kind,
 * or an unresolved address named as every writer names it
 * (sp_location_address_name).  Threads are the samples' pid and tid labels
 * (perf.data gives them, with comm), one thread of everything otherwise;
 * a thread's samples are in the order of their SP_TIME_LABEL values when
 * every sample has one, else in the profile's order. */
#include "formats/viewer.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	sp_viewer *v;
	const sp_vframe *f;
} fkey;

static bool frame_eq(void *ctx, size_t idx)
{
	const fkey *k = ctx;
	const sp_vframe *a = k->f, *b = &k->v->frames[idx];
	return a->name == b->name && a->file == b->file && a->line == b->line &&
	       a->kind == b->kind;
}

static size_t add_frame(sp_viewer *v, sp_idxset *set, const sp_vframe *f)
{
	fkey k = {v, f};
	uint64_t h = sp_hash_combine(sp_hash_combine(sp_hash_u64(f->name), f->file),
				     sp_hash_combine((uint64_t)f->line, (uint64_t)f->kind));
	size_t i = sp_idxset_find(set, h, frame_eq, &k);
	if (i != SIZE_MAX)
		return i;
	SP_PUSH(v->frames, v->n_frames, v->cap_frames, *f);
	sp_idxset_add(set, h, v->n_frames - 1);
	return v->n_frames - 1;
}

static void location_frames(sp_viewer *v, sp_idxset *set, const sp_location *l, size_t **out,
			    size_t *n, size_t *cap)
{
	const sp_profile *p = v->p;
	if (!l->n_lines) {
		char *name = sp_location_address_name(p, l);
		char k = sp_frame_annotation(p, l, 0);
		sp_vframe f = {sp_strtab_intern_str(&v->strings, name), 0, 0, k ? k : 'u',
			       l->address};
		free(name);
		SP_PUSH(*out, *n, *cap, add_frame(v, set, &f));
		return;
	}
	for (size_t li = l->n_lines; li-- > 0;) {
		const sp_function *fn = sp_profile_function(p, l->lines[li].function_id);
		const char *name = fn ? sp_profile_str(p, fn->name) : "";
		sp_vframe f = {sp_strtab_intern_str(&v->strings, *name ? name : "<unknown>"),
			       fn ? sp_strtab_intern_str(&v->strings, sp_profile_str(p, fn->filename))
				  : 0,
			       fn ? fn->start_line : 0, sp_frame_annotation(p, l, li), 0};
		SP_PUSH(*out, *n, *cap, add_frame(v, set, &f));
	}
}

/* The numeric label KEY of S, or false. */
static bool num_label(const sp_profile *p, const sp_sample *s, int64_t key, int64_t *out)
{
	for (size_t i = 0; key && i < s->n_labels; i++)
		if (s->labels[i].key == key && !s->labels[i].str) {
			*out = s->labels[i].num;
			return true;
		}
	(void)p;
	return false;
}

static int64_t str_label(const sp_sample *s, int64_t key)
{
	for (size_t i = 0; key && i < s->n_labels; i++)
		if (s->labels[i].key == key && s->labels[i].str)
			return s->labels[i].str;
	return 0;
}

/* An existing string's index in P's table, 0 when P has none equal to S. */
static int64_t key_of(const sp_profile *p, const char *s)
{
	for (size_t i = 1; i < p->n_strings; i++)
		if (!strcmp(p->strings[i], s))
			return (int64_t)i;
	return 0;
}

typedef struct {
	int64_t pid, tid;
	size_t sample;
	uint64_t time;
} tsample;

static int tsample_cmp(const void *x, const void *y)
{
	const tsample *a = x, *b = y;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->sample < b->sample ? -1 : a->sample > b->sample;
}

sp_error *sp_viewer_new(const sp_profile *p, size_t col, sp_viewer **out)
{
	*out = NULL;
	sp_error *err = sp_profile_check(p, "viewer output");
	if (err)
		return err;
	if (col >= p->n_sample_types)
		return sp_error_new(SP_E_USAGE, "sample index %zu out of range", col);
	sp_viewer *v = sp_xcalloc(1, sizeof(*v));
	v->p = p;
	v->col = col;
	sp_strtab_intern(&v->strings, "", 0);
	sp_idxset set = {0};
	size_t cap = 0, n = 0;
	v->loc_off = sp_xcalloc(p->n_locations + 1, sizeof(size_t));
	for (size_t i = 0; i < p->n_locations; i++) {
		v->loc_off[i] = n;
		location_frames(v, &set, &p->locations[i], &v->loc_frames, &n, &cap);
	}
	v->loc_off[p->n_locations] = n;
	sp_idxset_free(&set);

	int64_t k_pid = key_of(p, "pid"), k_tid = key_of(p, "tid"), k_comm = key_of(p, "comm"),
		k_thread = key_of(p, "thread"), k_time = key_of(p, SP_TIME_LABEL);
	tsample *ts = sp_xcalloc(p->n_samples ? p->n_samples : 1, sizeof(*ts));
	size_t nt = 0;
	v->timed = k_time != 0;
	for (size_t i = 0; i < p->n_samples; i++) {
		const sp_sample *s = &p->samples[i];
		if (s->values[col] <= 0)
			continue;
		tsample t = {-1, -1, i, 0};
		num_label(p, s, k_pid, &t.pid);
		num_label(p, s, k_tid, &t.tid);
		int64_t tm;
		if (num_label(p, s, k_time, &tm) && tm >= 0)
			t.time = (uint64_t)tm;
		else
			v->timed = false;
		ts[nt++] = t;
	}
	if (!v->timed)
		for (size_t i = 0; i < nt; i++)
			ts[i].time = 0;
	qsort(ts, nt, sizeof(*ts), tsample_cmp);
	size_t cap_t = 0;
	for (size_t i = 0; i < nt;) {
		size_t e = i;
		while (e < nt && ts[e].pid == ts[i].pid && ts[e].tid == ts[i].tid)
			e++;
		sp_vthread th = {.pid = ts[i].pid, .tid = ts[i].tid, .n = e - i,
				 .first_time = ts[i].time, .last_time = ts[e - 1].time};
		th.samples = sp_xcalloc(e - i, sizeof(size_t));
		for (size_t k = i; k < e; k++) {
			th.samples[k - i] = ts[k].sample;
			const sp_sample *s = &p->samples[ts[k].sample];
			int64_t nm = str_label(s, k_comm);
			if (!nm)
				nm = str_label(s, k_thread);
			if (nm && !th.name)
				th.name = sp_strtab_intern_str(&v->strings, sp_profile_str(p, nm));
		}
		SP_PUSH(v->threads, v->n_threads, cap_t, th);
		i = e;
	}
	free(ts);
	*out = v;
	return NULL;
}

void sp_viewer_free(sp_viewer *v)
{
	if (!v)
		return;
	sp_strtab_free(&v->strings);
	free(v->frames);
	free(v->loc_off);
	free(v->loc_frames);
	for (size_t i = 0; i < v->n_threads; i++)
		free(v->threads[i].samples);
	free(v->threads);
	free(v->stack);
	free(v);
}

const size_t *sp_viewer_stack(sp_viewer *v, const sp_sample *s, size_t *n)
{
	v->n_stack = 0;
	for (size_t j = s->n_locations; j-- > 0;) {
		const sp_location *l = sp_profile_location(v->p, s->location_ids[j]);
		if (!l)
			continue;
		size_t li = (size_t)(l - v->p->locations);
		for (size_t k = v->loc_off[li]; k < v->loc_off[li + 1]; k++)
			SP_PUSH(v->stack, v->n_stack, v->cap_stack, v->loc_frames[k]);
	}
	*n = v->n_stack;
	return v->stack;
}

uint64_t sp_viewer_first_time(const sp_viewer *v)
{
	uint64_t t0 = UINT64_MAX;
	for (size_t t = 0; v->timed && t < v->n_threads; t++)
		if (v->threads[t].first_time < t0)
			t0 = v->threads[t].first_time;
	return t0;
}

const char *sp_viewer_unit(const sp_profile *p, size_t col, double *factor)
{
	static const struct {
		const char *unit, *name;
		double factor;
	} units[] = {
		{"nanoseconds", "nanoseconds", 1},  {"nanosecond", "nanoseconds", 1},
		{"ns", "nanoseconds", 1},           {"microseconds", "nanoseconds", 1e3},
		{"us", "nanoseconds", 1e3},         {"milliseconds", "nanoseconds", 1e6},
		{"ms", "nanoseconds", 1e6},         {"seconds", "nanoseconds", 1e9},
		{"s", "nanoseconds", 1e9},          {"bytes", "bytes", 1},
		{"byte", "bytes", 1},
	};
	const char *u = sp_profile_str(p, p->sample_types[col].unit);
	for (size_t i = 0; i < SP_ARRAY_LEN(units); i++)
		if (!strcmp(u, units[i].unit)) {
			*factor = units[i].factor;
			return units[i].name;
		}
	*factor = 1;
	return "none";
}
