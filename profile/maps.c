/* maps.c — memory-map lines and the mapping rules (spec/FORMATS.md §2.6,
 * DESIGN.md §3).  A map section is what a profiler prints after
 * "MAPPED_LIBRARIES:" or "--- Memory map: ---", one region per line, e.g.
 *
 *   00400000-00452000 r-xp 00000000 08:02 173521      /usr/bin/prog
 *   7f3c1a000000-7f3c1a021000 r-xp 00000000 00:00 0
 *   0x40000-0x80000 /path/to/binary (@ff00) abc123456
 *
 * Lines are matched with a hand-written backtracking matcher that follows
 * pprof's procMapsRE and briefMapsRE node for node, so the same captures
 * come out (leftmost-first, greedy).  One deliberate difference: pprof's
 * PATH is \S+, which cuts "/a b/lib.so" to "/a" and keeps nothing of
 * " (deleted)".  When a line is a real /proc/PID/maps line (procMapsRE
 * matched and a path follows the inode) symprof takes the rest of the line,
 * right-trimmed, as the path, then strips " (deleted)".
 *
 * The mapping rules differ from pprof in one place on purpose: two adjacent
 * mappings are merged only when both name the same non-empty file.  pprof
 * also merges a file-less region into a named neighbour, which attributes
 * JIT code in an anonymous r-xp region to the next shared library. */
#include "profile/profile.h"

#include <stdlib.h>
#include <string.h>

/* -- a tiny backtracking matcher for the two map-line expressions --------- */

enum {
	N_WS_STAR,   /* \s* */
	N_WS_PLUS,   /* \s+ */
	N_LIT,       /* one literal character */
	N_SEP_OPT,   /* [\s-]? */
	N_COLON_OPT, /* :? */
	N_XDIGITS,   /* [[:xdigit:]]+ */
	N_DIGITS,    /* [[:digit:]]+ */
	N_PERMS,     /* [-rwxp]+ */
	N_NONSPACE,  /* \S+ */
	N_GROUP_OPT, /* (?: sub )? */
};

typedef struct node {
	int kind;
	char c;  /* N_LIT */
	int cap; /* capture slot, -1 for none */
	const struct node *sub;
	size_t nsub;
} node;

typedef struct cont {
	const node *seq;
	size_t n, i;
	const struct cont *next;
} cont;

#define MAX_CAPS 6

typedef struct {
	const char *s;
	size_t len;
	size_t cb[MAX_CAPS], ce[MAX_CAPS];
	bool set[MAX_CAPS];
	size_t budget; /* steps left; backtracking over long hex runs is bounded */
} mctx;

/* Go's RE2 \s: [\t\n\f\r ]. */
static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

static bool is_xdigit_c(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool in_class(const node *nd, char c)
{
	switch (nd->kind) {
	case N_WS_STAR:
	case N_WS_PLUS:
		return is_ws(c);
	case N_LIT:
		return c == nd->c;
	case N_SEP_OPT:
		return is_ws(c) || c == '-';
	case N_COLON_OPT:
		return c == ':';
	case N_XDIGITS:
		return is_xdigit_c(c);
	case N_DIGITS:
		return c >= '0' && c <= '9';
	case N_PERMS:
		return c == '-' || c == 'r' || c == 'w' || c == 'x' || c == 'p';
	case N_NONSPACE:
		return !is_ws(c);
	}
	return false;
}

static bool m_seq(mctx *m, const node *seq, size_t n, size_t i, size_t pos, const cont *k);

static bool m_cont(mctx *m, const cont *k, size_t pos)
{
	if (!k)
		return true; /* anchored at the start only: trailing text ignored */
	return m_seq(m, k->seq, k->n, k->i, pos, k->next);
}

static bool m_seq(mctx *m, const node *seq, size_t n, size_t i, size_t pos, const cont *k)
{
	if (i == n)
		return m_cont(m, k, pos);
	if (m->budget == 0)
		return false;
	m->budget--;
	const node *nd = &seq[i];
	if (nd->kind == N_GROUP_OPT) {
		cont k2 = {seq, n, i + 1, k};
		if (m_seq(m, nd->sub, nd->nsub, 0, pos, &k2))
			return true;
		return m_seq(m, seq, n, i + 1, pos, k);
	}
	size_t min = 1, max = SIZE_MAX;
	if (nd->kind == N_WS_STAR)
		min = 0;
	if (nd->kind == N_SEP_OPT || nd->kind == N_COLON_OPT)
		min = 0, max = 1;
	if (nd->kind == N_LIT)
		max = 1;
	size_t run = 0;
	while (run < max && pos + run < m->len && in_class(nd, m->s[pos + run]))
		run++;
	if (run >= m->budget) { /* scanning counts against the budget too */
		m->budget = 0;
		return false;
	}
	m->budget -= run;
	for (size_t l = run + 1; l-- > min;) {
		size_t ob = 0, oe = 0;
		bool oset = false;
		if (nd->cap >= 0) {
			ob = m->cb[nd->cap], oe = m->ce[nd->cap], oset = m->set[nd->cap];
			m->cb[nd->cap] = pos, m->ce[nd->cap] = pos + l, m->set[nd->cap] = true;
		}
		if (m_seq(m, seq, n, i + 1, pos + l, k))
			return true;
		if (nd->cap >= 0)
			m->cb[nd->cap] = ob, m->ce[nd->cap] = oe, m->set[nd->cap] = oset;
	}
	return false;
}

#define NODE(k) {k, 0, -1, NULL, 0}
#define CAP(k, c) {k, 0, c, NULL, 0}
#define LIT(ch) {N_LIT, ch, -1, NULL, 0}
#define GROUP(arr) {N_GROUP_OPT, 0, -1, arr, SP_ARRAY_LEN(arr)}

static const node opt_0x_sub[] = {LIT('0'), LIT('x')};

/* cSpaceHex / cSpaceString / cPerm / cSpaceAtOffset with their slots. */
static const node proc_perm_sub[] = {NODE(N_WS_PLUS), CAP(N_PERMS, 2)};
static const node proc_off_sub[] = {NODE(N_WS_PLUS), CAP(N_XDIGITS, 3)};
static const node proc_path_sub[] = {NODE(N_WS_PLUS), CAP(N_NONSPACE, 4)};

/* ^ \s* (?:0x)?(HEX) [\s-]? \s* (?:0x)?(HEX) :? (?:\s+(PERMS))? (?:\s+(HEX))?
 *   \s+ HEX : HEX \s+ DIGITS (?:\s+(\S+))? */
static const node proc_re[] = {
	NODE(N_WS_STAR),     GROUP(opt_0x_sub), CAP(N_XDIGITS, 0), NODE(N_SEP_OPT),
	NODE(N_WS_STAR),     GROUP(opt_0x_sub), CAP(N_XDIGITS, 1), NODE(N_COLON_OPT),
	GROUP(proc_perm_sub), GROUP(proc_off_sub), NODE(N_WS_PLUS), NODE(N_XDIGITS),
	LIT(':'),            NODE(N_XDIGITS),   NODE(N_WS_PLUS),   NODE(N_DIGITS),
	GROUP(proc_path_sub),
};

static const node brief_perm_sub[] = {NODE(N_WS_PLUS), CAP(N_PERMS, 2)};
static const node brief_path_sub[] = {NODE(N_WS_PLUS), CAP(N_NONSPACE, 3)};
static const node brief_at_sub[] = {NODE(N_WS_PLUS), LIT('('), LIT('@'), CAP(N_XDIGITS, 4),
				    LIT(')')};
static const node brief_bid_sub[] = {NODE(N_WS_PLUS), CAP(N_XDIGITS, 5)};

/* ^ HEXRANGE (?:\s+(PERMS))? (?:\s+(\S+))? (?:\s+\(@(HEX)\))? (?:\s+(HEX))? */
static const node brief_re[] = {
	NODE(N_WS_STAR),       GROUP(opt_0x_sub),    CAP(N_XDIGITS, 0), NODE(N_SEP_OPT),
	NODE(N_WS_STAR),       GROUP(opt_0x_sub),    CAP(N_XDIGITS, 1), NODE(N_COLON_OPT),
	GROUP(brief_perm_sub), GROUP(brief_path_sub), GROUP(brief_at_sub), GROUP(brief_bid_sub),
};

static bool run_re(const node *re, size_t n, const char *s, size_t len, mctx *m)
{
	memset(m, 0, sizeof(*m));
	m->s = s;
	m->len = len;
	/* A real map line matches in a few dozen steps; pathological input
	 * (long runs of hex digits) could make backtracking quadratic.  A line
	 * that exhausts this linear budget is not a map line, so the cost of
	 * a map section stays linear in its size. */
	m->budget = 4096 + 16 * len;
	return m_seq(m, re, n, 0, 0, NULL);
}

static bool cap_hex(const mctx *m, int slot, uint64_t *v)
{
	return sp_parse_u64(m->s + m->cb[slot], m->s + m->ce[slot], 16, v);
}

static char *strip_deleted(char *path)
{
	size_t n = strlen(path);
	static const char del[] = " (deleted)";
	if (n >= sizeof(del) - 1 && strcmp(path + n - (sizeof(del) - 1), del) == 0)
		path[n - (sizeof(del) - 1)] = '\0';
	return path;
}

bool sp_maps_parse_line(const char *line, size_t len, sp_maps_entry *e)
{
	mctx m;
	int path_slot, off_slot, bid_slot = -1;
	bool proc = run_re(proc_re, SP_ARRAY_LEN(proc_re), line, len, &m);
	if (proc) {
		off_slot = 3, path_slot = 4;
	} else if (run_re(brief_re, SP_ARRAY_LEN(brief_re), line, len, &m)) {
		path_slot = 3, off_slot = 4, bid_slot = 5;
	} else {
		return false;
	}
	sp_maps_entry r = {0};
	/* pprof: a number that does not fit 64 bits makes the line
	 * unrecognized. */
	if (!cap_hex(&m, 0, &r.start) || !cap_hex(&m, 1, &r.limit))
		return false;
	if (m.set[off_slot] && !cap_hex(&m, off_slot, &r.offset))
		return false;
	if (m.set[2]) {
		size_t pl = m.ce[2] - m.cb[2];
		if (pl >= sizeof(r.perms))
			pl = sizeof(r.perms) - 1;
		memcpy(r.perms, line + m.cb[2], pl);
		r.perms[pl] = '\0';
		/* an absurdly long run is cut, but whether it holds 'x' is kept */
		if (!strchr(r.perms, 'x') && memchr(line + m.cb[2], 'x', m.ce[2] - m.cb[2]))
			r.perms[pl - 1] = 'x';
		r.has_perms = true;
	}
	if (m.set[path_slot]) {
		size_t b = m.cb[path_slot], end = m.ce[path_slot];
		if (proc) {
			/* the rest of a /proc/PID/maps line is the path */
			end = len;
			while (end > b && is_ws(line[end - 1]))
				end--;
		}
		r.path = strip_deleted(sp_xstrndup(line + b, end - b));
	}
	if (bid_slot >= 0 && m.set[bid_slot])
		r.build_id = sp_xstrndup(line + m.cb[bid_slot], m.ce[bid_slot] - m.cb[bid_slot]);
	*e = r;
	return true;
}

void sp_maps_entry_clear(sp_maps_entry *e)
{
	if (!e)
		return;
	free(e->path);
	free(e->build_id);
	e->path = e->build_id = NULL;
}

/* -- the section -------------------------------------------------------------- */

/* pprof's logInfoRE `^[^\[\]]+:[0-9]+]\s`: returns how many bytes to skip. */
static size_t glog_prefix(const char *s, size_t len)
{
	size_t e = 0;
	while (e < len && s[e] != '[' && s[e] != ']')
		e++;
	if (e >= len || s[e] != ']' || e + 1 >= len || !is_ws(s[e + 1]))
		return 0;
	size_t d = e;
	while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
		d--;
	if (d == e || d < 2 || s[d - 1] != ':')
		return 0;
	return e + 2;
}

static void trim(const char **s, const char **e)
{
	while (*s < *e && is_ws(**s))
		(*s)++;
	while (*e > *s && is_ws((*e)[-1]))
		(*e)--;
}

/* The `$name` substitutions defined so far, as a trie over the bytes of
 * "$name": node 0 is the root, children are found through one hash map
 * keyed by (node, byte), and a node where a name ends keeps the index of
 * the first definition of that name.  Replacing at a position walks the
 * trie once, so a line costs its length times at most the longest name
 * (MAX_ATTR_NAME + 1), whatever the number of definitions. */
#define MAX_ATTR_NAME 256
/* A substituted line longer than this is refused: values repeated through
 * their names could otherwise grow one line without bound. */
#define MAX_SUBSTITUTED_LINE (1u << 20)

typedef struct {
	char **vals;           /* by definition index */
	size_t n_vals, cap_vals;
	size_t *end;           /* per node: definition index + 1, 0 = no name ends here */
	size_t n_nodes, cap_nodes;
	sp_u64map child;       /* (node << 8 | byte) -> child node */
} attrs;

static size_t attrs_node(attrs *a, size_t parent, uint8_t c)
{
	uint64_t key = (uint64_t)parent << 8 | c, v;
	if (sp_u64map_get(&a->child, key, &v))
		return (size_t)v;
	size_t zero = 0;
	SP_PUSH(a->end, a->n_nodes, a->cap_nodes, zero);
	sp_u64map_put(&a->child, key, a->n_nodes - 1);
	return a->n_nodes - 1;
}

/* Defines $NAME; an earlier definition of the same name keeps winning. */
static void attrs_add(attrs *a, const char *name, size_t nl, const char *val, size_t vl)
{
	if (!a->n_nodes) {
		size_t zero = 0;
		SP_PUSH(a->end, a->n_nodes, a->cap_nodes, zero);
	}
	size_t nd = attrs_node(a, 0, '$');
	for (size_t i = 0; i < nl; i++)
		nd = attrs_node(a, nd, (uint8_t)name[i]);
	char *v = sp_xstrndup(val, vl);
	SP_PUSH(a->vals, a->n_vals, a->cap_vals, v);
	if (!a->end[nd])
		a->end[nd] = a->n_vals;
}

static void attrs_clear(attrs *a)
{
	for (size_t i = 0; i < a->n_vals; i++)
		free(a->vals[i]);
	free(a->vals);
	free(a->end);
	sp_u64map_free(&a->child);
}

/* strings.Replacer semantics: at each position the first name (in order of
 * definition) that matches is replaced; replaced text is not re-scanned.
 * False when the result would pass MAX_SUBSTITUTED_LINE. */
static bool substitute(const attrs *a, const char *s, size_t len, sp_buf *out)
{
	sp_buf_reset(out);
	size_t i = 0, copied = 0;
	while (i < len) {
		size_t best = 0, best_len = 0, nd = 0;
		for (size_t k = i; a->n_nodes && k < len; k++) {
			uint64_t v;
			if (!sp_u64map_get(&a->child, (uint64_t)nd << 8 | (uint8_t)s[k], &v))
				break;
			nd = (size_t)v;
			if (a->end[nd] && (!best || a->end[nd] < best)) {
				best = a->end[nd];
				best_len = k - i + 1;
			}
		}
		if (!best) {
			i++;
			continue;
		}
		const char *val = a->vals[best - 1];
		size_t vl = strlen(val);
		if (out->len + (i - copied) + vl > MAX_SUBSTITUTED_LINE)
			return false;
		sp_buf_append(out, s + copied, i - copied);
		sp_buf_append(out, val, vl);
		i += best_len;
		copied = i;
	}
	if (out->len + (len - copied) > MAX_SUBSTITUTED_LINE)
		return false;
	sp_buf_append(out, s + copied, len - copied);
	sp_buf_str(out);
	return true;
}

sp_error *sp_profile_parse_maps(sp_profile *p, const char *text, size_t len)
{
	attrs at = {0};
	sp_buf line = {0};
	size_t pos = 0, lineno = 0;
	uint64_t max_id = 0;
	sp_error *err = NULL;
	for (size_t i = 0; i < p->n_mappings; i++)
		if (p->mappings[i].id > max_id)
			max_id = p->mappings[i].id;
	while (pos < len) {
		const char *ls = text + pos;
		const char *nl = memchr(ls, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - ls) : len - pos;
		pos += ll + (nl ? 1 : 0);
		lineno++;
		size_t skip = glog_prefix(ls, ll);
		if (!substitute(&at, ls + skip, ll - skip, &line)) {
			err = sp_error_new(SP_E_LIMIT,
					   "line %zu: $name substitutions make the line longer "
					   "than %u bytes",
					   lineno, MAX_SUBSTITUTED_LINE);
			break;
		}
		const char *s = line.len ? line.data : "";
		sp_maps_entry e;
		if (!sp_maps_parse_line(s, line.len, &e)) {
			const char *eq = memchr(s, '=', line.len);
			if (eq) {
				const char *ks = s, *ke = eq, *vs = eq + 1, *ve = s + line.len;
				trim(&ks, &ke);
				trim(&vs, &ve);
				/* longer "names" are text, not definitions */
				if ((size_t)(ke - ks) <= MAX_ATTR_NAME)
					attrs_add(&at, ks, (size_t)(ke - ks), vs, (size_t)(ve - vs));
			}
			continue;
		}
		/* Skip non-executable regions, and (unlike pprof) empty or
		 * inverted ranges, which only a broken line can produce. */
		if ((e.has_perms && !strchr(e.perms, 'x')) || e.start >= e.limit) {
			sp_maps_entry_clear(&e);
			continue;
		}
		sp_mapping m = {
			.memory_start = e.start,
			.memory_limit = e.limit,
			.file_offset = e.offset,
			.filename = e.path ? sp_profile_intern(p, e.path) : 0,
			.build_id = e.build_id ? sp_profile_intern(p, e.build_id) : 0,
		};
		m.id = ++max_id; /* unique until massage renumbers */
		sp_profile_add_mapping(p, &m);
		sp_maps_entry_clear(&e);
	}
	attrs_clear(&at);
	sp_buf_free(&line);
	if (err)
		return err;
	sp_profile_massage_mappings(p);
	return NULL;
}

/* -- mapping rules ------------------------------------------------------------ */

static bool mergeable(const sp_profile *p, const sp_mapping *a, const sp_mapping *b)
{
	if (!a->filename || !b->filename)
		return false; /* never glue a file-less region to anything */
	if (strcmp(sp_profile_str(p, a->filename), sp_profile_str(p, b->filename)) != 0)
		return false;
	if (a->build_id && b->build_id &&
	    strcmp(sp_profile_str(p, a->build_id), sp_profile_str(p, b->build_id)) != 0)
		return false;
	if (a->memory_limit != b->memory_start)
		return false;
	if (a->file_offset && b->file_offset &&
	    a->file_offset + (a->memory_limit - a->memory_start) != b->file_offset)
		return false;
	return true;
}

/* pprof's libRx: `([.]so$|[.]so[._][0-9]+)`, unanchored. */
static bool looks_like_library(const char *s, size_t n)
{
	if (n >= 3 && memcmp(s + n - 3, ".so", 3) == 0)
		return true;
	for (size_t i = 0; i + 4 < n; i++)
		if (memcmp(s + i, ".so", 3) == 0 && (s[i + 3] == '.' || s[i + 3] == '_') &&
		    s[i + 4] >= '0' && s[i + 4] <= '9')
			return true;
	return false;
}

static bool is_main_candidate(const sp_profile *p, const sp_mapping *m)
{
	/* strings.TrimSpace(strings.Replace(file, "(deleted)", "", -1)) */
	const char *f = sp_profile_str(p, m->filename);
	sp_buf b = {0};
	for (const char *s = f; *s;) {
		if (strncmp(s, "(deleted)", 9) == 0) {
			s += 9;
			continue;
		}
		sp_buf_append(&b, s, 1);
		s++;
	}
	const char *s = b.len ? b.data : "", *e = s + b.len;
	trim(&s, &e);
	bool ok = e > s && !looks_like_library(s, (size_t)(e - s)) && *s != '[';
	sp_buf_free(&b);
	return ok;
}

static void repoint_locations(sp_profile *p, const uint64_t *old_ids, const uint64_t *new_ids,
			      size_t n)
{
	sp_u64map map = {0};
	for (size_t i = 0; i < n; i++)
		sp_u64map_put(&map, old_ids[i], new_ids[i]);
	for (size_t i = 0; i < p->n_locations; i++) {
		sp_location *l = &p->locations[i];
		uint64_t v;
		if (l->mapping_id && sp_u64map_get(&map, l->mapping_id, &v))
			l->mapping_id = v;
	}
	sp_u64map_free(&map);
}

void sp_profile_massage_mappings(sp_profile *p)
{
	size_t n = p->n_mappings;
	if (!n)
		return;
	/* old id of every input mapping -> new id (0 = dropped) */
	uint64_t *old_ids = sp_xreallocarray(NULL, n, sizeof(uint64_t));
	uint64_t *new_ids = sp_xreallocarray(NULL, n, sizeof(uint64_t));
	size_t *slot = sp_xreallocarray(NULL, n, sizeof(size_t)); /* input -> output index */
	for (size_t i = 0; i < n; i++)
		old_ids[i] = p->mappings[i].id;

	/* merge adjacent pieces of one file */
	size_t out = 0;
	for (size_t i = 0; i < n; i++) {
		sp_mapping *m = &p->mappings[i];
		if (out > 0 && mergeable(p, &p->mappings[out - 1], m)) {
			sp_mapping *lm = &p->mappings[out - 1];
			lm->memory_limit = m->memory_limit;
			if (m->build_id)
				lm->build_id = m->build_id;
			slot[i] = out - 1;
			continue;
		}
		p->mappings[out] = *m;
		slot[i] = out++;
	}
	p->n_mappings = out;

	/* main binary first */
	size_t *order = sp_xreallocarray(NULL, out, sizeof(size_t)); /* position -> slot */
	for (size_t i = 0; i < out; i++)
		order[i] = i;
	for (size_t i = 0; i < out; i++) {
		if (is_main_candidate(p, &p->mappings[i])) {
			sp_mapping t = p->mappings[0];
			p->mappings[0] = p->mappings[i];
			p->mappings[i] = t;
			order[0] = i;
			order[i] = 0;
			break;
		}
	}
	/* drop a leading /anon_hugepage adjacent to the next mapping */
	size_t first = 0;
	if (out > 1 &&
	    strncmp(sp_profile_str(p, p->mappings[0].filename), "/anon_hugepage", 14) == 0 &&
	    p->mappings[0].memory_limit == p->mappings[1].memory_start) {
		memmove(&p->mappings[0], &p->mappings[1], (out - 1) * sizeof(sp_mapping));
		first = 1;
		p->n_mappings = --out;
	}
	if (out > 0) {
		sp_mapping *m0 = &p->mappings[0];
		if (m0->memory_start - m0->file_offset == 0x400000) {
			m0->memory_start = 0x400000;
			m0->file_offset = 0;
		}
	}
	/* slot -> new id */
	uint64_t *slot_id = sp_xcalloc(out + first, sizeof(uint64_t));
	for (size_t pos = first; pos < out + first; pos++)
		slot_id[order[pos]] = pos - first + 1;
	for (size_t i = 0; i < n; i++)
		new_ids[i] = slot_id[slot[i]];
	for (size_t i = 0; i < out; i++)
		p->mappings[i].id = i + 1;
	repoint_locations(p, old_ids, new_ids, n);
	sp_profile_reindex(p); /* ids rewritten, mappings moved */
	free(slot_id);
	free(order);
	free(slot);
	free(old_ids);
	free(new_ids);
}

void sp_profile_attach_locations(sp_profile *p)
{
	size_t fake = SIZE_MAX;
	/* pprof checks each mapping in order for containment, then for the
	 * "first part of a split mapping was not encoded" case: the index
	 * answers that rule in O(log n).  The fake mapping added below is not
	 * in it, and rewriting a split mapping's start keeps it valid. */
	sp_mapping_index x = {0};
	sp_mapping_index_build(&x, p, true);
	for (size_t i = 0; i < p->n_locations; i++) {
		sp_location *l = &p->locations[i];
		uint64_t a = l->address;
		if (l->mapping_id || a == 0)
			continue;
		size_t slot = sp_mapping_index_find(&x, a);
		if (slot != SIZE_MAX) {
			sp_mapping *m = &p->mappings[slot];
			if (a < m->memory_start) {
				m->memory_start -= m->file_offset;
				m->file_offset = 0;
			}
			l->mapping_id = m->id;
			continue;
		}
		if (fake == SIZE_MAX) {
			uint64_t max_id = 0;
			for (size_t j = 0; j < p->n_mappings; j++)
				if (p->mappings[j].id > max_id)
					max_id = p->mappings[j].id;
			sp_mapping m = {.id = max_id + 1, .memory_limit = UINT64_MAX};
			sp_profile_add_mapping(p, &m);
			fake = p->n_mappings - 1;
		}
		l->mapping_id = p->mappings[fake].id;
	}
	sp_mapping_index_clear(&x);
}

bool sp_mapping_unsymbolizable(const sp_profile *p, const sp_mapping *m)
{
	const char *f = sp_profile_str(p, m->filename);
	if (!*f || strcmp(f, "//anon") == 0 || strncmp(f, "/dev/dri/", 9) == 0 ||
	    strncmp(f, "/memfd:", 7) == 0)
		return true;
	/* filepath.Base: trailing slashes ignored, then the last element */
	size_t n = strlen(f);
	while (n > 1 && f[n - 1] == '/')
		n--;
	size_t b = n;
	while (b > 0 && f[b - 1] != '/')
		b--;
	const char *base = f + b;
	size_t bl = n - b;
	return (bl >= 1 && base[0] == '[') || (bl >= 10 && strncmp(base, "linux-vdso", 10) == 0);
}
