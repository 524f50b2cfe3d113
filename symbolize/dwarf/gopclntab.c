/* gopclntab.c — Go's pc-line table, read where a Go binary has no DWARF.
 *
 * The Go linker writes, in the section .gopclntab, a header, the sorted
 * function table and per function a record (runtime._func) pointing at
 * its name and at "pc-value" tables.  A 1.18 table looks like:
 *
 *   f0 ff ff ff 00 00 01 08   magic 0xfffffff0, pad, pc quantum 1, pointers 8
 *   nfunc nfiles textStart    then, each a pointer-sized word,
 *   funcname cu filetab pctab pcln   offsets of the sub-tables from the magic
 *   ...
 *   pcln: (entryoff u32, funcoff u32) * nfunc, end offset u32, _func records
 *
 * Layouts (by magic; either byte order):
 *
 *   1.2  0xfffffffb: nfunc, then (entry pc, func offset) pointer pairs and
 *        the end pc, then a u32 offset of the file table (u32 count, then
 *        u32 name offsets); every offset is from the magic.
 *   1.16 0xfffffffa: header words nfunc nfiles funcname cu filetab pctab
 *        pcln; pointer-sized (entry pc, func offset) pairs at pcln, func
 *        offsets from pcln; names in funcname, file indexes go through the
 *        unit's slice of cu (u32 offsets into filetab).
 *   1.18 0xfffffff0 and 1.20 0xfffffff1: as 1.16 with textStart after
 *        nfiles; the function table holds u32 offsets from textStart.
 *
 * The record: the entry (a pointer before 1.18, a u32 offset after),
 * then u32 nameoff, args, deferreturn, pcsp, pcfile, pcln, npcdata, (1.16+)
 * cuOffset, (1.20+) startLine, then four bytes ending with nfuncdata; then
 * npcdata u32 offsets of pc-value tables and nfuncdata funcdata references
 * (pointer-aligned absolute pointers before 1.18, u32 offsets from the
 * moduledata's gofunc from 1.18 on; all-ones or 0 mean none).
 *
 * A pc-value table is a run of (value delta, pc delta) varint pairs: the
 * value delta zig-zag encoded, the pc delta in units of the quantum; the
 * value starts at -1 and the pc at the entry, and a zero value delta after
 * the first pair ends it.  The value at a pc is the one in force before the
 * first pair whose pc passes it.
 *
 * Inlining: pcdata table 2 gives, per pc, an index into the function's
 * inline tree (funcdata 3) or -1.  An entry of the tree names the inlined
 * function and the offset from the entry of a pc whose position is the
 * call site (parentPc): that pc's own inline index gives the caller, and so
 * on out to the function itself.  Entries: before 1.20 20 bytes (parent
 * i16, funcID, pad, file, line, name offset, parentPc); from 1.20 16 bytes
 * (funcID, pad[3], name offset, parentPc, startLine).
 *
 * The 1.2 magic covers Go 1.2 to 1.15, whose records changed size in
 * between: only names and lines are read from them, not inline trees.
 *
 * Everything read is checked against the table's bytes; a function whose
 * record breaks a rule is an error naming the offset.
 */
#include "symbolize/dwarf/gopclntab.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#define FUNCDATA_INLTREE 3
#define PCDATA_INLTREEINDEX 2

/* One run of a decoded pc-value table: VAL holds below offset END from the
 * function's entry. */
typedef struct {
	uint32_t end;
	int32_t val;
} run;

/* A row of a function: below offset END from the entry, the file name at
 * offset FILE of the table (UINT32_MAX: none), LINE and the inline index
 * (each -1 unknown or none).  16 bytes: look-ups come in address order per
 * batch, so a function's rows are seldom in the cache. */
typedef struct {
	uint32_t end;
	int32_t line, inl;
	uint32_t file;
} row;

/* A function's rows, made at its first look-up, with its name and the
 * address of its inline tree (0: none), so that later look-ups need not
 * read its record again. */
typedef struct {
	row *rows;
	uint32_t n;
	uint32_t finger; /* the row of the last look-up (row_from) */
	bool done;
	const char *name;
	uint64_t tree;
} fdec;

struct sp_gopcln {
	char *what;
	const unsigned char *d;
	size_t size;
	uint64_t vaddr;
	sp_go_layout layout;
	bool be;
	bool native;        /* the table's byte order is this machine's */
	unsigned quantum, ptr;
	uint64_t nfunc, nfiles, text;
	/* sub-tables as offsets from the magic */
	uint64_t funcname, cu, filetab, pctab, pcln;
	uint64_t functab;   /* the function table */
	unsigned fsz;       /* its field size */
	uint64_t fn_base;   /* func offsets are from here */
	unsigned rec_fixed; /* size of a record's fixed part */
	sp_go_region *regions; /* copied */
	size_t n_regions;
	uint64_t gofunc;
	fdec *dec;          /* per function, made at the first look-up */
	uint64_t last;      /* the function of the last look-up + 1, or 0 */
};

static uint64_t rd(const sp_gopcln *t, const unsigned char *p, unsigned n)
{
	if (t->native && (n == 4 || n == 8)) { /* the common case, one load */
		uint32_t v4;
		uint64_t v8;
		if (n == 4) {
			memcpy(&v4, p, 4);
			return v4;
		}
		memcpy(&v8, p, 8);
		return v8;
	}
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v = t->be ? v << 8 | p[i] : v | (uint64_t)p[i] << (8 * i);
	return v;
}

/* The N-byte word at OFF of the table; false when it is not all there. */
static bool word(const sp_gopcln *t, uint64_t off, unsigned n, uint64_t *v)
{
	if (off > t->size || t->size - off < n)
		return false;
	*v = rd(t, t->d + off, n);
	return true;
}

static sp_error *bad(const sp_gopcln *t, uint64_t off, const char *what)
{
	return sp_error_new(SP_E_MALFORMED, "%s: offset %llu: %s", t->what,
			    (unsigned long long)off, what);
}

sp_go_layout sp_gopcln_layout(const sp_gopcln *t)
{
	return t->layout;
}

size_t sp_gopcln_nfunc(const sp_gopcln *t)
{
	return (size_t)t->nfunc;
}

static uint64_t entry_at(const sp_gopcln *t, uint64_t i)
{
	uint64_t v = rd(t, t->d + t->functab + 2 * i * t->fsz, t->fsz);
	return t->layout >= SP_GO118 ? t->text + v : v;
}

uint64_t sp_gopcln_entry(const sp_gopcln *t, size_t i)
{
	return entry_at(t, i);
}

static uint64_t funcoff_at(const sp_gopcln *t, uint64_t i)
{
	return rd(t, t->d + t->functab + (2 * i + 1) * t->fsz, t->fsz);
}

/* The header and the function table. */
static sp_error *parse_header(sp_gopcln *t, const sp_gopcln_input *in)
{
	const unsigned char *d = t->d;
	if (t->size < 8)
		return bad(t, 0, "header of 8 bytes expected, table too short");
	uint32_t le = (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 | (uint32_t)d[3] << 24;
	uint32_t be = (uint32_t)d[3] | (uint32_t)d[2] << 8 | (uint32_t)d[1] << 16 | (uint32_t)d[0] << 24;
	static const struct {
		uint32_t magic;
		sp_go_layout layout;
	} magics[] = {{0xfffffffb, SP_GO12}, {0xfffffffa, SP_GO116},
		      {0xfffffff0, SP_GO118}, {0xfffffff1, SP_GO120}};
	t->layout = 0;
	for (size_t i = 0; i < SP_ARRAY_LEN(magics); i++) {
		if (le == magics[i].magic || be == magics[i].magic) {
			t->layout = magics[i].layout;
			t->be = be == magics[i].magic;
			t->native = t->be == (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
		}
	}
	if (!t->layout)
		return sp_error_new(SP_E_MALFORMED,
				    "%s: offset 0: magic 0x%08x is none of Go's "
				    "(0xfffffffb, 0xfffffffa, 0xfffffff0, 0xfffffff1)",
				    t->what, le);
	if (d[4] || d[5])
		return bad(t, 4, "two zero bytes expected after the magic");
	t->quantum = d[6];
	t->ptr = d[7];
	if (t->quantum != 1 && t->quantum != 2 && t->quantum != 4)
		return bad(t, 6, "pc quantum 1, 2 or 4 expected");
	if (t->ptr != 4 && t->ptr != 8)
		return bad(t, 7, "pointer size 4 or 8 expected");
	unsigned p = t->ptr;
	uint64_t h[8];
	size_t nh = t->layout == SP_GO12 ? 1 : t->layout == SP_GO116 ? 7 : 8;
	for (size_t i = 0; i < nh; i++)
		if (!word(t, 8 + i * p, p, &h[i]))
			return bad(t, 8 + i * p, "header word expected, table too short");
	t->nfunc = h[0];
	t->fsz = t->layout >= SP_GO118 ? 4 : p;
	if (t->layout == SP_GO12) {
		t->functab = 8 + p;
		t->fn_base = 0;
		t->funcname = t->pctab = 0;
		t->rec_fixed = p + 32;
	} else {
		size_t k = 2;
		t->nfiles = h[1];
		if (t->layout >= SP_GO118)
			t->text = h[k++] ? h[k - 1] : in->text_start;
		t->funcname = h[k++];
		t->cu = h[k++];
		t->filetab = h[k++];
		t->pctab = h[k++];
		t->pcln = h[k++];
		static const char *names[] = {"function name table", "cu table", "file table",
					      "pc-value tables", "function table"};
		uint64_t offs[] = {t->funcname, t->cu, t->filetab, t->pctab, t->pcln};
		for (size_t i = 0; i < 5; i++)
			if (offs[i] > t->size)
				return sp_error_new(SP_E_MALFORMED,
						    "%s: offset %llu: %s offset %llu is past the "
						    "table's end (%zu bytes)",
						    t->what, (unsigned long long)(8 + (k - 5 + i) * p),
						    names[i], (unsigned long long)offs[i], t->size);
		t->functab = t->pcln;
		t->fn_base = t->pcln;
		t->rec_fixed = t->layout == SP_GO116 ? p + 36 : t->layout == SP_GO118 ? 40 : 44;
	}
	/* (2 nfunc + 1) fields, checked without overflow */
	uint64_t room = t->size - t->functab;
	if (t->nfunc > room / t->fsz / 2 || (2 * t->nfunc + 1) * t->fsz > room)
		return sp_error_new(SP_E_MALFORMED,
				    "%s: offset %llu: function table of %llu functions does not "
				    "fit in the %llu bytes left",
				    t->what, (unsigned long long)t->functab,
				    (unsigned long long)t->nfunc, (unsigned long long)room);
	if (t->layout == SP_GO12) {
		uint64_t ft;
		uint64_t at = t->functab + (2 * t->nfunc + 1) * t->fsz;
		if (!word(t, at, 4, &ft))
			return bad(t, at, "file table offset expected, table too short");
		if (!word(t, ft, 4, &t->nfiles) || t->nfiles > (t->size - ft) / 4)
			return bad(t, at, "file table offset past the table's end");
		t->filetab = ft;
	}
	for (uint64_t i = 0; i < t->nfunc; i++) {
		uint64_t at = t->functab + 2 * i * t->fsz;
		if (entry_at(t, i + 1) < entry_at(t, i))
			return bad(t, at + 2 * t->fsz, "function entries in ascending order expected");
		uint64_t fo = funcoff_at(t, i);
		if (fo > t->size - t->fn_base || t->size - t->fn_base - fo < t->rec_fixed)
			return sp_error_new(SP_E_MALFORMED,
					    "%s: offset %llu: function %llu's record at %llu is "
					    "past the table's end (%zu bytes)",
					    t->what, (unsigned long long)(at + t->fsz),
					    (unsigned long long)i,
					    (unsigned long long)(t->fn_base + fo), t->size);
	}
	return NULL;
}

sp_error *sp_gopcln_open(const sp_gopcln_input *in, const char *what, sp_gopcln **out)
{
	*out = NULL;
	sp_gopcln *t = sp_xcalloc(1, sizeof(*t));
	t->what = sp_xstrdup(what);
	t->d = in->data;
	t->size = in->data ? in->size : 0;
	t->vaddr = in->vaddr;
	if (in->n_regions) {
		t->regions = sp_xreallocarray(NULL, in->n_regions, sizeof(*t->regions));
		memcpy(t->regions, in->regions, in->n_regions * sizeof(*t->regions));
		t->n_regions = in->n_regions;
	}
	t->gofunc = in->gofunc;
	sp_error *e = parse_header(t, in);
	if (e) {
		sp_gopcln_free(t);
		return e;
	}
	*out = t;
	return NULL;
}

void sp_gopcln_free(sp_gopcln *t)
{
	if (!t)
		return;
	free(t->what);
	free(t->regions);
	for (uint64_t i = 0; t->dec && i < t->nfunc; i++)
		free(t->dec[i].rows);
	free(t->dec);
	free(t);
}

/* The NUL-terminated string at OFF of the table, or NULL. */
static const char *str_at(const sp_gopcln *t, uint64_t off)
{
	if (off >= t->size || !memchr(t->d + off, 0, t->size - off))
		return NULL;
	return (const char *)t->d + off;
}

/* One varint of a pc-value table at *POS; false when it runs off the
 * table or past 32 bits. */
static bool varint(const sp_gopcln *t, uint64_t *pos, uint32_t *v)
{
	uint32_t r = 0;
	for (unsigned shift = 0; shift < 35; shift += 7) {
		if (*pos >= t->size)
			return false;
		unsigned char b = t->d[(*pos)++];
		if (shift == 28 && (b & 0x70))
			return false;
		r |= (uint32_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			return true;
		}
	}
	return false;
}

/* Appends the runs of the pc-value table at offset OFF (from the pc-value
 * tables) to *R (*N of *CAP used); nothing for offset 0 (no table). */
static sp_error *decode(const sp_gopcln *t, uint64_t off, run **r, size_t *n, size_t *cap)
{
	if (off == 0)
		return NULL;
	uint64_t pos = t->pctab + off;
	if (pos >= t->size)
		return bad(t, pos, "pc-value table offset past the table's end");
	uint64_t at = 0;
	uint32_t v = UINT32_MAX; /* -1 */
	for (bool first = true;; first = false) {
		uint32_t uv, pd;
		uint64_t start = pos;
		if (!varint(t, &pos, &uv))
			return bad(t, start, "pc-value table: value delta varint runs off the table");
		if (uv == 0 && !first)
			return NULL;
		if (!varint(t, &pos, &pd))
			return bad(t, start, "pc-value table: pc delta varint runs off the table");
		v += (uv >> 1) ^ (0u - (uv & 1)); /* zig-zag */
		at += (uint64_t)pd * t->quantum;
		if (at > UINT32_MAX)
			return bad(t, start, "pc-value table: a function of 4 GiB or more");
		run x = {(uint32_t)at, (int32_t)v};
		SP_PUSH(*r, *n, *cap, x);
	}
}

/* The record of function I: where it is, its fields. */
typedef struct {
	uint64_t at;     /* offset of the record */
	uint64_t entry;
	uint32_t nameoff, pcfile, pcln, npcdata, cuoff;
	unsigned nfuncdata;
} rec;

static void record(const sp_gopcln *t, uint64_t i, rec *r)
{
	r->at = t->fn_base + funcoff_at(t, i); /* fits: checked at open */
	r->entry = entry_at(t, i);
	unsigned e = t->layout >= SP_GO118 ? 4 : t->ptr;
	const unsigned char *p = t->d + r->at;
	r->nameoff = (uint32_t)rd(t, p + e, 4);
	r->pcfile = (uint32_t)rd(t, p + e + 16, 4);
	r->pcln = (uint32_t)rd(t, p + e + 20, 4);
	r->npcdata = (uint32_t)rd(t, p + e + 24, 4);
	r->cuoff = t->layout == SP_GO12 ? 0 : (uint32_t)rd(t, p + e + 28, 4);
	r->nfuncdata = p[t->rec_fixed - 1];
}

static const char *name_of(const sp_gopcln *t, uint64_t nameoff)
{
	return str_at(t, t->funcname + nameoff);
}

/* The file name of file number FNO of the function of R, or NULL. */
static sp_error *file_name(const sp_gopcln *t, const rec *r, int32_t fno, const char **file)
{
	uint64_t v = 0;
	*file = NULL;
	if (t->layout == SP_GO12) {
		if (fno <= 0 || (uint64_t)fno >= t->nfiles)
			return NULL;
		word(t, t->filetab + 4 * (uint64_t)fno, 4, &v); /* inside: checked at open */
		*file = str_at(t, v);
		if (!*file)
			return bad(t, t->filetab + 4 * (uint64_t)fno, "file name offset past the table's end");
		return NULL;
	}
	if (fno < 0 || r->cuoff == UINT32_MAX)
		return NULL;
	uint64_t at = t->cu + 4 * ((uint64_t)r->cuoff + (uint64_t)fno);
	if (!word(t, at, 4, &v))
		return bad(t, at, "cu table entry past the table's end");
	if (v == UINT32_MAX)
		return NULL;
	*file = str_at(t, t->filetab + v);
	if (!*file)
		return bad(t, at, "file name offset past the table's end");
	return NULL;
}

/* The rows of function I, made at its first look-up from its file, line
 * and (when the inline tree is known) inline-index tables. */
static sp_error *decoded(sp_gopcln *t, uint64_t i, const rec *r, uint64_t tree, fdec **out)
{
	if (!t->dec)
		t->dec = sp_xcalloc((size_t)t->nfunc, sizeof(*t->dec));
	fdec *d = &t->dec[i];
	*out = d;
	if (d->done)
		return NULL;
	uint64_t inl = 0;
	if (tree && r->npcdata > PCDATA_INLTREEINDEX)
		word(t, r->at + t->rec_fixed + 4 * PCDATA_INLTREEINDEX, 4, &inl);
	uint64_t offs[3] = {r->pcfile, r->pcln, inl};
	run *tr[3] = {NULL, NULL, NULL};
	size_t tn[3] = {0, 0, 0}, tc[3] = {0, 0, 0}, at[3] = {0, 0, 0}, cap = 0;
	size_t nr = 0;
	sp_error *e = NULL;
	for (size_t k = 0; k < 3 && !e; k++)
		e = decode(t, offs[k], &tr[k], &tn[k], &tc[k]);
	/* merged: a row wherever one of the three changes */
	int32_t last_fno = -1;
	const char *last_file = NULL;
	while (!e) {
		uint32_t end = UINT32_MAX;
		bool any = false;
		for (size_t k = 0; k < 3; k++)
			if (at[k] < tn[k] && (!any || tr[k][at[k]].end < end)) {
				end = tr[k][at[k]].end;
				any = true;
			}
		if (!any)
			break;
		int32_t v[3];
		for (size_t k = 0; k < 3; k++)
			v[k] = at[k] < tn[k] ? tr[k][at[k]].val : -1;
		if (v[0] != last_fno || !nr) {
			last_fno = v[0];
			e = file_name(t, r, v[0], &last_file);
		}
		row w = {end, v[1], v[2],
			 last_file ? (uint32_t)((const unsigned char *)last_file - t->d) : UINT32_MAX};
		SP_PUSH(d->rows, nr, cap, w);
		for (size_t k = 0; k < 3; k++)
			if (at[k] < tn[k] && tr[k][at[k]].end == end)
				at[k]++;
	}
	for (size_t k = 0; k < 3; k++)
		free(tr[k]);
	if (e) { /* not kept: a broken function fails each time */
		free(d->rows);
		d->rows = NULL;
		d->n = 0;
		return e;
	}
	d->n = (uint32_t)nr; /* fewer than the table's bytes */
	d->done = true;
	return NULL;
}

/* The row of D in force at offset OFF from the entry, or NULL. */
static const row *row_at(const fdec *d, uint64_t off)
{
	size_t lo = 0, hi = d->n;
	while (lo < hi) { /* the first row ending above OFF */
		size_t mid = lo + (hi - lo) / 2;
		if (d->rows[mid].end <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->n ? &d->rows[lo] : NULL;
}

/* The row of OFF as row_at, starting from the row of the function's last
 * look-up: batches come in address order, so OFF is mostly in that row or
 * one of the next few. */
static const row *row_from(fdec *d, uint64_t off)
{
	uint32_t f = d->finger;
	if (f < d->n && (f == 0 || d->rows[f - 1].end <= off))
		for (uint32_t k = 0; k < 8 && f < d->n; k++, f++)
			if (off < d->rows[f].end) {
				d->finger = f;
				return &d->rows[f];
			}
	const row *w = row_at(d, off);
	d->finger = w ? (uint32_t)(w - d->rows) : 0;
	return w;
}

/* File and line of ROW (may be NULL) into F. */
static void frame_at(const sp_gopcln *t, const row *w, sp_gopcln_frame *f)
{
	f->file = w && w->file != UINT32_MAX ? (const char *)t->d + w->file : NULL;
	f->line = w && w->line > 0 ? w->line : 0;
}

/* The bytes at address A of the memory image, at least N of them. */
static const unsigned char *image_at(const sp_gopcln *t, uint64_t a, uint64_t n)
{
	for (size_t i = 0; i < t->n_regions; i++) {
		const sp_go_region *g = &t->regions[i];
		if (a >= g->vaddr && a - g->vaddr < g->size && g->size - (a - g->vaddr) >= n)
			return g->data + (a - g->vaddr);
	}
	return NULL;
}

/* Where the inline tree of R is (its address), or 0. */
static uint64_t inline_tree(const sp_gopcln *t, const rec *r)
{
	if (t->layout == SP_GO12 || r->nfuncdata <= FUNCDATA_INLTREE || !t->n_regions)
		return 0;
	uint64_t at = r->at + t->rec_fixed + 4 * (uint64_t)r->npcdata, v;
	if (t->layout >= SP_GO118) {
		if (!t->gofunc || !word(t, at + 4 * FUNCDATA_INLTREE, 4, &v) || v == UINT32_MAX)
			return 0;
		return t->gofunc + v;
	}
	/* 1.16: pointers, aligned by address */
	if (t->ptr == 8 && ((t->vaddr + at) & 4))
		at += 4;
	if (!word(t, at + (uint64_t)t->ptr * FUNCDATA_INLTREE, t->ptr, &v))
		return 0;
	return v;
}

sp_error *sp_gopcln_lookup(sp_gopcln *t, uint64_t pc, sp_gopcln_frame *f, size_t max, size_t *n)
{
	*n = 0;
	if (t->nfunc == 0 || max == 0 || pc < entry_at(t, 0) || pc >= entry_at(t, t->nfunc))
		return NULL;
	uint64_t lo = 0, hi = t->nfunc;
	if (t->last && entry_at(t, t->last - 1) <= pc && pc < entry_at(t, t->last)) {
		lo = t->last; /* batches come sorted: often the same function */
	} else {
		if (t->last && t->last < t->nfunc && entry_at(t, t->last) <= pc) {
			/* or one a little further: steps of 1, 2, 4... from the
			 * last one bound the search, which then reads a few
			 * entries near each other, not the whole table's levels */
			uint64_t a = t->last, b = a + 1, step = 1;
			while (b < t->nfunc && entry_at(t, b) <= pc) {
				a = b;
				step *= 2;
				b = t->nfunc - a > step ? a + step : t->nfunc;
			}
			lo = a + 1; /* entry_at(a) <= PC < entry_at(b) */
			hi = b;
		}
		while (lo < hi) { /* the first entry above PC */
			uint64_t mid = lo + (hi - lo) / 2;
			if (entry_at(t, mid) <= pc)
				lo = mid + 1;
			else
				hi = mid;
		}
		t->last = lo;
	}
	rec r;
	fdec *d = t->dec ? &t->dec[lo - 1] : NULL;
	if (d && d->done) { /* seen before: what the record gave then */
		r.at = t->fn_base + funcoff_at(t, lo - 1);
		r.entry = entry_at(t, lo - 1);
	} else {
		record(t, lo - 1, &r);
		const char *name = name_of(t, r.nameoff);
		if (!name)
			return bad(t, r.at, "function name offset past the table's end");
		uint64_t tree = inline_tree(t, &r);
		sp_error *e = decoded(t, lo - 1, &r, tree, &d);
		if (e)
			return e;
		d->name = name;
		d->tree = tree;
	}
	const char *outer = d->name;
	uint64_t tree = d->tree;
	uint64_t esz = t->layout >= SP_GO120 ? 16 : 20;
	const row *w = row_from(d, pc - r.entry);
	int32_t ix = w ? w->inl : -1;
	size_t k = 0;
	/* inline frames, innermost first; each step moves to the call site */
	while (ix >= 0 && k + 1 < max) {
		const unsigned char *p = image_at(t, tree + (uint64_t)ix * esz, esz);
		if (!p)
			return sp_error_new(SP_E_MALFORMED,
					    "%s: inline tree entry %d of the function at offset %llu "
					    "is outside the file's data",
					    t->what, ix, (unsigned long long)r.at);
		uint32_t nameoff = (uint32_t)rd(t, p + (esz == 16 ? 4 : 12), 4);
		uint32_t parent_pc = (uint32_t)rd(t, p + (esz == 16 ? 8 : 16), 4);
		f[k].name = name_of(t, nameoff);
		if (!f[k].name)
			return bad(t, r.at, "inlined function's name offset past the table's end");
		frame_at(t, w, &f[k]);
		k++;
		w = row_at(d, parent_pc);
		ix = w ? w->inl : -1;
	}
	f[k].name = outer;
	frame_at(t, w, &f[k]);
	*n = k + 1;
	return NULL;
}

void sp_gopcln_changes(sp_gopcln *t, void (*fn)(void *ctx, uint64_t pc), void *ctx)
{
	if (t->nfunc == 0)
		return;
	fn(ctx, entry_at(t, t->nfunc));
	for (uint64_t i = 0; i < t->nfunc; i++) {
		uint64_t entry = entry_at(t, i);
		fn(ctx, entry);
		sp_gopcln_frame f;
		size_t n;
		/* decodes the rows of the function that holds ENTRY (the last of
		 * those that start there) */
		sp_error_free(sp_gopcln_lookup(t, entry, &f, 1, &n));
		const fdec *d = t->dec ? &t->dec[i] : NULL;
		for (uint32_t k = 0; d && d->done && k < d->n; k++)
			fn(ctx, entry + d->rows[k].end);
	}
}

uint64_t sp_gopcln_find_gofunc(const unsigned char *pcln, size_t pcln_size, uint64_t pcln_vaddr,
			       const sp_go_region *regions, size_t n_regions)
{
	sp_gopcln_input in = {.data = pcln, .size = pcln_size, .vaddr = pcln_vaddr};
	sp_gopcln *t;
	sp_error *e = sp_gopcln_open(&in, "", &t);
	if (e) {
		sp_error_free(e);
		return 0;
	}
	unsigned p = t->ptr;
	/* moduledata: pcHeader, then slices funcnametab cutab filetab pctab
	 * pclntable ftab (3 words each), findfunctab, minpc maxpc, text etext,
	 * noptrdata.., data.., bss.., noptrbss.., (1.20+) covctrs..,
	 * end gcdata gcbss, types etypes, rodata, gofunc */
	size_t gofunc_word = t->layout == SP_GO118 ? 38 : t->layout == SP_GO120 ? 40 : 0;
	uint64_t want_names = pcln_vaddr + t->funcname;
	uint64_t found = 0;
	for (size_t i = 0; gofunc_word && !found && i < n_regions; i++) {
		const sp_go_region *g = &regions[i];
		if (g->size < (gofunc_word + 1) * p)
			continue;
		for (size_t o = 0; o + (gofunc_word + 1) * p <= g->size; o += p) {
			if (rd(t, g->data + o, p) == pcln_vaddr && rd(t, g->data + o + p, p) == want_names) {
				found = rd(t, g->data + o + gofunc_word * p, p);
				break;
			}
		}
	}
	sp_gopcln_free(t);
	return found;
}

/* Whether the 8 bytes at P can begin a table header: a magic, two zeros,
 * a quantum and a pointer size. */
static bool header_like(const unsigned char *p)
{
	static const uint32_t magics[] = {0xfffffffb, 0xfffffffa, 0xfffffff0, 0xfffffff1};
	uint32_t le = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	uint32_t be = (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
	bool magic = false;
	for (size_t i = 0; i < SP_ARRAY_LEN(magics); i++)
		magic |= le == magics[i] || be == magics[i];
	return magic && !p[4] && !p[5] && (p[6] == 1 || p[6] == 2 || p[6] == 4) &&
	       (p[7] == 4 || p[7] == 8);
}

/* Without section headers: the table is looked for in the read-only and
 * data segments, at every 8-byte boundary where a header could begin; the
 * first that opens and whose functions lie in an executable segment is
 * taken (a table's size is then the rest of its segment). */
static void from_segments(Elf *elf, const char *path, sp_gopcln **out)
{
	size_t nph, fsize;
	const unsigned char *raw = (const unsigned char *)elf_rawfile(elf, &fsize);
	if (!raw || elf_getphdrnum(elf, &nph) != 0)
		return;
	sp_go_region *regions = NULL;
	size_t n = 0, cap = 0;
	uint64_t text_lo = 0, text_hi = 0;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !ph.p_filesz ||
		    ph.p_offset > fsize || fsize - ph.p_offset < ph.p_filesz)
			continue;
		if (ph.p_flags & PF_X) {
			text_lo = ph.p_vaddr;
			text_hi = ph.p_vaddr + ph.p_filesz;
		} else {
			sp_go_region g = {ph.p_vaddr, raw + ph.p_offset, ph.p_filesz};
			SP_PUSH(regions, n, cap, g);
		}
	}
	char *what = sp_xasprintf("%s: Go pc-line table", path);
	for (size_t i = 0; i < n && !*out; i++) {
		const sp_go_region *g = &regions[i];
		uint64_t first = (8 - (g->vaddr & 7)) & 7;
		for (uint64_t o = first; o + 16 <= g->size && !*out; o += 8) {
			if (!header_like(g->data + o))
				continue;
			sp_gopcln_input in = {.data = g->data + o, .size = g->size - o,
					      .vaddr = g->vaddr + o, .text_start = text_lo,
					      .regions = regions, .n_regions = n};
			in.gofunc = sp_gopcln_find_gofunc(in.data, in.size, in.vaddr, regions, n);
			sp_error *e = sp_gopcln_open(&in, what, out);
			sp_error_free(e);
			if (*out && (!(*out)->nfunc || sp_gopcln_entry(*out, 0) < text_lo ||
				     sp_gopcln_entry(*out, (size_t)(*out)->nfunc) > text_hi)) {
				sp_gopcln_free(*out); /* not a table of this file's code */
				*out = NULL;
			}
		}
	}
	free(what);
	free(regions);
}

sp_error *sp_gopcln_from_elf(Elf *elf, const char *path, sp_gopcln **out)
{
	*out = NULL;
	size_t shstrndx = 0;
	if (!elf)
		return NULL;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		shstrndx = 0;
	sp_go_region *regions = NULL, tab = {0};
	size_t n = 0, cap = 0;
	uint64_t text = 0;
	bool have = false;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !(sh.sh_flags & SHF_ALLOC))
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		Elf_Data *d = elf_rawdata(scn, NULL);
		if (!name || !d || !d->d_buf || d->d_size == 0)
			continue;
		sp_go_region g = {sh.sh_addr, d->d_buf, d->d_size};
		if (strcmp(name, ".text") == 0)
			text = sh.sh_addr;
		if (strcmp(name, ".gopclntab") == 0 || strcmp(name, ".data.rel.ro.gopclntab") == 0) {
			tab = g;
			have = true;
		}
		if (!(sh.sh_flags & SHF_EXECINSTR))
			SP_PUSH(regions, n, cap, g);
	}
	size_t nsec;
	if (!have) {
		free(regions);
		if (elf_getshdrnum(elf, &nsec) == 0 && nsec == 0)
			from_segments(elf, path, out);
		return NULL;
	}
	sp_gopcln_input in = {.data = tab.data, .size = tab.size, .vaddr = tab.vaddr,
			      .text_start = text, .regions = regions, .n_regions = n};
	in.gofunc = sp_gopcln_find_gofunc(tab.data, tab.size, tab.vaddr, regions, n);
	char *what = sp_xasprintf("%s: .gopclntab", path);
	sp_error *e = sp_gopcln_open(&in, what, out);
	free(what);
	free(regions);
	return e;
}
