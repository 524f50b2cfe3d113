/* file.c — whole-file input and directory listings. */
#include "common/common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static sp_error *too_large(const char *path, size_t limit)
{
	char lim[64];
	sp_format_size(lim, sizeof(lim), limit);
	return sp_error_new(SP_E_LIMIT,
			    "%s: input larger than the memory limit of %s (--max-memory)", path,
			    lim);
}

sp_error *sp_read_file(const char *path, uint8_t **data, size_t *len)
{
	*data = NULL;
	*len = 0;
	bool in = !strcmp(path, "-");
	int fd = in ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC);
	if (in)
		path = SP_STDIN_NAME;
	if (fd < 0)
		return sp_error_new(SP_E_IO, "%s: cannot open: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0) {
		sp_error *e = sp_error_new(SP_E_IO, "%s: cannot stat: %s", path, strerror(errno));
		close(fd);
		return e;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return sp_error_new(SP_E_IO, "%s: is a directory", path);
	}
	/* the whole input is in memory: it cannot be larger than the budget,
	 * and a pipe or a device (/dev/zero) is read only that far */
	size_t limit = sp_mem_limit() ? sp_mem_limit() : SIZE_MAX - 1;
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > limit) {
		close(fd);
		return too_large(path, limit);
	}
	size_t cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 65536;
	uint8_t *buf = sp_xmalloc(cap);
	size_t n = 0;
	for (;;) {
		if (n > limit) {
			free(buf);
			close(fd);
			return too_large(path, limit);
		}
		if (n + 1 >= cap) {
			cap = cap > limit / 2 ? limit + 2 : cap * 2;
			buf = sp_xrealloc(buf, cap);
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			sp_error *e = sp_error_new(SP_E_IO, "%s: read failed at offset %zu: %s",
						   path, n, strerror(errno));
			free(buf);
			close(fd);
			return e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*data = buf;
	*len = n;
	return NULL;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

sp_error *sp_dir_names(const char *dir, const char *prefix, const char *suffix, char ***names,
		       size_t *n)
{
	*names = NULL;
	*n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return sp_error_new(SP_E_IO, "%s: cannot open directory: %s", dir, strerror(errno));
	size_t cap = 0, lp = strlen(prefix), ls = strlen(suffix);
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l > lp + ls && !strncmp(de->d_name, prefix, lp) &&
		    !strcmp(de->d_name + l - ls, suffix))
			SP_PUSH(*names, *n, cap, sp_xstrdup(de->d_name));
	}
	closedir(d);
	if (*n)
		qsort(*names, *n, sizeof(**names), cmp_name);
	return NULL;
}
