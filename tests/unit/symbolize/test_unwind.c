/* test_unwind.c — the unwinder (symbolize/unwind/) on a real process.
 *
 * The unwind fixture (testdata/src/unwind, built here without frame
 * pointers: only CFI can unwind it) runs main -> uw_a -> uw_b, then spins
 * in uw_c -> uw_lib_spin (libunwlib.so) three quarters of the time and in
 * uw_local_spin one quarter.  It is stopped with ptrace until it is found
 * in each of the two spinning leaves (told by `nm -S`, not by symprof);
 * each time its registers and 8 KiB of stack from rsp (/proc/PID/mem) and
 * its file mappings (/proc/PID/maps) make a capture as perf's --call-graph
 * dwarf records one: perf's x86-64 register order, the default user
 * register mask.  The capture holds each stop three times, as a profile
 * repeats its stacks.
 *
 * What must hold, from how the fixture was written:
 *   - each unwound chain, symbolized (return addresses minus one), begins
 *     with the fixture's call stack: uw_lib_spin uw_c uw_b uw_a main, or
 *     uw_local_spin uw_b uw_a main;
 *   - the unwinding of the third copy of a stop is the one recorded for
 *     the second (sp_unwind_report.n_reused: the first copy's unwind
 *     reported modules, so it was not recorded), and all three chains are
 *     equal (a fresh unwinder per stop);
 *   - the report counts every sample.
 */
#include "tests/helpers/tap.h"

#include "profile/capture.h"
#include "symbolize/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STACK_BYTES 8192
#define COPIES 3

/* perf's x86-64 register numbers (asm/perf_regs.h) */
enum { AX, BX, CX, DX, SI, DI, BP, SP, IP, R8 = 16 };
/* perf record --call-graph dwarf's mask: AX..IP and R8..R15 */
#define REGS_MASK 0xff01ffULL

typedef struct {
	uint64_t lo, hi; /* file addresses of a function (nm -S) */
	const char *file;
} fn_range;

/* The range of function NAME in FILE, from nm -S. */
static bool nm_range(const char *file, const char *name, fn_range *out)
{
	char *cmd = sp_xasprintf("nm -S --defined-only '%s' 2>/dev/null", file);
	FILE *p = popen(cmd, "r");
	free(cmd);
	char line[512];
	bool found = false;
	while (p && fgets(line, sizeof(line), p)) {
		unsigned long long a, s;
		char type, sym[256];
		if (sscanf(line, "%llx %llx %c %255s", &a, &s, &type, sym) == 4 &&
		    !strcmp(sym, name)) {
			out->lo = a;
			out->hi = a + s;
			out->file = file;
			found = true;
		}
	}
	if (p)
		pclose(p);
	return found;
}

typedef struct {
	uint64_t start, limit, pgoff;
	char path[512];
	bool exec;
} pmap;

static size_t read_maps(pid_t pid, pmap *v, size_t max)
{
	char path[64], line[1024];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "r");
	size_t n = 0;
	while (f && n < max && fgets(line, sizeof(line), f)) {
		unsigned long long s, l, off;
		char perms[8], file[512] = "";
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %511s", &s, &l, perms, &off, file) < 4)
			continue;
		v[n] = (pmap){s, l, off, "", strchr(perms, 'x') != NULL};
		snprintf(v[n].path, sizeof(v[n].path), "%s", file);
		n++;
	}
	if (f)
		fclose(f);
	return n;
}

/* One stop of the fixture: registers, stack copy and maps. */
typedef struct {
	uint64_t regs[17]; /* in REGS_MASK's bit order */
	uint8_t stack[STACK_BYTES];
	size_t stack_len;
	uint64_t rip;
	pmap maps[256];
	size_t n_maps;
} stop;

/* Stops PID once and fills *S; false when ptrace is refused. */
static bool take_stop(pid_t pid, stop *s)
{
	if (ptrace(PTRACE_ATTACH, pid, NULL, NULL) != 0)
		return false;
	int st;
	waitpid(pid, &st, 0);
	struct user_regs_struct r;
	bool ok = ptrace(PTRACE_GETREGS, pid, NULL, &r) == 0;
	if (ok) {
		uint64_t v[] = {r.rax, r.rbx, r.rcx, r.rdx, r.rsi, r.rdi, r.rbp, r.rsp, r.rip,
				r.r8,  r.r9,  r.r10, r.r11, r.r12, r.r13, r.r14, r.r15};
		memcpy(s->regs, v, sizeof(v));
		s->rip = r.rip;
		s->n_maps = read_maps(pid, s->maps, 256);
		/* the stack copy ends where the stack mapping does */
		size_t want = STACK_BYTES;
		for (size_t i = 0; i < s->n_maps; i++)
			if (r.rsp >= s->maps[i].start && r.rsp < s->maps[i].limit &&
			    s->maps[i].limit - r.rsp < want)
				want = s->maps[i].limit - r.rsp;
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
		int fd = open(path, O_RDONLY);
		ssize_t got = fd >= 0 ? pread(fd, s->stack, want, (off_t)r.rsp) : -1;
		if (fd >= 0)
			close(fd);
		s->stack_len = got > 0 ? (size_t)got : 0;
		ok = s->stack_len > 0;
	}
	ptrace(PTRACE_DETACH, pid, NULL, NULL);
	return ok;
}

/* Whether S's pc is in function F: its file's map, at F's file address
 * (the fixture's PIE and library have p_vaddr == p_offset). */
static bool stopped_in(const stop *s, const fn_range *f)
{
	for (size_t i = 0; i < s->n_maps; i++) {
		const pmap *m = &s->maps[i];
		if (strcmp(m->path, f->file) || s->rip < m->start || s->rip >= m->limit)
			continue;
		uint64_t fa = s->rip - m->start + m->pgoff;
		return fa >= f->lo && fa < f->hi;
	}
	return false;
}

static void add_stop(sp_capture *c, const stop *s, int64_t pid, uint64_t time)
{
	for (size_t i = 0; i < s->n_maps; i++) {
		const pmap *m = &s->maps[i];
		if (m->path[0] != '/')
			continue;
		sp_capture_map cm = {m->start, m->limit, m->pgoff, 0, (char *)m->path, NULL,
				     m->exec};
		sp_capture_add_map(c, pid, &cm);
	}
	uint64_t chain[2] = {SP_CAPTURE_CONTEXT_USER, s->rip};
	sp_capture_sample smp = {.pid = pid,
				 .tid = pid,
				 .time = time,
				 .event = 0,
				 .ip = s->rip,
				 .period = 1,
				 .cpumode = 2,
				 .has_chain = true,
				 .regs_abi = 2};
	sp_capture_add_sample(c, &smp, chain, 2, s->regs, sizeof(s->regs), s->stack,
			      s->stack_len);
}

/* The outermost function name of ADDR in process PID of C (the last of
 * its inline chain), or "?". */
static const char *name_of(sp_symbolizer *sym, sp_capture *c, int64_t pid, uint64_t addr)
{
	const sp_capture_map *m = sp_capture_map_at(c, pid, addr, 1000);
	const char *found;
	const sp_find_log *log;
	sp_object *o;
	uint64_t base;
	const sp_frame *fr;
	size_t n;
	if (!m)
		return "?";
	sp_error *e = sp_symbolizer_locate(sym, m->path, NULL, &found, &log);
	if (!e)
		e = sp_symbolizer_object(sym, found, NULL, &o);
	if (!e)
		e = sp_mapping_base(sp_object_info(o), m->start, m->limit, m->pgoff, addr, &base);
	if (!e)
		e = sp_object_resolve(o, addr - base, &fr, &n);
	if (e || !n) {
		sp_error_free(e);
		return "?";
	}
	return fr[n - 1].system_name ? fr[n - 1].system_name : fr[n - 1].name;
}

/* The names of sample I's unwound frames, leaf first, space-separated:
 * the first WANT of them. */
static char *chain_names(sp_symbolizer *sym, sp_capture *c, size_t i, size_t want)
{
	const sp_capture_sample *s = &c->samples[i];
	const uint64_t *ch = c->chain + s->chain_off;
	sp_buf b = {0};
	size_t k = 0;
	while (k < s->n_chain && ch[k] != SP_CAPTURE_CONTEXT_USER)
		k++;
	bool leaf = true;
	for (k++; k < s->n_chain && want; k++) {
		if (ch[k] == SP_CAPTURE_CONTEXT_USER) { /* an exact pc follows */
			leaf = true;
			continue;
		}
		sp_buf_printf(&b, "%s%s", b.len ? " " : "",
			      name_of(sym, c, s->pid, leaf ? ch[k] : ch[k] - 1));
		leaf = false;
		want--;
	}
	return sp_buf_take(&b);
}

static bool same_chain(const sp_capture *c, size_t a, size_t b)
{
	const sp_capture_sample *x = &c->samples[a], *y = &c->samples[b];
	return x->n_chain == y->n_chain &&
	       !memcmp(c->chain + x->chain_off, c->chain + y->chain_off, x->n_chain * 8);
}

int main(void)
{
	const char *srcdir = getenv("SP_SRCDIR") ? getenv("SP_SRCDIR") : "..";
	char dir[] = "/tmp/symprof-unwind-XXXXXX";
	if (!mkdtemp(dir)) {
		printf("1..0 # SKIP cannot create a temporary directory\n");
		return 0;
	}
	char *cmd = sp_xasprintf("sh '%s/testdata/src/unwind/build.sh' '%s' >/dev/null 2>&1",
				 srcdir, dir);
	int rc = system(cmd);
	free(cmd);
	char *exe = sp_xasprintf("%s/unwbusy", dir), *lib = sp_xasprintf("%s/libunwlib.so", dir);
	fn_range lib_spin, local_spin;
	if (rc != 0 || !nm_range(lib, "uw_lib_spin", &lib_spin) ||
	    !nm_range(exe, "uw_local_spin", &local_spin)) {
		printf("1..0 # SKIP the unwind fixture does not build (gcc, nm)\n");
		return 0;
	}

	pid_t pid = fork();
	if (pid == 0) {
		execl(exe, exe, "100000", (char *)NULL);
		_exit(127);
	}
	static stop stops[2];
	bool have[2] = {false, false}, traced = true;
	for (int tries = 0; tries < 400 && traced && !(have[0] && have[1]); tries++) {
		struct timespec ts = {0, 5000000};
		nanosleep(&ts, NULL);
		static stop s;
		traced = take_stop(pid, &s);
		for (int k = 0; traced && k < 2; k++)
			if (!have[k] && stopped_in(&s, k ? &local_spin : &lib_spin)) {
				stops[k] = s;
				have[k] = true;
			}
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	if (!traced) {
		printf("1..0 # SKIP ptrace is not allowed here\n");
		return 0;
	}
	TAP_OK(have[0] && have[1], "the fixture was stopped in uw_lib_spin and in uw_local_spin");

	static const char *const want[2] = {"uw_lib_spin uw_c uw_b uw_a main",
					    "uw_local_spin uw_b uw_a main"};
	sp_symbolizer *sym = sp_symbolizer_new(NULL);
	for (int k = 0; k < 2; k++) {
		const char *leaf = k ? "uw_local_spin" : "uw_lib_spin";
		sp_capture *c = sp_capture_new();
		sp_capture_event ev = {.name = "cpu-clock", .unit = "nanoseconds",
				       .sample_regs_user = REGS_MASK};
		sp_capture_add_event(c, &ev);
		for (int copy = 0; copy < COPIES; copy++)
			add_stop(c, &stops[k], pid, 100 + (uint64_t)copy);
		sp_unwinder *u = sp_unwinder_new(sym);
		sp_unwinder_run(u, c);
		const sp_unwind_report *r = sp_unwinder_report(u);
		TAP_EQ_U64(r->n_samples, COPIES, "%s: every sample with a stack copy counted", leaf);
		TAP_EQ_U64(r->n_errors, 0, "%s: no unwind cut short by an error", leaf);
		char *got = chain_names(sym, c, 0, k ? 4 : 5);
		TAP_EQ_STR(got, want[k], "%s: the unwound chain is the fixture's stack", leaf);
		free(got);
		bool same = true;
		for (size_t i = 1; i < COPIES; i++)
			same &= same_chain(c, 0, i);
		TAP_OK(same, "%s: its %d copies unwind to the same chain", leaf, COPIES);
		/* the first copy's unwind reported the modules of its callers
		 * (main's caller is in libc), so it was not recorded; the second
		 * was, and the third reused it */
		TAP_EQ_U64(r->n_reused, 1, "%s: the third copy reused the second's unwind", leaf);
		sp_unwinder_free(u);
		sp_capture_free(c);
	}
	sp_symbolizer_free(sym);
	cmd = sp_xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	free(cmd);
	free(exe);
	free(lib);
	return tap_done();
}
