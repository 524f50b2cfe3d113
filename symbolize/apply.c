/* apply.c — symbolizing a whole profile, one mapping at a time.
 *
 * The profile's locations without lines are grouped by mapping and sorted
 * by address.  For each mapping the binary is located once, opened once
 * through the session, its load base computed once from the first address,
 * and every distinct address resolved once; the frames become Line entries
 * (innermost first) pointing at de-duplicated Functions.  Addresses that no
 * file explains are offered to the name sources without files: JIT objects
 * (resolved with base 0 in the object whose section holds them), perf maps
 * and kallsyms.  Whatever stays unresolved is counted per reason in the
 * report, which has one entry per mapping (and one with id 0 for addresses
 * outside every mapping).
 */
#include "symbolize/internal.h"

#include <elf.h>
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
	case SP_UNRES_NOT_ELF: return "not ELF";
	case SP_UNRES_NO_SYMBOLS: return "no symbols";
	case SP_UNRES_OUTSIDE_FILE: return "outside the file";
	case SP_UNRES_ALREADY: return "already symbolized";
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
		free(m->build_id);
		free(m->detail);
		sp_find_log_clear(&m->tried);
	}
	free(r->mappings);
	r->mappings = NULL;
	r->n_mappings = 0;
}

typedef struct {
	uint64_t mapping_id, address;
	size_t loc; /* index into p->locations */
} pending;

static int cmp_pending(const void *a, const void *b)
{
	const pending *x = a, *y = b;
	if (x->mapping_id != y->mapping_id)
		return x->mapping_id < y->mapping_id ? -1 : 1;
	if (x->address != y->address)
		return x->address < y->address ? -1 : 1;
	return x->loc < y->loc ? -1 : x->loc > y->loc;
}

/* Name sources without a mapping file, the session's (borrowed). */
typedef struct {
	const sp_jit_index *jit;
	const sp_perf_map *perf;
	const sp_kallsyms *ksyms;
} sources;

typedef struct {
	sp_symbolizer *s;
	sp_profile *p;
	const sp_symbolize_options *o;
	sources src;
	bool any_func, any_file, any_line; /* for the has_* flags */
} ctx;

/* Fills the locations of one address (PEND[0..n)) with FRAMES. */
static void set_lines(ctx *c, const pending *pend, size_t n, const sp_frame *frames, size_t nf)
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
		sp_location *l = &c->p->locations[pend[k].loc];
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

static bool is_kernel(const sp_profile *p, const sp_mapping *m, uint64_t addr)
{
	if (addr >= (1ULL << 63))
		return true;
	return m && strncmp(sp_profile_str(p, m->filename), "[kernel", 7) == 0;
}

typedef enum { FILELESS_NONE, FILELESS_JIT, FILELESS_KERNEL } fileless_kind;

/* Offers one address to the JIT objects, perf maps and kallsyms.  Returns
 * which of them resolved it (JIT for JIT objects and perf maps). */
static fileless_kind resolve_fileless(ctx *c, const sp_mapping *m, const pending *pend,
				      size_t n)
{
	uint64_t addr = pend[0].address;
	if (c->src.jit) {
		const char *obj_path = sp_jit_index_lookup(c->src.jit, addr);
		if (obj_path) {
			sp_object *obj;
			sp_error *e = sp_symbolizer_object(c->s, obj_path, NULL, &obj);
			const sp_frame *f = NULL;
			size_t nf = 0;
			if (!e)
				e = sp_object_resolve(obj, addr, &f, &nf);
			sp_error_free(e);
			if (nf) {
				set_lines(c, pend, n, f, nf);
				return FILELESS_JIT;
			}
		}
	}
	const char *name = NULL;
	fileless_kind kind = FILELESS_JIT;
	if (c->src.perf)
		name = sp_perf_map_lookup(c->src.perf, addr);
	if (!name && c->src.ksyms && is_kernel(c->p, m, addr)) {
		name = sp_kallsyms_lookup(c->src.ksyms, addr);
		kind = FILELESS_KERNEL;
	}
	if (!name)
		return FILELESS_NONE;
	char *dn = sp_demangle(name, c->o->demangle);
	sp_frame f = {.name = dn ? dn : name, .system_name = name};
	set_lines(c, pend, n, &f, 1);
	free(dn);
	return kind;
}

static sp_unresolved_reason classify(const sp_error *e)
{
	switch (sp_error_root_code(e)) {
	case SP_E_BUILD_ID_MISMATCH: return SP_UNRES_BUILD_ID_MISMATCH;
	case SP_E_UNRECOGNIZED: return SP_UNRES_NOT_ELF;
	case SP_E_NOT_FOUND:
	case SP_E_IO: return SP_UNRES_FILE_NOT_FOUND;
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

/* Symbolizes the addresses PEND[0..n) of one mapping (sorted by address). */
static void do_mapping(ctx *c, sp_mapping_report *r, const pending *pend, size_t n)
{
	sp_mapping *m = pend[0].mapping_id ? sp_profile_mapping(c->p, pend[0].mapping_id) : NULL;
	const char *fname = m ? sp_profile_str(c->p, m->filename) : "";
	const char *bid = m ? sp_profile_str(c->p, m->build_id) : "";
	bool already = m && (m->has_functions || m->has_filenames || m->has_line_numbers ||
			     m->has_inline_frames);

	r->mapping_id = m ? m->id : 0;
	r->recorded_path = sp_xstrdup(fname);
	r->build_id = *bid ? sp_xstrdup(bid) : NULL;

	/* Distinct addresses: runs of equal address. */
	size_t n_addr = 0;
	for (size_t i = 0; i < n; i++)
		if (i == 0 || pend[i].address != pend[i - 1].address)
			n_addr++;
	r->n_addresses = n_addr;
	if (already) {
		r->n_reason[SP_UNRES_ALREADY] = n_addr;
		return;
	}

	bool *done = sp_xcalloc(n, sizeof(bool));
	bool has_sources = c->src.jit || c->src.perf || c->src.ksyms;
	bool any_fileless = false, any_jit = false;
	if (has_sources) {
		for (size_t i = 0, j; i < n; i = j) {
			for (j = i + 1; j < n && pend[j].address == pend[i].address;)
				j++;
			fileless_kind kind = resolve_fileless(c, m, pend + i, j - i);
			if (kind != FILELESS_NONE) {
				any_jit |= kind == FILELESS_JIT;
				for (size_t k = i; k < j; k++)
					done[k] = true;
				r->n_resolved++;
				any_fileless = true;
			}
		}
	}
	/* A mapping without a file (the placeholder of addresses outside the
	 * recorded map) is named after what resolved its addresses: kernel
	 * frames named from kallsyms only, or JIT code (perf's names). */
	if (any_fileless && m && !*fname)
		m->filename = sp_profile_intern(c->p, any_jit ? "[jit]" : "[kernel.kallsyms]");

	sp_unresolved_reason why = SP_UNRES_NONE;
	sp_object *obj = NULL;
	uint64_t base = 0;
	char *found = NULL;
	if (!m) {
		why = SP_UNRES_NO_MAPPING;
	} else if (!*fname) { /* (fname is the name before any "[jit]") */
		why = SP_UNRES_ANONYMOUS;
	} else if (sp_mapping_unsymbolizable(c->p, m)) {
		why = SP_UNRES_UNSYMBOLIZABLE;
	}

	size_t first = 0;
	while (first < n && done[first])
		first++;
	if (why == SP_UNRES_NONE && first < n) {
		sp_error *e = sp_finder_binary(sp_symbolizer_finder(c->s), fname,
					       *bid ? bid : NULL, &found, &r->tried);
		if (e && sp_error_root_code(e) == SP_E_UNSUPPORTED) {
			/* no search available: the recorded path as is */
			sp_error_free(e);
			e = NULL;
			found = sp_xstrdup(fname);
		}
		if (e) {
			why = classify(e);
			/* "not found" after rejecting candidates says why */
			for (size_t k = 0; why == SP_UNRES_FILE_NOT_FOUND && k < r->tried.n; k++)
				if (r->tried.v[k].status == SP_TRY_BUILD_ID_MISMATCH)
					why = SP_UNRES_BUILD_ID_MISMATCH;
				else if (r->tried.v[k].status == SP_TRY_NOT_ELF)
					why = SP_UNRES_NOT_ELF;
			if (why == SP_UNRES_ERROR)
				note_error(r, e);
			sp_error_free(e);
		}
	}
	if (why == SP_UNRES_NONE && first < n) {
		r->used_path = sp_xstrdup(found);
		sp_error *e = sp_symbolizer_object(c->s, found, *bid ? bid : NULL, &obj);
		const sp_elf_info *info = e ? NULL : sp_object_info(obj);
		/* An ET_REL whose sections carry addresses (JIT output) is in
		 * run-time addresses already: base 0.  Others (.ko) follow §6. */
		if (info && !(info->elf_type == ET_REL && info->has_text && info->text_addr))
			e = sp_mapping_base(info, m->memory_start, m->memory_limit,
					    m->file_offset, pend[first].address, &base);
		if (e) {
			why = obj ? SP_UNRES_OUTSIDE_FILE : classify(e);
			note_error(r, e);
			sp_error_free(e);
			obj = NULL;
		}
	}

	bool any = false;
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && pend[j].address == pend[i].address;)
			j++;
		if (done[i])
			continue;
		if (!obj) {
			r->n_reason[why]++;
			continue;
		}
		uint64_t a = pend[i].address;
		if (m->memory_limit > m->memory_start &&
		    (a < m->memory_start || a >= m->memory_limit)) {
			r->n_reason[SP_UNRES_NO_MAPPING]++; /* not this mapping's */
			continue;
		}
		if (!in_loads(sp_object_info(obj), a - base)) {
			r->n_reason[SP_UNRES_OUTSIDE_FILE]++;
			continue;
		}
		const sp_frame *f = NULL;
		size_t nf = 0;
		sp_error *e = sp_object_resolve(obj, a - base, &f, &nf);
		if (e) {
			note_error(r, e);
			sp_error_free(e);
			r->n_reason[SP_UNRES_ERROR]++;
			continue;
		}
		if (nf == 0) {
			r->n_reason[SP_UNRES_NO_SYMBOLS]++;
			continue;
		}
		set_lines(c, pend + i, j - i, f, nf);
		r->n_resolved++;
		any = true;
	}
	if (obj) {
		const sp_elf_info *info = sp_object_info(obj);
		const char *dbg = sp_object_debug_path(obj);
		const sp_find_log *dl = sp_object_debug_log(obj);
		if (dbg)
			r->debug_path = sp_xstrdup(dbg);
		for (size_t k = 0; dl && k < dl->n; k++)
			sp_find_log_add(&r->tried, dl->v[k].path, dl->v[k].status);
		if (!*bid && info->build_id && *info->build_id) {
			m->build_id = sp_profile_intern(c->p, info->build_id);
			free(r->build_id);
			r->build_id = sp_xstrdup(info->build_id);
		}
	}
	if (m && (any || any_fileless)) {
		m->has_functions |= c->any_func;
		m->has_filenames |= c->any_file;
		m->has_line_numbers |= c->any_line;
		m->has_inline_frames = true;
	}
	free(found);
	free(done);
}

/* Which locations (by slot) some sample refers to. */
static bool *sampled_locations(const sp_profile *p)
{
	bool *used = sp_xcalloc(p->n_locations ? p->n_locations : 1, sizeof(bool));
	for (size_t i = 0; i < p->n_samples; i++)
		for (size_t k = 0; k < p->samples[i].n_locations; k++) {
			const sp_location *l = sp_profile_location(p, p->samples[i].location_ids[k]);
			if (l)
				used[l - p->locations] = true;
		}
	return used;
}

sp_error *sp_symbolize_profile(sp_symbolizer *s, sp_profile *p, sp_symbolize_report *report)
{
	sp_symbolize_report local = {0};
	if (!report)
		report = &local;
	ctx c = {.s = s, .p = p, .o = sp_symbolizer_options(s)};
	sp_error *err = sp_symbolizer_sources(s, &c.src.jit, &c.src.perf, &c.src.ksyms);
	if (err)
		goto out;

	pending *pend = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < p->n_locations; i++) {
		const sp_location *l = &p->locations[i];
		if (l->n_lines || l->address == 0)
			continue;
		uint64_t mid = l->mapping_id;
		if (mid && !sp_profile_mapping(p, mid))
			mid = 0;
		pending e = {mid, l->address, i};
		SP_PUSH(pend, n, cap, e);
	}
	if (n > 1) /* qsort must not get NULL, and empty tables may be */
		qsort(pend, n, sizeof(*pend), cmp_pending);

	/* One report per mapping, in mapping order.  debuginfod is asked only
	 * about mappings some sample uses, so a profile cannot choose how many
	 * build ids are fetched by listing locations no sample refers to;
	 * those mappings come second, so an object they share with a sampled
	 * mapping has been opened (and its debug info fetched) already. */
	size_t n_groups = 0;
	for (size_t i = 0; i < n; i++)
		n_groups += i == 0 || pend[i].mapping_id != pend[i - 1].mapping_id;
	size_t first_r = report->n_mappings, cap_r = first_r;
	sp_grow(&report->mappings, &cap_r, first_r + n_groups, sizeof(*report->mappings));
	memset(report->mappings + first_r, 0, n_groups * sizeof(*report->mappings));
	report->n_mappings = first_r + n_groups;
	bool *sampled = sampled_locations(p);
	sp_finder *finder = sp_symbolizer_finder(s);
	for (int pass = 0; pass < 2; pass++) {
		sp_finder_allow_debuginfod(finder, pass == 0);
		for (size_t i = 0, j, g = 0; i < n; i = j, g++) {
			bool used = false;
			for (j = i; j < n && pend[j].mapping_id == pend[i].mapping_id; j++)
				used |= sampled[pend[j].loc];
			if (used != (pass == 0))
				continue;
			c.any_func = c.any_file = c.any_line = false;
			do_mapping(&c, &report->mappings[first_r + g], pend + i, j - i);
		}
	}
	sp_finder_allow_debuginfod(finder, true);
	free(sampled);
	free(pend);
out:
	sp_symbolize_report_clear(&local);
	return err;
}
