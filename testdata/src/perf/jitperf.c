/* jitperf.c — a tiny JIT for the perf.data JIT tests (x86-64 only).
 *
 *   jitperf DIR ROLE [ROLE2]
 *
 * Places two functions it generates, ROLE_outer and ROLE_inner, at the fixed
 * address CODE (the same in every process, so that only the process tells
 * whose code an address is), calls ROLE_outer -> ROLE_inner in a loop for
 * about 0.4 s, and describes the code the two ways JITs tell perf about it:
 *
 *   DIR/perf-PID.map   "START SIZE map_ROLE_outer" lines (spec/FORMATS.md §5.1)
 *   DIR/jit-PID.dump   jitdump v1 (spec/FORMATS.md §5.2): the header, for
 *                      each function a DEBUG_INFO record then its CODE_LOAD
 *                      (code index 1 and 2), then CODE_CLOSE; the file is
 *                      mmap()ed executable once, as perf inject --jit
 *                      expects, so `perf record -k 1` records where it is.
 *
 * The debug info gives each function three lines of the made-up source
 * "ROLE.jit": the entry (line 10 outer, 20 inner), the call or the loop
 * (11, 21) and the return (12, 22), at the byte offsets below.
 *
 * With ROLE2 the code is then freed and compiled again at the same
 * addresses, as a JIT reuses memory: after the first 0.4 s the bytes are
 * written anew and described by a second pair of records (DEBUG_INFO +
 * CODE_LOAD of ROLE2_outer and ROLE2_inner, code index 3 and 4, timed
 * after the first phase ended), and the loop runs 0.4 s more.  Samples of
 * the first phase are ROLE's code, those of the second ROLE2's; the perf
 * map, which has no times, names only ROLE2's.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CODE 0x7e5a00000000ULL
#define OUTER_OFF 0x0
#define INNER_OFF 0x40

/* push rbp; mov rbp,rsp; call inner; pop rbp; ret */
static const uint8_t outer_code[] = {0x55, 0x48, 0x89, 0xe5, 0xe8, 0, 0, 0, 0, 0x5d, 0xc3};
/* push rbp; mov rbp,rsp; mov ecx,200000; L: dec ecx; jnz L; pop rbp; ret */
static const uint8_t inner_code[] = {0x55, 0x48, 0x89, 0xe5, 0xb9, 0x40, 0x0d, 0x03, 0x00,
				     0xff, 0xc9, 0x75, 0xfc, 0x5d, 0xc3};

typedef struct {
	uint32_t off; /* byte offset in the function */
	int32_t line;
} line_at;

static const line_at outer_lines[] = {{0, 10}, {4, 11}, {9, 12}};
static const line_at inner_lines[] = {{0, 20}, {9, 21}, {13, 22}};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void put(FILE *f, const void *p, size_t n)
{
	if (fwrite(p, 1, n, f) != n) {
		perror("jitperf: write");
		exit(1);
	}
}

static void put32(FILE *f, uint32_t v)
{
	put(f, &v, 4);
}

static void put64(FILE *f, uint64_t v)
{
	put(f, &v, 8);
}

/* Record prefix: id, total size, timestamp. */
static void prefix(FILE *f, uint32_t id, uint32_t size)
{
	put32(f, id);
	put32(f, size);
	put64(f, now_ns());
}

static void debug_info(FILE *f, uint64_t addr, const line_at *l, size_t n, const char *file)
{
	uint32_t size = 16 + 16;
	for (size_t i = 0; i < n; i++)
		size += 16 + (uint32_t)(i ? 2 : strlen(file) + 1);
	prefix(f, 2, size);
	put64(f, addr);
	put64(f, n);
	for (size_t i = 0; i < n; i++) {
		put64(f, addr + l[i].off);
		put32(f, (uint32_t)l[i].line);
		put32(f, 0);
		if (i)
			put(f, "\xff", 2); /* the same file as the entry before */
		else
			put(f, file, strlen(file) + 1);
	}
}

static void code_load(FILE *f, uint32_t pid, uint64_t addr, const uint8_t *code, size_t n,
		      uint64_t index, const char *name)
{
	prefix(f, 0, (uint32_t)(16 + 40 + strlen(name) + 1 + n));
	put32(f, pid);
	put32(f, (uint32_t)syscall(SYS_gettid));
	put64(f, addr);
	put64(f, addr);
	put64(f, n);
	put64(f, index);
	put(f, name, strlen(name) + 1);
	put(f, code, n);
}

/* Writes outer and inner at CODE; their names are ROLE_outer and
 * ROLE_inner, the file of their lines ROLE.jit. */
static void compile(uint8_t *code)
{
	memcpy(code + OUTER_OFF, outer_code, sizeof(outer_code));
	int32_t rel = (int32_t)(INNER_OFF - (OUTER_OFF + 9));
	memcpy(code + OUTER_OFF + 5, &rel, 4);
	memcpy(code + INNER_OFF, inner_code, sizeof(inner_code));
}

/* The records of the code at CODE named after ROLE, code index INDEX and
 * INDEX + 1. */
static void describe(FILE *f, uint32_t pid, const uint8_t *code, const char *role,
		     uint64_t index)
{
	char outer[64], inner[64], file[64];
	snprintf(outer, sizeof(outer), "%s_outer", role);
	snprintf(inner, sizeof(inner), "%s_inner", role);
	snprintf(file, sizeof(file), "%s.jit", role);
	debug_info(f, CODE + OUTER_OFF, outer_lines, 3, file);
	code_load(f, pid, CODE + OUTER_OFF, code + OUTER_OFF, sizeof(outer_code), index, outer);
	debug_info(f, CODE + INNER_OFF, inner_lines, 3, file);
	code_load(f, pid, CODE + INNER_OFF, code + INNER_OFF, sizeof(inner_code), index + 1,
		  inner);
	fflush(f);
}

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: jitperf DIR ROLE [ROLE2]\n");
		return 2;
	}
	const char *dir = argv[1], *role = argv[2], *role2 = argc == 4 ? argv[3] : NULL;
	uint32_t pid = (uint32_t)getpid();
	uint8_t *code = mmap((void *)CODE, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (code != (uint8_t *)CODE) {
		perror("jitperf: mmap at CODE");
		return 1;
	}
	compile(code);

	char path[4096];
	const char *named = role2 ? role2 : role; /* the perf map's names */
	snprintf(path, sizeof(path), "%s/perf-%u.map", dir, pid);
	FILE *m = fopen(path, "w");
	if (!m) {
		perror(path);
		return 1;
	}
	fprintf(m, "%llx %zx map_%s_outer\n", CODE + OUTER_OFF, sizeof(outer_code), named);
	fprintf(m, "%llx %zx map_%s_inner\n", CODE + INNER_OFF, sizeof(inner_code), named);
	fclose(m);

	snprintf(path, sizeof(path), "%s/jit-%u.dump", dir, pid);
	FILE *f = fopen(path, "w+");
	if (!f) {
		perror(path);
		return 1;
	}
	/* mapped executable, as perf inject --jit looks for it */
	void *marker = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fileno(f), 0);
	if (marker == MAP_FAILED) {
		perror("jitperf: mmap of the jitdump file");
		return 1;
	}
	put32(f, 0x4A695444);
	put32(f, 1);
	put32(f, 40);
	put32(f, 62); /* EM_X86_64 */
	put32(f, 0);
	put32(f, pid);
	put64(f, now_ns());
	put64(f, 0);
	describe(f, pid, code, role, 1);
	/* (the loop stays in main: the expected stacks are main -> outer) */
	void (*fn)(void) = (void (*)(void))(uintptr_t)(CODE + OUTER_OFF);
	for (int phase = 0; phase < (role2 ? 2 : 1); phase++) {
		if (phase) { /* freed and compiled again: the same addresses, other code */
			memset(code, 0xcc, 4096);
			compile(code);
			describe(f, pid, code, role2, 3);
		}
		uint64_t end = now_ns() + 400000000u;
		while (now_ns() < end)
			fn();
	}
	prefix(f, 3, 16);
	fflush(f);
	munmap(marker, 4096);
	fclose(f);
	return 0;
}
