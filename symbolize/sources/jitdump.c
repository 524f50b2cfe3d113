/* jitdump.c — names and lines for JIT code from jitdump files
 * (jit-PID.dump, spec/FORMATS.md §5.2: what `perf inject --jit` reads and
 * LLVM's PerfJITEventListener, V8 and the JVM agents write).  Binary, in the
 * writer's byte order, which the magic reveals:
 *
 *   header   u32 magic 0x4A695444 "JiTD", u32 version 1, u32 header size,
 *            u32 e_machine, u32 pad, u32 pid, u64 timestamp, u64 flags
 *   records  u32 id, u32 total size, u64 timestamp, then by id:
 *     0 CODE_LOAD        u32 pid, u32 tid, u64 vma, u64 code_addr,
 *                        u64 code_size, u64 code_index, name\0, code bytes
 *     1 CODE_MOVE        u32 pid, u32 tid, u64 vma, u64 old_code_addr,
 *                        u64 new_code_addr, u64 code_size, u64 code_index
 *     2 CODE_DEBUG_INFO  u64 code_addr, u64 nr_entry, then per entry
 *                        u64 addr, i32 line, i32 discrim, file\0
 *                        ("\xff\0": the file of the entry before); it
 *                        describes the next CODE_LOAD
 *     3 CODE_CLOSE       nothing; the end of the records
 *     4 UNWINDING_INFO   (skipped, as is any id not known here)
 *
 * A file belongs to the process of its header's pid.  Each CODE_LOAD (and
 * each CODE_MOVE, at its new address) is a range named by the function,
 * from the record's timestamp on.  Addresses are reused as a JIT frees and
 * compiles code, so ranges overlap.  Asked with a sample's time
 * (sp_jitdump_code_version), the code of an address is that of the latest
 * record at or before that time (ties: the later in the file), as `perf
 * inject --jit` makes it by putting a map of each record into the event
 * stream at the record's time; asked without one (sp_jitdump_lookup), the
 * later record in the file wins.  The line
 * of an address is that of the debug entry with the greatest address at
 * or below it in its function; entries outside the function (LLVM 14
 * writes them 0x40 bytes too far) give it none.  Every size and count is checked against
 * the bytes of its record before use; an error names the file, the byte
 * offset and what was expected there.
 */
#include "symbolize/sources/sources.h"

#include <stdlib.h>
#include <string.h>

#define JITDUMP_MAGIC 0x4A695444u
#define HEADER_SIZE 40
#define PREFIX_SIZE 16
#define LOAD_FIXED 40 /* after the prefix */
#define MOVE_FIXED 48
#define DEBUG_FIXED 16
#define DEBUG_ENTRY_MIN 17 /* addr, line, discrim, at least "\0" */
#define FLAG_ARCH_TIMESTAMP 1u

typedef struct {
	uint64_t addr;
	int64_t line;
	const char *file; /* in the file buffer */
} jit_line;

typedef struct {
	uint64_t start, end;
	uint64_t time;     /* the record's timestamp */
	uint64_t code_index;
	uint32_t pid;
	const char *name;  /* in the file buffer */
	jit_line *lines;   /* ascending addr; shared by a load and its moves */
	size_t n_lines;
	int64_t delta;     /* a move: its addresses - those of LINES */
	bool owns_lines;
} jit_code;

/* One process's ranges by time: a segment tree over the elementary
 * intervals between the ranges' ends; each range is listed at the O(log n)
 * nodes that cover it, each node's list sorted by (time, record), so the
 * latest record at or before a time over an address is one binary search
 * per node on the path to the address's leaf. */
typedef struct {
	uint64_t time;
	size_t code; /* index into v */
} timed;

typedef struct {
	uint32_t pid;
	uint64_t *bounds; /* ascending, distinct: range starts and ends */
	size_t n_bounds;
	size_t width;     /* leaves: a power of two >= n_bounds - 1 */
	size_t *first;    /* node i lists at[first[i] .. first[i + 1]), 2 * width + 1 */
	timed *at;
} time_tree;

struct sp_jitdump {
	jit_code *v;
	size_t n, cap;
	sp_pid_tables tables; /* value: index into v */
	time_tree *trees;     /* ascending pid */
	size_t n_trees;
	size_t n_reused;      /* ranges over addresses an earlier range of the process held */
	bool arch_timestamp;  /* some file's times are the CPU's counter, not a clock */
	uint8_t **bufs;
	size_t n_bufs, cap_bufs;
};

void sp_jitdump_free(sp_jitdump *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->n; i++)
		if (j->v[i].owns_lines)
			free(j->v[i].lines);
	free(j->v);
	for (size_t i = 0; i < j->n_trees; i++) {
		free(j->trees[i].bounds);
		free(j->trees[i].first);
		free(j->trees[i].at);
	}
	free(j->trees);
	for (size_t i = 0; i < j->n_bufs; i++)
		free(j->bufs[i]);
	free(j->bufs);
	sp_pid_tables_clear(&j->tables);
	free(j);
}

typedef struct {
	const char *path;
	const uint8_t *p;
	size_t len;
	bool swap;
} reader;

static uint32_t rd32(const reader *r, size_t off)
{
	uint32_t v;
	memcpy(&v, r->p + off, 4);
	return r->swap ? __builtin_bswap32(v) : v;
}

static uint64_t rd64(const reader *r, size_t off)
{
	uint64_t v;
	memcpy(&v, r->p + off, 8);
	return r->swap ? __builtin_bswap64(v) : v;
}

/* The NUL-terminated string at [off, end), or NULL when there is no NUL. */
static const char *str_at(const reader *r, size_t off, size_t end)
{
	if (off >= end || !memchr(r->p + off, 0, end - off))
		return NULL;
	return (const char *)r->p + off;
}

static int cmp_line(const void *a, const void *b)
{
	const jit_line *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* CODE_DEBUG_INFO at OFF (record of SIZE bytes): its entries into *LINES. */
static sp_error *debug_info(const reader *r, size_t off, size_t size, jit_line **lines,
			    size_t *n_lines)
{
	size_t end = off + size, at = off + PREFIX_SIZE;
	if (size < PREFIX_SIZE + DEBUG_FIXED)
		return sp_error_new(SP_E_MALFORMED,
				    "%s: offset %zu: expected a JIT_CODE_DEBUG_INFO record of at least %d bytes, its size is %zu",
				    r->path, off, PREFIX_SIZE + DEBUG_FIXED, size);
	uint64_t nr = rd64(r, at + 8);
	at += DEBUG_FIXED;
	if (nr > (end - at) / DEBUG_ENTRY_MIN)
		return sp_error_new(SP_E_MALFORMED,
				    "%s: offset %zu: expected at most %zu debug entries in the %zu bytes left of the record, nr_entry is %llu",
				    r->path, off + PREFIX_SIZE + 8, (end - at) / DEBUG_ENTRY_MIN,
				    end - at, (unsigned long long)nr);
	jit_line *v = sp_xreallocarray(NULL, nr ? nr : 1, sizeof(*v));
	const char *prev = NULL;
	for (size_t i = 0; i < nr; i++) {
		if (end - at < DEBUG_ENTRY_MIN) {
			free(v);
			return sp_error_new(SP_E_MALFORMED,
					    "%s: offset %zu: expected debug entry %zu of %llu, %zu bytes left of the record",
					    r->path, at, i + 1, (unsigned long long)nr, end - at);
		}
		v[i].addr = rd64(r, at);
		int32_t line = (int32_t)rd32(r, at + 8);
		v[i].line = line > 0 ? line : 0; /* lines count from 1: 0 is "unknown" */
		const char *file = str_at(r, at + 16, end);
		if (!file) {
			free(v);
			return sp_error_new(SP_E_MALFORMED,
					    "%s: offset %zu: expected a NUL-terminated file name in debug entry %zu before the record's end",
					    r->path, at + 16, i + 1);
		}
		at += 16 + strlen(file) + 1;
		if ((unsigned char)file[0] == 0xff && !file[1]) {
			if (!prev) {
				free(v);
				return sp_error_new(SP_E_MALFORMED,
						    "%s: offset %zu: debug entry 1 says \"same file as the entry before\" (\\xff), expected a file name",
						    r->path, at - 2);
			}
			file = prev;
		}
		v[i].file = prev = file;
	}
	qsort(v, nr, sizeof(*v), cmp_line);
	*lines = v;
	*n_lines = nr;
	return NULL;
}

static sp_error *range_error(const reader *r, size_t off, const char *what, uint64_t addr,
			     uint64_t size)
{
	return sp_error_new(SP_E_MALFORMED,
			    "%s: offset %zu: expected %s and code size to stay below 2^64, got 0x%llx + 0x%llx",
			    r->path, off, what, (unsigned long long)addr, (unsigned long long)size);
}

/* The records of R from byte AT on, into J for process PID. */
/* The debug info of the next load, and where each code index's last
 * range is. */
typedef struct {
	sp_u64map by_index; /* code index -> the last of its ranges in J */
	jit_line *pending;  /* the debug info of the next load */
	size_t n_pending;
} rec_state;

/* The JIT_CODE_LOAD record of SIZE bytes at AT. */
static sp_error *code_load(sp_jitdump *j, const reader *r, size_t at, uint32_t size,
			   uint64_t time, uint32_t pid, rec_state *st)
{
	size_t end = at + size;
	if (size < PREFIX_SIZE + LOAD_FIXED + 1)
		return sp_error_new(SP_E_MALFORMED,
				    "%s: offset %zu: expected a JIT_CODE_LOAD record of at least %d bytes, its size is %u",
				    r->path, at, PREFIX_SIZE + LOAD_FIXED + 1, size);
	size_t f = at + PREFIX_SIZE;
	uint64_t addr = rd64(r, f + 16), csize = rd64(r, f + 24);
	uint64_t index = rd64(r, f + 32);
	size_t name_at = f + LOAD_FIXED;
	if (csize > end - name_at - 1)
		return sp_error_new(SP_E_MALFORMED,
				    "%s: offset %zu: expected a code size of at most the %zu bytes after the name's start, got %llu",
				    r->path, f + 24, end - name_at - 1, (unsigned long long)csize);
	const char *name = str_at(r, name_at, end - (size_t)csize);
	if (!name)
		return sp_error_new(SP_E_MALFORMED,
				    "%s: offset %zu: expected a NUL-terminated function name before the %llu code bytes",
				    r->path, name_at, (unsigned long long)csize);
	if (csize > UINT64_MAX - addr)
		return range_error(r, f + 16, "code_addr", addr, csize);
	jit_code c = {.start = addr, .end = addr + csize, .time = time,
		      .code_index = index,
		      .pid = pid, .name = name, .lines = st->pending,
		      .n_lines = st->n_pending, .owns_lines = st->pending != NULL};
	SP_PUSH(j->v, j->n, j->cap, c);
	sp_u64map_put(&st->by_index, index, j->n - 1);
	st->pending = NULL;
	st->n_pending = 0;
	return NULL;
}

/* The JIT_CODE_MOVE record of SIZE bytes at AT. */
static sp_error *code_move(sp_jitdump *j, const reader *r, size_t at, uint32_t size,
			   uint64_t time, rec_state *st)
{
	if (size < PREFIX_SIZE + MOVE_FIXED)
		return sp_error_new(SP_E_MALFORMED,
				    "%s: offset %zu: expected a JIT_CODE_MOVE record of at least %d bytes, its size is %u",
				    r->path, at, PREFIX_SIZE + MOVE_FIXED, size);
	size_t f = at + PREFIX_SIZE;
	uint64_t addr = rd64(r, f + 24); /* (the old address is the load's) */
	uint64_t csize = rd64(r, f + 32), index = rd64(r, f + 40);
	uint64_t k;
	if (!sp_u64map_get(&st->by_index, index, &k))
		return sp_error_new(SP_E_MALFORMED,
				    "%s: offset %zu: JIT_CODE_MOVE of code index %llu, expected an earlier JIT_CODE_LOAD with that index",
				    r->path, f + 40, (unsigned long long)index);
	if (csize > UINT64_MAX - addr)
		return range_error(r, f + 24, "new_code_addr", addr, csize);
	/* the lines move with the code: they stay the load's, read at
	 * (address - delta) */
	const jit_code *from = &j->v[k];
	jit_code c = *from;
	c.start = addr;
	c.end = addr + csize;
	c.time = time;
	c.delta = (int64_t)(addr - from->start + (uint64_t)from->delta);
	c.owns_lines = false;
	SP_PUSH(j->v, j->n, j->cap, c);
	sp_u64map_put(&st->by_index, index, j->n - 1);
	return NULL;
}

static sp_error *records(sp_jitdump *j, const reader *r, size_t at, uint32_t pid)
{
	rec_state st = {0};
	sp_error *err = NULL;
	while (at < r->len && !err) {
		size_t left = r->len - at;
		if (left < PREFIX_SIZE) {
			err = sp_error_new(SP_E_MALFORMED,
					   "%s: offset %zu: expected a %d-byte record header, %zu bytes left (the file ends inside a record)",
					   r->path, at, PREFIX_SIZE, left);
			break;
		}
		uint32_t id = rd32(r, at), size = rd32(r, at + 4);
		uint64_t time = left >= PREFIX_SIZE ? rd64(r, at + 8) : 0;
		if (size < PREFIX_SIZE || size > left) {
			err = sp_error_new(SP_E_MALFORMED,
					   "%s: offset %zu: expected a record size from %d to the %zu bytes left, got %u (record id %u)",
					   r->path, at + 4, PREFIX_SIZE, left, size, id);
			break;
		}
		if (id == 0) { /* CODE_LOAD */
			err = code_load(j, r, at, size, time, pid, &st);
		} else if (id == 1) { /* CODE_MOVE */
			err = code_move(j, r, at, size, time, &st);
		} else if (id == 2) { /* CODE_DEBUG_INFO */
			free(st.pending);
			st.pending = NULL;
			st.n_pending = 0;
			err = debug_info(r, at, size, &st.pending, &st.n_pending);
		} else if (id == 3) { /* CODE_CLOSE */
			break;
		}
		at += size;
	}
	free(st.pending); /* debug info that no load followed */
	sp_u64map_free(&st.by_index);
	return err;
}

static sp_error *load_one(sp_jitdump *j, const char *path)
{
	uint8_t *data;
	size_t len;
	sp_error *err = sp_read_file(path, &data, &len);
	if (err)
		return sp_error_prefix(err, "jitdump");
	SP_PUSH(j->bufs, j->n_bufs, j->cap_bufs, data);
	reader r = {.path = path, .p = data, .len = len};
	if (len < 4)
		return sp_error_new(SP_E_UNRECOGNIZED,
				    "%s: offset 0: expected the jitdump magic 0x4A695444 (\"JiTD\"), the file has %zu bytes",
				    path, len);
	uint32_t magic = rd32(&r, 0);
	if (magic != JITDUMP_MAGIC) {
		r.swap = true;
		if (rd32(&r, 0) != JITDUMP_MAGIC)
			return sp_error_new(SP_E_UNRECOGNIZED,
					    "%s: offset 0: expected the jitdump magic 0x4A695444 (\"JiTD\") in either byte order, got 0x%08x",
					    path, magic);
	}
	if (len < HEADER_SIZE)
		return sp_error_new(SP_E_MALFORMED,
				    "%s: offset %zu: expected a %d-byte jitdump header, the file ends",
				    path, len, HEADER_SIZE);
	uint32_t version = rd32(&r, 4), hsize = rd32(&r, 8), pid = rd32(&r, 20);
	uint64_t flags = rd64(&r, 32);
	if (version != 1)
		return sp_error_new(SP_E_UNSUPPORTED, "%s: offset 4: expected jitdump version 1, got %u",
				    path, version);
	if (hsize < HEADER_SIZE || hsize > len)
		return sp_error_new(SP_E_MALFORMED,
				    "%s: offset 8: expected a header size from %d to the file's %zu bytes, got %u",
				    path, HEADER_SIZE, len, hsize);
	if (flags & ~(uint64_t)FLAG_ARCH_TIMESTAMP)
		return sp_error_new(SP_E_UNSUPPORTED,
				    "%s: offset 32: expected no flag but bit 0 (JITDUMP_FLAGS_ARCH_TIMESTAMP), got 0x%llx",
				    path, (unsigned long long)flags);
	j->arch_timestamp |= (flags & FLAG_ARCH_TIMESTAMP) != 0;
	return records(j, &r, hsize, pid);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_timed(const void *a, const void *b)
{
	const timed *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->code < y->code ? -1 : x->code > y->code;
}

/* How many of V[0..n) (ascending) are at or below X. */
static size_t count_le(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The index of VALUE in T's bounds (it is one of them). */
static size_t bound_index(const time_tree *t, uint64_t value)
{
	return value ? count_le(t->bounds, t->n_bounds, value - 1) : 0;
}

/* Counts code K (range C) at each node of T's cover of its leaves, and
 * with FILL also lists it there (at the node's COUNT-th place). */
static void cover(time_tree *t, const jit_code *c, size_t k, size_t *count, bool fill)
{
	size_t l = bound_index(t, c->start) + t->width, r = bound_index(t, c->end) + t->width;
	for (; l < r; l >>= 1, r >>= 1) {
		size_t nodes[2] = {SIZE_MAX, SIZE_MAX};
		if (l & 1)
			nodes[0] = l++;
		if (r & 1)
			nodes[1] = --r;
		for (int i = 0; i < 2; i++) {
			if (nodes[i] == SIZE_MAX)
				continue;
			if (fill)
				t->at[t->first[nodes[i]] + count[nodes[i]]] = (timed){c->time, k};
			count[nodes[i]]++;
		}
	}
}

/* The tree of the codes IDX[0..n) (all of one pid, non-empty ranges). */
static void build_tree(sp_jitdump *j, time_tree *t, const size_t *idx, size_t n)
{
	t->bounds = sp_xreallocarray(NULL, 2 * n, sizeof(*t->bounds));
	for (size_t i = 0; i < n; i++) {
		t->bounds[2 * i] = j->v[idx[i]].start;
		t->bounds[2 * i + 1] = j->v[idx[i]].end;
	}
	qsort(t->bounds, 2 * n, sizeof(*t->bounds), cmp_u64);
	size_t nb = 0;
	for (size_t i = 0; i < 2 * n; i++)
		if (!nb || t->bounds[nb - 1] != t->bounds[i])
			t->bounds[nb++] = t->bounds[i];
	t->n_bounds = nb;
	t->width = 1;
	while (t->width < nb - 1)
		t->width *= 2;
	size_t nodes = 2 * t->width;
	size_t *count = sp_xcalloc(nodes, sizeof(*count));
	for (size_t i = 0; i < n; i++)
		cover(t, &j->v[idx[i]], idx[i], count, false);
	t->first = sp_xcalloc(nodes + 1, sizeof(*t->first));
	for (size_t i = 0; i < nodes; i++)
		t->first[i + 1] = t->first[i] + count[i];
	t->at = sp_xreallocarray(NULL, t->first[nodes] ? t->first[nodes] : 1, sizeof(*t->at));
	memset(count, 0, nodes * sizeof(*count));
	for (size_t i = 0; i < n; i++)
		cover(t, &j->v[idx[i]], idx[i], count, true);
	for (size_t i = 0; i < nodes; i++)
		qsort(t->at + t->first[i], count[i], sizeof(*t->at), cmp_timed);
	free(count);
}

typedef struct {
	uint32_t pid;
	uint64_t start;
	size_t code;
} by_pid;

static int cmp_by_pid(const void *a, const void *b)
{
	const by_pid *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->code < y->code ? -1 : x->code > y->code;
}

/* One time tree per process, and how many ranges reuse addresses. */
static void build_trees(sp_jitdump *j)
{
	by_pid *o = sp_xreallocarray(NULL, j->n ? j->n : 1, sizeof(*o));
	size_t *idx = sp_xreallocarray(NULL, j->n ? j->n : 1, sizeof(*idx));
	size_t n = 0;
	for (size_t i = 0; i < j->n; i++)
		if (j->v[i].end > j->v[i].start)
			o[n++] = (by_pid){j->v[i].pid, j->v[i].start, i};
	qsort(o, n, sizeof(*o), cmp_by_pid);
	for (size_t i = 0; i < n; i++)
		idx[i] = o[i].code;
	for (size_t i = 0, e; i < n; i = e) {
		uint32_t pid = o[i].pid;
		uint64_t reach = 0;
		for (e = i; e < n && o[e].pid == pid; e++) {
			if (e > i && o[e].start < reach)
				j->n_reused++;
			if (j->v[o[e].code].end > reach)
				reach = j->v[o[e].code].end;
		}
		j->trees = sp_xreallocarray(j->trees, j->n_trees + 1, sizeof(*j->trees));
		time_tree *t = &j->trees[j->n_trees++];
		*t = (time_tree){.pid = pid};
		build_tree(j, t, idx + i, e - i);
	}
	free(o);
	free(idx);
}

sp_error *sp_jitdump_load(const char *const *files, size_t n_files, sp_jitdump **out)
{
	sp_jitdump *j = sp_xcalloc(1, sizeof(*j));
	*out = NULL;
	for (size_t i = 0; i < n_files; i++) {
		sp_error *err = load_one(j, files[i]);
		if (err) {
			sp_jitdump_free(j);
			return err;
		}
	}
	/* the later record first */
	sp_interval *r = sp_xreallocarray(NULL, j->n ? j->n : 1, sizeof(*r));
	uint32_t *pids = sp_xreallocarray(NULL, j->n ? j->n : 1, sizeof(*pids));
	for (size_t i = 0; i < j->n; i++) {
		size_t k = j->n - 1 - i;
		r[i] = (sp_interval){j->v[k].start, j->v[k].end, k};
		pids[i] = j->v[k].pid;
	}
	sp_pid_tables_build(&j->tables, r, pids, j->n);
	free(r);
	free(pids);
	build_trees(j);
	*out = j;
	return NULL;
}

size_t sp_jitdump_count(const sp_jitdump *j)
{
	return j ? j->n : 0;
}

/* Fills *OUT with code C's name and the line of ADDR in it. */
static void name_code(const jit_code *c, uint64_t addr, sp_frame *out)
{
	*out = (sp_frame){.name = c->name, .system_name = c->name};
	uint64_t at = addr - (uint64_t)c->delta; /* where LINES speak of */
	size_t lo = 0, hi = c->n_lines;
	while (lo < hi) { /* the first entry above AT */
		size_t mid = lo + (hi - lo) / 2;
		if (c->lines[mid].addr <= at)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* an entry before the code is not the code's (nor one past it) */
	if (lo && c->lines[lo - 1].addr >= c->start - (uint64_t)c->delta) {
		out->file = c->lines[lo - 1].file;
		out->line = c->lines[lo - 1].line;
	}
}

bool sp_jitdump_lookup(const sp_jitdump *j, uint32_t pid, uint64_t addr, sp_frame *out)
{
	size_t i = j ? sp_pid_tables_find(&j->tables, pid, addr) : SIZE_MAX;
	if (i == SIZE_MAX)
		return false;
	name_code(&j->v[i], addr, out);
	return true;
}

size_t sp_jitdump_reused(const sp_jitdump *j)
{
	return j ? j->n_reused : 0;
}

bool sp_jitdump_arch_timestamp(const sp_jitdump *j)
{
	return j && j->arch_timestamp;
}

uint64_t sp_jitdump_code_version(const sp_jitdump *j, uint32_t pid, uint64_t addr,
				 uint64_t time)
{
	size_t lo = 0, hi = j ? j->n_trees : 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (j->trees[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == (j ? j->n_trees : 0) || j->trees[lo].pid != pid)
		return 0;
	const time_tree *t = &j->trees[lo];
	/* the elementary interval of ADDR: the last bound at or below it */
	size_t b = count_le(t->bounds, t->n_bounds, addr);
	if (b == 0 || b == t->n_bounds)
		return 0;
	bool held = false;
	const timed *best = NULL;
	for (size_t node = b - 1 + t->width; node >= 1; node >>= 1) {
		const timed *v = t->at + t->first[node];
		size_t n = t->first[node + 1] - t->first[node], l = 0, h = n;
		held |= n != 0;
		while (l < h) { /* the first entry after TIME */
			size_t mid = l + (h - l) / 2;
			if (v[mid].time <= time)
				l = mid + 1;
			else
				h = mid;
		}
		if (l && (!best || cmp_timed(&v[l - 1], best) > 0))
			best = &v[l - 1];
	}
	if (!held)
		return 0;
	return best ? best->code + 1 : SP_PERFJIT_NO_CODE;
}

bool sp_jitdump_lookup_version(const sp_jitdump *j, uint64_t version, uint64_t addr,
			       sp_frame *out)
{
	if (!j || version == 0 || version > j->n)
		return false;
	const jit_code *c = &j->v[version - 1];
	if (addr < c->start || addr >= c->end)
		return false;
	name_code(c, addr, out);
	return true;
}
