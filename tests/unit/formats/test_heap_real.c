/* test_heap_real.c — real tcmalloc dumps.  Builds testdata/src/symbolize/
 * heap_fixture.cc with -O2 -g against Debian's libtcmalloc, runs it with
 * HEAPPROFILE (an "@ heapprofile" dump at exit) and asks it for
 * MallocExtension::GetHeapSample ("@ heap_v2/524288"), then reads both.
 * Expected values come from the fixture: 100 blocks of 100000 bytes from
 * big_alloc, 7 of 3000 from small_alloc, and in the sampled profile every
 * 1000-byte sample unsampled by the spec's formula to 524 / 524788.
 * Skipped when the fixture cannot be built. */
#include "formats/formats.h"
#include "tests/helpers/tap.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int run(char *const argv[], char *const envp[], bool quiet)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (quiet && !freopen("/dev/null", "w", stdout))
			_exit(127);
		if (quiet && !freopen("/dev/null", "w", stderr))
			_exit(127);
		if (envp)
			execve(argv[0], argv, envp);
		else
			execvp(argv[0], argv);
		_exit(127);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const sp_sample *find(const sp_profile *p, size_t objs, size_t space, int64_t o,
			     int64_t s)
{
	for (size_t i = 0; i < p->n_samples; i++)
		if (p->samples[i].values[objs] == o && p->samples[i].values[space] == s)
			return &p->samples[i];
	return NULL;
}

static int64_t bytes_label(const sp_profile *p, const sp_sample *s)
{
	for (size_t i = 0; i < s->n_labels; i++)
		if (!strcmp(sp_profile_str(p, s->labels[i].key), "bytes"))
			return s->labels[i].num;
	return -1;
}

static uint64_t frame_mapping(const sp_profile *p, const sp_sample *s, size_t i)
{
	if (i >= s->n_locations)
		return 0;
	const sp_location *l = sp_profile_location(p, s->location_ids[i]);
	return l ? l->mapping_id : 0;
}

static void check_heapprofile(const char *path, const char *exe)
{
	sp_profile *p = NULL;
	sp_input_format f;
	sp_error *e = sp_read_profile_file(path, &p, &f);
	if (!TAP_OK(!e && p && f == SP_FMT_HEAP, "HEAPPROFILE dump read as heap")) {
		char *m = e ? sp_error_string(e) : NULL;
		printf("#   %s\n", m ? m : "");
		free(m);
		sp_error_free(e);
		return;
	}
	TAP_EQ_U64(p->period, 1, "heapprofile: period 1");
	size_t objs = 0, space = 0;
	TAP_OK(!sp_profile_sample_index(p, "inuse_objects", &objs) &&
		       !sp_profile_sample_index(p, "inuse_space", &space),
	       "in-use columns present");
	const sp_sample *big = find(p, objs, space, 100, 10000000);
	const sp_sample *small = find(p, objs, space, 7, 21000);
	TAP_OK(big && bytes_label(p, big) == 100000, "big_alloc: 100 x 100000 bytes, bytes label");
	TAP_OK(small && bytes_label(p, small) == 3000, "small_alloc: 7 x 3000 bytes, bytes label");
	TAP_OK(p->n_mappings > 1 && !strcmp(sp_profile_str(p, p->mappings[0].filename), exe),
	       "the fixture is mapping 1");
	TAP_OK(big && frame_mapping(p, big, 0) == 1 && frame_mapping(p, big, 1) == 1,
	       "big_alloc and main frames are in the fixture");
	sp_profile_prune_frames(p, NULL, NULL);
	sp_folded_options o = {.sample_index = space};
	sp_sink *s = sp_sink_memory_new();
	e = sp_folded_write(p, &o, s);
	size_t n;
	const uint8_t *d = sp_sink_memory_data(s, &n);
	char *text = sp_xstrndup((const char *)d, n);
	TAP_OK(!e && strstr(text, " 10000000\n") && strstr(text, " 21000\n"),
	       "folded output carries both stacks");
	free(text);
	sp_error_free(e);
	sp_sink_free(s);
	sp_profile_free(p);
}

static void check_sample(const char *path)
{
	sp_profile *p = NULL;
	sp_error *e = sp_read_profile_file(path, &p, NULL);
	if (!TAP_OK(!e && p, "GetHeapSample output read")) {
		sp_error_free(e);
		return;
	}
	TAP_EQ_U64(p->period, 524288, "heap_v2: period is the sampling rate");
	TAP_EQ_U64(p->n_sample_types, 2, "heap_v2: identical pairs give two columns");
	size_t n1000 = 0, exact = 0, in_fixture = 0;
	int64_t total = 0;
	for (size_t i = 0; i < p->n_samples; i++) {
		const sp_sample *s = &p->samples[i];
		if (bytes_label(p, s) != 1000)
			continue;
		n1000++;
		total += s->values[1];
		/* gperftools prints one "1: 1000 [1: 1000]" line per sampled object */
		if (s->values[0] == 524 && s->values[1] == 524788)
			exact++;
		for (size_t j = 0; j < s->n_locations; j++)
			if (frame_mapping(p, s, j) == 1) {
				in_fixture++;
				break;
			}
	}
	TAP_OK(n1000 >= 10, "sampled 1000-byte blocks found (%zu)", n1000);
	TAP_OK(n1000 && exact == n1000, "each 1000-byte sample unsampled to 524 / 524788");
	TAP_OK(n1000 && in_fixture == n1000, "their stacks pass through the fixture");
	TAP_OK(total > 50000000 && total < 200000000,
	       "estimated bytes (%lld) near the 100000000 allocated", (long long)total);
	sp_profile_free(p);
}

int main(void)
{
	const char *src = getenv("SP_SRCDIR");
	char *fixture = sp_xasprintf("%s/testdata/src/symbolize/heap_fixture.cc", src && *src ? src : ".");
	char dir[] = "/tmp/symprof-heapreal-XXXXXX";
	if (!mkdtemp(dir)) {
		printf("1..0 # SKIP cannot create a temporary directory\n");
		return 0;
	}
	char *exe = sp_xasprintf("%s/fixture", dir);
	char *prefix = sp_xasprintf("%s/hp", dir);
	char *dump = sp_xasprintf("%s/hp.0001.heap", dir);
	char *sample = sp_xasprintf("%s/sample.heap", dir);
	char *cc[] = {"g++", "-O2", "-g", fixture, "-o", exe, "-Wl,--no-as-needed", "-ltcmalloc", NULL};
	if (run(cc, NULL, true) != 0) {
		printf("1..0 # SKIP cannot build the fixture against libtcmalloc\n");
		rmdir(dir);
		return 0;
	}
	size_t ne = 0;
	while (environ[ne])
		ne++;
	char **env = sp_xcalloc(ne + 3, sizeof(char *));
	size_t k = 0;
	for (size_t i = 0; i < ne; i++)
		if (strncmp(environ[i], "HEAPPROFILE=", 12) && strncmp(environ[i], "TCMALLOC_", 9) &&
		    strncmp(environ[i], "LD_PRELOAD=", 11))
			env[k++] = environ[i];
	char *hp = sp_xasprintf("HEAPPROFILE=%s", prefix);
	env[k++] = hp;
	env[k++] = "TCMALLOC_SAMPLE_PARAMETER=524288";
	char *args[] = {exe, sample, NULL};
	TAP_OK(run(args, env, true) == 0, "fixture ran");
	char real[PATH_MAX];
	check_heapprofile(dump, realpath(exe, real) ? real : exe);
	check_sample(sample);
	unlink(dump);
	unlink(sample);
	unlink(exe);
	rmdir(dir);
	free(env);
	free(hp);
	free(sample);
	free(dump);
	free(prefix);
	free(exe);
	free(fixture);
	return tap_done();
}
