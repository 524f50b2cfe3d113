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
 * it.  The report says which one found the file, and keeps every place
 * each looked.
 */
#include "symbolize/internal.h"

#include <stdlib.h>
#include <string.h>

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
	sp_error *best = NULL;
	for (size_t i = 0; i < n; i++) {
		const sp_find_log *log;
		sp_error *e = sp_symbolizer_locate_file(s, kernel, recorded, ids[i].bid, ids[i].htl,
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
	*found = NULL;
	return best;
}
