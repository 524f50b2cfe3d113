/* modules.c — which modules a process's Dwfl holds (see unwind.c for the
 * unwinder).
 *
 * One module per file per base, whatever the number of mappings: a library
 * mapped as four segments is one module, and so is a file mapped many
 * times at one place.  Every module of a file, in every process, shares
 * one mapping of it (module.c's shared image), so a module holds no
 * descriptor and a file is opened and read once per capture; memory reads
 * outside a stack copy read that image too.  The only descriptors the
 * Dwfls keep are those of separate debug files libdwfl opens for
 * .debug_frame (when .eh_frame has no entry for a pc), counted as our
 * search hands them over.
 *
 * libdwfl's cost of reporting a module is linear in the modules of its
 * Dwfl (dwfl_report_module looks for the same module among them,
 * dwfl_report_end walks them, the next address look-up rebuilds the
 * segment table), so reporting each of N mappings in a round of its own
 * costs N².  Two bounds keep it linear:
 *   - the modules the pcs of a perf round's samples need are reported
 *     together, one round per process (sp_unwind_modules_batch), the rest
 *     as unwinding meets them;
 *   - a Dwfl holds at most max_live modules: past that, the least recently
 *     used half is taken out (one dwfl_report_begin round re-reporting the
 *     others) and reported again when met again.
 * Across processes, when the separate debug files held pass max_fds, the
 * Dwfls of the processes least recently unwound are ended (every unit's:
 * parallel.c).  Both bounds
 * follow the soft limit on descriptors, which main() raises to the hard
 * limit.
 */
#include "symbolize/unwind/unwindp.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

void sp_unwind_modules_init(sp_unwinder *u)
{
	struct rlimit rl;
	size_t soft = 1024;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		soft = (size_t)rl.rlim_cur;
	/* a quarter of the descriptors for debug files, the rest for the
	 * session's objects, the inputs and outputs */
	u->max_fds = soft / 4 > 16 ? soft / 4 : 16;
	u->max_live = u->max_fds / 2;
	if (u->max_live > 256)
		u->max_live = 256;
}

/* -- processes ----------------------------------------------------------------- */

uproc *sp_unwind_proc_for(sp_unwinder *u, int64_t pid, uint64_t tick)
{
	uint64_t i;
	if (sp_u64map_get(&u->proc_of, (uint64_t)pid, &i))
		return &u->procs[i - 1];
	uproc p = {.pid = pid, .born = tick};
	SP_PUSH(u->procs, u->n_procs, u->cap_procs, p);
	sp_u64map_put(&u->proc_of, (uint64_t)pid, u->n_procs);
	return &u->procs[u->n_procs - 1];
}

sp_dwfl *sp_unwind_proc_dwfl(sp_unwinder *u, uproc *p, const char **why)
{
	if (p->dwfl)
		return p->dwfl;
	sp_error *e = sp_dwfl_new(sp_symbolizer_options(u->s), "unwinding", &p->dwfl);
	if (!e)
		return p->dwfl;
	sp_error_free(e);
	sp_dwfl_free(p->dwfl);
	p->dwfl = NULL;
	*why = "cannot start libdwfl";
	return NULL;
}

/* Module DM leaves its Dwfl: the separate debug file it held, if any, is
 * closed with it. */
static void release(sp_unwinder *u, Dwfl_Module *dm)
{
	const char *main_file = NULL, *debug_file = NULL;
	dwfl_module_info(dm, NULL, NULL, NULL, NULL, NULL, &main_file, &debug_file);
	if (debug_file && (!main_file || strcmp(main_file, debug_file)) && u->debug_fds)
		u->debug_fds--;
}

void sp_unwind_proc_end(sp_unwinder *u, uproc *p)
{
	for (size_t i = 0; i < p->n_mods; i++)
		if (p->mods[i].dm) {
			release(u, p->mods[i].dm);
			p->mods[i].dm = NULL;
		}
	sp_dwfl_free(p->dwfl);
	p->dwfl = NULL;
	p->attached = false;
	p->n_live = 0;
	p->gen++;
}

void sp_unwind_proc_free(sp_unwinder *u, uproc *p)
{
	sp_unwind_proc_end(u, p);
	free(p->mods);
	sp_u64map_free(&p->mod_of);
	for (size_t i = 0; i < p->n_mapped; i++)
		free(p->mapped[i].why);
	free(p->mapped);
	sp_u64map_free(&p->map_of);
}

/* -- processes of every unit (parallel.c) ------------------------------------ */

size_t sp_unwind_debug_fds(const sp_unwinder *f)
{
	if (!f->units)
		return f->debug_fds;
	size_t n = 0;
	for (size_t k = 0; k < f->n_units; k++)
		n += f->units[k]->debug_fds;
	return n;
}

void sp_unwind_trim(sp_unwinder *f, uproc *p)
{
	size_t n_units = f->units ? f->n_units : 1;
	sp_unwinder *const *units = f->units ? f->units : &f;
	while (sp_unwind_debug_fds(f) > f->max_fds) {
		uproc *old = NULL;
		sp_unwinder *at = NULL;
		for (size_t k = 0; k < n_units; k++)
			for (size_t i = 0; i < units[k]->n_procs; i++) {
				uproc *q = &units[k]->procs[i];
				if (q == p || !q->dwfl)
					continue;
				if (!old || q->used < old->used ||
				    (q->used == old->used && q->born < old->born)) {
					old = q;
					at = units[k];
				}
			}
		if (!old)
			break;
		sp_unwind_proc_end(at, old);
	}
}

/* -- files ---------------------------------------------------------------------- */

/* Whether a failure of code C is an error (the file is there but could
 * not be read: descriptors, memory, damage), not a file that is absent or
 * not the recorded one. */
static bool is_error(sp_errcode c)
{
	return c != SP_E_NOT_FOUND && c != SP_E_BUILD_ID_MISMATCH && c != SP_E_UNRECOGNIZED &&
	       c != SP_E_NOT_REGULAR && c != SP_E_UNSUPPORTED;
}

/* The file FOUND (INFO its identity, the session's), added when new. */
static size_t file_for(sp_unwinder *u, const char *found, const sp_elf_info *info)
{
	size_t n = u->file_of.n;
	size_t i = sp_strtab_intern_str(&u->file_of, found);
	if (i < n)
		return i;
	ufile f = {0};
	f.m = sp_module_new(found, sp_symbolizer_options(u->s), info, sp_symbolizer_finder(u->s));
	f.m->debug_fds = &u->debug_fds;
	sp_error *e = sp_module_share(f.m);
	if (e) {
		f.why = sp_error_string(e);
		f.error = is_error(sp_error_root_code(e));
		sp_error_free(e);
	}
	SP_PUSH(u->files, u->n_files, u->cap_files, f);
	return i;
}

void sp_unwind_modules_free(sp_unwinder *u)
{
	for (size_t i = 0; i < u->n_files; i++) {
		sp_module_free(u->files[i].m);
		free(u->files[i].why);
	}
	free(u->files);
	sp_strtab_free(&u->file_of);
}

Elf *sp_unwind_module_elf(const sp_unwinder *u, const uproc *p, size_t mod)
{
	return u->files[p->mods[mod].file].m->image;
}

bool sp_unwind_file_word(const sp_unwinder *u, const uproc *p, size_t mod, uint64_t off,
			 uint64_t *out)
{
	size_t size;
	const unsigned char *img = sp_module_image(u->files[p->mods[mod].file].m, &size);
	if (!img || off > size || size - off < 8)
		return false;
	memcpy(out, img + off, 8);
	return true;
}

/* -- modules of a process ------------------------------------------------------ */

static uint64_t mod_key(size_t file, uint64_t base)
{
	return sp_hash_combine(sp_hash_u64(file), base);
}

/* The module of FILE at BASE in P, added (not reported) when new. */
static size_t mod_for(uproc *p, size_t file, uint64_t base)
{
	uint64_t v;
	if (sp_u64map_get(&p->mod_of, mod_key(file, base), &v)) {
		if (p->mods[v - 1].file == file && p->mods[v - 1].base == base)
			return v - 1;
		for (size_t i = 0; i < p->n_mods; i++) /* two keys of one hash */
			if (p->mods[i].file == file && p->mods[i].base == base)
				return i;
	}
	umod md = {.file = file, .base = base};
	SP_PUSH(p->mods, p->n_mods, p->cap_mods, md);
	if (!sp_u64map_get(&p->mod_of, mod_key(file, base), &v))
		sp_u64map_put(&p->mod_of, mod_key(file, base), p->n_mods);
	return p->n_mods - 1;
}

static int cmp_used_desc(const void *a, const void *b, void *arg)
{
	const umod *mods = arg;
	uint64_t x = mods[*(const size_t *)a].used, y = mods[*(const size_t *)b].used;
	return x > y ? -1 : x < y;
}

/* Takes the least recently used half of P's modules out of its Dwfl. */
static void evict(sp_unwinder *u, uproc *p)
{
	size_t *live = sp_xreallocarray(NULL, p->n_live ? p->n_live : 1, sizeof(*live)), n = 0;
	for (size_t i = 0; i < p->n_mods; i++)
		if (p->mods[i].dm)
			live[n++] = i;
	qsort_r(live, n, sizeof(*live), cmp_used_desc, p->mods);
	size_t keep = u->max_live / 2;
	Dwfl *d = sp_dwfl_handle(p->dwfl);
	dwfl_report_begin(d); /* every module to be dropped unless reported again */
	for (size_t k = 0; k < n; k++) {
		umod *md = &p->mods[live[k]];
		Dwarf_Addr lo, hi;
		const char *name = dwfl_module_info(md->dm, NULL, &lo, &hi, NULL, NULL, NULL, NULL);
		if (k < keep && dwfl_report_module(d, name, lo, hi) == md->dm)
			continue;
		release(u, md->dm);
		md->dm = NULL;
		u->stats_evicted++;
	}
	dwfl_report_end(d, NULL, NULL);
	free(live);
	p->n_live = n < keep ? n : keep;
	p->gen++;
}

/* Reports module MD of P; false (and MD not in the Dwfl) on failure. */
static bool report_mods(sp_unwinder *u, uproc *p, umod **mds, size_t n)
{
	const char *why = NULL;
	sp_dwfl *df = sp_unwind_proc_dwfl(u, p, &why);
	if (!df)
		return false;
	if (p->n_live + n > u->max_live)
		evict(u, p);
	Dwfl *d = sp_dwfl_handle(df);
	dwfl_report_begin_add(d);
	for (size_t i = 0; i < n && p->n_live < u->max_live; i++) {
		sp_error *e = sp_module_report_shared(u->files[mds[i]->file].m, d, mds[i]->base,
						      &mds[i]->dm);
		sp_error_free(e);
		p->n_live += mds[i]->dm != NULL;
	}
	dwfl_report_end(d, NULL, NULL);
	p->gen++;
	return true;
}

const umapped *sp_unwind_map_known(const uproc *p, size_t mi)
{
	uint64_t v;
	return sp_u64map_get(&p->map_of, mi + 1, &v) ? &p->mapped[v - 1] : NULL;
}

/* What map M (index MI) of P resolves to, found (not reported) when new:
 * its file through the session, its base, its module. */
static const umapped *resolve(sp_unwinder *u, uproc *p, const sp_capture_map *m, size_t mi)
{
	const umapped *k = sp_unwind_map_known(p, mi);
	if (k)
		return k;
	umapped r = {0};
	const char *found;
	const sp_find_log *log;
	sp_object *obj = NULL;
	sp_error *e = sp_symbolizer_locate(u->s, m->path, m->build_id, &found, &log);
	if (!e)
		e = sp_symbolizer_object(u->s, found, NULL, &obj);
	uint64_t base = 0;
	const sp_elf_info *info = obj ? sp_object_info(obj) : NULL;
	if (!e)
		e = sp_mapping_base(info, m->start, m->limit, m->pgoff, m->start, &base);
	size_t f = e ? 0 : file_for(u, found, info);
	if (e) {
		sp_errcode c = sp_error_root_code(e);
		r.error = is_error(c);
		r.why = r.error		      ? sp_error_string(e)
			: c == SP_E_NOT_REGULAR ? sp_xstrdup("not a regular file")
						: sp_xstrdup("binary not found");
		sp_error_free(e);
	} else if (u->files[f].why) {
		r.why = sp_xstrdup(u->files[f].why);
		r.error = u->files[f].error;
	} else {
		r.mod = mod_for(p, f, base) + 1;
	}
	SP_PUSH(p->mapped, p->n_mapped, p->cap_mapped, r);
	sp_u64map_put(&p->map_of, mi + 1, p->n_mapped);
	return &p->mapped[p->n_mapped - 1];
}

const umapped *sp_unwind_map_module(sp_unwinder *u, uproc *p, const sp_capture_map *m,
				    size_t mi)
{
	const umapped *r = resolve(u, p, m, mi);
	if (!r->mod)
		return r;
	umod *md = &p->mods[r->mod - 1];
	md->used = u->clock;
	if (!md->dm)
		report_mods(u, p, &md, 1);
	return r;
}

/* -- a perf round's leaves, reported together ----------------------------------- */

typedef struct {
	size_t proc;
	size_t mod;
	uint64_t base;
} pending;

static int cmp_pending(const void *a, const void *b)
{
	const pending *x = a, *y = b;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	return x->mod < y->mod ? -1 : x->mod > y->mod;
}

void sp_unwind_modules_batch(sp_unwinder *u, sp_capture *c, size_t from, size_t to)
{
	pending *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t k = from; k < to; k++) {
		const sp_capture_sample *s = &c->samples[u->own[k].i];
		if (s->regs_abi != 2 || !s->stack.len || s->pid <= 0 || !s->ip)
			continue;
		const sp_capture_map *m = sp_capture_map_at(c, s->pid, s->ip, s->time);
		if (!m)
			continue;
		uproc *p = sp_unwind_proc_for(u, s->pid, u->own[k].tick);
		const sp_capture_process *pr = sp_capture_process_for(c, s->pid);
		const umapped *r = resolve(u, p, m, (size_t)(m - pr->maps));
		if (!r->mod || p->mods[r->mod - 1].dm)
			continue;
		pending pd = {(size_t)(p - u->procs), r->mod - 1, p->mods[r->mod - 1].base};
		SP_PUSH(v, n, cap, pd);
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_pending);
	umod **mds = sp_xreallocarray(NULL, n ? n : 1, sizeof(*mds));
	for (size_t i = 0; i < n;) {
		uproc *p = &u->procs[v[i].proc];
		size_t k = 0, j = i;
		for (; j < n && v[j].proc == v[i].proc; j++)
			if (j == i || v[j].mod != v[j - 1].mod)
				mds[k++] = &p->mods[v[j].mod];
		/* as much as the Dwfl has room for; the others as met */
		if (k > u->max_live / 2)
			k = u->max_live / 2;
		for (size_t q = 0; q < k; q++)
			mds[q]->used = u->clock;
		report_mods(u, p, mds, k);
		i = j;
	}
	free(mds);
	free(v);
}
