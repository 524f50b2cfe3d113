/* mem.c — allocation that aborts on exhaustion, and growable buffers. */
#include "common/common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(void)
{
	fputs("symprof: out of memory\n", stderr);
	abort();
}

void *sp_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *sp_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *sp_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *sp_xreallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		oom();
	return sp_xrealloc(p, n * size);
}

char *sp_xstrdup(const char *s)
{
	return sp_xstrndup(s, strlen(s));
}

char *sp_xstrndup(const char *s, size_t n)
{
	char *p = sp_xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *sp_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	va_start(ap, fmt);
	int r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		oom();
	return s;
}

char *sp_hex_string(const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	char *s = sp_xmalloc(2 * n + 1);
	for (size_t i = 0; i < n; i++) {
		s[2 * i] = digits[p[i] >> 4];
		s[2 * i + 1] = digits[p[i] & 15];
	}
	s[2 * n] = '\0';
	return s;
}

void sp_grow(void *arrp, size_t *cap, size_t need, size_t elsz)
{
	void **arr = arrp;
	if (need <= *cap)
		return;
	size_t ncap = *cap ? *cap : 8;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			oom();
		ncap *= 2;
	}
	*arr = sp_xreallocarray(*arr, ncap, elsz);
	*cap = ncap;
}

void sp_buf_append(sp_buf *b, const void *data, size_t n)
{
	sp_grow(&b->data, &b->cap, b->len + n + 1, 1);
	if (n)
		memcpy(b->data + b->len, data, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void sp_buf_puts(sp_buf *b, const char *s)
{
	sp_buf_append(b, s, strlen(s));
}

void sp_buf_printf(sp_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char tmp[256];
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	if ((size_t)n < sizeof(tmp)) {
		sp_buf_append(b, tmp, (size_t)n);
	} else {
		sp_grow(&b->data, &b->cap, b->len + (size_t)n + 1, 1);
		vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
		b->len += (size_t)n;
	}
	va_end(ap2);
}

const char *sp_buf_str(sp_buf *b)
{
	if (!b->data)
		sp_buf_append(b, "", 0);
	return b->data;
}

char *sp_buf_take(sp_buf *b)
{
	sp_buf_str(b);
	char *s = b->data;
	b->data = NULL;
	b->len = b->cap = 0;
	return s;
}

void sp_buf_reset(sp_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

void sp_buf_free(sp_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
