/* objfile.c — object files compressed whole, as kernel modules are installed.
 *
 * Distributions install kernel modules compressed: NAME.ko.xz (Fedora,
 * RHEL, Debian from 13), NAME.ko.zst (Ubuntu, Arch), NAME.ko.gz.  The
 * whole file is one stream, so neither libelf nor libdwfl 0.188 (no zstd)
 * can be given it directly.  It is decompressed once, when opened, into an
 * anonymous memory file: every reader then gets a descriptor of a plain
 * ELF file, the same as for any other object.  The format is known by its
 * magic number, not by the name, and the output is bounded by what the
 * process's memory budget leaves (a module is a few MiB; a decompression
 * bomb stops there, three bombs together too): common/decompress.c
 * decompresses, this file words how a stream ended.
 *
 * A memory file counts against the budget for as long as anything holds it
 * (a descriptor, libdwfl's among them, or a mapping): every one made here,
 * and module.c's copies of debug files, is charged as it is written and
 * followed by its inode; when memory is wanted (the budget's evictor) the
 * last file kept is let go, and those nothing holds any more are
 * uncharged.
 */
#include "symbolize/elf/elf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Decompression's output: the memory file, and what was written to it. */
typedef struct {
	const char *path;
	sp_codec kind;
	int out;        /* the memory file */
	size_t written; /* and charged */
} unpacker;

#define CHUNK ((size_t)1 << 20)

/* Appends N bytes of output to the memory file, which the budget must have
 * room for (its caches give back what they hold first); the bytes are
 * charged as written. */
static sp_error *put_chunk(void *ctx, const uint8_t *data, size_t n)
{
	unpacker *u = ctx;
	sp_error *room = n ? sp_mem_make_room(n, u->path) : NULL;
	if (room) {
		char lim[32], done[32];
		sp_format_size(lim, sizeof(lim), sp_mem_limit());
		sp_format_size(done, sizeof(done), u->written);
		sp_error_free(room);
		return sp_error_new(SP_E_LIMIT,
				    "%s: %s data decompresses to more than the %s the memory limit "
				    "of %s leaves (--max-memory)",
				    u->path, sp_codec_name(u->kind), done, lim);
	}
	sp_mem_charge(n);
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

/* -- memory files and the budget ------------------------------------------ */

typedef struct {
	ino_t ino;
	size_t size; /* charged */
} memfile;

static struct {
	pthread_mutex_t lock;
	memfile *v;
	size_t n, cap;
	bool evictor; /* registered with the budget */
} memfiles = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, false};

static bool evict(void *ctx, size_t want);

/* Starts following the memory file FD of SIZE bytes, CHARGED already or
 * charged here. */
static void track(int fd, size_t size, bool charged)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return; /* (not counted: it cannot be followed) */
	if (!charged)
		sp_mem_charge(size);
	pthread_mutex_lock(&memfiles.lock);
	if (memfiles.n == memfiles.cap) {
		/* plain realloc: the budget's own bookkeeping is not budgeted */
		size_t cap = memfiles.cap ? memfiles.cap * 2 : 8;
		memfile *v = realloc(memfiles.v, cap * sizeof(*v));
		if (!v) {
			pthread_mutex_unlock(&memfiles.lock);
			return;
		}
		memfiles.v = v;
		memfiles.cap = cap;
	}
	memfiles.v[memfiles.n++] = (memfile){st.st_ino, size};
	bool reg = !memfiles.evictor;
	memfiles.evictor = true;
	pthread_mutex_unlock(&memfiles.lock);
	if (reg)
		sp_mem_add_evictor(evict, NULL, true);
}

void sp_memfile_track(int fd, size_t size)
{
	track(fd, size, false);
}

/* The inodes of the memory files the process holds: its descriptors' and
 * its mappings' (/proc/self/fd, /proc/self/maps); false when they cannot
 * be listed. */
static bool held_inodes(ino_t **out, size_t *n)
{
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return false;
	struct dirent *e;
	char path[300], target[64];
	while ((e = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		ssize_t k = readlink(path, target, sizeof(target) - 1);
		struct stat st;
		if (k > 7 && !strncmp(target, "/memfd:", 7) && stat(path, &st) == 0)
			SP_PUSH(*out, *n, cap, st.st_ino);
	}
	closedir(d);
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return false;
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		unsigned long long ino;
		int name = 0;
		if (strstr(line, "/memfd:") &&
		    sscanf(line, "%*s %*s %*s %*s %llu %n", &ino, &name) == 1 && name)
			SP_PUSH(*out, *n, cap, (ino_t)ino);
	}
	fclose(f);
	return true;
}

/* Uncharges the memory files nothing holds any more; whether any was. */
static bool prune(void)
{
	ino_t *held;
	size_t n_held;
	if (!held_inodes(&held, &n_held)) {
		free(held);
		return false;
	}
	bool any = false;
	pthread_mutex_lock(&memfiles.lock);
	for (size_t i = 0; i < memfiles.n;) {
		bool alive = false;
		for (size_t k = 0; k < n_held && !alive; k++)
			alive = held[k] == memfiles.v[i].ino;
		if (alive) {
			i++;
			continue;
		}
		sp_mem_uncharge(memfiles.v[i].size);
		memfiles.v[i] = memfiles.v[--memfiles.n];
		any = true;
	}
	pthread_mutex_unlock(&memfiles.lock);
	free(held);
	return any;
}

static void drop_last(void);

/* The budget's evictor: the last file kept goes, then whatever nothing
 * holds any more is uncharged. */
static bool evict(void *ctx, size_t want)
{
	(void)ctx;
	(void)want;
	drop_last();
	return prune();
}

/* FD (closed here) holds SIZE bytes packed as KIND: a memory file of its
 * content, or -1 with *ERR.  The output is bounded by what the budget
 * leaves (put_chunk; common/decompress.c's rule bounds it by the limit
 * too), charged as written and for as long as anything holds it. */
static int unpack(const char *path, int fd, size_t size, sp_codec kind, size_t *written,
		  sp_error **err)
{
	void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		*err = sp_error_new(SP_E_IO, "%s: cannot map: %s", path, strerror(errno));
		return -1;
	}
	unpacker u = {.path = path, .kind = kind};
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
		sp_mem_uncharge(u.written);
		if (u.out >= 0)
			close(u.out);
		return -1;
	}
	track(u.out, u.written, true);
	*written = u.written;
	return u.out;
}

/* The last file unpacked and its memory file: a module is opened twice,
 * once for its identity (sp_elf_info_read) and once for libdwfl, and is
 * unpacked once.  Known by device, inode, size and change times.  (Its
 * bytes are charged as any memory file's: while anything holds it, this
 * descriptor among them.) */
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

static void drop_last(void)
{
	pthread_mutex_lock(&last.lock);
	if (last.fd >= 0)
		close(last.fd);
	last.fd = -1;
	pthread_mutex_unlock(&last.lock);
}

/* FD, the memory file unpacked from the file ST describes, kept as the
 * last one (a descriptor of its own). */
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
	sp_codec kind = got > 0 ? sp_codec_sniff(magic, (size_t)got) : SP_CODEC_NONE;
	if (kind == SP_CODEC_NONE)
		return fd;
	int mem = find_last(st);
	if (mem >= 0) {
		close(fd);
		return mem;
	}
	size_t size = 0;
	prune(); /* what nothing holds any more is given back first */
	mem = unpack(path, fd, (size_t)st->st_size, kind, &size, err);
	return mem >= 0 ? keep_last(st, mem) : -1;
}
