/* otel.c — the OpenTelemetry extras kept beside a profile (profile.h,
 * "OpenTelemetry extras"): their tables, lookups, and their section of the
 * canonical dump.
 *
 * The extras are a second, exact record of what the OTLP reader projected
 * onto the model; nothing here changes the model.  Keeping them in step
 * with the samples is the one duty of the model's code (model.c:
 * sp_profile_retain_samples), and the OTLP writer checks it
 * (sp_otel_describes) before it trusts them.
 */
#include "profile/profile.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

sp_otel *sp_otel_new(void)
{
	sp_otel *o = sp_xcalloc(1, sizeof(*o));
	sp_strtab_intern(&o->strings, "", 0);
	sp_otel_value empty = {0};
	SP_PUSH(o->values, o->n_values, o->cap_values, empty);
	return o;
}

void sp_otel_free(sp_otel *o)
{
	if (!o)
		return;
	sp_strtab_free(&o->strings);
	free(o->values);
	free(o->items);
	free(o->stamps);
	free(o->attrs);
	free(o->links);
	free(o->resources);
	free(o->scopes);
	free(o->profiles);
	free(o->groups);
	free(o->samples);
	free(o->mapping_attrs);
	free(o->location_attrs);
	free(o);
}

bool sp_otel_describes(const sp_profile *p)
{
	return p->otel && p->otel->n_samples == p->n_samples;
}

/* The index of the next element of an array of N, which must fit a uint32_t
 * (the reader checks its counts against the input first: never reached). */
static uint32_t next_index(size_t n)
{
	if (n >= UINT32_MAX)
		sp_oom();
	return (uint32_t)n;
}

uint32_t sp_otel_string(sp_otel *o, const char *s, size_t n)
{
	if (!n)
		return 0;
	return next_index(sp_strtab_intern(&o->strings, s, n));
}

const char *sp_otel_str(const sp_otel *o, uint32_t i, size_t *len)
{
	if (i >= o->strings.n) {
		if (len)
			*len = 0;
		return "";
	}
	if (len)
		*len = o->strings.lens[i];
	return o->strings.strs[i];
}

uint32_t sp_otel_add_value(sp_otel *o, const sp_otel_value *v)
{
	uint32_t i = next_index(o->n_values);
	SP_PUSH(o->values, o->n_values, o->cap_values, *v);
	return i;
}

uint32_t sp_otel_add_attr(sp_otel *o, uint32_t key, uint32_t unit, uint32_t value)
{
	uint32_t i = next_index(o->n_attrs);
	sp_otel_attr a = {key, unit, value};
	SP_PUSH(o->attrs, o->n_attrs, o->cap_attrs, a);
	return i;
}

sp_otel_run sp_otel_add_items(sp_otel *o, const uint32_t *items, size_t n)
{
	sp_otel_run r = {next_index(o->n_items), 0};
	if (!n)
		return r;
	if (n > UINT32_MAX - o->n_items)
		sp_oom();
	sp_grow(&o->items, &o->cap_items, o->n_items + n, sizeof(*o->items));
	memcpy(o->items + o->n_items, items, n * sizeof(*items));
	o->n_items += n;
	r.n = (uint32_t)n;
	return r;
}

sp_otel_run sp_otel_add_stamps(sp_otel *o, const uint64_t *stamps, size_t n)
{
	sp_otel_run r = {next_index(o->n_stamps), 0};
	if (!n)
		return r;
	if (n > UINT32_MAX - o->n_stamps)
		sp_oom();
	sp_grow(&o->stamps, &o->cap_stamps, o->n_stamps + n, sizeof(*o->stamps));
	memcpy(o->stamps + o->n_stamps, stamps, n * sizeof(*stamps));
	o->n_stamps += n;
	r.n = (uint32_t)n;
	return r;
}

/* Element ID of the id-indexed table V of N (capacity CAP), grown to hold it. */
static void set_run(sp_otel_run **v, size_t *n, size_t *cap, uint64_t id, sp_otel_run r)
{
	if (id >= UINT32_MAX)
		sp_oom(); /* (ids are the reader's, 1..n) */
	if (id >= *n) {
		sp_grow(v, cap, (size_t)id + 1, sizeof(**v));
		memset(*v + *n, 0, ((size_t)id + 1 - *n) * sizeof(**v));
		*n = (size_t)id + 1;
	}
	(*v)[id] = r;
}

void sp_otel_set_mapping_attrs(sp_otel *o, uint64_t id, sp_otel_run attrs)
{
	set_run(&o->mapping_attrs, &o->n_mapping_attrs, &o->cap_mapping_attrs, id, attrs);
}

void sp_otel_set_location_attrs(sp_otel *o, uint64_t id, sp_otel_run attrs)
{
	set_run(&o->location_attrs, &o->n_location_attrs, &o->cap_location_attrs, id, attrs);
}

sp_otel_run sp_otel_mapping_attrs(const sp_otel *o, uint64_t id)
{
	return id < o->n_mapping_attrs ? o->mapping_attrs[id] : (sp_otel_run){0, 0};
}

sp_otel_run sp_otel_location_attrs(const sp_otel *o, uint64_t id)
{
	return id < o->n_location_attrs ? o->location_attrs[id] : (sp_otel_run){0, 0};
}

const char *sp_otel_attr_string(const sp_otel *o, sp_otel_run run, const char *key)
{
	for (uint32_t i = 0; i < run.n && run.off + i < o->n_items; i++) {
		uint32_t a = o->items[run.off + i];
		if (a >= o->n_attrs || strcmp(sp_otel_str(o, o->attrs[a].key, NULL), key) != 0)
			continue;
		uint32_t v = o->attrs[a].value;
		if (v >= o->n_values || o->values[v].kind != SP_OTEL_STRING)
			return NULL;
		return sp_otel_str(o, o->values[v].v.str, NULL);
	}
	return NULL;
}

const char *sp_mapping_otel_string(const sp_profile *p, uint64_t mapping_id, const char *key)
{
	if (!p->otel)
		return NULL;
	return sp_otel_attr_string(p->otel, sp_otel_mapping_attrs(p->otel, mapping_id), key);
}

const char *sp_location_otel_string(const sp_profile *p, uint64_t location_id, const char *key)
{
	if (!p->otel)
		return NULL;
	return sp_otel_attr_string(p->otel, sp_otel_location_attrs(p->otel, location_id), key);
}

/* -- text ------------------------------------------------------------------- */

static void hex_bytes(const char *s, size_t n, sp_buf *b)
{
	static const char hex[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		char c[2] = {hex[(unsigned char)s[i] >> 4], hex[(unsigned char)s[i] & 15]};
		sp_buf_append(b, c, 2);
	}
}

/* Values nest at most as deep as the reader allowed; this bound only keeps
 * a damaged table from recursing forever. */
#define TEXT_DEPTH 128

static void value_text(const sp_otel *o, uint32_t vi, sp_buf *b, bool quoted, int depth)
{
	if (vi >= o->n_values || depth > TEXT_DEPTH) {
		sp_buf_puts(b, "?");
		return;
	}
	const sp_otel_value *v = &o->values[vi];
	size_t n;
	const char *s;
	switch ((sp_otel_kind)v->kind) {
	case SP_OTEL_EMPTY:
		break;
	case SP_OTEL_STRING:
		s = sp_otel_str(o, v->v.str, &n);
		if (quoted)
			sp_buf_puts(b, "\"");
		sp_buf_append(b, s, n);
		if (quoted)
			sp_buf_puts(b, "\"");
		break;
	case SP_OTEL_BOOL:
		sp_buf_puts(b, v->v.b ? "true" : "false");
		break;
	case SP_OTEL_INT:
		sp_buf_printf(b, "%" PRId64, v->v.i);
		break;
	case SP_OTEL_DOUBLE:
		if (isnan(v->v.d)) /* whatever its sign and payload */
			sp_buf_puts(b, "NaN");
		else
			sp_buf_printf(b, "%.17g", v->v.d);
		break;
	case SP_OTEL_BYTES:
		s = sp_otel_str(o, v->v.str, &n);
		hex_bytes(s, n, b);
		break;
	case SP_OTEL_ARRAY:
	case SP_OTEL_KVLIST: {
		bool kv = v->kind == SP_OTEL_KVLIST;
		sp_buf_puts(b, kv ? "{" : "[");
		for (uint32_t i = 0; i < v->v.list.n && v->v.list.off + i < o->n_items; i++) {
			uint32_t e = o->items[v->v.list.off + i];
			if (i)
				sp_buf_puts(b, ", ");
			if (kv && e < o->n_values) {
				s = sp_otel_str(o, o->values[e].key, &n);
				sp_buf_append(b, s, n);
				sp_buf_puts(b, ": ");
			}
			value_text(o, e, b, true, depth + 1);
		}
		sp_buf_puts(b, kv ? "}" : "]");
		break;
	}
	}
}

void sp_otel_value_text(const sp_otel *o, uint32_t v, sp_buf *b)
{
	value_text(o, v, b, false, 0);
}

static const char *kind_name(uint8_t k)
{
	static const char *const names[] = {"empty", "string", "bool", "int",
					    "double", "bytes", "array", "kvlist"};
	return k < SP_ARRAY_LEN(names) ? names[k] : "?";
}

/* " key=value (kind[, unit])" for each attribute of RUN. */
static void dump_attrs(const sp_otel *o, sp_otel_run run, sp_buf *b)
{
	for (uint32_t i = 0; i < run.n && run.off + i < o->n_items; i++) {
		uint32_t a = o->items[run.off + i];
		if (a >= o->n_attrs) {
			sp_buf_puts(b, " ?");
			continue;
		}
		const sp_otel_attr *at = &o->attrs[a];
		size_t n;
		const char *k = sp_otel_str(o, at->key, &n);
		sp_buf_puts(b, " ");
		sp_buf_append(b, k, n);
		sp_buf_puts(b, "=");
		value_text(o, at->value, b, true, 0);
		sp_buf_printf(b, " (%s", at->value < o->n_values ? kind_name(o->values[at->value].kind)
								: "?");
		if (at->unit) {
			const char *u = sp_otel_str(o, at->unit, &n);
			sp_buf_puts(b, ", ");
			sp_buf_append(b, u, n);
		}
		sp_buf_puts(b, ")");
	}
}

static void dump_str(const sp_otel *o, const char *what, uint32_t s, bool bytes, sp_buf *b)
{
	size_t n;
	const char *v = sp_otel_str(o, s, &n);
	if (!n)
		return;
	sp_buf_printf(b, " %s=", what);
	if (bytes)
		hex_bytes(v, n, b);
	else
		sp_buf_append(b, v, n);
}

static void flush(sp_buf *b, sp_sink *out)
{
	sp_buf_puts(b, "\n");
	sp_sink_write(out, b->data, b->len);
	sp_buf_reset(b);
}

/* An id-indexed attribute table (mappings, locations). */
static void dump_by_id(const sp_otel *o, const sp_otel_run *v, size_t n, const char *what,
		       sp_buf *b, sp_sink *out)
{
	for (size_t id = 0; id < n; id++) {
		if (!v[id].n)
			continue;
		sp_buf_printf(b, "  %s %zu:", what, id);
		dump_attrs(o, v[id], b);
		flush(b, out);
	}
}

void sp_otel_dump(const sp_profile *p, sp_sink *out)
{
	const sp_otel *o = p->otel;
	if (!o)
		return;
	sp_buf b = {0};
	sp_buf_puts(&b, "OTLP");
	if (!sp_otel_describes(p))
		sp_buf_printf(&b, " (out of step: %zu samples described, %zu in the profile)",
			      o->n_samples, p->n_samples);
	flush(&b, out);
	for (size_t i = 0; i < o->n_resources; i++) {
		const sp_otel_resource *r = &o->resources[i];
		sp_buf_printf(&b, "  resource %zu:", i);
		dump_attrs(o, r->attrs, &b);
		dump_str(o, "schema_url", r->schema_url, false, &b);
		if (r->dropped_attributes_count)
			sp_buf_printf(&b, " dropped=%" PRIu32, r->dropped_attributes_count);
		for (uint32_t k = 0; k < r->entity_refs.n; k++) {
			sp_buf_puts(&b, " entity=");
			value_text(o, o->items[r->entity_refs.off + k], &b, true, 0);
		}
		flush(&b, out);
	}
	for (size_t i = 0; i < o->n_scopes; i++) {
		const sp_otel_scope *sc = &o->scopes[i];
		sp_buf_printf(&b, "  scope %zu: resource %" PRIu32, i, sc->resource);
		dump_str(o, "name", sc->name, false, &b);
		dump_str(o, "version", sc->version, false, &b);
		dump_str(o, "schema_url", sc->schema_url, false, &b);
		if (sc->dropped_attributes_count)
			sp_buf_printf(&b, " dropped=%" PRIu32, sc->dropped_attributes_count);
		dump_attrs(o, sc->attrs, &b);
		flush(&b, out);
	}
	for (size_t i = 0; i < o->n_profiles; i++) {
		const sp_otel_profile *pr = &o->profiles[i];
		sp_buf_printf(&b,
			      "  profile %zu: scope %" PRIu32 " column %" PRIu32 " time=%" PRIu64
			      " duration=%" PRIu64 " period=%" PRId64,
			      i, pr->scope, pr->column, pr->time_unix_nano, pr->duration_nano,
			      pr->period);
		dump_str(o, "period_type", pr->period_type, false, &b);
		dump_str(o, "period_unit", pr->period_unit, false, &b);
		dump_str(o, "id", pr->profile_id, true, &b);
		if (pr->dropped_attributes_count)
			sp_buf_printf(&b, " dropped=%" PRIu32, pr->dropped_attributes_count);
		dump_str(o, "payload_format", pr->original_payload_format, false, &b);
		dump_str(o, "payload", pr->original_payload, true, &b);
		dump_attrs(o, pr->attrs, &b);
		flush(&b, out);
	}
	for (size_t i = 0; i < o->n_groups; i++) {
		sp_buf_printf(&b, "  group %zu: profiles %" PRIu32 "..%" PRIu32, i,
			      o->groups[i].first, o->groups[i].first + o->groups[i].n - 1);
		flush(&b, out);
	}
	for (size_t i = 0; i < o->n_samples; i++) {
		const sp_otel_sample *s = &o->samples[i];
		sp_buf_printf(&b, "  sample %zu: group %" PRIu32, i, s->group);
		/* the numbers are the reader's: what they say is which samples
		 * were one OTLP sample */
		if (i && s->origin == o->samples[i - 1].origin && s->group == o->samples[i - 1].group)
			sp_buf_puts(&b, " (the sample before's next observation)");
		if (s->link && s->link <= o->n_links) {
			sp_buf_puts(&b, " link");
			dump_str(o, "trace", o->links[s->link - 1].trace_id, true, &b);
			dump_str(o, "span", o->links[s->link - 1].span_id, true, &b);
		}
		if (s->flags & SP_OTEL_NO_VALUES)
			sp_buf_puts(&b, " no-values");
		if (s->stamps.n) {
			sp_buf_puts(&b, " at");
			for (uint32_t k = 0; k < s->stamps.n && s->stamps.off + k < o->n_stamps; k++)
				sp_buf_printf(&b, " %" PRIu64, o->stamps[s->stamps.off + k]);
		}
		dump_attrs(o, s->attrs, &b);
		flush(&b, out);
	}
	dump_by_id(o, o->mapping_attrs, o->n_mapping_attrs, "mapping", &b, out);
	dump_by_id(o, o->location_attrs, o->n_location_attrs, "location", &b, out);
	sp_buf_free(&b);
}
