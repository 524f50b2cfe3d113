/* test_folded_read.c — folded stacks as input (spec/FORMATS.md §4.1):
 * root-first frames, summing, annotations, spaces in names, and the lines
 * that are errors. */
#include "tests/helpers/reader_util.h"

#include <stdlib.h>
#include <string.h>

static void expect_stacks(const char *text, const char *want, const char *what)
{
	sp_profile_free(reader_expect_ok(sp_folded_read, "f.folded", text, want, what));
}

static void expect_error(const char *text, sp_errcode code, const char *needle, const char *what)
{
	reader_expect_error(sp_folded_read, "f.folded", text, code, needle, what);
}

int main(void)
{
	expect_stacks("main;parse;read_line 12\n"
		      "main;run;work 30\n"
		      "main;parse;read_line 8\n",
		      "20 @ read_line parse main\n30 @ work run main\n",
		      "leaf first, identical stacks summed");
	expect_stacks("main;run;do_work_[k] 3\nmain;run;do_work 4\nmain;x_[j];y_[i];z_[w] 1\n",
		      "7 @ do_work run main\n1 @ z y x main\n", "annotations stripped");
	expect_stacks("  main;operator new(unsigned long)\t 5 \r\n\n",
		      "5 @ operator new(unsigned long) main\n", "spaces in frames, CRLF, blank lines");
	expect_stacks("single 0\n", "0 @ single\n", "zero count and one frame");

	static const char two[] = "a;b 1\nc;b 2\n";
	sp_profile *p = NULL;
	sp_error *e = sp_folded_read("f.folded", (const uint8_t *)two, strlen(two), &p);
	if (p) {
		TAP_EQ_U64(p->n_functions, 3, "functions de-duplicated by name");
		TAP_EQ_U64(p->n_locations, 3, "one location per function");
		const sp_location *l = &p->locations[0];
		TAP_OK(l->address == 0 && l->mapping_id == 0 && l->n_lines == 1,
		       "location: no address, no mapping, one line");
		char *t = types_string(p);
		TAP_EQ_STR(t, "samples/count", "sample type");
		free(t);
	} else {
		TAP_OK(0, "two-line profile parses");
	}
	sp_error_free(e);
	sp_profile_free(p);

	expect_error("a;b 1\na;c 2.5\n", SP_E_MALFORMED, "line 2: count \"2.5\" is not an integer",
		     "decimal count");
	expect_error("a;b 1 2\n", SP_E_MALFORMED, "line 1: differential folded input not supported",
		     "two counts");
	expect_error("a;b 1\n\na;b\n", SP_E_MALFORMED, "line 3: expected", "missing count");
	expect_error("a;b 99999999999999999999\n", SP_E_MALFORMED, "line 1: count", "huge count");
	expect_error("hello world\n", SP_E_UNRECOGNIZED, "not a folded stack", "prose is not mine");
	expect_error("\n\n", SP_E_UNRECOGNIZED, "no folded stacks", "empty input is not mine");
	const uint8_t bin[] = {'a', ' ', '1', '\n', 0, 1};
	e = sp_folded_read("f", bin, sizeof(bin), &p);
	TAP_OK(e && sp_error_root_code(e) == SP_E_UNRECOGNIZED, "binary data is not mine");
	sp_error_free(e);
	return tap_done();
}
