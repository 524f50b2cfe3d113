/* app.c — the fixture of tests/cli/serve.sh: functions with known names,
 * one of them inlined into its caller, so frames, inline chains and the
 * outermost function are all checked against nm and addr2line. */
#include <stdio.h>
#include <stdlib.h>

static inline __attribute__((always_inline)) int serve_leaf(int x)
{
	return x * 7 + (int)random();
}

__attribute__((noinline)) int serve_mid(int x)
{
	int r = serve_leaf(x);
	return r ^ 3;
}

__attribute__((noinline)) int serve_top(int x)
{
	return serve_mid(x) + serve_mid(x + 1);
}

int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", serve_top(argc));
	return 0;
}
