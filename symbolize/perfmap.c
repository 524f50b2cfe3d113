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
#include "symbolize/symbolize.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	uint64_t start, end; /* end exclusive; start + 1 for size-0 entries */
	uint64_t size;
	size_t seq;          /* input order, the last sort key */
	uint32_t pid;        /* of the file name; 0: every process */
	const char *name;    /* points into a file buffer */
} perf_entry;

typedef struct {
	uint32_t pid;
	sp_interval_table table; /* value: index into v */
} pid_table;

struct sp_perf_map {
	perf_entry *v;
	size_t n, cap;
	sp_interval_table table; /* every entry: for an unknown process */
	pid_table *pids;         /* by pid, ascending; pid 0 (ownerless) first */
	size_t n_pids;
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
	sp_interval_table_clear(&m->table);
	for (size_t i = 0; i < m->n_pids; i++)
		sp_interval_table_clear(&m->pids[i].table);
	free(m->pids);
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

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* The table of the entries (in sorted order) of PID: all of them for
 * UINT64_MAX. */
static void build_table(const sp_perf_map *m, uint64_t pid, sp_interval *r,
			sp_interval_table *t)
{
	size_t n = 0;
	for (size_t i = 0; i < m->n; i++)
		if (pid == UINT64_MAX || m->v[i].pid == pid)
			r[n++] = (sp_interval){m->v[i].start, m->v[i].end, i};
	sp_interval_table_build(t, r, n);
}

sp_error *sp_perf_map_load(const char *const *files, size_t n_files, sp_perf_map **out)
{
	sp_perf_map *m = sp_xcalloc(1, sizeof(*m));
	*out = NULL;
	uint32_t *pids = sp_xreallocarray(NULL, n_files + 1, sizeof(*pids));
	size_t n_pids = 0;
	pids[n_pids++] = 0;
	for (size_t i = 0; i < n_files; i++) {
		sp_error *err = load_one(m, files[i]);
		if (err) {
			free(pids);
			sp_perf_map_free(m);
			return err;
		}
		pids[n_pids++] = sp_perf_map_file_pid(files[i]);
	}
	if (m->n)
		qsort(m->v, m->n, sizeof(*m->v), cmp_entry);
	qsort(pids, n_pids, sizeof(*pids), cmp_u32);
	/* the sorted order is the order of preference */
	sp_interval *r = sp_xreallocarray(NULL, m->n ? m->n : 1, sizeof(*r));
	build_table(m, UINT64_MAX, r, &m->table);
	m->pids = sp_xcalloc(n_pids, sizeof(*m->pids));
	for (size_t i = 0; i < n_pids; i++) {
		if (m->n_pids && m->pids[m->n_pids - 1].pid == pids[i])
			continue;
		pid_table *t = &m->pids[m->n_pids++];
		t->pid = pids[i];
		build_table(m, pids[i], r, &t->table);
	}
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
	size_t i = SIZE_MAX;
	if (pid) {
		size_t lo = 0, hi = m->n_pids;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (m->pids[mid].pid < pid)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < m->n_pids && m->pids[lo].pid == pid)
			i = sp_interval_table_find(&m->pids[lo].table, addr);
		if (i == SIZE_MAX)
			i = sp_interval_table_find(&m->pids[0].table, addr);
	} else {
		i = sp_interval_table_find(&m->table, addr);
	}
	return i == SIZE_MAX ? NULL : m->v[i].name;
}
