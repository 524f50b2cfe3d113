/* failopen.c — an LD_PRELOAD shim the tests build: open() and open64() of a path
 * ending in $FAIL_OPEN_SUFFIX fail with EMFILE, as when descriptors run out; every
 * other open is the real one. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef int (*open_fn)(const char *, int, ...);

static int refused(const char *path)
{
	const char *s = getenv("FAIL_OPEN_SUFFIX");
	size_t n = s ? strlen(s) : 0, m = strlen(path);
	return n && m >= n && !strcmp(path + m - n, s);
}

static int call(const char *name, open_fn *real, const char *path, int flags, int mode)
{
	if (refused(path)) {
		errno = EMFILE;
		return -1;
	}
	if (!*real)
		*real = (open_fn)dlsym(RTLD_NEXT, name);
	return (*real)(path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	static open_fn real;
	va_list ap;
	va_start(ap, flags);
	int mode = flags & (O_CREAT | O_TMPFILE) ? va_arg(ap, int) : 0;
	va_end(ap);
	return call("open", &real, path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	static open_fn real;
	va_list ap;
	va_start(ap, flags);
	int mode = flags & (O_CREAT | O_TMPFILE) ? va_arg(ap, int) : 0;
	va_end(ap);
	return call("open64", &real, path, flags, mode);
}
