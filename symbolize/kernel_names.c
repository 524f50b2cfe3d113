/* kernel_names.c — which kallsyms names the kernel frames of a perf
 * recording when --kallsyms is not given, so that they are named by
 * default, as perf report names them, and never from the wrong kernel:
 *
 *   1. the kallsyms `perf record` kept in its build-id cache for the
 *      recording's kernel build id (perfcache.c; on another machine, an
 *      unpacked `perf archive` under --debug-dir): right wherever it is
 *      read, since it is found by that build id;
 *   2. /proc/kallsyms, when the running kernel is the recording's: the
 *      same release (OSRELEASE against uname -r) and, when the recording
 *      has the kernel's build id, the same build id (/sys/kernel/notes);
 *   3. none: kernel frames stay addresses, and `info` says why.
 *
 * A vmlinux or module found by build id (find/kernel.c) names its addresses
 * before any kallsyms does (symbolize.c).  A /proc/kallsyms read without
 * the right to see addresses (kptr_restrict, not root) names nothing: that
 * is the one case the user is warned about.
 */
#include "symbolize/symbolize.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>

static const char proc_kallsyms[] = "/proc/kallsyms";

/* Loads PATH as S's kallsyms; the note says what it did (caller frees). */
static char *use(sp_symbolizer *s, const char *path, const char *why, bool *warn)
{
	const sp_kallsyms *k = NULL;
	sp_error *e = sp_symbolizer_use_kallsyms(s, path, &k);
	if (e) {
		char *msg = sp_error_string(e);
		sp_error_free(e);
		char *note = sp_xasprintf("kernel frames stay addresses: %s", msg);
		free(msg);
		*warn = true;
		return note;
	}
	if (sp_kallsyms_restricted(k)) {
		*warn = true;
		return sp_xasprintf("kernel frames stay addresses: every address in %s is 0 "
				    "(kernel.kptr_restrict hides them from this user); run as root, "
				    "or pass --kallsyms with a copy made as root", path);
	}
	return sp_xasprintf("kernel names from %s: %s", path, why);
}

char *sp_symbolizer_kernel_names(sp_symbolizer *s, const char *osrelease, const char *bid,
				 bool *warn)
{
	*warn = false;
	const sp_symbolize_options *o = sp_symbolizer_options(s);
	const sp_jit_index *jit;
	const sp_perf_map *perf;
	const sp_kallsyms *k = NULL;
	if (o->kallsyms && *o->kallsyms)
		return NULL; /* the user's, checked by sp_kallsyms_check */
	sp_error_free(sp_symbolizer_sources(s, &jit, &perf, &k));
	if (k)
		return NULL; /* chosen for an earlier input */
	bid = bid && *bid ? bid : NULL;
	osrelease = osrelease && *osrelease ? osrelease : NULL;
	char *cached = bid ? sp_find_perf_kallsyms(o, bid) : NULL;
	if (cached) {
		char *why = sp_xasprintf("perf's build-id cache holds the recording's kernel "
					 "(build id %s)", bid);
		char *note = use(s, cached, why, warn);
		free(why);
		free(cached);
		return note;
	}
	struct utsname u;
	const char *running = uname(&u) ? NULL : u.release;
	const char *how = "copy /proc/kallsyms of the recording machine and pass --kallsyms, "
			  "or bring its `perf archive` and pass --debug-dir";
	if (!osrelease)
		return sp_xasprintf("kernel frames stay addresses: the recording does not say its "
				    "kernel release (no OSRELEASE), so the running kernel's names "
				    "may not be its; %s", how);
	if (!running || strcmp(running, osrelease))
		return sp_xasprintf("kernel frames stay addresses: the recording's kernel %s is not "
				    "the running kernel %s; %s", osrelease,
				    running ? running : "(unknown)", how);
	char *running_bid = bid ? sp_kallsyms_build_id(proc_kallsyms, NULL) : NULL;
	char *note;
	if (bid && running_bid && strcasecmp(running_bid, bid))
		note = sp_xasprintf("kernel frames stay addresses: the recording's kernel %s has "
				    "build id %s, the running one %s (another build of that "
				    "release); %s", osrelease, bid, running_bid, how);
	else {
		char *why = bid && running_bid
				    ? sp_xasprintf("the running kernel is the recording's (release "
						   "%s, build id %s)", osrelease, bid)
				    : sp_xasprintf("the running kernel is of the recording's release "
						   "%s (a build id was not there to compare)",
						   osrelease);
		note = use(s, proc_kallsyms, why, warn);
		free(why);
	}
	free(running_bid);
	return note;
}
