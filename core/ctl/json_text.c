/* JSON written straight into text, byte for byte what jansson dumps (json_text.h). */
#include "core/ctl/json_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"
#include "core/base/utf8.h"

void json_text_fini(struct json_text *t)
{
	free(t->data);
	*t = (struct json_text){ 0 };
}

/* Room for `more` bytes and a NUL; false (and `failed`) when out of memory. */
static bool text_reserve(struct json_text *t, size_t more)
{
	if (!t->failed && array_grow((void **)&t->data, &t->cap, t->len + more + 1, 1, NULL) < 0)
		t->failed = true;
	return !t->failed;
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

/* m * 2^e * 10^p as an integer rounded to nearest, ties to even (what printf does with the exact
 * binary value), and its floor in *floor_ret: exact in 128 bits for m < 2^53, 0 <= p <= 20 and the
 * result below 2^64. */
static uint64_t scaled_round(uint64_t m, int e, int p, uint64_t *floor_ret)
{
	static const uint64_t pow5[21] = { 1ull,
					   5ull,
					   25ull,
					   125ull,
					   625ull,
					   3125ull,
					   15625ull,
					   78125ull,
					   390625ull,
					   1953125ull,
					   9765625ull,
					   48828125ull,
					   244140625ull,
					   1220703125ull,
					   6103515625ull,
					   30517578125ull,
					   152587890625ull,
					   762939453125ull,
					   3814697265625ull,
					   19073486328125ull,
					   95367431640625ull };
	unsigned __int128 prod = (unsigned __int128)m * pow5[p]; /* below 2^100 */
	int shift = e + p;					 /* the value is prod * 2^shift */

	if (shift >= 0) {
		*floor_ret = (uint64_t)(prod << shift); /* callers keep it below 2^64: shift is small */
		return *floor_ret;
	}
	int s = -shift;
	if (s >= 100) {
		*floor_ret = 0;
		return 0;
	}
	unsigned __int128 q = prod >> s, rest = prod - (q << s), half = (unsigned __int128)1 << (s - 1);
	*floor_ret = (uint64_t)q;
	return (uint64_t)q + (rest > half || (rest == half && (q & 1)));
}

#define G17_LOW	 10000000000000000ull /* 17 significant digits: an integer in [G17_LOW, G17_HIGH) */
#define G17_HIGH 100000000000000000ull

/* The 17 significant digits of a (1e-4 <= a < 1e16) as an integer and its decimal exponent; false
 * when the first guess of the exponent cannot be mended. */
static bool g17_digits(double a, uint64_t *digits, int *exponent)
{
	int e2, x = (int)floor(log10(a));		 /* perhaps one off */
	uint64_t m = (uint64_t)ldexp(frexp(a, &e2), 53); /* a = m * 2^(e2 - 53), exactly */

	for (int tries = 0; tries < 3; tries++) {
		uint64_t below;
		if (16 - x < 0 || 16 - x > 20)
			return false;
		uint64_t d = scaled_round(m, e2 - 53, 16 - x, &below);
		if (below >= G17_HIGH) {
			x++;
		} else if (below < G17_LOW) {
			x--;
		} else {
			if (d == G17_HIGH) { /* rounded up to the next power of ten */
				d = G17_LOW;
				x++;
			}
			*digits = d;
			*exponent = x;
			return true;
		}
	}
	return false;
}

/* "%.17g" of v without printf, for 1e-4 <= |v| < 1e16 (fixed notation, no exponent): the exact value
 * rounded to 17 significant digits, trailing zeros dropped. false: v is outside, printf it is. At
 * thousands of partitions, printf's reals were most of a list's cost. */
static bool g17_fixed(double v, char *text, size_t *ret_len)
{
	double a = fabs(v);
	uint64_t d;
	int x;
	char digits[17];

	if (!(a >= 1e-4 && a < 1e16) || !g17_digits(a, &d, &x) || x < -4 || x > 16)
		return false;
	for (int i = 16; i >= 0; i--, d /= 10)
		digits[i] = (char)('0' + d % 10);
	int last = 16; /* the last digit kept: trailing zeros of the fraction go */
	while (last > x && last > 0 && digits[last] == '0')
		last--;
	size_t n = 0;
	if (v < 0)
		text[n++] = '-';
	if (x >= 0) {
		memcpy(text + n, digits, (size_t)x + 1);
		n += (size_t)x + 1;
		if (last > x)
			text[n++] = '.';
	} else {
		memcpy(text + n, "0.000", (size_t)(1 - x)); /* "0." and -x-1 zeros */
		n += (size_t)(1 - x);
	}
	int first = x >= 0 ? x + 1 : 0; /* the first digit of the fraction */
	if (last >= first) {
		memcpy(text + n, digits + first, (size_t)(last - first + 1));
		n += (size_t)(last - first + 1);
	}
	*ret_len = n;
	return true;
}

/* jansson's real: "%.17g", the locale's decimal point read as '.', ".0" when it would read back as
 * an integer, and the exponent without '+' and leading zeros ("1e+20" is "1e20", "1e-05" "1e-5"). */
bool json_text_real(struct json_text *t, double v)
{
	char text[48];
	size_t len;

	if (!isfinite(v))
		return false;
	if (!g17_fixed(v, text, &len)) {
		int n = snprintf(text, sizeof(text) - 2, "%.17g", v);
		if (n < 0 || (size_t)n >= sizeof(text) - 2)
			return false;
		len = (size_t)n;
		for (size_t i = 0; i < len; i++)
			if (text[i] != '-' && text[i] != '+' && text[i] != 'e' && (text[i] < '0' || text[i] > '9'))
				text[i] = '.';
	}
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
