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
	common/regular.c \
	common/budget.c \
	common/cpus.c \
	common/json.c \
	common/decompressp.h \
	common/decompress_rules.c \
	common/decompress.c \
	common/decompress_zlib.c \
	common/decompress_xz.c \
	common/decompress_zstd.c \
	common/gzip_sink.c
common_libcommon_la_CFLAGS = $(AM_CFLAGS) $(ZLIB_CFLAGS) $(ZSTD_CFLAGS) $(LZMA_CFLAGS)
common_libcommon_la_LIBADD = $(ZLIB_LIBS) $(ZSTD_LIBS) $(LZMA_LIBS)
