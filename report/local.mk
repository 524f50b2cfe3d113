# report/: the views people read (annotated source and disassembly, the HTML report).
noinst_LTLIBRARIES += report/libreport.la
report_libreport_la_SOURCES = \
	report/annotate.h \
	report/annotate.c \
	report/annotate_view.h \
	report/list.c \
	report/disasm_view.c
report_libreport_la_LIBADD = formats/libformats.la profile/libprofile.la common/libcommon.la
report_libreport_la_SOURCES += report/html.h report/html.c

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
