/* interval.c — interval tables: the best range holding an address, where
 * ranges nest and overlap freely and "best" is the caller's order.
 *
 * The starts and ends of all ranges cut the addresses they cover into
 * elementary runs (at most 2n - 1).  Ranges are painted onto the runs best
 * first; a painted run keeps its value, and a "next unpainted run" forest
 * (union-find with path halving) lets each run be painted once, so building
 * costs the sort of the 2n bounds plus near-linear painting, and a lookup is
 * one binary search over the runs, merged where neighbours agree.  Ranges
 * mostly come in address order (a JIT's sections, perf map entries): the
 * sort merges the runs already in order, and each range's bounds are found
 * by galloping from the previous range's, so such input costs O(n) beyond
 * the caller's own sort.  A walk
 * from the nearest start backwards, by contrast, costs the number of ranges
 * enclosing the address: all of them when one range encloses the rest. */
#include "common/common.h"

#include <stdlib.h>
#include <string.h>

/* Sorts V[0..n) ascending with a natural merge sort: the runs already in
 * order (descending ones are reversed) are merged pairwise, so bounds that
 * come mostly sorted, as a JIT's sections and a perf map's entries do, cost
 * O(n) and any order O(n log n).  TMP has room for N values. */
static void sort_u64(uint64_t *v, size_t n, uint64_t *tmp)
{
	/* runs: each ascending after reversing descending ones; run ends in R */
	size_t *r = NULL, nr = 0, cap = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		if (j < n && v[j] < v[i]) {
			while (j < n && v[j] < v[j - 1])
				j++;
			for (size_t a = i, b = j - 1; a < b; a++, b--) {
				uint64_t t = v[a];
				v[a] = v[b];
				v[b] = t;
			}
		} else {
			while (j < n && v[j] >= v[j - 1])
				j++;
		}
		SP_PUSH(r, nr, cap, j);
		i = j;
	}
	while (nr > 1) {
		size_t out = 0, from = 0;
		for (size_t k = 0; k < nr; k += 2) {
			size_t mid = r[k], end = k + 1 < nr ? r[k + 1] : mid;
			size_t a = from, b = mid, o = from;
			while (a < mid && b < end)
				tmp[o++] = v[b] < v[a] ? v[b++] : v[a++];
			while (a < mid)
				tmp[o++] = v[a++];
			while (b < end)
				tmp[o++] = v[b++];
			memcpy(v + from, tmp + from, (end - from) * sizeof(*v));
			r[out++] = end;
			from = end;
		}
		nr = out;
	}
	free(r);
}

/* The first index of B[0..n) whose bound is >= X, searched from HINT
 * outwards in growing steps (ranges given in address order, as most are,
 * find theirs in a step or two), then by bisection. */
static size_t lower_bound(const uint64_t *b, size_t n, uint64_t x, size_t hint)
{
	size_t lo = 0, hi = n;
	if (hint > n)
		hint = n;
	if (hint < n && b[hint] < x) { /* the answer is past HINT */
		size_t step = 1;
		lo = hint + 1;
		while (lo + step <= n && b[lo + step - 1] < x) {
			lo += step;
			step *= 2;
		}
		hi = lo + step <= n ? lo + step - 1 : n;
	} else { /* at or before HINT */
		size_t step = 1;
		hi = hint;
		while (hi >= step && b[hi - step] >= x) {
			hi -= step;
			step *= 2;
		}
		lo = hi >= step ? hi - step + 1 : 0;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (b[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first unpainted run at or after K (NEXT[k] == k: K is unpainted). */
static size_t unpainted(size_t *next, size_t k)
{
	while (next[k] != k) {
		next[k] = next[next[k]];
		k = next[k];
	}
	return k;
}

void sp_interval_table_build(sp_interval_table *t, const sp_interval *v, size_t n)
{
	sp_interval_table_clear(t);
	uint64_t *b = sp_xreallocarray(NULL, n ? n : 1, 2 * sizeof(*b));
	size_t nb = 0;
	/* the starts, then the ends, each in the given order: runs to merge */
	for (size_t i = 0; i < n; i++)
		if (v[i].end > v[i].start)
			b[nb++] = v[i].start;
	for (size_t i = 0; i < n; i++)
		if (v[i].end > v[i].start)
			b[nb++] = v[i].end;
	if (!nb) {
		free(b);
		return;
	}
	uint64_t *tmp = sp_xreallocarray(NULL, nb, sizeof(*tmp));
	sort_u64(b, nb, tmp);
	free(tmp);
	size_t m = 1;
	for (size_t i = 1; i < nb; i++)
		if (b[i] != b[m - 1])
			b[m++] = b[i];
	/* run k is [b[k], b[k + 1]) for k < m - 1 (m >= 2: some range is not
	 * empty); run m - 1, past the last end, is held by nothing */
	size_t *val = sp_xreallocarray(NULL, m, sizeof(*val));
	size_t *next = sp_xreallocarray(NULL, m, sizeof(*next));
	for (size_t k = 0; k < m; k++) {
		val[k] = SIZE_MAX;
		next[k] = k; /* next[m - 1]: the sentinel no range reaches */
	}
	size_t at = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i].end <= v[i].start)
			continue;
		at = lower_bound(b, m, v[i].start, at);
		size_t hi = lower_bound(b, m, v[i].end, at);
		for (size_t k = unpainted(next, at); k < hi; k = unpainted(next, k + 1)) {
			val[k] = v[i].value;
			next[k] = k + 1;
		}
	}
	free(next);
	/* merge neighbours in place (the write index never passes the read
	 * index); the last bound starts the run that nothing holds */
	size_t o = 0;
	for (size_t k = 0; k < m; k++) {
		if (o && val[o - 1] == val[k])
			continue;
		b[o] = b[k];
		val[o++] = val[k];
	}
	t->start = sp_xreallocarray(b, o, sizeof(*b));
	t->value = sp_xreallocarray(val, o, sizeof(*val));
	t->n = o;
}

size_t sp_interval_table_find(const sp_interval_table *t, uint64_t addr)
{
	if (!t->n || addr < t->start[0])
		return SIZE_MAX;
	size_t lo = 0, hi = t->n;
	while (lo < hi) { /* the first run starting after ADDR */
		size_t mid = lo + (hi - lo) / 2;
		if (t->start[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return t->value[lo - 1];
}

void sp_interval_table_clear(sp_interval_table *t)
{
	free(t->start);
	free(t->value);
	t->start = NULL;
	t->value = NULL;
	t->n = 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

void sp_pid_tables_build(sp_pid_tables *t, const sp_interval *v, const uint32_t *pids,
			 size_t n)
{
	sp_interval_table_build(&t->all, v, n);
	uint32_t *u = sp_xreallocarray(NULL, n + 1, sizeof(*u));
	u[0] = 0; /* always a table of ranges for every process, maybe empty */
	if (n)
		memcpy(u + 1, pids, n * sizeof(*u));
	qsort(u, n + 1, sizeof(*u), cmp_u32);
	size_t k = 0;
	for (size_t i = 0; i < n + 1; i++)
		if (!k || u[k - 1] != u[i])
			u[k++] = u[i];
	t->pids = u;
	t->n_pids = k;
	t->by_pid = sp_xcalloc(k, sizeof(*t->by_pid));
	sp_interval *r = sp_xreallocarray(NULL, n ? n : 1, sizeof(*r));
	for (size_t p = 0; p < k; p++) {
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (pids[i] == u[p])
				r[m++] = v[i];
		sp_interval_table_build(&t->by_pid[p], r, m);
	}
	free(r);
}

size_t sp_pid_tables_find(const sp_pid_tables *t, uint32_t pid, uint64_t addr)
{
	if (!pid)
		return sp_interval_table_find(&t->all, addr);
	size_t lo = 0, hi = t->n_pids;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->pids[mid] < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t i = SIZE_MAX;
	if (lo < t->n_pids && t->pids[lo] == pid)
		i = sp_interval_table_find(&t->by_pid[lo], addr);
	if (i == SIZE_MAX && t->n_pids && t->pids[0] == 0)
		i = sp_interval_table_find(&t->by_pid[0], addr);
	return i;
}

void sp_pid_tables_clear(sp_pid_tables *t)
{
	for (size_t i = 0; i < t->n_pids; i++)
		sp_interval_table_clear(&t->by_pid[i]);
	free(t->by_pid);
	free(t->pids);
	sp_interval_table_clear(&t->all);
	memset(t, 0, sizeof(*t));
}
