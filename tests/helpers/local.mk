# Programs and files the tests share: the TAP header, the CLI tests' shell library,
# fixture helpers and independent readers.
check_PROGRAMS += tests/helpers/pprof_tool
tests_helpers_pprof_tool_SOURCES = tests/helpers/pprof_tool.c
tests_helpers_pprof_tool_LDADD = $(TEST_LIBS)
check_PROGRAMS += tests/helpers/read_stacks
tests_helpers_read_stacks_SOURCES = tests/helpers/read_stacks.c tests/helpers/stacks_util.h
tests_helpers_read_stacks_LDADD = $(TEST_LIBS)
check_PROGRAMS += tests/helpers/report_sample
tests_helpers_report_sample_SOURCES = tests/helpers/report_sample.c tests/helpers/report_fixture.h
tests_helpers_report_sample_LDADD = $(TEST_LIBS)
check_PROGRAMS += tests/helpers/report_load
tests_helpers_report_load_SOURCES = tests/helpers/report_load.c
tests_helpers_report_load_LDADD = $(TEST_LIBS)
EXTRA_DIST += tests/helpers/valgrind.supp
EXTRA_DIST += tests/helpers/flamegraph_dom.js
EXTRA_DIST += tests/helpers/report_pprof_gen.py
EXTRA_DIST += tests/helpers/report_dotcmp.py
EXTRA_DIST += tests/helpers/flamegraph_cdp.py
EXTRA_DIST += tests/helpers/png_ink.py
EXTRA_DIST += tests/helpers/perf_unzstd.py
EXTRA_DIST += tests/helpers/bombs.py
if HAVE_LLVM
check_PROGRAMS += tests/helpers/mcjit_host
endif
check_PROGRAMS += tests/helpers/find_tool
tests_helpers_find_tool_SOURCES = tests/helpers/find_tool.c
tests_helpers_find_tool_LDADD = $(TEST_LIBS)
check_PROGRAMS += tests/helpers/jitload
tests_helpers_jitload_SOURCES = tests/helpers/jitload.c tests/helpers/jitfix.c tests/helpers/jitfix.h
tests_helpers_jitload_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_helpers_jitload_LDADD = $(LIBELF_LIBS)
check_PROGRAMS += tests/helpers/jithost
tests_helpers_jithost_SOURCES = testdata/src/jit/jithost.c
tests_helpers_jithost_LDADD = jitreg/libjitreg.la
check_PROGRAMS += tests/helpers/jithost_copyrel
tests_helpers_jithost_copyrel_SOURCES = testdata/src/jit/jithost.c
tests_helpers_jithost_copyrel_CPPFLAGS = $(AM_CPPFLAGS) -DJITHOST_EXE_DESCRIPTOR
tests_helpers_jithost_copyrel_LDADD = jitreg/libjitreg.la
tests_helpers_mcjit_host_SOURCES = tests/helpers/mcjit_host.cpp
tests_helpers_mcjit_host_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/jitreg
tests_helpers_mcjit_host_CXXFLAGS = $(LLVM_CXXFLAGS) $(AM_CXXFLAGS) $(MCJIT_WARN_CXXFLAGS) \
	-fno-omit-frame-pointer
tests_helpers_mcjit_host_LDADD = jitreg/libjitreg.la $(LLVM_LIBS) -lpthread
EXTRA_DIST += tests/helpers/cli_lib.sh
EXTRA_DIST += tests/helpers/perf_kmod.py
EXTRA_DIST += tests/helpers/fake_vmlinux.py
# OTLP: the file id as symbolize/find/filehash.c computes it; the tests' Python side
check_PROGRAMS += tests/helpers/htlhash_tool
tests_helpers_htlhash_tool_SOURCES = tests/helpers/htlhash_tool.c
tests_helpers_htlhash_tool_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_helpers_htlhash_tool_LDADD = $(TEST_LIBS) $(LIBELF_LIBS)
EXTRA_DIST += tests/helpers/otlp_proto.py tests/helpers/otlp_gen.py tests/helpers/otlp_check.py
EXTRA_DIST += tests/helpers/annotate_check.py tests/helpers/viewer_check.py
EXTRA_DIST += tests/helpers/report_cdp.py
check_PROGRAMS += tests/helpers/peak_mem
tests_helpers_peak_mem_SOURCES = tests/helpers/peak_mem.c
EXTRA_DIST += tests/helpers/failopen.c
# the symbol index's size with and without what GSYM does not hold (bench/index.sh)
check_PROGRAMS += tests/helpers/index_content
tests_helpers_index_content_SOURCES = tests/helpers/index_content.c tests/helpers/index_util.h
tests_helpers_index_content_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS)
tests_helpers_index_content_LDADD = $(TEST_LIBS) $(LIBDW_LIBS) $(LIBELF_LIBS)
