/* main.c — symprof: dispatch to subcommands. */
#include "convert/convert.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *help;
} commands[] = {
	{"convert", cmd_convert, "read, symbolize and write profiles"},
	{"info", cmd_info, "describe profiles and how their mappings symbolize"},
	{"symbolize", cmd_symbolize, "addr2line-style address lookup in one ELF file"},
	{"serve", cmd_serve, "answer symbolize and convert requests over HTTP"},
	{"jit", cmd_jit, "JIT objects: 'jit dump' recovers GDB-JIT-registered objects"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: symprof COMMAND [OPTIONS] ...\n\ncommands:\n");
	for (size_t i = 0; i < SP_ARRAY_LEN(commands); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\nRun 'symprof COMMAND --help' for a command's options.\n");
}

/* Output lost on the way out (a full disk, /dev/full, a closed pipe) is an
 * error like any other: whatever the command wrote through stdio is only
 * known to have arrived once stdout is flushed and closed. */
static int close_stdout(int rc)
{
	errno = 0;
	bool failed = ferror(stdout) != 0;
	if (fclose(stdout) != 0)
		failed = true;
	if (!failed)
		return rc;
	fprintf(stderr, "symprof: standard output: write failed%s%s\n", errno ? ": " : "",
		errno ? strerror(errno) : "");
	return rc ? rc : 1;
}

static int run(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		puts(PACKAGE_STRING);
		return 0;
	}
	for (size_t i = 0; i < SP_ARRAY_LEN(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "symprof: unknown command '%s'\nTry 'symprof --help' for more information.\n",
		argv[1]);
	return 2;
}

int main(int argc, char **argv)
{
	sp_mem_set_limit(sp_mem_default_limit()); /* --max-memory may change it */
	sp_catch_bus_error();
	return close_stdout(run(argc, argv));
}
