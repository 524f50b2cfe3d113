/* cmd_convert.c — placeholder until implemented. */
#include "convert/convert.h"

#include <stdio.h>

int cmd_convert(int argc, char **argv)
{
	fprintf(stderr, "symprof convert: not implemented\n");
	return 1;
}
