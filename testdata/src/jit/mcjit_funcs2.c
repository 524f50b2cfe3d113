/* mcjit_funcs2.c — a second module for tests/cli/mcjit.sh: MCJIT turns it
 * into an object of its own, whose mc2_entry calls mc_direct of the first
 * module (testdata/src/jit/mcjit_funcs.c), so one stack crosses two JIT objects.
 * The test finds the call's line through its MARK-... comment. */
#include <stdint.h>

int64_t mc_direct(int64_t x);

__attribute__((noinline)) int64_t mc2_entry(int64_t x)
{
	int64_t r = mc_direct(x); /* MARK-mc2-entry */
	return r * 2;
}
