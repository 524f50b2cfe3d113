/* demangle.c — C++ (and other) linkage names to readable names through
 * libbfd's bfd_demangle, in the styles of sp_demangle_style:
 *
 *   _ZN2ns3sumIiEET_PKS1_m  FULL       int ns::sum<int>(int const*, unsigned long)
 *                           TEMPLATES  ns::sum<int>
 *                           SIMPLE     ns::sum
 *
 * SIMPLE, the default, is what pprof shows: template argument lists are
 * dropped from the TEMPLATES form, so a graph node or a flame-graph label
 * names the function, not its instantiation.  The '<' and '>' of operator
 * names (operator<, operator<<=, operator->, operator<=>) are kept.
 * This is the one file that includes bfd.h (which insists on PACKAGE being
 * defined; config.h is force-included, so it is).  Names that are not
 * mangled (C functions) give NULL, as does the NONE style.
 */
#include "symbolize/symbolize.h"

#include <bfd.h>
#include <stdlib.h>
#include <string.h>

/* Option bits of libiberty's cplus_demangle, which bfd_demangle passes on.
 * Debian ships no demangle.h, so the values are written here (checked by
 * tests/unit/symbolize/test_demangle.c against what c++filt prints). */
#define SP_DMGL_PARAMS (1 << 0)    /* print the parameter list */
#define SP_DMGL_ANSI (1 << 1)      /* print const, volatile, ... */
#define SP_DMGL_RET_DROP (1 << 21) /* never print a function's return type */

/* Length of the operator token "<", "<<", "<=", "<<=", "<=>", ">", ">>",
 * ">=", ">>=" or "->" that starts at S right after the word "operator" (or
 * "operator-" for "->"), 0 when S holds none. */
static size_t operator_token(const char *start, const char *s)
{
	size_t before = (size_t)(s - start);
	if (before >= 9 && s[-1] == '-' && !strncmp(s - 9, "operator", 8) && *s == '>')
		return 1;
	if (before < 8 || strncmp(s - 8, "operator", 8) != 0)
		return 0;
	size_t n = strspn(s, *s == '<' ? "<" : ">");
	if (n == 0 || n > 2)
		return 0;
	if (s[n] == '=')
		n++;
	if (n == 2 && s[0] == '<' && s[1] == '=' && s[2] == '>')
		n = 3;
	return n;
}

/* NAME (TEMPLATES form) without its template argument lists, in place. */
static void drop_template_args(char *name)
{
	char *out = name;
	size_t depth = 0;
	for (const char *s = name; *s;) {
		size_t op = depth == 0 && (*s == '<' || *s == '>') ? operator_token(name, s) : 0;
		if (op) {
			memmove(out, s, op);
			out += op;
			s += op;
			continue;
		}
		if (*s == '<') {
			if (depth++ == 0)
				while (out > name && out[-1] == ' ')
					out--; /* "operator<< <char>" */
		} else if (*s == '>' && depth > 0) {
			depth--;
		} else if (depth == 0) {
			*out++ = *s;
		}
		s++;
	}
	*out = '\0';
}

char *sp_demangle(const char *name, sp_demangle_style style)
{
	int options;

	switch (style) {
	case SP_DEMANGLE_FULL:
		options = SP_DMGL_PARAMS | SP_DMGL_ANSI;
		break;
	case SP_DEMANGLE_SIMPLE:
	case SP_DEMANGLE_TEMPLATES:
		options = SP_DMGL_ANSI | SP_DMGL_RET_DROP;
		break;
	default:
		return NULL;
	}
	if (!name || !*name)
		return NULL;

	char *raw = bfd_demangle(NULL, name, options);
	if (!raw)
		return NULL;
	/* Hand out memory from our own allocator so callers need not know
	 * where it came from. */
	char *out = sp_xstrdup(raw);
	free(raw);
	if (style == SP_DEMANGLE_SIMPLE)
		drop_template_args(out);
	return out;
}
