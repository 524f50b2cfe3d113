/* walk.c — every answer of a resolver, in address order: what the symbol
 * index (symbolize/index/) is built from.
 *
 * Every look-up of resolver.c compares the address with keys of its tables
 * and nothing else: the ranges of compile units (units.c), the ranges of
 * subprograms and inlined subroutines and the addresses of line rows (of
 * each unit), the starts and ends of function symbols (symtab.c), and for
 * Go's pc-line table the functions' entries and the pcs at which a
 * function's file, line or inline index changes (gopclntab.c).  Between two
 * consecutive keys every comparison comes out the same, so the answer is
 * the same at every address: resolving the first address of each such
 * interval, once, gives the answer of all of them.  The walk gathers the
 * keys (each unit loaded, read, and freed again), sorts them, and resolves
 * each through the resolver itself, so the answers are its answers, and
 * frees a unit again once the walk has passed its last address.
 */
#include "symbolize/dwarf/dwarfp.h"
#include "symbolize/dwarf/gopclntab.h"

#include <stdlib.h>
#include <string.h>

/* Sorts V[0..n) and drops repeats; returns the count left. */
static size_t sort_unique(uint64_t *v, size_t n)
{
	sp_sort_u64(v, n);
	size_t k = n ? 1 : 0;
	for (size_t i = 1; i < n; i++)
		if (v[i] != v[k - 1])
			v[k++] = v[i];
	return k;
}

/* The keys of unit I: its ranges, its functions' ranges, its rows; in
 * file addresses (DWARF address + BIAS). */
static void unit_bounds(sp_units *u, size_t i, uint64_t bias, sp_bounds *b)
{
	sp_units_load(u, i);
	const sp_cu *ci = &u->cus[i];
	for (size_t k = 0; k < ci->fn.n_ranges; k++) {
		sp_bounds_add(b, ci->fn.ranges[k].lo + bias);
		sp_bounds_add(b, ci->fn.ranges[k].hi + bias);
	}
	for (size_t k = 0; k < ci->n_lines; k++)
		sp_bounds_add(b, ci->lines[k].addr + bias);
	sp_units_unload(u, i);
}

static void add_go_bound(void *ctx, uint64_t pc)
{
	sp_bounds_add(ctx, pc);
}

/* A unit and the end of its last range, for freeing it once passed. */
typedef struct {
	uint64_t last;
	size_t cu;
} unit_end;

static int cmp_unit_end(const void *a, const void *b)
{
	const unit_end *x = a, *y = b;
	if (x->last != y->last)
		return x->last < y->last ? -1 : 1;
	return x->cu < y->cu ? -1 : x->cu > y->cu;
}

/* Every key of P, sorted, without repeats, address 0 first. */
static void gather(const sp_resolver_parts *p, sp_bounds *b, unit_end **ends, size_t *n_ends)
{
	sp_units *u = p->units;
	uint64_t bias = p->m->dwbias;
	sp_bounds_add(b, 0);
	*ends = NULL;
	*n_ends = 0;
	if (u) {
		*ends = sp_xreallocarray(NULL, u->n_cus ? u->n_cus : 1, sizeof(**ends));
		for (size_t i = 0; i < u->n_cus; i++)
			(*ends)[i] = (unit_end){0, i};
		for (size_t k = 0; k < u->n_ranges; k++) {
			const sp_cu_range *r = &u->ranges[k];
			sp_bounds_add(b, r->lo + bias);
			sp_bounds_add(b, r->hi + bias);
			if (r->hi + bias > (*ends)[r->cu].last)
				(*ends)[r->cu].last = r->hi + bias;
		}
		for (size_t i = 0; i < u->n_cus; i++)
			unit_bounds(u, i, bias, b);
		*n_ends = u->n_cus;
		if (*n_ends > 1)
			qsort(*ends, *n_ends, sizeof(**ends), cmp_unit_end);
	}
	sp_symtab_bounds(p->syms, p->m->mod, b);
	if (p->go)
		sp_gopcln_changes(p->go, add_go_bound, b);
	b->n = sort_unique(b->v, b->n);
}

sp_error *sp_resolver_walk(sp_resolver *d, sp_answer_fn *fn, void *ctx, sp_walk_info *info)
{
	sp_resolver_parts p;
	*info = (sp_walk_info){0};
	sp_error *e = sp_resolver_open_parts(d, &p);
	if (e)
		return e;
	if (p.m->etype == ET_REL)
		return sp_error_new(SP_E_UNSUPPORTED, "%s: a relocatable object is not walked",
				    p.m->path);
	sp_bounds b = {0};
	unit_end *ends;
	size_t n_ends, next_end = 0;
	gather(&p, &b, &ends, &n_ends);
	info->n_keys = b.n;
	info->dwarf = p.units != NULL;
	info->go = p.go != NULL;
	info->symbols = p.syms->n_syms != 0;
	for (size_t i = 0; i < b.n && !e; i++) {
		sp_answer a = {.start = b.v[i]};
		sp_error *re = sp_resolver_resolve_once(d, a.start, &a.frames, &a.n);
		a.go = a.n && sp_resolver_last_go(d);
		a.err = re;
		e = fn(ctx, &a);
		sp_error_free(re);
		/* units whose every range lies below the next address */
		uint64_t next = i + 1 < b.n ? b.v[i + 1] : UINT64_MAX;
		while (next_end < n_ends && ends[next_end].last <= next)
			sp_units_unload(p.units, ends[next_end++].cu);
	}
	free(ends);
	free(b.v);
	return e;
}
