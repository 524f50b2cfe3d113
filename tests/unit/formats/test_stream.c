/* test_stream.c — the heap and raw readers reading a file a piece at a
 * time (sp_heap_read_file, sp_addrstacks_read_file, and sp_read_profile_file,
 * which picks them) must make the profile they make of the same bytes in
 * memory: lines across the 1 MiB pieces, a line longer than a piece, CR LF
 * endings, no final newline, the memory map after the samples; identical
 * raw stacks summed as they are read, with the same errors; a read error
 * is an error, never a shorter profile.  A heap profile read on two or
 * four threads (sp_read_options.jobs: its lines scanned a chunk at a time
 * on every thread) makes the same profile and errors. */
#include "formats/legacy.h"
#include "tests/helpers/reader_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* TEXT written to a new temporary file, rewound (caller closes). */
static FILE *file_of(const char *text, size_t len)
{
	FILE *f = tmpfile();
	if (!f || fwrite(text, 1, len, f) != len || fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "cannot write a temporary file\n");
		exit(99);
	}
	return f;
}

/* What two reads made, and their text. */
static void free_results(char *sa, char *sb, sp_error *ea, sp_error *eb, sp_profile *a,
			 sp_profile *b)
{
	free(sa);
	free(sb);
	sp_error_free(ea);
	sp_error_free(eb);
	sp_profile_free(a);
	sp_profile_free(b);
}

typedef sp_error *(*file_reader)(const char *name, FILE *f, sp_profile **out);

/* TEXT read whole by FN and from a file by FF: same dump, or same error. */
static void same_both_ways(sp_reader_fn fn, file_reader ff, const char *text, size_t len,
			   const char *what)
{
	sp_profile *a = NULL, *b = NULL;
	sp_error *ea = fn("t", (const uint8_t *)text, len, &a);
	FILE *f = file_of(text, len);
	sp_error *eb = ff("t", f, &b);
	fclose(f);
	char *sa = ea ? sp_error_string(ea) : reader_dump_string(a);
	char *sb = eb ? sp_error_string(eb) : reader_dump_string(b);
	TAP_OK(!ea == !eb && !strcmp(sa, sb), "%s: the file gives what the buffer gives (%.60s)",
	       what, sb);
	free_results(sa, sb, ea, eb, a, b);
}

/* A heap profile of N sample lines with stacks of 1..40 frames, LONG
 * frames on line LONG_AT, CR LF line ends when CRLF, the map after.  The
 * stack of line i is that of line i % PERIOD (0: none repeats). */
static char *heap_text(size_t n, size_t long_at, size_t lng, bool crlf, size_t period,
		       size_t *len)
{
	sp_buf b = {0};
	const char *nl = crlf ? "\r\n" : "\n";
	sp_buf_printf(&b, "heap profile: %zu: %zu [%zu: %zu] @ heap_v2/524288%s", n, n * 64, n,
		      n * 64, nl);
	for (size_t i = 0; i < n; i++) {
		size_t st = period ? i % period : i;
		size_t k = i == long_at ? lng : 1 + st % 40;
		sp_buf_printf(&b, "%6zu: %8zu [%6zu: %8zu] @", 1 + i % 3, (1 + i % 3) * 64,
			      1 + i % 3, (1 + i % 3) * 64);
		for (size_t j = 0; j < k; j++)
			sp_buf_printf(&b, " 0x%zx", 0x401000 + (st * 7 + j * 13) % 997);
		sp_buf_puts(&b, nl);
	}
	sp_buf_printf(&b, "%sMAPPED_LIBRARIES:%s00400000-00500000 r-xp 00000000 08:02 1 /bin/p",
		      nl, nl);
	*len = b.len;
	return sp_buf_take(&b);
}

/* The heap reader with two threads (sp_read_options.jobs = 2). */
static sp_error *heap_two_threads(const char *name, FILE *f, sp_profile **out)
{
	sp_read_options ro = {.jobs = 2};
	return sp_heap_read_file_with(name, f, &ro, out);
}

/* The heap reader with four threads, three of them scanning. */
static sp_error *heap_four_threads(const char *name, FILE *f, sp_profile **out)
{
	sp_read_options ro = {.jobs = 4};
	return sp_heap_read_file_with(name, f, &ro, out);
}

/* TEXT read whole, from a file on one thread, on two and on four: the same. */
static void heap_same(const char *text, size_t len, const char *what)
{
	char *w = sp_xasprintf("%s, 1 thread", what);
	same_both_ways(sp_heap_read, sp_heap_read_file, text, len, w);
	free(w);
	w = sp_xasprintf("%s, 2 threads", what);
	same_both_ways(sp_heap_read, heap_two_threads, text, len, w);
	free(w);
	w = sp_xasprintf("%s, 4 threads", what);
	same_both_ways(sp_heap_read, heap_four_threads, text, len, w);
	free(w);
}

static void heap_cases(void)
{
	size_t len;
	char *t = heap_text(20000, 7000, 120000, false, 0, &len);
	TAP_OK(len > (size_t)3 << 20, "heap text spans several pieces (%zu bytes)", len);
	heap_same(t, len, "heap, one line > 1 MiB");
	free(t);
	t = heap_text(9000, SIZE_MAX, 0, true, 0, &len);
	heap_same(t, len, "heap, CR LF");
	free(t);
	/* stacks that repeat (the later lines are found among those scanned,
	 * over many batches of records), then with a line in the middle broken */
	t = heap_text(30011, SIZE_MAX, 0, false, 700, &len);
	heap_same(t, len, "heap, repeated stacks");
	char *bad_at = strstr(t + len / 2, "\n") + 1; /* a line in the middle */
	memcpy(strstr(bad_at, "0x"), "0y", 2);
	heap_same(t, len, "heap, a bad address after repeated stacks");
	free(t);
	static const char bad[] = "heap profile: 1: 2 [1: 2] @ heapprofile\n"
				  "1: 2 [1: 2] @ 0x10\n"
				  "1: 2 [1: 2] @ 0x1g\n";
	heap_same(bad, strlen(bad), "heap, bad address");
	static const char bad_counts[] = "heap profile: 1: 2 [1: 2] @ heapprofile\n"
					 "1: 2 [1: 2] @ 0x10\n"
					 "1: 2 [1 2] @ 0x10\n";
	heap_same(bad_counts, strlen(bad_counts), "heap, bad counts");
	static const char no_samples[] = "heap profile: 0: 0 [0: 0] @ heapprofile\n"
					 "MAPPED_LIBRARIES:\n"
					 "00400000-00500000 r-xp 00000000 08:02 1 /bin/p\n";
	heap_same(no_samples, strlen(no_samples), "heap, no samples");
	static const char last_cut[] = "heap profile: 1: 2 [1: 2] @ heapprofile\n"
				       "1: 2 [1: 2] @ 0x10\n"
				       "1: 2 [1:";
	heap_same(last_cut, strlen(last_cut), "heap, a last sample line cut short, no newline");
	static const char last_nonl[] = "heap profile: 1: 2 [1: 2] @ heapprofile\n"
					"1: 2 [1: 2] @ 0x10\n"
					"3: 6 [3: 6] @ 0x20 0x30";
	heap_same(last_nonl, strlen(last_nonl), "heap, a last sample line without newline");
	heap_same("", 0, "heap, empty");
}

/* Raw stacks: N lines over 50 stacks, so each repeats; no final newline. */
static char *raw_text(size_t n, size_t *len)
{
	sp_buf b = {0};
	sp_buf_puts(&b, "# symprof raw stacks v1\nsample_type: samples/count cpu/nanoseconds\n");
	for (size_t i = 0; i < n; i++) {
		sp_buf_printf(&b, "%zu %zu @", 1 + i % 5, (1 + i % 5) * 1000);
		for (size_t j = 0; j < 1 + (i % 50) % 30; j++)
			sp_buf_printf(&b, " 0x%zx", 0x401000 + (i % 50) * 64 + j);
		sp_buf_puts(&b, "\n");
	}
	sp_buf_puts(&b, "--- Memory map: ---\n00400000-00500000 r-xp 00000000 08:02 1 /bin/p");
	*len = b.len;
	return sp_buf_take(&b);
}

static void raw_cases(void)
{
	size_t len;
	char *t = raw_text(60000, &len);
	TAP_OK(len > (size_t)2 << 20, "raw text spans several pieces (%zu bytes)", len);
	same_both_ways(sp_addrstacks_read, sp_addrstacks_read_file, t, len, "raw, repeated stacks");
	FILE *f = file_of(t, len);
	sp_profile *p = NULL;
	sp_error *e = sp_addrstacks_read_file("t", f, &p);
	fclose(f);
	TAP_OK(!e && p && p->n_samples == 50, "60000 records of 50 stacks are 50 samples (%zu)",
	       p ? p->n_samples : 0);
	/* line i holds stack i % 50 with values 1 + i % 5: stack 0 is on
	 * lines i = 0, 50, 100, ... whose i % 5 is 0, so 1200 records of 1 */
	TAP_OK(p && p->samples[0].values[0] == 1200 && p->samples[0].values[1] == 1200000,
	       "stack 0 sums its 1200 records");
	sp_profile_free(p);
	sp_error_free(e);
	free(t);

	/* a sum that overflows on line 4, a broken line 6: the broken line is
	 * reported, as it was when sums were made after reading */
	static const char both[] = "# symprof raw stacks v1\n"
				   "9223372036854775807 @ 0x10\n"
				   "1 @ 0x20\n"
				   "1 @ 0x10\n"
				   "1 @ 0x20\n"
				   "1 @ zz\n";
	same_both_ways(sp_addrstacks_read, sp_addrstacks_read_file, both, strlen(both), "raw, overflow then bad");
	reader_expect_error(sp_addrstacks_read, "t", both, SP_E_MALFORMED, "line 6", "raw, bad line wins");
	static const char over[] = "# symprof raw stacks v1\n"
				   "9223372036854775807 @ 0x10\n"
				   "1 @ 0x20\n"
				   "1 @ 0x10\n"
				   "--- Memory map: ---\n"
				   "00400000-00500000 r-xp 00000000 08:02 1 /bin/p\n";
	same_both_ways(sp_addrstacks_read, sp_addrstacks_read_file, over, strlen(over), "raw, overflow");
	reader_expect_error(sp_addrstacks_read, "t", over, SP_E_MALFORMED,
			    "t: line 4: samples values of this stack add up to more than an int64",
			    "raw, the overflow names its line");
}

static void read_error(void)
{
	for (int jobs = 1; jobs <= 2; jobs++) {
		FILE *f = fopen(".", "rb"); /* opens; reading a directory fails (EISDIR) */
		if (!f) {
			TAP_OK(1, "# SKIP cannot open a directory as a file");
			return;
		}
		sp_profile *p = NULL;
		sp_read_options ro = {.jobs = jobs};
		sp_error *e = sp_heap_read_file_with("dir", f, &ro, &p);
		fclose(f);
		char *msg = e ? sp_error_string(e) : sp_xstrdup("(no error)");
		TAP_OK(e && sp_error_root_code(e) == SP_E_IO && strstr(msg, "dir: read error") && !p,
		       "a read error is an I/O error naming the input (%d thread%s): %s", jobs,
		       jobs > 1 ? "s" : "", msg);
		free(msg);
		sp_error_free(e);
		sp_profile_free(p);
	}
}

/* A stream of TEXT whose reading fails after its first FAIL_AT bytes. */
typedef struct {
	const char *text;
	size_t len, pos, fail_at;
} failing;

static ssize_t failing_read(void *cookie, char *buf, size_t n)
{
	failing *fl = cookie;
	if (fl->pos >= fl->fail_at) {
		errno = EIO;
		return -1;
	}
	size_t k = fl->fail_at - fl->pos < n ? fl->fail_at - fl->pos : n;
	memcpy(buf, fl->text + fl->pos, k);
	fl->pos += k;
	return (ssize_t)k;
}

/* A heap profile whose reading fails in the middle of its samples: the
 * same I/O error, naming the byte, on one thread and on several (the
 * chunks read before it are no profile). */
static void read_error_mid(void)
{
	size_t len;
	char *t = heap_text(40000, SIZE_MAX, 0, false, 300, &len);
	char *first = NULL;
	for (int jobs = 1; jobs <= 4; jobs *= 2) {
		failing fl = {t, len, 0, (size_t)3 << 20};
		FILE *f = fopencookie(&fl, "rb", (cookie_io_functions_t){.read = failing_read});
		if (!f) {
			fprintf(stderr, "fopencookie failed\n");
			exit(99);
		}
		sp_profile *p = NULL;
		sp_read_options ro = {.jobs = jobs};
		sp_error *e = sp_heap_read_file_with("cut", f, &ro, &p);
		fclose(f);
		char *msg = e ? sp_error_string(e) : sp_xstrdup("(no error)");
		TAP_OK(len > fl.fail_at && e && sp_error_root_code(e) == SP_E_IO &&
			       strstr(msg, "cut: read error after byte 3145728") && !p &&
			       (!first || !strcmp(first, msg)),
		       "a read error amid the samples is the same I/O error (%d thread%s): %s", jobs,
		       jobs > 1 ? "s" : "", msg);
		if (!first)
			first = msg;
		else
			free(msg);
		sp_error_free(e);
		sp_profile_free(p);
	}
	free(first);
	free(t);
}

/* sp_read_profile_file takes the file path and says which reader read it. */
static void by_path(void)
{
	size_t len;
	char *t = heap_text(3000, SIZE_MAX, 0, false, 0, &len);
	char path[] = "/tmp/test_stream.XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (!f || fwrite(t, 1, len, f) != len || fclose(f) != 0) {
		fprintf(stderr, "cannot write %s\n", path);
		exit(99);
	}
	sp_profile *a = NULL, *b = NULL;
	sp_input_format fmt = SP_FMT_UNKNOWN;
	sp_error *ea = sp_read_profile_file(path, &a, &fmt);
	sp_error *eb = sp_read_profile(path, (const uint8_t *)t, len, &b, NULL);
	char *sa = a ? reader_dump_string(a) : NULL, *sb = b ? reader_dump_string(b) : NULL;
	TAP_OK(!ea && !eb && fmt == SP_FMT_HEAP && sa && sb && !strcmp(sa, sb),
	       "a heap profile file is read as heap, as its bytes are");
	free_results(sa, sb, ea, eb, a, b);
	unlink(path);
	free(t);
}

int main(void)
{
	heap_cases();
	raw_cases();
	read_error();
	read_error_mid();
	by_path();
	return tap_done();
}
