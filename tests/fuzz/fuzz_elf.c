/* fuzz_elf.c — libFuzzer harness for the ELF/DWARF path end to end: a real
 * binary with one debug section replaced by the fuzzer's bytes, opened and
 * resolved through the session API (sp_symbolizer_object,
 * sp_object_resolve), as `symprof symbolize` does.
 *
 * The base binary is built once per process, at the first input, from the
 * C source below (gcc -O2 -g -gdwarf-5: inline chains, range lists, line
 * and string sections), in a temporary directory removed at exit; the
 * functions' addresses come from its .symtab.  An input is one selector
 * byte and the section's new contents:
 *
 *   byte 0, bits 0-5: which section of TARGETS (modulo their number);
 *   bits 6-7: 0 the bytes as they are, 1 zlib-compressed by the harness
 *   into an SHF_COMPRESSED section (ELFCOMPRESS_ZLIB), 2 the bytes as an
 *   SHF_COMPRESSED section (the fuzzer writes the Elf64_Chdr and the zlib
 *   stream), 3 as 0.
 *
 * The new contents are placed at the end of the copy, which ends on a page
 * boundary, so reading past the section is reading past the file.  Every
 * call must return frames or an error whose message formats, and every
 * string must be NUL-terminated; anything else aborts.  A selector naming a
 * section the base binary lacks does nothing.  The seeds
 * (tests/fuzz/seeds/elf/) are the base binary's own sections, in each of
 * the three forms: SP_FUZZ_ELF_SEEDS=DIR makes the harness write them to
 * DIR at setup.  "make check" replays them and 300 mutations.
 * fuzz-runs: 2000 (executions of each scripts/fuzz CI pass: about 10 s) */
#include "symbolize/symbolize.h"
#include "tests/helpers/file_util.h"
#include "tests/fuzz/check.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* tests/fuzz/standalone.c's number of mutations: each input builds and
 * opens a binary */
const size_t sp_fuzz_mutations = 300;

static const char *const targets[] = {
	".debug_info", ".debug_abbrev", ".debug_line", ".debug_rnglists", ".debug_str",
	".debug_line_str", ".debug_addr", ".debug_str_offsets", ".debug_aranges",
	".debug_loclists", ".debug_ranges", ".symtab", ".strtab",
};

static const char fixture_src[] =
	"volatile unsigned acc;\n"
	"static inline __attribute__((always_inline)) unsigned mix(unsigned v) { acc ^= v; return v * 31u; }\n"
	"static inline __attribute__((always_inline)) unsigned step(unsigned v) { return mix(v + 7u) ^ v; }\n"
	"__attribute__((noipa)) unsigned walk(unsigned n)\n"
	"{\n"
	"	unsigned h = 5381u;\n"
	"	while (n--)\n"
	"		h = step(h) + n;\n"
	"	return h;\n"
	"}\n"
	"__attribute__((noipa)) unsigned pick(unsigned k) { switch (k & 3u) { case 0: return walk(k); case 1: return mix(k); default: return acc; } }\n"
	"__attribute__((noipa, cold)) void rare(void) { acc = 0; }\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	if (argv[0] == 0)\n"
	"		rare();\n"
	"	return (int)(pick((unsigned)argc) + walk((unsigned)argc));\n"
	"}\n";

static struct {
	bool tried, ok;
	char dir[256];
	char *copy;
	uint8_t *elf;
	size_t len;
	struct {
		size_t off, size, header; /* header: the section header's offset */
	} secs[SP_ARRAY_LEN(targets)];
	uint64_t addrs[64];
	size_t n_addrs;
} base;

static void cleanup(void)
{
	char *cmd = sp_xasprintf("rm -rf '%s'", base.dir);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz_elf: could not remove %s\n", base.dir);
	free(cmd);
	free(base.copy);
	free(base.elf);
}

/* A function's first, middle and last bytes and the byte after it. */
static void add_probes(void *ctx, const GElf_Sym *s)
{
	(void)ctx;
	if (!s->st_size || base.n_addrs + 4 > SP_ARRAY_LEN(base.addrs))
		return;
	uint64_t v[4] = {s->st_value, s->st_value + s->st_size / 2, s->st_value + s->st_size - 1,
			 s->st_value + s->st_size};
	for (int j = 0; j < 4; j++)
		base.addrs[base.n_addrs++] = v[j];
}

/* Reads the base binary: its target sections and its functions' first,
 * middle and last bytes and the byte after each. */
static bool read_base(const char *path)
{
	sp_error *e = sp_read_file(path, &base.elf, &base.len);
	if (e) {
		sp_error_free(e);
		return false;
	}
	Elf64_Ehdr eh;
	if (base.len < sizeof(eh))
		return false;
	memcpy(&eh, base.elf, sizeof(eh));
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_shentsize != sizeof(Elf64_Shdr))
		return false;
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	size_t shstrndx;
	bool ok = elf && elf_getshdrstrndx(elf, &shstrndx) == 0;
	Elf_Scn *scn = NULL;
	while (ok && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (!name)
			continue;
		for (size_t i = 0; i < SP_ARRAY_LEN(targets); i++)
			if (!strcmp(name, targets[i]) && sh.sh_type != SHT_NOBITS) {
				base.secs[i].off = sh.sh_offset;
				base.secs[i].size = sh.sh_size;
				base.secs[i].header = eh.e_shoff + elf_ndxscn(scn) * sizeof(Elf64_Shdr);
			}
		if (sh.sh_type == SHT_SYMTAB)
			sp_test_func_syms(scn, &sh, add_probes, NULL);
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return ok && base.n_addrs > 0 && base.secs[0].size > 0;
}

static sp_symbolize_options session_opts(void)
{
	static const char *const no_dirs[] = {"/nonexistent-symprof-debug"};
	return (sp_symbolize_options){.no_debuginfod = true, .debug_dirs = no_dirs,
				      .n_debug_dirs = 1, .demangle = SP_DEMANGLE_NONE};
}

/* The unchanged base gives walk's first byte a frame with a file and a
 * line: the damaged copies are measured against a working path. */
static bool resolves_base(const char *exe)
{
	sp_symbolize_options o = session_opts();
	sp_symbolizer *s = sp_symbolizer_new(&o);
	sp_object *obj = NULL;
	const sp_frame *f = NULL;
	size_t nf = 0;
	sp_error *e = sp_symbolizer_object(s, exe, NULL, &obj);
	bool ok = false;
	for (size_t i = 0; !e && i < base.n_addrs && !ok; i += 4) {
		e = sp_object_resolve(obj, base.addrs[i], &f, &nf);
		ok = !e && nf && f[nf - 1].system_name && !strcmp(f[nf - 1].system_name, "walk") &&
		     f[nf - 1].file && f[nf - 1].line > 0;
	}
	sp_error_free(e);
	sp_symbolizer_free(s);
	return ok;
}

/* The base binary's sections as seeds: NAME (plain), NAME.z (compressed
 * by the harness), NAME.chdr (the compressed section as it is stored). */
static void write_seeds(const char *dir)
{
	for (size_t i = 0; i < SP_ARRAY_LEN(targets); i++) {
		if (!base.secs[i].header)
			continue;
		size_t n = base.secs[i].size;
		uLongf zn = compressBound((uLong)n);
		uint8_t *d = sp_xmalloc(1 + sizeof(Elf64_Chdr) + n + zn);
		memcpy(d + 1, base.elf + base.secs[i].off, n);
		const char *name = targets[i] + 1;
		for (int mode = 0; mode < 3; mode++) {
			size_t len = 1 + n;
			d[0] = (uint8_t)(i | (size_t)mode << 6);
			if (mode == 2) {
				Elf64_Chdr ch = {.ch_type = ELFCOMPRESS_ZLIB, .ch_size = n,
						 .ch_addralign = 1};
				uint8_t *z = sp_xmalloc(zn);
				uLongf got = zn;
				if (compress2(z, &got, base.elf + base.secs[i].off, (uLong)n, 9) != Z_OK)
					got = 0;
				memcpy(d + 1, &ch, sizeof(ch));
				memcpy(d + 1 + sizeof(ch), z, got);
				len = 1 + sizeof(ch) + got;
				free(z);
			}
			char *path = sp_xasprintf("%s/%s%s", dir, name,
						  mode == 0 ? "" : mode == 1 ? ".z" : ".chdr");
			if (!sp_test_write_file(path, d, len))
				fprintf(stderr, "fuzz_elf: could not write %s\n", path);
			free(path);
		}
		free(d);
	}
}

static bool setup(void)
{
	if (base.tried)
		return base.ok;
	base.tried = true;
	const char *tmp = getenv("TMPDIR");
	snprintf(base.dir, sizeof(base.dir), "%s/sp-fuzz-elf-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(base.dir))
		return false;
	atexit(cleanup);
	char *src = sp_xasprintf("%s/fx.c", base.dir);
	char *exe = sp_xasprintf("%s/fx", base.dir);
	base.copy = sp_xasprintf("%s/fx-copy", base.dir);
	/* the unit's names do not depend on the directory: every run has the
	 * same base bytes */
	char *cmd = sp_xasprintf("cd '%s' && gcc -O2 -g -gdwarf-5 -fdebug-prefix-map='%s'=/fx "
				 "-o fx fx.c",
				 base.dir, base.dir);
	base.ok = sp_test_write_file(src, (const uint8_t *)fixture_src, sizeof(fixture_src) - 1) &&
		  system(cmd) == 0 && read_base(exe);
	if (!base.ok)
		fprintf(stderr, "fuzz_elf: could not build the base binary in %s\n", base.dir);
	if (base.ok && !resolves_base(exe))
		SP_FUZZ_FAIL("the unchanged base binary does not resolve: the harness would test nothing");
	const char *seeds = getenv("SP_FUZZ_ELF_SEEDS");
	if (base.ok && seeds && *seeds)
		write_seeds(seeds);
	free(cmd);
	free(src);
	free(exe);
	return base.ok;
}

/* Every string of an answer is read to its NUL. */
static void check_answer(sp_error *e, const sp_frame *f, size_t n)
{
	if (e) {
		sp_fuzz_check_error(e);
		return;
	}
	if (n && !f)
		SP_FUZZ_FAIL("frames counted but none returned");
	size_t sum = 0;
	for (size_t i = 0; i < n; i++) {
		const char *strs[] = {f[i].name, f[i].system_name, f[i].file};
		for (int k = 0; k < 3; k++)
			sum += strs[k] ? strlen(strs[k]) : 0;
		if (f[i].inlined != (i + 1 < n))
			SP_FUZZ_FAIL("every frame but the last must be an inlined one");
	}
	(void)sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size || !setup())
		return 0;
	size_t which = (data[0] & 0x3f) % SP_ARRAY_LEN(targets);
	int mode = data[0] >> 6;
	if (!base.secs[which].header)
		return 0;
	const uint8_t *body = data + 1;
	size_t n = size - 1;
	uint8_t *packed = NULL;
	if (mode == 1) {
		uLongf zn = compressBound((uLong)n);
		packed = sp_xmalloc(sizeof(Elf64_Chdr) + zn);
		Elf64_Chdr ch = {.ch_type = ELFCOMPRESS_ZLIB, .ch_size = n, .ch_addralign = 1};
		memcpy(packed, &ch, sizeof(ch));
		if (compress2(packed + sizeof(ch), &zn, body, (uLong)n, 6) != Z_OK) {
			free(packed);
			return 0;
		}
		body = packed;
		n = sizeof(ch) + zn;
	}
	/* the copy: the base, then the new section ending on a page boundary */
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = (base.len + n + page - 1) / page * page;
	size_t at = len - n;
	uint8_t *buf = sp_xcalloc(1, len);
	memcpy(buf, base.elf, base.len);
	memcpy(buf + at, body, n);
	free(packed);
	Elf64_Shdr sh;
	memcpy(&sh, buf + base.secs[which].header, sizeof(sh));
	sh.sh_offset = at;
	sh.sh_size = n;
	if (mode == 1 || mode == 2)
		sh.sh_flags |= SHF_COMPRESSED;
	else
		sh.sh_flags &= ~(uint64_t)SHF_COMPRESSED;
	memcpy(buf + base.secs[which].header, &sh, sizeof(sh));
	bool ok = sp_test_write_file(base.copy, buf, len);
	free(buf);
	if (!ok)
		SP_FUZZ_FAIL("%s could not be written: %s (the harness's failure, not the input's)",
			     base.copy, strerror(errno));

	sp_symbolize_options o = session_opts();
	sp_symbolizer *s = sp_symbolizer_new(&o);
	sp_object *obj = NULL;
	sp_error *e = sp_symbolizer_object(s, base.copy, NULL, &obj);
	if (e) {
		check_answer(e, NULL, 0);
	} else {
		for (size_t i = 0; i < base.n_addrs; i++) {
			const sp_frame *f = NULL;
			size_t nf = 0;
			e = sp_object_resolve(obj, base.addrs[i], &f, &nf);
			check_answer(e, f, nf);
		}
	}
	sp_symbolizer_free(s);
	return 0;
}
