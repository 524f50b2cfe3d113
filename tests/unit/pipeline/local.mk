# Unit tests of pipeline/: libsymprof through symprof.h alone, linked to the shared
# library (which exports symprof_* and nothing else).
check_PROGRAMS += tests/unit/pipeline/test_api
tests_unit_pipeline_test_api_SOURCES = tests/unit/pipeline/test_api.c tests/helpers/tap.h
tests_unit_pipeline_test_api_LDADD = pipeline/libsymprof.la
TESTS += tests/unit/pipeline/test_api
