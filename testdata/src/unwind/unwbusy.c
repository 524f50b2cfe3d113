/* unwbusy.c — the --call-graph dwarf fixture (built by build.sh without frame
 * pointers).  main -> uw_a -> uw_b, which spends its time in two leaves:
 *   uw_b -> uw_c -> uw_lib_spin (libunwlib.so)   3 units of 4 (75 %)
 *   uw_b -> uw_local_spin (this file)             1 unit of 4 (25 %)
 * Every sample's stack therefore holds main -> uw_a -> uw_b. */
#include <stdio.h>
#include <stdlib.h>

unsigned long uw_lib_spin(unsigned long n);

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long uw_local_spin(unsigned long n)
{
	unsigned long x = 1;
	for (unsigned long i = 0; i < n; i++)
		x = x * 2862933555777941757ULL + 3037000493ULL;
	return x;
}

__attribute__((noinline)) unsigned long uw_c(unsigned long n)
{
	unsigned long r = uw_lib_spin(3 * n);
	sink += r;
	return r + 1;
}

__attribute__((noinline)) unsigned long uw_b(unsigned long n)
{
	unsigned long r = uw_c(n);
	r += uw_local_spin(n);
	sink += r;
	return r + 1;
}

__attribute__((noinline)) unsigned long uw_a(unsigned long n)
{
	unsigned long r = uw_b(n);
	sink += r;
	return r + 1;
}

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 40;
	unsigned long r = 0;
	for (unsigned long i = 0; i < rounds; i++)
		r += uw_a(10000000);
	printf("%lu\n", r & 1);
	return 0;
}
