/* zsec.c — a zlib-compressed debug section inflated only as far as it is read.
 *
 * One address needs one compile unit: the unit's bytes in .debug_info and
 * its line program in .debug_line, a small part of sections that are
 * megabytes inflated (Debian's libc6-dbg: 5.8 MB of .debug_info, 1.3 MB of
 * .debug_line), and inflating them whole is most of the start-up time.  A
 * deflate stream cannot be entered in the middle, but it can be stopped:
 * the section gets a buffer of its full inflated size (anonymous memory,
 * whose untouched pages cost nothing and read as zeros) and is inflated up
 * to the end of what its readers ask for, the stream kept open for more.
 * The buffer never moves, so libdw can be handed it as the section's data
 * at open, provided nothing reads past what was asked for (units.c asks
 * before every unit and line program it reads).
 *
 * The deflate data is read raw, past the zlib header: the Adler-32 at the
 * end of the stream is never checked (the readers check what they read),
 * which also saves a sixth of the time of a whole section.
 */
#include "symbolize/dwarf/dwarfp.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <zlib.h>

struct sp_zsec {
	unsigned char *buf;
	size_t size; /* inflated */
	size_t done; /* bytes of buf inflated */
	const unsigned char *src;
	size_t n, in; /* compressed bytes, and how many were consumed */
	z_stream zs;
	bool started, failed;
	const char *err;
};

/* Inflating in steps of at least this much keeps the per-call overhead of
 * zlib small against a unit that needs a few hundred bytes more. */
#define ZSEC_STEP ((size_t)128 << 10)

const char *sp_zsec_check(const unsigned char *src, size_t n)
{
	if (n < 2 || (src[0] & 0x0f) != Z_DEFLATED || ((src[0] << 8) | src[1]) % 31)
		return "not a zlib stream";
	return NULL;
}

sp_zsec *sp_zsec_new(const unsigned char *src, size_t n, size_t size)
{
	if (sp_zsec_check(src, n) || !size)
		return NULL;
	void *buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return NULL;
	sp_zsec *z = sp_xcalloc(1, sizeof(*z));
	z->buf = buf;
	z->size = size;
	z->src = src + 2;
	z->n = n - 2;
	return z;
}

void *sp_zsec_data(const sp_zsec *z)
{
	return z->buf;
}

size_t sp_zsec_size(const sp_zsec *z)
{
	return z->size;
}

size_t sp_zsec_valid(const sp_zsec *z)
{
	return z ? z->done : 0;
}

const char *sp_zsec_error(const sp_zsec *z)
{
	return z && z->failed ? z->err : NULL;
}

/* What is wrong after inflating up to z->done with zlib's answer RC:
 * NULL when nothing is. */
static const char *stream_error(sp_zsec *z, int rc)
{
	if (rc == Z_OK && z->done == z->size) {
		/* all the header says: the stream must end there */
		unsigned char extra;
		z->zs.next_in = (unsigned char *)z->src + z->in;
		z->zs.avail_in = (uInt)(z->n - z->in > UINT32_MAX ? UINT32_MAX : z->n - z->in);
		z->zs.next_out = &extra;
		z->zs.avail_out = 1;
		rc = inflate(&z->zs, Z_NO_FLUSH);
		if (z->zs.avail_out == 0)
			return "more data than the header says";
		if (rc != Z_STREAM_END)
			return z->zs.msg ? z->zs.msg : "cut short";
		return NULL;
	}
	if (rc == Z_STREAM_END && z->done != z->size)
		return "less data than the header says";
	if (rc != Z_OK && rc != Z_STREAM_END)
		return z->zs.msg ? z->zs.msg : "cut short";
	return NULL;
}

bool sp_zsec_need(sp_zsec *z, size_t end)
{
	if (!z)
		return true;
	if (end > z->size)
		end = z->size;
	if (z->done >= end)
		return true;
	if (z->failed)
		return false;
	if (!z->started) {
		if (inflateInit2(&z->zs, -MAX_WBITS) != Z_OK) {
			z->failed = true;
			z->err = "cannot start zlib";
			return false;
		}
		z->started = true;
	}
	size_t want = end - z->done < ZSEC_STEP ? z->done + ZSEC_STEP : end;
	if (want > z->size)
		want = z->size;
	int rc = Z_OK;
	while (z->done < want && rc == Z_OK) { /* avail_in and avail_out are 32-bit */
		z->zs.next_in = (unsigned char *)z->src + z->in;
		z->zs.avail_in = (uInt)(z->n - z->in > UINT32_MAX ? UINT32_MAX : z->n - z->in);
		z->zs.next_out = z->buf + z->done;
		z->zs.avail_out = (uInt)(want - z->done > UINT32_MAX ? UINT32_MAX : want - z->done);
		uInt ai = z->zs.avail_in, ao = z->zs.avail_out;
		rc = inflate(&z->zs, Z_NO_FLUSH);
		z->in += ai - z->zs.avail_in;
		z->done += ao - z->zs.avail_out;
		if (rc == Z_OK && ai == z->zs.avail_in && ao == z->zs.avail_out)
			rc = Z_BUF_ERROR;
	}
	z->err = stream_error(z, rc);
	if (z->err) {
		z->failed = true;
		return false;
	}
	if (z->done == z->size) {
		inflateEnd(&z->zs);
		z->started = false;
	}
	return true;
}

const char *sp_zsec_inflate(const unsigned char *src, size_t n, void *buf, size_t size)
{
	const char *err = sp_zsec_check(src, n);
	if (err || !size)
		return err;
	sp_zsec z = {.buf = buf, .size = size, .src = src + 2, .n = n - 2};
	bool ok = sp_zsec_need(&z, size); /* one step: the whole section */
	if (z.started)
		inflateEnd(&z.zs);
	return ok ? NULL : z.err;
}

void sp_zsec_free(sp_zsec *z)
{
	if (!z)
		return;
	if (z->started)
		inflateEnd(&z->zs);
	munmap(z->buf, z->size);
	free(z);
}
