/* test_dwp.c — the .dwp unit index reader (symbolize/dwp.c) on tables
 * built here: version 2 and 5 headers, ids that collide in the hash table
 * (found through the secondary step), ids not there; then the malformed
 * tables of tests/malformed/dwp/, each of which must give the error its
 * .expect names (made here too, and compared with the committed files).
 *
 *   test_dwp --write-malformed DIR   writes the malformed ones (NAME.idx, NAME.expect:
 *                                    not .in, which the profile readers replay)
 *   test_dwp --write-seeds DIR       writes the good ones, for the fuzz harness
 */
#include "symbolize/dwarf/dwarfp.h"
#include "symbolize/dwarf/cursor.h"
#include "tests/helpers/tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	unsigned char *b;
	size_t n, cap;
} buf;

static void put(buf *b, uint64_t v, unsigned size)
{
	for (unsigned i = 0; i < size; i++)
		SP_PUSH(b->b, b->n, b->cap, (unsigned char)(v >> (8 * i)));
}

typedef struct {
	uint64_t id;
	uint32_t off[4], size[4];
} unit;

/* Columns: info, abbrev, line, str_offsets. */
static const uint32_t cols[4] = {SP_DWP_SECT_INFO, SP_DWP_SECT_ABBREV, SP_DWP_SECT_LINE,
				 SP_DWP_SECT_STR_OFFSETS};

/* Ids 1 and 2 start at slot 3 of 8; 2 steps by 5 to slot 0.  Id 3 starts
 * at slot 5. */
static const unit units[3] = {
	{0x0000000100000003ull, {0, 0, 0, 0}, {100, 20, 30, 8}},
	{0x0000000500000003ull, {100, 20, 30, 8}, {50, 10, 15, 4}},
	{0x1234567800000005ull, {150, 30, 45, 12}, {60, 11, 16, 4}},
};

/* An index of version VERSION with N_UNITS of units[] in SLOTS slots. */
static buf build(unsigned version, size_t n_units, uint32_t slots)
{
	buf b = {0};
	if (version == 5) {
		put(&b, 5, 2);
		put(&b, 0, 2);
	} else {
		put(&b, version, 4);
	}
	put(&b, 4, 4);
	put(&b, n_units, 4);
	put(&b, slots, 4);
	uint64_t ids[64] = {0};
	uint32_t rows[64] = {0};
	for (size_t u = 0; u < n_units; u++) {
		uint64_t mask = slots - 1, h = units[u].id & mask;
		uint64_t step = ((units[u].id >> 32) & mask) | 1;
		while (rows[h])
			h = (h + step) & mask;
		ids[h] = units[u].id;
		rows[h] = (uint32_t)u + 1;
	}
	for (uint32_t i = 0; i < slots; i++)
		put(&b, ids[i], 8);
	for (uint32_t i = 0; i < slots; i++)
		put(&b, rows[i], 4);
	for (size_t c = 0; c < 4; c++)
		put(&b, cols[c], 4);
	for (size_t u = 0; u < n_units; u++)
		for (size_t c = 0; c < 4; c++)
			put(&b, units[u].off[c], 4);
	for (size_t u = 0; u < n_units; u++)
		for (size_t c = 0; c < 4; c++)
			put(&b, units[u].size[c], 4);
	return b;
}

static void check_good(unsigned version)
{
	buf b = build(version, 3, 8);
	sp_dwp_index ix;
	sp_error *e = sp_dwp_index_read(b.b, b.n, "good.dwp", &ix);
	TAP_OK(!e, "version %u: a table of 3 units in 8 slots reads", version);
	sp_error_free(e);
	if (e) {
		free(b.b);
		return;
	}
	TAP_EQ_U64(ix.version, version, "version %u: its version", version);
	TAP_EQ_U64(ix.n_units, 3, "version %u: 3 units", version);
	for (size_t u = 0; u < 3; u++) {
		sp_dwp_unit got;
		bool found = sp_dwp_index_find(&ix, units[u].id, &got);
		TAP_OK(found, "version %u: unit %zu (id 0x%llx) found", version, u,
		       (unsigned long long)units[u].id);
		bool same = found;
		for (size_t c = 0; same && c < 4; c++)
			same = got.has[cols[c]] && got.off[cols[c]] == units[u].off[c] &&
			       got.size[cols[c]] == units[u].size[c];
		TAP_OK(same && !got.has[2] && !got.has[5],
		       "version %u: unit %zu: its contributions, and only those", version, u);
	}
	sp_dwp_unit got;
	/* starts at slot 3 (taken by id 1), steps by 1 to slot 4 (empty) */
	TAP_OK(!sp_dwp_index_find(&ix, 0x0000000000000003ull, &got),
	       "version %u: an id not there, colliding with one that is, is not found", version);
	TAP_OK(!sp_dwp_index_find(&ix, 0x77, &got), "version %u: another id is not found", version);
	free(b.b);
}

/* The malformed tables: mutations of the good version 2 table, named by
 * the error each must give. */
static const struct {
	const char *name, *expect;
} bad_cases[] = {
	{"truncated_header", "at offset 0: expected a 16-byte header, got 10 bytes"},
	{"bad_version", "at offset 0: expected version 2 or 5, got 0x3"},
	{"no_columns", "at offset 4: expected 1 to 8 columns, got 0"},
	{"slots_not_power", "at offset 12: expected a power of two of slots, at least the 3 "
			    "units, got 6"},
	{"more_units_than_slots", "at offset 12: expected a power of two of slots, at least "
				  "the 9 units, got 8"},
	{"tables_past_end", "at offset 0: 3 units of 4 columns in 8 slots need 224 bytes, the "
			    "section has 200"},
	{"huge_counts", "2147483647 units of 4 columns in 2147483648 slots need 94489280512 bytes, "
			"the section has 224"},
	{"unknown_section", "at offset 112: expected a section kind 1 to 8 not given before, "
			    "got 9"},
	{"repeated_section", "at offset 116: expected a section kind 1 to 8 not given "
			     "before, got 1"},
	{"no_info_column", "at offset 112: expected a column for .debug_info.dwo"},
	{"row_past_units", "at offset 84: expected a row of at most 3, got 7"},
};

static void set32(buf *b, size_t at, uint32_t v)
{
	for (unsigned i = 0; i < 4; i++)
		b->b[at + i] = (unsigned char)(v >> (8 * i));
}

/* The bytes of malformed case NAME. */
static buf make_bad(const char *name)
{
	buf b = build(2, 3, 8);
	/* layout: header 16, ids 64, rows 32 (from 80), columns 16 (from 112) */
	if (!strcmp(name, "truncated_header"))
		b.n = 10;
	else if (!strcmp(name, "bad_version"))
		set32(&b, 0, 3);
	else if (!strcmp(name, "no_columns"))
		set32(&b, 4, 0);
	else if (!strcmp(name, "slots_not_power"))
		set32(&b, 12, 6);
	else if (!strcmp(name, "more_units_than_slots"))
		set32(&b, 8, 9);
	else if (!strcmp(name, "tables_past_end"))
		b.n = 200;
	else if (!strcmp(name, "huge_counts"))
		set32(&b, 8, 0x7fffffff), set32(&b, 12, 0x80000000u);
	else if (!strcmp(name, "unknown_section"))
		set32(&b, 112, 9);
	else if (!strcmp(name, "repeated_section"))
		set32(&b, 116, SP_DWP_SECT_INFO);
	else if (!strcmp(name, "no_info_column"))
		set32(&b, 112, 2);
	else if (!strcmp(name, "row_past_units"))
		set32(&b, 84, 7);
	return b;
}

static int write_file(const char *dir, const char *name, const unsigned char *d, size_t n)
{
	char *path = sp_xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	int rc = !f || fwrite(d, 1, n, f) != n;
	if (f && fclose(f) != 0)
		rc = 1;
	if (rc)
		fprintf(stderr, "test_dwp: cannot write %s\n", path);
	free(path);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--write-seeds") == 0) {
		int rc = 0;
		for (unsigned v = 2; v <= 5; v += 3) {
			buf b = build(v, 3, 8);
			char name[32];
			snprintf(name, sizeof(name), "index-v%u", v);
			rc |= write_file(argv[2], name, b.b, b.n);
			free(b.b);
		}
		return rc;
	}
	if (argc == 3 && strcmp(argv[1], "--write-malformed") == 0) {
		int rc = 0;
		for (size_t i = 0; i < SP_ARRAY_LEN(bad_cases); i++) {
			buf b = make_bad(bad_cases[i].name);
			char *name = sp_xasprintf("%s.idx", bad_cases[i].name);
			rc |= write_file(argv[2], name, b.b, b.n);
			free(name);
			name = sp_xasprintf("%s.expect", bad_cases[i].name);
			rc |= write_file(argv[2], name, (const unsigned char *)bad_cases[i].expect,
					 strlen(bad_cases[i].expect));
			free(name);
			free(b.b);
		}
		return rc;
	}
	check_good(2);
	check_good(5);

	/* an empty index: nothing found */
	buf e0 = build(2, 0, 0);
	sp_dwp_index ix;
	sp_error *e = sp_dwp_index_read(e0.b, e0.n, "empty.dwp", &ix);
	sp_dwp_unit got;
	TAP_OK(!e && !sp_dwp_index_find(&ix, units[0].id, &got),
	       "an index of no units reads and finds nothing");
	sp_error_free(e);
	free(e0.b);

	/* the indexes of real packages of the two-unit split fixture: binutils'
	 * dwp (version 2, GCC's DWARF 4) and llvm-dwp (version 5 for DWARF 5,
	 * version 2 for Clang's DWARF 4; Clang's have no .debug_line.dwo
	 * column) */
	const char *src = getenv("SP_SRCDIR");
	static const struct {
		const char *name;
		unsigned version;
	} real[] = {
		{"binutils-dwp-gcc12-dwarf4", 2},
		{"llvm-dwp-14-gcc12-dwarf5", 5},
		{"llvm-dwp-14-clang14-dwarf5", 5},
		{"llvm-dwp-14-clang14-dwarf4", 2},
	};
	for (size_t i = 0; i < SP_ARRAY_LEN(real); i++) {
		char *path = sp_xasprintf("%s/tests/fuzz/seeds/dwp/%s", src && *src ? src : ".",
					  real[i].name);
		unsigned char *c;
		size_t cn;
		e = sp_read_file(path, &c, &cn);
		if (!e)
			e = sp_dwp_index_read(c, cn, path, &ix);
		TAP_OK(!e && ix.n_units == 2 && ix.version == real[i].version && ix.n_cols >= 4,
		       "%s: version %u, 2 units", real[i].name, real[i].version);
		size_t found = 0;
		for (uint32_t k = 0; !e && k < ix.n_slots; k++) {
			uint64_t id = sp_read_le(ix.ids + k * 8, 8);
			found += id && sp_dwp_index_find(&ix, id, &got) &&
				 got.has[SP_DWP_SECT_INFO] && got.size[SP_DWP_SECT_INFO] > 0;
		}
		TAP_EQ_U64(found, 2, "%s: both units found, with their .debug_info.dwo",
			   real[i].name);
		if (!e)
			free(c);
		sp_error_free(e);
		free(path);
	}

	/* every malformed case, as made here and as committed */
	for (size_t i = 0; i < SP_ARRAY_LEN(bad_cases); i++) {
		buf b = make_bad(bad_cases[i].name);
		e = sp_dwp_index_read(b.b, b.n, "bad.dwp", &ix);
		char *m = e ? sp_error_string(e) : NULL;
		TAP_OK(m && strstr(m, bad_cases[i].expect) && strstr(m, "bad.dwp: .debug_cu_index"),
		       "%s: error says \"%s\"", bad_cases[i].name, bad_cases[i].expect);
		if (m)
			printf("#   %s\n", m);
		free(m);
		sp_error_free(e);
		char *path = sp_xasprintf("%s/tests/malformed/dwp/%s.idx", src && *src ? src : ".",
					  bad_cases[i].name);
		unsigned char *c;
		size_t cn;
		e = sp_read_file(path, &c, &cn);
		TAP_OK(!e && cn == b.n && memcmp(c, b.b, b.n) == 0, "%s is the case made here",
		       path);
		sp_error_free(e);
		if (!e)
			free(c);
		free(path);
		free(b.b);
	}
	return tap_done();
}
