/* api.h — what the files of the public API (api*.c) share: the types
 * behind symprof.h's opaque ones, errors and options taken across the
 * boundary, reports copied out of the engine's structs. */
#ifndef SYMPROF_PIPELINE_API_H
#define SYMPROF_PIPELINE_API_H

#include "pipeline/pipeline.h"
#include "pipeline/symprof.h"

struct symprof_error {
	symprof_errcode code;
	char *msg;
};

struct symprof_session {
	sp_symbolizer *s;
};

/* The public error of E (consumed); NULL for NULL. */
symprof_error *sp_api_error(sp_error *e);
/* A public error of code SYMPROF_E_USAGE. */
symprof_error *sp_api_usage(const char *fmt, ...) SP_PRINTF(1, 2);
/* Copies the caller's options IN (NULL: defaults), whose first field is
 * its size (0: this version's), into OUT (SIZE bytes, zeroed first): a
 * smaller struct leaves the fields it lacks zero; a larger one may only
 * have zeros past what this version knows.  WHAT names the struct in
 * errors. */
symprof_error *sp_api_options(const void *in, void *out, size_t size, const char *what);
/* Whether the N bytes at P are all zero (reserved fields). */
bool sp_api_zero(const void *p, size_t n);

/* S kept in T for as long as T lives; NULL for NULL. */
const char *sp_api_str(sp_strtab *t, const char *s);
/* OUT: IN copied, its strings into T, its arrays allocated (free with
 * sp_api_mapping_report_free). */
void sp_api_mapping_report(sp_strtab *t, const sp_mapping_report *in,
			   symprof_mapping_report *out);
void sp_api_mapping_report_free(symprof_mapping_report *r);

#endif
