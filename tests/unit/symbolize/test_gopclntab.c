/* test_gopclntab.c — symbolize/gopclntab.c over tables built here, in each
 * of Go's four layouts (1.2, 1.16, 1.18, 1.20+), both byte orders, 4- and
 * 8-byte pointers, pc quanta 1 and 4; the expected answers follow from how
 * the tables are built (the program below).  Then the malformed tables of
 * tests/malformed/gopclntab/: each must give the error its .expect names.
 *
 * The program, at text 0x1000 (offsets from its entry):
 *
 *   main.a  0x1000, 0x40 bytes, a.go: line 10 up to +0x10, then 11
 *   main.b  0x1040, 0x40 bytes: b.go:20 up to +0x10; then main.leaf
 *           inlined (its call at +0x8), c.go:5, up to +0x20; then
 *           main.inner inlined into main.leaf (its call at +0x10), c.go:7,
 *           up to +0x30; then b.go:21
 *   main.c  0x1080, 0x20 bytes, no pc tables
 *
 * The inline tree is stored after the table's other parts, and the
 * funcdata point at it as the layout says (an address for 1.16, an offset
 * from gofunc = the table's own address for 1.18+).
 *
 *   test_gopclntab --write-seeds DIR   writes the tables (fuzz seeds)
 *   test_gopclntab --write-malformed DIR   writes the malformed ones
 */
#include "symbolize/dwarf/gopclntab.h"
#include "tests/helpers/tap.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VADDR 0x20000u
#define TEXT 0x1000u

typedef struct {
	unsigned char *b;
	size_t n, cap;
	bool be;
} buf;

static void put(buf *o, uint64_t v, unsigned size)
{
	for (unsigned i = 0; i < size; i++) {
		unsigned sh = o->be ? 8 * (size - 1 - i) : 8 * i;
		unsigned char c = (unsigned char)(v >> sh);
		SP_PUSH(o->b, o->n, o->cap, c);
	}
}

static void put_bytes(buf *o, const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		SP_PUSH(o->b, o->n, o->cap, ((const unsigned char *)p)[i]);
}

static size_t put_str(buf *o, const char *s)
{
	size_t at = o->n;
	put_bytes(o, s, strlen(s) + 1);
	return at;
}

static void put_varint(buf *o, uint32_t v)
{
	while (v >= 0x80) {
		unsigned char c = (unsigned char)(v | 0x80);
		SP_PUSH(o->b, o->n, o->cap, c);
		v >>= 7;
	}
	unsigned char c = (unsigned char)v;
	SP_PUSH(o->b, o->n, o->cap, c);
}

/* A pc-value table: VALS[i] holds up to offset ENDS[i]; returns its offset
 * in PC (which starts with a dummy byte: offset 0 means none). */
static uint32_t put_pcvalue(buf *pc, const int32_t *vals, const uint32_t *ends, size_t n,
			    unsigned quantum)
{
	uint32_t at = (uint32_t)pc->n;
	int32_t prev = -1;
	uint32_t prev_end = 0;
	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n && vals[i + 1] == vals[i])
			continue; /* one pair per run of a value, as Go writes them */
		int32_t d = vals[i] - prev;
		put_varint(pc, (uint32_t)d << 1 ^ (d < 0 ? UINT32_MAX : 0)); /* zig-zag */
		put_varint(pc, (ends[i] - prev_end) / quantum);
		prev = vals[i];
		prev_end = ends[i];
	}
	put_varint(pc, 0);
	return at;
}

typedef struct {
	sp_go_layout layout;
	unsigned ptr, quantum;
	bool be;
} shape;

/* The table of the program above in shape S (caller frees *OUT). */
static size_t build(const shape *s, unsigned char **out)
{
	bool v12 = s->layout == SP_GO12;
	unsigned p = s->ptr, q = s->quantum;
	buf names = {.be = s->be}, files = {.be = s->be}, cu = {.be = s->be}, pc = {.be = s->be};
	put_varint(&pc, 0); /* offset 0 is "none" */
	if (v12)
		put_str(&names, ""); /* 1.2 offsets are from the magic: patched below */
	size_t n_a = put_str(&names, "main.a"), n_b = put_str(&names, "main.b"),
	       n_c = put_str(&names, "main.c"), n_leaf = put_str(&names, "main.leaf"),
	       n_inner = put_str(&names, "main.inner");
	/* files: 1.16+ a cu table of offsets into filetab; 1.2 indexes 1.. */
	size_t f_a = put_str(&files, "a.go"), f_b = put_str(&files, "b.go"),
	       f_c = put_str(&files, "c.go");
	put(&cu, f_a, 4);
	put(&cu, f_b, 4);
	put(&cu, f_c, 4);
	/* file numbers: cu index (1.16+) or file table index (1.2) */
	int32_t fa = v12 ? 1 : 0, fb = v12 ? 2 : 1, fc = v12 ? 3 : 2;
	uint32_t ea[] = {0x10, 0x40}, eb[] = {0x10, 0x20, 0x30, 0x40}, e1[] = {0x40};
	int32_t la[] = {10, 11}, lb[] = {20, 5, 7, 21}, fla[] = {fa}, flb[] = {fb, fc, fc, fb};
	int32_t ib[] = {-1, 0, 1, -1};
	uint32_t a_file = put_pcvalue(&pc, fla, e1, 1, q), a_line = put_pcvalue(&pc, la, ea, 2, q);
	uint32_t b_file = put_pcvalue(&pc, flb, eb, 4, q), b_line = put_pcvalue(&pc, lb, eb, 4, q);
	uint32_t b_inl = put_pcvalue(&pc, ib, eb, 4, q);

	/* layout of the whole: header, [names, cu, files, pc,] functab and
	 * records, [1.2: names, pc, file table], inline tree */
	size_t hdr = v12 ? 8 + p : s->layout == SP_GO116 ? 8 + 7 * p : 8 + 8 * p;
	unsigned fsz = s->layout >= SP_GO118 ? 4 : p;
	size_t functab_sz = 7 * fsz + (v12 ? 4 : 0);
	unsigned fixed = v12 ? p + 32 : s->layout == SP_GO116 ? p + 36 : s->layout == SP_GO118 ? 40 : 44;
	size_t o_names = hdr, o_cu = o_names + names.n, o_files = o_cu + cu.n,
	       o_pc = o_files + files.n, o_pcln = o_pc + pc.n;
	if (v12) {
		o_pcln = hdr;
		o_cu = o_files = o_pc = 0;
	}
	/* records: a (npcdata 0), b (npcdata 3, nfuncdata 4), c */
	size_t rec_a = functab_sz, rec_b, rec_c, end;
	size_t sz_a = fixed, sz_b = fixed + 3 * 4 + 4 * (s->layout >= SP_GO118 ? 4 : p) + p;
	rec_a = (rec_a + 7) & ~(size_t)7;
	rec_b = (rec_a + sz_a + 7) & ~(size_t)7;
	rec_c = (rec_b + sz_b + 7) & ~(size_t)7;
	end = rec_c + fixed;
	if (v12) { /* names, pc tables and the file table after the records */
		o_names = o_pcln + end;
		o_pc = o_names + names.n;
		o_files = o_pc + pc.n;
		end += names.n + pc.n;
	}
	size_t o_filetab12 = v12 ? o_files + files.n : 0; /* u32 count + offsets */
	buf t = {.be = s->be};
	put(&t, s->layout == SP_GO12 ? 0xfffffffb : s->layout == SP_GO116 ? 0xfffffffa
		: s->layout == SP_GO118 ? 0xfffffff0 : 0xfffffff1, 4);
	unsigned char mid[4] = {0, 0, (unsigned char)q, (unsigned char)p};
	put_bytes(&t, mid, 4);
	put(&t, 3, p);
	if (!v12) {
		put(&t, 3, p);
		if (s->layout >= SP_GO118)
			put(&t, TEXT, p);
		put(&t, o_names, p);
		put(&t, o_cu, p);
		put(&t, o_files, p);
		put(&t, o_pc, p);
		put(&t, o_pcln, p);
		put_bytes(&t, names.b, names.n);
		put_bytes(&t, cu.b, cu.n);
		put_bytes(&t, files.b, files.n);
		put_bytes(&t, pc.b, pc.n);
	}
	/* the function table */
	uint64_t entries[] = {0x1000, 0x1040, 0x1080, 0x10a0};
	size_t recs[] = {rec_a, rec_b, rec_c};
	size_t fn_base = v12 ? 0 : o_pcln;
	for (size_t i = 0; i < 4; i++) {
		uint64_t e = s->layout >= SP_GO118 ? entries[i] - TEXT : entries[i];
		put(&t, e, fsz);
		if (i < 3)
			put(&t, o_pcln + recs[i] - fn_base, fsz);
	}
	size_t o_tree = o_pcln + end;
	if (v12) {
		o_tree = 0;
		put(&t, o_filetab12, 4);
	}
	uint32_t nb = v12 ? (uint32_t)o_names : 0, pb = v12 ? (uint32_t)o_pc : 0;
	uint32_t name_of[] = {(uint32_t)n_a + nb, (uint32_t)n_b + nb, (uint32_t)n_c + nb};
	uint32_t pcf[] = {a_file + pb, b_file + pb, 0}, pcl[] = {a_line + pb, b_line + pb, 0};
	for (size_t i = 0; i < 3; i++) {
		while (t.n < o_pcln + recs[i])
			put(&t, 0, 1);
		size_t start = t.n;
		if (s->layout >= SP_GO118)
			put(&t, entries[i] - TEXT, 4);
		else
			put(&t, entries[i], p);
		put(&t, name_of[i], 4);
		put(&t, 0, 4); /* args */
		put(&t, 0, 4); /* deferreturn */
		put(&t, 0, 4); /* pcsp */
		put(&t, pcf[i], 4);
		put(&t, pcl[i], 4);
		put(&t, i == 1 ? 3 : 0, 4); /* npcdata */
		if (!v12)
			put(&t, 0, 4); /* cuOffset: the one unit */
		if (s->layout >= SP_GO120)
			put(&t, 0, 4); /* startLine */
		while (t.n < start + fixed - 1)
			put(&t, 0, 1);
		put(&t, i == 1 ? 4 : 0, 1); /* nfuncdata */
		if (i != 1)
			continue;
		put(&t, 0, 4);
		put(&t, 0, 4);
		put(&t, b_inl + pb, 4);
		if (s->layout >= SP_GO118) {
			for (unsigned k = 0; k < 3; k++)
				put(&t, 0xffffffff, 4);
			put(&t, o_tree, 4); /* from gofunc, the table's address */
		} else {
			if (p == 8 && ((VADDR + t.n) & 4))
				put(&t, 0, 4);
			for (unsigned k = 0; k < 3; k++)
				put(&t, 0, p);
			put(&t, v12 ? 0 : VADDR + o_tree, p);
		}
	}
	while (t.n < o_pcln + end - (v12 ? names.n + pc.n : 0))
		put(&t, 0, 1);
	if (v12) {
		put_bytes(&t, names.b, names.n);
		put_bytes(&t, pc.b, pc.n);
		put_bytes(&t, files.b, files.n);
		put(&t, 4, 4); /* the count, in slot 0; files 1..3 */
		put(&t, o_files + f_a, 4);
		put(&t, o_files + f_b, 4);
		put(&t, o_files + f_c, 4);
	} else {
		/* the inline tree: leaf (call at +0x8), inner (call at +0x10) */
		uint32_t nm[] = {(uint32_t)n_leaf, (uint32_t)n_inner}, ppc[] = {0x8, 0x10};
		for (size_t k = 0; k < 2; k++) {
			if (s->layout >= SP_GO120) {
				put(&t, 0, 4); /* funcID, pad */
				put(&t, nm[k], 4);
				put(&t, ppc[k], 4);
				put(&t, 0, 4);
			} else {
				put(&t, k == 0 ? 0xffff : 0, 2); /* parent */
				put(&t, 0, 2);
				put(&t, 0, 4); /* file */
				put(&t, 0, 4); /* line */
				put(&t, nm[k], 4);
				put(&t, ppc[k], 4);
			}
		}
	}
	free(names.b);
	free(files.b);
	free(cu.b);
	free(pc.b);
	*out = t.b;
	return t.n;
}

static sp_error *open_table(const unsigned char *d, size_t n, sp_gopcln **t)
{
	sp_go_region r = {VADDR, d, n};
	sp_gopcln_input in = {.data = d, .size = n, .vaddr = VADDR, .text_start = TEXT,
			      .regions = &r, .n_regions = 1, .gofunc = VADDR};
	return sp_gopcln_open(&in, "test table", t);
}

/* "name@file:line | ..." of PC, or the error's message. */
static char *answer(sp_gopcln *t, uint64_t pc)
{
	sp_gopcln_frame f[8];
	size_t n;
	sp_error *e = sp_gopcln_lookup(t, pc, f, 8, &n);
	if (e) {
		char *m = sp_error_string(e);
		sp_error_free(e);
		return m;
	}
	char *s = sp_xstrdup("");
	for (size_t i = 0; i < n; i++) {
		char *x = sp_xasprintf("%s%s%s@%s:%lld", s, i ? " | " : "", f[i].name,
				       f[i].file ? f[i].file : "?", (long long)f[i].line);
		free(s);
		s = x;
	}
	return s;
}

static const char *layout_name(sp_go_layout l)
{
	return l == SP_GO12 ? "1.2" : l == SP_GO116 ? "1.16" : l == SP_GO118 ? "1.18" : "1.20";
}

static void check_shape(const shape *s)
{
	unsigned char *d;
	size_t n = build(s, &d);
	char what[64];
	snprintf(what, sizeof(what), "%s %s ptr %u quantum %u", layout_name(s->layout),
		 s->be ? "BE" : "LE", s->ptr, s->quantum);
	sp_gopcln *t = NULL;
	sp_error *e = open_table(d, n, &t);
	if (!TAP_OK(!e, "%s: opens", what)) {
		char *m = sp_error_string(e);
		printf("#   %s\n", m);
		free(m);
		sp_error_free(e);
		free(d);
		return;
	}
	TAP_OK(sp_gopcln_layout(t) == s->layout && sp_gopcln_nfunc(t) == 3 &&
		       sp_gopcln_entry(t, 1) == 0x1040,
	       "%s: layout, 3 functions, second at 0x1040", what);
	bool v12 = s->layout == SP_GO12;
	struct {
		uint64_t pc;
		const char *want;
	} rows[] = {
		{0x0fff, ""},
		{0x1000, "main.a@a.go:10"},
		{0x100c, "main.a@a.go:10"},
		{0x1010, "main.a@a.go:11"},
		{0x103c, "main.a@a.go:11"},
		{0x1040, "main.b@b.go:20"},
		{0x1054, v12 ? "main.b@c.go:5" : "main.leaf@c.go:5 | main.b@b.go:20"},
		{0x1064, v12 ? "main.b@c.go:7"
			     : "main.inner@c.go:7 | main.leaf@c.go:5 | main.b@b.go:20"},
		{0x1070, "main.b@b.go:21"},
		{0x1080, "main.c@?:0"},
		{0x10a0, ""},
	};
	for (size_t i = 0; i < SP_ARRAY_LEN(rows); i++) {
		char *got = answer(t, rows[i].pc);
		TAP_EQ_STR(got, rows[i].want, "%s: 0x%llx", what, (unsigned long long)rows[i].pc);
		free(got);
	}
	/* without the inline tree's location: the innermost line, outer name */
	if (!v12) {
		sp_gopcln_input in = {.data = d, .size = n, .vaddr = VADDR, .text_start = TEXT};
		sp_gopcln *t2;
		sp_error_free(sp_gopcln_open(&in, "x", &t2));
		char *got = t2 ? answer(t2, 0x1064) : NULL;
		TAP_EQ_STR(got, "main.b@c.go:7", "%s: no inline tree known: outer name", what);
		free(got);
		sp_gopcln_free(t2);
	}
	sp_gopcln_free(t);
	free(d);
}

/* The malformed tables: mutations of the 1.18 table, named by the error
 * they must give.  Each returns the table's size. */
typedef struct {
	const char *name, *expect;
} bad_case;

static const bad_case bad_cases[] = {
	{"bad_magic", "magic 0x12345678 is none of Go's"},
	{"truncated_header", "header word expected, table too short"},
	{"functab_past_end", "function table of 4096 functions does not fit"},
	{"record_past_end", "function 0's record at"},
	{"nameoff_past_end", "function name offset past the table's end"},
	{"varint_off_end", "varint runs off the table"},
	{"unsorted_functab", "function entries in ascending order expected"},
};

static size_t make_bad(const char *name, unsigned char **out)
{
	shape s = {SP_GO118, 8, 1, false};
	unsigned char *d;
	size_t n = build(&s, &d);
	/* header words: 8 nfunc, 16 nfiles, 24 text, 32 funcname, 40 cu,
	 * 48 filetab, 56 pctab, 64 pcln */
	uint64_t pcln = 0, pct = 0;
	for (int i = 7; i >= 0; i--) {
		pcln = pcln << 8 | d[64 + i];
		pct = pct << 8 | d[56 + i];
	}
	if (strcmp(name, "bad_magic") == 0) {
		memcpy(d, "\x78\x56\x34\x12", 4);
	} else if (strcmp(name, "truncated_header") == 0) {
		n = 40;
	} else if (strcmp(name, "functab_past_end") == 0) {
		d[8] = 0;
		d[9] = 0x10; /* nfunc 4096 */
	} else if (strcmp(name, "record_past_end") == 0) {
		memcpy(d + pcln + 4, "\x00\x00\x01\x00", 4); /* main.a's record offset 65536 */
	} else if (strcmp(name, "nameoff_past_end") == 0) {
		uint64_t rec = pcln + (d[pcln + 4] | (uint64_t)d[pcln + 5] << 8);
		memcpy(d + rec + 4, "\xff\xff\x00\x00", 4);
	} else if (strcmp(name, "varint_off_end") == 0) {
		/* main.a's pcln table moved to the last byte, a continued varint */
		uint64_t rec = pcln + (d[pcln + 4] | (uint64_t)d[pcln + 5] << 8);
		uint32_t off = (uint32_t)(n - 1 - pct);
		d[n - 1] = 0x80;
		for (int i = 0; i < 4; i++)
			d[rec + 24 + i] = (unsigned char)(off >> (8 * i));
	} else if (strcmp(name, "unsorted_functab") == 0) {
		d[pcln + 8] = 0x00; /* main.b's entry before main.a's */
		d[pcln + 9] = 0x00;
		d[pcln] = 0x10;
	}
	*out = d;
	return n;
}

/* The first error of opening D and looking up every pc of its text. */
static char *first_error(const unsigned char *d, size_t n)
{
	sp_gopcln *t;
	sp_error *e = open_table(d, n, &t);
	for (uint64_t pc = TEXT; !e && pc < TEXT + 0xa0; pc++) {
		sp_gopcln_frame f[8];
		size_t nf;
		e = sp_gopcln_lookup(t, pc, f, 8, &nf);
	}
	sp_gopcln_free(t);
	char *m = e ? sp_error_string(e) : NULL;
	sp_error_free(e);
	return m;
}

static int write_file(const char *dir, const char *name, const unsigned char *d, size_t n)
{
	char *path = sp_xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(d, 1, n, f) == n;
	if (f && fclose(f) != 0)
		ok = 0;
	if (!ok)
		fprintf(stderr, "cannot write %s\n", path);
	free(path);
	return ok ? 0 : 1;
}

static const shape shapes[] = {
	{SP_GO12, 8, 1, false},  {SP_GO12, 4, 4, true},   {SP_GO116, 8, 1, false},
	{SP_GO116, 4, 4, false}, {SP_GO116, 8, 1, true},  {SP_GO118, 8, 1, false},
	{SP_GO118, 4, 4, true},  {SP_GO120, 8, 1, false}, {SP_GO120, 8, 4, true},
	{SP_GO120, 4, 1, false},
};

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--write-seeds") == 0) {
		int rc = 0;
		for (size_t i = 0; i < SP_ARRAY_LEN(shapes); i++) {
			unsigned char *d;
			size_t n = build(&shapes[i], &d);
			char name[64];
			snprintf(name, sizeof(name), "go%s-%s-ptr%u-q%u",
				 layout_name(shapes[i].layout), shapes[i].be ? "be" : "le",
				 shapes[i].ptr, shapes[i].quantum);
			rc |= write_file(argv[2], name, d, n);
			free(d);
		}
		return rc;
	}
	if (argc == 3 && strcmp(argv[1], "--write-malformed") == 0) {
		int rc = 0;
		for (size_t i = 0; i < SP_ARRAY_LEN(bad_cases); i++) {
			unsigned char *d;
			size_t n = make_bad(bad_cases[i].name, &d);
			char *name = sp_xasprintf("%s.tab", bad_cases[i].name);
			rc |= write_file(argv[2], name, d, n);
			free(name);
			name = sp_xasprintf("%s.expect", bad_cases[i].name);
			rc |= write_file(argv[2], name, (const unsigned char *)bad_cases[i].expect,
					 strlen(bad_cases[i].expect));
			free(name);
			free(d);
		}
		return rc;
	}
	for (size_t i = 0; i < SP_ARRAY_LEN(shapes); i++)
		check_shape(&shapes[i]);

	/* the moduledata: the table's address, then its function names' (at
	 * header word 3 from 1.18 on), gofunc at word 38 (1.18) or 40 (1.20+),
	 * found at any pointer-aligned place of a data region */
	for (size_t i = 0; i < SP_ARRAY_LEN(shapes); i++) {
		const shape *s = &shapes[i];
		unsigned char *d;
		size_t n = build(s, &d);
		buf md = {.be = s->be};
		uint64_t names = 0;
		for (unsigned b = 0; b < s->ptr; b++) /* header word 3: funcname */
			names = s->be ? names << 8 | d[8 + 3 * s->ptr + b]
				      : names | (uint64_t)d[8 + 3 * s->ptr + b] << (8 * b);
		put(&md, 0x1234, s->ptr); /* something before it */
		put(&md, VADDR, s->ptr);
		put(&md, VADDR + (s->layout == SP_GO116 ? 0 : names), s->ptr);
		for (unsigned w = 2; w < 44; w++)
			put(&md, w == (s->layout == SP_GO120 ? 40u : 38u) ? 0x777000 : w, s->ptr);
		sp_go_region regions[] = {{0x50000, (const unsigned char *)"abc", 3},
					  {0x60000, md.b, md.n}};
		uint64_t want = s->layout >= SP_GO118 ? 0x777000 : 0;
		uint64_t got = sp_gopcln_find_gofunc(d, n, VADDR, regions, 2);
		TAP_EQ_U64(got, want, "%s %s ptr %u: gofunc through the moduledata",
			   layout_name(s->layout), s->be ? "BE" : "LE", s->ptr);
		free(md.b);
		free(d);
	}

	/* every malformed case, as made here and as committed */
	const char *src = getenv("SP_SRCDIR");
	for (size_t i = 0; i < SP_ARRAY_LEN(bad_cases); i++) {
		unsigned char *d;
		size_t n = make_bad(bad_cases[i].name, &d);
		char *m = first_error(d, n);
		TAP_OK(m && strstr(m, bad_cases[i].expect) && strstr(m, "test table"),
		       "%s: error says \"%s\"", bad_cases[i].name, bad_cases[i].expect);
		if (m)
			printf("#   %s\n", m);
		free(m);
		char *path = sp_xasprintf("%s/tests/malformed/gopclntab/%s.tab",
					  src && *src ? src : ".", bad_cases[i].name);
		unsigned char *c;
		size_t cn;
		sp_error *e = sp_read_file(path, &c, &cn);
		TAP_OK(!e && cn == n && memcmp(c, d, n) == 0, "%s is the case made here", path);
		sp_error_free(e);
		if (!e)
			free(c);
		free(path);
		free(d);
	}
	return tap_done();
}
