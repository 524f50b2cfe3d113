/* thread.c — reader for legacy thread profiles ("threadz", spec/FORMATS.md
 * §2.4):
 *
 *   --- threadz 2 ---
 *   --- Thread 7f12 (name: main/4711) stack: ---
 *     PC: 0x40e2f0 0x40e301
 *     0x4c5aa1 0x4c5b02
 *   --- Thread 7f13 (name: worker/4712) stack: ---
 *     same as previous thread
 *   --- Memory map: ---
 *   00400000-00fc4000 r-xp 00000000 fc:00 1234 /usr/bin/server
 *
 * Each thread adds one sample (thread/count, value 1) whose stack is every
 * 0x... token of its lines; "same as previous thread" adds 1 to the
 * previous sample instead.  The leaf is the interrupted PC and is kept;
 * callers are return addresses and move back by one; a leaf duplicated by
 * the unwinder is then removed (spec §2.7).  Unlike google/pprof, a file
 * whose last stack is not followed by a "---" line is accepted. */
#include "formats/formats.h"
#include "formats/legacy.h"
#include "formats/stacks.h"

#include <stdlib.h>
#include <string.h>

static bool has_prefix(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && memcmp(s, prefix, k) == 0;
}

/* "--- threadz <digits> ---" */
static bool is_threadz_header(const char *s, size_t n)
{
	if (!has_prefix(s, n, "--- threadz "))
		return false;
	size_t i = 12, d = i;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	return i > d && n - i >= 4 && !memcmp(s + i, " ---", 4);
}

/* "--- Thread <hex> (name: <name>/<digits>) stack: ---" */
static bool is_thread_header(const char *s, size_t n)
{
	if (!has_prefix(s, n, "--- Thread "))
		return false;
	size_t i = 11, h = i;
	while (i < n && ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
			 (s[i] >= 'A' && s[i] <= 'F')))
		i++;
	if (i == h || n - i < 7 || memcmp(s + i, " (name:", 7))
		return false;
	/* the header ends in "/<digits>) stack: ---"; find the last such "/" */
	static const char tail[] = ") stack: ---";
	const char *e = s + n;
	const char *t = NULL;
	for (const char *q = s + i; q + sizeof(tail) - 1 <= e; q++)
		if (!memcmp(q, tail, sizeof(tail) - 1))
			t = q;
	if (!t)
		return false;
	const char *d = t;
	while (d > s + i && d[-1] >= '0' && d[-1] <= '9')
		d--;
	return d < t && d[-1] == '/';
}

static bool contains(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if (!memcmp(s + i, needle, k))
			return true;
	return false;
}

typedef struct {
	sp_u64vec addrs, locs;
} thread_state;

static bool is_lower_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* Appends every "0x[0-9a-f]+" token found anywhere in the line (pprof's
 * hexNumberRE.FindAllString): thread lines carry words like "PC:" and
 * "creator:" around their addresses.  False when one overflows. */
static bool find_addresses(const char *s, size_t len, sp_u64vec *out)
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
		SP_PUSH(out->v, out->n, out->cap, v);
		q = de;
	}
	return true;
}

static sp_error *parse(sp_profile *p, thread_state *st, const char *name, const uint8_t *data,
		       size_t len)
{
	sp_lines it;
	sp_lines_init(&it, data, len);
	bool more;
	while ((more = sp_lines_next(&it)) && sp_legacy_is_space_or_comment(it.line, it.line_len))
		;
	if (!more)
		return sp_error_new(SP_E_UNRECOGNIZED, "%s: not a thread profile", name);
	if (is_threadz_header(it.line, it.line_len)) {
		while ((more = sp_lines_next(&it)) &&
		       !sp_legacy_is_maps_marker(it.line, it.line_len) &&
		       !has_prefix(it.line, it.line_len, "-"))
			;
	} else if (!is_thread_header(it.line, it.line_len)) {
		return sp_error_new(SP_E_UNRECOGNIZED, "%s: not a thread profile", name);
	}

	while (more && !sp_legacy_is_maps_marker(it.line, it.line_len)) {
		if (has_prefix(it.line, it.line_len, "---- no stack trace for"))
			break;
		if (!is_thread_header(it.line, it.line_len))
			return sp_error_new(SP_E_MALFORMED,
					    "%s: line %zu: expected \"--- Thread <id> (name: "
					    "<name>/<tid>) stack: ---\", got \"%.*s\"",
					    name, it.lineno, (int)(it.line_len > 80 ? 80 : it.line_len),
					    it.line);
		bool same = false;
		st->addrs.n = 0;
		while ((more = sp_lines_next(&it))) {
			const char *s = it.line;
			size_t n = it.line_len;
			while (n && (*s == ' ' || *s == '\t'))
				s++, n--;
			if (!n)
				continue;
			if (has_prefix(s, n, "---"))
				break;
			if (contains(s, n, "same as previous thread")) {
				same = true;
				continue;
			}
			if (!find_addresses(s, n, &st->addrs))
				return sp_error_new(SP_E_MALFORMED,
						    "%s: line %zu: hex address out of range",
						    name, it.lineno);
		}
		if (same || st->addrs.n == 0) {
			if (p->n_samples)
				p->samples[p->n_samples - 1].values[0]++;
			continue;
		}
		sp_legacy_adjust_pcs(st->addrs.v, st->addrs.n, false);
		sp_legacy_locations(p, st->addrs.v, st->addrs.n, &st->locs);
		int64_t one = 1;
		sp_profile_add_sample(p, &one, st->locs.v, st->locs.n, NULL, 0);
	}
	/* the memory map, if any, from the line that ended the samples on */
	return sp_legacy_finish_maps_from(p, name, data, len, more ? it.line_off : len);
}

sp_error *sp_thread_read(const char *name, const uint8_t *data, size_t len, sp_profile **out)
{
	*out = NULL;
	sp_profile *p = sp_profile_new();
	sp_profile_add_sample_type(p, "thread", "count");
	p->period_type.type = sp_profile_intern(p, "thread");
	p->period_type.unit = sp_profile_intern(p, "count");
	p->period = 1;
	thread_state st = {0};
	sp_error *err = parse(p, &st, name, data, len);
	sp_u64vec_free(&st.addrs);
	sp_u64vec_free(&st.locs);
	if (err) {
		sp_profile_free(p);
		return err;
	}
	/* a leaf duplicated by the unwinder (spec §2.7) */
	for (size_t i = 0; i < p->n_samples; i++) {
		sp_sample *s = &p->samples[i];
		if (s->n_locations < 2)
			continue;
		const sp_location *l0 = sp_profile_location(p, s->location_ids[0]);
		const sp_location *l1 = sp_profile_location(p, s->location_ids[1]);
		if (l0 && l1 && l0->address == l1->address + 1)
			sp_fmt_sample_remove_location(s, 1);
	}
	*out = p;
	return NULL;
}
