/* objfile.c — object files compressed whole, as kernel modules are installed.
 *
 * Distributions install kernel modules compressed: NAME.ko.xz (Fedora,
 * RHEL, Debian from 13), NAME.ko.zst (Ubuntu, Arch), NAME.ko.gz.  The
 * whole file is one stream, so neither libelf nor libdwfl 0.188 (no zstd)
 * can be given it directly.  It is decompressed once, when opened, into an
 * anonymous memory file: every reader then gets a descriptor of a plain
 * ELF file, the same as for any other object.  The format is known by its
 * magic number, not by the name, and the output is bounded by the memory
 * limit (a module is a few MiB; a decompression bomb stops at the limit):
 * common/decompress.c decompresses, this file words how a stream ended.
 */
#include "symbolize/elf/elf.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Decompression's output: the memory file, and what was written to it. */
typedef struct {
	const char *path;
	int out;        /* the memory file */
	size_t written;
} unpacker;

#define CHUNK ((size_t)1 << 20)

/* Appends N bytes of output to the memory file. */
static sp_error *put_chunk(void *ctx, const uint8_t *data, size_t n)
{
	unpacker *u = ctx;
	for (size_t off = 0; off < n;) {
		ssize_t w = write(u->out, data + off, n - off);
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

/* How the stream of KIND in PATH came to END, as an error (NULL: whole). */
static sp_error *stream_end(const char *path, sp_codec kind, const sp_decompress_end *end)
{
	const char *name = sp_codec_name(kind);
	switch (end->status) {
	case SP_DZ_END:
		return NULL;
	case SP_DZ_CUT:
		return sp_error_new(SP_E_MALFORMED,
				    "%s: %s data ends at byte %zu, before its stream's end (a cut "
				    "file?)",
				    path, name, end->at);
	case SP_DZ_CORRUPT:
	case SP_DZ_TRAILING:
		break;
	}
	/* zstd says nothing finer than the frame that starts at AT */
	return sp_error_new(SP_E_MALFORMED, "%s: %s data damaged %s byte %zu of the file: %s", path,
			    name, kind == SP_CODEC_ZSTD && end->status == SP_DZ_CORRUPT
					  ? "in the frame at" : "at",
			    end->at, end->msg);
}

/* FD (closed here) holds SIZE bytes packed as KIND: a memory file of its
 * content, or -1 with *ERR.  The output is bounded by the memory limit
 * (common/decompress.c's rule) and charged to the budget while the memory
 * file is the last one kept. */
static int unpack(const char *path, int fd, size_t size, sp_codec kind, size_t *written,
		  sp_error **err)
{
	void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		*err = sp_error_new(SP_E_IO, "%s: cannot map: %s", path, strerror(errno));
		return -1;
	}
	unpacker u = {.path = path};
	u.out = memfd_create("symprof-object", MFD_CLOEXEC);
	if (u.out < 0) {
		*err = sp_error_new(SP_E_IO, "%s: cannot make a memory file: %s", path,
				    strerror(errno));
	} else {
		uint8_t *buf = sp_xmalloc(CHUNK);
		sp_decompress_limit lim = {.name = path};
		sp_decompress_end end;
		*err = sp_decompress_stream(kind, &lim, map, size, buf, CHUNK, put_chunk, &u, &end);
		if (!*err)
			*err = stream_end(path, kind, &end);
		free(buf);
	}
	munmap(map, size);
	if (*err) {
		if (u.out >= 0)
			close(u.out);
		return -1;
	}
	*written = u.written;
	return u.out;
}

/* The last file unpacked and its memory file: a module is opened twice,
 * once for its identity (sp_elf_info_read) and once for libdwfl, and is
 * unpacked once.  Known by device, inode, size and change times.  Its
 * bytes are charged to the memory budget while it is kept. */
static struct {
	pthread_mutex_t lock;
	struct stat st;
	int fd; /* -1: none */
	size_t size;
} last = {PTHREAD_MUTEX_INITIALIZER, {0}, -1, 0};

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* FD, the memory file of SIZE bytes unpacked from the file ST describes,
 * kept as the last one (a descriptor of its own). */
static int keep_last(const struct stat *st, int fd, size_t size)
{
	int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	pthread_mutex_lock(&last.lock);
	if (last.fd >= 0) {
		close(last.fd);
		sp_mem_uncharge(last.size);
	}
	last.fd = own;
	last.st = *st;
	last.size = own >= 0 ? size : 0;
	sp_mem_charge(last.size);
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
	sp_codec kind = got > 0 ? sp_codec_sniff(magic, (size_t)got) : SP_CODEC_NONE;
	if (kind == SP_CODEC_NONE)
		return fd;
	int mem = find_last(st);
	if (mem >= 0) {
		close(fd);
		return mem;
	}
	size_t size = 0;
	mem = unpack(path, fd, (size_t)st->st_size, kind, &size, err);
	return mem >= 0 ? keep_last(st, mem, size) : -1;
}
