/* convert.h — the symprof command: subcommands share option handling. */
#ifndef SYMPROF_CONVERT_H
#define SYMPROF_CONVERT_H

#include "formats/formats.h"
#include "symbolize/symbolize.h"

int cmd_convert(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_symbolize(int argc, char **argv);
int cmd_jit(int argc, char **argv);

#endif
