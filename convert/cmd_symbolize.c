/* cmd_symbolize.c — placeholder until implemented. */
#include "convert/convert.h"

#include <stdio.h>

int cmd_symbolize(int argc, char **argv)
{
	fprintf(stderr, "symprof symbolize: not implemented\n");
	return 1;
}
