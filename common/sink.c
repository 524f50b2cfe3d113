/* sink.c — output sinks: memory, file descriptor, and output files (atomic
 * replacement of regular files, direct writes to devices and FIFOs).  A
 * temporary output is on fatal.c's list until it is renamed into place. */
#include "common/common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void sp_sink_write(sp_sink *s, const void *data, size_t n)
{
	if (s->err || !n)
		return;
	s->write(s, data, n);
	s->written += n;
}

void sp_sink_puts(sp_sink *s, const char *str)
{
	sp_sink_write(s, str, strlen(str));
}

void sp_sink_putc(sp_sink *s, char c)
{
	sp_sink_write(s, &c, 1);
}

void sp_sink_printf(sp_sink *s, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		sp_sink_write(s, tmp, (size_t)n);
		return;
	}
	char *big = sp_xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sp_sink_write(s, big, (size_t)n);
	free(big);
}

void sp_sink_fail(sp_sink *s, sp_error *err)
{
	if (s->err)
		sp_error_free(err);
	else
		s->err = err;
}

sp_error *sp_sink_finish(sp_sink *s)
{
	if (!s->err && s->finish) {
		sp_error *e = s->finish(s);
		if (e)
			sp_sink_fail(s, e);
	}
	if (!s->err)
		return NULL;
	/* hand the caller its own copy; the sink keeps a marker */
	sp_error *e = s->err;
	s->err = sp_error_new(e->code, "output already failed");
	return e;
}

void sp_sink_free(sp_sink *s)
{
	if (!s)
		return;
	sp_error_free(s->err);
	s->err = NULL;
	if (s->destroy)
		s->destroy(s);
	else
		free(s);
}

/* -- memory --------------------------------------------------------------- */

typedef struct {
	sp_sink base;
	sp_buf buf;
} mem_sink;

static void mem_write(sp_sink *s, const void *data, size_t n)
{
	sp_buf_append(&((mem_sink *)s)->buf, data, n);
}

static void mem_destroy(sp_sink *s)
{
	sp_buf_free(&((mem_sink *)s)->buf);
	free(s);
}

sp_sink *sp_sink_memory_new(void)
{
	mem_sink *m = sp_xcalloc(1, sizeof(*m));
	m->base.write = mem_write;
	m->base.destroy = mem_destroy;
	return &m->base;
}

const uint8_t *sp_sink_memory_data(const sp_sink *s, size_t *len)
{
	const mem_sink *m = (const mem_sink *)s;
	*len = m->buf.len;
	return m->buf.data ? (const uint8_t *)m->buf.data : (const uint8_t *)"";
}

/* -- file descriptor (buffered) and atomic file ---------------------------- */

typedef struct {
	sp_sink base;
	int fd;
	bool own;          /* atomic file: we created tmp and must rename */
	bool close_fd;     /* the sink opened fd and closes it */
	bool done;
	char *name;        /* for messages */
	char *path, *tmp;
	sp_pending_output pending; /* tmp, while it is not renamed */
	char buf[65536];
	size_t n;
} fd_sink;

static void fd_flush(fd_sink *f)
{
	size_t off = 0;
	while (off < f->n && !f->base.err) {
		ssize_t w = write(f->fd, f->buf + off, f->n - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			sp_sink_fail(&f->base, sp_error_new(SP_E_IO, "%s: write failed: %s",
							    f->name, strerror(errno)));
			break;
		}
		off += (size_t)w;
	}
	f->n = 0;
}

static void fd_write(sp_sink *s, const void *data, size_t n)
{
	fd_sink *f = (fd_sink *)s;
	if (f->n + n > sizeof(f->buf))
		fd_flush(f);
	if (n >= sizeof(f->buf)) {
		const char *p = data;
		size_t left = n;
		while (left && !s->err) {
			size_t chunk = left < sizeof(f->buf) ? left : sizeof(f->buf);
			memcpy(f->buf, p, chunk);
			f->n = chunk;
			fd_flush(f);
			p += chunk;
			left -= chunk;
		}
		return;
	}
	memcpy(f->buf + f->n, data, n);
	f->n += n;
}

static sp_error *fd_finish(sp_sink *s)
{
	fd_sink *f = (fd_sink *)s;
	fd_flush(f);
	if (s->err || !f->close_fd)
		return NULL;
	/* No fsync: the rename makes the output appear whole or not at all,
	 * which is the promise; durability across power loss is not, and an
	 * fsync per file made batch conversion pay a disk flush per output. */
	if (close(f->fd) != 0) {
		f->fd = -1;
		return sp_error_new(SP_E_IO, "%s: close failed: %s", f->name, strerror(errno));
	}
	f->fd = -1;
	if (!f->own)
		return NULL;
	if (rename(f->tmp, f->path) != 0)
		return sp_error_new(SP_E_IO, "%s: cannot rename %s into place: %s", f->name,
				    f->tmp, strerror(errno));
	f->done = true;
	sp_pending_remove(&f->pending);
	return NULL;
}

static void fd_destroy(sp_sink *s)
{
	fd_sink *f = (fd_sink *)s;
	if (f->close_fd && f->fd >= 0)
		close(f->fd);
	if (f->own && !f->done) {
		sp_pending_remove(&f->pending);
		unlink(f->tmp);
	}
	free(f->name);
	free(f->path);
	free(f->tmp);
	free(f);
}

sp_sink *sp_sink_fd_new(int fd, const char *name)
{
	fd_sink *f = sp_xcalloc(1, sizeof(*f));
	f->base.write = fd_write;
	f->base.finish = fd_finish;
	f->base.destroy = fd_destroy;
	f->fd = fd;
	f->name = sp_xstrdup(name ? name : "output");
	return &f->base;
}

/* Follows PATH through symbolic links (at most 40, like the kernel) to the
 * name that is really written: *REAL is newly allocated; *EXISTS tells
 * whether it names something, described by *ST.  A dangling link resolves
 * to the path it points at, which is then created. */
static sp_error *resolve_output(const char *path, char **real, bool *exists, struct stat *st)
{
	char *cur = sp_xstrdup(path);
	for (int hops = 0; hops <= 40; hops++) {
		if (lstat(cur, st) != 0) {
			if (errno != ENOENT) {
				sp_error *e = sp_error_new(SP_E_IO, "%s: cannot stat output %s: %s",
							   path, cur, strerror(errno));
				free(cur);
				return e;
			}
			*exists = false;
			*real = cur;
			return NULL;
		}
		if (!S_ISLNK(st->st_mode)) {
			*exists = true;
			*real = cur;
			return NULL;
		}
		sp_buf target = {0};
		sp_grow(&target.data, &target.cap, (size_t)st->st_size + 2, 1);
		ssize_t n = readlink(cur, target.data, target.cap);
		if (n < 0 || (size_t)n >= target.cap) {
			/* changed under us or unreadable: report it rather than guess */
			sp_error *e = sp_error_new(SP_E_IO, "%s: cannot read symbolic link %s: %s",
						   path, cur, n < 0 ? strerror(errno) : "link changed");
			sp_buf_free(&target);
			free(cur);
			return e;
		}
		target.len = (size_t)n;
		target.data[n] = '\0';
		char *next;
		const char *slash = strrchr(cur, '/');
		if (target.data[0] == '/' || !slash)
			next = sp_buf_take(&target);
		else
			next = sp_xasprintf("%.*s/%s", (int)(slash - cur), cur, target.data);
		sp_buf_free(&target);
		free(cur);
		cur = next;
	}
	free(cur);
	return sp_error_new(SP_E_IO, "%s: too many levels of symbolic links", path);
}

sp_error *sp_sink_file_new(const char *path, sp_sink **out)
{
	*out = NULL;
	char *real = NULL;
	bool exists = false;
	struct stat st;
	sp_error *e = resolve_output(path, &real, &exists, &st);
	if (e)
		return e;
	if (exists && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISFIFO(st.st_mode))) {
		/* Devices and FIFOs cannot be replaced, only written to. */
		int fd = open(real, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		free(real);
		if (fd < 0)
			return sp_error_new(SP_E_IO, "%s: cannot open output: %s", path,
					    strerror(errno));
		fd_sink *f = (fd_sink *)sp_sink_fd_new(fd, path);
		f->close_fd = true;
		*out = &f->base;
		return NULL;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		free(real);
		return sp_error_new(SP_E_IO, "%s: output is %s, not a regular file, device or FIFO",
				    path, S_ISDIR(st.st_mode) ? "a directory" : "a special file");
	}
	char *tmp = sp_xasprintf("%s.tmp.XXXXXX", real);
	fd_sink *f = (fd_sink *)sp_sink_fd_new(-1, path);
	/* from its creation on, a signal removes the temporary file */
	int fd = sp_pending_create(&f->pending, tmp);
	int mkstemp_errno = errno;
	f->fd = fd;
	f->own = true;
	f->close_fd = true;
	f->path = real;
	f->tmp = tmp;
	if (fd < 0) {
		e = sp_error_new(SP_E_IO, "%s: cannot create output: %s", path,
				 strerror(mkstemp_errno));
		f->own = false;
		sp_sink_free(&f->base);
		return e;
	}
	/* mkstemp makes 0600: a replaced file keeps its mode, a new one gets
	 * the usual permissions */
	mode_t mode;
	if (exists) {
		/* the owner too where allowed (root, or a group of ours);
		 * before the chmod, which a chown may clear bits of */
		if (fchown(fd, st.st_uid, st.st_gid) != 0) {
			/* not allowed: the file becomes ours, as any rewrite would */
		}
		mode = st.st_mode & 07777;
	} else {
		mode_t um = umask(0);
		umask(um);
		mode = 0666 & ~um;
	}
	if (fchmod(fd, mode) != 0) {
		e = sp_error_new(SP_E_IO, "%s: cannot set the mode of %s: %s", path, tmp,
				 strerror(errno));
		sp_sink_free(&f->base);
		return e;
	}
	*out = &f->base;
	return NULL;
}
