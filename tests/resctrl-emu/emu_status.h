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
/* A write the kernel takes as one line (mbm_assign_mode, mbm_*_assignments, io_alloc_cbm): the status
 * cleared, then 0 with `buf` cut at its newline, or -EINVAL with "<file>: Invalid input" when the
 * write does not end in one. */
int emu_status_one_line(struct emu_status *s, const char *file, char *buf, size_t len);

#endif
