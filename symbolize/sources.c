/* sources.c — which source names an address: the one list.
 *
 * The order is documented with sp_name_address in symbolize.h.  Both
 * commands come here: `convert` (symbolize.c) for the addresses of each
 * mapping before its file is opened, `symbolize` (cmd_symbolize.c) for
 * every address it has not answered yet, with its -e FILE.
 */
#include "symbolize/internal.h"

#include <stdlib.h>

void sp_named_clear(sp_named *n)
{
	free(n->demangled);
	*n = (sp_named){0};
}

static bool object_frames(sp_object *o, uint64_t addr, bool once, sp_named *out)
{
	sp_error *e = once ? sp_object_resolve_once(o, addr, &out->frames, &out->n_frames)
			   : sp_object_resolve(o, addr, &out->frames, &out->n_frames);
	sp_error_free(e); /* an object that fails knows nothing: ask the next source */
	if (!out->n_frames)
		out->frames = NULL;
	return out->n_frames != 0;
}

/* One frame named NAME (borrowed from its source), demangled per the
 * session's style. */
static void name_frame(sp_symbolizer *s, const char *name, sp_named *out)
{
	out->demangled = sp_demangle(name, sp_symbolizer_options(s)->demangle);
	out->one = (sp_frame){.name = out->demangled ? out->demangled : name, .system_name = name};
	out->frames = &out->one;
	out->n_frames = 1;
}

sp_name_source sp_name_address(sp_symbolizer *s, const sp_name_query *q, sp_named *out)
{
	const sp_jit_index *jit;
	const sp_perf_map *perf;
	const sp_kallsyms *ksyms;
	sp_symbolizer_loaded_sources(s, &jit, &perf, &ksyms);
	sp_named_clear(out);

	const char *path = jit ? sp_jit_index_lookup(jit, q->addr) : NULL;
	sp_object *o;
	if (path) {
		sp_error *e = sp_symbolizer_object(s, path, NULL, &o);
		if (!e && object_frames(o, q->addr, q->once, out))
			return out->source = SP_SOURCE_JIT_OBJECT;
		sp_error_free(e);
	}
	const sp_jitdump *pj = sp_symbolizer_jitdump(s);
	sp_frame f;
	/* with a code version, the code the address held at its sample's
	 * time; without, the last code there */
	if (pj && (q->code_version ? sp_jitdump_lookup_version(pj, q->code_version, q->addr, &f)
				   : sp_jitdump_lookup(pj, q->pid, q->addr, &f))) {
		name_frame(s, f.name, out);
		out->one.file = f.file;
		out->one.line = f.line;
		return out->source = SP_SOURCE_JITDUMP;
	}
	if (q->file && object_frames(q->file, q->file_addr, q->once, out))
		return out->source = SP_SOURCE_FILE;
	const char *name = perf ? sp_perf_map_lookup(perf, q->pid, q->addr) : NULL;
	if (name) {
		name_frame(s, name, out);
		return out->source = SP_SOURCE_PERF_MAP;
	}
	name = ksyms && q->kind == SP_CODE_KERNEL ? sp_kallsyms_lookup(ksyms, q->addr) : NULL;
	if (name) {
		name_frame(s, name, out);
		return out->source = SP_SOURCE_KALLSYMS;
	}
	return SP_SOURCE_NONE;
}
