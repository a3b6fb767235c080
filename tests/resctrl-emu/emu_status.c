/* See emu_status.h. */
#include "emu_status.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

void emu_status_clear(struct emu_status *s)
{
	s->len = 0;
	s->buf[0] = '\0';
}

void emu_status_printf(struct emu_status *s, const char *fmt, ...)
{
	va_list ap;
	size_t room = sizeof(s->buf) - s->len;

	va_start(ap, fmt);
	int n = vsnprintf(s->buf + s->len, room, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	/* Truncated text stays; the buffer then reads as full, like an overflowed seq_buf. */
	s->len = (size_t)n < room ? s->len + (size_t)n : sizeof(s->buf) - 1;
}

void emu_status_show(const struct emu_status *s, struct emu_buf *out)
{
	if (s->len)
		emu_buf_printf(out, "%.*s", (int)s->len, s->buf);
	else
		emu_buf_printf(out, "ok\n");
}

int emu_status_one_line(struct emu_status *s, const char *file, char *buf, size_t len)
{
	emu_status_clear(s);
	if (len == 0 || buf[len - 1] != '\n') {
		emu_status_printf(s, "%s: Invalid input\n", file);
		return -EINVAL;
	}
	buf[len - 1] = '\0';
	return 0;
}
