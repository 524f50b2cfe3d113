/* build.c — the index writer: a resolver's every answer (sp_resolver_walk,
 * in address order) into the bytes of docs/INDEX.md.
 *
 * An answer is a chain of frames, innermost first.  It is kept as a row --
 * the address where it starts, the innermost frame's position (file, line,
 * column, discriminator) and its node -- and the node's chain: a node is
 * one function at one place of the chain, that is its function (name,
 * declaration line), the node of the frame it is inlined into (its parent)
 * and where it is called there (the call site: the position of the parent's
 * frame).  So one inlined copy of a function is one node, whether an
 * address is in its own code or in code inlined into it, and chains that
 * share their outer frames share those nodes.  Functions and nodes are kept
 * once each, in the order the walk first meets them; a node names its
 * function by the offset of its record.  Rows are written in blocks of at
 * most SPX_ROWS_PER_BLOCK, none across a page of the file, each row as its
 * change from the row before (a byte of flags and the fields that
 * changed); an answer equal to the one before it adds no row.  Names are kept raw (system_name) with whether
 * they are demangled at answer time, and whether a frame is inlined is
 * where it is in its chain: both are checked against the resolver's frames
 * as each node is made.
 */
#include "symbolize/index/indexp.h"

#include <stdlib.h>

typedef struct {
	uint32_t sys;       /* the raw name: string offset + 1, 0 none */
	uint32_t name;      /* the name before demangling: 0 the raw one, 1 none,
			       else string offset + 2 */
	uint32_t gnu;       /* binutils' name before demangling: 0 none, 1 the name,
			       else string offset + 2 */
	int64_t start_line;
} func;

typedef struct {
	uint8_t flags;      /* kind | SPX_NODE_PARENT */
	uint32_t func;      /* or the error code */
	uint32_t parent;    /* node id, with SPX_NODE_PARENT */
	uint32_t file;      /* the call site: file + 1 (0 none) */
	int64_t line, col;
	uint32_t discr;
	uint32_t msg;       /* an error's message (string offset) */
} node;

/* Records kept once each, encoded as they come, with the offset of every
 * SPX_SPARSE-th in INDEX and of each in OFFS. */
typedef struct {
	void *v;
	size_t n, cap, size;
	sp_idxset set;
	sp_buf data, index;
	uint32_t *offs;
	size_t cap_offs;
} table;

typedef struct {
	uint32_t file; /* + 1, 0 none */
	int64_t line, col;
	uint32_t discr;
} position;

struct spx_builder {
	const char *path;
	sp_error *err;
	/* strings: interned, each at its offset in the section */
	sp_strtab strs;
	uint32_t *str_off;
	size_t cap_str_off;
	uint64_t strings_size;
	/* files: their paths (not written) in file order; per file in FILES,
	 * its directory's string offset + 1 (0: none) and its base name's */
	sp_strtab paths;
	sp_buf files;
	size_t n_files;
	table funcs, nodes;
	uint32_t *func_at;     /* per function, its record's offset in NODES + 1 (0: none yet) */
	size_t cap_func_at;
	/* rows */
	sp_buf rows, blocks;   /* ROWS; BLOCKS: per block its address and offset */
	size_t n_rows, n_blocks, in_block;
	size_t block_at;       /* where the block being written starts in ROWS */
	bool have_row;
	uint64_t first_addr;   /* of the first row: block addresses are from here */
	uint64_t row_addr;
	uint32_t row_ctx;
	position row_pos;
	/* the decoder's state, which each row is written against */
	uint32_t cur, prev, base;
	position st, prev_st;
	bool any;              /* an answer was given */
	uint64_t last_start;   /* the last answer's */
};
typedef struct spx_builder builder;

static void put_u32(sp_buf *b, uint32_t v)
{
	unsigned char p[4];
	spx_put_le(p, v, 4);
	sp_buf_append(b, p, 4);
}

static void put_u64(sp_buf *b, uint64_t v)
{
	unsigned char p[8];
	spx_put_le(p, v, 8);
	sp_buf_append(b, p, 8);
}

static void fail(builder *b, sp_error *e)
{
	if (!b->err)
		b->err = e;
	else
		sp_error_free(e);
}

/* Interns S and returns its offset: strings get their offsets in the
 * order they are first seen, "" first at 0. */
static uint32_t str(builder *b, const char *s)
{
	if (!s)
		s = "";
	size_t before = b->strs.n, len = strlen(s);
	size_t i = sp_strtab_intern(&b->strs, s, len);
	if (b->strs.n != before) { /* new */
		if (i + 1 > b->cap_str_off)
			sp_grow(&b->str_off, &b->cap_str_off, i + 1, sizeof(*b->str_off));
		if (b->strings_size + len + 1 > UINT32_MAX) {
			fail(b, sp_error_new(SP_E_LIMIT, "%s: the index's names pass 4 GiB", b->path));
			b->str_off[i] = 0;
		} else {
			b->str_off[i] = (uint32_t)b->strings_size;
			b->strings_size += len + 1;
		}
	}
	return b->str_off[i];
}

/* The file id + 1 of file name F (NULL: 0).  A file is kept as its
 * directory and base name (many files share a directory). */
static uint32_t file_id(builder *b, const char *f)
{
	if (!f)
		return 0;
	size_t before = b->paths.n;
	size_t i = sp_strtab_intern_str(&b->paths, f);
	if (b->paths.n == before)
		return (uint32_t)(i + 1);
	const char *slash = strrchr(f, '/');
	uint32_t dir = 0;
	if (slash) {
		char *d = sp_xstrndup(f, (size_t)(slash - f));
		dir = str(b, d) + 1;
		free(d);
	}
	put_u32(&b->files, dir);
	put_u32(&b->files, str(b, slash ? slash + 1 : f));
	b->n_files++;
	return (uint32_t)(i + 1);
}

typedef struct {
	const table *t;
	const void *rec;
	size_t size;
} rec_key;

static bool rec_eq(void *ctx, size_t idx)
{
	rec_key *k = ctx;
	return memcmp((const char *)k->t->v + idx * k->size, k->rec, k->size) == 0;
}

/* The id of record REC (SIZE bytes, compared bytewise) in T, added when
 * new (*ADDED), with its encoding made by ENCODE (NULL: none). */
static uint32_t intern(table *t, const void *rec, size_t size,
		       void (*encode)(builder *, sp_buf *, const void *, uint32_t), builder *b,
		       bool *added)
{
	rec_key k = {t, rec, size};
	uint64_t h = sp_hash_bytes(rec, size, 0);
	size_t i = sp_idxset_find(&t->set, h, rec_eq, &k);
	*added = i == SIZE_MAX;
	if (i != SIZE_MAX)
		return (uint32_t)i;
	if (t->n % SPX_SPARSE == 0)
		put_u32(&t->index, (uint32_t)t->data.len);
	sp_grow(&t->offs, &t->cap_offs, t->n + 1, sizeof(*t->offs));
	t->offs[t->n] = (uint32_t)t->data.len;
	if (encode)
		encode(b, &t->data, rec, (uint32_t)t->n);
	sp_grow(&t->v, &t->cap, t->n + 1, size);
	memcpy((char *)t->v + t->n * size, rec, size);
	t->n++;
	sp_idxset_add(&t->set, h, t->n - 1);
	return (uint32_t)(t->n - 1);
}

/* Node ID's encoding (its parent as ID minus the parent's id): the first
 * node of a function holds the function's record, later ones name it by
 * the record's offset in NODES. */
static void encode_node(builder *b, sp_buf *d, const void *rec, uint32_t id)
{
	const node *n = rec;
	if ((n->flags & SPX_NODE_KIND) == SPX_NODE_ERROR) {
		sp_buf_append(d, &n->flags, 1);
		spx_put_uleb(d, n->func);
		spx_put_uleb(d, n->msg);
		return;
	}
	uint32_t *at = &b->func_at[n->func];
	unsigned char flags = (unsigned char)(n->flags | (*at ? 0 : SPX_NODE_FUNC));
	sp_buf_append(d, &flags, 1);
	if (*at) {
		spx_put_uleb(d, *at - 1);
	} else {
		const func *f = (const func *)b->funcs.v + n->func;
		*at = (uint32_t)d->len + 1;
		spx_put_uleb(d, f->sys);
		spx_put_uleb(d, f->name);
		spx_put_uleb(d, f->gnu);
		spx_put_sleb(d, f->start_line);
	}
	if (n->flags & SPX_NODE_PARENT) {
		spx_put_uleb(d, id - n->parent);
		spx_put_uleb(d, n->file);
		spx_put_sleb(d, n->line);
		spx_put_sleb(d, n->col);
		spx_put_uleb(d, n->discr);
	}
}

static uint32_t node_id(builder *b, const node *n, bool *added)
{
	return intern(&b->nodes, n, sizeof(*n), encode_node, b, added);
}

/* A name of a frame: 0 when it is REF (both may be NULL), 1 when NULL,
 * else its string's offset + 2. */
static uint32_t name_code(builder *b, const char *name, const char *ref)
{
	if (name == ref || (name && ref && !strcmp(name, ref)))
		return 0;
	return name ? str(b, name) + 2 : 1;
}

/* The node of frame I of answer A, under PARENT (node id + 1, 0: the
 * outermost frame). */
static uint32_t frame_node(builder *b, const sp_answer *a, size_t i, uint32_t parent)
{
	const sp_frame *f = &a->frames[i];
	func fn;
	memset(&fn, 0, sizeof(fn)); /* padding too: records are compared bytewise */
	/* the resolver demangles nothing (sp_index_build): these are the
	 * names before demangling, the reader demangles them in its style */
	fn.sys = f->system_name ? str(b, f->system_name) + 1 : 0;
	fn.name = name_code(b, f->name, f->system_name);
	if (!f->gnu_name)
		fn.gnu = 0;
	else if (f->name && !strcmp(f->gnu_name, f->name))
		fn.gnu = 1;
	else
		fn.gnu = str(b, f->gnu_name) + 2;
	fn.start_line = f->start_line;
	bool added;
	node n;
	memset(&n, 0, sizeof(n));
	n.flags = (uint8_t)((a->go ? SPX_NODE_GO : SPX_NODE_FRAME) | (parent ? SPX_NODE_PARENT : 0));
	/* a node names its function by the record's offset in FUNCS */
	n.func = intern(&b->funcs, &fn, sizeof(fn), NULL, b, &added);
	if (added) {
		sp_grow(&b->func_at, &b->cap_func_at, b->funcs.n, sizeof(*b->func_at));
		b->func_at[n.func] = 0; /* its record: with the first node naming it */
	}
	if (parent) {
		const sp_frame *call = &a->frames[i + 1];
		n.parent = parent - 1;
		n.file = file_id(b, call->file);
		n.line = call->line;
		n.col = call->column;
		n.discr = call->discriminator;
	}
	uint32_t id = node_id(b, &n, &added);
	if (f->inlined != (i + 1 < a->n))
		fail(b, sp_error_new(SP_E_UNSUPPORTED,
				     "%s: a frame of %s inlined where its chain says otherwise: not "
				     "indexed", b->path, f->system_name ? f->system_name : "(none)"));
	return id + 1;
}

/* The row an answer makes: its node (+ 1; 0 nothing known) and position. */
static uint32_t answer_row(builder *b, const sp_answer *a, position *pos)
{
	*pos = (position){0};
	if (a->err) {
		node n;
		memset(&n, 0, sizeof(n));
		n.flags = SPX_NODE_ERROR;
		n.func = (uint32_t)a->err->code;
		char *msg = sp_error_string(a->err);
		n.msg = str(b, msg);
		free(msg);
		bool added;
		return node_id(b, &n, &added) + 1;
	}
	uint32_t ctx = 0;
	for (size_t i = a->n; i-- > 0;)
		ctx = frame_node(b, a, i, ctx);
	if (a->n) {
		const sp_frame *f = &a->frames[0];
		pos->file = file_id(b, f->file);
		/* relative to the function's declaration: small, and alike
		 * from function to function */
		pos->line = (int64_t)((uint64_t)f->line - (uint64_t)f->start_line);
		pos->col = f->column;
		pos->discr = f->discriminator;
	}
	return ctx;
}

static bool same_position(const position *x, const position *y)
{
	return x->file == y->file && x->line == y->line && x->col == y->col &&
	       x->discr == y->discr;
}

/* The ctx mode and, for SPX_CTX_EXPLICIT, its value, of a row naming CTX. */
static unsigned ctx_mode(const builder *b, uint32_t ctx, uint64_t *v)
{
	if (ctx == b->cur)
		return SPX_CTX_SAME;
	if (ctx && ctx == b->base + 1)
		return SPX_CTX_NEXT;
	if (ctx == b->prev)
		return SPX_CTX_SWAP;
	int64_t d = (int64_t)ctx - (int64_t)b->base;
	*v = ctx ? ((uint64_t)d << 1 ^ (uint64_t)(d >> 63)) + 1 : 0;
	return SPX_CTX_EXPLICIT;
}

/* Writes POS as a short row when it can be one (node, file and
 * discriminator unchanged, the address and line changed by a little). */
static bool put_short(builder *b, uint64_t addr, unsigned mode, const position *pos)
{
	uint64_t da = addr - b->row_addr;
	int64_t dl = (int64_t)((uint64_t)pos->line - (uint64_t)b->st.line);
	if (mode != SPX_CTX_SAME || b->in_block == 0 || pos->file != b->st.file ||
	    pos->discr != b->st.discr || da < 1 || da > 16 || dl < -1 || dl > 2)
		return false;
	unsigned char op = (unsigned char)(SPX_SHORT | (da - 1) | (unsigned)(dl + 1) << SPX_SHORT_LINE_SHIFT |
					   (pos->col != b->st.col ? SPX_SHORT_COLUMN : 0));
	sp_buf_append(&b->rows, &op, 1);
	if (op & SPX_SHORT_COLUMN)
		spx_put_sleb(&b->rows, pos->col);
	return true;
}

/* Writes POS as a full row, naming its node in MODE (V: an explicit one). */
static void put_full(builder *b, uint64_t addr, unsigned mode, uint64_t v, const position *pos)
{
	int64_t dl = (int64_t)((uint64_t)pos->line - (uint64_t)b->st.line);
	unsigned lc = dl >= -2 && dl <= 4 ? (unsigned)(dl + 2) : 7;
	bool file = pos->file != b->st.file, discr = pos->discr != b->st.discr;
	unsigned char op = (unsigned char)(mode | (pos->col != b->st.col ? SPX_ROW_COLUMN : 0) |
					   (file || discr ? SPX_ROW_FILE_DISCR : 0) |
					   lc << SPX_LINE_SHIFT);
	sp_buf_append(&b->rows, &op, 1);
	if (mode == SPX_CTX_EXPLICIT)
		spx_put_uleb(&b->rows, v);
	if (op & SPX_ROW_COLUMN)
		spx_put_sleb(&b->rows, pos->col);
	if (op & SPX_ROW_FILE_DISCR) {
		spx_put_uleb(&b->rows, (uint64_t)(file ? pos->file + 1 : 0) << 1 | discr);
		if (discr)
			spx_put_uleb(&b->rows, pos->discr);
	}
	if (lc == 7)
		spx_put_sleb(&b->rows, dl);
	if (b->in_block > 0)
		spx_put_uleb(&b->rows, addr - b->row_addr);
}

/* Ends the block being written: its number of rows - 1 into its first
 * byte. */
static void close_block(builder *b)
{
	if (b->n_blocks)
		b->rows.data[b->block_at] = (unsigned char)(b->in_block - 1);
}

/* The most bytes a block's count, its BASE and one row take (a row: op
 * byte, node, column, file and discriminator, line, address change). */
#define BLOCK_ROOM 64

/* Starts a block at ADDR: at the next page of ROWS when this one has not
 * room for its first row (no block crosses a page, so a look-up reads one
 * page of rows), or when PAD. */
static void open_block(builder *b, uint64_t addr, bool pad)
{
	static const unsigned char zeros[SPX_PAGE];
	close_block(b);
	size_t room = (SPX_PAGE - b->rows.len % SPX_PAGE) % SPX_PAGE;
	if (pad || room < BLOCK_ROOM)
		sp_buf_append(&b->rows, zeros, room);
	if (b->n_blocks == 0)
		b->first_addr = addr;
	if (addr - b->first_addr > UINT32_MAX)
		fail(b, sp_error_new(SP_E_UNSUPPORTED,
				     "%s: code spans more than 4 GiB: not indexed", b->path));
	put_u32(&b->blocks, (uint32_t)(addr - b->first_addr));
	put_u32(&b->blocks, (uint32_t)b->rows.len);
	b->n_blocks++;
	b->in_block = 0;
	b->cur = b->prev = 0;
	b->st = b->prev_st = (position){0};
	b->block_at = b->rows.len;
	unsigned char count = 0; /* made the count when the block ends */
	sp_buf_append(&b->rows, &count, 1);
	spx_put_uleb(&b->rows, b->base);
}

/* Appends the row (ADDR, CTX, POS) as the change from the decoder's
 * state, which it moves on. */
static void encode_row(builder *b, uint64_t addr, uint32_t ctx, const position *pos)
{
	uint64_t v = 0;
	unsigned mode = ctx_mode(b, ctx, &v);
	if (ctx != b->cur) {
		position keep = b->st;
		if (mode == SPX_CTX_SWAP) /* back to the node before: its position */
			b->st = b->prev_st;
		b->prev_st = keep;
		b->prev = b->cur;
		b->cur = ctx;
	}
	if (ctx)
		b->base = ctx;
	else
		pos = &b->st; /* nothing known: no position */
	if (!put_short(b, addr, mode, pos))
		put_full(b, addr, mode, v, pos);
	b->st = *pos;
}

/* Writes the row (ADDR, CTX, POS): in the block being written when it
 * ends on the block's page, else first in a block at the next page. */
static void put_row(builder *b, uint64_t addr, uint32_t ctx, const position *pos)
{
	if (b->n_blocks == 0 || b->in_block == SPX_ROWS_PER_BLOCK)
		open_block(b, addr, false);
	uint32_t cur = b->cur, prev = b->prev, base = b->base;
	position st = b->st, prev_st = b->prev_st;
	size_t before = b->rows.len;
	encode_row(b, addr, ctx, pos);
	if ((b->rows.len - 1) / SPX_PAGE != b->block_at / SPX_PAGE) {
		b->rows.len = before; /* the row undone, the state as it was */
		b->cur = cur;
		b->prev = prev;
		b->base = base;
		b->st = st;
		b->prev_st = prev_st;
		open_block(b, addr, true);
		encode_row(b, addr, ctx, pos);
	}
	b->row_addr = addr;
	b->in_block++;
	b->n_rows++;
}

sp_error *spx_builder_add(builder *b, const sp_answer *a)
{
	position pos;
	if (b->any && a->start <= b->last_start)
		fail(b, sp_error_new(SP_E_INVALID_PROFILE, "%s: answers out of address order",
				     b->path));
	b->any = true;
	b->last_start = a->start;
	uint32_t row = answer_row(b, a, &pos);
	if (b->err)
		return sp_error_dup(b->err);
	if (b->have_row ? row == b->row_ctx && (row == 0 || same_position(&pos, &b->row_pos))
			: row == 0)
		return NULL; /* the same answer: the row before goes on; nothing before the first */
	if (b->rows.len > UINT32_MAX - 2 * SPX_PAGE || b->nodes.data.len > UINT32_MAX - 64 ||
	    b->funcs.data.len > UINT32_MAX - 64)
		return sp_error_new(SP_E_LIMIT, "%s: the index passes 4 GiB", b->path);
	put_row(b, a->start, row, &pos);
	if (b->err)
		return sp_error_dup(b->err);
	b->have_row = true;
	b->row_ctx = row;
	b->row_pos = pos;
	return NULL;
}

static void pad8(sp_buf *b)
{
	static const unsigned char zeros[8];
	if (b->len % 8)
		sp_buf_append(b, zeros, 8 - b->len % 8);
}

typedef struct {
	uint32_t kind;
	const sp_buf *data;
	sp_buf own; /* the data, when made here */
} section;

/* The body: the sections, each at an offset that is a multiple of 8
 * (BLOCKS and ROWS of the page size: the header is whole pages, so these
 * start at pages of the file); REL[k] is section k's offset in it. */
static void body_of(section *sec, size_t n, sp_buf *body, uint64_t *rel)
{
	static const unsigned char zeros[SPX_PAGE];
	for (size_t k = 0; k < n; k++) {
		pad8(body);
		if (sec[k].kind >= SPX_SEC_BLOCKS && body->len % SPX_PAGE)
			sp_buf_append(body, zeros, SPX_PAGE - body->len % SPX_PAGE);
		rel[k] = body->len;
		sp_buf_append(body, sec[k].data->data, sec[k].data->len);
	}
	pad8(body);
}

/* The header for BODY (its sections SEC at REL; META: the string offsets
 * of the debug path, the split units' error and the source, then the
 * numbers of functions and of nodes) into OUT, then BODY.  Its size H is
 * whole pages: the first holds the fixed fields, the build id, the section
 * table, the top table (the first address of each page of BLOCKS) and the
 * checksums of the later pages; the checksums of the body's pages follow,
 * from the first page on into the later ones. */
static sp_error *assemble(const builder *b, const char *build_id, unsigned flags,
			  const uint32_t *meta, const section *sec, size_t n, const uint64_t *rel,
			  const sp_buf *body, sp_buf *out)
{
	size_t lid = strlen(build_id);
	uint64_t pages = (body->len + SPX_PAGE - 1) / SPX_PAGE;
	const sp_buf *blocks = sec[SPX_SEC_BLOCKS - 1].data;
	uint64_t k = (blocks->len + SPX_PAGE - 1) / SPX_PAGE, h = SPX_PAGE;
	spx_header_parts pt;
	for (;;) { /* H grows with the checksums of its own pages */
		pt = spx_parts(lid, n, k, h);
		uint64_t need = (pt.crcs + 4 * pages + SPX_PAGE - 1) / SPX_PAGE * SPX_PAGE;
		if (need <= h)
			break;
		h = need;
	}
	if (pt.crcs > SPX_PAGE || h > UINT32_MAX)
		return sp_error_new(SP_E_LIMIT, "%s: the index's header passes its first page "
				    "(%llu pages of blocks, %llu pages): not indexed", b->path,
				    (unsigned long long)k, (unsigned long long)pages);
	unsigned char fixed[SPX_FIXED] = {0};
	memcpy(fixed, SPX_MAGIC, SPX_MAGIC_LEN);
	spx_put_le(fixed + SPX_H_VERSION, SP_INDEX_VERSION, 4);
	spx_put_le(fixed + SPX_H_REVISION, SP_INDEX_REVISION, 4);
	spx_put_le(fixed + SPX_H_SIZE, h + body->len, 8);
	spx_put_le(fixed + SPX_H_HSIZE, h, 4);
	spx_put_le(fixed + SPX_H_SHIFT, SPX_PAGE_SHIFT, 4);
	spx_put_le(fixed + SPX_H_PAGES, pages, 4);
	spx_put_le(fixed + SPX_H_SECTIONS, n, 4);
	spx_put_le(fixed + SPX_H_ID_LEN, lid, 2);
	spx_put_le(fixed + SPX_H_FLAGS, flags, 2);
	spx_put_le(fixed + SPX_H_BASE, b->first_addr, 8);
	spx_put_le(fixed + SPX_H_TOP, k, 4);
	spx_put_le(fixed + SPX_H_FUNCS, meta[3], 4);
	spx_put_le(fixed + SPX_H_NODES, meta[4], 4);
	spx_put_le(fixed + SPX_H_DEBUG_PATH, meta[0], 4);
	spx_put_le(fixed + SPX_H_SPLIT_ERROR, meta[1], 4);
	spx_put_le(fixed + SPX_H_SOURCE, meta[2], 4);
	size_t start = out->len;
	sp_buf_append(out, fixed, sizeof(fixed));
	sp_buf_append(out, build_id, lid);
	pad8(out);
	for (size_t i = 0; i < n; i++) {
		put_u32(out, sec[i].kind);
		put_u32(out, 0);
		put_u64(out, h + rel[i]);
		put_u64(out, sec[i].data->len);
	}
	for (uint64_t i = 0; i < k; i++) /* each page's first block's address */
		put_u32(out, (uint32_t)spx_le((const unsigned char *)blocks->data + i * SPX_PAGE, 4));
	pad8(out);
	for (uint64_t j = 1; j < h / SPX_PAGE; j++)
		put_u32(out, 0); /* made below */
	pad8(out);
	for (uint64_t p = 0; p < pages; p++) {
		size_t len = body->len - p * SPX_PAGE < SPX_PAGE ? body->len - p * SPX_PAGE : SPX_PAGE;
		put_u32(out, sp_crc32c(0, body->data + p * SPX_PAGE, len));
	}
	static const unsigned char zeros[SPX_PAGE];
	sp_buf_append(out, zeros, start + h - out->len);
	unsigned char *hd = (unsigned char *)out->data + start;
	for (uint64_t j = 1; j < h / SPX_PAGE; j++)
		spx_put_le(hd + pt.hcrcs + 4 * (j - 1), sp_crc32c(0, hd + j * SPX_PAGE, SPX_PAGE), 4);
	spx_put_le(hd + SPX_H_CRC, sp_crc32c(0, hd, SPX_PAGE), 4);
	sp_buf_append(out, body->data, body->len);
	return NULL;
}

/* Every section of B, in the order of their kinds; META as assemble
 * takes it. */
static void sections_of(builder *b, const char *debug_path, const char *split_err,
			section *sec, uint32_t *meta)
{
	for (size_t k = 0; k < SPX_N_SECTIONS; k++) {
		sec[k] = (section){.kind = (uint32_t)(k + 1)};
		sec[k].data = &sec[k].own;
	}
	meta[0] = debug_path ? str(b, debug_path) : 0;
	meta[1] = split_err ? str(b, split_err) : 0;
	meta[2] = str(b, b->path);
	meta[3] = (uint32_t)b->funcs.n;
	meta[4] = (uint32_t)b->nodes.n;
	for (size_t i = 0; i < b->strs.n; i++)
		sp_buf_append(&sec[SPX_SEC_STRINGS - 1].own, b->strs.strs[i], b->strs.lens[i] + 1);
	close_block(b);
	sec[SPX_SEC_FILES - 1].data = &b->files;
	sec[SPX_SEC_NODE_INDEX - 1].data = &b->nodes.index;
	sec[SPX_SEC_NODES - 1].data = &b->nodes.data;
	sec[SPX_SEC_BLOCKS - 1].data = &b->blocks;
	sec[SPX_SEC_ROWS - 1].data = &b->rows;
}

static void table_free(table *t)
{
	free(t->v);
	sp_idxset_free(&t->set);
	sp_buf_free(&t->data);
	sp_buf_free(&t->index);
	free(t->offs);
}

void spx_builder_free(builder *b)
{
	if (!b)
		return;
	sp_error_free(b->err);
	sp_strtab_free(&b->strs);
	free(b->str_off);
	sp_strtab_free(&b->paths);
	sp_buf_free(&b->files);
	table_free(&b->funcs);
	free(b->func_at);
	table_free(&b->nodes);
	sp_buf_free(&b->rows);
	sp_buf_free(&b->blocks);
	free(b);
}

builder *spx_builder_new(const char *path)
{
	builder *b = sp_xcalloc(1, sizeof(*b));
	b->path = path;
	str(b, ""); /* offset 0 */
	return b;
}

sp_error *spx_builder_finish(builder *b, const char *build_id, unsigned flags,
			     const char *debug_path, const char *split_err, sp_buf *out,
			     sp_index_stats *st)
{
	size_t lid = build_id ? strlen(build_id) : 0;
	if (lid == 0 || lid > SPX_BUILD_ID_MAX)
		return sp_error_new(SP_E_UNSUPPORTED, "%s: %s: not indexed", b->path,
				    lid ? "build id longer than 256 bytes" : "no build id");
	section sec[SPX_N_SECTIONS];
	uint64_t rel[SPX_N_SECTIONS];
	sp_buf body = {0};
	uint32_t meta[5];
	sections_of(b, debug_path, split_err, sec, meta);
	if (b->err) /* a string past 4 GiB, or the answers */
		return sp_error_dup(b->err);
	body_of(sec, SPX_N_SECTIONS, &body, rel);
	size_t before = out->len;
	sp_error *e = assemble(b, build_id, flags, meta, sec, SPX_N_SECTIONS, rel, &body, out);
	if (e) {
		out->len = before;
		sp_buf_free(&body);
		for (size_t k = 0; k < SPX_N_SECTIONS; k++)
			sp_buf_free(&sec[k].own);
		return e;
	}
	*st = (sp_index_stats){
		.size = out->len - before,
		.n_rows = b->n_rows,
		.n_blocks = b->n_blocks,
		.n_funcs = b->funcs.n,
		.n_nodes = b->nodes.n,
		.n_files = b->n_files,
		.strings_size = (size_t)b->strings_size,
		.dwarf = (flags & SPX_FLAG_DWARF) != 0,
		.go = (flags & SPX_FLAG_GO) != 0,
		.symbols = (flags & SPX_FLAG_SYMBOLS) != 0,
		.split_missing = (flags & SPX_FLAG_SPLIT_MISSING) != 0,
	};
	sp_buf_free(&body);
	for (size_t k = 0; k < SPX_N_SECTIONS; k++)
		sp_buf_free(&sec[k].own);
	return NULL;
}

static sp_error *on_answer(void *ctx, const sp_answer *a)
{
	return spx_builder_add(ctx, a);
}

sp_error *sp_index_build(const char *path, const sp_elf_info *info,
			 const sp_symbolize_options *opts, sp_finder *finder, sp_buf *out,
			 sp_index_stats *stats)
{
	sp_index_stats own;
	sp_index_stats *st = stats ? stats : &own;
	*st = (sp_index_stats){0};
	const char *bid = info ? info->build_id : NULL;
	if (!bid || !*bid || strlen(bid) > SPX_BUILD_ID_MAX)
		return sp_error_new(SP_E_UNSUPPORTED, "%s: %s: not indexed", path,
				    bid && *bid ? "build id longer than 256 bytes" : "no build id");
	builder *b = spx_builder_new(path);
	/* names as they are, demangled when answering in the reader's style */
	sp_symbolize_options raw = opts ? *opts : (sp_symbolize_options){0};
	raw.demangle = SP_DEMANGLE_NONE;
	sp_resolver *d = sp_resolver_new(path, &raw, info, finder);
	sp_walk_info wi;
	sp_error *e = sp_resolver_walk(d, on_answer, b, &wi);
	if (!e) {
		sp_error *split = sp_resolver_split_error(d);
		char *split_msg = split ? sp_error_string(split) : NULL;
		unsigned flags = (wi.dwarf ? SPX_FLAG_DWARF : 0) | (wi.go ? SPX_FLAG_GO : 0) |
				 (wi.symbols ? SPX_FLAG_SYMBOLS : 0) |
				 (split ? SPX_FLAG_SPLIT_MISSING : 0);
		e = spx_builder_finish(b, bid, flags, sp_resolver_debug_path(d), split_msg, out, st);
		st->n_keys = wi.n_keys;
		free(split_msg);
		sp_error_free(split);
	}
	sp_resolver_free(d);
	spx_builder_free(b);
	return e;
}
