/* kmod.c — the code of a stand-in kernel module for the kernel tests
 * (tests/cli/perf_kernel.sh), built as a .ko is: an ET_REL object with a
 * build id (`cc -c -g -O2`, then `ld -r --build-id`).  No module can be
 * loaded on the machines the tests run on, so its samples are written into
 * a perf.data by tests/helpers/perf_kmod.py: mod_helper sampled while called from
 * mod_inner, which is inlined into mod_leaf, called from mod_entry.  The
 * stack with its inline frame: mod_entry -> mod_leaf -> mod_inner ->
 * mod_helper. */
__attribute__((noinline)) int mod_helper(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x ^ 0x5a;
}

static inline __attribute__((always_inline)) int mod_inner(int x)
{
	return mod_helper(x) * 3 + 1;
}

__attribute__((noinline)) int mod_leaf(int x)
{
	return mod_inner(x) + 2;
}

int mod_entry(int x)
{
	return mod_leaf(x) * 7;
}
