/* fuzz_pprof_replay.c — runs the fuzz_pprof harness without libFuzzer, as a
 * TAP test: over the malformed corpus, and over every truncation and every
 * single-byte corruption of a profile written by sp_pprof_write.  Each input
 * must end in an error or in a valid profile that can be written again (the
 * harness aborts otherwise; sanitizer builds check memory safety too). */
#include "formats/formats.h"
#include "tests/tap.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	size_t n = 0;
	for (struct dirent *e; d && (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len < 4 || strcmp(e->d_name + len - 3, ".in"))
			continue;
		char *path = sp_xasprintf("%s/%s", dir, e->d_name);
		uint8_t *data;
		size_t dlen;
		sp_error *err = sp_read_file(path, &data, &dlen);
		if (!err) {
			LLVMFuzzerTestOneInput(data, dlen);
			free(data);
			n++;
		}
		sp_error_free(err);
		free(path);
	}
	if (d)
		closedir(d);
	return n;
}

int main(void)
{
	const char *src = getenv("SP_SRCDIR");
	char *dir = sp_xasprintf("%s/tests/malformed/pprof", src ? src : ".");
	size_t n = replay_dir(dir);
	TAP_OK(n > 0, "replayed %zu corpus inputs", n);
	free(dir);

	sp_profile *p = sp_profile_new();
	sp_profile_add_sample_type(p, "samples", "count");
	sp_profile_add_sample_type(p, "space", "bytes");
	sp_mapping m = {.memory_start = 0x1000, .memory_limit = 0x9000,
			.filename = sp_profile_intern(p, "/bin/x"),
			.build_id = sp_profile_intern(p, "abcd"), .has_functions = true};
	sp_profile_add_mapping(p, &m);
	uint64_t f = sp_profile_function_for(p, "f", "_Z1fv", "x.c", 3);
	uint64_t g = sp_profile_function_for(p, "g", "g", "x.c", 9);
	sp_line lines[] = {{f, 4, 2}, {g, 11, 1}};
	sp_location l = {.mapping_id = 1, .address = 0x1234, .lines = lines, .n_lines = 2};
	sp_profile_add_location(p, &l);
	uint64_t locs[] = {1, 1, 1};
	int64_t v[] = {-1, 1000};
	sp_label lab[] = {sp_label_str(p, "k", "v"), sp_label_num(p, "n", 5, "bytes")};
	sp_profile_add_sample(p, v, locs, 3, lab, 2);
	p->time_nanos = 12345;
	sp_profile_add_comment(p, "c");

	sp_sink *s = sp_sink_memory_new();
	sp_error *err = sp_pprof_write(p, false, s);
	size_t len = 0;
	const uint8_t *data = sp_sink_memory_data(s, &len);
	TAP_OK(!err && len > 0, "fixture written (%zu bytes)", len);
	uint8_t *buf = sp_xmalloc(len + 1);
	for (size_t i = 0; i <= len; i++)
		LLVMFuzzerTestOneInput(data, i);
	TAP_OK(1, "every truncation handled");
	for (size_t i = 0; i < len; i++) {
		static const uint8_t flips[] = {0xff, 0x80, 0x01, 0x7f};
		for (size_t k = 0; k < SP_ARRAY_LEN(flips); k++) {
			memcpy(buf, data, len);
			buf[i] ^= flips[k];
			LLVMFuzzerTestOneInput(buf, len);
		}
	}
	TAP_OK(1, "every single-byte corruption handled");
	free(buf);
	sp_error_free(err);
	sp_sink_free(s);
	sp_profile_free(p);
	return tap_done();
}
