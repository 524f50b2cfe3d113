/* merge.c — merges profiles of the same kind into one, with pprof's
 * identity rules (spec/FORMATS.md §1.3 "Merge"): mappings are the same when
 * their build id (else file name), file offset and size rounded up to 4 KiB
 * agree; locations when their mapping-relative address, mapping, lines and
 * folding agree; functions by (name, system_name, filename, start_line);
 * samples by (location ids, labels), whose values are summed.  Merging one
 * profile compacts it.  Only what the kept samples reach is copied (plus the
 * first profile's first mapping, which by convention is the main binary);
 * new ids are 1..n in first-seen order. */
#include "profile/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	int64_t file_key; /* output str idx: build id, else file name */
	uint64_t offset, size;
} mapping_key;

typedef struct {
	sp_profile *out;
	const sp_profile *src;
	/* per source: old id -> new id */
	sp_u64map mapping_ids, location_ids, function_ids;
	/* output tables */
	sp_idxset mappings, locations, functions, samples;
	mapping_key *mkeys;  /* parallel to out->mappings */
	size_t cap_mkeys;
	sp_label **sorted_labels; /* parallel to out->samples */
	size_t cap_sorted;
} merger;

static int64_t str_of(merger *m, int64_t src_idx)
{
	return sp_profile_intern(m->out, sp_profile_str(m->src, src_idx));
}

/* -- mappings ---------------------------------------------------------------- */

typedef struct {
	merger *m;
	const mapping_key *k;
} mapping_ctx;

static bool mapping_eq(void *ctx, size_t i)
{
	mapping_ctx *c = ctx;
	const mapping_key *a = &c->m->mkeys[i];
	return a->file_key == c->k->file_key && a->offset == c->k->offset && a->size == c->k->size;
}

static uint64_t map_mapping(merger *m, const sp_mapping *src)
{
	uint64_t id;
	if (sp_u64map_get(&m->mapping_ids, src->id, &id))
		return id;
	uint64_t size = src->memory_limit - src->memory_start;
	mapping_key k = {
		.file_key = str_of(m, *sp_profile_str(m->src, src->build_id) ? src->build_id
										 : src->filename),
		.offset = src->file_offset,
		.size = (size + 0xfff) & ~(uint64_t)0xfff,
	};
	uint64_t h = sp_hash_combine(sp_hash_combine(sp_hash_u64((uint64_t)k.file_key), k.offset),
				     k.size);
	mapping_ctx c = {m, &k};
	size_t i = sp_idxset_find(&m->mappings, h, mapping_eq, &c);
	if (i != SIZE_MAX) {
		id = m->out->mappings[i].id;
	} else {
		sp_mapping nm = *src;
		nm.id = 0;
		nm.filename = str_of(m, src->filename);
		nm.build_id = str_of(m, src->build_id);
		id = sp_profile_add_mapping(m->out, &nm)->id;
		i = m->out->n_mappings - 1;
		sp_grow(&m->mkeys, &m->cap_mkeys, m->out->n_mappings, sizeof(*m->mkeys));
		m->mkeys[i] = k;
		sp_idxset_add(&m->mappings, h, i);
	}
	sp_u64map_put(&m->mapping_ids, src->id, id);
	return id;
}

/* -- functions --------------------------------------------------------------- */

typedef struct {
	merger *m;
	const sp_function *f; /* with output string indices */
} function_ctx;

static bool function_eq(void *ctx, size_t i)
{
	function_ctx *c = ctx;
	const sp_function *a = &c->m->out->functions[i], *b = c->f;
	/* output strings are interned: equal text <=> equal index */
	return a->name == b->name && a->system_name == b->system_name &&
	       a->filename == b->filename && a->start_line == b->start_line;
}

static uint64_t map_function(merger *m, uint64_t src_id)
{
	uint64_t id;
	if (sp_u64map_get(&m->function_ids, src_id, &id))
		return id;
	const sp_function *src = sp_profile_function(m->src, src_id);
	if (!src)
		return 0;
	sp_function f = {
		.name = str_of(m, src->name),
		.system_name = str_of(m, src->system_name),
		.filename = str_of(m, src->filename),
		.start_line = src->start_line,
	};
	uint64_t h = sp_hash_combine(sp_hash_combine(sp_hash_u64((uint64_t)f.name),
						     (uint64_t)f.system_name),
				     sp_hash_combine((uint64_t)f.filename, (uint64_t)f.start_line));
	function_ctx c = {m, &f};
	size_t i = sp_idxset_find(&m->functions, h, function_eq, &c);
	if (i != SIZE_MAX) {
		id = m->out->functions[i].id;
	} else {
		id = sp_profile_add_function(m->out, &f)->id;
		sp_idxset_add(&m->functions, h, m->out->n_functions - 1);
	}
	sp_u64map_put(&m->function_ids, src_id, id);
	return id;
}

/* -- locations --------------------------------------------------------------- */

typedef struct {
	merger *m;
	const sp_location *l; /* in output terms */
} location_ctx;

static bool location_eq(void *ctx, size_t i)
{
	location_ctx *c = ctx;
	const sp_location *a = &c->m->out->locations[i], *b = c->l;
	/* same output mapping => comparing addresses compares offsets from
	 * the mapping start */
	if (a->mapping_id != b->mapping_id || a->address != b->address ||
	    a->is_folded != b->is_folded || a->n_lines != b->n_lines)
		return false;
	for (size_t j = 0; j < a->n_lines; j++)
		if (a->lines[j].function_id != b->lines[j].function_id ||
		    a->lines[j].line != b->lines[j].line || a->lines[j].column != b->lines[j].column)
			return false;
	return true;
}

static sp_error *map_location(merger *m, uint64_t src_id, uint64_t *out_id)
{
	if (sp_u64map_get(&m->location_ids, src_id, out_id))
		return NULL;
	const sp_location *src = sp_profile_location(m->src, src_id);
	if (!src)
		return sp_error_new(SP_E_INVALID_PROFILE, "sample has nil location (id %llu)",
				    (unsigned long long)src_id);
	sp_location l = {.address = src->address, .is_folded = src->is_folded};
	const sp_mapping *sm = src->mapping_id ? sp_profile_mapping(m->src, src->mapping_id) : NULL;
	if (sm) {
		l.mapping_id = map_mapping(m, sm);
		const sp_mapping *om = sp_profile_mapping(m->out, l.mapping_id);
		l.address = src->address - sm->memory_start + om->memory_start;
	}
	sp_line *lines = src->n_lines ? sp_xreallocarray(NULL, src->n_lines, sizeof(*lines)) : NULL;
	for (size_t j = 0; j < src->n_lines; j++) {
		lines[j] = src->lines[j];
		lines[j].function_id = map_function(m, src->lines[j].function_id);
		if (!lines[j].function_id) {
			free(lines);
			return sp_error_new(SP_E_INVALID_PROFILE,
					    "location %llu has a line with nil function",
					    (unsigned long long)src_id);
		}
	}
	l.lines = lines;
	l.n_lines = src->n_lines;
	uint64_t h = sp_hash_combine(sp_hash_combine(sp_hash_u64(l.mapping_id), l.address),
				     l.is_folded);
	for (size_t j = 0; j < l.n_lines; j++)
		h = sp_hash_combine(sp_hash_combine(h, lines[j].function_id),
				    sp_hash_combine((uint64_t)lines[j].line,
						    (uint64_t)lines[j].column));
	location_ctx c = {m, &l};
	size_t i = sp_idxset_find(&m->locations, h, location_eq, &c);
	if (i != SIZE_MAX) {
		*out_id = m->out->locations[i].id;
	} else {
		*out_id = sp_profile_add_location(m->out, &l)->id;
		sp_idxset_add(&m->locations, h, m->out->n_locations - 1);
	}
	free(lines);
	sp_u64map_put(&m->location_ids, src_id, *out_id);
	return NULL;
}

/* -- samples ----------------------------------------------------------------- */

static int cmp_label(const void *a, const void *b)
{
	const sp_label *x = a, *y = b;
#define CMP(f)                            \
	if (x->f != y->f)                 \
		return x->f < y->f ? -1 : 1;
	CMP(key) CMP(str) CMP(num) CMP(num_unit)
#undef CMP
	return 0;
}

typedef struct {
	merger *m;
	const uint64_t *locs;
	size_t n_locs;
	const sp_label *labels; /* sorted */
	size_t n_labels;
} sample_ctx;

static bool sample_eq(void *ctx, size_t i)
{
	sample_ctx *c = ctx;
	const sp_sample *s = &c->m->out->samples[i];
	return s->n_locations == c->n_locs && s->n_labels == c->n_labels &&
	       (!c->n_locs || !memcmp(s->location_ids, c->locs, c->n_locs * sizeof(*c->locs))) &&
	       (!c->n_labels ||
		!memcmp(c->m->sorted_labels[i], c->labels, c->n_labels * sizeof(*c->labels)));
}

static bool zero_sample(const sp_profile *p, const sp_sample *s)
{
	for (size_t i = 0; i < p->n_sample_types; i++)
		if (s->values[i])
			return false;
	return true;
}

static sp_error *map_sample(merger *m, const sp_sample *src)
{
	sp_error *err = NULL;
	uint64_t *locs = sp_xreallocarray(NULL, src->n_locations + 1, sizeof(*locs));
	sp_label *labels = sp_xreallocarray(NULL, src->n_labels + 1, sizeof(*labels));
	for (size_t j = 0; j < src->n_locations && !err; j++)
		err = map_location(m, src->location_ids[j], &locs[j]);
	if (err)
		goto out;
	for (size_t j = 0; j < src->n_labels; j++) {
		const sp_label *l = &src->labels[j];
		labels[j] = (sp_label){
			.key = str_of(m, l->key),
			.str = l->str ? str_of(m, l->str) : 0,
			.num = l->num,
			.num_unit = l->num_unit ? str_of(m, l->num_unit) : 0,
		};
	}
	sp_label *sorted = sp_xreallocarray(NULL, src->n_labels + 1, sizeof(*sorted));
	memcpy(sorted, labels, src->n_labels * sizeof(*sorted));
	qsort(sorted, src->n_labels, sizeof(*sorted), cmp_label);

	uint64_t h = sp_hash_bytes(locs, src->n_locations * sizeof(*locs), 7);
	h = sp_hash_combine(h, sp_hash_bytes(sorted, src->n_labels * sizeof(*sorted), 8));
	sample_ctx c = {m, locs, src->n_locations, sorted, src->n_labels};
	size_t i = sp_idxset_find(&m->samples, h, sample_eq, &c);
	if (i != SIZE_MAX) {
		sp_sample *s = &m->out->samples[i];
		int64_t sum;
		for (size_t k = 0; k < m->out->n_sample_types && !err; k++)
			if (__builtin_add_overflow(s->values[k], src->values[k], &sum))
				err = sp_error_new(SP_E_INVALID_PROFILE,
						   "the %s values of sample %zu add up to more "
						   "than an int64 holds",
						   sp_profile_str(m->out, m->out->sample_types[k].type),
						   (size_t)(src - m->src->samples) + 1);
		for (size_t k = 0; k < m->out->n_sample_types && !err; k++)
			s->values[k] += src->values[k];
		free(sorted);
	} else {
		sp_profile_add_sample(m->out, src->values, locs, src->n_locations, labels,
				      src->n_labels);
		i = m->out->n_samples - 1;
		sp_grow(&m->sorted_labels, &m->cap_sorted, m->out->n_samples,
			sizeof(*m->sorted_labels));
		m->sorted_labels[i] = sorted;
		sp_idxset_add(&m->samples, h, i);
	}
out:
	free(locs);
	free(labels);
	return err;
}

/* -- compatibility --------------------------------------------------------------- */

static bool same_vt(const sp_profile *a, const sp_value_type *x, const sp_profile *b,
		    const sp_value_type *y)
{
	return !strcmp(sp_profile_str(a, x->type), sp_profile_str(b, y->type)) &&
	       !strcmp(sp_profile_str(a, x->unit), sp_profile_str(b, y->unit));
}

bool sp_profile_same_kind(const sp_profile *a, const sp_profile *b)
{
	bool same = a->n_sample_types == b->n_sample_types &&
		    same_vt(a, &a->period_type, b, &b->period_type);
	for (size_t i = 0; same && i < a->n_sample_types; i++)
		same = same_vt(a, &a->sample_types[i], b, &b->sample_types[i]);
	return same;
}

char *sp_profile_types_string(const sp_profile *p)
{
	sp_buf b = {0};
	sp_buf_puts(&b, "[");
	for (size_t i = 0; i < p->n_sample_types; i++)
		sp_buf_printf(&b, "%s%s/%s", i ? " " : "",
			      sp_profile_str(p, p->sample_types[i].type),
			      sp_profile_str(p, p->sample_types[i].unit));
	sp_buf_puts(&b, "]");
	return sp_buf_take(&b);
}

char *sp_profile_kind_string(const sp_profile *p)
{
	sp_buf b = {0};
	char *types = sp_profile_types_string(p);
	sp_buf_puts(&b, types);
	free(types);
	const char *pt = sp_profile_str(p, p->period_type.type);
	if (*pt)
		sp_buf_printf(&b, ", period type %s/%s", pt, sp_profile_str(p, p->period_type.unit));
	else
		sp_buf_puts(&b, ", no period type");
	return sp_buf_take(&b);
}

static sp_error *compatible(const sp_profile *a, const sp_profile *b, size_t bi)
{
	bool same = a->n_sample_types == b->n_sample_types;
	for (size_t i = 0; same && i < a->n_sample_types; i++)
		same = same_vt(a, &a->sample_types[i], b, &b->sample_types[i]);
	if (!same) {
		char *x = sp_profile_types_string(a), *y = sp_profile_types_string(b);
		sp_error *e = sp_error_new(SP_E_INVALID_PROFILE,
					   "cannot merge profile %zu: sample types differ: %s vs %s",
					   bi + 1, x, y);
		free(x);
		free(y);
		return e;
	}
	if (!same_vt(a, &a->period_type, b, &b->period_type))
		return sp_error_new(SP_E_INVALID_PROFILE,
				    "cannot merge profile %zu: period types differ: %s/%s vs %s/%s",
				    bi + 1, sp_profile_str(a, a->period_type.type),
				    sp_profile_str(a, a->period_type.unit),
				    sp_profile_str(b, b->period_type.type),
				    sp_profile_str(b, b->period_type.unit));
	return NULL;
}

/* -- the merge ----------------------------------------------------------------- */

static sp_error *merge_header(merger *m, const sp_profile *src, bool first)
{
	sp_profile *out = m->out;
	if (first) {
		for (size_t i = 0; i < src->n_sample_types; i++)
			sp_profile_add_sample_type(out,
						   sp_profile_str(src, src->sample_types[i].type),
						   sp_profile_str(src, src->sample_types[i].unit));
		out->period_type.type = str_of(m, src->period_type.type);
		out->period_type.unit = str_of(m, src->period_type.unit);
		out->period = src->period;
	} else if (src->period > out->period) {
		out->period = src->period;
	}
	if (src->time_nanos && (!out->time_nanos || src->time_nanos < out->time_nanos))
		out->time_nanos = src->time_nanos;
	if (__builtin_add_overflow(out->duration_nanos, src->duration_nanos,
				   &out->duration_nanos))
		return sp_error_new(SP_E_INVALID_PROFILE,
				    "the durations add up to more than an int64 of nanoseconds");
	for (size_t i = 0; i < src->n_comments; i++) {
		int64_t c = str_of(m, src->comments[i]);
		bool dup = false;
		for (size_t j = 0; j < out->n_comments && !dup; j++)
			dup = out->comments[j] == c;
		if (!dup)
			SP_PUSH(out->comments, out->n_comments, out->cap_comments, c);
	}
#define FIRST_STR(f)                           \
	if (!out->f && src->f)                 \
		out->f = str_of(m, src->f);
	FIRST_STR(default_sample_type)
	FIRST_STR(doc_url)
	FIRST_STR(drop_frames)
	FIRST_STR(keep_frames)
#undef FIRST_STR
	return NULL;
}

sp_error *sp_profile_merge(sp_profile *const *profiles, size_t n, sp_profile **out)
{
	return sp_profile_merge_named(profiles, NULL, n, out);
}

sp_error *sp_profile_merge_named(sp_profile *const *profiles, const char *const *names,
				 size_t n, sp_profile **out)
{
	*out = NULL;
	if (n == 0)
		return sp_error_new(SP_E_USAGE, "no profiles to merge");
	for (size_t i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof(name), "profile %zu", i + 1);
		sp_error *err = sp_profile_check(profiles[i], name);
		if (!err && i)
			err = compatible(profiles[0], profiles[i], i);
		if (err)
			return err;
	}

	merger m = {.out = sp_profile_new()};
	sp_error *err = NULL;
	for (size_t i = 0; i < n && !err; i++) {
		const sp_profile *src = profiles[i];
		m.src = src;
		sp_u64map_free(&m.mapping_ids);
		sp_u64map_free(&m.location_ids);
		sp_u64map_free(&m.function_ids);
		err = merge_header(&m, src, i == 0);
		/* keep the main binary (mapping[0] by convention) first */
		if (!err && m.out->n_mappings == 0 && src->n_mappings > 0)
			map_mapping(&m, &src->mappings[0]);
		for (size_t j = 0; j < src->n_samples && !err; j++)
			if (!zero_sample(src, &src->samples[j]))
				err = map_sample(&m, &src->samples[j]);
		if (err && names)
			err = sp_error_prefix(err, "merging %s", names[i]);
		else if (err)
			err = sp_error_prefix(err, "merging profile %zu", i + 1);
	}

	sp_u64map_free(&m.mapping_ids);
	sp_u64map_free(&m.location_ids);
	sp_u64map_free(&m.function_ids);
	sp_idxset_free(&m.mappings);
	sp_idxset_free(&m.locations);
	sp_idxset_free(&m.functions);
	sp_idxset_free(&m.samples);
	free(m.mkeys);
	for (size_t i = 0; i < m.out->n_samples; i++)
		free(m.sorted_labels[i]);
	free(m.sorted_labels);
	if (err) {
		sp_profile_free(m.out);
		return err;
	}
	*out = m.out;
	return NULL;
}
