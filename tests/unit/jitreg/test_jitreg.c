/* test_jitreg.c — libjitreg: the GDB JIT list seen through the descriptor as
 * the GDB manual lays it out (declared here, not taken from the library),
 * registration from several threads, unlinking from the middle, and the
 * .elf + .meta dump checked against libelf's reading of the same object,
 * including a hand-made object with extended section numbering. */
#include "jitreg/jitreg.h"
#include "symbolize/symbolize.h"
#include "tests/helpers/jitfix.h"
#include "tests/helpers/tap.h"

#include <elf.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

struct gdb_entry {
	struct gdb_entry *next_entry, *prev_entry;
	const char *symfile_addr;
	uint64_t symfile_size;
};
struct gdb_descriptor {
	uint32_t version, action_flag;
	struct gdb_entry *relevant_entry, *first_entry;
};
extern struct gdb_descriptor __jit_debug_descriptor;
extern void __jit_debug_register_code(void);

static char objs[3][64];
static jitreg_entry *entries[3];
static pthread_barrier_t barrier;

static void *reg_thread(void *arg)
{
	size_t i = (size_t)arg;
	pthread_barrier_wait(&barrier);
	int rc = jitreg_register(objs[i], sizeof(objs[i]), NULL, &entries[i]);
	return (void *)(intptr_t)rc;
}

/* Walks the list checking both directions; returns the count or -1. */
static long walk(const void **seen, size_t cap)
{
	long n = 0;
	struct gdb_entry *prev = NULL;
	for (struct gdb_entry *e = __jit_debug_descriptor.first_entry; e; e = e->next_entry) {
		if (e->prev_entry != prev || n > 100000)
			return -1;
		if ((size_t)n < cap)
			seen[n] = e->symfile_addr;
		prev = e;
		n++;
	}
	return n;
}

static void *churn_thread(void *arg)
{
	char obj[16];
	(void)arg;
	for (int i = 0; i < 300; i++) {
		jitreg_entry *e;
		if (jitreg_register(obj, sizeof(obj), NULL, &e) || jitreg_unregister(e))
			return (void *)1;
	}
	return NULL;
}

static void test_list(void)
{
	TAP_EQ_U64(__jit_debug_descriptor.version, 1, "descriptor version 1");
	TAP_OK(__jit_debug_descriptor.first_entry == NULL, "list starts empty");
	setenv("JITREG_DUMP_DIR", "", 1); /* empty: no dump */
	pthread_t t[3];
	pthread_barrier_init(&barrier, NULL, 3);
	for (size_t i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, reg_thread, (void *)i);
	int fails = 0;
	for (size_t i = 0; i < 3; i++) {
		void *rc;
		pthread_join(t[i], &rc);
		fails += rc != NULL;
	}
	pthread_barrier_destroy(&barrier);
	TAP_OK(fails == 0, "three threads registered");
	const void *seen[8] = {0};
	TAP_EQ_U64(walk(seen, 8), 3, "three entries, prev/next links consistent");
	int found = 0;
	for (size_t i = 0; i < 3; i++)
		for (size_t k = 0; k < 3; k++)
			found += seen[k] == objs[i];
	TAP_EQ_U64(found, 3, "each object listed once");
	TAP_EQ_U64(__jit_debug_descriptor.action_flag, 1, "last action was JIT_REGISTER");
	TAP_OK(__jit_debug_descriptor.relevant_entry == __jit_debug_descriptor.first_entry,
	       "relevant entry is the newest, at the head");
	TAP_EQ_U64(__jit_debug_descriptor.first_entry->symfile_size, 64, "symfile_size");

	/* Unlink the middle one. */
	const void *middle = seen[1];
	size_t mi = 0;
	for (size_t i = 0; i < 3; i++)
		if (objs[i] == middle)
			mi = i;
	TAP_OK(jitreg_unregister(entries[mi]) == 0, "middle entry unregistered");
	const void *seen2[8] = {0};
	TAP_EQ_U64(walk(seen2, 8), 2, "two entries left, links consistent");
	TAP_OK(seen2[0] == seen[0] && seen2[1] == seen[2], "head and tail kept in order");
	TAP_OK(__jit_debug_descriptor.first_entry->prev_entry == NULL &&
		       __jit_debug_descriptor.first_entry->next_entry->next_entry == NULL,
	       "first has no prev, last has no next");
	TAP_OK(__jit_debug_descriptor.relevant_entry == NULL && __jit_debug_descriptor.action_flag == 0,
	       "nothing left pointing at the freed entry");
	TAP_OK(jitreg_unregister(NULL) == 0, "unregister(NULL) is a no-op");
	for (size_t i = 0; i < 3; i++)
		if (i != mi)
			jitreg_unregister(entries[i]);
	TAP_OK(__jit_debug_descriptor.first_entry == NULL, "list empty again");

	pthread_t c[4];
	for (size_t i = 0; i < 4; i++)
		pthread_create(&c[i], NULL, churn_thread, NULL);
	fails = 0;
	for (size_t i = 0; i < 4; i++) {
		void *rc;
		pthread_join(c[i], &rc);
		fails += rc != NULL;
	}
	TAP_OK(fails == 0 && __jit_debug_descriptor.first_entry == NULL,
	       "4 threads x 300 register/unregister leave an empty list");

	jitreg_entry *e = (jitreg_entry *)objs;
	TAP_EQ_U64(jitreg_register(NULL, 1, NULL, &e), (uint64_t)-EINVAL, "NULL object refused");
	TAP_OK(e == NULL, "*out cleared on failure");
}

static bool read_all(const char *path, uint8_t **d, size_t *n)
{
	sp_error *err = sp_read_file(path, d, n);
	if (err) {
		sp_error_free(err);
		return false;
	}
	return true;
}

/* The .meta written for OBJ must list exactly what libelf reads. */
static void check_meta(const char *what, const char *meta_path, const void *obj, size_t size)
{
	uint8_t *m;
	size_t mlen;
	TAP_OK(read_all(meta_path, &m, &mlen), "%s: .meta written", what);
	if (!m)
		return;
	sp_jit_section *got, *want;
	size_t ngot, nwant;
	sp_error *e1 = sp_jit_meta_parse(meta_path, (char *)m, mlen, &got, &ngot);
	sp_error *e2 = sp_jit_object_sections(what, obj, size, &want, &nwant);
	TAP_OK(!e1 && !e2, "%s: .meta parses, object reads", what);
	if (!e1 && !e2) {
		bool same = ngot == nwant;
		for (size_t i = 0; same && i < ngot; i++)
			same = !strcmp(got[i].name, want[i].name) && got[i].start == want[i].start &&
			       got[i].size == want[i].size;
		TAP_OK(same, "%s: .meta lists the %zu sections libelf sees (got %zu)", what, nwant, ngot);
		sp_jit_sections_free(got, ngot);
		sp_jit_sections_free(want, nwant);
	}
	sp_error_free(e1);
	sp_error_free(e2);
	free(m);
}

/* An ELF64 object with 3 sections counted the extended way. */
static size_t make_extended(uint8_t *buf, size_t cap)
{
	static const char strtab[] = "\0.text\0.shstrtab\0";
	Elf64_Ehdr eh = {0};
	Elf64_Shdr sh[3] = {{0}};
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_REL;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof(eh);
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 0;
	eh.e_shstrndx = SHN_XINDEX;
	size_t code_off = sizeof(eh), str_off = code_off + 16, sh_off = 128;
	eh.e_shoff = sh_off;
	sh[0].sh_size = 3;
	sh[0].sh_link = 2;
	sh[1].sh_name = 1;
	sh[1].sh_type = SHT_PROGBITS;
	sh[1].sh_flags = SHF_ALLOC | SHF_EXECINSTR;
	sh[1].sh_addr = 0x7f0000001000ULL;
	sh[1].sh_offset = code_off;
	sh[1].sh_size = 16;
	sh[2].sh_name = 7;
	sh[2].sh_type = SHT_STRTAB;
	sh[2].sh_offset = str_off;
	sh[2].sh_size = sizeof(strtab);
	size_t total = sh_off + sizeof(sh);
	if (total > cap)
		return 0;
	memset(buf, 0, total);
	memcpy(buf, &eh, sizeof(eh));
	memset(buf + code_off, 0xc3, 16);
	memcpy(buf + str_off, strtab, sizeof(strtab));
	memcpy(buf + sh_off, sh, sizeof(sh));
	return total;
}

static void test_dump(void)
{
	char dir[] = "/tmp/sp-jitreg-XXXXXX";
	if (!mkdtemp(dir))
		return;
	const char *src = getenv("SP_SRCDIR");
	char *c = sp_xasprintf("%s/testdata/src/jit/jitfuncs.c", src ? src : "..");
	char *o = sp_xasprintf("%s/f.o", dir), *prefix = sp_xasprintf("%s/placed", dir);
	char *cc[] = {"gcc", "-c", "-g", "-O2", "-ffunction-sections", "-o", o, c, NULL};
	jf_placed *pl = NULL;
	size_t npl = 0;
	jf_plan plan = {.base = 0x7f1200000000ULL, .step = 0x1000, .data_base = 0x7f1200100000ULL,
			.with_null = true};
	TAP_OK(jf_run(cc) == 0 && jf_load(o, prefix, &plan, &pl, &npl) == 0, "fixture built and placed");
	jf_placed_free(pl, npl);
	char *placed = sp_xasprintf("%s.elf", prefix);
	uint8_t *obj;
	size_t size;
	TAP_OK(read_all(placed, &obj, &size), "placed object read");
	char *outdir = sp_xasprintf("%s/out", dir);
	char *mk[] = {"mkdir", outdir, NULL};
	jf_run(mk);

	jitreg_options opt = {.size = sizeof(opt), .dump_dir = outdir, .name = "fixture",
			      .flags = JITREG_COPY};
	jitreg_entry *e;
	TAP_EQ_U64(jitreg_register(obj, size, &opt, &e), 0, "register with dump");
	TAP_OK(__jit_debug_descriptor.first_entry &&
		       __jit_debug_descriptor.first_entry->symfile_addr != (const char *)obj,
	       "JITREG_COPY registers a copy");
	char *elf_out = sp_xasprintf("%s/fixture.elf", outdir), *meta_out = sp_xasprintf("%s/fixture.meta", outdir);
	uint8_t *d;
	size_t dn;
	TAP_OK(read_all(elf_out, &d, &dn) && dn == size && !memcmp(d, obj, size), "dumped .elf equals the object");
	free(d);
	check_meta("fixture", meta_out, obj, size);
	jitreg_unregister(e);

	/* The dump directory from the environment and the default name. */
	setenv("JITREG_DUMP_DIR", outdir, 1);
	uint8_t ext[512];
	size_t next = make_extended(ext, sizeof(ext));
	TAP_EQ_U64(jitreg_register(ext, next, NULL, &e), 0, "register extended-numbering object");
	char *name = sp_xasprintf("%s/jit-%ld-%llx.meta", outdir, (long)getpid(), (unsigned long long)(uintptr_t)ext);
	check_meta("extended", name, ext, next);
	uint8_t *m;
	size_t mlen;
	if (read_all(name, &m, &mlen)) {
		TAP_OK(strstr((char *)m, "{\"name\":\".text\",\"start\":139637976731648,\"size\":16}") != NULL,
		       "extended: .text listed with its address and size");
		free(m);
	}
	jitreg_unregister(e);
	/* A later object at the same address keeps the earlier dump. */
	TAP_EQ_U64(jitreg_register(ext, next, NULL, &e), 0, "register again at the same address");
	char *again = sp_xasprintf("%s/jit-%ld-%llx-1.meta", outdir, (long)getpid(), (unsigned long long)(uintptr_t)ext);
	TAP_OK(access(again, F_OK) == 0 && access(name, F_OK) == 0, "second dump gets a -1 suffix, first kept");
	free(again);
	jitreg_unregister(e);
	setenv("JITREG_DUMP_DIR", "", 1);

	/* Unreadable section headers: nothing registered when a dump is asked. */
	TAP_EQ_U64(jitreg_register(ext, 100, &opt, &e), (uint64_t)-ENOEXEC, "truncated object refused for dump");
	TAP_OK(__jit_debug_descriptor.first_entry == NULL, "and not registered");
	opt.name = "a/b";
	TAP_EQ_U64(jitreg_register(ext, next, &opt, &e), (uint64_t)-EINVAL, "name with '/' refused");
	opt.name = "x";
	opt.dump_dir = "/nonexistent-dir";
	TAP_EQ_U64(jitreg_register(ext, next, &opt, &e), (uint64_t)-ENOENT, "missing dump dir reported");
	/* A version-1 caller that zero-initialises without setting size. */
	jitreg_options v1 = {0};
	v1.flags = JITREG_NO_DUMP;
	TAP_EQ_U64(jitreg_register(ext, 100, &v1, &e), 0, "size 0 options; no dump, so no ELF check");
	jitreg_unregister(e);

	char *rm[] = {"rm", "-rf", dir, NULL};
	jf_run(rm);
	free(name);
	free(elf_out);
	free(meta_out);
	free(outdir);
	free(obj);
	free(placed);
	free(prefix);
	free(o);
	free(c);
}

int main(void)
{
	test_list();
	test_dump();
	return tap_done();
}
