/* fileid.c — which of a mapping's identities finds its file.
 *
 * A mapping of pprof, perf.data or gperftools carries at most one build id
 * (GNU, or Go's for a Go binary without a GNU note).  One from the
 * OpenTelemetry eBPF profiler carries up to three attributes
 * (spec/OTLP-PROFILES.md): process.executable.build_id.gnu, .go and
 * .htlhash, the last its own id of the file's contents (filehash.c), which
 * it sends for every file, stripped ones and those without notes included.
 * They are tried in that order, each a lookup of its own through the
 * session's cache: a build id accepts a candidate with that build id (or
 * none, as always), and debuginfod may be asked for it; the file id
 * accepts only a candidate whose first and last 4 KiB and length hash to
 * it; when no candidate under the recorded name has it, every file of each
 * --binary-path directory is hashed (once per session: a binary renamed
 * since the run).  The report says which one found the file, and keeps
 * every place each looked.
 */
#include "symbolize/internal.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ATTR_GNU "process.executable.build_id.gnu"
#define ATTR_GO "process.executable.build_id.go"
#define ATTR_HTLHASH "process.executable.build_id.htlhash"

/* How telling a failed lookup is: a candidate rejected for its id says
 * more than "not found". */
static int weight(const sp_error *e)
{
	switch (sp_error_root_code(e)) {
	case SP_E_BUILD_ID_MISMATCH: return 3;
	case SP_E_UNRECOGNIZED: return 2;
	case SP_E_NOT_FOUND: return 1;
	default: return 4; /* an error of its own: kept */
	}
}

/* Files of a directory hashed at most, looking for a file id. */
#define SCAN_MAX 100000

static sp_error found_marker;
#define FOUND (&found_marker)

/* The file whose file id is HTL among the files of every --binary-path
 * directory (sorted by name; each hashed once per session), else NULL:
 * FOUND with *FOUND set (through the session's cache of answers, so that
 * it is borrowed as any), or NULL when none has it (one line per directory
 * in R's log). */
static sp_error *scan_dirs(sp_symbolizer *s, const char *htl, const char **found,
			   sp_mapping_report *r)
{
	const sp_symbolize_options *o = sp_symbolizer_options(s);
	sp_filehash_cache *cache = sp_symbolizer_filehash(s);
	for (size_t d = 0; d < o->n_binary_paths; d++) {
		char **names = NULL;
		size_t n = 0, hashed = 0;
		sp_error_free(sp_dir_names(o->binary_paths[d], "", "", &names, &n));
		char *hit = NULL;
		for (size_t i = 0; i < n; i++) {
			char *path = sp_xasprintf("%s/%s", o->binary_paths[d], names[i]);
			char hex[SP_HTLHASH_HEX];
			sp_error *e = hit || hashed >= SCAN_MAX ? NULL
								: sp_filehash_cache_get(cache, path, hex);
			if (!hit && hashed < SCAN_MAX && !e) {
				hashed++;
				if (!strcasecmp(hex, htl))
					hit = path, path = NULL;
			}
			sp_error_free(e);
			free(path);
			free(names[i]);
		}
		free(names);
		if (hit) {
			const sp_find_log *log;
			sp_error *e = sp_symbolizer_locate_file(s, false, hit, NULL, htl, found, &log);
			sp_find_log_append(&r->tried, log);
			free(hit);
			if (!e) {
				r->matched_by = "file id (htlhash), under another name";
				return FOUND;
			}
			sp_error_free(e);
			continue;
		}
		char *where = sp_xasprintf("%s/*", o->binary_paths[d]);
		sp_find_log_add(&r->tried, where, SP_TRY_MISSING);
		r->tried.v[r->tried.n - 1].detail =
			sp_xasprintf("%zu files hashed, none has this file id", hashed);
		free(where);
	}
	return NULL;
}

/* One lookup: by build id BID, or by file id HTL; WHAT names it. */
typedef struct {
	const char *bid, *htl, *what;
} id_try;

sp_error *sp_locate_mapping(sp_symbolizer *s, const sp_profile *p, const sp_mapping *m,
			    bool kernel, const char **found, sp_mapping_report *r)
{
	const char *recorded = sp_profile_str(p, m->filename);
	const char *bid = sp_profile_str(p, m->build_id);
	const char *gnu = sp_mapping_otel_string(p, m->id, ATTR_GNU);
	const char *go = sp_mapping_otel_string(p, m->id, ATTR_GO);
	const char *htl = kernel ? NULL : sp_mapping_otel_string(p, m->id, ATTR_HTLHASH);
	id_try ids[3];
	size_t n = 0;
	if (gnu && *gnu)
		ids[n++] = (id_try){gnu, NULL, "GNU build id"};
	if (go && *go)
		ids[n++] = (id_try){go, NULL, "Go build id"};
	if (!n)
		ids[n++] = (id_try){*bid ? bid : NULL, NULL, *bid ? "build id" : NULL};
	if (htl && *htl) {
		free(r->htlhash);
		r->htlhash = sp_xstrdup(htl);
		if (!ids[0].bid)
			n = 0; /* the file id is the only one */
		ids[n++] = (id_try){NULL, htl, "file id (htlhash)"};
	}
	if (go && *go) {
		free(r->go_build_id);
		r->go_build_id = sp_xstrdup(go);
	}
	sp_error *best = NULL, *e;
	for (size_t i = 0; i < n; i++) {
		const sp_find_log *log;
		e = sp_symbolizer_locate_file(s, kernel, recorded, ids[i].bid, ids[i].htl,
							found, &log);
		sp_find_log_append(&r->tried, log);
		if (!e || sp_error_root_code(e) == SP_E_UNSUPPORTED) {
			r->matched_by = e ? NULL : ids[i].what;
			sp_error_free(best);
			return e;
		}
		if (!best || weight(e) > weight(best)) {
			sp_error_free(best);
			best = e;
		} else {
			sp_error_free(e);
		}
	}
	if (htl && *htl && (e = scan_dirs(s, htl, found, r))) {
		sp_error_free(best);
		return e == FOUND ? NULL : e;
	}
	*found = NULL;
	return best;
}
