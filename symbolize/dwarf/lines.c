/* lines.c — a compile unit's line table straight from .debug_line.
 *
 * libdw's dwarf_getsrclines builds a linked list of rows, then sorts an
 * array of pointers to them with qsort: at tens of thousands of rows per
 * unit that was a quarter of everything `symbolize` did.  This decoder
 * reads the DWARF 2-5 line program of one unit into an array, which is
 * already in address order for most units, and gives the same rows, in
 * the same order, with the same file names, as libdw does:
 *
 *   - rows sorted by address, an end_sequence row before an ordinary row
 *     at the same address, rows of equal keys in program order; the last
 *     row always marked end_sequence;
 *   - file names as dwarf_filesrc gives them: absolute names as written,
 *     others joined to their directory with "/" (directory 0 before DWARF 5
 *     is DW_AT_comp_dir, and with no comp_dir the name stays alone); entry
 *     0 before DWARF 5 is "???", in DWARF 5 the header's entry 0.
 *
 * Anything unusual is left to libdw: the decoder says so and the caller
 * uses dwarf_getsrclines (DW_LNE_define_file, VLIW op_index, 64-bit DWARF,
 * big-endian data, forms other than the common ones, operands that would
 * not fit libdw's row fields, any malformed byte).
 */
#include "symbolize/dwarf/dwarfp.h"
#include "symbolize/dwarf/cursor.h"

#include <dwarf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

/* Operand counts of the standard opcodes 1..12. */
static const unsigned char std_lengths[13] = {0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1};

/* The string at OFF of a string section, or NULL. */
static const char *sec_str(const unsigned char *sec, size_t size, uint64_t off)
{
	if (!sec || off >= size || !memchr(sec + off, 0, size - off))
		return NULL;
	return (const char *)sec + off;
}

/* One attribute of a DWARF 5 directory or file entry: a string (*STR) for
 * a path, a number (*NUM) for a directory index.  False for a form this
 * decoder does not read. */
static bool rd_form(sp_cur *r, const sp_line_sections *s, unsigned form, const char **str,
		    uint64_t *num, bool *is_num)
{
	*str = NULL;
	*is_num = false;
	switch (form) {
	case DW_FORM_string: *str = sp_cur_cstr(r); return true;
	case DW_FORM_line_strp:
		*str = sec_str(s->line_str, s->line_str_size, sp_cur_fixed(r, 4));
		return true;
	case DW_FORM_strp: *str = sec_str(s->str, s->str_size, sp_cur_fixed(r, 4)); return true;
	case DW_FORM_udata: *num = sp_cur_uleb(r); *is_num = true; return true;
	case DW_FORM_data1: *num = sp_cur_fixed(r, 1); *is_num = true; return true;
	case DW_FORM_data2: *num = sp_cur_fixed(r, 2); *is_num = true; return true;
	case DW_FORM_data4: *num = sp_cur_fixed(r, 4); *is_num = true; return true;
	case DW_FORM_data8: *num = sp_cur_fixed(r, 8); *is_num = true; return true;
	case DW_FORM_data16: sp_cur_skip(r, 16); return true;
	case DW_FORM_block: sp_cur_skip(r, sp_cur_uleb(r)); return true;
	default: return false;
	}
}

/* DIR "/" NAME, or NAME alone when absolute or DIR is NULL (malloc'd). */
static char *join(const char *dir, const char *name)
{
	if (name[0] == '/' || !dir)
		return sp_xstrdup(name);
	return sp_xasprintf("%s/%s", dir, name);
}

void sp_line_table_clear(sp_line_table *t)
{
	for (size_t i = 0; i < t->n_files; i++)
		free(t->files[i]);
	free(t->files);
	free(t->in_comp_dir);
	free(t->rows);
	*t = (sp_line_table){0};
}

/* Reads a DWARF 5 entry format: up to 255 (content type, form) pairs. */
static bool rd_format(sp_cur *r, unsigned char *n, uint64_t types[255], uint64_t forms[255])
{
	if (r->p >= r->end)
		return false;
	*n = *r->p++;
	for (unsigned i = 0; i < *n; i++) {
		types[i] = sp_cur_uleb(r);
		forms[i] = sp_cur_uleb(r);
	}
	return !r->bad;
}

/* One DWARF 5 directory or file entry of format (TYPES, FORMS, NF): its
 * path (a string form) and, when it has one, its directory index. */
static bool rd_entry(sp_cur *r, const sp_line_sections *s, unsigned nf, const uint64_t *types,
		     const uint64_t *forms, const char **path, uint64_t *dir, bool *have_dir)
{
	*path = NULL;
	*have_dir = false;
	for (unsigned k = 0; k < nf; k++) {
		const char *str;
		uint64_t num;
		bool is_num;
		if (!rd_form(r, s, (unsigned)forms[k], &str, &num, &is_num))
			return false;
		if (types[k] == DW_LNCT_path) {
			if (is_num || !str)
				return false;
			*path = str;
		} else if (types[k] == DW_LNCT_directory_index) {
			if (!is_num)
				return false;
			*dir = num;
			*have_dir = true;
		}
	}
	return !r->bad && *path;
}

/* The directory and file tables of a DWARF 5 header. */
static bool read_tables5(sp_cur *r, const sp_line_sections *s, sp_line_table *t)
{
	uint64_t types[255], forms[255];
	unsigned char nf;
	const char **dirs = NULL;
	bool ok = false, have_dir;
	uint64_t dir;

	if (!rd_format(r, &nf, types, forms))
		return false;
	uint64_t n_dirs = sp_cur_uleb(r);
	if (r->bad || (nf == 0 && n_dirs) || (nf && n_dirs > (size_t)(r->end - r->p) / nf))
		return false;
	dirs = sp_xreallocarray(NULL, n_dirs + 1, sizeof(*dirs));
	for (size_t i = 0; i < n_dirs; i++)
		if (!rd_entry(r, s, nf, types, forms, &dirs[i], &dir, &have_dir))
			goto out;

	if (!rd_format(r, &nf, types, forms))
		goto out;
	uint64_t n_files = sp_cur_uleb(r);
	if (r->bad || (nf == 0 && n_files) || (nf && n_files > (size_t)(r->end - r->p) / nf))
		goto out;
	t->files = sp_xreallocarray(NULL, n_files ? n_files : 1, sizeof(*t->files));
	if (n_files == 0)
		t->files[t->n_files++] = sp_xstrdup("???");
	for (size_t i = 0; i < n_files; i++) {
		const char *name;
		if (!rd_entry(r, s, nf, types, forms, &name, &dir, &have_dir) || !have_dir ||
		    dir >= n_dirs)
			goto out;
		t->files[t->n_files++] = join(dirs[dir], name);
	}
	ok = true;
out:
	free(dirs);
	return ok;
}

/* The directory and file tables of a DWARF 2-4 header. */
static bool read_tables4(sp_cur *r, const char *comp_dir, sp_line_table *t)
{
	const char **dirs = NULL;
	size_t n_dirs = 0, cap_dirs = 0, cap_files = 0, n_flags = 0, cap_flags = 0;
	bool ok = false;

	SP_PUSH(dirs, n_dirs, cap_dirs, comp_dir);
	while (r->p < r->end && *r->p) {
		const char *d = sp_cur_cstr(r);
		if (!d)
			goto out;
		SP_PUSH(dirs, n_dirs, cap_dirs, d);
	}
	if (r->p >= r->end)
		goto out;
	r->p++;
	SP_PUSH(t->files, t->n_files, cap_files, sp_xstrdup("???"));
	SP_PUSH(t->in_comp_dir, n_flags, cap_flags, false);
	while (r->p < r->end && *r->p) {
		const char *name = sp_cur_cstr(r);
		uint64_t dir = sp_cur_uleb(r);
		sp_cur_uleb(r); /* modification time */
		sp_cur_uleb(r); /* length */
		if (r->bad || !name || dir >= n_dirs)
			goto out;
		SP_PUSH(t->files, t->n_files, cap_files, join(dirs[dir], name));
		/* directory 0 is DW_AT_comp_dir: the name holds it already */
		bool whole = dir == 0 && comp_dir && name[0] != '/';
		SP_PUSH(t->in_comp_dir, n_flags, cap_flags, whole);
	}
	if (r->p >= r->end)
		goto out;
	r->p++;
	ok = true;
out:
	free(dirs);
	return ok;
}

/* A before B in libdw's order of rows, program order aside. */
static bool row_before(const sp_line_row *a, const sp_line_row *b)
{
	if (a->addr != b->addr)
		return a->addr < b->addr;
	return a->end_seq && !b->end_seq;
}

/* A stretch of rows in order, keyed by its first row. */
typedef struct {
	uint64_t addr;
	bool end_seq;
	size_t start, n;
} run;

static int cmp_run(const void *x, const void *y)
{
	const run *a = x, *b = y;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->end_seq != b->end_seq)
		return a->end_seq ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* Stable merge sort of ROWS by row_before (the general case). */
static void merge_sort(sp_line_row *rows, sp_line_row *tmp, size_t n)
{
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				tmp[k++] = row_before(&rows[j], &rows[i]) ? rows[j++] : rows[i++];
			while (i < mid)
				tmp[k++] = rows[i++];
			while (j < hi)
				tmp[k++] = rows[j++];
		}
		memcpy(rows, tmp, n * sizeof(*rows));
	}
}

/* The rows in libdw's order: a stable sort by row_before.  Runs that are
 * in order already (a unit's sequences, as a rule) are put in the order
 * of their first rows; only when that does not give sorted rows (runs
 * that overlap) is everything merge-sorted. */
static void sort_rows(sp_line_table *t)
{
	sp_line_row *rows = t->rows;
	size_t n = t->n_rows, n_runs = 0, cap_runs = 0;
	run *runs = NULL;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && !row_before(&rows[j], &rows[j - 1]))
			j++;
		run r = {rows[i].addr, rows[i].end_seq, i, j - i};
		SP_PUSH(runs, n_runs, cap_runs, r);
		i = j;
	}
	if (n_runs <= 1) {
		free(runs);
		return;
	}
	qsort(runs, n_runs, sizeof(*runs), cmp_run);
	sp_line_row *out = sp_xreallocarray(NULL, n, sizeof(*out));
	bool sorted = true;
	size_t k = 0;
	for (size_t i = 0; i < n_runs && sorted; i++) {
		const run *r = &runs[i];
		if (i) {
			/* the seam: the first row strictly after the previous
			 * run's last, or equal to it and later in the program */
			const sp_line_row *last = &out[k - 1], *first = &rows[r->start];
			size_t last_at = runs[i - 1].start + runs[i - 1].n - 1;
			if (!row_before(last, first) &&
			    (row_before(first, last) || r->start < last_at))
				sorted = false;
		}
		memcpy(out + k, rows + r->start, r->n * sizeof(*rows));
		k += r->n;
	}
	if (sorted) {
		free(t->rows);
		t->rows = out;
	} else {
		merge_sort(rows, out, n);
		free(out);
	}
	free(runs);
}

/* What the header of a line program says about the program. */
typedef struct {
	unsigned min_len, line_range, opcode_base;
	int line_base;
	const unsigned char *lengths; /* lengths[op] for 1 <= op < opcode_base */
	sp_cur program;               /* the opcodes, to the end of the unit */
} line_header;

/* Reads the header of the line program at OFFSET into *H and its tables
 * into *T: false for anything left to libdw. */
static bool read_header(const sp_line_sections *s, uint64_t offset, unsigned addr_size,
			const char *comp_dir, sp_line_table *t, line_header *h)
{
	if (!s->line || offset >= s->line_size || (addr_size != 4 && addr_size != 8))
		return false;
	sp_cur r = {s->line + offset, s->line + s->line_size, false};
	uint64_t unit_length = sp_cur_fixed(&r, 4);
	if (r.bad || unit_length >= 0xfffffff0u || unit_length > sp_cur_left(&r))
		return false; /* 64-bit DWARF, reserved lengths or truncated */
	r.end = r.p + unit_length;
	unsigned version = (unsigned)sp_cur_fixed(&r, 2);
	if (r.bad || version < 2 || version > 5)
		return false;
	if (version >= 5) {
		unsigned asz = (unsigned)sp_cur_fixed(&r, 1), seg = (unsigned)sp_cur_fixed(&r, 1);
		if (r.bad || asz != addr_size || seg != 0)
			return false;
	}
	uint64_t header_length = sp_cur_fixed(&r, 4);
	if (r.bad || header_length > sp_cur_left(&r))
		return false;
	const unsigned char *program = r.p + header_length;
	h->min_len = (unsigned)sp_cur_fixed(&r, 1);
	unsigned max_ops = version >= 4 ? (unsigned)sp_cur_fixed(&r, 1) : 1;
	sp_cur_fixed(&r, 1); /* default_is_stmt */
	h->line_base = (int8_t)sp_cur_fixed(&r, 1);
	h->line_range = (unsigned)sp_cur_fixed(&r, 1);
	h->opcode_base = (unsigned)sp_cur_fixed(&r, 1);
	/* header_length may end the header inside the fixed fields just read:
	 * PROGRAM is then behind R.P and the difference must not be taken */
	if (r.bad || program < r.p || max_ops != 1 || h->line_range == 0 || h->opcode_base == 0 ||
	    h->opcode_base - 1 > (size_t)(program - r.p))
		return false;
	h->lengths = r.p - 1;
	for (unsigned op = 1; op < h->opcode_base && op <= DW_LNS_set_isa; op++)
		if (h->lengths[op] != std_lengths[op])
			return false;
	r.p += h->opcode_base - 1;

	sp_cur hdr = {r.p, program, false};
	if (!(version >= 5 ? read_tables5(&hdr, s, t) : read_tables4(&hdr, comp_dir, t)) ||
	    hdr.bad || hdr.p != program)
		return false;
	h->program = (sp_cur){program, r.end, false};
	return true;
}

/* The row registers of the line-number state machine. */
typedef struct {
	uint64_t addr, file, col, isa, discr;
	int64_t line;
} line_regs;

static const line_regs initial_regs = {.file = 1, .line = 1};

/* One extended opcode (after its 0): false for anything left to libdw. */
static bool extended_op(sp_cur *p, unsigned addr_size, line_regs *regs, bool *end_seq)
{
	if (p->end - p->p < 2)
		return false;
	unsigned len = *p->p++;
	if (len == 0 || len >= 0x80 || sp_cur_left(p) < len)
		return false;
	unsigned sub = *p->p++;
	switch (sub) {
	case DW_LNE_end_sequence: *end_seq = true; break;
	case DW_LNE_set_address:
		if (len != addr_size + 1)
			return false;
		regs->addr = sp_cur_fixed(p, addr_size);
		break;
	case DW_LNE_set_discriminator: regs->discr = sp_cur_uleb(p); break;
	case DW_LNE_define_file: return false;
	default: p->p += len - 1; break;
	}
	return true;
}

/* One standard opcode OP: false for anything left to libdw. */
static bool standard_op(sp_cur *p, const line_header *h, unsigned op, line_regs *regs,
			bool *emit)
{
	uint64_t u;
	int64_t sv;
	switch (op) {
	case DW_LNS_copy: *emit = true; break;
	case DW_LNS_advance_pc:
		u = sp_cur_uleb(p);
		if (u > UINT32_MAX || u * h->min_len > UINT32_MAX)
			return false; /* libdw computes this in 32 bits */
		regs->addr += u * h->min_len;
		break;
	case DW_LNS_advance_line:
		sv = sp_cur_sleb(p);
		if (sv < INT32_MIN || sv > INT32_MAX)
			return false;
		regs->line += sv;
		break;
	case DW_LNS_set_file:
		regs->file = sp_cur_uleb(p);
		if (regs->file > UINT32_MAX)
			return false;
		break;
	case DW_LNS_set_column: regs->col = sp_cur_uleb(p); break;
	case DW_LNS_const_add_pc:
		regs->addr += (uint64_t)h->min_len * ((255 - h->opcode_base) / h->line_range);
		break;
	case DW_LNS_fixed_advance_pc: regs->addr += sp_cur_fixed(p, 2); break;
	case DW_LNS_set_isa: regs->isa = sp_cur_uleb(p); break;
	default: break; /* negate_stmt, basic_block, prologue, epilogue */
	}
	return true;
}

/* Runs the program H describes into T's rows. */
static bool run_program(const line_header *h, unsigned addr_size, sp_line_table *t)
{
	sp_cur p = h->program;
	size_t cap = 0;
	line_regs regs = initial_regs;
	while (p.p < p.end) {
		unsigned op = *p.p++;
		bool emit = false, end_seq = false;
		if (op >= h->opcode_base) {
			unsigned adj = op - h->opcode_base;
			regs.line += h->line_base + (int)(adj % h->line_range);
			regs.addr += (uint64_t)h->min_len * (adj / h->line_range);
			emit = true;
		} else if (op == 0) {
			if (!extended_op(&p, addr_size, &regs, &end_seq))
				return false;
			emit = end_seq;
		} else if (op <= DW_LNS_set_isa) {
			if (!standard_op(&p, h, op, &regs, &emit))
				return false;
		} else {
			for (unsigned k = h->lengths[op]; k > 0; k--)
				sp_cur_uleb(&p);
		}
		if (p.bad)
			return false;
		if (!emit)
			continue;
		/* values libdw's row fields would not hold make it fail */
		if (regs.line < INT32_MIN || regs.line > INT32_MAX || regs.col > 0xffff ||
		    regs.isa > 0xff || regs.discr > 0xffffff)
			return false;
		sp_line_row row = {regs.addr, (uint32_t)regs.file, (int32_t)regs.line,
				   (int32_t)regs.col, (uint32_t)regs.discr, end_seq};
		if (t->n_rows == cap) /* a row takes a byte or two of program, as a rule */
			sp_grow(&t->rows, &cap, t->n_rows + 1 + sp_cur_left(&p) / 2,
				sizeof(*t->rows));
		/* copied whole: an assignment reads the bit-fields' word first,
		 * and a fresh page read first maps the zero page, which the
		 * write must then replace on every CPU running the process */
		memcpy(&t->rows[t->n_rows++], &row, sizeof(row));
		regs.discr = 0;
		if (end_seq)
			regs = initial_regs;
	}
	return true;
}

bool sp_lines_decode(const sp_line_sections *s, uint64_t offset, unsigned addr_size,
		     const char *comp_dir, sp_line_table *t)
{
	line_header h;
	*t = (sp_line_table){0};
	if (!read_header(s, offset, addr_size, comp_dir, t, &h) || !run_program(&h, addr_size, t)) {
		sp_line_table_clear(t);
		return false;
	}
	sort_rows(t);
	if (t->n_rows)
		t->rows[t->n_rows - 1].end_seq = true;
	return true;
}

bool sp_line_sections_get(Elf *elf, sp_line_sections *out)
{
	GElf_Ehdr eh;
	size_t shstrndx;
	const uint16_t one = 1;
	*out = (sp_line_sections){0};
	if (!elf || !gelf_getehdr(elf, &eh) || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    *(const unsigned char *)&one != 1 || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	Elf_Scn *scn = NULL;
	/* an object holding its split units' sections (-gsplit-dwarf=single)
	 * has both NAME and NAME.dwo: the plain ones are its own */
	const unsigned char **plain_set[8];
	size_t n_plain = 0;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		const unsigned char **p;
		size_t *size;
		if (!name)
			continue;
		size_t len = strlen(name);
		char plain[32];
		bool dwo = false;
		if (len > 4 && len - 4 < sizeof(plain) && !strcmp(name + len - 4, ".dwo")) {
			memcpy(plain, name, len - 4);
			plain[len - 4] = '\0';
			name = plain;
			dwo = true;
		}
		if (!strcmp(name, ".debug_line")) {
			p = &out->line;
			size = &out->line_size;
		} else if (!strcmp(name, ".debug_line_str")) {
			p = &out->line_str;
			size = &out->line_str_size;
		} else if (!strcmp(name, ".debug_str")) {
			p = &out->str;
			size = &out->str_size;
		} else if (!strcmp(name, ".debug_ranges")) {
			p = &out->ranges;
			size = &out->ranges_size;
		} else if (!strcmp(name, ".debug_rnglists")) {
			p = &out->rnglists;
			size = &out->rnglists_size;
		} else if (!strcmp(name, ".debug_addr")) {
			p = &out->addr;
			size = &out->addr_size;
		} else {
			continue;
		}
		bool plain_there = false;
		for (size_t i = 0; i < n_plain; i++)
			plain_there |= plain_set[i] == p;
		if (dwo && plain_there)
			continue;
		if (!dwo && !plain_there && n_plain < SP_ARRAY_LEN(plain_set)) {
			plain_set[n_plain++] = p;
			*p = NULL; /* not the .dwo one met before */
			*size = 0;
		}
		Elf_Data *data = elf_getdata(scn, NULL);
		if ((sh.sh_flags & SHF_COMPRESSED) || !data || !data->d_buf)
			continue; /* then libdw decodes what needs it */
		*p = data->d_buf;
		*size = data->d_size;
	}
	return out->line != NULL;
}
