# pipeline/: the library's top (a run over profiles, the --each worker pool, the text
# forms of frames, `info`'s text), used by the command (convert/).
noinst_LTLIBRARIES += pipeline/libpipeline.la
pipeline_libpipeline_la_SOURCES = \
	pipeline/pipeline.h \
	pipeline/pipeline.c \
	pipeline/notes.c \
	pipeline/load.c \
	pipeline/write.c \
	pipeline/each.c \
	pipeline/frames_text.c \
	pipeline/info.c
