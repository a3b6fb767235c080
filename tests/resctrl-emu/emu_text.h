/* Text helpers: a growable output buffer for file contents, and the kernel's own string-to-number
 * and trimming rules (lib/kstrtox.c, lib/string.c), so parsing accepts exactly what resctrl does. */
#ifndef MPAMD_TESTS_RESCTRL_EMU_TEXT_H
#define MPAMD_TESTS_RESCTRL_EMU_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct emu_buf {
	char *data; /* NUL-terminated, NULL while empty */
	size_t len;
	size_t cap;
	bool oom;
};

void emu_buf_init(struct emu_buf *b);
void emu_buf_fini(struct emu_buf *b);
__attribute__((format(printf, 2, 3))) void emu_buf_printf(struct emu_buf *b, const char *fmt, ...);
void emu_buf_putc(struct emu_buf *b, char c);

/* strim(): skips leading white space and cuts trailing white space in place. */
char *emu_strim(char *s);

/* kstrtoull and friends: optional '+', base 0 picks 0x/0 prefixes, base 16 accepts 0x, one trailing
 * newline allowed, nothing else. 0, -EINVAL or -ERANGE. */
int emu_kstrtoull(const char *s, unsigned base, unsigned long long *res);
int emu_kstrtou32(const char *s, unsigned base, uint32_t *res);
int emu_kstrtouint(const char *s, unsigned base, unsigned *res);
int emu_kstrtoint(const char *s, unsigned base, int *res);
int emu_kstrtobool(const char *s, bool *res);

/* _parse_integer(): the number of characters of s that form a base-`base` number (0 if none), the
 * value in *res and *overflow set when it does not fit in 64 bits. */
size_t emu_parse_integer(const char *s, unsigned base, unsigned long long *res, bool *overflow);

#endif
