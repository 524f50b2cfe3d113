/* memfd.h — hands a fuzz input to a reader that opens files: writes it to
 * a memfd and names it as /proc/self/fd/N. */
#ifndef SYMPROF_FUZZ_MEMFD_H
#define SYMPROF_FUZZ_MEMFD_H

#include "tests/fuzz/check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Writes DATA[0..size) to a new memfd (the run fails when that does) and its
 * path into PATH; returns the descriptor for the caller to close. */
static int sp_fuzz_memfd(const uint8_t *data, size_t size, char path[64])
{
	int fd = memfd_create("fuzz-input", MFD_CLOEXEC);
	if (fd < 0)
		SP_FUZZ_FAIL("memfd_create failed");
	size_t off = 0;
	while (off < size) {
		ssize_t w = write(fd, data + off, size - off);
		if (w <= 0)
			SP_FUZZ_FAIL("writing the memfd failed");
		off += (size_t)w;
	}
	snprintf(path, 64, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
