/* test_jemalloc.c — the jemalloc heap_v2 reader on hand-written dumps:
 * detection against gperftools' heap_v2, the unsampling arithmetic with
 * numbers worked out by hand from jeprof's AdjustSamples formula, the
 * columns with and without prof_accum, thread labels and how a stack's
 * value is shared among its threads, PC adjustment, the memory map, and
 * the dropping of jemalloc's own frames by mapping. */
#include "formats/formats.h"
#include "formats/jemalloc.h"
#include "tests/helpers/reader_util.h"

#include <stdlib.h>

static sp_profile *read_ok(const char *text, const char *what)
{
	sp_profile *p = NULL;
	sp_input_format f = SP_FMT_UNKNOWN;
	sp_error *e = sp_read_profile("t.heap", (const uint8_t *)text, strlen(text), &p, &f);
	if (!TAP_OK(e == NULL && p != NULL && f == SP_FMT_JEMALLOC, "%s: read as jemalloc",
		    what)) {
		char *m = e ? sp_error_string(e) : NULL;
		printf("#   error: %s\n", m ? m : "(none)");
		free(m);
	}
	sp_error_free(e);
	return p;
}

static void check_dump(sp_profile *p, const char *want, const char *what)
{
	if (!p)
		return;
	TAP_OK(p->drop_frames && strstr(sp_profile_str(p, p->drop_frames), "operator new"),
	       "%s: the heap profiles' allocator drop_frames", what);
	p->drop_frames = 0;
	char *got = reader_dump_string(p);
	TAP_EQ_STR(got, want, "%s: model", what);
	free(got);
}

static void test_unsample(void)
{
	static const struct {
		int64_t count, bytes, period, want_count, want_bytes;
		bool ok;
		const char *what;
	} rows[] = {
		/* scale = 1 / (1 - exp(-(bytes/count)/period)), values truncated */
		{1, 1000, 524288, 524, 524788, true, "1 x 1000 B at 512 KiB: scale 524.788"},
		{1, 9216, 524288, 57, 528909, true, "1 x 9216 B at 512 KiB: scale 57.39"},
		{2, 2000, 524288, 1049, 1049576, true, "2 x 1000 B: the average decides"},
		{3, 48, 16, 4, 75, true, "3 x 16 B at 16: scale 1.582"},
		{5, 480, 64, 6, 617, true, "5 x 96 B at 64: scale 1.287"},
		{7, 700, 1, 7, 700, true, "period 1 (lg_prof_sample:0) is exact"},
		{7, 700, 0, 7, 700, true, "period 0 is left alone"},
		{0, 0, 524288, 0, 0, true, "empty pair"},
		{0, 100, 524288, 0, 100, true, "no count: no average, unchanged"},
		{3, 0, 524288, 3, 0, true, "no bytes: unchanged"},
		{1000, 1000, (int64_t)1 << 62, 0, 0, false, "beyond int64: refused"},
	};
	for (size_t i = 0; i < SP_ARRAY_LEN(rows); i++) {
		int64_t c = -1, b = -1;
		bool ok = sp_jemalloc_unsample(rows[i].count, rows[i].bytes, rows[i].period, &c, &b);
		if (rows[i].ok)
			TAP_OK(ok && c == rows[i].want_count && b == rows[i].want_bytes,
			       "unsample: %s (got %lld / %lld)", rows[i].what, (long long)c,
			       (long long)b);
		else
			TAP_OK(!ok, "unsample: %s", rows[i].what);
	}
}

static void test_paths(void)
{
	TAP_OK(sp_jemalloc_is_allocator_path("/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"),
	       "libjemalloc.so.2 is the allocator");
	TAP_OK(sp_jemalloc_is_allocator_path("libjemalloc_debug.so"), "libjemalloc_debug.so too");
	TAP_OK(!sp_jemalloc_is_allocator_path("/opt/libjemalloc/lib/libfoo.so"),
	       "a directory named libjemalloc does not count");
	TAP_OK(!sp_jemalloc_is_allocator_path("/usr/lib/libjemalloc.a"), "a static archive is not");
	TAP_OK(!sp_jemalloc_is_allocator_path(""), "an empty path is not");
}

static void test_detect(void)
{
	static const char gperf[] = "heap profile: 1: 9216 [1: 9216] @ heap_v2/524288\n"
				    "1: 9216 [1: 9216] @ 0x4005d4\n";
	sp_profile *p = NULL;
	sp_input_format f = SP_FMT_UNKNOWN;
	sp_error *e = sp_read_profile("g.heap", (const uint8_t *)gperf, strlen(gperf), &p, &f);
	TAP_OK(!e && f == SP_FMT_HEAP, "gperftools heap_v2 is still read as heap");
	sp_error_free(e);
	sp_profile_free(p);
	reader_expect_error(sp_jemalloc_read, "b.heap", "heap_v2/524288\n@ 0x4005d4\n",
			    SP_E_UNRECOGNIZED, "no \"t*:\" line after the heap_v2 header",
			    "heap_v2/N without t*: is not mine");
	reader_expect_error(sp_jemalloc_read, "g.heap", gperf, SP_E_UNRECOGNIZED,
			    "not a jemalloc heap profile", "gperftools heap is not mine");
}

/* Exact dump, prof_accum off: two columns and a comment; the header's
 * totals are ignored (written wrong on purpose); thread 1 is named. */
static void test_exact(void)
{
	sp_profile *p = read_ok("heap_v2/1\n"
				"  t*: 999: 999999 [0: 0]\n"
				"  t0: 5: 1000 [0: 0]\n"
				"  t1: 4: 4096 [0: 0] worker 1\n"
				"@ 0x1000 0x2001\n"
				"  t*: 5: 560 [0: 0]\n"
				"  t0: 3: 336 [0: 0]\n"
				"  t1: 2: 224 [0: 0]\n"
				"@ 0x1000 0x3001 0x4001\n"
				"  t*: 1: 4096 [0: 0]\n"
				"  t1: 1: 4096 [0: 0]\n"
				"@ 0x5000\n"
				"  t*: 0: 0 [0: 0]\n",
				"exact");
	check_dump(p,
		   "Comment: jemalloc: no allocation totals (alloc_objects, alloc_space): the "
		   "process ran without prof_accum:true\n"
		   "PeriodType: space bytes\n"
		   "Period: 1\n"
		   "Samples:\n"
		   "inuse_objects/count inuse_space/bytes[dflt]\n"
		   "          3        336: 1 2 \n"
		   "                bytes:[112] thread:[0]\n"
		   "          2        224: 1 2 \n"
		   "                bytes:[112] thread:[1] thread_name:[worker 1]\n"
		   "          1       4096: 1 3 4 \n"
		   "                bytes:[4096] thread:[1] thread_name:[worker 1]\n"
		   "Locations\n"
		   "     1: 0xfff M=1 \n"
		   "     2: 0x2000 M=1 \n"
		   "     3: 0x3000 M=1 \n"
		   "     4: 0x4000 M=1 \n"
		   "Mappings\n"
		   "1: 0x0/0xffffffffffffffff/0x0  \n",
		   "exact");
	sp_profile_free(p);
}

/* Sampled at 512 KiB with prof_accum on: four columns, each pair scaled
 * with its own average; the threads' shares add up to the stack. */
static void test_sampled(void)
{
	sp_profile *p = read_ok("heap_v2/524288\n"
				"  t*: 2: 2000 [3: 3000]\n"
				"@ 0x1000\n"
				"  t*: 2: 2000 [3: 3000]\n"
				"  t3: 1: 1000 [1: 1000]\n"
				"  t7: 1: 1000 [2: 2000]\n"
				"@ 0x2000\n"
				"  t*: 1: 9216 [1: 9216]\n",
				"sampled");
	/* t*: cur 2 x 1000 -> 1049 / 1049576; cum 3 x 1000 -> 3 * 524.788 = 1574 / 1574364.
	 * t3 gets floor(1049 * 1/2) = 524, t7 the other 525; cum: floor(1574 * 1/3) = 524,
	 * then 1050; bytes likewise 524788 / 524788 and 524788 / 1049576. */
	check_dump(p,
		   "Comment: jemalloc: sampled every 524288 bytes on average (lg_prof_sample); "
		   "values unsampled\n"
		   "PeriodType: space bytes\n"
		   "Period: 524288\n"
		   "Samples:\n"
		   "inuse_objects/count inuse_space/bytes[dflt] alloc_objects/count "
		   "alloc_space/bytes\n"
		   "        524     524788        524     524788: 1 \n"
		   "                bytes:[1000] thread:[3]\n"
		   "        525     524788       1050    1049576: 1 \n"
		   "                bytes:[1000] thread:[7]\n"
		   "         57     528909         57     528909: 2 \n"
		   "                bytes:[9216]\n"
		   "Locations\n"
		   "     1: 0xfff M=1 \n"
		   "     2: 0x1fff M=1 \n"
		   "Mappings\n"
		   "1: 0x0/0xffffffffffffffff/0x0  \n",
		   "sampled");
	int64_t sum = 0;
	for (size_t i = 0; p && i < 2; i++)
		sum += p->samples[i].values[3];
	TAP_EQ_U64(sum, 1574364, "sampled: threads add up to the stack's unsampled alloc_space");
	sp_profile_free(p);
}

/* jemalloc's prof_unbias rounds each line on its own: threads need not
 * add up to t*:, and t*: wins. */
static void test_uneven_threads(void)
{
	sp_profile *p = read_ok("heap_v2/1\n"
				"  t*: 0: 0 [0: 0]\n"
				"@ 0x1000\n"
				"  t*: 3: 300 [0: 0]\n"
				"  t0: 1: 100 [0: 0]\n"
				"  t1: 1: 100 [0: 0]\n",
				"uneven");
	if (p && TAP_OK(p->n_samples == 2, "uneven: one sample per thread")) {
		TAP_OK(p->samples[0].values[0] == 1 && p->samples[0].values[1] == 150 &&
			       p->samples[1].values[0] == 2 && p->samples[1].values[1] == 150,
		       "uneven: 3 objects and 300 bytes shared 1+2 and 150+150");
	}
	sp_profile_free(p);
	/* thread lines adding up past 2^64: still shared exactly */
	p = read_ok("heap_v2/1\n"
		    "  t*: 0: 0 [0: 0]\n"
		    "@ 0x1000\n"
		    "  t*: 9: 9223372036854775807 [0: 0]\n"
		    "  t0: 3: 9223372036854775807 [0: 0]\n"
		    "  t1: 3: 9223372036854775807 [0: 0]\n"
		    "  t2: 3: 9223372036854775807 [0: 0]\n",
		    "huge");
	if (p && TAP_OK(p->n_samples == 3, "huge: one sample per thread")) {
		uint64_t sum = 0;
		for (size_t i = 0; i < 3; i++)
			sum += (uint64_t)p->samples[i].values[1];
		TAP_OK(sum == INT64_MAX && p->samples[0].values[1] == INT64_MAX / 3,
		       "huge: 2^63-1 bytes shared in thirds, adding up exactly");
	}
	sp_profile_free(p);
}

/* The leaf-most frames in libjemalloc's mapping are dropped; a stack made
 * only of them is kept; frames of other libraries stay. */
static void test_allocator_frames(void)
{
	sp_profile *p = read_ok("heap_v2/1\n"
				"  t*: 3: 300 [0: 0]\n"
				"@ 0x7f0000001010 0x7f0000002020 0x400101 0x7f1000000101 0x400201\n"
				"  t*: 2: 200 [0: 0]\n"
				"@ 0x7f0000001010 0x7f0000003030\n"
				"  t*: 1: 100 [0: 0]\n"
				"\n"
				"MAPPED_LIBRARIES:\n"
				"00400000-00401000 r-xp 00000000 08:02 17 /usr/bin/prog\n"
				"7f0000000000-7f0000100000 r-xp 00009000 08:02 18 "
				"/usr/lib/x86_64-linux-gnu/libjemalloc.so.2\n"
				"7f1000000000-7f1000100000 r-xp 00000000 08:02 19 /usr/lib/libc.so.6\n",
				"allocator");
	check_dump(p,
		   "Comment: jemalloc: no allocation totals (alloc_objects, alloc_space): the "
		   "process ran without prof_accum:true\n"
		   "PeriodType: space bytes\n"
		   "Period: 1\n"
		   "Samples:\n"
		   "inuse_objects/count inuse_space/bytes[dflt]\n"
		   "          2        200: 1 2 3 \n"
		   "                bytes:[100]\n"
		   "          1        100: 4 5 \n"
		   "                bytes:[100]\n"
		   "Locations\n"
		   "     1: 0x400100 M=1 \n"
		   "     2: 0x7f1000000100 M=2 \n"
		   "     3: 0x400200 M=1 \n"
		   "     4: 0x7f000000100f M=3 \n"
		   "     5: 0x7f000000302f M=3 \n"
		   "Mappings\n"
		   "1: 0x400000/0x401000/0x0 /usr/bin/prog \n"
		   "2: 0x7f1000000000/0x7f1000100000/0x0 /usr/lib/libc.so.6 \n"
		   "3: 0x7f0000000000/0x7f0000100000/0x9000 "
		   "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 \n",
		   "allocator");
	sp_profile_free(p);
}

/* A statically linked jemalloc (frames in the program's own mapping):
 * drop_frames cuts the stack at its je_-prefixed entry point. */
static void test_static_entry_points(void)
{
	sp_profile *p = read_ok("heap_v2/1\n"
				"  t*: 1: 8 [0: 0]\n"
				"@ 0x1001 0x2001 0x3001\n"
				"  t*: 1: 8 [0: 0]\n"
				"@ 0x1001 0x4001 0x3001\n"
				"  t*: 2: 16 [0: 0]\n",
				"static");
	static const struct {
		uint64_t addr;
		const char *name;
	} names[] = {{0x1000, "prof_backtrace_impl"},
		     {0x2000, "je_malloc"},
		     {0x3000, "main"},
		     {0x4000, "rallocx"}};
	for (size_t i = 0; p && i < p->n_locations; i++)
		for (size_t j = 0; j < SP_ARRAY_LEN(names); j++)
			if (p->locations[i].address == names[j].addr) {
				sp_line l = {sp_profile_function_for(p, names[j].name, names[j].name,
								     "", 0),
					     0, 0};
				p->locations[i].lines = sp_xmalloc(sizeof(l));
				p->locations[i].lines[0] = l;
				p->locations[i].n_lines = 1;
			}
	if (p) {
		sp_profile_prune_frames(p, NULL, NULL);
		const sp_location *a = sp_profile_location(p, p->samples[0].location_ids[0]);
		const sp_location *b = sp_profile_location(p, p->samples[1].location_ids[0]);
		TAP_OK(p->samples[0].n_locations == 1 && a->address == 0x3000 &&
			       p->samples[1].n_locations == 1 && b->address == 0x3000,
		       "static: je_malloc and rallocx and what they call are dropped");
	}
	sp_profile_free(p);
}

int main(void)
{
	test_unsample();
	test_paths();
	test_detect();
	test_exact();
	test_sampled();
	test_uneven_threads();
	test_allocator_frames();
	test_static_entry_points();
	return tap_done();
}
