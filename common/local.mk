noinst_LTLIBRARIES += common/libcommon.la
common_libcommon_la_SOURCES = \
	common/common.h \
	common/fatal.c \
	common/number.c \
	common/error.c \
	common/mem.c \
	common/hash.c \
	common/strtab.c \
	common/interval.c \
	common/sink.c \
	common/file.c \
	common/zlib.c \
	common/json.c
common_libcommon_la_CFLAGS = $(AM_CFLAGS) $(ZLIB_CFLAGS)
common_libcommon_la_LIBADD = $(ZLIB_LIBS)
