/* unwfork.c — several processes to unwind: the fixture of parallel
 * unwinding (tests/cli/unwind_procs.sh, bench/unwind-procs.sh).  Built by
 * build.sh without frame pointers, linked to libunwlib.so.
 *
 *   unwfork CHILDREN UNITS [DEPTH]
 *
 * forks CHILDREN children (1 to 8) and waits for them.  Child I does UNITS
 * units of work, each under the stack
 *   main -> uwf_child -> uwf_cI -> uwf_deep (K times) -> LEAF
 * where K = (unit * 7 + I) % DEPTH (DEPTH 1 to 64, default 1: no uwf_deep)
 * and LEAF is uwf_spinI for three units of four, uw_lib_spin of
 * libunwlib.so for the fourth.  uwf_cI and uwf_spinI are functions of child
 * I alone (their bodies differ, so that no linker folds them), so a stack
 * names its process; every stack of child I begins main;uwf_child;uwf_cI. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

unsigned long uw_lib_spin(unsigned long n);

typedef unsigned long (*leaf_fn)(unsigned long);

static volatile unsigned long sink;

/* iterations of a unit's leaf */
#define UNIT 200000UL

#define SPIN(I, MUL)                                                     \
	__attribute__((noinline)) unsigned long uwf_spin##I(unsigned long n) \
	{                                                                    \
		unsigned long x = I + 1;                                     \
		for (unsigned long i = 0; i < n; i++)                        \
			x = x * MUL + 1442695040888963407ULL + I;            \
		return x;                                                    \
	}
SPIN(0, 6364136223846793005ULL)
SPIN(1, 2862933555777941757ULL)
SPIN(2, 3202034522624059733ULL)
SPIN(3, 3935559000370003845ULL)
SPIN(4, 2685821657736338717ULL)
SPIN(5, 1181783497276652981ULL)
SPIN(6, 7664345821815920749ULL)
SPIN(7, 4292484099903637661ULL)

/* K more frames, then the leaf */
__attribute__((noinline)) unsigned long uwf_deep(unsigned k, leaf_fn leaf, unsigned long n)
{
	unsigned long r = k ? uwf_deep(k - 1, leaf, n) : leaf(n);
	sink += r;
	return r + k;
}

#define CHILD(I)                                                                   \
	__attribute__((noinline)) unsigned long uwf_c##I(unsigned long units,      \
							 unsigned depth)           \
	{                                                                          \
		unsigned long r = I;                                               \
		for (unsigned long u = 0; u < units; u++)                          \
			r += uwf_deep((unsigned)((u * 7 + I) % depth),             \
				      u % 4 == 3 ? uw_lib_spin : uwf_spin##I, UNIT); \
		sink += r;                                                         \
		return r + I;                                                      \
	}
CHILD(0)
CHILD(1)
CHILD(2)
CHILD(3)
CHILD(4)
CHILD(5)
CHILD(6)
CHILD(7)

typedef unsigned long (*child_fn)(unsigned long, unsigned);
static const child_fn children[8] = {uwf_c0, uwf_c1, uwf_c2, uwf_c3,
				     uwf_c4, uwf_c5, uwf_c6, uwf_c7};

__attribute__((noinline)) unsigned long uwf_child(unsigned i, unsigned long units, unsigned depth)
{
	unsigned long r = children[i](units, depth);
	sink += r;
	return r + 1;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 4;
	unsigned long units = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000;
	unsigned depth = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 1;
	if (n < 1 || n > 8 || depth < 1 || depth > 64) {
		fprintf(stderr, "usage: unwfork CHILDREN(1-8) UNITS [DEPTH(1-64)]\n");
		return 2;
	}
	for (unsigned i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			unsigned long r = uwf_child(i, units, depth);
			_exit(r == 42 ? 3 : 0);
		}
	}
	int bad = 0, st;
	while (wait(&st) > 0)
		bad |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	return bad;
}
