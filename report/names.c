/* names.c — the names of report nodes and flame-graph frames.
 *
 * Each location gives one name per inline frame (innermost first), at the
 * chosen granularity: "func" (functions), "func file:line" (lines) or
 * "file" (files); an unsymbolized location is its address, "0x4011a2
 * [libfoo.so]".  Graph labels use pprof's shortened names, one qualifier
 * per line ("ns::Cls::f" => "Cls\nf").  Names come from binaries and JIT
 * maps: bytes that are not printable UTF-8 become '?'.
 */
#include "report/reportp.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>


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

const char *sp_report_base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
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

struct sp_frame_namer {
	const sp_profile *p;
	sp_granularity g;
	shortener sh;
};

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
			*first = sp_xasprintf("[%s]", sp_report_base_name(obj));
		else
			*first = sp_xstrdup("<unknown>");
		*label = sp_xstrdup(file[0] ? sp_report_base_name(file) : *first);
		return;
	case SP_GRAN_LINES: {
		char *where = NULL, *name;

		if (ln->line != 0) {
			*second = sp_xasprintf("%s:%lld", file, (long long)ln->line);
			where = sp_xasprintf("%s:%lld", sp_report_base_name(file), (long long)ln->line);
		} else if (file[0]) {
			*second = sp_xstrdup(file);
			where = sp_xstrdup(sp_report_base_name(file));
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

/* pprof keys a node by more than its name when the name has no function
 * in it (files): the function's start line and the mapping's file stay in
 * the key, so each function of a file is a node of its own, ordered by
 * start line among equals ("%d 0 %s", as Go prints those fields of the
 * node's key). */
void sp_frame_namer_name(const sp_frame_namer *nm, const sp_location *l, size_t li,
			 char **first, char **second, char **label, char **tie)
{
	const sp_profile *p = nm->p;
	sp_granularity g = nm->g;
	const sp_line *ln;
	const sp_function *f;
	const sp_mapping *m;
	char *fname, *file;
	const char *obj;

	*second = NULL;
	*tie = NULL;
	if (l->n_lines == 0) {
		/* one frame per mapping at function granularity; lines keep
		 * each address, as pprof -lines does */
		*first = sp_report_clean_name(sp_location_unresolved_name(
			p, l, !p->group_unresolved || g == SP_GRAN_LINES));
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
	frame_names(ln, fname, file, obj, g, &nm->sh, first, second, label);
	free(fname);
	free(file);
}


sp_frame_namer *sp_frame_namer_new(const sp_profile *p, sp_granularity g)
{
	sp_frame_namer *nm = sp_xcalloc(1, sizeof(*nm));

	nm->p = p;
	nm->g = g;
	shortener_init(&nm->sh);
	return nm;
}

void sp_frame_namer_free(sp_frame_namer *nm)
{
	if (!nm)
		return;
	shortener_free(&nm->sh);
	free(nm);
}
