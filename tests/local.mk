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

# --- address-stack reader tests (cpu, contention, thread, gocount, raw, folded) ---
check_PROGRAMS += tests/test_cpu tests/test_folded_read
tests_test_cpu_SOURCES = tests/test_cpu.c tests/tap.h tests/stacks_util.h
tests_test_cpu_LDADD = $(TEST_LIBS)
tests_test_folded_read_SOURCES = tests/test_folded_read.c tests/tap.h tests/stacks_util.h
tests_test_folded_read_LDADD = $(TEST_LIBS)
TESTS += tests/test_cpu tests/test_folded_read
check_PROGRAMS += tests/test_lockthread
tests_test_lockthread_SOURCES = tests/test_lockthread.c tests/tap.h tests/stacks_util.h
tests_test_lockthread_LDADD = $(TEST_LIBS)
TESTS += tests/test_lockthread
check_PROGRAMS += tests/test_raw
tests_test_raw_SOURCES = tests/test_raw.c tests/tap.h tests/stacks_util.h
tests_test_raw_LDADD = $(TEST_LIBS)
TESTS += tests/test_raw
check_PROGRAMS += tests/read_stacks
tests_read_stacks_SOURCES = tests/read_stacks.c tests/stacks_util.h
tests_read_stacks_LDADD = $(TEST_LIBS)
check_PROGRAMS += tests/fuzz_replay_cpu tests/fuzz_replay_contention tests/fuzz_replay_thread \
	tests/fuzz_replay_gocount tests/fuzz_replay_raw tests/fuzz_replay_folded
tests_fuzz_replay_cpu_SOURCES = tests/fuzz/fuzz_cpu.c tests/fuzz/replay.c
tests_fuzz_replay_cpu_LDADD = $(TEST_LIBS)
tests_fuzz_replay_contention_SOURCES = tests/fuzz/fuzz_contention.c tests/fuzz/replay.c
tests_fuzz_replay_contention_LDADD = $(TEST_LIBS)
tests_fuzz_replay_thread_SOURCES = tests/fuzz/fuzz_thread.c tests/fuzz/replay.c
tests_fuzz_replay_thread_LDADD = $(TEST_LIBS)
tests_fuzz_replay_gocount_SOURCES = tests/fuzz/fuzz_gocount.c tests/fuzz/replay.c
tests_fuzz_replay_gocount_LDADD = $(TEST_LIBS)
tests_fuzz_replay_raw_SOURCES = tests/fuzz/fuzz_raw.c tests/fuzz/replay.c
tests_fuzz_replay_raw_LDADD = $(TEST_LIBS)
tests_fuzz_replay_folded_SOURCES = tests/fuzz/fuzz_folded.c tests/fuzz/replay.c
tests_fuzz_replay_folded_LDADD = $(TEST_LIBS)
TESTS += tests/test_stacks_malformed.sh tests/test_stacks_go.sh
dist_check_SCRIPTS += tests/test_stacks_malformed.sh tests/test_stacks_go.sh
EXTRA_DIST += tests/malformed/cpu tests/malformed/contention tests/malformed/thread \
	tests/malformed/gocount tests/malformed/raw tests/malformed/folded tests/data/stacks
# --- end address-stack reader tests ---
