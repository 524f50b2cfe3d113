/* test_raw.c — symprof raw address stacks (docs/raw-stacks.md): headers,
 * PC adjustment modes, summing, the embedded memory map, a map attached
 * afterwards (the --maps path), and every error. */
#include "tests/helpers/reader_util.h"

#include <stdlib.h>
#include <string.h>

static sp_profile *expect_ok(const char *text, const char *want, const char *what)
{
	return reader_expect_ok(sp_addrstacks_read, "r.txt", text, want, what);
}

static void expect_error(const char *text, sp_errcode code, const char *needle, const char *what)
{
	reader_expect_error(sp_addrstacks_read, "r.txt", text, code, needle, what);
}

static const char example[] = "# symprof raw stacks v1\n"
			      "sample_type: samples/count cpu/nanoseconds\n"
			      "period: cpu/nanoseconds 10000000\n"
			      "addresses: return\n"
			      "default_sample_type: cpu\n"
			      "# written by a test\n"
			      "3 30000000 @ 0x401005 0x402010 0x403020\n"
			      "\n"
			      "1 10000000 @ 0x401005 0x402010\n"
			      "2 20000000 @ 0x401005 0x402010 0x403020\n"
			      "--- Memory map: ---\n"
			      "00400000-00404000 r-xp 00000000 08:01 1234 /usr/bin/prog\n";

int main(void)
{
	sp_profile *p = expect_ok(example,
				  "5 50000000 @ 0x401005 0x40200f 0x40301f\n"
				  "1 10000000 @ 0x401005 0x40200f\n",
				  "documented example: callers -1, identical stacks summed");
	if (p) {
		char *t = types_string(p);
		TAP_EQ_STR(t, "samples/count cpu/nanoseconds", "sample types from the header");
		free(t);
		TAP_EQ_U64(p->period, 10000000, "period");
		TAP_EQ_STR(sp_profile_str(p, p->period_type.type), "cpu", "period type");
		TAP_EQ_STR(sp_profile_str(p, p->period_type.unit), "nanoseconds", "period unit");
		TAP_EQ_STR(sp_profile_str(p, p->default_sample_type), "cpu", "default sample type");
		const sp_location *l = sp_profile_location(p, p->samples[0].location_ids[1]);
		const sp_mapping *m = l ? sp_profile_mapping(p, l->mapping_id) : NULL;
		TAP_OK(m && m->memory_start == 0x400000 &&
			       !strcmp(sp_profile_str(p, m->filename), "/usr/bin/prog"),
		       "embedded memory map attached");
	}
	sp_profile_free(p);

	p = expect_ok("# symprof raw stacks v1\r\n7 @ 0x7f0000001000 0x7f0000002001\r\n"
		      "1 @\n",
		      "7 @ 0x7f0000001000 0x7f0000002000\n1 @\n",
		      "no headers: samples/count, CRLF, empty stack");
	if (p) {
		char *t = types_string(p);
		TAP_EQ_STR(t, "samples/count", "default sample type");
		free(t);
		TAP_OK(p->n_mappings == 0 && p->locations[0].mapping_id == 0,
		       "without a map the locations stay unattached");
		static const char maps[] =
			"7f0000000000-7f0000003000 r-xp 00000000 08:01 77 /usr/lib/libx.so\n";
		sp_error *e = sp_profile_parse_maps(p, maps, strlen(maps));
		sp_profile_attach_locations(p);
		const sp_mapping *m = sp_profile_mapping(p, p->locations[0].mapping_id);
		TAP_OK(!e && m && !strcmp(sp_profile_str(p, m->filename), "/usr/lib/libx.so"),
		       "a map given later attaches the locations");
		sp_error_free(e);
	}
	sp_profile_free(p);

	p = expect_ok("# symprof raw stacks v1\naddresses: exact\nsample_type: alloc/bytes\n"
		      "-4096 @ 0x1000 0x2001\n",
		      "-4096 @ 0x1000 0x2001\n", "exact addresses kept, negative value");
	sp_profile_free(p);

	expect_error("3 @ 0x1\n", SP_E_UNRECOGNIZED, "not symprof raw stacks", "no magic line");
	expect_error("", SP_E_UNRECOGNIZED, "not symprof raw stacks", "empty input");
	expect_error("# symprof raw stacks v2\n", SP_E_MALFORMED, "line 1: raw stacks version \"2\"",
		     "unknown version");
	expect_error("# symprof raw stacks v1\nsample_type: samples/count cpu/nanoseconds\n"
		     "3 @ 0x1\n",
		     SP_E_MALFORMED, "line 3: 1 values but 2 sample types", "value count");
	expect_error("# symprof raw stacks v1\n3 @ 0x1 main\n", SP_E_MALFORMED,
		     "line 2: expected hex address 0x[0-9a-f]+, got \"main\"", "symbol for address");
	expect_error("# symprof raw stacks v1\n3 0x1\n", SP_E_MALFORMED,
		     "line 2: expected an integer value or '@', got \"0x1\"", "missing @");
	expect_error("# symprof raw stacks v1\n3\n", SP_E_MALFORMED, "line 2: expected \"V1",
		     "nothing after value");
	expect_error("# symprof raw stacks v1\nperiods: cpu/ns 1\n", SP_E_MALFORMED,
		     "line 2: unknown header \"periods\"", "unknown header");
	expect_error("# symprof raw stacks v1\n1 @ 0x1\nsample_type: a/b\n", SP_E_MALFORMED,
		     "line 3: header line", "header after samples");
	expect_error("# symprof raw stacks v1\ndefault_sample_type: cpu\n1 @ 0x1\n",
		     SP_E_MALFORMED, "line 3: default_sample_type \"cpu\" names no sample type",
		     "default type must exist");
	expect_error("# symprof raw stacks v1\naddresses: return\naddresses: exact\n",
		     SP_E_MALFORMED, "line 3: header \"addresses\" given twice", "duplicate header");
	expect_error("# symprof raw stacks v1\naddresses: relative\n", SP_E_MALFORMED,
		     "line 2: expected \"return\" or \"exact\"", "bad addresses mode");
	expect_error("# symprof raw stacks v1\nperiod: cpu/nanoseconds\n", SP_E_MALFORMED,
		     "line 2: expected \"period: TYPE/UNIT N\"", "period without value");
	expect_error("# symprof raw stacks v1\nsample_type: samples\n", SP_E_MALFORMED,
		     "line 2: expected TYPE/UNIT, got \"samples\"", "type without unit");
	expect_error("# symprof raw stacks v1\n1 @ 0x10000000000000000\n", SP_E_MALFORMED,
		     "line 2: hex address \"0x10000000000000000\" does not fit", "address overflow");
	return tap_done();
}
