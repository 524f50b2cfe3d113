/* firefox.c — the Firefox Profiler's processed profile format, version 47
 * (docs-developer/CHANGELOG-formats.md of firefox-devtools/profiler: the
 * profiler upgrades older processed versions as it loads them, so a file
 * of a documented version stays readable).  The layout, one object per
 * thread of the input (viewer.c):
 *
 *   {"meta":{"interval":1,"startTime":0,"processType":0,"product":"symprof",
 *            "stackwalk":1,"version":27,"preprocessedProfileVersion":47,
 *            "symbolicated":true,"categories":[...],"markerSchema":[],...},
 *    "libs":[],"pages":[],"counters":[],
 *    "threads":[{"name":"pbworker","pid":"7","tid":8,"isMainThread":false,
 *      "samples":{"stack":[..],"time":[..],"weight":[..],"weightType":"tracing-ms",
 *                 "length":n},
 *      "stackTable":{"frame":[..],"prefix":[..],"category":[..],"subcategory":[..],...},
 *      "frameTable":{...},"funcTable":{...},"resourceTable":{...},
 *      "nativeSymbols":{...},"markers":{...},"stringArray":[..]}]}
 *
 * Frames come presymbolized, one per inline frame (function name, file,
 * first line); categories mark user, kernel and JIT code.  Sample times
 * are milliseconds after the earliest sample when the samples carry times
 * (perf.data), else the samples are laid end to end by their weights.
 * Weights: milliseconds ("tracing-ms") for a time column, "bytes" for a
 * memory one, sample counts ("samples") otherwise.
 */
#include "formats/viewer.h"

#include <stdlib.h>
#include <string.h>

#define CAT_OTHER 0
#define CAT_USER 1
#define CAT_KERNEL 2
#define CAT_JIT 3

static int category(char kind)
{
	return kind == 'k' ? CAT_KERNEL : kind == 'j' ? CAT_JIT : kind == 'u' ? CAT_OTHER : CAT_USER;
}

typedef struct {
	size_t frame, prefix; /* prefix SIZE_MAX: none */
} stack_entry;

typedef struct {
	stack_entry *v;
	size_t n, cap;
	sp_idxset set;
} stack_table;

typedef struct {
	stack_table *t;
	const stack_entry *e;
} skey;

static bool stack_eq(void *ctx, size_t idx)
{
	const skey *k = ctx;
	return k->t->v[idx].frame == k->e->frame && k->t->v[idx].prefix == k->e->prefix;
}

static size_t stack_of(stack_table *t, size_t frame, size_t prefix)
{
	stack_entry e = {frame, prefix};
	skey k = {t, &e};
	uint64_t h = sp_hash_combine(sp_hash_u64(frame), prefix);
	size_t i = sp_idxset_find(&t->set, h, stack_eq, &k);
	if (i != SIZE_MAX)
		return i;
	SP_PUSH(t->v, t->n, t->cap, e);
	sp_idxset_add(&t->set, h, t->n - 1);
	return t->n - 1;
}

/* A run of N copies of TEXT, comma-separated. */
static void repeat(sp_sink *out, const char *text, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			sp_sink_putc(out, ',');
		sp_sink_puts(out, text);
	}
}

/* One thread's tables as they are built: its frames (numbered in the order
 * its stacks use them) and each sample's stack. */
typedef struct {
	sp_viewer *v;
	const sp_vthread *th;
	size_t col;
	double factor;
	bool ms, bytes; /* the column's unit: time, memory, else counts */
	size_t *frames; /* thread frame -> viewer frame */
	size_t n_frames, cap_frames;
	size_t *samples; /* sample -> stack */
	stack_table st;
} thread_tables;

static void build_tables(thread_tables *tt)
{
	const sp_profile *p = tt->v->p;
	size_t *local = sp_xcalloc(tt->v->n_frames ? tt->v->n_frames : 1, sizeof(size_t));
	tt->samples = sp_xcalloc(tt->th->n ? tt->th->n : 1, sizeof(size_t));
	for (size_t i = 0; i < tt->th->n; i++) {
		size_t n, prefix = SIZE_MAX;
		const size_t *s = sp_viewer_stack(tt->v, &p->samples[tt->th->samples[i]], &n);
		for (size_t k = 0; k < n; k++) {
			if (!local[s[k]]) {
				SP_PUSH(tt->frames, tt->n_frames, tt->cap_frames, s[k]);
				local[s[k]] = tt->n_frames;
			}
			prefix = stack_of(&tt->st, local[s[k]] - 1, prefix);
		}
		tt->samples[i] = prefix;
	}
	free(local);
}

/* The time of sample S in ms after T0 (timed samples). */
static double sample_ms(const sp_profile *p, const sp_sample *s, uint64_t t0)
{
	int64_t tm = 0;
	for (size_t k = 0; k < s->n_labels; k++)
		if (!s->labels[k].str && !strcmp(sp_profile_str(p, s->labels[k].key), SP_TIME_LABEL))
			tm = s->labels[k].num;
	return (double)((uint64_t)tm - t0) / 1e6;
}

static void write_samples(sp_sink *out, const thread_tables *tt, uint64_t t0)
{
	const sp_profile *p = tt->v->p;
	const sp_vthread *th = tt->th;
	sp_sink_printf(out, ",\"samples\":{\"weightType\":\"%s\",\"weight\":[",
		       tt->ms ? "tracing-ms" : tt->bytes ? "bytes" : "samples");
	for (size_t i = 0; i < th->n; i++) {
		double w = (double)p->samples[th->samples[i]].values[tt->col] * tt->factor;
		if (tt->ms)
			sp_sink_printf(out, i ? ",%.6g" : "%.6g", w / 1e6);
		else
			sp_sink_printf(out, i ? ",%.0f" : "%.0f", w);
	}
	sp_sink_puts(out, "],\"stack\":[");
	for (size_t i = 0; i < th->n; i++)
		sp_sink_printf(out, i ? ",%zu" : "%zu", tt->samples[i]);
	sp_sink_puts(out, "],\"time\":[");
	double at = 0;
	for (size_t i = 0; i < th->n; i++) {
		const sp_sample *s = &p->samples[th->samples[i]];
		double t = at;
		if (tt->v->timed)
			t = sample_ms(p, s, t0);
		else
			at += tt->ms ? (double)s->values[tt->col] * tt->factor / 1e6 : 1;
		sp_sink_printf(out, i ? ",%.6f" : "%.6f", t);
	}
	sp_sink_printf(out, "],\"length\":%zu}", th->n);
}

static void write_stack_table(sp_sink *out, const thread_tables *tt)
{
	const stack_table *st = &tt->st;
	sp_sink_puts(out, ",\"stackTable\":{\"frame\":[");
	for (size_t i = 0; i < st->n; i++)
		sp_sink_printf(out, i ? ",%zu" : "%zu", st->v[i].frame);
	sp_sink_puts(out, "],\"prefix\":[");
	for (size_t i = 0; i < st->n; i++) {
		if (i)
			sp_sink_putc(out, ',');
		if (st->v[i].prefix == SIZE_MAX)
			sp_sink_puts(out, "null");
		else
			sp_sink_printf(out, "%zu", st->v[i].prefix);
	}
	sp_sink_puts(out, "],\"category\":[");
	for (size_t i = 0; i < st->n; i++)
		sp_sink_printf(out, i ? ",%d" : "%d",
			       category(tt->v->frames[tt->frames[st->v[i].frame]].kind));
	sp_sink_puts(out, "],\"subcategory\":[");
	repeat(out, "0", st->n);
	sp_sink_printf(out, "],\"length\":%zu}", st->n);
}

/* frameTable: frame i is func i. */
static void write_frame_table(sp_sink *out, const thread_tables *tt)
{
	size_t n = tt->n_frames;
	sp_sink_puts(out, ",\"frameTable\":{\"address\":[");
	repeat(out, "-1", n);
	sp_sink_puts(out, "],\"inlineDepth\":[");
	repeat(out, "0", n);
	sp_sink_puts(out, "],\"category\":[");
	for (size_t i = 0; i < n; i++)
		sp_sink_printf(out, i ? ",%d" : "%d", category(tt->v->frames[tt->frames[i]].kind));
	sp_sink_puts(out, "],\"subcategory\":[");
	repeat(out, "0", n);
	sp_sink_puts(out, "],\"func\":[");
	for (size_t i = 0; i < n; i++)
		sp_sink_printf(out, i ? ",%zu" : "%zu", i);
	sp_sink_puts(out, "],\"nativeSymbol\":[");
	repeat(out, "null", n);
	sp_sink_puts(out, "],\"innerWindowID\":[");
	repeat(out, "0", n);
	sp_sink_puts(out, "],\"implementation\":[");
	repeat(out, "null", n);
	sp_sink_puts(out, "],\"line\":[");
	repeat(out, "null", n);
	sp_sink_puts(out, "],\"column\":[");
	repeat(out, "null", n);
	sp_sink_printf(out, "],\"length\":%zu}", n);
}

/* funcTable, the empty tables, and the thread's strings: each frame's
 * name, then its file. */
static void write_func_table(sp_sink *out, const thread_tables *tt)
{
	const sp_viewer *v = tt->v;
	size_t n = tt->n_frames;
	sp_strtab strs = {0};
	size_t *name_s = sp_xcalloc(n ? n : 1, sizeof(size_t));
	size_t *file_s = sp_xcalloc(n ? n : 1, sizeof(size_t));
	for (size_t i = 0; i < n; i++) {
		const sp_vframe *f = &v->frames[tt->frames[i]];
		name_s[i] = sp_strtab_intern(&strs, v->strings.strs[f->name], v->strings.lens[f->name]);
		file_s[i] = f->file ? sp_strtab_intern(&strs, v->strings.strs[f->file],
						       v->strings.lens[f->file])
				    : SIZE_MAX;
	}
	sp_sink_puts(out, ",\"funcTable\":{\"isJS\":[");
	repeat(out, "false", n);
	sp_sink_puts(out, "],\"relevantForJS\":[");
	repeat(out, "false", n);
	sp_sink_puts(out, "],\"name\":[");
	for (size_t i = 0; i < n; i++)
		sp_sink_printf(out, i ? ",%zu" : "%zu", name_s[i]);
	sp_sink_puts(out, "],\"resource\":[");
	repeat(out, "-1", n);
	sp_sink_puts(out, "],\"fileName\":[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			sp_sink_putc(out, ',');
		if (file_s[i] == SIZE_MAX)
			sp_sink_puts(out, "null");
		else
			sp_sink_printf(out, "%zu", file_s[i]);
	}
	sp_sink_puts(out, "],\"lineNumber\":[");
	for (size_t i = 0; i < n; i++) {
		int64_t l = v->frames[tt->frames[i]].line;
		if (i)
			sp_sink_putc(out, ',');
		if (l > 0)
			sp_sink_printf(out, "%lld", (long long)l);
		else
			sp_sink_puts(out, "null");
	}
	sp_sink_puts(out, "],\"columnNumber\":[");
	repeat(out, "null", n);
	sp_sink_printf(out, "],\"length\":%zu}", n);
	sp_sink_puts(out, ",\"resourceTable\":{\"lib\":[],\"name\":[],\"host\":[],\"type\":[],"
			  "\"length\":0},\"nativeSymbols\":{\"libIndex\":[],\"address\":[],"
			  "\"name\":[],\"functionSize\":[],\"length\":0},\"stringArray\":[");
	for (size_t i = 0; i < strs.n; i++) {
		if (i)
			sp_sink_putc(out, ',');
		sp_json_string(out, strs.strs[i], strs.lens[i]);
	}
	sp_sink_puts(out, "]}");
	sp_strtab_free(&strs);
	free(name_s);
	free(file_s);
}

static void write_thread(sp_sink *out, sp_viewer *v, const sp_vthread *th, size_t col,
			 double factor, const char *unit, uint64_t t0, const char *input)
{
	thread_tables tt = {.v = v, .th = th, .col = col, .factor = factor,
			    .ms = !strcmp(unit, "nanoseconds"), .bytes = !strcmp(unit, "bytes")};
	build_tables(&tt);
	char *name = th->name ? sp_xstrdup(v->strings.strs[th->name])
		     : th->tid >= 0 ? sp_xasprintf("thread %lld", (long long)th->tid)
				    : sp_xstrdup(input);
	sp_sink_puts(out, "{\"processType\":\"default\",\"processStartupTime\":0,"
			  "\"processShutdownTime\":null,\"registerTime\":0,\"unregisterTime\":null,"
			  "\"pausedRanges\":[],\"name\":");
	sp_json_cstr(out, name);
	free(name);
	sp_sink_puts(out, ",\"processName\":");
	sp_json_cstr(out, input);
	sp_sink_printf(out, ",\"isMainThread\":%s,\"pid\":\"%lld\",\"tid\":%lld",
		       th->pid >= 0 && th->pid == th->tid ? "true" : "false",
		       (long long)(th->pid >= 0 ? th->pid : 0), (long long)(th->tid >= 0 ? th->tid : 0));
	write_samples(out, &tt, t0);
	sp_sink_puts(out, ",\"markers\":{\"data\":[],\"name\":[],\"startTime\":[],\"endTime\":[],"
			  "\"phase\":[],\"category\":[],\"length\":0}");
	write_stack_table(out, &tt);
	write_frame_table(out, &tt);
	write_func_table(out, &tt);
	free(tt.frames);
	free(tt.samples);
	free(tt.st.v);
	sp_idxset_free(&tt.st.set);
}

sp_error *sp_firefox_write(const sp_profile *p, const sp_viewer_options *o, sp_sink *out)
{
	sp_viewer *v;
	size_t col = o ? o->sample_index : 0;
	sp_error *err = sp_viewer_new(p, col, &v);
	if (err)
		return err;
	double factor;
	const char *unit = sp_viewer_unit(p, col, &factor);
	const char *input = o && o->name ? o->name : "profile";
	uint64_t t0 = sp_viewer_first_time(v);
	/* the sampling interval in ms when the period is a time */
	double interval = 1;
	const char *pu = sp_profile_str(p, p->period_type.unit);
	if (p->period > 0 && !strcmp(pu, "nanoseconds"))
		interval = (double)p->period / 1e6;
	sp_sink_printf(out,
		       "{\"meta\":{\"interval\":%.6g,\"startTime\":%.3f,\"processType\":0,"
		       "\"product\":",
		       interval, p->time_nanos > 0 ? (double)p->time_nanos / 1e6 : 0.0);
	sp_json_cstr(out, input);
	sp_sink_puts(out, ",\"stackwalk\":1,\"debug\":false,\"version\":27,"
			  "\"preprocessedProfileVersion\":47,\"symbolicated\":true,"
			  "\"abi\":\"\",\"misc\":\"\",\"oscpu\":\"\",\"platform\":\"\",\"toolkit\":\"\","
			  "\"appBuildID\":\"\",\"sourceURL\":\"\",\"physicalCPUs\":0,\"logicalCPUs\":0,"
			  "\"CPUName\":\"\",\"symbolicationNotSupported\":true,"
			  "\"extensions\":{\"id\":[],\"name\":[],\"baseURL\":[],\"length\":0},"
			  "\"pausedRanges\":[],\"markerSchema\":[],"
			  "\"categories\":[{\"name\":\"Other\",\"color\":\"grey\",\"subcategories\":[\"Other\"]},"
			  "{\"name\":\"User\",\"color\":\"yellow\",\"subcategories\":[\"Other\"]},"
			  "{\"name\":\"Kernel\",\"color\":\"orange\",\"subcategories\":[\"Other\"]},"
			  "{\"name\":\"JIT\",\"color\":\"green\",\"subcategories\":[\"Other\"]}]},"
			  "\"libs\":[],\"pages\":[],\"counters\":[],\"threads\":[");
	for (size_t t = 0; t < v->n_threads; t++) {
		if (t)
			sp_sink_putc(out, ',');
		write_thread(out, v, &v->threads[t], col, factor, unit, t0, input);
	}
	sp_sink_puts(out, "]}\n");
	sp_viewer_free(v);
	return NULL;
}
