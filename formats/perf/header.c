/* header.c — perf.data's header, its events and its feature sections.
 *
 *   file mode:  "PERFILE2" size=104 attr_size {attrs} {data} {event_types}
 *               feature bitmap[256 bits]
 *               attrs:  { perf_event_attr (attr.size bytes) ... {ids} } * n
 *               after the data: one {offset, size} per set feature bit
 *   pipe mode:  "PERFILE2" size=16, then records only: HEADER_ATTR (64)
 *               carries each attr and its ids, HEADER_FEATURE (80) each
 *               feature (records.c hands them here).
 *
 * Either byte order (spec/PERF-DATA.md §1, §2).  Errors name the file, the
 * byte offset and what was expected; counts are checked against the bytes
 * of their section before anything is allocated.
 */
#include "formats/perf/perfp.h"

#include <stdlib.h>

/* feature bits (spec §2) */
enum {
	FEAT_BUILD_ID = 2,
	FEAT_HOSTNAME = 3,
	FEAT_OSRELEASE = 4,
	FEAT_ARCH = 6,
	FEAT_CMDLINE = 11,
	FEAT_EVENT_DESC = 12,
	FEAT_COMPRESSED = 27,
};

/* perf_event_attr flag bits (bit numbers of the bitfield word at offset 40) */
enum {
	ATTR_FREQ = 10,
	ATTR_SAMPLE_ID_ALL = 18,
	ATTR_USE_CLOCKID = 25,
};

#define MISC_BUILD_ID_SIZE (1u << 15)

/* Bit K of the attr's flag bitfield.  A compiler for a big-endian machine
 * allocates bitfields from the most significant bit of each byte, so in a
 * byte-swapped file the bits of each byte are reversed, not the bytes. */
static bool attr_flag(const sp_perf_reader *d, const uint8_t *flags, unsigned k)
{
	uint8_t byte = flags[k / 8];
	if (d->swap)
		return byte & (0x80u >> (k % 8));
	uint64_t v;
	memcpy(&v, flags, 8);
	return (v >> k) & 1;
}

typedef struct {
	uint32_t type, size;
	uint64_t config, period_or_freq, sample_type, read_format;
	bool freq, sample_id_all, use_clockid;
	int32_t clockid; /* with use_clockid */
	uint64_t branch_type, regs_user, regs_intr;
} attr_fields;

/* Reads a perf_event_attr at K's position: its own size first, then the
 * fields that fit in that size.  Advances K by attr.size. */
static sp_error *take_attr(sp_perf_cur *k, attr_fields *a)
{
	uint64_t off = k->base + k->at;
	if (k->len - k->at < 8)
		return sp_perf_cur_short(k, 8, "perf_event_attr type and size");
	a->type = sp_perf_rd32(k->d, k->p + k->at);
	a->size = sp_perf_rd32(k->d, k->p + k->at + 4);
	if (a->size == 0)
		a->size = SP_PERF_ATTR_SIZE_VER0; /* what perf writes for the first version */
	if (a->size < SP_PERF_ATTR_SIZE_VER0 || a->size % 8)
		return sp_perf_bad(k->d, off,
				   "attr.size %" PRIu32 ": expected a multiple of 8 of at least %d",
				   a->size, SP_PERF_ATTR_SIZE_VER0);
	if (a->size > k->len - k->at)
		return sp_perf_bad(k->d, off + 4, "attr.size %" PRIu32 " runs past its %zu-byte %s",
				   a->size, k->len, k->what);
	const uint8_t *q = NULL;
	sp_error *e = sp_perf_take(k, a->size, &q, "perf_event_attr");
	if (e)
		return e;
	a->config = sp_perf_rd64(k->d, q + 8);
	a->period_or_freq = sp_perf_rd64(k->d, q + 16);
	a->sample_type = sp_perf_rd64(k->d, q + 24);
	a->read_format = sp_perf_rd64(k->d, q + 32);
	a->freq = attr_flag(k->d, q + 40, ATTR_FREQ);
	a->sample_id_all = attr_flag(k->d, q + 40, ATTR_SAMPLE_ID_ALL);
	a->use_clockid = attr_flag(k->d, q + 40, ATTR_USE_CLOCKID);
	a->clockid = a->size >= 96 ? (int32_t)sp_perf_rd32(k->d, q + 92) : 0;
	a->branch_type = a->size >= 80 ? sp_perf_rd64(k->d, q + 72) : 0;
	a->regs_user = a->size >= 96 ? sp_perf_rd64(k->d, q + 80) : 0;
	a->regs_intr = a->size >= 104 ? sp_perf_rd64(k->d, q + 96) : 0;
	return NULL;
}

/* Event names of perf's generic events (perf_event.h enums). */
static const char *event_name(uint32_t type, uint64_t config)
{
	/* clang-format off */
	static const char *const hw[] = {"cycles", "instructions", "cache-references",
					 "cache-misses", "branches", "branch-misses",
					 "bus-cycles", "stalled-cycles-frontend",
					 "stalled-cycles-backend", "ref-cycles"};
	static const char *const sw[] = {"cpu-clock", "task-clock", "page-faults",
					 "context-switches", "cpu-migrations",
					 "minor-faults", "major-faults", "alignment-faults",
					 "emulation-faults", "dummy", "bpf-output", "cgroup-switches"};
	/* clang-format on */
	if (type == PERF_TYPE_HARDWARE && config < SP_ARRAY_LEN(hw))
		return hw[config];
	if (type == PERF_TYPE_SOFTWARE && config < SP_ARRAY_LEN(sw))
		return sw[config];
	return NULL;
}

static void add_event(sp_perf_reader *d, const attr_fields *a)
{
	char *name = NULL;
	const char *known = event_name(a->type, a->config);
	if (!known)
		name = sp_xasprintf("event-%" PRIu32 "-0x%" PRIx64, a->type, a->config);
	bool clock = a->type == PERF_TYPE_SOFTWARE && (a->config == PERF_COUNT_SW_CPU_CLOCK ||
						       a->config == PERF_COUNT_SW_TASK_CLOCK);
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
	sp_perf_layout l = {.sample_type = a->sample_type,
			    .read_format = a->read_format,
			    .regs_user = a->regs_user,
			    .regs_intr = a->regs_intr,
			    .branch_type = a->branch_type,
			    .sample_id_all = a->sample_id_all};
	SP_PUSH(d->ev, d->n_ev, d->cap_ev, l);
}

/* Reads N u64 sample ids from K and maps them to event EV. */
static sp_error *take_ids(sp_perf_reader *d, sp_perf_cur *k, uint64_t n, size_t ev)
{
	for (uint64_t i = 0; i < n; i++) {
		uint64_t id;
		sp_error *e = sp_perf_take64(k, &id, "sample id");
		if (e)
			return e;
		sp_u64map_put(&d->id_event, id, ev);
	}
	return NULL;
}

/* -- features ------------------------------------------------------------------ */

/* Build-id records {header; s32 pid; u8 id[24]; char name[]} (K4
 * perf_record_header_build_id), as a feature section or a record. */
sp_error *sp_perf_build_id_record(sp_perf_reader *d, sp_perf_cur *k, uint16_t misc, size_t end)
{
	const uint8_t *q = sp_perf_next(k, 4 + 24);
	if (!q)
		return sp_perf_cur_short(k, 4 + 24, "build id");
	int32_t pid = (int32_t)sp_perf_rd32(d, q);
	size_t n = 20;
	if (misc & MISC_BUILD_ID_SIZE) {
		n = q[4 + 20];
		if (n > 20)
			return sp_perf_bad(d, k->base + k->at - 8,
					   "build id size %zu: expected at most 20", n);
	} else {
		while (n && q[4 + n - 1] == 0)
			n--;
	}
	char *name;
	sp_error *e = sp_perf_take_name(k, end, &name, "build-id file name");
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

static sp_error *feat_build_ids(sp_perf_reader *d, sp_perf_cur *k)
{
	while (k->at < k->len) {
		uint64_t off = k->base + k->at;
		if (k->len - k->at < 8)
			return sp_perf_cur_short(k, 8, "build-id record header");
		uint16_t misc = sp_perf_rd16(d, k->p + k->at + 4),
			 size = sp_perf_rd16(d, k->p + k->at + 6);
		if (size < 8 + 4 + 24 || size > k->len - k->at)
			return sp_perf_bad(d, off,
					   "build-id record of %u bytes: expected %d to %zu", size,
					   8 + 4 + 24, k->len - k->at);
		sp_perf_cur r = sp_perf_mkcur(d, k->p + k->at, size, off, "build-id record");
		r.at = 8;
		sp_error *e = sp_perf_build_id_record(d, &r, misc, size);
		if (e)
			return e;
		k->at += size;
	}
	return NULL;
}

static sp_error *feat_event_desc(sp_perf_reader *d, sp_perf_cur *k)
{
	uint32_t nr, attr_size;
	sp_error *e = sp_perf_take32(k, &nr, "event count");
	if (!e)
		e = sp_perf_take32(k, &attr_size, "attr size");
	if (e)
		return e;
	for (uint32_t i = 0; i < nr; i++) {
		const uint8_t *q = NULL;
		uint32_t n_ids;
		char *name = NULL;
		uint64_t first_id = 0;
		if ((e = sp_perf_take(k, attr_size, &q, "event attr")) ||
		    (e = sp_perf_take32(k, &n_ids, "id count")) ||
		    (e = sp_perf_take_str(k, &name, "event name")))
			return e;
		if (n_ids > (k->len - k->at) / 8) {
			free(name);
			return sp_perf_bad(d, k->base + k->at,
					   "event description: %" PRIu32
					   " ids but only %zu bytes left",
					   n_ids, k->len - k->at);
		}
		if (n_ids)
			first_id = sp_perf_rd64(d, k->p + k->at);
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
static sp_error *feat_compressed(sp_perf_reader *d, sp_perf_cur *k)
{
	uint32_t v[5];
	static const char *const field[] = {"compression version", "compression type",
					    "compression level", "compression ratio",
					    "compression buffer size"};
	for (size_t i = 0; i < 5; i++) {
		sp_error *e = sp_perf_take32(k, &v[i], field[i]);
		if (e)
			return e;
	}
	d->z.type = v[1];
	d->z.mmap_len = v[4];
	d->c->zstd_level = v[2];
	d->c->zstd_ratio = v[3];
	return NULL;
}

/* CMDLINE: {u32 nr; perf strings} (K4 write_cmdline). */
static sp_error *feat_cmdline(sp_perf_reader *d, sp_perf_cur *k)
{
	sp_capture *c = d->c;
	uint32_t nr;
	sp_error *e = sp_perf_take32(k, &nr, "argument count");
	if (e)
		return e;
	if (nr > (k->len - k->at) / 4)
		return sp_perf_bad(d, k->base + k->at,
				   "command line: %" PRIu32 " arguments but only %zu bytes left",
				   nr, k->len - k->at);
	for (uint32_t i = 0; i < nr; i++) {
		char *s;
		if ((e = sp_perf_take_str(k, &s, "argument")))
			return e;
		c->cmdline = sp_xreallocarray(c->cmdline, c->n_cmdline + 1, sizeof(*c->cmdline));
		c->cmdline[c->n_cmdline++] = s;
	}
	return NULL;
}

sp_error *sp_perf_feature(sp_perf_reader *d, unsigned bit, sp_perf_cur *k)
{
	sp_capture *c = d->c;
	char **slot = bit == FEAT_HOSTNAME    ? &c->hostname
		      : bit == FEAT_OSRELEASE ? &c->osrelease
		      : bit == FEAT_ARCH      ? &c->arch
					      : NULL;
	if (slot) {
		char *s;
		sp_error *e = sp_perf_take_str(k, &s, "feature string");
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
	case FEAT_CMDLINE:
		return feat_cmdline(d, k);
	default:
		return NULL; /* features symprof does not need */
	}
}

/* The feature sections after the data (file mode). */
static sp_error *file_features(sp_perf_reader *d, const uint8_t bitmap[32], uint64_t at)
{
	for (unsigned bit = 0; bit < SP_PERF_FEAT_LAST; bit++) {
		/* the bitmap is four u64 words of the recording's byte order */
		uint64_t w = sp_perf_rd64(d, bitmap + 8 * (bit / 64));
		if (!((w >> (bit % 64)) & 1))
			continue;
		const uint8_t *q = NULL;
		sp_error *e =
			sp_perf_read_at(d, at, SP_PERF_SECTION_SIZE, &q, "feature section table");
		if (e)
			return e;
		uint64_t off = sp_perf_rd64(d, q), size = sp_perf_rd64(d, q + 8);
		at += SP_PERF_SECTION_SIZE;
		if (bit != FEAT_BUILD_ID && bit != FEAT_HOSTNAME && bit != FEAT_OSRELEASE &&
		    bit != FEAT_ARCH && bit != FEAT_CMDLINE && bit != FEAT_EVENT_DESC &&
		    bit != FEAT_COMPRESSED)
			continue;
		if (d->len != UINT64_MAX && (off > d->len || size > d->len - off))
			return sp_perf_bad(d, at - SP_PERF_SECTION_SIZE,
					   "feature %u section [%" PRIu64 ", +%" PRIu64
					   ") runs past the end of the file (%" PRIu64 " bytes)",
					   bit, off, size, d->len);
		if ((e = sp_perf_read_at(d, off, (size_t)size, &q, "feature section")))
			return e;
		sp_perf_cur k = sp_perf_mkcur(d, q, (size_t)size, off, "feature section");
		if ((e = sp_perf_feature(d, bit, &k)))
			return e;
	}
	return NULL;
}

/* Whether the feature section table at AT is one perf record wrote when it
 * finished: every section of a set bit inside the file, after the data.
 * A recording killed after perf wrote a data size has records there. */
static bool features_written(sp_perf_reader *d, const uint8_t bitmap[32], uint64_t at)
{
	uint64_t table = at;
	for (unsigned bit = 0; bit < SP_PERF_FEAT_LAST; bit++) {
		uint64_t w = sp_perf_rd64(d, bitmap + 8 * (bit / 64));
		if (!((w >> (bit % 64)) & 1))
			continue;
		const uint8_t *q = NULL;
		if (at > d->len || d->len - at < SP_PERF_SECTION_SIZE)
			return false;
		sp_error *e = sp_perf_read_at(d, at, SP_PERF_SECTION_SIZE, &q, "feature section table");
		if (e) {
			sp_error_free(e);
			return false;
		}
		uint64_t off = sp_perf_rd64(d, q), size = sp_perf_rd64(d, q + 8);
		if (off < table || off > d->len || size > d->len - off)
			return false;
		at += SP_PERF_SECTION_SIZE;
	}
	return true;
}

/* -- the header ------------------------------------------------------------------ */

/* 1: native, -1: byte-swapped, 0: not perf.data. */
int sp_perf_magic_order(const uint8_t *p, size_t len)
{
	static const char swapped[] = "2ELIFREP";
	if (len < 8)
		return 0;
	if (!memcmp(p, SP_PERF_MAGIC, 8))
		return 1;
	if (!memcmp(p, swapped, 8))
		return -1;
	return 0;
}

bool sp_perf_is_perf_data(const uint8_t *data, size_t len)
{
	return sp_perf_magic_order(data, len) != 0;
}

/* Pipe mode: {attr; u64 ids[]} up to the end of the record. */
sp_error *sp_perf_header_attr(sp_perf_reader *d, sp_perf_cur *k)
{
	attr_fields a;
	k->at = 8;
	sp_error *e = take_attr(k, &a);
	if (e)
		return e;
	add_event(d, &a);
	return take_ids(d, k, (k->len - k->at) / 8, d->n_ev - 1);
}

/* File mode: each attr of the attrs section [OFF0, +SIZE) (ATTR_SIZE bytes
 * each), then its ids. */
static sp_error *file_attrs(sp_perf_reader *d, uint64_t off0, uint64_t size, uint64_t attr_size)
{
	const uint8_t *q = NULL;
	sp_error *e;
	uint64_t n_attrs = size / attr_size;
	for (uint64_t i = 0; i < n_attrs; i++) {
		uint64_t off = off0 + i * attr_size;
		if ((e = sp_perf_read_at(d, off, (size_t)attr_size, &q, "attr")))
			return e;
		sp_perf_cur k = sp_perf_mkcur(d, q, (size_t)attr_size, off, "attr entry");
		attr_fields a;
		if ((e = take_attr(&k, &a)))
			return e;
		if (a.size > attr_size - SP_PERF_SECTION_SIZE)
			return sp_perf_bad(d, off + 4,
					   "attr.size %" PRIu32 " leaves no room for its "
					   "ids section in an attr_size of %" PRIu64,
					   a.size, attr_size);
		/* the ids section follows the attr's own size, as perf reads it */
		uint64_t ids_off = sp_perf_rd64(d, q + a.size),
			 ids_size = sp_perf_rd64(d, q + a.size + 8);
		add_event(d, &a);
		if (ids_size == 0)
			continue;
		if (ids_size % 8 ||
		    (d->len != UINT64_MAX && (ids_off > d->len || ids_size > d->len - ids_off)))
			return sp_perf_bad(d, off + a.size,
					   "ids section [%" PRIu64 ", +%" PRIu64
					   ") of attr %" PRIu64
					   ": expected whole u64 ids inside the file",
					   ids_off, ids_size, i);
		if ((e = sp_perf_read_at(d, ids_off, (size_t)ids_size, &q, "sample ids")))
			return e;
		sp_perf_cur ik = sp_perf_mkcur(d, q, (size_t)ids_size, ids_off, "ids section");
		if ((e = take_ids(d, &ik, ids_size / 8, d->n_ev - 1)))
			return e;
	}
	return NULL;
}

/* File mode: the 104-byte header, checked, then the attrs and features. */
static sp_error *file_header(sp_perf_reader *d)
{
	const uint8_t *q = NULL;
	sp_error *e = sp_perf_read_at(d, 0, SP_PERF_FILE_HEADER_SIZE, &q, "perf.data header");
	if (e)
		return e;
	uint8_t h[SP_PERF_FILE_HEADER_SIZE];
	memcpy(h, q, sizeof(h));
	uint64_t attr_size = sp_perf_rd64(d, h + 16), attrs_off = sp_perf_rd64(d, h + 24),
		 attrs_size = sp_perf_rd64(d, h + 32), data_off = sp_perf_rd64(d, h + 40),
		 data_size = sp_perf_rd64(d, h + 48);
	if (attr_size < SP_PERF_ATTR_SIZE_VER0 + SP_PERF_SECTION_SIZE || attr_size > 4096 ||
	    attr_size % 8)
		return sp_perf_bad(d, 16,
				   "attr_size %" PRIu64 ": expected a multiple of 8 from %d "
				   "to 4096",
				   attr_size, SP_PERF_ATTR_SIZE_VER0 + SP_PERF_SECTION_SIZE);
	if (attrs_size % attr_size || attrs_size == 0)
		return sp_perf_bad(d, 32,
				   "attrs section of %" PRIu64 " bytes: expected a nonzero "
				   "multiple of attr_size %" PRIu64,
				   attrs_size, attr_size);
	if (d->len != UINT64_MAX) {
		if (attrs_off > d->len || attrs_size > d->len - attrs_off)
			return sp_perf_bad(d, 24,
					   "attrs section [%" PRIu64 ", +%" PRIu64 ") runs "
					   "past the end of the file (%" PRIu64 " bytes)",
					   attrs_off, attrs_size, d->len);
		if (data_off > d->len)
			return sp_perf_bad(d, 40,
					   "data section [%" PRIu64 ", +%" PRIu64 ") runs "
					   "past the end of the file (%" PRIu64 " bytes)",
					   data_off, data_size, d->len);
		/* perf record writes the data size and the feature sections
		 * when it ends: a recording killed before has a data size of
		 * 0 and records after the header; one cut short has a data
		 * section past the end.  Either is read up to its last whole
		 * record, without features (sp_perf_warning says so). */
		if (data_size == 0 && d->len > data_off)
			d->unfinished = true;
		else if (data_size > d->len - data_off)
			d->truncated = true;
	}
	if ((e = file_attrs(d, attrs_off, attrs_size, attr_size)))
		return e;
	if (d->len != UINT64_MAX && !d->unfinished && !d->truncated && data_size &&
	    data_off + data_size < d->len && !features_written(d, h + 72, data_off + data_size))
		d->unfinished = true; /* killed after a data size was written */
	if (!d->unfinished && !d->truncated &&
	    (e = file_features(d, h + 72, data_off + data_size)))
		return e;
	d->off = data_off;
	d->end = d->unfinished || d->truncated ? d->len : data_off + data_size;
	d->cut_at = data_off;
	return NULL;
}

sp_error *sp_perf_read_header(sp_perf_reader *d)
{
	const uint8_t *q = NULL;
	sp_error *e = sp_perf_read_at(d, 0, 16, &q, "perf.data header");
	if (e)
		return e;
	int order = sp_perf_magic_order(q, 16);
	if (!order)
		return sp_error_new(SP_E_UNRECOGNIZED, "%s: not perf.data", d->name);
	d->swap = order < 0;
	d->c->byte_swapped = d->swap;
	uint64_t hsize = sp_perf_rd64(d, q + 8);
	if (hsize == SP_PERF_PIPE_HEADER_SIZE) {
		d->pipe = true;
		d->off = SP_PERF_PIPE_HEADER_SIZE;
		d->end = UINT64_MAX;
		return NULL;
	}
	if (hsize != SP_PERF_FILE_HEADER_SIZE)
		return sp_perf_bad(d, 8, "header size %" PRIu64 ": expected %d (file) or %d (pipe)",
				   hsize, SP_PERF_FILE_HEADER_SIZE, SP_PERF_PIPE_HEADER_SIZE);
	return file_header(d);
}
