/* test_jit_scatter.c — an ET_REL object whose code sections a JIT placed at
 * scattered, unordered run-time addresses while the sections it never
 * loaded (gcc's empty .text, .data, .bss) stay at sh_addr 0 resolves every
 * address in the object's own sh_addr space.  A C source with one function
 * per known line is generated here, compiled with -g -O2
 * -ffunction-sections, and its sections are placed by the test itself:
 * descending, interleaved with the data sections, with gaps that are not a
 * multiple of anything libdwfl would choose.  Expected names and lines are
 * those the generator wrote. */
#include "symbolize/internal.h"
#include "tests/helpers/jitfix.h"
#include "tests/helpers/tap.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NFUNC 40
#define BASE 0x7f3400000000ULL

static char dir[] = "/tmp/sp-jitscat-XXXXXX";

typedef struct {
	uint64_t start, size;
	int func; /* -1: not code */
} placed;

/* Function I's body line in the generated source. */
static int body_line(int i)
{
	return 3 + 4 * i + 2;
}

static char *write_source(void)
{
	char *path = sp_xasprintf("%s/scat.c", dir);
	FILE *f = fopen(path, "w");
	fprintf(f, "/* generated */\nlong scat_sink;\n");
	for (int i = 0; i < NFUNC; i++) /* 4 lines each, body on the third */
		fprintf(f, "__attribute__((noinline)) long scat_f%d(long x)\n{\n"
			   "\treturn x * %d + scat_sink++;\n}\n",
			i, i + 3);
	fclose(f);
	return path;
}

/* Places the code sections of OBJ according to LAYOUT, the other non-empty
 * allocated ones between them; empty ones stay at 0.  Fills P (indexed by
 * section) and returns the section count, or 0. */
static size_t place(const char *obj, int layout, placed **pp)
{
	int fd = open(obj, O_RDWR);
	Elf *e = fd < 0 ? NULL : elf_begin(fd, ELF_C_RDWR, NULL);
	size_t shnum, shstrndx;
	if (!e || elf_getshdrnum(e, &shnum) || elf_getshdrstrndx(e, &shstrndx))
		return 0;
	elf_flagelf(e, ELF_C_SET, ELF_F_LAYOUT);
	placed *p = sp_xcalloc(shnum, sizeof(*p));
	int k = 0, nd = 0;
	p[0].func = -1;
	for (size_t i = 1; i < shnum; i++) {
		Elf_Scn *scn = elf_getscn(e, i);
		GElf_Shdr sh;
		gelf_getshdr(scn, &sh);
		const char *name = elf_strptr(e, shstrndx, sh.sh_name);
		p[i].func = -1;
		if (!(sh.sh_flags & SHF_ALLOC) || !sh.sh_size)
			continue;
		if (sh.sh_flags & SHF_EXECINSTR) {
			int fn = -1;
			if (name && !strncmp(name, ".text.scat_f", 12))
				fn = atoi(name + 12);
			p[i].func = fn;
			uint64_t slot;
			if (layout == 0) /* descending */
				slot = (uint64_t)(NFUNC - k) * 0x1230;
			else /* a permutation, gaps of various sizes */
				slot = (uint64_t)((k * 7) % (NFUNC + 1)) * 0x2010 + (uint64_t)(k % 3) * 0x40;
			sh.sh_addr = BASE + slot;
			k++;
		} else {
			/* data between the code */
			sh.sh_addr = BASE + 0x1000 + (uint64_t)nd++ * 0x2000 + 0x800;
		}
		p[i].start = sh.sh_addr;
		p[i].size = sh.sh_size;
		gelf_update_shdr(scn, &sh);
		elf_flagshdr(scn, ELF_C_SET, ELF_F_DIRTY);
	}
	if (elf_update(e, ELF_C_WRITE) < 0)
		shnum = 0;
	elf_end(e);
	close(fd);
	*pp = p;
	return shnum;
}

static void check_layout(const char *o, int layout)
{
	char *obj = sp_xasprintf("%s/scat%d.elf", dir, layout);
	char *cp[] = {"cp", (char *)o, obj, NULL};
	TAP_OK(jf_run(cp) == 0, "layout %d: copied", layout);
	placed *p = NULL;
	size_t n = place(obj, layout, &p);
	TAP_OK(n > NFUNC, "layout %d: placed %zu sections", layout, n);

	/* the object really has empty allocated sections left at 0 */
	int at_zero = 0;
	{
		int fd = open(obj, O_RDONLY);
		Elf *e = elf_begin(fd, ELF_C_READ, NULL);
		Elf_Scn *scn = NULL;
		while (e && (scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			gelf_getshdr(scn, &sh);
			if ((sh.sh_flags & SHF_ALLOC) && sh.sh_addr == 0)
				at_zero++;
		}
		elf_end(e);
		close(fd);
	}
	TAP_OK(at_zero >= 2, "layout %d: %d allocated sections stay at 0", layout, at_zero);

	sp_resolver *d = sp_resolver_new(obj, NULL, NULL, NULL);
	int found = 0, named = 0, lined = 0;
	char bad[256] = "";
	for (size_t i = 0; i < n; i++) {
		if (p[i].func < 0)
			continue;
		found++;
		const sp_frame *f;
		size_t nf;
		char want[32];
		snprintf(want, sizeof(want), "scat_f%d", p[i].func);
		/* the section's first and last byte */
		uint64_t addrs[2] = {p[i].start, p[i].start + p[i].size - 1};
		for (int j = 0; j < 2; j++) {
			sp_error *err = sp_resolver_resolve(d, addrs[j], &f, &nf);
			const char *got = !err && nf ? f[nf - 1].name : NULL;
			if (got && !strcmp(got, want))
				named++;
			else if (!*bad)
				snprintf(bad, sizeof(bad), "%s at %#llx gave %s", want,
					 (unsigned long long)addrs[j], got ? got : "nothing");
			/* the first byte is the body's; the last (the return) may
			 * carry the closing brace's line */
			int64_t line = got ? f[nf - 1].line : 0, want_line = body_line(p[i].func);
			if (got && (line == want_line || (j == 1 && line == want_line + 1)) &&
			    f[nf - 1].file &&
			    strstr(f[nf - 1].file, "scat.c"))
				lined++;
			sp_error_free(err);
		}
	}
	TAP_EQ_U64((uint64_t)found, (uint64_t)NFUNC, "layout %d: every function has its section", layout);
	TAP_EQ_U64((uint64_t)named, (uint64_t)2 * NFUNC, "layout %d: first and last byte of each section named (%s)",
		   layout, *bad ? bad : "all right");
	TAP_EQ_U64((uint64_t)lined, (uint64_t)2 * NFUNC, "layout %d: lines are the generated body lines", layout);
	/* an address between sections is nobody's */
	const sp_frame *f;
	size_t nf;
	sp_error *err = sp_resolver_resolve(d, BASE - 0x1000, &f, &nf);
	TAP_OK(!err && nf == 0, "layout %d: address in no section gives no frame", layout);
	sp_error_free(err);
	sp_resolver_free(d);
	free(p);
	free(obj);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	elf_version(EV_CURRENT);
	char *src = write_source();
	char *o = sp_xasprintf("%s/scat.o", dir);
	char *cc[] = {"gcc", "-c", "-g", "-O2", "-ffunction-sections", "-o", o, src, NULL};
	TAP_OK(jf_run(cc) == 0, "fixture compiled");
	check_layout(o, 0);
	check_layout(o, 1);
	char *rm[] = {"rm", "-rf", dir, NULL};
	jf_run(rm);
	free(src);
	free(o);
	return tap_done();
}
