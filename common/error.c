/* error.c — errors that keep their cause and add context. */
#include "common/common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const messages[] = {
#define SP_ERR_MSG(name, msg) msg,
	SP_ERRORS(SP_ERR_MSG)
#undef SP_ERR_MSG
};

const char *sp_errcode_str(sp_errcode code)
{
	if ((unsigned)code >= SP_E_COUNT_)
		return "unknown error";
	return messages[code];
}

sp_error *sp_error_newv(sp_errcode code, const char *fmt, va_list ap)
{
	sp_error *e = sp_xcalloc(1, sizeof(*e));
	e->code = code;
	if (fmt) {
		char *s = NULL;
		if (vasprintf(&s, fmt, ap) < 0)
			sp_oom();
		e->msg = s;
	}
	return e;
}

sp_error *sp_error_new(sp_errcode code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sp_error *e = sp_error_newv(code, fmt, ap);
	va_end(ap);
	return e;
}

sp_error *sp_error_wrap(sp_error *cause, sp_errcode code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sp_error *e = sp_error_newv(code, fmt, ap);
	va_end(ap);
	e->cause = cause;
	return e;
}

sp_error *sp_error_prefix(sp_error *cause, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sp_error *e = sp_error_newv(cause ? cause->code : SP_E_OK, fmt, ap);
	va_end(ap);
	e->cause = cause;
	return e;
}

void sp_error_free(sp_error *err)
{
	while (err) {
		sp_error *next = err->cause;
		free(err->msg);
		free(err);
		err = next;
	}
}

sp_error *sp_error_dup(const sp_error *err)
{
	sp_error *head = NULL, **tail = &head;
	for (; err; err = err->cause) {
		sp_error *e = sp_xcalloc(1, sizeof(*e));
		e->code = err->code;
		e->msg = err->msg ? sp_xstrdup(err->msg) : NULL;
		*tail = e;
		tail = &e->cause;
	}
	return head;
}

sp_errcode sp_error_root_code(const sp_error *err)
{
	if (!err)
		return SP_E_OK;
	while (err->cause)
		err = err->cause;
	return err->code;
}

char *sp_error_string(const sp_error *err)
{
	sp_buf b = {0};
	for (const sp_error *e = err; e; e = e->cause) {
		if (b.len)
			sp_buf_puts(&b, ": ");
		if (e->msg && *e->msg)
			sp_buf_puts(&b, e->msg);
		else
			sp_buf_puts(&b, sp_errcode_str(e->code));
	}
	if (!b.len)
		sp_buf_puts(&b, "success");
	return sp_buf_take(&b);
}
