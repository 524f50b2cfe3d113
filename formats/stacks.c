/* stacks.c — summing identical stacks for the address-stack readers.  A
 * gperftools CPU profile repeats a stack whenever its hash table evicted
 * it; a raw or folded file may list a stack on several lines.  Readers add
 * every record as a sample, then call sp_fmt_sum_identical_samples. */
#include "formats/stacks.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	const sp_profile *p;
	const sp_sample *s;
} sample_key;

static bool same_stack(void *ctx, size_t i)
{
	const sample_key *k = ctx;
	const sp_sample *o = &k->p->samples[i];
	return o->n_locations == k->s->n_locations && o->n_labels == 0 &&
	       (o->n_locations == 0 ||
		memcmp(o->location_ids, k->s->location_ids,
		       o->n_locations * sizeof(uint64_t)) == 0);
}

static uint64_t stack_hash(const sp_sample *s)
{
	uint64_t h = sp_hash_u64(s->n_locations);
	for (size_t i = 0; i < s->n_locations; i++)
		h = sp_hash_combine(h, s->location_ids[i]);
	return h;
}

void sp_fmt_sum_identical_samples(sp_profile *p)
{
	sp_idxset seen = {0};
	size_t kept = 0;
	for (size_t i = 0; i < p->n_samples; i++) {
		sp_sample *s = &p->samples[i];
		if (s->n_labels) {
			p->samples[kept++] = *s;
			continue;
		}
		uint64_t h = stack_hash(s);
		sample_key k = {p, s};
		size_t j = sp_idxset_find(&seen, h, same_stack, &k);
		if (j == SIZE_MAX) {
			p->samples[kept] = *s;
			sp_idxset_add(&seen, h, kept);
			kept++;
			continue;
		}
		for (size_t v = 0; v < p->n_sample_types; v++)
			p->samples[j].values[v] = (int64_t)((uint64_t)p->samples[j].values[v] +
							    (uint64_t)s->values[v]);
		free(s->location_ids);
		free(s->values);
		free(s->labels);
	}
	p->n_samples = kept;
	sp_idxset_free(&seen);
}

void sp_fmt_sample_remove_location(sp_sample *s, size_t i)
{
	if (i >= s->n_locations)
		return;
	memmove(&s->location_ids[i], &s->location_ids[i + 1],
		(s->n_locations - i - 1) * sizeof(uint64_t));
	s->n_locations--;
}

/* -- text input ------------------------------------------------------------- */

void sp_fmt_lines_init(sp_fmt_lines *it, const char *text, size_t len)
{
	*it = (sp_fmt_lines){.next = text, .end = text + len, .base = text, .line = text};
}

bool sp_fmt_lines_next(sp_fmt_lines *it)
{
	if (it->next >= it->end) {
		it->line = it->end;
		it->len = 0;
		return false;
	}
	const char *nl = memchr(it->next, '\n', (size_t)(it->end - it->next));
	const char *le = nl ? nl : it->end;
	it->line = it->next;
	it->len = (size_t)(le - it->next);
	if (it->len && it->line[it->len - 1] == '\r')
		it->len--;
	it->offset = (size_t)(it->line - it->base);
	it->lineno++;
	it->next = nl ? nl + 1 : it->end;
	return true;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

void sp_fmt_trim(const char **s, size_t *len)
{
	const char *b = *s, *e = *s + *len;
	while (b < e && blank(*b))
		b++;
	while (e > b && blank(e[-1]))
		e--;
	*s = b;
	*len = (size_t)(e - b);
}

bool sp_fmt_blank_or_comment(const char *s, size_t len)
{
	sp_fmt_trim(&s, &len);
	return len == 0 || s[0] == '#';
}

bool sp_fmt_has_prefix(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);
	return len >= n && memcmp(s, prefix, n) == 0;
}

static bool contains(const char *s, size_t len, const char *needle)
{
	size_t n = strlen(needle);
	for (size_t i = 0; i + n <= len; i++)
		if (memcmp(s + i, needle, n) == 0)
			return true;
	return false;
}

bool sp_fmt_is_maps_sentinel(const char *s, size_t len)
{
	return contains(s, len, "--- Memory map: ---") || contains(s, len, "MAPPED_LIBRARIES:");
}

static bool is_lower_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

bool sp_fmt_hex_addresses(const char *s, size_t len, uint64_t **addrs, size_t *n, size_t *cap)
{
	const char *e = s + len;
	for (const char *q = s; q + 2 < e;) {
		if (q[0] != '0' || q[1] != 'x' || !is_lower_hex(q[2])) {
			q++;
			continue;
		}
		const char *d = q + 2, *de = d;
		while (de < e && is_lower_hex(*de))
			de++;
		uint64_t v;
		if (!sp_parse_u64(d, de, 16, &v))
			return false;
		SP_PUSH(*addrs, *n, *cap, v);
		q = de;
	}
	return true;
}

sp_error *sp_fmt_parse_trailing_maps(sp_profile *p, sp_fmt_lines *it, const char *name)
{
	bool found = it->line < it->end && sp_fmt_is_maps_sentinel(it->line, it->len);
	while (!found && sp_fmt_lines_next(it))
		found = sp_fmt_is_maps_sentinel(it->line, it->len);
	const char *text = it->next;
	size_t len = (size_t)(it->end - it->next);
	if (!found)
		len = 0;
	sp_error *err = sp_profile_parse_maps(p, text, len);
	if (err)
		return sp_error_prefix(err, "%s: line %zu: memory map", name, it->lineno + 1);
	sp_profile_attach_locations(p);
	return NULL;
}
