/* read.c — the index reader: the file mapped, checked, and read in place.
 *
 * Opening reads and checks the header's first page, and nothing else:
 * magic, version, revision, size, that page's checksum (it holds the
 * section table, the top table of blocks and the first checksums of the
 * body's pages), the build id, every section's place and every table's
 * size.  The body is read through one cursor (indexp.h) over ranges first
 * checked against their section and their pages' checksums: a page is
 * checked the first time a look-up reads it (a bit per page remembers it;
 * a checksum in a later page of the header is trusted once that page
 * matched its own), so one address reads and checks a few pages of a
 * large file, and a damaged page is found before any of its bytes is
 * used.  Nothing read from the file is trusted further: every
 * count, offset and reference is checked against what it points into, a
 * chain of nodes only ever goes to smaller numbers, and decoding stops at
 * the end of its range, so a hostile file gives an error, never a read out
 * of bounds or a loop.
 *
 * A look-up: the block whose first address is the greatest at or below the
 * address (the top table in the header names the page of BLOCKS, a binary
 * search in that page the block), its rows decoded up to the address (at
 * most SPX_ROWS_PER_BLOCK, in one page), then the row's leaf node and its
 * outer nodes, out to the outermost frame.
 */
#include "symbolize/index/indexp.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define FRAME_BLOCK 4096

typedef struct {
	const sp_frame *f;
	size_t n;
} result;

/* A row: where it starts, its leaf (+ 1; 0 nothing known) and the
 * innermost frame's position. */
typedef struct {
	uint64_t start, ctx, file, discr;
	int64_t line, col;
} row;

struct sp_index {
	char *file;
	const unsigned char *base;
	size_t size;
	bool mapped;
	sp_demangle_style style;
	uint64_t body;               /* offset of the body (the header's size) */
	uint64_t first_addr;         /* block addresses are from here */
	size_t pages;
	const unsigned char *crcs;   /* the body pages' checksums (in the header) */
	uint64_t *checked;           /* a bit per page whose checksum matched */
	const unsigned char *hcrcs;  /* the checksums of the header's pages after its first */
	size_t hpages;               /* the header's pages */
	uint64_t *hchecked;          /* a bit per header page whose checksum matched */
	const unsigned char *top;    /* per page of BLOCKS, its first block's address */
	size_t n_top;
	uint64_t sec_off[SPX_N_SECTIONS], sec_size[SPX_N_SECTIONS];
	unsigned flags;
	size_t n_files, n_funcs, n_nodes, n_blocks;
	size_t n_rows;               /* counted by sp_index_verify */
	char *build_id;              /* printable */
	/* what the header records: string offsets (0: none), read when asked */
	uint32_t meta_off[3];
	bool meta_read[3];
	const char *meta[3];         /* the debug path, the split units' error, the source */
	sp_error *damaged;           /* the first damage found */
	/* file names made: file id + 1 -> index into paths */
	sp_u64map file_paths;
	char **paths;
	size_t n_paths, cap_paths;
	/* names demangled: string offset -> index into dnames + 1 (0: as it is) */
	sp_u64map demangled;
	char **dnames;
	size_t n_dnames, cap_dnames;
	sp_frame scratch[SPX_MAX_FRAMES];
	/* the block decoded last (dec_block == n_blocks: none) */
	uint64_t dec_block, dec_end;
	uint64_t dec_stop;           /* where its last row ends in ROWS */
	row rows[SPX_ROWS_PER_BLOCK];
	size_t n_rows_dec;
	/* the chain of the leaf asked last (chain_ctx 0: none) */
	uint64_t chain_ctx;
	size_t chain_n;
	sp_frame chain[SPX_MAX_FRAMES];
	/* sp_index_resolve's answers per address */
	sp_u64map addr_cache;
	result *results;
	size_t n_results, cap_results;
	sp_frame **blocks;
	size_t n_blocks_kept, cap_blocks, block_used;
};

static sp_error *bad(const sp_index *ix, uint64_t off, const char *fmt, ...) SP_PRINTF(3, 4);
static sp_error *bad(const sp_index *ix, uint64_t off, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return sp_error_new(SP_E_MALFORMED, "%s: offset %llu: %s", ix->file,
			    (unsigned long long)off, what);
}

/* Marks IX damaged with E (consumed) unless it already is; false. */
static bool damage(sp_index *ix, sp_error *e)
{
	if (!ix->damaged)
		ix->damaged = e;
	else
		sp_error_free(e);
	return false;
}

/* Checks the header's page J (after its first, which opening checked)
 * against its checksum, once. */
static bool need_header_page(sp_index *ix, uint64_t j)
{
	if (j == 0 || (ix->hchecked[j / 64] & ((uint64_t)1 << (j % 64))))
		return true;
	uint32_t stored = (uint32_t)spx_le(ix->hcrcs + 4 * (j - 1), 4);
	if (sp_crc32c(0, ix->base + j * SPX_PAGE, SPX_PAGE) != stored)
		return damage(ix, bad(ix, j * SPX_PAGE,
				      "header page %llu (%zu bytes, the body pages' checksums) "
				      "does not match its checksum: the file is damaged",
				      (unsigned long long)j, SPX_PAGE));
	ix->hchecked[j / 64] |= (uint64_t)1 << (j % 64);
	return true;
}

/* Checks the pages of the body that hold [OFF, OFF + LEN) of the file
 * (inside the body) against their checksums, those not checked yet (and
 * first the header's page that holds each one's checksum). */
static bool need(sp_index *ix, uint64_t off, uint64_t len)
{
	if (len == 0)
		return true;
	uint64_t first = (off - ix->body) >> SPX_PAGE_SHIFT;
	uint64_t last = (off + len - 1 - ix->body) >> SPX_PAGE_SHIFT;
	for (uint64_t p = first; p <= last; p++) {
		if (ix->checked[p / 64] & ((uint64_t)1 << (p % 64)))
			continue;
		if (!need_header_page(ix, (uint64_t)(ix->crcs + 4 * p - ix->base) / SPX_PAGE))
			return false;
		uint64_t at = ix->body + p * SPX_PAGE;
		size_t n = ix->size - at < SPX_PAGE ? (size_t)(ix->size - at) : SPX_PAGE;
		uint32_t stored = (uint32_t)spx_le(ix->crcs + 4 * p, 4);
		if (sp_crc32c(0, ix->base + at, n) != stored)
			return damage(ix, bad(ix, at,
					      "page %llu (%zu bytes) does not match its checksum: "
					      "the file is damaged",
					      (unsigned long long)p, n));
		ix->checked[p / 64] |= (uint64_t)1 << (p % 64);
	}
	return true;
}

/* A cursor over [OFF, OFF + LEN) of section KIND, its pages checked;
 * false (IX damaged) when the range is outside the section. */
static bool sec_cur(sp_index *ix, unsigned kind, uint64_t off, uint64_t len, spx_cur *c)
{
	uint64_t size = ix->sec_size[kind - 1];
	if (off > size || len > size - off)
		return damage(ix, bad(ix, ix->sec_off[kind - 1] + off,
				      "%llu bytes past the end of section %u (%llu bytes)",
				      (unsigned long long)len, kind, (unsigned long long)size));
	uint64_t at = ix->sec_off[kind - 1] + off;
	if (!need(ix, at, len))
		return false;
	c->p = ix->base + at;
	c->end = c->p + len;
	c->bad = false;
	return true;
}

/* Entry I of the table of u32 section KIND. */
static bool table_u32(sp_index *ix, unsigned kind, uint64_t i, uint32_t *v)
{
	spx_cur c;
	if (!sec_cur(ix, kind, 4 * i, 4, &c))
		return false;
	*v = (uint32_t)spx_le(c.p, 4);
	return true;
}

/* The first address of block I and where its rows start. */
static bool block_entry(sp_index *ix, uint64_t i, uint64_t *addr, uint32_t *off)
{
	uint32_t rel;
	if (!table_u32(ix, SPX_SEC_BLOCKS, 2 * i, &rel) ||
	    !table_u32(ix, SPX_SEC_BLOCKS, 2 * i + 1, off))
		return false;
	*addr = ix->first_addr + rel;
	return true;
}

/* The string at OFF of STRINGS (whose last byte is NUL, checked at open),
 * its pages checked; NULL (IX damaged) when OFF is outside. */
static const char *string_at(sp_index *ix, uint64_t off)
{
	uint64_t size = ix->sec_size[SPX_SEC_STRINGS - 1], at = off;
	if (off >= size) {
		damage(ix, bad(ix, ix->sec_off[SPX_SEC_STRINGS - 1],
			       "string offset %llu past the names (%llu bytes)",
			       (unsigned long long)off, (unsigned long long)size));
		return NULL;
	}
	const unsigned char *s = ix->base + ix->sec_off[SPX_SEC_STRINGS - 1];
	for (;;) { /* page by page up to its NUL */
		uint64_t file_at = ix->sec_off[SPX_SEC_STRINGS - 1] + at;
		uint64_t page_end = ((file_at - ix->body) / SPX_PAGE + 1) * SPX_PAGE + ix->body;
		uint64_t n = page_end - file_at < size - at ? page_end - file_at : size - at;
		if (n == 0) { /* not reached: the names end with a NUL (checked at open) */
			damage(ix, bad(ix, ix->sec_off[SPX_SEC_STRINGS - 1] + off,
				       "a name without its NUL"));
			return NULL;
		}
		if (!need(ix, file_at, n))
			return NULL;
		if (memchr(s + at, 0, (size_t)n))
			return (const char *)s + off;
		at += n;
	}
}

/* Demangled per the reader's style, cached by the string's offset. */
static const char *demangled(sp_index *ix, uint64_t off, const char *raw)
{
	uint64_t v;
	if (sp_u64map_get(&ix->demangled, off, &v))
		return v ? ix->dnames[v - 1] : raw;
	char *dn = sp_demangle(raw, ix->style);
	if (!dn) {
		sp_u64map_put(&ix->demangled, off, 0);
		return raw;
	}
	SP_PUSH(ix->dnames, ix->n_dnames, ix->cap_dnames, dn);
	sp_u64map_put(&ix->demangled, off, ix->n_dnames);
	return dn;
}

/* The name of file ID + 1 (0: none) into *OUT: its directory and base
 * name joined, made once (borrowed until sp_index_free). */
static bool file_name(sp_index *ix, uint64_t id, const char **out)
{
	uint32_t dir, base;
	uint64_t v;
	*out = NULL;
	if (id == 0)
		return true;
	if (sp_u64map_get(&ix->file_paths, id, &v)) {
		*out = ix->paths[v];
		return true;
	}
	if (id > ix->n_files)
		return damage(ix, bad(ix, ix->sec_off[SPX_SEC_FILES - 1],
				      "file %llu of %zu", (unsigned long long)id - 1, ix->n_files));
	const char *d = NULL, *b;
	if (!table_u32(ix, SPX_SEC_FILES, 2 * (id - 1), &dir) ||
	    !table_u32(ix, SPX_SEC_FILES, 2 * (id - 1) + 1, &base) ||
	    (dir && !(d = string_at(ix, dir - 1))) || !(b = string_at(ix, base)))
		return false;
	char *path = d ? sp_xasprintf("%s/%s", d, b) : sp_xstrdup(b);
	SP_PUSH(ix->paths, ix->n_paths, ix->cap_paths, path);
	sp_u64map_put(&ix->file_paths, id, ix->n_paths - 1);
	*out = path;
	return true;
}

/* The cursor over the run of SPX_SPARSE records of section DATA (its
 * offsets in INDEX) that holds record I (< COUNT), moved to it: the
 * records before it in the run are skipped with SKIP. */
static bool sparse_cur(sp_index *ix, unsigned index, unsigned data, uint64_t i, uint64_t count,
		       bool (*skip)(spx_cur *c), spx_cur *c)
{
	uint32_t from, to = (uint32_t)ix->sec_size[data - 1];
	uint64_t run = i / SPX_SPARSE;
	if (!table_u32(ix, index, run, &from) ||
	    ((run + 1) * SPX_SPARSE < count && !table_u32(ix, index, run + 1, &to)))
		return false;
	if (from > to)
		return damage(ix, bad(ix, ix->sec_off[index - 1] + 4 * run,
				      "records from %u end at %u", from, to));
	if (!sec_cur(ix, data, from, to - from, c))
		return false;
	for (uint64_t k = run * SPX_SPARSE; k < i; k++)
		if (!skip(c))
			return damage(ix, bad(ix, ix->sec_off[data - 1] + from,
					      "record %llu cut short", (unsigned long long)k));
	return true;
}

/* A decoded node. */
typedef struct {
	unsigned flags;
	uint64_t id, func, parent, file, discr, msg; /* func: the error code of an error */
	int64_t line, col;
} node;

/* Decodes a node at C (the one numbered ID; SEC: the start of NODES, NULL
 * when only skipping it) into *N, its function the offset of its record
 * in NODES (one of its own, or before it); the reason it is wrong, or
 * NULL. */
static const char *decode_node(spx_cur *c, uint64_t id, const unsigned char *sec, node *n)
{
	*n = (node){.id = id};
	const unsigned char *start = c->p;
	n->flags = spx_byte(c);
	unsigned kind = n->flags & SPX_NODE_KIND;
	if (kind == SPX_NODE_ERROR) {
		n->func = spx_uleb(c);
		n->msg = spx_uleb(c);
	} else if (n->flags & SPX_NODE_FUNC) {
		n->func = sec ? (uint64_t)(c->p - sec) : 0;
		for (int k = 0; k < 3; k++)
			spx_uleb(c);
		spx_sleb(c);
	} else {
		n->func = spx_uleb(c);
		if (sec && !c->bad && n->func >= (uint64_t)(start - sec))
			return "of a function not before it";
	}
	if (kind != SPX_NODE_ERROR && (n->flags & SPX_NODE_PARENT)) {
		uint64_t d = spx_uleb(c);
		n->parent = id - d;
		n->file = spx_uleb(c);
		n->line = spx_sleb(c);
		n->col = spx_sleb(c);
		n->discr = spx_uleb(c);
		if (d == 0 || d > id)
			return "whose parent does not come before it";
	}
	if (c->bad)
		return "cut short";
	if (n->col < INT32_MIN || n->col > INT32_MAX)
		return "with a column past 31 bits";
	if (kind == 3 || (n->flags & ~15u))
		return "of an unknown kind";
	if (kind == SPX_NODE_ERROR)
		return (n->flags & (SPX_NODE_PARENT | SPX_NODE_FUNC)) || n->func == 0 ||
				       n->func >= SP_E_COUNT_
			       ? "an error that is not one"
			       : NULL;
	return n->discr > 0xffffff ? "with a discriminator over 24 bits" : NULL;
}

static bool skip_node(spx_cur *c)
{
	node n;
	return decode_node(c, UINT64_MAX, NULL, &n) == NULL;
}

/* Node I, decoded and checked. */
static bool read_node(sp_index *ix, uint64_t i, node *n)
{
	spx_cur c;
	if (i >= ix->n_nodes)
		return damage(ix, bad(ix, ix->sec_off[SPX_SEC_NODES - 1], "node %llu of %zu",
				      (unsigned long long)i, ix->n_nodes));
	if (!sparse_cur(ix, SPX_SEC_NODE_INDEX, SPX_SEC_NODES, i, ix->n_nodes, skip_node, &c))
		return false;
	const unsigned char *at = c.p;
	const char *why = decode_node(&c, i, ix->base + ix->sec_off[SPX_SEC_NODES - 1], n);
	if (why)
		return damage(ix, bad(ix, (uint64_t)(at - ix->base), "node %llu %s",
				      (unsigned long long)i, why));
	return true;
}

/* The function record at offset OFF of NODES (inside a node before the
 * one naming it): its names' codes and declaration line; false (IX
 * damaged) when it is cut short or its line is past 31 bits. */
static bool func_record(sp_index *ix, uint64_t off, uint64_t v[3], int64_t *start)
{
	spx_cur c;
	uint64_t size = ix->sec_size[SPX_SEC_NODES - 1];
	if (off >= size)
		return damage(ix, bad(ix, ix->sec_off[SPX_SEC_NODES - 1],
				      "a function at %llu, past the nodes (%llu bytes)",
				      (unsigned long long)off, (unsigned long long)size));
	if (!sec_cur(ix, SPX_SEC_NODES, off, size - off < SPX_FUNC_MAX ? size - off : SPX_FUNC_MAX,
		     &c))
		return false;
	const unsigned char *at = c.p;
	for (int k = 0; k < 3; k++)
		v[k] = spx_uleb(&c);
	*start = spx_sleb(&c);
	if (c.bad || *start < INT32_MIN || *start > INT32_MAX)
		return damage(ix, bad(ix, (uint64_t)(at - ix->base),
				      "function at %llu cut short, or its line past 31 bits",
				      (unsigned long long)off));
	return true;
}

/* The name and declaration line of the function at offset AT of NODES
 * into F. */
static bool func_frame(sp_index *ix, uint64_t at, bool go, sp_frame *f)
{
	uint64_t v[3];
	int64_t start;
	if (!func_record(ix, at, v, &start))
		return false;
	uint64_t sys = v[0], name = v[1], gnu = v[2];
	f->start_line = (int32_t)start;
	/* the raw name, the name and binutils' name before demangling */
	const char *s[3] = {NULL, NULL, NULL};
	uint64_t off[3] = {sys ? sys - 1 : 0, name >= 2 ? name - 2 : 0, gnu >= 2 ? gnu - 2 : 0};
	bool has[3] = {sys != 0, name >= 2, gnu >= 2};
	for (int k = 0; k < 3; k++)
		if (has[k] && !(s[k] = string_at(ix, off[k])))
			return false;
	if (name == 0) {
		s[1] = s[0];
		off[1] = off[0];
	}
	if (gnu == 1) {
		s[2] = s[1];
		off[2] = off[1];
	}
	f->system_name = s[0];
	f->name = s[1] && !go ? demangled(ix, off[1], s[1]) : s[1];
	f->gnu_name = s[2] && !go ? demangled(ix, off[2], s[2]) : s[2];
	return true;
}

/* The call site of node N into F's position. */
static bool call_site(sp_index *ix, const node *n, sp_frame *f)
{
	if (!file_name(ix, n->file, &f->file))
		return false;
	f->line = n->line;
	f->column = (int32_t)n->col;
	f->discriminator = (uint32_t)n->discr;
	return true;
}

/* The block whose first address is the greatest at or below ADDR: false
 * with *B == n_blocks when none is.  The top table (in the header) says
 * which page of BLOCKS holds it; that page's first entry must say the
 * same. */
static bool find_block(sp_index *ix, uint64_t addr, uint64_t *b)
{
	*b = ix->n_blocks;
	if (addr < ix->first_addr)
		return true;
	addr -= ix->first_addr;
	uint64_t lo = 0, hi = ix->n_top;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (spx_le(ix->top + 4 * mid, 4) <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return true;
	uint64_t page = lo - 1, first = page * SPX_BLOCKS_PER_PAGE, v;
	uint32_t off;
	if (!block_entry(ix, first, &v, &off))
		return false;
	if (v - ix->first_addr != spx_le(ix->top + 4 * page, 4))
		return damage(ix, bad(ix, ix->sec_off[SPX_SEC_BLOCKS - 1] + first * SPX_BLOCK_ENTRY,
				      "block %llu at %#llx, the top table says %#llx",
				      (unsigned long long)first, (unsigned long long)(v - ix->first_addr),
				      (unsigned long long)spx_le(ix->top + 4 * page, 4)));
	lo = first + 1;
	hi = first + SPX_BLOCKS_PER_PAGE < ix->n_blocks ? first + SPX_BLOCKS_PER_PAGE
							: ix->n_blocks;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (!block_entry(ix, mid, &v, &off))
			return false;
		if (v - ix->first_addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	*b = lo - 1;
	return true;
}

/* What decoding a block keeps from row to row (as the writer does). */
typedef struct {
	uint64_t addr, base, cur, prev;
	row st, prev_st; /* the positions of CUR and PREV */
} row_state;

/* Decodes row K of a block from C into S->st; the reason it is wrong, or
 * NULL. */
static const char *decode_row(spx_cur *c, unsigned k, uint64_t n_nodes, row_state *s)
{
	unsigned op = spx_byte(c);
	row *st = &s->st;
	uint64_t d;
	if (op & SPX_SHORT) {
		if (op & SPX_SHORT_COLUMN)
			st->col = spx_sleb(c);
		st->line = (int64_t)((uint64_t)st->line + (uint64_t)((op >> SPX_SHORT_LINE_SHIFT) & 3) - 1);
		d = (op & SPX_SHORT_ADDR) + 1;
		if (k == 0)
			return "a short row first in its block";
	} else {
		uint64_t ctx = s->cur;
		switch (op & 3) {
		case SPX_CTX_NEXT: ctx = s->base + 1; break;
		case SPX_CTX_SWAP: ctx = s->prev; break;
		case SPX_CTX_EXPLICIT: {
			uint64_t v = spx_uleb(c), z = v - 1;
			ctx = v ? s->base + ((z >> 1) ^ (0 - (z & 1))) : 0;
			break;
		}
		}
		if (ctx > n_nodes)
			return "a row names a node that does not exist";
		if (ctx != s->cur) {
			row keep = s->st;
			if ((op & 3) == SPX_CTX_SWAP)
				s->st = s->prev_st;
			s->prev_st = keep;
			s->prev = s->cur;
			s->cur = ctx;
		}
		if (ctx)
			s->base = ctx;
		if (op & SPX_ROW_COLUMN)
			st->col = spx_sleb(c);
		if (op & SPX_ROW_FILE_DISCR) {
			uint64_t v = spx_uleb(c);
			if (v >> 1)
				st->file = (v >> 1) - 1;
			if (v & 1)
				st->discr = spx_uleb(c);
		}
		unsigned lc = (op >> SPX_LINE_SHIFT) & 7;
		int64_t dl = lc == 7 ? spx_sleb(c) : (int64_t)lc - 2;
		st->line = (int64_t)((uint64_t)st->line + (uint64_t)dl);
		st->ctx = ctx;
		d = k > 0 ? spx_uleb(c) : 0;
		if (k > 0 && d == 0)
			return "rows out of address order";
	}
	if (s->addr + d < s->addr)
		return "rows out of address order";
	s->addr += d;
	st->start = s->addr;
	return NULL;
}

/* Decodes every row of block B into ix->rows (ix->n_rows_dec of them),
 * ix->dec_block then B and ix->dec_end the next block's start (for the
 * last block of a page of BLOCKS, the top table's next entry: its page is
 * not read). */
static bool decode_block(sp_index *ix, uint64_t b)
{
	uint32_t from, next_off;
	uint64_t to = ix->sec_size[SPX_SEC_ROWS - 1];
	bool exact = true; /* TO is where the next block starts */
	row_state s = {0};
	spx_cur c;
	ix->dec_block = ix->n_blocks; /* nothing decoded while this fails */
	if (!block_entry(ix, b, &s.addr, &from))
		return false;
	ix->dec_end = UINT64_MAX;
	if (b + 1 < ix->n_blocks && (b + 1) % SPX_BLOCKS_PER_PAGE == 0) {
		ix->dec_end = ix->first_addr +
			      spx_le(ix->top + 4 * ((b + 1) / SPX_BLOCKS_PER_PAGE), 4);
		exact = false; /* it ends on its page */
		uint64_t page_end = from - from % SPX_PAGE + SPX_PAGE;
		to = to < page_end ? to : page_end;
	} else if (b + 1 < ix->n_blocks) {
		if (!block_entry(ix, b + 1, &ix->dec_end, &next_off))
			return false;
		to = next_off;
	}
	if (from > to)
		return damage(ix, bad(ix, ix->sec_off[SPX_SEC_BLOCKS - 1] + SPX_BLOCK_ENTRY * b,
				      "block %llu ends before it starts", (unsigned long long)b));
	if (to - from > SPX_PAGE - from % SPX_PAGE)
		return damage(ix, bad(ix, ix->sec_off[SPX_SEC_BLOCKS - 1] + SPX_BLOCK_ENTRY * b,
				      "block %llu crosses a page", (unsigned long long)b));
	if (!sec_cur(ix, SPX_SEC_ROWS, from, to - from, &c))
		return false;
	const unsigned char *start = c.p;
	unsigned count = spx_byte(&c) + 1;
	s.base = spx_uleb(&c);
	const char *why = from == to	      ? "no row"
			  : count > SPX_ROWS_PER_BLOCK ? "more rows than a block holds"
			  : s.base > ix->n_nodes    ? "a node that does not exist"
						    : NULL;
	unsigned k = 0;
	for (; !why && !c.bad && k < count; k++) {
		why = decode_row(&c, k, ix->n_nodes, &s);
		if (!why && s.st.start >= ix->dec_end)
			why = "a row at or past the next block's first address";
		if (!why)
			ix->rows[k] = s.st;
	}
	if (!why && c.bad)
		why = "a row cut short";
	while (!why && exact && c.p < c.end) /* up to the next block: zero bytes */
		if (*c.p++)
			why = "bytes after its last row";
	if (why)
		return damage(ix, bad(ix, ix->sec_off[SPX_SEC_ROWS - 1] + from, "block %llu: %s",
				      (unsigned long long)b, why));
	ix->n_rows_dec = k;
	ix->dec_block = b;
	ix->dec_stop = from + (uint64_t)(c.p - start);
	return true;
}

/* The row in force at ADDR, or NULL (*OK false when IX is damaged). */
static const row *row_at(sp_index *ix, uint64_t addr, bool *ok)
{
	*ok = true;
	/* look-ups come in address order: often the block decoded last */
	if (ix->dec_block == ix->n_blocks || addr < ix->rows[0].start || addr >= ix->dec_end) {
		uint64_t b;
		if (!find_block(ix, addr, &b) || (b < ix->n_blocks && !decode_block(ix, b))) {
			*ok = false;
			return NULL;
		}
		if (b == ix->n_blocks) /* below the first row */
			return NULL;
	}
	size_t lo = 0, hi = ix->n_rows_dec;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ix->rows[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return &ix->rows[lo - 1]; /* rows[0] starts at or below ADDR */
}

/* The frames of node N0 (not an error's) into F, innermost first, the
 * innermost's position left empty: how many, 0 when IX is damaged. */
static size_t chain_frames(sp_index *ix, const node *n0, sp_frame *f)
{
	node n = *n0;
	size_t k = 0;
	f[0] = (sp_frame){0};
	for (;;) {
		if (!func_frame(ix, n.func, (n.flags & SPX_NODE_KIND) == SPX_NODE_GO, &f[k]))
			return 0;
		k++;
		if (!(n.flags & SPX_NODE_PARENT))
			break;
		if (k == SPX_MAX_FRAMES) {
			damage(ix, bad(ix, ix->sec_off[SPX_SEC_NODES - 1],
				       "a chain of more than %d frames", SPX_MAX_FRAMES));
			return 0;
		}
		node call = n;
		f[k] = (sp_frame){0};
		if (!read_node(ix, call.parent, &n) || !call_site(ix, &call, &f[k]))
			return 0;
		if ((n.flags & SPX_NODE_KIND) == SPX_NODE_ERROR) {
			damage(ix, bad(ix, ix->sec_off[SPX_SEC_NODES - 1],
				       "node %llu: its parent is an error", (unsigned long long)call.id));
			return 0;
		}
	}
	for (size_t i = 0; i < k; i++)
		f[i].inlined = i + 1 < k;
	return k;
}

/* The frames of row R into the scratch frames (*N of them). */
static sp_error *chain(sp_index *ix, const row *r, size_t *n)
{
	if (r->discr > 0xffffff || r->col < INT32_MIN || r->col > INT32_MAX) {
		damage(ix, bad(ix, ix->sec_off[SPX_SEC_ROWS - 1],
			       "a row's discriminator over 24 bits or column past 31 bits"));
		return sp_error_dup(ix->damaged);
	}
	/* the chain of the node asked last is kept: neighbouring rows share it */
	if (r->ctx != ix->chain_ctx) {
		node nd;
		ix->chain_ctx = 0;
		if (!read_node(ix, r->ctx - 1, &nd))
			return sp_error_dup(ix->damaged);
		if ((nd.flags & SPX_NODE_KIND) == SPX_NODE_ERROR) {
			const char *msg = string_at(ix, nd.msg);
			return msg ? sp_error_new((sp_errcode)nd.func, "%s", msg)
				   : sp_error_dup(ix->damaged);
		}
		if (!(ix->chain_n = chain_frames(ix, &nd, ix->chain)))
			return sp_error_dup(ix->damaged);
		ix->chain_ctx = r->ctx;
	}
	sp_frame *f = ix->scratch;
	memcpy(f, ix->chain, ix->chain_n * sizeof(*f));
	if (!file_name(ix, r->file, &f[0].file))
		return sp_error_dup(ix->damaged);
	f[0].line = (int64_t)((uint64_t)r->line + (uint64_t)f[0].start_line);
	f[0].column = (int32_t)r->col;
	f[0].discriminator = (uint32_t)r->discr;
	*n = ix->chain_n;
	return NULL;
}

static sp_error *lookup(sp_index *ix, uint64_t addr, size_t *n)
{
	bool ok;
	*n = 0;
	if (ix->damaged)
		return sp_error_dup(ix->damaged);
	const row *r = row_at(ix, addr, &ok);
	if (!ok)
		return sp_error_dup(ix->damaged);
	return r && r->ctx ? chain(ix, r, n) : NULL;
}

sp_error *sp_index_resolve_once(sp_index *ix, uint64_t vaddr, const sp_frame **frames,
				size_t *n)
{
	sp_error *e = lookup(ix, vaddr, n);
	*frames = !e && *n ? ix->scratch : NULL;
	if (e)
		*n = 0;
	return e;
}

/* Copies N frames into blocks that never move. */
static const sp_frame *keep_frames(sp_index *ix, const sp_frame *f, size_t n)
{
	if (n == 0)
		return NULL;
	if (ix->n_blocks_kept == 0 || ix->block_used + n > FRAME_BLOCK) {
		SP_PUSH(ix->blocks, ix->n_blocks_kept, ix->cap_blocks,
			sp_xreallocarray(NULL, FRAME_BLOCK, sizeof(sp_frame)));
		ix->block_used = 0;
	}
	sp_frame *dst = ix->blocks[ix->n_blocks_kept - 1] + ix->block_used;
	memcpy(dst, f, n * sizeof(*f));
	ix->block_used += n;
	return dst;
}

sp_error *sp_index_resolve(sp_index *ix, uint64_t vaddr, const sp_frame **frames, size_t *n)
{
	uint64_t v;
	if (sp_u64map_get(&ix->addr_cache, vaddr, &v)) {
		*frames = ix->results[v].f;
		*n = ix->results[v].n;
		return NULL;
	}
	sp_error *e = sp_index_resolve_once(ix, vaddr, frames, n);
	if (e)
		return e;
	result r = {keep_frames(ix, *frames, *n), *n};
	SP_PUSH(ix->results, ix->n_results, ix->cap_results, r);
	sp_u64map_put(&ix->addr_cache, vaddr, ix->n_results - 1);
	*frames = r.f;
	return NULL;
}

/* ------------------------------------------------------------------------ */
/* Opening.                                                                  */

/* BUILD_ID (N bytes from the file) for a message: as it is when printable,
 * else in hex (caller frees). */
static char *printable_id(const unsigned char *id, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (id[i] < 0x20 || id[i] > 0x7e)
			return sp_hex_string(id, n);
	return sp_xstrndup((const char *)id, n);
}

/* The fixed part of the header: magic, version, revision, sizes, the
 * checksum of the header's first page. */
static sp_error *check_fixed(sp_index *ix)
{
	const unsigned char *p = ix->base;
	if (ix->size < SPX_FIXED || memcmp(p, SPX_MAGIC, SPX_MAGIC_LEN) != 0)
		return sp_error_new(SP_E_UNRECOGNIZED, "%s: not a symbol index (no magic number)",
				    ix->file);
	uint32_t version = (uint32_t)spx_le(p + SPX_H_VERSION, 4),
		 rev = (uint32_t)spx_le(p + SPX_H_REVISION, 4);
	if (version != SP_INDEX_VERSION)
		return sp_error_new(SP_E_UNSUPPORTED,
				    "%s: index format version %u, this symprof reads version %u",
				    ix->file, version, SP_INDEX_VERSION);
	if (rev != SP_INDEX_REVISION)
		return sp_error_new(SP_E_UNSUPPORTED,
				    "%s: stale: made by a symprof whose answers were revision %u, "
				    "this one's are revision %u",
				    ix->file, rev, SP_INDEX_REVISION);
	uint64_t fsize = spx_le(p + SPX_H_SIZE, 8), h = spx_le(p + SPX_H_HSIZE, 4);
	if (fsize != ix->size)
		return bad(ix, SPX_H_SIZE, "its size field says %llu bytes, the file has %zu (cut "
			   "short or grown)", (unsigned long long)fsize, ix->size);
	if (h < SPX_PAGE || h % SPX_PAGE || h > ix->size)
		return bad(ix, SPX_H_HSIZE, "header size %llu (a multiple of %zu, from %zu to the "
			   "file's %zu bytes, expected)", (unsigned long long)h, SPX_PAGE, SPX_PAGE,
			   ix->size);
	static const unsigned char zero[4];
	uint32_t crc = sp_crc32c(0, p, SPX_H_CRC);
	crc = sp_crc32c(crc, zero, 4);
	crc = sp_crc32c(crc, p + SPX_H_CRC + 4, SPX_PAGE - SPX_H_CRC - 4);
	if (crc != (uint32_t)spx_le(p + SPX_H_CRC, 4))
		return bad(ix, SPX_H_CRC, "the header's first page (%zu bytes) does not match its "
			   "checksum: the file is damaged", SPX_PAGE);
	ix->body = h;
	return NULL;
}

/* The header after its fixed part: counts, build id, section table, top
 * table, checksums. */
static sp_error *check_layout(sp_index *ix, const char *build_id)
{
	const unsigned char *p = ix->base;
	uint64_t shift = spx_le(p + SPX_H_SHIFT, 4), pages = spx_le(p + SPX_H_PAGES, 4),
		 nsec = spx_le(p + SPX_H_SECTIONS, 4), lid = spx_le(p + SPX_H_ID_LEN, 2),
		 k = spx_le(p + SPX_H_TOP, 4), h = ix->body;
	uint64_t want_pages = (ix->size - h + SPX_PAGE - 1) / SPX_PAGE;
	if (shift != SPX_PAGE_SHIFT || pages != want_pages)
		return bad(ix, SPX_H_SHIFT, "pages of 2^%llu bytes, %llu of them (2^%d and %llu "
			   "expected)", (unsigned long long)shift, (unsigned long long)pages,
			   SPX_PAGE_SHIFT, (unsigned long long)want_pages);
	if (nsec != SPX_N_SECTIONS || lid == 0 || lid > SPX_BUILD_ID_MAX)
		return bad(ix, SPX_H_SECTIONS, "%llu sections and a build id of %llu bytes (%d, and "
			   "1 to %d, expected)", (unsigned long long)nsec, (unsigned long long)lid,
			   SPX_N_SECTIONS, SPX_BUILD_ID_MAX);
	spx_header_parts pt = spx_parts(lid, nsec, k, h);
	uint64_t end = pt.crcs + 4 * pages;
	if (pt.crcs > SPX_PAGE || end > h || h - end >= SPX_PAGE)
		return bad(ix, SPX_H_HSIZE, "header size %llu, its parts make %llu (the top table "
			   "and the checksums of its later pages in its first page)",
			   (unsigned long long)h, (unsigned long long)end);
	if (build_id && (strlen(build_id) != lid || memcmp(p + SPX_FIXED, build_id, lid) != 0)) {
		char *id = printable_id(p + SPX_FIXED, (size_t)lid);
		sp_error *e = sp_error_new(SP_E_BUILD_ID_MISMATCH,
					   "%s: the index of build id %s, not of %s", ix->file, id,
					   build_id);
		free(id);
		return e;
	}
	ix->build_id = printable_id(p + SPX_FIXED, (size_t)lid);
	ix->flags = (unsigned)spx_le(p + SPX_H_FLAGS, 2);
	ix->first_addr = spx_le(p + SPX_H_BASE, 8);
	ix->pages = (size_t)pages;
	ix->crcs = p + pt.crcs;
	ix->hcrcs = p + pt.hcrcs;
	ix->hpages = (size_t)(h / SPX_PAGE);
	ix->top = p + pt.top;
	ix->n_top = (size_t)k;
	uint64_t prev_end = h;
	for (uint64_t i = 0; i < nsec; i++) {
		const unsigned char *e = p + pt.sections + SPX_SECTION_ENTRY * i;
		uint64_t kind = spx_le(e, 4), res = spx_le(e + 4, 4), off = spx_le(e + 8, 8),
			 size = spx_le(e + 16, 8);
		uint64_t align = kind >= SPX_SEC_BLOCKS ? SPX_PAGE : 8;
		if (kind != i + 1 || res != 0 || off % align || off < prev_end || off > ix->size ||
		    size > ix->size - off || size > UINT32_MAX)
			return bad(ix, pt.sections + SPX_SECTION_ENTRY * i,
				   "section entry %llu: kind %llu at %llu, %llu bytes (kind %llu, "
				   "in order, at a multiple of %llu and inside the file, expected)",
				   (unsigned long long)i, (unsigned long long)kind,
				   (unsigned long long)off, (unsigned long long)size,
				   (unsigned long long)i + 1, (unsigned long long)align);
		ix->sec_off[i] = off;
		ix->sec_size[i] = size;
		prev_end = off + size;
	}
	return NULL;
}

#define SEC_SIZE(kind) (ix->sec_size[(kind) - 1])

/* The tables' sizes against their counts (nothing of the body is read). */
static sp_error *check_tables(sp_index *ix)
{
	const unsigned char *p = ix->base;
	uint64_t fi = SEC_SIZE(SPX_SEC_FILES), nx = SEC_SIZE(SPX_SEC_NODE_INDEX),
		 bl = SEC_SIZE(SPX_SEC_BLOCKS);
	if (fi % 8 || bl % SPX_BLOCK_ENTRY || SEC_SIZE(SPX_SEC_STRINGS) < 1)
		return bad(ix, ix->sec_off[0], "tables of sizes that do not fit their entries");
	ix->n_files = (size_t)(fi / 8);
	ix->n_blocks = (size_t)(bl / SPX_BLOCK_ENTRY);
	ix->dec_block = ix->n_blocks;
	ix->n_funcs = (size_t)spx_le(p + SPX_H_FUNCS, 4);
	ix->n_nodes = (size_t)spx_le(p + SPX_H_NODES, 4);
	if (nx != 4 * ((ix->n_nodes + SPX_SPARSE - 1) / SPX_SPARSE))
		return bad(ix, SPX_H_NODES, "%zu nodes, an index of %llu bytes", ix->n_nodes,
			   (unsigned long long)nx);
	if (ix->n_top != (ix->n_blocks + SPX_BLOCKS_PER_PAGE - 1) / SPX_BLOCKS_PER_PAGE)
		return bad(ix, SPX_H_TOP, "a top table of %zu entries for %zu blocks", ix->n_top,
			   ix->n_blocks);
	for (unsigned i = 0; i < 3; i++)
		ix->meta_off[i] = (uint32_t)spx_le(p + SPX_H_DEBUG_PATH + 4 * i, 4);
	ix->checked = sp_xcalloc((ix->pages + 63) / 64 + 1, sizeof(uint64_t));
	ix->hchecked = sp_xcalloc((ix->hpages + 63) / 64 + 1, sizeof(uint64_t));
	return NULL;
}

static sp_error *open_common(sp_index *ix, const char *build_id)
{
	sp_error *e = check_fixed(ix);
	if (!e)
		e = check_layout(ix, build_id);
	if (!e)
		e = check_tables(ix);
	return e;
}

sp_error *sp_index_open_memory(const void *data, size_t n, const char *what,
			       const char *build_id, sp_demangle_style style, sp_index **out)
{
	sp_index *ix = sp_xcalloc(1, sizeof(*ix));
	ix->file = sp_xstrdup(what);
	ix->base = data;
	ix->size = n;
	ix->style = style;
	sp_error *e = open_common(ix, build_id);
	if (e) {
		sp_index_free(ix);
		ix = NULL;
	}
	*out = ix;
	return e;
}

sp_error *sp_index_open(const char *path, const char *build_id, sp_demangle_style style,
			sp_index **out)
{
	*out = NULL;
	/* not blocking: a FIFO named here is refused, not waited on */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return sp_error_new(errno == ENOENT ? SP_E_NOT_FOUND : SP_E_IO, "%s: %s", path,
				    strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
		int err = errno;
		bool reg = S_ISREG(st.st_mode);
		close(fd);
		return reg ? sp_error_new(st.st_size == 0 ? SP_E_MALFORMED : SP_E_IO, "%s: %s", path,
					  st.st_size == 0 ? "empty file" : strerror(err))
			   : sp_error_new(SP_E_IO, "%s: not a regular file", path);
	}
	size_t size = (size_t)st.st_size;
	void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return sp_error_new(SP_E_IO, "%s: cannot map: %s", path, strerror(errno));
	/* an answer reads a few pages (header, tables, one body page): from a
	 * cold page cache, read-ahead would read megabytes it never touches */
	(void)madvise(map, size, MADV_RANDOM);
	sp_error *e = sp_index_open_memory(map, size, path, build_id, style, out);
	if (e) {
		munmap(map, size);
		return e;
	}
	(*out)->mapped = true;
	return NULL;
}

void sp_index_free(sp_index *ix)
{
	if (!ix)
		return;
	if (ix->mapped)
		munmap((void *)ix->base, ix->size);
	free(ix->file);
	free(ix->build_id);
	free(ix->checked);
	free(ix->hchecked);
	sp_error_free(ix->damaged);
	sp_u64map_free(&ix->file_paths);
	for (size_t i = 0; i < ix->n_paths; i++)
		free(ix->paths[i]);
	free(ix->paths);
	sp_u64map_free(&ix->demangled);
	for (size_t i = 0; i < ix->n_dnames; i++)
		free(ix->dnames[i]);
	free(ix->dnames);
	sp_u64map_free(&ix->addr_cache);
	free(ix->results);
	for (size_t i = 0; i < ix->n_blocks_kept; i++)
		free(ix->blocks[i]);
	free(ix->blocks);
	free(ix);
}

/* What the header records, string I (0 the debug path, 1 the split
 * units' error, 2 the source), read the first time it is asked for (a
 * look-up reads none of them): NULL when none, or when it cannot be read
 * (IX then damaged). */
static const char *meta(const sp_index *cix, unsigned i)
{
	sp_index *ix = (sp_index *)cix; /* caches: the answer is the same */
	if (!ix->meta_read[i] && ix->meta_off[i]) {
		const char *s = string_at(ix, ix->meta_off[i]);
		ix->meta[i] = s && *s ? s : NULL;
	}
	ix->meta_read[i] = true;
	return ix->meta[i];
}

const char *sp_index_debug_path(const sp_index *ix)
{
	return meta(ix, 0);
}

const char *sp_index_source(const sp_index *ix)
{
	return meta(ix, 2);
}

const char *sp_index_build_id(const sp_index *ix)
{
	return ix->build_id;
}

const char *sp_index_file(const sp_index *ix)
{
	return ix->file;
}

sp_error *sp_index_split_error(const sp_index *ix)
{
	const char *msg = meta(ix, 1);
	return msg ? sp_error_new(SP_E_NOT_FOUND, "%s", msg) : NULL;
}

bool sp_index_damaged(const sp_index *ix)
{
	return ix->damaged != NULL;
}

void sp_index_stats_of(const sp_index *ix, sp_index_stats *out)
{
	*out = (sp_index_stats){
		.size = ix->size,
		.n_blocks = ix->n_blocks,
		.n_funcs = ix->n_funcs,
		.n_nodes = ix->n_nodes,
		.n_files = ix->n_files,
		.strings_size = (size_t)SEC_SIZE(SPX_SEC_STRINGS),
		.dwarf = (ix->flags & SPX_FLAG_DWARF) != 0,
		.go = (ix->flags & SPX_FLAG_GO) != 0,
		.symbols = (ix->flags & SPX_FLAG_SYMBOLS) != 0,
		.split_missing = (ix->flags & SPX_FLAG_SPLIT_MISSING) != 0,
	};
}

/* ------------------------------------------------------------------------ */
/* The whole file, for sp_index_verify.                                      */

static bool verify_row(sp_index *ix, const row *r)
{
	const char *f;
	if (r->discr > 0xffffff || r->col < INT32_MIN || r->col > INT32_MAX)
		return damage(ix, bad(ix, ix->sec_off[SPX_SEC_ROWS - 1],
				      "a row's discriminator over 24 bits"));
	return r->ctx == 0 || file_name(ix, r->file, &f);
}

/* Every node (with its whole chain; its function where a node before it,
 * or itself, holds one), function and file, the names' first and last
 * bytes and what the header records. */
static sp_error *verify_nodes(sp_index *ix)
{
	node nd;
	sp_frame f;
	uint64_t size = SEC_SIZE(SPX_SEC_NODES), n = 0;
	uint64_t *starts = sp_xcalloc(size / 64 + 1, sizeof(uint64_t));
	sp_error *e = NULL;
	for (size_t i = 0; i < ix->n_nodes; i++) {
		if (!read_node(ix, i, &nd))
			goto damaged;
		bool err = (nd.flags & SPX_NODE_KIND) == SPX_NODE_ERROR;
		if (!err && (nd.flags & SPX_NODE_FUNC)) {
			starts[nd.func / 64] |= (uint64_t)1 << (nd.func % 64);
			n++;
		}
		if (!err && !(starts[nd.func / 64] & ((uint64_t)1 << (nd.func % 64)))) {
			e = bad(ix, ix->sec_off[SPX_SEC_NODES - 1], "node %zu: function at %llu, not "
				"where a function starts", i, (unsigned long long)nd.func);
			goto out;
		}
		if (err ? !string_at(ix, nd.msg) : !chain_frames(ix, &nd, ix->chain))
			goto damaged;
	}
	ix->chain_ctx = 0;
	if (n != ix->n_funcs) {
		e = bad(ix, SPX_H_FUNCS, "%zu functions, %llu in the nodes", ix->n_funcs,
			(unsigned long long)n);
		goto out;
	}
	for (size_t i = 0; i < ix->n_files; i++)
		if (!file_name(ix, i + 1, &f.file))
			goto damaged;
	const unsigned char *names = ix->base + ix->sec_off[SPX_SEC_STRINGS - 1];
	if (names[0] || names[SEC_SIZE(SPX_SEC_STRINGS) - 1]) {
		e = bad(ix, ix->sec_off[SPX_SEC_STRINGS - 1],
			"the names do not begin and end with a NUL byte");
		goto out;
	}
	for (unsigned i = 0; i < 3; i++)
		meta(ix, i);
	if (ix->damaged)
		goto damaged;
	goto out;
damaged:
	e = sp_error_dup(ix->damaged);
out:
	free(starts);
	return e;
}

/* The top table against the first block of each page of BLOCKS, the
 * blocks' rows from the start of ROWS, zero bytes between the last block
 * of a page of BLOCKS and the next. */
static sp_error *verify_blocks(sp_index *ix)
{
	uint64_t addr;
	uint32_t off;
	for (size_t i = 0; i < ix->n_top; i++) {
		if (!block_entry(ix, i * SPX_BLOCKS_PER_PAGE, &addr, &off))
			return sp_error_dup(ix->damaged);
		if (addr - ix->first_addr != spx_le(ix->top + 4 * i, 4))
			return bad(ix, (uint64_t)(ix->top + 4 * i - ix->base),
				   "block %zu at %#llx, the top table says %#llx",
				   i * SPX_BLOCKS_PER_PAGE, (unsigned long long)(addr - ix->first_addr),
				   (unsigned long long)spx_le(ix->top + 4 * i, 4));
		if (i == 0 && off != 0)
			return bad(ix, ix->sec_off[SPX_SEC_BLOCKS - 1], "the first block at %u of "
				   "the rows, not 0", off);
	}
	ix->n_rows = 0;
	for (size_t b = 0; b < ix->n_blocks; b++) {
		/* each row before the next block's first (decode_block checks) */
		if (!decode_block(ix, b))
			return sp_error_dup(ix->damaged);
		for (size_t k = 0; k < ix->n_rows_dec; k++)
			if (!verify_row(ix, &ix->rows[k]))
				return sp_error_dup(ix->damaged);
		ix->n_rows += ix->n_rows_dec;
		if (b + 1 < ix->n_blocks && (b + 1) % SPX_BLOCKS_PER_PAGE == 0) {
			uint64_t stop = ix->dec_stop;
			if (!block_entry(ix, b + 1, &addr, &off))
				return sp_error_dup(ix->damaged);
			const unsigned char *r = ix->base + ix->sec_off[SPX_SEC_ROWS - 1];
			for (uint64_t at = stop; at < off && at < SEC_SIZE(SPX_SEC_ROWS); at++)
				if (r[at])
					return bad(ix, ix->sec_off[SPX_SEC_ROWS - 1] + at,
						   "block %zu: bytes after its last row", b);
			if (off < stop)
				return bad(ix, ix->sec_off[SPX_SEC_BLOCKS - 1] +
						       SPX_BLOCK_ENTRY * (b + 1),
					   "block %zu starts before the last row of the one before",
					   b + 1);
		}
	}
	return NULL;
}

sp_error *sp_index_verify(sp_index *ix, sp_index_stats *stats)
{
	for (size_t j = 1; j < ix->hpages && !ix->damaged; j++)
		need_header_page(ix, j);
	if (ix->damaged || !need(ix, ix->body, ix->size - ix->body))
		return sp_error_dup(ix->damaged);
	sp_error *e = verify_nodes(ix);
	if (!e)
		e = verify_blocks(ix);
	if (e)
		return e;
	if (stats) {
		sp_index_stats_of(ix, stats);
		stats->n_rows = ix->n_rows;
	}
	return NULL;
}
