/* model.c — the profile model: construction, interning, find-or-add, and
 * id lookups.  Lookup tables live in a private index so readers can build
 * profiles incrementally without caring about them. */
#include "profile/profile.h"

#include <stdlib.h>
#include <string.h>

/* One block of sample storage: [base, base + size), used up to USED. */
typedef struct {
	unsigned char *base;
	size_t used, size;
} sp_storage_block;

/* Open addressing over (mapping_id, address, code version) -> location
 * index + 1 (0:
 * free), the key kept in the slot: readers look up every frame of every
 * sample here, and a probe that finds the key needs no other memory. */
typedef struct {
	uint64_t mapping_id, address, version;
	size_t idx1;
} loc_slot;

typedef struct {
	loc_slot *slots;
	size_t cap, n; /* cap: 0 or a power of two */
} loc_table;

struct sp_profile_index {
	sp_strtab strings;   /* owns p->strings and p->string_lens */
	loc_table locs;      /* (mapping_id, address) of line-less locations */
	sp_idxset funcs;     /* (name, system_name, filename, start_line) */
	sp_u64map mapping_by_id, location_by_id, function_by_id; /* id -> index */
	size_t n_mappings_indexed, n_locations_indexed, n_functions_indexed;
	size_t n_mappings_dense, n_locations_dense, n_functions_dense;
	size_t n_locs_hashed;
	size_t n_funcs_hashed;
	sp_storage_block *storage; /* sp_profile_sample_storage's, by address */
	size_t n_storage, cap_storage;
	size_t filling;            /* the block being filled */
};

static sp_profile_index *idx(const sp_profile *p)
{
	return p->index;
}

sp_profile *sp_profile_new(void)
{
	sp_profile *p = sp_xcalloc(1, sizeof(*p));
	p->index = sp_xcalloc(1, sizeof(*p->index));
	sp_profile_intern(p, "");
	return p;
}

/* Sample storage grows by blocks of twice what it holds, from 64 KiB up to
 * 64 MiB at a time: few blocks, so that finding the block of a pointer is
 * a short binary search, and never much more reserved than used (the
 * memory budget counts what malloc hands out, touched or not). */
#define STORAGE_MIN ((size_t)64 << 10)
#define STORAGE_MAX ((size_t)64 << 20)

void *sp_profile_sample_storage(sp_profile *p, size_t n, size_t elsz)
{
	if (n == 0)
		return NULL;
	if (n > (SIZE_MAX - 7) / elsz)
		sp_oom();
	size_t need = (n * elsz + 7) & ~(size_t)7;
	sp_profile_index *x = idx(p);
	sp_storage_block *b = x->n_storage ? &x->storage[x->filling] : NULL;
	if (!b || b->size - b->used < need) {
		size_t held = 0;
		for (size_t i = 0; i < x->n_storage; i++)
			held += x->storage[i].size;
		size_t size = held < STORAGE_MIN ? STORAGE_MIN : held > STORAGE_MAX ? STORAGE_MAX : held;
		if (size < need)
			size = need;
		sp_storage_block nb = {sp_xcalloc(1, size), 0, size};
		/* kept sorted by address for sample_storage_holds */
		sp_grow(&x->storage, &x->cap_storage, x->n_storage + 1, sizeof(*x->storage));
		size_t at = x->n_storage;
		while (at > 0 && x->storage[at - 1].base > nb.base) {
			x->storage[at] = x->storage[at - 1];
			at--;
		}
		x->storage[at] = nb;
		x->n_storage++;
		x->filling = at;
		b = &x->storage[at];
	}
	void *r = b->base + b->used;
	b->used += need;
	return r;
}

/* Whether PTR lies in P's sample storage. */
static bool sample_storage_holds(const sp_profile *p, const void *ptr)
{
	const sp_profile_index *x = idx(p);
	const unsigned char *q = ptr;
	size_t lo = 0, hi = x->n_storage;
	if (!q || !hi)
		return false;
	/* the last block that starts at or before Q */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->storage[mid].base <= q)
			lo = mid;
		else
			hi = mid;
	}
	const sp_storage_block *b = &x->storage[lo];
	return b->base <= q && (size_t)(q - b->base) < b->size;
}

struct sp_ids_ref {
	const uint64_t *ids;
	size_t n;
	size_t value;
};

static size_t ids_slot(const sp_ids_seen *t, const uint64_t *ids, size_t n)
{
	size_t h = sp_hash_combine((uintptr_t)ids, n) & (t->cap - 1);
	while (t->slot[h].ids && (t->slot[h].ids != ids || t->slot[h].n != n))
		h = (h + 1) & (t->cap - 1);
	return h;
}

bool sp_ids_seen_add(sp_ids_seen *t, const uint64_t *ids, size_t n, size_t **value)
{
	size_t *unused;
	if (!value)
		value = &unused;
	/* open addressing, at most half full: grown from 64 slots */
	if (t->n == SP_IDS_SEEN_MAX) {
		size_t h = ids_slot(t, ids, n);
		*value = t->slot[h].ids ? &t->slot[h].value : NULL;
		return *value != NULL;
	}
	if (2 * (t->n + 1) > t->cap) {
		sp_ids_seen g = {sp_xcalloc(t->cap ? 2 * t->cap : 64, sizeof(*g.slot)),
				 t->cap ? 2 * t->cap : 64, t->n};
		for (size_t i = 0; i < t->cap; i++)
			if (t->slot[i].ids)
				g.slot[ids_slot(&g, t->slot[i].ids, t->slot[i].n)] = t->slot[i];
		free(t->slot);
		*t = g;
	}
	size_t h = ids_slot(t, ids, n);
	*value = &t->slot[h].value;
	if (t->slot[h].ids)
		return true;
	t->slot[h] = (struct sp_ids_ref){ids, n, 0};
	t->n++;
	return false;
}

void sp_ids_seen_free(sp_ids_seen *t)
{
	free(t->slot);
	*t = (sp_ids_seen){0};
}

void sp_sample_free(const sp_profile *p, sp_sample *s)
{
	if (!sample_storage_holds(p, s->location_ids))
		free(s->location_ids);
	if (!sample_storage_holds(p, s->values))
		free(s->values);
	if (!sample_storage_holds(p, s->labels))
		free(s->labels);
}

void sp_sample_drop_leaves(const sp_profile *p, sp_sample *s, size_t cut)
{
	if (sample_storage_holds(p, s->location_ids))
		/* maybe shared: the sample's view moves, the ids stay */
		s->location_ids = cut < s->n_locations ? s->location_ids + cut : NULL;
	else
		memmove(s->location_ids, s->location_ids + cut,
			(s->n_locations - cut) * sizeof(*s->location_ids));
	s->n_locations -= cut;
}

void sp_sample_add_label(const sp_profile *p, sp_sample *s, const sp_label *label)
{
	sp_label *l = sp_xreallocarray(NULL, s->n_labels + 1, sizeof(*l));
	if (s->n_labels)
		memcpy(l, s->labels, s->n_labels * sizeof(*l));
	l[s->n_labels] = *label;
	if (!sample_storage_holds(p, s->labels))
		free(s->labels);
	s->labels = l;
	s->n_labels++;
}

void sp_profile_retain_samples(sp_profile *p, bool (*keep)(const sp_sample *s, const void *ctx),
			       const void *ctx)
{
	size_t n = 0;
	/* the OTLP extras describe the samples one for one: kept in step */
	sp_otel *o = sp_otel_describes(p) ? p->otel : NULL;
	for (size_t i = 0; i < p->n_samples; i++) {
		if (keep(&p->samples[i], ctx)) {
			if (o)
				o->samples[n] = o->samples[i];
			p->samples[n++] = p->samples[i];
		} else {
			sp_sample_free(p, &p->samples[i]);
		}
	}
	p->n_samples = n;
	if (o)
		o->n_samples = n;
}

void sp_profile_free(sp_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_samples; i++)
		sp_sample_free(p, &p->samples[i]);
	free(p->samples);
	for (size_t i = 0; i < p->n_locations; i++)
		free(p->locations[i].lines);
	free(p->locations);
	free(p->functions);
	free(p->mappings);
	free(p->sample_types);
	free(p->comments);
	sp_otel_free(p->otel);
	if (p->index) {
		sp_strtab_free(&p->index->strings);
		free(p->index->locs.slots);
		sp_idxset_free(&p->index->funcs);
		sp_u64map_free(&p->index->mapping_by_id);
		sp_u64map_free(&p->index->location_by_id);
		sp_u64map_free(&p->index->function_by_id);
		for (size_t i = 0; i < p->index->n_storage; i++)
			free(p->index->storage[i].base);
		free(p->index->storage);
		free(p->index);
	}
	free(p);
}

/* -- strings --------------------------------------------------------------- */

/* The table lives in the private index; the profile's public fields are
 * its arrays, read-only for everyone else, set again after every change. */
static int64_t strings_changed(sp_profile *p, size_t i)
{
	const sp_strtab *t = &idx(p)->strings;

	p->strings = t->strs;
	p->string_lens = t->lens;
	p->n_strings = t->n;
	p->cap_strings = t->cap;
	return (int64_t)i;
}

int64_t sp_profile_append_string(sp_profile *p, const char *s, size_t n)
{
	return strings_changed(p, sp_strtab_append(&idx(p)->strings, s, n));
}

int64_t sp_profile_intern_n(sp_profile *p, const char *s, size_t n)
{
	return strings_changed(p, sp_strtab_intern(&idx(p)->strings, s, n));
}

int64_t sp_profile_intern(sp_profile *p, const char *s)
{
	return sp_profile_intern_n(p, s ? s : "", s ? strlen(s) : 0);
}

const char *sp_profile_str(const sp_profile *p, int64_t i)
{
	if (i < 0 || (uint64_t)i >= p->n_strings)
		return "";
	return p->strings[i];
}

/* -- building --------------------------------------------------------------- */

void sp_profile_add_sample_type(sp_profile *p, const char *type, const char *unit)
{
	sp_value_type vt = {sp_profile_intern(p, type), sp_profile_intern(p, unit)};
	SP_PUSH(p->sample_types, p->n_sample_types, p->cap_sample_types, vt);
}

void sp_profile_add_comment(sp_profile *p, const char *comment)
{
	int64_t c = sp_profile_intern(p, comment);
	SP_PUSH(p->comments, p->n_comments, p->cap_comments, c);
}

sp_mapping *sp_profile_add_mapping(sp_profile *p, const sp_mapping *m)
{
	sp_mapping c = *m;
	if (!c.id)
		c.id = p->n_mappings + 1;
	SP_PUSH(p->mappings, p->n_mappings, p->cap_mappings, c);
	return &p->mappings[p->n_mappings - 1];
}

sp_location *sp_profile_add_location(sp_profile *p, const sp_location *l)
{
	sp_location c = *l;
	if (!c.id)
		c.id = p->n_locations + 1;
	if (l->n_lines) {
		c.lines = sp_xreallocarray(NULL, l->n_lines, sizeof(sp_line));
		memcpy(c.lines, l->lines, l->n_lines * sizeof(sp_line));
	} else {
		c.lines = NULL;
	}
	SP_PUSH(p->locations, p->n_locations, p->cap_locations, c);
	return &p->locations[p->n_locations - 1];
}

sp_function *sp_profile_add_function(sp_profile *p, const sp_function *f)
{
	sp_function c = *f;
	if (!c.id)
		c.id = p->n_functions + 1;
	SP_PUSH(p->functions, p->n_functions, p->cap_functions, c);
	return &p->functions[p->n_functions - 1];
}

static uint64_t loc_hash(uint64_t mapping_id, uint64_t address, uint64_t version)
{
	uint64_t h = sp_hash_combine(sp_hash_u64(mapping_id), address);
	return version ? sp_hash_combine(h, version) : h;
}

static void loc_insert(loc_table *t, uint64_t mapping_id, uint64_t address, uint64_t version,
		       size_t i)
{
	if ((t->n + 1) * 4 >= t->cap * 3) {
		loc_table old = *t;
		t->cap = old.cap ? old.cap * 2 : 64;
		t->n = 0;
		t->slots = sp_xcalloc(t->cap, sizeof(*t->slots));
		for (size_t j = 0; j < old.cap; j++)
			if (old.slots[j].idx1)
				loc_insert(t, old.slots[j].mapping_id, old.slots[j].address,
					   old.slots[j].version, old.slots[j].idx1 - 1);
		free(old.slots);
	}
	size_t mask = t->cap - 1, k = loc_hash(mapping_id, address, version) & mask;
	while (t->slots[k].idx1)
		k = (k + 1) & mask;
	t->slots[k] = (loc_slot){mapping_id, address, version, i + 1};
	t->n++;
}

/* The index of the line-less location (MAPPING_ID, ADDRESS, VERSION), or SIZE_MAX.
 * A slot is a hint: the location it names may have been given lines or a
 * mapping since, so the location itself has the last word. */
static size_t loc_find(const sp_profile *p, const loc_table *t, uint64_t mapping_id,
		       uint64_t address, uint64_t version)
{
	if (!t->cap)
		return SIZE_MAX;
	size_t mask = t->cap - 1;
	for (size_t k = loc_hash(mapping_id, address, version) & mask; t->slots[k].idx1;
	     k = (k + 1) & mask) {
		const loc_slot *e = &t->slots[k];
		if (e->address != address || e->mapping_id != mapping_id || e->version != version ||
		    e->idx1 > p->n_locations)
			continue;
		const sp_location *l = &p->locations[e->idx1 - 1];
		if (l->n_lines == 0 && l->mapping_id == mapping_id && l->address == address &&
		    l->code_version == version)
			return e->idx1 - 1;
	}
	return SIZE_MAX;
}

uint64_t sp_profile_location_for_address(sp_profile *p, uint64_t mapping_id, uint64_t address)
{
	return sp_profile_location_for_code(p, mapping_id, address, 0);
}

uint64_t sp_profile_location_for_code(sp_profile *p, uint64_t mapping_id, uint64_t address,
				      uint64_t code_version)
{
	sp_profile_index *x = idx(p);
	/* hash locations added by other means since the last call */
	for (; x->n_locs_hashed < p->n_locations; x->n_locs_hashed++) {
		const sp_location *l = &p->locations[x->n_locs_hashed];
		if (!l->n_lines)
			loc_insert(&x->locs, l->mapping_id, l->address, l->code_version,
				   x->n_locs_hashed);
	}
	size_t i = loc_find(p, &x->locs, mapping_id, address, code_version);
	if (i != SIZE_MAX)
		return p->locations[i].id;
	sp_location l = {.mapping_id = mapping_id, .address = address,
			 .code_version = code_version};
	sp_location *nl = sp_profile_add_location(p, &l);
	loc_insert(&x->locs, mapping_id, address, code_version, p->n_locations - 1);
	x->n_locs_hashed = p->n_locations;
	return nl->id;
}

typedef struct {
	const sp_profile *p;
	const char *name, *system_name, *filename;
	int64_t start_line;
} func_key;

static bool func_eq(void *ctx, size_t i)
{
	func_key *k = ctx;
	const sp_function *f = &k->p->functions[i];
	return f->start_line == k->start_line &&
	       strcmp(sp_profile_str(k->p, f->name), k->name) == 0 &&
	       strcmp(sp_profile_str(k->p, f->system_name), k->system_name) == 0 &&
	       strcmp(sp_profile_str(k->p, f->filename), k->filename) == 0;
}

static uint64_t func_hash(const char *name, const char *sys, const char *file, int64_t line)
{
	uint64_t h = sp_hash_bytes(name, strlen(name), 1);
	h = sp_hash_combine(h, sp_hash_bytes(sys, strlen(sys), 2));
	h = sp_hash_combine(h, sp_hash_bytes(file, strlen(file), 3));
	return sp_hash_combine(h, (uint64_t)line);
}

uint64_t sp_profile_function_for(sp_profile *p, const char *name, const char *system_name,
				 const char *filename, int64_t start_line)
{
	sp_profile_index *x = idx(p);
	name = name ? name : "";
	system_name = system_name ? system_name : "";
	filename = filename ? filename : "";
	for (; x->n_funcs_hashed < p->n_functions; x->n_funcs_hashed++) {
		const sp_function *f = &p->functions[x->n_funcs_hashed];
		sp_idxset_add(&x->funcs,
			      func_hash(sp_profile_str(p, f->name), sp_profile_str(p, f->system_name),
					sp_profile_str(p, f->filename), f->start_line),
			      x->n_funcs_hashed);
	}
	func_key k = {p, name, system_name, filename, start_line};
	uint64_t h = func_hash(name, system_name, filename, start_line);
	size_t i = sp_idxset_find(&x->funcs, h, func_eq, &k);
	if (i != SIZE_MAX)
		return p->functions[i].id;
	sp_function f = {
		.name = sp_profile_intern(p, name),
		.system_name = sp_profile_intern(p, system_name),
		.filename = sp_profile_intern(p, filename),
		.start_line = start_line,
	};
	sp_function *nf = sp_profile_add_function(p, &f);
	sp_idxset_add(&x->funcs, h, p->n_functions - 1);
	x->n_funcs_hashed = p->n_functions;
	return nf->id;
}

/* A copy of SRC[0..n) (elements of ELSZ bytes) for a sample of P: in P's
 * sample storage when STORED, else an array of its own (values always
 * get one, an empty array a NULL) */
static void *sample_array(sp_profile *p, bool stored, const void *src, size_t n, size_t elsz)
{
	void *dst = stored ? sp_profile_sample_storage(p, n, elsz) : sp_xreallocarray(NULL, n, elsz);
	if (n)
		memcpy(dst, src, n * elsz);
	return dst;
}

static sp_sample *push_sample(sp_profile *p, const sp_sample *s)
{
	SP_PUSH(p->samples, p->n_samples, p->cap_samples, *s);
	return &p->samples[p->n_samples - 1];
}

sp_sample *sp_profile_add_sample(sp_profile *p, const int64_t *values, const uint64_t *locs,
				 size_t n_locs, const sp_label *labels, size_t n_labels)
{
	sp_sample s = {.n_locations = n_locs, .n_labels = n_labels};
	s.values = sample_array(p, false, values, p->n_sample_types, sizeof(*s.values));
	if (n_locs)
		s.location_ids = sample_array(p, false, locs, n_locs, sizeof(*s.location_ids));
	if (n_labels)
		s.labels = sample_array(p, false, labels, n_labels, sizeof(*s.labels));
	return push_sample(p, &s);
}

sp_sample *sp_profile_add_sample_shared(sp_profile *p, const int64_t *values,
					const uint64_t *locs, size_t n_locs,
					const sp_label *labels, size_t n_labels)
{
	sp_sample s = {.location_ids = n_locs ? (uint64_t *)locs : NULL,
		       .n_locations = n_locs,
		       .n_labels = n_labels};
	s.values = sample_array(p, true, values, p->n_sample_types, sizeof(*s.values));
	s.labels = sample_array(p, true, labels, n_labels, sizeof(*s.labels));
	return push_sample(p, &s);
}

sp_label sp_label_num(sp_profile *p, const char *key, int64_t num, const char *unit)
{
	sp_label l = {.key = sp_profile_intern(p, key), .num = num};
	if (unit)
		l.num_unit = sp_profile_intern(p, unit);
	return l;
}

sp_label sp_label_str(sp_profile *p, const char *key, const char *value)
{
	sp_label l = {.key = sp_profile_intern(p, key), .str = sp_profile_intern(p, value)};
	return l;
}

/* -- lookups ----------------------------------------------------------------- */

/* Lookups are logically const: they only refresh private caches.  While
 * the ids of an array are 1..n in order (as pprof and every reader here
 * write them), element ID - 1 is the one and no map is built: a map costs
 * some 40 bytes per element, more than most elements themselves.  DENSE
 * counts the leading elements known to have that id. */
#define INDEX_BY_ID(fn, type, arr, n, map, counter, dense)                       \
	type *fn(const sp_profile *p, uint64_t id)                               \
	{                                                                        \
		sp_profile_index *x = p->index;                                  \
		if (x->dense > p->n)                                             \
			x->dense = p->n;                                         \
		while (x->dense < p->n && p->arr[x->dense].id == x->dense + 1)   \
			x->dense++;                                              \
		if (x->dense == p->n)                                            \
			return id && id <= p->n && p->arr[id - 1].id == id      \
				       ? &p->arr[id - 1]                         \
				       : NULL;                                   \
		if (x->counter > p->n)                                           \
			x->counter = 0, sp_u64map_free(&x->map);                 \
		for (; x->counter < p->n; x->counter++)                          \
			if (!sp_u64map_get(&x->map, p->arr[x->counter].id, NULL)) \
				sp_u64map_put(&x->map, p->arr[x->counter].id,    \
					      x->counter);                       \
		uint64_t i;                                                      \
		if (!id || !sp_u64map_get(&x->map, id, &i) || i >= p->n ||       \
		    p->arr[i].id != id)                                          \
			return NULL;                                             \
		return &p->arr[i];                                               \
	}

INDEX_BY_ID(sp_profile_mapping, sp_mapping, mappings, n_mappings, mapping_by_id,
	    n_mappings_indexed, n_mappings_dense)
INDEX_BY_ID(sp_profile_location, sp_location, locations, n_locations, location_by_id,
	    n_locations_indexed, n_locations_dense)
INDEX_BY_ID(sp_profile_function, sp_function, functions, n_functions, function_by_id,
	    n_functions_indexed, n_functions_dense)

void sp_profile_reindex(sp_profile *p)
{
	sp_profile_index *x = p->index;
	sp_u64map_free(&x->mapping_by_id);
	sp_u64map_free(&x->location_by_id);
	sp_u64map_free(&x->function_by_id);
	x->n_mappings_indexed = x->n_locations_indexed = x->n_functions_indexed = 0;
	x->n_mappings_dense = x->n_locations_dense = x->n_functions_dense = 0;
}

sp_mapping *sp_profile_mapping_for_address(const sp_profile *p, uint64_t addr)
{
	/* Mappings are few; a linear scan keeps first-match semantics (spec
	 * §2.6: "the first mapping with start <= a < limit"). */
	for (size_t i = 0; i < p->n_mappings; i++) {
		sp_mapping *m = &p->mappings[i];
		if (m->memory_start <= addr && addr < m->memory_limit)
			return m;
	}
	return NULL;
}

void sp_mapping_index_build(sp_mapping_index *x, const sp_profile *p, bool unencoded)
{
	/* two ranges per mapping, both in the mapping's place in the order */
	sp_interval *r = sp_xreallocarray(NULL, p->n_mappings ? p->n_mappings : 1, 2 * sizeof(*r));
	size_t n = 0;
	for (size_t i = 0; i < p->n_mappings; i++) {
		const sp_mapping *m = &p->mappings[i];
		if (m->memory_limit <= m->memory_start)
			continue;
		r[n++] = (sp_interval){m->memory_start, m->memory_limit, i};
		if (unencoded && m->file_offset && m->memory_start >= m->file_offset)
			r[n++] = (sp_interval){m->memory_start - m->file_offset, m->memory_start, i};
	}
	sp_interval_table_build(&x->table, r, n);
	free(r);
}

size_t sp_mapping_index_find(const sp_mapping_index *x, uint64_t addr)
{
	return sp_interval_table_find(&x->table, addr);
}

void sp_mapping_index_clear(sp_mapping_index *x)
{
	sp_interval_table_clear(&x->table);
}

sp_error *sp_profile_sample_index(const sp_profile *p, const char *spec, size_t *index)
{
	if (!p->n_sample_types)
		return sp_error_new(SP_E_USAGE, "profile has no sample types");
	if (!spec || !*spec) {
		const char *dflt = sp_profile_str(p, p->default_sample_type);
		if (*dflt) {
			for (size_t i = 0; i < p->n_sample_types; i++)
				if (strcmp(sp_profile_str(p, p->sample_types[i].type), dflt) == 0) {
					*index = i;
					return NULL;
				}
		}
		*index = p->n_sample_types - 1;
		return NULL;
	}
	const char *e = spec + strlen(spec);
	uint64_t n;
	if (sp_parse_u64(spec, e, 10, &n)) {
		if (n >= p->n_sample_types)
			return sp_error_new(SP_E_USAGE,
					    "sample index %s out of range [0..%zu]", spec,
					    p->n_sample_types - 1);
		*index = (size_t)n;
		return NULL;
	}
	for (size_t i = 0; i < p->n_sample_types; i++) {
		const char *t = sp_profile_str(p, p->sample_types[i].type);
		if (strcmp(t, spec) == 0 ||
		    (strncmp(spec, "inuse_", 6) == 0 && strcmp(t, spec + 6) == 0)) {
			*index = i;
			return NULL;
		}
	}
	/* a perf event by its name without its modifiers: task-clock for
	 * task-clock:u, samples:page-faults for samples:page-faults:u */
	for (size_t i = 0; i < p->n_sample_types; i++) {
		const char *t = sp_profile_str(p, p->sample_types[i].type);
		size_t len = strlen(spec);
		if (!strncmp(t, spec, len) && t[len] == ':' && !strchr(t + len + 1, ':') &&
		    strncmp(t, "samples:", 8)) {
			*index = i;
			return NULL;
		}
		if (!strncmp(t, "samples:", 8) && !strncmp(spec, "samples:", 8) &&
		    !strncmp(t, spec, len) && t[len] == ':') {
			*index = i;
			return NULL;
		}
	}
	sp_buf b = {0};
	for (size_t i = 0; i < p->n_sample_types; i++)
		sp_buf_printf(&b, "%s%s", i ? " " : "",
			      sp_profile_str(p, p->sample_types[i].type));
	sp_error *err = sp_error_new(SP_E_USAGE, "sample index %s not in the profile (have: %s)",
				     spec, sp_buf_str(&b));
	sp_buf_free(&b);
	return err;
}
