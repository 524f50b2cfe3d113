/* jithost.c — a stand-in JIT host for the `symprof jit dump` tests: reads
 * the object files named on the command line, registers each with
 * libjitreg (borrowed buffers, kept alive), unregisters the ones named
 * after "--drop", prints "ready PID EXE" on stdout and waits for end of file
 * on stdin before unregistering everything and exiting.  Built with
 * JITHOST_EXE_DESCRIPTOR, the program reads the descriptor itself, so the
 * link editor gives the executable its own copy of it (a copy relocation)
 * and the live list is in the executable, not in libjitreg.so. */
#include "jitreg/jitreg.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *d = malloc(len > 0 ? (size_t)len : 1);
	*n = fread(d, 1, (size_t)len, f);
	fclose(f);
	return d;
}

#ifdef JITHOST_EXE_DESCRIPTOR
extern struct {
	uint32_t version, action_flag;
	void *relevant_entry, *first_entry;
} __jit_debug_descriptor;
#endif

int main(int argc, char **argv)
{
	jitreg_entry *e[64] = {0};
	char *buf[64] = {0};
	int n = 0;
	bool drop = false;
	/* Let a debugger or reader of the same user attach under Yama. */
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	for (int i = 1; i < argc && n < 64; i++) {
		if (!strcmp(argv[i], "--drop")) {
			drop = true;
			continue;
		}
		if (drop) {
			for (int k = 0; k < n; k++)
				if (e[k] && !strcmp(argv[i], argv[k + 1])) {
					jitreg_unregister(e[k]);
					e[k] = NULL;
				}
			continue;
		}
		size_t size;
		buf[n] = slurp(argv[i], &size);
		if (!buf[n] || jitreg_register(buf[n], size, NULL, &e[n]) != 0) {
			fprintf(stderr, "jithost: cannot register %s\n", argv[i]);
			return 1;
		}
		n++;
	}
	char exe[4096];
	ssize_t l = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[l > 0 ? l : 0] = '\0';
#ifdef JITHOST_EXE_DESCRIPTOR
	if (__jit_debug_descriptor.version != 1 || !__jit_debug_descriptor.first_entry) {
		fprintf(stderr, "jithost: descriptor not as expected\n");
		return 1;
	}
#endif
	printf("ready %ld %s\n", (long)getpid(), exe);
	fflush(stdout);
	char c;
	while (read(0, &c, 1) > 0)
		;
	for (int k = 0; k < n; k++) {
		jitreg_unregister(e[k]);
		free(buf[k]);
	}
	return 0;
}
