/* test_lines.c — symbolize/lines.c, the line-table decoder.
 *
 *  - on real programs: the fixtures testdata/src/symbolize/fixture.cc,
 *    testdata/src/symbolize/heap_fixture.cc and tests/helpers/jitfix.c, built at test time
 *    as DWARF 2, 3, 4 and 5 at -O0 and -O2, and this test program (many
 *    units), every compile unit's rows and file names equal libdw's
 *    dwarf_getsrclines / dwarf_getsrcfiles, row by row;
 *  - on line programs written here byte by byte: sequences out of
 *    address order, overlapping sequences, an end_sequence row and a
 *    sequence start at one address, an unterminated last sequence, DWARF 5
 *    tables with strings in .debug_line_str; and every feature left to
 *    libdw (DW_LNE_define_file, VLIW, 64-bit DWARF, an unknown form, a
 *    column too wide for libdw, truncated programs) is refused.
 */
#include "symbolize/internal.h"
#include "tests/helpers/dwarf_fixtures.h"
#include "tests/helpers/tap.h"

#include <elfutils/libdw.h>
#include <dwarf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[256];

/* Every unit of PATH against libdw: one test per unit. */
static void compare_file(const char *path, const char *label)
{
	int fd = open(path, O_RDONLY);
	Dwarf *dw = fd >= 0 ? dwarf_begin(fd, DWARF_C_READ) : NULL;
	sp_line_sections ls;
	TAP_OK(dw && sp_line_sections_get(dwarf_getelf(dw), &ls), "%s: opened, .debug_line found",
	   label);
	if (!dw) {
		if (fd >= 0)
			close(fd);
		return;
	}
	Dwarf_Off off = 0, next;
	size_t hsize;
	int units = 0;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Attribute a;
		Dwarf_Word stmt;
		if (!dwarf_offdie(dw, off + hsize, &cu) ||
		    !dwarf_attr(&cu, DW_AT_stmt_list, &a) || dwarf_formudata(&a, &stmt) != 0) {
			off = next;
			continue;
		}
		off = next;
		units++;
		Dwarf_Die tmp;
		Dwarf_Half version;
		uint8_t asz, osz;
		dwarf_cu_die(cu.cu, &tmp, &version, NULL, &asz, &osz, NULL, NULL);
		const char *comp_dir = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &a));
		const char *name = dwarf_diename(&cu);
		Dwarf_Lines *lines;
		size_t nl;
		Dwarf_Files *files;
		size_t nf;
		sp_line_table t;
		bool mine = sp_lines_decode(&ls, stmt, asz, comp_dir, &t);
		bool theirs = dwarf_getsrclines(&cu, &lines, &nl) == 0 &&
			      dwarf_getsrcfiles(&cu, &files, &nf) == 0;
		char why[512] = "";
		if (!mine || !theirs) {
			snprintf(why, sizeof(why), "decoded: ours %d, libdw %d", mine, theirs);
		} else if (t.n_rows != nl || t.n_files != nf) {
			snprintf(why, sizeof(why), "rows %zu vs %zu, files %zu vs %zu", t.n_rows, nl,
				 t.n_files, nf);
		}
		for (size_t i = 0; !*why && i < nf; i++) {
			const char *f = dwarf_filesrc(files, i, NULL, NULL);
			if (!f || strcmp(f, t.files[i]))
				snprintf(why, sizeof(why), "file %zu: %s vs %s", i, t.files[i],
					 f ? f : "(null)");
		}
		for (size_t i = 0; !*why && i < nl; i++) {
			Dwarf_Line *l = dwarf_onesrcline(lines, i);
			const sp_line_row *r = &t.rows[i];
			Dwarf_Addr addr;
			int line, col;
			unsigned discr = 0;
			bool end;
			const char *f = dwarf_linesrc(l, NULL, NULL);
			const char *g = r->file < t.n_files ? t.files[r->file] : NULL;
			dwarf_lineaddr(l, &addr);
			dwarf_lineno(l, &line);
			dwarf_linecol(l, &col);
			dwarf_lineendsequence(l, &end);
			dwarf_linediscriminator(l, &discr);
			if (addr != r->addr || line != r->line || col != r->col || end != r->end_seq ||
			    discr != r->discr ||
			    (f == NULL) != (g == NULL) || (f && strcmp(f, g)))
				snprintf(why, sizeof(why),
					 "row %zu: %#llx %s:%d:%d/%u%s vs libdw %#llx %s:%d:%d/%u%s",
					 i, (unsigned long long)r->addr, g ? g : "?", r->line,
					 r->col, (unsigned)r->discr, r->end_seq ? " end" : "",
					 (unsigned long long)addr, f ? f : "?", line, col, discr,
					 end ? " end" : "");
		}
		if (*why)
			printf("# %s\n", why);
		TAP_OK(!*why, "%s: unit %s (DWARF %d): %zu rows and %zu files as libdw's", label,
		   name ? name : "?", version, t.n_rows, t.n_files);
		sp_line_table_clear(&t);
	}
	TAP_OK(units > 0, "%s: %d units with a line table", label, units);
	dwarf_end(dw);
	close(fd);
}

/* ---- line programs written here ---------------------------------------- */

typedef struct {
	unsigned char b[4096];
	size_t n;
} bytes;

static void put(bytes *o, const void *p, size_t n)
{
	memcpy(o->b + o->n, p, n);
	o->n += n;
}
static void u8(bytes *o, unsigned v) { o->b[o->n++] = (unsigned char)v; }
static void le(bytes *o, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		u8(o, (unsigned)(v >> (8 * i)) & 255);
}
static void uleb(bytes *o, uint64_t v)
{
	do {
		unsigned char c = v & 0x7f;
		v >>= 7;
		u8(o, c | (v ? 0x80 : 0));
	} while (v);
}
static void sleb(bytes *o, int64_t v)
{
	for (;;) {
		unsigned char c = v & 0x7f;
		v >>= 7;
		bool done = (v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40));
		u8(o, c | (done ? 0 : 0x80));
		if (done)
			return;
	}
}
static void str(bytes *o, const char *s) { put(o, s, strlen(s) + 1); }

/* Opcodes of the programs below. */
static void set_address(bytes *o, uint64_t a)
{
	u8(o, 0);
	u8(o, 9);
	u8(o, DW_LNE_set_address);
	le(o, a, 8);
}
static void end_sequence(bytes *o)
{
	u8(o, 0);
	u8(o, 1);
	u8(o, DW_LNE_end_sequence);
}
static void advance_pc(bytes *o, uint64_t n)
{
	u8(o, DW_LNS_advance_pc);
	uleb(o, n);
}
static void advance_line(bytes *o, int64_t n)
{
	u8(o, DW_LNS_advance_line);
	sleb(o, n);
}
static void copy(bytes *o) { u8(o, DW_LNS_copy); }
/* A row PC bytes and LINES lines after the previous one. */
static void step(bytes *o, uint64_t pc, int64_t lines)
{
	advance_pc(o, pc);
	advance_line(o, lines);
	copy(o);
}

/* A whole unit: header of VERSION (2-5; line_base -5, line_range 14,
 * opcode_base 13, min_len 1, max_ops MAX_OPS) with the tables in TABLES,
 * then PROGRAM. */
static void unit(bytes *out, unsigned version, unsigned max_ops, const bytes *tables,
		 const bytes *program)
{
	static const unsigned char lengths[12] = {0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1};
	bytes h = {.n = 0};
	u8(&h, 1);          /* minimum_instruction_length */
	if (version >= 4)
		u8(&h, max_ops);
	u8(&h, 1);          /* default_is_stmt */
	u8(&h, (unsigned char)-5);
	u8(&h, 14);
	u8(&h, 13);
	put(&h, lengths, sizeof(lengths));
	put(&h, tables->b, tables->n);
	size_t after_len = 2 + (version >= 5 ? 2 : 0) + 4 + h.n + program->n;
	out->n = 0;
	le(out, after_len, 4);
	le(out, version, 2);
	if (version >= 5) {
		u8(out, 8);
		u8(out, 0);
	}
	le(out, h.n, 4);
	put(out, h.b, h.n);
	put(out, program->b, program->n);
}

/* DWARF 4 tables: directory "inc", files "a.c" (dir 0) and "b.h" (dir 1)
 * and "/abs/c.h". */
static void tables4(bytes *t)
{
	t->n = 0;
	str(t, "inc");
	u8(t, 0);
	str(t, "a.c"), uleb(t, 0), uleb(t, 0), uleb(t, 0);
	str(t, "b.h"), uleb(t, 1), uleb(t, 0), uleb(t, 0);
	str(t, "/abs/c.h"), uleb(t, 1), uleb(t, 0), uleb(t, 0);
	u8(t, 0);
}

static bool decode(const bytes *u, sp_line_table *t)
{
	sp_line_sections s = {.line = u->b, .line_size = u->n};
	return sp_lines_decode(&s, 0, 8, "/cd", t);
}

typedef struct {
	uint64_t addr;
	int line;
	bool end;
} want_row;

static bool rows_are(const sp_line_table *t, const want_row *w, size_t n)
{
	if (t->n_rows != n) {
		printf("# %zu rows, want %zu\n", t->n_rows, n);
		return false;
	}
	for (size_t i = 0; i < n; i++)
		if (t->rows[i].addr != w[i].addr || t->rows[i].line != w[i].line ||
		    t->rows[i].end_seq != w[i].end) {
			printf("# row %zu: %#llx line %d%s, want %#llx line %d%s\n", i,
			     (unsigned long long)t->rows[i].addr, t->rows[i].line,
			     t->rows[i].end_seq ? " end" : "", (unsigned long long)w[i].addr,
			     w[i].line, w[i].end ? " end" : "");
			return false;
		}
	return true;
}

static void test_written(void)
{
	bytes tab, prog, u;
	sp_line_table t;
	tables4(&tab);

	/* Two sequences, the higher one first; file names. */
	prog.n = 0;
	set_address(&prog, 0x2000);
	advance_line(&prog, 9); /* line 10 */
	copy(&prog);
	step(&prog, 0x10, 1); /* 0x2010 line 11 */
	advance_pc(&prog, 0x10);
	end_sequence(&prog); /* 0x2020 */
	set_address(&prog, 0x1000);
	u8(&prog, DW_LNS_set_file);
	uleb(&prog, 2);
	advance_line(&prog, 19);
	copy(&prog); /* 0x1000 line 20, b.h */
	advance_pc(&prog, 8);
	end_sequence(&prog); /* 0x1008 */
	unit(&u, 4, 1, &tab, &prog);
	bool d = decode(&u, &t);
	TAP_OK(d, "DWARF 4 program decoded");
	want_row w1[] = {{0x1000, 20, false}, {0x1008, 20, true}, {0x2000, 10, false},
			 {0x2010, 11, false}, {0x2020, 11, true}};
	TAP_OK(d && rows_are(&t, w1, 5), "sequences put in address order");
	TAP_OK(d && t.n_files == 4 && !strcmp(t.files[0], "???") && !strcmp(t.files[1], "/cd/a.c") &&
		   !strcmp(t.files[2], "inc/b.h") && !strcmp(t.files[3], "/abs/c.h"),
	   "file names: ???, comp_dir/a.c, inc/b.h, /abs/c.h");
	TAP_OK(d && t.rows[0].file == 2 && t.rows[2].file == 1, "rows name their files");
	sp_line_table_clear(&t);

	/* Overlapping sequences; an end row and a row at one address; equal
	 * rows in program order; the last sequence unterminated. */
	prog.n = 0;
	set_address(&prog, 0x10);
	copy(&prog);              /* A 0x10 line 1 */
	step(&prog, 0x20, 1);     /* A 0x30 line 2 */
	advance_pc(&prog, 0x20);
	end_sequence(&prog);      /* A 0x50 end */
	set_address(&prog, 0x20);
	step(&prog, 0, 9);        /* B 0x20 line 10 */
	step(&prog, 0x20, 1);     /* B 0x40 line 11 */
	step(&prog, 0x10, 0);     /* B 0x50 line 11: after A's end at 0x50 */
	advance_pc(&prog, 0x10);
	end_sequence(&prog); /* B 0x60 end */
	set_address(&prog, 0x40);
	advance_line(&prog, 29);
	copy(&prog); /* C 0x40 line 30: after B's 0x40 */
	advance_pc(&prog, 0x100);
	copy(&prog); /* C 0x140 line 30, no end_sequence */
	unit(&u, 3, 1, &tab, &prog);
	d = decode(&u, &t);
	want_row w2[] = {{0x10, 1, false},  {0x20, 10, false}, {0x30, 2, false},
			 {0x40, 11, false}, {0x40, 30, false}, {0x50, 2, true},
			 {0x50, 11, false}, {0x60, 11, true},  {0x140, 30, true}};
	TAP_OK(d && rows_are(&t, w2, 9),
	   "overlapping sequences merged: end rows first, equal rows in program order, "
	   "the last row ends a sequence");
	sp_line_table_clear(&t);

	/* DWARF 5: directories and files by DW_FORM_line_strp and string,
	 * an MD5, the directory index as udata. */
	static const char line_str[] = "\0/cd\0sub\0main.c\0";
	bytes t5 = {.n = 0};
	u8(&t5, 1); /* directory format: path line_strp */
	uleb(&t5, DW_LNCT_path), uleb(&t5, DW_FORM_line_strp);
	uleb(&t5, 2);
	le(&t5, 1, 4);       /* "/cd" */
	le(&t5, 5, 4);       /* "sub" */
	u8(&t5, 3); /* file format: path string, directory udata, MD5 */
	uleb(&t5, DW_LNCT_path), uleb(&t5, DW_FORM_string);
	uleb(&t5, DW_LNCT_directory_index), uleb(&t5, DW_FORM_udata);
	uleb(&t5, DW_LNCT_MD5), uleb(&t5, DW_FORM_data16);
	uleb(&t5, 2);
	str(&t5, "main.c"), uleb(&t5, 0), put(&t5, "0123456789abcdef", 16);
	str(&t5, "x.h"), uleb(&t5, 1), put(&t5, "0123456789abcdef", 16);
	prog.n = 0;
	set_address(&prog, 0x400);
	u8(&prog, 13 + 5 + 14 * 3); /* special: line +0, address +3 */
	advance_pc(&prog, 1);
	end_sequence(&prog);
	unit(&u, 5, 1, &t5, &prog);
	sp_line_sections s5 = {.line = u.b,
			       .line_size = u.n,
			       .line_str = (const unsigned char *)line_str,
			       .line_str_size = sizeof(line_str)};
	d = sp_lines_decode(&s5, 0, 8, "/ignored", &t);
	want_row w3[] = {{0x403, 1, false}, {0x404, 1, true}};
	TAP_OK(d && rows_are(&t, w3, 2), "DWARF 5 program decoded, special opcode applied");
	TAP_OK(d && t.n_files == 2 && !strcmp(t.files[0], "/cd/main.c") &&
		   !strcmp(t.files[1], "sub/x.h"),
	   "DWARF 5 files: entry 0 is the header's, joined to their directories");
	sp_line_table_clear(&t);

	/* Left to libdw. */
	bytes p2 = {.n = 0};
	set_address(&p2, 0x10);
	u8(&p2, 0), u8(&p2, 7), u8(&p2, DW_LNE_define_file), str(&p2, "d.c"), uleb(&p2, 0),
		uleb(&p2, 0), uleb(&p2, 0);
	copy(&p2);
	unit(&u, 4, 1, &tab, &p2);
	TAP_OK(!decode(&u, &t) && t.n_rows == 0, "DW_LNE_define_file is left to libdw");
	prog.n = 0;
	set_address(&prog, 0x10);
	copy(&prog);
	unit(&u, 4, 4, &tab, &prog);
	TAP_OK(!decode(&u, &t), "VLIW (max_ops_per_instruction 4) is left to libdw");
	unit(&u, 4, 1, &tab, &prog);
	TAP_OK(decode(&u, &t), "the same program with max_ops 1 decodes");
	sp_line_table_clear(&t);
	bytes u64 = {.n = 0};
	le(&u64, 0xffffffff, 4);
	le(&u64, u.n - 4, 8);
	put(&u64, u.b + 4, u.n - 4);
	TAP_OK(!decode(&u64, &t), "64-bit DWARF is left to libdw");
	prog.n = 0;
	set_address(&prog, 0x10);
	u8(&prog, DW_LNS_set_column);
	uleb(&prog, 70000);
	copy(&prog);
	unit(&u, 4, 1, &tab, &prog);
	TAP_OK(!decode(&u, &t), "a column above 65535 is left to libdw");
	prog.n = 0;
	set_address(&prog, 0x10);
	copy(&prog);
	unit(&u, 4, 1, &tab, &prog);
	u.n -= 4; /* cut into DW_LNE_set_address's operand */
	u.b[0] -= 4;
	TAP_OK(!decode(&u, &t), "a truncated program is left to libdw");
	t5.n = 0;
	u8(&t5, 1);
	uleb(&t5, DW_LNCT_path), uleb(&t5, DW_FORM_strx1);
	uleb(&t5, 1);
	u8(&t5, 0);
	unit(&u, 5, 1, &t5, &prog);
	TAP_OK(!decode(&u, &t), "DWARF 5 with DW_FORM_strx1 is left to libdw");
	TAP_OK(!decode(&(bytes){.n = 0}, &t), "an empty section is refused");
}

int main(void)
{
	const char *srcdir = getenv("SP_SRCDIR") ? getenv("SP_SRCDIR") : "..";
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/sp-lines-XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	test_written();

	for (size_t i = 0; i < DWARF_FIXTURES_GCC; i++) {
		const dwarf_fixture *f = &dwarf_fixtures[i];
		for (size_t v = 0; v < SP_ARRAY_LEN(dwarf_versions); v++) {
			char out[512], label[256];
			snprintf(out, sizeof(out), "%s/bin%zu-%s", tmpdir, i, dwarf_versions[v]);
			snprintf(label, sizeof(label), "%s %s DWARF %s", f->src, f->opt,
				 dwarf_versions[v]);
			bool ok = dwarf_fixture_build(f, dwarf_versions[v], srcdir, out);
			TAP_OK(ok, "built %s", label);
			if (ok)
				compare_file(out, label);
		}
	}
	/* many units, linked: this program itself */
	compare_file("/proc/self/exe", "this test program");
	char *rm = sp_xasprintf("rm -rf '%s'", tmpdir);
	if (system(rm) != 0)
		TAP_OK(false, "removed %s", tmpdir);
	free(rm);
	return tap_done();
}
