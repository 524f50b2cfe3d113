/* cmd_symbolize.c — `symprof symbolize`: addr2line-style lookups in one ELF.
 *
 *   $ echo 0x1234 | symprof symbolize -e ./app -a -C
 *   0x0000000000001234
 *   ns::leaf(int)
 *   /src/app.cc:14
 *   main
 *   /src/app.cc:40
 *
 * Addresses come from the arguments or, one per line, from stdin (hex, "0x"
 * optional).  By default they are ELF virtual addresses of FILE, as for
 * addr2line; with --relative they are offsets from where the object's file
 * offset 0 would be loaded: symbol-file address = ADDR + p_vaddr - p_offset
 * of the PT_LOAD with the lowest p_vaddr (for most PIEs and shared
 * libraries the two are equal; for a non-PIE at 0x400000 they differ by
 * 0x400000); with --section=NAME they are offsets in that section.  A line
 * that is no number may name a symbol or a section (NAME, NAME+OFF,
 * NAME-OFF, (SECTION)+OFF, as eu-addr2line reads them).  Without flags the
 * answer is addr2line's: FILE:LINE of the innermost frame; -f adds the
 * function, -i every frame it is inlined into, -S the symbol; unknown parts
 * print as ?? and ??:0.  --json prints one object per address instead.  -p,
 * -s and --output-style=LLVM|JSON give the forms of addr2line -p -s and of
 * llvm-symbolizer (which demangle and show inlined frames unless told not
 * to), for scripts that compare with those tools.
 *
 * The name sources of `convert` work here too, on run-time addresses:
 * --jit-dir objects first (an address inside one of their loaded sections
 * resolves in that object), then --jitdump files, then FILE, then
 * --perf-map names, then
 * --kallsyms for kernel addresses.  With a source and no -e, no ELF file is
 * read.  -e FILE is a recorded path: --binary-path, --path-map and
 * --sysroot locate it as they locate a mapping's file.  Output is flushed
 * whenever the next input line is not yet available, so the command works
 * as a co-process in a pipe while bulk input is written in large blocks.
 *
 * This file turns flags into a batch: the engine that answers lists of
 * addresses (cache of answer texts, address order, -j threads) is
 * symbolize/batch.c's, the text forms are pipeline/frames_text.c's.
 */
#include "convert/convert.h"

#include <elf.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the flags say. */
typedef struct {
	const char *exe;
	sp_text_options text;
	bool relative;
	const char *section; /* --section: addresses are offsets in it */
	bool style_given;
	bool demangle_given;
	int inlines;         /* -i 1, --no-inlines 0, else the style's default */
	size_t cache_max;
	bool no_cache;
	int jobs;
	sp_cli_sym cli;
} sym_opts;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: symprof symbolize [-e FILE|--obj FILE] [-a] [-f] [-i] [-p] [-s] [-S|-x]\n"
		"                         [-C|--demangle[=STYLE]] [--json|--output-style=STYLE]\n"
		"                         [--relative|--section=NAME] [OPTIONS] [ADDR...]\n"
		"\n"
		"Prints the file and line (-f: and function) of each address of FILE (default\n"
		"a.out), -i: with every inline frame, innermost first.  Addresses come from the\n"
		"arguments or one per line from stdin; a symbol's name stands for its address\n"
		"(NAME, NAME+OFF, NAME-OFF, (SECTION)+OFF).  Addresses inside a --jit-dir\n"
		"object's loaded section resolve in that object, then --jitdump code; --perf-map and\n"
		"--kallsyms name addresses FILE does not know.  Without -e, FILE is a.out unless a name source is given.\n"
		"\n"
		"  -e, --exe FILE       the ELF file\n"
		"      --obj FILE       the same (llvm-symbolizer's name)\n"
		"  -a, --addresses      print each address before its frames\n"
		"  -f, --functions      print function names (always with the LLVM style)\n"
		"  -i, --inlines        print the frames an address is inlined into (the\n"
		"                       default with the LLVM and JSON styles)\n"
		"      --no-inlines     the innermost frame only\n"
		"  -S, --symbols        the symbol holding the address as SYMBOL+0xOFF\n"
		"  -x, --symbols-sections  -S, and the symbol's section\n"
		"  -p, --pretty-print   a frame per line, FUNC at FILE:LINE, and each one the\n"
		"                       frame before was inlined into as \" (inlined by) ...\"\n"
		"  -s, --basenames      file names without their directories\n"
		"  -C, --demangle[=STYLE]  demangle names: full (default for -C, and for the\n"
		"                       LLVM and JSON styles), templates (no parameter lists),\n"
		"                       none (default without -C in the GNU style)\n"
		"      --no-demangle    names as the files spell them\n"
		"      --json           one JSON object per address\n"
		"      --output-style=STYLE  GNU (addr2line's layout, the default), LLVM\n"
		"                       (llvm-symbolizer's: FILE:LINE:COLUMN, a blank line\n"
		"                       after each address) or JSON (llvm-symbolizer's JSON:\n"
		"                       an object per input line, an array for arguments)\n"
		"      --relative       addresses are offsets from the object's load address:\n"
		"                       ADDR + p_vaddr - p_offset of the lowest PT_LOAD\n"
		"      --section=NAME   addresses are offsets in section NAME\n"
		"      --cache-max=BYTES  keep at most BYTES of answers for repeated addresses\n"
		"                       (default 64 MiB)\n"
		"  -j, --jobs N         parse, resolve and format large inputs on N threads\n"
		"                       (default: the CPUs this process may use, the other\n"
		"                       threads resolving only when the work measured pays\n"
		"                       for them); the same output as -j 1\n"
		"      --max-memory SIZE  memory budget (e.g. 512M, 4G; default: half of\n"
		"                       physical memory, at most 8G; 0 = none): a file that\n"
		"                       needs more is refused, naming it and the limit\n"
		"\n"
		"finding files and names:\n" SP_CLI_FIND_HELP);
}

/* Opens -e FILE: as given, or located like a mapping's file when a search
 * option is given.  Prints the error; returns false on failure. */
static bool open_exe(sp_symbolizer *s, const sp_symbolize_options *o, const char *exe,
		     sp_object **obj, char **path)
{
	char *found = NULL;
	sp_find_log log = {0};
	sp_error *err = NULL;

	if (o->sysroot || o->n_path_maps || o->n_binary_paths) {
		err = sp_find_binary(o, exe, NULL, &found, &log);
		for (size_t i = 0; err && i < log.n; i++)
			fprintf(stderr, "symprof symbolize: tried %s: %s\n", log.v[i].path,
				sp_try_status_str(log.v[i].status));
		sp_find_log_clear(&log);
	}
	if (!err)
		err = sp_symbolizer_object(s, found ? found : exe, NULL, obj);
	if (!err) {
		*path = found ? found : sp_xstrdup(exe);
		return true;
	}
	free(found);
	char *msg = sp_error_string(err);
	fprintf(stderr, "symprof symbolize: %s\n", msg);
	free(msg);
	sp_error_free(err);
	return false;
}

/* Options of the output forms: 0, or 2 after a usage error. */
static int text_option(sym_opts *o, int opt, const char *arg)
{
	switch (opt) {
	case 'a': o->text.print_addr = true; return 0;
	case 'p': o->text.pretty = true; return 0;
	case 's': o->text.basenames = true; return 0;
	case 'f': o->text.functions = true; return 0;
	case 'i': o->inlines = 1; return 0;
	case 261: /* --no-inlines */
		o->inlines = 0;
		return 0;
	case 'S': o->text.symbols = true; return 0;
	case 'x': o->text.symbols = o->text.symbol_sections = true; return 0;
	case 262: /* --no-demangle */
		o->demangle_given = true;
		o->cli.sym.demangle = SP_DEMANGLE_NONE;
		return 0;
	case 256: /* --json */
		o->text.style = SP_TEXT_SYMPROF_JSON;
		return 0;
	case 260: /* --output-style */
		o->style_given = true;
		if (!strcmp(arg, "GNU"))
			o->text.style = SP_TEXT_GNU;
		else if (!strcmp(arg, "LLVM"))
			o->text.style = SP_TEXT_LLVM;
		else if (!strcmp(arg, "JSON"))
			o->text.style = SP_TEXT_JSON;
		else
			return sp_cli_usage("symbolize", "--output-style=%s: expected GNU, LLVM or JSON",
					    arg);
		return 0;
	case 'C':
		o->demangle_given = true;
		if (!arg || !strcmp(arg, "full"))
			o->cli.sym.demangle = SP_DEMANGLE_FULL;
		else if (!strcmp(arg, "simple"))
			o->cli.sym.demangle = SP_DEMANGLE_SIMPLE;
		else if (!strcmp(arg, "templates"))
			o->cli.sym.demangle = SP_DEMANGLE_TEMPLATES;
		else if (!strcmp(arg, "none"))
			o->cli.sym.demangle = SP_DEMANGLE_NONE;
		else
			return sp_cli_usage("symbolize",
					    "--demangle=%s: expected full, simple, templates or none", arg);
		return 0;
	}
	return -1;
}

/* The other options of the command (258, 259, 263, 'j', 'e', 257): 0, or 2
 * after a usage error. */
static int batch_option(sym_opts *o, int opt, const char *arg)
{
	uint64_t v;
	switch (opt) {
	case 'e':
	case 257: /* --obj */
		if (o->exe && strcmp(o->exe, arg))
			return sp_cli_usage("symbolize", "%s %s: the object is already %s",
					    opt == 'e' ? "-e" : "--obj", arg, o->exe);
		o->exe = arg;
		return 0;
	case 258: /* --relative */
		o->relative = true;
		return 0;
	case 263: /* --section */
		o->section = arg;
		return 0;
	case 259: /* --cache-max */
		if (!sp_parse_u64(arg, arg + strlen(arg), 10, &v) || v > (uint64_t)UINT32_MAX)
			return sp_cli_usage("symbolize",
					    "--cache-max=%s: expected a number of bytes up to %" PRIu32,
					    arg, UINT32_MAX);
		o->cache_max = (size_t)v;
		o->no_cache = v == 0;
		return 0;
	case 'j':
		if (!sp_parse_u64(arg, arg + strlen(arg), 10, &v) || v < 1 || v > SP_BATCH_JOBS_MAX)
			return sp_cli_usage("symbolize", "-j expects a number from 1 to %d, got '%s'",
					    SP_BATCH_JOBS_MAX, arg);
		o->jobs = (int)v;
		return 0;
	}
	return -1;
}

/* Parses ARGV into O; returns -1 to go on, else the exit status. */
static int parse(sym_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"exe", required_argument, NULL, 'e'},
		{"obj", required_argument, NULL, 257},
		{"pretty-print", no_argument, NULL, 'p'},
		{"basenames", no_argument, NULL, 's'},
		{"output-style", required_argument, NULL, 260},
		{"addresses", no_argument, NULL, 'a'},
		{"functions", no_argument, NULL, 'f'},
		{"inlines", no_argument, NULL, 'i'},
		{"no-inlines", no_argument, NULL, 261},
		{"demangle", optional_argument, NULL, 'C'},
		{"no-demangle", no_argument, NULL, 262},
		{"symbols", no_argument, NULL, 'S'},
		{"symbols-sections", no_argument, NULL, 'x'},
		{"section", required_argument, NULL, 263},
		{"json", no_argument, NULL, 256},
		{"relative", no_argument, NULL, 258},
		{"cache-max", required_argument, NULL, 259},
		{"jobs", required_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{"max-memory", required_argument, NULL, 1013}, /* every command's budget */
		SP_CLI_FIND_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	int opt, rc;
	optind = 1;
	opterr = 0;
	bool json = false;
	while ((opt = getopt_long(argc, argv, ":e:afipsCSxj:h", longopts, NULL)) != -1) {
		json |= opt == 256;
		if (opt == 'h') {
			usage(stdout);
			return 0;
		}
		if ((rc = text_option(o, opt, optarg)) == -1 && (rc = batch_option(o, opt, optarg)) == -1)
			rc = opt < 1000 ? sp_cli_bad_option("symbolize", opt, argv)
			     : sp_cli_sym_option(&o->cli, opt, optarg) != 0 ? 2 : 0;
		if (rc)
			return rc;
	}
	if (json && o->style_given)
		return sp_cli_usage("symbolize",
				    "--json and --output-style are two output forms: give one");
	if (o->section && o->relative)
		return sp_cli_usage("symbolize", "--section and --relative both say what addresses "
				    "are: give one");
	if (o->text.pretty &&
	    (o->text.style == SP_TEXT_SYMPROF_JSON || o->text.style == SP_TEXT_JSON))
		return sp_cli_usage("symbolize",
				    "-p (--pretty-print) is a text form: not with JSON output");
	/* llvm-symbolizer demangles and prints inlined frames unless told not
	 * to; addr2line does neither unless told to */
	bool llvm = o->text.style == SP_TEXT_LLVM || o->text.style == SP_TEXT_JSON;
	if (llvm && !o->demangle_given)
		o->cli.sym.demangle = SP_DEMANGLE_FULL;
	o->text.inlines = o->inlines < 0 ? llvm || json : o->inlines == 1;
	o->text.functions |= o->text.style == SP_TEXT_LLVM;
	return -1;
}

/* A name in the input that names nothing of the object, said on stderr. */
static void name_message(void *ctx, const char *text)
{
	(void)ctx;
	fprintf(stderr, "symprof symbolize: %s\n", text);
}

/* What --relative and --section add to every address of OBJ, into *ADJUST:
 * returns 0, or 2 after a usage error or 1 after another (both printed). */
static int address_base(const sym_opts *o, sp_object *obj, uint64_t *adjust)
{
	*adjust = 0;
	if ((o->relative || o->section) && !obj)
		return sp_cli_usage("symbolize", "%s needs -e FILE",
				    o->section ? "--section" : "--relative");
	if (o->relative) {
		const sp_elf_info *info = sp_object_info(obj);
		*adjust = sp_relative_adjust(info->loads, info->n_loads);
	} else if (o->section) {
		/* addresses are offsets in the section: as --relative, from its start */
		sp_error *e = sp_object_section_address(obj, o->section, adjust);
		if (e) {
			char *msg = sp_error_string(e);
			fprintf(stderr, "symprof symbolize: %s\n", msg);
			free(msg);
			sp_error_free(e);
			return 1;
		}
	}
	return 0;
}

/* Answers the arguments ARGV[0..n), or standard input's lines when there
 * are none, through the batch of O, ADJUST added to every address;
 * returns the exit status. */
static int answer(const sym_opts *o, sp_symbolizer *s, sp_object *obj, const char *path,
		  uint64_t adjust, char **argv, int n)
{
	sp_text_options to = o->text;
	to.size = sizeof(to);
	to.module = o->exe ? o->exe : "";
	to.section_offsets = o->section != NULL;
	to.addr_digits = obj && sp_object_info(obj)->elf_class == ELFCLASS32 ? 8 : 16;
	/* llvm-symbolizer answers its arguments with one JSON array */
	to.json_array = n > 0 && to.style == SP_TEXT_JSON;
	sp_frames_text *t = sp_frames_text_new(&to);
	sp_batch_options bo = {
		.size = sizeof(bo),
		.session = s,
		.object = obj,
		.object_path = path,
		.cache_max = o->cache_max,
		.no_cache = o->no_cache,
		.jobs = o->jobs ? o->jobs : sp_cpus_available(),
		.paced = !o->jobs,
		.fd = STDOUT_FILENO,
		.addr_adjust = adjust,
		.symbols = to.symbols,
	};
	sp_frames_text_format(t, &bo.format);
	bo.format.message = name_message;
	fflush(stdout);
	sp_batch *b = sp_batch_new(&bo);
	int rc = 0, e = 0;
	if (n > 0) {
		for (int i = 0; i < n; i++)
			sp_batch_add_line(b, argv[i], strlen(argv[i]));
		sp_batch_flush(b);
		const char *end = sp_frames_text_end(t);
		if (*end)
			sp_batch_write(b, end, strlen(end));
	} else if ((e = sp_batch_read_fd(b, STDIN_FILENO))) {
		fprintf(stderr, "symprof symbolize: stdin: %s\n", strerror(e));
		rc = 1;
	}
	if (sp_batch_write_error(b)) {
		fprintf(stderr, "symprof symbolize: writing output: %s\n",
			strerror(sp_batch_write_error(b)));
		rc = 1;
	}
	sp_batch_free(b);
	sp_frames_text_free(t);
	return rc;
}

/* One input line of llvm-symbolizer's module form, `[CODE|DATA] MODULE ADDR`
 * or `[CODE|DATA] "MODULE" ADDR`: the module (*MOD, *MOD_LEN) and where the
 * address starts (*ADDR); false when LINE has one word only (an address of
 * the module named last). */
static bool module_line(const char *line, const char **mod, size_t *mod_len, const char **addr)
{
	const char *p = line + strspn(line, " \t");
	if ((!strncmp(p, "CODE", 4) || !strncmp(p, "DATA", 4)) && (p[4] == ' ' || p[4] == '\t'))
		p += 4 + strspn(p + 4, " \t");
	const char *end;
	if (*p == '"') {
		if (!(end = strchr(p + 1, '"')))
			return false;
		*mod = p + 1;
		*mod_len = (size_t)(end - p - 1);
		end++;
	} else {
		end = p + strcspn(p, " \t");
		*mod = p;
		*mod_len = (size_t)(end - p);
	}
	const char *a = end + strspn(end, " \t");
	if (!*a || a == end)
		return false;
	*addr = a;
	return true;
}

/* One module's batch: its object (NULL when it cannot be opened: its
 * addresses stay unresolved) and the text forms naming it. */
typedef struct {
	char *module, *path;
	sp_frames_text *t;
	sp_batch *b;
} module_batch;

static void module_batch_end(module_batch *m, int *rc)
{
	if (m->b && sp_batch_write_error(m->b)) {
		fprintf(stderr, "symprof symbolize: writing output: %s\n",
			strerror(sp_batch_write_error(m->b)));
		*rc = 1;
	}
	sp_batch_free(m->b);
	sp_frames_text_free(m->t);
	free(m->module);
	free(m->path);
	*m = (module_batch){0};
}

static void module_batch_start(module_batch *m, const sym_opts *o, sp_symbolizer *s,
			       char *module)
{
	sp_object *obj = NULL;
	m->module = module;
	if (!open_exe(s, &o->cli.sym, module, &obj, &m->path))
		obj = NULL;
	sp_text_options to = o->text;
	to.size = sizeof(to);
	to.module = module;
	to.addr_digits = obj && sp_object_info(obj)->elf_class == ELFCLASS32 ? 8 : 16;
	m->t = sp_frames_text_new(&to);
	sp_batch_options bo = {
		.size = sizeof(bo),
		.session = s,
		.object = obj,
		.object_path = m->path,
		.cache_max = o->cache_max,
		.no_cache = o->no_cache,
		.jobs = 1,
		.fd = STDOUT_FILENO,
		.symbols = to.symbols,
	};
	sp_frames_text_format(m->t, &bo.format);
	bo.format.message = name_message;
	m->b = sp_batch_new(&bo);
}

/* Without -e and name sources, standard input's lines may name their
 * module as llvm-symbolizer reads them; a line of one word is an address of
 * the module named last (a.out before any).  The session keeps every
 * module's object open; each line is answered before the next is read, so
 * a program on the other end of a pipe gets its answer at once. */
static int answer_module_lines(const sym_opts *o, sp_symbolizer *s)
{
	module_batch m = {0};
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = 0;
	fflush(stdout);
	while ((n = getline(&line, &cap, stdin)) >= 0) {
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		const char *mod, *addr = line;
		size_t mod_len;
		bool named = module_line(line, &mod, &mod_len, &addr);
		if (!m.b || (named && (strlen(m.module) != mod_len ||
				       strncmp(m.module, mod, mod_len)))) {
			module_batch_end(&m, &rc);
			module_batch_start(&m, o, s,
					   named ? sp_xstrndup(mod, mod_len) : sp_xstrdup("a.out"));
		}
		sp_batch_add_line(m.b, addr, strlen(addr));
		sp_batch_flush(m.b);
	}
	if (ferror(stdin)) {
		fprintf(stderr, "symprof symbolize: stdin: %s\n", strerror(errno));
		rc = 1;
	}
	module_batch_end(&m, &rc);
	free(line);
	return rc;
}

/* The session and -e FILE of O, then the answers; returns the exit status. */
static int run(sym_opts *o, char **argv, int n)
{
	sp_symbolizer *s = sp_symbolizer_new(&o->cli.sym);
	const sp_jit_index *jit;
	const sp_perf_map *perf;
	const sp_kallsyms *ksyms;
	sp_object *obj = NULL;
	char *path = NULL;
	int rc = 1;
	sp_error *err = sp_symbolizer_sources(s, &jit, &perf, &ksyms);
	sp_cli_print_notes(s, o->cli.quiet);
	if (err) {
		char *msg = sp_error_string(err);
		fprintf(stderr, "symprof symbolize: %s\n", msg);
		free(msg);
		sp_error_free(err);
		goto out;
	}
	bool sources = jit || perf || ksyms || sp_symbolizer_jitdump(s);
	if (!o->exe && !sources && n == 0 && !o->relative && !o->section) {
		rc = answer_module_lines(o, s);
		sp_cli_print_notes(s, o->cli.quiet);
		goto out;
	}
	if (!o->exe && !sources)
		o->exe = "a.out";
	if (o->exe && !open_exe(s, &o->cli.sym, o->exe, &obj, &path))
		goto out;
	uint64_t adjust;
	if ((rc = address_base(o, obj, &adjust)) == 0)
		rc = answer(o, s, obj, path, adjust, argv, n);
	sp_cli_print_notes(s, o->cli.quiet); /* what resolving found to say */
out:
	free(path);
	sp_cli_index_warning("symbolize", s, false);
	sp_symbolizer_free(s);
	return rc;
}

int cmd_symbolize(int argc, char **argv)
{
	sym_opts o = {.inlines = -1};
	sp_cli_sym_init(&o.cli);
	o.cli.cmd = "symbolize";
	o.cli.sym.demangle = SP_DEMANGLE_NONE;
	int rc = parse(&o, argc, argv);
	if (rc < 0) {
		sp_cli_sym_finish(&o.cli);
		rc = run(&o, argv + optind, argc - optind);
	}
	sp_cli_sym_clear(&o.cli);
	return rc;
}
