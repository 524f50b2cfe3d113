/* dwc_fixture.h — the three compile units (a.cc, b.cc, c.cc) of the
 * program test_dwarf_corrupt damages and test_dwwalk walks: templates,
 * functions inlined two levels deep, a cold part of main.
 */
#ifndef SYMPROF_TESTS_DWC_FIXTURE_H
#define SYMPROF_TESTS_DWC_FIXTURE_H

#include "common/common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fixture: namespace dwc, so every linkage name below follows from
 * these declarations by the Itanium C++ ABI.  KEEP keeps a function out of
 * its callers and unrenamed (GCC would clone it otherwise: .isra, .constprop). */
#define KEEP_DEF                                                              \
	"#ifdef __clang__\n#define KEEP __attribute__((noinline))\n#else\n"   \
	"#define KEEP __attribute__((noipa))\n#endif\n"
static const char *const dwc_fixture_src[] = {
	/* a.cc */
	KEEP_DEF
	"namespace dwc {\n"
	"volatile int sink;\n"
	"template <typename T> struct Box {\n"
	"	T v;\n"
	"	KEEP T get(int k) const { sink = k; return v + (T)k; }\n"
	"};\n"
	"template <typename T>\n"
	"static inline __attribute__((always_inline)) T twice(T x) { sink = (int)x; return x * 2; }\n"
	"static inline __attribute__((always_inline)) int thrice(int x) { return twice(x) + x; }\n"
	"KEEP int alpha(int x)\n"
	"{\n"
	"	int r = 0;\n"
	"	for (int i = 0; i < x; i++)\n"
	"		r += thrice(i ^ x);\n"
	"	return r;\n"
	"}\n"
	"KEEP long beta(long x) { Box<long> b{x}; return b.get((int)x) + twice<long>(x); }\n"
	"}\n",
	/* b.cc */
	KEEP_DEF
	"namespace dwc {\n"
	"extern volatile int sink;\n"
	"template <int N> KEEP int scale(int x)\n"
	"{\n"
	"	int r = x;\n"
	"	for (int i = 0; i < N; i++)\n"
	"		r = r * 3 + sink;\n"
	"	return r;\n"
	"}\n"
	"KEEP int gamma(int x) { return scale<3>(x) + scale<5>(x + 1); }\n"
	"}\n",
	/* c.cc */
	KEEP_DEF
	"namespace dwc {\n"
	"int alpha(int); long beta(long); int gamma(int);\n"
	"extern volatile int sink;\n"
	"struct Ring {\n"
	"	int v[4];\n"
	"	unsigned n;\n"
	"	KEEP void push(int x) { v[n++ & 3] = x; }\n"
	"};\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	(void)argv;\n"
	"	dwc::Ring r = {{0, 0, 0, 0}, 0};\n"
	"	if (__builtin_expect(argc > 5, 0)) {\n"
	"		for (int i = 0; i < argc; i++)\n"
	"			r.push(dwc::sink + i);\n"
	"		return r.v[1];\n"
	"	}\n"
	"	r.push(dwc::alpha(argc));\n"
	"	r.push((int)dwc::beta(argc));\n"
	"	r.push(dwc::gamma(argc));\n"
	"	return r.v[0] + r.v[1] + r.v[2];\n"
	"}\n",
};

/* Writes a.cc, b.cc and c.cc into DIR: whether all three were written. */
__attribute__((unused)) static bool dwc_fixture_write(const char *dir)
{
	static const char *const names[] = {"a.cc", "b.cc", "c.cc"};
	bool ok = true;
	for (size_t i = 0; i < SP_ARRAY_LEN(names); i++) {
		char *p = sp_xasprintf("%s/%s", dir, names[i]);
		FILE *f = fopen(p, "w");
		size_t len = strlen(dwc_fixture_src[i]);
		ok &= f && fwrite(dwc_fixture_src[i], 1, len, f) == len;
		ok &= f && fclose(f) == 0;
		free(p);
	}
	return ok;
}

#endif
