/* cpus.c — how many CPUs this process may keep busy: the CPUs of its
 * affinity mask, capped by the CPU quota of its cgroup and of every cgroup
 * above it (cgroup v2 cpu.max "QUOTA PERIOD"; v1 cpu.cfs_quota_us and
 * cpu.cfs_period_us), a quota of 1.5 CPUs counting as 2.  A container
 * limited to two CPUs on a 64-CPU host is two, not 64.
 */
#include "common/common.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads the first line of PATH into BUF (N bytes); false when unreadable. */
static bool first_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	bool ok = fgets(buf, (int)n, f) != NULL;
	fclose(f);
	return ok;
}

/* QUOTA / PERIOD rounded up, or 0 for no limit (a quota of "max" or -1). */
static int quota_cpus(long long quota, long long period)
{
	if (quota <= 0 || period <= 0)
		return 0;
	long long n = (quota + period - 1) / period;
	return n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
}

/* The quota of the v2 cgroup directory DIR (0: none or unreadable). */
static int v2_quota(const char *dir)
{
	char path[4096], line[128];
	if ((size_t)snprintf(path, sizeof(path), "%s/cpu.max", dir) >= sizeof(path) ||
	    !first_line(path, line, sizeof(line)))
		return 0;
	long long quota, period = 100000;
	if (!strncmp(line, "max", 3))
		return 0;
	if (sscanf(line, "%lld %lld", &quota, &period) < 1)
		return 0;
	return quota_cpus(quota, period);
}

/* The quota of the v1 cgroup directory DIR (0: none or unreadable). */
static int v1_quota(const char *dir)
{
	char path[4096], line[64];
	long long quota, period;
	if ((size_t)snprintf(path, sizeof(path), "%s/cpu.cfs_quota_us", dir) >= sizeof(path) ||
	    !first_line(path, line, sizeof(line)) || sscanf(line, "%lld", &quota) != 1)
		return 0;
	if ((size_t)snprintf(path, sizeof(path), "%s/cpu.cfs_period_us", dir) >= sizeof(path) ||
	    !first_line(path, line, sizeof(line)) || sscanf(line, "%lld", &period) != 1)
		return 0;
	return quota_cpus(quota, period);
}

/* The smallest quota of directory ROOT/CG and of each directory above it
 * up to ROOT (0: none), through QUOTA_OF. */
static int smallest_quota(const char *root, const char *cg, int (*quota_of)(const char *))
{
	char dir[4096];
	if ((size_t)snprintf(dir, sizeof(dir), "%s%s", root, cg) >= sizeof(dir))
		return 0;
	size_t root_len = strlen(root);
	int best = 0;
	for (;;) {
		int q = quota_of(dir);
		if (q && (!best || q < best))
			best = q;
		char *slash = strrchr(dir + root_len, '/');
		if (!slash)
			break;
		*slash = '\0';
	}
	return best;
}

int sp_cpu_quota(const char *proc_cgroup, const char *sys_cgroup)
{
	FILE *f = fopen(proc_cgroup, "re");
	if (!f)
		return 0;
	char line[4096], root[4096];
	int best = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		/* "ID:CONTROLLERS:PATH"; v2's is "0::PATH" */
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
		if (!b)
			continue;
		*b = '\0';
		const char *controllers = a + 1, *path = b + 1;
		int q = 0;
		if (!*controllers) {
			q = smallest_quota(sys_cgroup, path, v2_quota);
		} else {
			/* v1: the "cpu" controller, alone or mounted with others */
			char list[512];
			snprintf(list, sizeof(list), ",%s,", controllers);
			if (!strstr(list, ",cpu,"))
				continue;
			static const char *const mounts[] = {"cpu", "cpu,cpuacct", "cpuacct,cpu"};
			for (size_t i = 0; i < SP_ARRAY_LEN(mounts) && !q; i++)
				if ((size_t)snprintf(root, sizeof(root), "%s/%s", sys_cgroup,
						     mounts[i]) < sizeof(root))
					q = smallest_quota(root, path, v1_quota);
		}
		if (q && (!best || q < best))
			best = q;
	}
	fclose(f);
	return best;
}

int sp_cpus_available(void)
{
	static _Atomic int known;
	int n = known;
	if (n)
		return n;
	cpu_set_t set;
	n = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
	int q = sp_cpu_quota("/proc/self/cgroup", "/sys/fs/cgroup");
	if (q && q < n)
		n = q;
	n = n < 1 ? 1 : n > 1024 ? 1024 : n;
	known = n;
	return n;
}
