/* api.c — symprof.h: errors, sessions, symbolizing addresses (as data and
 * as text).  The engine's types stay behind the public ones: an error is
 * copied into a code and a message, results into structs the caller frees
 * whole, and options are taken by their size, so that the library can
 * grow without breaking programs built against an older header.
 */
#include "pipeline/api.h"

#include <elf.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The public codes are the engine's, in its order. */
_Static_assert((int)SYMPROF_E_IO == (int)SP_E_IO && (int)SYMPROF_E_USAGE == (int)SP_E_USAGE &&
		       (int)SYMPROF_E_NOT_FOUND == (int)SP_E_NOT_FOUND &&
		       (int)SYMPROF_E_BUILD_ID_MISMATCH == (int)SP_E_BUILD_ID_MISMATCH &&
		       (int)SYMPROF_E_LIMIT == (int)SP_E_LIMIT && SP_E_COUNT_ == SYMPROF_E_LIMIT + 1,
	       "symprof_errcode follows sp_errcode");
_Static_assert((int)SYMPROF_ERROR == (int)SP_UNRES_ERROR &&
		       (int)SYMPROF_FILE_NOT_FOUND == (int)SP_UNRES_FILE_NOT_FOUND &&
		       (int)SYMPROF_OUTSIDE_FILE == (int)SP_UNRES_OUTSIDE_FILE,
	       "symprof_reason follows sp_unresolved_reason");
_Static_assert((int)SYMPROF_DEMANGLE_NONE == (int)SP_DEMANGLE_NONE &&
		       (int)SYMPROF_DEMANGLE_FULL == (int)SP_DEMANGLE_FULL,
	       "symprof_demangle follows sp_demangle_style");

const char *symprof_version(void)
{
	return PACKAGE_VERSION;
}

/* -- errors ----------------------------------------------------------------------- */

symprof_error *sp_api_error(sp_error *e)
{
	if (!e)
		return NULL;
	symprof_error *p = sp_xmalloc(sizeof(*p));
	p->code = (symprof_errcode)sp_error_root_code(e);
	p->msg = sp_error_string(e);
	sp_error_free(e);
	return p;
}

symprof_error *sp_api_usage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sp_error *e = sp_error_newv(SP_E_USAGE, fmt, ap);
	va_end(ap);
	return sp_api_error(e);
}

symprof_errcode symprof_error_code(const symprof_error *e)
{
	return e ? e->code : SYMPROF_OK;
}

const char *symprof_error_message(const symprof_error *e)
{
	return e ? e->msg : "";
}

void symprof_error_free(symprof_error *e)
{
	if (!e)
		return;
	free(e->msg);
	free(e);
}

void symprof_free(void *p)
{
	free(p);
}

bool sp_api_zero(const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

symprof_error *sp_api_options(const void *in, void *out, size_t size, const char *what)
{
	memset(out, 0, size);
	if (!in)
		return NULL;
	size_t given;
	memcpy(&given, in, sizeof(given));
	if (given == 0)
		given = size;
	if (given < sizeof(size_t))
		return sp_api_usage("%s: size %zu is too small", what, given);
	if (given > size && !sp_api_zero((const char *)in + size, given - size))
		return sp_api_usage("%s: fields this libsymprof (%s) does not know are set", what,
				    PACKAGE_VERSION);
	memcpy(out, in, given < size ? given : size);
	memcpy(out, &size, sizeof(size));
	return NULL;
}

/* -- reports ---------------------------------------------------------------------- */

const char *sp_api_str(sp_strtab *t, const char *s)
{
	if (!s)
		return NULL;
	size_t i = sp_strtab_intern_str(t, s); /* may move t->strs */
	return t->strs[i];
}

const char *symprof_reason_string(symprof_reason r)
{
	return sp_unresolved_reason_str((sp_unresolved_reason)r);
}

void sp_api_mapping_report(sp_strtab *t, const sp_mapping_report *in,
			   symprof_mapping_report *out)
{
	symprof_reason_count *rc = sp_xcalloc(SP_UNRES_ERROR + 1, sizeof(*rc));
	symprof_attempt *tried = sp_xcalloc(in->tried.n ? in->tried.n : 1, sizeof(*tried));
	size_t n = 0;
	for (int k = 1; k <= SP_UNRES_ERROR; k++)
		if (in->n_reason[k])
			rc[n++] = (symprof_reason_count){(symprof_reason)k, in->n_reason[k]};
	for (size_t i = 0; i < in->tried.n; i++)
		tried[i] = (symprof_attempt){sp_api_str(t, in->tried.v[i].path),
					     sp_api_str(t, sp_find_attempt_str(&in->tried.v[i]))};
	*out = (symprof_mapping_report){
		.mapping_id = in->mapping_id,
		.recorded_path = sp_api_str(t, in->recorded_path),
		.used_path = sp_api_str(t, in->used_path),
		.debug_path = sp_api_str(t, in->debug_path),
		.build_id = sp_api_str(t, in->build_id && *in->build_id ? in->build_id : NULL),
		.n_addresses = in->n_addresses,
		.n_resolved = in->n_resolved,
		.unresolved = rc,
		.n_unresolved = n,
		.detail = sp_api_str(t, in->detail),
		.tried = tried,
		.n_tried = in->tried.n,
	};
}

void sp_api_mapping_report_free(symprof_mapping_report *r)
{
	free((void *)r->unresolved);
	free((void *)r->tried);
}

/* -- sessions --------------------------------------------------------------------- */

symprof_error *symprof_session_new(const symprof_options *opts, symprof_session **out)
{
	symprof_options o;
	*out = NULL;
	symprof_error *e = sp_api_options(opts, &o, sizeof(o), "symprof_options");
	if (e)
		return e;
	if (!sp_api_zero(o.reserved, sizeof(o.reserved)))
		return sp_api_usage("symprof_options: reserved fields are set");
	sp_path_map *maps = sp_xcalloc(o.n_path_maps ? o.n_path_maps : 1, sizeof(*maps));
	for (size_t i = 0; i < o.n_path_maps; i++)
		maps[i] = (sp_path_map){o.path_maps[i].from, o.path_maps[i].to};
	sp_symbolize_options so = {
		.binary_paths = o.binary_paths,
		.n_binary_paths = o.n_binary_paths,
		.debug_dirs = o.debug_dirs,
		.n_debug_dirs = o.n_debug_dirs,
		.sysroot = o.sysroot,
		.path_maps = maps,
		.n_path_maps = o.n_path_maps,
		.jit_dirs = o.jit_dirs,
		.n_jit_dirs = o.n_jit_dirs,
		.perf_maps = o.perf_maps,
		.n_perf_maps = o.n_perf_maps,
		.jitdumps = o.jitdumps,
		.n_jitdumps = o.n_jitdumps,
		.kallsyms = o.kallsyms,
		.no_debuginfod = o.no_debuginfod != 0,
		.debuginfod_quiet = !o.debuginfod_progress,
		.no_inline = o.no_inline != 0,
		.force_mismatch = o.force_mismatch != 0,
		.resymbolize = o.resymbolize != 0,
		.demangle = (sp_demangle_style)o.demangle,
	};
	if ((unsigned)o.demangle > SYMPROF_DEMANGLE_NONE) {
		free(maps);
		return sp_api_usage("symprof_options: demangle %d is none of symprof_demangle",
				    (int)o.demangle);
	}
	if (o.max_memory)
		sp_mem_set_limit(o.max_memory);
	symprof_session *s = sp_xcalloc(1, sizeof(*s));
	s->s = sp_symbolizer_new(&so); /* copies SO deeply */
	free(maps);
	const sp_jit_index *jit;
	const sp_perf_map *perf;
	const sp_kallsyms *ksyms;
	sp_error *err = sp_symbolizer_sources(s->s, &jit, &perf, &ksyms);
	if (err) {
		symprof_session_free(s);
		return sp_api_error(err);
	}
	*out = s;
	return NULL;
}

void symprof_session_free(symprof_session *s)
{
	if (!s)
		return;
	sp_symbolizer_free(s->s);
	free(s);
}

/* -- the object of a call ---------------------------------------------------------- */

/* The object T names, opened in the session: *OBJ, or the reason it is not
 * (*WHY, and the error in *ERR); where it was looked for goes to LOG. */
typedef struct {
	sp_object *obj;
	char *path;          /* where it was found */
	sp_unresolved_reason why;
	sp_error *err;
	sp_find_log log;
} target_object;

/* The reason an object could not be had, from its error. */
static sp_unresolved_reason reason_of(const sp_error *e)
{
	switch (sp_error_root_code(e)) {
	case SP_E_NOT_FOUND: return SP_UNRES_FILE_NOT_FOUND;
	case SP_E_BUILD_ID_MISMATCH: return SP_UNRES_BUILD_ID_MISMATCH;
	case SP_E_UNRECOGNIZED: return SP_UNRES_NOT_ELF;
	default: return SP_UNRES_ERROR;
	}
}

/* An object by build id BID alone, past what the finder knows: DIR's
 * .build-id tree (Fedora's links to binaries, Debian's .debug files,
 * which hold the symbols and the DWARF).  Returns the path or NULL. */
static char *in_build_id_trees(const sp_symbolize_options *o, const char *bid, sp_find_log *log)
{
	static const char *const dflt[] = {"/usr/lib/debug"};
	const char *const *dirs = o->n_debug_dirs ? o->debug_dirs : dflt;
	size_t n = o->n_debug_dirs ? o->n_debug_dirs : 1;
	if (strlen(bid) < 3)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		for (int debug = 0; debug < 2; debug++) {
			char *p = sp_xasprintf("%s/.build-id/%.2s/%s%s", dirs[i], bid, bid + 2,
					       debug ? ".debug" : "");
			sp_elf_info info;
			sp_error *e = sp_elf_info_read(p, &info);
			bool ok = !e && info.build_id && !strcasecmp(info.build_id, bid);
			sp_find_log_add(log, p, e ? (sp_error_root_code(e) == SP_E_NOT_FOUND
							     ? SP_TRY_MISSING
							     : SP_TRY_NOT_ELF)
						  : ok ? SP_TRY_OK : SP_TRY_BUILD_ID_MISMATCH);
			if (!e)
				sp_elf_info_clear(&info);
			sp_error_free(e);
			if (ok)
				return p;
			free(p);
		}
	}
	return NULL;
}

/* Finds and opens T's object (none when T names none). */
static void open_target(symprof_session *S, const symprof_target *t, target_object *to)
{
	const char *bid = t->build_id && *t->build_id ? t->build_id : NULL;
	const char *found = NULL;
	const sp_find_log *log = NULL;
	if (!t->path && !bid)
		return;
	to->err = sp_symbolizer_locate(S->s, t->path, bid, &found, &log);
	if (log)
		sp_find_log_append(&to->log, log);
	if (to->err && !t->path) {
		char *p = in_build_id_trees(sp_symbolizer_options(S->s), bid, &to->log);
		if (p) {
			sp_error_free(to->err);
			to->err = NULL;
			to->path = p;
		}
	} else if (!to->err) {
		to->path = sp_xstrdup(found);
	}
	if (!to->err)
		to->err = sp_symbolizer_object(S->s, to->path, bid, &to->obj);
	if (to->err) {
		to->why = reason_of(to->err);
		to->obj = NULL;
	}
}

/* -- symbolizing as data ----------------------------------------------------------- */

/* A result and everything it points to. */
typedef struct {
	symprof_symbols pub; /* first: the caller's pointer */
	symprof_location *locs;
	symprof_frame *frames;
	size_t n_frames, cap_frames;
	size_t *first_frame; /* per location, into frames */
	sp_strtab strs;
} symbols_box;

/* Appends FR[0..n) (the outermost only with NO_INLINE) as location I's
 * frames. */
static void add_frames(symbols_box *b, size_t i, const sp_frame *fr, size_t n, bool no_inline)
{
	if (no_inline && n > 1) {
		fr += n - 1;
		n = 1;
	}
	b->first_frame[i] = b->n_frames;
	sp_grow(&b->frames, &b->cap_frames, b->n_frames + n, sizeof(*b->frames));
	for (size_t k = 0; k < n; k++)
		b->frames[b->n_frames++] = (symprof_frame){
			.function = sp_api_str(&b->strs, fr[k].name),
			.linkage_name = sp_api_str(&b->strs, fr[k].system_name),
			.file = sp_api_str(&b->strs, fr[k].file),
			.line = fr[k].line,
			.column = fr[k].column,
			.start_line = fr[k].start_line,
			.inlined = k + 1 < n,
		};
	b->locs[i].n_frames = n;
}

/* The symbol of OBJ holding the symbol-file address VADDR into L (the
 * one `symbolize -S` prints). */
static void add_symbol(sp_object *obj, sp_strtab *strs, uint64_t vaddr, symprof_location *l)
{
	sp_symbol sym = {0};
	sp_error_free(sp_object_symbol_at(obj, vaddr, &sym));
	if (!sym.name)
		return;
	l->symbol = sp_api_str(strs, sym.demangled ? sym.demangled : sym.name);
	l->symbol_offset = vaddr - sym.value;
}

/* How an address of a call is looked up. */
typedef struct {
	symprof_session *S;
	const symprof_target *t;
	target_object *to;
	uint64_t adjust;        /* RELATIVE: symbol-file address = address + this */
	uint64_t base;          /* RUNTIME: symbol-file address = address - this */
	sp_unresolved_reason mapping_why; /* RUNTIME: why the file is not used */
	sp_named named;
} lookup_ctx;

/* Whether some PT_LOAD of INFO holds VADDR (objects without any hold
 * every address). */
static bool in_loads(const sp_elf_info *info, uint64_t vaddr)
{
	for (size_t i = 0; i < info->n_loads; i++)
		if (vaddr - info->loads[i].vaddr < info->loads[i].memsz)
			return true;
	return info->n_loads == 0;
}

/* The frames of ADDR (*FR, *N; none: *WHY says why), and ADDR as a
 * symbol-file address of the object (*VADDR; *IN_FILE false when ADDR is
 * none of the object's). */
static void look_up(lookup_ctx *c, uint64_t addr, const sp_frame **fr, size_t *n,
		    sp_unresolved_reason *why, uint64_t *vaddr_out, bool *in_file)
{
	sp_object *obj = c->to->obj;
	const sp_elf_info *info = obj ? sp_object_info(obj) : NULL;
	sp_name_query q = {.addr = addr, .kind = sp_code_kind_of(NULL, NULL, addr), .once = true,
			   .pid = c->t->pid};
	uint64_t vaddr = addr;
	*n = 0;
	*in_file = false;
	*why = c->to->err ? c->to->why : obj ? SP_UNRES_NO_SYMBOLS : SP_UNRES_NO_MAPPING;
	switch (c->t->kind) {
	case SYMPROF_ADDR_FILE_OFFSET:
		if (obj && !sp_file_offset_vaddr(info->loads, info->n_loads, addr, &vaddr)) {
			*why = SP_UNRES_OUTSIDE_FILE;
		} else if (obj) {
			sp_error_free(sp_object_resolve_once(obj, vaddr, fr, n));
			*vaddr_out = vaddr;
			*in_file = true;
		}
		return;
	case SYMPROF_ADDR_RUNTIME:
		if (addr < c->t->map_start || addr >= c->t->map_limit) {
			*why = SP_UNRES_NO_MAPPING;
			obj = NULL;
		} else if (c->mapping_why) {
			*why = c->mapping_why;
			obj = NULL;
		}
		if (obj) {
			*vaddr_out = addr - c->base;
			*in_file = true;
		}
		/* convert's order: the sources without a file, then the file */
		if (sp_name_address(c->S->s, &q, &c->named) == SP_SOURCE_NONE && obj) {
			vaddr = addr - c->base;
			sp_error_free(sp_object_resolve_once(obj, vaddr, fr, n));
			break;
		}
		*fr = c->named.frames;
		*n = c->named.n_frames;
		return;
	case SYMPROF_ADDR_RELATIVE:
		vaddr = addr + c->adjust;
		break;
	case SYMPROF_ADDR_VADDR:
		break;
	}
	if (c->t->kind != SYMPROF_ADDR_RUNTIME) {
		*vaddr_out = vaddr;
		*in_file = obj != NULL;
		q.file = obj;
		q.file_addr = vaddr;
		sp_name_address(c->S->s, &q, &c->named);
		*fr = c->named.frames;
		*n = c->named.n_frames;
	}
	if (!*n && obj && !in_loads(info, vaddr))
		*why = SP_UNRES_OUTSIDE_FILE;
}

/* RUNTIME: the load base of T's mapping for its file, or why the file is
 * not that mapping's (segments that do not match, a base that cannot be
 * told).  FIRST: the first address inside the mapping. */
static void runtime_base(lookup_ctx *c, uint64_t first, sp_mapping_report *r)
{
	const symprof_target *t = c->t;
	const sp_elf_info *info = sp_object_info(c->to->obj);
	const sp_symbolize_options *o = sp_symbolizer_options(c->S->s);
	sp_mapping_record rec = {t->map_start, t->map_limit, t->map_offset, 0, 0};
	uint64_t seg;
	if (!o->force_mismatch && !(t->build_id && *t->build_id && info->build_id) &&
	    sp_mapping_file_match(&rec, info, &seg) != SP_FILE_MATCHES) {
		c->mapping_why = SP_UNRES_FILE_MISMATCH;
		r->detail = sp_xstrdup(sp_file_match_str(sp_mapping_file_match(&rec, info, &seg)));
		return;
	}
	if (info->elf_type == ET_REL && info->has_text && info->text_addr)
		return; /* a JIT's object: run-time addresses already */
	sp_error *e = sp_mapping_base(info, t->map_start, t->map_limit, t->map_offset, first,
				      &c->base);
	if (e) {
		c->mapping_why = SP_UNRES_ERROR;
		r->detail = sp_error_string(e);
		sp_error_free(e);
	}
}

/* Fills B's locations for ADDRS[0..n) and R's counts. */
static void fill_locations(lookup_ctx *c, symbols_box *b, const uint64_t *addrs, size_t n,
			   sp_mapping_report *r)
{
	sp_u64map seen = {0}; /* distinct addresses counted once */
	bool no_inline = sp_symbolizer_options(c->S->s)->no_inline;
	for (size_t i = 0; i < n; i++) {
		const sp_frame *fr = NULL;
		size_t nf;
		sp_unresolved_reason why;
		uint64_t vaddr = 0;
		bool in_file;
		look_up(c, addrs[i], &fr, &nf, &why, &vaddr, &in_file);
		b->locs[i].address = addrs[i];
		add_frames(b, i, fr, nf, no_inline);
		b->locs[i].reason = nf ? SYMPROF_RESOLVED : (symprof_reason)why;
		if (in_file)
			add_symbol(c->to->obj, &b->strs, vaddr, &b->locs[i]);
		uint64_t v;
		if (sp_u64map_get(&seen, addrs[i], &v))
			continue;
		sp_u64map_put(&seen, addrs[i], 1);
		r->n_addresses++;
		if (nf)
			r->n_resolved++;
		else
			r->n_reason[why]++;
	}
	sp_u64map_free(&seen);
}

/* The report of T's object: R's paths, build id and where it was looked
 * for. */
static void object_report(const symprof_target *t, const target_object *to, sp_mapping_report *r)
{
	r->recorded_path = t->path ? sp_xstrdup(t->path) : NULL;
	r->used_path = to->obj ? sp_xstrdup(to->path) : NULL;
	const char *bid = to->obj ? sp_object_info(to->obj)->build_id : t->build_id;
	r->build_id = bid ? sp_xstrdup(bid) : NULL;
	if (to->err && !r->detail)
		r->detail = sp_error_string(to->err);
	sp_find_log_append(&r->tried, &to->log);
}

/* Checks T (its kind, its mapping) before any work. */
static symprof_error *check_target(const symprof_target *t)
{
	if ((unsigned)t->kind > SYMPROF_ADDR_RELATIVE)
		return sp_api_usage("symprof_target: kind %d is none of symprof_addr_kind",
				    (int)t->kind);
	if (!sp_api_zero(t->reserved, sizeof(t->reserved)) || t->reserved32)
		return sp_api_usage("symprof_target: reserved fields are set");
	if ((t->kind == SYMPROF_ADDR_FILE_OFFSET || t->kind == SYMPROF_ADDR_RELATIVE) && !t->path &&
	    !(t->build_id && *t->build_id))
		return sp_api_usage("symprof_target: %s addresses need an object (path or build id)",
				    t->kind == SYMPROF_ADDR_RELATIVE ? "relative" : "file offset");
	if (t->kind == SYMPROF_ADDR_RUNTIME && t->map_limit <= t->map_start)
		return sp_api_usage("symprof_target: the mapping [%#llx, %#llx) is empty",
				    (unsigned long long)t->map_start,
				    (unsigned long long)t->map_limit);
	return NULL;
}

/* The lookups of ADDRS[0..n), their result in B. */
static void symbolize_into(symprof_session *S, const symprof_target *t, const uint64_t *addrs,
			   size_t n, symbols_box *b)
{
	target_object to = {0};
	sp_mapping_report r = {0};
	lookup_ctx c = {.S = S, .t = t, .to = &to};
	open_target(S, t, &to);
	if (to.obj && t->kind == SYMPROF_ADDR_RELATIVE) {
		const sp_elf_info *info = sp_object_info(to.obj);
		c.adjust = sp_relative_adjust(info->loads, info->n_loads);
	}
	for (size_t i = 0; to.obj && t->kind == SYMPROF_ADDR_RUNTIME && i < n; i++) {
		if (addrs[i] >= t->map_start && addrs[i] < t->map_limit) {
			runtime_base(&c, addrs[i], &r);
			break;
		}
	}
	fill_locations(&c, b, addrs, n, &r);
	object_report(t, &to, &r);
	sp_api_mapping_report(&b->strs, &r, &b->pub.report);
	free(r.recorded_path);
	free(r.used_path);
	free(r.build_id);
	free(r.detail);
	sp_find_log_clear(&r.tried);
	sp_named_clear(&c.named);
	sp_find_log_clear(&to.log);
	sp_error_free(to.err);
	free(to.path);
}

symprof_error *symprof_symbolize(symprof_session *S, const symprof_target *tp,
				 const uint64_t *addrs, size_t n, symprof_symbols **out)
{
	symprof_target t;
	*out = NULL;
	symprof_error *e = sp_api_options(tp, &t, sizeof(t), "symprof_target");
	if (!e)
		e = check_target(&t);
	if (e)
		return e;
	if (!S || (n && !addrs))
		return sp_api_usage("symprof_symbolize: %s is NULL", S ? "addrs" : "the session");
	symbols_box *b = sp_xcalloc(1, sizeof(*b));
	b->locs = sp_xcalloc(n ? n : 1, sizeof(*b->locs));
	b->first_frame = sp_xcalloc(n ? n : 1, sizeof(*b->first_frame));
	symbolize_into(S, &t, addrs, n, b);
	for (size_t i = 0; i < n; i++)
		b->locs[i].frames = b->locs[i].n_frames ? b->frames + b->first_frame[i] : NULL;
	b->pub.locations = b->locs;
	b->pub.n_locations = n;
	*out = &b->pub;
	return NULL;
}

void symprof_symbols_free(symprof_symbols *r)
{
	if (!r)
		return;
	symbols_box *b = (symbols_box *)r;
	sp_api_mapping_report_free(&b->pub.report);
	free(b->locs);
	free(b->frames);
	free(b->first_frame);
	sp_strtab_free(&b->strs);
	free(b);
}

/* -- symbolizing as text ----------------------------------------------------------- */

/* The text options of O (checked) as the engine's. */
static symprof_error *text_options(const symprof_text_options *o, sp_text_options *to)
{
	if ((unsigned)o->style > SYMPROF_TEXT_SYMPROF_JSON)
		return sp_api_usage("symprof_text_options: style %d is none of symprof_text_style",
				    (int)o->style);
	if (o->jobs < 0 || o->jobs > SP_BATCH_JOBS_MAX)
		return sp_api_usage("symprof_text_options: jobs %d: from 0 to %d", o->jobs,
				    SP_BATCH_JOBS_MAX);
	if (o->pretty && o->style >= SYMPROF_TEXT_JSON)
		return sp_api_usage("symprof_text_options: pretty is a text form, not JSON");
	if (!sp_api_zero(o->reserved, sizeof(o->reserved)))
		return sp_api_usage("symprof_text_options: reserved fields are set");
	bool llvm = o->style == SYMPROF_TEXT_LLVM || o->style == SYMPROF_TEXT_JSON;
	*to = (sp_text_options){
		.size = sizeof(*to),
		.style = (sp_text_style)o->style,
		.print_addr = o->print_address != 0,
		.functions = o->functions != 0 || o->style == SYMPROF_TEXT_LLVM,
		.inlines = o->inlines ? o->inlines > 0 : llvm,
		.pretty = o->pretty != 0,
		.basenames = o->basenames != 0,
		.symbols = o->symbols != 0 || o->symbol_sections != 0,
		.symbol_sections = o->symbol_sections != 0,
		.section_offsets = o->section != NULL,
	};
	return NULL;
}

symprof_error *symprof_symbolize_text(symprof_session *S, const symprof_target *tp,
				      const symprof_text_options *op, const char *const *lines,
				      size_t n, int in_fd, int out_fd)
{
	symprof_target t;
	symprof_text_options o;
	sp_text_options to;
	symprof_error *e = sp_api_options(tp, &t, sizeof(t), "symprof_target");
	if (!e)
		e = check_target(&t);
	if (!e)
		e = sp_api_options(op, &o, sizeof(o), "symprof_text_options");
	if (!e)
		e = text_options(&o, &to);
	if (!e && (t.kind == SYMPROF_ADDR_RUNTIME || t.kind == SYMPROF_ADDR_FILE_OFFSET))
		e = sp_api_usage("symprof_symbolize_text: addresses are VADDR or RELATIVE");
	if (!e && o.section && (t.kind != SYMPROF_ADDR_VADDR || !t.path))
		e = sp_api_usage("symprof_text_options: section needs a target path and VADDR");
	if (e)
		return e;
	target_object obj = {0};
	open_target(S, &t, &obj);
	if (obj.err) {
		sp_find_log_clear(&obj.log);
		free(obj.path);
		return sp_api_error(obj.err);
	}
	sp_batch_options bo = {.size = sizeof(bo), .session = S->s, .object = obj.obj,
			       .object_path = obj.path, .cache_max = o.cache_max,
			       .no_cache = o.no_cache != 0, .jobs = o.jobs, .fd = out_fd,
			       .symbols = to.symbols};
	if (t.kind == SYMPROF_ADDR_RELATIVE) {
		const sp_elf_info *info = sp_object_info(obj.obj);
		bo.addr_adjust = sp_relative_adjust(info->loads, info->n_loads);
	} else if (o.section && obj.obj) {
		/* offsets in the section: from its start, as RELATIVE from the load address */
		sp_error *se = sp_object_section_address(obj.obj, o.section, &bo.addr_adjust);
		if (se) {
			sp_find_log_clear(&obj.log);
			free(obj.path);
			return sp_api_error(se);
		}
	}
	to.module = t.path ? t.path : "";
	to.json_array = n > 0 && to.style == SP_TEXT_JSON;
	to.addr_digits = obj.obj && sp_object_info(obj.obj)->elf_class == ELFCLASS32 ? 8 : 16;
	sp_frames_text *ft = sp_frames_text_new(&to);
	sp_frames_text_format(ft, &bo.format);
	sp_batch *b = sp_batch_new(&bo);
	int err = 0;
	for (size_t i = 0; i < n; i++)
		sp_batch_add_line(b, lines[i], strlen(lines[i]));
	if (n) {
		sp_batch_flush(b);
		const char *end = sp_frames_text_end(ft);
		if (*end)
			sp_batch_write(b, end, strlen(end));
	} else {
		err = sp_batch_read_fd(b, in_fd);
	}
	if (err)
		e = sp_api_error(sp_error_new(SP_E_IO, "reading the addresses: %s", strerror(err)));
	else if (sp_batch_write_error(b))
		e = sp_api_error(sp_error_new(SP_E_IO, "writing the answers: %s",
					      strerror(sp_batch_write_error(b))));
	sp_batch_free(b);
	sp_frames_text_free(ft);
	sp_find_log_clear(&obj.log);
	free(obj.path);
	return e;
}
