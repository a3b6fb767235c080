#include "core/base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int err_set(struct err *e, int code, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return code;
	va_start(ap, fmt);
	vsnprintf(e->text, sizeof(e->text), fmt, ap);
	va_end(ap);
	return code;
}

void err_prefix(struct err *e, const char *fmt, ...)
{
	char prefix[ERR_TEXT_MAX], old[ERR_TEXT_MAX];
	va_list ap;

	if (!e)
		return;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, e->text, sizeof(old));
	snprintf(e->text, sizeof(e->text), "%.200s: %.300s", prefix, old);
}
