/* demangle.c — C++ (and other) linkage names to readable names through
 * libbfd's bfd_demangle, in the styles of sp_demangle_style:
 *
 *   _ZN2ns3sumIiEET_PKS1_m  FULL       int ns::sum<int>(int const*, unsigned long)
 *                           TEMPLATES  ns::sum<int>
 *
 * This is the one file that includes bfd.h (which insists on PACKAGE being
 * defined; config.h is force-included, so it is).  Names that are not
 * mangled (C functions) give NULL, as does the NONE style.
 */
#include "symbolize/symbolize.h"

#include <bfd.h>
#include <stdlib.h>

/* Option bits of libiberty's cplus_demangle, which bfd_demangle passes on.
 * Debian ships no demangle.h, so the values are written here (checked by
 * tests/test_demangle.c against what c++filt prints). */
#define SP_DMGL_PARAMS (1 << 0)    /* print the parameter list */
#define SP_DMGL_ANSI (1 << 1)      /* print const, volatile, ... */
#define SP_DMGL_RET_DROP (1 << 21) /* never print a function's return type */

char *sp_demangle(const char *name, sp_demangle_style style)
{
	int options;

	switch (style) {
	case SP_DEMANGLE_FULL:
		options = SP_DMGL_PARAMS | SP_DMGL_ANSI;
		break;
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
	return out;
}
