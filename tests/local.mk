# Unit tests (C, TAP) and CLI tests (shell, TAP).  Each folder's tests are
# listed here; fixture programs are built from testdata/ at test time.
TEST_LIBS = formats/libformats.la symbolize/libsymbolize.la profile/libprofile.la \
	common/libcommon.la

check_PROGRAMS += tests/test_common tests/test_model
tests_test_common_SOURCES = tests/test_common.c tests/tap.h
tests_test_common_LDADD = $(TEST_LIBS)
tests_test_model_SOURCES = tests/test_model.c tests/tap.h
tests_test_model_LDADD = $(TEST_LIBS)
TESTS += tests/test_common tests/test_model
check_PROGRAMS += tests/test_interval
tests_test_interval_SOURCES = tests/test_interval.c tests/tap.h
tests_test_interval_LDADD = $(TEST_LIBS)
TESTS += tests/test_interval

# --- pprof reader/writer and merge tests ---
check_PROGRAMS += tests/test_pprof tests/test_merge tests/pprof_tool
tests_test_pprof_SOURCES = tests/test_pprof.c tests/tap.h
tests_test_pprof_LDADD = $(TEST_LIBS)
tests_test_merge_SOURCES = tests/test_merge.c tests/tap.h
tests_test_merge_LDADD = $(TEST_LIBS)
check_PROGRAMS += tests/test_diff
tests_test_diff_SOURCES = tests/test_diff.c tests/tap.h
tests_test_diff_LDADD = $(TEST_LIBS)
TESTS += tests/test_diff
tests_pprof_tool_SOURCES = tests/pprof_tool.c
tests_pprof_tool_LDADD = $(TEST_LIBS)
check_PROGRAMS += tests/fuzz/fuzz_pprof
tests_fuzz_fuzz_pprof_SOURCES = tests/fuzz/fuzz_pprof.c tests/fuzz/standalone.c tests/fuzz/reader.h
tests_fuzz_fuzz_pprof_LDADD = $(TEST_LIBS)
TESTS += tests/test_pprof tests/test_merge tests/test_pprof_go.sh tests/fuzz/fuzz_pprof
dist_check_SCRIPTS += tests/test_pprof_go.sh
EXTRA_DIST += tests/malformed/pprof
# --- end pprof tests ---
# --- symbolize: load base, ELF identity, demangling, finding files ---
check_PROGRAMS += tests/test_loadbase tests/test_elfinfo tests/test_demangle
tests_test_loadbase_SOURCES = tests/test_loadbase.c tests/tap.h
tests_test_loadbase_LDADD = $(TEST_LIBS)
tests_test_elfinfo_SOURCES = tests/test_elfinfo.c tests/tap.h
tests_test_elfinfo_LDADD = $(TEST_LIBS)
tests_test_demangle_SOURCES = tests/test_demangle.c tests/tap.h
tests_test_demangle_LDADD = $(TEST_LIBS)
TESTS += tests/test_loadbase tests/test_elfinfo tests/test_demangle
check_PROGRAMS += tests/test_mapcheck
tests_test_mapcheck_SOURCES = tests/test_mapcheck.c tests/tap.h
tests_test_mapcheck_LDADD = $(TEST_LIBS)
TESTS += tests/test_mapcheck
check_PROGRAMS += tests/find_tool
tests_find_tool_SOURCES = tests/find_tool.c
tests_find_tool_LDADD = $(TEST_LIBS)
TESTS += tests/test_find.sh
EXTRA_DIST += tests/test_find.sh
# --- end symbolize: load base, ELF identity, demangling, finding files ---
# --- harness tests (CLI, end to end; see tests/cli_lib.sh) ---
CLI_TESTS = tests/cli_heap.sh tests/cli_malformed.sh tests/cli_golden.sh tests/cli_diff.sh \
	tests/cli_mismatch.sh tests/cli_outputs.sh tests/cli_limits.sh
TESTS += $(CLI_TESTS)
EXTRA_DIST += $(CLI_TESTS) tests/cli_lib.sh tests/malformed \
	testdata/fixture testdata/profiles testdata/golden testdata/demo \
	scripts .ci/run README.md
# --- heap reader, maps, detection, pruning, folded writer tests ---
check_PROGRAMS += tests/test_maps
tests_test_maps_SOURCES = tests/test_maps.c tests/tap.h
tests_test_maps_LDADD = $(TEST_LIBS)
TESTS += tests/test_maps
check_PROGRAMS += tests/test_legacy
tests_test_legacy_SOURCES = tests/test_legacy.c tests/tap.h
tests_test_legacy_LDADD = $(TEST_LIBS)
TESTS += tests/test_legacy
check_PROGRAMS += tests/test_heap
tests_test_heap_SOURCES = tests/test_heap.c tests/tap.h
tests_test_heap_LDADD = $(TEST_LIBS)
TESTS += tests/test_heap
check_PROGRAMS += tests/test_prune
tests_test_prune_SOURCES = tests/test_prune.c tests/tap.h
tests_test_prune_LDADD = $(TEST_LIBS)
TESTS += tests/test_prune
check_PROGRAMS += tests/test_filter
tests_test_filter_SOURCES = tests/test_filter.c tests/tap.h
tests_test_filter_LDADD = $(TEST_LIBS)
TESTS += tests/test_filter
check_PROGRAMS += tests/test_folded
tests_test_folded_SOURCES = tests/test_folded.c tests/tap.h
tests_test_folded_LDADD = $(TEST_LIBS)
TESTS += tests/test_folded
check_PROGRAMS += tests/test_detect tests/test_malformed
tests_test_detect_SOURCES = tests/test_detect.c tests/tap.h
tests_test_detect_LDADD = $(TEST_LIBS)
tests_test_malformed_SOURCES = tests/test_malformed.c tests/tap.h
tests_test_malformed_LDADD = $(TEST_LIBS)
TESTS += tests/test_detect tests/test_malformed
EXTRA_DIST += tests/malformed
check_PROGRAMS += tests/fuzz/fuzz_heap tests/fuzz/fuzz_maps
tests_fuzz_fuzz_heap_SOURCES = tests/fuzz/fuzz_heap.c tests/fuzz/standalone.c
tests_fuzz_fuzz_heap_LDADD = $(TEST_LIBS)
tests_fuzz_fuzz_maps_SOURCES = tests/fuzz/fuzz_maps.c tests/fuzz/standalone.c
tests_fuzz_fuzz_maps_LDADD = $(TEST_LIBS)
TESTS += tests/fuzz/fuzz_heap tests/fuzz/fuzz_maps
check_PROGRAMS += tests/test_heap_real
tests_test_heap_real_SOURCES = tests/test_heap_real.c tests/tap.h
tests_test_heap_real_LDADD = $(TEST_LIBS)
TESTS += tests/test_heap_real
# --- jemalloc heap_v2 reader ---
check_PROGRAMS += tests/test_jemalloc tests/fuzz/fuzz_jemalloc
tests_test_jemalloc_SOURCES = tests/test_jemalloc.c tests/tap.h
tests_test_jemalloc_LDADD = $(TEST_LIBS)
tests_fuzz_fuzz_jemalloc_SOURCES = tests/fuzz/fuzz_jemalloc.c tests/fuzz/standalone.c
tests_fuzz_fuzz_jemalloc_LDADD = $(TEST_LIBS)
TESTS += tests/test_jemalloc tests/fuzz/fuzz_jemalloc tests/cli_jemalloc.sh
dist_check_SCRIPTS += tests/cli_jemalloc.sh
EXTRA_DIST += tests/fixtures/heap_fixture.cc

# --- address-stack reader tests (cpu, contention, thread, gocount, raw, folded) ---
check_PROGRAMS += tests/test_cpu tests/test_folded_read
tests_test_cpu_SOURCES = tests/test_cpu.c tests/tap.h tests/stacks_util.h
tests_test_cpu_LDADD = $(TEST_LIBS)
tests_test_folded_read_SOURCES = tests/test_folded_read.c tests/tap.h tests/stacks_util.h tests/reader_util.h
tests_test_folded_read_LDADD = $(TEST_LIBS)
TESTS += tests/test_cpu tests/test_folded_read
check_PROGRAMS += tests/test_lockthread
tests_test_lockthread_SOURCES = tests/test_lockthread.c tests/tap.h tests/stacks_util.h tests/reader_util.h
tests_test_lockthread_LDADD = $(TEST_LIBS)
TESTS += tests/test_lockthread
check_PROGRAMS += tests/test_raw
tests_test_raw_SOURCES = tests/test_raw.c tests/tap.h tests/stacks_util.h tests/reader_util.h
tests_test_raw_LDADD = $(TEST_LIBS)
TESTS += tests/test_raw
check_PROGRAMS += tests/read_stacks
tests_read_stacks_SOURCES = tests/read_stacks.c tests/stacks_util.h
tests_read_stacks_LDADD = $(TEST_LIBS)
check_PROGRAMS += tests/fuzz/fuzz_cpu tests/fuzz/fuzz_contention tests/fuzz/fuzz_thread \
	tests/fuzz/fuzz_gocount tests/fuzz/fuzz_raw tests/fuzz/fuzz_folded
tests_fuzz_fuzz_cpu_SOURCES = tests/fuzz/fuzz_cpu.c tests/fuzz/standalone.c
tests_fuzz_fuzz_cpu_LDADD = $(TEST_LIBS)
tests_fuzz_fuzz_contention_SOURCES = tests/fuzz/fuzz_contention.c tests/fuzz/standalone.c
tests_fuzz_fuzz_contention_LDADD = $(TEST_LIBS)
tests_fuzz_fuzz_thread_SOURCES = tests/fuzz/fuzz_thread.c tests/fuzz/standalone.c
tests_fuzz_fuzz_thread_LDADD = $(TEST_LIBS)
tests_fuzz_fuzz_gocount_SOURCES = tests/fuzz/fuzz_gocount.c tests/fuzz/standalone.c
tests_fuzz_fuzz_gocount_LDADD = $(TEST_LIBS)
tests_fuzz_fuzz_raw_SOURCES = tests/fuzz/fuzz_raw.c tests/fuzz/standalone.c
tests_fuzz_fuzz_raw_LDADD = $(TEST_LIBS)
tests_fuzz_fuzz_folded_SOURCES = tests/fuzz/fuzz_folded.c tests/fuzz/standalone.c
tests_fuzz_fuzz_folded_LDADD = $(TEST_LIBS)
TESTS += tests/fuzz/fuzz_cpu tests/fuzz/fuzz_contention tests/fuzz/fuzz_thread \
	tests/fuzz/fuzz_gocount tests/fuzz/fuzz_raw tests/fuzz/fuzz_folded
TESTS += tests/test_stacks_malformed.sh tests/test_stacks_go.sh
dist_check_SCRIPTS += tests/test_stacks_malformed.sh tests/test_stacks_go.sh
EXTRA_DIST += tests/malformed/cpu tests/malformed/contention tests/malformed/thread \
	tests/malformed/gocount tests/malformed/raw tests/malformed/folded tests/data/stacks \
	tests/data/graphs
# --- end address-stack reader tests ---

# --- symbolize: session, resolver, profiles (wip-hs2) tests ---
check_PROGRAMS += tests/test_dwarf
tests_test_dwarf_SOURCES = tests/test_dwarf.c tests/tap.h
tests_test_dwarf_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_test_dwarf_LDADD = $(TEST_LIBS) $(LIBELF_LIBS)
TESTS += tests/test_dwarf
check_PROGRAMS += tests/test_lines
tests_test_lines_SOURCES = tests/test_lines.c tests/dwarf_fixtures.h tests/tap.h
tests_test_lines_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS)
tests_test_lines_LDADD = $(TEST_LIBS) $(LIBDW_LIBS) $(LIBELF_LIBS)
TESTS += tests/test_lines
check_PROGRAMS += tests/test_symbolize
tests_test_symbolize_SOURCES = tests/test_symbolize.c tests/tap.h
tests_test_symbolize_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_test_symbolize_LDADD = $(TEST_LIBS) $(LIBELF_LIBS)
TESTS += tests/test_symbolize
TESTS += tests/symbolize_cli.sh
EXTRA_DIST += tests/symbolize_cli.sh
TESTS += tests/cli_symbolize_flags.sh
EXTRA_DIST += tests/cli_symbolize_flags.sh
EXTRA_DIST += tests/symbolize/fixture.cc
# --- end symbolize (wip-hs2) tests ---

# --- jit tests ---
check_PROGRAMS += tests/test_jitsyms
tests_test_jitsyms_SOURCES = tests/test_jitsyms.c tests/tap.h
tests_test_jitsyms_LDADD = $(TEST_LIBS)
TESTS += tests/test_jitsyms
check_PROGRAMS += tests/test_jit_index
tests_test_jit_index_SOURCES = tests/test_jit_index.c tests/jitfix.c tests/jitfix.h tests/tap.h
tests_test_jit_index_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_test_jit_index_LDADD = $(TEST_LIBS) $(LIBELF_LIBS)
TESTS += tests/test_jit_index
EXTRA_DIST += testdata/jit/jitfuncs.c
check_PROGRAMS += tests/test_jitreg
tests_test_jitreg_SOURCES = tests/test_jitreg.c tests/jitfix.c tests/jitfix.h tests/tap.h
tests_test_jitreg_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) -pthread
tests_test_jitreg_LDADD = jitreg/libjitreg.la $(TEST_LIBS) $(LIBELF_LIBS) -lpthread
TESTS += tests/test_jitreg
check_PROGRAMS += tests/jitload tests/jithost
tests_jitload_SOURCES = tests/jitload.c tests/jitfix.c tests/jitfix.h
tests_jitload_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_jitload_LDADD = $(LIBELF_LIBS)
tests_jithost_SOURCES = testdata/jit/jithost.c
tests_jithost_LDADD = jitreg/libjitreg.la
check_PROGRAMS += tests/jithost_copyrel
tests_jithost_copyrel_SOURCES = testdata/jit/jithost.c
tests_jithost_copyrel_CPPFLAGS = $(AM_CPPFLAGS) -DJITHOST_EXE_DESCRIPTOR
tests_jithost_copyrel_LDADD = jitreg/libjitreg.la
dist_check_SCRIPTS += tests/jit_dump.sh
TESTS += tests/jit_dump.sh
check_PROGRAMS += tests/test_jit_e2e
tests_test_jit_e2e_SOURCES = tests/test_jit_e2e.c tests/jitfix.c tests/jitfix.h tests/tap.h
tests_test_jit_e2e_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_test_jit_e2e_LDADD = $(TEST_LIBS) $(LIBELF_LIBS)
TESTS += tests/test_jit_e2e
# --- end jit tests ---
# --- reports tests ---
check_PROGRAMS += tests/test_report
tests_test_report_SOURCES = tests/test_report.c tests/report_fixture.h tests/tap.h
tests_test_report_LDADD = $(TEST_LIBS)
check_PROGRAMS += tests/report_sample tests/report_load
tests_report_sample_SOURCES = tests/report_sample.c tests/report_fixture.h
tests_report_sample_LDADD = $(TEST_LIBS)
tests_report_load_SOURCES = tests/report_load.c
tests_report_load_LDADD = $(TEST_LIBS)
dist_check_SCRIPTS += tests/test_report_tools.sh tests/test_flamegraph_js.sh \
	tests/test_flamegraph_browser.sh
dist_check_SCRIPTS += tests/test_report_pprof.sh
EXTRA_DIST += tests/valgrind.supp
EXTRA_DIST += tests/flamegraph_dom.js tests/report_pprof_gen.py tests/report_dotcmp.py
TESTS += tests/test_report tests/test_report_tools.sh tests/test_flamegraph_js.sh \
	tests/test_flamegraph_browser.sh tests/test_report_pprof.sh
# --- end reports tests ---
# --- fuzz harnesses of the JIT .meta, perf map and kallsyms readers, and of .debug_line ---
check_PROGRAMS += tests/fuzz/fuzz_meta tests/fuzz/fuzz_perfmap tests/fuzz/fuzz_perfjit
tests_fuzz_fuzz_perfjit_SOURCES = tests/fuzz/fuzz_perfjit.c tests/fuzz/standalone.c
tests_fuzz_fuzz_perfjit_LDADD = $(TEST_LIBS)
tests_fuzz_fuzz_meta_SOURCES = tests/fuzz/fuzz_meta.c tests/fuzz/standalone.c
tests_fuzz_fuzz_meta_LDADD = $(TEST_LIBS)
tests_fuzz_fuzz_perfmap_SOURCES = tests/fuzz/fuzz_perfmap.c tests/fuzz/standalone.c
tests_fuzz_fuzz_perfmap_LDADD = $(TEST_LIBS)
TESTS += tests/fuzz/fuzz_meta tests/fuzz/fuzz_perfmap tests/fuzz/fuzz_perfjit
check_PROGRAMS += tests/fuzz/fuzz_lines
tests_fuzz_fuzz_lines_SOURCES = tests/fuzz/fuzz_lines.c tests/fuzz/standalone.c
tests_fuzz_fuzz_lines_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS)
tests_fuzz_fuzz_lines_LDADD = $(TEST_LIBS) $(LIBDW_LIBS) $(LIBELF_LIBS)
TESTS += tests/fuzz/fuzz_lines
check_PROGRAMS += tests/fuzz/fuzz_elf
tests_fuzz_fuzz_elf_SOURCES = tests/fuzz/fuzz_elf.c tests/fuzz/standalone.c tests/file_util.h
tests_fuzz_fuzz_elf_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(ZLIB_CFLAGS)
tests_fuzz_fuzz_elf_LDADD = $(TEST_LIBS) $(LIBELF_LIBS) $(ZLIB_LIBS)
TESTS += tests/fuzz/fuzz_elf
check_PROGRAMS += tests/fuzz/fuzz_roundtrip
tests_fuzz_fuzz_roundtrip_SOURCES = tests/fuzz/fuzz_roundtrip.c tests/fuzz/standalone.c
tests_fuzz_fuzz_roundtrip_LDADD = $(TEST_LIBS)
TESTS += tests/fuzz/fuzz_roundtrip
EXTRA_DIST += tests/fuzz/seeds tests/fuzz/corpus
# --- end fuzz harnesses of the JIT readers ---
EXTRA_DIST += tests/fuzz/reader.h tests/fuzz/memfd.h

# --- CPU, legacy formats and batch conversion, end to end (wip-h5) tests ---
TESTS += tests/cli_cpu.sh tests/cli_formats.sh
EXTRA_DIST += tests/cli_cpu.sh tests/cli_formats.sh tests/cli_samples.sh
# --- end CPU, legacy formats and batch (wip-h5) tests ---
# --- finding binaries and debug info, end to end (issue 4) ---
TESTS += tests/cli_debuginfo.sh
EXTRA_DIST += tests/cli_debuginfo.sh
TESTS += tests/cli_split_dwarf.sh
EXTRA_DIST += tests/cli_split_dwarf.sh tests/symbolize/fixture_b.cc
# --- the .dwp unit index: tables built here, malformed ones, fuzzing ---
check_PROGRAMS += tests/test_dwp tests/fuzz/fuzz_dwp
tests_test_dwp_SOURCES = tests/test_dwp.c tests/tap.h
tests_test_dwp_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS)
tests_test_dwp_LDADD = $(TEST_LIBS) $(LIBDW_LIBS) $(LIBELF_LIBS)
tests_fuzz_fuzz_dwp_SOURCES = tests/fuzz/fuzz_dwp.c tests/fuzz/standalone.c
tests_fuzz_fuzz_dwp_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS)
tests_fuzz_fuzz_dwp_LDADD = $(TEST_LIBS) $(LIBDW_LIBS) $(LIBELF_LIBS)
TESTS += tests/test_dwp tests/fuzz/fuzz_dwp
EXTRA_DIST += tests/malformed/dwp tests/fuzz/seeds/dwp
TESTS += tests/cli_configure.sh
EXTRA_DIST += tests/cli_configure.sh
# --- end finding tests ---

# --- graphs and reports end to end (wip-h8) tests ---
TESTS += tests/cli_reports.sh
EXTRA_DIST += tests/flamegraph_cdp.py tests/cli_reports.sh tests/png_ink.py
TESTS += tests/cli_report_overflow.sh
EXTRA_DIST += tests/cli_report_overflow.sh
# --- end graphs and reports end to end (wip-h8) tests ---
# --- jit scatter/cli tests ---
check_PROGRAMS += tests/test_jit_scatter
tests_test_jit_scatter_SOURCES = tests/test_jit_scatter.c tests/jitfix.c tests/jitfix.h tests/tap.h
tests_test_jit_scatter_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_test_jit_scatter_LDADD = $(TEST_LIBS) $(LIBELF_LIBS)
TESTS += tests/test_jit_scatter
check_PROGRAMS += tests/test_jit_sources
tests_test_jit_sources_SOURCES = tests/test_jit_sources.c tests/tap.h
tests_test_jit_sources_LDADD = $(TEST_LIBS)
TESTS += tests/test_jit_sources
check_PROGRAMS += tests/test_locate_cache
tests_test_locate_cache_SOURCES = tests/test_locate_cache.c tests/tap.h
tests_test_locate_cache_LDADD = $(TEST_LIBS)
TESTS += tests/test_locate_cache
dist_check_SCRIPTS += tests/cli_jit.sh
TESTS += tests/cli_jit.sh
# --- end jit scatter/cli tests ---
# --- MCJIT end to end (needs llvm-14-dev; tests/cli_mcjit.sh skips without it) ---
if HAVE_LLVM
check_PROGRAMS += tests/mcjit_host
endif
tests_mcjit_host_SOURCES = tests/mcjit_host.cpp
tests_mcjit_host_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/jitreg
tests_mcjit_host_CXXFLAGS = $(LLVM_CXXFLAGS) $(AM_CXXFLAGS) $(MCJIT_WARN_CXXFLAGS) \
	-fno-omit-frame-pointer
tests_mcjit_host_LDADD = jitreg/libjitreg.la $(LLVM_LIBS) -lpthread
dist_check_SCRIPTS += tests/cli_mcjit.sh
TESTS += tests/cli_mcjit.sh
EXTRA_DIST += testdata/jit/mcjit_funcs.c testdata/jit/mcjit_funcs2.c testdata/jit/mcjit_busy.c
# --- end MCJIT end to end ---
# --- corrupted debug info against the resolver's own DWARF readers ---
check_PROGRAMS += tests/test_dwarf_corrupt
tests_test_dwarf_corrupt_SOURCES = tests/test_dwarf_corrupt.c tests/dwc_fixture.h tests/tap.h \
	tests/file_util.h
tests_test_dwarf_corrupt_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_test_dwarf_corrupt_LDADD = $(TEST_LIBS) $(LIBELF_LIBS)
TESTS += tests/test_dwarf_corrupt
check_PROGRAMS += tests/test_dwwalk
tests_test_dwwalk_SOURCES = tests/test_dwwalk.c tests/dwarf_fixtures.h tests/dwc_fixture.h \
	tests/tap.h
tests_test_dwwalk_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS)
tests_test_dwwalk_LDADD = $(TEST_LIBS) $(LIBDW_LIBS) $(LIBELF_LIBS)
TESTS += tests/test_dwwalk
# --- end corrupted debug info ---

# --- perf.data reader: hand-built streams, fuzz harness, real recordings ---
check_PROGRAMS += tests/test_perf tests/fuzz/fuzz_perf
tests_test_perf_SOURCES = tests/test_perf.c tests/tap.h
tests_test_perf_LDADD = $(TEST_LIBS)
tests_test_perf_CFLAGS = $(AM_CFLAGS) $(ZSTD_CFLAGS)
tests_fuzz_fuzz_perf_SOURCES = tests/fuzz/fuzz_perf.c tests/fuzz/standalone.c
tests_fuzz_fuzz_perf_LDADD = $(TEST_LIBS)
TESTS += tests/test_perf tests/fuzz/fuzz_perf
TESTS += tests/cli_perf.sh tests/cli_perf_jit.sh
EXTRA_DIST += tests/cli_perf.sh tests/cli_perf_jit.sh testdata/perf
TESTS += tests/cli_perf_z.sh
EXTRA_DIST += tests/cli_perf_z.sh tests/perf_unzstd.py
TESTS += tests/cli_unwind.sh
EXTRA_DIST += tests/cli_unwind.sh testdata/unwind
# --- Go binaries without DWARF (.gopclntab; skips without go) ---
TESTS += tests/cli_gostripped.sh
EXTRA_DIST += tests/cli_gostripped.sh testdata/gofix
# --- installation: manual pages, completion, documents ---
TESTS += tests/cli_install.sh
EXTRA_DIST += tests/cli_install.sh
# --- the flame graph's options, read back from its SVG ---
TESTS += tests/cli_flamegraph.sh
EXTRA_DIST += tests/cli_flamegraph.sh
TESTS += tests/cli_filters.sh
EXTRA_DIST += tests/cli_filters.sh
# --- usage errors: one line, a pointer to --help, exit 2 ---
TESTS += tests/cli_usage.sh
EXTRA_DIST += tests/cli_usage.sh
# --- reading a profile from standard input ---
TESTS += tests/cli_stdin.sh
EXTRA_DIST += tests/cli_stdin.sh
# --- convert --each: going on past bad inputs ---
TESTS += tests/cli_each.sh
EXTRA_DIST += tests/cli_each.sh
# --- --sample-index checked and applied to pprof output ---
TESTS += tests/cli_sample_index.sh
EXTRA_DIST += tests/cli_sample_index.sh
# --- an ELF file among convert's inputs is the main binary ---
TESTS += tests/cli_binary_arg.sh
EXTRA_DIST += tests/cli_binary_arg.sh
# --- convert --min-resolved: exit 3 when too little resolved ---
TESTS += tests/cli_min_resolved.sh
EXTRA_DIST += tests/cli_min_resolved.sh
# --- Go's pc-line table: synthetic tables of every layout, malformed ones, fuzzing ---
check_PROGRAMS += tests/test_gopclntab tests/fuzz/fuzz_gopclntab
tests_test_gopclntab_SOURCES = tests/test_gopclntab.c tests/tap.h
tests_test_gopclntab_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_test_gopclntab_LDADD = $(TEST_LIBS) $(LIBELF_LIBS)
tests_fuzz_fuzz_gopclntab_SOURCES = tests/fuzz/fuzz_gopclntab.c tests/fuzz/standalone.c
tests_fuzz_fuzz_gopclntab_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_fuzz_fuzz_gopclntab_LDADD = $(TEST_LIBS) $(LIBELF_LIBS)
TESTS += tests/test_gopclntab tests/fuzz/fuzz_gopclntab tests/cli_gopclntab.sh
EXTRA_DIST += tests/malformed/gopclntab tests/fuzz/seeds/gopclntab tests/cli_gopclntab.sh
