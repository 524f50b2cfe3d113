/* test_filehash.c — SHA-256 (symbolize/find/filehash.c) against the
 * examples of FIPS 180-2 (appendix B), fed whole and in odd pieces; the
 * eBPF profiler's file id against its own test vector
 * (opentelemetry-ebpf-profiler libpf/fileid_test.go,
 * TestFileIDFromExecutableReader: the 9 bytes 7f 'E' 'L' 'F' 00 01 02 03 04
 * give caf6e5907166ac76 eef618e5f7f59cd9); and the session's cache: a file is
 * read once while it stays the same, again when it changes, and a FIFO
 * among the candidates is refused without blocking.  (The ids of files of
 * every size that matters, against Python's hashlib, are in
 * tests/unit/symbolize/test_htlhash.sh.) */
#include "symbolize/internal.h"
#include "tests/helpers/tap.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void hex(const uint8_t *d, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

static void sha(const char *what, const void *data, size_t n, const char *want)
{
	uint8_t d[32];
	char h[65];
	sp_sha256 s;
	sp_sha256_init(&s);
	sp_sha256_update(&s, data, n);
	sp_sha256_final(&s, d);
	hex(d, 32, h);
	TAP_EQ_STR(h, want, "SHA-256 of %s", what);
	/* the same in pieces of 1, 7, 63, 64, 65 bytes, in turn */
	static const size_t steps[] = {1, 7, 63, 64, 65};
	sp_sha256_init(&s);
	for (size_t at = 0, k = 0; at < n; k++) {
		size_t take = steps[k % 5] < n - at ? steps[k % 5] : n - at;
		sp_sha256_update(&s, (const uint8_t *)data + at, take);
		at += take;
	}
	sp_sha256_final(&s, d);
	hex(d, 32, h);
	TAP_EQ_STR(h, want, "SHA-256 of %s, fed in pieces", what);
}

static char *tmpfile_with(const char *dir, const char *name, const void *data, size_t n)
{
	char *path = sp_xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	fwrite(data, 1, n, f);
	fclose(f);
	return path;
}

int main(void)
{
	sha("\"abc\"", "abc", 3,
	    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha("the empty string", "", 0,
	    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	sha("the 448-bit message", two, strlen(two),
	    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	char *million = sp_xmalloc(1000000);
	memset(million, 'a', 1000000);
	sha("a million a's", million, 1000000,
	    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(million);

	char dir[] = "/tmp/sp-filehash-XXXXXX";
	if (!mkdtemp(dir)) {
		TAP_OK(false, "a temporary directory");
		return tap_done();
	}
	const uint8_t vec[] = {0x7f, 'E', 'L', 'F', 0x00, 0x01, 0x02, 0x03, 0x04};
	char *p = tmpfile_with(dir, "vec", vec, sizeof(vec));
	char id[SP_HTLHASH_HEX];
	sp_error *e = sp_htlhash_file(p, id);
	TAP_OK(!e, "the upstream vector hashes");
	sp_error_free(e);
	TAP_EQ_STR(id, "caf6e5907166ac76eef618e5f7f59cd9", "the upstream test vector's file id");

	sp_filehash_cache *c = sp_filehash_cache_new();
	char id2[SP_HTLHASH_HEX];
	TAP_OK(!sp_filehash_cache_get(c, p, id2) && !strcmp(id2, id), "the cache gives the same id");
	TAP_OK(!sp_filehash_cache_get(c, p, id2) && sp_filehash_cache_hashed(c) == 1,
	       "asked again, the file is not read again");
	char *link = sp_xasprintf("%s/other-name", dir);
	TAP_OK(symlink(p, link) == 0 && !sp_filehash_cache_get(c, link, id2) &&
		       sp_filehash_cache_hashed(c) == 1,
	       "another name of the same file is the same file");
	FILE *f = fopen(p, "ab");
	fputc('x', f);
	fclose(f);
	TAP_OK(!sp_filehash_cache_get(c, p, id2) && sp_filehash_cache_hashed(c) == 2 &&
		       strcmp(id2, id) != 0,
	       "a file that changed is read again, and its id changes");
	sp_filehash_want w = {c, id2};
	TAP_OK(sp_filehash_check(p, &w) == SP_TRY_OK, "the finder's check accepts its id");
	w.htlhash = id;
	TAP_OK(sp_filehash_check(p, &w) == SP_TRY_FILE_ID_MISMATCH,
	       "... and says another id mismatches");
	char *fifo = sp_xasprintf("%s/fifo", dir);
	TAP_OK(mkfifo(fifo, 0600) == 0, "a FIFO among the candidates");
	e = sp_filehash_cache_get(c, fifo, id2);
	TAP_OK(e && sp_error_root_code(e) == SP_E_UNRECOGNIZED, "is refused, without blocking");
	sp_error_free(e);
	TAP_OK(sp_filehash_check(fifo, &w) == SP_TRY_FAILED, "... and fails the check");
	e = sp_filehash_cache_get(c, "/nonexistent/x", id2);
	TAP_OK(e && sp_error_root_code(e) == SP_E_NOT_FOUND, "a missing file is not found");
	sp_error_free(e);
	sp_filehash_cache_free(c);

	unlink(fifo);
	unlink(link);
	unlink(p);
	rmdir(dir);
	free(fifo);
	free(link);
	free(p);
	return tap_done();
}
