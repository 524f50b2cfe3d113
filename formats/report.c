/* report.c — the call graph behind every report, built with pprof's rules,
 * and the text "top" table.
 *
 * Each location gives one node per inline frame (innermost first), named at
 * the chosen granularity: "func" (functions), "func file:line" (lines) or
 * "file" (files); an unsymbolized location is its address, "0x4011a2
 * [libfoo.so]".  For every sample the chosen value is added to the cum of
 * each distinct node on its stack, to each distinct caller->callee edge
 * (root to leaf, through inline frames) and to the flat of the leaf.  As in
 * pprof the graph is rebuilt from the samples at each pruning step: first
 * nodes whose |cum| is below nodefraction of the graph's total, then all but
 * the first nodecount nodes of the report order (flat for the table, pprof's
 * entropy score for graphs), then edges below edgefraction.  Stacks that
 * pass through dropped nodes keep an edge across them, marked residual; a
 * dropped leaf gives no flat to anyone.  Percentages are of the total of all samples, taken
 * before focus and ignore (pprof's default).  Example of the table:
 *
 *       flat  flat%   sum%        cum   cum%
 *       60ms 60.00% 60.00%       90ms 90.00%  leaf
 */
#include "formats/report.h"

#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NONE SIZE_MAX

static int64_t abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

void sp_report_options_init(sp_report_options *o)
{
	*o = (sp_report_options){.nodefraction = -1, .edgefraction = -1};
}

/* -- units (pprof's measurement tables: memory base 1024, time base ns) --- */

typedef struct {
	const char *name;
	const char *aliases[4];
	double factor;
} unit_def;

typedef struct {
	const unit_def *units;
	size_t n;
	size_t def; /* index of the default unit */
} unit_type;

static const unit_def memory_units[] = {
	{"B", {"b", "byte"}, 1},
	{"kB", {"kb", "kbyte", "kilobyte"}, 1024.0},
	{"MB", {"mb", "mbyte", "megabyte"}, 1024.0 * 1024},
	{"GB", {"gb", "gbyte", "gigabyte"}, 1024.0 * 1024 * 1024},
	{"TB", {"tb", "tbyte", "terabyte"}, 1024.0 * 1024 * 1024 * 1024},
	{"PB", {"pb", "pbyte", "petabyte"}, 1024.0 * 1024 * 1024 * 1024 * 1024},
};

static const unit_def time_units[] = {
	{"ns", {"ns", "nanosecond"}, 1},
	{"us", {"\xce\xbcs", "us", "microsecond"}, 1e3},
	{"ms", {"ms", "millisecond"}, 1e6},
	{"s", {"s", "sec", "second"}, 1e9},
	{"hrs", {"hour", "hr"}, 3600e9},
};

static const unit_type unit_types[] = {
	{memory_units, SP_ARRAY_LEN(memory_units), 0},
	{time_units, SP_ARRAY_LEN(time_units), 3},
};

/* Lower-cases S and drops one trailing 's' when longer than two bytes. */
static const unit_def *sniff_unit(const unit_type *t, const char *s)
{
	char buf[32];
	size_t n = strlen(s);

	if (n >= sizeof(buf))
		return NULL;
	for (size_t i = 0; i < n; i++)
		buf[i] = (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] - 'A' + 'a') : s[i];
	if (n > 2 && buf[n - 1] == 's')
		n--;
	buf[n] = 0;
	for (size_t i = 0; i < t->n; i++)
		for (size_t a = 0; a < 4 && t->units[i].aliases[a]; a++)
			if (!strcmp(buf, t->units[i].aliases[a]))
				return &t->units[i];
	return NULL;
}

static bool is_auto(const char *u)
{
	return !strcmp(u, "minimum") || !strcmp(u, "auto");
}

/* VALUE in FROM expressed in TO ("minimum" picks the largest unit giving
 * a value >= 1); *UNIT gets the canonical unit name ("" for counts). */
static double scale(int64_t value, const char *from, const char *to, const char **unit)
{
	if (value < 0 && -value > 0)
		return -scale(-value, from, to, unit);
	for (size_t t = 0; t < SP_ARRAY_LEN(unit_types); t++) {
		const unit_type *ut = &unit_types[t];
		const unit_def *fu = sniff_unit(ut, from), *tu;
		double v;

		if (!fu)
			continue;
		v = (double)value * fu->factor;
		if (is_auto(to)) {
			const unit_def *best = NULL;

			for (size_t i = 0; i < ut->n; i++)
				if ((!best || ut->units[i].factor >= best->factor) &&
				    v / ut->units[i].factor >= 1.0)
					best = &ut->units[i];
			tu = best ? best : &ut->units[ut->def];
		} else {
			tu = sniff_unit(ut, to);
			if (!tu)
				tu = &ut->units[ut->def];
		}
		*unit = tu->name;
		return v / tu->factor;
	}
	if (!strcmp(to, "count") || !strcmp(to, "sample") || !strcmp(to, "unit") ||
	    is_auto(to))
		*unit = "";
	else
		*unit = to;
	return (double)value;
}

static char *scaled_label(int64_t value, const char *from, const char *to)
{
	const char *unit;
	double v = scale(value, from, to, &unit);
	char buf[64];
	size_t n;

	snprintf(buf, sizeof(buf), "%.2f", v);
	n = strlen(buf);
	if (n >= 3 && !strcmp(buf + n - 3, ".00"))
		buf[n - 3] = 0;
	if (!strcmp(buf, "0") || !strcmp(buf, "-0"))
		return sp_xstrdup("0");
	return sp_xasprintf("%s%s", buf, unit);
}

char *sp_report_scaled_label(int64_t v, const char *from, const char *to)
{
	return scaled_label(v, from, to);
}

char *sp_report_value(const sp_report *r, int64_t v)
{
	if (!r->output_unit[0])
		return scaled_label(v, r->sample_unit, r->sample_unit);
	return scaled_label(v, r->sample_unit, r->output_unit);
}

const char *sp_report_pct(int64_t v, int64_t total, char *buf)
{
	double ratio = 0;

	if (total != 0)
		ratio = fabs((double)v / (double)total) * 100;
	if (ratio >= 99.95 && ratio <= 100.05)
		strcpy(buf, "  100%");
	else if (ratio >= 1.0)
		snprintf(buf, 16, "%5.2f%%", ratio);
	else
		snprintf(buf, 16, "%5.2g%%", ratio);
	return buf;
}

static const char *trim_left(const char *s)
{
	while (*s == ' ')
		s++;
	return s;
}

/* -- naming ---------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at S (N bytes left), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, c = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (len == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	return len;
}

char *sp_report_clean_name(char *s)
{
	size_t n = strlen(s);

	for (size_t i = 0; i < n;) {
		size_t l = utf8_len((const unsigned char *)s + i, n - i);

		if (l == 0) {
			s[i++] = '?';
		} else {
			if (l == 1 && ((unsigned char)s[i] < 0x20 || s[i] == 0x7f))
				s[i] = '?';
			i += l;
		}
	}
	return s;
}

/* PATH (consumed) made lexically clean, as pprof shows source files (Go's
 * filepath.Clean): no empty or "." elements, "x/.." removed, ".." at the
 * start of an absolute path dropped; "" stays "" ("." only for a path that
 * cleans to nothing). */
static char *clean_path(char *path)
{
	size_t n = strlen(path), r = 0, w = 0, floor = 0;
	bool rooted = n > 0 && path[0] == '/';
	char *out;

	if (n == 0)
		return path;
	out = sp_xmalloc(n + 2);
	if (rooted) {
		out[w++] = '/';
		r = floor = 1;
	}
	while (r < n) {
		size_t e = r;

		while (e < n && path[e] != '/')
			e++;
		if (e == r || (e - r == 1 && path[r] == '.')) {
			/* empty or "." element */
		} else if (e - r == 2 && path[r] == '.' && path[r + 1] == '.') {
			if (w > floor) {
				/* back to the previous separator */
				while (w > floor && out[w - 1] != '/')
					w--;
				if (w > floor)
					w--;
			} else if (!rooted) {
				/* nothing to remove: keep the ".." */
				if (w > 0)
					out[w++] = '/';
				out[w++] = '.';
				out[w++] = '.';
				floor = w;
			}
		} else {
			if (w > (rooted ? 1u : 0u))
				out[w++] = '/';
			memcpy(out + w, path + r, e - r);
			w += e - r;
		}
		r = e + 1;
	}
	if (w == 0)
		out[w++] = '.';
	out[w] = '\0';
	free(path);
	return out;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

char *sp_report_address_name(const sp_profile *p, const sp_location *l)
{
	const sp_mapping *m = l->mapping_id ? sp_profile_mapping(p, l->mapping_id) : NULL;
	const char *file = m ? sp_profile_str(p, m->filename) : "";

	if (file[0])
		return sp_xasprintf("0x%llx [%s]", (unsigned long long)l->address,
				    base_name(file));
	return sp_xasprintf("0x%llx", (unsigned long long)l->address);
}

/* pprof's graph labels shorten function names (ShortenFunctionName) and
 * put each qualifier on its own line.  The patterns, in POSIX form:
 *   Java  "pkg.sub.Class.method(..." => "Class.method"
 *   C++   "ns::sub::Class::method<T>..." => "Class::method<T>"
 *   Go    "example.com/a/b.Func" => "b.Func", "/vN" major versions dropped
 */
typedef struct {
	regex_t java, cpp;
} shortener;

static void shortener_init(shortener *s)
{
	int rc = regcomp(&s->java,
			 "^([a-z][[:alnum:]_]*\\.)*([A-Z][[:alnum:]_$]*\\.(<init>|[a-z][[:alnum:]_$]*"
			 "(\\$[0-9]+)?))(\\(|$)",
			 REG_EXTENDED);

	rc |= regcomp(&s->cpp,
		      "^([_a-zA-Z][[:alnum:]_]*::)+(_*[A-Z][[:alnum:]_]*::~?[_a-zA-Z][[:alnum:]_]*"
		      "(<.*>)?)",
		      REG_EXTENDED);
	if (rc)
		abort(); /* constant patterns */
}

static void shortener_free(shortener *s)
{
	regfree(&s->java);
	regfree(&s->cpp);
}

static bool go_path_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.';
}

/* Drops the first "/vN" (N >= 2) that is followed by '.' or '/'. */
static void drop_go_major_version(char *f)
{
	for (char *v = strstr(f, "/v"); v; v = strstr(v + 1, "/v")) {
		char *d = v + 2, *e = d;

		while (*e >= '0' && *e <= '9')
			e++;
		if (e == d || (e - d == 1 && *d < '2') || (e - d > 1 && *d == '0'))
			continue;
		if (*e != '.' && *e != '/')
			continue;
		memmove(v, e, strlen(e) + 1);
		return;
	}
}

static char *shorten_function_name(const shortener *s, const char *name)
{
	static const char anon[] = "(anonymous namespace)::";
	char *f = sp_xstrdup(strncmp(name, anon, sizeof(anon) - 1) ? name
								     : name + sizeof(anon) - 1);
	const char *rest = NULL;
	regmatch_t m[6];

	drop_go_major_version(f);
	/* Go: everything after the last "path/" prefix, if something is left. */
	for (const char *c = f;;) {
		const char *seg = c;

		while (go_path_char(*c))
			c++;
		if (c == seg || *c != '/')
			break;
		c++;
		if (*c)
			rest = c;
	}
	if (rest) {
		char *r = sp_xstrdup(rest);

		free(f);
		return r;
	}
	if (!regexec(&s->java, f, 6, m, 0) && m[2].rm_so >= 0) {
		char *r = sp_xstrndup(f + m[2].rm_so, (size_t)(m[2].rm_eo - m[2].rm_so));

		free(f);
		return r;
	}
	if (!regexec(&s->cpp, f, 6, m, 0) && m[2].rm_so >= 0) {
		char *r = sp_xstrndup(f + m[2].rm_so, (size_t)(m[2].rm_eo - m[2].rm_so));

		free(f);
		return r;
	}
	return f;
}

/* The shortened name with "::" and "." turned into line breaks (a Go
 * "[...]" type parameter list is kept, as "[…]"). */
static char *multiline_name(const shortener *s, const char *name)
{
	char *f = shorten_function_name(s, name);
	sp_buf b = {0};

	for (const char *c = f; *c;) {
		if (!strncmp(c, "::", 2)) {
			sp_buf_puts(&b, "\n");
			c += 2;
		} else if (!strncmp(c, "[...]", 5)) {
			sp_buf_puts(&b, "[\xe2\x80\xa6]");
			c += 5;
		} else if (*c == '.') {
			sp_buf_puts(&b, "\n");
			c++;
		} else {
			sp_buf_append(&b, c, 1);
			c++;
		}
	}
	free(f);
	return b.len ? sp_buf_take(&b) : sp_xstrdup("");
}

/* The names of a frame whose function is FNAME in FILE (see below); OBJ is
 * the file of the location's mapping. */
static void frame_names(const sp_line *ln, const char *fname, const char *file,
			const char *obj, sp_granularity g, const shortener *sh, char **first,
			char **second, char **label)
{
	switch (g) {
	case SP_GRAN_FILES:
		if (file[0])
			*first = sp_xstrdup(file);
		else if (obj[0])
			*first = sp_xasprintf("[%s]", base_name(obj));
		else
			*first = sp_xstrdup("<unknown>");
		*label = sp_xstrdup(file[0] ? base_name(file) : *first);
		return;
	case SP_GRAN_LINES: {
		char *where = NULL, *name;

		if (ln->line != 0) {
			*second = sp_xasprintf("%s:%lld", file, (long long)ln->line);
			where = sp_xasprintf("%s:%lld", base_name(file), (long long)ln->line);
		} else if (file[0]) {
			*second = sp_xstrdup(file);
			where = sp_xstrdup(base_name(file));
		}
		if (fname[0]) {
			*first = sp_xstrdup(fname);
			name = multiline_name(sh, fname);
			*label = where ? sp_xasprintf("%s\n%s", name, where) : sp_xstrdup(name);
			free(name);
		} else {
			*first = *second ? *second : sp_xstrdup("<unknown>");
			*second = NULL;
			*label = where ? sp_xstrdup(where) : sp_xstrdup("<unknown>");
		}
		free(where);
		return;
	}
	case SP_GRAN_FUNCTIONS:
	default:
		*first = sp_xstrdup(fname[0] ? fname : "<unknown>");
		*label = fname[0] ? multiline_name(sh, fname) : sp_xstrdup("<unknown>");
		return;
	}
}

/* Name components of one frame at granularity G: *FIRST (function, file or
 * address) and *SECOND (file:line for lines, else NULL), the graph label
 * (*LABEL: multi-line shortened name, file base names), and *TIE: what else
 * tells two nodes of one name apart.  pprof keys a node by more than its
 * name when the name has no function in it (files): the function's start
 * line and the mapping's file stay in the key, so each function of a file
 * is a node of its own, ordered by start line among equals ("%d 0 %s", as
 * Go prints those fields of the node's key). */
static void frame_components(const sp_profile *p, const sp_location *l, size_t li,
			     sp_granularity g, const shortener *sh, char **first, char **second,
			     char **label, char **tie)
{
	const sp_line *ln;
	const sp_function *f;
	const sp_mapping *m;
	char *fname, *file;
	const char *obj;

	*second = NULL;
	*tie = NULL;
	if (l->n_lines == 0) {
		*first = sp_report_clean_name(sp_report_address_name(p, l));
		*label = sp_xstrdup(*first);
		return;
	}
	ln = &l->lines[li];
	f = ln->function_id ? sp_profile_function(p, ln->function_id) : NULL;
	fname = sp_report_clean_name(sp_xstrdup(f ? sp_profile_str(p, f->name) : ""));
	file = sp_report_clean_name(sp_xstrdup(f ? sp_profile_str(p, f->filename) : ""));
	file = clean_path(file);
	m = l->mapping_id ? sp_profile_mapping(p, l->mapping_id) : NULL;
	obj = m ? sp_profile_str(p, m->filename) : "";
	if (g == SP_GRAN_FILES)
		*tie = sp_xasprintf("%lld 0 %s", (long long)(f ? f->start_line : 0), obj);
	frame_names(ln, fname, file, obj, g, sh, first, second, label);
	free(fname);
	free(file);
}

/* -- sample filter ----------------------------------------------------------- */

struct sp_sample_filter {
	const sp_profile *p;
	bool *focus;  /* per location index; NULL => no focus */
	bool *ignore; /* per location index; NULL => no ignore */
};

static sp_error *compile_re(const char *what, const char *src, regex_t *re)
{
	int rc = regcomp(re, src, REG_EXTENDED | REG_NOSUB);
	char msg[256];

	if (rc == 0)
		return NULL;
	regerror(rc, re, msg, sizeof(msg));
	return sp_error_new(SP_E_USAGE, "%s: invalid regular expression \"%s\": %s", what, src,
			    msg);
}

/* pprof's Location.matchesName: a function name or file of any inline
 * frame, or the mapping's file; unsymbolized locations also by address. */
static bool location_matches(const sp_profile *p, const sp_location *l, const regex_t *re)
{
	const sp_mapping *m = l->mapping_id ? sp_profile_mapping(p, l->mapping_id) : NULL;

	for (size_t i = 0; i < l->n_lines; i++) {
		const sp_function *f = sp_profile_function(p, l->lines[i].function_id);

		if (f && (!regexec(re, sp_profile_str(p, f->name), 0, NULL, 0) ||
			  !regexec(re, sp_profile_str(p, f->filename), 0, NULL, 0)))
			return true;
	}
	if (m && !regexec(re, sp_profile_str(p, m->filename), 0, NULL, 0))
		return true;
	if (l->n_lines == 0) {
		char *name = sp_report_address_name(p, l);
		bool hit = !regexec(re, name, 0, NULL, 0);

		free(name);
		return hit;
	}
	return false;
}

static bool *match_locations(const sp_profile *p, const regex_t *re)
{
	bool *v = sp_xcalloc(p->n_locations ? p->n_locations : 1, sizeof(*v));

	for (size_t i = 0; i < p->n_locations; i++)
		v[i] = location_matches(p, &p->locations[i], re);
	return v;
}

sp_error *sp_sample_filter_new(const sp_profile *p, const sp_report_options *o,
			       sp_sample_filter **out)
{
	sp_sample_filter *f = sp_xcalloc(1, sizeof(*f));
	regex_t re;
	sp_error *err;

	f->p = p;
	if (o && o->focus && o->focus[0]) {
		if ((err = compile_re("focus", o->focus, &re)))
			goto fail;
		f->focus = match_locations(p, &re);
		regfree(&re);
	}
	if (o && o->ignore && o->ignore[0]) {
		if ((err = compile_re("ignore", o->ignore, &re)))
			goto fail;
		f->ignore = match_locations(p, &re);
		regfree(&re);
	}
	*out = f;
	return NULL;
fail:
	sp_sample_filter_free(f);
	return err;
}

static size_t location_index(const sp_profile *p, uint64_t id)
{
	const sp_location *l = sp_profile_location(p, id);

	return l ? (size_t)(l - p->locations) : NONE;
}

bool sp_sample_filter_keep(const sp_sample_filter *f, const sp_sample *s)
{
	bool focused = !f->focus;

	if (!f->focus && !f->ignore)
		return true;
	for (size_t i = 0; i < s->n_locations; i++) {
		size_t li = location_index(f->p, s->location_ids[i]);

		if (li == NONE)
			continue;
		if (f->ignore && f->ignore[li])
			return false;
		if (f->focus && f->focus[li])
			focused = true;
	}
	return focused;
}

void sp_sample_filter_free(sp_sample_filter *f)
{
	if (!f)
		return;
	free(f->focus);
	free(f->ignore);
	free(f);
}

/* -- graph building ---------------------------------------------------------- */

typedef struct {
	int64_t flat, cum;
	size_t stamp;
} gnode;

typedef struct {
	size_t src, dst;
	int64_t weight;
	size_t stamp;
	bool residual, is_inline, removed;
} gedge;

typedef struct {
	const sp_profile *p;
	size_t si;
	sp_sample_filter *filter;
	/* node keys */
	char **names, **labels, **ties; /* ties: see frame_components; "" if none */
	size_t n_keys, cap_keys, cap_labels, cap_ties;
	sp_idxset key_set;
	/* per location index: its node keys, outermost last (as lines) */
	size_t *loc_off, *loc_cnt, *loc_nodes;
	size_t n_loc_nodes, cap_loc_nodes;
	/* the location indices of sample i (leaf first) are
	 * frames[frame_off[i] .. frame_off[i + 1]]; filtered-out and zero
	 * samples have none */
	uint32_t *frames;
	size_t *frame_off;
	/* graphs only: the tags of sample i are tag_ids[tag_off[i] ..
	 * tag_off[i + 1]] (see sample_tags) */
	size_t *tag_ids, *tag_off;
	size_t n_tags; /* distinct tags */
	sp_u64map tag_map; /* node * n_tags + tag -> index into tag_vals */
	int64_t (*tag_vals)[2]; /* flat, cum */
	size_t *tag_node;         /* the node of each tag_vals entry */
	size_t *tag_tag;          /* the tag of each tag_vals entry */
	size_t n_tag_vals, cap_tag_vals, cap_tag_node, cap_tag_tag;
	/* per tag id: 'L' (string labels) or 'N' (a bytes value); the joined
	 * string labels (the tag's own name for 'L'); the shown name; the
	 * first value seen (for 'N') */
	char *tag_kind;
	char **tag_group, **tag_name;
	int64_t *tag_value;
	/* the current graph */
	gnode *nodes; /* n_keys entries */
	gedge *edges;
	size_t n_edges, cap_edges;
	sp_u64map edge_map;
} builder;

typedef struct {
	builder *b;
	const char *name, *tie;
} key_ctx;

static bool key_eq(void *ctx, size_t idx)
{
	key_ctx *k = ctx;

	return !strcmp(k->b->names[idx], k->name) && !strcmp(k->b->ties[idx], k->tie);
}

/* Interns a node for components FIRST/SECOND, TIE (may be NULL) and LABEL
 * (all consumed). */
static size_t intern_node(builder *b, char *first, char *second, char *tie, char *label)
{
	char *name = second ? sp_xasprintf("%s %s", first, second) : sp_xstrdup(first);
	if (!tie)
		tie = sp_xstrdup("");
	uint64_t h = sp_hash_combine(sp_hash_bytes(name, strlen(name), 7),
				     sp_hash_bytes(tie, strlen(tie), 7));
	key_ctx k = {b, name, tie};
	size_t idx = sp_idxset_find(&b->key_set, h, key_eq, &k);

	if (idx != SIZE_MAX) {
		free(name);
		free(first);
		free(second);
		free(tie);
		free(label);
		return idx;
	}
	idx = b->n_keys;
	sp_grow(&b->names, &b->cap_keys, idx + 1, sizeof(*b->names));
	sp_grow(&b->labels, &b->cap_labels, idx + 1, sizeof(*b->labels));
	sp_grow(&b->ties, &b->cap_ties, idx + 1, sizeof(*b->ties));
	b->names[idx] = name;
	b->labels[idx] = label;
	b->ties[idx] = tie;
	b->n_keys++;
	sp_idxset_add(&b->key_set, h, idx);
	free(first);
	free(second);
	return idx;
}

static void builder_init(builder *b, const sp_profile *p, size_t si, sp_granularity g)
{
	size_t nloc = p->n_locations ? p->n_locations : 1;
	shortener sh;

	memset(b, 0, sizeof(*b));
	shortener_init(&sh);
	b->p = p;
	b->si = si;
	b->loc_off = sp_xcalloc(nloc, sizeof(size_t));
	b->loc_cnt = sp_xcalloc(nloc, sizeof(size_t));
	for (size_t i = 0; i < p->n_locations; i++) {
		const sp_location *l = &p->locations[i];
		size_t n = l->n_lines ? l->n_lines : 1;

		b->loc_off[i] = b->n_loc_nodes;
		b->loc_cnt[i] = n;
		for (size_t li = 0; li < n; li++) {
			char *first, *second, *label, *tie;
			size_t k;

			frame_components(p, l, li, g, &sh, &first, &second, &label, &tie);
			k = intern_node(b, first, second, tie, label);
			SP_PUSH(b->loc_nodes, b->n_loc_nodes, b->cap_loc_nodes, k);
		}
	}
	b->nodes = sp_xcalloc(b->n_keys ? b->n_keys : 1, sizeof(gnode));
	shortener_free(&sh);
}

/* Resolves every kept sample's location ids once for all graph passes. */
static void builder_frames(builder *b)
{
	const sp_profile *p = b->p;
	size_t n = 0, cap = 0;

	b->frame_off = sp_xcalloc(p->n_samples + 1, sizeof(size_t));
	for (size_t si = 0; si < p->n_samples; si++) {
		const sp_sample *s = &p->samples[si];

		b->frame_off[si] = n;
		if (s->values[b->si] == 0 || !sp_sample_filter_keep(b->filter, s))
			continue;
		for (size_t i = 0; i < s->n_locations; i++) {
			size_t li = location_index(p, s->location_ids[i]);

			if (li != NONE)
				SP_PUSH(b->frames, n, cap, (uint32_t)li);
		}
	}
	b->frame_off[p->n_samples] = n;
}

static void builder_free(builder *b)
{
	for (size_t i = 0; i < b->n_keys; i++) {
		free(b->names[i]);
		free(b->labels[i]);
		free(b->ties[i]);
	}
	free(b->names);
	free(b->labels);
	free(b->ties);
	sp_idxset_free(&b->key_set);
	free(b->loc_off);
	free(b->loc_cnt);
	free(b->loc_nodes);
	free(b->frames);
	free(b->frame_off);
	free(b->tag_ids);
	free(b->tag_off);
	free(b->tag_vals);
	free(b->tag_node);
	free(b->tag_tag);
	for (size_t i = 0; i < b->n_tags; i++) {
		free(b->tag_group[i]);
		free(b->tag_name[i]);
	}
	free(b->tag_kind);
	free(b->tag_group);
	free(b->tag_name);
	free(b->tag_value);
	sp_u64map_free(&b->tag_map);
	free(b->nodes);
	free(b->edges);
	sp_u64map_free(&b->edge_map);
	sp_sample_filter_free(b->filter);
}

typedef struct {
	char **v;
	size_t n, cap;
	sp_idxset set;
} strtab;

static bool strtab_eq(void *ctx, size_t idx)
{
	void **c = ctx;

	return !strcmp(((strtab *)c[0])->v[idx], (const char *)c[1]);
}

/* Interns S (consumed). */
static size_t strtab_id(strtab *t, char *s)
{
	uint64_t h = sp_hash_bytes(s, strlen(s), 5);
	void *ctx[2] = {t, s};
	size_t idx = sp_idxset_find(&t->set, h, strtab_eq, ctx);

	if (idx != SIZE_MAX) {
		free(s);
		return idx;
	}
	idx = t->n;
	SP_PUSH(t->v, t->n, t->cap, s);
	sp_idxset_add(&t->set, h, idx);
	return idx;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* pprof's graphs give nodes "tags": one for a sample's string labels
 * ("key:value" sorted and joined) and one per value of its numeric
 * "bytes" label (named by the value with its unit, e.g. "1.50kB").  They
 * are drawn as nodelets (dot.c) and count as nodes against nodecount. */
static void builder_tags(builder *b, const char *unit)
{
	const sp_profile *p = b->p;
	strtab names = {0};
	size_t n = 0, cap = 0, cap_info = 0;

	b->tag_off = sp_xcalloc(p->n_samples + 1, sizeof(size_t));
	for (size_t si = 0; si < p->n_samples; si++) {
		const sp_sample *s = &p->samples[si];
		char **strs = sp_xcalloc(s->n_labels + 1, sizeof(char *));
		size_t ns = 0, id;
		sp_buf joined = {0};

		b->tag_off[si] = n;
		if (b->frame_off[si] == b->frame_off[si + 1]) {
			free(strs);
			continue;
		}
		for (size_t i = 0; i < s->n_labels; i++)
			if (s->labels[i].str)
				strs[ns++] = sp_report_clean_name(sp_xasprintf(
					"%s:%s", sp_profile_str(p, s->labels[i].key),
					sp_profile_str(p, s->labels[i].str)));
		qsort(strs, ns, sizeof(char *), cmp_str);
		/* joined with a DOT line break, as pprof shows them */
		sp_buf_puts(&joined, "");
		for (size_t i = 0; i < ns; i++) {
			sp_buf_printf(&joined, "%s%s", i ? "\\n" : "", strs[i]);
			free(strs[i]);
		}
		free(strs);
		if (ns) {
			id = strtab_id(&names, sp_xasprintf("L%s", joined.data));
			SP_PUSH(b->tag_ids, n, cap, id);
			if (id == b->n_tags) {
				sp_grow(&b->tag_kind, &cap_info, id + 1, 1);
				b->tag_group = sp_xreallocarray(b->tag_group, cap_info, sizeof(char *));
				b->tag_name = sp_xreallocarray(b->tag_name, cap_info, sizeof(char *));
				b->tag_value = sp_xreallocarray(b->tag_value, cap_info, sizeof(int64_t));
				b->tag_kind[id] = 'L';
				b->tag_group[id] = sp_xstrdup(joined.data);
				b->tag_name[id] = sp_xstrdup(joined.data);
				b->tag_value[id] = 0;
				b->n_tags++;
			}
		}
		for (size_t i = 0; i < s->n_labels; i++) {
			const sp_label *l = &s->labels[i];
			const char *u = sp_profile_str(p, l->num_unit);
			char *v;

			if (l->str || strcmp(sp_profile_str(p, l->key), "bytes"))
				continue;
			v = scaled_label(l->num, u[0] ? u : "bytes", unit);
			id = strtab_id(&names, sp_xasprintf("N%s\x1f%s", joined.data, v));
			SP_PUSH(b->tag_ids, n, cap, id);
			if (id == b->n_tags) {
				sp_grow(&b->tag_kind, &cap_info, id + 1, 1);
				b->tag_group = sp_xreallocarray(b->tag_group, cap_info, sizeof(char *));
				b->tag_name = sp_xreallocarray(b->tag_name, cap_info, sizeof(char *));
				b->tag_value = sp_xreallocarray(b->tag_value, cap_info, sizeof(int64_t));
				b->tag_kind[id] = 'N';
				b->tag_group[id] = sp_xstrdup(joined.data);
				b->tag_name[id] = v;
				b->tag_value[id] = l->num;
				b->n_tags++;
			} else {
				free(v);
			}
		}
		sp_buf_free(&joined);
	}
	b->tag_off[p->n_samples] = n;
	for (size_t i = 0; i < names.n; i++)
		free(names.v[i]);
	free(names.v);
	sp_idxset_free(&names.set);
}

static void add_tags(builder *b, size_t si, size_t node, int64_t w, int which)
{
	for (size_t i = b->tag_off[si]; i < b->tag_off[si + 1]; i++) {
		uint64_t key = (uint64_t)node * b->n_tags + b->tag_ids[i], idx;

		if (!sp_u64map_get(&b->tag_map, key, &idx)) {
			idx = b->n_tag_vals++;
			sp_grow(&b->tag_vals, &b->cap_tag_vals, idx + 1, sizeof(*b->tag_vals));
			sp_grow(&b->tag_node, &b->cap_tag_node, idx + 1, sizeof(*b->tag_node));
			sp_grow(&b->tag_tag, &b->cap_tag_tag, idx + 1, sizeof(*b->tag_tag));
			b->tag_vals[idx][0] = b->tag_vals[idx][1] = 0;
			b->tag_node[idx] = node;
			b->tag_tag[idx] = b->tag_ids[i];
			sp_u64map_put(&b->tag_map, key, idx);
		}
		b->tag_vals[idx][which] += w;
	}
}

/* How many of the ordered nodes fit in NODECOUNT when each also counts
 * its tags with flat weight (at most 4), tags below CUTOFF ignored. */
static size_t select_count(const builder *b, const size_t *order, size_t n, size_t nodecount,
			   int64_t cutoff)
{
	size_t *tags = sp_xcalloc(b->n_keys + 1, sizeof(size_t)), count = 0, limit = nodecount;

	for (size_t i = 0; i < b->n_tag_vals; i++) {
		int64_t flat = b->tag_vals[i][0], cum = b->tag_vals[i][1];

		if (flat != 0 && (abs64(flat) >= cutoff || abs64(cum) >= cutoff))
			tags[b->tag_node[i]]++;
	}
	for (size_t i = 0; i < n; i++) {
		count += (tags[order[i]] > 4 ? 4 : tags[order[i]]) + 1;
		if (count >= nodecount) {
			limit = i + 1;
			break;
		}
	}
	free(tags);
	return limit < n ? limit : n;
}

/* Adds W to the edge SRC->DST once per sample (STAMP). */
static void add_edge(builder *b, size_t src, size_t dst, int64_t w, size_t stamp,
		     bool residual, bool is_inline)
{
	uint64_t key = (uint64_t)src * b->n_keys + dst, idx;
	gedge *e;

	if (!sp_u64map_get(&b->edge_map, key, &idx)) {
		idx = b->n_edges;
		SP_PUSH(b->edges, b->n_edges, b->cap_edges,
			((gedge){.src = src, .dst = dst, .residual = residual,
				 .is_inline = is_inline}));
		sp_u64map_put(&b->edge_map, key, idx);
	} else if (b->edges[idx].stamp != stamp) {
		if (residual)
			b->edges[idx].residual = true;
		if (!is_inline)
			b->edges[idx].is_inline = false;
	}
	e = &b->edges[idx];
	if (e->stamp == stamp)
		return;
	e->stamp = stamp;
	e->weight += w;
}

/* Rebuilds the graph from the samples, keeping only KEPT nodes (NULL: all). */
static void build_graph(builder *b, const bool *kept)
{
	const sp_profile *p = b->p;

	memset(b->nodes, 0, (b->n_keys ? b->n_keys : 1) * sizeof(gnode));
	b->n_edges = 0;
	sp_u64map_free(&b->edge_map);
	memset(&b->edge_map, 0, sizeof(b->edge_map));
	b->n_tag_vals = 0;
	sp_u64map_free(&b->tag_map);
	memset(&b->tag_map, 0, sizeof(b->tag_map));

	for (size_t si = 0; si < p->n_samples; si++) {
		const sp_sample *s = &p->samples[si];
		int64_t w = s->values[b->si];
		size_t stamp = si + 1, parent = NONE;
		bool residual = false;

		for (size_t i = b->frame_off[si + 1]; i-- > b->frame_off[si];) {
			size_t li = b->frames[i];

			for (size_t ni = b->loc_cnt[li]; ni-- > 0;) {
				size_t n = b->loc_nodes[b->loc_off[li] + ni];

				if (kept && !kept[n]) {
					residual = true;
					continue;
				}
				if (b->nodes[n].stamp != stamp) {
					b->nodes[n].stamp = stamp;
					b->nodes[n].cum += w;
					if (b->tag_off)
						add_tags(b, si, n, w, 1);
				}
				if (parent != NONE && parent != n)
					add_edge(b, parent, n, w, stamp, residual,
						 ni + 1 != b->loc_cnt[li]);
				parent = n;
				residual = false;
			}
		}
		if (parent != NONE && !residual) {
			b->nodes[parent].flat += w;
			if (b->tag_off)
				add_tags(b, si, parent, w, 0);
		}
	}
}

static bool in_graph(const builder *b, size_t n)
{
	return b->nodes[n].flat != 0 || b->nodes[n].cum != 0;
}

typedef struct {
	const builder *b;
	sp_report_mode mode;
	const int64_t *score; /* graph mode: per node key */
} sort_ctx;

static int cmp_nodes(const void *x, const void *y, void *arg)
{
	const sort_ctx *c = arg;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	const gnode *na = &c->b->nodes[a], *nb = &c->b->nodes[b];
	int64_t fa = abs64(na->flat), fb = abs64(nb->flat);
	int64_t ca = abs64(na->cum), cb = abs64(nb->cum);
	int r;

	if (c->mode == SP_REPORT_TEXT) {
		if (fa != fb)
			return fa > fb ? -1 : 1;
	} else {
		int64_t sa = abs64(c->score[a]), sb = abs64(c->score[b]);

		if (sa != sb)
			return sa > sb ? -1 : 1;
	}
	r = strcmp(c->b->names[a], c->b->names[b]);
	if (r)
		return r;
	if (c->mode == SP_REPORT_TEXT) {
		if (ca != cb)
			return ca > cb ? -1 : 1;
	} else {
		if (fa != fb)
			return fa > fb ? -1 : 1;
	}
	if ((r = strcmp(c->b->ties[a], c->b->ties[b])))
		return r;
	return a < b ? -1 : a > b;
}

static double entropy_term(int64_t w, int64_t total)
{
	double frac = (double)abs64(w) / (double)total;

	return frac > 0 ? -frac * log2(frac) : 0;
}

/* pprof's entropy score: cum weighted by how much the node's incoming and
 * outgoing edges branch (a node that merely passes its caller's weight on
 * to one callee scores low), plus flat.  Entry and leaf nodes count one
 * for the missing side. */
static int64_t *entropy_scores(const builder *b)
{
	size_t n = b->n_keys + 1;
	int64_t *in_total = sp_xcalloc(n, sizeof(int64_t)), *out_total;
	double *in_score = sp_xcalloc(n, sizeof(double)), *out_score;
	size_t *in_n = sp_xcalloc(n, sizeof(size_t)), *out_n;
	int64_t *score = sp_xcalloc(n, sizeof(int64_t));

	out_total = sp_xcalloc(n, sizeof(int64_t));
	out_score = sp_xcalloc(n, sizeof(double));
	out_n = sp_xcalloc(n, sizeof(size_t));
	for (size_t k = 0; k < b->n_keys; k++)
		out_total[k] = b->nodes[k].flat;
	for (size_t i = 0; i < b->n_edges; i++) {
		const gedge *e = &b->edges[i];

		if (e->removed)
			continue;
		in_n[e->dst]++;
		out_n[e->src]++;
		if (e->weight > 0) {
			in_total[e->dst] += e->weight;
			out_total[e->src] += e->weight;
		}
	}
	for (size_t i = 0; i < b->n_edges; i++) {
		const gedge *e = &b->edges[i];

		if (e->removed)
			continue;
		if (in_total[e->dst] != 0)
			in_score[e->dst] += entropy_term(e->weight, in_total[e->dst]);
		if (out_total[e->src] != 0)
			out_score[e->src] += entropy_term(e->weight, out_total[e->src]);
	}
	for (size_t k = 0; k < b->n_keys; k++) {
		double sc = 0;
		int64_t flat = b->nodes[k].flat;

		sc += in_n[k] == 0 ? 1 : in_score[k];
		if (out_n[k] == 0)
			sc += 1;
		else
			sc += out_score[k] + (flat > 0 && out_total[k] != 0
						      ? entropy_term(flat, out_total[k])
						      : 0);
		score[k] = (int64_t)(sc * (double)b->nodes[k].cum) + flat;
	}
	free(in_total);
	free(out_total);
	free(in_score);
	free(out_score);
	free(in_n);
	free(out_n);
	return score;
}

/* The graph's nodes in report order; *N gets their number. */
static size_t *sorted_nodes(const builder *b, sp_report_mode mode, size_t *n)
{
	size_t *v = sp_xcalloc(b->n_keys ? b->n_keys : 1, sizeof(*v)), k = 0;
	sort_ctx c = {b, mode, NULL};
	int64_t *score = mode == SP_REPORT_GRAPH ? entropy_scores(b) : NULL;

	c.score = score;
	for (size_t i = 0; i < b->n_keys; i++)
		if (in_graph(b, i))
			v[k++] = i;
	qsort_r(v, k, sizeof(*v), cmp_nodes, &c);
	free(score);
	*n = k;
	return v;
}

/* Drops edges lighter than CUTOFF; returns how many. */
static size_t trim_edges(builder *b, int64_t cutoff)
{
	size_t dropped = 0;

	for (size_t i = 0; i < b->n_edges; i++) {
		gedge *e = &b->edges[i];

		if (!e->removed && abs64(e->weight) < cutoff) {
			e->removed = true;
			dropped++;
		}
	}
	return dropped;
}

/* pprof's edge order: heavier first, then by source and destination name. */
static int cmp_edges(const void *x, const void *y, void *arg)
{
	const builder *b = arg;
	const gedge *ea = &b->edges[*(const size_t *)x], *eb = &b->edges[*(const size_t *)y];
	int r;

	if (abs64(ea->weight) != abs64(eb->weight))
		return abs64(ea->weight) > abs64(eb->weight) ? -1 : 1;
	if ((r = strcmp(b->names[ea->src], b->names[eb->src])))
		return r;
	return strcmp(b->names[ea->dst], b->names[eb->dst]);
}

/* True when DST can be reached from SRC without edge SKIP. */
static bool reachable_without(const builder *b, size_t skip, size_t *queue, bool *seen)
{
	size_t src = b->edges[skip].src, head = 0, tail = 0;
	bool found = false;

	memset(seen, 0, b->n_keys * sizeof(*seen));
	queue[tail++] = b->edges[skip].dst;
	seen[b->edges[skip].dst] = true;
	while (head < tail && !found) {
		size_t n = queue[head++];

		for (size_t i = 0; i < b->n_edges; i++) {
			const gedge *e = &b->edges[i];

			if (i == skip || e->removed || e->dst != n || seen[e->src])
				continue;
			if (e->src == src) {
				found = true;
				break;
			}
			seen[e->src] = true;
			queue[tail++] = e->src;
		}
	}
	return found;
}

/* pprof's RemoveRedundantEdges: from the lightest node up, drop residual
 * incoming edges (lightest first, stopping at the first ordinary edge) when
 * their destination is reachable another way. */
static void remove_redundant_edges(builder *b, const size_t *order, size_t n)
{
	size_t *in = sp_xcalloc(b->n_edges + 1, sizeof(*in));
	size_t *queue = sp_xcalloc(b->n_keys + 1, sizeof(*queue));
	bool *seen = sp_xcalloc(b->n_keys + 1, sizeof(*seen));

	for (size_t i = n; i-- > 0;) {
		size_t k = 0;

		for (size_t e = 0; e < b->n_edges; e++)
			if (!b->edges[e].removed && b->edges[e].dst == order[i])
				in[k++] = e;
		qsort_r(in, k, sizeof(*in), cmp_edges, b);
		for (size_t j = k; j-- > 0;) {
			if (!b->edges[in[j]].residual)
				break;
			if (reachable_without(b, in[j], queue, seen))
				b->edges[in[j]].removed = true;
		}
	}
	free(in);
	free(queue);
	free(seen);
}

/* -- the report ------------------------------------------------------------- */

static void add_header(sp_report *r, char *line)
{
	size_t cap = r->n_headers;

	sp_grow(&r->headers, &cap, r->n_headers + 1, sizeof(*r->headers));
	r->headers[r->n_headers++] = line;
}

/* "Time: Jan 2, 2006 at 3:04pm (MST)" in local time, as pprof prints a
 * profile's time_nanos. */
static char *time_line(int64_t ns)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;
	char buf[96];

	if (ns < 0 && ns % 1000000000)
		t--;
	if (!localtime_r(&t, &tm) ||
	    !strftime(buf, sizeof(buf), "%b %-d, %Y at %-I:%M%P (%Z)", &tm))
		return sp_xasprintf("Time: %lld ns", (long long)ns);
	return sp_xasprintf("Time: %s", buf);
}

/* pprof's "Duration: 6s, Total samples = 1.22s (20.30%)": the share is
 * there only when the samples are times (the space before it stays). */
static char *duration_line(const sp_report *r, int64_t duration)
{
	const char *unit;
	double ns = scale(r->total, r->sample_unit, "nanoseconds", &unit);
	char *d = scaled_label(duration, "nanoseconds", "auto");
	char *total = sp_report_value(r, r->total);
	char pct[16], *ratio, *line;

	if (!strcmp(unit, "ns") && ns != 0)
		ratio = sp_xasprintf("(%s)", sp_report_pct((int64_t)ns, duration, pct));
	else
		ratio = sp_xstrdup("");
	line = sp_xasprintf("Duration: %s, Total samples = %s %s", d, total, ratio);
	free(d);
	free(total);
	free(ratio);
	return line;
}

/* The profile's lines of the legend (pprof's ProfileLabels) and the active
 * filters; after the output unit is chosen, which the total is shown in. */
static void make_headers(sp_report *r, const sp_report_options *o)
{
	const sp_profile *p = r->p;

	if (p->n_mappings > 0) {
		const char *file = sp_profile_str(p, p->mappings[0].filename);
		const char *bid = sp_profile_str(p, p->mappings[0].build_id);

		if (file[0])
			add_header(r, sp_xasprintf("File: %s", base_name(file)));
		if (bid[0])
			add_header(r, sp_xasprintf("Build ID: %s", bid));
	}
	for (size_t i = 0; i < p->n_comments; i++) {
		const char *c = sp_profile_str(p, p->comments[i]);

		if (c[0] != '#')
			add_header(r, sp_xstrdup(c));
	}
	if (r->sample_type[0])
		add_header(r, sp_xasprintf("Type: %s", r->sample_type));
	if (p->time_nanos != 0)
		add_header(r, time_line(p->time_nanos));
	if (p->duration_nanos != 0)
		add_header(r, duration_line(r, p->duration_nanos));
	if ((o->focus && o->focus[0]) || (o->ignore && o->ignore[0])) {
		add_header(r, sp_xstrdup("Active filters:"));
		if (o->focus && o->focus[0])
			add_header(r, sp_xasprintf("   focus=%s", o->focus));
		if (o->ignore && o->ignore[0])
			add_header(r, sp_xasprintf("   ignore=%s", o->ignore));
	}
}

/* pprof's selectOutputUnit: the unit of the smallest nonzero node value,
 * moved up one unit when that is 100 times smaller than the total. */
static char *select_output_unit(const sp_report *r)
{
	int64_t minv = 0, maxv = r->total;
	const char *minu, *maxu, *u;

	if (r->n_nodes == 0)
		return sp_xstrdup("minimum"); /* each value in its own unit */
	for (size_t i = 0; i < r->n_nodes; i++) {
		int64_t v = abs64(r->nodes[i].flat);

		if (v == 0)
			v = abs64(r->nodes[i].cum);
		if (v > 0 && (minv == 0 || v < minv))
			minv = v;
	}
	if (minv == 0)
		minv = maxv;
	scale(minv, r->sample_unit, "minimum", &minu);
	scale(maxv, r->sample_unit, "minimum", &maxu);
	u = minu;
	if (strcmp(minu, maxu) && minv * 100 < maxv)
		scale(100 * minv, r->sample_unit, "minimum", &u);
	return sp_xstrdup(u[0] ? u : r->sample_unit);
}

sp_error *sp_report_new(const sp_profile *p, const sp_report_options *opts,
			sp_report_mode mode, sp_report **out)
{
	sp_report_options o;
	sp_report *r;
	builder b;
	sp_error *err;
	size_t *order, n, *pos;
	bool *kept = NULL, edges_trimmed = false;
	int64_t flat_total = 0, node_cutoff, edge_cutoff;

	if (opts)
		o = *opts;
	else
		sp_report_options_init(&o);
	if ((err = sp_profile_check(p, "report")))
		return err;
	if (o.sample_index >= p->n_sample_types)
		return sp_error_new(SP_E_USAGE,
				    "report: sample index %zu out of range (profile has %zu "
				    "sample types)",
				    o.sample_index, p->n_sample_types);

	r = sp_xcalloc(1, sizeof(*r));
	r->p = p;
	r->sample_index = o.sample_index;
	r->sample_type = sp_profile_str(p, p->sample_types[o.sample_index].type);
	r->sample_unit = sp_profile_str(p, p->sample_types[o.sample_index].unit);
	r->nodefraction = o.nodefraction < 0 ? 0.005 : o.nodefraction;
	r->edgefraction = o.edgefraction < 0 ? 0.001 : o.edgefraction;
	/* pprof's defaults: every node for the table, 80 for graphs. */
	if (o.nodecount == 0)
		r->nodecount = mode == SP_REPORT_TEXT ? -1 : 80;
	else
		r->nodecount = o.nodecount;
	for (size_t i = 0; i < p->n_samples; i++)
		r->total += abs64(p->samples[i].values[o.sample_index]);

	builder_init(&b, p, o.sample_index, o.granularity);
	if ((err = sp_sample_filter_new(p, &o, &b.filter))) {
		builder_free(&b);
		sp_report_free(r);
		return err;
	}
	builder_frames(&b);
	if (mode == SP_REPORT_GRAPH)
		builder_tags(&b, o.unit && o.unit[0] ? o.unit : "minimum");
	kept = sp_xcalloc(b.n_keys + 1, sizeof(*kept));

	/* 1: everything; drop nodes below the node fraction of the graph. */
	build_graph(&b, NULL);
	for (size_t i = 0; i < b.n_keys; i++)
		flat_total += b.nodes[i].flat;
	node_cutoff = abs64((int64_t)((double)flat_total * r->nodefraction));
	edge_cutoff = abs64((int64_t)((double)flat_total * r->edgefraction));
	if (node_cutoff > 0) {
		size_t before = 0, after = 0;

		for (size_t i = 0; i < b.n_keys; i++) {
			if (!in_graph(&b, i))
				continue;
			before++;
			kept[i] = abs64(b.nodes[i].cum) >= node_cutoff;
			after += kept[i];
		}
		r->dropped_nodes = before - after;
		build_graph(&b, kept);
	}

	/* 2: the first NODECOUNT nodes of the report order. */
	order = sorted_nodes(&b, mode, &n);
	r->orig_count = n;
	if (r->nodecount > 0) {
		/* As pprof does, edges are trimmed before the selection; if
		 * the graph is not rebuilt they are not counted again. */
		trim_edges(&b, edge_cutoff);
		edges_trimmed = true;
		size_t limit = (size_t)r->nodecount < n ? (size_t)r->nodecount : n;

		if (mode == SP_REPORT_GRAPH)
			limit = select_count(&b, order, n, (size_t)r->nodecount, node_cutoff);
		if (limit < n) {
			memset(kept, 0, b.n_keys + 1);
			for (size_t i = 0; i < limit; i++)
				kept[order[i]] = true;
			build_graph(&b, kept);
			edges_trimmed = false;
			free(order);
			order = sorted_nodes(&b, mode, &n);
		}
	}

	/* 3: light edges, then (graphs) redundant residual edges. */
	{
		size_t d = trim_edges(&b, edge_cutoff);

		r->dropped_edges = edges_trimmed ? 0 : d;
	}
	if (mode == SP_REPORT_GRAPH)
		remove_redundant_edges(&b, order, n);

	/* Copy out in report order. */
	pos = sp_xcalloc(b.n_keys + 1, sizeof(*pos));
	r->nodes = sp_xcalloc(n + 1, sizeof(*r->nodes));
	r->n_nodes = n;
	for (size_t i = 0; i < n; i++) {
		size_t k = order[i];

		pos[k] = i;
		r->nodes[i].name = sp_xstrdup(b.names[k]);
		r->nodes[i].label = sp_xstrdup(b.labels[k]);
		r->nodes[i].flat = b.nodes[k].flat;
		r->nodes[i].cum = b.nodes[k].cum;
	}
	r->edges = sp_xcalloc(b.n_edges + 1, sizeof(*r->edges));
	for (size_t i = 0; i < b.n_edges; i++) {
		const gedge *e = &b.edges[i];
		sp_redge *re;

		if (e->removed || !in_graph(&b, e->src) || !in_graph(&b, e->dst))
			continue;
		re = &r->edges[r->n_edges++];
		*re = (sp_redge){pos[e->src], pos[e->dst], e->weight, e->residual, e->is_inline};
		if (e->is_inline)
			r->nodes[re->dst].in_inline = true;
		else
			r->nodes[re->dst].in_call = true;
		r->nodes[re->src].has_out = true;
	}
	/* Tags of the kept nodes, without those below the node cutoff. */
	for (size_t i = 0; i < b.n_tag_vals; i++) {
		int64_t flat = b.tag_vals[i][0], cum = b.tag_vals[i][1];
		size_t k = b.tag_node[i], t = b.tag_tag[i];
		sp_rnode *nd;

		if (!in_graph(&b, k) || (abs64(flat) < node_cutoff && abs64(cum) < node_cutoff))
			continue;
		nd = &r->nodes[pos[k]];
		nd->tags = sp_xreallocarray(nd->tags, nd->n_tags + 1, sizeof(*nd->tags));
		nd->tags[nd->n_tags++] = (sp_rtag){
			.kind = b.tag_kind[t],
			.group = sp_xstrdup(b.tag_group[t]),
			.name = sp_xstrdup(b.tag_name[t]),
			.value = b.tag_value[t],
			.flat = flat,
			.cum = cum,
		};
	}
	/* Edges by source, heavier first, then destination. */
	for (size_t i = 1; i < r->n_edges; i++) {
		sp_redge t = r->edges[i];
		size_t j = i;

		while (j > 0) {
			const sp_redge *q = &r->edges[j - 1];
			bool after = q->src > t.src ||
				     (q->src == t.src && (abs64(q->weight) < abs64(t.weight) ||
							  (abs64(q->weight) == abs64(t.weight) &&
							   q->dst > t.dst)));

			if (!after)
				break;
			r->edges[j] = r->edges[j - 1];
			j--;
		}
		r->edges[j] = t;
	}
	free(pos);
	free(order);
	free(kept);
	builder_free(&b);

	if (o.unit && o.unit[0])
		r->output_unit = sp_xstrdup(o.unit);
	else
		r->output_unit = select_output_unit(r);
	make_headers(r, &o);
	*out = r;
	return NULL;
}

void sp_report_free(sp_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_headers; i++)
		free(r->headers[i]);
	free(r->headers);
	for (size_t i = 0; i < r->n_nodes; i++) {
		free(r->nodes[i].name);
		free(r->nodes[i].label);
		for (size_t t = 0; t < r->nodes[i].n_tags; t++) {
			free(r->nodes[i].tags[t].group);
			free(r->nodes[i].tags[t].name);
		}
		free(r->nodes[i].tags);
	}
	free(r->nodes);
	free(r->edges);
	free(r->output_unit);
	free(r);
}

static char *dropped_line(const sp_report *r, size_t d, const char *what, const char *key,
			  double fraction)
{
	char *v = sp_report_value(r, abs64((int64_t)((double)r->total * fraction)));
	char *s = sp_xasprintf("Dropped %zu %s%s (%s <= %s)", d, what, d > 1 ? "s" : "", key, v);

	free(v);
	return s;
}

char **sp_report_legend(const sp_report *r, size_t *n)
{
	char **v = sp_xcalloc(r->n_headers + 5, sizeof(*v));
	size_t k = 0;
	int64_t flat_sum = 0;
	char pct[16], *a, *b;

	for (size_t i = 0; i < r->n_headers; i++)
		v[k++] = sp_xstrdup(r->headers[i]);
	for (size_t i = 0; i < r->n_nodes; i++)
		flat_sum += r->nodes[i].flat;
	a = sp_report_value(r, flat_sum);
	b = sp_report_value(r, r->total);
	v[k++] = sp_xasprintf("Showing nodes accounting for %s, %s of %s total", a,
			      trim_left(sp_report_pct(flat_sum, r->total, pct)), b);
	free(a);
	free(b);
	if (r->total != 0) {
		if (r->dropped_nodes > 0)
			v[k++] = dropped_line(r, r->dropped_nodes, "node", "cum", r->nodefraction);
		if (r->dropped_edges > 0)
			v[k++] = dropped_line(r, r->dropped_edges, "edge", "freq", r->edgefraction);
		if (r->n_nodes > 0 && r->n_nodes < r->orig_count)
			v[k++] = sp_xasprintf("Showing top %zu nodes out of %zu", r->n_nodes,
					      r->orig_count);
	}
	*n = k;
	return v;
}

/* -- top ---------------------------------------------------------------------- */

sp_error *sp_top_write(const sp_profile *p, const sp_report_options *o, sp_sink *out)
{
	sp_report *r;
	sp_error *err;
	char **legend, p1[16], p2[16], p3[16];
	size_t n;
	int64_t flat_sum = 0;

	if ((err = sp_report_new(p, o, SP_REPORT_TEXT, &r)))
		return err;
	/* The text report has no edges to speak of. */
	r->dropped_edges = 0;
	legend = sp_report_legend(r, &n);
	for (size_t i = 0; i < n; i++) {
		sp_sink_printf(out, "%s\n", legend[i]);
		free(legend[i]);
	}
	free(legend);
	sp_sink_printf(out, "%10s %5s%% %5s%% %10s %5s%%\n", "flat", "flat", "sum", "cum", "cum");
	for (size_t i = 0; i < r->n_nodes; i++) {
		const sp_rnode *nd = &r->nodes[i];
		char *fv = sp_report_value(r, nd->flat), *cv = sp_report_value(r, nd->cum);
		const char *inl = "";

		if (nd->in_inline)
			inl = nd->in_call ? " (partial-inline)" : " (inline)";
		flat_sum += nd->flat;
		sp_sink_printf(out, "%10s %s %s %10s %s  %s%s\n", fv,
			       sp_report_pct(nd->flat, r->total, p1),
			       sp_report_pct(flat_sum, r->total, p2), cv,
			       sp_report_pct(nd->cum, r->total, p3), nd->name, inl);
		free(fv);
		free(cv);
	}
	sp_report_free(r);
	return NULL;
}
