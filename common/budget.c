/* budget.c — room in the process's one memory budget (mem.c) for memory
 * that is not taken through sp_xmalloc: a file decompressed into a memory
 * file, a section inflated, a file copied to change its sections.
 *
 * Each of these is a size known (or growing) before the memory is taken, so
 * the budget is asked first: when it has not the room, the caches that hold
 * memory (registered evictors: the session's objects, the last file
 * decompressed) give back their least recently used entries until it has,
 * and only when they cannot is the request refused, the error naming what
 * wanted the memory, how much, and the limit.  Evictors run on the thread
 * that registered them only (a session belongs to one thread), and only
 * here: a caller of sp_mem_make_room holds nothing of the caches (no frame,
 * no object) across the call.
 */
#include "common/common.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	sp_mem_evictor fn;
	void *ctx;
	pthread_t thread;
	bool any_thread;
} evictor;

static struct {
	pthread_mutex_t lock;
	evictor *v;
	size_t n, cap;
} evictors = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};

void sp_mem_add_evictor(sp_mem_evictor fn, void *ctx, bool any_thread)
{
	pthread_mutex_lock(&evictors.lock);
	if (evictors.n == evictors.cap) {
		/* plain realloc: the budget's own bookkeeping is not budgeted */
		size_t cap = evictors.cap ? evictors.cap * 2 : 4;
		evictor *v = realloc(evictors.v, cap * sizeof(*v));
		if (!v) {
			pthread_mutex_unlock(&evictors.lock);
			return; /* without it the budget only refuses sooner */
		}
		evictors.v = v;
		evictors.cap = cap;
	}
	evictors.v[evictors.n++] = (evictor){fn, ctx, pthread_self(), any_thread};
	pthread_mutex_unlock(&evictors.lock);
}

void sp_mem_remove_evictor(sp_mem_evictor fn, void *ctx)
{
	pthread_mutex_lock(&evictors.lock);
	for (size_t i = 0; i < evictors.n; i++)
		if (evictors.v[i].fn == fn && evictors.v[i].ctx == ctx) {
			memmove(&evictors.v[i], &evictors.v[i + 1],
				(evictors.n - i - 1) * sizeof(*evictors.v));
			evictors.n--;
			break;
		}
	if (!evictors.n) {
		free(evictors.v);
		evictors.v = NULL;
		evictors.cap = 0;
	}
	pthread_mutex_unlock(&evictors.lock);
}

/* Asks the evictors of this thread, newest first, to give back WANT bytes;
 * whether any gave anything.  (The lock is not held while an evictor runs:
 * one may free a session, which removes its own entry.) */
static bool evict_some(size_t want)
{
	bool freed = false;
	pthread_mutex_lock(&evictors.lock);
	size_t n = evictors.n;
	evictor *copy = n ? malloc(n * sizeof(*copy)) : NULL;
	if (copy)
		memcpy(copy, evictors.v, n * sizeof(*copy));
	pthread_mutex_unlock(&evictors.lock);
	for (size_t i = n; copy && i-- > 0 && !freed;)
		if (copy[i].any_thread || pthread_equal(copy[i].thread, pthread_self()))
			freed = copy[i].fn(copy[i].ctx, want);
	free(copy);
	return freed;
}

void sp_mem_relieve(void)
{
	if (!sp_mem_limit())
		return;
	size_t half = sp_mem_limit() / 2;
	while (sp_mem_room() < half && evict_some(half - sp_mem_room()))
		;
}

sp_error *sp_mem_make_room(size_t n, const char *what)
{
	if (!sp_mem_limit())
		return NULL;
	size_t room;
	while ((room = sp_mem_room()) < n)
		if (!evict_some(n - room))
			break;
	if (room >= n)
		return NULL;
	char lim[64], want[64], used[64];
	sp_format_size(lim, sizeof(lim), sp_mem_limit());
	sp_format_size(want, sizeof(want), n);
	sp_format_size(used, sizeof(used), sp_mem_in_use());
	return sp_error_new(SP_E_LIMIT,
			    "%s: needs %s, more than the memory limit of %s leaves "
			    "(--max-memory): %s are in use",
			    what, want, lim, used);
}
