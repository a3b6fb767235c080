/* Axis ticks at "nice" values: steps of 1, 2 or 5 times a power of ten, or on the wall clock steps
 * a reader counts in (1, 2, 5, 10, 15, 30 seconds or minutes; 1, 2, 3, 6, 12 hours; days). Pure
 * functions. */
#ifndef MPAMD_CLI_PLOT_AXIS_H
#define MPAMD_CLI_PLOT_AXIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AXIS_MAX_TICKS 64

struct axis_ticks {
	double lo, hi; /* the axis range: the data's range widened to whole steps */
	double step;
	unsigned count; /* ticks lo, lo + step, ..., hi */
	int decimals;	/* digits after the point that label every tick exactly */
};

/* The 1-2-5 step nearest above range / target (target >= 1; range > 0 and finite), or 0 when the
 * arguments are not usable. */
double axis_nice_step(double range, unsigned target);

/* Ticks covering [min, max] with about `target` intervals (2..AXIS_MAX_TICKS - 1). An empty range
 * (min == max) is widened around the value; 0 stays the lower end when min is 0. Returns 0, or
 * -EINVAL when min or max is not finite, min > max, or target is out of range. */
int axis_ticks(double min, double max, unsigned target, struct axis_ticks *ret);

/* The value of tick i. */
double axis_tick(const struct axis_ticks *t, unsigned i);

/* Formats v with the ticks' decimals ("0" never "-0"). */
void axis_format(const struct axis_ticks *t, double v, char *buf, size_t len);

/* Wall-clock ticks over [min_s, max_s], seconds after origin_ms (ms since the Unix epoch), with about
 * `target` intervals: ret's lo, hi and step are in those seconds, and every tick falls on a whole
 * step of UTC (10:15:30, 10:16:00...). ret->decimals: the digits of a second that a label needs
 * (0..3). -EINVAL as axis_ticks. */
int axis_time_ticks(double min_s, double max_s, int64_t origin_ms, unsigned target, struct axis_ticks *ret);

/* The label of tick time `ms` (UTC): its time of day, HH:MM:SS with t->decimals digits of a second,
 * into time[len]; its date YYYY-MM-DD into date[len]. Steps of whole days label the date alone:
 * time is "". */
void axis_time_format(const struct axis_ticks *t, int64_t ms, char *time, char *date, size_t len);

#endif
