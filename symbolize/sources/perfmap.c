/* perfmap.c — names for JIT code from perf maps (/tmp/perf-PID.map,
 * spec/FORMATS.md §5.1).  One symbol per line, START and SIZE in hex, the
 * name is the rest of the line:
 *
 *   7f3a2c001000 40 LazyCompile:~main /app/index.js:1
 *   0x7f3a2c001040 0x1c Interpreter
 *
 * The reader is tolerant where real writers differ (optional 0x, any run of
 * blanks, CR/LF, blank lines) and strict elsewhere: a line that is not
 * START SIZE NAME is an error naming the file and line.  Lookups follow
 * blazesym's rule: entries sorted by (start, size), the first one containing
 * the address wins, and a size-0 entry matches only its own start.
 *
 * A map belongs to the process its file name gives (perf-PID.map, the name
 * perf and every JIT use); a file named otherwise belongs to every process.
 * Each process gets its own table (its maps, then the ownerless ones), so
 * the code one process placed at an address never names another's.
 */
#include "symbolize/sources/sources.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	uint64_t start, end; /* end exclusive; start + 1 for size-0 entries */
	uint64_t size;
	size_t seq;          /* input order, the last sort key */
	uint32_t pid;        /* of the file name; 0: every process */
	const char *name;    /* points into a file buffer */
} perf_entry;

struct sp_perf_map {
	perf_entry *v;
	size_t n, cap;
	sp_pid_tables tables;    /* value: index into v */
	char **bufs;       /* file contents the names point into */
	size_t n_bufs, cap_bufs;
};

uint32_t sp_perf_map_file_pid(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (strncmp(base, "perf-", 5))
		return 0;
	const char *p = base + 5, *q = p;
	while (*q >= '0' && *q <= '9')
		q++;
	uint64_t pid;
	if (q == p || strcmp(q, ".map") || !sp_parse_u64(p, q, 10, &pid) || !pid ||
	    pid > UINT32_MAX)
		return 0;
	return (uint32_t)pid;
}

void sp_perf_map_free(sp_perf_map *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n_bufs; i++)
		free(m->bufs[i]);
	free(m->bufs);
	free(m->v);
	sp_pid_tables_clear(&m->tables);
	free(m);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && is_blank(*p))
		p++;
	return p;
}

static const char *skip_token(const char *p, const char *end)
{
	while (p < end && !is_blank(*p))
		p++;
	return p;
}

/* Parses one line [p, end) (no newline, CR removed) into E. */
static sp_error *parse_line(const char *path, size_t lineno, char *p, char *end, perf_entry *e)
{
	const char *s = skip_blanks(p, end);
	const char *t = skip_token(s, end);
	if (!sp_parse_u64(s, t, 16, &e->start))
		return sp_error_new(SP_E_MALFORMED, "%s: line %zu: expected hex start address, got \"%.*s\"",
				    path, lineno, (int)(t - s), s);
	s = skip_blanks(t, end);
	t = skip_token(s, end);
	if (!sp_parse_u64(s, t, 16, &e->size))
		return sp_error_new(SP_E_MALFORMED, "%s: line %zu: expected hex size after the start address, got \"%.*s\"",
				    path, lineno, (int)(t - s), s);
	s = skip_blanks(t, end);
	if (s == end)
		return sp_error_new(SP_E_MALFORMED, "%s: line %zu: expected a symbol name after the size",
				    path, lineno);
	*end = '\0';
	e->name = s;
	if (e->size == 0)
		e->end = e->start == UINT64_MAX ? UINT64_MAX : e->start + 1;
	else
		e->end = e->size > UINT64_MAX - e->start ? UINT64_MAX : e->start + e->size;
	return NULL;
}

static sp_error *load_one(sp_perf_map *m, const char *path)
{
	uint8_t *data;
	size_t len;
	sp_error *err = sp_read_file(path, &data, &len);
	if (err)
		return sp_error_prefix(err, "perf map");
	SP_PUSH(m->bufs, m->n_bufs, m->cap_bufs, (char *)data);
	uint32_t pid = sp_perf_map_file_pid(path);

	char *p = (char *)data, *end = p + len;
	size_t lineno = 0;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *eol = nl ? nl : end;
		lineno++;
		char *le = eol;
		if (le > p && le[-1] == '\r')
			le--;
		if (skip_blanks(p, le) != le) {
			perf_entry e = {0};
			err = parse_line(path, lineno, p, le, &e);
			if (err)
				return err;
			e.seq = m->n;
			e.pid = pid;
			SP_PUSH(m->v, m->n, m->cap, e);
		}
		p = nl ? nl + 1 : end;
	}
	return NULL;
}

static int cmp_entry(const void *a, const void *b)
{
	const perf_entry *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

sp_error *sp_perf_map_load(const char *const *files, size_t n_files, sp_perf_map **out)
{
	sp_perf_map *m = sp_xcalloc(1, sizeof(*m));
	*out = NULL;
	for (size_t i = 0; i < n_files; i++) {
		sp_error *err = load_one(m, files[i]);
		if (err) {
			sp_perf_map_free(m);
			return err;
		}
	}
	if (m->n)
		qsort(m->v, m->n, sizeof(*m->v), cmp_entry);
	/* the sorted order is the order of preference */
	sp_interval *r = sp_xreallocarray(NULL, m->n ? m->n : 1, sizeof(*r));
	uint32_t *pids = sp_xreallocarray(NULL, m->n ? m->n : 1, sizeof(*pids));
	for (size_t i = 0; i < m->n; i++) {
		r[i] = (sp_interval){m->v[i].start, m->v[i].end, i};
		pids[i] = m->v[i].pid;
	}
	sp_pid_tables_build(&m->tables, r, pids, m->n);
	free(r);
	free(pids);
	*out = m;
	return NULL;
}

/* The first entry (in (start, size) order) containing ADDR: of PID's
 * maps, then of the ownerless ones; of every map when PID is 0. */
const char *sp_perf_map_lookup(const sp_perf_map *m, uint32_t pid, uint64_t addr)
{
	if (!m)
		return NULL;
	size_t i = sp_pid_tables_find(&m->tables, pid, addr);
	return i == SIZE_MAX ? NULL : m->v[i].name;
}
