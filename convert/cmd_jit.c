/* cmd_jit.c — placeholder until implemented. */
#include "convert/convert.h"

#include <stdio.h>

int cmd_jit(int argc, char **argv)
{
	fprintf(stderr, "symprof jit: not implemented\n");
	return 1;
}
