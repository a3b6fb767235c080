#include "core/base/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_continuation(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

/* Bounds of the second byte: they exclude the overlong forms (E0, F0), the surrogates (ED) and
 * what lies above U+10FFFF (F4); the other bytes are plain continuations. */
static void second_byte_range(unsigned char lead, unsigned char *lo, unsigned char *hi)
{
	*lo = lead == 0xe0 ? 0xa0 : lead == 0xf0 ? 0x90 : 0x80;
	*hi = lead == 0xed ? 0x9f : lead == 0xf4 ? 0x8f : 0xbf;
}

size_t utf8_sequence_len(const unsigned char *s, size_t len)
{
	unsigned char lo, hi;
	size_t need;

	if (len == 0)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		need = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		need = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		need = 4;
	else
		return 0; /* a continuation, C0/C1 (overlong) or F5..FF */
	if (len < need)
		return 0;
	second_byte_range(s[0], &lo, &hi);
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < need; i++)
		if (!is_continuation(s[i]))
			return 0;
	return need;
}

size_t utf8_scrub(char *s)
{
	unsigned char *p = (unsigned char *)s;
	size_t len = strlen(s), replaced = 0;

	for (size_t i = 0; i < len;) {
		size_t n = utf8_sequence_len(p + i, len - i);
		if (n) {
			i += n;
			continue;
		}
		p[i++] = '?';
		replaced++;
	}
	return replaced;
}

char *utf8_escape(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), out_len = 0;

	for (size_t i = 0; i < len;) {
		size_t n = utf8_sequence_len(p + i, len - i);
		out_len += n ? n : 4;
		i += n ? n : 1;
	}
	char *out = malloc(out_len + 1), *o = out;
	if (!out)
		return NULL;
	for (size_t i = 0; i < len;) {
		size_t n = utf8_sequence_len(p + i, len - i);
		if (n) {
			memcpy(o, p + i, n);
			o += n;
			i += n;
		} else {
			o += sprintf(o, "\\x%02X", p[i++]);
		}
	}
	*o = '\0';
	return out;
}
