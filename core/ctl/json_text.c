/* JSON written straight into text, byte for byte what jansson dumps (json_text.h). */
#include "core/ctl/json_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/utf8.h"

#define INITIAL_CAP 4096

void json_text_fini(struct json_text *t)
{
	free(t->data);
	*t = (struct json_text){ 0 };
}

/* Room for `more` bytes and a NUL; false (and `failed`) when out of memory. */
static bool text_reserve(struct json_text *t, size_t more)
{
	if (t->failed)
		return false;
	if (t->len + more + 1 <= t->cap)
		return true;
	size_t cap = t->cap ? t->cap : INITIAL_CAP;
	while (cap < t->len + more + 1)
		cap *= 2;
	char *grown = realloc(t->data, cap);
	if (!grown) {
		t->failed = true;
		return false;
	}
	t->data = grown;
	t->cap = cap;
	return true;
}

void json_text_raw(struct json_text *t, const char *s, size_t n)
{
	if (n == 0 || !text_reserve(t, n))
		return;
	memcpy(t->data + t->len, s, n);
	t->len += n;
	t->data[t->len] = '\0';
}

void json_text_lit(struct json_text *t, const char *s)
{
	json_text_raw(t, s, strlen(s));
}

/* The escape of a byte below 0x20 or of '"' and '\\' (what jansson writes for them). */
static size_t escape_of(unsigned char c, char out[7])
{
	static const char hex[] = "0123456789ABCDEF";
	char short_form = c == '"'    ? '"'
			  : c == '\\' ? '\\'
			  : c == '\b' ? 'b'
			  : c == '\f' ? 'f'
			  : c == '\n' ? 'n'
			  : c == '\r' ? 'r'
			  : c == '\t' ? 't'
				      : 0;

	out[0] = '\\';
	if (short_form) {
		out[1] = short_form;
		return 2;
	}
	memcpy(out + 1, "u00", 3);
	out[4] = hex[c >> 4];
	out[5] = hex[c & 0xf];
	return 6;
}

static bool needs_escape(unsigned char c)
{
	return c < 0x20 || c == '"' || c == '\\';
}

/* Whether s[0..n) is well-formed UTF-8 (jansson checks before it writes anything). */
static bool utf8_valid(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		size_t len = utf8_sequence_len(s + i, n - i);
		if (!len)
			return false;
		i += len;
	}
	return true;
}

bool json_text_string_n(struct json_text *t, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	if (!utf8_valid(u, n))
		return false;
	/* Runs that need no escape are copied whole: most of a name or a metrics line is one. */
	json_text_raw(t, "\"", 1);
	size_t run = 0;
	for (size_t i = 0; i < n; i++) {
		if (!needs_escape(u[i]))
			continue;
		char esc[7];
		json_text_raw(t, s + run, i - run);
		json_text_raw(t, esc, escape_of(u[i], esc));
		run = i + 1;
	}
	json_text_raw(t, s + run, n - run);
	json_text_raw(t, "\"", 1);
	return true;
}

bool json_text_string(struct json_text *t, const char *s)
{
	return json_text_string_n(t, s, strlen(s));
}

bool json_text_string_or_null(struct json_text *t, const char *s)
{
	if (!s) {
		json_text_null(t);
		return true;
	}
	return json_text_string(t, s);
}

void json_text_int(struct json_text *t, long long v)
{
	char digits[24], *p = digits + sizeof(digits);
	/* The magnitude as unsigned: -LLONG_MIN does not fit a long long. */
	unsigned long long m = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;

	do {
		*--p = (char)('0' + m % 10);
		m /= 10;
	} while (m);
	if (v < 0)
		*--p = '-';
	json_text_raw(t, p, (size_t)(digits + sizeof(digits) - p));
}

void json_text_bool(struct json_text *t, bool v)
{
	if (v)
		json_text_raw(t, "true", 4);
	else
		json_text_raw(t, "false", 5);
}

void json_text_null(struct json_text *t)
{
	json_text_raw(t, "null", 4);
}

/* jansson's real: "%.17g", the locale's decimal point read as '.', ".0" when it would read back as
 * an integer, and the exponent without '+' and leading zeros ("1e+20" is "1e20", "1e-05" "1e-5"). */
bool json_text_real(struct json_text *t, double v)
{
	char text[48];
	int n;

	if (!isfinite(v))
		return false;
	n = snprintf(text, sizeof(text) - 2, "%.17g", v);
	if (n < 0 || (size_t)n >= sizeof(text) - 2)
		return false;
	size_t len = (size_t)n;
	for (size_t i = 0; i < len; i++)
		if (text[i] != '-' && text[i] != '+' && text[i] != 'e' && (text[i] < '0' || text[i] > '9'))
			text[i] = '.';
	char *e = memchr(text, 'e', len);
	if (!e && !memchr(text, '.', len)) {
		memcpy(text + len, ".0", 2);
		len += 2;
	}
	if (e) {
		char *start = e + 1, *end = start + 1;
		if (*start == '-')
			start++;
		while (*end == '0')
			end++;
		memmove(start, end, len - (size_t)(end - text));
		len -= (size_t)(end - start);
	}
	json_text_raw(t, text, len);
	return true;
}

bool json_text_pct(struct json_text *t, double pct)
{
	if (pct == floor(pct) && fabs(pct) < 1e15) {
		json_text_int(t, (long long)pct);
		return true;
	}
	return json_text_real(t, pct);
}
