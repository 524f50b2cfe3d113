/* jitfuncs.c — stands in for code a JIT emits: compiled with
 * -ffunction-sections into an ET_REL object whose sections the tests place
 * at scattered "run-time" addresses.  Tests rely on the function names and
 * on the line of each marked statement (LINE-... comments). */
#include <stdint.h>

int jit_counter;
const char jit_table[64] = "constant data that is not code";

__attribute__((noinline)) int64_t jit_add(int64_t a, int64_t b)
{
	return a * 3 + b; /* LINE-add */
}

__attribute__((noinline)) int64_t jit_loop(int64_t n)
{
	int64_t s = 0;
	for (int64_t i = 0; i < n; i++)
		s += jit_add(i, s) ^ jit_table[i & 63]; /* LINE-loop */
	return s;
}

__attribute__((noinline)) int64_t jit_entry(int64_t n)
{
	jit_counter++;
	return jit_loop(n) + 1; /* LINE-entry */
}
