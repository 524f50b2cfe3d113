/* test_cpu.c — the gperftools CPU profile reader on profiles built here
 * word by word: the worked example of spec/FORMATS.md §3, the same records
 * in all four word-size / byte-order layouts, the clean-ups of §2.7, and
 * the errors. */
#include "formats/formats.h"
#include "tests/helpers/stacks_util.h"
#include "tests/helpers/tap.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	sp_buf b;
	unsigned ws;
	bool big;
} cpubuf;

static void put(cpubuf *c, uint64_t v)
{
	uint8_t w[8];
	for (unsigned i = 0; i < c->ws; i++) {
		unsigned shift = 8 * (c->big ? c->ws - 1 - i : i);
		w[i] = (uint8_t)(v >> shift);
	}
	sp_buf_append(&c->b, w, c->ws);
}

static void putv(cpubuf *c, size_t n, const uint64_t *v)
{
	for (size_t i = 0; i < n; i++)
		put(c, v[i]);
}

#define PUT(c, ...)                                                      \
	do {                                                             \
		const uint64_t v_[] = {__VA_ARGS__};                     \
		putv((c), SP_ARRAY_LEN(v_), v_);                         \
	} while (0)

static sp_error *read_buf(cpubuf *c, sp_profile **p)
{
	return sp_cpu_read("t.prof", (const uint8_t *)c->b.data, c->b.len, p);
}

static char *err_text(sp_error *e)
{
	return e ? sp_error_string(e) : sp_xstrdup("(no error)");
}

static void worked_example(void)
{
	cpubuf c = {.ws = 8};
	PUT(&c, 0, 3, 0, 10000, 0);
	PUT(&c, 5, 3, 0x401005, 0x402010, 0x403020);
	PUT(&c, 2, 2, 0x401006, 0x401006);
	PUT(&c, 0, 1, 0);
	sp_buf_puts(&c.b, "00400000-00404000 r-xp 00000000 08:01 1234 /usr/bin/prog\n");
	sp_profile *p = NULL;
	sp_error *e = read_buf(&c, &p);
	TAP_OK(!e, "worked example parses");
	if (p) {
		char *s = stacks_string(p), *t = types_string(p);
		TAP_EQ_STR(s,
			   "5 50000000 @ 0x401005 0x40200f 0x40301f\n"
			   "2 20000000 @ 0x401006\n",
			   "worked example samples (spec §3)");
		TAP_EQ_STR(t, "samples/count cpu/nanoseconds", "sample types");
		TAP_EQ_STR(sp_profile_str(p, p->period_type.type), "cpu", "period type");
		TAP_EQ_STR(sp_profile_str(p, p->period_type.unit), "nanoseconds", "period unit");
		TAP_EQ_U64(p->period, 10000000, "period = 10000 µs in ns");
		TAP_OK(strstr(sp_profile_str(p, p->drop_frames), "CpuProfiler::prof_handler") != NULL,
		       "drop_frames names the profiler's handler");
		const sp_location *l = sp_profile_location(p, p->samples[0].location_ids[0]);
		const sp_mapping *m = l ? sp_profile_mapping(p, l->mapping_id) : NULL;
		TAP_OK(m && m->memory_start == 0x400000 && m->memory_limit == 0x404000 &&
			       !strcmp(sp_profile_str(p, m->filename), "/usr/bin/prog"),
		       "leaf attached to the mapping of the maps text");
		TAP_OK(!sp_profile_check(p, "t.prof"), "result is valid");
		free(s);
		free(t);
	}
	sp_error_free(e);
	sp_profile_free(p);
	sp_buf_free(&c.b);
}

/* The same records in every layout; addresses fit in 32 bits. */
static void layouts(void)
{
	static const struct {
		unsigned ws;
		bool big;
		const char *what;
	} ls[] = {{4, false, "32-bit LE"}, {4, true, "32-bit BE"},
		  {8, false, "64-bit LE"}, {8, true, "64-bit BE"}};
	for (size_t i = 0; i < SP_ARRAY_LEN(ls); i++) {
		cpubuf c = {.ws = ls[i].ws, .big = ls[i].big};
		PUT(&c, 0, 3, 0, 4000, 0);
		PUT(&c, 3, 3, 0x1000, 0x2001, 0x3001);
		PUT(&c, 1, 2, 0x1100, 0x2101);
		PUT(&c, 4, 3, 0x1000, 0x2001, 0x3001); /* same stack again: summed */
		PUT(&c, 2, 3, 0x1200, 0x2201, 0x3001);
		PUT(&c, 0, 1, 0);
		sp_profile *p = NULL;
		sp_error *e = read_buf(&c, &p);
		char *msg = err_text(e);
		TAP_OK(!e, "%s parses (%s)", ls[i].what, msg);
		if (p) {
			char *s = stacks_string(p);
			TAP_EQ_STR(s,
				   "7 28000000 @ 0x1000 0x2000 0x3000\n"
				   "1 4000000 @ 0x1100 0x2100\n"
				   "2 8000000 @ 0x1200 0x2200 0x3000\n",
				   "%s: summed, callers adjusted by -1", ls[i].what);
			free(s);
		}
		free(msg);
		sp_error_free(e);
		sp_profile_free(p);
		sp_buf_free(&c.b);
	}
}

/* Reads C (and frees its buffer); its stacks must be WANT. */
static void expect_stacks(cpubuf *c, const char *want, const char *what)
{
	sp_profile *p = NULL;
	sp_error *e = read_buf(c, &p);
	char *msg = err_text(e);
	TAP_OK(!e, "%s: parses (%s)", what, msg);
	if (p) {
		char *s = stacks_string(p);
		TAP_EQ_STR(s, want, "%s", what);
		free(s);
	}
	free(msg);
	sp_error_free(e);
	sp_profile_free(p);
	sp_buf_free(&c->b);
}

static void signal_frames(void)
{
	/* every sample has 0x9001 at index 1, then (after removal) 0x8001 in
	 * all but one of them: N=3, need N - N/32 = 3, so only the first
	 * pass removes a frame */
	cpubuf c = {.ws = 8};
	PUT(&c, 0, 3, 0, 10000, 0);
	PUT(&c, 1, 3, 0x1000, 0x9001, 0x8001);
	PUT(&c, 1, 3, 0x1100, 0x9001, 0x8001);
	PUT(&c, 1, 3, 0x1200, 0x9001, 0x7001);
	PUT(&c, 0, 1, 0);
	expect_stacks(&c,
		      "1 10000000 @ 0x1000 0x8000\n"
		      "1 10000000 @ 0x1100 0x8000\n"
		      "1 10000000 @ 0x1200 0x7000\n",
		      "frame shared at index 1 by all samples removed once");

	/* two handler frames shared by all: both passes remove one */
	c = (cpubuf){.ws = 8};
	PUT(&c, 0, 3, 0, 10000, 0);
	PUT(&c, 1, 4, 0x1000, 0x9001, 0x8001, 0x5001);
	PUT(&c, 1, 4, 0x1100, 0x9001, 0x8001, 0x6001);
	PUT(&c, 0, 1, 0);
	expect_stacks(&c,
		      "1 10000000 @ 0x1000 0x5000\n"
		      "1 10000000 @ 0x1100 0x6000\n",
		      "two passes remove two shared frames");
}

/* The share of §2.7 is counted over the records as written (pprof's
 * samples before any merging): a stack the profiler's hash table evicted
 * and wrote again counts once per record.  33 records, 32 of them the same
 * stack [0x1000, 0x9001]: N = 33, need 33 - 1 = 32, so 0x9000 goes; the
 * second pass finds only 0x7000 (1 record) at index 1.  Summed per distinct
 * stack first (N = 2, need 2) the handler frame would stay. */
static void evicted_records(void)
{
	cpubuf c = {.ws = 8};
	PUT(&c, 0, 3, 0, 10000, 0);
	for (int i = 0; i < 32; i++)
		PUT(&c, 1, 2, 0x1000, 0x9001);
	PUT(&c, 1, 3, 0x1100, 0x7001, 0x6001);
	PUT(&c, 0, 1, 0);
	expect_stacks(&c,
		      "32 320000000 @ 0x1000\n"
		      "1 10000000 @ 0x1100 0x7000 0x6000\n",
		      "handler frame share counted per record, then records summed");
}

static void expect_error(cpubuf *c, sp_errcode code, const char *needle, const char *what)
{
	sp_profile *p = NULL;
	sp_error *e = read_buf(c, &p);
	char *msg = err_text(e);
	TAP_OK(e && sp_error_root_code(e) == code && strstr(msg, needle) && !p,
	       "%s: \"%s\"", what, msg);
	free(msg);
	sp_error_free(e);
	sp_profile_free(p);
	sp_buf_free(&c->b);
}

static void errors(void)
{
	cpubuf c = {.ws = 8};
	PUT(&c, 0, 3, 0, 10000, 0);
	PUT(&c, 1, 1000000, 0x1000);
	expect_error(&c, SP_E_MALFORMED, "offset 40: record claims 1000000 PCs but only 1 words remain",
		     "PC count checked against the words left");

	c = (cpubuf){.ws = 4, .big = true};
	PUT(&c, 0, 3, 0, 10000, 0);
	PUT(&c, 1, 2, 0x1000, 0x2000);
	PUT(&c, 1, 3, 0x1000);
	expect_error(&c, SP_E_MALFORMED, "offset 36: record claims 3 PCs but only 1 words remain",
		     "32-bit BE: offset of the broken record");

	c = (cpubuf){.ws = 8};
	PUT(&c, 0, 3, 0, 10000, 0);
	PUT(&c, 1, 1, 0x1000);
	sp_buf_append(&c.b, "\0\0\0", 3);
	expect_error(&c, SP_E_MALFORMED, "offset 64: truncated record", "partial word at the end");

	c = (cpubuf){.ws = 8};
	PUT(&c, 0, 3, 1, 10000, 0);
	expect_error(&c, SP_E_MALFORMED, "Java", "version 1 (Java) not supported");

	c = (cpubuf){.ws = 8};
	PUT(&c, 0, 4, 0, 10000, 0);
	expect_error(&c, SP_E_UNRECOGNIZED, "not a gperftools CPU profile", "header count 4");

	c = (cpubuf){.ws = 8};
	PUT(&c, 0, 3, 0, 0, 0);
	expect_error(&c, SP_E_UNRECOGNIZED, "not a gperftools", "period 0 is not a header");

	c = (cpubuf){.ws = 4};
	PUT(&c, 0, 3, 0, 100);
	expect_error(&c, SP_E_UNRECOGNIZED, "not a gperftools", "short header");

	c = (cpubuf){.ws = 8};
	sp_buf_puts(&c.b, "heap profile: 1: 2 [3: 4] @ heap_v2/524288\n");
	expect_error(&c, SP_E_UNRECOGNIZED, "not a gperftools", "text is not mine");
}

static void no_trailer(void)
{
	cpubuf c = {.ws = 4};
	PUT(&c, 0, 3, 0, 10000, 0);
	PUT(&c, 2, 1, 0x1000);
	PUT(&c, 3, 0);
	expect_stacks(&c, "2 20000000 @ 0x1000\n3 30000000 @\n",
		      "no trailer: records up to the end, empty stack kept");
}

int main(void)
{
	worked_example();
	layouts();
	signal_frames();
	evicted_records();
	errors();
	no_trailer();
	return tap_done();
}
