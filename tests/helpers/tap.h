/* tap.h — a tiny TAP producer for symprof's C unit tests.
 *
 *   TAP_OK(cond, "what %d", x);     one test case
 *   TAP_EQ_STR(got, want, "what");  string equality, prints both on failure
 *   TAP_EQ_U64(got, want, "what");
 *   return tap_done();              prints the plan; exit status 1 on failure
 */
#ifndef SYMPROF_TAP_H
#define SYMPROF_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n_, tap_failed_;

__attribute__((format(printf, 4, 5), unused)) static int tap_ok_(int ok, const char *file,
								int line, const char *fmt, ...)
{
	va_list ap;
	tap_n_++;
	printf("%s %d - ", ok ? "ok" : "not ok", tap_n_);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!ok) {
		tap_failed_++;
		printf("#   at %s:%d\n", file, line);
	}
	fflush(stdout);
	return ok;
}

#define TAP_OK(cond, ...) tap_ok_(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

#define TAP_EQ_STR(got, want, ...)                                                       \
	do {                                                                             \
		const char *g_ = (got), *w_ = (want);                                    \
		if (!TAP_OK(g_ && w_ && strcmp(g_, w_) == 0, __VA_ARGS__))              \
			printf("#   got:  \"%s\"\n#   want: \"%s\"\n", g_ ? g_ : "(null)", \
			       w_ ? w_ : "(null)");                                      \
	} while (0)

#define TAP_EQ_U64(got, want, ...)                                                       \
	do {                                                                             \
		uint64_t g_ = (uint64_t)(got), w_ = (uint64_t)(want);                    \
		if (!TAP_OK(g_ == w_, __VA_ARGS__))                                      \
			printf("#   got:  %#" PRIx64 " (%" PRIu64 ")\n#   want: %#" PRIx64 \
			       " (%" PRIu64 ")\n",                                       \
			       g_, g_, w_, w_);                                          \
	} while (0)

__attribute__((unused)) static int tap_done(void)
{
	printf("1..%d\n", tap_n_);
	return tap_failed_ ? 1 : 0;
}

#endif
