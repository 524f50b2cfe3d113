/* test_heap.c — the heap reader: every header form of spec §2.1, the
 * sample types rule, unsampling with the spec's worked examples (§2.2),
 * the bytes label, PC adjustment (§2.7: heap adjusts the leaf too), the
 * memory map and positioned errors.  Expected dumps are written by hand
 * from the spec, in the format of profile/dump.c. */
#include "formats/formats.h"
#include "tests/helpers/tap.h"

#include <stdlib.h>

static sp_profile *read_ok(const char *text, const char *what)
{
	sp_profile *p = NULL;
	sp_error *e = sp_heap_read("t.heap", (const uint8_t *)text, strlen(text), &p);
	if (!TAP_OK(e == NULL && p != NULL, "%s: reads", what)) {
		char *m = e ? sp_error_string(e) : NULL;
		printf("#   error: %s\n", m ? m : "(none)");
		free(m);
	}
	sp_error_free(e);
	if (p) {
		sp_error *c = sp_profile_check(p, "t.heap");
		TAP_OK(c == NULL, "%s: valid profile", what);
		sp_error_free(c);
	}
	return p;
}

/* Dump without the drop_frames line (checked separately). */
static void check_dump(sp_profile *p, const char *want, const char *what)
{
	if (!p)
		return;
	TAP_OK(p->drop_frames != 0 && strstr(sp_profile_str(p, p->drop_frames), "operator new"),
	       "%s: allocator drop_frames set", what);
	p->drop_frames = 0;
	sp_sink *s = sp_sink_memory_new();
	sp_profile_dump(p, s);
	size_t n;
	const uint8_t *d = sp_sink_memory_data(s, &n);
	char *got = sp_xstrndup((const char *)d, n);
	TAP_EQ_STR(got, want, "%s: model", what);
	free(got);
	sp_sink_free(s);
}

static void test_heap_v2(void)
{
	sp_profile *p = read_ok("heap profile:    2:    18432 [     2:    18432] @ heap_v2/524288\n"
				"     1:     9216 [     1:     9216] @ 0x4005d4 0x400612\n"
				"\n"
				"# a comment\n"
				"     1:     9216 [     1:     9216] @ 0x4005d4 0x7f0000001235\n"
				"\n"
				"MAPPED_LIBRARIES:\n"
				"00400000-00401000 r-xp 00000000 08:02 173521      /usr/bin/prog\n"
				"00600000-00601000 rw-p 00000000 08:02 173521      /usr/bin/prog\n"
				"7f0000000000-7f0000100000 r-xp 00000000 08:02 99 /lib/libc.so.6\n",
				"heap_v2");
	check_dump(p,
		   "PeriodType: space bytes\n"
		   "Period: 524288\n"
		   "Samples:\n"
		   "objects/count space/bytes\n"
		   "         57     528909: 1 2 \n"
		   "                bytes:[9216]\n"
		   "         57     528909: 1 3 \n"
		   "                bytes:[9216]\n"
		   "Locations\n"
		   "     1: 0x4005d3 M=1 \n"
		   "     2: 0x400611 M=1 \n"
		   "     3: 0x7f0000001234 M=2 \n"
		   "Mappings\n"
		   "1: 0x400000/0x401000/0x0 /usr/bin/prog \n"
		   "2: 0x7f0000000000/0x7f0000100000/0x0 /lib/libc.so.6 \n",
		   "heap_v2");
	sp_profile_free(p);
}

static void test_go_heap(void)
{
	/* Go legacy text: heap/N means R = N/2 and the v2 formula */
	sp_profile *p = read_ok("heap profile: 1: 524288 [3: 1572864] @ heap/1048576\n"
				"1: 524288 [3: 1572864] @ 0x1000 0x2001\n",
				"heap/N");
	check_dump(p,
		   "PeriodType: space bytes\n"
		   "Period: 524288\n"
		   "Samples:\n"
		   "alloc_objects/count alloc_space/bytes inuse_objects/count inuse_space/bytes\n"
		   "          4    2488234          1     829411: 1 2 \n"
		   "                bytes:[524288]\n"
		   "Locations\n"
		   "     1: 0xfff M=1 \n"
		   "     2: 0x2000 M=1 \n"
		   "Mappings\n"
		   "1: 0x0/0xffffffffffffffff/0x0  \n",
		   "heap/N");
	sp_profile_free(p);
}

static void test_heapprofile(void)
{
	/* no sampling; 5 != 3 so four columns; the in-use block size wins */
	sp_profile *p = read_ok("heap profile:    3:   300 [     5:      500] @ heapprofile\n"
				"     2:   200 [     4:     800] @ 0x10 0x20\n"
				"     0:     0 [     1:     100] @ 0x20\n"
				"--- Memory map: ---\n"
				"0x0-0x1000 /bin/a\n",
				"heapprofile");
	check_dump(p,
		   "PeriodType: space bytes\n"
		   "Period: 1\n"
		   "Samples:\n"
		   "alloc_objects/count alloc_space/bytes inuse_objects/count inuse_space/bytes\n"
		   "          4        800          2        200: 1 2 \n"
		   "                bytes:[100]\n"
		   "          1        100          0          0: 2 \n"
		   "                bytes:[100]\n"
		   "Locations\n"
		   "     1: 0xf M=1 \n"
		   "     2: 0x1f M=1 \n"
		   "Mappings\n"
		   "1: 0x0/0x1000/0x0 /bin/a \n",
		   "heapprofile");
	sp_profile_free(p);
}

static int64_t first_value(const char *text, size_t col, int64_t *second)
{
	sp_profile *p = NULL;
	sp_error *e = sp_heap_read("t", (const uint8_t *)text, strlen(text), &p);
	int64_t v = -12345;
	if (!e && p->n_samples == 1) {
		v = p->samples[0].values[col];
		*second = p->samples[0].values[col + 1];
	}
	sp_error_free(e);
	sp_profile_free(p);
	return v;
}

static void test_forms(void)
{
	static const struct {
		const char *text;
		int64_t period;
		size_t ncols;
		int64_t count, bytes;
	} rows[] = {
		/* spec §2.2 worked examples */
		{"heap profile: 1: 1000 [1: 1000] @ heap_v2/524288\n1: 1000 [1: 1000] @ 0x1\n",
		 524288, 2, 524, 524788},
		{"heap profile: 1: 9216 [1: 9216] @ heapz_v2/524288\n1: 9216 [1: 9216] @ 0x1\n",
		 524288, 2, 57, 528909},
		/* no rate: no scaling */
		{"heap profile: 1: 1000 [1: 1000] @ heap_v2\n1: 1000 [1: 1000] @ 0x1\n", 0, 2, 1,
		 1000},
		/* rate 1: unchanged */
		{"heap profile: 1: 1000 [1: 1000] @ heap_v2/1\n1: 1000 [1: 1000] @ 0x1\n", 1, 2, 1,
		 1000},
		/* growth and fragmentation: period 1, two columns, never alloc */
		{"heap profile: 1: 4096 [7: 9999] @ growthz\n1: 4096 [7: 9999] @ 0x1\n", 1, 2, 1,
		 4096},
		{"heap profile: 1: 4096 [0: 0] @ growth\n1: 4096 [0: 0] @ 0x1\n", 1, 2, 1, 4096},
		{"heap profile: 2: 64 [2: 64] @ fragmentationz\n2: 64 [2: 64] @ 0x1\n", 1, 2, 2, 64},
		{"heap profile: 2: 64 [2: 64] @ fragmentation\n2: 64 [2: 64] @ 0x1\n", 1, 2, 2, 64},
		/* alloc pair "0: 0" does not make alloc columns */
		{"heap profile: 1: 64 [0: 0] @ heapprofile\n1: 64 [0: 0] @ 0x1\n", 1, 2, 1, 64},
		/* spaces are optional */
		{"heap profile:1:64[1:64]@heapprofile\n1:64[1:64]@0x1\n", 1, 2, 1, 64},
	};
	for (size_t i = 0; i < SP_ARRAY_LEN(rows); i++) {
		sp_profile *p = NULL;
		sp_error *e = sp_heap_read("t", (const uint8_t *)rows[i].text,
					   strlen(rows[i].text), &p);
		bool ok = !e && p->period == rows[i].period && p->n_sample_types == rows[i].ncols &&
			  p->n_samples == 1 && p->samples[0].values[0] == rows[i].count &&
			  p->samples[0].values[1] == rows[i].bytes;
		if (!TAP_OK(ok, "row %zu: period %lld, %zu columns, %lld/%lld", i,
			    (long long)rows[i].period, rows[i].ncols, (long long)rows[i].count,
			    (long long)rows[i].bytes) &&
		    p)
			printf("#   got period %lld cols %zu values %lld/%lld\n", (long long)p->period,
			       p->n_sample_types, (long long)p->samples[0].values[0],
			       (long long)p->samples[0].values[1]);
		sp_error_free(e);
		sp_profile_free(p);
	}
	int64_t b = 0;
	TAP_OK(first_value("heap profile: 1: 524288 [3: 1572864] @ heap/1048576\n"
			   "1: 524288 [3: 1572864] @ 0x1\n", 2, &b) == 1 && b == 829411,
	       "Go in-use 1/524288 -> 1/829411");
}

static void test_errors(void)
{
	static const struct {
		const char *text;
		sp_errcode code;
		const char *want; /* substring */
	} rows[] = {
		{"", SP_E_UNRECOGNIZED, "empty"},
		{"goroutine profile: total 3\n", SP_E_UNRECOGNIZED, "not a heap profile"},
		{"\x01\x02\x03junk", SP_E_UNRECOGNIZED, "not a heap profile"},
		{"heap profile: 1: 2 [1: 2]\n", SP_E_MALFORMED, "t: line 1: expected \"@ <type>\""},
		{"heap profile: 1: 2 [1: 2] @ heap_v3/10\n", SP_E_MALFORMED,
		 "t: line 1: unknown heap profile type \"heap_v3\""},
		{"heap profile: 1: 2 [1: 2] @ cpu\n", SP_E_MALFORMED, "t: line 1: expected a profile type"},
		{"heap profile: 1: 2 [1: 2] @ heap_v2/99999999999999999999\n", SP_E_MALFORMED,
		 "t: line 1: sampling rate does not fit"},
		{"heap profile: 1: 2 @ heap\n", SP_E_MALFORMED, "t: line 1: expected \"heap profile:"},
		{"heap profile: 1: 2 [1: 2] @ heap_v2/8 junk\n", SP_E_MALFORMED, "t: line 1: expected end"},
		{"heap profile: 1: 2 [1: 2] @ heapprofile\n1: 2 [1: 2] @ 0x10\n0: 5 [0: 0] @ 0x1\n",
		 SP_E_MALFORMED, "t: line 3: inuse count is 0 but inuse bytes is 5"},
		{"heap profile: 1: 2 [3: 4] @ heapprofile\n1: 2 [0: 4] @ 0x10\n", SP_E_MALFORMED,
		 "t: line 2: allocation count is 0"},
		{"heap profile: 1: 2 [1: 2] @ heapprofile\n1: 2 [1: 2] @ 0x10 0xAB\n", SP_E_MALFORMED,
		 "t: line 2: expected hex address 0x[0-9a-f]+, got \"0xAB\""},
		{"heap profile: 1: 2 [1: 2] @ heapprofile\n99999999999999999999: 2 [1: 2] @ 0x1\n",
		 SP_E_MALFORMED, "t: line 2: count or byte total does not fit"},
		{"heap profile: 1: 2 [1: 2] @ heapprofile\n1: 2 @ 0x1\n", SP_E_MALFORMED,
		 "t: line 2: expected \"<n>: <bytes> [<n>: <bytes>] @ 0x<addr> ...\""},
		{"heap profile: 1: 2 [1: 2] @ heapprofile\n1: 2 [1: 2] 0x1\n", SP_E_MALFORMED,
		 "t: line 2: expected '@'"},
	};
	for (size_t i = 0; i < SP_ARRAY_LEN(rows); i++) {
		sp_profile *p = NULL;
		sp_error *e = sp_heap_read("t", (const uint8_t *)rows[i].text, strlen(rows[i].text), &p);
		char *m = e ? sp_error_string(e) : NULL;
		bool ok = e && !p && sp_error_root_code(e) == rows[i].code && strstr(m, rows[i].want);
		if (!TAP_OK(ok, "error row %zu: %s", i, rows[i].want))
			printf("#   got: %s\n", m ? m : "(no error)");
		free(m);
		sp_error_free(e);
		sp_profile_free(p);
	}
}

int main(void)
{
	test_heap_v2();
	test_go_heap();
	test_heapprofile();
	test_forms();
	test_errors();
	return tap_done();
}
