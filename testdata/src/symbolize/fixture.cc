// Fixture for the resolver tests: namespaces, templates, static and inline
// functions inlined several levels deep, built -O2 -g at test time.  Lines
// carrying a MARK comment are found by the tests by name.
#include <cstdlib>

volatile int sink;

namespace outer {
namespace inner {

template <typename T>
static inline __attribute__((always_inline)) T leaf(T x)
{
	sink = (int)x; // MARK:leaf_store
	return x * 3 + 1;
}

template <typename T>
static inline __attribute__((always_inline)) T middle(T x)
{
	T y = leaf(x + 1); // MARK:middle_call
	sink = (int)y;
	return y + leaf(y);
}

inline __attribute__((always_inline)) int top(int x)
{
	int r = 0;
	for (int i = 0; i < x; i++)
		r += (int)middle<long>(i ^ x); // MARK:top_call
	return r;
}

struct Widget {
	int v;
	int compute(int n);
};

__attribute__((noinline)) int Widget::compute(int n) // MARK:compute_decl
{
	int acc = 0;
	for (int i = 0; i < n; i++)
		acc += top(i + v); // MARK:compute_call
	return acc;
}
} // namespace inner

template <int N>
__attribute__((noinline)) int unrolled(int x)
{
	return (int)inner::middle<long>(x) + N; // MARK:unrolled
}

namespace {
__attribute__((noinline)) int hidden(int x)
{
	int s = 0;
	for (int i = 0; i < x; i++)
		s += inner::top(i) * unrolled<3>(i);
	return s;
}
} // namespace
} // namespace outer

static __attribute__((noinline)) int helper(int x) // MARK:helper_decl
{
	if (x > 100)
		return outer::unrolled<7>(x); // MARK:helper_call
	return outer::hidden(x) + outer::unrolled<5>(x);
}

#define GEN(n)                                                                \
	__attribute__((noinline)) int gen##n(int x)                           \
	{                                                                     \
		int r = x;                                                    \
		for (int i = 0; i < (x & 7); i++)                             \
			r += outer::inner::top(r + n) ^ (int)outer::inner::middle<int>(i); \
		return r;                                                     \
	}
GEN(1) GEN(2) GEN(3) GEN(4) GEN(5) GEN(6) GEN(7) GEN(8)
GEN(9) GEN(10) GEN(11) GEN(12) GEN(13) GEN(14) GEN(15) GEN(16)

int main(int argc, char **argv)
{
	outer::inner::Widget w{argc};
	int x = argc > 1 ? atoi(argv[1]) : 3;
	x += gen1(x) + gen2(x) + gen3(x) + gen4(x) + gen5(x) + gen6(x) + gen7(x) + gen8(x);
	x += gen9(x) + gen10(x) + gen11(x) + gen12(x) + gen13(x) + gen14(x) + gen15(x) + gen16(x);
	return w.compute(x) + helper(x);
}
