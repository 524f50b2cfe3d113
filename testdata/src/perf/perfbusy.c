/* perfbusy.c — the perf.data fixture: recorded by tests/cli/perf.sh with
 * `perf record -e cpu-clock -g`, in file and pipe mode.  The plan (threads, functions,
 * shares) is in perfbusy.h.  The plugin is dlopen()ed after start-up, so its mapping
 * appears in the middle of the recording. */
#define _GNU_SOURCE
#include "perfbusy.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pb_busy_fn plugin_busy; /* busy_plugin of the dlopen()ed library */

PB_BUSY(spin_main, busy_main)

static long thread_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

__attribute__((noinline)) void run_rounds(void)
{
	long start = thread_ms();
	while (thread_ms() - start < PB_THREAD_MS) {
		busy_main(PB_MAIN * PB_CHUNK);
		busy_shared(PB_SHARED * PB_CHUNK);
		plugin_busy(PB_PLUGIN * PB_CHUNK);
	}
}

__attribute__((noinline)) void *worker_main(void *arg)
{
	(void)arg;
	run_rounds();
	return NULL;
}

int main(void)
{
	char path[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", path, sizeof(path) - 32);
	if (len < 0)
		return 1;
	path[len] = '\0';
	char *slash = strrchr(path, '/');
	strcpy(slash ? slash + 1 : path, "libperfplugin.so");
	void *h = dlopen(path, RTLD_NOW);
	if (!h || !(plugin_busy = (pb_busy_fn)dlsym(h, "busy_plugin"))) {
		fprintf(stderr, "perfbusy: %s\n", dlerror());
		return 1;
	}
	pthread_t t;
	if (pthread_create(&t, NULL, worker_main, NULL) != 0)
		return 1;
	pthread_setname_np(t, "pbworker");
	run_rounds();
	pthread_join(t, NULL);
	return 0;
}
