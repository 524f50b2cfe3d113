/* fuzz_dwraw.c — libFuzzer harness for the raw DIE walk (symbolize/dwraw.c):
 * abbreviations as the walk tabulates them, DIEs and their attribute forms
 * skipped and read over the bytes (cursor.h), and range lists of
 * .debug_ranges and .debug_rnglists.
 *
 * The input is a little-endian header of four 16-bit lengths, then the
 * sections they measure, then .debug_info (the rest):
 *
 *   abbrev_len ranges_len rnglists_len str_len
 *   .debug_abbrev .debug_ranges .debug_rnglists .debug_str .debug_info
 *
 * A length past the input is cut to what is there.  The harness puts the
 * sections in an ELF image made in memory (ET_EXEC, no relocations: pcs
 * are read from the bytes), with .debug_info last so that reading past it
 * is reading past the image, and gives the walk its own exact-size copies
 * of the two range-list sections.  Every unit libdw finds (at most 64) is
 * walked as units.c does it, raw with and without direct pcs and with
 * libdw.  Every walk must give a well-formed tree: node 0 the root, every
 * other node's parent an earlier node, every range's node and parent
 * existing nodes with lo < hi; the rest is ASan's and UBSan's to judge.
 * The two walks are not required to agree here: on a damaged unit libdw
 * follows DW_AT_sibling where the raw walk reads every DIE (test_dwwalk
 * holds them equal on real programs).  Seeds (tests/fuzz/seeds/dwraw/): the sections of
 * small programs built with gcc -O2 -g as DWARF 4 and 5 (inlined calls,
 * range lists), and units written by hand (a pc pair, each range-list
 * entry kind, a base-address selection, an unterminated child list).
 * fuzz-runs: 100000 (executions of each scripts/fuzz CI pass: about 10 s) */
#include "symbolize/dwarf/dwarfp.h"
#include "tests/fuzz/check.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { S_INFO = 1, S_ABBREV, S_RANGES, S_RNGLISTS, S_STR, S_SHSTRTAB, N_SECT };

static const char shstrtab[] =
	"\0.debug_info\0.debug_abbrev\0.debug_ranges\0.debug_rnglists\0.debug_str\0"
	".shstrtab";

/* Offset of NAME in shstrtab. */
static size_t name_off(const char *name)
{
	for (size_t i = 1; i < sizeof(shstrtab); i += strlen(shstrtab + i) + 1)
		if (strcmp(shstrtab + i, name) == 0)
			return i;
	SP_FUZZ_FAIL("the fixture has no section of that name");
}

/* An ELF64 image: header, section headers, .shstrtab, then the sections in
 * the order abbrev, ranges, rnglists, str, info, and PAD zero bytes after
 * the image's *OUT bytes.  Caller frees. */
static unsigned char *image(const unsigned char *const *sec, const size_t *len, size_t pad,
			    size_t *out)
{
	static const char *const names[N_SECT] = {
		NULL, ".debug_info", ".debug_abbrev", ".debug_ranges", ".debug_rnglists",
		".debug_str", ".shstrtab",
	};
	static const int order[] = {S_ABBREV, S_RANGES, S_RNGLISTS, S_STR, S_INFO};
	size_t off = sizeof(Elf64_Ehdr) + N_SECT * sizeof(Elf64_Shdr);
	Elf64_Shdr sh[N_SECT];
	memset(sh, 0, sizeof(sh));
	sh[S_SHSTRTAB].sh_offset = off;
	sh[S_SHSTRTAB].sh_size = sizeof(shstrtab);
	sh[S_SHSTRTAB].sh_type = SHT_STRTAB;
	off += sizeof(shstrtab);
	for (size_t k = 0; k < SP_ARRAY_LEN(order); k++) {
		int s = order[k];
		sh[s].sh_type = SHT_PROGBITS;
		sh[s].sh_offset = off;
		sh[s].sh_size = len[s];
		off += len[s];
	}
	for (int s = 1; s < N_SECT; s++) {
		sh[s].sh_name = (Elf64_Word)name_off(names[s]);
		sh[s].sh_addralign = 1;
	}
	unsigned char *img = sp_xcalloc(1, off + pad);
	const Elf64_Ehdr eh = {
		.e_ident = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT},
		.e_type = ET_EXEC, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
		.e_ehsize = sizeof(Elf64_Ehdr), .e_shoff = sizeof(Elf64_Ehdr),
		.e_shentsize = sizeof(Elf64_Shdr), .e_shnum = N_SECT, .e_shstrndx = S_SHSTRTAB,
	};
	memcpy(img, &eh, sizeof(eh));
	memcpy(img + sizeof(eh), sh, sizeof(sh));
	memcpy(img + sh[S_SHSTRTAB].sh_offset, shstrtab, sizeof(shstrtab));
	for (int s = S_INFO; s < S_SHSTRTAB; s++)
		if (len[s])
			memcpy(img + sh[s].sh_offset, sec[s], len[s]);
	*out = off;
	return img;
}

/* A tree a walk may give: node 0 the root, parents before children,
 * ranges of existing nodes, none empty. */
static void check_tree(const sp_fn_tree *t)
{
	if (t->n_nodes == 0 || t->nodes[0].parent != 0)
		SP_FUZZ_FAIL("the function tree has no root");
	for (size_t i = 1; i < t->n_nodes; i++)
		if (t->nodes[i].parent >= i)
			SP_FUZZ_FAIL("a node's parent does not come before it");
	for (size_t i = 0; i < t->n_ranges; i++) {
		const sp_fn_range *r = &t->ranges[i];
		if (r->node == 0 || r->node >= t->n_nodes || r->parent >= t->n_nodes ||
		    r->lo >= r->hi)
			SP_FUZZ_FAIL("a range names no node or is empty");
	}
}

/* A copy of N bytes at P in a buffer of its own (NULL for none), so that
 * ASan sees reads past it. */
static unsigned char *own(const unsigned char *p, size_t n)
{
	if (!n)
		return NULL;
	unsigned char *c = sp_xmalloc(n);
	memcpy(c, p, n);
	return c;
}

/* Every unit libdw finds in the image of SEC (at most 64) walked as
 * units.c does it: with LIBDW by libdw, else raw, with and without direct
 * pcs.  libdw 0.188 reads a DIE's attributes without comparing them with the
 * end of the section (valgrind sees it read past an image that ends there),
 * and both walks ask libdw for a unit's base (sp_unit_base): the image gets
 * 64 zero bytes after it, as a file has its section headers or other
 * sections after .debug_info.  The raw walk's own reads are bounded by the
 * cursor, which knows each section's size. */
static void walk_image(const unsigned char *const *sec, const size_t *len,
		       const sp_line_sections *ls, bool libdw)
{
	size_t img_len;
	unsigned char *img = image(sec, len, 64, &img_len);
	elf_version(EV_CURRENT);
	Elf *elf = elf_memory((char *)img, img_len);
	Dwarf *dw = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	sp_units u = {0};
	u.dw = dw;
	u.lsec = ls;
	size_t cap = 0;
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dw && u.n_cus < 64 &&
	       dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		sp_cu ci = {0};
		if (dwarf_offdie(dw, off + hsize, &ci.die)) {
			ci.dw = dw;
			ci.start = off;
			ci.end = next < len[S_INFO] ? next : len[S_INFO];
			SP_PUSH(u.cus, u.n_cus, cap, ci);
		}
		if (next <= off)
			break;
		off = next;
	}
	for (size_t i = 0; i < u.n_cus; i++) {
		sp_fn_tree t = {0};
		if (libdw) {
			sp_units_walk(&u, i, false, &t);
			check_tree(&t);
		}
		for (int direct = 0; !libdw && direct <= 1; direct++) {
			u.direct_pc = direct;
			if (sp_units_walk(&u, i, true, &t))
				check_tree(&t);
		}
		sp_fn_tree_clear(&t);
	}
	free(u.cus);
	dwarf_end(dw);
	elf_end(elf);
	free(img);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 8)
		return 0;
	const unsigned char *sec[N_SECT] = {0};
	size_t len[N_SECT] = {0};
	static const int heads[] = {S_ABBREV, S_RANGES, S_RNGLISTS, S_STR};
	size_t at = 8;
	for (size_t k = 0; k < SP_ARRAY_LEN(heads); k++) {
		size_t n = (size_t)data[2 * k] | (size_t)data[2 * k + 1] << 8;
		if (n > size - at)
			n = size - at;
		sec[heads[k]] = data + at;
		len[heads[k]] = n;
		at += n;
	}
	sec[S_INFO] = data + at;
	len[S_INFO] = size - at;

	unsigned char *ranges = own(sec[S_RANGES], len[S_RANGES]);
	unsigned char *rnglists = own(sec[S_RNGLISTS], len[S_RNGLISTS]);
	sp_line_sections ls;
	memset(&ls, 0, sizeof(ls));
	ls.ranges = ranges;
	ls.ranges_size = len[S_RANGES];
	ls.rnglists = rnglists;
	ls.rnglists_size = len[S_RNGLISTS];
	walk_image(sec, len, &ls, false);
	walk_image(sec, len, &ls, true);
	free(ranges);
	free(rnglists);
	return 0;
}
