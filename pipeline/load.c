/* load.c — an input becomes a checked profile: read (format detected),
 * --maps attached, checked.  perf.data is pulled from its reader a round at
 * a time (sp_perf_next_round); each round's samples with stack copies are
 * unwound (symbolize/unwind/) before they become the profile's, and what the recording says of its kernel and
 * its clock is checked against the session's --kallsyms copy and jitdump
 * files.  Those checks are perf.data's policy and live here, not in the
 * generic run: their outcome is a list of notes (pipeline.h), which the
 * caller shows or not.
 */
#include "pipeline/pipeline.h"

#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* What the perf reader's rounds pass on: the unwinder, the session that
 * names (NULL when names are not wanted), and what the recording says of
 * its kernel and its clock. */
typedef struct {
	sp_unwinder *u;
	sp_symbolizer *s;
	char *osrelease;       /* NULL when not recorded */
	char *kernel_build_id; /* [kernel.kallsyms]'s, NULL when not recorded */
	bool clock_checked;
	char *jitdump_note;    /* why sample times cannot choose JIT code */
	bool jitdump_reused;   /* and some addresses held several codes */
	bool sample_times;     /* every sample keeps its time (sp_capture.sample_times) */
	char *perf_warning;    /* sp_perf_warning: a killed or cut recording */
	uint64_t cut_chains;   /* frame-pointer chains cut at [unknown] */
} round_ctx;

static uint64_t jit_code_version(void *arg, int64_t pid, uint64_t addr, uint64_t time)
{
	if (pid <= 0 || pid > UINT32_MAX)
		return 0;
	return sp_jitdump_code_version(arg, (uint32_t)pid, addr, time);
}

/* With jitdump files in S: whether the recording C's sample times and the
 * jitdump records' times are on one clock, as `perf inject --jit` requires
 * (every event samples its time from CLOCK_MONOTONIC: `perf record -k
 * mono`; the records' times not the CPU's counter).  NULL when they are (or
 * there is no jitdump), else why not (caller frees); *REUSED says whether
 * that matters: some address held several codes. */
static char *jitdump_clock_problem(sp_symbolizer *s, const sp_capture *c, bool *reused)
{
	const sp_jit_index *jit;
	const sp_perf_map *perf;
	const sp_kallsyms *ksyms;
	/* (a source that fails to load is reported when symbolizing) */
	sp_error_free(sp_symbolizer_sources(s, &jit, &perf, &ksyms));
	const sp_jitdump *pj = sp_symbolizer_jitdump(s);
	if (!sp_jitdump_count(pj))
		return NULL;
	const char *why = NULL;
	for (size_t i = 0; i < c->n_events && !why; i++)
		if (!(c->events[i].sample_type & PERF_SAMPLE_TIME))
			why = "the samples carry no time (PERF_SAMPLE_TIME)";
		else if (c->events[i].clockid != CLOCK_MONOTONIC)
			why = "the samples' times are not CLOCK_MONOTONIC (record with "
			      "perf record -k mono)";
	if (!why && sp_jitdump_arch_timestamp(pj))
		why = "the jitdump times are the CPU's counter (JITDUMP_FLAGS_ARCH_TIMESTAMP), "
		      "not CLOCK_MONOTONIC";
	if (!why)
		return NULL;
	*reused = sp_jitdump_reused(pj) != 0;
	return sp_xasprintf("sample times cannot be compared with the jitdump records': %s; "
			    "each JIT address is named after the last code loaded there (%zu of "
			    "%zu code ranges reuse addresses)",
			    why, sp_jitdump_reused(pj), sp_jitdump_count(pj));
}

/* Lets C's samples see the JIT code of their time when the clocks allow
 * (checked at the first round; R keeps why not). */
static void jitdump_clock(round_ctx *r, sp_capture *c)
{
	if (!r->s)
		return;
	if (!r->clock_checked) {
		r->clock_checked = true;
		r->jitdump_note = jitdump_clock_problem(r->s, c, &r->jitdump_reused);
	}
	const sp_jitdump *pj = sp_symbolizer_jitdump(r->s);
	if (!r->jitdump_note && sp_jitdump_count(pj)) {
		c->code_version = jit_code_version;
		c->code_version_arg = (void *)pj;
	}
}

/* A perf round's samples with stack copies unwound before they become the
 * profile's (the capture is read by formats/, unwound by symbolize/). */
static void unwind_round(round_ctx *r, sp_capture *c)
{
	if (c->osrelease && !r->osrelease)
		r->osrelease = sp_xstrdup(c->osrelease);
	for (size_t i = 0; i < c->n_build_ids && !r->kernel_build_id; i++)
		if (!strcmp(c->build_ids[i].path, "[kernel.kallsyms]"))
			r->kernel_build_id = sp_xstrdup(c->build_ids[i].build_id);
	jitdump_clock(r, c);
	c->sample_times = r->sample_times;
	sp_unwinder_run(r->u, c);
}

/* Samples gathered over perf rounds before they are unwound together, at
 * most (and bytes of samples copied, for a stream): a round is often a few
 * dozen samples, and the unwinder's threads (sp_unwinder_set_jobs) start
 * and stop with each batch.  The same for every -j, so that what is
 * unwound together never depends on it. */
#define UNWIND_BATCH_SAMPLES 1024
#define UNWIND_BATCH_BYTES ((size_t)4 << 20)

/* perf.data from R (consumed), pulled a round at a time: the rounds'
 * samples unwound through RC a batch of rounds at a time, then made the
 * profile's; *OUT checked. */
static sp_error *read_rounds(sp_perf_reader *r, round_ctx *rc, const char *name,
			     sp_profile **out)
{
	sp_capture *c, *last = NULL;
	sp_profile *q = NULL;
	sp_error *err;
	while (!(err = sp_perf_next_round(r, &c)) && c) {
		last = c;
		sp_unwinder_round_end(rc->u, c);
		if (c->n_samples < UNWIND_BATCH_SAMPLES && c->bytes.len < UNWIND_BATCH_BYTES)
			continue; /* the next round's samples join these */
		unwind_round(rc, c);
		sp_perf_round_to_profile(r);
	}
	if (!err && last && last->n_samples) { /* the last batch */
		unwind_round(rc, last);
		sp_perf_round_to_profile(r);
	}
	if (!err && (err = sp_profile_check(q = sp_perf_profile(r), name))) {
		sp_profile_free(q);
		q = NULL;
	}
	if (!err) { /* killed or cut short: what was there is the recording */
		rc->perf_warning = sp_perf_warning(r);
		rc->cut_chains = last ? last->cut_chains : 0;
	}
	sp_perf_close(r);
	*out = q;
	return err;
}

/* Reads IN (a file, or bytes) into *OUT: perf.data through its rounds (RC),
 * any other format whole or a piece at a time (formats/). */
static sp_error *read_input(const sp_load_options *o, const sp_load_input *in, round_ctx *rc,
			    sp_profile **out, sp_input_format *fmt)
{
	sp_perf_reader *r = NULL;
	sp_error *err;
	if (!in->data) {
		err = sp_perf_open(in->path, &r);
	} else if (sp_perf_is_perf_data(in->data, in->len)) {
		err = sp_perf_open_memory(in->name, in->data, in->len, &r);
	} else {
		return sp_read_profile(in->name, in->data, in->len, out, fmt);
	}
	if (err) {
		sp_perf_close(r);
		return err;
	}
	if (!r) { /* not perf.data */
		sp_read_options ro = {.jobs = o->jobs};
		return sp_read_profile_file_with(in->path, out, fmt, &ro);
	}
	*fmt = SP_FMT_PERF;
	return read_rounds(r, rc, in->data ? in->name : in->path, out);
}

/* Attaches the memory map of MAPS_FILE to the raw stacks P (read from NAME). */
static sp_error *attach_maps(const char *maps_file, sp_profile *p, const char *name)
{
	uint8_t *text;
	size_t len;
	sp_error *err = sp_read_file(maps_file, &text, &len);
	if (!err && p->n_mappings == 0) {
		err = sp_profile_parse_maps(p, (const char *)text, len);
		if (err)
			err = sp_error_prefix(err, "%s", maps_file);
		else
			sp_profile_attach_locations(p);
	}
	free(text);
	if (!err)
		err = sp_profile_check(p, name);
	return err;
}

/* How the samples with stack copies unwound: how many reached the end of
 * the stack, and where (process, mapping of the last frame) and why the
 * others stopped. */
static void unwind_note(const sp_unwind_report *u, sp_notes *notes)
{
	sp_note *n = sp_notes_add(
		notes, SP_NOTE_INFO, "unwound",
		sp_xasprintf("%zu of %zu samples with a stack copy to the end of the stack",
			     u->n_complete, u->n_samples));
	if (u->n_reused)
		sp_note_add_detail(n, sp_xasprintf("reused: %zu unwinds of earlier samples (same "
						   "registers and stack words)",
						   u->n_reused));
	if (u->n_errors)
		sp_note_add_detail(n, sp_xasprintf("cut short by errors: %zu (their stacks are "
						   "incomplete)",
						   u->n_errors));
	const sp_unwind_stop *first_error = NULL;
	for (size_t i = 0; i < u->n_stops; i++) {
		const sp_unwind_stop *s = &u->stops[i];
		sp_note_add_detail(n, sp_xasprintf("stopped: %zu in pid %" PRId64 " at %s: %s%s",
						   s->count, s->pid,
						   *s->path ? s->path : "(no mapping)",
						   s->error ? "error: " : "", s->reason));
		if (s->error && !first_error)
			first_error = s;
	}
	/* a stack cut short by an error is never passed off as a whole one */
	if (u->n_errors)
		sp_notes_add(notes, SP_NOTE_WARNING, "unwound",
			     sp_xasprintf("%zu of %zu unwinds cut short by errors, their stacks "
					  "incomplete (symprof info lists them): %s",
					  u->n_errors, u->n_samples,
					  first_error ? first_error->reason : ""));
}

/* A perf.data input converted with --kallsyms: what its OSRELEASE and the
 * copy's release say together (a WARNING when they differ). */
static void kallsyms_note(sp_symbolizer *s, const sp_symbolizer *us, const round_ctx *rc,
			  sp_notes *notes)
{
	const char *k = sp_symbolizer_options(us)->kallsyms;
	bool warn = false;
	char *note = NULL;
	if (k && *k) {
		note = sp_kallsyms_check(k, rc->osrelease, rc->kernel_build_id, &warn);
		const sp_jit_index *jit;
		const sp_perf_map *perf;
		const sp_kallsyms *ks = NULL;
		if (s)
			sp_error_free(sp_symbolizer_sources(s, &jit, &perf, &ks));
		if (sp_kallsyms_restricted(ks)) {
			char *both = sp_xasprintf("%s%s--kallsyms %s: every address is 0 (copied "
						  "without the right to see them, kptr_restrict): "
						  "kernel frames stay addresses", note ? note : "",
						  note ? "; " : "", k);
			free(note);
			note = both;
			warn = true;
		}
	} else if (s && rc->kernel_build_id) {
		/* no --kallsyms: perf's cache, or the running kernel when it is
		 * the recording's (a recording without kernel samples has no
		 * kernel build id) */
		note = sp_symbolizer_kernel_names(s, rc->osrelease, rc->kernel_build_id, &warn);
	}
	if (note)
		sp_notes_add(notes, warn ? SP_NOTE_WARNING : SP_NOTE_INFO, "kallsyms", note);
}

uint64_t sp_load_input_bytes(const sp_load_input *in)
{
	struct stat st;
	if (in->data)
		return in->len;
	if (!in->path || !strcmp(in->path, "-") || stat(in->path, &st) != 0 ||
	    !S_ISREG(st.st_mode))
		return 0;
	return (uint64_t)st.st_size;
}

sp_error *sp_load(const sp_load_options *o, const sp_load_input *in, sp_symbolizer *s,
		  sp_symbolizer *us, sp_profile **out, sp_input_format *fmt, sp_notes *notes)
{
	static const sp_load_options none = {.size = sizeof(none)};
	sp_profile *p = NULL;
	sp_input_format f = SP_FMT_UNKNOWN;
	const char *name = in->data ? in->name : in->path;
	o = o ? o : &none;
	*out = NULL;
	sp_mem_set_input(name); /* what running out of memory names */
	round_ctx rc = {.u = sp_unwinder_new(us), .s = s, .sample_times = o->sample_times};
	/* the processes of a recording unwound on the threads allowed */
	sp_unwinder_set_jobs(rc.u, o->jobs, sp_load_input_bytes(in));
	sp_error *err = read_input(o, in, &rc, &p, &f);
	if (!err && o->maps_file)
		err = attach_maps(o->maps_file, p, name);
	if (!err && notes) {
		const sp_unwind_report *u = sp_unwinder_report(rc.u);
		if (u->n_samples)
			unwind_note(u, notes);
		if (f == SP_FMT_PERF)
			kallsyms_note(s, us, &rc, notes);
		if (rc.perf_warning)
			sp_notes_add(notes, SP_NOTE_WARNING, "recording", sp_xstrdup(rc.perf_warning));
		if (rc.cut_chains)
			sp_notes_add(notes, SP_NOTE_INFO, "chains",
				     sp_xasprintf("%" PRIu64 " samples' frame-pointer chains ran into "
						  "code built without frame pointers and were cut "
						  "there at [unknown]; perf record --call-graph "
						  "dwarf would give real stacks", rc.cut_chains));
		if (rc.jitdump_note)
			sp_notes_add(notes, rc.jitdump_reused ? SP_NOTE_WARNING : SP_NOTE_INFO,
				     "jitdump", sp_xstrdup(rc.jitdump_note));
	}
	if (!err && s)
		sp_symbolizer_set_kernel_release(s, rc.osrelease);
	if (err) {
		sp_profile_free(p);
	} else {
		*out = p;
		if (fmt)
			*fmt = f;
	}
	sp_unwinder_free(rc.u);
	free(rc.jitdump_note);
	free(rc.perf_warning);
	free(rc.osrelease);
	free(rc.kernel_build_id);
	return err;
}
