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
EXTRA_DIST += tests/flamegraph_dom.js tests/report_pprof_gen.py tests/report_dotcmp.py
TESTS += tests/test_report tests/test_report_tools.sh tests/test_flamegraph_js.sh \
	tests/test_flamegraph_browser.sh tests/test_report_pprof.sh
# --- end reports tests ---
