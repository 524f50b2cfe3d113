/* strip.c — libstrip.so of the perf-user fixture (spin.c): code in several
 * functions, so that a stripped copy leaves many distinct unnamed
 * addresses. */
static __attribute__((noinline)) unsigned long mix1(unsigned long s, unsigned long i)
{
	return (s ^ (s << 7)) + i;
}

static __attribute__((noinline)) unsigned long mix2(unsigned long s, unsigned long i)
{
	return (s * 31) ^ (i >> 2);
}

unsigned long lib_work(unsigned long n)
{
	unsigned long s = 7;
	for (unsigned long i = 0; i < n; i++) {
		__asm__ volatile(""); /* not pure: called every round */
		s = (i & 1) ? mix1(s, i) : mix2(s, i);
	}
	return s;
}
