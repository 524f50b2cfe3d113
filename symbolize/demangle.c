/* demangle.c — placeholder until implemented. */
#include "symbolize/symbolize.h"

char *sp_demangle(const char *name, sp_demangle_style style)
{
	return NULL;
}
