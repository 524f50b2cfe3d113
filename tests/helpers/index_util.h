/* index_util.h — what the tests and the fuzz harness of the symbol index
 * share: checksums made again after a change, sections found, and an index
 * of made-up answers (every kind of frame and row the format has), which
 * does not depend on any compiler. */
#ifndef SYMPROF_TESTS_INDEX_UTIL_H
#define SYMPROF_TESTS_INDEX_UTIL_H

#include "symbolize/index/indexp.h"

#include <stdio.h>
#include <stdlib.h>

/* The page checksums and the header's checksums of index D (N bytes) made
 * again, as a writer that changed it would; nothing when its header does
 * not say where they are within the file. */
static inline void spx_test_rechecksum(unsigned char *d, size_t n)
{
	if (n < SPX_PAGE)
		return;
	uint64_t h = spx_le(d + SPX_H_HSIZE, 4), lid = spx_le(d + SPX_H_ID_LEN, 2),
		 nsec = spx_le(d + SPX_H_SECTIONS, 4), k = spx_le(d + SPX_H_TOP, 4);
	if (h < SPX_PAGE || h % SPX_PAGE || h > n || nsec > 64 || lid > SPX_BUILD_ID_MAX ||
	    k > SPX_PAGE)
		return;
	spx_header_parts pt = spx_parts(lid, nsec, k, h);
	uint64_t pages = (n - h + SPX_PAGE - 1) / SPX_PAGE;
	if (pt.crcs > SPX_PAGE || pt.crcs + 4 * pages > h)
		return;
	for (uint64_t p = 0; p < pages; p++) {
		uint64_t at = h + p * SPX_PAGE;
		size_t len = n - at < SPX_PAGE ? (size_t)(n - at) : SPX_PAGE;
		spx_put_le(d + pt.crcs + 4 * p, sp_crc32c(0, d + at, len), 4);
	}
	for (uint64_t j = 1; j < h / SPX_PAGE; j++)
		spx_put_le(d + pt.hcrcs + 4 * (j - 1), sp_crc32c(0, d + j * SPX_PAGE, SPX_PAGE), 4);
	memset(d + SPX_H_CRC, 0, 4);
	spx_put_le(d + SPX_H_CRC, sp_crc32c(0, d, SPX_PAGE), 4);
}

/* The offset and size of section KIND of the (well-formed) index D. */
static inline uint64_t spx_test_section(const unsigned char *d, unsigned kind, uint64_t *size)
{
	const unsigned char *e = d + SPX_FIXED + (spx_le(d + 44, 2) + 7) / 8 * 8 +
				 SPX_SECTION_ENTRY * (kind - 1);
	*size = spx_le(e + 16, 8);
	return spx_le(e + 8, 8);
}

/* NAME as a resolver in STYLE gives it: demangled unless GO (a name
 * made is put in KEEP). */
static inline const char *spx_test_styled(const char *name, bool go, sp_demangle_style style,
					  char **keep, size_t *n_keep)
{
	char *dn = name && !go ? sp_demangle(name, style) : NULL;
	if (dn)
		keep[(*n_keep)++] = dn;
	return dn ? dn : name;
}

/* Made-up answer I, as a resolver that demangles nothing gives it: 4
 * bytes apart from 0x401000 (gaps where nothing is known every 37th, an
 * error at the 50th, Go frames every 11th; chains one to four deep; C and
 * C++ names, a name other than the raw one (an ABI suffix cut) and
 * binutils' names of their own, columns, discriminators, lines that jump)
 * into *A, its frames in F (4), a name in NAME_BUF (64 bytes), an error
 * in *ERR (the caller frees). */
static inline void spx_test_answer(size_t i, sp_answer *a, sp_frame *f, char *name_buf,
				   sp_error **err)
{
	static const char *const names[] = {
		"_ZN2ns3sumIiEET_PKS1_m", "plain_c_function", "_ZN5outer5inner6Widget7computeEi",
		"_Z4leafIlET_S0_", "_ZNSt6vectorIiSaIiEE9push_backERKi", "main.main",
		"_ZN12_GLOBAL__N_16hiddenEi", "runtime.memmove.abi0",
	};
	static const char *const files[] = {"/src/a.c", "/src/include/b.h", "/src/c++/d.hpp",
					    NULL};
	*a = (sp_answer){.start = 0x401000 + 4 * (uint64_t)i};
	*err = NULL;
	a->go = i % 11 == 3;
	a->n = i % 37 == 36 ? 0 : 1 + (i / 3) % 4;
	if (i == 50) {
		*err = sp_error_new(SP_E_MALFORMED, "synthetic: a function's record is broken");
		a->err = *err;
		a->n = 0;
	}
	for (size_t k = 0; k < a->n; k++) {
		f[k] = (sp_frame){0};
		size_t fn = (i / 5 + k * 3) % SP_ARRAY_LEN(names);
		const char *raw = names[fn];
		if (i % 13 == 0 && k + 1 == a->n) { /* many distinct names: several pages */
			snprintf(name_buf, 64, "generated_function_number_%zu_with_a_long_name", i);
			raw = name_buf;
		}
		f[k].system_name = raw;
		f[k].name = raw;
		if (!strcmp(raw, "runtime.memmove.abi0"))
			f[k].name = "runtime.memmove"; /* Go's ABI suffix cut */
		if (!a->go && fn % 3 == 0)
			f[k].gnu_name = fn == 0 ? names[2] : f[k].name;
		f[k].file = files[(i + k) % SP_ARRAY_LEN(files)];
		f[k].line = (int64_t)(10 + (i * 7 + k * 100) % 500);
		f[k].column = (int32_t)((i + k) % 23);
		f[k].discriminator = (uint32_t)(i % 9 == 0 ? i % 5 : 0);
		f[k].start_line = (int32_t)(fn * 40);
		f[k].inlined = k + 1 < a->n;
	}
	a->frames = a->n ? f : NULL;
}

/* The frames of A (spx_test_answer's) as a resolver in STYLE gives them,
 * into F (names made put in KEEP, 8). */
static inline void spx_test_styled_answer(const sp_answer *a, sp_demangle_style style,
					  sp_frame *f, char **keep, size_t *n_keep)
{
	*n_keep = 0;
	for (size_t k = 0; k < a->n; k++) {
		f[k] = a->frames[k];
		f[k].name = spx_test_styled(a->frames[k].name, a->go, style, keep, n_keep);
		f[k].gnu_name = spx_test_styled(a->frames[k].gnu_name, a->go, style, keep, n_keep);
	}
}

/* An index of made-up answers 0..N-1 (spx_test_answer) and nothing known
 * after them, for build id
 * "5eed" + N in hex, into OUT.  Large enough N makes several blocks and
 * pages. */
static inline sp_error *spx_test_synthetic(size_t n, sp_buf *out)
{
	spx_builder *b = spx_builder_new("synthetic");
	sp_error *e = NULL;
	char name_buf[64];
	for (size_t i = 0; i < n && !e; i++) {
		sp_frame f[4];
		sp_answer a;
		sp_error *err;
		spx_test_answer(i, &a, f, name_buf, &err);
		e = spx_builder_add(b, &a);
		sp_error_free(err);
	}
	if (!e) { /* nothing known past the last */
		sp_answer end = {.start = 0x401000 + 4 * (uint64_t)n};
		e = spx_builder_add(b, &end);
	}
	char id[32];
	snprintf(id, sizeof(id), "5eed%zx", n);
	sp_index_stats st;
	if (!e)
		e = spx_builder_finish(b, id, SPX_FLAG_DWARF | SPX_FLAG_GO | SPX_FLAG_SYMBOLS,
				       "/usr/lib/debug/synthetic.debug", NULL, out, &st);
	spx_builder_free(b);
	return e;
}

#endif
