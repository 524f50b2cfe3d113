/* spin.c — the perf-user fixture (tests/cli/perf_users.sh): main spins in
 * spin_a and spin_b (2:1 by rounds) and in lib_work, a function of the
 * library libstrip.so (strip.c) that the test strips.  VARIANT changes the
 * code, and so the build id, of a rebuild. */
#include <stdlib.h>

#ifndef VARIANT
#define VARIANT 1
#endif

unsigned long lib_work(unsigned long n);
volatile unsigned long sink;

__attribute__((noinline)) unsigned long spin_a(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += (i * i) ^ (s >> 3);
	return s + VARIANT;
}

__attribute__((noinline)) unsigned long spin_b(unsigned long n)
{
	unsigned long s = 1;
	for (unsigned long i = 0; i < n; i++)
		s = s * 6364136223846793005UL + i;
	return s;
}

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 40;
	int lib = argc > 2 ? atoi(argv[2]) : 0;
	for (unsigned long r = 0; r < rounds; r++) {
		sink += spin_a(2000000);
		sink += spin_a(2000000);
		sink += spin_b(2000000);
		if (lib)
			sink += lib_work(500000);
	}
	return 0;
}
