/* strtab.c — a table of strings found by content: the find-or-add that the
 * profile's string table, the report's node keys and tags and the flame
 * graph's frame names all need.  Strings are compared as byte strings with
 * their length, so a key may hold NUL bytes (the report joins two names
 * with one).  Example: interning "main", "leaf", "main" gives 0, 1, 0. */
#include "common/common.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	const sp_strtab *t;
	const char *s;
	size_t n;
} strtab_key;

static bool strtab_eq(void *ctx, size_t i)
{
	const strtab_key *k = ctx;

	return k->t->lens[i] == k->n && memcmp(k->t->strs[i], k->s, k->n) == 0;
}

size_t sp_strtab_find(const sp_strtab *t, const char *s, size_t n)
{
	strtab_key k = {t, s, n};

	return sp_idxset_find(&t->set, sp_hash_bytes(s, n, 0), strtab_eq, &k);
}

/* String bytes come in blocks of what the table holds so far, from 4 KiB
 * up to 1 MiB at a time; a string longer than half a block gets a block of
 * its own. */
#define BLOCK_MIN ((size_t)4 << 10)
#define BLOCK_MAX ((size_t)1 << 20)

/* Room for N bytes that stay where they are until sp_strtab_free. */
static char *strtab_room(sp_strtab *t, size_t n)
{
	size_t size = t->block_bytes < BLOCK_MIN   ? BLOCK_MIN
		      : t->block_bytes > BLOCK_MAX ? BLOCK_MAX
						   : t->block_bytes;
	bool own = n > size / 2;
	if (own || t->fill_left < n) {
		char *b = sp_xmalloc(own ? n : size);
		SP_PUSH(t->blocks, t->n_blocks, t->cap_blocks, b);
		t->block_bytes += own ? n : size;
		if (own)
			return b;
		t->fill = b;
		t->fill_left = size;
	}
	char *r = t->fill;
	t->fill += n;
	t->fill_left -= n;
	return r;
}

size_t sp_strtab_append(sp_strtab *t, const char *s, size_t n)
{
	size_t old_cap = t->cap, i = t->n;
	uint64_t h = sp_hash_bytes(s, n, 0);
	strtab_key k = {t, s, n};

	sp_grow(&t->strs, &t->cap, t->n + 1, sizeof(*t->strs));
	if (t->cap != old_cap || !t->lens)
		t->lens = sp_xreallocarray(t->lens, t->cap, sizeof(*t->lens));
	t->strs[i] = strtab_room(t, n + 1);
	memcpy(t->strs[i], s, n);
	t->strs[i][n] = '\0';
	t->lens[i] = n;
	t->n++;
	/* an equal string already present stays the one found */
	if (sp_idxset_find(&t->set, h, strtab_eq, &k) == SIZE_MAX)
		sp_idxset_add(&t->set, h, i);
	return i;
}

size_t sp_strtab_intern(sp_strtab *t, const char *s, size_t n)
{
	size_t i = sp_strtab_find(t, s, n);

	return i != SIZE_MAX ? i : sp_strtab_append(t, s, n);
}

size_t sp_strtab_intern_str(sp_strtab *t, const char *s)
{
	return sp_strtab_intern(t, s, strlen(s));
}

void sp_strtab_free(sp_strtab *t)
{
	for (size_t i = 0; i < t->n_blocks; i++)
		free(t->blocks[i]);
	free(t->blocks);
	free(t->strs);
	free(t->lens);
	sp_idxset_free(&t->set);
	memset(t, 0, sizeof(*t));
}
