/* info/last_cmd_status: the messages of the last command, or "ok". Like the kernel's seq_buf it
 * holds at most 512 bytes and silently drops what does not fit. */
#ifndef MPAMD_TESTS_RESCTRL_EMU_STATUS_H
#define MPAMD_TESTS_RESCTRL_EMU_STATUS_H

#include <stddef.h>

#include "emu_text.h"

#define EMU_STATUS_SIZE 512

struct emu_status {
	char buf[EMU_STATUS_SIZE];
	size_t len;
};

void emu_status_clear(struct emu_status *s);
/* Appends; callers end each message with "\n" as the kernel does. */
__attribute__((format(printf, 2, 3))) void emu_status_printf(struct emu_status *s, const char *fmt, ...);
void emu_status_show(const struct emu_status *s, struct emu_buf *out);

#endif
