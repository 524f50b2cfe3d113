# Unit tests of jitreg/: the GDB JIT interface for JIT hosts.
check_PROGRAMS += tests/unit/jitreg/test_jitreg
tests_unit_jitreg_test_jitreg_SOURCES = tests/unit/jitreg/test_jitreg.c tests/helpers/jitfix.c tests/helpers/jitfix.h tests/helpers/tap.h
tests_unit_jitreg_test_jitreg_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) -pthread
tests_unit_jitreg_test_jitreg_LDADD = jitreg/libjitreg.la $(TEST_LIBS) $(LIBELF_LIBS) -lpthread
TESTS += tests/unit/jitreg/test_jitreg
