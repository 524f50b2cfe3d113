/* test_objfile.c — object files compressed whole (symbolize/objfile.c), as
 * kernel modules are installed.  The seeds of fuzz_objfile are a small
 * module (plain.ko) and the same bytes as .ko.gz, .ko.xz and .ko.zst: each
 * opens to a descriptor holding exactly plain.ko's bytes, whatever its name
 * (the format is known by its magic number), and a plain file is opened as
 * it is.  The files of tests/malformed/objfile/ each give an error naming
 * the file and saying what is wrong: cut (where its data ends), damaged
 * (where), bytes after the gzip or xz data that are no gzip member or xz
 * stream (where; xz's zero padding is allowed), and
 * 80 MB of zeros against a 64 MiB memory limit (the limit).
 * Concatenated gzip members and xz streams are one file.
 */
#include "symbolize/internal.h"
#include "tests/helpers/tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *srcdir(void)
{
	const char *src = getenv("SP_SRCDIR");
	return src && *src ? src : ".";
}

/* The bytes behind FD (from its start). */
static unsigned char *fd_bytes(int fd, size_t *n)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return NULL;
	unsigned char *b = sp_xmalloc((size_t)st.st_size + 1);
	ssize_t got = pread(fd, b, (size_t)st.st_size, 0);
	*n = got < 0 ? 0 : (size_t)got;
	return b;
}

/* Opens PATH and compares what it holds with WANT[0..wn). */
static void same_as(const char *path, const unsigned char *want, size_t wn, const char *what)
{
	sp_error *e = NULL;
	int fd = sp_object_fd(path, NULL, &e);
	size_t n = 0;
	unsigned char *got = fd >= 0 ? fd_bytes(fd, &n) : NULL;
	TAP_OK(!e && got && n == wn && !memcmp(got, want, wn), "%s: %zu bytes, plain.ko's", what,
	       n);
	if (e) {
		char *m = sp_error_string(e);
		printf("#   %s\n", m);
		free(m);
	}
	sp_error_free(e);
	free(got);
	if (fd >= 0)
		close(fd);
}

static void fails(const char *name, const char *expect)
{
	char *path = sp_xasprintf("%s/tests/malformed/objfile/%s", srcdir(), name);
	sp_error *e = NULL;
	int fd = sp_object_fd(path, NULL, &e);
	char *m = e ? sp_error_string(e) : NULL;
	TAP_OK(fd < 0 && m && !strncmp(m, path, strlen(path)) && strstr(m, expect),
	       "%s: error names the file and says \"%s\"", name, expect);
	if (m)
		printf("#   %s\n", m);
	if (fd >= 0)
		close(fd);
	free(m);
	sp_error_free(e);
	free(path);
}

int main(void)
{
	sp_mem_set_limit((size_t)64 << 20);
	char *plain = sp_xasprintf("%s/tests/fuzz/seeds/objfile/plain.ko", srcdir());
	unsigned char *want;
	size_t wn;
	sp_error *e = sp_read_file(plain, &want, &wn);
	if (e) {
		printf("Bail out! %s unreadable\n", plain);
		return 1;
	}
	same_as(plain, want, wn, "plain.ko, not compressed");
	static const char *const packed[] = {"gz", "xz", "zst"};
	for (size_t i = 0; i < SP_ARRAY_LEN(packed); i++) {
		char *p = sp_xasprintf("%s/tests/fuzz/seeds/objfile/module.ko.%s", srcdir(),
				       packed[i]);
		char *what = sp_xasprintf("module.ko.%s", packed[i]);
		same_as(p, want, wn, what);
		/* the same bytes under a name that says nothing */
		char tmp[] = "/tmp/symprof-objfile-XXXXXX";
		int t = mkstemp(tmp);
		unsigned char *c;
		size_t cn;
		sp_error *re = sp_read_file(p, &c, &cn);
		bool wrote = t >= 0 && !re && write(t, c, cn) == (ssize_t)cn;
		free(what);
		what = sp_xasprintf("module.ko.%s, named without its suffix", packed[i]);
		if (wrote)
			same_as(tmp, want, wn, what);
		else
			TAP_OK(0, "%s: written", what);
		/* xz: stream padding after a stream is part of it */
		if (wrote && i == 1 && write(t, "\0\0\0\0", 4) == 4) {
			free(what);
			what = sp_xasprintf("module.ko.%s, with stream padding", packed[i]);
			same_as(tmp, want, wn, what);
		}
		/* two streams, one after the other: one file of both */
		if (wrote && i < 2 && write(t, c, cn) == (ssize_t)cn) {
			unsigned char *two = sp_xmalloc(2 * wn);
			memcpy(two, want, wn);
			memcpy(two + wn, want, wn);
			free(what);
			what = sp_xasprintf("module.ko.%s twice over: both", packed[i]);
			same_as(tmp, two, 2 * wn, what);
			free(two);
		}
		if (t >= 0) {
			close(t);
			unlink(tmp);
		}
		if (!re)
			free(c);
		sp_error_free(re);
		free(what);
		free(p);
	}

	/* a module is opened for its identity, then for libdwfl: decompressed
	 * once, the second descriptor one of the same memory file; the status
	 * is the compressed file's own */
	char *xz = sp_xasprintf("%s/tests/fuzz/seeds/objfile/module.ko.xz", srcdir());
	struct stat file, st1, st2, m1, m2;
	sp_error *e1 = NULL, *e2 = NULL;
	int fd1 = sp_object_fd(xz, &st1, &e1), fd2 = sp_object_fd(xz, &st2, &e2);
	TAP_OK(fd1 >= 0 && fd2 >= 0 && !e1 && !e2 && fstat(fd1, &m1) == 0 && fstat(fd2, &m2) == 0 &&
		       m1.st_ino == m2.st_ino && m1.st_dev == m2.st_dev && fd1 != fd2 &&
		       (size_t)m1.st_size == wn,
	       "module.ko.xz opened twice: two descriptors of one memory file of %zu bytes", wn);
	int sr = stat(xz, &file);
	TAP_OK(sr == 0 && st1.st_ino == file.st_ino && st1.st_size == file.st_size &&
		       st2.st_size == file.st_size && st1.st_size != m1.st_size,
	       "the status given is the compressed file's (%lld bytes)", (long long)file.st_size);
	if (fd1 >= 0)
		close(fd1);
	if (fd2 >= 0)
		close(fd2);
	sp_error_free(e1);
	sp_error_free(e2);
	free(xz);

	/* a FIFO is opened without waiting for a writer, and is no object */
	char fifo[] = "/tmp/symprof-objfile-fifo-XXXXXX";
	int ft = mkstemp(fifo);
	if (ft >= 0) {
		close(ft);
		unlink(fifo);
	}
	if (ft >= 0 && mkfifo(fifo, 0600) == 0) {
		struct stat fs;
		sp_error *fe = NULL;
		int ff = sp_object_fd(fifo, &fs, &fe);
		TAP_OK(ff >= 0 && !fe && S_ISFIFO(fs.st_mode), "a FIFO: opened at once, its status a FIFO's");
		if (ff >= 0)
			close(ff);
		sp_error_free(fe);
		sp_elf_info info;
		fe = sp_elf_info_read(fifo, &info);
		char *fm = fe ? sp_error_string(fe) : NULL;
		TAP_OK(fm && strstr(fm, "not a regular file"), "a FIFO: %s", fm ? fm : "no error");
		free(fm);
		if (!fe)
			sp_elf_info_clear(&info);
		sp_error_free(fe);
		unlink(fifo);
	} else {
		TAP_OK(0, "a FIFO made for the test");
	}

	fails("cut.gz", "gzip data ends at byte 209, before its stream's end");
	fails("cut.xz", "xz data ends at byte 206, before its stream's end");
	fails("cut.zst", "zstd data ends at byte 218, before its stream's end");
	fails("damaged.gz", "gzip data damaged at byte 212");
	fails("trailing.gz", "gzip data damaged at byte 419 of the file: what follows the gzip "
			     "data is not another gzip member");
	fails("trailing.xz", "xz data damaged at byte 412 of the file: what follows the xz data "
			     "is not padding or another xz stream");
	fails("damaged.xz", "xz data damaged at byte 215");
	fails("damaged.zst", "zstd data damaged in the frame at byte 0");
	/* bounded by what the budget leaves of the limit, not the whole limit */
	fails("bomb.xz", "xz data decompresses to more than the ");
	fails("bomb.xz", " MiB the memory limit of 64 MiB leaves (--max-memory)");
	fails("bomb.zst", "zstd data decompresses to more than the ");
	fails("bomb.zst", " MiB the memory limit of 64 MiB leaves (--max-memory)");

	free(want);
	free(plain);
	return tap_done();
}
