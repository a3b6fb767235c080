/* RFC 3339 times: the record file's format (UTC, milliseconds), checked against the C library's
 * calendar, and a parser that refuses every malformed or impossible time. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "core/base/rfc3339.h"
#include "tests/util/test_main.h"

static void test_known_times(void **state)
{
	char buf[RFC3339_MS_LEN + 1];

	(void)state;
	assert_true(rfc3339_format_ms(0, buf, sizeof(buf)));
	assert_string_equal(buf, "1970-01-01T00:00:00.000Z");
	assert_int_equal(strlen(buf), RFC3339_MS_LEN);
	/* a leap day, milliseconds padded to three digits */
	assert_true(rfc3339_format_ms((int64_t)951782400 * 1000 + 7, buf, sizeof(buf)));
	assert_string_equal(buf, "2000-02-29T00:00:00.007Z");
	/* before the epoch */
	assert_true(rfc3339_format_ms(-1, buf, sizeof(buf)));
	assert_string_equal(buf, "1969-12-31T23:59:59.999Z");
	/* too short a buffer, and years RFC 3339 cannot write */
	assert_false(rfc3339_format_ms(0, buf, RFC3339_MS_LEN));
	assert_string_equal(buf, "");
	assert_false(rfc3339_format_ms((int64_t)253402300800 * 1000, buf, sizeof(buf))); /* 10000-01-01 */
	assert_true(rfc3339_format_ms((int64_t)253402300799 * 1000 + 999, buf, sizeof(buf)));
	assert_string_equal(buf, "9999-12-31T23:59:59.999Z");
}

/* Every day of several centuries, at an odd time of day, against gmtime_r and back. */
static void test_agrees_with_gmtime(void **state)
{
	char buf[RFC3339_MS_LEN + 1], want[64];
	struct err err;

	(void)state;
	for (int64_t s = -2208988800LL; s < 7258118400LL; s += 86400 * 7 + 3601) {
		time_t t = (time_t)s;
		struct tm tm;
		int64_t ms = s * 1000 + (s & 1023) % 1000;
		assert_non_null(gmtime_r(&t, &tm));
		snprintf(want, sizeof(want), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
			 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms - s * 1000));
		assert_true(rfc3339_format_ms(ms, buf, sizeof(buf)));
		assert_string_equal(buf, want);
		int64_t back = 0;
		assert_int_equal(rfc3339_parse_ms(buf, &back, &err), 0);
		assert_true(back == ms);
	}
}

static int64_t parsed(const char *s)
{
	int64_t v = 0;
	struct err err = { "" };

	if (rfc3339_parse_ms(s, &v, &err) < 0)
		fail_msg("'%s' refused: %s", s, err.text);
	return v;
}

static void test_parse_forms(void **state)
{
	int64_t base = parsed("2026-12-03T10:15:42.123Z");

	(void)state;
	assert_true(parsed("2026-12-03T10:15:42Z") == base - 123);
	assert_true(parsed("2026-12-03t10:15:42.123z") == base);
	assert_true(parsed("2026-12-03T10:15:42.1Z") == base - 23);
	assert_true(parsed("2026-12-03T10:15:42.12Z") == base - 3);
	assert_true(parsed("2026-12-03T10:15:42.123999Z") == base); /* beyond ms: dropped */
	assert_true(parsed("2026-12-03T11:15:42.123+01:00") == base);
	assert_true(parsed("2026-12-03T05:45:42.123-04:30") == base);
	assert_true(parsed("2026-12-03T10:15:42.123-00:00") == base);
	/* a leap second is the next second's start */
	assert_true(parsed("2016-12-31T23:59:60Z") == parsed("2017-01-01T00:00:00Z"));
	assert_true(parsed("2024-02-29T00:00:00Z") - parsed("2024-02-28T00:00:00Z") == 86400000);
}

static void expect_refused(const char *s)
{
	int64_t v = 42;
	struct err err = { "" };

	if (rfc3339_parse_ms(s, &v, &err) != -EINVAL)
		fail_msg("'%s' accepted", s);
	assert_true(v == 42);
	assert_true(err.text[0] != '\0');
}

static void test_parse_refuses(void **state)
{
	static const char *const bad[] = {
		"",
		"2026-12-03",
		"2026-12-03T10:15:42",	     /* no zone */
		"2026-12-03 10:15:42Z",	     /* a space for T */
		"2026-12-03T10:15:42.Z",     /* no fraction digits */
		"2026-12-03T10:15:42.123ZZ", /* trailing text */
		"2026-12-03T10:15:42.123 ",  /* trailing blank */
		" 2026-12-03T10:15:42.123Z", /* leading blank */
		"2026-12-03T10:15:42+0100",  /* offset without a colon */
		"2026-12-03T10:15:42+24:00", /* offset hour */
		"2026-12-03T10:15:42+01:60", /* offset minute */
		"2026-13-03T10:15:42Z",	     /* month */
		"2026-00-03T10:15:42Z",	     /* month */
		"2026-02-29T10:15:42Z",	     /* not a leap year */
		"1900-02-29T10:15:42Z",	     /* not a leap year either */
		"2026-04-31T10:15:42Z",	     /* April has 30 days */
		"2026-12-00T10:15:42Z",	     /* day */
		"2026-12-03T24:00:00Z",	     /* hour */
		"2026-12-03T10:60:42Z",	     /* minute */
		"2026-12-03T10:15:61Z",	     /* second */
		"26-12-03T10:15:42Z",	     /* two-digit year */
		"2026-1-03T10:15:42Z",	     /* one-digit month */
		"2026-12-03T10:15:4aZ",	     /* a letter */
		"+2026-12-03T10:15:42Z",     /* a sign */
		"12345",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_refused(bad[i]);
}

TEST_MAIN({
	cmocka_unit_test(test_known_times),
	cmocka_unit_test(test_agrees_with_gmtime),
	cmocka_unit_test(test_parse_forms),
	cmocka_unit_test(test_parse_refuses),
})
