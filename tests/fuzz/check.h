/* check.h — how a harness fails, and what every harness asks of an error:
 * a message that formats. */
#ifndef SYMPROF_FUZZ_CHECK_H
#define SYMPROF_FUZZ_CHECK_H

#include "common/common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Ends the run as a crash, naming the check that failed.  The line says
 * "ERROR:" because libFuzzer's fork mode (scripts/fuzz --campaign) passes
 * on only such lines from a job's log. */
#define SP_FUZZ_FAIL(...) sp_fuzz_fail(__FILE__, __LINE__, __VA_ARGS__)

static inline __attribute__((noreturn, format(printf, 3, 4))) void
sp_fuzz_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s:%d: ERROR: ", file, line);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

/* Fails unless E's message formats to a non-empty string; frees E. */
static inline void sp_fuzz_check_error(sp_error *e)
{
	char *m = sp_error_string(e);
	if (!m || !*m)
		SP_FUZZ_FAIL("an error without a message");
	free(m);
	sp_error_free(e);
}

#endif
