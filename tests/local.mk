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

# --- symbolize: session, resolver, profiles (wip-hs2) tests ---
check_PROGRAMS += tests/test_dwarf
tests_test_dwarf_SOURCES = tests/test_dwarf.c tests/tap.h
tests_test_dwarf_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_test_dwarf_LDADD = $(TEST_LIBS) $(LIBELF_LIBS)
TESTS += tests/test_dwarf
check_PROGRAMS += tests/test_symbolize
tests_test_symbolize_SOURCES = tests/test_symbolize.c tests/tap.h
tests_test_symbolize_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_test_symbolize_LDADD = $(TEST_LIBS) $(LIBELF_LIBS)
TESTS += tests/test_symbolize
TESTS += tests/symbolize_cli.sh
EXTRA_DIST += tests/symbolize_cli.sh
EXTRA_DIST += tests/symbolize/fixture.cc
# --- end symbolize (wip-hs2) tests ---
