/* cmd_index.c — `symprof index`: writes the symbol index of ELF files (by
 * build id, into a directory that --index-dir then reads), or checks index
 * files whole. */
#include "convert/convert.h"

#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: symprof index [OPTIONS] BINARY...\n"
		   "       symprof index --check INDEX...\n"
		   "\n"
		   "Writes the symbol index of each ELF file BINARY (an executable or a shared\n"
		   "library with a build id) as DIR/BUILDID.spx: every answer its debug info gives,\n"
		   "which `symprof symbolize` and `convert`, given the directory, then read\n"
		   "without opening the debug info.  Separate debug info is found as when\n"
		   "symbolizing.\n"
		   "\n"
		   "  -o, --output DIR      where to write (default: the current directory; made\n"
		   "                        when missing)\n"
		   "  --check               check each INDEX file whole (checksums, every row and\n"
		   "                        name) and say what it holds\n"
		   "  -q, --quiet           no line per file on success\n"
		   "\n" SP_CLI_FILE_HELP);
}

/* What an index holds, in words. */
static void describe(FILE *f, const sp_index_stats *st)
{
	fprintf(f, "%zu bytes, %zu address ranges, %zu functions, %zu frames, %zu files, from %s%s",
		st->size,
		st->n_rows, st->n_funcs, st->n_nodes, st->n_files,
		st->dwarf && st->go	 ? "DWARF and Go's pc-line table"
		: st->dwarf		 ? "DWARF"
		: st->go		 ? "Go's pc-line table"
		: st->symbols		 ? "the symbol table alone (no debug info found)"
					 : "nothing (no debug info, no symbols)",
		st->split_missing ? "; some split units (.dwo) could not be read" : "");
}

/* Indexes the ELF at PATH into DIR. */
static int index_one(sp_symbolizer *s, const char *path, const char *dir, bool quiet)
{
	sp_object *o;
	sp_error *e = sp_symbolizer_object(s, path, NULL, &o);
	const sp_elf_info *info = e ? NULL : sp_object_info(o);
	char *out = NULL;
	if (!e && (!info->build_id || !*info->build_id))
		e = sp_error_new(SP_E_UNSUPPORTED, "%s: no build id: an index is found by it", path);
	if (!e && !(out = sp_index_path(dir, info->build_id)))
		e = sp_error_new(SP_E_UNSUPPORTED, "%s: build id too long for a file name", path);
	sp_buf bytes = {0};
	sp_index_stats st;
	if (!e)
		e = sp_object_index_build(o, &bytes, &st);
	if (!e)
		e = sp_index_store(out, bytes.data, bytes.len);
	sp_buf_free(&bytes);
	if (e) {
		free(out);
		char *msg = sp_error_string(e);
		fprintf(stderr, "symprof index: %s\n", msg);
		free(msg);
		sp_error_free(e);
		return 1;
	}
	if (!quiet) {
		printf("%s: %s: ", path, out);
		describe(stdout, &st);
		printf("\n");
	}
	free(out);
	return 0;
}

/* Checks the index file PATH whole. */
static int check_one(const char *path, bool quiet)
{
	sp_index *ix;
	sp_error *e = sp_index_open(path, NULL, SP_DEMANGLE_NONE, &ix);
	sp_index_stats st;
	if (!e)
		e = sp_index_verify(ix, &st);
	if (e) {
		char *msg = sp_error_string(e);
		fprintf(stderr, "symprof index: %s\n", msg);
		free(msg);
		sp_error_free(e);
		sp_index_free(ix);
		return 1;
	}
	if (!quiet) {
		printf("%s: ok: build id %s, ", path, sp_index_build_id(ix));
		describe(stdout, &st);
		printf("\n");
	}
	sp_index_free(ix);
	return 0;
}

int cmd_index(int argc, char **argv)
{
	enum { OPT_CHECK = 256 };
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"check", no_argument, NULL, OPT_CHECK},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		SP_CLI_FILE_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	const char *dir = ".";
	bool check = false;
	sp_cli_sym cli;
	int opt, rc = 0;
	sp_cli_sym_init(&cli);
	cli.cmd = "index";
	optind = 1;
	opterr = 0;
	while (!rc && (opt = getopt_long(argc, argv, ":o:qh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o': dir = optarg; break;
		case OPT_CHECK: check = true; break;
		case 'q': cli.quiet = true; break;
		case 'h':
			usage(stdout);
			sp_cli_sym_clear(&cli);
			return 0;
		default:
			if (opt < 1000)
				rc = sp_cli_bad_option("index", opt, argv);
			else if (sp_cli_sym_option(&cli, opt, optarg) != 0)
				rc = 2;
		}
	}
	if (!rc && optind == argc)
		rc = sp_cli_usage("index", check ? "expected index files to check"
						  : "expected ELF files to index");
	if (rc) {
		sp_cli_sym_clear(&cli);
		return rc;
	}
	sp_cli_sym_finish(&cli);
	cli.sym.debuginfod_quiet = cli.quiet;
	sp_symbolizer *s = check ? NULL : sp_symbolizer_new(&cli.sym);
	for (int i = optind; i < argc; i++)
		rc |= check ? check_one(argv[i], cli.quiet) : index_one(s, argv[i], dir, cli.quiet);
	sp_symbolizer_free(s);
	sp_cli_sym_clear(&cli);
	return rc;
}
