/* See mb_curve.h. */
#include "backends/sim/mb_curve.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/decimal_text.h"
#include "core/base/parse.h"

#define POINT_TEXT_MAX 64

/* One "PCT:FRACTION" into *pt; the reason without the text (the caller names the point). */
static int parse_point(const char *item, struct mb_curve_point *pt, struct err *err)
{
	char buf[POINT_TEXT_MAX];
	char *colon;

	snprintf(buf, sizeof(buf), "%s", item);
	colon = strchr(buf, ':');
	if (!colon)
		return err_set(err, -EINVAL, "expected PCT:FRACTION");
	*colon = '\0';
	struct err inner = { "" };
	if (parse_decimal(buf, 0, 100, &pt->pct, &inner) < 0)
		return err_set(err, -EINVAL, "PCT: %.80s", inner.text);
	if (parse_decimal(colon + 1, 0, 1, &pt->fraction, &inner) < 0)
		return err_set(err, -EINVAL, "FRACTION: %.80s", inner.text);
	return 0;
}

/* Point `n` against the one before it: a curve is a function, and more bandwidth is never less. */
static int check_order(const struct mb_curve *c, size_t n, struct err *err)
{
	const struct mb_curve_point *prev = &c->points[n - 1], *pt = &c->points[n];

	if (pt->pct <= prev->pct)
		return err_set(err, -EINVAL, "PCT must increase from one point to the next (%g after %g)", pt->pct,
			       prev->pct);
	if (pt->fraction < prev->fraction)
		return err_set(err, -EINVAL, "FRACTION must not decrease from one point to the next (%g after %g)",
			       pt->fraction, prev->fraction);
	return 0;
}

static int add_point(struct mb_curve *c, const char *item, struct err *err)
{
	struct err inner = { "" };
	int r;

	if (c->count == MB_CURVE_MAX_POINTS)
		return err_set(err, -EINVAL, "at most %d points", MB_CURVE_MAX_POINTS);
	r = parse_point(item, &c->points[c->count], &inner);
	if (r == 0 && c->count > 0)
		r = check_order(c, c->count, &inner);
	if (r < 0)
		return err_set(err, r, "point %zu '%s': %.100s", c->count + 1, item, inner.text);
	c->count++;
	return 0;
}

int mb_curve_parse(const char *text, struct mb_curve *ret, struct err *err)
{
	struct mb_curve c = { 0 };
	static const char separators[] = ", \t";

	for (const char *p = text + strspn(text, separators); *p; p += strspn(p, separators)) {
		size_t len = strcspn(p, separators);
		char item[POINT_TEXT_MAX];
		if (len >= sizeof(item))
			return err_set(err, -EINVAL, "a point is at most %d characters", POINT_TEXT_MAX - 1);
		memcpy(item, p, len);
		item[len] = '\0';
		p += len;
		int r = add_point(&c, item, err);
		if (r < 0)
			return r;
	}
	if (c.count == 0)
		return err_set(err, -EINVAL, "expected PCT:FRACTION ...");
	*ret = c;
	return 0;
}

bool mb_curve_format(const struct mb_curve *c, char *buf, size_t len)
{
	size_t used = 0;

	if (!c->count)
		return false;
	buf[0] = '\0';
	for (size_t i = 0; i < c->count && used < len; i++) {
		char pct[32], fraction[32];
		decimal_text(c->points[i].pct, pct, sizeof(pct));
		decimal_text(c->points[i].fraction, fraction, sizeof(fraction));
		used += (size_t)snprintf(buf + used, len - used, "%s%s:%s", i ? " " : "", pct, fraction);
	}
	return true;
}

static double lerp(const struct mb_curve_point *a, const struct mb_curve_point *b, double pct)
{
	return a->fraction + (b->fraction - a->fraction) * (pct - a->pct) / (b->pct - a->pct);
}

double mb_curve_fraction(const struct mb_curve *c, double pct)
{
	static const struct mb_curve_point origin = { 0, 0 }, full = { 100, 1 };
	const struct mb_curve_point *below = &origin;

	pct = pct > 100 ? 100 : (pct > 0 ? pct : 0); /* also turns NaN into 0 */
	if (!c || !c->count)
		return pct / 100;
	for (size_t i = 0; i < c->count; i++) {
		const struct mb_curve_point *pt = &c->points[i];
		if (pct <= pt->pct)
			return pct == pt->pct || pt->pct == below->pct ? pt->fraction : lerp(below, pt, pct);
		below = pt;
	}
	return below->pct == full.pct ? below->fraction : lerp(below, &full, pct);
}
