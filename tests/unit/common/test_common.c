/* test_common.c — errors, buffers, hash tables, sinks, gzip round trip. */
#include "common/common.h"
#include "tests/helpers/tap.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>

static bool eq_str(void *ctx, size_t i)
{
	const char **arr = ((const char ***)ctx)[0];
	const char *key = ((const char **)ctx)[1];
	return strcmp(arr[i], key) == 0;
}

/* DATA[0..N) through a gzip sink, written in pieces of 1..STEP bytes
 * (one piece when STEP is 0); the compressed bytes (caller frees). */
static uint8_t *gzip_in_pieces(const uint8_t *data, size_t n, size_t step, size_t *zlen)
{
	sp_sink *mem = sp_sink_memory_new();
	sp_sink *gz = sp_sink_gzip_new(mem);
	for (size_t off = 0, k = 1; off < n; off += k, k = k % (step ? step : n) + 1) {
		if (!step)
			k = n;
		sp_sink_write(gz, data + off, off + k > n ? n - off : k);
	}
	sp_error *e = sp_sink_finish(gz);
	TAP_OK(!e, "gzip of %zu bytes in pieces of up to %zu finishes", n, step ? step : n);
	sp_error_free(e);
	const uint8_t *z = sp_sink_memory_data(mem, zlen);
	uint8_t *copy = sp_xmalloc(*zlen ? *zlen : 1);
	memcpy(copy, z, *zlen);
	sp_sink_free(gz);
	sp_sink_free(mem);
	return copy;
}

/* Outputs of many blocks are deflated on the sink's threads: the bytes are
 * the same however the writes cut the input, and gunzip gives it back. */
static void gzip_large(void)
{
	size_t n = (size_t)5 << 20;
	uint8_t *data = sp_xmalloc(n);
	uint64_t x = 17;
	for (size_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		data[i] = (uint8_t)("samples/count 0x5555\n"[(x >> 60) % 8 + i % 12]);
	}
	size_t za, zb, zc;
	uint8_t *a = gzip_in_pieces(data, n, 0, &za);
	uint8_t *b = gzip_in_pieces(data, n, 777, &zb);
	uint8_t *c = gzip_in_pieces(data, n, 3, &zc);
	TAP_OK(za == zb && za == zc && !memcmp(a, b, za) && !memcmp(a, c, za),
	       "gzip of 5 MiB: the same %zu bytes written whole, in pieces of up to 777 and 3", za);
	uint8_t *plain = NULL;
	size_t plen = 0;
	sp_error *e = sp_gunzip("mem", b, zb, n + 1, &plain, &plen);
	TAP_OK(!e && plen == n && !memcmp(plain, data, n), "gzip of 5 MiB: gunzip gives it back");
	sp_error_free(e);
	free(plain);
	free(a);
	free(b);
	free(c);
	/* a sink freed unfinished stops its thread */
	sp_sink *mem = sp_sink_memory_new();
	sp_sink *gz = sp_sink_gzip_new(mem);
	sp_sink_write(gz, data, n);
	sp_sink_free(gz);
	sp_sink_free(mem);
	TAP_OK(1, "gzip sink freed after 5 MiB, unfinished");
	free(data);
}

/* Writes TEXT to DIR/REL, making its directories. */
static void put(const char *dir, const char *rel, const char *text)
{
	char *path = sp_xasprintf("%s/%s", dir, rel);
	for (char *q = path + strlen(dir) + 1; (q = strchr(q, '/')); q++) {
		*q = '\0';
		mkdir(path, 0700);
		*q = '/';
	}
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(path);
}

/* sp_cpu_quota over made-up /proc/self/cgroup files and cgroup trees. */
static void test_cpus(void)
{
	char tmpl[] = "/tmp/symprof-cpus.XXXXXX";
	const char *d = mkdtemp(tmpl);
	if (!d) {
		TAP_OK(0, "temporary directory");
		return;
	}
	char *proc = sp_xasprintf("%s/cgroup", d), *sys = sp_xasprintf("%s/sys", d);
	/* v2: the smallest quota on the path, a part of a CPU rounded up */
	put(d, "cgroup", "0::/a/b\n");
	put(d, "sys/cpu.max", "max 100000\n");
	put(d, "sys/a/cpu.max", "150000 100000\n");
	put(d, "sys/a/b/cpu.max", "max 100000\n");
	TAP_OK(sp_cpu_quota(proc, sys) == 2, "v2: a parent's 1.5 CPUs are 2");
	put(d, "sys/a/b/cpu.max", "50000 100000\n");
	TAP_OK(sp_cpu_quota(proc, sys) == 1, "v2: the child's half CPU is 1");
	put(d, "cgroup", "0::/\n");
	TAP_OK(sp_cpu_quota(proc, sys) == 0, "v2: the root: no quota");
	/* v1: the cpu controller, mounted with cpuacct */
	put(d, "cgroup", "7:memory:/x\n4:cpu,cpuacct:/docker/x\n0::/\n");
	put(d, "sys/cpu,cpuacct/docker/x/cpu.cfs_quota_us", "300000\n");
	put(d, "sys/cpu,cpuacct/docker/x/cpu.cfs_period_us", "100000\n");
	TAP_OK(sp_cpu_quota(proc, sys) == 3, "v1: cfs quota 300000 / 100000 is 3");
	put(d, "sys/cpu,cpuacct/docker/x/cpu.cfs_quota_us", "-1\n");
	TAP_OK(sp_cpu_quota(proc, sys) == 0, "v1: quota -1: none");
	char *none = sp_xasprintf("%s/no-such-file", d);
	TAP_OK(sp_cpu_quota(none, sys) == 0, "no cgroup file: no quota");
	int n = sp_cpus_available();
	cpu_set_t set;
	int aff = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
	TAP_OK(n >= 1 && n <= aff, "sp_cpus_available: %d, at most the %d CPUs of the affinity", n,
	       aff);
	char *cmd = sp_xasprintf("rm -rf '%s'", d);
	TAP_OK(system(cmd) == 0, "temporary tree removed");
	free(cmd);
	free(none);
	free(proc);
	free(sys);
}

/* sp_xcalloc_lines: elements of an SP_OWN_LINES type each on lines of
 * their own, zeroed, whatever the count. */
typedef struct {
	size_t n;
	char c;
} SP_OWN_LINES owned;

static void test_lines(void)
{
	TAP_OK(sizeof(owned) == 64, "an SP_OWN_LINES type of 16 bytes takes a line (%zu)",
	       sizeof(owned));
	for (size_t n = 1; n <= 17; n += 8) {
		owned *a = sp_xcalloc_lines(n, sizeof(*a));
		bool zero = true;
		for (size_t i = 0; i < n; i++)
			zero &= a[i].n == 0 && a[i].c == 0;
		TAP_OK((uintptr_t)a % 64 == 0 && zero, "%zu elements: aligned to 64, zeroed", n);
		a[n - 1].n = n; /* all of it writable (ASan) */
		free(a);
	}
}

int main(void)
{
	test_cpus();
	test_lines();
	/* errors keep cause and context */
	sp_error *e = sp_error_new(SP_E_MALFORMED, "line 3: expected hex address, got \"zz\"");
	e = sp_error_prefix(e, "heap.txt");
	char *s = sp_error_string(e);
	TAP_EQ_STR(s, "heap.txt: line 3: expected hex address, got \"zz\"", "error context chain");
	TAP_OK(sp_error_root_code(e) == SP_E_MALFORMED, "root code kept");
	free(s);
	sp_error_free(e);

	/* a copy keeps every link: codes, messages, the message-less one */
	e = sp_error_wrap(sp_error_new(SP_E_NOT_FOUND, NULL), SP_E_IO, "reading %s", "a.elf");
	e = sp_error_prefix(e, "mapping %d", 3);
	sp_error *d = sp_error_dup(e);
	TAP_OK(d && d != e && d->cause && d->cause->cause && !d->cause->cause->cause,
	       "dup: three links, none shared");
	TAP_OK(d->code == SP_E_IO && d->cause->code == SP_E_IO &&
		       d->cause->cause->code == SP_E_NOT_FOUND && !d->cause->cause->msg,
	       "dup: each link's code, no message where there was none");
	TAP_OK(d->msg != e->msg, "dup: messages are copies");
	sp_error_free(e); /* the copy outlives the original */
	s = sp_error_string(d);
	TAP_EQ_STR(s, "mapping 3: reading a.elf: not found", "dup: whole chain in the message");
	TAP_OK(sp_error_root_code(d) == SP_E_NOT_FOUND, "dup: root code");
	free(s);
	sp_error_free(d);
	TAP_OK(sp_error_dup(NULL) == NULL, "dup of NULL");
	sp_error_free(NULL);

	/* numbers */
	uint64_t v;
	const char *h = "0x7fffDEAD";
	TAP_OK(sp_parse_u64(h, h + strlen(h), 16, &v) && v == 0x7fffdeadULL, "hex with 0x");
	const char *big = "18446744073709551616";
	TAP_OK(!sp_parse_u64(big, big + strlen(big), 10, &v), "overflow rejected");
	int64_t iv;
	const char *neg = "-42";
	TAP_OK(sp_parse_i64(neg, neg + 3, &iv) && iv == -42, "negative decimal");
	TAP_OK(!sp_parse_u64(h, h, 16, &v), "empty rejected");

	/* u64 map */
	sp_u64map m = {0};
	for (uint64_t i = 0; i < 10000; i++)
		sp_u64map_put(&m, i * 7919, i);
	bool all = true;
	for (uint64_t i = 0; i < 10000; i++) {
		uint64_t got;
		if (!sp_u64map_get(&m, i * 7919, &got) || got != i)
			all = false;
	}
	TAP_OK(all && m.n == 10000, "u64map holds 10000 keys");
	TAP_OK(!sp_u64map_get(&m, 1, NULL), "u64map miss");
	sp_u64map_free(&m);

	/* idxset */
	const char *words[] = {"alpha", "beta", "gamma"};
	sp_idxset set = {0};
	for (size_t i = 0; i < 3; i++)
		sp_idxset_add(&set, sp_hash_bytes(words[i], strlen(words[i]), 0), i);
	const void *ctx[2] = {words, "gamma"};
	TAP_EQ_U64(sp_idxset_find(&set, sp_hash_bytes("gamma", 5, 0), eq_str, ctx), 2, "idxset find");
	ctx[1] = "delta";
	TAP_EQ_U64(sp_idxset_find(&set, sp_hash_bytes("delta", 5, 0), eq_str, ctx), SIZE_MAX,
		   "idxset miss");
	sp_idxset_free(&set);

	/* strtab: first-seen indices, lengths, embedded NULs, appended repeats */
	sp_strtab st = {0};
	TAP_EQ_U64(sp_strtab_intern_str(&st, "main"), 0, "strtab: first string is 0");
	TAP_EQ_U64(sp_strtab_intern_str(&st, "leaf"), 1, "strtab: second string is 1");
	TAP_EQ_U64(sp_strtab_intern_str(&st, "main"), 0, "strtab: repeat gives the first index");
	TAP_EQ_U64(sp_strtab_intern(&st, "main\0x", 6), 2, "strtab: a NUL and more is another string");
	TAP_EQ_U64(sp_strtab_find(&st, "main\0y", 6), SIZE_MAX, "strtab: compared past the NUL");
	TAP_EQ_U64(sp_strtab_find(&st, "mai", 3), SIZE_MAX, "strtab: a prefix is not found");
	TAP_EQ_U64(sp_strtab_append(&st, "leaf", 4), 3, "strtab: append adds a repeat");
	TAP_EQ_U64(sp_strtab_find(&st, "leaf", 4), 1, "strtab: the earlier repeat is found");
	for (int i = 0; i < 1000; i++) {
		char w[16];
		snprintf(w, sizeof(w), "w%d", i);
		sp_strtab_intern_str(&st, w);
	}
	TAP_OK(st.n == 1004 && sp_strtab_find(&st, "w999", 4) == 1003 &&
		       !strcmp(st.strs[1003], "w999") && st.lens[1003] == 4 &&
		       sp_strtab_intern_str(&st, "main") == 0,
	       "strtab: 1004 strings after growth, all found by content");
	/* the bytes of each string stay where they are as the table grows, in
	 * blocks of 4 KiB to 1 MiB, a string longer than half a block in one
	 * of its own (6000 bytes at 8 KiB, 700000 at 1 MiB) */
	const char *first = st.strs[0];
	static const size_t long_len[3] = {6000, 700000, 5000};
	char *longs = sp_xmalloc(700000);
	memset(longs, 'b', 700000);
	size_t long_at[3], kept = 0;
	for (int i = 0; i < 200000; i++) {
		char w[24];
		snprintf(w, sizeof(w), "s%d", i);
		if (i % 70000 == 0) {
			longs[0] = (char)('0' + i / 70000);
			long_at[i / 70000] = sp_strtab_append(&st, longs, long_len[i / 70000]);
		}
		sp_strtab_append(&st, w, strlen(w));
	}
	for (int i = 0; i < 3; i++) {
		const char *l = st.strs[long_at[i]];
		kept += st.lens[long_at[i]] == long_len[i] && l[0] == '0' + i &&
			l[long_len[i] - 1] == 'b' && l[long_len[i]] == '\0';
	}
	TAP_OK(st.strs[0] == first && !strcmp(first, "main") &&
		       !strcmp(st.strs[st.n - 1], "s199999") && kept == 3,
	       "strtab: strings stay in place as it grows, long ones whole (%zu of 3)", kept);
	free(longs);
	sp_strtab_free(&st);
	TAP_OK(st.n == 0 && !st.strs && !st.blocks, "strtab: free resets");

	/* gzip sink round trip, deterministic */
	sp_sink *mem = sp_sink_memory_new();
	sp_sink *gz = sp_sink_gzip_new(mem);
	for (int i = 0; i < 1000; i++)
		sp_sink_printf(gz, "line %d\n", i);
	TAP_OK(sp_sink_finish(gz) == NULL, "gzip finish");
	size_t zlen;
	const uint8_t *z = sp_sink_memory_data(mem, &zlen);
	TAP_OK(sp_is_gzip(z, zlen), "gzip magic");
	uint8_t *plain;
	size_t plen;
	e = sp_gunzip("mem", z, zlen, 1 << 20, &plain, &plen);
	TAP_OK(!e && plen > 0 && strncmp((char *)plain, "line 0\nline 1\n", 14) == 0,
	       "gunzip round trip");
	free(plain);
	e = sp_gunzip("mem", z, zlen / 2, 1 << 20, &plain, &plen);
	s = sp_error_string(e);
	TAP_OK(e && strstr(s, "truncated") != NULL, "truncated gzip is an error: %s", s);
	free(s);
	sp_error_free(e);
	e = sp_gunzip("mem", z, zlen, 100, &plain, &plen);
	TAP_OK(e && e->code == SP_E_LIMIT, "gunzip limit enforced");
	sp_error_free(e);
	sp_sink_free(gz);
	sp_sink_free(mem);

	/* atomic file sink: nothing left behind on failure */
	char dir[] = "/tmp/sp-test-XXXXXX";
	TAP_OK(mkdtemp(dir) != NULL, "temp dir");
	char *path = sp_xasprintf("%s/out.txt", dir);
	sp_sink *f;
	TAP_OK(sp_sink_file_new(path, &f) == NULL, "file sink opens");
	sp_sink_puts(f, "partial");
	sp_sink_free(f); /* not finished */
	TAP_OK(access(path, F_OK) != 0, "unfinished output not created");
	TAP_OK(sp_sink_file_new(path, &f) == NULL, "file sink reopens");
	sp_sink_puts(f, "complete\n");
	TAP_OK(sp_sink_finish(f) == NULL, "file sink finish");
	sp_sink_free(f);
	uint8_t *data;
	size_t len;
	e = sp_read_file(path, &data, &len);
	TAP_OK(!e && len == 9 && memcmp(data, "complete\n", 9) == 0, "finished output renamed");
	free(data);
	unlink(path);
	rmdir(dir);
	free(path);
	gzip_large();
	return tap_done();
}
