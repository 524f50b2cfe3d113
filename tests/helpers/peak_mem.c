/* peak_mem.c — peak_mem OUT SECONDS CMD...: runs CMD (with this program's standard
 * streams, in a session of its own) and writes to OUT the peak memory it held, in
 * KiB: the larger of
 *   - its resident set's peak as the kernel keeps it (wait4's ru_maxrss: exact
 *     however short the run; this program is small, so the few pages the child
 *     touches between fork and exec barely count), and
 *   - the most of VmRSS + the allocated blocks of every memory file among its
 *     descriptors (memfd_create, /dev/shm; each once, however many descriptors it
 *     has), polled every 2 ms: shared memory it holds without mapping it.  A memory
 *     file's pages that are also mapped and touched count twice, so the figure is an
 *     upper bound.
 * After SECONDS the session is killed (SIGKILL) and the status is 124, as
 * timeout(1) gives; otherwise CMD's own (128 + N for signal N, 127 when it cannot
 * be run). */
#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long status_kb(pid_t pid, const char *field)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	long v = 0;
	size_t n = strlen(field);
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':') {
			v = strtol(line + n + 1, NULL, 10);
			break;
		}
	if (f)
		fclose(f);
	return v;
}

/* Each memory file once, however many descriptors it has. */
static long memory_files_kb(pid_t pid)
{
	char dir[64], path[384], target[256];
	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	DIR *d = opendir(dir);
	long kb = 0;
	ino_t seen[1024];
	size_t n_seen = 0;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		ssize_t n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		struct stat st;
		if ((strncmp(target, "/memfd:", 7) && strncmp(target, "/dev/shm/", 9)) ||
		    stat(path, &st) != 0)
			continue;
		bool dup = false;
		for (size_t i = 0; i < n_seen && !dup; i++)
			dup = seen[i] == st.st_ino;
		if (dup)
			continue;
		if (n_seen < sizeof(seen) / sizeof(*seen))
			seen[n_seen++] = st.st_ino;
		kb += (long)st.st_blocks / 2;
	}
	if (d)
		closedir(d);
	return kb;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: peak_mem OUT SECONDS CMD...\n");
		return 2;
	}
	double deadline = now() + strtod(argv[2], NULL);
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (pid == 0) {
		setsid();
		execvp(argv[3], argv + 3);
		perror(argv[3]);
		_exit(127);
	}
	long peak = 0;
	int st = 0;
	struct rusage ru;
	int timed_out = 0;
	for (;;) {
		pid_t w = wait4(pid, &st, WNOHANG, &ru);
		if (w == pid)
			break;
		if (now() > deadline) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			wait4(pid, &st, 0, &ru);
			timed_out = 1;
			break;
		}
		long rss = status_kb(pid, "VmRSS");
		if (rss && rss + memory_files_kb(pid) > peak)
			peak = rss + memory_files_kb(pid);
		struct timespec ts = {0, 2000000};
		nanosleep(&ts, NULL);
	}
	if (ru.ru_maxrss > peak)
		peak = ru.ru_maxrss;
	FILE *f = fopen(argv[1], "w");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	fprintf(f, "%ld\n", peak);
	fclose(f);
	if (timed_out)
		return 124;
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}
