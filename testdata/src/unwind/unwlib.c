/* unwlib.c — the linked library of the unwinding fixture (unwbusy.c). */
__attribute__((noinline)) unsigned long uw_lib_spin(unsigned long n)
{
	unsigned long x = 1;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}
