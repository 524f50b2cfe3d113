/* records.c — perf.data's records, one at a time, up to the end of a round
 * (a FINISHED_ROUND record, or the end of the data).  They fill the
 * capture (profile/capture.h): per-process maps (MMAP, MMAP2 with or
 * without a build id), thread names (COMM, exec), FORK, SAMPLE (IP, TID,
 * TIME, PERIOD, CALLCHAIN, user registers and stack copy kept as bytes),
 * LOST and LOST_SAMPLES counts; pipe mode's attrs and features go to
 * header.c, COMPRESSED records to compressed.c and the records they give
 * come back here.
 *
 *   { u32 type; u16 misc; u16 size; body } ...
 *
 * A sample's stack copy in a mapped file stays there (the capture borrows
 * it) until its round is done.  Errors name the file, the byte offset and
 * what was expected; counts are checked against the bytes of their record
 * before anything is allocated.
 */
#include "formats/perf/perfp.h"

#include <stdlib.h>

/* records ahead of the one read whose ends are prefetched (sp_perf_read_round) */
#define PREFETCH_RECORDS 3

/* Bytes of the sample_id trailer of non-sample records for LAYOUT. */
static size_t trailer_size(const sp_perf_layout *l)
{
	if (!l->sample_id_all)
		return 0;
	uint64_t t =
		l->sample_type & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
				  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER);
	return 8 * (size_t)__builtin_popcountll(t);
}

/* The layout of a non-sample record's trailer: matched through its last
 * u64 when events carry IDENTIFIER, else the first event's. */
static const sp_perf_layout *trailer_layout(sp_perf_reader *d, const sp_perf_cur *k)
{
	const sp_perf_layout *l = &d->ev[0];
	if (d->n_ev > 1 && (l->sample_type & PERF_SAMPLE_IDENTIFIER) && l->sample_id_all &&
	    k->len >= 16) {
		uint64_t ev;
		if (sp_u64map_get(&d->id_event, sp_perf_rd64(d, k->p + k->len - 8), &ev) &&
		    ev < d->n_ev)
			l = &d->ev[ev];
	}
	return l;
}

/* The time in a non-sample record's trailer (0 when not recorded). */
static uint64_t trailer_time(const sp_perf_reader *d, const sp_perf_cur *k, const sp_perf_layout *l,
			     size_t tsize)
{
	if (!tsize || !(l->sample_type & PERF_SAMPLE_TIME) || tsize > k->len - 8)
		return 0;
	size_t at = k->len - tsize + ((l->sample_type & PERF_SAMPLE_TID) ? 8 : 0);
	return sp_perf_rd64(d, k->p + at);
}

static sp_error *rec_mmap(sp_perf_reader *d, sp_perf_cur *k, uint32_t type, uint16_t misc)
{
	const sp_perf_layout *l = trailer_layout(d, k);
	size_t tsize = trailer_size(l);
	size_t fixed = type == PERF_RECORD_MMAP2 ? 8 + 8 + 8 + 8 + 24 + 8 : 8 + 8 + 8 + 8;
	if (k->len < 8 + fixed + tsize + 1)
		return sp_perf_cur_short(k, 8 + fixed + tsize + 1,
					 "mmap fields, file name and trailer");
	const uint8_t *q = k->p + 8;
	sp_capture_map m = {0};
	int32_t pid = (int32_t)sp_perf_rd32(d, q);
	m.start = sp_perf_rd64(d, q + 8);
	uint64_t len = sp_perf_rd64(d, q + 16);
	m.pgoff = sp_perf_rd64(d, q + 24);
	m.limit = m.start + len;
	if (m.limit < m.start)
		return sp_perf_bad(d, k->base + 16,
				   "mmap at 0x%" PRIx64 " of 0x%" PRIx64
				   " bytes wraps around the address space",
				   m.start, len);
	char *bid = NULL;
	if (type == PERF_RECORD_MMAP2) {
		const uint8_t *u = q + 32;
		if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			if (u[0] > 20)
				return sp_perf_bad(d, k->base + 40,
						   "mmap2 build id size %u: expected at most 20",
						   u[0]);
			if (u[0])
				bid = sp_hex_string(u + 4, u[0]);
		}
		uint32_t prot = sp_perf_rd32(d, q + 56);
		m.exec = prot & 4; /* PROT_EXEC */
	} else {
		m.exec = !(misc & PERF_RECORD_MISC_MMAP_DATA);
	}
	k->at = 8 + fixed;
	m.time = trailer_time(d, k, l, tsize);
	char *path;
	sp_error *e = sp_perf_take_name(k, k->len - tsize, &path, "mmap file name");
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

static sp_error *rec_comm(sp_perf_reader *d, sp_perf_cur *k, uint16_t misc)
{
	const sp_perf_layout *l = trailer_layout(d, k);
	size_t tsize = trailer_size(l);
	if (k->len < 8 + 8 + tsize + 1)
		return sp_perf_cur_short(k, 8 + 8 + tsize + 1, "comm fields, name and trailer");
	int32_t pid = (int32_t)sp_perf_rd32(d, k->p + 8), tid = (int32_t)sp_perf_rd32(d, k->p + 12);
	uint64_t time = trailer_time(d, k, l, tsize);
	k->at = 16;
	char *name;
	sp_error *e = sp_perf_take_name(k, k->len - tsize, &name, "comm name");
	if (e)
		return e;
	sp_capture_add_comm(d->c, pid, tid, time, name);
	free(name);
	if (misc & PERF_RECORD_MISC_COMM_EXEC)
		sp_capture_exec(d->c, pid, time);
	return NULL;
}

static sp_error *rec_fork(sp_perf_reader *d, sp_perf_cur *k)
{
	if (k->len < 8 + 16 + 8)
		return sp_perf_cur_short(k, 8 + 16 + 8, "fork fields");
	int32_t pid = (int32_t)sp_perf_rd32(d, k->p + 8),
		ppid = (int32_t)sp_perf_rd32(d, k->p + 12);
	sp_capture_fork(d->c, ppid, pid, sp_perf_rd64(d, k->p + 24));
	return NULL;
}

/* Skips the READ field of a sample. */
static sp_error *skip_read(sp_perf_cur *k, uint64_t rf)
{
	uint64_t nr = 1;
	sp_error *e;
	size_t per = 8 + ((rf & PERF_FORMAT_ID) ? 8 : 0) + ((rf & PERF_FORMAT_LOST) ? 8 : 0);
	size_t times = 8 * (((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) != 0) +
			    ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) != 0));
	const uint8_t *q = NULL;
	if (rf & PERF_FORMAT_GROUP) {
		if ((e = sp_perf_take64(k, &nr, "read group count")))
			return e;
		if ((e = sp_perf_take(k, times, &q, "read times")))
			return e;
		if (nr > (k->len - k->at) / per)
			return sp_perf_bad(k->d, k->base + k->at - times - 8,
					   "read group of %" PRIu64
					   " values but only %zu bytes left",
					   nr, k->len - k->at);
		return sp_perf_take(k, (size_t)nr * per, &q, "read values");
	}
	return sp_perf_take(k, per + times, &q, "read value");
}

static sp_error *take_regs(sp_perf_cur *k, uint64_t mask, uint64_t *abi, const uint8_t **regs,
			   size_t *n, const char *field)
{
	sp_error *e = sp_perf_take64(k, abi, field);
	if (e)
		return e;
	*n = 0;
	*regs = NULL;
	if (*abi == 0)
		return NULL;
	*n = 8 * (size_t)__builtin_popcountll(mask);
	return sp_perf_take(k, *n, regs, field);
}

/* The event of the sample at K: IDENTIFIER first, else ID at its fixed
 * place; the only one when there is one. */
static sp_error *sample_event(sp_perf_reader *d, const sp_perf_cur *k, size_t *ev)
{
	*ev = 0;
	if (d->n_ev <= 1)
		return NULL;
	uint64_t st0 = d->ev[0].sample_type;
	size_t at = 8;
	if (st0 & PERF_SAMPLE_IDENTIFIER) {
		at = 8;
	} else if (st0 & PERF_SAMPLE_ID) {
		at += 8 * (size_t)__builtin_popcountll(st0 & (PERF_SAMPLE_IP | PERF_SAMPLE_TID |
							      PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR));
	} else {
		return sp_perf_bad(d, k->base,
				   "sample of a file with %zu events carries no "
				   "IDENTIFIER or ID to tell them apart",
				   d->n_ev);
	}
	if (k->len < at + 8)
		return sp_perf_cur_short(k, at + 8, "sample id");
	uint64_t id = sp_perf_rd64(d, k->p + at), found;
	if (!sp_u64map_get(&d->id_event, id, &found) || found >= d->n_ev)
		return sp_perf_bad(d, k->base + at,
				   "sample id %" PRIu64 " belongs to no event of the file", id);
	*ev = (size_t)found;
	return NULL;
}

/* A sample's fields up to its READ values, into *S (K past its header). */
static sp_error *sample_head(sp_perf_reader *d, sp_perf_cur *k, const sp_perf_layout *l,
			     sp_capture_sample *s)
{
	uint64_t st = l->sample_type, v;
	sp_error *e;
	if (st & PERF_SAMPLE_IDENTIFIER && (e = sp_perf_take64(k, &v, "identifier")))
		return e;
	if (st & PERF_SAMPLE_IP && (e = sp_perf_take64(k, &s->ip, "ip")))
		return e;
	if (st & PERF_SAMPLE_TID) {
		uint32_t pid, tid;
		if ((e = sp_perf_take32(k, &pid, "pid")) || (e = sp_perf_take32(k, &tid, "tid")))
			return e;
		s->pid = (int32_t)pid;
		s->tid = (int32_t)tid;
	}
	if (st & PERF_SAMPLE_TIME && (e = sp_perf_take64(k, &s->time, "time")))
		return e;
	if (st & PERF_SAMPLE_ADDR && (e = sp_perf_take64(k, &v, "addr")))
		return e;
	if (st & PERF_SAMPLE_ID && (e = sp_perf_take64(k, &v, "id")))
		return e;
	if (st & PERF_SAMPLE_STREAM_ID && (e = sp_perf_take64(k, &v, "stream id")))
		return e;
	s->cpu = -1;
	if (st & PERF_SAMPLE_CPU) {
		if ((e = sp_perf_take64(k, &v, "cpu")))
			return e;
		/* u32 cpu, u32 reserved, in the recording's byte order */
		s->cpu = (int32_t)(d->swap ? v >> 32 : v & 0xffffffffu);
	}
	const sp_capture_event *cev = &d->c->events[s->event];
	s->period = cev->period ? cev->period : 1;
	if (st & PERF_SAMPLE_PERIOD && (e = sp_perf_take64(k, &s->period, "period")))
		return e;
	if (st & PERF_SAMPLE_READ && (e = skip_read(k, l->read_format)))
		return e;
	return NULL;
}

/* A sample's callchain (*NR entries at *CHAIN_AT of K), then its raw data
 * and branch stack, skipped. */
static sp_error *sample_chain(sp_perf_reader *d, sp_perf_cur *k, const sp_perf_layout *l,
			      sp_capture_sample *s, uint64_t *nr, size_t *chain_at)
{
	uint64_t st = l->sample_type, v;
	sp_error *e;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if ((e = sp_perf_take64(k, nr, "callchain length")))
			return e;
		if (*nr > (k->len - k->at) / 8)
			return sp_perf_bad(d, k->base + k->at - 8,
					   "callchain of %" PRIu64
					   " entries but only %zu bytes left "
					   "in the %zu-byte sample",
					   *nr, k->len - k->at, k->len);
		*chain_at = k->at;
		k->at += (size_t)*nr * 8;
		s->has_chain = true;
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t n;
		const uint8_t *q = NULL;
		if ((e = sp_perf_take32(k, &n, "raw size")) ||
		    (e = sp_perf_take(k, n, &q, "raw data")))
			return e;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t bn;
		const uint8_t *q = NULL;
		if ((e = sp_perf_take64(k, &bn, "branch stack length")))
			return e;
		if ((l->branch_type & PERF_SAMPLE_BRANCH_HW_INDEX) &&
		    (e = sp_perf_take64(k, &v, "hw_idx")))
			return e;
		if (bn > (k->len - k->at) / 24)
			return sp_perf_bad(d, k->base + k->at,
					   "branch stack of %" PRIu64
					   " entries but only %zu bytes left",
					   bn, k->len - k->at);
		if ((e = sp_perf_take(k, (size_t)bn * 24, &q, "branch stack")))
			return e;
	}
	return NULL;
}

/* A sample's user registers and stack copy (its valid DYN_SIZE bytes). */
static sp_error *sample_user(sp_perf_reader *d, sp_perf_cur *k, const sp_perf_layout *l,
			     sp_capture_sample *s, const uint8_t **regs, size_t *regs_len,
			     const uint8_t **stack, size_t *stack_len)
{
	uint64_t st = l->sample_type;
	sp_error *e;
	if (st & PERF_SAMPLE_REGS_USER &&
	    (e = take_regs(k, l->regs_user, &s->regs_abi, regs, regs_len, "user registers")))
		return e;
	if (!(st & PERF_SAMPLE_STACK_USER))
		return NULL;
	uint64_t size, dyn = 0;
	if ((e = sp_perf_take64(k, &size, "user stack size")))
		return e;
	uint64_t size_at = k->base + k->at - 8;
	if (size > k->len - k->at)
		return sp_perf_bad(d, size_at,
				   "user stack of %" PRIu64
				   " bytes but only %zu bytes left in the sample",
				   size, k->len - k->at);
	if ((e = sp_perf_take(k, (size_t)size, stack, "user stack")))
		return e;
	if (size && (e = sp_perf_take64(k, &dyn, "user stack dyn_size")))
		return e;
	if (dyn > size)
		return sp_perf_bad(d, k->base + k->at - 8,
				   "user stack dyn_size %" PRIu64 " larger than its size %" PRIu64,
				   dyn, size);
	*stack_len = (size_t)dyn;
	return NULL;
}

static sp_error *rec_sample(sp_perf_reader *d, sp_perf_cur *k, uint16_t misc)
{
	sp_capture_sample s = {.cpumode = misc & PERF_RECORD_MISC_CPUMODE_MASK};
	sp_error *e = sample_event(d, k, &s.event);
	if (e)
		return e;
	const sp_perf_layout *l = &d->ev[s.event];
	uint64_t nr = 0;
	size_t chain_at = 0, regs_len = 0, stack_len = 0;
	const uint8_t *regs = NULL, *stack = NULL;
	k->at = 8;
	if ((e = sample_head(d, k, l, &s)) || (e = sample_chain(d, k, l, &s, &nr, &chain_at)) ||
	    (e = sample_user(d, k, l, &s, &regs, &regs_len, &stack, &stack_len)))
		return e;
	/* the fields after these (weight, data source, ...) are not needed */
	if (s.has_chain && nr) {
		sp_grow(&d->chain, &d->cap_chain, (size_t)nr, sizeof(uint64_t));
		for (size_t i = 0; i < nr; i++)
			d->chain[i] = sp_perf_rd64(d, k->p + chain_at + 8 * i);
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

static sp_error *small_record(sp_perf_reader *d, uint64_t off, uint32_t type, uint16_t size)
{
	return sp_perf_bad(d, off,
			   "record of type %" PRIu32 " has size %u: expected at least its "
			   "8-byte header",
			   type, size);
}

/* One record at K; the size of data that follows it outside its size
 * (AUXTRACE) in *SKIP_EXTRA. */
static sp_error *record(sp_perf_reader *d, sp_perf_cur *k, uint64_t *skip_extra)
{
	uint32_t type = sp_perf_rd32(d, k->p);
	uint16_t misc = sp_perf_rd16(d, k->p + 4);
	if (d->n_ev == 0 && type < SP_PERF_REC_HEADER_ATTR)
		return sp_perf_bad(d, k->base,
				   "record of type %" PRIu32 " before any event "
				   "attribute",
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
			return sp_perf_cur_short(k, 24, "lost count");
		d->c->lost += sp_perf_rd64(d, k->p + 16);
		return NULL;
	case PERF_RECORD_LOST_SAMPLES:
		if (k->len < 8 + 8)
			return sp_perf_cur_short(k, 16, "lost count");
		d->c->lost += sp_perf_rd64(d, k->p + 8);
		return NULL;
	case SP_PERF_REC_FINISHED_ROUND:
		d->round_end = true;
		return NULL;
	case SP_PERF_REC_HEADER_ATTR:
		if (!d->pipe)
			return NULL; /* file mode has them in the attrs section */
		return sp_perf_header_attr(d, k);
	case SP_PERF_REC_HEADER_BUILD_ID:
		k->at = 8;
		return sp_perf_build_id_record(d, k, misc, k->len);
	case SP_PERF_REC_HEADER_FEATURE: {
		uint64_t feat;
		k->at = 8;
		sp_error *e = sp_perf_take64(k, &feat, "feature id");
		if (e)
			return e;
		k->base += k->at;
		k->p += k->at;
		k->len -= k->at;
		k->at = 0;
		return feat < SP_PERF_FEAT_LAST ? sp_perf_feature(d, (unsigned)feat, k) : NULL;
	}
	case SP_PERF_REC_AUXTRACE:
		/* the trace data follows the record, outside its size */
		if (k->len < 16)
			return sp_perf_cur_short(k, 16, "auxtrace size");
		*skip_extra = sp_perf_rd64(d, k->p + 8);
		return NULL;
	case SP_PERF_REC_COMPRESSED:
	case SP_PERF_REC_COMPRESSED2:
		return sp_perf_z_begin(d, k, type);
	default:
		return NULL; /* EXIT, THROTTLE, SWITCH, perf's bookkeeping, ... */
	}
}

/* Parses the whole records at the start of d->z.buf, up to the end of a
 * round, and keeps what follows (a partial record, or the records after
 * the round's end) for later. */
static sp_error *z_records(sp_perf_reader *d)
{
	sp_error *e = NULL;
	size_t at = 0;
	d->z.inside = true;
	while (!e && !d->round_end) {
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
		uint32_t type = sp_perf_rd32(d, q);
		uint16_t size = sp_perf_rd16(d, q + 6);
		if (size < 8) {
			e = small_record(d, off, type, size);
			break;
		}
		if (size > left)
			break;
		sp_perf_cur k = sp_perf_mkcur(d, q, size, off, "record");
		if (type == SP_PERF_REC_COMPRESSED || type == SP_PERF_REC_COMPRESSED2)
			e = sp_perf_bad(d, off, "COMPRESSED record inside compressed data");
		else
			e = record(d, &k, &d->z.skip);
		at += size;
	}
	d->z.inside = false;
	if (at) {
		memmove(d->z.buf, d->z.buf + at, d->z.len - at);
		d->z.len -= at;
		d->z.pos += at;
	}
	return e;
}

/* The COMPRESSED record being read: its records parsed as they come out,
 * up to the end of a round or of the record's payload. */
static sp_error *z_records_more(sp_perf_reader *d)
{
	sp_error *e = NULL;
	while (!e && d->z.active) {
		if ((e = z_records(d)) || d->round_end)
			break;
		e = sp_perf_z_more(d);
	}
	return e;
}

/* Whether the data's records end at OFF. */
static bool data_ends(sp_perf_reader *d, uint64_t off)
{
	if (off == d->end || (d->end == UINT64_MAX && d->len != UINT64_MAX && off == d->len))
		return true;
	if (d->pipe && !d->mem) {
		/* a pipe ends where the stream ends */
		int ch = getc(d->f);
		if (ch == EOF)
			return true;
		ungetc(ch, d->f);
	}
	return false;
}

/* Skips the EXTRA bytes of AUXTRACE data that follow the record of SIZE
 * bytes ending at *OFF. */
static sp_error *skip_extra(sp_perf_reader *d, uint64_t *off, uint16_t size, uint64_t extra)
{
	uint64_t end = d->end;
	if (extra % 8 || (end != UINT64_MAX && extra > end - *off) ||
	    (d->len != UINT64_MAX && extra > d->len - *off))
		return sp_perf_bad(
			d, *off - size,
			"auxtrace data of %" PRIu64 " bytes runs past the end of the data", extra);
	if (!d->mem && d->pipe) {
		for (uint64_t i = 0; i < extra; i++)
			if (getc(d->f) == EOF)
				return sp_perf_bad(d, *off, "truncated auxtrace data");
		d->pos += extra;
	}
	*off += extra;
	return NULL;
}

/* The record at OFF, read and handled; *OFF moves past it. */
static sp_error *next_record(sp_perf_reader *d, uint64_t *off)
{
	uint64_t end = d->end;
	if (end != UINT64_MAX && end - *off < 8)
		return sp_perf_bad(d, *off,
				   "truncated record header: expected 8 bytes, the data "
				   "section has %" PRIu64 " left",
				   end - *off);
	const uint8_t *q = NULL;
	sp_error *e;
	if ((e = sp_perf_read_at(d, *off, 8, &q, "record header")))
		return e;
	uint16_t size = sp_perf_rd16(d, q + 6);
	uint32_t type = sp_perf_rd32(d, q);
	/* From a mapped file, the last bytes of this record and of the next
	 * few are asked for early: a sample's stack dyn_size is at its end
	 * (the next header right after), 4 or 8 KiB past what was read, on a
	 * page of its own that no hardware prefetch reaches.  The next
	 * records are guessed to be of this one's size, as a recording's
	 * samples mostly are (a wrong guess costs a useless fetch). */
	if (d->map)
		for (uint64_t k = 1; k <= PREFETCH_RECORDS && *off + k * size <= d->len; k++)
			__builtin_prefetch(d->mem + *off + k * size - 8);
	/* (perf's own records, features for one, need not be 8-aligned) */
	if (size < 8)
		return small_record(d, *off, type, size);
	if (end != UINT64_MAX && size > end - *off)
		return sp_perf_bad(d, *off,
				   "record of type %" PRIu32 " and %u bytes runs past the "
				   "end of the data section at offset %" PRIu64,
				   type, size, end);
	/* the rest after the header, which a pipe cannot read again */
	if ((e = sp_perf_read_keep(d, *off + 8, size - 8u, 8, &q, "record")))
		return e;
	sp_perf_cur k = sp_perf_mkcur(d, q, size, *off, "record");
	uint64_t extra = 0;
	d->at = *off;
	if ((e = record(d, &k, &extra)))
		return e;
	*off += size;
	if (d->z.active) /* a COMPRESSED record: the records it holds */
		return z_records_more(d);
	return extra ? skip_extra(d, off, size, extra) : NULL;
}

sp_error *sp_perf_read_round(sp_perf_reader *d)
{
	sp_error *e = NULL;
	d->round_end = false;
	/* a round that ended inside a COMPRESSED record goes on there */
	if (d->z.active && ((e = z_records_more(d)) || d->round_end))
		return e;
	uint64_t off = d->off;
	while (!e && !d->round_end) {
		if (data_ends(d, off) || ((d->unfinished || d->truncated) && d->len - off < 8)) {
			e = sp_perf_z_end(d);
			d->at = off;
			d->data_done = true;
			break;
		}
		uint64_t before = off;
		e = next_record(d, &off);
		if (e && (d->unfinished || d->truncated) && !d->z.active) {
			/* the recording ends inside this record: what came before is
			 * the recording (sp_perf_warning) */
			sp_error_free(e);
			e = NULL;
			off = before;
			d->at = off;
			d->data_done = true;
			break;
		}
	}
	d->off = off;
	if (!e)
		d->cut_at = off;
	return e;
}
