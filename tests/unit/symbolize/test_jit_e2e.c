/* test_jit_e2e.c — JIT addresses in a profile become frames: the fixture
 * testdata/src/jit/jitfuncs.c is compiled to an ET_REL object, placed twice in
 * one anonymous region like a JIT would (tests/helpers/jitfix.c; every allocated
 * section placed, empty ones included), and a profile with
 * addresses in that region, plus a perf-map-only address and a kernel
 * address, goes through sp_symbolize_profile with --jit-dir, --perf-map and
 * --kallsyms.  Expected names come from the fixture; expected lines are the
 * line span of each function in the fixture's source. */
#include "symbolize/symbolize.h"
#include "tests/helpers/jitfix.h"
#include "tests/helpers/tap.h"

#include <stdlib.h>

#define REGION 0x7f1200000000ULL

static char dir[] = "/tmp/sp-jite2e-XXXXXX";

/* Lines [*first, *last] of the function whose definition line contains
 * DECL: from that line to the next line that is exactly "}". */
static void span(const char *src, const char *decl, int64_t *first, int64_t *last)
{
	FILE *f = fopen(src, "r");
	char line[512];
	int64_t n = 0;
	*first = *last = -1;
	while (f && fgets(line, sizeof(line), f)) {
		n++;
		if (*first < 0 && strstr(line, decl))
			*first = n;
		else if (*first >= 0 && !strcmp(line, "}\n")) {
			*last = n;
			break;
		}
	}
	if (f)
		fclose(f);
}

static const char *fn_of(const sp_profile *p, const sp_location *l, size_t i)
{
	const sp_function *f = sp_profile_function(p, l->lines[i].function_id);
	return f ? sp_profile_str(p, f->name) : "(none)";
}

static const char *file_of(const sp_profile *p, const sp_location *l, size_t i)
{
	const sp_function *f = sp_profile_function(p, l->lines[i].function_id);
	return f ? sp_profile_str(p, f->filename) : "";
}

static void check_jit_loc(const sp_profile *p, uint64_t loc, const char *fn, const char *src,
			  const char *decl, const char *what)
{
	const sp_location *l = sp_profile_location(p, loc);
	int64_t lo, hi;
	span(src, decl, &lo, &hi);
	TAP_OK(l && l->n_lines >= 1, "%s: resolved", what);
	if (!l || !l->n_lines)
		return;
	size_t outer = l->n_lines - 1;
	TAP_EQ_STR(fn_of(p, l, outer), fn, "%s: function name", what);
	const char *file = file_of(p, l, outer);
	TAP_OK(strlen(file) >= 10 && !strcmp(file + strlen(file) - 10, "jitfuncs.c"),
	       "%s: file is the fixture (%s)", what, file);
	TAP_OK(l->lines[outer].line >= lo && l->lines[outer].line <= hi,
	       "%s: line %lld within %s's lines %lld-%lld", what, (long long)l->lines[outer].line,
	       fn, (long long)lo, (long long)hi);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	const char *srcdir = getenv("SP_SRCDIR");
	char *src = sp_xasprintf("%s/testdata/src/jit/jitfuncs.c", srcdir ? srcdir : "..");
	char *o = sp_xasprintf("%s/f.o", dir), *objs = sp_xasprintf("%s/objs", dir);
	char *cc[] = {"gcc", "-c", "-g", "-O2", "-ffunction-sections", "-o", o, src, NULL};
	char *mk[] = {"mkdir", objs, NULL};
	TAP_OK(jf_run(cc) == 0 && jf_run(mk) == 0, "fixture compiled");
	char *pa = sp_xasprintf("%s/a", objs), *pb = sp_xasprintf("%s/b", objs);
	/* Every SHF_ALLOC section gets an address, empty ones included: the
	 * resolver's ET_REL handling needs a complete placement. */
	jf_plan plan_a = {.base = REGION, .step = 0x1000, .data_base = REGION + 0x100000,
			  .with_null = true, .place_empty = true};
	jf_plan plan_b = {.base = REGION + 0x800, .step = 0x1000, .data_base = REGION + 0x200000,
			  .place_empty = true};
	jf_placed *a, *b;
	size_t na = 0, nb = 0;
	TAP_OK(jf_load(o, pa, &plan_a, &a, &na) == 0 && jf_load(o, pb, &plan_b, &b, &nb) == 0,
	       "two copies placed");
	const jf_placed *a_add = jf_find(a, na, ".text.jit_add"), *a_entry = jf_find(a, na, ".text.jit_entry"),
			*b_loop = jf_find(b, nb, ".text.jit_loop");
	if (!a_add || !a_entry || !b_loop)
		return tap_done() | 1;

	char *perf = sp_xasprintf("%s/perf-42.map", dir), *ksyms = sp_xasprintf("%s/kallsyms", dir);
	FILE *f = fopen(perf, "w");
	fprintf(f, "%llx 100 perf_only_fn\n", (unsigned long long)(REGION + 0x9000));
	fclose(f);
	f = fopen(ksyms, "w");
	fputs("ffffffff81000000 T _stext\nffffffff81000100 t do_work\n", f);
	fclose(f);

	sp_profile *p = sp_profile_new();
	sp_profile_add_sample_type(p, "samples", "count");
	sp_mapping anon = {.memory_start = REGION, .memory_limit = REGION + 0x10000};
	sp_profile_add_mapping(p, &anon);
	uint64_t l_add = sp_profile_location_for_address(p, 1, a_add->start + 1);
	uint64_t l_entry = sp_profile_location_for_address(p, 1, a_entry->start + a_entry->size - 1);
	uint64_t l_loop = sp_profile_location_for_address(p, 1, b_loop->start + b_loop->size / 2);
	uint64_t l_perf = sp_profile_location_for_address(p, 1, REGION + 0x9010);
	uint64_t l_gap = sp_profile_location_for_address(p, 1, REGION + 0xf000);
	uint64_t l_kern = sp_profile_location_for_address(p, 0, 0xffffffff81000180ULL);
	uint64_t ids[] = {l_add, l_loop, l_entry, l_perf, l_gap, l_kern};
	int64_t v = 1;
	sp_profile_add_sample(p, &v, ids, SP_ARRAY_LEN(ids), NULL, 0);

	const char *jit_dirs[] = {objs}, *perf_maps[] = {perf};
	sp_symbolize_options opt = {.jit_dirs = jit_dirs, .n_jit_dirs = 1, .perf_maps = perf_maps,
				    .n_perf_maps = 1, .kallsyms = ksyms, .no_debuginfod = true};
	sp_symbolizer *s = sp_symbolizer_new(&opt);
	sp_symbolize_report rep = {0};
	sp_error *err = sp_symbolize_profile(s, p, &rep);
	TAP_OK(!err, "profile symbolized");
	sp_error_free(err);

	check_jit_loc(p, l_add, "jit_add", src, "int64_t jit_add(", "A: jit_add + 1");
	check_jit_loc(p, l_entry, "jit_entry", src, "int64_t jit_entry(", "A: last byte of jit_entry");
	check_jit_loc(p, l_loop, "jit_loop", src, "int64_t jit_loop(", "B: middle of jit_loop");
	const sp_location *lp = sp_profile_location(p, l_perf);
	TAP_OK(lp->n_lines == 1 && !strcmp(fn_of(p, lp, 0), "perf_only_fn"), "perf map names the rest");
	TAP_OK(sp_profile_location(p, l_gap)->n_lines == 0, "address in no object and no perf entry stays unresolved");
	const sp_location *lk = sp_profile_location(p, l_kern);
	TAP_OK(lk->n_lines == 1 && !strcmp(fn_of(p, lk, 0), "do_work"), "kernel address named from kallsyms");
	TAP_EQ_STR(sp_profile_str(p, sp_profile_mapping(p, 1)->filename), "[jit]", "anonymous mapping named [jit]");
	err = sp_profile_check(p, "jit");
	TAP_OK(!err, "profile valid after symbolization");
	sp_error_free(err);

	sp_symbolize_report_clear(&rep);
	sp_symbolizer_free(s);
	sp_profile_free(p);
	jf_placed_free(a, na);
	jf_placed_free(b, nb);
	char *rm[] = {"rm", "-rf", dir, NULL};
	jf_run(rm);
	free(perf);
	free(ksyms);
	free(pa);
	free(pb);
	free(o);
	free(objs);
	free(src);
	return tap_done();
}
