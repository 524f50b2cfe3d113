/* decompress_zstd.c — zstd data read whole (sp_unzstd), for readers that
 * take a compressed file at once (OTLP profiles). */
#include "common/common.h"

#include <stdlib.h>
#include <zstd.h>

bool sp_is_zstd(const uint8_t *data, size_t len)
{
	return len >= 4 && data[0] == 0x28 && data[1] == 0xb5 && data[2] == 0x2f && data[3] == 0xfd;
}

sp_error *sp_unzstd(const char *name, const uint8_t *in, size_t len, size_t max, uint8_t **out,
		    size_t *outlen)
{
	size_t lim = sp_mem_limit();
	if (lim && lim < max)
		max = lim;
	ZSTD_DStream *z = ZSTD_createDStream();
	if (!z)
		sp_oom();
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0, rc = 0;
	sp_error *err = NULL;
	ZSTD_inBuffer ib = {in, len, 0};
	while (!err) {
		size_t before = ib.pos;
		if (cap - n < ZSTD_DStreamOutSize()) {
			if (n >= max) {
				err = sp_error_new(SP_E_LIMIT,
						   "%s: zstd data inflates to more than %zu bytes "
						   "(the memory limit)",
						   name, max);
				break;
			}
			sp_grow(&buf, &cap, n + ZSTD_DStreamOutSize(), 1);
		}
		ZSTD_outBuffer ob = {buf + n, cap - n, 0};
		rc = ZSTD_decompressStream(z, &ob, &ib);
		n += ob.pos;
		if (ZSTD_isError(rc)) {
			err = sp_error_new(SP_E_MALFORMED, "%s: offset %zu: damaged zstd data: %s",
					   name, ib.pos, ZSTD_getErrorName(rc));
			break;
		}
		if (ib.pos == ib.size && (rc == 0 || (ob.pos == 0 && ib.pos == before)))
			break;
	}
	if (!err && rc != 0)
		err = sp_error_new(SP_E_MALFORMED, "%s: offset %zu: the zstd data ends inside a frame",
				   name, len);
	ZSTD_freeDStream(z);
	if (err) {
		free(buf);
		return err;
	}
	sp_grow(&buf, &cap, n + 1, 1);
	buf[n] = 0;
	*out = buf;
	*outlen = n;
	return NULL;
}
