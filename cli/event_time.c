/* Event times in local time for the text views; see event_time.h. */
#include "cli/event_time.h"

#include <stdint.h>

#include "core/base/rfc3339.h"

static bool same_local_day(const struct tm *a, const struct tm *b)
{
	return a->tm_year == b->tm_year && a->tm_yday == b->tm_yday;
}

bool event_time_text(const char *rfc3339, time_t now, char *buf, size_t len)
{
	struct err err = { { 0 } };
	struct tm when, today;
	int64_t ms;

	if (len)
		buf[0] = '\0';
	if (!rfc3339 || rfc3339_parse_ms(rfc3339, &ms, &err) < 0)
		return false;
	/* floor, not truncation: 1969's events (a clock set wrong) keep their second */
	time_t seconds = (time_t)(ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000));
	if (!localtime_r(&seconds, &when) || !localtime_r(&now, &today))
		return false;
	const char *format = same_local_day(&when, &today) ? "%H:%M:%S" : "%Y-%m-%d %H:%M:%S";
	if (strftime(buf, len, format, &when) > 0)
		return true;
	if (len)
		buf[0] = '\0';
	return false;
}
