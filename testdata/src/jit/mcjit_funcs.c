/* mcjit_funcs.c — the code LLVM's MCJIT compiles in tests/cli/mcjit.sh:
 * clang -g -O1 -fno-omit-frame-pointer -emit-llvm turns it into bitcode at
 * test time, tests/helpers/mcjit_host JIT-compiles it and calls mc_entry, whose calls
 * reach the host's host_record twice by two paths (tags 1 and 2).  No call
 * is in tail position, so every caller keeps its frame; mc_scale is a static
 * helper the compiler inlines into mc_twice.  The test finds the expected
 * line of each call through its MARK-... comment; keep one call per line. */
#include <stdint.h>

int64_t host_record(int64_t tag);

static inline int64_t mc_scale(int64_t x)
{
	return host_record(x) * 3 + x; /* MARK-scale */
}

__attribute__((noinline)) int64_t mc_twice(int64_t x)
{
	int64_t r = mc_scale(x) + 5; /* MARK-twice */
	return r * 2;
}

__attribute__((noinline)) int64_t mc_direct(int64_t x)
{
	int64_t r = host_record(x); /* MARK-direct */
	return r + 7;
}

__attribute__((noinline)) int64_t mc_middle(int64_t x)
{
	int64_t a = mc_twice(x); /* MARK-middle-twice */
	int64_t b = mc_direct(x + 1); /* MARK-middle-direct */
	return a * 11 + b;
}

__attribute__((noinline)) int64_t mc_entry(int64_t x)
{
	int64_t r = mc_middle(x); /* MARK-entry */
	return r - 1;
}
