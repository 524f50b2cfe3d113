/* cmd_info.c — placeholder until implemented. */
#include "convert/convert.h"

#include <stdio.h>

int cmd_info(int argc, char **argv)
{
	fprintf(stderr, "symprof info: not implemented\n");
	return 1;
}
