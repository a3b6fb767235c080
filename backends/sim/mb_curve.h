/* How much bandwidth an MB setting lets through: the simulator's plant for a bandwidth control.
 *
 * A curve maps a setting (0..100, the percentage the hardware holds: MBW_MAX's band top, or resctrl's
 * MB percent) to the largest fraction of a domain's capacity a partition at that setting may use.
 * It is piecewise linear through its points, with (0, 0) before the first point unless that point
 * is at 0, and (100, 1) after the last unless that one is at 100. No points: linear, PCT% -> PCT/100.
 * Pure arithmetic, shared by the MSC simulator and the resctrl emulator. */
#ifndef MPAMD_BACKENDS_SIM_MB_CURVE_H
#define MPAMD_BACKENDS_SIM_MB_CURVE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/base/error.h"

#define MB_CURVE_MAX_POINTS 32

struct mb_curve_point {
	double pct;	 /* 0..100, strictly increasing along the curve */
	double fraction; /* 0..1, never decreasing along the curve */
};

struct mb_curve {
	size_t count; /* 0: linear */
	struct mb_curve_point points[MB_CURVE_MAX_POINTS];
};

/* "PCT:FRACTION PCT:FRACTION ..." (blanks or commas between points); -EINVAL with the point and
 * what is wrong with it, leaving *ret as it was. */
int mb_curve_parse(const char *text, struct mb_curve *ret, struct err *err);

/* The curve as mb_curve_parse reads it back; false for the linear default (no points). */
bool mb_curve_format(const struct mb_curve *c, char *buf, size_t len);

/* The fraction of capacity at setting `pct` (clamped to 0..100). */
double mb_curve_fraction(const struct mb_curve *c, double pct);

#endif
