/* filehash.c — the OpenTelemetry eBPF profiler's file id ("htlhash"), and a
 * session's cache of the ids of the files it looked at.
 *
 * The profiler names a mapped file by (libpf/fileid.go,
 * FileIDFromExecutableReader, opentelemetry-ebpf-profiler b442421a32cc):
 *
 *   SHA-256( the first min(size, 4096) bytes
 *          ‖ the last min(size, 4096) bytes   (a file under 8 KiB: overlapping)
 *          ‖ size as 8 bytes, big-endian )
 *
 * truncated to its first 16 bytes, written as 32 lower-case hex digits, and
 * sends it as process.executable.build_id.htlhash.  A stripped binary, or an
 * Alpine one without a GNU build-id note, can be matched by nothing else, so
 * the finder hashes its candidates: 8 KiB read per file, once per session
 * for each file (cached by device, inode, size and modification time).
 *
 * SHA-256 (FIPS 180-4) is written here rather than taken from a crypto
 * library: symprof links none, and this is its one use.
 */
#include "symbolize/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* -- SHA-256 ------------------------------------------------------------------ */

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

static uint32_t ror(uint32_t x, int n)
{
	return x >> n | x << (32 - n);
}

static void block(uint32_t h[8], const uint8_t *p)
{
	uint32_t w[64];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = k + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K[i] +
			      w[i];
		uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		k = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
	h[5] += f;
	h[6] += g;
	h[7] += k;
}

void sp_sha256_init(sp_sha256 *s)
{
	static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
				       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	memcpy(s->h, iv, sizeof(iv));
	s->len = 0;
	s->n = 0;
}

void sp_sha256_update(sp_sha256 *s, const void *data, size_t n)
{
	const uint8_t *p = data;
	s->len += n;
	if (s->n) {
		size_t take = 64 - s->n < n ? 64 - s->n : n;
		memcpy(s->buf + s->n, p, take);
		s->n += take;
		p += take;
		n -= take;
		if (s->n < 64)
			return;
		block(s->h, s->buf);
		s->n = 0;
	}
	for (; n >= 64; p += 64, n -= 64)
		block(s->h, p);
	memcpy(s->buf, p, n);
	s->n = n;
}

void sp_sha256_final(sp_sha256 *s, uint8_t out[32])
{
	uint64_t bits = s->len * 8;
	uint8_t pad = 0x80;
	sp_sha256_update(s, &pad, 1);
	pad = 0;
	while (s->n != 56)
		sp_sha256_update(s, &pad, 1);
	uint8_t be[8];
	for (int i = 0; i < 8; i++)
		be[i] = (uint8_t)(bits >> (56 - 8 * i));
	sp_sha256_update(s, be, 8);
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (uint8_t)(s->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)s->h[i];
	}
}

/* -- the file id ----------------------------------------------------------------- */

#define HTL_PART 4096

/* Reads N bytes at OFF of FD (all of them, or an error naming NAME). */
static sp_error *read_at(int fd, const char *name, uint8_t *buf, size_t n, uint64_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(fd, buf + got, n - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return sp_error_new(SP_E_IO, "%s: %s", name, strerror(errno));
		if (r == 0)
			return sp_error_new(SP_E_IO, "%s: the file ended at byte %llu while hashed",
					    name, (unsigned long long)(off + got));
		got += (size_t)r;
	}
	return NULL;
}

sp_error *sp_htlhash_fd(int fd, uint64_t size, const char *name, char hex[SP_HTLHASH_HEX])
{
	uint8_t head[HTL_PART], tail[HTL_PART], digest[32], be[8];
	size_t nh = size < HTL_PART ? (size_t)size : HTL_PART;
	sp_error *err = read_at(fd, name, head, nh, 0);
	if (!err)
		err = read_at(fd, name, tail, nh, size - nh);
	if (err)
		return err;
	sp_sha256 s;
	sp_sha256_init(&s);
	sp_sha256_update(&s, head, nh);
	sp_sha256_update(&s, tail, nh);
	for (int i = 0; i < 8; i++)
		be[i] = (uint8_t)(size >> (56 - 8 * i));
	sp_sha256_update(&s, be, 8);
	sp_sha256_final(&s, digest);
	static const char digits[] = "0123456789abcdef";
	for (int i = 0; i < 16; i++) {
		hex[2 * i] = digits[digest[i] >> 4];
		hex[2 * i + 1] = digits[digest[i] & 15];
	}
	hex[32] = 0;
	return NULL;
}

/* Opens PATH for hashing: without blocking (a FIFO among the candidates must
 * not hang the search), and a regular file by its descriptor's own status. */
static sp_error *open_regular(const char *path, int *fd, struct stat *st)
{
	*fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (*fd < 0)
		return sp_error_new(errno == ENOENT ? SP_E_NOT_FOUND : SP_E_IO, "%s: %s", path,
				    strerror(errno));
	if (fstat(*fd, st) != 0 || !S_ISREG(st->st_mode)) {
		close(*fd);
		*fd = -1;
		return sp_error_new(SP_E_UNRECOGNIZED, "%s: not a regular file", path);
	}
	return NULL;
}

sp_error *sp_htlhash_file(const char *path, char hex[SP_HTLHASH_HEX])
{
	int fd;
	struct stat st;
	sp_error *err = open_regular(path, &fd, &st);
	if (err)
		return err;
	err = sp_htlhash_fd(fd, (uint64_t)st.st_size, path, hex);
	close(fd);
	return err;
}

/* -- the cache ------------------------------------------------------------------- */

typedef struct {
	dev_t dev;
	ino_t ino;
	off_t size;
	int64_t mtime_ns;
	char hex[SP_HTLHASH_HEX];
} hashed;

struct sp_filehash_cache {
	hashed *v;
	size_t n, cap;
	sp_idxset index;
	size_t n_hashed; /* files read */
};

sp_filehash_cache *sp_filehash_cache_new(void)
{
	return sp_xcalloc(1, sizeof(sp_filehash_cache));
}

void sp_filehash_cache_free(sp_filehash_cache *c)
{
	if (!c)
		return;
	free(c->v);
	sp_idxset_free(&c->index);
	free(c);
}

size_t sp_filehash_cache_hashed(const sp_filehash_cache *c)
{
	return c ? c->n_hashed : 0;
}

typedef struct {
	const sp_filehash_cache *c;
	const hashed *key;
} eq_ctx;

static bool same_file(void *ctx, size_t i)
{
	eq_ctx *e = ctx;
	const hashed *a = &e->c->v[i], *b = e->key;
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_ns == b->mtime_ns;
}

static uint64_t key_hash(const hashed *k)
{
	uint64_t h = sp_hash_u64((uint64_t)k->dev);
	h = sp_hash_combine(h, (uint64_t)k->ino);
	h = sp_hash_combine(h, (uint64_t)k->size);
	return sp_hash_combine(h, (uint64_t)k->mtime_ns);
}

sp_error *sp_filehash_cache_get(sp_filehash_cache *c, const char *path, char hex[SP_HTLHASH_HEX])
{
	int fd;
	struct stat st;
	sp_error *err = open_regular(path, &fd, &st);
	if (err)
		return err;
	hashed k = {.dev = st.st_dev, .ino = st.st_ino, .size = st.st_size,
		    .mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec};
	uint64_t h = key_hash(&k);
	eq_ctx e = {c, &k};
	size_t i = sp_idxset_find(&c->index, h, same_file, &e);
	if (i == SIZE_MAX) {
		err = sp_htlhash_fd(fd, (uint64_t)st.st_size, path, k.hex);
		if (!err) {
			c->n_hashed++;
			SP_PUSH(c->v, c->n, c->cap, k);
			i = c->n - 1;
			sp_idxset_add(&c->index, h, i);
		}
	}
	close(fd);
	if (err)
		return err;
	memcpy(hex, c->v[i].hex, SP_HTLHASH_HEX);
	return NULL;
}

sp_try_status sp_filehash_check(const char *path, void *arg)
{
	sp_filehash_want *w = arg;
	char hex[SP_HTLHASH_HEX];
	sp_error *err = sp_filehash_cache_get(w->cache, path, hex);
	if (err) {
		sp_error_free(err);
		return SP_TRY_FAILED;
	}
	return strcasecmp(hex, w->htlhash) == 0 ? SP_TRY_OK : SP_TRY_FILE_ID_MISMATCH;
}
