#include "cli/plot_axis.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

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
