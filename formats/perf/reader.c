/* reader.c — perf.data pulled a round at a time (formats.h's sp_perf_*).
 *
 * A round is what perf wrote between two FINISHED_ROUND records: the
 * samples of one flush of its ring buffers, and the maps and threads they
 * need, which came before them.  sp_perf_next_round reads the records up
 * to the end of the next round that has samples and hands the capture
 * over; the caller may unwind those samples (replacing their callchains)
 * before sp_perf_round_to_profile turns them into the profile's.  So a
 * long recording costs memory for its distinct stacks and one round, not
 * for every sample, and the reader never calls back into its caller.
 *
 * A regular file is mapped rather than read: reading copies every byte, and
 * most of a --call-graph dwarf file is stack copies an unwind reads a few
 * words of.  A sample's stack copy is left in the mapping (the capture
 * borrows it) until its round is done; then the pages before the round
 * leave memory (drop_read).  The stream remains for pipes, and where
 * mapping fails.
 */
#include "formats/perf/perfp.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* a mapped file's pages are dropped this many bytes at a time at least (a
 * round of perf's is often a few hundred KiB; each drop is a system call
 * and a TLB flush) */
#define DROP_MIN (4u << 20)
/* a record is a few bytes to a few KiB: a stream is read a MiB at a time,
 * not in a system call or two each */
#define STDIO_BUF (1 << 20)

/* The mapped file's pages before the record being read hold nothing the
 * samples read so far still need once a round is done, so they leave
 * memory: peak RSS follows a round, not the file.  (MADV_DONTNEED on a
 * private mapping that was never written only drops page-table entries:
 * the bytes stay readable, from the page cache.) */
static void drop_read(sp_perf_reader *d)
{
	if (!d->map)
		return;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t to = d->at / page * page;
	/* not the stack copies of samples the caller still holds (it may
	 * gather several rounds before unwinding them): once dropped, the
	 * pages they fault in again would stay */
	const sp_capture *c = d->c;
	for (size_t i = 0; i < c->n_samples; i++)
		if (c->samples[i].stack_ref) {
			uint64_t held = (uint64_t)(c->samples[i].stack_ref - d->map) / page * page;
			to = held < to ? held : to;
			break;
		}
	if (to >= d->dropped + DROP_MIN &&
	    madvise(d->map + d->dropped, (size_t)(to - d->dropped), MADV_DONTNEED) == 0)
		d->dropped = to;
}

void sp_perf_close(sp_perf_reader *d)
{
	if (!d)
		return;
	sp_capture_profiler_free(d->prof);
	sp_capture_free(d->c);
	free(d->buf);
	free(d->ev);
	free(d->chain);
	sp_u64map_free(&d->id_event);
	sp_perf_z_free(d);
	if (d->map)
		munmap(d->map, (size_t)d->len);
	if (d->own_f)
		fclose(d->own_f);
	free(d->stdio_buf);
	free(d);
}

/* D, its input set, with its header read: *OUT, or the error (D closed). */
static sp_error *start(sp_perf_reader *d, sp_perf_reader **out)
{
	d->c = sp_capture_new();
	sp_error *e = sp_perf_read_header(d);
	if (e) {
		sp_perf_close(d);
		return e;
	}
	*out = d;
	return NULL;
}

sp_error *sp_perf_open_memory(const char *name, const uint8_t *data, size_t len,
			      sp_perf_reader **out)
{
	*out = NULL;
	if (!sp_perf_magic_order(data, len))
		return sp_error_new(SP_E_UNRECOGNIZED, "%s: not perf.data", name);
	sp_perf_reader *d = sp_xcalloc(1, sizeof(*d));
	d->name = name;
	d->mem = data;
	d->len = len;
	return start(d, out);
}

/* A reader of F (PATH) with the N_HEAD bytes at HEAD already read, not yet
 * started. */
static sp_perf_reader *stream_reader(const char *path, FILE *f, const uint8_t *head, size_t n_head)
{
	sp_perf_reader *d = sp_xcalloc(1, sizeof(*d));
	d->name = path;
	d->f = f;
	d->head = head;
	d->n_head = head ? n_head : 0;
	d->pos = d->n_head;
	d->len = UINT64_MAX;
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode))
		d->len = (uint64_t)st.st_size;
	return d;
}

/* Maps D's file when it is a regular one (see the top of this file). */
static void map_file(sp_perf_reader *d)
{
	if (d->len == UINT64_MAX || d->len > SIZE_MAX)
		return;
	void *m = mmap(NULL, (size_t)d->len, PROT_READ, MAP_PRIVATE, fileno(d->f), 0);
	if (m != MAP_FAILED) {
		d->map = m;
		d->mem = m;
	}
}

sp_error *sp_perf_open_stream(const char *path, FILE *f, const uint8_t *head, size_t n_head,
			      sp_perf_reader **out)
{
	*out = NULL;
	sp_perf_reader *d = stream_reader(path, f, head, n_head);
	if (d->len != UINT64_MAX && d->len < 8) {
		free(d);
		return sp_error_new(SP_E_UNRECOGNIZED, "%s: not perf.data", path);
	}
	map_file(d);
	return start(d, out);
}

sp_error *sp_perf_open(const char *path, sp_perf_reader **out)
{
	*out = NULL;
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = sp_xmalloc(STDIO_BUF);
	setvbuf(f, buf, _IOFBF, STDIO_BUF);
	uint8_t magic[8];
	size_t n = fread(magic, 1, sizeof(magic), f);
	if (!sp_perf_magic_order(magic, n)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	sp_perf_reader *d = stream_reader(path, f, NULL, 0);
	memcpy(d->head_copy, magic, n);
	d->head = d->head_copy;
	d->n_head = d->pos = n;
	d->own_f = f;
	d->stdio_buf = buf;
	map_file(d);
	return start(d, out);
}

sp_error *sp_perf_next_round(sp_perf_reader *d, sp_capture **round)
{
	*round = NULL;
	if (d->handed) { /* the caller is done with the last one */
		d->handed = false;
		drop_read(d);
	}
	while (!d->data_done) {
		sp_error *e = sp_perf_read_round(d);
		if (e)
			return e;
		if (d->c->n_samples) {
			d->handed = true;
			*round = d->c;
			return NULL;
		}
		drop_read(d);
	}
	return NULL;
}

void sp_perf_round_to_profile(sp_perf_reader *d)
{
	if (!d->c->n_samples)
		return;
	if (!d->prof) /* the events are known once samples come */
		d->prof = sp_capture_profiler_new(d->c);
	d->n_samples += d->c->n_samples;
	sp_capture_profiler_add(d->prof, d->c);
	sp_capture_clear_samples(d->c);
}

char *sp_perf_warning(const sp_perf_reader *d)
{
	if (!d->data_done || (!d->unfinished && !d->truncated))
		return NULL;
	if (d->unfinished)
		return sp_xasprintf("the recording was not finished (perf record was killed?): "
				    "%" PRIu64 " samples read up to offset %" PRIu64
				    "; no build ids, kernel release or command line", d->n_samples,
				    d->cut_at);
	return sp_xasprintf("the file is cut short: its data section ends past the end of the "
			    "file (%" PRIu64 " bytes): %" PRIu64 " samples read up to offset %" PRIu64
			    "; no build ids, kernel release or command line", d->len, d->n_samples,
			    d->cut_at);
}

sp_profile *sp_perf_profile(sp_perf_reader *d)
{
	sp_perf_round_to_profile(d);
	if (!d->prof)
		d->prof = sp_capture_profiler_new(d->c);
	sp_profile *p = sp_capture_profiler_finish(d->prof, d->c);
	d->prof = NULL;
	return p;
}

sp_error *sp_perf_read_rounds(sp_perf_reader *d, sp_profile **out)
{
	*out = NULL;
	sp_capture *c;
	sp_error *e;
	while (!(e = sp_perf_next_round(d, &c)) && c)
		sp_perf_round_to_profile(d);
	if (!e)
		*out = sp_perf_profile(d);
	return e;
}

sp_capture *sp_perf_take_capture(sp_perf_reader *d)
{
	sp_capture *c = d->c;
	sp_capture_own_stacks(c); /* before the mapping goes */
	d->c = NULL;
	return c;
}

sp_error *sp_perf_read(const char *name, const uint8_t *data, size_t len, sp_profile **out)
{
	*out = NULL;
	sp_perf_reader *d;
	sp_error *e = sp_perf_open_memory(name, data, len, &d);
	if (!e)
		e = sp_perf_read_rounds(d, out);
	sp_perf_close(d);
	return e;
}
