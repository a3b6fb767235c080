/* Events carry the wall-clock time they happened: the event log keeps it, the control protocol
 * sends it as RFC 3339 (UTC), and the text views print it in the local time zone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "cli/event_time.h"
#include "core/report/events.h"
#include "tests/util/test_main.h"

#define T0_MS 1796292942123LL /* 2026-12-03T10:15:42.123Z */

static void test_log_sends_rfc3339(void **state)
{
	struct event_log *log = calloc(1, sizeof(*log));

	(void)state;
	assert_non_null(log);
	event_log_add(log, 7, 700, (uint64_t)T0_MS, "web", "throttle: over target");
	event_log_add(log, 8, 800, (uint64_t)T0_MS + 100, "batch", "restore");
	json_t *all = event_log_to_json(log, NULL, 10);
	assert_int_equal(json_array_size(all), 2);
	json_t *first = json_array_get(all, 0);
	assert_string_equal(json_string_value(json_object_get(first, "time")), "2026-12-03T10:15:42.123Z");
	assert_int_equal(json_integer_value(json_object_get(first, "t_ms")), 700);
	assert_string_equal(json_string_value(json_object_get(json_array_get(all, 1), "time")),
			    "2026-12-03T10:15:42.223Z");
	json_decref(all);
	/* a clock past what RFC 3339 can write is no time rather than a wrong one */
	event_log_add(log, 9, 900, UINT64_MAX, "web", "restore");
	json_t *web = event_log_to_json(log, "web", 1);
	assert_true(json_is_null(json_object_get(json_array_get(web, 0), "time")));
	json_decref(web);
	event_log_fini(log);
	free(log);
}

static void with_zone(const char *tz)
{
	setenv("TZ", tz, 1);
	tzset();
}

static void test_local_text(void **state)
{
	time_t same_day = (time_t)(T0_MS / 1000) + 3600, next_day = (time_t)(T0_MS / 1000) + 86400;
	char buf[EVENT_TIME_TEXT_MAX];

	(void)state;
	with_zone("UTC0");
	assert_true(event_time_text("2026-12-03T10:15:42.123Z", same_day, buf, sizeof(buf)));
	assert_string_equal(buf, "10:15:42");
	/* an older day's event is dated */
	assert_true(event_time_text("2026-12-03T10:15:42.123Z", next_day, buf, sizeof(buf)));
	assert_string_equal(buf, "2026-12-03 10:15:42");
	/* the local zone, east of UTC: 19:15 in Tokyo, still 2026-12-03 there */
	with_zone("JST-9");
	assert_true(event_time_text("2026-12-03T10:15:42.123Z", same_day, buf, sizeof(buf)));
	assert_string_equal(buf, "19:15:42");
	/* and west of it, where it is still the day before at 10:15 UTC... */
	with_zone("PST8PDT");
	assert_true(event_time_text("2026-12-03T10:15:42Z", same_day, buf, sizeof(buf)));
	assert_string_equal(buf, "02:15:42");
	/* ...an offset the daemon did not send (another writer's) is honoured */
	assert_true(event_time_text("2026-12-03T11:15:42+01:00", same_day, buf, sizeof(buf)));
	assert_string_equal(buf, "02:15:42");
	/* anything but a time is refused, leaving the buffer empty */
	assert_false(event_time_text("yesterday", same_day, buf, sizeof(buf)));
	assert_string_equal(buf, "");
	assert_false(event_time_text(NULL, same_day, buf, sizeof(buf)));
	assert_false(event_time_text("2026-12-03T10:15:42Z", same_day, buf, 4)); /* no room */
	unsetenv("TZ");
	tzset();
}

TEST_MAIN({
	cmocka_unit_test(test_log_sends_rfc3339),
	cmocka_unit_test(test_local_text),
})
