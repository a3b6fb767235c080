/* See emu_text.h. */
#include "emu_text.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"

void emu_buf_init(struct emu_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void emu_buf_fini(struct emu_buf *b)
{
	free(b->data);
	emu_buf_init(b);
}

static bool reserve(struct emu_buf *b, size_t extra)
{
	if (!b->oom && array_grow((void **)&b->data, &b->cap, b->len + extra + 1, 1, NULL) < 0)
		b->oom = true;
	return !b->oom;
}

void emu_buf_printf(struct emu_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void emu_buf_putc(struct emu_buf *b, char c)
{
	if (!reserve(b, 1))
		return;
	b->data[b->len++] = c;
	b->data[b->len] = '\0';
}

char *emu_strim(char *s)
{
	size_t len = strlen(s);

	while (len > 0 && isspace((unsigned char)s[len - 1]))
		s[--len] = '\0';
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : 99;
}

size_t emu_parse_integer(const char *s, unsigned base, unsigned long long *res, bool *overflow)
{
	size_t n = 0;

	*res = 0;
	*overflow = false;
	for (int d; (d = digit_value(s[n])) < (int)base; n++) {
		if (*res > (ULLONG_MAX - (unsigned)d) / base)
			*overflow = true;
		*res = *res * base + (unsigned)d;
	}
	return n;
}

/* _parse_integer_fixup_radix(). */
static const char *fixup_radix(const char *s, unsigned *base)
{
	bool has_x = s[0] == '0' && tolower((unsigned char)s[1]) == 'x';

	if (*base == 0)
		*base = has_x && isxdigit((unsigned char)s[2]) ? 16 : s[0] == '0' ? 8 : 10;
	if (*base == 16 && has_x)
		s += 2;
	return s;
}

/* _kstrtoull(): the digits, then at most one newline. */
static int parse_unsigned(const char *s, unsigned base, unsigned long long *res)
{
	bool overflow;

	s = fixup_radix(s, &base);
	size_t n = emu_parse_integer(s, base, res, &overflow);
	if (n == 0)
		return -EINVAL;
	if (overflow)
		return -ERANGE;
	s += n;
	if (*s == '\n')
		s++;
	return *s ? -EINVAL : 0;
}

int emu_kstrtoull(const char *s, unsigned base, unsigned long long *res)
{
	if (s[0] == '+')
		s++;
	return parse_unsigned(s, base, res);
}

int emu_kstrtou32(const char *s, unsigned base, uint32_t *res)
{
	unsigned long long v;
	int r = emu_kstrtoull(s, base, &v);

	if (r)
		return r;
	if (v > UINT32_MAX)
		return -ERANGE;
	*res = (uint32_t)v;
	return 0;
}

int emu_kstrtouint(const char *s, unsigned base, unsigned *res)
{
	uint32_t v;
	int r = emu_kstrtou32(s, base, &v);

	if (!r)
		*res = v;
	return r;
}

int emu_kstrtoint(const char *s, unsigned base, int *res)
{
	unsigned long long v;
	bool negative = s[0] == '-';
	int r = negative ? parse_unsigned(s + 1, base, &v) : emu_kstrtoull(s, base, &v);

	if (r)
		return r;
	if (negative ? v > (unsigned long long)INT_MAX + 1 : v > INT_MAX)
		return -ERANGE;
	*res = (int)(negative ? -(long long)v : (long long)v);
	return 0;
}

int emu_kstrtobool(const char *s, bool *res)
{
	switch (s[0]) {
	case 'y':
	case 'Y':
	case 't':
	case 'T':
	case '1':
		*res = true;
		return 0;
	case 'n':
	case 'N':
	case 'f':
	case 'F':
	case '0':
		*res = false;
		return 0;
	case 'o':
	case 'O':
		if (tolower((unsigned char)s[1]) == 'n' || tolower((unsigned char)s[1]) == 'f') {
			*res = tolower((unsigned char)s[1]) == 'n';
			return 0;
		}
		return -EINVAL;
	default:
		return -EINVAL;
	}
}
