/* test_jit_index.c — the JIT object index against objects built here: the
 * fixture testdata/src/jit/jitfuncs.c compiled with -ffunction-sections, two
 * copies "loaded" interleaved in one anonymous region (one section ending
 * right below a fake library mapping), and one generated object with more
 * sections than the ELF header can count (extended numbering). */
#include "symbolize/symbolize.h"
#include "tests/helpers/jitfix.h"
#include "tests/helpers/tap.h"

#include <gelf.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define REGION 0x7f1200000000ULL
#define LIB 0x7f1300000000ULL /* a library mapping starts here */
#define BIG_N 66000

static char dir[] = "/tmp/sp-jitidx-XXXXXX";

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_fixture_objects(void)
{
	const char *src = getenv("SP_SRCDIR");
	char *c = sp_xasprintf("%s/testdata/src/jit/jitfuncs.c", src ? src : "..");
	char *o = sp_xasprintf("%s/jitfuncs.o", dir);
	char *cc[] = {"gcc", "-c", "-g", "-O2", "-ffunction-sections", "-o", o, c, NULL};
	TAP_OK(jf_run(cc) == 0, "fixture compiles");

	char *objdir = sp_xasprintf("%s/objs", dir);
	char *pa = sp_xasprintf("%s/a", objdir), *pb = sp_xasprintf("%s/b", objdir);
	char *mkdir_[] = {"mkdir", objdir, NULL};
	jf_run(mkdir_);
	/* A: sections every 0x1000 from REGION, the last executable one ending
	 * at LIB.  B: the same code every 0x1000 from REGION + 0x800, listed
	 * without the null section. */
	jf_plan plan_a = {.base = REGION, .step = 0x1000, .data_base = REGION + 0x100000,
			  .limit = LIB, .with_null = true};
	jf_plan plan_b = {.base = REGION + 0x800, .step = 0x1000, .data_base = REGION + 0x200000};
	jf_placed *a, *b;
	size_t na, nb;
	TAP_OK(jf_load(o, pa, &plan_a, &a, &na) == 0, "object A placed");
	TAP_OK(jf_load(o, pb, &plan_b, &b, &nb) == 0, "object B placed");
	/* A .meta without its .elf is not an object. */
	char *orphan = sp_xasprintf("%s/orphan.meta", objdir);
	FILE *f = fopen(orphan, "w");
	fputs("not even json", f);
	fclose(f);

	sp_jit_index *idx;
	const char *dirs[] = {objdir};
	sp_error *err = sp_jit_index_load(dirs, 1, &idx);
	TAP_OK(!err, "index loads");
	if (err) {
		char *s = sp_error_string(err);
		printf("# %s\n", s);
		free(s);
		return;
	}
	char *ea = sp_xasprintf("%s.elf", pa), *eb = sp_xasprintf("%s.elf", pb);
	const char *fns[] = {".text.jit_add", ".text.jit_loop", ".text.jit_entry"};
	size_t n_exec = 0;
	for (size_t i = 0; i < na; i++)
		n_exec += a[i].exec;
	TAP_EQ_U64(n_exec, 3, "fixture has three non-empty executable sections");
	TAP_EQ_U64(sp_jit_index_count(idx), 2 * n_exec, "index holds the executable sections of both");
	for (size_t i = 0; i < SP_ARRAY_LEN(fns); i++) {
		const jf_placed *sa = jf_find(a, na, fns[i]), *sb = jf_find(b, nb, fns[i]);
		TAP_OK(sa && sb, "%s placed in both", fns[i]);
		if (!sa || !sb)
			continue;
		TAP_EQ_STR(sp_jit_index_lookup(idx, sa->start), ea, "%s start -> A", fns[i]);
		TAP_EQ_STR(sp_jit_index_lookup(idx, sa->start + sa->size - 1), ea, "%s last byte -> A", fns[i]);
		TAP_OK(sp_jit_index_lookup(idx, sa->start + sa->size) == NULL, "%s end of A's section -> none", fns[i]);
		TAP_EQ_STR(sp_jit_index_lookup(idx, sb->start), eb, "%s start -> B", fns[i]);
		TAP_EQ_STR(sp_jit_index_lookup(idx, sb->start + sb->size - 1), eb, "%s last byte -> B", fns[i]);
		TAP_OK(sp_jit_index_lookup(idx, sb->start - 1) == NULL, "%s byte before B's section -> none", fns[i]);
	}
	const jf_placed *last = jf_find(a, na, ".text.jit_entry");
	TAP_OK(last && last->start + last->size == LIB, "A's last function ends at the library");
	TAP_EQ_STR(sp_jit_index_lookup(idx, LIB - 1), ea, "byte below the library -> A");
	TAP_OK(sp_jit_index_lookup(idx, LIB) == NULL, "library start is not JIT code");
	const jf_placed *ro = jf_find(a, na, ".rodata"), *eh = jf_find(a, na, ".eh_frame");
	TAP_OK(ro && !ro->exec && sp_jit_index_lookup(idx, ro->start) == NULL, "loaded .rodata is not indexed");
	TAP_OK(eh && !eh->exec && sp_jit_index_lookup(idx, eh->start + 1) == NULL, "loaded .eh_frame is not indexed");
	TAP_OK(sp_jit_index_lookup(idx, 0) == NULL, "address 0 -> none");
	TAP_OK(sp_jit_index_lookup(idx, REGION - 1) == NULL, "below the region -> none");
	sp_jit_index_free(idx);

	/* A .meta whose list does not follow the section headers: sections
	 * are matched by name, and names the .elf lacks count as code only
	 * when they are .text*. */
	char *revdir = sp_xasprintf("%s/rev", dir), *rev = sp_xasprintf("%s/rev/r.elf", dir);
	char *mk2[] = {"mkdir", revdir, NULL}, *cp[] = {"cp", ea, rev, NULL};
	TAP_OK(jf_run(mk2) == 0 && jf_run(cp) == 0, "copy of A for a reordered .meta");
	char *revmeta = sp_xasprintf("%s/rev/r.meta", dir);
	f = fopen(revmeta, "w");
	fputs("{\"sections\":[{\"name\":\".text.ghost\",\"start\":4096,\"size\":16},"
	      "{\"name\":\".data.ghost\",\"start\":8192,\"size\":16}", f);
	for (size_t i = na; i-- > 0;)
		fprintf(f, ",{\"name\":\"%s\",\"start\":%llu,\"size\":%llu}", a[i].name,
			(unsigned long long)a[i].start, (unsigned long long)a[i].size);
	fputs("]}", f);
	fclose(f);
	const char *revdirs[] = {revdir};
	err = sp_jit_index_load(revdirs, 1, &idx);
	TAP_OK(!err, "reordered .meta loads");
	if (!err) {
		TAP_EQ_U64(sp_jit_index_count(idx), n_exec + 1, "A's code sections plus .text.ghost");
		const jf_placed *add = jf_find(a, na, ".text.jit_add");
		TAP_EQ_STR(add ? sp_jit_index_lookup(idx, add->start + 2) : NULL, rev, "matched by name");
		TAP_OK(ro && sp_jit_index_lookup(idx, ro->start) == NULL, ".rodata still not code");
		TAP_EQ_STR(sp_jit_index_lookup(idx, 4096 + 15), rev, "unknown .text* name counts as code");
		TAP_OK(sp_jit_index_lookup(idx, 8192) == NULL, "unknown other name does not");
		sp_jit_index_free(idx);
	}
	sp_error_free(err);
	free(revdir);
	free(rev);
	free(revmeta);

	/* A broken .meta next to an .elf is an error naming the file. */
	char *bad = sp_xasprintf("%s.meta", pb);
	f = fopen(bad, "w");
	fputs("{\"sections\":[{\"name\":\".text\",\"start\":1}]}", f);
	fclose(f);
	err = sp_jit_index_load(dirs, 1, &idx);
	char *s = err ? sp_error_string(err) : NULL;
	TAP_OK(s && strstr(s, "b.meta: byte 13: section lacks \"size\""), "broken .meta named: %s", s ? s : "");
	free(s);
	sp_error_free(err);
	const char *nodir[] = {"/nonexistent-jit-dir"};
	err = sp_jit_index_load(nodir, 1, &idx);
	TAP_OK(err && sp_error_root_code(err) == SP_E_IO, "missing directory is an I/O error");
	sp_error_free(err);

	jf_placed_free(a, na);
	jf_placed_free(b, nb);
	free(bad);
	free(ea);
	free(eb);
	free(orphan);
	free(pa);
	free(pb);
	free(objdir);
	free(o);
	free(c);
}

static void test_many_sections(void)
{
	char *s = sp_xasprintf("%s/big.s", dir), *o = sp_xasprintf("%s/big.o", dir);
	char *bigdir = sp_xasprintf("%s/big", dir), *prefix = sp_xasprintf("%s/big/many", dir);
	FILE *f = fopen(s, "w");
	for (int i = 0; i < BIG_N; i++)
		fprintf(f, "\t.section .text.f%d,\"ax\",@progbits\n\t.globl f%d\nf%d:\n\tnop\n\tret\n", i, i, i);
	fprintf(f, "\t.section .rodata.tail,\"a\",@progbits\n\t.quad 1\n");
	fclose(f);
	double t0 = now();
	char *as[] = {"gcc", "-c", "-o", o, s, NULL};
	TAP_OK(jf_run(as) == 0, "%d-section object assembles", BIG_N);
	printf("# assembled in %.2f s\n", now() - t0);

	/* The header cannot count the sections: extended numbering. */
	FILE *in = fopen(o, "rb");
	Elf64_Ehdr eh = {0};
	TAP_OK(in && fread(&eh, sizeof(eh), 1, in) == 1, "ELF header read");
	if (in)
		fclose(in);
	TAP_EQ_U64(eh.e_shnum, 0, "e_shnum is 0 (count in section 0's sh_size)");
	TAP_EQ_U64(eh.e_shstrndx, SHN_XINDEX, "e_shstrndx is SHN_XINDEX");

	char *mk[] = {"mkdir", bigdir, NULL};
	jf_run(mk);
	jf_plan plan = {.base = REGION + 0x10000000, .step = 0x10, .data_base = REGION + 0x20000000,
			.with_null = true};
	jf_placed *p;
	size_t np;
	TAP_OK(jf_load(o, prefix, &plan, &p, &np) == 0, "big object placed");
	t0 = now();
	sp_jit_index *idx;
	const char *dirs[] = {bigdir};
	sp_error *err = sp_jit_index_load(dirs, 1, &idx);
	printf("# index of %d sections loaded in %.3f s\n", BIG_N, now() - t0);
	TAP_OK(!err, "big index loads");
	if (err) {
		sp_error_free(err);
		return;
	}
	TAP_EQ_U64(sp_jit_index_count(idx), BIG_N, "every function section indexed");
	char *elf = sp_xasprintf("%s.elf", prefix);
	int probes[] = {0, 1, 65279, 65280, 65535, BIG_N - 1};
	for (size_t i = 0; i < SP_ARRAY_LEN(probes); i++) {
		char name[32];
		snprintf(name, sizeof(name), ".text.f%d", probes[i]);
		const jf_placed *q = jf_find(p, np, name);
		TAP_OK(q && q->start == plan.base + (uint64_t)probes[i] * plan.step && q->size == 2,
		       "%s placed where planned", name);
		if (q) {
			TAP_EQ_STR(sp_jit_index_lookup(idx, q->start + 1), elf, "%s found", name);
			TAP_OK(sp_jit_index_lookup(idx, q->start + 2) == NULL, "gap after %s", name);
		}
	}
	const jf_placed *ro = jf_find(p, np, ".rodata.tail");
	TAP_OK(ro && sp_jit_index_lookup(idx, ro->start) == NULL, "data section past 65280 not indexed");
	sp_jit_index_free(idx);
	jf_placed_free(p, np);
	free(elf);
	free(s);
	free(o);
	free(bigdir);
	free(prefix);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_fixture_objects();
	test_many_sections();
	char *rm[] = {"rm", "-rf", dir, NULL};
	jf_run(rm);
	return tap_done();
}
