/* annotate.c — fills an annotation (report/annotation.h): the functions and
 * their source lines from the profile (report/annotation.c), then for each
 * function
 *
 *   code     the symbol holding its hottest out-of-line address, in the
 *            file the session found for that mapping: its bytes decoded
 *            (symbolize/disasm.c), each instruction's inline chain from the
 *            session's resolver, and the samples whose locations lie in it
 *            (flat for a leaf, cum once per sample);
 *   sources  every file its lines and inline rows name, read once: the
 *            recorded path through --path-map, then under each
 *            --source-path directory with its leading components removed
 *            one by one (pprof's search), regular files of at most 16 MiB.
 *
 * Only the chosen functions are decoded.  Nothing is printed: what could
 * not be had is in the annotation (no_disasm, sources' missing).
 */
#include "pipeline/annotate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_FUNCTIONS 50
#define MAX_SOURCE_BYTES ((size_t)16 << 20)
#define MAX_FUNCTION_BYTES ((uint64_t)1 << 20) /* larger symbols are not decoded */

/* -- code ------------------------------------------------------------------- */

typedef struct {
	sp_object *obj;
	sp_code_file *cf;
	sp_error *err;
} code_cache;

typedef struct {
	const sp_profile *p;
	sp_symbolizer *s;
	sp_annotation *a;
	code_cache *files;
	size_t n_files, cap_files;
} ctx;

/* The code file of object O (opened once). */
static sp_error *code_file(ctx *c, sp_object *o, sp_code_file **out)
{
	for (size_t i = 0; i < c->n_files; i++) {
		if (c->files[i].obj == o) {
			*out = c->files[i].cf;
			return c->files[i].err ? sp_error_dup(c->files[i].err) : NULL;
		}
	}
	code_cache e = {.obj = o};
	e.err = sp_object_code_file(o, &e.cf);
	SP_PUSH(c->files, c->n_files, c->cap_files, e);
	*out = e.cf;
	return e.err ? sp_error_dup(e.err) : NULL;
}

/* Whether location L's outermost frame is function FI of the annotation
 * (by name and file). */
static bool outermost_is(const ctx *c, const sp_location *l, const sp_ann_function *f)
{
	if (!l->n_lines)
		return false;
	const sp_function *fn = sp_profile_function(c->p, l->lines[l->n_lines - 1].function_id);
	if (!fn)
		return false;
	return !strcmp(sp_profile_str(c->p, fn->name), sp_ann_str(c->a, f->name)) &&
	       !strcmp(sp_profile_str(c->p, fn->filename), sp_ann_str(c->a, f->file));
}

static size_t insn_at(const sp_ann_function *f, uint64_t vaddr)
{
	size_t lo = 0, hi = f->n_insns;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->insns[mid].vaddr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return SIZE_MAX;
	const sp_ann_insn *in = &f->insns[lo - 1];
	return vaddr < in->vaddr + in->len ? lo - 1 : SIZE_MAX;
}

/* Decodes F's code: the symbol holding ADDR (run-time) of mapping M. */
static sp_error *decode(ctx *c, sp_ann_function *f, const sp_mapping *m, uint64_t addr,
			uint64_t *base)
{
	sp_object *o;
	sp_error *err = sp_symbolizer_mapping_object(c->s, c->p, m, addr, &o, base);
	sp_code_file *cf;
	if (!err)
		err = code_file(c, o, &cf);
	if (err)
		return err;
	uint64_t vaddr = addr - *base, start, size;
	const char *sym = sp_code_file_function(cf, vaddr, &start, &size);
	if (!sym)
		return sp_error_new(SP_E_NOT_FOUND, "%s: no function symbol holds %#llx",
				    sp_object_info(o)->path, (unsigned long long)vaddr);
	if (size > MAX_FUNCTION_BYTES)
		return sp_error_new(SP_E_LIMIT, "%s: %s is %llu bytes, more than the %llu decoded",
				    sp_object_info(o)->path, sym, (unsigned long long)size,
				    (unsigned long long)MAX_FUNCTION_BYTES);
	uint8_t *bytes = sp_xmalloc(size ? size : 1);
	err = sp_code_file_read(cf, start, bytes, size);
	sp_insn *insns = NULL;
	size_t n = 0;
	if (!err)
		err = sp_disassemble(sp_code_file_machine(cf), bytes, size, start,
				     sp_code_file_symbol, cf, &insns, &n);
	free(bytes);
	if (err)
		return err;
	f->object = sp_xstrdup(sp_object_info(o)->path);
	f->symbol = sp_xstrdup(sym);
	f->start = start;
	f->end = start + size;
	f->insns = sp_xcalloc(n ? n : 1, sizeof(*f->insns));
	f->n_insns = n;
	for (size_t i = 0; i < n; i++) {
		sp_ann_insn *in = &f->insns[i];
		*in = (sp_ann_insn){.vaddr = insns[i].vaddr,
				    .len = insns[i].len,
				    .text = insns[i].text,
				    .branch = insns[i].branch,
				    .target = insns[i].target};
		memcpy(in->bytes, insns[i].bytes, sizeof(in->bytes));
		insns[i].text = NULL;
		const sp_frame *fr;
		size_t nf = 0;
		sp_error *e = sp_object_resolve(o, in->vaddr, &fr, &nf);
		sp_error_free(e); /* an instruction without lines has no chain */
		in->first_frame = c->a->n_frames;
		in->n_frames = e ? 0 : nf;
		for (size_t k = 0; !e && k < nf; k++)
			sp_ann_add_frame(c->a, fr[k].name, fr[k].file, fr[k].line);
	}
	sp_insns_free(insns, n);
	for (size_t i = 0; i < n; i++) {
		size_t t = f->insns[i].branch ? insn_at(f, f->insns[i].target) : SIZE_MAX;
		if (t != SIZE_MAX && f->insns[t].vaddr == f->insns[i].target)
			f->insns[t].is_target = true;
	}
	return NULL;
}

/* Each location of P's sampled stacks whose outermost frame is F, weighed
 * by the samples: the mapping and address of the heaviest, from which F's
 * code is found. */
static bool hottest_address(ctx *c, const sp_ann_function *f, size_t col,
			    const sp_sample_filter *keep, uint64_t *mapping, uint64_t *addr)
{
	sp_u64map weight = {0}; /* location id -> weight + 1 */
	uint64_t best_loc = 0, best_w = 0;
	for (size_t si = 0; si < c->p->n_samples; si++) {
		const sp_sample *s = &c->p->samples[si];
		if (keep && !sp_sample_filter_keep(keep, s))
			continue;
		int64_t sv = s->values[col];
		uint64_t v = (sv < 0 ? 0 - (uint64_t)sv : (uint64_t)sv) + 1;
		for (size_t j = 0; j < s->n_locations; j++) {
			const sp_location *l = sp_profile_location(c->p, s->location_ids[j]);
			if (!l || !l->mapping_id || !outermost_is(c, l, f))
				continue;
			uint64_t w = 0;
			sp_u64map_get(&weight, l->id, &w);
			w += v;
			sp_u64map_put(&weight, l->id, w);
			if (w > best_w || (w == best_w && l->id < best_loc)) {
				best_w = w;
				best_loc = l->id;
			}
		}
	}
	sp_u64map_free(&weight);
	if (!best_loc)
		return false;
	const sp_location *l = sp_profile_location(c->p, best_loc);
	*mapping = l->mapping_id;
	*addr = l->address;
	return true;
}

/* The values of F's instructions: every location of mapping MAPPING whose
 * address, less BASE, lies in F's code. */
static void attribute_code(ctx *c, sp_ann_function *f, size_t col, const sp_sample_filter *keep,
			   uint64_t mapping, uint64_t base)
{
	size_t *stamp = sp_xcalloc(f->n_insns ? f->n_insns : 1, sizeof(*stamp));
	size_t fstamp = 0;
	for (size_t si = 0; si < c->p->n_samples; si++) {
		const sp_sample *s = &c->p->samples[si];
		if (keep && !sp_sample_filter_keep(keep, s))
			continue;
		int64_t v = s->values[col];
		for (size_t j = 0; j < s->n_locations; j++) {
			const sp_location *l = sp_profile_location(c->p, s->location_ids[j]);
			if (!l || l->mapping_id != mapping)
				continue;
			uint64_t va = l->address - base;
			if (va < f->start || va >= f->end)
				continue;
			size_t i = insn_at(f, va);
			if (i == SIZE_MAX)
				continue;
			if (fstamp != si + 1) {
				fstamp = si + 1;
				f->code_cum += v;
			}
			if (stamp[i] != si + 1) {
				stamp[i] = si + 1;
				f->insns[i].cum += v;
			}
			if (j == 0) {
				f->insns[i].flat += v;
				f->code_flat += v;
			}
		}
	}
	free(stamp);
}

static void add_code(ctx *c, sp_ann_function *f, size_t col, const sp_sample_filter *keep)
{
	uint64_t mapping, addr, base = 0;
	if (!hottest_address(c, f, col, keep, &mapping, &addr)) {
		f->no_disasm = sp_xstrdup("no sampled address of its own (only inlined, or "
					  "without a mapping)");
		return;
	}
	const sp_mapping *m = sp_profile_mapping(c->p, mapping);
	sp_error *err = m ? decode(c, f, m, addr, &base)
			  : sp_error_new(SP_E_NOT_FOUND, "mapping %llu missing",
					 (unsigned long long)mapping);
	if (err) {
		f->no_disasm = sp_error_string(err);
		sp_error_free(err);
		return;
	}
	attribute_code(c, f, col, keep, mapping, base);
}

/* -- sources ------------------------------------------------------------------ */

/* Reads PATH when it is a regular file of at most MAX_SOURCE_BYTES into
 * S; false when not (nothing changed). */
static bool read_source(sp_ann_source *s, const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > MAX_SOURCE_BYTES) {
		close(fd);
		return false;
	}
	size_t size = (size_t)st.st_size;
	char *text = sp_xmalloc(size + 1);
	size_t got = 0;
	while (got < size) {
		ssize_t r = read(fd, text + got, size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	text[got] = '\0';
	s->text = text;
	s->found = sp_xstrdup(path);
	size_t cap = 0;
	for (size_t i = 0; i < got; i++)
		if (i == 0 || text[i - 1] == '\n')
			SP_PUSH(s->line_start, s->n_lines, cap, i);
	return true;
}

static void find_source(const sp_annotate_options *o, sp_ann_source *s, const char *path)
{
	sp_buf tried = {0};
	char *mapped = NULL;
	for (size_t i = 0; i < o->n_path_maps; i++) {
		size_t n = strlen(o->path_maps[i].from);
		if (n && !strncmp(path, o->path_maps[i].from, n)) {
			mapped = sp_xasprintf("%s%s", o->path_maps[i].to, path + n);
			break;
		}
	}
	const char *first = mapped ? mapped : path;
	bool ok = *first && read_source(s, first);
	if (!ok && *first)
		sp_buf_printf(&tried, "%s", first);
	/* under each --source-path: the path, then without its leading
	 * components one by one */
	for (size_t d = 0; !ok && d < o->n_source_paths; d++) {
		for (const char *rest = path; !ok && rest && *rest;) {
			while (*rest == '/')
				rest++;
			if (!*rest)
				break;
			char *cand = sp_xasprintf("%s/%s", o->source_paths[d], rest);
			ok = read_source(s, cand);
			if (!ok)
				sp_buf_printf(&tried, "%s%s", tried.len ? ", " : "", cand);
			free(cand);
			rest = strchr(rest, '/');
		}
	}
	if (!ok)
		s->missing = !*path ? sp_xstrdup("the debug info names no file")
				    : sp_xasprintf("not found (looked at %s)",
						   tried.len ? sp_buf_str(&tried) : path);
	sp_buf_free(&tried);
	free(mapped);
}

static void add_sources(sp_annotation *a, const sp_annotate_options *o)
{
	size_t cap = 0;
	for (size_t i = 0; i < a->n_functions; i++) {
		const sp_ann_function *f = &a->functions[i];
		for (size_t k = 0; k <= f->n_inlines; k++) {
			size_t file = k < f->n_inlines ? f->inlines[k].frame.file : f->file;
			if (!file || sp_ann_source_of(a, file))
				continue;
			sp_ann_source s = {.path = file};
			find_source(o, &s, sp_ann_str(a, file));
			SP_PUSH(a->sources, a->n_sources, cap, s);
		}
	}
}

sp_error *sp_annotate(const sp_profile *p, size_t col, const sp_report_options *ro,
		      sp_symbolizer *s, const sp_annotate_options *o, sp_annotation **out)
{
	sp_annotate_options defaults = {0};
	if (!o)
		o = &defaults;
	*out = NULL;
	sp_sample_filter *keep = NULL;
	sp_error *err = sp_report_filter_new(p, ro, &keep);
	if (err)
		return err;
	regex_t re;
	bool have_re = o->select_by_focus && ro->focus && *ro->focus;
	if (have_re && (err = sp_regex_compile("focus", ro->focus, &re))) {
		sp_sample_filter_free(keep);
		return err;
	}
	sp_annotation *a = NULL;
	err = sp_annotation_build(p, col, sp_sample_filter_active(keep) ? keep : NULL,
				  have_re ? &re : NULL,
				  o->max_functions ? o->max_functions : DEFAULT_FUNCTIONS, &a);
	if (have_re)
		regfree(&re);
	if (!err && o->code && s) {
		ctx c = {.p = p, .s = s, .a = a};
		for (size_t i = 0; i < a->n_functions; i++)
			add_code(&c, &a->functions[i], col,
				 sp_sample_filter_active(keep) ? keep : NULL);
		for (size_t i = 0; i < c.n_files; i++) {
			sp_code_file_free(c.files[i].cf);
			sp_error_free(c.files[i].err);
		}
		free(c.files);
	} else if (!err && o->code) {
		for (size_t i = 0; i < a->n_functions; i++)
			a->functions[i].no_disasm = sp_xstrdup("not symbolized (--no-symbolize)");
	}
	if (!err)
		add_sources(a, o);
	sp_sample_filter_free(keep);
	if (err) {
		sp_annotation_free(a);
		return err;
	}
	*out = a;
	return NULL;
}
