/* objfile.c — object files compressed whole, as kernel modules are installed.
 *
 * Distributions install kernel modules compressed: NAME.ko.xz (Fedora,
 * RHEL, Debian from 13), NAME.ko.zst (Ubuntu, Arch), NAME.ko.gz.  The
 * whole file is one stream, so neither libelf nor libdwfl 0.188 (no zstd)
 * can be given it directly.  It is decompressed once, when opened, into an
 * anonymous memory file: every reader then gets a descriptor of a plain
 * ELF file, the same as for any other object.  The format is known by its
 * magic number, not by the name, and the output is bounded by the memory
 * limit (a module is a few MiB; a decompression bomb stops at the limit).
 */
#include "symbolize/elf/elf.h"

#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

typedef enum {
	RAW_FILE,
	GZIP,
	XZ,
	ZSTD
} packing;

static packing packing_of(const unsigned char *p, size_t n)
{
	static const unsigned char xz[6] = {0xfd, '7', 'z', 'X', 'Z', 0};
	static const unsigned char zst[4] = {0x28, 0xb5, 0x2f, 0xfd};
	if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return GZIP;
	if (n >= sizeof(xz) && !memcmp(p, xz, sizeof(xz)))
		return XZ;
	if (n >= sizeof(zst) && !memcmp(p, zst, sizeof(zst)))
		return ZSTD;
	return RAW_FILE;
}

static const char *const packing_name[] = {"", "gzip", "xz", "zstd"};

/* Decompression's state, whatever the format: input consumed so far, and
 * output written to the memory file. */
typedef struct {
	const char *path;
	packing kind;
	int out;            /* the memory file */
	size_t in_used;     /* of the compressed bytes */
	size_t written;     /* to the memory file */
	size_t limit;       /* on WRITTEN */
	unsigned char *buf; /* a chunk of output */
	size_t buf_size;
} unpacker;

#define CHUNK ((size_t)1 << 20)

/* Appends the first N bytes of the chunk to the memory file. */
static sp_error *flush_chunk(unpacker *u, size_t n)
{
	if (n > u->limit - u->written) {
		char lim[32];
		sp_format_size(lim, sizeof(lim), u->limit);
		return sp_error_new(SP_E_LIMIT,
				    "%s: %s data decompresses to more than %s (the memory limit, "
				    "--max-memory)",
				    u->path, packing_name[u->kind], lim);
	}
	for (size_t off = 0; off < n;) {
		ssize_t w = write(u->out, u->buf + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return sp_error_new(SP_E_IO, "%s: decompressing into memory: %s", u->path,
					    w < 0 ? strerror(errno) : "no space");
		off += (size_t)w;
	}
	u->written += n;
	return NULL;
}

/* Damaged data, found having read the file up to u->in_used (zstd: in the
 * frame that starts there, as it says nothing finer). */
static sp_error *damaged(const unpacker *u, const char *what)
{
	return sp_error_new(SP_E_MALFORMED, "%s: %s data damaged %s byte %zu of the file: %s",
			    u->path, packing_name[u->kind],
			    u->kind == ZSTD ? "in the frame at" : "at", u->in_used, what);
}

static sp_error *truncated(const unpacker *u)
{
	return sp_error_new(SP_E_MALFORMED,
			    "%s: %s data ends at byte %zu, before its stream's end (a cut file?)",
			    u->path, packing_name[u->kind], u->in_used);
}

/* The most memory a decoder may take for its window: a quarter of the
 * limit on the output, at most 128 MiB (zstd's default, xz -9's dictionary
 * is 64 MiB; modules are compressed with windows of a few MiB). */
static size_t window_limit(const unpacker *u)
{
	size_t w = u->limit / 4;
	return w < ((size_t)128 << 20) ? w : (size_t)128 << 20;
}

static sp_error *put_chunk(void *ctx, const uint8_t *data, size_t n)
{
	(void)data; /* u->buf */
	return flush_chunk(ctx, n);
}

static sp_error *unpack_gzip(unpacker *u, const unsigned char *src, size_t n)
{
	sp_gunzip_end end;
	sp_error *err = sp_gunzip_stream(u->path, src, n, u->buf, u->buf_size, put_chunk, u, &end);
	u->in_used = end.at;
	if (err || end.status == SP_GZ_END)
		return err;
	if (end.status == SP_GZ_CUT)
		return truncated(u);
	return damaged(u, end.status == SP_GZ_CORRUPT
				  ? end.msg
				  : "what follows the gzip data is not another gzip member");
}

static const char *xz_error(lzma_ret rc)
{
	switch (rc) {
	case LZMA_FORMAT_ERROR:
		return "not an xz stream";
	case LZMA_OPTIONS_ERROR:
		return "unsupported options";
	case LZMA_MEMLIMIT_ERROR:
		return "its dictionary is larger than a quarter of the memory limit";
	case LZMA_MEM_ERROR:
		return "out of memory";
	default:
		return "corrupt data";
	}
}

/* One xz stream from SRC + u->in_used (N bytes in all) on. */
static sp_error *unpack_xz_stream(unpacker *u, const unsigned char *src, size_t n)
{
	lzma_stream ls = LZMA_STREAM_INIT;
	if (lzma_stream_decoder(&ls, window_limit(u), 0) != LZMA_OK)
		return sp_error_new(SP_E_UNSUPPORTED, "%s: cannot start xz decoding", u->path);
	sp_error *err = NULL;
	lzma_ret rc = LZMA_OK;
	ls.next_in = src + u->in_used;
	ls.avail_in = n - u->in_used;
	while (!err && rc != LZMA_STREAM_END) {
		ls.next_out = u->buf;
		ls.avail_out = u->buf_size;
		/* the whole file is in: LZMA_FINISH reports a cut stream */
		rc = lzma_code(&ls, LZMA_FINISH);
		u->in_used = n - ls.avail_in;
		if (rc == LZMA_BUF_ERROR && ls.avail_in == 0)
			err = truncated(u);
		else if (rc != LZMA_OK && rc != LZMA_STREAM_END)
			err = damaged(u, xz_error(rc));
		else
			err = flush_chunk(u, u->buf_size - ls.avail_out);
	}
	lzma_end(&ls);
	return err;
}

/* Streams one after the other (xz -c a b > c), each maybe followed by
 * stream padding (zero bytes, four at a time), and nothing else: what is
 * not another stream is named as such, not taken for a cut one. */
static sp_error *unpack_xz(unpacker *u, const unsigned char *src, size_t n)
{
	sp_error *err;
	while (!(err = unpack_xz_stream(u, src, n))) {
		size_t at = u->in_used;
		while (at < n && !src[at])
			at++;
		if (at == n && (at - u->in_used) % 4 == 0)
			return NULL;
		if ((at - u->in_used) % 4 || packing_of(src + at, n - at) != XZ)
			return damaged(u, "what follows the xz data is not padding or another xz "
					  "stream");
		u->in_used = at;
	}
	return err;
}

static sp_error *unpack_zstd(unpacker *u, const unsigned char *src, size_t n)
{
	ZSTD_DStream *zd = ZSTD_createDStream();
	int log = 10; /* ZSTD_WINDOWLOG_ABSOLUTEMIN */
	while (log < 27 && ((size_t)1 << (log + 1)) <= window_limit(u))
		log++;
	if (zd && ZSTD_isError(ZSTD_DCtx_setParameter(zd, ZSTD_d_windowLogMax, log))) {
		ZSTD_freeDStream(zd);
		zd = NULL;
	}
	if (!zd)
		return sp_error_new(SP_E_UNSUPPORTED, "%s: cannot start zstd decoding", u->path);
	sp_error *err = NULL;
	ZSTD_inBuffer in = {src, n, 0};
	size_t rc = 1, frame = 0; /* where the frame being read starts */
	/* rc == 0: a frame ended; stop at the end of the input, after
	 * concatenated frames */
	while (!err && !(rc == 0 && in.pos == in.size)) {
		ZSTD_outBuffer outb = {u->buf, u->buf_size, 0};
		size_t before = in.pos;
		rc = ZSTD_decompressStream(zd, &outb, &in);
		u->in_used = ZSTD_isError(rc) ? frame : in.pos;
		if (rc == 0)
			frame = in.pos;
		if (ZSTD_isError(rc))
			err = damaged(u, ZSTD_getErrorName(rc));
		else if (rc != 0 && in.pos == in.size && outb.pos == 0 && before == in.pos)
			err = truncated(u);
		else
			err = flush_chunk(u, outb.pos);
	}
	ZSTD_freeDStream(zd);
	return err;
}

/* FD (closed here) holds SIZE bytes packed as KIND: a memory file of its
 * content, or -1 with *ERR. */
static int unpack(const char *path, int fd, size_t size, packing kind, sp_error **err)
{
	void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		*err = sp_error_new(SP_E_IO, "%s: cannot map: %s", path, strerror(errno));
		return -1;
	}
	unpacker u = {.path = path, .kind = kind, .buf_size = CHUNK};
	u.limit = sp_mem_limit() ? sp_mem_limit() : SIZE_MAX;
	u.out = memfd_create("symprof-object", MFD_CLOEXEC);
	if (u.out < 0) {
		*err = sp_error_new(SP_E_IO, "%s: cannot make a memory file: %s", path,
				    strerror(errno));
	} else {
		u.buf = sp_xmalloc(u.buf_size);
		*err = kind == GZIP ? unpack_gzip(&u, map, size)
		       : kind == XZ ? unpack_xz(&u, map, size)
				    : unpack_zstd(&u, map, size);
		free(u.buf);
	}
	munmap(map, size);
	if (*err) {
		if (u.out >= 0)
			close(u.out);
		return -1;
	}
	return u.out;
}

/* The last file unpacked and its memory file: a module is opened twice,
 * once for its identity (sp_elf_info_read) and once for libdwfl, and is
 * unpacked once.  Known by device, inode, size and change times. */
static struct {
	pthread_mutex_t lock;
	struct stat st;
	int fd; /* -1: none */
} last = {PTHREAD_MUTEX_INITIALIZER, {0}, -1};

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* A descriptor of the memory file FD (closed here) unpacked from the file
 * ST describes, which is kept as the last one. */
static int keep_last(const struct stat *st, int fd)
{
	int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	pthread_mutex_lock(&last.lock);
	if (last.fd >= 0)
		close(last.fd);
	last.fd = own;
	last.st = *st;
	pthread_mutex_unlock(&last.lock);
	return fd;
}

/* A new descriptor of the memory file unpacked from the file ST describes
 * when it is the last one, else -1. */
static int find_last(const struct stat *st)
{
	int fd = -1;
	pthread_mutex_lock(&last.lock);
	if (last.fd >= 0 && same_file(&last.st, st))
		fd = fcntl(last.fd, F_DUPFD_CLOEXEC, 0);
	pthread_mutex_unlock(&last.lock);
	return fd;
}

int sp_object_fd(const char *path, struct stat *st, sp_error **err)
{
	struct stat own;
	if (!st)
		st = &own;
	*err = NULL;
	/* not blocking: a FIFO named here is refused by what reads it, not
	 * waited on */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1; /* errno says why */
	if (fstat(fd, st) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	if (!S_ISREG(st->st_mode))
		return fd;
	unsigned char magic[6];
	ssize_t got = pread(fd, magic, sizeof(magic), 0);
	packing kind = got > 0 ? packing_of(magic, (size_t)got) : RAW_FILE;
	if (kind == RAW_FILE)
		return fd;
	int mem = find_last(st);
	if (mem >= 0) {
		close(fd);
		return mem;
	}
	mem = unpack(path, fd, (size_t)st->st_size, kind, err);
	return mem >= 0 ? keep_last(st, mem) : -1;
}
