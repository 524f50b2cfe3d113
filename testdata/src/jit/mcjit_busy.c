/* mcjit_busy.c — JIT code that keeps the CPU busy, for tests/cli/perf_jit.sh:
 * clang -g -O1 -fno-omit-frame-pointer -emit-llvm turns it into bitcode,
 * tests/helpers/mcjit_host --perf-jit compiles it with LLVM's MCJIT (whose
 * PerfJITEventListener writes a jitdump file with line tables) and calls
 * mc_entry under `perf record`.  Nearly every sample is in busy_inner's loop
 * (line MARK-loop), called from busy_outer (line MARK-call). */
#include <stdint.h>

__attribute__((noinline)) int64_t busy_inner(int64_t n)
{
	volatile int64_t acc = 0;
	for (int64_t i = 0; i < n; i++)
		acc = acc + i; /* MARK-loop */
	return acc;
}

__attribute__((noinline)) int64_t busy_outer(int64_t n)
{
	int64_t r = busy_inner(n); /* MARK-call */
	return r + 1;
}

__attribute__((noinline)) int64_t mc_entry(int64_t x)
{
	int64_t r = busy_outer(x * 300000000); /* MARK-entry */
	return r - 1;
}
