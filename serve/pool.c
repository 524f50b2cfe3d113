/* pool.c — the service's warm sessions: one symprof_session per object
 * (its build id, else its path, else its Tecken debug name and id), kept
 * between requests so an object is opened and indexed once, and freed
 * least recently used first when the process's memory in use passes the
 * high water mark (below the --max-memory budget, which ends the process
 * when passed) or more than --max-sessions are kept.
 *
 * Concurrency: libsymprof allows one call at a time on a session, and calls
 * on different sessions at once.  So each session has a mutex its request
 * holds for the call (requests for one object queue on it, up to their
 * deadline), and the pool's mutex guards only the list.  A session in use
 * is never freed; it is trimmed when its request releases it.
 */
#include "serve/serve.h"

#include "common/common.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct sv_session {
	char *key;
	symprof_session *s;      /* NULL until made (under lock) */
	pthread_mutex_t lock;    /* held by the request using it */
	int users;               /* requests holding or waiting for it (pool lock) */
	struct sv_session *prev, *next; /* most recently used first */
};

struct sv_pool {
	pthread_mutex_t lock;
	symprof_options o;
	size_t high_water, max_sessions;
	sv_session *head, *tail;
	size_t n;
	size_t made, hits, evicted;
};

sv_pool *sv_pool_new(const symprof_options *o, size_t high_water, size_t max_sessions)
{
	sv_pool *p = sp_xcalloc(1, sizeof(*p));
	pthread_mutex_init(&p->lock, NULL);
	p->o = *o;
	p->high_water = high_water;
	p->max_sessions = max_sessions ? max_sessions : 64;
	return p;
}

static void unlink_session(sv_pool *p, sv_session *s)
{
	if (s->prev)
		s->prev->next = s->next;
	else
		p->head = s->next;
	if (s->next)
		s->next->prev = s->prev;
	else
		p->tail = s->prev;
	s->prev = s->next = NULL;
}

static void push_front(sv_pool *p, sv_session *s)
{
	s->prev = NULL;
	s->next = p->head;
	if (p->head)
		p->head->prev = s;
	p->head = s;
	if (!p->tail)
		p->tail = s;
}

static void destroy(sv_session *s)
{
	symprof_session_free(s->s);
	pthread_mutex_destroy(&s->lock);
	free(s->key);
	free(s);
}

void sv_pool_free(sv_pool *p)
{
	if (!p)
		return;
	for (sv_session *s = p->head, *next; s; s = next) {
		next = s->next;
		destroy(s);
	}
	pthread_mutex_destroy(&p->lock);
	free(p);
}

/* The least recently used session no request holds or waits for. */
static sv_session *idle_lru(sv_pool *p)
{
	for (sv_session *s = p->tail; s; s = s->prev)
		if (!s->users)
			return s;
	return NULL;
}

/* Frees idle sessions, least recently used first, while the pool (with
 * EXTRA more) is over its count or memory is over the high water mark.
 * Called and returns with the pool's lock held; frees without it. */
static void trim_locked(sv_pool *p, size_t extra)
{
	for (;;) {
		bool over_count = p->n + extra > p->max_sessions;
		bool over_memory = p->high_water && sp_mem_in_use() > p->high_water;
		sv_session *s = over_count || over_memory ? idle_lru(p) : NULL;
		if (!s)
			return;
		unlink_session(p, s);
		p->n--;
		p->evicted++;
		pthread_mutex_unlock(&p->lock);
		destroy(s);
		pthread_mutex_lock(&p->lock);
	}
}

void sv_pool_trim(sv_pool *p)
{
	pthread_mutex_lock(&p->lock);
	trim_locked(p, 0);
	pthread_mutex_unlock(&p->lock);
}

static sv_session *find(sv_pool *p, const char *key)
{
	sv_session *s = p->head;
	while (s && strcmp(s->key, key))
		s = s->next;
	return s;
}

sv_session *sv_pool_acquire(sv_pool *p, const char *key, const struct timespec *deadline,
			    char **err, int *status)
{
	*err = NULL;
	pthread_mutex_lock(&p->lock);
	sv_session *s = find(p, key);
	if (!s) {
		trim_locked(p, 1); /* unlocks while it frees: look again after */
		s = find(p, key);
	}
	if (s) {
		p->hits++;
		unlink_session(p, s);
	} else {
		s = sp_xcalloc(1, sizeof(*s));
		s->key = sp_xstrdup(key);
		pthread_mutex_init(&s->lock, NULL);
		p->n++;
		p->made++;
	}
	push_front(p, s);
	s->users++;
	pthread_mutex_unlock(&p->lock);

	int e = deadline ? pthread_mutex_timedlock(&s->lock, deadline) : pthread_mutex_lock(&s->lock);
	if (e) {
		pthread_mutex_lock(&p->lock);
		s->users--;
		pthread_mutex_unlock(&p->lock);
		*status = 503;
		*err = sp_xasprintf("the request waited past --request-timeout for the session of %s",
				    key);
		return NULL;
	}
	if (!s->s) {
		symprof_error *se = symprof_session_new(&p->o, &s->s);
		if (se) {
			*status = 500;
			*err = sp_xstrdup(symprof_error_message(se));
			symprof_error_free(se);
			pthread_mutex_unlock(&s->lock);
			pthread_mutex_lock(&p->lock);
			s->users--;
			pthread_mutex_unlock(&p->lock);
			return NULL;
		}
	}
	return s;
}

symprof_session *sv_session_get(sv_session *s)
{
	return s->s;
}

void sv_pool_release(sv_pool *p, sv_session *s)
{
	pthread_mutex_unlock(&s->lock);
	pthread_mutex_lock(&p->lock);
	s->users--;
	trim_locked(p, 0);
	pthread_mutex_unlock(&p->lock);
}

void sv_pool_stats_get(sv_pool *p, sv_pool_stats *st)
{
	pthread_mutex_lock(&p->lock);
	st->open = p->n;
	st->made = p->made;
	st->hits = p->hits;
	st->evicted = p->evicted;
	pthread_mutex_unlock(&p->lock);
}
