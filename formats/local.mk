noinst_LTLIBRARIES += formats/libformats.la
formats_libformats_la_SOURCES = \
	formats/formats.h \
	formats/detect.c \
	formats/heap.c \
	formats/contention.c \
	formats/thread.c \
	formats/gocount.c \
	formats/folded_write.c \
	formats/pprof.c \
	formats/cpu.c \
	formats/raw.c \
	formats/folded_read.c \
	formats/report.c \
	formats/dot.c \
	formats/gvc.c \
	formats/flamegraph.c
formats_libformats_la_CFLAGS = $(AM_CFLAGS) $(PROTOBUFC_CFLAGS) $(GVC_CFLAGS)
formats_libformats_la_LIBADD = profile/libprofile.la common/libcommon.la $(PROTOBUFC_LIBS) $(GVC_LIBS)
# reports: private header; libm for font sizes and colours
formats_libformats_la_SOURCES += formats/report.h
formats_libformats_la_LIBADD += -lm
