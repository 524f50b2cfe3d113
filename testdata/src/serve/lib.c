/* lib.c — a second object for tests/cli/serve.sh (sessions of two objects,
 * evicted in turn under --max-sessions 1). */
__attribute__((noinline)) int serve_lib_one(int x)
{
	return x * 5 + 1;
}

__attribute__((noinline)) int serve_lib_two(int x)
{
	return serve_lib_one(x) * 3;
}
