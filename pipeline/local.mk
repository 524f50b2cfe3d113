# pipeline/: the library's top layer, above symbolize/ and report/.
noinst_LTLIBRARIES += pipeline/libpipeline.la
pipeline_libpipeline_la_SOURCES = \
	pipeline/annotate.h \
	pipeline/annotate.c
pipeline_libpipeline_la_LIBADD = report/libreport.la symbolize/libsymbolize.la \
	formats/libformats.la profile/libprofile.la common/libcommon.la
