noinst_LTLIBRARIES += formats/libformats.la
formats_libformats_la_SOURCES = \
	formats/formats.h \
	formats/detect.c \
	formats/legacy.h \
	formats/legacy.c \
	formats/heapp.h \
	formats/heap.c \
	formats/heap_line.c \
	formats/heap_chunks.c \
	formats/jemalloc.h \
	formats/jemalloc.c \
	formats/contention.c \
	formats/thread.c \
	formats/gocount.c \
	formats/folded_write.c \
	formats/pprof.c \
	formats/cpu.c \
	formats/addrstacks.c \
	formats/folded_read.c \
	formats/speedscope.c \
	formats/firefox.c \
	formats/viewer.h \
	formats/viewer.c
formats_libformats_la_CFLAGS = $(AM_CFLAGS) $(PROTOBUFC_CFLAGS)

# profile.proto is compiled by protoc-c at build time into the build tree
# (works out of tree); only formats/pprof.c includes the generated header.
EXTRA_DIST += formats/proto/profile.proto
PPROF_PB_C = formats/proto/profile.pb-c.c
PPROF_PB_H = formats/proto/profile.pb-c.h
BUILT_SOURCES += $(PPROF_PB_C) $(PPROF_PB_H)
CLEANFILES += $(PPROF_PB_C) $(PPROF_PB_H)
nodist_formats_libformats_la_SOURCES = $(PPROF_PB_C) $(PPROF_PB_H)
$(PPROF_PB_C): $(srcdir)/formats/proto/profile.proto
	$(AM_V_GEN)$(MKDIR_P) $(builddir)/formats/proto && \
	$(PROTOC_C) --c_out=$(builddir)/formats/proto -I$(srcdir)/formats/proto profile.proto
# one protoc-c run makes both files; the header follows the source
$(PPROF_PB_H): $(PPROF_PB_C)
	@test -f $@ || { rm -f $(PPROF_PB_C); $(MAKE) $(AM_MAKEFLAGS) $(PPROF_PB_C); }
formats_libformats_la_LIBADD = $(PROTOBUFC_LIBS) -lm
# --- address-stack readers (cpu, contention, thread, gocount, raw, folded) ---
formats_libformats_la_SOURCES += formats/stacks.h formats/stacks.c
# perf.data (perf record), pulled a round at a time
formats_libformats_la_SOURCES += formats/perf/perfp.h formats/perf/input.c formats/perf/header.c \
	formats/perf/compressed.c formats/perf/records.c formats/perf/reader.c
# OpenTelemetry profiles: otlp.proto compiled like profile.proto; only formats/otlp.c
# includes the generated header.  json_pull.c is the JSON pull parser it reads with.
formats_libformats_la_SOURCES += formats/otlp.c formats/json_pull.h formats/json_pull.c
EXTRA_DIST += formats/proto/otlp.proto
OTLP_PB_C = formats/proto/otlp.pb-c.c
OTLP_PB_H = formats/proto/otlp.pb-c.h
BUILT_SOURCES += $(OTLP_PB_C) $(OTLP_PB_H)
CLEANFILES += $(OTLP_PB_C) $(OTLP_PB_H)
nodist_formats_libformats_la_SOURCES += $(OTLP_PB_C) $(OTLP_PB_H)
$(OTLP_PB_C): $(srcdir)/formats/proto/otlp.proto
	$(AM_V_GEN)$(MKDIR_P) $(builddir)/formats/proto && \
	$(PROTOC_C) --c_out=$(builddir)/formats/proto -I$(srcdir)/formats/proto otlp.proto
$(OTLP_PB_H): $(OTLP_PB_C)
	@test -f $@ || { rm -f $(OTLP_PB_C); $(MAKE) $(AM_MAKEFLAGS) $(OTLP_PB_C); }
