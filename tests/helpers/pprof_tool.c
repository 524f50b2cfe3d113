/* pprof_tool.c — a test helper for tests/unit/formats/test_pprof_go.sh.
 *
 *   pprof_tool write OUT   writes a fixed, symbolized CPU-like profile as
 *                          gzipped pprof (the values and names the shell
 *                          test expects are the ones written here)
 *   pprof_tool dump IN     reads a pprof file (gzipped or not) and prints
 *                          the canonical dump
 *   pprof_tool merge OUT IN...  merges pprof files into OUT (gzipped)
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
	int64_t v1[] = {3, 30000000}, v2[] = {1, 10000000}, v3[] = {-2, -20000000};
	sp_label th = sp_label_str(p, "thread", "worker");
	sp_label sz = sp_label_num(p, "request", 4096, "bytes");
	sp_profile_add_sample(p, v1, s1, 2, &th, 1);
	sp_profile_add_sample(p, v2, s2, 1, NULL, 0);
	sp_profile_add_sample(p, v3, s2, 1, &sz, 1);
	return p;
}

static sp_error *read_pprof(const char *path, sp_profile **p)
{
	uint8_t *data;
	size_t len;
	sp_error *err = sp_read_file(path, &data, &len);
	if (err)
		return err;
	err = sp_pprof_read(path, data, len, p);
	free(data);
	return err;
}

static sp_error *write_pprof(const sp_profile *p, const char *path)
{
	sp_sink *s = NULL;
	sp_error *err = sp_sink_file_new(path, &s);
	if (!err)
		err = sp_pprof_write(p, true, s);
	if (!err)
		err = sp_sink_finish(s);
	sp_sink_free(s);
	return err;
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
	if (argc < 3 || (strcmp(argv[1], "merge") && argc != 3)) {
		fprintf(stderr, "usage: pprof_tool write OUT | dump IN | merge OUT IN...\n");
		return 2;
	}
	if (!strcmp(argv[1], "write")) {
		sp_profile *p = fixture();
		sp_error *err = write_pprof(p, argv[2]);
		sp_profile_free(p);
		return err ? fail(err) : 0;
	}
	if (!strcmp(argv[1], "merge")) {
		size_t n = (size_t)argc - 3;
		sp_profile **in = sp_xcalloc(n + 1, sizeof(*in)), *m = NULL;
		sp_error *err = NULL;
		for (size_t i = 0; i < n && !err; i++)
			err = read_pprof(argv[3 + i], &in[i]);
		if (!err)
			err = sp_profile_merge(in, n, &m);
		if (!err)
			err = write_pprof(m, argv[2]);
		for (size_t i = 0; i < n; i++)
			sp_profile_free(in[i]);
		free(in);
		sp_profile_free(m);
		return err ? fail(err) : 0;
	}
	if (!strcmp(argv[1], "dump")) {
		sp_profile *p = NULL;
		sp_error *err = read_pprof(argv[2], &p);
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
