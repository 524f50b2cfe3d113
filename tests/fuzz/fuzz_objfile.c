/* fuzz_objfile.c — libFuzzer harness for object files compressed whole
 * (symbolize/objfile.c: kernel modules as .ko.gz, .ko.xz, .ko.zst).  The
 * input is the file: it is opened through sp_object_fd, under a memory
 * limit of 64 MiB, then read as sp_elf_info_read reads a candidate (build
 * id, sections).  A descriptor must come back with no error, or no
 * descriptor with an error whose message formats (or none, the file not
 * opening); a descriptor of a
 * compressed input must hold at most the limit.  Seeds
 * (tests/fuzz/seeds/objfile/): a small relocatable ELF with a build id,
 * plain and in each of the three formats, and each of those cut in half.
 * fuzz-runs: 20000 (executions of each scripts/fuzz CI pass: about 10 s) */
#include "symbolize/internal.h"
#include "tests/fuzz/check.h"
#include "tests/fuzz/memfd.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define LIMIT ((size_t)64 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sp_mem_set_limit(LIMIT);
	char path[64];
	int in = sp_fuzz_memfd(data, size, path);
	sp_error *e = NULL;
	int fd = sp_object_fd(path, NULL, &e);
	if (fd >= 0 && e)
		SP_FUZZ_FAIL("both a descriptor and an error");
	if (fd < 0) {
		sp_fuzz_check_error(e);
	} else {
		struct stat st;
		if (fstat(fd, &st) != 0 || (size_t)st.st_size > (fd == in ? size : LIMIT))
			SP_FUZZ_FAIL("the unpacked file is larger than the limit");
		if (fd != in)
			close(fd);
	}
	sp_elf_info info;
	e = sp_elf_info_read(path, &info);
	if (e)
		sp_fuzz_check_error(e);
	else
		sp_elf_info_clear(&info);
	close(in);
	return 0;
}
