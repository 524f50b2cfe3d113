# Unit tests of common/: utilities, interval tables, decompression.
check_PROGRAMS += tests/unit/common/test_common
tests_unit_common_test_common_SOURCES = tests/unit/common/test_common.c tests/helpers/tap.h
tests_unit_common_test_common_LDADD = $(TEST_LIBS)
check_PROGRAMS += tests/unit/common/test_interval
tests_unit_common_test_interval_SOURCES = tests/unit/common/test_interval.c tests/helpers/tap.h
tests_unit_common_test_interval_LDADD = $(TEST_LIBS)
check_PROGRAMS += tests/unit/common/test_decompress
tests_unit_common_test_decompress_SOURCES = tests/unit/common/test_decompress.c tests/helpers/tap.h
tests_unit_common_test_decompress_CFLAGS = $(AM_CFLAGS) $(ZLIB_CFLAGS) $(ZSTD_CFLAGS) $(LZMA_CFLAGS)
tests_unit_common_test_decompress_LDADD = $(TEST_LIBS) $(ZLIB_LIBS) $(ZSTD_LIBS) $(LZMA_LIBS)
TESTS += tests/unit/common/test_common
TESTS += tests/unit/common/test_decompress
TESTS += tests/unit/common/test_interval
