/* legacy.c — line iteration, address lists, PC adjustment and the
 * memory-map trailer shared by the gperftools-style readers.  A typical
 * input these helpers serve:
 *
 *   heap profile:    1:   9216 [    1:   9216] @ heap_v2/524288
 *        1:     9216 [     1:     9216] @ 0x4005d4 0x7f3c1a021b45
 *
 *   MAPPED_LIBRARIES:
 *   00400000-00401000 r-xp 00000000 08:02 173521      /usr/bin/prog
 */
#include "formats/legacy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void sp_lines_init(sp_lines *it, const uint8_t *data, size_t len)
{
	memset(it, 0, sizeof(*it));
	it->data = (const char *)data;
	it->len = len;
}

/* Pieces of a file are read this large (a longer line grows the buffer). */
#define LINES_PIECE ((size_t)1 << 20)

void sp_lines_init_file(sp_lines *it, FILE *f)
{
	memset(it, 0, sizeof(*it));
	it->f = f;
	it->cap = LINES_PIECE;
	it->buf = sp_xmalloc(it->cap);
	it->data = it->buf;
}

void sp_lines_free(sp_lines *it)
{
	free(it->buf);
	sp_error_free(it->err);
	it->buf = NULL;
	it->err = NULL;
}

/* Reads more of the file after what is buffered, first moving the
 * unread part (from POS) to the start of the buffer; the current line is
 * no longer valid.  False at the end of the file or on an error. */
static bool lines_fill(sp_lines *it)
{
	if (!it->f || feof(it->f) || it->err)
		return false;
	size_t keep = it->len - it->pos;
	memmove(it->buf, it->buf + it->pos, keep);
	it->base += it->pos;
	it->pos = 0;
	it->len = keep;
	if (it->cap - it->len < LINES_PIECE / 2) {
		it->cap *= 2;
		it->buf = sp_xrealloc(it->buf, it->cap);
	}
	it->data = it->buf;
	size_t r = fread(it->buf + it->len, 1, it->cap - it->len, it->f);
	it->len += r;
	if (r == 0 && ferror(it->f))
		it->err = sp_error_new(SP_E_IO, "read error after byte %zu: %s", it->base + keep,
				       strerror(errno));
	return r > 0;
}

bool sp_lines_next(sp_lines *it)
{
	const char *nl;
	for (;;) {
		if (it->pos >= it->len && !lines_fill(it))
			return false;
		nl = memchr(it->data + it->pos, '\n', it->len - it->pos);
		if (nl || !lines_fill(it))
			break;
	}
	const char *s = it->data + it->pos;
	size_t n = nl ? (size_t)(nl - s) : it->len - it->pos;
	it->line = s;
	it->line_off = it->base + it->pos;
	it->line_len = n;
	if (n && s[n - 1] == '\r')
		it->line_len--;
	it->pos += n + (nl ? 1 : 0);
	it->lineno++;
	return true;
}

sp_error *sp_legacy_read_buffer(const char *name, const uint8_t *data, size_t len,
				sp_lines_reader fn, sp_profile **out)
{
	sp_lines it;
	sp_lines_init(&it, data, len);
	return fn(name, &it, NULL, out);
}

sp_error *sp_legacy_read_file(const char *name, FILE *f, sp_lines_reader fn,
			      const sp_read_options *ro, sp_profile **out)
{
	sp_lines it;
	sp_lines_init_file(&it, f);
	sp_error *err = fn(name, &it, ro, out);
	if (it.err) { /* the input was cut short: whatever was made of it is not the profile */
		sp_error_free(err);
		sp_profile_free(*out);
		*out = NULL;
		err = sp_error_prefix(it.err, "%s", name);
		it.err = NULL;
	}
	sp_lines_free(&it);
	return err;
}

const char *sp_lines_rest(sp_lines *it)
{
	while (lines_fill(it))
		;
	return it->data ? it->data + it->pos : "";
}

size_t sp_lines_rest_len(sp_lines *it)
{
	sp_lines_rest(it);
	return it->len - it->pos;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

bool sp_legacy_is_space_or_comment(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && is_space(s[i]))
		i++;
	return i == n || s[i] == '#';
}

/* Every line of a profile is tested, so the scan looks only at the 'M's
 * (sample lines rarely have one; both markers do). */
bool sp_legacy_is_maps_marker(const char *s, size_t n)
{
	static const char mem[] = "--- Memory map: ---", lib[] = "MAPPED_LIBRARIES:";
	const size_t mem_m = 4; /* where mem's 'M' is */
	for (const char *m = memchr(s, 'M', n); m; m = memchr(m + 1, 'M', n - (size_t)(m + 1 - s))) {
		size_t at = (size_t)(m - s);
		if (n - at >= sizeof(lib) - 1 && memcmp(m, lib, sizeof(lib) - 1) == 0)
			return true;
		if (at >= mem_m && n - (at - mem_m) >= sizeof(mem) - 1 &&
		    memcmp(m - mem_m, mem, sizeof(mem) - 1) == 0)
			return true;
	}
	return false;
}

bool sp_legacy_next_line(sp_lines *it, bool *maps)
{
	while (sp_lines_next(it)) {
		if (sp_legacy_is_space_or_comment(it->line, it->line_len))
			continue;
		if (sp_legacy_is_maps_marker(it->line, it->line_len)) {
			*maps = true;
			return false;
		}
		return true;
	}
	return false;
}

bool sp_legacy_find_maps(const uint8_t *data, size_t len, size_t from, size_t *section)
{
	sp_lines it;
	if (from > len)
		return false;
	sp_lines_init(&it, data, len);
	it.pos = from;
	while (sp_lines_next(&it)) {
		if (sp_legacy_is_maps_marker(it.line, it.line_len)) {
			*section = it.pos;
			return true;
		}
	}
	return false;
}

char *sp_legacy_quote(const char *s, size_t n)
{
	sp_buf b = {0};
	sp_buf_puts(&b, "\"");
	size_t lim = n > 60 ? 60 : n;
	for (size_t i = 0; i < lim; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			sp_buf_printf(&b, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			sp_buf_printf(&b, "\\x%02x", c);
		else
			sp_buf_append(&b, &s[i], 1);
	}
	sp_buf_puts(&b, n > lim ? "\"..." : "\"");
	return sp_buf_take(&b);
}

void sp_u64vec_free(sp_u64vec *v)
{
	free(v->v);
	v->v = NULL;
	v->n = v->cap = 0;
}

/* The value of a lower-case hex digit, -1 for any other byte. */
static int lhex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static sp_error *bad_addr(const char *name, size_t lineno, const char *t, size_t tl, bool hex)
{
	char *q = sp_legacy_quote(t, tl);
	sp_error *e = sp_error_new(SP_E_MALFORMED,
				   hex ? "%s: line %zu: hex address %s does not fit in 64 bits"
				       : "%s: line %zu: expected hex address 0x[0-9a-f]+, got %s",
				   name, lineno, q);
	free(q);
	return e;
}

/* Called once per frame of every sample: the digits are validated and
 * converted in one pass, straight into OUT. */
sp_error *sp_legacy_parse_addrs(const char *name, size_t lineno, const char *s, size_t n,
				sp_u64vec *out)
{
	size_t i = 0;
	for (;;) {
		while (i < n && is_space(s[i]))
			i++;
		if (i >= n)
			return NULL;
		size_t b = i;
		bool ok = n - i > 2 && s[i] == '0' && s[i + 1] == 'x', wide = false;
		uint64_t v = 0;
		if (ok) {
			int d;
			for (i += 2; i < n && (d = lhex_value(s[i])) >= 0; i++) {
				wide |= v >> 60 != 0;
				v = v << 4 | (uint64_t)d;
			}
			ok = i > b + 2 && (i == n || is_space(s[i]));
		}
		if (!ok || wide) {
			while (i < n && !is_space(s[i]))
				i++;
			return bad_addr(name, lineno, s + b, i - b, ok);
		}
		SP_PUSH(out->v, out->n, out->cap, v);
	}
}

static bool is_lhex(char c)
{
	return lhex_value(c) >= 0;
}

sp_error *sp_legacy_scan_addrs(const char *name, size_t lineno, const char *s, size_t n,
			       sp_u64vec *out)
{
	for (size_t i = 0; i + 2 < n; i++) {
		if (s[i] != '0' || s[i + 1] != 'x' || !is_lhex(s[i + 2]))
			continue;
		size_t e = i + 2;
		while (e < n && is_lhex(s[e]))
			e++;
		uint64_t v;
		if (!sp_parse_u64(s + i, s + e, 16, &v))
			return bad_addr(name, lineno, s + i, e - i, true);
		SP_PUSH(out->v, out->n, out->cap, v);
		i = e - 1;
	}
	return NULL;
}

size_t sp_id_lists_add(sp_id_lists *l, const uint64_t *ids, size_t n)
{
	size_t i = l->n++;
	sp_grow(&l->first, &l->cap_first, i + 2, sizeof(size_t));
	if (i == 0)
		l->first[0] = 0;
	sp_grow(&l->v, &l->cap_v, l->first[i] + n, sizeof(uint64_t));
	if (n)
		memcpy(l->v + l->first[i], ids, n * sizeof(uint64_t));
	l->first[i + 1] = l->first[i] + n;
	return i;
}

const uint64_t *sp_id_lists_get(const sp_id_lists *l, size_t i, size_t *n)
{
	*n = l->first[i + 1] - l->first[i];
	/* lists that are all empty have no array at all */
	return *n ? l->v + l->first[i] : NULL;
}

void sp_id_lists_free(sp_id_lists *l)
{
	free(l->v);
	free(l->first);
	memset(l, 0, sizeof(*l));
}

bool sp_stack_memo_find(const sp_stack_memo *m, const char *s, size_t n, const uint64_t **ids,
			size_t *n_ids)
{
	size_t i = sp_strtab_find(&m->stacks, s, n);
	if (i == SIZE_MAX)
		return false;
	*ids = sp_id_lists_get(&m->ids, i, n_ids);
	return true;
}

void sp_stack_memo_add(sp_stack_memo *m, const char *s, size_t n, const uint64_t *ids,
		       size_t n_ids)
{
	m->bytes += n + n_ids * sizeof(uint64_t);
	if (m->bytes > SP_STACK_MEMO_MAX)
		return;
	sp_strtab_append(&m->stacks, s, n);
	sp_id_lists_add(&m->ids, ids, n_ids);
}

void sp_stack_memo_free(sp_stack_memo *m)
{
	sp_strtab_free(&m->stacks);
	sp_id_lists_free(&m->ids);
	memset(m, 0, sizeof(*m));
}

void sp_legacy_adjust_pcs(uint64_t *addrs, size_t n, bool adjust_leaf)
{
	for (size_t i = adjust_leaf ? 0 : 1; i < n; i++)
		if (addrs[i])
			addrs[i]--;
}

void sp_legacy_locations(sp_profile *p, const uint64_t *addrs, size_t n, sp_u64vec *ids)
{
	ids->n = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t id = sp_profile_location_for_address(p, 0, addrs[i]);
		SP_PUSH(ids->v, ids->n, ids->cap, id);
	}
}

sp_error *sp_legacy_finish_maps(sp_profile *p, const char *name, const char *text, size_t len)
{
	sp_error *e = sp_profile_parse_maps(p, text ? text : "", text ? len : 0);
	if (e)
		return sp_error_prefix(e, "%s: memory map", name);
	sp_profile_attach_locations(p);
	return NULL;
}

sp_error *sp_legacy_finish_maps_from(sp_profile *p, const char *name, const uint8_t *data,
				     size_t len, size_t from)
{
	size_t section;
	if (sp_legacy_find_maps(data, len, from, &section))
		return sp_legacy_finish_maps(p, name, (const char *)data + section, len - section);
	return sp_legacy_finish_maps(p, name, NULL, 0);
}
