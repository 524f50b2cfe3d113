# serve/: `symprof serve`, the engine behind HTTP (libmicrohttpd, wrapped by
# serve/http.c alone; json-c, wrapped by serve/json_in.c alone).  It calls the
# library (symprof.h): libsymprof's functions are built in here too, so the
# command links them statically like the rest of the engine.
noinst_LTLIBRARIES += serve/libserve.la
serve_libserve_la_SOURCES = \
	serve/serve.h \
	serve/server.c \
	serve/http.c \
	serve/json_in.c \
	serve/pool.c \
	serve/handlers.c \
	serve/metrics.c \
	serve/debugid.c \
	pipeline/api.h \
	pipeline/api.c \
	pipeline/api_convert.c
serve_libserve_la_CFLAGS = $(AM_CFLAGS) $(MHD_CFLAGS) $(JSONC_CFLAGS)
serve_libserve_la_LIBADD = $(MHD_LIBS) $(JSONC_LIBS)
