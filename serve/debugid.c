/* debugid.c — breakpad debug ids of ELF objects, as the Firefox Profiler,
 * samply and Mozilla's symbol server name them.
 *
 * An ELF object's debug id is its GNU build id read as a GUID: the first 16
 * bytes (fewer are padded with zeros), the GUID's first three fields (4, 2
 * and 2 bytes) taken as little-endian numbers and so written with their
 * bytes reversed, the other 8 bytes as they are; upper-case hex, then the
 * "age", always 0 for ELF: build id 0102030405060708090a0b0c0d0e0f1011121314
 * is debug id 0403020106050807090A0B0C0D0E0F100.
 */
#include "serve/serve.h"

#include <string.h>

static int nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool sv_debug_id(const char *hex, char out[34])
{
	static const char digits[] = "0123456789ABCDEF";
	static const unsigned char order[16] = {3, 2, 1, 0, 5, 4, 7, 6,
						8, 9, 10, 11, 12, 13, 14, 15};
	unsigned char b[16] = {0};
	size_t n = strlen(hex);
	if (n % 2 || !n)
		return false;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return false;
		if (i < 16)
			b[i] = (unsigned char)(hi << 4 | lo);
	}
	for (size_t i = 0; i < 16; i++) {
		out[2 * i] = digits[b[order[i]] >> 4];
		out[2 * i + 1] = digits[b[order[i]] & 15];
	}
	out[32] = '0';
	out[33] = '\0';
	return true;
}
