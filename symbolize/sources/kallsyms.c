/* kallsyms.c — kernel symbol names from a copy of /proc/kallsyms.  Each line
 * is ADDRESS TYPE NAME, with the module in brackets after a tab for symbols
 * of loadable modules:
 *
 *   ffffffff81000000 T _stext
 *   ffffffff81001230 t do_one_initcall
 *   ffffffffc0a01000 t ext4_fill_super	[ext4]
 *
 * Only text symbols (t, T, w, W) are kept, sorted by address; an address
 * resolves to the symbol with the greatest start at or below it.  Symbols
 * have no sizes here, so each reaches the next one and nothing overlaps:
 * the sorted starts are the whole interval table (the other name sources'
 * ranges nest and overlap, and use common/interval.c).  Module
 * symbols are named "name [module]".  A file whose text symbols all sit at
 * address 0 was copied with kptr_restrict in force: it loads empty, names
 * nothing, and says so (sp_kallsyms_restricted).
 *
 * A copy does not say which kernel it is of; files beside it do:
 * FILE.osrelease (that kernel's `uname -r`), FILE.buildid (its build id in
 * hex, as `perf buildid-list` prints it) or FILE.notes (a copy of
 * /sys/kernel/notes, whose GNU build-id note is the kernel's).  For
 * /proc/kallsyms itself the running kernel answers (uname, /sys/kernel/notes).
 */
#include "symbolize/sources/sources.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>

typedef struct {
	uint64_t addr;
	size_t seq;
	const char *name; /* points into K->names */
} ksym;

struct sp_kallsyms {
	bool restricted; /* every text symbol was at address 0 */
	ksym *v;
	size_t n, cap;
	char *names;  /* the file contents, names NUL-terminated in place */
	char **owned; /* "name [module]" strings */
	size_t n_owned, cap_owned;
};

void sp_kallsyms_free(sp_kallsyms *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n_owned; i++)
		free(k->owned[i]);
	free(k->owned);
	free(k->v);
	free(k->names);
	free(k);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static int cmp_ksym(const void *a, const void *b)
{
	const ksym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Parses line [p, end) number LINENO; adds a symbol when it is text. */
static sp_error *parse_line(sp_kallsyms *k, const char *path, size_t lineno, char *p, char *end)
{
	char *s = p, *t;
	while (s < end && is_blank(*s))
		s++;
	for (t = s; t < end && !is_blank(*t); t++)
		;
	uint64_t addr;
	if (!sp_parse_u64(s, t, 16, &addr))
		return sp_error_new(SP_E_MALFORMED, "%s: line %zu: expected hex address, got \"%.*s\"",
				    path, lineno, (int)(t - s), s);
	s = t;
	while (s < end && is_blank(*s))
		s++;
	if (s == end || (s + 1 < end && !is_blank(s[1])))
		return sp_error_new(SP_E_MALFORMED, "%s: line %zu: expected a one-letter symbol type after the address",
				    path, lineno);
	char type = *s++;
	while (s < end && is_blank(*s))
		s++;
	for (t = s; t < end && !is_blank(*t); t++)
		;
	if (s == t)
		return sp_error_new(SP_E_MALFORMED, "%s: line %zu: expected a symbol name after the type '%c'",
				    path, lineno, type);
	char *name = s, *name_end = t;
	s = t;
	while (s < end && is_blank(*s))
		s++;
	char *mod = NULL, *mod_end = NULL;
	if (s < end) {
		if (*s != '[' || end[-1] != ']' || end - s < 3)
			return sp_error_new(SP_E_MALFORMED, "%s: line %zu: expected \"[module]\" after the name, got \"%.*s\"",
					    path, lineno, (int)(end - s), s);
		mod = s;
		mod_end = end;
	}
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return NULL;
	ksym sym = {.addr = addr, .seq = k->n};
	if (mod) {
		char *full = sp_xasprintf("%.*s %.*s", (int)(name_end - name), name,
					  (int)(mod_end - mod), mod);
		SP_PUSH(k->owned, k->n_owned, k->cap_owned, full);
		sym.name = full;
	} else {
		*name_end = '\0';
		sym.name = name;
	}
	SP_PUSH(k->v, k->n, k->cap, sym);
	return NULL;
}

sp_error *sp_kallsyms_load(const char *path, sp_kallsyms **out)
{
	*out = NULL;
	uint8_t *data;
	size_t len;
	sp_error *err = sp_read_file(path, &data, &len);
	if (err)
		return sp_error_prefix(err, "kallsyms");
	sp_kallsyms *k = sp_xcalloc(1, sizeof(*k));
	k->names = (char *)data;
	char *p = k->names, *end = p + len;
	size_t lineno = 0;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *eol = nl ? nl : end;
		char *le = eol;
		lineno++;
		if (le > p && le[-1] == '\r')
			le--;
		char *q = p;
		while (q < le && is_blank(*q))
			q++;
		if (q < le) {
			err = parse_line(k, path, lineno, p, le);
			if (err) {
				sp_kallsyms_free(k);
				return err;
			}
		}
		p = nl ? nl + 1 : end;
	}
	bool any_nonzero = false;
	for (size_t i = 0; i < k->n && !any_nonzero; i++)
		any_nonzero = k->v[i].addr != 0;
	if (k->n && !any_nonzero) {
		k->restricted = true;
		k->n = 0;
	}
	/* /proc/kallsyms lists its symbols by address, so a copy is sorted
	 * already as a rule (then the sort would change nothing: ties keep
	 * their file order, seq) and is checked rather than sorted */
	bool sorted = true;
	for (size_t i = 1; i < k->n && sorted; i++)
		sorted = k->v[i - 1].addr <= k->v[i].addr;
	if (!sorted)
		qsort(k->v, k->n, sizeof(*k->v), cmp_ksym);
	/* Aliases: of the symbols at one address the first in the file names
	 * it, so the others go, and a lookup is one binary search. */
	size_t o = 0;
	for (size_t i = 0; i < k->n; i++)
		if (!o || k->v[o - 1].addr != k->v[i].addr)
			k->v[o++] = k->v[i];
	k->n = o;
	*out = k;
	return NULL;
}

bool sp_kallsyms_restricted(const sp_kallsyms *k)
{
	return k && k->restricted;
}

const char *sp_kallsyms_lookup(const sp_kallsyms *k, uint64_t addr)
{
	if (!k || !k->n || addr < k->v[0].addr)
		return NULL;
	/* Greatest start <= addr (distinct, see sp_kallsyms_load). */
	size_t lo = 0, hi = k->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return k->v[lo - 1].name;
}

static char *first_line(const char *path);
static bool is_proc_kallsyms(const char *path);

char *sp_kallsyms_release(const char *path, const char **from)
{
	const char *f = NULL;
	char *side = sp_xasprintf("%s.osrelease", path);
	char *rel = first_line(side);
	free(side);
	if (rel)
		f = ".osrelease";
	struct utsname u;
	if (!rel && is_proc_kallsyms(path) && !uname(&u)) {
		rel = sp_xstrdup(u.release);
		f = "uname";
	}
	if (from)
		*from = f;
	return rel;
}

/* The build id in the ELF notes DATA[0..len) (native byte order, as
 * /sys/kernel/notes has them), lowercase hex, or NULL. */
static char *notes_build_id(const uint8_t *data, size_t len)
{
	size_t at = 0;
	while (len - at >= 12) {
		uint32_t w[3];
		memcpy(w, data + at, 12);
		size_t name_at = at + 12;
		size_t name_len = ((size_t)w[0] + 3) & ~(size_t)3;
		if (name_len > len - name_at)
			return NULL;
		size_t desc_at = name_at + name_len;
		size_t desc_len = ((size_t)w[1] + 3) & ~(size_t)3;
		if (desc_len > len - desc_at)
			return NULL;
		if (w[2] == 3 /* NT_GNU_BUILD_ID */ && w[0] == 4 &&
		    !memcmp(data + name_at, "GNU", 4) && w[1] > 0) {
			char *hex = sp_xcalloc(2 * (size_t)w[1] + 1, 1);
			for (uint32_t i = 0; i < w[1]; i++)
				snprintf(hex + 2 * i, 3, "%02x", data[desc_at + i]);
			return hex;
		}
		at = desc_at + desc_len;
	}
	return NULL;
}

/* The bytes of PATH (caller frees), or NULL when it cannot be read: the
 * files beside a copy are optional. */
static uint8_t *read_if_there(const char *path, size_t *len)
{
	uint8_t *data;
	sp_error *e = sp_read_file(path, &data, len);
	sp_error_free(e);
	return e ? NULL : data;
}

/* The first line of the text file PATH without trailing blanks, or NULL. */
static char *first_line(const char *path)
{
	size_t len;
	uint8_t *data = read_if_there(path, &len);
	if (!data)
		return NULL;
	size_t n = 0;
	while (n < len && data[n] != '\n' && data[n] != '\r')
		n++;
	while (n && (data[n - 1] == ' ' || data[n - 1] == '\t'))
		n--;
	char *line = sp_xstrndup((const char *)data, n);
	free(data);
	return line;
}

/* The build id in the notes file PATH, or NULL. */
static char *notes_file_build_id(const char *path)
{
	size_t len;
	uint8_t *data = read_if_there(path, &len);
	if (!data)
		return NULL;
	char *id = notes_build_id(data, len);
	free(data);
	return id;
}

static bool is_proc_kallsyms(const char *path)
{
	char real[PATH_MAX];
	return realpath(path, real) && !strcmp(real, "/proc/kallsyms");
}

char *sp_kallsyms_build_id(const char *path, const char **from)
{
	const char *f = ".buildid";
	char *side = sp_xasprintf("%s.buildid", path);
	char *id = first_line(side);
	free(side);
	for (char *c = id; c && *c; c++)
		*c = (char)(*c >= 'A' && *c <= 'F' ? *c - 'A' + 'a' : *c);
	if (id && (!*id || strspn(id, "0123456789abcdef") != strlen(id))) {
		free(id); /* not a build id: as if there were none */
		id = NULL;
	}
	if (!id) {
		f = ".notes";
		side = sp_xasprintf("%s.notes", path);
		id = notes_file_build_id(side);
		free(side);
	}
	if (!id && is_proc_kallsyms(path)) {
		f = "/sys/kernel/notes";
		id = notes_file_build_id("/sys/kernel/notes");
	}
	if (from)
		*from = id ? f : NULL;
	return id;
}

char *sp_kallsyms_check(const char *path, const char *recorded, const char *recorded_build_id,
			bool *mismatch)
{
	*mismatch = false;
	char *msg = NULL;
	if (!recorded) {
		msg = sp_xasprintf("--kallsyms %s: the recording does not say its kernel release "
				   "(no OSRELEASE): kernel names are not checked", path);
	} else {
		const char *from;
		char *rel = sp_kallsyms_release(path, &from);
		if (!rel)
			msg = sp_xasprintf("--kallsyms %s: cannot tell which kernel it is of (write "
					   "its `uname -r` into %s.osrelease); the recording's is "
					   "%s: kernel names are not checked", path, path, recorded);
		else if (strcmp(rel, recorded)) {
			*mismatch = true;
			msg = sp_xasprintf("--kallsyms %s is of kernel %s (%s), the recording's is "
					   "%s: kernel frames may be named wrongly", path, rel,
					   !strcmp(from, "uname") ? "the running kernel"
								  : "its .osrelease",
					   recorded);
		}
		free(rel);
	}
	/* the build id tells two builds of one release apart */
	const char *from;
	char *id = recorded_build_id ? sp_kallsyms_build_id(path, &from) : NULL;
	if (id && strcasecmp(id, recorded_build_id)) {
		char *both = sp_xasprintf("%s%s--kallsyms %s is of kernel build id %s (%s%s), the "
					  "recording's is %s: kernel frames may be named wrongly",
					  msg ? msg : "", msg ? "; " : "", path, id,
					  from[0] == '.' ? "its " : "", from, recorded_build_id);
		free(msg);
		msg = both;
		*mismatch = true;
	}
	free(id);
	return msg;
}
