/* check.c — the validity rules of spec/FORMATS.md §1.3 (pprof's CheckValid
 * plus the decoder's string-index rules).  Runs after every reader and
 * before every writer. */
#include "profile/profile.h"

#include <stdlib.h>
#include <string.h>

#define BAD(...) sp_error_new(SP_E_INVALID_PROFILE, __VA_ARGS__)

static bool str_ok(const sp_profile *p, int64_t i)
{
	return i >= 0 && (uint64_t)i < p->n_strings;
}

static sp_error *check_ids(const char *what, const uint64_t *ids, size_t n)
{
	/* ids 1..n in order, as pprof writes them, need no map of the ids
	 * seen (some 40 bytes per element, more than most elements hold) */
	size_t dense = 0;
	while (dense < n && ids[dense] == dense + 1)
		dense++;
	if (dense == n)
		return NULL;
	sp_u64map seen = {0};
	sp_error *err = NULL;
	for (size_t i = 0; i < n && !err; i++) {
		if (ids[i] == 0)
			err = BAD("%s #%zu has reserved id 0", what, i + 1);
		else if (sp_u64map_get(&seen, ids[i], NULL))
			err = BAD("multiple %ss with id %llu", what, (unsigned long long)ids[i]);
		else
			sp_u64map_put(&seen, ids[i], i);
	}
	sp_u64map_free(&seen);
	return err;
}

/* Readers and the merge number locations and functions 1..n in order;
 * then an id is known by a comparison, not a lookup, for each frame of
 * each sample. */
static bool dense_locations(const sp_profile *p)
{
	for (size_t i = 0; i < p->n_locations; i++)
		if (p->locations[i].id != i + 1)
			return false;
	return true;
}

static bool dense_functions(const sp_profile *p)
{
	for (size_t i = 0; i < p->n_functions; i++)
		if (p->functions[i].id != i + 1)
			return false;
	return true;
}

/* Whether a location (LOCATION) or function of P has id ID; DENSE as
 * dense_locations or dense_functions said of the N of them. */
static bool has_id(const sp_profile *p, bool dense, size_t n, uint64_t id, bool location)
{
	if (dense)
		return id != 0 && id <= n;
	return location ? sp_profile_location(p, id) != NULL : sp_profile_function(p, id) != NULL;
}

static sp_error *check(const sp_profile *p)
{
	if (p->n_strings == 0 || p->strings[0][0] != '\0')
		return BAD("string table entry 0 must be empty");
	if (p->n_samples && !p->n_sample_types)
		return BAD("samples present but no sample types");
	for (size_t i = 0; i < p->n_sample_types; i++)
		if (!str_ok(p, p->sample_types[i].type) || !str_ok(p, p->sample_types[i].unit))
			return BAD("sample type %zu: string index out of range", i);
	if (!str_ok(p, p->period_type.type) || !str_ok(p, p->period_type.unit) ||
	    !str_ok(p, p->drop_frames) || !str_ok(p, p->keep_frames) ||
	    !str_ok(p, p->default_sample_type) || !str_ok(p, p->doc_url))
		return BAD("profile field: string index out of range");
	for (size_t i = 0; i < p->n_comments; i++)
		if (!str_ok(p, p->comments[i]))
			return BAD("comment %zu: string index out of range", i);

	size_t most = p->n_mappings > p->n_locations ? p->n_mappings : p->n_locations;
	if (p->n_functions > most)
		most = p->n_functions;
	uint64_t *ids = sp_xreallocarray(NULL, most + 1, sizeof(uint64_t)); /* one kind at a time */
	sp_error *err = NULL;
	for (size_t i = 0; i < p->n_mappings; i++)
		ids[i] = p->mappings[i].id;
	err = check_ids("mapping", ids, p->n_mappings);
	for (size_t i = 0; !err && i < p->n_functions; i++)
		ids[i] = p->functions[i].id;
	if (!err)
		err = check_ids("function", ids, p->n_functions);
	for (size_t i = 0; !err && i < p->n_locations; i++)
		ids[i] = p->locations[i].id;
	if (!err)
		err = check_ids("location", ids, p->n_locations);
	free(ids);
	if (err)
		return err;

	for (size_t i = 0; i < p->n_mappings; i++) {
		const sp_mapping *m = &p->mappings[i];
		if (!str_ok(p, m->filename) || !str_ok(p, m->build_id))
			return BAD("mapping %llu: string index out of range",
				   (unsigned long long)m->id);
	}
	for (size_t i = 0; i < p->n_functions; i++) {
		const sp_function *f = &p->functions[i];
		if (!str_ok(p, f->name) || !str_ok(p, f->system_name) || !str_ok(p, f->filename))
			return BAD("function %llu: string index out of range",
				   (unsigned long long)f->id);
	}
	bool dense_funcs = dense_functions(p);
	for (size_t i = 0; i < p->n_locations; i++) {
		const sp_location *l = &p->locations[i];
		for (size_t j = 0; j < l->n_lines; j++)
			if (!has_id(p, dense_funcs, p->n_functions, l->lines[j].function_id, false))
				return BAD("location %llu has a line with nil function",
					   (unsigned long long)l->id);
	}
	bool dense_locs = dense_locations(p);
	/* an array of ids the samples of a stack share is checked once: the
	 * first sample holding a bad one is still the one named */
	sp_ids_seen seen = {0};
	for (size_t i = 0; i < p->n_samples; i++) {
		const sp_sample *s = &p->samples[i];
		bool checked = s->n_locations &&
			       sp_ids_seen_add(&seen, s->location_ids, s->n_locations, NULL);
		for (size_t j = 0; !checked && j < s->n_locations; j++)
			if (!has_id(p, dense_locs, p->n_locations, s->location_ids[j], true)) {
				sp_ids_seen_free(&seen);
				return BAD("sample %zu has nil location (id %llu)", i + 1,
					   (unsigned long long)s->location_ids[j]);
			}
		for (size_t j = 0; j < s->n_labels; j++) {
			const sp_label *l = &s->labels[j];
			if (!str_ok(p, l->key) || !str_ok(p, l->str) || !str_ok(p, l->num_unit)) {
				sp_ids_seen_free(&seen);
				return BAD("sample %zu label %zu: string index out of range",
					   i + 1, j);
			}
		}
	}
	sp_ids_seen_free(&seen);
	return NULL;
}

sp_error *sp_profile_check(const sp_profile *p, const char *name)
{
	sp_error *e = check(p);
	if (e)
		e = sp_error_wrap(e, SP_E_INVALID_PROFILE, "%s: malformed profile",
				  name ? name : "profile");
	return e;
}

sp_error *sp_profile_check_for_protobuf(const sp_profile *p, const char *name)
{
	sp_error *e = sp_profile_check(p, name);
	for (size_t i = 0; !e && i < p->n_strings; i++)
		if (strlen(p->strings[i]) != p->string_lens[i])
			e = sp_error_new(SP_E_UNSUPPORTED, "%s: string %zu contains a NUL byte",
					 name ? name : "profile", i);
	return e;
}
