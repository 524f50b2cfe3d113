# pipeline/: the library's top (a run over profiles, the --each worker pool, the text
# forms of frames, `info`'s text, the annotation of machine code and sources for the
# annotated reports), used by the command (convert/); and libsymprof, the
# installed library: symprof.h's functions (api*.c) over all of it, exporting only
# symprof_* (libsymprof.map).
noinst_LTLIBRARIES += pipeline/libpipeline.la
pipeline_libpipeline_la_SOURCES = \
	pipeline/pipeline.h \
	pipeline/pipeline.c \
	pipeline/annotate.h \
	pipeline/annotate.c \
	pipeline/notes.c \
	pipeline/load.c \
	pipeline/write.c \
	pipeline/each.c \
	pipeline/frames_text.c \
	pipeline/info.c

lib_LTLIBRARIES += pipeline/libsymprof.la
include_HEADERS += pipeline/symprof.h
pipeline_libsymprof_la_SOURCES = pipeline/symprof.h pipeline/api.h pipeline/api.c \
	pipeline/api_convert.c
# -version-info CURRENT:REVISION:AGE; the soname is libsymprof.so.(CURRENT - AGE)
pipeline_libsymprof_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0 \
	-Wl,--version-script=$(srcdir)/pipeline/libsymprof.map
pipeline_libsymprof_la_LIBADD = pipeline/libpipeline.la report/libreport.la \
	formats/libformats.la symbolize/libsymbolize.la profile/libprofile.la common/libcommon.la \
	-lpthread
EXTRA_pipeline_libsymprof_la_DEPENDENCIES = pipeline/libsymprof.map
pkgconfig_DATA += pipeline/symprof.pc
EXTRA_DIST += pipeline/libsymprof.map pipeline/symprof.pc.in
EXTRA_DIST += examples/symbolize.c
