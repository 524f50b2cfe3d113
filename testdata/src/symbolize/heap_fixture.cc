// heap_fixture.cc — a program whose heap is known, for tests/unit/formats/test_heap_real.c.
// It keeps 100 blocks of 100000 bytes allocated from big_alloc and 7 blocks
// of 3000 bytes from small_alloc.  Run under tcmalloc with HEAPPROFILE it
// leaves an "@ heapprofile" dump at exit.  With an argument it also keeps
// 100000 blocks of 1000 bytes from sampled_alloc and writes
// MallocExtension::GetHeapSample ("@ heap_v2/N") to that file.
#include <gperftools/malloc_extension.h>

#include <cstdio>
#include <cstdlib>
#include <string>

static void *keep[107];
static void *sampled[100000];

__attribute__((noinline)) void big_alloc(int i)
{
	keep[i] = malloc(100000);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void sampled_alloc(int n)
{
	for (int i = 0; i < n; i++) {
		void *p = malloc(1000);
		__asm__ volatile("" : : "r"(p) : "memory");
		sampled[i] = p;
	}
}

__attribute__((noinline)) void small_alloc(int i)
{
	keep[100 + i] = malloc(3000);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	for (int i = 0; i < 100; i++)
		big_alloc(i);
	for (int i = 0; i < 7; i++)
		small_alloc(i);
	if (argc > 1) {
		sampled_alloc(100000);
		std::string s;
		MallocExtension::instance()->GetHeapSample(&s);
		FILE *f = fopen(argv[1], "w");
		if (!f || fwrite(s.data(), 1, s.size(), f) != s.size() || fclose(f) != 0)
			return 1;
	}
	printf("%p\n", (void *)keep[0]);
	return 0;
}
