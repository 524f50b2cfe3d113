/* cmd_jit.c — `symprof jit dump`: recovers the objects a process registered
 * through the GDB JIT interface, from the running process or from a core
 * file, and writes each as DIR/jit-<n>.elf + DIR/jit-<n>.meta (n in list
 * order from 0), ready for `symprof convert --jit-dir DIR`. */
#include "convert/convert.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void jit_usage(FILE *f)
{
	fprintf(f, "usage: symprof jit dump (--pid PID | --core CORE --exe EXE) -d DIR\n"
		   "\n"
		   "Walks __jit_debug_descriptor (the GDB JIT interface) of a live process or of a\n"
		   "core file and writes every registered object as DIR/jit-<n>.elf plus\n"
		   "DIR/jit-<n>.meta (its sections' run-time addresses).\n"
		   "\n"
		   "  -p, --pid PID     read the running process PID\n"
		   "  -c, --core CORE   read the core file CORE ...\n"
		   "  -e, --exe EXE     ... of the executable EXE\n"
		   "  -d, --dir DIR     output directory (created if missing)\n");
}

static int fail(sp_error *err)
{
	char *s = sp_error_string(err);
	fprintf(stderr, "symprof jit dump: %s\n", s);
	free(s);
	sp_error_free(err);
	return 1;
}

static int cmd_jit_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{"pid", required_argument, NULL, 'p'},
		{"core", required_argument, NULL, 'c'},
		{"exe", required_argument, NULL, 'e'},
		{"dir", required_argument, NULL, 'd'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *pid_s = NULL, *core = NULL, *exe = NULL, *dir = NULL;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:c:e:d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p': pid_s = optarg; break;
		case 'c': core = optarg; break;
		case 'e': exe = optarg; break;
		case 'd': dir = optarg; break;
		case 'h': jit_usage(stdout); return 0;
		default: return sp_cli_bad_option("jit dump", c, argv);
		}
	}
	uint64_t pid = 0;
	if (optind != argc || !dir || (!pid_s == !core) || (core && !exe) || (pid_s && exe))
		return sp_cli_usage("jit dump", "give -d DIR and either --pid or --core with --exe");
	if (pid_s && (!sp_parse_u64(pid_s, pid_s + strlen(pid_s), 10, &pid) || !pid ||
		      pid > INT32_MAX))
		return sp_cli_usage("jit dump", "--pid: expected a process id, got \"%s\"", pid_s);
	size_t n;
	uint64_t descriptor;
	sp_error *err = sp_jit_dump_dir((int)pid, core, exe, dir, &n, &descriptor);
	if (err)
		return fail(err);
	fprintf(stderr, "symprof jit dump: %zu object%s from the descriptor at %#llx written to %s\n",
		n, n == 1 ? "" : "s", (unsigned long long)descriptor, dir);
	return 0;
}

int cmd_jit(int argc, char **argv)
{
	if (argc < 2)
		return sp_cli_usage("jit", "expected a subcommand: dump");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		jit_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "dump"))
		return cmd_jit_dump(argc - 1, argv + 1);
	return sp_cli_usage("jit", "unknown subcommand '%s'", argv[1]);
}
