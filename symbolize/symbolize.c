/* symbolize.c — symbolizing a whole profile, one mapping at a time.
 *
 * The profile's locations without lines are grouped by mapping and sorted
 * by address.  For each mapping the binary is located once, opened once
 * through the session, its load base computed once from the first address,
 * and every distinct address resolved once; the frames become Line entries
 * (innermost first) pointing at de-duplicated Functions.  Before the file,
 * every address is offered to the name sources without files (sources.c:
 * JIT objects, resolved with base 0 in the object whose section holds them,
 * perf maps and kallsyms).  Whatever stays unresolved is counted per reason
 * in the report, which has one entry per mapping (and one with id 0 for
 * addresses outside every mapping).
 */
#include "symbolize/internal.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *sp_unresolved_reason_str(sp_unresolved_reason r)
{
	switch (r) {
	case SP_UNRES_NONE: return "resolved";
	case SP_UNRES_NO_MAPPING: return "no mapping";
	case SP_UNRES_UNSYMBOLIZABLE: return "unsymbolizable";
	case SP_UNRES_ANONYMOUS: return "anonymous region";
	case SP_UNRES_FILE_NOT_FOUND: return "file not found";
	case SP_UNRES_BUILD_ID_MISMATCH: return "build-id mismatch";
	case SP_UNRES_FILE_MISMATCH: return "file does not match the recorded mapping";
	case SP_UNRES_NOT_ELF: return "not ELF";
	case SP_UNRES_NO_SYMBOLS: return "no symbols";
	case SP_UNRES_OUTSIDE_FILE: return "outside the file";
	case SP_UNRES_ALREADY: return "already symbolized";
	case SP_UNRES_NOT_REGULAR: return "not a regular file";
	case SP_UNRES_ERROR: return "error";
	}
	return "unknown";
}

void sp_symbolize_report_clear(sp_symbolize_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_mappings; i++) {
		sp_mapping_report *m = &r->mappings[i];
		free(m->recorded_path);
		free(m->used_path);
		free(m->debug_path);
		free(m->index_path);
		free(m->build_id);
		free(m->go_build_id);
		free(m->htlhash);
		free(m->detail);
		sp_find_log_clear(&m->tried);
	}
	free(r->mappings);
	r->mappings = NULL;
	r->n_mappings = 0;
}

typedef struct {
	sp_symbolizer *s;
	sp_profile *p;
	const sp_symbolize_options *o;
	bool has_sources; /* name sources without a mapping file were given */
	sp_par *par;      /* -j: the threads that resolve a mapping, or NULL */
	bool debuginfod;  /* the finder may ask debuginfod (sampled mappings) */
	uint64_t *vaddrs; /* a mapping's addresses for them */
	size_t n_vaddrs, cap_vaddrs;
	bool any_func, any_file, any_line; /* for the has_* flags */
} ctx;

/* Fills the locations of one address (PEND[0..n)) with FRAMES. */
static void set_lines(ctx *c, const sp_addr_item *pend, size_t n, const sp_frame *frames,
		      size_t nf)
{
	if (nf == 0)
		return;
	if (c->o->no_inline) {
		frames += nf - 1;
		nf = 1;
	}
	sp_line *lines = sp_xreallocarray(NULL, nf, sizeof(*lines));
	for (size_t i = 0; i < nf; i++) {
		const sp_frame *f = &frames[i];
		const char *sys = f->system_name ? f->system_name : "";
		const char *name = f->name ? f->name : sys;
		const char *file = f->file ? f->file : "";
		lines[i].function_id = sp_profile_function_for(c->p, name, sys, file, f->start_line);
		lines[i].line = f->line;
		lines[i].column = f->column;
		c->any_func |= *name != 0;
		c->any_file |= *file != 0;
		c->any_line |= f->line != 0;
	}
	for (size_t k = 0; k < n; k++) {
		sp_location *l = &c->p->locations[pend[k].tag];
		free(l->lines);
		if (k + 1 < n) {
			l->lines = sp_xreallocarray(NULL, nf, sizeof(*lines));
			memcpy(l->lines, lines, nf * sizeof(*lines));
		} else {
			l->lines = lines;
		}
		l->n_lines = nf;
	}
}

/* One mapping's work: its addresses and what became of them. */
typedef struct {
	sp_mapping *m;           /* NULL for addresses outside every mapping */
	const char *fname, *bid; /* as recorded ("" when none) */
	const sp_addr_item *pend; /* sorted by address; tag: index of the location */
	size_t n;
	bool *done;              /* per entry: named by a source without a file */
	size_t first;            /* the first entry not done */
	bool any_fileless;
	sp_object *obj;          /* the mapping's file, open, or NULL */
	uint64_t base;
	bool kernel;             /* the kernel's or a module's (sp_finder_kernel) */
} job;

static bool in_loads(const sp_elf_info *info, uint64_t vaddr);

/* Whether ADDR is J's mapping's and its file holds it. */
static bool in_file(const job *j, uint64_t addr)
{
	if (j->m->memory_limit > j->m->memory_start &&
	    (addr < j->m->memory_start || addr >= j->m->memory_limit))
		return false;
	return in_loads(sp_object_info(j->obj), addr - j->base);
}

/* Runs of equal address in J's entries: [i, run_end(j, i)). */
static size_t run_end(const job *j, size_t i)
{
	return sp_addr_items_run(j->pend, j->n, i);
}

/* Step 1: every address is offered to the name sources that come before
 * the mapping's file (sources.c); the locations of one address that saw
 * different code over time (their code_version) are asked about apart. */
static void name_from_sources(ctx *c, job *j, sp_mapping_report *r)
{
	bool any_jit = false;
	sp_named named = {0};
	sp_addr_item *same = NULL;
	size_t cap_same = 0;
	for (size_t i = 0, e; i < j->n; i = e) {
		e = run_end(j, i);
		uint64_t addr = j->pend[i].addr;
		bool named_any = false; /* (an address counts once, whatever its versions) */
		for (size_t k = i; k < e; k++) {
			uint64_t version = c->p->locations[j->pend[k].tag].code_version;
			bool asked = j->done[k];
			for (size_t x = i; x < k && !asked; x++)
				asked = c->p->locations[j->pend[x].tag].code_version == version;
			if (asked)
				continue;
			sp_name_query q = {.pid = j->m ? j->m->pid : 0, .addr = addr,
					   .code_version = version,
					   .kind = sp_code_kind_of(c->p, j->m, addr)};
			/* a kernel's own file before kallsyms (and perf maps) */
			if (j->kernel && j->obj && in_file(j, addr)) {
				q.file = j->obj;
				q.file_addr = addr - j->base;
			}
			sp_name_source src = sp_name_address(c->s, &q, &named);
			if (src == SP_SOURCE_NONE)
				continue;
			/* the run's locations of this version */
			size_t n_same = 0;
			for (size_t x = k; x < e; x++)
				if (!j->done[x] &&
				    c->p->locations[j->pend[x].tag].code_version == version) {
					SP_PUSH(same, n_same, cap_same, j->pend[x]);
					j->done[x] = true;
				}
			set_lines(c, same, n_same, named.frames, named.n_frames);
			any_jit |= src != SP_SOURCE_KALLSYMS && src != SP_SOURCE_FILE;
			r->n_resolved += !named_any;
			named_any = true;
			j->any_fileless = true;
		}
	}
	free(same);
	sp_named_clear(&named);
	/* A mapping without a file (the placeholder of addresses outside the
	 * recorded map) is named after what resolved its addresses: kernel
	 * frames named from kallsyms only, or JIT code (perf's names). */
	if (j->any_fileless && j->m && !*j->fname)
		sp_mapping_set_kind(c->p, j->m, any_jit ? SP_CODE_JIT : SP_CODE_KERNEL);
}

static sp_unresolved_reason classify(const sp_error *e)
{
	switch (sp_error_root_code(e)) {
	case SP_E_BUILD_ID_MISMATCH: return SP_UNRES_BUILD_ID_MISMATCH;
	case SP_E_UNRECOGNIZED: return SP_UNRES_NOT_ELF;
	case SP_E_NOT_FOUND: return SP_UNRES_FILE_NOT_FOUND;
	case SP_E_NOT_REGULAR: return SP_UNRES_NOT_REGULAR;
	default: return SP_UNRES_ERROR;
	}
}

static void note_error(sp_mapping_report *r, const sp_error *e)
{
	if (r->detail || !e)
		return;
	r->detail = sp_error_string(e);
}

/* Whether some PT_LOAD holds VADDR (objects without any, like ET_REL, hold
 * every address). */
static bool in_loads(const sp_elf_info *info, uint64_t vaddr)
{
	if (info->n_loads == 0)
		return true;
	for (size_t i = 0; i < info->n_loads; i++)
		if (vaddr >= info->loads[i].vaddr &&
		    vaddr - info->loads[i].vaddr < info->loads[i].memsz)
			return true;
	return false;
}

/* Step 2: the file of the mapping, through the session's cache of the
 * finder's answers.  *FOUND is borrowed (from the session or J). */
static sp_unresolved_reason locate(ctx *c, const job *j, sp_mapping_report *r,
				   const char **found)
{
	if (!j->m)
		return SP_UNRES_NO_MAPPING;
	if (!*j->fname) /* (the name before sp_mapping_set_kind) */
		return SP_UNRES_ANONYMOUS;
	if (!j->kernel && sp_mapping_unsymbolizable(c->p, j->m))
		return SP_UNRES_UNSYMBOLIZABLE;
	sp_error *e = sp_locate_mapping(c->s, c->p, j->m, j->kernel, found, r);
	if (e && sp_error_root_code(e) == SP_E_UNSUPPORTED) {
		/* no search available: the recorded path as is */
		sp_error_free(e);
		*found = j->fname;
		return SP_UNRES_NONE;
	}
	if (!e)
		return SP_UNRES_NONE;
	sp_unresolved_reason why = classify(e);
	/* "not found" after rejecting candidates says why */
	for (size_t k = 0; why == SP_UNRES_FILE_NOT_FOUND && k < r->tried.n; k++)
		if (r->tried.v[k].status == SP_TRY_BUILD_ID_MISMATCH)
			why = SP_UNRES_BUILD_ID_MISMATCH;
		else if (r->tried.v[k].status == SP_TRY_NOT_ELF)
			why = SP_UNRES_NOT_ELF;
	if (why == SP_UNRES_ERROR || why == SP_UNRES_NOT_REGULAR)
		note_error(r, e);
	sp_error_free(e);
	/* --force-mismatch: the first candidate refused for its build id only */
	for (size_t k = 0; why == SP_UNRES_BUILD_ID_MISMATCH && c->o->force_mismatch &&
			   k < r->tried.n; k++)
		if (r->tried.v[k].status == SP_TRY_BUILD_ID_MISMATCH) {
			*found = r->tried.v[k].path;
			r->forced = true;
			if (!r->detail)
				r->detail = sp_xasprintf("%s has another build id than the "
							 "recorded %s: used anyway "
							 "(--force-mismatch)",
							 *found, j->bid);
			return SP_UNRES_NONE;
		}
	return why;
}

/* Without a build id to compare, whether the file still looks like the one
 * mapped (mapcheck.c); a mismatch is noted in R's detail. */
static bool file_matches(ctx *c, const job *j, const sp_elf_info *info, sp_mapping_report *r)
{
	if (c->o->force_mismatch || (*j->bid && info->build_id && *info->build_id))
		return true; /* the finder compared the build ids */
	const sp_mapping *m = j->m;
	sp_mapping_record rec = {m->memory_start, m->memory_limit, m->file_offset, 0, 0};
	uint64_t seg;
	sp_file_match w = sp_mapping_file_match(&rec, info, &seg);
	if (w == SP_FILE_MATCHES)
		return true;
	if (!r->detail) {
		char there[48] = "";
		if (seg)
			snprintf(there, sizeof(there), ", the segment there %#llx",
				 (unsigned long long)seg);
		r->detail = sp_xasprintf("%s: %s: mapping at file offset %#llx is %#llx bytes%s; "
					 "--force-mismatch uses it anyway",
					 info->path, sp_file_match_str(w),
					 (unsigned long long)m->file_offset,
					 (unsigned long long)(m->memory_limit - m->memory_start),
					 there);
	}
	return false;
}

/* Step 3: the object, opened through the session, checked against the
 * mapping, and the mapping's load base from its first address left. */
static sp_unresolved_reason open_and_base(ctx *c, job *j, sp_mapping_report *r,
					  const char *found)
{
	sp_object *obj;
	r->used_path = sp_xstrdup(found);
	sp_error *e = sp_symbolizer_object(c->s, found, *j->bid && !r->forced ? j->bid : NULL,
					   &obj);
	const sp_elf_info *info = e ? NULL : sp_object_info(obj);
	if (info && !file_matches(c, j, info, r))
		return SP_UNRES_FILE_MISMATCH;
	/* An ET_REL whose sections carry addresses (JIT output) is in run-time
	 * addresses already: base 0.  A kernel module (.ko) is placed by its
	 * .text; other files follow §6. */
	uint64_t text;
	if (!info)
		; /* E says why */
	else if (j->kernel && j->m->memory_start == SP_KERNEL_HALF &&
		 j->m->memory_limit == UINT64_MAX)
		j->base = 0; /* no map of the kernel was recorded: no KASLR shift known */
	else if (j->kernel && info->elf_type == ET_REL && !info->text_addr) {
		if (!(e = sp_object_section_address(obj, ".text", &text)))
			j->base = sp_kernel_module_base(j->m->memory_start, text);
	} else if (!(info->elf_type == ET_REL && info->has_text && info->text_addr)) {
		/* ELF virtual addresses (the eBPF profiler's) or run-time ones */
		r->rule = sp_mapping_address_rule(info->loads, info->n_loads, j->m->memory_start,
						  j->m->file_offset);
		if (r->rule == SP_RULE_RUNTIME)
			e = sp_mapping_base(info, j->m->memory_start, j->m->memory_limit,
					    j->m->file_offset, j->pend[j->first].addr, &j->base);
		r->base = j->base;
	}
	if (!e) {
		j->obj = obj;
		return SP_UNRES_NONE;
	}
	sp_unresolved_reason why = obj ? SP_UNRES_OUTSIDE_FILE : classify(e);
	note_error(r, e);
	sp_error_free(e);
	return why;
}

/* What becomes of the run [i, e) of J's entries in step 4 */
typedef enum {
	RUN_NAMED,      /* the sources named all its locations */
	RUN_UNRESOLVED, /* stays unresolved, for *WHY */
	RUN_ASK,        /* to resolve in J's object */
} run_fate;

static run_fate fate(const job *j, size_t i, size_t e, sp_unresolved_reason *why,
		     size_t *n_done)
{
	*n_done = 0;
	for (size_t k = i; k < e; k++)
		*n_done += j->done[k];
	if (*n_done == e - i)
		return RUN_NAMED;
	if (!j->obj)
		return RUN_UNRESOLVED; /* *WHY as given */
	uint64_t a = j->pend[i].addr;
	if (j->m->memory_limit > j->m->memory_start &&
	    (a < j->m->memory_start || a >= j->m->memory_limit)) {
		*why = SP_UNRES_NO_MAPPING; /* not this mapping's */
		return RUN_UNRESOLVED;
	}
	if (!in_file(j, a)) {
		*why = SP_UNRES_OUTSIDE_FILE;
		return RUN_UNRESOLVED;
	}
	return RUN_ASK;
}

/* With -j: the addresses J's object is to resolve handed to the threads
 * (jobs.c), which answer them in this order; false when they stay on
 * this thread. */
static bool resolve_begin(ctx *c, const job *j)
{
	if (!c->par || !j->obj)
		return false;
	c->n_vaddrs = 0;
	for (size_t i = 0, e; i < j->n; i = e) {
		e = run_end(j, i);
		sp_unresolved_reason why = SP_UNRES_NONE;
		size_t n_done;
		if (fate(j, i, e, &why, &n_done) == RUN_ASK)
			SP_PUSH(c->vaddrs, c->n_vaddrs, c->cap_vaddrs, j->pend[i].addr - j->base);
	}
	return sp_par_begin(c->par, j->obj, c->debuginfod, c->vaddrs, c->n_vaddrs);
}

/* Step 4: every address left, once each, in J's object; without one, each
 * counts as WHY.  Returns whether any resolved. */
static bool resolve(ctx *c, const job *j, sp_mapping_report *r, sp_unresolved_reason why)
{
	bool any = false, par = resolve_begin(c, j);
	for (size_t i = 0, e; i < j->n; i = e) {
		e = run_end(j, i);
		size_t n_done;
		sp_unresolved_reason w = why;
		run_fate ft = fate(j, i, e, &w, &n_done);
		if (ft == RUN_NAMED)
			continue;
		/* an address the sources named at some of its code versions
		 * counts as resolved already: the rest are not counted again */
		bool counted = n_done > 0;
		if (ft == RUN_UNRESOLVED) {
			r->n_reason[w] += !counted;
			continue;
		}
		uint64_t a = j->pend[i].addr;
		const sp_frame *f = NULL;
		size_t nf = 0;
		sp_error *err = par ? sp_par_next(c->par, &f, &nf)
				    : sp_object_resolve(j->obj, a - j->base, &f, &nf);
		if (err) {
			note_error(r, err);
			sp_error_free(err);
			r->n_reason[SP_UNRES_ERROR] += !counted;
			continue;
		}
		if (nf == 0) {
			r->n_reason[SP_UNRES_NO_SYMBOLS] += !counted;
			continue;
		}
		if (!n_done)
			set_lines(c, j->pend + i, e - i, f, nf);
		for (size_t k = i; n_done && k < e; k++) /* what the sources left */
			if (!j->done[k])
				set_lines(c, j->pend + k, 1, f, nf);
		r->n_resolved += !counted;
		any = true;
	}
	if (par)
		sp_par_end(c->par);
	return any;
}

/* Step 5: what the object told about itself: separate debug file, where
 * it was looked for, a split unit it could not read, a build id the
 * profile did not record. */
static void report_object(ctx *c, const job *j, sp_mapping_report *r)
{
	const sp_elf_info *info = sp_object_info(j->obj);
	const char *dbg = sp_object_debug_path(j->obj);
	const sp_find_log *dl = sp_object_debug_log(j->obj);
	if (dbg)
		r->debug_path = sp_xstrdup(dbg);
	if (sp_object_index_path(j->obj))
		r->index_path = sp_xstrdup(sp_object_index_path(j->obj));
	if (dl)
		sp_find_log_append(&r->tried, dl);
	sp_error *split = sp_object_split_error(j->obj); /* a missing .dwo */
	note_error(r, split);
	sp_error_free(split);
	if (!*j->bid && info->build_id && *info->build_id) {
		j->m->build_id = sp_profile_intern(c->p, info->build_id);
		free(r->build_id);
		r->build_id = sp_xstrdup(info->build_id);
	}
}

/* Whether a kernel mapping named FNAME has a file to look for: the
 * kernel's image or a module. */
static bool kernel_file_name(const char *fname)
{
	if (sp_kernel_image_name(fname))
		return true;
	char *module = sp_kernel_module_name(fname);
	bool known = module != NULL;
	free(module);
	return known;
}

/* Symbolizes the addresses PEND[0..n) of mapping MAPPING_ID (0: none),
 * sorted by address: name sources, then locate the file, open it and take
 * the load base, resolve, report. */
static void do_mapping(ctx *c, sp_mapping_report *r, uint64_t mapping_id,
		       const sp_addr_item *pend, size_t n)
{
	sp_mapping *m = mapping_id ? sp_profile_mapping(c->p, mapping_id) : NULL;
	job j = {
		.m = m,
		.fname = m ? sp_profile_str(c->p, m->filename) : "",
		.bid = m ? sp_profile_str(c->p, m->build_id) : "",
		.pend = pend,
		.n = n,
	};
	r->mapping_id = m ? m->id : 0;
	r->recorded_path = sp_xstrdup(j.fname);
	r->build_id = *j.bid ? sp_xstrdup(j.bid) : NULL;
	for (size_t i = 0; i < n; i = run_end(&j, i))
		r->n_addresses++;
	if (m && !c->o->resymbolize &&
	    (m->has_functions || m->has_filenames || m->has_line_numbers || m->has_inline_frames)) {
		r->n_reason[SP_UNRES_ALREADY] = r->n_addresses;
		return;
	}

	j.done = sp_xcalloc(n, sizeof(bool));
	sp_unresolved_reason why = SP_UNRES_NONE;
	const char *found = NULL;
	/* The kernel's file, when there is one, names its addresses before
	 * kallsyms does: it is looked for first and offered to the sources. */
	j.kernel = m && sp_code_kind_of(c->p, m, m->memory_start) == SP_CODE_KERNEL &&
		   kernel_file_name(j.fname);
	if (j.kernel) {
		why = locate(c, &j, r, &found);
		if (why == SP_UNRES_NONE)
			why = open_and_base(c, &j, r, found);
	}
	if (c->has_sources)
		name_from_sources(c, &j, r);
	while (j.first < n && j.done[j.first])
		j.first++;
	if (!j.kernel && j.first < n)
		why = locate(c, &j, r, &found);
	if (!j.kernel && j.first < n && why == SP_UNRES_NONE)
		why = open_and_base(c, &j, r, found);
	bool any = resolve(c, &j, r, why);
	if (j.obj)
		report_object(c, &j, r);
	if (m && (any || j.any_fileless)) {
		m->has_functions |= c->any_func;
		m->has_filenames |= c->any_file;
		m->has_line_numbers |= c->any_line;
		m->has_inline_frames = true;
	}
	free(j.done);
}

/* Whether location L is one to name: one without lines (with --resymbolize
 * one with lines too) of machine code.  An OTLP location says what its
 * frame is (profile.frame.type): the eBPF profiler sends native frames
 * unnamed, names kernel frames from the host's kallsyms at addresses
 * relative to their module, and interpreter frames (cpython, jvm, ...) at
 * addresses that are no machine addresses; only native and Go frames are
 * this file's to name. */
static bool wanted(const ctx *c, const sp_location *l)
{
	if (l->address == 0 || (l->n_lines && !c->o->resymbolize))
		return false;
	const char *type = sp_location_otel_string(c->p, l->id, "profile.frame.type");
	return !type || !strcmp(type, "native") || !strcmp(type, "go");
}

/* Which locations (by slot) some sample refers to, each array of ids
 * shared by samples looked at once (sp_ids_seen). */
static bool *sampled_locations(const sp_profile *p)
{
	bool *used = sp_xcalloc(p->n_locations ? p->n_locations : 1, sizeof(bool));
	sp_ids_seen seen = {0};
	for (size_t i = 0; i < p->n_samples; i++) {
		const sp_sample *s = &p->samples[i];
		if (!s->n_locations || sp_ids_seen_add(&seen, s->location_ids, s->n_locations, NULL))
			continue;
		for (size_t k = 0; k < s->n_locations; k++) {
			const sp_location *l = sp_profile_location(p, s->location_ids[k]);
			if (l)
				used[l - p->locations] = true;
		}
	}
	sp_ids_seen_free(&seen);
	return used;
}

sp_error *sp_symbolize_profile(sp_symbolizer *s, sp_profile *p, sp_symbolize_report *report)
{
	return sp_symbolize_profile_jobs(s, p, 1, report);
}

sp_error *sp_symbolize_profile_jobs(sp_symbolizer *s, sp_profile *p, int jobs,
				    sp_symbolize_report *report)
{
	sp_symbolize_report local = {0};
	if (!report)
		report = &local;
	ctx c = {.s = s, .p = p, .o = sp_symbolizer_options(s)};
	const sp_jit_index *jit;
	const sp_perf_map *perf;
	const sp_kallsyms *ksyms;
	sp_error *err = sp_symbolizer_sources(s, &jit, &perf, &ksyms);
	c.has_sources = jit || perf || ksyms || sp_symbolizer_jitdump(s);
	if (err)
		goto out;
	c.par = sp_par_new(s, jobs);

	/* Locations without lines, grouped by mapping (ids ascending), each
	 * group in address order, equal addresses in location order. */
	sp_addr_item *by_map = NULL, *tmp, *pend;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < p->n_locations; i++) {
		const sp_location *l = &p->locations[i];
		if (!wanted(&c, l))
			continue;
		uint64_t mid = l->mapping_id;
		if (mid && !sp_profile_mapping(p, mid))
			mid = 0;
		sp_addr_item e = {mid, i};
		SP_PUSH(by_map, n, cap, e);
	}
	tmp = sp_xreallocarray(NULL, n + 1, sizeof(*tmp));
	pend = sp_xreallocarray(NULL, n + 1, sizeof(*pend));
	sp_addr_items_sort(by_map, tmp, n);
	for (size_t i = 0; i < n; i++)
		pend[i] = (sp_addr_item){p->locations[by_map[i].tag].address, by_map[i].tag};

	/* One report per mapping, in mapping order.  debuginfod is asked only
	 * about mappings some sample uses, so a profile cannot choose how many
	 * build ids are fetched by listing locations no sample refers to;
	 * those mappings come second, so an object they share with a sampled
	 * mapping has been opened (and its debug info fetched) already. */
	size_t n_groups = 0;
	for (size_t i = 0; i < n; i = sp_addr_items_run(by_map, n, i))
		n_groups++;
	size_t first_r = report->n_mappings, cap_r = first_r;
	if (n_groups > 0) {
		sp_grow(&report->mappings, &cap_r, first_r + n_groups, sizeof(*report->mappings));
		memset(report->mappings + first_r, 0, n_groups * sizeof(*report->mappings));
	}
	report->n_mappings = first_r + n_groups;
	bool *sampled = sampled_locations(p);
	sp_finder *finder = sp_symbolizer_finder(s);
	for (int pass = 0; pass < 2; pass++) {
		sp_finder_allow_debuginfod(finder, pass == 0);
		c.debuginfod = pass == 0;
		for (size_t i = 0, j, g = 0; i < n; i = j, g++) {
			j = sp_addr_items_run(by_map, n, i);
			bool used = false;
			for (size_t k = i; k < j; k++)
				used |= sampled[by_map[k].tag];
			if (used != (pass == 0))
				continue;
			sp_addr_items_sort(pend + i, tmp, j - i);
			c.any_func = c.any_file = c.any_line = false;
			do_mapping(&c, &report->mappings[first_r + g], by_map[i].addr, pend + i, j - i);
		}
	}
	sp_finder_allow_debuginfod(finder, true);
	free(sampled);
	free(by_map);
	free(tmp);
	free(pend);
	sp_par_free(c.par);
	free(c.vaddrs);
out:
	sp_symbolize_report_clear(&local);
	return err;
}
