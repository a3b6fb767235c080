#include "core/base/rfc3339.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define MS_PER_DAY  86400000LL
#define MS_PER_HOUR 3600000LL
#define MS_PER_MIN  60000LL

/* Days from 1970-01-01 to y-m-d (H. Hinnant's days_from_civil: exact for every year, no tables). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * 146097 + doe - 719468;
}

/* The inverse of days_from_civil. */
static void civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
	z += 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;

	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

static int64_t floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

bool rfc3339_format_ms(int64_t unix_ms, char *buf, size_t len)
{
	int64_t days = floor_div(unix_ms, MS_PER_DAY);
	int64_t in_day = unix_ms - days * MS_PER_DAY;
	int64_t y;
	int m, d;

	if (len)
		buf[0] = '\0';
	civil_from_days(days, &y, &m, &d);
	if (y < 0 || y > 9999 || len < RFC3339_MS_LEN + 1)
		return false;
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", (int)y, m, d, (int)(in_day / MS_PER_HOUR),
		 (int)(in_day / MS_PER_MIN % 60), (int)(in_day / 1000 % 60), (int)(in_day % 1000));
	return true;
}

/* `n` decimal digits at s into *ret; false when one is not a digit. */
static bool digits(const char *s, int n, int *ret)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*ret = v;
	return true;
}

static bool leap_year(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int days_in_month(int y, int m)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	return m == 2 && leap_year(y) ? 29 : days[m - 1];
}

/* The offset after the seconds and their fraction: Z, or +HH:MM / -HH:MM, and nothing after it. */
static bool parse_offset(const char *s, int64_t *ret_ms)
{
	int hh, mm;

	if ((s[0] == 'Z' || s[0] == 'z') && s[1] == '\0') {
		*ret_ms = 0;
		return true;
	}
	if ((s[0] != '+' && s[0] != '-') || !digits(s + 1, 2, &hh) || s[3] != ':' || !digits(s + 4, 2, &mm) ||
	    s[6] != '\0' || hh > 23 || mm > 59)
		return false;
	*ret_ms = (s[0] == '+' ? 1 : -1) * (hh * MS_PER_HOUR + mm * MS_PER_MIN);
	return true;
}

int rfc3339_parse_ms(const char *s, int64_t *ret, struct err *err)
{
	static const char form[] = "want YYYY-MM-DDTHH:MM:SS[.sss] and Z or +HH:MM, such as 2026-12-03T10:15:42.123Z";
	int y, mo, d, h, mi, sec, ms = 0;
	int64_t offset_ms;

	if (strnlen(s, 20) < 20 || !digits(s, 4, &y) || s[4] != '-' || !digits(s + 5, 2, &mo) || s[7] != '-' ||
	    !digits(s + 8, 2, &d) || (s[10] != 'T' && s[10] != 't') || !digits(s + 11, 2, &h) || s[13] != ':' ||
	    !digits(s + 14, 2, &mi) || s[16] != ':' || !digits(s + 17, 2, &sec))
		return err_set(err, -EINVAL, "not an RFC 3339 time: %s", form);
	const char *p = s + 19;
	if (*p == '.') {
		const char *first = ++p;
		for (; *p >= '0' && *p <= '9'; p++)
			if (p - first < 3)
				ms = ms * 10 + (*p - '0');
		if (p == first)
			return err_set(err, -EINVAL, "no digits after the decimal point: %s", form);
		for (long scale = p - first; scale < 3; scale++)
			ms *= 10;
	}
	if (!parse_offset(p, &offset_ms))
		return err_set(err, -EINVAL, "no time zone (Z or +HH:MM) after the time: %s", form);
	if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || sec > 60)
		return err_set(err, -EINVAL, "no such date or time of day");
	*ret = days_from_civil(y, mo, d) * MS_PER_DAY + h * MS_PER_HOUR + mi * MS_PER_MIN + sec * 1000LL + ms -
	       offset_ms;
	return 0;
}
