/* check.h — what every harness asks of an error: a message that formats. */
#ifndef SYMPROF_FUZZ_CHECK_H
#define SYMPROF_FUZZ_CHECK_H

#include "common/common.h"

#include <stdlib.h>

/* Aborts unless E's message formats to a non-empty string; frees E. */
static inline void sp_fuzz_check_error(sp_error *e)
{
	char *m = sp_error_string(e);
	if (!m || !*m)
		abort();
	free(m);
	sp_error_free(e);
}

#endif
