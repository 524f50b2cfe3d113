/* reader_util.h — test helpers for text readers: run a reader on a string
 * and check either its samples (as stacks_string prints them) and the
 * validity of the profile, or the root code and text of its error. */
#ifndef SYMPROF_TESTS_READER_UTIL_H
#define SYMPROF_TESTS_READER_UTIL_H

#include "formats/formats.h"
#include "tests/helpers/stacks_util.h"
#include "tests/helpers/tap.h"

#include <stdlib.h>
#include <string.h>

/* Reads TEXT as the file NAME with FN: it must parse, give the samples WANT
 * and pass sp_profile_check.  Returns the profile (caller frees; NULL when
 * it did not parse). */
__attribute__((unused)) static sp_profile *reader_expect_ok(sp_reader_fn fn, const char *name,
							    const char *text, const char *want,
							    const char *what)
{
	sp_profile *p = NULL;
	sp_error *e = fn(name, (const uint8_t *)text, strlen(text), &p);
	char *msg = e ? sp_error_string(e) : NULL;
	TAP_OK(!e, "%s parses%s%s", what, msg ? ": " : "", msg ? msg : "");
	if (p) {
		char *s = stacks_string(p);
		TAP_EQ_STR(s, want, "%s: samples", what);
		free(s);
		sp_error *c = sp_profile_check(p, name);
		TAP_OK(!c, "%s: valid profile", what);
		sp_error_free(c);
	}
	free(msg);
	sp_error_free(e);
	return p;
}

/* P's canonical dump (sp_profile_dump) as a string; caller frees. */
__attribute__((unused)) static char *reader_dump_string(const sp_profile *p)
{
	sp_sink *s = sp_sink_memory_new();
	sp_profile_dump(p, s);
	size_t n;
	const uint8_t *d = sp_sink_memory_data(s, &n);
	char *text = sp_xstrndup((const char *)d, n);
	sp_sink_free(s);
	return text;
}

/* Reads TEXT as the file NAME with FN: it must fail with root code CODE,
 * a message containing NEEDLE, and no profile. */
__attribute__((unused)) static void reader_expect_error(sp_reader_fn fn, const char *name,
							const char *text, sp_errcode code,
							const char *needle, const char *what)
{
	sp_profile *p = NULL;
	sp_error *e = fn(name, (const uint8_t *)text, strlen(text), &p);
	char *msg = e ? sp_error_string(e) : sp_xstrdup("(no error)");
	TAP_OK(e && sp_error_root_code(e) == code && strstr(msg, needle) && !p, "%s: \"%s\"",
	       what, msg);
	free(msg);
	sp_error_free(e);
	sp_profile_free(p);
}

#endif
