/* standalone.c — replays inputs through a libFuzzer harness without
 * libFuzzer.  With file arguments, runs each file.  Without, runs every
 * tests/malformed/<fmt>/<case>.in, every file of tests/fuzz/seeds/<name>
 * and tests/fuzz/corpus/<name> for the harness fuzz_<name> (what
 * scripts/fuzz replays and starts from), and the built-in seeds, then a fixed
 * number of deterministic mutations of them, and prints one TAP line: a
 * crash (or a sanitizer report) fails the test. */
#include "common/common.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* A harness whose inputs are costly defines how many mutations to run. */
extern const size_t sp_fuzz_mutations __attribute__((weak));

static const char *const seeds[] = {
	"heap profile:    2:    18432 [     2:    18432] @ heap_v2/524288\n"
	"     1:     9216 [     1:     9216] @ 0x4005d4 0x400612\n"
	"     1:     9216 [     1:     9216] @ 0x4005d4 0x7f0000001235\n"
	"\nMAPPED_LIBRARIES:\n"
	"00400000-00401000 r-xp 00000000 08:02 173521      /usr/bin/prog\n"
	"7f0000000000-7f0000100000 r-xp 00000000 08:02 99 /lib/libc.so.6 (deleted)\n",
	"heap profile: 1: 524288 [3: 1572864] @ heap/1048576\n"
	"1: 524288 [3: 1572864] @ 0x1000 0x2001\n"
	"--- Memory map: ---\n"
	"I0601 12:00:00.000000 1 x.cc:4] 0x40000-0x80000 /path/to/binary (@ff00) abc123\n"
	"source=/home\n0x90000 0xa0000 r-xp $source/x 87c4d547\n",
	"heap profile: 0: 0 [0: 0] @ growthz\n0: 0 [0: 0] @ 0x1\n",
};

static void feed(const uint8_t *d, size_t n)
{
	/* a private copy so reads past the end are caught by ASan */
	uint8_t *c = sp_xmalloc(n ? n : 1);
	memcpy(c, d, n);
	LLVMFuzzerTestOneInput(c, n);
	free(c);
}

typedef struct {
	uint8_t **v;
	size_t *len;
	size_t n, cap, cap2;
} corpus;

static void add(corpus *c, const uint8_t *d, size_t n)
{
	uint8_t *copy = sp_xmalloc(n + 1);
	memcpy(copy, d, n);
	sp_grow(&c->len, &c->cap2, c->n + 1, sizeof(size_t));
	c->len[c->n] = n;
	SP_PUSH(c->v, c->n, c->cap, copy);
}

/* Loads DIR's *.in files, or with ALL every file, and its subdirectories
 * without a dot in their names. */
static void load_dir(corpus *c, const char *dir, bool all)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (e->d_name[0] == '.')
			continue;
		char *path = sp_xasprintf("%s/%s", dir, e->d_name);
		if (all || (n > 3 && strcmp(e->d_name + n - 3, ".in") == 0)) {
			uint8_t *data;
			size_t len;
			sp_error *err = sp_read_file(path, &data, &len);
			if (!err) {
				add(c, data, len);
				free(data);
			}
			sp_error_free(err);
		} else if (!strchr(e->d_name, '.')) {
			load_dir(c, path, all);
		}
		free(path);
	}
	closedir(d);
}

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		for (int i = 1; i < argc; i++) {
			uint8_t *data;
			size_t len;
			sp_error *e = sp_read_file(argv[i], &data, &len);
			if (e) {
				char *m = sp_error_string(e);
				fprintf(stderr, "%s\n", m);
				free(m);
				sp_error_free(e);
				return 2;
			}
			feed(data, len);
			free(data);
		}
		return 0;
	}
	corpus c = {0};
	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++)
		add(&c, (const uint8_t *)seeds[i], strlen(seeds[i]));
	const char *src = getenv("SP_SRCDIR");
	char *root = sp_xasprintf("%s/tests/malformed", src && *src ? src : ".");
	load_dir(&c, root, false);
	free(root);
	/* the harness's own inputs: its seeds and regression inputs, and what
	 * campaigns reached (scripts/fuzz --campaign) */
	const char *base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	if (strncmp(base, "lt-", 3) == 0)
		base += 3;
	static const char *const own[] = {"seeds", "corpus"};
	for (size_t i = 0; strncmp(base, "fuzz_", 5) == 0 && i < 2; i++) {
		char *dir = sp_xasprintf("%s/tests/fuzz/%s/%s", src && *src ? src : ".", own[i],
					 base + 5);
		load_dir(&c, dir, true);
		free(dir);
	}
	for (size_t i = 0; i < c.n; i++)
		feed(c.v[i], c.len[i]);
	static const char dict[] = "0123456789abcdefx :[]@/-\n#$=()_.XZ\x00\xff";
	uint64_t s = 0x9e3779b97f4a7c15ULL;
	size_t runs = &sp_fuzz_mutations ? sp_fuzz_mutations : 20000;
	uint8_t *buf = NULL;
	size_t cap = 0;
	for (size_t r = 0; r < runs; r++) {
		size_t k = rng(&s) % c.n, n = c.len[k];
		sp_grow(&buf, &cap, n + 64, 1);
		memcpy(buf, c.v[k], n);
		for (int m = (int)(rng(&s) % 4) + 1; m > 0; m--) {
			size_t at = n ? rng(&s) % n : 0;
			switch (rng(&s) % 4) {
			case 0: /* replace */
				if (n)
					buf[at] = (uint8_t)dict[rng(&s) % (sizeof(dict) - 1)];
				break;
			case 1: /* insert */
				if (n + 1 < cap) {
					memmove(buf + at + 1, buf + at, n - at);
					buf[at] = (uint8_t)dict[rng(&s) % (sizeof(dict) - 1)];
					n++;
				}
				break;
			case 2: /* delete */
				if (n) {
					memmove(buf + at, buf + at + 1, n - at - 1);
					n--;
				}
				break;
			default: /* truncate */
				n = at;
				break;
			}
		}
		feed(buf, n);
	}
	free(buf);
	printf("ok 1 - %zu corpus inputs and %zu mutations without a crash\n1..1\n", c.n, runs);
	for (size_t i = 0; i < c.n; i++)
		free(c.v[i]);
	free(c.v);
	free(c.len);
	return 0;
}
