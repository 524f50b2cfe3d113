/* gnuform.c — a program without libc for the output-form tests of `symprof
 * symbolize` (tests/cli/symbolize_gnu.sh): inlined calls three deep, loops
 * whose lines carry discriminators, a static function whose DWARF has no
 * linkage name; built 64-bit and 32-bit (-m32, linked with ld -e entry). */
volatile int sink;

static inline __attribute__((always_inline)) int leaf(int x)
{
	return x * 3 + sink;
}

static inline __attribute__((always_inline)) int mid(int x)
{
	int s = 0;
	for (int i = 0; i < x; i++)
		s += leaf(i);
	return s;
}

__attribute__((noinline)) static int helper(int x)
{
	for (int i = 0; i < 4; i++)
		sink += i * x;
	return mid(x) + sink;
}

__attribute__((noinline)) int outer(int x)
{
	int s = 0;
	for (int i = 0; i < x; i++) if (i & 1) s += leaf(i); else s -= helper(i);
	return mid(x) + helper(x + 1) + s;
}

void entry(void)
{
	for (int i = 0; i < 3; i++)
		sink = outer(i) + (i ? helper(i) : 0);
	for (;;)
		;
}
