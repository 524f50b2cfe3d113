/* regular.c — files that must be regular ones, opened without blocking.
 *
 * A path that comes from a directory listing or from inside another file
 * (a perf map in /tmp, a .dwo named by a binary) may be a FIFO, a device
 * or a symlink to one by the time it is opened: a blocking open of a FIFO
 * waits for a writer for ever, and /dev/zero reads without end.  So the
 * file is opened with O_NONBLOCK (which a FIFO's open returns at once
 * under), checked with fstat on the descriptor (no window between a check
 * and the open), and refused, naming what it is, unless it is a regular
 * file; O_NONBLOCK is cleared before it is read.
 */
#include "common/common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *sp_file_type_name(unsigned mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "a regular file";
	case S_IFDIR: return "a directory";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFIFO: return "a FIFO";
	case S_IFSOCK: return "a socket";
	case S_IFLNK: return "a symbolic link";
	default: return "not a file";
	}
}

int sp_open_regular(const char *path, struct stat *st, sp_error **err)
{
	struct stat own;
	if (!st)
		st = &own;
	*err = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		int e = errno;
		*err = sp_error_new(e == ENOENT || e == ENOTDIR ? SP_E_NOT_FOUND : SP_E_IO,
				    "%s: cannot open: %s", path, strerror(e));
		errno = e;
		return -1;
	}
	if (fstat(fd, st) != 0) {
		int e = errno;
		*err = sp_error_new(SP_E_IO, "%s: cannot stat: %s", path, strerror(e));
		close(fd);
		errno = e;
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		*err = sp_error_new(SP_E_NOT_REGULAR, "%s: not a regular file: %s", path,
				    sp_file_type_name(st->st_mode));
		close(fd);
		return -1;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

sp_error *sp_read_regular_file(const char *path, uint8_t **data, size_t *len)
{
	*data = NULL;
	*len = 0;
	struct stat st;
	sp_error *err;
	int fd = sp_open_regular(path, &st, &err);
	if (fd < 0)
		return err;
	size_t limit = sp_mem_limit() ? sp_mem_limit() : SIZE_MAX - 1;
	if ((uint64_t)st.st_size > limit) {
		close(fd);
		char lim[64];
		sp_format_size(lim, sizeof(lim), limit);
		return sp_error_new(SP_E_LIMIT,
				    "%s: input larger than the memory limit of %s (--max-memory)",
				    path, lim);
	}
	/* a file that grows while it is read is read as far as it was */
	size_t size = (size_t)st.st_size, n = 0;
	uint8_t *buf = sp_xmalloc(size + 1);
	while (n < size) {
		ssize_t r = read(fd, buf + n, size - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = sp_error_new(SP_E_IO, "%s: read failed at offset %zu: %s", path, n,
					   strerror(errno));
			free(buf);
			close(fd);
			return err;
		}
		if (r == 0)
			break; /* shrunk: what is there */
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*data = buf;
	*len = n;
	return NULL;
}
