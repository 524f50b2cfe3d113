/* perfp.h — the perf.data reader's private face, shared by its files:
 *
 *   input.c       the input's bytes (a mapped file, memory, or a stream read
 *                 with seeks or in one pass), the cursor's errors;
 *   header.c      the file header, the attrs (events and their sample ids)
 *                 and the feature sections (file mode; pipe mode carries
 *                 them as records);
 *   compressed.c  `perf record -z`: the COMPRESSED records' one zstd stream,
 *                 decompressed through common/decompress.c;
 *   records.c     the records, one at a time, up to the end of a round;
 *   reader.c      the pull API of formats.h (sp_perf_open, _next_round,
 *                 _close, ...), the capture's rounds into the profile.
 *
 * Calls point one way: reader.c -> records.c -> {header.c, compressed.c}
 * -> input.c.  Nothing outside formats/perf/ includes this header (except
 * unit tests).  The format: spec/PERF-DATA.md; kernel <linux/perf_event.h>.
 */
#ifndef SYMPROF_FORMATS_PERF_PERFP_H
#define SYMPROF_FORMATS_PERF_PERFP_H

#include "formats/formats.h"

#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

#define SP_PERF_MAGIC "PERFILE2"
#define SP_PERF_FILE_HEADER_SIZE 104
#define SP_PERF_PIPE_HEADER_SIZE 16
#define SP_PERF_ATTR_SIZE_VER0 64
#define SP_PERF_SECTION_SIZE 16
#define SP_PERF_FEAT_LAST 256 /* feature bits: 256 of them */

/* perf's own record types (spec §3) */
enum {
	SP_PERF_REC_HEADER_ATTR = 64,
	SP_PERF_REC_HEADER_BUILD_ID = 67,
	SP_PERF_REC_FINISHED_ROUND = 68,
	SP_PERF_REC_AUXTRACE = 71,
	SP_PERF_REC_HEADER_FEATURE = 80,
	SP_PERF_REC_COMPRESSED = 81,
	SP_PERF_REC_COMPRESSED2 = 83,
};

/* What parsing a sample and a non-sample record's trailer needs of its
 * event's attr. */
typedef struct {
	uint64_t sample_type, read_format, regs_user, regs_intr, branch_type;
	bool sample_id_all;
} sp_perf_layout;

struct sp_perf_reader {
	const char *name;
	const uint8_t *mem;  /* memory input (the caller's, or MAP), or */
	FILE *f;             /* a stream */
	uint8_t *map;        /* a regular file mapped whole (len bytes), or NULL */
	uint64_t dropped;    /* MAP's bytes before this left memory */
	uint64_t at;         /* offset of the record being read */
	const uint8_t *head; /* the stream's first N_HEAD bytes, already read from F */
	size_t n_head;
	uint8_t head_copy[8]; /* ... kept here when the reader opened F itself */
	uint64_t len;         /* bytes available (UINT64_MAX: unknown, a pipe) */
	uint64_t pos;         /* stream position of f */
	bool swap;
	bool pipe;
	uint8_t *buf;
	size_t cap;
	sp_capture *c;
	sp_perf_layout *ev;
	size_t n_ev, cap_ev;
	sp_u64map id_event; /* sample id -> event index */
	uint64_t *chain;
	size_t cap_chain;
	/* the data section: records from OFF to END (UINT64_MAX: to the end
	 * of the input), read a round at a time */
	uint64_t off, end;
	bool round_end;            /* a FINISHED_ROUND was read */
	bool data_done;            /* every record was read */
	/* a file perf record did not finish (killed: data size 0, no feature
	 * sections) or that was cut short: read to its end, up to the last
	 * whole record (sp_perf_warning) */
	bool unfinished, truncated;
	uint64_t cut_at;           /* where the last whole record ended */
	uint64_t n_samples;        /* samples handed over so far */
	bool handed;               /* a round is with the caller (sp_perf_next_round) */
	sp_capture_profiler *prof; /* the rounds handed over, as a profile */
	FILE *own_f;               /* F, when the reader opened it (sp_perf_open) */
	char *stdio_buf;
	/* perf record -z */
	struct {
		uint32_t type;     /* the COMPRESSED feature's: 1 zstd, 0 unknown */
		uint64_t mmap_len; /* its buffer size, 0 when unknown */
		sp_decoder *dec;
		uint8_t *buf; /* decompressed bytes not parsed yet (a partial record) */
		size_t len, cap;
		uint64_t pos;     /* offset of buf[0] in the decompressed stream */
		uint64_t rec_off; /* file offset of the COMPRESSED record decompressing */
		uint64_t skip;    /* AUXTRACE data still to skip */
		bool inside;      /* parsing records of the decompressed stream */
		/* the COMPRESSED record being decompressed, while it is: what
		 * is left of its payload (a round may end inside it) */
		bool active;
		const uint8_t *src;
		size_t n, payload;
		bool full; /* the last step filled its room: more may come */
	} z;
};

/* -- byte order ---------------------------------------------------------------- */

static inline uint16_t sp_perf_rd16(const sp_perf_reader *d, const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return d->swap ? __builtin_bswap16(v) : v;
}

static inline uint32_t sp_perf_rd32(const sp_perf_reader *d, const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return d->swap ? __builtin_bswap32(v) : v;
}

static inline uint64_t sp_perf_rd64(const sp_perf_reader *d, const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return d->swap ? __builtin_bswap64(v) : v;
}

/* -- input.c: errors and the input's bytes ------------------------------------- */

/* "NAME: offset OFF: WHAT", OFF in the decompressed stream (named as such)
 * while records of COMPRESSED ones are parsed. */
sp_error *sp_perf_bad(const sp_perf_reader *d, uint64_t off, const char *fmt, ...) SP_PRINTF(3, 4)
	__attribute__((returns_nonnull));
/* A stream's bytes [OFF, OFF+N) into d->buf + KEEP (sp_perf_read_keep). */
sp_error *sp_perf_read_stream(sp_perf_reader *d, uint64_t off, size_t n, size_t keep,
			      const uint8_t **out, const char *what);

/* the most read at once from an input of unknown size */
#define SP_PERF_READ_LIMIT (1 << 30)

/* Makes [OFF, OFF+N) available at *OUT (borrowed until the next read); a
 * stream's bytes land at d->buf + KEEP, after KEEP bytes already read (*OUT
 * then points at d->buf, KEEP bytes before OFF).  WHAT names the expected
 * thing for the error when the input ends. */
static inline sp_error *sp_perf_read_keep(sp_perf_reader *d, uint64_t off, size_t n, size_t keep,
					  const uint8_t **out, const char *what)
{
	if (d->len == UINT64_MAX && n > SP_PERF_READ_LIMIT)
		return sp_perf_bad(d, off, "%s of %zu bytes: expected at most %d", what, n,
				   SP_PERF_READ_LIMIT);
	if (d->len != UINT64_MAX && (off > d->len || n > d->len - off))
		return sp_perf_bad(
			d, off, "truncated %s: expected %zu bytes, the file has %" PRIu64 " left",
			what, n + keep, off > d->len ? 0 : d->len - off + keep);
	if (d->mem) {
		*out = d->mem + off - keep;
		return NULL;
	}
	return sp_perf_read_stream(d, off, n, keep, out, what);
}

static inline sp_error *sp_perf_read_at(sp_perf_reader *d, uint64_t off, size_t n,
					const uint8_t **out, const char *what)
{
	return sp_perf_read_keep(d, off, n, 0, out, what);
}

/* A cursor over one record or section already in memory. */
typedef struct {
	const sp_perf_reader *d;
	const uint8_t *p;
	size_t len, at;
	uint64_t base; /* file offset of p[0] */
	const char *what;
} sp_perf_cur;

static inline sp_perf_cur sp_perf_mkcur(const sp_perf_reader *d, const uint8_t *p, size_t len,
					uint64_t base, const char *what)
{
	sp_perf_cur k = {.d = d, .p = p, .len = len, .base = base, .what = what};
	return k;
}

/* "expected NEED bytes of FIELD, ... left in its ... WHAT" at K's position. */
sp_error *sp_perf_cur_short(const sp_perf_cur *k, size_t need, const char *field)
	__attribute__((returns_nonnull));

/* The next N bytes of K, consumed, or NULL when fewer are left. */
static inline const uint8_t *sp_perf_next(sp_perf_cur *k, size_t n)
{
	if (n > k->len - k->at || !k->p)
		return NULL;
	const uint8_t *q = k->p + k->at;
	k->at += n;
	return q;
}

static inline sp_error *sp_perf_take(sp_perf_cur *k, size_t n, const uint8_t **out,
				     const char *field)
{
	const uint8_t *q = sp_perf_next(k, n);
	if (!q)
		return sp_perf_cur_short(k, n, field);
	*out = q;
	return NULL;
}

static inline sp_error *sp_perf_take64(sp_perf_cur *k, uint64_t *v, const char *field)
{
	const uint8_t *q = sp_perf_next(k, 8);
	if (!q)
		return sp_perf_cur_short(k, 8, field);
	*v = sp_perf_rd64(k->d, q);
	return NULL;
}

static inline sp_error *sp_perf_take32(sp_perf_cur *k, uint32_t *v, const char *field)
{
	const uint8_t *q = sp_perf_next(k, 4);
	if (!q)
		return sp_perf_cur_short(k, 4, field);
	*v = sp_perf_rd32(k->d, q);
	return NULL;
}

/* A perf string: {u32 len; char[len]} NUL-padded.  *S is a new string. */
sp_error *sp_perf_take_str(sp_perf_cur *k, char **s, const char *field);
/* A NUL-terminated name filling at most [at, LIMIT) of K; K moves to LIMIT. */
sp_error *sp_perf_take_name(sp_perf_cur *k, size_t limit, char **s, const char *field);

/* -- header.c: the header, events and features ----------------------------------- */

/* 1: native, -1: byte-swapped, 0: not perf.data. */
int sp_perf_magic_order(const uint8_t *p, size_t len);
/* Reads the header and, in file mode, the attrs and the feature sections;
 * leaves d->off and d->end at the data's records. */
sp_error *sp_perf_read_header(sp_perf_reader *d);
/* Pipe mode's HEADER_ATTR record: {attr; u64 ids[]} up to its end. */
sp_error *sp_perf_header_attr(sp_perf_reader *d, sp_perf_cur *k);
/* Feature BIT's section (or HEADER_FEATURE record's payload) at K. */
sp_error *sp_perf_feature(sp_perf_reader *d, unsigned bit, sp_perf_cur *k);
/* A build-id record {header; s32 pid; u8 id[24]; char name[]} at K (past
 * its header), ending at END. */
sp_error *sp_perf_build_id_record(sp_perf_reader *d, sp_perf_cur *k, uint16_t misc, size_t end);

/* -- compressed.c: perf record -z ----------------------------------------------- */

/* Starts decompressing the COMPRESSED or COMPRESSED2 (TYPE) record at K. */
sp_error *sp_perf_z_begin(sp_perf_reader *d, sp_perf_cur *k, uint32_t type);
/* Decompresses more of the record begun into d->z.buf; clears d->z.active
 * when its payload has given everything. */
sp_error *sp_perf_z_more(sp_perf_reader *d);
/* At the end of the data: the decompressed stream must end with a whole
 * record, at the end of a block. */
sp_error *sp_perf_z_end(sp_perf_reader *d);
void sp_perf_z_free(sp_perf_reader *d);

/* -- records.c: records to the end of a round ----------------------------------- */

/* Reads records until a FINISHED_ROUND (d->round_end) or the end of the
 * data (d->data_done). */
sp_error *sp_perf_read_round(sp_perf_reader *d);

#endif
