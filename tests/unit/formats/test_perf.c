/* test_perf.c — the perf.data reader on small recordings built byte by
 * byte here: file mode in both byte orders with attrs of several sizes,
 * pipe mode, two events told apart by IDENTIFIER, maps of two processes at
 * the same addresses, a library mapped mid-run, kernel frames behind a
 * context marker, thread names, lost samples, unknown records; the same
 * recording must give the same profile in every encoding, compressed as
 * `perf record -z` writes it too (one zstd stream, a record split across two
 * COMPRESSED records), and the same rounds pulled one at a time (one ends
 * inside a COMPRESSED record's data).  Then the positioned errors of damaged
 * streams. */
#include "formats/formats.h"
#include "tests/helpers/tap.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <zstd.h>

/* -- a tiny perf.data writer ---------------------------------------------- */

typedef struct {
	sp_buf b;
	bool swap;
} wr;

static void put(wr *w, const void *p, size_t n)
{
	sp_buf_append(&w->b, p, n);
}

static void put16(wr *w, uint16_t v)
{
	v = w->swap ? __builtin_bswap16(v) : v;
	put(w, &v, 2);
}

static void put32(wr *w, uint32_t v)
{
	v = w->swap ? __builtin_bswap32(v) : v;
	put(w, &v, 4);
}

static void put64(wr *w, uint64_t v)
{
	v = w->swap ? __builtin_bswap64(v) : v;
	put(w, &v, 8);
}

static void set64(wr *w, size_t at, uint64_t v)
{
	v = w->swap ? __builtin_bswap64(v) : v;
	memcpy(w->b.data + at, &v, 8);
}

static void set16(wr *w, size_t at, uint16_t v)
{
	v = w->swap ? __builtin_bswap16(v) : v;
	memcpy(w->b.data + at, &v, 2);
}

static void pad8(wr *w)
{
	while (w->b.len % 8)
		put(w, "", 1);
}

/* NUL-terminated, padded to 8 */
static void put_name(wr *w, const char *s)
{
	put(w, s, strlen(s) + 1);
	pad8(w);
}

/* {u32 len; char[len]} with len a multiple of 8 */
static void put_str(wr *w, const char *s)
{
	size_t n = (strlen(s) + 1 + 7) / 8 * 8;
	put32(w, (uint32_t)n);
	put(w, s, strlen(s));
	for (size_t i = strlen(s); i < n; i++)
		put(w, "", 1);
}

static size_t rec_begin(wr *w, uint32_t type, uint16_t misc)
{
	size_t at = w->b.len;
	put32(w, type);
	put16(w, misc);
	put16(w, 0);
	return at;
}

static void rec_end(wr *w, size_t at)
{
	set16(w, at + 6, (uint16_t)(w->b.len - at));
}

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

/* The sample_id trailer of non-sample records: TID, TIME, IDENTIFIER. */
static void trailer(wr *w, uint32_t pid, uint32_t tid, uint64_t time)
{
	put32(w, pid);
	put32(w, tid);
	put64(w, time);
	put64(w, 1000); /* id of event 0 */
}

static void attr_full(wr *w, uint32_t size, uint32_t type, uint64_t config, uint64_t st,
		      uint64_t regs_user, uint32_t stack_user)
{
	size_t at = w->b.len;
	put32(w, type);
	put32(w, size);
	put64(w, config);
	put64(w, 4000);  /* sample_freq */
	put64(w, st);    /* sample_type */
	put64(w, 0);     /* read_format */
	/* flags: freq (10) and sample_id_all (18); a big-endian compiler
	 * allocates bitfields from each byte's top bit */
	uint8_t flags[8] = {0};
	unsigned bits[] = {10, 18};
	for (size_t i = 0; i < 2; i++)
		flags[bits[i] / 8] |= w->swap ? 0x80 >> (bits[i] % 8) : 1 << (bits[i] % 8);
	put(w, flags, 8);
	if (size >= 96) {
		while (w->b.len < at + 80)
			put(w, "", 1);
		put64(w, regs_user);
		put32(w, stack_user);
	}
	while (w->b.len < at + size)
		put(w, "", 1);
}

static void attr(wr *w, uint32_t size, uint32_t type, uint64_t config)
{
	attr_full(w, size, type, config, ST, 0, 0);
}

static void sample(wr *w, uint64_t id, uint16_t misc, uint32_t pid, uint32_t tid, uint64_t time,
		   uint64_t period, const uint64_t *chain, size_t n)
{
	size_t r = rec_begin(w, PERF_RECORD_SAMPLE, misc);
	put64(w, id);
	put64(w, n > 1 ? chain[1] : 0); /* ip: the first address after the marker */
	put32(w, pid);
	put32(w, tid);
	put64(w, time);
	put64(w, period);
	put64(w, n);
	for (size_t i = 0; i < n; i++)
		put64(w, chain[i]);
	rec_end(w, r);
}

static void mmap2(wr *w, uint32_t pid, uint64_t addr, uint64_t len, const char *path,
		  uint64_t time, const uint8_t *bid)
{
	size_t r = rec_begin(w, PERF_RECORD_MMAP2,
			     PERF_RECORD_MISC_USER | (bid ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0));
	put32(w, pid);
	put32(w, pid);
	put64(w, addr);
	put64(w, len);
	put64(w, 0);
	if (bid) {
		uint8_t u[24] = {20};
		memcpy(u + 4, bid, 20);
		put(w, u, 24);
	} else {
		put64(w, 0x0801);
		put64(w, 1234);
		put64(w, 0);
	}
	put32(w, 5); /* PROT_READ | PROT_EXEC */
	put32(w, 2);
	put_name(w, path);
	trailer(w, pid, pid, time);
	rec_end(w, r);
}

#define CTX_USER ((uint64_t)PERF_CONTEXT_USER)
#define CTX_KERNEL ((uint64_t)PERF_CONTEXT_KERNEL)

/* The records every encoding carries. */
static void body(wr *w)
{
	static const uint8_t bid[20] = {0xab, 0xcd, 1, 2, 3, 4, 5, 6, 7, 8, 9,
					10, 11, 12, 13, 14, 15, 16, 17, 18};
	size_t r = rec_begin(w, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	put32(w, 100);
	put32(w, 100);
	put_name(w, "prog");
	trailer(w, 100, 100, 5);
	rec_end(w, r);
	r = rec_begin(w, PERF_RECORD_COMM, 0);
	put32(w, 100);
	put32(w, 101);
	put_name(w, "worker");
	trailer(w, 100, 101, 6);
	rec_end(w, r);
	mmap2(w, 100, 0x400000, 0x1000, "/bin/prog", 6, bid);
	mmap2(w, 200, 0x400000, 0x1000, "/bin/other", 6, NULL);
	/* the kernel, synthesized by perf as a pid -1 MMAP */
	r = rec_begin(w, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
	put32(w, (uint32_t)-1);
	put32(w, 0);
	put64(w, 0xffffffff81000000);
	put64(w, 0x1000000);
	put64(w, 0xffffffff81000000);
	put_name(w, "[kernel.kallsyms]_text");
	trailer(w, (uint32_t)-1, 0, 0);
	rec_end(w, r);

	uint64_t c1[] = {CTX_USER, 0x400010, 0x400105, 0}; /* 0 ends the walk */
	sample(w, 1000, PERF_RECORD_MISC_USER, 100, 101, 10, 250000, c1, 4);
	sample(w, 1000, PERF_RECORD_MISC_USER, 100, 101, 11, 250000, c1, 4);
	uint64_t c2[] = {CTX_KERNEL, 0xffffffff81000100, 0xffffffff81000201,
			 CTX_USER,   0x400020,           0x400105};
	sample(w, 2000, PERF_RECORD_MISC_KERNEL, 100, 100, 12, 7, c2, 6);
	/* the same addresses in another process */
	sample(w, 1000, PERF_RECORD_MISC_USER, 200, 200, 13, 250000, c1, 3);
	/* a library address before and after its dlopen() */
	uint64_t c3[] = {CTX_USER, 0x7f0010, 0x400105};
	sample(w, 1000, PERF_RECORD_MISC_USER, 100, 100, 15, 250000, c3, 3);
	r = rec_begin(w, 68, 0); /* FINISHED_ROUND */
	rec_end(w, r);
	mmap2(w, 100, 0x7f0000, 0x1000, "/lib/plugin.so", 20, NULL);
	sample(w, 1000, PERF_RECORD_MISC_USER, 100, 100, 25, 250000, c3, 3);
	r = rec_begin(w, PERF_RECORD_LOST_SAMPLES, 0);
	put64(w, 3);
	trailer(w, 100, 100, 26);
	rec_end(w, r);
	r = rec_begin(w, 99, 0); /* unknown to us: skipped by its size */
	put64(w, 42);
	rec_end(w, r);
	/* process 300 forked from 100 at time 8 runs with a copy of its maps */
	r = rec_begin(w, PERF_RECORD_FORK, 0);
	put32(w, 300), put32(w, 100), put32(w, 300), put32(w, 100);
	put64(w, 8);
	trailer(w, 300, 300, 8);
	rec_end(w, r);
	sample(w, 1000, PERF_RECORD_MISC_USER, 300, 300, 9, 250000, c1, 3);
	/* process 100 exec()s at time 30: its old maps end, a new program starts */
	r = rec_begin(w, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	put32(w, 100);
	put32(w, 100);
	put_name(w, "newprog");
	trailer(w, 100, 100, 30);
	rec_end(w, r);
	mmap2(w, 100, 0x400000, 0x1000, "/bin/new", 30, NULL);
	sample(w, 1000, PERF_RECORD_MISC_USER, 100, 100, 31, 250000, c1, 3);
	sample(w, 1000, PERF_RECORD_MISC_USER, 100, 101, 32, 250000, c3, 3);
}

static void feature_osrelease(wr *w)
{
	put_str(w, "6.1.0-test");
}

static void feature_cmdline(wr *w)
{
	put32(w, 2);
	put_str(w, "perf");
	put_str(w, "record");
}

/* The event names perf gave on its command line. */
static void feature_event_desc(wr *w)
{
	put32(w, 1);
	put32(w, 64);
	attr(w, 64, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	put32(w, 1);
	put_str(w, "instructions:u");
	put64(w, 2000);
}

/* A build-id table entry for /lib/plugin.so (not in its MMAP2). */
static void feature_build_id(wr *w)
{
	size_t r = rec_begin(w, 0, PERF_RECORD_MISC_USER | (1u << 15));
	put32(w, 100);
	uint8_t id[24] = {0x11, 0x22, 0x33, 0x44};
	id[20] = 4;
	put(w, id, 24);
	put_name(w, "/lib/plugin.so");
	rec_end(w, r);
}

/* perf record -z: {version, type 1 = zstd, level, ratio, mmap_len} */
static void feature_compressed(wr *w)
{
	put32(w, 0);
	put32(w, 1);
	put32(w, 1);
	put32(w, 3);
	put32(w, 528384);
}

/* Compressed encodings: the record type, the payload bytes written. */
static uint32_t z_type;
static size_t z_bytes;

/* What perf record -z writes for the records of body(): one zstd stream
 * over two chunks (as from two ring-buffer reads), the first ending in the
 * middle of a sample so that the sample begins in one COMPRESSED record and
 * ends in another, each chunk flushed through records of at most 48 bytes
 * of payload (z_type 81, or 83 with its size and padding). */
static void body_z(wr *w)
{
	wr plain = {.swap = w->swap};
	body(&plain);
	/* the first sample begins after two COMMs, two MMAP2s and the MMAP */
	const uint8_t *p = (const uint8_t *)plain.b.data;
	size_t cut = 0;
	for (int i = 0; i < 5; i++) {
		uint16_t sz;
		memcpy(&sz, p + cut + 6, 2);
		cut += w->swap ? __builtin_bswap16(sz) : sz;
	}
	cut += 20;
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 1);
	size_t from[2] = {0, cut}, to[2] = {cut, plain.b.len};
	for (int c = 0; c < 2; c++) {
		ZSTD_inBuffer in = {p + from[c], to[c] - from[c], 0};
		size_t more;
		do {
			uint8_t out[48];
			ZSTD_outBuffer o = {out, sizeof(out), 0};
			more = ZSTD_compressStream2(cc, &o, &in, ZSTD_e_flush);
			if (ZSTD_isError(more) || !o.pos)
				break;
			size_t r = rec_begin(w, z_type, 0);
			if (z_type == 83)
				put64(w, o.pos);
			put(w, out, o.pos);
			if (z_type == 83)
				pad8(w);
			rec_end(w, r);
			z_bytes += o.pos;
		} while (more || in.pos < in.size);
	}
	ZSTD_freeCCtx(cc);
	sp_buf_free(&plain.b);
}

static uint8_t *file_mode(bool swap, uint32_t attr_size, size_t *len)
{
	wr w = {.swap = swap};
	put(&w, swap ? "2ELIFREP" : "PERFILE2", 8);
	put64(&w, 104);
	put64(&w, attr_size + 16);
	for (int i = 0; i < 3; i++)
		put64(&w, 0), put64(&w, 0); /* attrs, data, event_types: set below */
	uint64_t bits = 1u << 2 | 1u << 4 | 1u << 11 | 1u << 12 | 1u << 13; /* 13: skipped */
	if (z_type)
		bits |= 1u << 27;
	put64(&w, bits);
	put64(&w, 0), put64(&w, 0), put64(&w, 0);
	/* ids */
	size_t ids = w.b.len;
	put64(&w, 1000);
	put64(&w, 2000);
	size_t attrs = w.b.len;
	attr(&w, attr_size, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	put64(&w, ids), put64(&w, 8);
	attr(&w, attr_size, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	put64(&w, ids + 8), put64(&w, 8);
	size_t data = w.b.len;
	if (z_type)
		body_z(&w);
	else
		body(&w);
	size_t data_end = w.b.len;
	set64(&w, 24, attrs);
	set64(&w, 32, data - attrs);
	set64(&w, 40, data);
	set64(&w, 48, data_end - data);
	/* the feature table, then the sections */
	size_t table = w.b.len;
	int n_feat = z_type ? 6 : 5;
	for (int i = 0; i < n_feat; i++)
		put64(&w, 0), put64(&w, 0);
	void (*feat[6])(wr *) = {feature_build_id, feature_osrelease, feature_cmdline,
				 feature_event_desc, NULL, feature_compressed};
	for (int i = 0; i < n_feat; i++) {
		size_t at = w.b.len;
		if (feat[i])
			feat[i](&w);
		else
			put64(&w, 77); /* a feature we do not read */
		set64(&w, table + 16 * (size_t)i, at);
		set64(&w, table + 16 * (size_t)i + 8, w.b.len - at);
	}
	*len = w.b.len;
	return (uint8_t *)w.b.data;
}

static void header_attr(wr *w, uint32_t attr_size, uint32_t type, uint64_t config, uint64_t id)
{
	size_t r = rec_begin(w, 64, 0);
	attr(w, attr_size, type, config);
	put64(w, id);
	rec_end(w, r);
}

static void header_feature(wr *w, uint64_t feat, void (*fn)(wr *))
{
	size_t r = rec_begin(w, 80, 0);
	put64(w, feat);
	fn(w);
	rec_end(w, r);
}

static uint8_t *pipe_mode(bool swap, uint32_t attr_size, size_t *len)
{
	wr w = {.swap = swap};
	put(&w, swap ? "2ELIFREP" : "PERFILE2", 8);
	put64(&w, 16);
	header_attr(&w, attr_size, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 1000);
	header_attr(&w, attr_size, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 2000);
	header_feature(&w, 4, feature_osrelease);
	header_feature(&w, 11, feature_cmdline);
	header_feature(&w, 12, feature_event_desc);
	/* pipe mode has build ids as records of their own */
	size_t at = w.b.len;
	feature_build_id(&w);
	uint32_t t67 = swap ? __builtin_bswap32(67) : 67;
	memcpy(w.b.data + at, &t67, 4);
	if (z_type) {
		header_feature(&w, 27, feature_compressed);
		body_z(&w);
	} else {
		body(&w);
	}
	*len = w.b.len;
	return (uint8_t *)w.b.data;
}

/* -- what the profile must say -------------------------------------------- */

/* One line per sample: values, labels, then each frame as
 * "mapping-file@address". */
static char *render(const sp_profile *p)
{
	sp_buf b = {0};
	for (size_t i = 0; i < p->n_sample_types; i++)
		sp_buf_printf(&b, "%s%s/%s", i ? " " : "", sp_profile_str(p, p->sample_types[i].type),
			      sp_profile_str(p, p->sample_types[i].unit));
	sp_buf_printf(&b, " default=%s\n", sp_profile_str(p, p->default_sample_type));
	for (size_t i = 0; i < p->n_samples; i++) {
		const sp_sample *s = &p->samples[i];
		for (size_t v = 0; v < p->n_sample_types; v++)
			sp_buf_printf(&b, "%" PRId64 " ", s->values[v]);
		for (size_t l = 0; l < s->n_labels; l++) {
			const sp_label *lb = &s->labels[l];
			if (lb->str)
				sp_buf_printf(&b, "%s=%s ", sp_profile_str(p, lb->key),
					      sp_profile_str(p, lb->str));
			else
				sp_buf_printf(&b, "%s=%" PRId64 " ", sp_profile_str(p, lb->key),
					      lb->num);
		}
		sp_buf_puts(&b, "@");
		for (size_t j = 0; j < s->n_locations; j++) {
			const sp_location *loc = sp_profile_location(p, s->location_ids[j]);
			const sp_mapping *m = sp_profile_mapping(p, loc->mapping_id);
			sp_buf_printf(&b, " %s#%" PRIu64 "@%" PRIx64,
				      m ? sp_profile_str(p, m->filename) : "-", m ? m->id : 0,
				      loc->address);
		}
		sp_buf_puts(&b, "\n");
	}
	for (size_t i = 0; i < p->n_mappings; i++) {
		const sp_mapping *m = &p->mappings[i];
		sp_buf_printf(&b, "mapping %" PRIu64 " %" PRIx64 "-%" PRIx64 " %s %s\n", m->id,
			      m->memory_start, m->memory_limit, sp_profile_str(p, m->filename),
			      sp_profile_str(p, m->build_id));
	}
	for (size_t i = 0; i < p->n_comments; i++)
		sp_buf_printf(&b, "# %s\n", sp_profile_str(p, p->comments[i]));
	return sp_buf_take(&b);
}

/* Written from the records of body(): frames leaf first; the sample IP and
 * the first address after each marker exact, later ones minus one; the
 * kernel's frames in the kernel mapping; both processes' /bin at 0x400000
 * as two mappings; the plugin address unmapped before its MMAP2 at time
 * 20, mapped after; the forked process 300 with its own copy of 100's maps;
 * after 100's exec() at time 30 the new program's map, and no plugin.  Each
 * event its samples and periods, never summed. */
static const char want[] =
	"samples:cpu-clock/count cpu-clock/nanoseconds samples:instructions:u/count "
	"instructions:u/count default=cpu-clock\n"
	"2 500000 0 0 pid=100 tid=101 comm=worker @ /bin/prog#1@400010 /bin/prog#1@400104\n"
	"0 0 1 7 pid=100 tid=100 comm=prog @ [kernel.kallsyms]_text#2@ffffffff81000100 "
	"[kernel.kallsyms]_text#2@ffffffff81000200 /bin/prog#1@400020 /bin/prog#1@400104\n"
	"1 250000 0 0 pid=200 tid=200 @ /bin/other#3@400010 /bin/other#3@400104\n"
	"1 250000 0 0 pid=100 tid=100 comm=prog @ -#0@7f0010 /bin/prog#1@400104\n"
	"1 250000 0 0 pid=100 tid=100 comm=prog @ /lib/plugin.so#4@7f0010 /bin/prog#1@400104\n"
	"1 250000 0 0 pid=300 tid=300 @ /bin/prog#5@400010 /bin/prog#5@400104\n"
	"1 250000 0 0 pid=100 tid=100 comm=newprog @ /bin/new#6@400010 /bin/new#6@400104\n"
	"1 250000 0 0 pid=100 tid=101 comm=worker @ -#0@7f0010 /bin/new#6@400104\n"
	"mapping 1 400000-401000 /bin/prog abcd0102030405060708090a0b0c0d0e0f101112\n"
	"mapping 2 ffffffff81000000-ffffffff82000000 [kernel.kallsyms]_text \n"
	"mapping 3 400000-401000 /bin/other \n"
	"mapping 4 7f0000-7f1000 /lib/plugin.so 11223344\n"
	"mapping 5 400000-401000 /bin/prog abcd0102030405060708090a0b0c0d0e0f101112\n"
	"mapping 6 400000-401000 /bin/new \n"
	"# perf.data: host ?, kernel 6.1.0-test, arch ?\n"
	"# command: perf record\n"
	"# lost samples: 3\n";

/* F's perf.data read to its profile, a round at a time. */
static sp_error *read_stream(const char *what, FILE *f, sp_profile **q)
{
	sp_perf_reader *r;
	sp_error *e = sp_perf_open_stream(what, f, NULL, 0, &r);
	if (!e)
		e = sp_perf_read_rounds(r, q);
	sp_perf_close(r);
	return e;
}

/* Whether F's perf.data reads to the same profile as P. */
static void same_from(const char *what, const char *how, FILE *f, const sp_profile *p)
{
	sp_profile *q = NULL;
	sp_error *fe = read_stream(what, f, &q);
	char *a = p ? render(p) : NULL, *b = q ? render(q) : NULL;
	TAP_OK(!fe && a && b && !strcmp(a, b), "%s: %s, the same", what, how);
	free(a);
	free(b);
	sp_error_free(fe);
	sp_profile_free(q);
}

static void check_encoding(const char *what, uint8_t *data, size_t len)
{
	char *want_z = NULL;
	if (z_type) { /* and one comment more */
		wr plain = {0};
		body(&plain);
		want_z = sp_xasprintf("%s# perf.data: zstd-compressed records (perf record -z, "
				      "level 1, ratio 3): %zu bytes decompressed to %zu\n", want,
				      z_bytes, plain.b.len);
		sp_buf_free(&plain.b);
	}
	sp_profile *p = NULL;
	sp_input_format fmt;
	sp_error *e = sp_read_profile(what, data, len, &p, &fmt);
	char *msg = e ? sp_error_string(e) : NULL;
	if (!TAP_OK(!e && p && fmt == SP_FMT_PERF, "%s: read as perf.data", what))
		printf("#   %s\n", msg ? msg : "");
	if (p) {
		char *got = render(p);
		TAP_EQ_STR(got, want_z ? want_z : want, "%s: samples, labels, frames and mappings",
			   what);
		free(got);
	}
	/* pulled a round at a time: body() has a FINISHED_ROUND after its
	 * fifth sample (inside a COMPRESSED record's data with -z) */
	sp_perf_reader *r;
	size_t counts[4] = {0}, n_rounds = 0;
	sp_error *re = sp_perf_open_memory(what, data, len, &r);
	sp_capture *c;
	while (!re && !(re = sp_perf_next_round(r, &c)) && c) {
		if (n_rounds < 4)
			counts[n_rounds] = c->n_samples;
		n_rounds++;
		sp_capture_clear_samples(c);
	}
	TAP_OK(!re && n_rounds == 2 && counts[0] == 5 && counts[1] == 4,
	       "%s: two rounds of 5 and 4 samples (%zu: %zu, %zu)", what, n_rounds, counts[0],
	       counts[1]);
	TAP_OK(!re && r && sp_perf_next_round(r, &c) == NULL && !c, "%s: no round after the last",
	       what);
	sp_error_free(re);
	sp_perf_close(r);
	/* the same bytes from a file (mapped), and from a stream that is no
	 * file (no descriptor, so not mapped: records read into a buffer) */
	FILE *f = tmpfile();
	if (f && fwrite(data, 1, len, f) == len && fflush(f) == 0 && fseek(f, 0, SEEK_SET) == 0)
		same_from(what, "from a file (mapped)", f, p);
	if (f)
		fclose(f);
	f = fmemopen(data, len, "rb");
	if (f) {
		same_from(what, "read from a stream", f, p);
		fclose(f);
	}
	free(msg);
	free(want_z);
	sp_error_free(e);
	sp_profile_free(p);
	free(data);
	z_bytes = 0;
}

/* -- damaged streams ------------------------------------------------------ */

static void expect_error(const char *what, const uint8_t *data, size_t len, const char *text)
{
	sp_profile *p = NULL;
	sp_error *e = sp_perf_read(what, data, len, &p);
	char *msg = e ? sp_error_string(e) : NULL;
	bool ok = e && !p && strstr(msg, what) && strstr(msg, text);
	if (!TAP_OK(ok, "%s refused with \"%s\"", what, text))
		printf("#   got: %s\n", msg ? msg : "(no error)");
	free(msg);
	sp_error_free(e);
	sp_profile_free(p);
}

/* Pipe-mode bytes with one record appended after the attrs. */
static uint8_t *pipe_with(void (*rec)(wr *), size_t *len)
{
	wr w = {0};
	put(&w, "PERFILE2", 8);
	put64(&w, 16);
	header_attr(&w, 128, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 1000);
	rec(&w);
	*len = w.b.len;
	return (uint8_t *)w.b.data;
}

static void rec_chain_past_end(wr *w)
{
	size_t r = rec_begin(w, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put64(w, 1000);
	put64(w, 0x400000);
	put32(w, 1), put32(w, 1);
	put64(w, 1);
	put64(w, 1);
	put64(w, 1u << 20); /* callchain nr */
	put64(w, CTX_USER);
	rec_end(w, r);
}

static void rec_size_past_end(wr *w)
{
	size_t r = rec_begin(w, PERF_RECORD_MMAP, 0);
	put64(w, 0);
	rec_end(w, r);
	set16(w, r + 6, 0xfff8);
}

static void rec_compressed(wr *w)
{
	size_t r = rec_begin(w, 81, 0);
	put64(w, 0);
	rec_end(w, r);
}

/* One COMPRESSED record: PLAIN's bytes through a flushed zstd stream, the
 * last DROP bytes of the payload left out. */
static void put_z(wr *w, wr *plain, size_t drop)
{
	size_t cap = ZSTD_compressBound(plain->b.len) + 64;
	uint8_t *out = malloc(cap);
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	ZSTD_inBuffer in = {plain->b.data, plain->b.len, 0};
	ZSTD_outBuffer o = {out, cap, 0};
	while (ZSTD_compressStream2(cc, &o, &in, ZSTD_e_flush) > 0)
		;
	size_t r = rec_begin(w, 81, 0);
	put(w, out, o.pos - drop);
	rec_end(w, r);
	ZSTD_freeCCtx(cc);
	free(out);
	sp_buf_free(&plain->b);
}

static void sample_at(wr *w, uint64_t ip)
{
	uint64_t chain[] = {CTX_USER, ip};
	sample(w, 1000, PERF_RECORD_MISC_USER, 1, 1, 1, 1, chain, 2); /* 72 bytes */
}

/* the zstd stream cut inside its block */
static void rec_z_truncated(wr *w)
{
	wr plain = {0};
	sample_at(&plain, 0x400000);
	put_z(w, &plain, 4);
}

/* a whole zstd stream that ends 8 bytes before the end of its record */
static void rec_z_partial(wr *w)
{
	wr plain = {0};
	sample_at(&plain, 0x400000);
	plain.b.len -= 8;
	put_z(w, &plain, 0);
}

/* a damaged record after a good one of 72 bytes inside the decompressed data:
 * its callchain length at byte 72 + 48 */
static void rec_z_inner(wr *w)
{
	wr plain = {0};
	sample_at(&plain, 0x400000);
	rec_chain_past_end(&plain);
	put_z(w, &plain, 0);
}

/* 1 MiB of empty records from a few bytes, with perf's buffers of 516 KiB */
static void rec_z_bomb(wr *w)
{
	header_feature(w, 27, feature_compressed);
	wr plain = {0};
	for (int i = 0; i < (1 << 17); i++) {
		size_t r = rec_begin(&plain, 99, 0);
		rec_end(&plain, r);
	}
	put_z(w, &plain, 0);
}

/* The capture's time rules on their own: a later map over the same range
 * replaces an earlier one from its time on; names are per thread and time. */
static void capture_rules(void)
{
	sp_capture *c = sp_capture_new();
	sp_capture_map a = {.start = 0x1000, .limit = 0x3000, .time = 10, .path = "/a",
			    .exec = true};
	sp_capture_map b = {.start = 0x2000, .limit = 0x4000, .time = 50, .path = "/b",
			    .exec = true};
	sp_capture_map data = {.start = 0x4000, .limit = 0x5000, .time = 0, .path = "/d"};
	sp_capture_add_map(c, 7, &b); /* out of time order, as CPUs deliver them */
	sp_capture_add_map(c, 7, &a);
	sp_capture_add_map(c, 7, &data);
	const sp_capture_map *m;
	m = sp_capture_map_at(c, 7, 0x2100, 5);
	TAP_OK(!m, "nothing mapped before the first map's time");
	m = sp_capture_map_at(c, 7, 0x2100, 20);
	TAP_OK(m && !strcmp(m->path, "/a"), "the earlier map before the later one's time");
	m = sp_capture_map_at(c, 7, 0x2100, 60);
	TAP_OK(m && !strcmp(m->path, "/b"), "the later map from its time on");
	m = sp_capture_map_at(c, 7, 0x1100, 60);
	TAP_OK(m && !strcmp(m->path, "/a"), "the earlier map where the later does not reach");
	TAP_OK(!sp_capture_map_at(c, 7, 0x4100, 60), "a data map never symbolizes");
	TAP_OK(!sp_capture_map_at(c, 8, 0x2100, 60), "another process has none of them");
	sp_capture_add_map(c, 7, &a); /* recorded twice: one map */
	TAP_EQ_U64(c->procs[0].n_maps, 3, "a map recorded again is kept once");
	a.time = 70; /* /a mapped again over /b */
	sp_capture_add_map(c, 7, &a);
	m = sp_capture_map_at(c, 7, 0x2100, 80);
	TAP_OK(m && !strcmp(m->path, "/a"), "a map mapped again over a later one wins again");
	sp_capture_add_comm(c, 7, 9, 40, "late");
	sp_capture_add_comm(c, 7, 9, 10, "early");
	TAP_EQ_STR(sp_capture_comm_at(c, 9, 20), "early", "thread name at its time");
	TAP_EQ_STR(sp_capture_comm_at(c, 9, 45), "late", "renamed later");
	TAP_EQ_STR(sp_capture_comm_at(c, 9, 1), "early", "before any name: the first");
	TAP_EQ_STR(sp_capture_comm_at(c, 10, 45), "", "a thread never named");
	sp_capture_free(c);
}

/* The profiler remembers which location an address resolved to per
 * process and epoch: the same address sampled back and forth across map
 * changes and an exec (times out of order, as CPUs deliver them) must still
 * get each time's map, as sp_capture_map_at gives it. */
static void profiler_epochs(void)
{
	sp_capture *c = sp_capture_new();
	sp_capture_event ev = {.name = "cpu-clock", .unit = "nanoseconds"};
	sp_capture_add_event(c, &ev);
	sp_capture_map a = {.start = 0x1000, .limit = 0x3000, .time = 10, .path = "/a",
			    .exec = true};
	sp_capture_map b = {.start = 0x2000, .limit = 0x4000, .time = 50, .path = "/b",
			    .exec = true};
	sp_capture_map n = {.start = 0x2000, .limit = 0x3000, .time = 95, .path = "/new",
			    .exec = true};
	sp_capture_add_map(c, 7, &a);
	sp_capture_add_map(c, 7, &b);
	sp_capture_exec(c, 7, 90);
	sp_capture_add_map(c, 7, &n);
	static const uint64_t times[] = {20, 60, 20, 60, 92, 96, 20, 50, 49, 96};
	static const char *const path_at[] = {"/a", "/b", "/a", "/b", NULL, "/new",
					   "/a", "/b", "/a", "/new"};
	for (size_t i = 0; i < SP_ARRAY_LEN(times); i++) {
		uint64_t chain[] = {CTX_USER, 0x2100, 0x2200};
		sp_capture_sample sm = {.pid = 7, .tid = 7 + (int64_t)i, .time = times[i],
					.ip = 0x2100, .period = 1, .cpumode = 2,
					.has_chain = true};
		sp_capture_add_sample(c, &sm, chain, 3, NULL, 0, NULL, 0);
	}
	sp_capture_profiler *pb = sp_capture_profiler_new(c);
	sp_capture_profiler_add(pb, c);
	sp_profile *p = sp_capture_profiler_finish(pb, c); /* frees PB */
	size_t right = 0;
	for (size_t i = 0; p && i < p->n_samples && i < SP_ARRAY_LEN(times); i++) {
		const sp_sample *s = &p->samples[i];
		bool ok = s->n_locations == 2;
		for (size_t j = 0; ok && j < 2; j++) {
			const sp_location *l = sp_profile_location(p, s->location_ids[j]);
			const sp_mapping *m = l ? sp_profile_mapping(p, l->mapping_id) : NULL;
			const sp_capture_map *cm =
				sp_capture_map_at(c, 7, j ? 0x2200 - 1 : 0x2100, times[i]);
			ok = l && (path_at[i] ? m && !strcmp(sp_profile_str(p, m->filename), path_at[i])
					   : !m) &&
			     (cm ? m && !strcmp(cm->path, sp_profile_str(p, m->filename)) : !m);
		}
		right += ok;
	}
	TAP_EQ_U64(p ? p->n_samples : 0, SP_ARRAY_LEN(times), "one sample per thread");
	TAP_EQ_U64(right, SP_ARRAY_LEN(times),
		   "each sample's frames in the map of its time, back and forth across changes");
	sp_profile_free(p);
	sp_capture_free(c);
}

/* What a round of a mapped file's samples looked like (stack_samples). */
typedef struct {
	const uint8_t *stack; /* the stack copy's valid bytes, 24 */
	size_t stacks, borrowed, bytes;
} round_seen;

static void see_round(sp_capture *c, round_seen *r)
{
	for (size_t i = 0; i < c->n_samples; i++) {
		const sp_capture_sample *s = &c->samples[i];
		if (!s->stack.len)
			continue;
		r->stacks++;
		r->borrowed += s->stack_ref && s->stack.len == 24 &&
			       !memcmp(sp_capture_stack(c, s), r->stack, 24);
	}
	r->bytes += c->bytes.len;
	sp_capture_clear_samples(c);
}

/* F's perf.data (or DATA's, when F is NULL) read into a capture, every
 * round's samples left in it (SEEN NULL), or seen and cleared. */
static sp_error *read_capture(const char *what, FILE *f, const sp_buf *data, round_seen *seen,
			      sp_capture **out)
{
	sp_perf_reader *r;
	sp_capture *c;
	*out = NULL;
	sp_error *e = f ? sp_perf_open_stream(what, f, NULL, 0, &r)
			: sp_perf_open_memory(what, (const uint8_t *)data->data, data->len, &r);
	while (!e && !(e = sp_perf_next_round(r, &c)) && c)
		if (seen)
			see_round(c, seen);
	if (!e)
		*out = sp_perf_take_capture(r);
	sp_perf_close(r);
	return e;
}

/* The same records from a regular file, which the reader maps: each
 * stack copy is borrowed from the mapping while its round is handed over,
 * and copied into the capture for samples still held when reading ends. */
static void stack_samples_mapped(const sp_buf *file, const uint8_t *stack)
{
	FILE *f = tmpfile();
	if (!f || fwrite(file->data, 1, file->len, f) != file->len || fflush(f) != 0) {
		TAP_OK(false, "a temporary file for the mapped reads");
		if (f)
			fclose(f);
		return;
	}
	round_seen r = {.stack = stack};
	sp_capture *c = NULL;
	rewind(f);
	sp_error *e = read_capture("dwarf", f, NULL, &r, &c);
	TAP_OK(!e && r.stacks == 1 && r.borrowed == 1 && r.bytes == 16,
	       "from a file: the stack copy stays in the mapped file (%zu of %zu), only the "
	       "16 bytes of registers are copied (%zu)",
	       r.borrowed, r.stacks, r.bytes);
	sp_capture_free(c);
	sp_error_free(e);
	c = NULL;
	rewind(f);
	e = read_capture("dwarf", f, NULL, NULL, &c);
	const sp_capture_sample *s = !e && c && c->n_samples == 2 ? &c->samples[0] : NULL;
	TAP_OK(s && !s->stack_ref && s->stack.len == 24 &&
		       !memcmp(c->bytes.data + s->stack.off, stack, 24),
	       "from a file: samples left at the end hold copies of their stacks");
	sp_capture_free(c);
	sp_error_free(e);
	fclose(f);
}

/* --call-graph dwarf samples: the capture keeps the user registers and the
 * valid part (dyn_size) of the stack copy as bytes, for an unwinder. */
static void stack_samples(void)
{
	wr w = {.swap = true}; /* big-endian: register values are swapped, stack bytes not */
	put(&w, "2ELIFREP", 8);
	put64(&w, 16);
	uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
		      PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	size_t r = rec_begin(&w, 64, 0);
	attr_full(&w, 112, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, st, 0x3, 32);
	put64(&w, 1000);
	rec_end(&w, r);
	uint8_t stack[32];
	for (int i = 0; i < 32; i++)
		stack[i] = (uint8_t)(0xa0 + i);
	r = rec_begin(&w, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put64(&w, 0x401234);
	put32(&w, 5), put32(&w, 6);
	put64(&w, 77);
	put64(&w, 1000);
	put64(&w, 0); /* callchain: the user part is left to the unwinder */
	put64(&w, 2);
	put64(&w, 0x7ffc0000), put64(&w, 0x401234);
	put64(&w, 32);
	put(&w, stack, 32);
	put64(&w, 24); /* dyn_size: the stack ended 8 bytes short */
	rec_end(&w, r);
	r = rec_begin(&w, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
	put64(&w, 0xffffffff81000010);
	put32(&w, 5), put32(&w, 6);
	put64(&w, 78);
	put64(&w, 1000);
	put64(&w, 2);
	put64(&w, CTX_KERNEL), put64(&w, 0xffffffff81000010);
	put64(&w, 0); /* abi NONE: no registers */
	put64(&w, 0); /* no stack copy, no dyn_size */
	rec_end(&w, r);

	sp_capture *c = NULL;
	sp_error *e = read_capture("dwarf", NULL, &w.b, NULL, &c);
	TAP_OK(!e && c && c->n_samples == 2, "dwarf-style samples read into a capture");
	if (c && c->n_samples == 2) {
		const sp_capture_sample *s = &c->samples[0];
		uint64_t regs[2];
		memcpy(regs, c->bytes.data + s->regs.off, sizeof(regs));
		TAP_OK(s->regs_abi == 2 && s->regs.len == 16 &&
			       __builtin_bswap64(regs[0]) == 0x7ffc0000 &&
			       __builtin_bswap64(regs[1]) == 0x401234,
		       "user registers kept as recorded bytes, in mask order");
		TAP_OK(s->stack.len == 24 && !memcmp(c->bytes.data + s->stack.off, stack, 24),
		       "stack copy kept up to dyn_size");
		TAP_OK(s->ip == 0x401234 && s->n_chain == 0 && s->pid == 5 && s->tid == 6 &&
			       s->time == 77,
		       "ip, pid, tid and time of the stack sample");
		s = &c->samples[1];
		TAP_OK(s->regs_abi == 0 && s->regs.len == 0 && s->stack.len == 0 && s->n_chain == 2,
		       "a kernel sample without user registers or stack");
	}
	sp_capture_free(c);
	sp_error_free(e);
	sp_profile *p = NULL;
	e = sp_perf_read("dwarf", (const uint8_t *)w.b.data, w.b.len, &p);
	TAP_OK(!e && p && p->n_samples == 2 && p->samples[0].n_locations == 1 &&
		       sp_profile_location(p, p->samples[0].location_ids[0])->address == 0x401234,
	       "without unwinding, a stack sample keeps its leaf");
	sp_error_free(e);
	sp_profile_free(p);
	stack_samples_mapped(&w.b, stack);
	sp_buf_free(&w.b);
}

int main(void)
{
	capture_rules();
	profiler_epochs();
	stack_samples();
	size_t len;
	uint8_t *d;
	d = file_mode(false, 128, &len);
	check_encoding("file-le-128", d, len);
	d = file_mode(true, 128, &len);
	check_encoding("file-be-128", d, len);
	d = file_mode(false, 72, &len); /* PERF_ATTR_SIZE_VER1 */
	check_encoding("file-le-72", d, len);
	d = file_mode(true, 152, &len); /* larger than any perf knows */
	check_encoding("file-be-152", d, len);
	d = pipe_mode(false, 112, &len);
	check_encoding("pipe-le-112", d, len);
	d = pipe_mode(true, 64, &len); /* PERF_ATTR_SIZE_VER0 */
	check_encoding("pipe-be-64", d, len);
	/* perf record -z */
	z_type = 81;
	d = file_mode(false, 128, &len);
	check_encoding("file-le-z", d, len);
	d = file_mode(true, 136, &len);
	check_encoding("file-be-z", d, len);
	d = pipe_mode(false, 128, &len);
	check_encoding("pipe-le-z", d, len);
	z_type = 83; /* COMPRESSED2 */
	d = pipe_mode(true, 112, &len);
	check_encoding("pipe-be-z2", d, len);
	z_type = 0;

	/* not mine: another format's bytes, and too short for the magic */
	sp_profile *p = NULL;
	sp_error *e = sp_perf_read("x", (const uint8_t *)"PERFILE", 7, &p);
	TAP_OK(e && sp_error_root_code(e) == SP_E_UNRECOGNIZED, "7 bytes: not mine");
	sp_error_free(e);

	d = file_mode(false, 128, &len);
	expect_error("truncated-header", d, 60, "offset 0: truncated perf.data header");
	set64(&(wr){.b = {.data = (char *)d, .len = len}}, 16, 40);
	expect_error("attr-size-small", d, len, "offset 16: attr_size 40");
	free(d);
	d = file_mode(false, 128, &len);
	/* attr.size of the first attr: larger than its entry */
	uint32_t big = 200;
	memcpy(d + 104 + 16 + 4, &big, 4);
	expect_error("attr-size-big", d, len, "offset 124: attr.size 200 runs past its 144-byte");
	free(d);
	/* single damaged records after a pipe-mode attr (the record at offset 160) */
	static const struct {
		void (*rec)(wr *);
		const char *what, *text;
	} damaged[] = {
		{rec_chain_past_end, "chain-past-end",
		 "callchain of 1048576 entries but only 8 bytes left in the 64-byte sample"},
		{rec_size_past_end, "size-past-end", "truncated record: expected 65528 bytes"},
		{rec_compressed, "compressed",
		 "offset 160: corrupt zstd payload in COMPRESSED record: Unknown frame descriptor"},
		{rec_z_truncated, "z-truncated",
		 "offset 160: byte 0 of the data decompressed from COMPRESSED records: the zstd "
		 "stream of the COMPRESSED records ends inside a block"},
		{rec_z_partial, "z-partial",
		 "offset 160: byte 0 of the data decompressed from COMPRESSED records: truncated "
		 "record: 64 bytes of it at the end of the compressed data"},
		{rec_z_inner, "z-inner",
		 "offset 160: byte 120 of the data decompressed from COMPRESSED records: "
		 "callchain of 1048576 entries but only 8 bytes left in the 64-byte sample"},
		{rec_z_bomb, "z-bomb",
		 "COMPRESSED record decompresses to more than 790528 bytes (the COMPRESSED "
		 "feature's buffer size and a block)"},
	};
	for (size_t i = 0; i < SP_ARRAY_LEN(damaged); i++) {
		d = pipe_with(damaged[i].rec, &len);
		expect_error(damaged[i].what, d, len, damaged[i].text);
		free(d);
	}
	return tap_done();
}
