/* input.c — the perf.data reader's bytes: a file mapped whole, memory, or a
 * stream read with seeks (a file that cannot be mapped) or in one pass (a
 * pipe); and the errors of its cursor, which name the file, the byte
 * offset and what was expected. */
#include "formats/perf/perfp.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>

sp_error *sp_perf_bad(const sp_perf_reader *d, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *what = NULL;
	if (vasprintf(&what, fmt, ap) < 0)
		what = NULL;
	va_end(ap);
	sp_error *e;
	if (d->z.inside) /* OFF is in the decompressed stream */
		e = sp_error_new(SP_E_MALFORMED,
				 "%s: offset %" PRIu64 ": byte %" PRIu64
				 " of the data decompressed from "
				 "COMPRESSED records: %s",
				 d->name, d->z.rec_off, off, what ? what : fmt);
	else
		e = sp_error_new(SP_E_MALFORMED, "%s: offset %" PRIu64 ": %s", d->name, off,
				 what ? what : fmt);
	free(what);
	return e;
}

sp_error *sp_perf_read_stream(sp_perf_reader *d, uint64_t off, size_t n, size_t keep,
			      const uint8_t **out, const char *what)
{
	sp_grow(&d->buf, &d->cap, keep + n + 1, 1);
	size_t got = 0;
	if (off < d->n_head) { /* bytes read before the stream was handed over */
		got = n < d->n_head - off ? n : (size_t)(d->n_head - off);
		memcpy(d->buf + keep, d->head + off, got);
	}
	if (got < n && off + got != d->pos) {
		if (d->pipe || fseeko(d->f, (off_t)(off + got), SEEK_SET) != 0)
			return sp_error_new(SP_E_IO, "%s: cannot seek to offset %" PRIu64 ": %s%s",
					    d->name, off + got,
					    d->pipe ? "not seekable" : strerror(errno),
					    d->pipe ? ""
						    : " (a file-mode perf.data must be a file; "
						      "`perf record -o -` writes one that "
						      "can be piped)");
		d->pos = off + got;
	}
	if (got < n) {
		size_t more = fread(d->buf + keep + got, 1, n - got, d->f);
		d->pos += more;
		got += more;
	}
	if (got != n) {
		if (ferror(d->f))
			return sp_error_new(SP_E_IO, "%s: read failed at offset %" PRIu64 ": %s",
					    d->name, off + got, strerror(errno));
		return sp_perf_bad(d, off - keep,
				   "truncated %s: expected %zu bytes, the file has %zu left", what,
				   n + keep, got + keep);
	}
	*out = d->buf;
	return NULL;
}

sp_error *sp_perf_cur_short(const sp_perf_cur *k, size_t need, const char *field)
{
	return sp_perf_bad(k->d, k->base + k->at,
			   "%s: expected %zu bytes of %s, %zu left in its %zu-byte %s", k->what,
			   need, field, k->len - k->at, k->len, k->what);
}

sp_error *sp_perf_take_str(sp_perf_cur *k, char **s, const char *field)
{
	uint32_t n = 0;
	const uint8_t *q = NULL;
	sp_error *e = sp_perf_take32(k, &n, field);
	if (!e)
		e = sp_perf_take(k, n, &q, field);
	if (e)
		return e;
	*s = sp_xstrndup((const char *)q, strnlen((const char *)q, n));
	return NULL;
}

sp_error *sp_perf_take_name(sp_perf_cur *k, size_t limit, char **s, const char *field)
{
	const uint8_t *q = k->p + k->at;
	size_t room = limit > k->at ? limit - k->at : 0;
	const uint8_t *nul = memchr(q, 0, room);
	if (!nul)
		return sp_perf_bad(k->d, k->base + k->at,
				   "%s: %s is not NUL-terminated within the record", k->what,
				   field);
	*s = sp_xstrndup((const char *)q, (size_t)(nul - q));
	k->at = limit;
	return NULL;
}
