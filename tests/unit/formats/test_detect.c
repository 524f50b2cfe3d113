/* test_detect.c — format detection: heap text plain and gzip-compressed,
 * the "unrecognized" message, a reader's own error passed through, broken
 * gzip, reading from a file, and format names. */
#include "formats/formats.h"
#include "tests/helpers/tap.h"

#include <stdlib.h>
#include <unistd.h>

static const char heap[] = "heap profile: 1: 9216 [1: 9216] @ heap_v2/524288\n"
			   "1: 9216 [1: 9216] @ 0x4005d4 0x400612\n"
			   "MAPPED_LIBRARIES:\n"
			   "00400000-00401000 r-xp 00000000 08:02 17 /usr/bin/prog\n";

static char *err_str(sp_error *e)
{
	return e ? sp_error_string(e) : sp_xstrdup("(no error)");
}

int main(void)
{
	sp_profile *p = NULL;
	sp_input_format f = SP_FMT_PPROF;
	sp_error *e = sp_read_profile("h", (const uint8_t *)heap, strlen(heap), &p, &f);
	TAP_OK(!e && p && f == SP_FMT_HEAP, "heap text detected");
	TAP_OK(p && p->n_samples == 1 && p->samples[0].values[0] == 57, "and parsed");
	sp_error_free(e);
	sp_profile_free(p);

	sp_sink *mem = sp_sink_memory_new();
	sp_sink *gz = sp_sink_gzip_new(mem);
	sp_sink_write(gz, heap, strlen(heap));
	e = sp_sink_finish(gz);
	sp_sink_free(gz);
	size_t zl;
	const uint8_t *z = sp_sink_memory_data(mem, &zl);
	TAP_OK(!e && sp_is_gzip(z, zl), "gzip fixture made");
	sp_error_free(e);
	p = NULL;
	e = sp_read_profile("h.gz", z, zl, &p, &f);
	TAP_OK(!e && p && f == SP_FMT_HEAP && p->n_samples == 1, "gzip-compressed heap detected");
	sp_error_free(e);
	sp_profile_free(p);
	sp_sink_free(mem);

	const char junk[] = "\x01\x02 this is not a profile\n";
	e = sp_read_profile("junk.bin", (const uint8_t *)junk, sizeof(junk) - 1, &p, &f);
	char *m = err_str(e);
	TAP_EQ_STR(m, "junk.bin: unrecognized profile format (expected pprof protobuf, OTLP profiles, "
		      "perf.data, gperftools heap/CPU/contention/thread text, jemalloc heap, Go "
		      "count profiles, raw stacks or folded stacks); read as protobuf: junk.bin: "
		      "offset 0: invalid field number 0",
		   "unrecognized message keeps the protobuf reader's position");
	TAP_OK(e && sp_error_root_code(e) == SP_E_UNRECOGNIZED && !p && f == SP_FMT_UNKNOWN,
	       "unrecognized code, no profile");
	free(m);
	sp_error_free(e);

	const char broken[] = "heap profile: 1: 2 [1: 2] @ heapprofile\n1: 2 [1: 2] @ 0xZZ\n";
	e = sp_read_profile("b.heap", (const uint8_t *)broken, sizeof(broken) - 1, &p, NULL);
	m = err_str(e);
	TAP_OK(e && sp_error_root_code(e) == SP_E_MALFORMED && strstr(m, "b.heap: line 2:"),
	       "a reader's own error is returned as is");
	free(m);
	sp_error_free(e);

	const uint8_t badgz[] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 'x', 'y', 'z'};
	e = sp_read_profile("bad.gz", badgz, sizeof(badgz), &p, NULL);
	m = err_str(e);
	TAP_OK(e && !p && strstr(m, "bad.gz") && strstr(m, "gzip"), "broken gzip names the file");
	free(m);
	sp_error_free(e);

	char tmpl[] = "/tmp/symprof-detect-XXXXXX";
	int fd = mkstemp(tmpl);
	TAP_OK(fd >= 0 && write(fd, heap, strlen(heap)) == (ssize_t)strlen(heap), "temp file");
	if (fd >= 0)
		close(fd);
	e = sp_read_profile_file(tmpl, &p, &f);
	TAP_OK(!e && p && f == SP_FMT_HEAP, "read from a file");
	sp_error_free(e);
	sp_profile_free(p);
	unlink(tmpl);
	e = sp_read_profile_file("/nonexistent/x.heap", &p, &f);
	TAP_OK(e && e->code == SP_E_IO && !p, "missing file is an I/O error");
	sp_error_free(e);

	static const struct {
		sp_input_format f;
		const char *name;
	} names[] = {{SP_FMT_UNKNOWN, "unknown"}, {SP_FMT_PPROF, "pprof"},
		     {SP_FMT_HEAP, "heap"},       {SP_FMT_CPU, "cpu"},
		     {SP_FMT_CONTENTION, "contention"}, {SP_FMT_THREAD, "thread"},
		     {SP_FMT_GOCOUNT, "gocount"}, {SP_FMT_ADDRSTACKS, "raw"},
		     {SP_FMT_FOLDED, "folded"}, {SP_FMT_PERF, "perf"}};
	for (size_t i = 0; i < SP_ARRAY_LEN(names); i++)
		TAP_EQ_STR(sp_input_format_name(names[i].f), names[i].name, "format name %zu", i);
	return tap_done();
}
