/* test_symtab.c — the symbol-table rules of symbolize/dwarf/symtab.c, a
 * table per rule.  The expected names are elfutils' dwfl_module_addrsym
 * rules as its own tests state them (tests/run-addrname-test.sh: sizeless
 * labels, nested symbols, bindings at one address), for symbol tables
 * written here; tests/cli/symbolize_symtab.sh checks the same rules on an
 * assembled object against eu-addr2line.
 */
#include "symbolize/dwarf/dwarfp.h"

#include "tests/helpers/tap.h"

#include <gelf.h>

#define G STB_GLOBAL
#define W STB_WEAK
#define L STB_LOCAL

typedef struct {
	uint64_t addr;
	const char *want; /* NULL: no symbol */
	uint64_t off;
} query;

/* Builds the table of SYMS and SECS and asks every query of Q. */
static void check(const char *rule, const sp_symtab_symbol *syms, size_t n,
		  const sp_symtab_section *secs, size_t n_secs, const query *q, size_t nq)
{
	sp_symtab t = {0};
	sp_symtab_build(&t, syms, n, secs, n_secs);
	for (size_t i = 0; i < nq; i++) {
		sp_symtab_hit h = {0};
		bool found = sp_symtab_lookup(&t, NULL, q[i].addr, &h);
		if (!q[i].want) {
			TAP_OK(!found, "%s: %#" PRIx64 " has no symbol (got %s)", rule, q[i].addr,
			       found ? h.name : "none");
			continue;
		}
		TAP_EQ_STR(found ? h.name : NULL, q[i].want, "%s: %#" PRIx64 " is %s+%#" PRIx64, rule,
			   q[i].addr, q[i].want, q[i].off);
		TAP_EQ_U64(found ? q[i].addr - h.value : UINT64_MAX, q[i].off,
			   "%s: offset at %#" PRIx64, rule, q[i].addr);
	}
	sp_symtab_clear(&t);
}

#define CHECK(rule, syms, secs, q)                                                       \
	check(rule, syms, SP_ARRAY_LEN(syms), secs, SP_ARRAY_LEN(secs), q, SP_ARRAY_LEN(q))

static const sp_symtab_section text[] = {{0x1000, 0x1400, ".text"}};

/* Rule 1: what counts. */
static void rule_counts(void)
{
	TAP_OK(sp_symtab_counts("f", STT_FUNC, 1), "rule 1: a function counts");
	TAP_OK(sp_symtab_counts("d", STT_OBJECT, 2), "rule 1: a data object counts");
	TAP_OK(sp_symtab_counts("_start", STT_NOTYPE, 1), "rule 1: an untyped label counts");
	TAP_OK(sp_symtab_counts("i", STT_GNU_IFUNC, 1), "rule 1: an ifunc counts");
	TAP_OK(sp_symtab_counts("_end", STT_NOTYPE, SHN_ABS), "rule 1: an absolute label counts");
	TAP_OK(!sp_symtab_counts(".text", STT_SECTION, 1), "rule 1: a section symbol does not");
	TAP_OK(!sp_symtab_counts("x.c", STT_FILE, SHN_ABS), "rule 1: a file symbol does not");
	TAP_OK(!sp_symtab_counts("tls", STT_TLS, 3), "rule 1: a TLS symbol does not");
	TAP_OK(!sp_symtab_counts("puts", STT_FUNC, SHN_UNDEF), "rule 1: an undefined one does not");
	TAP_OK(!sp_symtab_counts("", STT_FUNC, 1), "rule 1: a nameless one does not");
}

/* Rule 2: sized symbols, nesting and ties at one address. */
static void rule_sized(void)
{
	static const sp_symtab_symbol syms[] = {
		{0x1000, 0x40, "outer", G, false, NULL},
		{0x1010, 0x8, "inner", G, false, NULL},
		{0x1100, 0x2, "big", G, false, NULL},
		{0x1100, 0x1, "small1", G, false, NULL},
		{0x1100, 0x1, "small2", G, false, NULL},
		{0x1200, 0x1, "weak1", W, false, NULL},
		{0x1200, 0x4, "glob4", G, false, NULL},
		{0x1300, 0x10, "a", G, false, NULL},
		{0x1308, 0x10, "b_overlaps_a", G, false, NULL},
	};
	static const query q[] = {
		{0x1000, "outer", 0},       {0x100f, "outer", 0xf},
		{0x1010, "inner", 0},       {0x1017, "inner", 7},
		{0x1018, "outer", 0x18},    {0x103f, "outer", 0x3f},
		{0x1040, NULL, 0},          {0x1100, "small1", 0},
		{0x1101, "big", 1},         {0x1102, NULL, 0},
		{0x1200, "glob4", 0},       {0x1203, "glob4", 3},
		{0x1307, "a", 7},           {0x1308, "b_overlaps_a", 0},
		{0x1310, "b_overlaps_a", 8}, {0x1317, "b_overlaps_a", 0xf},
		{0x0fff, NULL, 0},
	};
	CHECK("rule 2", syms, text, q);
}

/* Rule 3: non-local symbols first. */
static void rule_binding(void)
{
	static const sp_symtab_symbol syms[] = {
		{0x1000, 0x20, "g_outer", G, false, NULL},
		{0x1004, 0x4, "l_in_g", L, false, NULL},
		{0x1100, 0x20, "l_outer", L, false, NULL},
		{0x1104, 0x4, "g_in_l", G, false, NULL},
		{0x1108, 0x4, "l_in_l", L, false, NULL},
		{0x1200, 0x40, "l_func", L, false, NULL},
		{0x1210, 0, "g_label", G, false, NULL},
	};
	static const query q[] = {
		{0x1005, "g_outer", 5},  {0x1104, "g_in_l", 0}, {0x1109, "l_in_l", 1},
		{0x110c, "l_outer", 0xc}, {0x1210, "g_label", 0}, {0x1211, "l_func", 0x11},
	};
	CHECK("rule 3", syms, text, q);
}

/* Rule 4: symbols without size. */
static void rule_sizeless(void)
{
	static const sp_symtab_section secs[] = {
		{0x1000, 0x1100, ".text"},
		{0x1100, 0x1100, ".empty"},
		{0x2000, 0x2010, ".data"},
	};
	static const sp_symtab_symbol syms[] = {
		{0x1001, 0, "label_a", L, false, NULL},
		{0x1003, 0x4, "sized_b", L, false, NULL},
		{0x1005, 0, "label_in_b", L, false, NULL},
		{0x1009, 0, "label_c", L, false, NULL},
		{0x1080, 0, "z_local", L, false, NULL},
		{0x1080, 0, "z_weak", W, false, NULL},
		{0x1080, 0, "z_g1", G, false, NULL},
		{0x1080, 0, "z_g2", G, false, NULL},
		{0x1090, 0, "w_1", W, false, NULL},
		{0x1090, 0, "w_2", W, false, NULL},
		{0x10a0, 0, "l_1", L, false, NULL},
		{0x10a0, 0, "l_2", L, false, NULL},
		{0x1100, 0, "etext", G, false, NULL},
		{0x2000, 0, "data_start", G, false, NULL},
		{0x3000, 0, "end_abs", G, true, NULL},
	};
	static const query q[] = {
		{0x1000, NULL, 0},        {0x1001, "label_a", 0},     {0x1002, "label_a", 1},
		{0x1005, "sized_b", 2},   {0x1007, NULL, 0},          {0x1008, NULL, 0},
		{0x1009, "label_c", 0},   {0x107f, "label_c", 0x76},  {0x1080, "z_g2", 0},
		{0x1081, "z_g2", 1},      {0x1090, "w_2", 0},         {0x10a1, "l_2", 1},
		{0x1100, "etext", 0},     {0x1101, NULL, 0},          {0x1fff, NULL, 0},
		{0x200f, "data_start", 0xf}, {0x2010, "data_start", 0x10},
		{0x2011, NULL, 0},        {0x3000, "end_abs", 0},     {0x3001, NULL, 0},
	};
	CHECK("rule 4", syms, secs, q);
}

/* Rule 5: versions. */
static void rule_versions(void)
{
	TAP_EQ_U64(sp_symtab_name_len("memcpy@@GLIBC_2.14"), 6, "rule 5: name@@VERSION");
	TAP_EQ_U64(sp_symtab_name_len("memcpy@GLIBC_2.2.5"), 6, "rule 5: name@VERSION");
	TAP_EQ_U64(sp_symtab_name_len("plain"), 5, "rule 5: no version");
	TAP_EQ_U64(sp_symtab_name_len("@odd"), 4, "rule 5: a name that starts with @ is whole");
}

/* Names the other way round: the first of a name in the table. */
static void by_name(void)
{
	static const sp_symtab_symbol syms[] = {
		{0x1000, 0x10, "dup", L, false, NULL},
		{0x1100, 0x10, "dup", G, false, NULL},
		{0x1200, 0, "label", L, false, NULL},
	};
	sp_symtab t = {0};
	sp_symtab_build(&t, syms, SP_ARRAY_LEN(syms), text, SP_ARRAY_LEN(text));
	sp_symtab_hit h = {0};
	TAP_OK(sp_symtab_find(&t, NULL, "dup", &h) && h.value == 0x1000 && h.size == 0x10,
	       "by name: the first of two in the table");
	TAP_OK(sp_symtab_find(&t, NULL, "label", &h) && h.value == 0x1200 && h.size == 0,
	       "by name: a label");
	TAP_OK(!sp_symtab_find(&t, NULL, "nope", &h), "by name: an unknown name");
	TAP_OK(!sp_symtab_find(&t, NULL, "", &h), "by name: the empty name");
	sp_symtab_clear(&t);
}

/* A local symbol's source file: the STT_FILE before it in the table, as
 * binutils and LLVM take it; a global one has none. */
static void source_files(void)
{
	static const sp_symtab_symbol syms[] = {
		{0x1000, 0x10, "local_a", L, false, "a.c"},
		{0x1010, 0x10, "global_a", G, false, "a.c"},
	};
	sp_symtab t = {0};
	sp_symtab_build(&t, syms, SP_ARRAY_LEN(syms), text, SP_ARRAY_LEN(text));
	sp_symtab_hit h = {0};
	TAP_OK(sp_symtab_lookup(&t, NULL, 0x1004, &h) && h.file && !strcmp(h.file, "a.c"),
	       "source file: a local symbol's STT_FILE");
	TAP_OK(sp_symtab_lookup(&t, NULL, 0x1014, &h) && !h.file, "source file: none for a global");
	sp_symtab_clear(&t);
}

int main(void)
{
	rule_counts();
	rule_sized();
	rule_binding();
	rule_sizeless();
	rule_versions();
	by_name();
	source_files();
	return tap_done();
}
