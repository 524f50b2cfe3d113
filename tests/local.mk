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
dist_check_SCRIPTS += tests/jit_dump.sh
TESTS += tests/jit_dump.sh
# --- end jit tests ---
