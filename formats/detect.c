/* detect.c — format detection (spec/FORMATS.md §1.3 "Decoding"): gunzip
 * when the input starts with the gzip magic, then perf.data (by its
 * magic), then the protobuf reader, then the legacy readers in pprof's
 * order (CPU, heap, Go count, thread, contention) with jemalloc's heap_v2
 * dumps after gperftools' heap profiles, then symprof's raw stacks and
 * folded stacks.  The first
 * reader that says "mine but broken" ends the search with its error; a
 * profile that parses is checked for validity before it is returned.
 *
 * A reader answers "not mine" with an error whose root code is
 * SP_E_UNRECOGNIZED.  When no reader accepts the input, the protobuf
 * reader's positioned complaint is kept as the cause: a damaged pprof
 * file is the likeliest unrecognizable input, and its offset is what the
 * user needs. */
#include "formats/formats.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Decompressed profiles larger than this are refused. */
#define GUNZIP_LIMIT ((size_t)2 << 30)

const char *sp_input_format_name(sp_input_format f)
{
	switch (f) {
	case SP_FMT_PPROF:
		return "pprof";
	case SP_FMT_HEAP:
		return "heap";
	case SP_FMT_CPU:
		return "cpu";
	case SP_FMT_CONTENTION:
		return "contention";
	case SP_FMT_THREAD:
		return "thread";
	case SP_FMT_GOCOUNT:
		return "gocount";
	case SP_FMT_ADDRSTACKS:
		return "raw";
	case SP_FMT_FOLDED:
		return "folded";
	case SP_FMT_JEMALLOC:
		return "jemalloc";
	case SP_FMT_PERF:
		return "perf";
	case SP_FMT_OTLP:
		return "otlp";
	case SP_FMT_UNKNOWN:
		break;
	}
	return "unknown";
}

static const struct {
	sp_input_format fmt;
	sp_reader_fn read;
} readers[] = {
	{SP_FMT_PERF, sp_perf_read}, /* by its magic: never mistaken for protobuf */
	{SP_FMT_PPROF, sp_pprof_read},
	{SP_FMT_OTLP, sp_otlp_read}, /* by structure: its fields are not pprof's */
	{SP_FMT_CPU, sp_cpu_read},
	{SP_FMT_HEAP, sp_heap_read},
	{SP_FMT_JEMALLOC, sp_jemalloc_read},
	{SP_FMT_GOCOUNT, sp_gocount_read},
	{SP_FMT_THREAD, sp_thread_read},
	{SP_FMT_CONTENTION, sp_contention_read},
	{SP_FMT_ADDRSTACKS, sp_addrstacks_read},
	{SP_FMT_FOLDED, sp_folded_read},
};

static bool not_mine(const sp_error *e)
{
	sp_errcode c = sp_error_root_code(e);
	return c == SP_E_UNRECOGNIZED;
}

sp_error *sp_read_profile(const char *name, const uint8_t *data, size_t len, sp_profile **out,
			  sp_input_format *fmt)
{
	*out = NULL;
	if (fmt)
		*fmt = SP_FMT_UNKNOWN;
	name = name ? name : "profile";
	uint8_t *plain = NULL;
	if (sp_is_gzip(data, len)) {
		size_t plen;
		sp_error *e = sp_gunzip(name, data, len, GUNZIP_LIMIT, &plain, &plen);
		if (e)
			return e; /* names the file and the offset already */
		data = plain;
		len = plen;
	}
	if (len == 0) {
		free(plain);
		return sp_error_new(SP_E_UNRECOGNIZED,
				    "%s: unrecognized profile format: the file is empty", name);
	}
	sp_error *err = NULL, *as_pprof = NULL;
	sp_profile *p = NULL;
	size_t i;
	for (i = 0; i < SP_ARRAY_LEN(readers); i++) {
		p = NULL;
		err = readers[i].read(name, data, len, &p);
		if (!err)
			break;
		if (!not_mine(err))
			break;
		if (readers[i].fmt == SP_FMT_PPROF)
			as_pprof = err;
		else
			sp_error_free(err);
		err = NULL;
	}
	free(plain);
	if (err || i < SP_ARRAY_LEN(readers))
		sp_error_free(as_pprof);
	if (err)
		return err;
	if (i == SP_ARRAY_LEN(readers))
		return sp_error_wrap(as_pprof, SP_E_UNRECOGNIZED,
				     "%s: unrecognized profile format (expected pprof protobuf, "
				     "OTLP profiles, perf.data, gperftools heap/CPU/contention/thread text, "
				     "jemalloc heap, Go count profiles, raw stacks or folded "
				     "stacks); read as protobuf",
				     name);
	err = sp_profile_check(p, name);
	if (err) {
		sp_profile_free(p);
		return err;
	}
	if (fmt)
		*fmt = readers[i].fmt;
	*out = p;
	return NULL;
}

/* perf.data is streamed rather than read whole: it can be far larger than
 * the profile it makes, and `perf record -o -` may be piped in.  Returns
 * NULL with *DONE false when PATH is not perf.data (or cannot be opened:
 * sp_read_file says why). */
static sp_error *read_perf_file(const char *path, sp_profile **out, bool *done)
{
	sp_perf_reader *r;
	sp_error *e = sp_perf_open(path, &r);
	*done = e || r;
	if (r)
		e = sp_perf_read_rounds(r, out);
	sp_perf_close(r);
	if (!e && *done && (e = sp_profile_check(*out, path))) {
		sp_profile_free(*out);
		*out = NULL;
	}
	return e;
}

/* Heap profiles and raw stacks, the text formats whose files grow with
 * the samples, are read a piece at a time rather than whole.  Their first
 * bytes decide, and are the ones detection would have gone by: no reader
 * tried before theirs takes an input that begins so (the protobuf reader
 * stops at byte 2 of "heap profile:" and at byte 0 of "#", the CPU
 * reader's header words are not zero), and theirs says mine or broken.
 * Regular files only (the others are read whole, as before).  Returns
 * NULL with *DONE false when PATH is not such a file. */
static sp_error *read_text_file(const char *path, sp_profile **out, bool *done,
				sp_input_format *fmt, const sp_read_options *ro)
{
	static const char heap_magic[] = "heap profile:", raw_magic[] = "# symprof raw stacks v";
	*done = false;
	if (!strcmp(path, "-"))
		return NULL;
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct stat st;
	char head[32];
	size_t n = 0;
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode))
		n = fread(head, 1, sizeof(head), f);
	bool heap = n >= sizeof(heap_magic) - 1 && !memcmp(head, heap_magic, sizeof(heap_magic) - 1);
	bool raw = n >= sizeof(raw_magic) - 1 && !memcmp(head, raw_magic, sizeof(raw_magic) - 1);
	sp_error *e = NULL;
	if ((heap || raw) && fseek(f, 0, SEEK_SET) == 0) {
		*done = true;
		e = heap ? sp_heap_read_file_with(path, f, ro, out) : sp_addrstacks_read_file(path, f, out);
		if (!e && (e = sp_profile_check(*out, path))) {
			sp_profile_free(*out);
			*out = NULL;
		}
		if (!e && fmt)
			*fmt = heap ? SP_FMT_HEAP : SP_FMT_ADDRSTACKS;
	}
	fclose(f);
	return e;
}

sp_error *sp_read_profile_file(const char *path, sp_profile **out, sp_input_format *fmt)
{
	return sp_read_profile_file_with(path, out, fmt, NULL);
}

sp_error *sp_read_profile_file_with(const char *path, sp_profile **out, sp_input_format *fmt,
				    const sp_read_options *ro)
{
	uint8_t *data;
	size_t len;
	*out = NULL;
	if (fmt)
		*fmt = SP_FMT_UNKNOWN;
	bool perf;
	sp_error *e = read_perf_file(path, out, &perf);
	if (perf) {
		if (!e && fmt)
			*fmt = SP_FMT_PERF;
		return e;
	}
	bool text;
	e = read_text_file(path, out, &text, fmt, ro);
	if (text)
		return e;
	e = sp_read_file(path, &data, &len);
	if (e)
		return e;
	e = sp_read_profile(strcmp(path, "-") ? path : SP_STDIN_NAME, data, len, out, fmt);
	free(data);
	return e;
}
