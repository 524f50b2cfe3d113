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
EXTRA_DIST += tests/fixtures/heap_fixture.cc
