/* test_jit_sources.c — a session loads its file-less name sources (perf
 * maps here; JIT directories and kallsyms go the same way) once: a second
 * profile symbolized by the same session still gets names after the perf
 * map file was removed, a new session does not, and a load failure is
 * reported by every call of the session that met it.  Then the order in
 * which sources.c asks the sources. */
#include "symbolize/symbolize.h"
#include "tests/helpers/tap.h"

#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REGION 0x7f5500000000ULL

static char dir[] = "/tmp/sp-jitsrc-XXXXXX";

/* A profile with one anonymous mapping and one address in it. */
static sp_profile *one_address(uint64_t addr, uint64_t *loc)
{
	sp_profile *p = sp_profile_new();
	sp_profile_add_sample_type(p, "samples", "count");
	sp_mapping anon = {.memory_start = REGION, .memory_limit = REGION + 0x10000};
	sp_profile_add_mapping(p, &anon);
	*loc = sp_profile_location_for_address(p, 1, addr);
	int64_t v = 1;
	sp_profile_add_sample(p, &v, loc, 1, NULL, 0);
	return p;
}

static const char *name_at(const sp_profile *p, uint64_t loc)
{
	const sp_location *l = sp_profile_location(p, loc);
	if (!l || l->n_lines != 1)
		return "(unresolved)";
	const sp_function *f = sp_profile_function(p, l->lines[0].function_id);
	return f ? sp_profile_str(p, f->name) : "(none)";
}

/* A function of this program for the mapped-file rows. */
__attribute__((noinline)) int sp_order_probe(int x);
__attribute__((noinline)) int sp_order_probe(int x)
{
	return x * 3 + 1;
}

static int find_base(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(uint64_t *)data = info->dlpi_addr; /* the first object: this program */
	return 1;
}

/* The one order of sources.c: perf maps before kallsyms, kallsyms only for
 * kernel code, and a file the caller passes before both. */
static void order(void)
{
	char *perf = sp_xasprintf("%s/perf-8.map", dir);
	char *ksyms = sp_xasprintf("%s/kallsyms", dir);
	FILE *f = fopen(perf, "w");
	fprintf(f, "%llx 40 perf_fn\nffffffff81000000 100 perf_kernel_fn\n",
		(unsigned long long)(REGION + 0x100));
	fclose(f);
	f = fopen(ksyms, "w");
	fprintf(f, "ffffffff81000000 T k_fn\nffffffff81001000 T k_other\n");
	fclose(f);
	const char *maps[] = {perf};
	sp_symbolize_options opt = {
		.perf_maps = maps, .n_perf_maps = 1, .kallsyms = ksyms, .no_debuginfod = true};
	sp_symbolizer *s = sp_symbolizer_new(&opt);
	const sp_jit_index *jit;
	const sp_perf_map *pm;
	const sp_kallsyms *ks;
	sp_error *err = sp_symbolizer_sources(s, &jit, &pm, &ks);
	TAP_OK(!err && pm && ks && !jit, "perf map and kallsyms loaded");
	sp_error_free(err);

	uint64_t base = 0;
	dl_iterate_phdr(find_base, &base);
	sp_object *self;
	err = sp_symbolizer_object(s, "/proc/self/exe", NULL, &self);
	TAP_OK(!err, "this program opens as the mapped file");
	sp_error_free(err);

	sp_named n = {0};
	const struct {
		uint64_t addr;
		sp_code_kind kind;
		bool with_file;
		sp_name_source want;
		const char *name;
	} rows[] = {
		{REGION + 0x110, SP_CODE_ANONYMOUS, false, SP_SOURCE_PERF_MAP, "perf_fn"},
		{REGION + 0x110, SP_CODE_ANONYMOUS, true, SP_SOURCE_FILE, "sp_order_probe"},
		{0xffffffff81000010, SP_CODE_KERNEL, false, SP_SOURCE_PERF_MAP, "perf_kernel_fn"},
		{0xffffffff81001010, SP_CODE_KERNEL, false, SP_SOURCE_KALLSYMS, "k_other"},
		{0xffffffff81001010, SP_CODE_FILE, false, SP_SOURCE_NONE, NULL},
		{REGION + 0x300, SP_CODE_ANONYMOUS, false, SP_SOURCE_NONE, NULL},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		sp_name_query q = {
			.addr = rows[i].addr,
			.kind = rows[i].kind,
			.file = rows[i].with_file && self ? self : NULL,
			.file_addr = (uint64_t)(uintptr_t)&sp_order_probe - base,
		};
		sp_name_source got = sp_name_address(s, &q, &n);
		const char *name = n.n_frames ? n.frames[n.n_frames - 1].name : NULL;
		TAP_OK(got == rows[i].want && n.source == got &&
			       (rows[i].name ? name && !strcmp(name, rows[i].name) : !name),
		       "order row %zu: source %d, %s", i, (int)got, name ? name : "nothing");
	}
	sp_named_clear(&n);
	sp_symbolizer_free(s);
	unlink(perf);
	unlink(ksyms);
	free(perf);
	free(ksyms);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	char *perf = sp_xasprintf("%s/perf-7.map", dir);
	FILE *f = fopen(perf, "w");
	fprintf(f, "%llx 40 first_fn\n%llx 40 second_fn\n", (unsigned long long)(REGION + 0x100),
		(unsigned long long)(REGION + 0x200));
	fclose(f);

	const char *maps[] = {perf};
	sp_symbolize_options opt = {.perf_maps = maps, .n_perf_maps = 1, .no_debuginfod = true};
	sp_symbolizer *s = sp_symbolizer_new(&opt);
	uint64_t l1, l2, l3;
	sp_profile *p1 = one_address(REGION + 0x110, &l1);
	sp_error *err = sp_symbolize_profile(s, p1, NULL);
	TAP_OK(!err, "first profile symbolized");
	sp_error_free(err);
	TAP_EQ_STR(name_at(p1, l1), "first_fn", "first profile: name from the perf map");

	TAP_OK(unlink(perf) == 0, "perf map removed");
	sp_profile *p2 = one_address(REGION + 0x230, &l2);
	err = sp_symbolize_profile(s, p2, NULL);
	TAP_OK(!err, "second profile of the same session symbolized without the file");
	sp_error_free(err);
	TAP_EQ_STR(name_at(p2, l2), "second_fn", "second profile: the session's perf map is reused");

	sp_symbolizer *s2 = sp_symbolizer_new(&opt);
	sp_profile *p3 = one_address(REGION + 0x110, &l3);
	err = sp_symbolize_profile(s2, p3, NULL);
	TAP_OK(err && sp_error_root_code(err) == SP_E_NOT_FOUND,
	       "a new session reads the file again: not found");
	char *m = err ? sp_error_string(err) : sp_xstrdup("");
	TAP_OK(strstr(m, "perf-7.map"), "... naming the file (%s)", m);
	sp_error_free(err);
	free(m);
	err = sp_symbolize_profile(s2, p3, NULL);
	m = err ? sp_error_string(err) : sp_xstrdup("");
	TAP_OK(err && sp_error_root_code(err) == SP_E_NOT_FOUND && strstr(m, "perf-7.map"),
	       "the failure is reported again by the same session");
	sp_error_free(err);
	free(m);

	order();

	sp_symbolizer_free(s);
	sp_symbolizer_free(s2);
	sp_profile_free(p1);
	sp_profile_free(p2);
	sp_profile_free(p3);
	rmdir(dir);
	free(perf);
	return tap_done();
}
