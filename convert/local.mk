bin_PROGRAMS += symprof
symprof_SOURCES = \
	convert/convert.h \
	convert/main.c \
	convert/options.c \
	convert/cmd_convert.c \
	convert/perf_options.c \
	convert/convert_help.c \
	convert/cmd_info.c \
	convert/cmd_symbolize.c \
	convert/cmd_jit.c \
	convert/cmd_serve.c \
	convert/cmd_index.c
symprof_LDADD = serve/libserve.la pipeline/libpipeline.la report/libreport.la formats/libformats.la symbolize/libsymbolize.la profile/libprofile.la \
	common/libcommon.la -lpthread
