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

# --- pprof reader/writer and merge tests ---
check_PROGRAMS += tests/test_pprof tests/test_merge tests/pprof_tool
tests_test_pprof_SOURCES = tests/test_pprof.c tests/tap.h
tests_test_pprof_LDADD = $(TEST_LIBS)
tests_test_merge_SOURCES = tests/test_merge.c tests/tap.h
tests_test_merge_LDADD = $(TEST_LIBS)
tests_pprof_tool_SOURCES = tests/pprof_tool.c
tests_pprof_tool_LDADD = $(TEST_LIBS)
check_PROGRAMS += tests/fuzz_pprof_replay
tests_fuzz_pprof_replay_SOURCES = tests/fuzz/fuzz_pprof_replay.c tests/fuzz/fuzz_pprof.c \
	tests/tap.h
tests_fuzz_pprof_replay_LDADD = $(TEST_LIBS)
TESTS += tests/test_pprof tests/test_merge tests/test_pprof_go.sh tests/fuzz_pprof_replay
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
check_PROGRAMS += tests/find_tool
tests_find_tool_SOURCES = tests/find_tool.c
tests_find_tool_LDADD = $(TEST_LIBS)
TESTS += tests/test_find.sh
EXTRA_DIST += tests/test_find.sh
# --- end symbolize: load base, ELF identity, demangling, finding files ---
# --- harness tests (CLI, end to end; see tests/cli_lib.sh) ---
CLI_TESTS = tests/cli_heap.sh tests/cli_malformed.sh tests/cli_golden.sh
TESTS += $(CLI_TESTS)
EXTRA_DIST += $(CLI_TESTS) tests/cli_lib.sh tests/malformed \
	testdata/fixture testdata/profiles testdata/golden testdata/demo \
	scripts .ci/run README.md
