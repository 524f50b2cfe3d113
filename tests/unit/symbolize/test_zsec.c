/* test_zsec.c — symbolize/zsec.c: a zlib stream inflated only as far as it is
 * asked for.  The section is 1 MiB of bytes that follow from their offset
 * (byte i is (i * 7 + i / 4096) & 0xff), compressed here with zlib's
 * compress2, so every inflated byte can be checked and the untouched rest
 * must read as zeros.
 */
#include "symbolize/dwarf/dwarfp.h"
#include "tests/helpers/tap.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define SIZE ((size_t)1 << 20)

static unsigned char byte_at(size_t i)
{
	return (unsigned char)((i * 7 + i / 4096) & 0xff);
}

/* Whether the first N bytes of P are the section's and the rest of its
 * SIZE bytes zeros. */
static bool check(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < SIZE; i++)
		if (p[i] != (i < n ? byte_at(i) : 0))
			return false;
	return true;
}

int main(void)
{
	unsigned char *plain = malloc(SIZE);
	for (size_t i = 0; i < SIZE; i++)
		plain[i] = byte_at(i);
	uLongf zn = compressBound(SIZE);
	unsigned char *z = malloc(zn);
	if (compress2(z, &zn, plain, SIZE, 6) != Z_OK)
		return 99;

	/* asked for a little: at least that, far from all of it */
	sp_zsec *s = sp_zsec_new(z, zn, SIZE);
	TAP_OK(s != NULL, "a zlib stream is taken");
	TAP_EQ_U64(sp_zsec_valid(s), 0, "nothing inflated before it is asked for");
	TAP_OK(sp_zsec_need(s, 100), "the first 100 bytes");
	size_t v = sp_zsec_valid(s);
	TAP_OK(v >= 100 && v < SIZE / 2, "inflated up to 100 bytes and a step, not more (%zu)", v);
	TAP_OK(check(sp_zsec_data(s), v), "the inflated bytes are the section's, the rest zeros");
	/* asked for less again: nothing changes */
	TAP_OK(sp_zsec_need(s, 50) && sp_zsec_valid(s) == v, "a second, smaller need is free");
	/* then past a step */
	TAP_OK(sp_zsec_need(s, 700000), "up to byte 700000");
	v = sp_zsec_valid(s);
	TAP_OK(v >= 700000 && check(sp_zsec_data(s), v), "up to byte 700000: right bytes (%zu)",
	       v);
	/* more than there is: all of it */
	TAP_OK(sp_zsec_need(s, SIZE * 2), "past the end: the whole section");
	TAP_EQ_U64(sp_zsec_valid(s), SIZE, "the whole section inflated");
	TAP_OK(check(sp_zsec_data(s), SIZE), "the whole section: right bytes");
	TAP_OK(sp_zsec_error(s) == NULL, "no error");
	sp_zsec_free(s);

	/* all at once into a buffer of ours */
	unsigned char *out = malloc(SIZE);
	TAP_OK(sp_zsec_inflate(z, zn, out, SIZE) == NULL && !memcmp(out, plain, SIZE),
	       "sp_zsec_inflate: the whole section");
	TAP_EQ_STR(sp_zsec_inflate(z, zn, out, SIZE + 1), "less data than the header says",
		   "a header claiming a byte more is caught");
	TAP_EQ_STR(sp_zsec_inflate(z, zn, out, SIZE - 1), "more data than the header says",
		   "a header claiming a byte less is caught");
	TAP_EQ_STR(sp_zsec_check(plain, 16), "not a zlib stream", "plain bytes are no zlib stream");
	TAP_OK(sp_zsec_new(plain, 16, SIZE) == NULL, "sp_zsec_new refuses them");

	/* cut short: the first half inflates, then an error */
	s = sp_zsec_new(z, zn / 2, SIZE);
	TAP_OK(s && sp_zsec_need(s, 1000), "a stream cut in half: its start inflates");
	TAP_OK(s && !sp_zsec_need(s, SIZE), "a stream cut in half: not all of it");
	TAP_EQ_STR(sp_zsec_error(s), "cut short", "a stream cut in half: cut short");
	TAP_OK(s && !sp_zsec_need(s, SIZE) && sp_zsec_valid(s) < SIZE,
	       "the failure stays, what was inflated stays valid");
	sp_zsec_free(s);

	/* damaged in the middle: the start is right, the error comes where it is */
	unsigned char *bad = malloc(zn);
	memcpy(bad, z, zn);
	for (size_t i = zn / 2; i < zn / 2 + 64; i++)
		bad[i] = 0xff;
	s = sp_zsec_new(bad, zn, SIZE);
	TAP_OK(s && sp_zsec_need(s, 1000) && check(sp_zsec_data(s), sp_zsec_valid(s)),
	       "a stream damaged in the middle: its start inflates right");
	bool failed = s && !sp_zsec_need(s, SIZE);
	const char *why = s ? sp_zsec_error(s) : NULL;
	TAP_OK(failed && why && sp_zsec_valid(s) < SIZE,
	       "a stream damaged in the middle: an error before its end (%s)", why ? why : "none");
	sp_zsec_free(s);
	sp_zsec_free(NULL);
	TAP_OK(sp_zsec_need(NULL, 5), "no section: nothing to inflate");

	free(bad);
	free(out);
	free(z);
	free(plain);
	return tap_done();
}
