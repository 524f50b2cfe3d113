/* unwleaf.c — the library unwmaps.c maps many times (see there).  Its one
 * function touches no global and calls nothing: a copy of its text mapped
 * anywhere runs as it is. */
__attribute__((noinline)) unsigned long uw_leaf(unsigned long n)
{
	unsigned long x = 1;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}
