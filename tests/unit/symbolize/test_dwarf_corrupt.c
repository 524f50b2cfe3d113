/* test_dwarf_corrupt.c — corrupted debug info never crashes the resolver.
 *
 * A small C++ program of three compile units (templates, functions inlined
 * two levels deep, a cold part of main) is built -O2 -g at test time: by
 * GCC as DWARF 5 (.debug_rnglists, .debug_line_str, DW_FORM_line_strp) and
 * as DWARF 4 (.debug_ranges), and by clang as DWARF 5 (DW_FORM_strx,
 * addrx, rnglistx: .debug_str_offsets, .debug_addr), 100 damaged copies of
 * each.  The unmodified builds must resolve every
 * function of the source to its linkage name, and an address of alpha to
 * the inline chain twice <- thrice <- alpha.  Then, from a fixed xorshift
 * seed, copies are made that each damage ONE debug section (.debug_info,
 * .debug_abbrev, .debug_line, .debug_rnglists/.debug_ranges, .debug_str,
 * .debug_line_str, .debug_addr, .debug_str_offsets, when present): bits
 * flipped or bytes overwritten (1-8 of them, sometimes in a unit header), a
 * unit's length field cut short or pushed past the section's end, or the
 * NULs of a string section overwritten.  The first copies damage each
 * section's end: its last unit runs off it, its last string loses its NUL.
 * The damaged section is moved to the end of the copy, which ends on a page
 * boundary, so reading past the section is reading past the file, which
 * ASan reports.  Each copy is opened in a fresh session and every
 * function address, its middle and last byte and the gaps between functions
 * are resolved with inlines.  Every call must return frames or an error
 * whose message formats; every frame string must be NUL-terminated (strlen
 * is run over each, so ASan and valgrind see any read out of bounds).
 */
#include "symbolize/internal.h"
#include "tests/helpers/dwc_fixture.h"
#include "tests/helpers/file_util.h"
#include "tests/helpers/tap.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define N_COPIES 100 /* per build */

static char tmpdir[256];

static const char *const expected_funcs[] = {
	"_ZN3dwc5alphaEi",        "_ZN3dwc4betaEl",      "_ZNK3dwc3BoxIlE3getEi",
	"_ZN3dwc5scaleILi3EEEii", "_ZN3dwc5scaleILi5EEEii", "_ZN3dwc5gammaEi",
	"_ZN3dwc4Ring4pushEi",    "main",
};

static const char *const target_sections[] = {
	".debug_info", ".debug_abbrev",   ".debug_line", ".debug_rnglists", ".debug_ranges",
	".debug_str",  ".debug_line_str", ".debug_addr",    ".debug_str_offsets",
};

/* Runs the shell command CMD (consumed). */
static int run(char *cmd)
{
	int rc = system(cmd);
	free(cmd);
	return rc;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

typedef struct {
	char *name;
	uint64_t addr, size;
} sym;

typedef struct {
	const char *name;
	size_t off, size, index;
} section;

typedef struct {
	uint8_t *data;
	size_t len;
	sym *syms;
	size_t n_syms;
	section secs[SP_ARRAY_LEN(target_sections)];
	size_t n_secs;
	bool compressed;
} fixture;

typedef struct {
	fixture *fx;
	Elf *elf;
	size_t strndx, *cap;
} sym_ctx;

static void add_sym(void *ctx, const GElf_Sym *s)
{
	sym_ctx *c = ctx;
	const char *sn = elf_strptr(c->elf, c->strndx, s->st_name);
	sym y = {sp_xstrdup(sn ? sn : ""), s->st_value, s->st_size};
	SP_PUSH(c->fx->syms, c->fx->n_syms, *c->cap, y);
}

/* Function symbols and the debug sections of the ELF at PATH, with libelf. */
static bool fixture_read(const char *path, fixture *fx)
{
	memset(fx, 0, sizeof(*fx));
	sp_error *e = sp_read_file(path, &fx->data, &fx->len);
	if (e) {
		sp_error_free(e);
		return false;
	}
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	size_t shstrndx;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0) {
		if (elf)
			elf_end(elf);
		if (fd >= 0)
			close(fd);
		return false;
	}
	Elf_Scn *scn = NULL;
	size_t cap = 0;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		for (size_t i = 0; i < SP_ARRAY_LEN(target_sections); i++) {
			if (strcmp(name, target_sections[i]) || sh.sh_type == SHT_NOBITS ||
			    sh.sh_size == 0 || sh.sh_offset + sh.sh_size > fx->len)
				continue;
			fx->secs[fx->n_secs++] =
				(section){target_sections[i], sh.sh_offset, sh.sh_size, elf_ndxscn(scn)};
			if (sh.sh_flags & SHF_COMPRESSED)
				fx->compressed = true;
		}
		if (sh.sh_type == SHT_SYMTAB) {
			sym_ctx c = {fx, elf, sh.sh_link, &cap};
			sp_test_func_syms(scn, &sh, add_sym, &c);
		}
	}
	elf_end(elf);
	close(fd);
	return true;
}

static void fixture_clear(fixture *fx)
{
	for (size_t i = 0; i < fx->n_syms; i++)
		free(fx->syms[i].name);
	free(fx->syms);
	free(fx->data);
}

/* Addresses to resolve: every function's first, middle and last byte and
 * the byte after it (often padding between functions). */
static size_t probe_addrs(const fixture *fx, uint64_t **out)
{
	size_t n = 0, cap = 0;
	*out = NULL;
	for (size_t i = 0; i < fx->n_syms; i++) {
		const sym *s = &fx->syms[i];
		uint64_t v[4] = {s->addr, s->addr + s->size / 2, s->addr + s->size - 1,
				 s->addr + s->size};
		for (size_t k = 0; k < 4; k++)
			if (k == 0 || s->size > 0)
				SP_PUSH(*out, n, cap, v[k]);
	}
	return n;
}

static sp_symbolize_options session_opts(void)
{
	static const char *dirs[1];
	static char nodebug[300];
	snprintf(nodebug, sizeof(nodebug), "%s/no-debug", tmpdir);
	dirs[0] = nodebug;
	return (sp_symbolize_options){
		.no_debuginfod = true, .debug_dirs = dirs, .n_debug_dirs = 1,
		.demangle = SP_DEMANGLE_NONE};
}

/* Strings an error or frames hand out must be readable to their NUL. */
static size_t error_ok(sp_error *e)
{
	char *s = sp_error_string(e);
	size_t len = s ? strlen(s) : 0;
	free(s);
	sp_error_free(e);
	return len;
}

/* FNV-1a over LEN bytes at P, into *H. */
static void mix(uint64_t *h, const void *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		*h = (*h ^ ((const uint8_t *)p)[i]) * 0x100000001b3ULL;
}

static void mix_str(uint64_t *h, const char *s)
{
	mix(h, s ? s : "", s ? strlen(s) + 1 : 1); /* strlen reads up to the NUL */
}

/* Checks N frames and mixes what they say into *H. */
static bool frames_ok(const sp_frame *f, size_t n, uint64_t *h)
{
	mix(h, &n, sizeof(n));
	if (n && !f)
		return false;
	for (size_t i = 0; i < n; i++) {
		mix_str(h, f[i].name);
		mix_str(h, f[i].system_name);
		/* a frame without a line has the file its symbol's STT_FILE
		 * gives, which strip --strip-debug removes: not compared */
		mix_str(h, f[i].line ? f[i].file : NULL);
		mix(h, &f[i].line, sizeof(f[i].line));
		mix(h, &f[i].column, sizeof(f[i].column));
		if (f[i].inlined != (i + 1 < n))
			return false;
	}
	return true;
}

typedef struct {
	size_t opened, open_errors, calls, errors, with_frames, bad;
	uint64_t digest; /* of every answer of the last copy */
} tally;

/* Opens PATH in a fresh session and resolves every probe address. */
static void resolve_all(const char *path, const uint64_t *addrs, size_t n_addrs, tally *t)
{
	sp_symbolize_options o = session_opts();
	sp_symbolizer *s = sp_symbolizer_new(&o);
	sp_object *obj = NULL;
	sp_error *e = sp_symbolizer_object(s, path, NULL, &obj);
	t->digest = 0xcbf29ce484222325ULL;
	if (e) {
		t->open_errors++;
		if (!error_ok(e))
			t->bad++;
		sp_symbolizer_free(s);
		return;
	}
	t->opened++;
	for (size_t i = 0; i < n_addrs; i++) {
		const sp_frame *f = NULL;
		size_t n = 0;
		t->calls++;
		e = sp_object_resolve(obj, addrs[i], &f, &n);
		if (e) {
			t->errors++;
			mix(&t->digest, "E", 1);
			if (!error_ok(e) || n != 0)
				t->bad++;
			continue;
		}
		if (!frames_ok(f, n, &t->digest))
			t->bad++;
		t->with_frames += n > 0;
	}
	sp_symbolizer_free(s);
}

/* The unit headers of sections made of units with an initial 32-bit
 * unit_length: the offset of each length field. */
static size_t unit_offsets(const uint8_t *p, size_t size, size_t *out, size_t max)
{
	size_t n = 0;
	for (size_t off = 0; off + 4 <= size && n < max;) {
		uint32_t len = (uint32_t)p[off] | (uint32_t)p[off + 1] << 8 |
			       (uint32_t)p[off + 2] << 16 | (uint32_t)p[off + 3] << 24;
		if (len == 0 || len >= 0xfffffff0u)
			break;
		out[n++] = off;
		off += 4 + (size_t)len;
	}
	return n;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Damages section SEC, whose bytes are at P, and describes it in WHAT:
 * as KIND says, or as the generator picks when KIND is -1. */
static void corrupt(const section *sec, uint8_t *p, int kind, char *what, size_t what_len)
{
	bool units = !strcmp(sec->name, ".debug_info") || !strcmp(sec->name, ".debug_line") ||
		     !strcmp(sec->name, ".debug_rnglists") || !strcmp(sec->name, ".debug_addr") ||
		     !strcmp(sec->name, ".debug_str_offsets");
	bool strings = !strcmp(sec->name, ".debug_str") || !strcmp(sec->name, ".debug_line_str");
	size_t uoff[256];
	size_t nu = units ? unit_offsets(p, sec->size, uoff, SP_ARRAY_LEN(uoff)) : 0;
	if (kind < 0)
		kind = (int)below(8);
	if (kind == 0 && nu) {
		/* a unit length cut short, or running past the section */
		size_t u = uoff[below(nu)];
		uint32_t len = (uint32_t)p[u] | (uint32_t)p[u + 1] << 8 |
			       (uint32_t)p[u + 2] << 16 | (uint32_t)p[u + 3] << 24;
		uint32_t nl = below(3) ? (uint32_t)below(len)
				       : len + 1 + (uint32_t)below(sec->size + 64);
		put_le32(p + u, nl);
		snprintf(what, what_len, "%s: unit length at %zu %u -> %u", sec->name, u, len, nl);
		return;
	}
	if (kind == 3 && nu) {
		/* the last unit runs off the section: its length past the end,
		 * its closing bytes (the NULs ending its DIEs) made non-zero */
		size_t u = uoff[nu - 1], k = 1 + below(4);
		uint32_t nl = (uint32_t)(sec->size - u) + (uint32_t)below(4096);
		put_le32(p + u, nl);
		for (size_t i = 0; i < k; i++)
			p[sec->size - 1 - i] = (uint8_t)(1 + below(255));
		snprintf(what, what_len, "%s: last unit at %zu runs off, length %u, %zu end bytes set",
			 sec->name, u, nl, k);
		return;
	}
	if (kind == 1 && strings) {
		/* strings without their terminator, the last one included */
		size_t k = 1 + below(8);
		for (size_t i = 0; i < k; i++) {
			size_t at = i == 0 ? sec->size - 1 : below(sec->size);
			p[at] = p[at] ? p[at] : 'x';
		}
		snprintf(what, what_len, "%s: %zu bytes made non-NUL", sec->name, k);
		return;
	}
	size_t k = 1 + below(8);
	/* near a unit header now and then, else anywhere */
	size_t base = nu && kind == 2 ? uoff[below(nu)] : 0;
	size_t span = nu && kind == 2 ? 24 : sec->size;
	if (base + span > sec->size)
		span = sec->size - base;
	bool flip = below(2);
	size_t first = base + below(span);
	for (size_t i = 0; i < k; i++) {
		/* overwrites are consecutive, flips scattered */
		size_t at = flip ? base + below(span) : first + i;
		if (at >= sec->size)
			break;
		if (flip)
			p[at] ^= (uint8_t)(1u << below(8));
		else
			p[at] = (uint8_t)(below(4) == 0 ? 0xff : below(4) == 0 ? 0 : rnd());
	}
	snprintf(what, what_len, "%s: %zu bytes %s from offset %zu", sec->name, k,
		 flip ? "flipped" : "overwritten", flip ? base : first);
}

/* A copy of FX's file with section SEC moved to its end, which is on a
 * page boundary: a read past the section's end is a read past the end of
 * the file, a fault where it is mapped and an error for ASan or valgrind
 * where it is read into memory.  Only its first KEEP bytes are kept (its
 * size, or less to cut it short).  *LEN gets the copy's size, *AT the
 * section's new offset.  NULL unless the file is ELF64 little-endian. */
static uint8_t *moved_copy(const fixture *fx, const section *sec, size_t keep, size_t *len,
			   size_t *at)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh;
	if (fx->len < sizeof(eh))
		return NULL;
	memcpy(&eh, fx->data, sizeof(eh));
	size_t sh_at = eh.e_shoff + sec->index * (size_t)eh.e_shentsize;
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_shentsize != sizeof(sh) || sh_at + sizeof(sh) > fx->len)
		return NULL;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	*len = (fx->len + keep + page - 1) / page * page;
	*at = *len - keep;
	uint8_t *buf = sp_xcalloc(1, *len);
	memcpy(buf, fx->data, fx->len);
	memcpy(buf + *at, fx->data + sec->off, keep);
	memcpy(&sh, buf + sh_at, sizeof(sh));
	sh.sh_offset = *at;
	sh.sh_size = keep;
	memcpy(buf + sh_at, &sh, sizeof(sh));
	return buf;
}

static const sym *find_sym(const fixture *fx, const char *name)
{
	for (size_t i = 0; i < fx->n_syms; i++)
		if (!strcmp(fx->syms[i].name, name))
			return &fx->syms[i];
	return NULL;
}

/* The unmodified build: every function of the source by its name, and the
 * inline chain of alpha. */
static void check_original(const char *path, const fixture *fx, const char *label)
{
	sp_symbolize_options o = session_opts();
	sp_symbolizer *s = sp_symbolizer_new(&o);
	sp_object *obj = NULL;
	sp_error *e = sp_symbolizer_object(s, path, NULL, &obj);
	TAP_OK(!e, "%s: the unmodified build opens", label);
	if (e) {
		sp_error_free(e);
		sp_symbolizer_free(s);
		return;
	}
	for (size_t i = 0; i < SP_ARRAY_LEN(expected_funcs); i++) {
		const sym *y = find_sym(fx, expected_funcs[i]);
		const sp_frame *f = NULL;
		size_t n = 0;
		e = y ? sp_object_resolve(obj, y->addr, &f, &n) : NULL;
		TAP_OK(y && !e && n >= 1 && f[n - 1].system_name &&
			       !strcmp(f[n - 1].system_name, expected_funcs[i]),
		       "%s: %s resolves to itself (got %s)", label, expected_funcs[i],
		       n && f[n - 1].system_name ? f[n - 1].system_name : "nothing");
		sp_error_free(e);
	}
	const sym *a = find_sym(fx, "_ZN3dwc5alphaEi");
	bool chain = false;
	for (uint64_t x = a ? a->addr : 0; a && x < a->addr + a->size && !chain; x++) {
		const sp_frame *f = NULL;
		size_t n = 0;
		e = sp_object_resolve(obj, x, &f, &n);
		chain = !e && n == 3 && f[0].system_name && f[1].system_name &&
			strstr(f[0].system_name, "twice") &&
			strstr(f[1].system_name, "thrice") &&
			!strcmp(f[2].system_name, "_ZN3dwc5alphaEi") && f[0].inlined &&
			f[1].inlined && !f[2].inlined;
		sp_error_free(e);
	}
	TAP_OK(chain, "%s: an address of alpha is twice <- thrice <- alpha", label);
	sp_symbolizer_free(s);
}

/* The file offset and size of the first section of PATH whose name is
 * one of NAMES (NULL-terminated); false when none is there. */
static bool section_at(const char *path, const char *const *names, size_t *off, size_t *size)
{
	int fd = open(path, O_RDONLY);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	size_t shstrndx;
	bool found = false;
	if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0) {
		Elf_Scn *scn = NULL;
		while (!found && (scn = elf_nextscn(elf, scn)) != NULL) {
			GElf_Shdr sh;
			const char *name;
			if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
				continue;
			for (size_t i = 0; names[i] && !found; i++)
				found = !strcmp(name, names[i]);
			*off = sh.sh_offset;
			*size = sh.sh_size;
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return found;
}

/* Every byte from the first function's start to the last one's end. */
static size_t text_addrs(const fixture *fx, uint64_t **out)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	for (size_t i = 0; i < fx->n_syms; i++) {
		lo = fx->syms[i].addr < lo ? fx->syms[i].addr : lo;
		hi = fx->syms[i].addr + fx->syms[i].size > hi ? fx->syms[i].addr + fx->syms[i].size
							       : hi;
	}
	size_t n = hi > lo ? (size_t)(hi - lo) : 0;
	*out = sp_xcalloc(n ? n : 1, sizeof(**out));
	for (size_t i = 0; i < n; i++)
		(*out)[i] = lo + i;
	return n;
}

/* Opening PATH, or resolving ADDR in it, fails with an error that names
 * PATH, SECNAME and says WHAT. */
static void expect_section_error(const char *path, uint64_t addr, const char *secname,
				 const char *what, const char *label)
{
	sp_symbolize_options o = session_opts();
	sp_symbolizer *s = sp_symbolizer_new(&o);
	sp_object *obj = NULL;
	const sp_frame *f = NULL;
	size_t n = 0;
	sp_error *e = sp_symbolizer_object(s, path, NULL, &obj);
	if (!e)
		e = sp_object_resolve(obj, addr, &f, &n);
	char *msg = e ? sp_error_string(e) : NULL;
	TAP_OK(msg && strstr(msg, path) && strstr(msg, secname) && strstr(msg, what),
	       "%s: %s: an error naming the file and %s (%s)", label, what, secname,
	       msg ? msg : "no error");
	free(msg);
	sp_error_free(e);
	sp_symbolizer_free(s);
}

/* The build EXE with its debug sections compressed by zlib and by zstd
 * answers every address of its code exactly as the plain build does,
 * inline chains included, and so does a stripped copy whose compressed
 * sections are in a separate debug file.  Then zstd copies whose .debug_info has an
 * unknown compression type, a broken frame, or is cut short: each is an
 * error naming the file and the section. */
static void check_compressed(const char *exe, const fixture *plain, const char *label, int k)
{
	uint64_t *addrs;
	size_t n_addrs = text_addrs(plain, &addrs);
	tally t = {0};
	resolve_all(exe, addrs, n_addrs, &t);
	uint64_t want = t.digest;
	static const char *const kinds[] = {"zlib", "zstd"};
	for (size_t i = 0; i < SP_ARRAY_LEN(kinds); i++) {
		char *comp = sp_xasprintf("%s/fx%d-%s", tmpdir, k, kinds[i]);
		int rc = run(sp_xasprintf("objcopy --compress-debug-sections=%s '%s' '%s'", kinds[i],
					  exe, comp));
		fixture fx;
		bool read = rc == 0 && fixture_read(comp, &fx);
		TAP_OK(read && fx.compressed, "%s: objcopy compressed the sections with %s", label,
		       kinds[i]);
		t = (tally){0};
		resolve_all(comp, addrs, n_addrs, &t);
		TAP_OK(t.opened == 1 && t.bad == 0 && t.errors == 0 && t.digest == want,
		       "%s: %s sections: all %zu code addresses answer as the plain build", label,
		       kinds[i], n_addrs);
		/* location lists are left compressed (we would report them corrupt,
		 * libdw would drop them): ruined, they change nothing */
		static const char *const locs[] = {".debug_loclists", ".debug_loc", NULL};
		size_t loc_off = 0, loc_size = 0;
		if (read && section_at(comp, locs, &loc_off, &loc_size) && loc_size > 32) {
			char *ruined = sp_xasprintf("%s-loc", comp);
			uint8_t *buf = sp_xmalloc(fx.len);
			memcpy(buf, fx.data, fx.len);
			memset(buf + loc_off + sizeof(Elf64_Chdr), 0xa5, loc_size - sizeof(Elf64_Chdr));
			bool ok = sp_test_write_file(ruined, buf, fx.len);
			free(buf);
			t = (tally){0};
			resolve_all(ruined, addrs, n_addrs, &t);
			TAP_OK(ok && t.opened == 1 && t.bad == 0 && t.errors == 0 && t.digest == want,
			       "%s: %s sections, location lists ruined: all %zu code addresses "
			       "answer as the plain build",
			       label, kinds[i], n_addrs);
			free(ruined);
		} else {
			TAP_OK(0, "%s: %s sections: the build has compressed location lists", label,
			       kinds[i]);
		}
		const section *info = NULL;
		for (size_t j = 0; read && j < fx.n_secs; j++)
			if (!strcmp(fx.secs[j].name, ".debug_info"))
				info = &fx.secs[j];
		if (read && !strcmp(kinds[i], "zstd") && info && info->size > 64) {
			char *bad = sp_xasprintf("%s-bad", comp);
			uint64_t addr = plain->syms[0].addr;
			static const struct {
				const char *what;
				int how; /* 0 ch_type, 1 frame magic, 2 cut short */
			} damage[] = {{"compression type 7", 0},
				      {"not a zstd frame", 1},
				      {"corrupt zstd data", 2}};
			for (size_t d = 0; d < SP_ARRAY_LEN(damage); d++) {
				size_t len, at;
				int how = damage[d].how;
				uint8_t *buf = moved_copy(&fx, info, how == 2 ? info->size / 2 : info->size,
							  &len, &at);
				if (buf && how == 0)
					put_le32(buf + at, 7);
				if (buf && how == 1)
					put_le32(buf + at + sizeof(Elf64_Chdr), 0x12345678);
				bool ok = buf && sp_test_write_file(bad, buf, len);
				free(buf);
				TAP_OK(ok, "%s: wrote the zstd copy with %s", label, damage[d].what);
				expect_section_error(bad, addr, ".debug_info", damage[d].what, label);
			}
			free(bad);
		}
		if (read)
			fixture_clear(&fx);
		/* the same sections in a separate debug file, which libdwfl
		 * opens and reads at once */
		char *split = sp_xasprintf("%s/fx%d-%s-split", tmpdir, k, kinds[i]);
		rc = run(sp_xasprintf("cd '%s' && objcopy --only-keep-debug '%s' '%s.debug' && "
				      "objcopy --strip-debug --add-gnu-debuglink='%s.debug' '%s' '%s'",
				      tmpdir, comp, split, split, exe, split));
		t = (tally){0};
		resolve_all(split, addrs, n_addrs, &t);
		TAP_OK(rc == 0 && t.opened == 1 && t.bad == 0 && t.errors == 0 && t.digest == want,
		       "%s: %s sections in a separate debug file: all %zu code addresses answer "
		       "as the plain build",
		       label, kinds[i], n_addrs);
		free(split);
		free(comp);
	}
	free(addrs);
}

typedef struct {
	const char *label, *compiler, *flags;
	const char *ranges; /* the range-list section it must have */
	bool optional;      /* skipped when the compiler is missing */
} build;

/* The unit and file names do not depend on the temporary directory
 * (-fdebug-prefix-map), so every run damages the same bytes. */
static void run_build(const build *bd, int k)
{
	const char *label = bd->label;
	char *exe = sp_xasprintf("%s/fx%d", tmpdir, k);
	char *copy = sp_xasprintf("%s/fx%d-bad", tmpdir, k);
	if (bd->optional &&
	    run(sp_xasprintf("command -v %s >/dev/null 2>&1", bd->compiler)) != 0) {
		TAP_OK(1, "%s # SKIP %s not installed", label, bd->compiler);
		goto out;
	}
	int rc = run(sp_xasprintf("cd '%s' && %s -O2 -g %s -fdebug-prefix-map='%s'=/dwc "
				  "-o '%s' a.cc b.cc c.cc",
				  tmpdir, bd->compiler, bd->flags, tmpdir, exe));
	TAP_OK(rc == 0, "built the fixture: %s", label);
	fixture fx;
	if (rc != 0 || !fixture_read(exe, &fx)) {
		TAP_OK(0, "%s: read the fixture's sections", label);
		goto out;
	}
	TAP_OK(!fx.compressed && fx.n_secs >= 5 && fx.n_syms >= SP_ARRAY_LEN(expected_funcs),
	       "%s: %zu uncompressed debug sections to damage, %zu functions", label,
	       fx.n_secs, fx.n_syms);
	bool want_ranges = false;
	for (size_t i = 0; i < fx.n_secs; i++) {
		printf("# %s: %zu bytes\n", fx.secs[i].name, fx.secs[i].size);
		want_ranges |= !strcmp(fx.secs[i].name, bd->ranges);
	}
	TAP_OK(want_ranges, "%s: the fixture has range lists (%s)", label, bd->ranges);
	check_original(exe, &fx, label);
	check_compressed(exe, &fx, label, k);

	uint64_t *addrs;
	size_t n_addrs = probe_addrs(&fx, &addrs);
	tally t = {0};
	resolve_all(exe, addrs, n_addrs, &t);
	uint64_t clean = t.digest;
	t = (tally){0};
	size_t written = 0, bad_before = 0, changed = 0;
	for (int i = 0; i < N_COPIES && fx.n_secs; i++) {
		char what[256];
		/* first, each section once, its end damaged: the last unit runs
		 * off it, or its last string loses its NUL */
		bool end = (size_t)i < fx.n_secs;
		const section *sec = &fx.secs[end ? (size_t)i : below(fx.n_secs)];
		int kind = !end ? -1 : strstr(sec->name, "_str") && !strstr(sec->name, "offsets") ? 1 : 3;
		size_t len, at;
		uint8_t *buf = moved_copy(&fx, sec, sec->size, &len, &at);
		if (!buf)
			continue;
		corrupt(sec, buf + at, kind, what, sizeof(what));
		bool ok = sp_test_write_file(copy, buf, len);
		free(buf);
		if (!ok)
			continue;
		written++;
		resolve_all(copy, addrs, n_addrs, &t);
		if (t.bad != bad_before)
			printf("# copy %d (%s): a call broke its contract\n", i, what);
		bad_before = t.bad;
		changed += t.digest != clean;
	}
	printf("# %s: %zu copies, %zu opened, %zu open errors, %zu calls, %zu errors, "
	       "%zu with frames; %zu copies answered differently from the original\n",
	       label, written, t.opened, t.open_errors, t.calls, t.errors, t.with_frames,
	       changed);
	TAP_EQ_U64(written, N_COPIES, "%s: wrote every damaged copy", label);
	TAP_EQ_U64(t.bad, 0, "%s: every call returned frames or an error that formats",
		   label);
	/* the damage reaches the readers: not a test of untouched bytes */
	TAP_OK(changed * 5 >= written, "%s: at least a fifth of the copies answer "
	       "differently from the original (%zu)", label, changed);
	TAP_OK(t.calls >= (size_t)N_COPIES * n_addrs / 2,
	       "%s: most copies opened and were asked %zu addresses", label, n_addrs);
	free(addrs);
	fixture_clear(&fx);
out:
	free(exe);
	free(copy);
}

int main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/sp-dwcorrupt-XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	char *nodebug = sp_xasprintf("%s/no-debug", tmpdir);
	mkdir(nodebug, 0700);
	free(nodebug);
	TAP_OK(dwc_fixture_write(tmpdir), "wrote the fixture's three compile units");
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* GCC's DWARF 5 (.debug_rnglists, DW_FORM_line_strp), its DWARF 4
	 * (.debug_ranges), and clang's DWARF 5, whose units index strings,
	 * addresses and range lists (DW_FORM_strx, addrx, rnglistx) */
	static const build builds[] = {
		{"g++ DWARF 5", "g++", "-gdwarf-5", ".debug_rnglists", false},
		{"g++ DWARF 4", "g++", "-gdwarf-4", ".debug_ranges", false},
		{"clang++ DWARF 5", "clang++", "-gdwarf-5", ".debug_rnglists", true},
	};
	for (size_t i = 0; i < SP_ARRAY_LEN(builds); i++)
		run_build(&builds[i], (int)i);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("# %.1f s\n", (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	run(sp_xasprintf("rm -rf '%s'", tmpdir));
	return tap_done();
}
