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

#include "common/common.h"

#include <string.h>

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
		uint64_t v;
		if (hex[2 * i] == 'x' || hex[2 * i + 1] == 'x' ||
		    !sp_parse_u64(hex + 2 * i, hex + 2 * i + 2, 16, &v))
			return false;
		if (i < 16)
			b[i] = (unsigned char)v;
	}
	for (size_t i = 0; i < 16; i++) {
		out[2 * i] = digits[b[order[i]] >> 4];
		out[2 * i + 1] = digits[b[order[i]] & 15];
	}
	out[32] = '0';
	out[33] = '\0';
	return true;
}
