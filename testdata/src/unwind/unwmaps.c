/* unwmaps.c — a process with many mappings of one file, for the unwinder's
 * limits (descriptors, time per mapping).  Built by build.sh without frame
 * pointers.
 *
 *   unwmaps LIB N MS
 *
 * maps the executable segment of LIB (libunwleaf.so) N times, each copy in
 * a reservation of the library's whole span as the dynamic loader lays a
 * library out, then for about MS milliseconds calls uw_leaf in every copy
 * in turn: main -> uw_drive -> uw_leaf (copy I).  Every sample in a copy
 * therefore has the stack main;uw_drive;uw_leaf, its leaf at the same
 * offset of LIB's file whatever the copy. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

typedef unsigned long (*leaf_fn)(unsigned long);

static volatile unsigned long sink;

__attribute__((noinline)) unsigned long uw_drive(leaf_fn *copies, size_t n, unsigned long work)
{
	unsigned long r = 0;
	for (size_t i = 0; i < n; i++)
		r += copies[i](work);
	sink += r;
	return r + 1;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: unwmaps LIB N MS\n");
		return 2;
	}
	const char *lib = argv[1];
	size_t n = strtoul(argv[2], NULL, 10);
	double ms = strtod(argv[3], NULL);
	long page = sysconf(_SC_PAGESIZE);

	/* where uw_leaf is in the file's address space */
	void *h = dlopen(lib, RTLD_NOW);
	if (!h)
		die(dlerror());
	void *sym = dlsym(h, "uw_leaf");
	Dl_info di;
	if (!sym || !dladdr(sym, &di))
		die("uw_leaf");
	unsigned long fn_vaddr = (unsigned long)sym - (unsigned long)di.dli_fbase;

	int fd = open(lib, O_RDONLY);
	if (fd < 0)
		die(lib);
	Elf64_Ehdr eh;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		die("ELF header");
	Elf64_Phdr ph[32];
	if (eh.e_phnum > 32 ||
	    pread(fd, ph, eh.e_phnum * sizeof(*ph), (off_t)eh.e_phoff) !=
		    (ssize_t)(eh.e_phnum * sizeof(*ph)))
		die("program headers");
	unsigned long span = 0;
	const Elf64_Phdr *text = NULL;
	for (int i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (ph[i].p_vaddr + ph[i].p_memsz > span)
			span = ph[i].p_vaddr + ph[i].p_memsz;
		if (ph[i].p_flags & PF_X)
			text = &ph[i];
	}
	if (!text)
		die("no executable segment");
	span = (span + page - 1) & ~(page - 1);
	unsigned long seg = text->p_vaddr & ~(page - 1);
	off_t off = (off_t)(text->p_offset & ~(page - 1));
	size_t len = text->p_vaddr + text->p_filesz - seg;

	leaf_fn *copies = malloc(n * sizeof(*copies));
	for (size_t i = 0; i < n; i++) {
		char *r = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (r == MAP_FAILED)
			die("reserving");
		if (mmap(r + seg, len, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fd, off) ==
		    MAP_FAILED)
			die("mapping");
		copies[i] = (leaf_fn)(void *)(r + fn_vaddr);
	}
	double end = now_ms() + ms;
	unsigned long r = 0;
	do
		r += uw_drive(copies, n, 20000);
	while (now_ms() < end);
	printf("%lu\n", r & 1);
	return 0;
}
