/* spin.c — the perf-user fixture (tests/cli/perf_users.sh): `spin ROUNDS
 * [LIB [JUNK [INLINE]]]` spins in spin_a and spin_b (2:1 by rounds), with LIB
 * in lib_work, a function of the library libstrip.so (strip.c) that the test
 * strips, with JUNK in junk_spin, whose frame-pointer chain leads nowhere,
 * with INLINE in spin_c, most of whose time is in spin_mix, inlined into it.
 * VARIANT changes the code, and so the build id, of a rebuild. */
#include <stdlib.h>

#ifndef VARIANT
#define VARIANT 1
#endif

unsigned long lib_work(unsigned long n);
volatile unsigned long sink;

/* A frame record as code without frame pointers leaves behind: junk_spin
 * points the frame pointer here while it spins, so a frame-pointer walk
 * reads the return address 0x10000000030, in no mapping, and stops at the
 * null frame pointer before it. */
unsigned long fake_frame[2] __attribute__((used)) = {0, 0x10000000030UL};

__attribute__((noinline)) void junk_spin(unsigned long n)
{
#if defined(__x86_64__)
	__asm__ volatile("push %%rbp\n\t"
			 "lea fake_frame(%%rip), %%rbp\n"
			 "1:\n\t"
			 "dec %0\n\t"
			 "jnz 1b\n\t"
			 "pop %%rbp"
			 : "+r"(n)
			 :
			 : "memory", "cc");
#else
	while (n--)
		sink++;
#endif
}

__attribute__((noinline)) unsigned long spin_a(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++) {
		__asm__ volatile(""); /* not pure: called every round */
		s += (i * i) ^ (s >> 3);
	}
	return s + VARIANT;
}

__attribute__((noinline)) unsigned long spin_b(unsigned long n)
{
	unsigned long s = 1;
	for (unsigned long i = 0; i < n; i++) {
		__asm__ volatile("");
		s = s * 6364136223846793005UL + i;
	}
	return s;
}

/* Always inlined: its instructions are spin_c's in the symbol table, and
 * spin_mix's in the DWARF (an inlined subroutine). */
static inline __attribute__((always_inline)) unsigned long spin_mix(unsigned long s,
								   unsigned long i)
{
	__asm__ volatile("");
	s ^= s >> 7;
	s *= 0x9e3779b97f4a7c15UL;
	return s ^ (i << 3) ^ (s >> 29);
}

__attribute__((noinline)) unsigned long spin_c(unsigned long n)
{
	unsigned long s = 3;
	for (unsigned long i = 0; i < n; i++)
		s = spin_mix(s, i);
	return s;
}

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 40;
	int lib = argc > 2 ? atoi(argv[2]) : 0;
	int junk = argc > 3 ? atoi(argv[3]) : 0;
	int inl = argc > 4 ? atoi(argv[4]) : 0;
	for (unsigned long r = 0; r < rounds; r++) {
		sink += spin_a(2000000);
		sink += spin_a(2000000);
		sink += spin_b(2000000);
		if (lib)
			sink += lib_work(500000);
		if (junk)
			junk_spin(4000000);
		if (inl)
			sink += spin_c(4000000);
	}
	return 0;
}
