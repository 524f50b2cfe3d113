noinst_LTLIBRARIES += formats/libformats.la
formats_libformats_la_SOURCES = \
	formats/formats.h \
	formats/detect.c \
	formats/legacy.h \
	formats/legacy.c \
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
formats_libformats_la_LIBADD = profile/libprofile.la common/libcommon.la $(PROTOBUFC_LIBS) $(GVC_LIBS) -lm
# --- address-stack readers (cpu, contention, thread, gocount, raw, folded) ---
formats_libformats_la_SOURCES += formats/stacks.h formats/stacks.c
