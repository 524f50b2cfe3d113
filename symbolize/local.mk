noinst_LTLIBRARIES += symbolize/libsymbolize.la
symbolize_libsymbolize_la_SOURCES = \
	symbolize/symbolize.h \
	symbolize/internal.h \
	symbolize/dwcursor.h \
	symbolize/dwarfp.h \
	symbolize/module.c \
	symbolize/elfsym.c \
	symbolize/gopclntab.c \
	symbolize/gopclntab.h \
	symbolize/resolve.c \
	symbolize/units.c \
	symbolize/dwraw.c \
	symbolize/split.c \
	symbolize/dwp.c \
	symbolize/lines.c \
	symbolize/zsec.c \
	symbolize/loadbase.c \
	symbolize/mapcheck.c \
	symbolize/objfile.c \
	symbolize/elfinfo.c \
	symbolize/find.c \
	symbolize/debuginfod_dl.c \
	symbolize/debuginfod_dl.h \
	symbolize/demangle.c \
	symbolize/session.c \
	symbolize/batch.c \
	symbolize/sources.c \
	symbolize/apply.c \
	symbolize/jit.c \
	symbolize/perfmap.c \
	symbolize/perfjit.c \
	symbolize/kallsyms.c \
	symbolize/jitdump.c \
	symbolize/unwind.c \
	symbolize/code.c \
	symbolize/disasm.c
symbolize_libsymbolize_la_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBDW_CFLAGS) $(DEBUGINFOD_CFLAGS) $(ZLIB_CFLAGS) $(ZSTD_CFLAGS) $(LZMA_CFLAGS)
symbolize_libsymbolize_la_LIBADD = profile/libprofile.la common/libcommon.la \
	$(LIBDW_LIBS) $(LIBELF_LIBS) $(ZLIB_LIBS) $(ZSTD_LIBS) $(LZMA_LIBS) $(OPCODES_LIBS) $(BFD_LIBS)
