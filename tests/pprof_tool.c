/* pprof_tool.c — a test helper for tests/test_pprof_go.sh.
 *
 *   pprof_tool write OUT   writes a fixed, symbolized CPU-like profile as
 *                          gzipped pprof (the values and names the shell
 *                          test expects are the ones written here)
 *   pprof_tool dump IN     reads a pprof file (gzipped or not) and prints
 *                          the canonical dump
 */
#include "formats/formats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sp_profile *fixture(void)
{
	sp_profile *p = sp_profile_new();
	sp_profile_add_sample_type(p, "samples", "count");
	sp_profile_add_sample_type(p, "cpu", "nanoseconds");
	p->period_type.type = sp_profile_intern(p, "cpu");
	p->period_type.unit = sp_profile_intern(p, "nanoseconds");
	p->period = 10000000;
	p->default_sample_type = sp_profile_intern(p, "cpu");
	sp_profile_add_comment(p, "written by pprof_tool");
	sp_mapping m = {
		.memory_start = 0x400000, .memory_limit = 0x401000,
		.filename = sp_profile_intern(p, "/opt/fixture/app"),
		.build_id = sp_profile_intern(p, "0123456789abcdef"),
		.has_functions = true, .has_filenames = true, .has_line_numbers = true,
		.has_inline_frames = true,
	};
	sp_profile_add_mapping(p, &m);
	uint64_t f_main = sp_profile_function_for(p, "main", "main", "app.c", 30);
	uint64_t f_comp = sp_profile_function_for(p, "compute", "compute", "app.c", 10);
	uint64_t f_inl = sp_profile_function_for(p, "inlined_helper", "_Z14inlined_helperv",
						 "app.h", 2);
	sp_line l1[] = {{f_inl, 4, 0}, {f_comp, 12, 0}};
	sp_line l2[] = {{f_main, 33, 0}};
	sp_location a = {.mapping_id = 1, .address = 0x400100, .lines = l1, .n_lines = 2};
	sp_location b = {.mapping_id = 1, .address = 0x400200, .lines = l2, .n_lines = 1};
	sp_profile_add_location(p, &a);
	sp_profile_add_location(p, &b);
	uint64_t s1[] = {1, 2}, s2[] = {2};
	int64_t v1[] = {3, 30000000}, v2[] = {1, 10000000};
	sp_label th = sp_label_str(p, "thread", "worker");
	sp_profile_add_sample(p, v1, s1, 2, &th, 1);
	sp_profile_add_sample(p, v2, s2, 1, NULL, 0);
	return p;
}

static int fail(sp_error *err)
{
	char *s = sp_error_string(err);
	fprintf(stderr, "pprof_tool: %s\n", s);
	free(s);
	sp_error_free(err);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: pprof_tool write OUT | dump IN\n");
		return 2;
	}
	if (!strcmp(argv[1], "write")) {
		sp_profile *p = fixture();
		sp_sink *s = NULL;
		sp_error *err = sp_sink_file_new(argv[2], &s);
		if (!err)
			err = sp_pprof_write(p, true, s);
		if (!err)
			err = sp_sink_finish(s);
		sp_sink_free(s);
		sp_profile_free(p);
		return err ? fail(err) : 0;
	}
	if (!strcmp(argv[1], "dump")) {
		uint8_t *data;
		size_t len;
		sp_profile *p = NULL;
		sp_error *err = sp_read_file(argv[2], &data, &len);
		if (err)
			return fail(err);
		err = sp_pprof_read(argv[2], data, len, &p);
		free(data);
		if (err)
			return fail(err);
		sp_sink *out = sp_sink_fd_new(1, "stdout");
		sp_profile_dump(p, out);
		err = sp_sink_finish(out);
		sp_sink_free(out);
		sp_profile_free(p);
		return err ? fail(err) : 0;
	}
	fprintf(stderr, "pprof_tool: unknown command %s\n", argv[1]);
	return 2;
}
