# libjitreg: installed shared library for JIT hosts; depends on libc and
# pthread only, exports only jitreg_* and the GDB JIT symbols.
lib_LTLIBRARIES += jitreg/libjitreg.la
include_HEADERS += jitreg/jitreg.h
jitreg_libjitreg_la_SOURCES = jitreg/jitreg.c jitreg/jitreg.h
jitreg_libjitreg_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0 \
	-Wl,--version-script=$(srcdir)/jitreg/libjitreg.map
jitreg_libjitreg_la_LIBADD = -lpthread
EXTRA_jitreg_libjitreg_la_DEPENDENCIES = jitreg/libjitreg.map
pkgconfig_DATA += jitreg/libjitreg.pc
EXTRA_DIST += jitreg/libjitreg.map jitreg/libjitreg.pc.in testdata/src/jit/llvm_listener.cpp
