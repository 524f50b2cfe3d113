/* options.c — option handling shared by convert, info and symbolize, and
 * the stderr lines of what a run reports (warnings, per-mapping summary). */
#include "convert/convert.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void sp_cli_sym_init(sp_cli_sym *c)
{
	memset(c, 0, sizeof(*c));
}

static void push_str(char ***v, size_t *n, size_t *cap, const char *s)
{
	char *d = sp_xstrdup(s);
	SP_PUSH(*v, *n, *cap, d);
}

int sp_cli_sym_option(sp_cli_sym *c, int opt, const char *arg)
{
	switch (opt) {
	case 1000:
		push_str(&c->binary_paths, &c->n_binary_paths, &c->cap_binary_paths, arg);
		return 0;
	case 1001:
		push_str(&c->debug_dirs, &c->n_debug_dirs, &c->cap_debug_dirs, arg);
		return 0;
	case 1002:
		c->sym.sysroot = arg;
		return 0;
	case 1003: {
		const char *eq = strchr(arg, '=');
		if (!eq || eq == arg)
			return sp_cli_usage(c->cmd, "--path-map expects OLD=NEW, got '%s'", arg);
		sp_path_map m = {sp_xstrndup(arg, (size_t)(eq - arg)), sp_xstrdup(eq + 1)};
		SP_PUSH(c->path_maps, c->n_path_maps, c->cap_path_maps, m);
		return 0;
	}
	case 1004:
		c->sym.no_debuginfod = true;
		return 0;
	case 1005:
		push_str(&c->jit_dirs, &c->n_jit_dirs, &c->cap_jit_dirs, arg);
		return 0;
	case 1006:
		push_str(&c->perf_maps, &c->n_perf_maps, &c->cap_perf_maps, arg);
		return 0;
	case 1014:
		push_str(&c->jitdumps, &c->n_jitdumps, &c->cap_jitdumps, arg);
		return 0;
	case 1007:
		c->sym.kallsyms = arg;
		return 0;
	case 1016:
		c->sym.index_dir = arg;
		return 0;
	case 1017:
		c->sym.no_default_debug_dirs = true;
		return 0;
	case 1008:
		if (!strcmp(arg, "simple"))
			c->sym.demangle = SP_DEMANGLE_SIMPLE;
		else if (!strcmp(arg, "full"))
			c->sym.demangle = SP_DEMANGLE_FULL;
		else if (!strcmp(arg, "templates"))
			c->sym.demangle = SP_DEMANGLE_TEMPLATES;
		else if (!strcmp(arg, "none"))
			c->sym.demangle = SP_DEMANGLE_NONE;
		else
			return sp_cli_usage(c->cmd,
					    "--demangle expects simple, templates, full or none, got '%s'",
					    arg);
		return 0;
	case 1009:
		c->sym.no_inline = true;
		return 0;
	case 1010:
		c->no_symbolize = true;
		return 0;
	case 1011:
		c->maps_file = arg;
		return 0;
	case 1015:
		c->sym.resymbolize = true;
		return 0;
	case 1012:
		c->sym.force_mismatch = true;
		return 0;
	case 1013: {
		size_t bytes;
		if (!sp_mem_parse_size(arg, &bytes)) {
			fprintf(stderr,
				"symprof: --max-memory expects a size such as 512M or 4G, got "
				"'%s'\n",
				arg);
			return 2;
		}
		sp_mem_set_limit(bytes);
		return 0;
	}
	case 'q':
		c->quiet = true;
		c->sym.debuginfod_quiet = true;
		return 0;
	}
	return -1;
}

void sp_cli_sym_finish(sp_cli_sym *c)
{
	/* PPROF_BINARY_PATH adds search dirs after the explicit ones. */
	const char *env = getenv("PPROF_BINARY_PATH");
	if (env && *env) {
		char *copy = sp_xstrdup(env), *save = NULL;
		for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save))
			push_str(&c->binary_paths, &c->n_binary_paths, &c->cap_binary_paths, d);
		free(copy);
	}
	c->sym.binary_paths = (const char *const *)c->binary_paths;
	c->sym.n_binary_paths = c->n_binary_paths;
	c->sym.debug_dirs = (const char *const *)c->debug_dirs;
	c->sym.n_debug_dirs = c->n_debug_dirs;
	c->sym.path_maps = c->path_maps;
	c->sym.n_path_maps = c->n_path_maps;
	c->sym.jit_dirs = (const char *const *)c->jit_dirs;
	c->sym.n_jit_dirs = c->n_jit_dirs;
	c->sym.perf_maps = (const char *const *)c->perf_maps;
	c->sym.n_perf_maps = c->n_perf_maps;
	c->sym.jitdumps = (const char *const *)c->jitdumps;
	c->sym.n_jitdumps = c->n_jitdumps;
}

static void free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void sp_cli_sym_clear(sp_cli_sym *c)
{
	free_strv(c->binary_paths, c->n_binary_paths);
	free_strv(c->debug_dirs, c->n_debug_dirs);
	free_strv(c->jit_dirs, c->n_jit_dirs);
	free_strv(c->perf_maps, c->n_perf_maps);
	free_strv(c->jitdumps, c->n_jitdumps);
	for (size_t i = 0; i < c->n_path_maps; i++) {
		free((char *)c->path_maps[i].from);
		free((char *)c->path_maps[i].to);
	}
	free(c->path_maps);
	memset(c, 0, sizeof(*c));
}

void sp_cli_pipeline(const sp_cli_sym *c, sp_pipeline *pl)
{
	pl->size = sizeof(*pl);
	pl->load = (sp_load_options){
		.size = sizeof(pl->load),
		.maps_file = c->maps_file,
		.jobs = c->jobs,
		.sample_times = c->sample_times,
	};
	pl->sym = c->sym;
	pl->no_symbolize = c->no_symbolize;
}

sp_load_input *sp_cli_inputs(char **argv, int n)
{
	sp_load_input *in = sp_xcalloc(n > 0 ? (size_t)n : 1, sizeof(*in));
	for (int i = 0; i < n; i++)
		in[i].path = argv[i];
	return in;
}

void sp_cli_print_warnings(void *ctx, int input, const char *name, const sp_notes *notes)
{
	(void)ctx;
	(void)input;
	for (size_t i = 0; i < notes->n; i++)
		if (notes->v[i].level == SP_NOTE_WARNING)
			fprintf(stderr, "symprof: warning: %s: %s\n", name, notes->v[i].text);
}

void sp_cli_summary(void *ctx, int input, const char *name, const sp_symbolize_report *r)
{
	(void)ctx;
	(void)input;
	sp_cli_print_summary(name, r, stderr);
}

/* Whether PATH is where a distribution installs its files. */
static bool system_path(const char *path)
{
	static const char *const dirs[] = {"/usr/lib/", "/lib/", "/usr/lib64/", "/lib64/",
					   "/usr/bin/", "/bin/", "/usr/sbin/", "/sbin/",
					   "/usr/libexec/"};
	for (size_t i = 0; i < SP_ARRAY_LEN(dirs); i++)
		if (!strncmp(path, dirs[i], strlen(dirs[i])))
			return true;
	return false;
}

/* Whether reason K is one the user can act on (the others are facts:
 * addresses outside every mapping, [vdso], anonymous memory, mappings
 * symbolized already, an address no symbol covers in a file whose debug
 * info was found). */
static bool actionable(int k, const sp_mapping_report *m)
{
	switch ((sp_unresolved_reason)k) {
	case SP_UNRES_FILE_NOT_FOUND:
	case SP_UNRES_BUILD_ID_MISMATCH:
	case SP_UNRES_FILE_MISMATCH:
	case SP_UNRES_NOT_ELF:
	case SP_UNRES_ERROR:
		return true;
	case SP_UNRES_NO_SYMBOLS:
		return !m->debug_path;
	default:
		return false;
	}
}

/* What would resolve the mappings of one file (M their first, REASON
 * their most frequent actionable reason); NULL when nothing the user can
 * do is known. */
static char *summary_fix(const sp_mapping_report *m, int top)
{
	const char *path = m->recorded_path ? m->recorded_path : "";
	const char *env = getenv("DEBUGINFOD_URLS");
	const char *ask = m->build_id && (!env || !*env)
				  ? ", or set DEBUGINFOD_URLS to fetch it by build id"
				  : "";
	if (!strncmp(path, "[kernel", 7) &&
	    (top == SP_UNRES_FILE_NOT_FOUND || top == SP_UNRES_BUILD_ID_MISMATCH))
		return sp_xasprintf("--kallsyms FILE, a copy of the recording machine's "
				    "/proc/kallsyms (made as root), or its vmlinux under "
				    "--debug-dir%s", ask);
	switch ((sp_unresolved_reason)top) {
	case SP_UNRES_FILE_NOT_FOUND:
		return sp_xasprintf("--binary-path DIR where the file is now (or --sysroot)%s",
				    ask);
	case SP_UNRES_BUILD_ID_MISMATCH:
		return sp_xasprintf("--binary-path DIR holding the recorded build (build id %s), "
				    "or --debug-dir with the recording machine's `perf archive` "
				    "unpacked%s", m->build_id ? m->build_id : "?", ask);
	case SP_UNRES_FILE_MISMATCH:
		return sp_xstrdup("--binary-path DIR holding the recorded file, or "
				  "--force-mismatch to use this one anyway");
	case SP_UNRES_NO_SYMBOLS:
		if (system_path(path))
			return sp_xasprintf("install its debug symbols: on Debian the -dbgsym (or "
					    "-dbg) package of the one `dpkg -S %s` names%s",
					    path, ask);
		return sp_xasprintf("--debug-dir DIR holding its separate debug file%s", ask);
	default: return NULL;
	}
}

void sp_cli_print_notes(sp_symbolizer *s, bool quiet)
{
	char *note;
	while ((note = sp_symbolizer_next_note(s))) {
		if (!quiet)
			fprintf(stderr, "symprof: note: %s\n", note);
		free(note);
	}
}

void sp_cli_index_warning(const char *cmd, const sp_symbolizer *s, bool quiet)
{
	sp_error *e = sp_symbolizer_index_error(s);
	if (e && !quiet) {
		char *msg = sp_error_string(e);
		fprintf(stderr, "symprof %s: warning: %s\n", cmd, msg);
		free(msg);
	}
	sp_error_free(e);
}

sp_symbolizer *sp_cli_index_session(const sp_cli_sym *c, sp_pipeline *pl)
{
	if (!c->sym.index_dir || !*c->sym.index_dir || pl->session)
		return NULL;
	return pl->session = sp_symbolizer_new(&pl->sym);
}

void sp_cli_index_done(const sp_cli_sym *c, sp_symbolizer *s)
{
	if (!s)
		return;
	sp_cli_index_warning(c->cmd ? c->cmd : "convert", s, c->quiet);
	sp_symbolizer_free(s);
}


/* One line per file (its mappings in every process summed) whose
 * unresolved addresses the user can do something about; the rest, per
 * mapping, is in `symprof info`. */
void sp_cli_print_summary(const char *name, const sp_symbolize_report *r, FILE *f)
{
	bool *done = sp_xcalloc(r->n_mappings + 1, sizeof(bool));
	for (size_t i = 0; i < r->n_mappings; i++) {
		const sp_mapping_report *m = &r->mappings[i];
		if (done[i])
			continue;
		const char *path = m->recorded_path && *m->recorded_path ? m->recorded_path : NULL;
		size_t n_addr = 0, n_unres = 0, n_maps = 0, reason[SP_UNRES_ERROR + 1] = {0};
		const char *detail = NULL;
		for (size_t j = i; j < r->n_mappings; j++) {
			const sp_mapping_report *o = &r->mappings[j];
			const char *op = o->recorded_path && *o->recorded_path ? o->recorded_path
									     : NULL;
			if (done[j] || (j > i && (!path || !op || strcmp(path, op))))
				continue;
			done[j] = true;
			n_maps++;
			n_addr += o->n_addresses;
			n_unres += o->n_addresses - o->n_resolved;
			for (int k = 1; k <= SP_UNRES_ERROR; k++)
				if (actionable(k, o))
					reason[k] += o->n_reason[k];
			if (!detail && o->detail)
				detail = o->detail;
			if (!path)
				break; /* mappings without a file are not one file */
		}
		int top = 0;
		for (int k = 1; k <= SP_UNRES_ERROR; k++)
			if (reason[k] > reason[top])
				top = k;
		if (!top)
			continue; /* resolved, or nothing to be done */
		fprintf(f, "symprof: %s: %s: %zu of %zu addresses unresolved", name,
			path ? path : "(no file)", n_unres, n_addr);
		if (n_maps > 1)
			fprintf(f, " in %zu mappings", n_maps);
		fprintf(f, " (");
		bool first = true;
		for (int k = 1; k <= SP_UNRES_ERROR; k++) {
			if (!reason[k])
				continue;
			fprintf(f, "%s%s", first ? "" : ", ",
				sp_unresolved_reason_str((sp_unresolved_reason)k));
			if (reason[k] != n_unres)
				fprintf(f, ": %zu", reason[k]);
			first = false;
		}
		if (detail)
			fprintf(f, "; %s", detail);
		char *fix = summary_fix(m, top);
		fprintf(f, ")%s%s\n", fix ? "; fix: " : "", fix ? fix : "");
		free(fix);
	}
	free(done);
}

bool sp_cli_parse_double(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end)
		return false;
	*out = v;
	return true;
}

bool sp_cli_parse_int(const char *cmd, const char *name, const char *s, int min, int max,
		      int *out)
{
	uint64_t n;
	if (!sp_parse_u64(s, s + strlen(s), 10, &n) || n < (uint64_t)min || n > (uint64_t)max) {
		sp_cli_usage(cmd, "%s expects a number from %d to %d, got '%s'", name, min, max,
			     s);
		return false;
	}
	*out = (int)n;
	return true;
}

int sp_cli_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	const char *sep = cmd ? " " : "";
	cmd = cmd ? cmd : ""; /* a caller that did not set sp_cli_sym.cmd */
	va_start(ap, fmt);
	fprintf(stderr, "symprof%s%s: ", sep, cmd);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'symprof%s%s --help' for more information.\n", sep, cmd);
	return 2;
}

int sp_cli_bad_option(const char *cmd, int c, char **argv)
{
	/* A long option is named as typed (up to '='); a short one by optopt,
	 * since it may sit inside a group such as -qx. */
	const char *arg = argv[optind - 1];
	char name[64];
	if (!strncmp(arg, "--", 2))
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg, "="), arg);
	else
		snprintf(name, sizeof(name), "-%c", optopt);
	if (c == ':')
		return sp_cli_usage(cmd, "option '%s' needs an argument", name);
	if (optopt && strchr(arg, '=') && !strncmp(arg, "--", 2))
		return sp_cli_usage(cmd, "option '%s' takes no argument", name);
	return sp_cli_usage(cmd, "unknown option '%s'", name);
}

int sp_cli_fail(sp_error *err)
{
	char *s = sp_error_string(err);
	fprintf(stderr, "symprof: %s\n", s);
	free(s);
	sp_error_free(err);
	return 1;
}
