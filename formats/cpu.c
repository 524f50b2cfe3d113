/* cpu.c — reader for gperftools CPU profiles (spec/FORMATS.md §3).
 *
 * The file is a run of pointer-sized words in the writer's byte order,
 * then the process's memory map as text.  In 64-bit little-endian words:
 *
 *   0 3 0 10000 0                 header: period 10000 µs
 *   5 3 0x401005 0x402010 0x403020    record: count 5, 3 PCs, leaf first
 *   2 2 0x401006 0x401006
 *   0 1 0                         trailer
 *   00400000-00404000 r-xp 00000000 08:01 1234 /usr/bin/prog
 *
 * The word size and byte order are found as google/pprof finds them: the
 * first of 32-bit LE, 32-bit BE, 64-bit LE, 64-bit BE whose first five
 * words read (0, 3, 0, >0, 0).  The leaf PC is kept, callers' return
 * addresses are moved back by one into the call instruction.  Then, as in
 * pprof, a signal handler frame shared by nearly all records is removed
 * (counted on the records as written, so a stack the profiler's hash
 * table evicted and wrote again counts once per record), records with the
 * same stack are summed, and a leaf duplicated by the unwinder is dropped
 * (the two clean-ups of §2.7). */
#include "formats/formats.h"
#include "formats/legacy.h"
#include "formats/stacks.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define CPU_DROP_FRAMES                                                         \
	"ProfileData::Add|ProfileData::prof_handler|CpuProfiler::prof_handler|" \
	"__pthread_sighandler|__restore"

typedef struct {
	const uint8_t *data;
	size_t len;
	unsigned ws; /* 4 or 8 */
	bool big;
} words;

static uint64_t word_at(const words *w, size_t off)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < w->ws; i++) {
		unsigned b = w->big ? i : w->ws - 1 - i;
		v = (v << 8) | w->data[off + b];
	}
	return v;
}

/* Tries the four layouts in pprof's order.  Returns 0 when one reads a C++
 * header, 1 for a Java header (version 1), -1 for none. */
static int detect(const uint8_t *data, size_t len, words *w, uint64_t *period)
{
	static const struct {
		unsigned ws;
		bool big;
	} layouts[] = {{4, false}, {4, true}, {8, false}, {8, true}};
	for (size_t i = 0; i < SP_ARRAY_LEN(layouts); i++) {
		words t = {data, len, layouts[i].ws, layouts[i].big};
		if (len < 5 * t.ws)
			continue;
		uint64_t h[5];
		for (unsigned j = 0; j < 5; j++)
			h[j] = word_at(&t, j * t.ws);
		if (h[0] != 0 || h[1] != 3 || h[2] > 1 || h[3] == 0 || h[4] != 0)
			continue;
		*w = t;
		*period = h[3];
		return h[2] == 1 ? 1 : 0;
	}
	return -1;
}

/* Reads the records after the header, adding one sample per record.  On
 * return *text_off is where the maps text starts (end of data when there
 * is no trailer). */
static sp_error *read_records(const char *name, const words *w, int64_t period_ns,
			      sp_profile *p, size_t *text_off, sp_u64vec *where)
{
	size_t off = 5 * (size_t)w->ws;
	sp_u64vec pcs_v = {0}, locs = {0};
	while (off < w->len) {
		size_t left = (w->len - off) / w->ws;
		if (left < 2) {
			sp_u64vec_free(&pcs_v);
			sp_u64vec_free(&locs);
			return sp_error_new(SP_E_MALFORMED,
					    "%s: offset %zu: truncated record: expected count and "
					    "PC count words, %zu bytes remain",
					    name, off, w->len - off);
		}
		uint64_t count = word_at(w, off);
		uint64_t n = word_at(w, off + w->ws);
		if (n > left - 2) {
			sp_u64vec_free(&pcs_v);
			sp_u64vec_free(&locs);
			return sp_error_new(SP_E_MALFORMED,
					    "%s: offset %zu: record claims %" PRIu64
					    " PCs but only %zu words remain",
					    name, off, n, left - 2);
		}
		size_t pcs = off + 2 * (size_t)w->ws;
		if (count == 0 && n == 1 && word_at(w, pcs) == 0) {
			off = pcs + w->ws;
			break;
		}
		pcs_v.n = 0;
		for (size_t i = 0; i < n; i++)
			SP_PUSH(pcs_v.v, pcs_v.n, pcs_v.cap, word_at(w, pcs + i * w->ws));
		/* the leaf comes from the signal context; callers are return
		 * addresses */
		sp_legacy_adjust_pcs(pcs_v.v, pcs_v.n, false);
		sp_legacy_locations(p, pcs_v.v, pcs_v.n, &locs);
		int64_t v[2];
		if (count > (uint64_t)INT64_MAX ||
		    __builtin_mul_overflow((int64_t)count, period_ns, &v[1])) {
			sp_u64vec_free(&pcs_v);
			sp_u64vec_free(&locs);
			return sp_error_new(SP_E_MALFORMED,
					    "%s: offset %zu: count %" PRIu64 " times the period "
					    "of %" PRId64 " ns does not fit an int64",
					    name, off, count, period_ns);
		}
		v[0] = (int64_t)count;
		sp_profile_add_sample(p, v, locs.v, locs.n, NULL, 0);
		SP_PUSH(where->v, where->n, where->cap, off);
		off = pcs + (size_t)n * w->ws;
	}
	sp_u64vec_free(&pcs_v);
	sp_u64vec_free(&locs);
	*text_off = off < w->len ? off : w->len;
	return NULL;
}

static uint64_t loc_address(const sp_profile *p, uint64_t id)
{
	const sp_location *l = sp_profile_location(p, id);
	return l ? l->address : 0;
}

/* §2.7: if at least N - N/32 of the N records share the frame at index 1,
 * it is the signal handler's; remove it there.  Up to two passes. */
static void drop_signal_frames(sp_profile *p)
{
	size_t n = p->n_samples;
	size_t need = n - n / 32;
	for (int pass = 0; pass < 2; pass++) {
		sp_u64map counts = {0};
		uint64_t found = 0;
		bool have = false;
		for (size_t i = 0; i < n && !have; i++) {
			const sp_sample *s = &p->samples[i];
			if (s->n_locations < 2)
				continue;
			uint64_t c = 0;
			sp_u64map_get(&counts, s->location_ids[1], &c);
			sp_u64map_put(&counts, s->location_ids[1], ++c);
		}
		/* need > n/2, so at most one frame can reach it */
		for (size_t i = 0; i < n && !have; i++) {
			const sp_sample *s = &p->samples[i];
			uint64_t c = 0;
			if (s->n_locations < 2 || !sp_u64map_get(&counts, s->location_ids[1], &c))
				continue;
			if (c >= need) {
				found = s->location_ids[1];
				have = true;
			}
		}
		sp_u64map_free(&counts);
		if (!have)
			return;
		for (size_t i = 0; i < n; i++) {
			sp_sample *s = &p->samples[i];
			if (s->n_locations > 1 && s->location_ids[1] == found)
				sp_fmt_sample_remove_location(s, 1);
		}
	}
}

/* §2.7: a leaf duplicated by the unwinder shows up as a caller one byte
 * below it once adjusted. */
static void drop_duplicate_leaves(sp_profile *p)
{
	for (size_t i = 0; i < p->n_samples; i++) {
		sp_sample *s = &p->samples[i];
		if (s->n_locations > 1 &&
		    loc_address(p, s->location_ids[0]) == loc_address(p, s->location_ids[1]) + 1)
			sp_fmt_sample_remove_location(s, 1);
	}
}

sp_error *sp_cpu_read(const char *name, const uint8_t *data, size_t len, sp_profile **out)
{
	*out = NULL;
	words w;
	uint64_t period_us;
	int kind = detect(data, len, &w, &period_us);
	if (kind < 0)
		return sp_error_new(SP_E_UNRECOGNIZED, "%s: not a gperftools CPU profile", name);
	/* "mine, but not readable": detection treats UNSUPPORTED as "not
	 * mine", which would hide this message behind "unrecognized" */
	if (kind == 1)
		return sp_error_new(SP_E_MALFORMED,
				    "%s: offset %u: Java CPU profiles (format version 1) are "
				    "not supported",
				    name, 2 * w.ws);
	if (period_us > (uint64_t)INT64_MAX / 1000)
		return sp_error_new(SP_E_MALFORMED,
				    "%s: offset %u: sampling period %" PRIu64
				    " µs is out of range",
				    name, 3 * w.ws, period_us);
	int64_t period_ns = (int64_t)period_us * 1000;

	sp_profile *p = sp_profile_new();
	sp_profile_add_sample_type(p, "samples", "count");
	sp_profile_add_sample_type(p, "cpu", "nanoseconds");
	p->period_type.type = sp_profile_intern(p, "cpu");
	p->period_type.unit = sp_profile_intern(p, "nanoseconds");
	p->period = period_ns;
	p->drop_frames = sp_profile_intern(p, CPU_DROP_FRAMES);

	size_t text_off = len;
	sp_u64vec where = {0}; /* offset of each record */
	sp_error *err = read_records(name, &w, period_ns, p, &text_off, &where);
	if (!err) {
		/* on the records as written, before summing: N is pprof's
		 * record count, and a stack repeated by evictions counts once
		 * per record */
		drop_signal_frames(p);
		err = sp_fmt_sum_identical_samples(p, name, "offset", where.v);
	}
	sp_u64vec_free(&where);
	if (!err)
		err = sp_legacy_finish_maps(p, name, (const char *)data + text_off, len - text_off);
	if (err) {
		sp_profile_free(p);
		return err;
	}
	drop_duplicate_leaves(p);
	*out = p;
	return NULL;
}
