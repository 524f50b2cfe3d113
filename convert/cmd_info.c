/* cmd_info.c — `symprof info`: what a profile holds and how each of its
 * mappings symbolizes: the file used (or every place tried and why it was
 * rejected), the build id, and how many addresses resolved.  The text is
 * pipeline/info.c's; this file runs the pipeline over each input. */
#include "convert/convert.h"

#include <string.h>

#include <stdlib.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: symprof info [OPTIONS] PROFILE...\n\n"
		   "  -j, --jobs N          unwind the processes of a perf.data file with DWARF\n"
		   "                        stack copies on N threads (default 1; the same\n"
		   "                        text whatever N)\n" SP_CLI_SYM_HELP);
}

static sp_error *print_output(void *ctx, const sp_pipeline_output *out)
{
	(void)ctx;
	sp_buf b = {0};
	sp_info_text(out, &b);
	if (b.len)
		fwrite(b.data, 1, b.len, stdout);
	sp_buf_free(&b);
	return NULL;
}

/* `symprof info --events FILE` (for shell completion, not in --help): the
 * names --sample-index takes, one a line: a perf.data's events from its
 * header and first round (each also without its modifiers), else the
 * profile's sample types. */
static int print_events(const char *path)
{
	sp_perf_reader *r;
	sp_capture *c = NULL;
	sp_error *err = sp_perf_open(path, &r);
	if (!err && r) {
		err = sp_perf_next_round(r, &c);
		for (size_t i = 0; !err && c && i < c->n_events; i++) {
			const char *n = c->events[i].name;
			size_t len = strcspn(n, ":");
			printf("%s\n", n);
			if (n[len])
				printf("%.*s\n", (int)len, n);
		}
		sp_perf_close(r);
		return err ? sp_cli_fail(err) : 0;
	}
	if (err)
		return sp_cli_fail(err);
	sp_profile *p;
	sp_input_format fmt;
	if ((err = sp_read_profile_file(path, &p, &fmt)))
		return sp_cli_fail(err);
	for (size_t i = 0; i < p->n_sample_types; i++)
		printf("%s\n", sp_profile_str(p, p->sample_types[i].type));
	sp_profile_free(p);
	return 0;
}

/* An input that could not be described: said, and the next one follows. */
static void input_done(void *ctx, int input, const sp_error *err)
{
	int *failed = ctx;
	if (!err)
		return;
	sp_cli_fail(sp_error_dup(err));
	(*failed)++;
}

int cmd_info(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},
		{"events", no_argument, NULL, 3000},
		{"jobs", required_argument, NULL, 'j'},
		SP_CLI_SYM_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	bool events = false;
	sp_cli_sym o;
	sp_cli_sym_init(&o);
	o.cmd = "info";
	int c, rc = 0;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":qhj:", longopts, NULL)) != -1) {
		if (c == 3000) {
			events = true;
			continue;
		}
		if (c == 'j') {
			if (!sp_cli_parse_int("info", "-j", optarg, 1, 1024, &o.jobs)) {
				rc = 2;
				goto out;
			}
			continue;
		}
		int r = sp_cli_sym_option(&o, c, optarg);
		if (r == 0)
			continue;
		if (r == 2 || c != 'h') {
			rc = r == 2 ? 2 : sp_cli_bad_option("info", c, argv);
			goto out;
		}
		usage(stdout);
		goto out;
	}
	if (optind >= argc) {
		rc = sp_cli_usage("info", "no input profile");
		goto out;
	}
	sp_cli_sym_finish(&o);
	if (events) {
		rc = print_events(argv[optind]);
		goto out;
	}
	int failed = 0;
	sp_pipeline pl = {
		.each = true,
		.keep_going = true,
		.loaded = sp_cli_print_warnings,
		.output = print_output,
		.input_done = input_done,
		.ctx = &failed,
	};
	sp_cli_pipeline(&o, &pl);
	sp_symbolizer *ixs = sp_cli_index_session(&o, &pl);
	sp_load_input *in = sp_cli_inputs(argv + optind, argc - optind);
	sp_error *err = sp_pipeline_run(&pl, in, argc - optind, NULL);
	free(in);
	sp_cli_index_done(&o, ixs);
	rc = err ? sp_cli_fail(err) : failed ? 1 : 0;
out:
	sp_cli_sym_clear(&o);
	return rc;
}
