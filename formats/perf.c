/* perf.c — reader for `perf record` output (perf.data), file and pipe mode,
 * either byte order (spec/PERF-DATA.md; kernel <linux/perf_event.h>).
 *
 *   file mode:  "PERFILE2" size=104 attr_size {attrs} {data} {event_types}
 *               feature bitmap[256 bits]
 *               attrs:  { perf_event_attr (attr.size bytes) ... {ids} } * n
 *               data:   { u32 type; u16 misc; u16 size; body } ...
 *               after the data: one {offset, size} per set feature bit
 *   pipe mode:  "PERFILE2" size=16, then records only: HEADER_ATTR (64)
 *               carries each attr and its ids, HEADER_FEATURE (80) each
 *               feature, then the kernel's records.
 *
 * The file is read as a stream: the header, the attrs and the feature
 * sections first (file mode), then the records one at a time.  A regular
 * file is mapped instead of read (sp_perf_read_capture_file), and the stack
 * copies of its samples are left there for the unwinder.  Records
 * fill an sp_capture (profile/capture.h): events, per-process maps (MMAP,
 * MMAP2 with or without a build id), thread names (COMM, exec), FORK,
 * SAMPLE (IP, TID, TIME, PERIOD, CALLCHAIN, user registers and stack copy
 * kept as bytes), LOST and LOST_SAMPLES counts.  At every FINISHED_ROUND
 * the samples read so far are handed to the caller's callback, which may
 * consume them, so that memory is bounded by what the caller keeps.
 *
 * Errors name the file, the byte offset and what was expected.  Counts are
 * checked against the bytes of their record before anything is allocated.
 *
 * `perf record -z` writes the kernel's records through one zstd stream,
 * never ended, flushed at the end of every chunk it takes from its ring
 * buffers: COMPRESSED (81) records {header; zstd bytes} or COMPRESSED2 (83)
 * {header; u64 size; zstd bytes; padding}, between perf's own uncompressed
 * records (FINISHED_ROUND, ...).  A record of the decompressed stream may
 * begin in one COMPRESSED record and end in the next.  The payloads go
 * through one decompression context and the records that come out are
 * parsed as they complete, so memory holds one partial record, not the
 * data; one COMPRESSED record may not give more than the buffer perf
 * compressed it from (the COMPRESSED feature's mmap_len), which stops a
 * zstd bomb.  Errors inside that data name the COMPRESSED record's offset
 * and the byte of the decompressed stream. */
#include "formats/formats.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define MAGIC "PERFILE2"
#define FILE_HEADER_SIZE 104
#define PIPE_HEADER_SIZE 16
#define ATTR_SIZE_VER0 64
#define SECTION_SIZE 16
/* a mapped file's pages are dropped this many bytes at a time at least (a
 * round of perf's is often a few hundred KiB; each drop is a system call
 * and a TLB flush) */
#define DROP_MIN (4u << 20)
/* records ahead of the one read whose ends are prefetched (records()) */
#define PREFETCH_RECORDS 3
/* the most read at once from an input of unknown size */
#define READ_LIMIT (1 << 30)

/* perf's own record types (spec §3) */
enum {
	REC_HEADER_ATTR = 64,
	REC_HEADER_BUILD_ID = 67,
	REC_FINISHED_ROUND = 68,
	REC_AUXTRACE = 71,
	REC_HEADER_FEATURE = 80,
	REC_COMPRESSED = 81,
	REC_COMPRESSED2 = 83,
};

/* feature bits (spec §2) */
enum {
	FEAT_BUILD_ID = 2,
	FEAT_HOSTNAME = 3,
	FEAT_OSRELEASE = 4,
	FEAT_ARCH = 6,
	FEAT_CMDLINE = 11,
	FEAT_EVENT_DESC = 12,
	FEAT_COMPRESSED = 27,
	FEAT_LAST = 256,
};

/* perf_event_attr flag bits (bit numbers of the bitfield word at offset 40) */
enum {
	ATTR_FREQ = 10,
	ATTR_SAMPLE_ID_ALL = 18,
	ATTR_USE_CLOCKID = 25,
};

#define MISC_BUILD_ID_SIZE (1u << 15)

typedef struct {
	uint64_t sample_type, read_format, regs_user, regs_intr, branch_type;
	bool sample_id_all;
} ev_layout;

typedef struct {
	const char *name;
	const uint8_t *mem; /* memory input (the caller's, or MAP), or */
	FILE *f;            /* a stream */
	uint8_t *map;       /* a regular file mapped whole (len bytes), or NULL */
	uint64_t dropped;   /* MAP's bytes before this left memory */
	uint64_t at;        /* offset of the record being read */
	const uint8_t *head; /* the stream's first N_HEAD bytes, already read from F */
	size_t n_head;
	uint64_t len;       /* bytes available (UINT64_MAX: unknown, a pipe) */
	uint64_t pos;       /* stream position of f */
	bool swap;
	bool pipe;
	uint8_t *buf;
	size_t cap;
	sp_capture *c;
	ev_layout *ev;
	size_t n_ev, cap_ev;
	sp_u64map id_event; /* sample id -> event index */
	uint64_t *chain;
	size_t cap_chain;
	sp_perf_round_fn on_round;
	void *arg;
	/* perf record -z */
	struct {
		uint32_t type;     /* the COMPRESSED feature's: 1 zstd, 0 unknown */
		uint64_t mmap_len; /* its buffer size, 0 when unknown */
		ZSTD_DCtx *dctx;
		uint8_t *buf;      /* decompressed bytes not parsed yet (a partial record) */
		size_t len, cap;
		uint64_t pos;      /* offset of buf[0] in the decompressed stream */
		uint64_t rec_off;  /* file offset of the COMPRESSED record decompressing */
		size_t hint;       /* the decoder's last answer: 0 or Z_BETWEEN_BLOCKS at a clean end */
		uint64_t skip;     /* AUXTRACE data still to skip */
		bool inside;       /* parsing records of the decompressed stream */
	} z;
} pd;

static sp_error *bad(const pd *d, uint64_t off, const char *fmt, ...) SP_PRINTF(3, 4);
static sp_error *bad(const pd *d, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *what = NULL;
	if (vasprintf(&what, fmt, ap) < 0)
		what = NULL;
	va_end(ap);
	sp_error *e;
	if (d->z.inside) /* OFF is in the decompressed stream */
		e = sp_error_new(SP_E_MALFORMED,
				 "%s: offset %" PRIu64 ": byte %" PRIu64 " of the data decompressed from "
				 "COMPRESSED records: %s", d->name, d->z.rec_off, off, what ? what : fmt);
	else
		e = sp_error_new(SP_E_MALFORMED, "%s: offset %" PRIu64 ": %s", d->name, off,
				 what ? what : fmt);
	free(what);
	return e;
}

/* -- byte order -------------------------------------------------------------- */

static uint16_t rd16(const pd *d, const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return d->swap ? __builtin_bswap16(v) : v;
}

static uint32_t rd32(const pd *d, const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return d->swap ? __builtin_bswap32(v) : v;
}

static uint64_t rd64(const pd *d, const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return d->swap ? __builtin_bswap64(v) : v;
}

/* Bit K of the attr's flag bitfield.  A compiler for a big-endian machine
 * allocates bitfields from the most significant bit of each byte, so in a
 * byte-swapped file the bits of each byte are reversed, not the bytes. */
static bool attr_flag(const pd *d, const uint8_t *flags, unsigned k)
{
	uint8_t byte = flags[k / 8];
	if (d->swap)
		return byte & (0x80u >> (k % 8));
	uint64_t v;
	memcpy(&v, flags, 8);
	return (v >> k) & 1;
}

/* -- reading ------------------------------------------------------------------ */

/* Makes [OFF, OFF+N) available at *OUT (borrowed until the next read);
 * a stream's bytes land at d->buf + KEEP, after KEEP bytes already read
 * (*OUT then points at d->buf, KEEP bytes before OFF).  WHAT names the
 * expected thing for the error when the input ends. */
static sp_error *read_keep(pd *d, uint64_t off, size_t n, size_t keep, const uint8_t **out,
			   const char *what)
{
	if (d->len == UINT64_MAX && n > READ_LIMIT)
		return bad(d, off, "%s of %zu bytes: expected at most %d", what, n, READ_LIMIT);
	if (d->len != UINT64_MAX && (off > d->len || n > d->len - off))
		return bad(d, off, "truncated %s: expected %zu bytes, the file has %" PRIu64 " left",
			   what, n + keep, off > d->len ? 0 : d->len - off + keep);
	if (d->mem) {
		*out = d->mem + off - keep;
		return NULL;
	}
	sp_grow(&d->buf, &d->cap, keep + n + 1, 1);
	size_t got = 0;
	if (off < d->n_head) { /* bytes read before the stream was handed over */
		got = n < d->n_head - off ? n : (size_t)(d->n_head - off);
		memcpy(d->buf + keep, d->head + off, got);
	}
	if (got < n && off + got != d->pos) {
		if (d->pipe || fseeko(d->f, (off_t)(off + got), SEEK_SET) != 0)
			return sp_error_new(SP_E_IO, "%s: cannot seek to offset %" PRIu64 ": %s%s",
					    d->name, off + got,
					    d->pipe ? "not seekable" : strerror(errno),
					    d->pipe ? "" : " (a file-mode perf.data must be a file; "
							   "`perf record -o -` writes one that "
							   "can be piped)");
		d->pos = off + got;
	}
	if (got < n) {
		size_t more = fread(d->buf + keep + got, 1, n - got, d->f);
		d->pos += more;
		got += more;
	}
	if (got != n) {
		if (ferror(d->f))
			return sp_error_new(SP_E_IO, "%s: read failed at offset %" PRIu64 ": %s",
					    d->name, off + got, strerror(errno));
		return bad(d, off - keep, "truncated %s: expected %zu bytes, the file has %zu left",
			   what, n + keep, got + keep);
	}
	*out = d->buf;
	return NULL;
}

static sp_error *read_at(pd *d, uint64_t off, size_t n, const uint8_t **out, const char *what)
{
	return read_keep(d, off, n, 0, out, what);
}

/* A cursor over one record or section already in memory. */
typedef struct {
	const pd *d;
	const uint8_t *p;
	size_t len, at;
	uint64_t base; /* file offset of p[0] */
	const char *what;
} cur;

static cur mkcur(const pd *d, const uint8_t *p, size_t len, uint64_t base, const char *what)
{
	cur k = {.d = d, .p = p, .len = len, .base = base, .what = what};
	return k;
}

static sp_error *cur_short(const cur *k, size_t need, const char *field)
{
	return bad(k->d, k->base + k->at,
		   "%s: expected %zu bytes of %s, %zu left in its %zu-byte %s", k->what, need,
		   field, k->len - k->at, k->len, k->what);
}

/* The next N bytes of K, consumed, or NULL when fewer are left. */
static const uint8_t *next(cur *k, size_t n)
{
	if (n > k->len - k->at || !k->p)
		return NULL;
	const uint8_t *q = k->p + k->at;
	k->at += n;
	return q;
}

static sp_error *take(cur *k, size_t n, const uint8_t **out, const char *field)
{
	const uint8_t *q = next(k, n);
	if (!q)
		return cur_short(k, n, field);
	*out = q;
	return NULL;
}

static sp_error *take64(cur *k, uint64_t *v, const char *field)
{
	const uint8_t *q = next(k, 8);
	if (!q)
		return cur_short(k, 8, field);
	*v = rd64(k->d, q);
	return NULL;
}

static sp_error *take32(cur *k, uint32_t *v, const char *field)
{
	const uint8_t *q = next(k, 4);
	if (!q)
		return cur_short(k, 4, field);
	*v = rd32(k->d, q);
	return NULL;
}

/* A perf string: {u32 len; char[len]} NUL-padded.  *S is a new string. */
static sp_error *take_str(cur *k, char **s, const char *field)
{
	uint32_t n = 0;
	const uint8_t *q = NULL;
	sp_error *e = take32(k, &n, field);
	if (!e)
		e = take(k, n, &q, field);
	if (e)
		return e;
	*s = sp_xstrndup((const char *)q, strnlen((const char *)q, n));
	return NULL;
}

/* A NUL-terminated name filling at most [at, LIMIT) of K. */
static sp_error *take_name(cur *k, size_t limit, char **s, const char *field)
{
	const uint8_t *q = k->p + k->at;
	size_t room = limit > k->at ? limit - k->at : 0;
	const uint8_t *nul = memchr(q, 0, room);
	if (!nul)
		return bad(k->d, k->base + k->at,
			   "%s: %s is not NUL-terminated within the record", k->what, field);
	*s = sp_xstrndup((const char *)q, (size_t)(nul - q));
	k->at = limit;
	return NULL;
}

/* -- attrs and events ---------------------------------------------------------- */

typedef struct {
	uint32_t type, size;
	uint64_t config, period_or_freq, sample_type, read_format;
	bool freq, sample_id_all, use_clockid;
	int32_t clockid; /* with use_clockid */
	uint64_t branch_type, regs_user, regs_intr;
} attr_fields;

/* Reads a perf_event_attr at K's position: its own size first, then the
 * fields that fit in that size.  Advances K by attr.size. */
static sp_error *take_attr(cur *k, attr_fields *a)
{
	uint64_t off = k->base + k->at;
	if (k->len - k->at < 8)
		return cur_short(k, 8, "perf_event_attr type and size");
	a->type = rd32(k->d, k->p + k->at);
	a->size = rd32(k->d, k->p + k->at + 4);
	if (a->size == 0)
		a->size = ATTR_SIZE_VER0; /* what perf writes for the first version */
	if (a->size < ATTR_SIZE_VER0 || a->size % 8)
		return bad(k->d, off,
			   "attr.size %" PRIu32 ": expected a multiple of 8 of at least %d",
			   a->size, ATTR_SIZE_VER0);
	if (a->size > k->len - k->at)
		return bad(k->d, off + 4, "attr.size %" PRIu32 " runs past its %zu-byte %s",
			   a->size, k->len, k->what);
	const uint8_t *q = NULL;
	sp_error *e = take(k, a->size, &q, "perf_event_attr");
	if (e)
		return e;
	a->config = rd64(k->d, q + 8);
	a->period_or_freq = rd64(k->d, q + 16);
	a->sample_type = rd64(k->d, q + 24);
	a->read_format = rd64(k->d, q + 32);
	a->freq = attr_flag(k->d, q + 40, ATTR_FREQ);
	a->sample_id_all = attr_flag(k->d, q + 40, ATTR_SAMPLE_ID_ALL);
	a->use_clockid = attr_flag(k->d, q + 40, ATTR_USE_CLOCKID);
	a->clockid = a->size >= 96 ? (int32_t)rd32(k->d, q + 92) : 0;
	a->branch_type = a->size >= 80 ? rd64(k->d, q + 72) : 0;
	a->regs_user = a->size >= 96 ? rd64(k->d, q + 80) : 0;
	a->regs_intr = a->size >= 104 ? rd64(k->d, q + 96) : 0;
	return NULL;
}

/* Event names of perf's generic events (perf_event.h enums). */
static const char *event_name(uint32_t type, uint64_t config)
{
	static const char *const hw[] = {"cycles", "instructions", "cache-references",
					 "cache-misses", "branches", "branch-misses",
					 "bus-cycles", "stalled-cycles-frontend",
					 "stalled-cycles-backend", "ref-cycles"};
	static const char *const sw[] = {"cpu-clock", "task-clock", "page-faults",
					 "context-switches", "cpu-migrations",
					 "minor-faults", "major-faults", "alignment-faults",
					 "emulation-faults", "dummy", "bpf-output", "cgroup-switches"};
	if (type == PERF_TYPE_HARDWARE && config < SP_ARRAY_LEN(hw))
		return hw[config];
	if (type == PERF_TYPE_SOFTWARE && config < SP_ARRAY_LEN(sw))
		return sw[config];
	return NULL;
}

static void add_event(pd *d, const attr_fields *a)
{
	char *name = NULL;
	const char *known = event_name(a->type, a->config);
	if (!known)
		name = sp_xasprintf("event-%" PRIu32 "-0x%" PRIx64, a->type, a->config);
	bool clock = a->type == PERF_TYPE_SOFTWARE &&
		     (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK);
	sp_capture_event ev = {.name = (char *)(known ? known : name),
			       .unit = (char *)(clock ? "nanoseconds" : "count"),
			       .type = a->type,
			       .config = a->config,
			       .sample_type = a->sample_type,
			       .sample_regs_user = a->regs_user,
			       .period = a->freq ? 0 : a->period_or_freq,
			       .freq = a->freq ? a->period_or_freq : 0,
			       .clockid = a->use_clockid ? a->clockid : -1};
	sp_capture_add_event(d->c, &ev);
	free(name);
	ev_layout l = {.sample_type = a->sample_type,
		       .read_format = a->read_format,
		       .regs_user = a->regs_user,
		       .regs_intr = a->regs_intr,
		       .branch_type = a->branch_type,
		       .sample_id_all = a->sample_id_all};
	SP_PUSH(d->ev, d->n_ev, d->cap_ev, l);
}

/* Reads N u64 sample ids from K and maps them to event EV. */
static sp_error *take_ids(pd *d, cur *k, uint64_t n, size_t ev)
{
	for (uint64_t i = 0; i < n; i++) {
		uint64_t id;
		sp_error *e = take64(k, &id, "sample id");
		if (e)
			return e;
		sp_u64map_put(&d->id_event, id, ev);
	}
	return NULL;
}

/* -- features -------------------------------------------------------------------- */

/* Build-id records {header; s32 pid; u8 id[24]; char name[]} (K4
 * perf_record_header_build_id), as a feature section or a record. */
static sp_error *build_id_record(pd *d, cur *k, uint16_t misc, size_t end)
{
	const uint8_t *q = next(k, 4 + 24);
	if (!q)
		return cur_short(k, 4 + 24, "build id");
	int32_t pid = (int32_t)rd32(d, q);
	size_t n = 20;
	if (misc & MISC_BUILD_ID_SIZE) {
		n = q[4 + 20];
		if (n > 20)
			return bad(d, k->base + k->at - 8,
				   "build id size %zu: expected at most 20", n);
	} else {
		while (n && q[4 + n - 1] == 0)
			n--;
	}
	char *name;
	sp_error *e = take_name(k, end, &name, "build-id file name");
	if (e)
		return e;
	if (n) {
		char *id = sp_hex_string(q + 4, n);
		sp_capture_add_build_id(d->c, pid, name, id);
		free(id);
	}
	free(name);
	return NULL;
}

static sp_error *feat_build_ids(pd *d, cur *k)
{
	while (k->at < k->len) {
		uint64_t off = k->base + k->at;
		if (k->len - k->at < 8)
			return cur_short(k, 8, "build-id record header");
		uint16_t misc = rd16(d, k->p + k->at + 4), size = rd16(d, k->p + k->at + 6);
		if (size < 8 + 4 + 24 || size > k->len - k->at)
			return bad(d, off,
				   "build-id record of %u bytes: expected %d to %zu", size,
				   8 + 4 + 24, k->len - k->at);
		cur r = mkcur(d, k->p + k->at, size, off, "build-id record");
		r.at = 8;
		sp_error *e = build_id_record(d, &r, misc, size);
		if (e)
			return e;
		k->at += size;
	}
	return NULL;
}

static sp_error *feat_event_desc(pd *d, cur *k)
{
	uint32_t nr, attr_size;
	sp_error *e = take32(k, &nr, "event count");
	if (!e)
		e = take32(k, &attr_size, "attr size");
	if (e)
		return e;
	for (uint32_t i = 0; i < nr; i++) {
		const uint8_t *q = NULL;
		uint32_t n_ids;
		char *name = NULL;
		uint64_t first_id = 0;
		if ((e = take(k, attr_size, &q, "event attr")) || (e = take32(k, &n_ids, "id count")) ||
		    (e = take_str(k, &name, "event name")))
			return e;
		if (n_ids > (k->len - k->at) / 8) {
			free(name);
			return bad(d, k->base + k->at, "event description: %" PRIu32
				   " ids but only %zu bytes left", n_ids, k->len - k->at);
		}
		if (n_ids)
			first_id = rd64(d, k->p + k->at);
		k->at += (size_t)n_ids * 8;
		/* the event is the one its ids belong to, else the i-th */
		uint64_t ev = i;
		if (n_ids && !sp_u64map_get(&d->id_event, first_id, &ev))
			ev = i;
		if (ev < d->c->n_events && *name) {
			free(d->c->events[ev].name);
			d->c->events[ev].name = name;
			name = NULL;
		}
		free(name);
	}
	return NULL;
}

/* COMPRESSED: {u32 version, type, level, ratio, mmap_len} (K4 write_compressed). */
static sp_error *feat_compressed(pd *d, cur *k)
{
	uint32_t v[5];
	static const char *const field[] = {"compression version", "compression type",
					    "compression level", "compression ratio",
					    "compression buffer size"};
	for (size_t i = 0; i < 5; i++) {
		sp_error *e = take32(k, &v[i], field[i]);
		if (e)
			return e;
	}
	d->z.type = v[1];
	d->z.mmap_len = v[4];
	d->c->zstd_level = v[2];
	d->c->zstd_ratio = v[3];
	return NULL;
}

static sp_error *feature(pd *d, unsigned bit, cur *k)
{
	sp_capture *c = d->c;
	char **slot = bit == FEAT_HOSTNAME ? &c->hostname :
		      bit == FEAT_OSRELEASE ? &c->osrelease :
		      bit == FEAT_ARCH ? &c->arch : NULL;
	if (slot) {
		char *s;
		sp_error *e = take_str(k, &s, "feature string");
		if (e)
			return e;
		free(*slot);
		*slot = s;
		return NULL;
	}
	switch (bit) {
	case FEAT_BUILD_ID:
		return feat_build_ids(d, k);
	case FEAT_EVENT_DESC:
		return feat_event_desc(d, k);
	case FEAT_COMPRESSED:
		return feat_compressed(d, k);
	case FEAT_CMDLINE: {
		uint32_t nr;
		sp_error *e = take32(k, &nr, "argument count");
		if (e)
			return e;
		if (nr > (k->len - k->at) / 4)
			return bad(d, k->base + k->at,
				   "command line: %" PRIu32 " arguments but only %zu bytes left",
				   nr, k->len - k->at);
		for (uint32_t i = 0; i < nr; i++) {
			char *s;
			if ((e = take_str(k, &s, "argument")))
				return e;
			c->cmdline = sp_xreallocarray(c->cmdline, c->n_cmdline + 1,
						      sizeof(*c->cmdline));
			c->cmdline[c->n_cmdline++] = s;
		}
		return NULL;
	}
	default:
		return NULL; /* features symprof does not need */
	}
}

/* The feature sections after the data (file mode). */
static sp_error *file_features(pd *d, const uint8_t bitmap[32], uint64_t at)
{
	for (unsigned bit = 0; bit < FEAT_LAST; bit++) {
		/* the bitmap is four u64 words of the recording's byte order */
		uint64_t w = rd64(d, bitmap + 8 * (bit / 64));
		if (!((w >> (bit % 64)) & 1))
			continue;
		const uint8_t *q = NULL;
		sp_error *e = read_at(d, at, SECTION_SIZE, &q, "feature section table");
		if (e)
			return e;
		uint64_t off = rd64(d, q), size = rd64(d, q + 8);
		at += SECTION_SIZE;
		if (bit != FEAT_BUILD_ID && bit != FEAT_HOSTNAME && bit != FEAT_OSRELEASE &&
		    bit != FEAT_ARCH && bit != FEAT_CMDLINE && bit != FEAT_EVENT_DESC &&
		    bit != FEAT_COMPRESSED)
			continue;
		if (d->len != UINT64_MAX && (off > d->len || size > d->len - off))
			return bad(d, at - SECTION_SIZE,
				   "feature %u section [%" PRIu64 ", +%" PRIu64
				   ") runs past the end of the file (%" PRIu64 " bytes)",
				   bit, off, size, d->len);
		if ((e = read_at(d, off, (size_t)size, &q, "feature section")))
			return e;
		cur k = mkcur(d, q, (size_t)size, off, "feature section");
		if ((e = feature(d, bit, &k)))
			return e;
	}
	return NULL;
}

/* -- records ------------------------------------------------------------------- */

/* Bytes of the sample_id trailer of non-sample records for LAYOUT. */
static size_t trailer_size(const ev_layout *l)
{
	if (!l->sample_id_all)
		return 0;
	uint64_t t = l->sample_type & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
				       PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
				       PERF_SAMPLE_IDENTIFIER);
	return 8 * (size_t)__builtin_popcountll(t);
}

/* The layout of a non-sample record's trailer: matched through its last
 * u64 when events carry IDENTIFIER, else the first event's. */
static const ev_layout *trailer_layout(pd *d, const cur *k)
{
	const ev_layout *l = &d->ev[0];
	if (d->n_ev > 1 && (l->sample_type & PERF_SAMPLE_IDENTIFIER) && l->sample_id_all &&
	    k->len >= 16) {
		uint64_t ev;
		if (sp_u64map_get(&d->id_event, rd64(d, k->p + k->len - 8), &ev) && ev < d->n_ev)
			l = &d->ev[ev];
	}
	return l;
}

/* The time in a non-sample record's trailer (0 when not recorded). */
static uint64_t trailer_time(const pd *d, const cur *k, const ev_layout *l, size_t tsize)
{
	if (!tsize || !(l->sample_type & PERF_SAMPLE_TIME) || tsize > k->len - 8)
		return 0;
	size_t at = k->len - tsize + ((l->sample_type & PERF_SAMPLE_TID) ? 8 : 0);
	return rd64(d, k->p + at);
}

static sp_error *rec_mmap(pd *d, cur *k, uint32_t type, uint16_t misc)
{
	const ev_layout *l = trailer_layout(d, k);
	size_t tsize = trailer_size(l);
	size_t fixed = type == PERF_RECORD_MMAP2 ? 8 + 8 + 8 + 8 + 24 + 8 : 8 + 8 + 8 + 8;
	if (k->len < 8 + fixed + tsize + 1)
		return cur_short(k, 8 + fixed + tsize + 1, "mmap fields, file name and trailer");
	const uint8_t *q = k->p + 8;
	sp_capture_map m = {0};
	int32_t pid = (int32_t)rd32(d, q);
	m.start = rd64(d, q + 8);
	uint64_t len = rd64(d, q + 16);
	m.pgoff = rd64(d, q + 24);
	m.limit = m.start + len;
	if (m.limit < m.start)
		return bad(d, k->base + 16, "mmap at 0x%" PRIx64 " of 0x%" PRIx64
			   " bytes wraps around the address space", m.start, len);
	char *bid = NULL;
	if (type == PERF_RECORD_MMAP2) {
		const uint8_t *u = q + 32;
		if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			if (u[0] > 20)
				return bad(d, k->base + 40, "mmap2 build id size %u: expected at most 20",
					   u[0]);
			if (u[0])
				bid = sp_hex_string(u + 4, u[0]);
		}
		uint32_t prot = rd32(d, q + 56);
		m.exec = prot & 4; /* PROT_EXEC */
	} else {
		m.exec = !(misc & PERF_RECORD_MISC_MMAP_DATA);
	}
	k->at = 8 + fixed;
	m.time = trailer_time(d, k, l, tsize);
	char *path;
	sp_error *e = take_name(k, k->len - tsize, &path, "mmap file name");
	if (e) {
		free(bid);
		return e;
	}
	static const char deleted[] = " (deleted)"; /* a file replaced since it was mapped */
	size_t pn = strlen(path);
	if (pn > strlen(deleted) && !strcmp(path + pn - strlen(deleted), deleted))
		path[pn - strlen(deleted)] = 0;
	m.path = path;
	m.build_id = bid;
	/* the kernel's maps: perf records them with pid -1 */
	bool kernel = pid == SP_CAPTURE_KERNEL_PID ||
		      (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
	sp_capture_add_map(d->c, kernel ? SP_CAPTURE_KERNEL_PID : pid, &m);
	free(path);
	free(bid);
	return NULL;
}

static sp_error *rec_comm(pd *d, cur *k, uint16_t misc)
{
	const ev_layout *l = trailer_layout(d, k);
	size_t tsize = trailer_size(l);
	if (k->len < 8 + 8 + tsize + 1)
		return cur_short(k, 8 + 8 + tsize + 1, "comm fields, name and trailer");
	int32_t pid = (int32_t)rd32(d, k->p + 8), tid = (int32_t)rd32(d, k->p + 12);
	uint64_t time = trailer_time(d, k, l, tsize);
	k->at = 16;
	char *name;
	sp_error *e = take_name(k, k->len - tsize, &name, "comm name");
	if (e)
		return e;
	sp_capture_add_comm(d->c, pid, tid, time, name);
	free(name);
	if (misc & PERF_RECORD_MISC_COMM_EXEC)
		sp_capture_exec(d->c, pid, time);
	return NULL;
}

static sp_error *rec_fork(pd *d, cur *k)
{
	if (k->len < 8 + 16 + 8)
		return cur_short(k, 8 + 16 + 8, "fork fields");
	int32_t pid = (int32_t)rd32(d, k->p + 8), ppid = (int32_t)rd32(d, k->p + 12);
	sp_capture_fork(d->c, ppid, pid, rd64(d, k->p + 24));
	return NULL;
}

/* Skips the READ field of a sample. */
static sp_error *skip_read(cur *k, uint64_t rf)
{
	uint64_t nr = 1;
	sp_error *e;
	size_t per = 8 + ((rf & PERF_FORMAT_ID) ? 8 : 0) + ((rf & PERF_FORMAT_LOST) ? 8 : 0);
	size_t times = 8 * (((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) != 0) +
			    ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) != 0));
	const uint8_t *q = NULL;
	if (rf & PERF_FORMAT_GROUP) {
		if ((e = take64(k, &nr, "read group count")))
			return e;
		if ((e = take(k, times, &q, "read times")))
			return e;
		if (nr > (k->len - k->at) / per)
			return bad(k->d, k->base + k->at - times - 8,
				   "read group of %" PRIu64 " values but only %zu bytes left", nr,
				   k->len - k->at);
		return take(k, (size_t)nr * per, &q, "read values");
	}
	return take(k, per + times, &q, "read value");
}

static sp_error *take_regs(cur *k, uint64_t mask, uint64_t *abi, const uint8_t **regs,
			   size_t *n, const char *field)
{
	sp_error *e = take64(k, abi, field);
	if (e)
		return e;
	*n = 0;
	*regs = NULL;
	if (*abi == 0)
		return NULL;
	*n = 8 * (size_t)__builtin_popcountll(mask);
	return take(k, *n, regs, field);
}

static sp_error *rec_sample(pd *d, cur *k, uint16_t misc)
{
	const ev_layout *l = &d->ev[0];
	size_t ev = 0;
	uint64_t st0 = l->sample_type, v;
	sp_error *e;
	/* which event: IDENTIFIER first, else ID at its fixed place */
	if (d->n_ev > 1) {
		uint64_t id = 0;
		size_t at = 8;
		if (st0 & PERF_SAMPLE_IDENTIFIER) {
			at = 8;
		} else if (st0 & PERF_SAMPLE_ID) {
			at += 8 * (size_t)__builtin_popcountll(st0 & (PERF_SAMPLE_IP | PERF_SAMPLE_TID |
								      PERF_SAMPLE_TIME |
								      PERF_SAMPLE_ADDR));
		} else {
			return bad(d, k->base, "sample of a file with %zu events carries no "
				   "IDENTIFIER or ID to tell them apart", d->n_ev);
		}
		if (k->len < at + 8)
			return cur_short(k, at + 8, "sample id");
		id = rd64(d, k->p + at);
		uint64_t found;
		if (!sp_u64map_get(&d->id_event, id, &found) || found >= d->n_ev)
			return bad(d, k->base + at,
				   "sample id %" PRIu64 " belongs to no event of the file", id);
		ev = (size_t)found;
		l = &d->ev[ev];
	}
	uint64_t st = l->sample_type;
	sp_capture_sample s = {.event = ev, .cpumode = misc & PERF_RECORD_MISC_CPUMODE_MASK};
	k->at = 8;
	if (st & PERF_SAMPLE_IDENTIFIER && (e = take64(k, &v, "identifier")))
		return e;
	if (st & PERF_SAMPLE_IP && (e = take64(k, &s.ip, "ip")))
		return e;
	if (st & PERF_SAMPLE_TID) {
		uint32_t pid, tid;
		if ((e = take32(k, &pid, "pid")) || (e = take32(k, &tid, "tid")))
			return e;
		s.pid = (int32_t)pid;
		s.tid = (int32_t)tid;
	}
	if (st & PERF_SAMPLE_TIME && (e = take64(k, &s.time, "time")))
		return e;
	if (st & PERF_SAMPLE_ADDR && (e = take64(k, &v, "addr")))
		return e;
	if (st & PERF_SAMPLE_ID && (e = take64(k, &v, "id")))
		return e;
	if (st & PERF_SAMPLE_STREAM_ID && (e = take64(k, &v, "stream id")))
		return e;
	if (st & PERF_SAMPLE_CPU && (e = take64(k, &v, "cpu")))
		return e;
	const sp_capture_event *cev = &d->c->events[ev];
	s.period = cev->period ? cev->period : 1;
	if (st & PERF_SAMPLE_PERIOD && (e = take64(k, &s.period, "period")))
		return e;
	if (st & PERF_SAMPLE_READ && (e = skip_read(k, l->read_format)))
		return e;
	uint64_t nr = 0;
	size_t chain_at = 0;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if ((e = take64(k, &nr, "callchain length")))
			return e;
		if (nr > (k->len - k->at) / 8)
			return bad(d, k->base + k->at - 8,
				   "callchain of %" PRIu64 " entries but only %zu bytes left in the "
				   "%zu-byte sample", nr, k->len - k->at, k->len);
		chain_at = k->at;
		k->at += (size_t)nr * 8;
		s.has_chain = true;
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t n;
		const uint8_t *q = NULL;
		if ((e = take32(k, &n, "raw size")) || (e = take(k, n, &q, "raw data")))
			return e;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t bn;
		const uint8_t *q = NULL;
		if ((e = take64(k, &bn, "branch stack length")))
			return e;
		if ((l->branch_type & PERF_SAMPLE_BRANCH_HW_INDEX) && (e = take64(k, &v, "hw_idx")))
			return e;
		if (bn > (k->len - k->at) / 24)
			return bad(d, k->base + k->at, "branch stack of %" PRIu64
				   " entries but only %zu bytes left", bn, k->len - k->at);
		if ((e = take(k, (size_t)bn * 24, &q, "branch stack")))
			return e;
	}
	const uint8_t *regs = NULL, *stack = NULL;
	size_t regs_len = 0, stack_len = 0;
	if (st & PERF_SAMPLE_REGS_USER &&
	    (e = take_regs(k, l->regs_user, &s.regs_abi, &regs, &regs_len, "user registers")))
		return e;
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t size, dyn = 0;
		if ((e = take64(k, &size, "user stack size")))
			return e;
		uint64_t size_at = k->base + k->at - 8;
		if (size > k->len - k->at)
			return bad(d, size_at, "user stack of %" PRIu64
				   " bytes but only %zu bytes left in the sample", size,
				   k->len - k->at);
		if ((e = take(k, (size_t)size, &stack, "user stack")))
			return e;
		if (size && (e = take64(k, &dyn, "user stack dyn_size")))
			return e;
		if (dyn > size)
			return bad(d, k->base + k->at - 8,
				   "user stack dyn_size %" PRIu64 " larger than its size %" PRIu64,
				   dyn, size);
		stack_len = (size_t)dyn;
	}
	/* the fields after these (weight, data source, ...) are not needed */
	if (s.has_chain && nr) {
		sp_grow(&d->chain, &d->cap_chain, (size_t)nr, sizeof(uint64_t));
		for (size_t i = 0; i < nr; i++)
			d->chain[i] = rd64(d, k->p + chain_at + 8 * i);
	}
	/* a mapped file's stack bytes stay where they are: an unwind reads a
	 * few hundred of a copy's 4 or 8 KiB (decompressed records go away) */
	bool borrow = d->map && !d->z.inside;
	sp_capture_add_sample(d->c, &s, d->chain, (size_t)nr, regs, regs_len, borrow ? NULL : stack,
			      borrow ? 0 : stack_len);
	if (borrow)
		sp_capture_borrow_stack(d->c, stack, stack_len);
	return NULL;
}

/* The mapped file's pages before the record being read hold nothing the
 * samples read so far still need once a round is done, so they leave
 * memory: peak RSS follows a round, not the file.  (MADV_DONTNEED on a
 * private mapping that was never written only drops page-table entries:
 * the bytes stay readable, from the page cache.) */
static void drop_read(pd *d)
{
	if (!d->map)
		return;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t to = d->at / page * page;
	if (to >= d->dropped + DROP_MIN &&
	    madvise(d->map + d->dropped, (size_t)(to - d->dropped), MADV_DONTNEED) == 0)
		d->dropped = to;
}

static sp_error *round_done(pd *d)
{
	sp_error *e = d->on_round ? d->on_round(d->c, d->arg) : NULL;
	drop_read(d);
	return e;
}

/* Pipe mode: {attr; u64 ids[]} up to the end of the record. */
static sp_error *rec_header_attr(pd *d, cur *k)
{
	attr_fields a;
	k->at = 8;
	sp_error *e = take_attr(k, &a);
	if (e)
		return e;
	add_event(d, &a);
	return take_ids(d, k, (k->len - k->at) / 8, d->n_ev - 1);
}

/* -- perf record -z ------------------------------------------------------------ */

/* What libzstd's streaming decoder asks for next when it stands between two
 * blocks of an unfinished frame: a block header.  perf flushes the stream
 * after every chunk, so its data end there (or at the end of a frame, 0). */
#define Z_BETWEEN_BLOCKS 3
/* The most one COMPRESSED record may give when the file does not say how
 * large perf's buffers were, and what a record may give beyond the buffer
 * it was compressed from (the end of the previous chunk's last block). */
#define Z_DEFAULT_MAX ((uint64_t)64 << 20)
#define Z_SLACK ((uint64_t)ZSTD_BLOCKSIZE_MAX * 2)

static sp_error *record(pd *d, cur *k, uint64_t *skip_extra);

static sp_error *small_record(pd *d, uint64_t off, uint32_t type, uint16_t size)
{
	return bad(d, off, "record of type %" PRIu32 " has size %u: expected at least its "
		   "8-byte header", type, size);
}

/* Parses the whole records at the start of d->z.buf and keeps the partial
 * one that may follow, for the next COMPRESSED record to complete. */
static sp_error *z_records(pd *d)
{
	sp_error *e = NULL;
	size_t at = 0;
	d->z.inside = true;
	while (!e) {
		size_t left = d->z.len - at;
		if (d->z.skip) {
			size_t n = d->z.skip < left ? (size_t)d->z.skip : left;
			at += n;
			d->z.skip -= n;
			if (d->z.skip)
				break;
			continue;
		}
		if (left < 8)
			break;
		const uint8_t *q = d->z.buf + at;
		uint64_t off = d->z.pos + at;
		uint32_t type = rd32(d, q);
		uint16_t size = rd16(d, q + 6);
		if (size < 8) {
			e = small_record(d, off, type, size);
			break;
		}
		if (size > left)
			break;
		cur k = mkcur(d, q, size, off, "record");
		if (type == REC_COMPRESSED || type == REC_COMPRESSED2)
			e = bad(d, off, "COMPRESSED record inside compressed data");
		else
			e = record(d, &k, &d->z.skip);
		at += size;
	}
	d->z.inside = false;
	memmove(d->z.buf, d->z.buf + at, d->z.len - at);
	d->z.len -= at;
	d->z.pos += at;
	return e;
}

/* COMPRESSED {header; zstd bytes} or COMPRESSED2 {header; u64 size; zstd
 * bytes; padding}: decompressed and parsed as its records complete. */
static sp_error *rec_compressed(pd *d, cur *k, uint32_t type)
{
	const uint8_t *src = k->p + 8;
	size_t n = k->len - 8;
	if (type == REC_COMPRESSED2) {
		uint64_t size;
		k->at = 8;
		sp_error *e = take64(k, &size, "compressed data size");
		if (e)
			return e;
		if (size > k->len - 16)
			return bad(d, k->base + 8, "compressed data of %" PRIu64 " bytes in a %zu-byte "
				   "COMPRESSED2 record", size, k->len);
		src = k->p + 16;
		n = (size_t)size;
	}
	if (d->z.type && d->z.type != 1)
		return bad(d, k->base, "COMPRESSED record, but the COMPRESSED feature gives "
			   "compression type %" PRIu32 ": expected 1 (zstd)", d->z.type);
	if (!d->z.dctx && !(d->z.dctx = ZSTD_createDCtx()))
		sp_oom();
	uint64_t max = d->z.mmap_len ? d->z.mmap_len + Z_SLACK : Z_DEFAULT_MAX;
	if (sp_mem_limit() && max > sp_mem_limit())
		max = sp_mem_limit();
	d->z.rec_off = k->base;
	ZSTD_inBuffer in = {src, n, 0};
	uint64_t produced = 0;
	for (;;) {
		sp_grow(&d->z.buf, &d->z.cap, d->z.len + ZSTD_DStreamOutSize(), 1);
		ZSTD_outBuffer out = {d->z.buf + d->z.len, d->z.cap - d->z.len, 0};
		size_t r = ZSTD_decompressStream(d->z.dctx, &out, &in);
		if (ZSTD_isError(r))
			return bad(d, k->base, "corrupt zstd payload in COMPRESSED record: %s",
				   ZSTD_getErrorName(r));
		d->z.hint = r;
		d->z.len += out.pos;
		produced += out.pos;
		d->c->zstd_out += out.pos;
		if (produced > max) {
			char lim[64];
			sp_format_size(lim, sizeof(lim), (size_t)max);
			return sp_error_new(SP_E_LIMIT, "%s: offset %" PRIu64 ": COMPRESSED record "
					    "decompresses to more than %s (%s)", d->name, k->base,
					    lim, max == sp_mem_limit() ?
					    "the memory limit, --max-memory" : d->z.mmap_len ?
					    "the COMPRESSED feature's buffer size and a block" :
					    "the most perf writes in one");
		}
		sp_error *e = z_records(d);
		if (e)
			return e;
		if (in.pos == in.size && out.pos < out.size)
			break;
	}
	d->c->zstd_in += n;
	return NULL;
}

/* At the end of the data: the decompressed stream must end with a whole
 * record, at the end of a block. */
static sp_error *z_end(pd *d)
{
	if (!d->z.dctx)
		return NULL;
	d->z.inside = true;
	sp_error *e = NULL;
	if (d->z.skip)
		e = bad(d, d->z.pos, "truncated auxtrace data: %" PRIu64 " bytes missing",
			d->z.skip);
	else if (d->z.len)
		e = bad(d, d->z.pos, "truncated record: %zu bytes of it at the end of the "
			"compressed data", d->z.len);
	else if (d->z.hint && d->z.hint != Z_BETWEEN_BLOCKS)
		e = bad(d, d->z.pos, "the zstd stream of the COMPRESSED records ends inside a "
			"block (truncated payload)");
	d->z.inside = false;
	return e;
}

static sp_error *record(pd *d, cur *k, uint64_t *skip_extra)
{
	uint32_t type = rd32(d, k->p);
	uint16_t misc = rd16(d, k->p + 4);
	if (d->n_ev == 0 && type < REC_HEADER_ATTR)
		return bad(d, k->base, "record of type %" PRIu32 " before any event attribute",
			   type);
	switch (type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return rec_mmap(d, k, type, misc);
	case PERF_RECORD_COMM:
		return rec_comm(d, k, misc);
	case PERF_RECORD_FORK:
		return rec_fork(d, k);
	case PERF_RECORD_SAMPLE:
		return rec_sample(d, k, misc);
	case PERF_RECORD_LOST:
		if (k->len < 8 + 16)
			return cur_short(k, 24, "lost count");
		d->c->lost += rd64(d, k->p + 16);
		return NULL;
	case PERF_RECORD_LOST_SAMPLES:
		if (k->len < 8 + 8)
			return cur_short(k, 16, "lost count");
		d->c->lost += rd64(d, k->p + 8);
		return NULL;
	case REC_FINISHED_ROUND:
		return round_done(d);
	case REC_HEADER_ATTR:
		if (!d->pipe)
			return NULL; /* file mode has them in the attrs section */
		return rec_header_attr(d, k);
	case REC_HEADER_BUILD_ID:
		k->at = 8;
		return build_id_record(d, k, misc, k->len);
	case REC_HEADER_FEATURE: {
		uint64_t feat;
		k->at = 8;
		sp_error *e = take64(k, &feat, "feature id");
		if (e)
			return e;
		k->base += k->at;
		k->p += k->at;
		k->len -= k->at;
		k->at = 0;
		return feat < FEAT_LAST ? feature(d, (unsigned)feat, k) : NULL;
	}
	case REC_AUXTRACE:
		/* the trace data follows the record, outside its size */
		if (k->len < 16)
			return cur_short(k, 16, "auxtrace size");
		*skip_extra = rd64(d, k->p + 8);
		return NULL;
	case REC_COMPRESSED:
	case REC_COMPRESSED2:
		return rec_compressed(d, k, type);
	default:
		return NULL; /* EXIT, THROTTLE, SWITCH, perf's bookkeeping, ... */
	}
}

/* Reads records from OFF to END (UINT64_MAX: to the end of the input). */
static sp_error *records(pd *d, uint64_t off, uint64_t end)
{
	for (;;) {
		if (off == end || (end == UINT64_MAX && d->len != UINT64_MAX && off == d->len))
			break;
		if (end != UINT64_MAX && end - off < 8)
			return bad(d, off, "truncated record header: expected 8 bytes, the data "
				   "section has %" PRIu64 " left", end - off);
		const uint8_t *q = NULL;
		sp_error *e;
		if (d->pipe && !d->mem) {
			/* a pipe ends where the stream ends */
			int ch = getc(d->f);
			if (ch == EOF)
				break;
			ungetc(ch, d->f);
		}
		if ((e = read_at(d, off, 8, &q, "record header")))
			return e;
		uint16_t size = rd16(d, q + 6);
		uint32_t type = rd32(d, q);
		/* From a mapped file, the last bytes of this record and of the
		 * next few are asked for early: a sample's stack dyn_size is at
		 * its end (the next header right after), 4 or 8 KiB past what
		 * was read, on a page of its own that no hardware prefetch
		 * reaches.  The next records are guessed to be of this one's
		 * size, as a recording's samples mostly are (a wrong guess
		 * costs a useless fetch). */
		if (d->map)
			for (uint64_t k = 1; k <= PREFETCH_RECORDS && off + k * size <= d->len; k++)
				__builtin_prefetch(d->mem + off + k * size - 8);
		/* (perf's own records, features for one, need not be 8-aligned) */
		if (size < 8)
			return small_record(d, off, type, size);
		if (end != UINT64_MAX && size > end - off)
			return bad(d, off, "record of type %" PRIu32 " and %u bytes runs past the "
				   "end of the data section at offset %" PRIu64, type, size, end);
		/* the rest after the header, which a pipe cannot read again */
		if ((e = read_keep(d, off + 8, size - 8u, 8, &q, "record")))
			return e;
		cur k = mkcur(d, q, size, off, "record");
		uint64_t extra = 0;
		d->at = off;
		if ((e = record(d, &k, &extra)))
			return e;
		off += size;
		if (extra) {
			if (extra % 8 || (end != UINT64_MAX && extra > end - off) ||
			    (d->len != UINT64_MAX && extra > d->len - off))
				return bad(d, off - size, "auxtrace data of %" PRIu64
					   " bytes runs past the end of the data", extra);
			if (!d->mem && d->pipe) {
				for (uint64_t i = 0; i < extra; i++)
					if (getc(d->f) == EOF)
						return bad(d, off, "truncated auxtrace data");
				d->pos += extra;
			}
			off += extra;
		}
	}
	sp_error *e = z_end(d);
	d->at = off;
	return e ? e : round_done(d);
}

/* -- header --------------------------------------------------------------------- */

/* 1: native, -1: byte-swapped, 0: not perf.data. */
static int magic_order(const uint8_t *p, size_t len)
{
	static const char swapped[] = "2ELIFREP";
	if (len < 8)
		return 0;
	if (!memcmp(p, MAGIC, 8))
		return 1;
	if (!memcmp(p, swapped, 8))
		return -1;
	return 0;
}

bool sp_perf_is_perf_data(const uint8_t *data, size_t len)
{
	return magic_order(data, len) != 0;
}

static sp_error *parse(pd *d)
{
	const uint8_t *q = NULL;
	sp_error *e = read_at(d, 0, 16, &q, "perf.data header");
	if (e)
		return e;
	int order = magic_order(q, 16);
	if (!order)
		return sp_error_new(SP_E_UNRECOGNIZED, "%s: not perf.data", d->name);
	d->swap = order < 0;
	d->c->byte_swapped = d->swap;
	uint64_t hsize = rd64(d, q + 8);
	if (hsize == PIPE_HEADER_SIZE) {
		d->pipe = true;
		return records(d, PIPE_HEADER_SIZE, UINT64_MAX);
	}
	if (hsize != FILE_HEADER_SIZE)
		return bad(d, 8, "header size %" PRIu64 ": expected %d (file) or %d (pipe)",
			   hsize, FILE_HEADER_SIZE, PIPE_HEADER_SIZE);
	if ((e = read_at(d, 0, FILE_HEADER_SIZE, &q, "perf.data header")))
		return e;
	uint8_t h[FILE_HEADER_SIZE];
	memcpy(h, q, sizeof(h));
	uint64_t attr_size = rd64(d, h + 16), attrs_off = rd64(d, h + 24),
		 attrs_size = rd64(d, h + 32), data_off = rd64(d, h + 40),
		 data_size = rd64(d, h + 48);
	if (attr_size < ATTR_SIZE_VER0 + SECTION_SIZE || attr_size > 4096 || attr_size % 8)
		return bad(d, 16, "attr_size %" PRIu64 ": expected a multiple of 8 from %d to 4096",
			   attr_size, ATTR_SIZE_VER0 + SECTION_SIZE);
	if (attrs_size % attr_size || attrs_size == 0)
		return bad(d, 32, "attrs section of %" PRIu64 " bytes: expected a nonzero "
			   "multiple of attr_size %" PRIu64, attrs_size, attr_size);
	if (d->len != UINT64_MAX) {
		if (attrs_off > d->len || attrs_size > d->len - attrs_off)
			return bad(d, 24, "attrs section [%" PRIu64 ", +%" PRIu64 ") runs past the "
				   "end of the file (%" PRIu64 " bytes)", attrs_off, attrs_size,
				   d->len);
		if (data_off > d->len || data_size > d->len - data_off)
			return bad(d, 40, "data section [%" PRIu64 ", +%" PRIu64 ") runs past the "
				   "end of the file (%" PRIu64 " bytes)", data_off, data_size,
				   d->len);
	}
	/* each attr, then its ids */
	uint64_t n_attrs = attrs_size / attr_size;
	for (uint64_t i = 0; i < n_attrs; i++) {
		uint64_t off = attrs_off + i * attr_size;
		if ((e = read_at(d, off, (size_t)attr_size, &q, "attr")))
			return e;
		cur k = mkcur(d, q, (size_t)attr_size, off, "attr entry");
		attr_fields a;
		if ((e = take_attr(&k, &a)))
			return e;
		if (a.size > attr_size - SECTION_SIZE)
			return bad(d, off + 4, "attr.size %" PRIu32 " leaves no room for its ids "
				   "section in an attr_size of %" PRIu64, a.size, attr_size);
		/* the ids section follows the attr's own size, as perf reads it */
		uint64_t ids_off = rd64(d, q + a.size), ids_size = rd64(d, q + a.size + 8);
		add_event(d, &a);
		if (ids_size == 0)
			continue;
		if (ids_size % 8 || (d->len != UINT64_MAX &&
				     (ids_off > d->len || ids_size > d->len - ids_off)))
			return bad(d, off + a.size,
				   "ids section [%" PRIu64 ", +%" PRIu64 ") of attr %" PRIu64
				   ": expected whole u64 ids inside the file", ids_off, ids_size, i);
		if ((e = read_at(d, ids_off, (size_t)ids_size, &q, "sample ids")))
			return e;
		cur ik = mkcur(d, q, (size_t)ids_size, ids_off, "ids section");
		if ((e = take_ids(d, &ik, ids_size / 8, d->n_ev - 1)))
			return e;
	}
	if ((e = file_features(d, h + 72, data_off + data_size)))
		return e;
	return records(d, data_off, data_off + data_size);
}

static void pd_free(pd *d)
{
	free(d->buf);
	free(d->ev);
	free(d->chain);
	sp_u64map_free(&d->id_event);
	ZSTD_freeDCtx(d->z.dctx);
	free(d->z.buf);
	if (d->map)
		munmap(d->map, (size_t)d->len);
}

static sp_error *read_capture(pd *d, sp_capture **out)
{
	d->c = sp_capture_new();
	sp_error *e = parse(d);
	if (!e)
		sp_capture_own_stacks(d->c); /* the samples ON_ROUND left */
	pd_free(d);
	if (e) {
		sp_capture_free(d->c);
		return e;
	}
	*out = d->c;
	return NULL;
}

sp_error *sp_perf_read_capture(const char *name, const uint8_t *data, size_t len,
			       sp_perf_round_fn on_round, void *arg, sp_capture **out)
{
	*out = NULL;
	if (!magic_order(data, len))
		return sp_error_new(SP_E_UNRECOGNIZED, "%s: not perf.data", name);
	pd d = {.name = name, .mem = data, .len = len, .on_round = on_round, .arg = arg};
	return read_capture(&d, out);
}

sp_error *sp_perf_read_capture_file(const char *path, FILE *f, const uint8_t *head,
				    size_t n_head, sp_perf_round_fn on_round, void *arg,
				    sp_capture **out)
{
	*out = NULL;
	struct stat st;
	pd d = {.name = path, .f = f, .head = head, .n_head = head ? n_head : 0,
		.len = UINT64_MAX, .on_round = on_round, .arg = arg};
	d.pos = d.n_head;
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode))
		d.len = (uint64_t)st.st_size;
	if (d.len != UINT64_MAX && d.len < 8)
		return sp_error_new(SP_E_UNRECOGNIZED, "%s: not perf.data", path);
	/* A regular file is mapped rather than read: reading copies every
	 * byte, and most of a --call-graph dwarf file is stack copies an
	 * unwind reads a few words of.  Pages are dropped as rounds end
	 * (drop_read).  The stream remains for pipes, and where mapping fails. */
	if (d.len != UINT64_MAX && d.len <= SIZE_MAX) {
		void *m = mmap(NULL, (size_t)d.len, PROT_READ, MAP_PRIVATE, fileno(f), 0);
		if (m != MAP_FAILED) {
			d.map = m;
			d.mem = m;
		}
	}
	return read_capture(&d, out);
}

/* -- capture -> profile, a round at a time ---------------------------------------- */

typedef struct {
	sp_capture_profiler *b;
	sp_perf_round_fn prepare; /* may be NULL */
	void *arg;
} to_profile;

static sp_error *profile_round(sp_capture *c, void *arg)
{
	to_profile *t = arg;
	if (!c->n_samples)
		return NULL;
	sp_error *e = t->prepare ? t->prepare(c, t->arg) : NULL;
	if (e)
		return e;
	if (!t->b) /* the events are known once samples come */
		t->b = sp_capture_profiler_new(c);
	sp_capture_profiler_add(t->b, c);
	sp_capture_clear_samples(c);
	return NULL;
}

static sp_error *finish_profile(sp_error *e, to_profile *t, sp_capture *c, sp_profile **out)
{
	if (e) {
		sp_capture_profiler_free(t->b);
		return e;
	}
	if (!t->b)
		t->b = sp_capture_profiler_new(c);
	*out = sp_capture_profiler_finish(t->b, c);
	sp_capture_free(c);
	return NULL;
}

sp_error *sp_perf_read(const char *name, const uint8_t *data, size_t len, sp_profile **out)
{
	*out = NULL;
	to_profile t = {0};
	sp_capture *c = NULL;
	sp_error *e = sp_perf_read_capture(name, data, len, profile_round, &t, &c);
	return finish_profile(e, &t, c, out);
}

sp_error *sp_perf_read_file(const char *path, FILE *f, const uint8_t *head, size_t n_head,
			    sp_profile **out)
{
	return sp_perf_read_file_with(path, f, head, n_head, NULL, NULL, out);
}

sp_error *sp_perf_read_file_with(const char *path, FILE *f, const uint8_t *head, size_t n_head,
				 sp_perf_round_fn prepare, void *arg, sp_profile **out)
{
	*out = NULL;
	to_profile t = {.prepare = prepare, .arg = arg};
	sp_capture *c = NULL;
	sp_error *e = sp_perf_read_capture_file(path, f, head, n_head, profile_round, &t, &c);
	return finish_profile(e, &t, c, out);
}
