# report/: what people read — call graphs (DOT, and PDF/SVG/PNG through graphviz), the
# top table and the flame graph, drawn from a profile; graphviz.c is the one file that
# includes graphviz.
noinst_LTLIBRARIES += report/libreport.la
report_libreport_la_SOURCES = \
	report/report.h \
	report/reportp.h \
	report/defaults.c \
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

# annotated source and disassembly (list, disasm) and the HTML report
report_libreport_la_SOURCES += \
	report/annotation.h \
	report/annotation.c \
	report/list.c \
	report/disasm_view.c \
	report/html.c

# The page's script and style, written as files of their own, become C string
# literals at build time (report/html_page.inc, in the build tree).
EXTRA_DIST += report/html_page.js report/html_page.css report/embed.awk
BUILT_SOURCES += report/html_page.inc
CLEANFILES += report/html_page.inc
nodist_report_libreport_la_SOURCES = report/html_page.inc
report/html_page.inc: $(srcdir)/report/html_page.js $(srcdir)/report/html_page.css \
		$(srcdir)/report/embed.awk
	$(AM_V_GEN)$(MKDIR_P) report && \
	{ $(AWK) -v name=html_page_js -f $(srcdir)/report/embed.awk $(srcdir)/report/html_page.js && \
	  $(AWK) -v name=html_page_css -f $(srcdir)/report/embed.awk $(srcdir)/report/html_page.css; \
	} >$@.tmp && mv $@.tmp $@
