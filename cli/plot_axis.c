#include "cli/plot_axis.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

double axis_nice_step(double range, unsigned target)
{
	if (!(range > 0) || !isfinite(range) || target == 0)
		return 0;
	double raw = range / target;
	double mag = pow(10, floor(log10(raw)));
	double norm = raw / mag;
	double nice;

	/* a tolerance so that 2.0000000001 (rounding) stays a 2 */
	if (norm <= 1 + 1e-9)
		nice = 1;
	else if (norm <= 2 + 1e-9)
		nice = 2;
	else if (norm <= 5 + 1e-9)
		nice = 5;
	else
		nice = 10;
	return nice * mag;
}

/* The 1-2-5 step after `step`. */
static double next_step(double step)
{
	double mag = pow(10, floor(log10(step) + 1e-9));
	double norm = step / mag;

	return (norm < 1.5 ? 2 : norm < 3.5 ? 5 : 10) * mag;
}

int axis_ticks(double min, double max, unsigned target, struct axis_ticks *ret)
{
	if (!isfinite(min) || !isfinite(max) || min > max || target < 2 || target >= AXIS_MAX_TICKS)
		return -EINVAL;
	if (min == max) {
		double pad = fabs(min) > 0 ? fabs(min) * 0.1 : 1;
		max += pad;
		if (min != 0)
			min -= pad;
	}
	double step = axis_nice_step(max - min, target);
	double lo, hi;
	unsigned count;

	/* a step too small for the values' precision: nothing sensible to draw */
	if (step == 0 || !isfinite(step))
		return -EINVAL;
	for (;;) {
		lo = floor(min / step + 1e-9) * step;
		hi = ceil(max / step - 1e-9) * step;
		double n = round((hi - lo) / step);
		if (n < AXIS_MAX_TICKS) {
			count = (unsigned)n + 1;
			break;
		}
		step = next_step(step);
	}
	ret->lo = lo;
	ret->hi = hi;
	ret->step = step;
	ret->count = count;
	ret->decimals = 0;
	double digits = -floor(log10(step) + 1e-9);
	if (digits > 0)
		ret->decimals = digits > 15 ? 15 : (int)digits;
	return 0;
}

double axis_tick(const struct axis_ticks *t, unsigned i)
{
	double v = t->lo + i * t->step;

	/* snap away the binary rounding: 0.1 * 3 is 0.30000000000000004 */
	if (fabs(v) < t->step * 1e-9)
		return 0;
	return v;
}

void axis_format(const struct axis_ticks *t, double v, char *buf, size_t len)
{
	if (fabs(v) < t->step * 1e-9)
		v = 0;
	snprintf(buf, len, "%.*f", t->decimals, v);
	if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1))
		memmove(buf, buf + 1, strlen(buf));
}

#define MS_PER_DAY (86400 * INT64_C(1000))

/* Steps of the wall clock, in ms: each divides a day, so ticks on whole steps since the epoch fall
 * on whole steps of every UTC day. */
static const int64_t time_steps_ms[] = {
	1,	2,	5,	 10,	  20,	   50,	     100,      200,	 500,
	1000,	2000,	5000,	 10000,	  15000,   30000,    60000,    120000,	 300000,
	600000, 900000, 1800000, 3600000, 7200000, 10800000, 21600000, 43200000, MS_PER_DAY,
};

/* The step of whole days (1, 2, 5, 10, 20...) that fits `range_ms` in `target` intervals. */
static int64_t day_step_ms(double range_ms, unsigned target)
{
	double days = axis_nice_step(range_ms / (double)MS_PER_DAY, target);

	return days < 1 ? MS_PER_DAY : (int64_t)days * MS_PER_DAY;
}

static int64_t floor_to(int64_t v, int64_t step)
{
	int64_t q = v / step;

	return (v % step < 0 ? q - 1 : q) * step;
}

int axis_time_ticks(double min_s, double max_s, int64_t origin_ms, unsigned target, struct axis_ticks *ret)
{
	if (!isfinite(min_s) || !isfinite(max_s) || min_s > max_s || target < 2 || target >= AXIS_MAX_TICKS ||
	    fabs(min_s) > 1e12 || fabs(max_s) > 1e12)
		return -EINVAL;
	int64_t lo_ms = origin_ms + (int64_t)floor(min_s * 1000), hi_ms = origin_ms + (int64_t)ceil(max_s * 1000);
	if (hi_ms == lo_ms)
		hi_ms = lo_ms + 1000; /* one sample: a second around it */
	double range = (double)(hi_ms - lo_ms);
	int64_t step = 0;
	for (size_t i = 0; i < sizeof(time_steps_ms) / sizeof(time_steps_ms[0]) && !step; i++)
		if (range / (double)time_steps_ms[i] <= target)
			step = time_steps_ms[i];
	if (!step)
		step = day_step_ms(range, target);
	int64_t first = floor_to(lo_ms, step), last = -floor_to(-hi_ms, step); /* last: hi rounded up */
	ret->lo = (double)(first - origin_ms) / 1000;
	ret->hi = (double)(last - origin_ms) / 1000;
	ret->step = (double)step / 1000;
	ret->count = (unsigned)((last - first) / step) + 1;
	ret->decimals = step % 1000 == 0 ? 0 : step % 100 == 0 ? 1 : step % 10 == 0 ? 2 : 3;
	return 0;
}

void axis_time_format(const struct axis_ticks *t, int64_t ms, char *time, char *date, size_t len)
{
	int64_t day_ms = floor_to(ms, 1000), frac = ms - day_ms;
	time_t seconds = (time_t)(day_ms / 1000);
	struct tm tm;

	if (!gmtime_r(&seconds, &tm)) {
		snprintf(time, len, "?");
		snprintf(date, len, "?");
		return;
	}
	snprintf(date, len, "%04d-%02d-%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
	if (t->step >= 86400 && fmod(t->step, 86400) == 0) {
		time[0] = '\0';
		return;
	}
	int n = snprintf(time, len, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
	if (t->decimals > 0 && n > 0 && (size_t)n < len) {
		static const int64_t div[] = { 1, 100, 10, 1 };
		snprintf(time + n, len - (size_t)n, ".%0*lld", t->decimals, (long long)(frac / div[t->decimals]));
	}
}
