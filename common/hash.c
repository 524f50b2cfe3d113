/* hash.c — hashing and the two open-addressing tables everything uses. */
#include "common/common.h"

#include <stdlib.h>
#include <string.h>

uint64_t sp_hash_u64(uint64_t x)
{
	/* splitmix64 finaliser */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

uint64_t sp_hash_bytes(const void *data, size_t n, uint64_t seed)
{
	/* FNV-1a over 8-byte words, then mixed. */
	const uint8_t *p = data;
	uint64_t h = 0xcbf29ce484222325ULL ^ seed;
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;
		p += 8;
		n -= 8;
	}
	while (n--) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	return sp_hash_u64(h);
}

/* -- u64 map ------------------------------------------------------------ */

static void u64map_rehash(sp_u64map *m, size_t ncap)
{
	sp_u64map n = {0};
	n.cap = ncap;
	n.keys = sp_xcalloc(ncap, sizeof(uint64_t));
	n.vals = sp_xcalloc(ncap, sizeof(uint64_t));
	n.used = sp_xcalloc_written(ncap, 1); /* probed first */
	for (size_t i = 0; i < m->cap; i++)
		if (m->used[i])
			sp_u64map_put(&n, m->keys[i], m->vals[i]);
	sp_u64map_free(m);
	*m = n;
}

bool sp_u64map_get(const sp_u64map *m, uint64_t key, uint64_t *val)
{
	if (!m->cap)
		return false;
	size_t mask = m->cap - 1;
	for (size_t i = sp_hash_u64(key) & mask;; i = (i + 1) & mask) {
		if (!m->used[i])
			return false;
		if (m->keys[i] == key) {
			if (val)
				*val = m->vals[i];
			return true;
		}
	}
}

void sp_u64map_put(sp_u64map *m, uint64_t key, uint64_t val)
{
	if ((m->n + 1) * 4 >= m->cap * 3)
		u64map_rehash(m, m->cap ? m->cap * 2 : 16);
	size_t mask = m->cap - 1;
	for (size_t i = sp_hash_u64(key) & mask;; i = (i + 1) & mask) {
		if (!m->used[i]) {
			m->used[i] = 1;
			m->keys[i] = key;
			m->vals[i] = val;
			m->n++;
			return;
		}
		if (m->keys[i] == key) {
			m->vals[i] = val;
			return;
		}
	}
}

void sp_u64map_free(sp_u64map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

/* -- index set ------------------------------------------------------------ */

size_t sp_idxset_find(const sp_idxset *s, uint64_t hash, sp_idxset_eq eq, void *ctx)
{
	if (!s->cap)
		return SIZE_MAX;
	size_t mask = s->cap - 1;
	for (size_t i = hash & mask;; i = (i + 1) & mask) {
		if (!s->idx1[i])
			return SIZE_MAX;
		if (s->hashes[i] == hash && eq(ctx, s->idx1[i] - 1))
			return s->idx1[i] - 1;
	}
}

static void idxset_insert(sp_idxset *s, uint64_t hash, size_t idx)
{
	size_t mask = s->cap - 1;
	size_t i = hash & mask;
	while (s->idx1[i])
		i = (i + 1) & mask;
	s->hashes[i] = hash;
	s->idx1[i] = idx + 1;
	s->n++;
}

void sp_idxset_add(sp_idxset *s, uint64_t hash, size_t idx)
{
	if ((s->n + 1) * 4 >= s->cap * 3) {
		sp_idxset old = *s;
		s->cap = old.cap ? old.cap * 2 : 64;
		s->n = 0;
		s->hashes = sp_xcalloc(s->cap, sizeof(uint64_t));
		s->idx1 = sp_xcalloc_written(s->cap, sizeof(size_t)); /* probed first */
		for (size_t i = 0; i < old.cap; i++)
			if (old.idx1[i])
				idxset_insert(s, old.hashes[i], old.idx1[i] - 1);
		free(old.hashes);
		free(old.idx1);
	}
	idxset_insert(s, hash, idx);
}

void sp_idxset_free(sp_idxset *s)
{
	free(s->hashes);
	free(s->idx1);
	memset(s, 0, sizeof(*s));
}
