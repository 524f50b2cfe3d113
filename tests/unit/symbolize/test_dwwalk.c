/* test_dwwalk.c — the raw DIE walk (symbolize/dwraw.c) against libdw's
 * walk (symbolize/units.c) on every fixture program the tests build:
 *
 *  - testdata/src/symbolize/fixture.cc at -O0 and -O2, testdata/src/symbolize/heap_fixture.cc
 *    and tests/helpers/jitfix.c (objects, as ET_REL), each as DWARF 2, 3, 4 and 5
 *    with gcc, and as DWARF 4 and 5 with clang when it is installed;
 *  - the sources of testdata/src/fixture, compiled as their build.sh does (-O2
 *    -g, frame pointers, no sibling calls), each linked as a shared object
 *    (no libraries needed: symbols may stay undefined);
 *  - test_dwarf_corrupt's program of three units (tests/helpers/dwc_fixture.h), built
 *    as that test builds it: g++ DWARF 5 and 4, clang++ DWARF 5;
 *  - this test program (linked, hundreds of units).
 *
 * And two of those programs reported into one Dwfl (symbolize/module.c) at
 * bases chosen here, as a per-process unwinder would: each module has its
 * own DWARF and bias, and its code is its own in the Dwfl.
 *
 * For every compile unit: the raw walk reads the unit itself (it falls back
 * to libdw only on unusual input, and none of these is), and its function
 * tree has the same nodes (DIE offset, parent) and the same ranges (low,
 * high, parent, node) in the same order as libdw's walk; and every node
 * whose abstract origin and call attributes the raw walk read from the
 * bytes has the values libdw reads for that DIE.
 */
#include "symbolize/dwarf/dwarfp.h"
#include "tests/helpers/dwarf_fixtures.h"
#include "tests/helpers/dwc_fixture.h"
#include "tests/helpers/tap.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

static char tmpdir[256];

/* Where A and B first differ, into WHY; true when they do not. */
static bool same_tree(const sp_fn_tree *a, const sp_fn_tree *b, char *why, size_t len)
{
	if (a->n_nodes != b->n_nodes || a->n_ranges != b->n_ranges) {
		snprintf(why, len, "raw %zu nodes, %zu ranges; libdw %zu nodes, %zu ranges",
			 a->n_nodes, a->n_ranges, b->n_nodes, b->n_ranges);
		return false;
	}
	for (size_t i = 0; i < a->n_nodes; i++) {
		const sp_fn_node *x = &a->nodes[i], *y = &b->nodes[i];
		if (x->off != y->off || x->parent != y->parent) {
			snprintf(why, len, "node %zu: raw DIE %#llx under %u, libdw DIE %#llx under %u",
				 i, (unsigned long long)x->off, x->parent,
				 (unsigned long long)y->off, y->parent);
			return false;
		}
	}
	for (size_t i = 0; i < a->n_ranges; i++) {
		const sp_fn_range *x = &a->ranges[i], *y = &b->ranges[i];
		if (x->lo != y->lo || x->hi != y->hi || x->parent != y->parent ||
		    x->node != y->node) {
			snprintf(why, len,
				 "range %zu: raw [%#llx, %#llx) node %u under %u, "
				 "libdw [%#llx, %#llx) node %u under %u",
				 i, (unsigned long long)x->lo, (unsigned long long)x->hi, x->node,
				 x->parent, (unsigned long long)y->lo, (unsigned long long)y->hi,
				 y->node, y->parent);
			return false;
		}
	}
	return true;
}

static int64_t die_int(Dwarf_Die *die, int name)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	if (!dwarf_attr(die, name, &a) || dwarf_formudata(&a, &w) != 0)
		return 0;
	return (int64_t)w;
}

/* Whether node N, read from the bytes, has the origin and call
 * attributes libdw reads for its DIE. */
static bool attrs_as_libdw(Dwarf *dw, const sp_fn_node *n)
{
	Dwarf_Die die, origin;
	Dwarf_Attribute a;
	if (!dwarf_offdie(dw, n->off, &die) || !dwarf_attr(&die, DW_AT_abstract_origin, &a) ||
	    !dwarf_formref_die(&a, &origin) || dwarf_dieoffset(&origin) != n->origin)
		return false;
	if (n->inlined != (dwarf_tag(&die) == DW_TAG_inlined_subroutine))
		return false;
	return !n->inlined || (die_int(&die, DW_AT_call_file) == n->call_file_idx &&
			       die_int(&die, DW_AT_call_line) == n->call_line &&
			       die_int(&die, DW_AT_call_column) == n->call_col);
}

static const sp_symbolize_options opts = {.demangle = SP_DEMANGLE_NONE};

static void check_file(const char *path, const char *label)
{
	sp_resolver *d = sp_resolver_new(path, &opts, NULL, NULL);
	sp_units *u = NULL;
	sp_error *e = sp_resolver_units(d, &u);
	TAP_OK(!e && u && u->n_cus > 0, "%s: units with code indexed (%zu)", label,
	       u ? u->n_cus : 0);
	sp_error_free(e);
	if (!u) {
		sp_resolver_free(d);
		return;
	}
	size_t raw = 0, same = 0, nodes = 0, ranges = 0, from_raw = 0, attrs_same = 0;
	char why[600] = "";
	for (size_t i = 0; i < u->n_cus; i++) {
		sp_fn_tree r = {0}, l = {0};
		bool ok = sp_units_walk(u, i, true, &r);
		sp_units_walk(u, i, false, &l);
		if (ok) {
			raw++;
			char w[512];
			if (same_tree(&r, &l, w, sizeof(w)))
				same++;
			else if (!why[0])
				snprintf(why, sizeof(why), "unit %zu: %s", i, w);
			nodes += r.n_nodes;
			ranges += r.n_ranges;
			for (size_t k = 1; k < r.n_nodes; k++) {
				if (!r.nodes[k].from_raw)
					continue;
				from_raw++;
				attrs_same += attrs_as_libdw(u->dw, &r.nodes[k]);
			}
		}
		sp_fn_tree_clear(&r);
		sp_fn_tree_clear(&l);
	}
	TAP_OK(raw == u->n_cus, "%s: the raw walk read %zu of %zu units itself", label, raw,
	       u->n_cus);
	TAP_OK(same == raw && nodes > u->n_cus,
	       "%s: raw and libdw walks agree in %zu of %zu units (%zu nodes, %zu ranges)%s%s",
	       label, same, raw, nodes, ranges, why[0] ? ": first difference: " : "", why);
	TAP_OK(attrs_same == from_raw,
	       "%s: %zu of %zu nodes read from the bytes have libdw's origin and call attributes",
	       label, attrs_same, from_raw);
	sp_resolver_free(d);
}

/* Two programs as modules of one Dwfl, as a per-process unwinder reports
 * them, at bases of our choosing: each module gets its own DWARF, and the
 * code of its first unit, moved by its bias, belongs to it in the Dwfl. */
static void check_one_dwfl(const char *a, const char *b)
{
	const char *paths[2] = {a, b};
	const Dwarf_Addr bases[2] = {0x10000000, 0x7f0000000000};
	sp_dwfl *s = NULL;
	sp_error *e = sp_dwfl_new(&opts, "two modules", &s);
	TAP_OK(!e, "one Dwfl made");
	sp_error_free(e);
	sp_module *m[2];
	Dwfl *dwfl = sp_dwfl_handle(s);
	dwfl_report_begin(dwfl);
	for (size_t i = 0; i < 2; i++) {
		m[i] = sp_module_new(paths[i], &opts, NULL, NULL);
		e = sp_module_open(m[i]);
		if (!e)
			e = sp_module_report(m[i], dwfl, bases[i], false);
		TAP_OK(!e, "module %zu reported at %#llx", i, (unsigned long long)bases[i]);
		sp_error_free(e);
	}
	TAP_OK(dwfl_report_end(dwfl, NULL, NULL) == 0, "report round ended");
	for (size_t i = 0; i < 2; i++) {
		sp_module_load(m[i]);
		sp_units u = {0};
		if (m[i]->dw)
			sp_units_index(&u, m[i]);
		TAP_OK(m[i]->dw && u.n_ranges > 0, "module %zu has its DWARF (%zu unit ranges)", i,
		       u.n_ranges);
		if (u.n_ranges) {
			Dwarf_Addr at = u.ranges[0].lo + m[i]->dwbias;
			TAP_OK(m[i]->dwbias == bases[i] && dwfl_addrmodule(dwfl, at) == m[i]->mod,
			       "module %zu: bias %#llx, its first unit's code at %#llx is its own", i,
			       (unsigned long long)m[i]->dwbias, (unsigned long long)at);
		}
		sp_units_clear(&u);
	}
	sp_dwfl_free(s);
	sp_module_free(m[0]);
	sp_module_free(m[1]);
}

int main(void)
{
	const char *srcdir = getenv("SP_SRCDIR") ? getenv("SP_SRCDIR") : "..";
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/sp-dwwalk-XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;

	bool have_clang = system("clang --version >/dev/null 2>&1") == 0;
	for (size_t i = 0; i < SP_ARRAY_LEN(dwarf_fixtures); i++) {
		const dwarf_fixture *f = &dwarf_fixtures[i];
		bool clang = i >= DWARF_FIXTURES_GCC;
		if (clang && !have_clang) {
			TAP_OK(true, "# SKIP %s with clang: not installed", f->src);
			continue;
		}
		for (size_t v = clang ? 2 : 0; v < SP_ARRAY_LEN(dwarf_versions); v++) {
			char out[512], label[256];
			snprintf(out, sizeof(out), "%s/bin%zu-%s", tmpdir, i, dwarf_versions[v]);
			snprintf(label, sizeof(label), "%s %s %s DWARF %s", f->src, f->cc, f->opt,
				 dwarf_versions[v]);
			bool ok = dwarf_fixture_build(f, dwarf_versions[v], srcdir, out);
			TAP_OK(ok, "built %s", label);
			if (ok)
				check_file(out, label);
		}
	}
	static const char *const fixture_srcs[] = {"fixture.cc", "fixshared.cc", "fixplugin.cc",
						   "busy.cc"};
	for (size_t i = 0; i < SP_ARRAY_LEN(fixture_srcs); i++) {
		char out[512], src[256];
		snprintf(out, sizeof(out), "%s/fx%zu.so", tmpdir, i);
		snprintf(src, sizeof(src), "testdata/src/fixture/%s", fixture_srcs[i]);
		/* as testdata/src/fixture/build.sh compiles them */
		dwarf_fixture fx = {src, "g++",
				    "-shared -fPIC -O2 -fno-omit-frame-pointer "
				    "-fno-optimize-sibling-calls -fno-ipa-icf"};
		bool ok = dwarf_fixture_build(&fx, "5", srcdir, out);
		TAP_OK(ok, "built %s", src);
		if (ok)
			check_file(out, src);
	}
	/* test_dwarf_corrupt's program of three units, built as it builds it */
	static const char *const dwc_builds[][2] = {
		{"g++", "-gdwarf-5"}, {"g++", "-gdwarf-4"}, {"clang++", "-gdwarf-5"}};
	bool wrote = dwc_fixture_write(tmpdir);
	TAP_OK(wrote, "wrote test_dwarf_corrupt's three units");
	for (size_t i = 0; wrote && i < SP_ARRAY_LEN(dwc_builds); i++) {
		char label[128];
		snprintf(label, sizeof(label), "dwc_fixture.h %s %s", dwc_builds[i][0],
			 dwc_builds[i][1]);
		if (i == 2 && !have_clang) {
			TAP_OK(true, "# SKIP %s: clang not installed", label);
			continue;
		}
		char *exe = sp_xasprintf("%s/dwc%zu", tmpdir, i);
		char *cmd = sp_xasprintf("cd '%s' && %s -O2 -g %s -o '%s' a.cc b.cc c.cc 2>/dev/null",
					 tmpdir, dwc_builds[i][0], dwc_builds[i][1], exe);
		bool ok = system(cmd) == 0;
		TAP_OK(ok, "built %s", label);
		if (ok)
			check_file(exe, label);
		free(cmd);
		free(exe);
	}
	check_file("/proc/self/exe", "this test program");
	/* fixture.cc -O2 from g++ and from clang++ (or g++ -O0), both DWARF 5 */
	char a[512], b[512];
	snprintf(a, sizeof(a), "%s/bin0-5", tmpdir);
	snprintf(b, sizeof(b), "%s/bin%d-5", tmpdir, have_clang ? DWARF_FIXTURES_GCC : 1);
	check_one_dwfl(a, b);

	char *rm = sp_xasprintf("rm -rf '%s'", tmpdir);
	if (system(rm) != 0)
		TAP_OK(false, "removed %s", tmpdir);
	free(rm);
	return tap_done();
}
