/* cmd_serve.c — `symprof serve`: flags into sp_serve_config; the service
 * itself is serve/'s.
 *
 *   $ symprof serve --listen 127.0.0.1:8484 --binary-path /srv/binaries
 *   $ curl -s localhost:8484/v1/symbolize -d '{"modules":[{"path":"/usr/bin/app",
 *          "addresses":["0x1139"]}]}'
 */
#include "convert/convert.h"

#include "serve/serve.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f,
		"usage: symprof serve --listen HOST:PORT|unix:PATH [OPTIONS]\n"
		"\n"
		"Answers symbolization and conversion requests over HTTP with the engine of\n"
		"symprof symbolize and symprof convert, keeping opened objects warm:\n"
		"GET /healthz, GET /metrics, POST /v1/symbolize, POST /symbolicate/v5\n"
		"(Mozilla's Tecken API), POST /v1/convert?format=F.  SIGTERM ends it after\n"
		"the requests in flight.\n"
		"\n"
		"  --listen ADDR          HOST:PORT (PORT 0: any free one) or unix:PATH\n"
		"  --max-body SIZE        largest request body (default 64M, at most 1/8 of\n"
		"                         --max-memory)\n"
		"  --max-addresses N      most addresses (frames) in one request (default 100000)\n"
		"  --max-concurrent N     requests answered at once; more wait (default 4)\n"
		"  --request-timeout SEC  longest a body may take to arrive, a connection stay\n"
		"                         idle, or a request wait for its turn (default 30)\n"
		"  --shutdown-timeout SEC what requests in flight get after SIGTERM (default 10)\n"
		"  --max-sessions N       objects kept warm (default 64); the least recently\n"
		"                         used go first, also when memory in use passes 3/4 of\n"
		"                         --max-memory\n"
		"  --access-log FILE      a JSON line per request (- : stderr)\n"
		"\n"
		"symbolization (every request's):\n" SP_CLI_FIND_HELP
		"  --demangle STYLE      full (default here), simple, templates or none\n"
		"  --no-inline           keep only the outermost frame of inlined code\n"
		"  --force-mismatch      use a file whose segments do not match its mapping\n"
		"  --max-memory SIZE     the process's memory budget (e.g. 512M, 4G; default:\n"
		"                        half of physical memory, at most 8G; 0 = none)\n"
		"  -q, --quiet           no \"listening\" line\n");
}

static bool parse_count(const char *name, const char *arg, uint64_t max, uint64_t *out)
{
	if (!sp_parse_u64(arg, arg + strlen(arg), 10, out) || *out < 1 || *out > max) {
		sp_cli_usage("serve", "--%s expects a number from 1 to %" PRIu64 ", got '%s'", name,
			     max, arg);
		return false;
	}
	return true;
}

int cmd_serve(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"listen", required_argument, NULL, 256},
		{"max-body", required_argument, NULL, 257},
		{"max-addresses", required_argument, NULL, 258},
		{"max-concurrent", required_argument, NULL, 259},
		{"request-timeout", required_argument, NULL, 260},
		{"shutdown-timeout", required_argument, NULL, 261},
		{"max-sessions", required_argument, NULL, 262},
		{"access-log", required_argument, NULL, 263},
		{"help", no_argument, NULL, 'h'},
		SP_CLI_SYM_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	sp_serve_config c = {0};
	symprof_path_map *maps = NULL;
	sp_cli_sym cli;
	sp_cli_sym_init(&cli);
	cli.cmd = "serve";
	cli.sym.demangle = SP_DEMANGLE_FULL;
	c.max_body = (size_t)64 << 20;
	c.max_addresses = 100000;
	c.max_concurrent = 4;
	c.request_timeout = 30;
	c.shutdown_timeout = 10;
	c.max_sessions = 64;
	int opt, rc = -1;
	bool max_body_given = false;
	uint64_t v;
	optind = 1;
	opterr = 0;
	while (rc < 0 && (opt = getopt_long(argc, argv, ":hq", longopts, NULL)) != -1) {
		switch (opt) {
		case 'h': usage(stdout); rc = 0; break;
		case 256: c.listen = optarg; break;
		case 257:
			max_body_given = true;
			if (!sp_mem_parse_size(optarg, &c.max_body) || !c.max_body)
				rc = sp_cli_usage("serve", "--max-body expects a size such as 64M, got '%s'",
						  optarg);
			break;
		case 258:
			if (!parse_count("max-addresses", optarg, 1u << 30, &v))
				rc = 2;
			c.max_addresses = (size_t)v;
			break;
		case 259:
			if (!parse_count("max-concurrent", optarg, 1024, &v))
				rc = 2;
			c.max_concurrent = (int)v;
			break;
		case 260:
			if (!parse_count("request-timeout", optarg, 86400, &v))
				rc = 2;
			c.request_timeout = (unsigned)v;
			break;
		case 261:
			if (!parse_count("shutdown-timeout", optarg, 86400, &v))
				rc = 2;
			c.shutdown_timeout = (unsigned)v;
			break;
		case 262:
			if (!parse_count("max-sessions", optarg, 1u << 20, &v))
				rc = 2;
			c.max_sessions = (size_t)v;
			break;
		case 263: c.access_log = optarg; break;
		default:
			if (opt < 1000 && opt != 'q')
				rc = sp_cli_bad_option("serve", opt, argv);
			else if (sp_cli_sym_option(&cli, opt, optarg))
				rc = 2;
			else if (opt == 1010 || opt == 1011)
				rc = sp_cli_usage("serve", "--no-symbolize and --maps are not options of serve");
		}
	}
	if (rc < 0 && !max_body_given && sp_mem_limit() && c.max_body > sp_mem_limit() / 8)
		c.max_body = sp_mem_limit() / 8; /* a request's body leaves the budget room */
	if (rc < 0 && optind < argc)
		rc = sp_cli_usage("serve", "unexpected argument '%s'", argv[optind]);
	if (rc < 0 && !c.listen)
		rc = sp_cli_usage("serve", "--listen HOST:PORT or --listen unix:PATH is needed");
	if (rc < 0) {
		sp_cli_sym_finish(&cli);
		const sp_symbolize_options *s = &cli.sym;
		maps = sp_xcalloc(s->n_path_maps ? s->n_path_maps : 1, sizeof(*maps));
		for (size_t i = 0; i < s->n_path_maps; i++)
			maps[i] = (symprof_path_map){s->path_maps[i].from, s->path_maps[i].to};
		c.quiet = cli.quiet;
		c.sym = (symprof_options){
			.size = sizeof(c.sym),
			.binary_paths = s->binary_paths,
			.n_binary_paths = s->n_binary_paths,
			.debug_dirs = s->debug_dirs,
			.n_debug_dirs = s->n_debug_dirs,
			.sysroot = s->sysroot,
			.path_maps = maps,
			.n_path_maps = s->n_path_maps,
			.jit_dirs = s->jit_dirs,
			.n_jit_dirs = s->n_jit_dirs,
			.perf_maps = s->perf_maps,
			.n_perf_maps = s->n_perf_maps,
			.jitdumps = s->jitdumps,
			.n_jitdumps = s->n_jitdumps,
			.kallsyms = s->kallsyms,
			.no_debuginfod = s->no_debuginfod,
			.demangle = s->demangle == SP_DEMANGLE_FULL	   ? SYMPROF_DEMANGLE_FULL
				    : s->demangle == SP_DEMANGLE_TEMPLATES ? SYMPROF_DEMANGLE_TEMPLATES
				    : s->demangle == SP_DEMANGLE_NONE	   ? SYMPROF_DEMANGLE_NONE
									   : SYMPROF_DEMANGLE_SIMPLE,
			.no_inline = s->no_inline,
			.force_mismatch = s->force_mismatch,
		};
		rc = sp_serve_run(&c);
	}
	free(maps);
	sp_cli_sym_clear(&cli);
	return rc;
}
