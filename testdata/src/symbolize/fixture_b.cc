// A second compile unit for the split-DWARF tests (tests/cli/split_dwarf.sh): linked
// before fixture.cc, it moves that unit's .debug_addr and range-list bases off zero, and
// its own inline functions sit at the same DIE offsets as others in another .dwo.
volatile int sink_b;

namespace second {

static inline __attribute__((always_inline)) int scale(int x)
{
	sink_b = x;
	return x * 5 + 2;
}

static inline __attribute__((always_inline)) int twice(int x)
{
	int y = scale(x);
	sink_b = y;
	return y + scale(y ^ 3);
}

__attribute__((noinline)) int entry(int n)
{
	int acc = 0;
	for (int i = 0; i < n; i++)
		acc += twice(i + acc);
	return acc;
}

__attribute__((noinline)) int other(int n)
{
	return n > 3 ? twice(n) : scale(n) + entry(n);
}

} // namespace second
