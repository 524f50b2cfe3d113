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
	profile/prune.c
profile_libprofile_la_LIBADD = common/libcommon.la
