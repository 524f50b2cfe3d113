/* test_malformed.c — every tests/malformed/<format>/<case>.in must be
 * refused by sp_read_profile_file with an error that names the file and
 * contains the text of <case>.expect (the line or offset and what was
 * expected), and no profile.  The corpus doubles as fuzzing seeds.
 * tests/malformed/perfjit/ holds jitdump files, a name source rather than
 * a profile: sp_jitdump_load must refuse them the same way.
 * tests/malformed/serve_json/ holds request bodies of symprof serve,
 * checked over HTTP by tests/cli/serve.py, and is not read here. */
#include "formats/formats.h"
#include "symbolize/symbolize.h"
#include "tests/helpers/tap.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static int only_dirs(const struct dirent *d)
{
	return d->d_name[0] != '.' && strcmp(d->d_name, "serve_json") != 0;
}

static int only_inputs(const struct dirent *d)
{
	size_t n = strlen(d->d_name);
	return n > 3 && strcmp(d->d_name + n - 3, ".in") == 0;
}

/* Reads PATH as a profile, or as a jitdump file when SOURCE. */
static sp_error *read_case(const char *path, bool source, sp_profile **p)
{
	if (!source)
		return sp_read_profile_file(path, p, NULL);
	sp_jitdump *j = NULL;
	sp_error *e = sp_jitdump_load(&path, 1, &j);
	sp_jitdump_free(j); /* (loaded: no error, the case fails) */
	return e;
}

static void run_case(const char *dir, const char *file, bool source)
{
	char *path = sp_xasprintf("%s/%s", dir, file);
	char *exp_path = sp_xasprintf("%.*s.expect", (int)(strlen(path) - 3), path);
	uint8_t *exp = NULL;
	size_t exp_len = 0;
	sp_error *e = sp_read_file(exp_path, &exp, &exp_len);
	if (e) {
		TAP_OK(false, "%s: has an .expect file", path);
		sp_error_free(e);
		goto out;
	}
	while (exp_len && (exp[exp_len - 1] == '\n' || exp[exp_len - 1] == '\r'))
		exp[--exp_len] = '\0';
	sp_profile *p = NULL;
	e = read_case(path, source, &p);
	char *msg = e ? sp_error_string(e) : NULL;
	bool ok = e && !p && strstr(msg, path) && strstr(msg, (const char *)exp);
	if (!TAP_OK(ok, "%s refused with \"%s\"", file, (const char *)exp))
		printf("#   got: %s\n", msg ? msg : "(no error)");
	free(msg);
	sp_error_free(e);
	sp_profile_free(p);
out:
	free(exp);
	free(exp_path);
	free(path);
}

int main(void)
{
	const char *src = getenv("SP_SRCDIR");
	char *root = sp_xasprintf("%s/tests/malformed", src && *src ? src : ".");
	struct dirent **fmts;
	int nf = scandir(root, &fmts, only_dirs, alphasort);
	TAP_OK(nf > 0, "corpus found under %s", root);
	for (int i = 0; i < nf; i++) {
		char *dir = sp_xasprintf("%s/%s", root, fmts[i]->d_name);
		struct dirent **cases;
		int nc = scandir(dir, &cases, only_inputs, alphasort);
		for (int j = 0; j < nc; j++) {
			run_case(dir, cases[j]->d_name, !strcmp(fmts[i]->d_name, "perfjit"));
			free(cases[j]);
		}
		if (nc >= 0)
			free(cases);
		free(dir);
		free(fmts[i]);
	}
	if (nf >= 0)
		free(fmts);
	free(root);
	return tap_done();
}
