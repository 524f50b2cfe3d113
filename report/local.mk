# report/: what people read — call graphs (DOT, and PDF/SVG/PNG through graphviz), the
# top table and the flame graph, drawn from a profile; graphviz.c is the one file that
# includes graphviz.
noinst_LTLIBRARIES += report/libreport.la
report_libreport_la_SOURCES = \
	report/report.h \
	report/reportp.h \
	report/options.c \
	report/report.c \
	report/values.c \
	report/names.c \
	report/graph.c \
	report/top.c \
	report/dot.c \
	report/graphviz.c \
	report/flamegraph.c
report_libreport_la_CFLAGS = $(AM_CFLAGS) $(GVC_CFLAGS)
report_libreport_la_LIBADD = $(GVC_LIBS) -lm
