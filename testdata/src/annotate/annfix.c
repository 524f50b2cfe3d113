/* annfix.c — the fixture of the annotated source and disassembly tests
 * (tests/cli_annotate.sh, tests/test_report_browser.sh).
 *
 * hot_outer runs two loops, each in an always-inlined helper on a line of
 * its own: leaf_a (ANN_A_PARTS parts of the work) and leaf_b (ANN_B_PARTS).
 * So every instruction of those loops belongs to hot_outer's code, its
 * inline chain is leaf_X's body line, then the line of hot_outer that
 * called it; main calls hot_outer in rounds until ANN_MS milliseconds of
 * CPU time have passed.  The line numbers are what addr2line says; the
 * tests ask it rather than restating them here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ANN_A_PARTS 2
#define ANN_B_PARTS 1
#define ANN_CHUNK 200000L
#ifndef ANN_MS
#define ANN_MS 600
#endif

static inline __attribute__((always_inline)) unsigned long leaf_a(unsigned long x, long n)
{
	for (long i = 0; i < n; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static inline __attribute__((always_inline)) unsigned long leaf_b(unsigned long x, long n)
{
	for (long i = 0; i < n; i++) {
		x = (x ^ (x >> 7)) * 2654435761UL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

__attribute__((noinline)) unsigned long hot_outer(long n)
{
	unsigned long x = (unsigned long)n;
	x = leaf_a(x, ANN_A_PARTS * n);
	x = leaf_b(x, ANN_B_PARTS * n);
	return x;
}

static long cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : ANN_MS;
	unsigned long sum = 0;
	long start = cpu_ms();
	while (cpu_ms() - start < ms)
		sum += hot_outer(ANN_CHUNK);
	printf("%lu\n", sum & 1);
	return 0;
}
