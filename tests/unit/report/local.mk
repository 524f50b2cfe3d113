# Unit tests of report/: top, DOT, rendered graphs and the flame graph, checked against
# go tool pprof and in a browser.
check_PROGRAMS += tests/unit/report/test_report
tests_unit_report_test_report_SOURCES = tests/unit/report/test_report.c tests/helpers/report_fixture.h tests/helpers/tap.h
tests_unit_report_test_report_LDADD = $(TEST_LIBS)
TESTS += tests/unit/report/test_report
TESTS += tests/unit/report/test_report_tools.sh
TESTS += tests/unit/report/test_flamegraph_js.sh
TESTS += tests/unit/report/test_flamegraph_browser.sh
TESTS += tests/unit/report/test_report_pprof.sh
dist_check_SCRIPTS += tests/unit/report/test_report_tools.sh
dist_check_SCRIPTS += tests/unit/report/test_flamegraph_js.sh
dist_check_SCRIPTS += tests/unit/report/test_flamegraph_browser.sh
dist_check_SCRIPTS += tests/unit/report/test_report_pprof.sh
