#include "core/base/parse.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

__attribute__((format(printf, 2, 3))) static int fail(struct err *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(err->text, sizeof(err->text), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int hex_digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

bool word_list_has(const char *list, const char *word, size_t len)
{
	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, word, len) && (p[len] == ',' || p[len] == '\0'))
			return true;
	return false;
}

/* Accumulates digits of `base` from s; fails on an empty run, a foreign character or overflow. */
static int parse_digits(const char *s, unsigned base, uint64_t *ret, struct err *err)
{
	uint64_t v = 0;

	if (!*s)
		return fail(err, "expected a number");
	for (const char *p = s; *p; p++) {
		int d = base == 16 ? hex_digit_value(*p) : (*p >= '0' && *p <= '9' ? *p - '0' : -1);
		if (d < 0) {
			if (*p == '-' && p == s)
				return fail(err, "must not be negative");
			if (*p == '.' && base == 10)
				return fail(err, "expected an integer, not a fraction");
			return fail(err, "unexpected character '%c' in a %s number", *p,
				    base == 16 ? "hexadecimal" : "decimal");
		}
		if (v > (UINT64_MAX - (uint64_t)d) / base) {
			err_set(err, -ERANGE, "number too large");
			return -ERANGE;
		}
		v = v * base + (uint64_t)d;
	}
	*ret = v;
	return 0;
}

static int check_range(uint64_t v, uint64_t min, uint64_t max, bool hex, struct err *err)
{
	if (v >= min && v <= max)
		return 0;
	if (hex)
		err_set(err, -ERANGE, "out of range 0x%" PRIx64 "..0x%" PRIx64, min, max);
	else
		err_set(err, -ERANGE, "out of range %" PRIu64 "..%" PRIu64, min, max);
	return -ERANGE;
}

static bool has_hex_prefix(const char *s)
{
	return s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

/* Digits of `base` in [min,max] (a range in hexadecimal when `hex_range`), stored only when both hold. */
static int parse_in_range(const char *digits, unsigned base, bool hex_range, uint64_t min, uint64_t max, uint64_t *ret,
			  struct err *err)
{
	uint64_t v;
	int r = parse_digits(digits, base, &v, err);

	if (r < 0)
		return r;
	r = check_range(v, min, max, hex_range, err);
	if (r < 0)
		return r;
	*ret = v;
	return 0;
}

int parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *ret, struct err *err)
{
	bool hex = has_hex_prefix(s);

	return parse_in_range(hex ? s + 2 : s, hex ? 16 : 10, false, min, max, ret, err);
}

int parse_uint_decimal(const char *s, uint64_t min, uint64_t max, uint64_t *ret, struct err *err)
{
	return parse_in_range(s, 10, false, min, max, ret, err);
}

int parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *ret, struct err *err)
{
	static const char suffixes[] = "KMG";
	char digits[32];
	size_t len = strlen(s);
	unsigned shift = 0;

	if (len >= sizeof(digits))
		return fail(err, "expected a size in bytes, or with a K, M or G suffix");
	memcpy(digits, s, len + 1);
	const char *suffix = len ? strchr(suffixes, toupper((unsigned char)digits[len - 1])) : NULL;
	if (suffix && *suffix) {
		shift = 10 * (unsigned)(suffix - suffixes + 1);
		digits[len - 1] = '\0';
	}
	uint64_t v;
	int r = parse_digits(digits, 10, &v, err);
	if (r < 0)
		return r;
	if (v > UINT64_MAX >> shift)
		return err_set(err, -ERANGE, "size too large");
	v <<= shift;
	if ((r = check_range(v, min, max, false, err)) < 0)
		return r;
	*ret = v;
	return 0;
}

int parse_hex(const char *s, uint64_t min, uint64_t max, uint64_t *ret, struct err *err)
{
	return parse_in_range(has_hex_prefix(s) ? s + 2 : s, 16, true, min, max, ret, err);
}

/* Digits with at most one point and a digit somewhere: what strtod reads as such, nothing more (no
 * sign, exponent, hex, inf or nan), so strtod cannot stop early or read what a config would not mean. */
static int check_decimal_syntax(const char *s, struct err *err)
{
	size_t whole = strspn(s, "0123456789"), frac = 0;

	if (s[whole] == '.')
		frac = strspn(s + whole + 1, "0123456789");
	if (*s == '-')
		return fail(err, "must not be negative");
	if (whole + frac == 0)
		return fail(err, "expected a decimal number");
	const char *end = s + whole + (s[whole] == '.' ? 1 + frac : 0);
	if (*end)
		return fail(err, "unexpected character '%c' in a decimal number", *end);
	return 0;
}

int parse_decimal(const char *s, double min, double max, double *ret, struct err *err)
{
	int r = check_decimal_syntax(s, err);

	if (r < 0)
		return r;
	double v = strtod(s, NULL);
	if (!(v >= min && v <= max))
		return err_set(err, -ERANGE, "out of range %g..%g", min, max);
	*ret = v;
	return 0;
}

int parse_real(const char *s, double min, double max, double *ret, struct err *err)
{
	char *end;

	if (*s == '-')
		return fail(err, "must not be negative");
	/* strtod alone would also take blanks, a sign, hex, inf and nan */
	if (!(*s >= '0' && *s <= '9') || strspn(s, "0123456789.eE+-") != strlen(s))
		return fail(err, "expected a number such as 1.5 or 2e3");
	errno = 0;
	double v = strtod(s, &end);
	if (*end)
		return fail(err, "expected a number such as 1.5 or 2e3");
	if (errno == ERANGE || !isfinite(v))
		return err_set(err, -ERANGE, "number too large or too small");
	if (!(v >= min && v <= max))
		return err_set(err, -ERANGE, "out of range %g..%g", min, max);
	*ret = v;
	return 0;
}

int parse_percent(const char *s, unsigned min, unsigned max, unsigned *ret, struct err *err)
{
	char buf[32];
	size_t len = strlen(s);
	uint64_t v;

	if (len >= sizeof(buf))
		return fail(err, "expected a percentage %u..%u", min, max);
	memcpy(buf, s, len + 1);
	if (len > 0 && buf[len - 1] == '%')
		buf[len - 1] = '\0';
	int r = parse_in_range(buf, 10, false, min, max, &v, err);
	if (r == 0)
		*ret = (unsigned)v;
	return r;
}

int parse_bool(const char *s, bool *ret, struct err *err)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(s, yes[i])) {
			*ret = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*ret = false;
			return 0;
		}
	}
	return fail(err, "expected true or false");
}

int parse_enum(const char *s, const char *const *names, unsigned *ret, struct err *err)
{
	char expected[ERR_TEXT_MAX] = "";
	size_t used = 0;

	for (unsigned i = 0; names[i]; i++) {
		if (!strcmp(s, names[i])) {
			*ret = i;
			return 0;
		}
		int n = snprintf(expected + used, sizeof(expected) - used, "%s%s", i ? " | " : "", names[i]);
		if (n > 0 && (size_t)n < sizeof(expected) - used)
			used += (size_t)n;
	}
	return fail(err, "expected one of %s", expected);
}

static bool is_list_separator(char c)
{
	return c == ',' || c == ' ' || c == '\t';
}

int parse_uint_list(const char *s, uint64_t min, uint64_t max, uint64_t **ret_values, size_t *ret_count,
		    struct err *err)
{
	uint64_t *values = NULL;
	size_t count = 0;
	int r = 0;

	for (const char *p = s; *p;) {
		while (is_list_separator(*p))
			p++;
		if (!*p)
			break;
		size_t len = strcspn(p, ", \t");
		char item[32];
		if (len >= sizeof(item)) {
			r = fail(err, "item %zu is too long", count + 1);
			break;
		}
		memcpy(item, p, len);
		item[len] = '\0';
		uint64_t v;
		r = parse_uint(item, min, max, &v, err);
		if (r < 0) {
			char reason[ERR_TEXT_MAX];
			snprintf(reason, sizeof(reason), "%s", err->text);
			err_set(err, -ERANGE, "item %zu '%.31s': %.100s", count + 1, item, reason);
			break;
		}
		uint64_t *grown = realloc(values, (count + 1) * sizeof(*values));
		if (!grown) {
			r = -ENOMEM;
			err_set(err, -ENOMEM, "out of memory");
			break;
		}
		values = grown;
		values[count++] = v;
		p += len;
	}
	if (r == 0 && count == 0)
		r = fail(err, "expected at least one value");
	if (r < 0) {
		free(values);
		return r;
	}
	*ret_values = values;
	*ret_count = count;
	return 0;
}

/* One "N" or "N-M" item of a CPU list. */
static int parse_cpu_range(const char *item, unsigned limit, unsigned *ret_first, unsigned *ret_last, struct err *err)
{
	char buf[32];
	uint64_t first, last;

	if (strlen(item) >= sizeof(buf))
		return fail(err, "CPU range '%.20s...' is too long", item);
	snprintf(buf, sizeof(buf), "%s", item);
	char *dash = strchr(buf, '-');
	if (dash)
		*dash = '\0';
	int r = parse_digits(buf, 10, &first, err);
	if (r == 0)
		r = dash ? parse_digits(dash + 1, 10, &last, err) : (last = first, 0);
	if (r < 0) {
		char reason[ERR_TEXT_MAX];
		snprintf(reason, sizeof(reason), "%s", err->text);
		return fail(err, "'%s': %.100s", item, reason);
	}
	if (first > last)
		return fail(err, "'%s': a range goes from low to high", item);
	if (last >= limit) {
		err_set(err, -ERANGE, "CPU %llu is beyond the limit of %u CPUs", (unsigned long long)last, limit);
		return -ERANGE;
	}
	*ret_first = (unsigned)first;
	*ret_last = (unsigned)last;
	return 0;
}

int parse_cpu_list(const char *s, unsigned limit, uint64_t *bits, unsigned *ret_count, struct err *err)
{
	unsigned count = 0;

	memset(bits, 0, limit / 8);
	if (!*s)
		return fail(err, "expected a CPU list like 0-3,8");
	for (const char *p = s;;) {
		size_t len = strcspn(p, ",");
		char item[32];
		unsigned first = 0, last = 0;
		if (len == 0)
			return fail(err, "empty item in the CPU list");
		if (len >= sizeof(item))
			return fail(err, "CPU range '%.20s...' is too long", p);
		memcpy(item, p, len);
		item[len] = '\0';
		int r = parse_cpu_range(item, limit, &first, &last, err);
		if (r < 0)
			return r;
		for (unsigned cpu = first; cpu <= last; cpu++) {
			count += !((bits[cpu / 64] >> (cpu % 64)) & 1);
			bits[cpu / 64] |= UINT64_C(1) << (cpu % 64);
		}
		if (!p[len])
			break;
		p += len + 1;
	}
	*ret_count = count;
	return 0;
}

int name_check(const char *s, struct err *err)
{
	size_t len = strlen(s);

	if (len == 0 || len > NAME_MAX_LEN)
		return fail(err, "a name must have 1..%d characters", NAME_MAX_LEN);
	if (!strcmp(s, ".") || !strcmp(s, ".."))
		return fail(err, "'.' and '..' are not valid names");
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.' && *p != '-')
			return fail(err, "character '%c' is not allowed in a name (use A-Z a-z 0-9 _ . -)", *p);
	return 0;
}
