/* indexp.h — private interfaces between the files of symbolize/index/ (its
 * face is index.h): the file format's numbers (docs/INDEX.md describes it
 * byte by byte), CRC-32C, and the one bounds-checked cursor the reader
 * reads every byte through.  Nothing outside index/ (except unit tests and
 * the fuzz harness) includes this header.
 */
#ifndef SYMPROF_SYMBOLIZE_INDEXP_H
#define SYMPROF_SYMBOLIZE_INDEXP_H

#include "symbolize/symbolize.h"
#include "symbolize/dwarf/dwarf.h"

#include <string.h>

/* ------------------------------------------------------------------------ */
/* The format (docs/INDEX.md).                                              */

#define SPX_MAGIC "\x89SPX\r\n\x1a\n"
#define SPX_MAGIC_LEN 8
#define SPX_FIXED 80          /* the header's fixed part */
#define SPX_PAGE_SHIFT 12     /* pages of 4 KiB, each with a CRC-32C */
#define SPX_PAGE ((size_t)1 << SPX_PAGE_SHIFT)
#define SPX_SECTION_ENTRY 24  /* kind u32, reserved u32, offset u64, size u64 */
#define SPX_BUILD_ID_MAX 256
#define SPX_ROWS_PER_BLOCK 128
#define SPX_BLOCK_ENTRY 8     /* BLOCKS: u32 address (from the base), u32 offset in ROWS */
#define SPX_BLOCKS_PER_PAGE (SPX_PAGE / SPX_BLOCK_ENTRY)
#define SPX_SPARSE 8          /* NODE_INDEX: every 8th node's offset */
#define SPX_FUNC_MAX 40       /* the longest function record (in a node): three uleb, one
				 sleb */
#define SPX_MAX_FRAMES 65     /* the deepest chain a resolver gives (64 + 1) */

/* The header's fixed fields (offsets; docs/INDEX.md). */
enum {
	SPX_H_VERSION = 8,
	SPX_H_REVISION = 12,
	SPX_H_SIZE = 16,
	SPX_H_HSIZE = 24,     /* H: the header's size, a multiple of SPX_PAGE */
	SPX_H_CRC = 28,       /* of the header's first page */
	SPX_H_SHIFT = 32,
	SPX_H_PAGES = 36,     /* P: the body's pages */
	SPX_H_SECTIONS = 40,
	SPX_H_ID_LEN = 44,
	SPX_H_FLAGS = 46,
	SPX_H_BASE = 48,
	SPX_H_TOP = 56,       /* K: the top table's entries, one per page of BLOCKS */
	SPX_H_FUNCS = 60,     /* F: function records */
	SPX_H_NODES = 64,     /* N: nodes */
	SPX_H_DEBUG_PATH = 68, /* string offsets (0: none) */
	SPX_H_SPLIT_ERROR = 72,
	SPX_H_SOURCE = 76,
};

/* Header flags: what the answers were made from. */
enum {
	SPX_FLAG_DWARF = 1,
	SPX_FLAG_GO = 2,
	SPX_FLAG_SYMBOLS = 4,
	SPX_FLAG_SPLIT_MISSING = 8,
};

/* Section kinds; each present exactly once, in this order. */
enum {
	SPX_SEC_STRINGS = 1, /* NUL-terminated strings; byte 0 and the last are NUL */
	SPX_SEC_FILES,       /* per file: u32 its directory's string offset + 1 (0:
				none), u32 its base name's string offset */
	SPX_SEC_NODE_INDEX,  /* u32 offset into NODES of every SPX_SPARSE-th node */
	SPX_SEC_NODES,
	SPX_SEC_BLOCKS,      /* per block: u32 first address (from the header's base), u32
				offset into ROWS; starts at a page */
	SPX_SEC_ROWS,        /* blocks of rows, none across a page; starts at a page */
	SPX_N_SECTIONS = SPX_SEC_ROWS
};

/* Where the header's parts after its fixed fields are, for a build id of
 * LID bytes, NSEC sections, K top entries and H bytes of header: the
 * section table, the top table, the checksums of the header's later pages
 * and the body pages' checksums (*CRCS). */
typedef struct {
	uint64_t sections, top, hcrcs, crcs;
} spx_header_parts;

static inline spx_header_parts spx_parts(uint64_t lid, uint64_t nsec, uint64_t k, uint64_t h)
{
	spx_header_parts p;
	p.sections = SPX_FIXED + (lid + 7) / 8 * 8;
	p.top = p.sections + SPX_SECTION_ENTRY * nsec;
	p.hcrcs = p.top + (4 * k + 7) / 8 * 8;
	p.crcs = p.hcrcs + (4 * (h / SPX_PAGE - 1) + 7) / 8 * 8;
	return p;
}

/* A node's first byte: its kind in bits 0-1, then flags. */
enum {
	SPX_NODE_FRAME = 0,   /* names demangled at answer time */
	SPX_NODE_GO = 1,      /* names as they are */
	SPX_NODE_ERROR = 2,   /* the look-up fails: error code, message */
	SPX_NODE_KIND = 3,
	SPX_NODE_PARENT = 4,  /* inlined: parent and call site follow */
	SPX_NODE_FUNC = 8,    /* its function's record follows (its first node); else
				 the record's offset in NODES */
};

/* A row's op byte.  Bit 7 set: a short row (the node, file and
 * discriminator of the row before; the address and line change by a
 * little); clear: a full row. */
enum {
	SPX_SHORT = 0x80,
	SPX_SHORT_ADDR = 0x0f, /* bits 0-3: address change - 1 (1..16) */
	SPX_SHORT_LINE_SHIFT = 4, /* bits 4-5: line change + 1 (-1..2) */
	SPX_SHORT_COLUMN = 0x40, /* sleb column follows */

	SPX_CTX_SAME = 0,     /* bits 0-1: the node of the row before */
	SPX_CTX_NEXT = 1,     /* the node after the last one named */
	SPX_CTX_SWAP = 2,     /* the node before the one before, with its position */
	SPX_CTX_EXPLICIT = 3, /* uleb: 0 nothing known, else zigzag(node - last) + 1 */
	SPX_ROW_COLUMN = 4,   /* sleb column follows */
	SPX_ROW_FILE_DISCR = 8, /* uleb: (file + 1, 0 unchanged) << 1 | discriminator
				   follows (as a uleb) */
	SPX_LINE_SHIFT = 4,   /* bits 4-6: line change + 2 (0..6); 7: sleb change follows */
};

/* ------------------------------------------------------------------------ */
/* The writer's steps (build.c), for sp_index_build and for tests that make  */
/* indexes of answers of their own.                                          */

typedef struct spx_builder spx_builder;
/* A writer; PATH (borrowed until spx_builder_free) names it in errors. */
spx_builder *spx_builder_new(const char *path);
/* The next answer (sp_resolver_walk's; starts increasing), from a
 * resolver that demangles nothing (SP_DEMANGLE_NONE): its names are kept
 * as they are and demangled when answering, in the reader's style, unless
 * the answer is Go's (A->go).  An answer the format cannot hold as it is
 * (an inlined flag not where its chain puts it) is an error, as is one out
 * of order. */
sp_error *spx_builder_add(spx_builder *b, const sp_answer *a);
/* The file of the answers given, for BUILD_ID with FLAGS (SPX_FLAG_*) and
 * what the header records (each may be NULL), appended to OUT; *ST says
 * what it holds (n_keys left 0). */
sp_error *spx_builder_finish(spx_builder *b, const char *build_id, unsigned flags,
			     const char *debug_path, const char *split_err, sp_buf *out,
			     sp_index_stats *st);
void spx_builder_free(spx_builder *b);

/* ------------------------------------------------------------------------ */
/* CRC-32C (Castagnoli, reflected 0x82f63b78, initial and final ~0), format.c */

uint32_t sp_crc32c(uint32_t crc, const void *data, size_t n);

static inline uint64_t spx_le(const unsigned char *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = n; i > 0; i--)
		v = v << 8 | p[i - 1];
	return v;
}

static inline void spx_put_le(unsigned char *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++, v >>= 8)
		p[i] = (unsigned char)v;
}

/* The file name of an index of BUILD_ID, or NULL when it cannot have one
 * (empty, or longer than SPX_BUILD_ID_MAX bytes).  format.c */
char *spx_file_name(const char *build_id);

/* ------------------------------------------------------------------------ */
/* The cursor.  It covers [p, end) of a range the reader has verified (its
 * pages' checksums) and never moves past END; a read that does not fit
 * marks it BAD, returns 0 and leaves it at END, so a run of reads is
 * checked once at its end.                                                 */

typedef struct {
	const unsigned char *p, *end;
	bool bad;
} spx_cur;

static inline void spx_fail(spx_cur *c)
{
	c->bad = true;
	c->p = c->end;
}

static inline unsigned spx_byte(spx_cur *c)
{
	if (c->p >= c->end) {
		spx_fail(c);
		return 0;
	}
	return *c->p++;
}

/* At most ten bytes, the tenth carrying nothing above bit 63. */
static inline uint64_t spx_uleb(spx_cur *c)
{
	if (c->p < c->end && *c->p < 0x80)
		return *c->p++;
	uint64_t v = 0;
	for (unsigned shift = 0; c->p < c->end && shift <= 63; shift += 7) {
		unsigned char b = *c->p++;
		if (shift == 63 && (b & 0x7e))
			break;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	spx_fail(c);
	return 0;
}

static inline int64_t spx_sleb(spx_cur *c)
{
	uint64_t v = 0;
	for (unsigned shift = 0; c->p < c->end && shift <= 63; shift += 7) {
		unsigned char b = *c->p++;
		if (shift == 63 && b != 0 && b != 0x7f)
			break;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			if (shift + 7 < 64 && (b & 0x40))
				v |= ~(uint64_t)0 << (shift + 7);
			return (int64_t)v;
		}
	}
	spx_fail(c);
	return 0;
}

/* Writing: LEB128 into a buffer. */
static inline void spx_put_uleb(sp_buf *b, uint64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;
	do {
		unsigned char byte = v & 0x7f;
		v >>= 7;
		tmp[n++] = byte | (v ? 0x80 : 0);
	} while (v);
	sp_buf_append(b, tmp, n);
}

static inline void spx_put_sleb(sp_buf *b, int64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;
	for (;;) {
		unsigned char byte = (unsigned char)(v & 0x7f);
		v >>= 7; /* arithmetic: GCC and Clang define it */
		bool done = (v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40));
		tmp[n++] = byte | (done ? 0 : 0x80);
		if (done)
			break;
	}
	sp_buf_append(b, tmp, n);
}

#endif
