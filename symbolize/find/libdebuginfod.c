/* libdebuginfod.c — the libdebuginfod calls symprof makes, loaded on demand.
 *
 * Linking libdebuginfod pulls in libcurl and some thirty libraries behind
 * it (TLS, Kerberos, LDAP...), which the dynamic loader maps and relocates
 * at every start: about 7 ms, on a one-address lookup of 25-35 ms in
 * all.  It is only needed when DEBUGINFOD_URLS is set, so these
 * functions (the library's names with our sp_ prefix) stand in for the
 * library's and open libdebuginfod.so.1 with dlopen at sp_debuginfod_begin,
 * as libdwfl does for itself.  The handle we return wraps the library's
 * client together with the library's entry points (no global state): the
 * user data and progress callback are kept in the wrapper, and the
 * library's callback is routed back to it, so a callback always sees the
 * wrapper it was registered on.
 * When the library cannot be loaded, sp_debuginfod_begin returns NULL, as it
 * does when the library itself cannot start a client.
 */
#include <elfutils/debuginfod.h>

#include <dlfcn.h>
#include <stdlib.h>

#include "common/common.h"
#include "symbolize/find/libdebuginfod.h"

typedef debuginfod_client *(*begin_fn)(void);
typedef int (*find_fn)(debuginfod_client *, const unsigned char *, int, char **);
typedef void (*set_progress_fn)(debuginfod_client *, debuginfod_progressfn_t);
typedef void (*set_user_fn)(debuginfod_client *, void *);
typedef void *(*get_user_fn)(debuginfod_client *);
typedef const char *(*get_url_fn)(debuginfod_client *);
typedef void (*end_fn)(debuginfod_client *);

struct debuginfod_client {
	debuginfod_client *real; /* the library's own client */
	void *user;
	debuginfod_progressfn_t progress;
	find_fn find_debuginfo, find_executable;
	set_progress_fn set_progressfn;
	set_user_fn set_user_data;
	get_user_fn get_user_data;
	get_url_fn get_url;
	end_fn end;
};

/* The library's progress callback: the library's client carries our
 * wrapper as its user data (its getter is found again through the handle
 * the library already has, RTLD_NOLOAD). */
static int progress_thunk(debuginfod_client *real, long a, long b)
{
	void *dl = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_NOLOAD);
	if (!dl)
		return 0;
	get_user_fn get = (get_user_fn)dlsym(dl, "debuginfod_get_user_data");
	debuginfod_client *w = get ? get(real) : NULL;
	dlclose(dl);
	return w && w->progress ? w->progress(w, a, b) : 0;
}

debuginfod_client *sp_debuginfod_begin(void)
{
	void *dl = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!dl)
		return NULL;
	debuginfod_client *w = sp_xcalloc(1, sizeof(*w));
	begin_fn begin = (begin_fn)dlsym(dl, "debuginfod_begin");
	w->find_debuginfo = (find_fn)dlsym(dl, "debuginfod_find_debuginfo");
	w->find_executable = (find_fn)dlsym(dl, "debuginfod_find_executable");
	w->set_progressfn = (set_progress_fn)dlsym(dl, "debuginfod_set_progressfn");
	w->set_user_data = (set_user_fn)dlsym(dl, "debuginfod_set_user_data");
	w->get_user_data = (get_user_fn)dlsym(dl, "debuginfod_get_user_data");
	w->get_url = (get_url_fn)dlsym(dl, "debuginfod_get_url");
	w->end = (end_fn)dlsym(dl, "debuginfod_end");
	if (!begin || !w->find_debuginfo || !w->find_executable || !w->set_progressfn ||
	    !w->set_user_data || !w->get_user_data || !w->get_url || !w->end) {
		dlclose(dl);
		free(w);
		return NULL;
	}
	if (!(w->real = begin())) {
		free(w); /* the library stays loaded: see sp_debuginfod_end */
		return NULL;
	}
	w->set_user_data(w->real, w);
	return w;
}

int sp_debuginfod_find_debuginfo(debuginfod_client *w, const unsigned char *build_id,
				 int build_id_len, char **path)
{
	return w->find_debuginfo(w->real, build_id, build_id_len, path);
}

int sp_debuginfod_find_executable(debuginfod_client *w, const unsigned char *build_id,
				  int build_id_len, char **path)
{
	return w->find_executable(w->real, build_id, build_id_len, path);
}

void sp_debuginfod_set_progressfn(debuginfod_client *w, debuginfod_progressfn_t fn)
{
	w->progress = fn;
	w->set_progressfn(w->real, fn ? progress_thunk : NULL);
}

void sp_debuginfod_set_user_data(debuginfod_client *w, void *value)
{
	w->user = value;
}

void *sp_debuginfod_get_user_data(debuginfod_client *w)
{
	return w->user;
}

const char *sp_debuginfod_get_url(debuginfod_client *w)
{
	return w->get_url(w->real);
}

void sp_debuginfod_end(debuginfod_client *w)
{
	if (!w)
		return;
	/* The library is not closed: libcurl behind it keeps process-wide state
	 * (its global init) that must stay mapped, as libdwfl leaves it too. */
	w->end(w->real);
	free(w);
}
