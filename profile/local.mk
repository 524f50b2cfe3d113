noinst_LTLIBRARIES += profile/libprofile.la
profile_libprofile_la_SOURCES = \
	profile/profile.h \
	profile/model.c \
	profile/check.c \
	profile/dump.c \
	profile/maps.c \
	profile/kind.c \
	profile/merge.c \
	profile/diff.c \
	profile/prune.c \
	profile/filter.c \
	profile/select.c \
	profile/measure.c
profile_libprofile_la_LIBADD =
# raw captures (perf.data) before they become profiles
profile_libprofile_la_SOURCES += profile/capture.h profile/capture.c profile/capture_profile.c
# what OTLP profiles carry beyond the model (profile.h, "OpenTelemetry extras")
profile_libprofile_la_SOURCES += profile/otel.c
